/*
 * vacuum.c
 *		ambulkdelete and amvacuumcleanup.
 *
 * Static entries are never moved: a deleted one gets its bit set in the
 * page's dead bitmap, so ranks, and with them the models, stay valid.
 * Pending entries are flagged dead in place, never moved: their sequence
 * numbers are their slots, and slot 0's key is the XOR
 * base of every other key on the page.  Every page VACUUM changes is
 * cleanup-locked first, so no scan still holds (pinned) entries of it
 * (the index-locking rule of the AM API).  CREATE INDEX CONCURRENTLY's
 * validation enumerates TIDs through ambulkdelete, so every entry of both
 * stages is visited.
 */
#include "postgres.h"

#include "access/genam.h"
#include "commands/vacuum.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "postmaster/autovacuum.h"
#include "storage/lmgr.h"
#include "utils/rel.h"

#include "learned.h"
#include "leaf.h"
#include "pending.h"

/*
 * Mark the deleted entries of one cleanup-locked static page (keys or
 * NULLs) dead.  With stats, the page is one of the current view: its live
 * entries are counted and its deletions reported.  Without, it is a
 * retired copy (see vacuum_retired): marked, not counted.  Returns the
 * page's dead entries, old and new.
 */
static int
vacuum_static_page(Relation index, Buffer buf, const LearnedLeafLayout *layout,
				   IndexBulkDeleteResult *stats,
				   IndexBulkDeleteCallback callback, void *callback_state,
				   int *dead)
{
	Page		page = BufferGetPage(buf);
	LearnedLeafView view;
	int			n;
	int			ndead = 0;
	int			nold = 0;
	int			s;

	/* plain or compressed (the dead bitmap is where either format has it) */
	LearnedLeafOpen(index, page, BufferGetBlockNumber(buf), layout, &view);
	n = view.nitems;
	for (s = 0; s < n; s++)
	{
		ItemPointerData tid;

		if (LearnedLeafIsDead(page, layout, s))
		{
			nold++;
			continue;
		}
		tid = LearnedLeafViewTid(&view, s);
		LearnedCheckHeapTid(index, &tid);
		if (callback(&tid, callback_state))
			dead[ndead++] = s;
		else if (stats)
			stats->num_index_tuples += 1;
	}
	if (ndead > 0)
	{
		GenericXLogState *state = LearnedXLogStart(index);
		int			k;

		page = LearnedXLogRegister(state, buf, false);
		for (k = 0; k < ndead; k++)
			LearnedLeafSetDead(page, layout, dead[k]);
		LearnedXLogFinish(state);
		if (stats)
			stats->tuples_removed += ndead;
	}
	return nold + ndead;
}

/*
 * Visit every live entry of a run of static pages of the current view;
 * mark the deleted ones dead.  Returns the run's dead entries.
 */
static int64
vacuum_static_run(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				  IndexBulkDeleteCallback callback, void *callback_state,
				  BlockNumber start, uint32 npages, uint16 type,
				  const LearnedLeafLayout *layout)
{
	int64		total_dead = 0;
	Relation	index = info->index;
	uint32		i;
	int		   *dead = palloc(sizeof(int) * Max(layout->capacity, LCP_MAX_ITEMS));

	for (i = 0; i < npages; i++)
	{
		BlockNumber blkno = start + i;
		Buffer		buf;

		vacuum_delay_point();
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 info->strategy);
		LockBufferForCleanup(buf);
		LearnedCheckPage(index, BufferGetPage(buf), blkno, type);
		total_dead += vacuum_static_page(index, buf, layout, stats, callback,
										 callback_state, dead);
		UnlockReleaseBuffer(buf);
	}
	pfree(dead);
	return total_dead;
}

/*
 * Mark the deleted entries of one cleanup-locked pending page dead.
 * Entries are not moved, so their sequence numbers stay valid; the next
 * merge drops them.  Entries from "counted" on are the current view's:
 * counted in stats, and their deletions reported.  Earlier ones are
 * already in the static stage (or the page is retired), and are marked
 * only for the scans whose view predates their merge.  stats may be NULL
 * when nothing is counted (counted = PG_UINT64_MAX).  Returns the number
 * of counted entries marked.
 */
static int
vacuum_pending_page(Relation index, Buffer buf, int keylen, uint64 counted,
					IndexBulkDeleteResult *stats,
					IndexBulkDeleteCallback callback, void *callback_state,
					int *dead)
{
	Page		page = BufferGetPage(buf);
	uint64		first_seq;
	int			n;
	int			ndead = 0;
	int			nreported = 0;
	int			i;

	/* a retired page too: a packed header bounds the slots read and marked */
	LearnedCheckPage(index, page, BufferGetBlockNumber(buf), LEARNED_PAGE_PENDING);
	first_seq = LearnedPendingFirstSeq(page);
	n = LearnedPendingCount(page, keylen);
	for (i = 0; i < n; i++)
	{
		uint16		flags;
		ItemPointerData tid;
		bool		mine = first_seq + i >= counted;

		flags = LearnedPendingFlagsAt(page, keylen, i);
		if (flags & LEARNED_PENDING_DEAD)
			continue;
		tid = LearnedPendingTidAt(page, keylen, i);
		LearnedCheckHeapTid(index, &tid);
		if (callback(&tid, callback_state))
		{
			dead[ndead++] = i;
			if (mine)
				nreported++;
		}
		else if (mine)
			stats->num_index_tuples += 1;
	}
	if (ndead > 0)
	{
		GenericXLogState *state = LearnedXLogStart(index);
		int			k;

		page = LearnedXLogRegister(state, buf, false);
		for (k = 0; k < ndead; k++)
			LearnedPendingAddFlagsAt(page, keylen, dead[k], LEARNED_PENDING_DEAD);
		LearnedXLogFinish(state);
		if (nreported > 0)
			stats->tuples_removed += nreported;
	}
	return nreported;
}

/*
 * Mark the deleted entries of the pending list dead, following the chain
 * from its head.  The blocks visited are set in "visited".  Returns the
 * number of entries of the current view marked.
 */
static int64
vacuum_pending(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			   IndexBulkDeleteCallback callback, void *callback_state,
			   BlockNumber head, uint64 merged, int keylen,
			   bool *visited, BlockNumber nvisited)
{
	Relation	index = info->index;
	BlockNumber blkno = head;
	int		   *dead = palloc(sizeof(int) * LearnedPendingMaxEntries(keylen));
	int64		marked = 0;
	uint32		steps = 0;

	while (blkno != InvalidBlockNumber)
	{
		Buffer		buf;

		vacuum_delay_point();
		LearnedCheckLink(index, blkno, &steps);
		if (blkno < nvisited)
			visited[blkno] = true;
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 info->strategy);
		LockBufferForCleanup(buf);
		LearnedCheckPage(index, BufferGetPage(buf), blkno, LEARNED_PAGE_PENDING);
		marked += vacuum_pending_page(index, buf, keylen, merged, stats,
									  callback, callback_state, dead);
		blkno = LearnedPageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
	}
	pfree(dead);
	return marked;
}

/*
 * Retired pages: the pages that merges replaced (copy-on-write) and that
 * garbage collection has not recycled yet.  A scan whose view predates a
 * merge still reads them, and an index-only scan returns their entries
 * without visiting the heap when the heap page is all-visible.  So the
 * deleted entries must be marked dead there too, under the same cleanup
 * lock as everywhere: otherwise the heap pass that follows this VACUUM
 * frees their slots, sets the page all-visible, and such a scan returns a
 * row that no longer exists.  This is btree's interlock (a scan pins the
 * page whose entries it is returning; VACUUM cleanup-locks every page that
 * holds entries) extended to every page a view can reach.
 *
 * Blocks set in "current" (the current view's pages, already visited) are
 * skipped.  Nothing here is counted in the statistics: each of these
 * entries also exists in the current view.
 */
static void
vacuum_retired(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			   IndexBulkDeleteCallback callback, void *callback_state,
			   const bool *current, BlockNumber ncurrent, int keylen,
			   const LearnedLeafLayout *keys)
{
	Relation	index = info->index;
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BlockNumber blkno;
	LearnedLeafLayout nulls;
	int		   *dead;

	LearnedLeafLayoutInit(&nulls, 0);
	dead = palloc(sizeof(int) * Max(Max(Max(keys->capacity, nulls.capacity),
										LearnedPendingMaxEntries(keylen)),
									LCP_MAX_ITEMS));
	for (blkno = LEARNED_METAPAGE_BLKNO + 1; blkno < nblocks; blkno++)
	{
		Buffer		buf;
		uint16		kind;
		bool		empty;

		if (blkno < ncurrent && current[blkno])
			continue;
		vacuum_delay_point();
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 info->strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		kind = LearnedPageKind(BufferGetPage(buf));
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		if (kind == LEARNED_PAGE_LEAF || kind == LEARNED_PAGE_NULLS ||
			kind == LEARNED_PAGE_PENDING)
		{
			LockBufferForCleanup(buf);
			/* an insert may have turned a free page into a new tail since */
			kind = LearnedPageKind(BufferGetPage(buf));

			/*
			 * A page with no entries has nothing to mark.  Among them are
			 * pages claimed and never written (LearnedClaimBlock's empty
			 * LEAF of generation 0, in no format of the index): a writer
			 * that failed between the claim and the write, or a run of
			 * blocks LearnedAllocRun gave up half claimed because an insert
			 * took one of them, leaves them for garbage collection, which
			 * may wait for older snapshots.  Opened with the index's layout,
			 * such a page of a variable-width or stride index would look
			 * corrupt and fail the VACUUM.
			 */
			empty = (kind == LEARNED_PAGE_LEAF || kind == LEARNED_PAGE_NULLS) &&
				LearnedPageGetOpaque(BufferGetPage(buf))->nitems == 0;
			if (kind == LEARNED_PAGE_LEAF && !empty)
				vacuum_static_page(index, buf, keys, NULL, callback,
								   callback_state, dead);
			else if (kind == LEARNED_PAGE_NULLS && !empty)
				vacuum_static_page(index, buf, &nulls, NULL, callback,
								   callback_state, dead);
			else if (kind == LEARNED_PAGE_PENDING)
				vacuum_pending_page(index, buf, keylen, PG_UINT64_MAX, NULL,
									callback, callback_state, dead);
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}
		ReleaseBuffer(buf);
	}
	pfree(dead);
}

/*
 * Tell every backend's pending copy to reload (it may hold entries that
 * are now dead, whose heap slots VACUUM is about to free).
 */
static void
bump_pending_epoch(Relation index)
{
	Buffer		metabuf = ReadBuffer(index, LEARNED_METAPAGE_BLKNO);
	GenericXLogState *state;
	LearnedMetaPage meta;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	state = LearnedXLogStart(index);
	meta = LearnedPageGetMeta(LearnedXLogRegister(state, metabuf, false));
	meta->pending_epoch++;
	LearnedXLogFinish(state);
	UnlockReleaseBuffer(metabuf);
}

static void
mark_current(bool *current, BlockNumber ncurrent, BlockNumber start,
			 uint32 npages)
{
	BlockNumber b;

	for (b = start; b < start + npages && b < ncurrent; b++)
		current[b] = true;
}

static void bulkdelete_locked(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
							  IndexBulkDeleteCallback callback, void *callback_state);

IndexBulkDeleteResult *
learnedbulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				  IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;

	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
	else
		stats->num_index_tuples = 0;	/* recounted below */

	/*
	 * Hold the merge lock throughout: a merge copying a pending entry into
	 * the static stage while we delete it would resurrect it.  Merge first
	 * (as GIN cleans its pending list), so most entries are visited once.
	 */
	LockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
	bulkdelete_locked(info, stats, callback, callback_state);
	UnlockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
	return stats;
}

static void
bulkdelete_locked(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				  IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	LearnedKeyInfo ki;
	uint32		s;
	bool	   *rewrite;
	uint32		nsegs;
	bool		any_rewrite = false;
	bool	   *current;
	BlockNumber ncurrent;

	/*
	 * Collect the garbage of earlier merges first: the merge below makes
	 * the last flip recent, and the collection in amvacuumcleanup then has
	 * to wait for the next VACUUM.
	 */
	if (!RecoveryInProgress())
		LearnedCollectGarbageLocked(index);

	LearnedReadMeta(index, &meta);
	if (LearnedPendingAppended(index, &meta) != meta.pending_merged && !RecoveryInProgress())
	{
		LearnedMergeLocked(index, NULL, 0, LEARNED_MERGE_BY_VACUUM);
		LearnedReadMeta(index, &meta);
	}
	dir = LearnedGetDirectory(index, meta.generation);
	LearnedKeyInfoInit(index, &ki);

	/*
	 * The current view's blocks: visited below, so the walk over retired
	 * pages skips them.  Blocks added later (new pending tail pages) hold
	 * only entries of tuples inserted since the heap scan: none is dead.
	 */
	ncurrent = RelationGetNumberOfBlocks(index);
	current = palloc0(sizeof(bool) * Max(ncurrent, 1));

	/*
	 * The pending list first: an entry that a later merge moves from the
	 * pending list to the static stage is then still seen once.
	 */
	if (meta.pending_head != InvalidBlockNumber &&
		vacuum_pending(info, stats, callback, callback_state,
					   meta.pending_head, meta.pending_merged, meta.keylen,
					   current, ncurrent) > 0)
		bump_pending_epoch(index);

	rewrite = palloc0(sizeof(bool) * Max(dir->nsegments, 1));
	nsegs = dir->nsegments;
	for (s = 0; s < dir->nsegments; s++)
	{
		int64		ndead = vacuum_static_run(info, stats, callback, callback_state,
											  dir->segments[s].start_blk,
											  dir->segments[s].npages,
											  LEARNED_PAGE_LEAF, &ki.layout);

		mark_current(current, ncurrent, dir->segments[s].start_blk,
					 dir->segments[s].npages);
		if (ndead > 0 &&
			(double) ndead >= LEARNED_REWRITE_DEAD_FRACTION * dir->segments[s].nitems)
		{
			rewrite[s] = true;
			any_rewrite = true;
		}
	}
	if (dir->nulls_npages > 0)
	{
		LearnedLeafLayout nl;

		LearnedLeafLayoutInit(&nl, 0);
		vacuum_static_run(info, stats, callback, callback_state,
						  dir->nulls_start, dir->nulls_npages,
						  LEARNED_PAGE_NULLS, &nl);
		mark_current(current, ncurrent, dir->nulls_start, dir->nulls_npages);
	}
	vacuum_retired(info, stats, callback, callback_state, current, ncurrent,
				   meta.keylen, &ki.layout);
	pfree(current);

	/*
	 * Segments that are mostly dead are rewritten now (a merge with no new
	 * entries for them), so that space does not stay lost where no insert
	 * lands (an append-only table deleting its oldest rows).
	 */
	if (any_rewrite && !RecoveryInProgress())
		LearnedMergeLocked(index, rewrite, nsegs, LEARNED_MERGE_BY_VACUUM);
	pfree(rewrite);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->estimated_count = false;
}

/*
 * amvacuumcleanup.  Without an ambulkdelete before it (which merges first),
 * it merges the pending list, as GIN's cleans its own: a VACUUM that found
 * no dead row, and the insert-driven autovacuum of an insert-only table,
 * call only this, and an index whose inserts stopped below the merge
 * trigger (or whose merge trigger nobody reached again, the end of a load)
 * would otherwise keep its list, and every new backend's first scan would
 * read and sort it.  An ANALYZE calls only this too (analyze_only): under
 * autovacuum it merges, as GIN's does, and a manual ANALYZE leaves the
 * index alone.
 */
IndexBulkDeleteResult *
learnedvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
	{
		if (IsAutoVacuumWorkerProcess())
			LearnedMerge(info->index, LEARNED_MERGE_BY_VACUUM);
		return stats;
	}
	/*
	 * Recycle the pages merges replaced, once no scan can use them; merge
	 * in between if no ambulkdelete did (stats is NULL).
	 */
	LearnedCollectGarbage(info->index, stats == NULL);
	if (stats == NULL)
	{
		LearnedMetaPageData meta;

		/* no bulkdelete ran: report the counters the metapage has */
		LearnedReadMeta(info->index, &meta);
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
		stats->num_index_tuples = (double) (meta.nstatic + meta.nnulls +
											(LearnedPendingAppended(info->index, &meta) - meta.pending_merged));
		stats->estimated_count = true;
	}
	stats->num_pages = RelationGetNumberOfBlocks(info->index);
	return stats;
}
