/*
 * vacuum.c
 *		ambulkdelete and amvacuumcleanup.
 *
 * Static entries are never moved: a deleted one gets its bit set in the
 * page's dead bitmap, so ranks, and with them the models, stay valid.
 * Pending pages are compacted in place.  Every page VACUUM changes is
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
#include "storage/lmgr.h"
#include "utils/rel.h"

#include "learned.h"

/*
 * Visit every live entry of a run of static pages (keys or NULLs); mark the
 * deleted ones dead.
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
	int		   *dead = palloc(sizeof(int) * layout->capacity);

	for (i = 0; i < npages; i++)
	{
		BlockNumber blkno = start + i;
		Buffer		buf;
		Page		page;
		int			n;
		int			ndead = 0;
		int			s;

		vacuum_delay_point();
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 info->strategy);
		LockBufferForCleanup(buf);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, blkno, type);
		n = Min(LearnedPageGetOpaque(page)->nitems, layout->capacity);
		for (s = 0; s < n; s++)
		{
			if (LearnedLeafIsDead(page, layout, s))
			{
				total_dead++;
				continue;
			}
			if (callback(LearnedLeafTid(page, layout, s), callback_state))
				dead[ndead++] = s;
			else
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
			stats->tuples_removed += ndead;
			total_dead += ndead;
		}
		UnlockReleaseBuffer(buf);
	}
	pfree(dead);
	return total_dead;
}

/*
 * Mark the deleted entries of the pending list dead.  Entries are not moved,
 * so their sequence numbers stay valid; the next merge drops them.  Returns
 * the number of entries marked.
 */
static int64
vacuum_pending(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			   IndexBulkDeleteCallback callback, void *callback_state,
			   BlockNumber head, uint64 merged, int keylen)
{
	Relation	index = info->index;
	BlockNumber blkno = head;
	int			cap = LearnedPendingCapacity(keylen);
	int		   *dead = palloc(sizeof(int) * cap);
	int64		marked = 0;

	while (blkno != InvalidBlockNumber)
	{
		Buffer		buf;
		Page		page;
		uint64		first_seq;
		int			n;
		int			i;
		int			ndead = 0;

		vacuum_delay_point();
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 info->strategy);
		LockBufferForCleanup(buf);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, blkno, LEARNED_PAGE_PENDING);
		first_seq = LearnedPendingFirstSeq(page);
		n = Min(LearnedPageGetOpaque(page)->nitems, cap);
		/* ask the callback exactly once per TID (CIC's callback collects) */
		for (i = 0; i < n; i++)
		{
			char	   *p = LearnedPendingItemPtr(page, keylen, i);
			uint16		flags;

			memcpy(&flags, p + sizeof(ItemPointerData), sizeof(uint16));
			if ((flags & LEARNED_PENDING_DEAD) || first_seq + i < merged)
				continue;		/* gone, or already in the static stage */
			if (callback((ItemPointer) p, callback_state))
				dead[ndead++] = i;
			else
				stats->num_index_tuples += 1;
		}
		if (ndead > 0)
		{
			GenericXLogState *state = LearnedXLogStart(index);
			int			k;

			page = LearnedXLogRegister(state, buf, false);
			for (k = 0; k < ndead; k++)
			{
				char	   *p = LearnedPendingItemPtr(page, keylen, dead[k]);
				uint16		flags;

				memcpy(&flags, p + sizeof(ItemPointerData), sizeof(uint16));
				flags |= LEARNED_PENDING_DEAD;
				memcpy(p + sizeof(ItemPointerData), &flags, sizeof(uint16));
			}
			LearnedXLogFinish(state);
			stats->tuples_removed += ndead;
			marked += ndead;
		}
		blkno = LearnedPageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
	}
	pfree(dead);
	return marked;
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
		LearnedMergeLocked(index, NULL, 0);
		LearnedReadMeta(index, &meta);
	}
	dir = LearnedGetDirectory(index, meta.generation);
	LearnedKeyInfoInit(index, &ki);

	/*
	 * The pending list first: an entry that a later merge moves from the
	 * pending list to the static stage is then still seen once.
	 */
	if (meta.pending_head != InvalidBlockNumber &&
		vacuum_pending(info, stats, callback, callback_state,
					   meta.pending_head, meta.pending_merged, meta.keylen) > 0)
		bump_pending_epoch(index);

	rewrite = palloc0(sizeof(bool) * Max(dir->nsegments, 1));
	nsegs = dir->nsegments;
	for (s = 0; s < dir->nsegments; s++)
	{
		int64		ndead = vacuum_static_run(info, stats, callback, callback_state,
											  dir->segments[s].start_blk,
											  dir->segments[s].npages,
											  LEARNED_PAGE_LEAF, &ki.layout);

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
	}
	/*
	 * Segments that are mostly dead are rewritten now (a merge with no new
	 * entries for them), so that space does not stay lost where no insert
	 * lands (an append-only table deleting its oldest rows).
	 */
	if (any_rewrite && !RecoveryInProgress())
		LearnedMergeLocked(index, rewrite, nsegs);
	pfree(rewrite);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->estimated_count = false;
}

IndexBulkDeleteResult *
learnedvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;
	/* recycle the pages merges replaced, once no scan can use them */
	LearnedCollectGarbage(info->index);
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
