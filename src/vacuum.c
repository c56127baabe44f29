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
#include "miscadmin.h"
#include "utils/rel.h"

#include "learned.h"

/*
 * Visit every live entry of a run of static pages (keys or NULLs); mark the
 * deleted ones dead.
 */
static void
vacuum_static_run(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				  IndexBulkDeleteCallback callback, void *callback_state,
				  BlockNumber start, uint32 npages, uint16 type,
				  const LearnedLeafLayout *layout)
{
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
				continue;
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
		}
		UnlockReleaseBuffer(buf);
	}
	pfree(dead);
}

/*
 * Compact every pending page, dropping deleted entries.  The chain is not
 * shortened: emptied pages stay linked and are refilled by nobody until the
 * dynamic stage recycles them.
 */
static void
vacuum_pending(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			   IndexBulkDeleteCallback callback, void *callback_state,
			   BlockNumber head, int keylen)
{
	Relation	index = info->index;
	BlockNumber blkno = head;
	int			isz = LearnedPendingItemSize(keylen);
	bool	   *deleted = palloc(sizeof(bool) * LearnedPendingCapacity(keylen));

	while (blkno != InvalidBlockNumber)
	{
		Buffer		buf;
		Page		page;
		LearnedPageOpaque opaque;
		int			n;
		int			i;
		int			keep = 0;
		bool		any = false;

		vacuum_delay_point();
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 info->strategy);
		LockBufferForCleanup(buf);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, blkno, LEARNED_PAGE_PENDING);
		opaque = LearnedPageGetOpaque(page);
		n = opaque->nitems;
		/* ask the callback exactly once per TID (CIC's callback collects) */
		for (i = 0; i < n; i++)
		{
			char	   *p = (char *) page + LEARNED_LEAF_DATA_OFFSET + i * isz;

			deleted[i] = callback((ItemPointer) p, callback_state);
			any |= deleted[i];
		}
		if (any)
		{
			GenericXLogState *state = LearnedXLogStart(index);

			page = LearnedXLogRegister(state, buf, false);
			opaque = LearnedPageGetOpaque(page);
			for (i = 0; i < n; i++)
			{
				char	   *p = (char *) page + LEARNED_LEAF_DATA_OFFSET + i * isz;

				if (deleted[i])
				{
					stats->tuples_removed += 1;
					continue;
				}
				if (keep != i)
					memmove((char *) page + LEARNED_LEAF_DATA_OFFSET + keep * isz,
							p, isz);
				keep++;
			}
			memset((char *) page + LEARNED_LEAF_DATA_OFFSET + keep * isz, 0,
				   (n - keep) * isz);
			opaque->nitems = keep;
			LearnedXLogFinish(state);
		}
		else
			keep = n;
		stats->num_index_tuples += keep;
		blkno = LearnedPageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
	}
	pfree(deleted);
}

IndexBulkDeleteResult *
learnedbulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				  IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	LearnedKeyInfo ki;
	uint32		s;

	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
	else
		stats->num_index_tuples = 0;	/* recounted below */

	LearnedReadMeta(index, &meta);
	dir = LearnedGetDirectory(index, meta.generation);
	LearnedKeyInfoInit(index, &ki);

	/*
	 * The pending list first: an entry that a later merge moves from the
	 * pending list to the static stage is then still seen once.
	 */
	if (meta.pending_head != InvalidBlockNumber)
		vacuum_pending(info, stats, callback, callback_state,
					   meta.pending_head, meta.keylen);

	for (s = 0; s < dir->nsegments; s++)
		vacuum_static_run(info, stats, callback, callback_state,
						  dir->segments[s].start_blk, dir->segments[s].npages,
						  LEARNED_PAGE_LEAF, &ki.layout);
	if (dir->nulls_npages > 0)
	{
		LearnedLeafLayout nl;

		LearnedLeafLayoutInit(&nl, 0);
		vacuum_static_run(info, stats, callback, callback_state,
						  dir->nulls_start, dir->nulls_npages,
						  LEARNED_PAGE_NULLS, &nl);
	}
	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->estimated_count = false;
	return stats;
}

IndexBulkDeleteResult *
learnedvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;
	if (stats == NULL)
	{
		LearnedMetaPageData meta;

		/* no bulkdelete ran: report the counters the metapage has */
		LearnedReadMeta(info->index, &meta);
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
		stats->num_index_tuples = (double) (meta.nstatic + meta.nnulls +
											meta.pending_appended);
		stats->estimated_count = true;
	}
	stats->num_pages = RelationGetNumberOfBlocks(info->index);
	return stats;
}
