/*
 * merge.c
 *		The dynamic stage's merge: fold the pending list into the static
 *		stage copy-on-write, flip the metapage, recycle unreachable pages;
 *		the merge trigger, the background worker and learned_index_merge().
 *
 * Merge protocol (see docs/architecture.md, "Merge"):
 *	 1. Take the merge lock (heavyweight, pseudo page LEARNED_MERGE_LOCK): one
 *		merge per index, and never concurrently with ambulkdelete or GC.
 *	 2. Read the metapage: generation g, pending range [merged, S) where S is
 *		the append counter now.  Later appends are left for the next merge.
 *	 3. Read those pending entries, sort them, and assign each to the segment
 *		whose key range holds it.
 *	 4. Rewrite only the segments that received entries: their old live
 *		entries plus the new ones, neighbours joined, into newly allocated
 *		page runs (split when they outgrow the cap), retrained, WAL-logged as
 *		full pages.  Untouched segments keep their pages and descriptors.
 *	 5. Write a new directory (generation g+1) on new pages.
 *	 6. Flip the metapage in one record: generation, directory, counts,
 *		pending_merged = S, pending head advanced, pending_epoch bumped, and
 *		last_flip_xid.  Before the flip nothing reachable has changed (a crash
 *		leaves the old index and orphaned pages); after it the new index is
 *		complete.  last_flip_xid is the next xid at the flip.
 *	 7. The replaced pages become unreachable.  GC (in VACUUM) frees
 *		unreachable pages only once no snapshot older than the last flip can
 *		exist (GlobalVisCheckRemovableFullXid), so running scans of the old
 *		generation keep valid pages.
 *
 * The merge lock is a heavyweight lock: an ERROR releases it with the
 * transaction, so no PG_TRY is needed around it.
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "catalog/storage.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "catalog/pg_index.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/autovacuum.h"
#include "storage/latch.h"
#include "postmaster/bgworker.h"
#include "storage/freespace.h"
#include "storage/indexfsm.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "holes.h"
#include "learned.h"
#include "leaf.h"
#include "pending.h"

/* fewest entries past a composite map's ranges that re-plan it (replan_due) */
#define LEARNED_REPLAN_MIN	1024

PG_FUNCTION_INFO_V1(learned_index_merge);
PG_FUNCTION_INFO_V1(learned_index_merge_step);

static BlockNumber collect_garbage_locked(Relation index, BlockNumber *nfreed);
static BlockNumber collect_garbage_if_due(Relation index, const LearnedMetaPageData *meta,
										  bool any);
static int64 sweep_step(Relation index, LearnedMergeBy by);
static int64 vacuum_sweep(Relation index, LearnedMergeBy by);
static int64 merge_far_over(Relation index, LearnedMergeBy by);
static bool far_over_now(Relation index);
static bool tail_over(const LearnedMetaPageData *meta, uint64 appended);
static bool witness_passed(Relation index, const LearnedMetaPageData *meta);
static void witness_record(Relation index, const LearnedMetaPageData *meta);
static void witness_wait(Relation index, const LearnedMetaPageData *meta);

/* ---------- reading ---------- */

typedef struct PendingRead
{
	LearnedEntry *keys;
	Size		nkeys;
	ItemPointerData *nulls;
	Size		nnulls;
	BlockNumber new_head;		/* first page holding an entry >= upto */
	uint32		dropped_pages;	/* pages before new_head: they leave the chain */
} PendingRead;

/*
 * Read the live pending entries with seq in [from, upto).
 */
static void
read_pending(Relation index, const LearnedKeyInfo *ki,
			 const LearnedMetaPageData *meta, uint64 upto, PendingRead *pr)
{
	BlockNumber blkno = meta->pending_head;
	int			keylen = meta->keylen;
	Size		maxkeys = 1024;
	Size		maxnulls = 64;
	uint32		steps = 0;

	memset(pr, 0, sizeof(*pr));
	pr->keys = palloc_extended(maxkeys * sizeof(LearnedEntry), MCXT_ALLOC_HUGE);
	pr->nulls = palloc(maxnulls * sizeof(ItemPointerData));
	pr->new_head = InvalidBlockNumber;
	while (blkno != InvalidBlockNumber)
	{
		Buffer		buf;
		Page		page;
		uint64		first_seq;
		int			n;
		int			i;

		LearnedCheckLink(index, blkno, &steps);
		buf = ReadBuffer(index, blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, blkno, LEARNED_PAGE_PENDING);
		first_seq = LearnedPendingFirstSeq(page);
		n = LearnedPendingCount(page, keylen);
		for (i = 0; i < n; i++)
		{
			uint64		seq = first_seq + i;
			uint16		flags;

			if (seq < meta->pending_merged)
				continue;
			if (seq >= upto)
				break;
			flags = LearnedPendingFlagsAt(page, keylen, i);
			if (flags & LEARNED_PENDING_DEAD)
				continue;
			if (flags & LEARNED_PENDING_NULL)
			{
				if (pr->nnulls >= maxnulls)
				{
					maxnulls *= 2;
					pr->nulls = repalloc_huge(pr->nulls, maxnulls * sizeof(ItemPointerData));
				}
				pr->nulls[pr->nnulls++] = LearnedPendingTidAt(page, keylen, i);
			}
			else
			{
				LearnedEntry *e;

				if (pr->nkeys >= maxkeys)
				{
					maxkeys *= 2;
					pr->keys = repalloc_huge(pr->keys, maxkeys * sizeof(LearnedEntry));
				}
				e = &pr->keys[pr->nkeys++];
				e->tid = LearnedPendingTidAt(page, keylen, i);
				e->key = LearnedKeyCopyAlloc(ki, LearnedPendingKeyAt(index, ki, page, blkno, i),
											 CurrentMemoryContext);
				e->mkey = LearnedKeyMap(ki, e->key);
			}
		}
		/* the page stays in the chain if it has (or may get) entries >= upto */
		if (pr->new_head == InvalidBlockNumber &&
			(first_seq + n > upto || LearnedPageGetOpaque(page)->next == InvalidBlockNumber))
			pr->new_head = blkno;
		if (pr->new_head == InvalidBlockNumber)
			pr->dropped_pages++;
		blkno = LearnedPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Append the live entries of pages [pg_from, pg_to) of a static segment to
 * *out (sorted order kept).
 */
static void
read_segment_pages(Relation index, const LearnedKeyInfo *ki, const LearnedSegment *seg,
				   uint32 pg_from, uint32 pg_to,
				   LearnedEntry **out, Size *nout, Size *maxout)
{
	uint32		pg;
	uint64	   *ckeys = NULL;
	uint64	   *cblocks = NULL;
	uint64	   *coffsets = NULL;

	/* a compressed page is decoded in one sequential pass */
	if (seg->compressed)
	{
		ckeys = palloc(sizeof(uint64) * LCP_MAX_ITEMS);
		cblocks = palloc(sizeof(uint64) * LCP_MAX_ITEMS);
		coffsets = palloc(sizeof(uint64) * LCP_MAX_ITEMS);
	}
	for (pg = pg_from; pg < pg_to; pg++)
	{
		BlockNumber blkno = seg->start_blk + pg;
		Buffer		buf = ReadBuffer(index, blkno);
		Page		page;
		LearnedLeafView view;
		int			n;
		int			i;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, blkno, LEARNED_PAGE_LEAF);
		LearnedLeafOpen(index, page, blkno, &ki->layout, &view);
		n = view.nitems;
		if (*nout + n > *maxout)
		{
			while (*nout + n > *maxout)
				*maxout *= 2;
			*out = repalloc_huge(*out, *maxout * sizeof(LearnedEntry));
		}
		if (view.compressed)
			LearnedLeafDecodeRange(&view, 0, n, ckeys, cblocks, coffsets);
		for (i = 0; i < n; i++)
		{
			LearnedEntry *e;

			if (LearnedLeafIsDead(page, &ki->layout, i))
				continue;
			e = &(*out)[(*nout)++];
			if (view.compressed)
			{
				/* by-value keys: nothing to copy */
				e->key = LearnedLeafImageKey(ki, ckeys[i]);
				ItemPointerSet(&e->tid, (BlockNumber) cblocks[i], (OffsetNumber) coffsets[i]);
			}
			else
			{
				e->key = LearnedKeyCopyAlloc(ki, LearnedLeafViewKey(&view, ki, i),
											 CurrentMemoryContext);
				e->tid = LearnedLeafViewTid(&view, i);
			}
			e->mkey = LearnedKeyMap(ki, e->key);
		}
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
	if (ckeys)
	{
		pfree(ckeys);
		pfree(cblocks);
		pfree(coffsets);
	}
}

/* the live entries of a whole segment */
static void
read_segment(Relation index, const LearnedKeyInfo *ki, const LearnedSegment *seg,
			 LearnedEntry **out, Size *nout, Size *maxout)
{
	read_segment_pages(index, ki, seg, 0, seg->npages, out, nout, maxout);
}

/*
 * The first entry of leaf page blkno (dead or not: it is the page's lower
 * bound), its key copied.
 */
static void
page_first_entry(Relation index, const LearnedKeyInfo *ki, BlockNumber blkno,
				 LearnedEntry *out)
{
	Buffer		buf = ReadBuffer(index, blkno);
	Page		page;
	LearnedLeafView view;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	LearnedCheckPage(index, page, blkno, LEARNED_PAGE_LEAF);
	if (LearnedPageGetOpaque(page)->nitems == 0)
		LearnedReportCorrupt(index, blkno, "empty leaf page");
	LearnedLeafOpen(index, page, blkno, &ki->layout, &view);
	out->key = LearnedKeyCopyAlloc(ki, LearnedLeafViewKey(&view, ki, 0),
								   CurrentMemoryContext);
	out->tid = LearnedLeafViewTid(&view, 0);
	out->mkey = LearnedKeyMap(ki, out->key);
	UnlockReleaseBuffer(buf);
}

/* a copy of the first key of a segment (dead or not: it is its lower bound) */
static Datum
segment_first_key(Relation index, const LearnedKeyInfo *ki, const LearnedSegment *seg)
{
	LearnedEntry e;

	page_first_entry(index, ki, seg->start_blk, &e);
	return e.key;
}

/*
 * The append path of a merge: may the pending entries routed to a
 * segment, keys[0..] sorted, go into new segment(s) after it, keeping its
 * pages as they are?  Yes when the segment is large (a small tail segment
 * is rewritten with them, so tails coalesce up to the threshold) and the
 * smallest new key sorts at or after the segment's last key, dead or not
 * (it is the segment's upper bound).  The comparator decides: an image may
 * tie on distinct keys.
 *
 * Keys equal to the old last key may go to the new segment: a run of equal
 * keys then spans a segment boundary, as after a build that cut a run.
 * Scans search the static stage by the comparator across segments, and
 * route later pending entries equal to the new segment's first key to it.
 */
static bool
append_keeps_segment(Relation index, LearnedKeyInfo *ki, const LearnedSegment *seg,
					 const LearnedEntry *first_new)
{
	BlockNumber blkno;
	Buffer		buf;
	Page		page;
	LearnedLeafView view;
	bool		res;

	if (seg->npages < LEARNED_APPEND_KEEP_MIN_PAGES || seg->nitems == 0)
		return false;
	blkno = seg->start_blk + seg->npages - 1;
	buf = ReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	LearnedCheckPage(index, page, blkno, LEARNED_PAGE_LEAF);
	/* either leaf format: the view validates a compressed page */
	LearnedLeafOpen(index, page, blkno, &ki->layout, &view);
	if (view.nitems == 0)
		LearnedReportCorrupt(index, blkno, "leaf page does not match its directory");
	res = LearnedKeyCmp(ki, first_new->key,
						LearnedLeafViewKey(&view, ki, view.nitems - 1)) >= 0;
	UnlockReleaseBuffer(buf);
	return res;
}

/* live TIDs of the NULL run */
static void
read_nulls(Relation index, BlockNumber start, uint32 npages,
		   ItemPointerData **out, Size *nout, Size *maxout)
{
	LearnedLeafLayout nl;
	uint32		pg;

	LearnedLeafLayoutInit(&nl, 0);
	for (pg = 0; pg < npages; pg++)
	{
		Buffer		buf = ReadBuffer(index, start + pg);
		Page		page;
		int			n;
		int			i;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, start + pg, LEARNED_PAGE_NULLS);
		n = Min(LearnedPageGetOpaque(page)->nitems, nl.capacity);
		for (i = 0; i < n; i++)
		{
			if (LearnedLeafIsDead(page, &nl, i))
				continue;
			if (*nout >= *maxout)
			{
				*maxout *= 2;
				*out = repalloc_huge(*out, *maxout * sizeof(ItemPointerData));
			}
			(*out)[(*nout)++] = *LearnedLeafTid(page, &nl, i);
		}
		UnlockReleaseBuffer(buf);
	}
}

/* the order of entries: (mkey, tid), or (mkey, key, tid) if composite */
static int
entry_order(LearnedKeyInfo *ki, const LearnedEntry *a, const LearnedEntry *b)
{
	int			r = 0;

	if (a->mkey != b->mkey)
		r = a->mkey < b->mkey ? -1 : 1;
	else if (!LearnedKeyMapExact(ki))
		r = LearnedKeyCmp(ki, a->key, b->key);
	if (r == 0)
		r = ItemPointerCompare((ItemPointer) &a->tid, (ItemPointer) &b->tid);
	return r;
}

/* merge two runs sorted by entry_order */
static void
merge_entries(LearnedKeyInfo *ki, const LearnedEntry *a, Size na,
			  const LearnedEntry *b, Size nb, LearnedEntry *dst)
{
	Size		i = 0,
				j = 0,
				k = 0;

	while (i < na && j < nb)
	{
		bool		take_a = entry_order(ki, &a[i], &b[j]) <= 0;

		dst[k++] = take_a ? a[i++] : b[j++];
	}
	while (i < na)
		dst[k++] = a[i++];
	while (j < nb)
		dst[k++] = b[j++];
}

/* ---------- the merge ---------- */

/*
 * Is it time to re-plan a composite key map?  When at least a quarter of
 * the entries this merge brings (and LEARNED_REPLAN_MIN of them) lie past
 * its ranges: then the keys keep arriving outside (appends past a
 * column's largest value), not by chance.
 */
static bool
replan_due(const LearnedKeyInfo *ki, const PendingRead *pr, Size *nout)
{
	Size		i;

	*nout = 0;
	if (pr->nkeys < LEARNED_REPLAN_MIN)
		return false;
	for (i = 0; i < pr->nkeys; i++)
		if (LearnedKeyOutOfRange(ki, pr->keys[i].key))
			(*nout)++;
	return *nout >= LEARNED_REPLAN_MIN && *nout * 4 >= pr->nkeys;
}

/* take every live static key into the per-column ranges [lo, hi] */
static void
static_ranges(Relation index, const LearnedKeyInfo *ki,
			  const LearnedDirectory *dir, uint64 *lo, uint64 *hi)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "learned re-plan",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	uint32		s;

	for (s = 0; s < dir->nsegments; s++)
	{
		Size		max = 1024;
		Size		n = 0;
		LearnedEntry *e = palloc_extended(max * sizeof(LearnedEntry), MCXT_ALLOC_HUGE);
		Size		i;

		read_segment(index, ki, &dir->segments[s], &e, &n, &max);
		for (i = 0; i < n; i++)
			LearnedKeyRangeAdd(ki, e[i].key, lo, hi);
		MemoryContextReset(cxt);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/* who merged, as the merge's log line names it */
static const char *
merge_by_name(LearnedMergeBy by)
{
	switch (by)
	{
		case LEARNED_MERGE_BY_INSERT:
			return "insert";
		case LEARNED_MERGE_BY_WORKER:
			return "worker";
		case LEARNED_MERGE_BY_VACUUM:
			return IsAutoVacuumWorkerProcess() ? "autovacuum" : "VACUUM";
		case LEARNED_MERGE_BY_FUNCTION:
			return "learned_index_merge";
	}
	return "unknown";
}

/*
 * learned_idx.log_merge_min_duration: one LOG line for a merge that took at
 * least that long (0: every merge), as log_autovacuum_min_duration does for
 * autovacuum.  Pages written are the new segment, NULL and directory pages;
 * replaced are those the flip made unreachable (recycled by a later garbage
 * collection, once no snapshot can read them); freed are those this merge's
 * own collection recycled before it wrote.
 */
static bool
log_maintenance(TimestampTz start, TimestampTz end, long *secs, int *usecs)
{
	if (learned_log_merge_min_duration < 0 ||
		(learned_log_merge_min_duration > 0 &&
		 !TimestampDifferenceExceeds(start, end, learned_log_merge_min_duration)))
		return false;
	TimestampDifference(start, end, secs, usecs);
	return true;
}

/* database.schema.index, for the log lines */
static char *
qualified_name(Relation index)
{
	char	   *nsp = get_namespace_name(RelationGetNamespace(index));
	char	   *db = get_database_name(MyDatabaseId);

	return psprintf("%s.%s.%s", db ? db : "", nsp ? nsp : "",
					RelationGetRelationName(index));
}

static void
log_merge(Relation index, LearnedMergeBy by, int64 merged, uint32 generation,
		  uint64 written, uint64 replaced, BlockNumber freed,
		  TimestampTz start, TimestampTz end)
{
	long		secs;
	int			usecs;

	if (!log_maintenance(start, end, &secs, &usecs))
		return;
	ereport(LOG,
			(errmsg("learned index \"%s\" merged by %s: %lld entries, generation %u, pages: %llu written, %llu replaced, %u freed, elapsed: %.3f ms",
					qualified_name(index),
					merge_by_name(by), (long long) merged, generation,
					(unsigned long long) written, (unsigned long long) replaced,
					freed, secs * 1000.0 + usecs / 1000.0)));
}

/*
 * The same setting for a garbage collection pass: the file's pages, the
 * unreachable ones it read, those still waiting for their stamp, and those
 * it freed (or recorded as free again: FREE pages are counted too).
 */
static void
log_collection(Relation index, BlockNumber nblocks, BlockNumber nread,
			   BlockNumber nwaiting, BlockNumber freed,
			   TimestampTz start)
{
	long		secs;
	int			usecs;

	if (!log_maintenance(start, GetCurrentTimestamp(), &secs, &usecs))
		return;
	ereport(LOG,
			(errmsg("learned index \"%s\" collected garbage: %u pages, %u unreachable read, %u waiting, %u freed, elapsed: %.3f ms",
					qualified_name(index), nblocks, nread,
					nwaiting, freed, secs * 1000.0 + usecs / 1000.0)));
}

/*
 * The lower bound of a segment, for routing entries to segments: does an
 * entry (its mapped key and key) sort at or past the segment's first key?
 * By mapped key where that decides (exact for every supported type); on a
 * tie of an inexact image (composite keys, uuid...), and always for a
 * collated string's image (from a library that may have changed since the
 * directory was written, new sort keys, same order) or a re-planned map,
 * the segment's first key decides: one leaf read per boundary.
 */
typedef struct SegStart
{
	const LearnedSegment *seg;
	bool		by_cmp;
	bool		have_key;
	Datum		key;
} SegStart;

static void
seg_start_init(SegStart *b, const LearnedSegment *seg, bool by_cmp)
{
	b->seg = seg;
	b->by_cmp = by_cmp;
	b->have_key = false;
	b->key = (Datum) 0;
}

static bool
past_seg_start(Relation index, LearnedKeyInfo *ki, SegStart *b, uint64 mkey, Datum key)
{
	if (!b->by_cmp)
	{
		if (mkey > b->seg->first_key ||
			(mkey == b->seg->first_key && LearnedKeyMapExact(ki)))
			return true;
		if (mkey < b->seg->first_key)
			return false;
	}
	if (!b->have_key)
	{
		b->key = segment_first_key(index, ki, b->seg);
		b->have_key = true;
	}
	return LearnedKeyCmp(ki, key, b->key) >= 0;
}

/* room for one more segment with up to npieces pieces in *set: its slot */
static LearnedSegment *
segment_set_add(LearnedSegmentSet *set, uint32 npieces)
{
	if (set->nsegs >= set->maxsegs)
	{
		set->maxsegs *= 2;
		set->segs = repalloc_huge(set->segs, set->maxsegs * sizeof(LearnedSegment));
	}
	if (set->npieces + npieces > set->maxpieces)
	{
		set->maxpieces = (set->npieces + npieces) * 2;
		set->pieces = repalloc_huge(set->pieces, set->maxpieces * sizeof(LearnedPiece));
	}
	return &set->segs[set->nsegs++];
}

/* an untouched segment: keep its pages, copy its descriptor and pieces */
static void
keep_segment(const LearnedDirectory *dir, const LearnedSegment *seg,
			 LearnedSegmentSet *set, uint64 *nstatic)
{
	LearnedSegment *ns;
	uint32		i;

	ns = segment_set_add(set, seg->npieces);
	*ns = *seg;
	ns->first_piece = (uint32) set->npieces;
	for (i = 0; i < seg->npieces; i++)
		LearnedDirGetPiece(dir, seg, seg->first_piece + i,
						   &set->pieces[set->npieces++]);
	/* a zone map's separators are still valid: keep them as points */
	for (i = 0; i < seg->nzones; i++)
	{
		uint64		z = LearnedDirGetZone(dir, seg->first_zone + i);

		LearnedSegmentSetAddZone(set, z, z);
	}
	*nstatic += seg->nitems;
}

/*
 * Pages [pg0, pg0 + npg) of a model segment, kept as a segment of their
 * own (a partial rewrite took the pages around them).  Every page but a
 * segment's last holds exactly items_per_page entries, so the part's
 * entries are ranks [r0, r0 + nitems) of the old segment, and its model
 * is the old one's pieces that reach into them, shifted by r0: a key
 * predicted at rank r is at r - r0.  The last kept piece's window now ends
 * at the part's end (the prediction is clamped there), which only moves
 * it towards the keys it holds.  A piece that starts before r0 is anchored
 * anew at the part's first mapped key (first_mkey), so that pieces stay
 * in key order over the whole directory: its intercept becomes its
 * prediction there, which differs from the old prediction of a later key
 * by at most one rank (two floors) and a rounding step, so its error
 * window widens by two ranks on each side.  The scan verifies windows
 * with the comparator in any case.
 */
static void
keep_segment_part(const LearnedDirectory *dir, const LearnedSegment *seg,
				  uint32 pg0, uint32 npg, uint64 first_mkey,
				  LearnedSegmentSet *set, uint64 *nstatic)
{
	LearnedSegment *ns;
	uint64		P = seg->items_per_page;
	uint64		r0 = (uint64) pg0 * P;
	uint64		r1 = Min(r0 + (uint64) npg * P, (uint64) seg->nitems);
	uint32		i;

	Assert(seg->kind == LEARNED_SEG_MODEL && seg->npieces > 0 && npg > 0 &&
		   pg0 + npg <= seg->npages);
	ns = segment_set_add(set, seg->npieces);
	*ns = *seg;
	ns->start_blk = seg->start_blk + pg0;
	ns->npages = npg;
	ns->nitems = (uint32) (r1 - r0);
	if (pg0 > 0)
		ns->first_key = first_mkey;
	ns->first_piece = (uint32) set->npieces;
	ns->npieces = 0;
	for (i = 0; i < seg->npieces; i++)
	{
		LearnedPiece pc;
		uint64		next;

		LearnedDirGetPiece(dir, seg, seg->first_piece + i, &pc);
		if (i + 1 < seg->npieces)
		{
			LearnedPiece pn;

			LearnedDirGetPiece(dir, seg, seg->first_piece + i + 1, &pn);
			next = pn.start_rank;
		}
		else
			next = seg->nitems;
		if (next <= r0 || pc.start_rank >= r1)
			continue;
		if (pc.start_rank >= r0)
		{
			pc.start_rank -= (uint32) r0;
			pc.intercept -= (int32) r0;
		}
		else
		{
			PlaPiece	pp;

			pp.first_key = pc.first_key;
			pp.intercept = pc.intercept;
			pp.slope = (double) pc.slope;
			pc.intercept = (int32) (pla_predict(&pp, first_mkey) - (int64) r0);
			pc.first_key = first_mkey;
			pc.start_rank = 0;
			pc.err_below = (uint16) Min((int) pc.err_below + 2, PG_UINT16_MAX);
			pc.err_above = (uint16) Min((int) pc.err_above + 2, PG_UINT16_MAX);
		}
		set->pieces[set->npieces++] = pc;
		ns->npieces++;
	}
	Assert(ns->npieces > 0);
	*nstatic += ns->nitems;
}

static void
segment_set_init(Relation index, const LearnedDirectory *dir, LearnedSegmentSet *set)
{
	memset(set, 0, sizeof(*set));
	set->mode = learned_get_mode(index);
	set->compression = learned_get_compression(index) == LEARNED_COMPRESSION_ON;
	set->maxsegs = dir->nsegments + 16;
	set->segs = palloc_extended(set->maxsegs * sizeof(LearnedSegment), MCXT_ALLOC_HUGE);
	set->maxpieces = dir->npieces + 64;
	set->pieces = palloc_extended(set->maxpieces * sizeof(LearnedPiece), MCXT_ALLOC_HUGE);
}

/*
 * Consecutive rewritten segments are written as one stream of entries, so
 * that the writer cuts it into as few segments as its page cap and the free
 * holes allow (LearnedWriteSegments, LearnedFitPages), instead of each old
 * segment becoming at least one new one.  Otherwise segments only ever
 * split (a rewrite cut to fit a hole, or past the cap) and never join: under
 * rounds of random deletes and inserts their number grew five-fold in ten
 * rounds at 1M rows, each with its last page part-filled.  The stream is
 * written once it holds LEARNED_COALESCE_ENTRIES (a full segment of 2,048-
 * entry pages: the memory of a merge stays that of two segments), before a
 * kept segment, and at the end.
 */
#define LEARNED_COALESCE_ENTRIES	((Size) LEARNED_SEGMENT_MAX_PAGES * 2048)

typedef struct Coalesce
{
	LearnedEntry *entries;
	Size		n;
	Size		cap;
} Coalesce;

/* room for n more entries at the stream's end, where the caller writes them */
static LearnedEntry *
coalesce_room(Coalesce *co, Size n)
{
	if (co->n + n > co->cap)
	{
		co->cap = Max(co->cap * 2, co->n + n);
		co->entries = repalloc_huge(co->entries, co->cap * sizeof(LearnedEntry));
	}
	return co->entries + co->n;
}

static void
coalesce_flush(Relation index, LearnedKeyInfo *ki, const LearnedMetaPageData *meta,
			   uint32 gen, LearnedSegmentSet *set, Coalesce *co)
{
	if (co->n == 0)
		return;
	LearnedWriteSegments(index, ki, meta->error_bound, co->entries, co->n, gen, false, set);
	co->n = 0;
}

/*
 * An append point inside a segment: do the new entries (news, sorted, at
 * least LEARNED_APPEND_POINT_MIN of them) all fall between two neighbouring
 * old entries?  Returns how many old entries sort before them, or nold + 1
 * if they do not make one run (or are too few to say).  Keys that grow at
 * several places at once (one counter per tenant, district or device) put
 * each merge's new keys of a place in one such run; random keys spread
 * over the whole segment.  The merge then ends a segment right after the
 * run (merge_segments), so that the place's next keys come after a
 * segment's last key, where the append path keeps the segment's pages
 * instead of rewriting them.  Too few new entries say nothing: one new key
 * always makes a run of one, and cutting there would split segments for
 * sparse random inserts.  Nor is there a cut with fewer than min_after old
 * entries after it (LEARNED_PARTIAL_KEEP_PAGES pages): those would become a
 * small segment of their own that no key of the place reaches again.  Keys
 * of a place that grow downwards put each merge's run right before the
 * last one's, and cut there, every merge left the last run behind as a
 * one-page segment (the directory grew by a segment a merge, for good);
 * now the runs stay with the segment until they fill as many pages as a
 * partial rewrite keeps apart, which bounds segments by pages as
 * partial_rewrite does.
 */
static Size
append_point(LearnedKeyInfo *ki, const LearnedEntry *olds, Size nold,
			 const LearnedEntry *news, Size nnew, Size min_after)
{
	Size		lo = 0,
				hi = nold;

	/*
	 * Not where images are not trusted (a libc collation's strxfrm prefix):
	 * the cut is placed by images, between two streams, and only inside a
	 * stream does LearnedCheckOrder hold them against the comparator.
	 */
	if (nnew < LEARNED_APPEND_POINT_MIN || nold == 0 || !LearnedKeyImagesTrusted(ki))
		return nold + 1;
	/* lo = the old entries that sort before the first new one */
	while (lo < hi)
	{
		Size		mid = lo + (hi - lo) / 2;

		if (entry_order(ki, &olds[mid], &news[0]) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < nold && entry_order(ki, &news[nnew - 1], &olds[lo]) > 0)
		return nold + 1;
	if (nold - lo < min_after)
		return nold + 1;
	return lo;
}

/*
 * Old entries olds[0..nold) (live, sorted) and new ones keys[0..nkeys)
 * (sorted), which all belong between the same neighbours, onto the
 * coalesce stream.
 */
static void
rewrite_entries(Relation index, LearnedKeyInfo *ki, const LearnedMetaPageData *meta,
				LearnedEntry *olds, Size nold, LearnedEntry *keys, Size nkeys, bool force,
				Size min_after, uint32 gen, LearnedSegmentSet *set, Coalesce *co,
				uint64 *nstatic)
{
	Size		cut = force ? nold + 1 :
		append_point(ki, olds, nold, keys, nkeys, min_after);

	if (cut < nold)
	{
		/*
		 * An append point inside the segment: the stream ends a segment
		 * right after the new entries, and the old ones after them start
		 * the next.
		 */
		merge_entries(ki, olds, cut, keys, nkeys, coalesce_room(co, cut + nkeys));
		co->n += cut + nkeys;
		coalesce_flush(index, ki, meta, gen, set, co);
		memcpy(coalesce_room(co, nold - cut), olds + cut, (nold - cut) * sizeof(LearnedEntry));
		co->n += nold - cut;
	}
	else
	{
		/* merged straight onto the stream; a segment whose entries all died disappears */
		merge_entries(ki, olds, nold, keys, nkeys, coalesce_room(co, nold + nkeys));
		co->n += nold + nkeys;
	}
	if (co->n >= LEARNED_COALESCE_ENTRIES)
		coalesce_flush(index, ki, meta, gen, set, co);
	*nstatic += nold + nkeys;
}

/*
 * A partial rewrite: the new entries routed to a model segment, keys[0..
 * nkeys) (sorted), go to the pages whose ranges they fall in (the last
 * page whose first entry, dead or not, sorts at or before them; the first
 * page for keys before it).  Runs of at least LEARNED_PARTIAL_KEEP_PAGES
 * pages that receive none keep their pages as segments of their own
 * (keep_segment_part); the pages between them are rewritten with their
 * new entries, onto the coalesce stream as a whole rewrite would be.  So a
 * merge writes what its entries reach, not the whole segment: keys that
 * grow at a place and a second stretch of a segment that receives copies
 * of old keys (TPC-C's deliveries update the order lines of the oldest
 * orders of a district, and each update is a new index entry there)
 * rewrote every segment of order_line's primary key at every merge.
 * Random keys reach every page and rewrite the whole segment, as before.
 * Returns false (nothing done) when no run is kept, or for a segment whose
 * pages cannot be kept apart: a zone map (its groups), segment-local
 * string images, key images not trusted across streams (as for
 * append_point), or images of a collation library (ICU): a kept part's
 * first image and re-anchored piece come from today's library, its other
 * pieces from the one that wrote them, and after an upgrade that changed
 * the images they would no longer be in key order.
 */
static bool
partial_rewrite(Relation index, LearnedKeyInfo *ki, const LearnedMetaPageData *meta,
				const LearnedDirectory *dir, const LearnedSegment *seg,
				LearnedEntry *keys, Size nkeys, uint32 gen, LearnedSegmentSet *set,
				Coalesce *co, uint64 *nstatic)
{
	uint32		npg = seg->npages;
	LearnedEntry *firsts;
	Size	   *kfrom;
	bool	   *keep;
	uint32		pg;
	uint32		kept = 0;
	Size		i = 0;

	if (seg->kind != LEARNED_SEG_MODEL || seg->npieces == 0 || seg->str_skip != 0 ||
		npg < 2 * LEARNED_PARTIAL_KEEP_PAGES || nkeys == 0 || !LearnedKeyImagesTrusted(ki) ||
		LearnedKeyImagesCollated(ki))
		return false;

	/* each page's first entry, dead or not: the page's lower bound */
	firsts = palloc(npg * sizeof(LearnedEntry));
	for (pg = 0; pg < npg; pg++)
		page_first_entry(index, ki, seg->start_blk + pg, &firsts[pg]);

	/* keys[kfrom[pg] .. kfrom[pg + 1]) fall in page pg */
	kfrom = palloc((npg + 1) * sizeof(Size));
	for (pg = 0; pg < npg; pg++)
	{
		kfrom[pg] = i;
		while (i < nkeys && (pg + 1 == npg || entry_order(ki, &keys[i], &firsts[pg + 1]) < 0))
			i++;
	}
	kfrom[npg] = nkeys;

	/* the runs of pages that receive nothing, long enough to keep */
	keep = palloc0(npg * sizeof(bool));
	for (pg = 0; pg < npg;)
	{
		uint32		e = pg;

		while (e < npg && kfrom[e] == kfrom[e + 1])
			e++;
		if (e - pg >= LEARNED_PARTIAL_KEEP_PAGES)
		{
			memset(keep + pg, true, e - pg);
			kept += e - pg;
		}
		pg = Max(e, pg + 1);
	}

	if (kept > 0)
	{
		for (pg = 0; pg < npg;)
		{
			uint32		e = pg;

			while (e < npg && keep[e] == keep[pg])
				e++;
			if (keep[pg])
			{
				coalesce_flush(index, ki, meta, gen, set, co);
				keep_segment_part(dir, seg, pg, e - pg, firsts[pg].mkey, set, nstatic);
				learned_fault("merge-after-keep-part");
			}
			else
			{
				Size		maxold = 1024;
				Size		nold = 0;
				LearnedEntry *olds = palloc_extended(maxold * sizeof(LearnedEntry),
													 MCXT_ALLOC_HUGE);

				read_segment_pages(index, ki, seg, pg, e, &olds, &nold, &maxold);
				rewrite_entries(index, ki, meta, olds, nold, keys + kfrom[pg],
								kfrom[e] - kfrom[pg], false,
								(Size) seg->items_per_page * LEARNED_PARTIAL_KEEP_PAGES,
								gen, set, co, nstatic);
				pfree(olds);
			}
			pg = e;
		}
	}
	pfree(keep);
	pfree(kfrom);
	pfree(firsts);
	return kept > 0;
}

/*
 * Merge keys[0..nkeys) (sorted) into segments [s_from, s_to) of dir, in key
 * order, appending the result to *set: segment s takes the keys from its
 * first key up to the next segment's first key (the last of the range takes
 * the rest, so the caller passes only keys that belong to the range).
 * Segments that no key reaches are kept as they are, unless rewrite[]
 * (VACUUM: mostly dead) or rewrite_all says otherwise.  With an empty
 * static stage every key goes into new segments.  Rewritten segments next
 * to each other are written as one stream (coalesce_room): the new segments
 * need not match the old ones one to one.
 */
static void
merge_segments(Relation index, LearnedKeyInfo *ki, const LearnedMetaPageData *meta,
			   const LearnedDirectory *dir, uint32 s_from, uint32 s_to,
			   LearnedEntry *keys, Size nkeys, const bool *rewrite, uint32 nrewrite,
			   bool rewrite_all, bool by_cmp, uint32 gen, LearnedSegmentSet *set,
			   uint64 *nstatic)
{
	Size		p = 0;
	uint32		s;
	Coalesce	co;

	co.cap = 1024;
	co.n = 0;
	co.entries = palloc_extended(co.cap * sizeof(LearnedEntry), MCXT_ALLOC_HUGE);

	for (s = s_from; s < s_to || (dir->nsegments == 0 && s == 0 && nkeys > 0); s++)
	{
		Size		q = p;
		bool		append;
		bool		force = rewrite_all ||
			(rewrite && s < nrewrite && rewrite[s]);

		if (dir->nsegments == 0)
			q = nkeys;			/* an empty static stage: everything */
		else if (s + 1 < s_to)
		{
			SegStart	next;

			seg_start_init(&next, &dir->segments[s + 1], by_cmp);
			while (q < nkeys && !past_seg_start(index, ki, &next, keys[q].mkey, keys[q].key))
				q++;
		}
		else
			q = nkeys;

		/*
		 * The append path: entries past a segment's last key (and, routed
		 * to it, before the next segment's first) become new segment(s)
		 * after it, and it keeps its pages.  An append-only workload then
		 * writes only the new keys' pages at the index's end, and keys that
		 * grow at several places at once do the same at each place that a
		 * segment ends (append_point below ends one there).
		 */
		append = dir->nsegments > 0 && q > p && !force &&
			append_keeps_segment(index, ki, &dir->segments[s], &keys[p]);
		if (dir->nsegments > 0 && (q == p || append) && !force)
		{
			coalesce_flush(index, ki, meta, gen, set, &co);
			keep_segment(dir, &dir->segments[s], set, nstatic);
			if (append)
			{
				LearnedWriteSegments(index, ki, meta->error_bound, keys + p, q - p,
									 gen, false, set);
				*nstatic += q - p;
				learned_fault("merge-after-append-segment");
			}
		}
		else if (force || dir->nsegments == 0 ||
				 !partial_rewrite(index, ki, meta, dir, &dir->segments[s], keys + p, q - p,
								  gen, set, &co, nstatic))
		{
			Size		maxold = 1024;
			Size		nold = 0;
			LearnedEntry *olds = palloc_extended(maxold * sizeof(LearnedEntry), MCXT_ALLOC_HUGE);

			if (dir->nsegments > 0)
				read_segment(index, ki, &dir->segments[s], &olds, &nold, &maxold);
			rewrite_entries(index, ki, meta, olds, nold, keys + p, q - p, force,
							dir->nsegments > 0 ?
							(Size) dir->segments[s].items_per_page * LEARNED_PARTIAL_KEEP_PAGES : 0,
							gen, set, &co, nstatic);
			pfree(olds);
		}
		p = q;
		CHECK_FOR_INTERRUPTS();
	}
	coalesce_flush(index, ki, meta, gen, set, &co);
	pfree(co.entries);
}

/*
 * The NULL run with nulls[0..n) added: written anew if any arrived, else
 * the metapage's kept.
 */
static void
merge_nulls(Relation index, const LearnedMetaPageData *meta,
			const ItemPointerData *nulls, Size nnew, uint32 gen,
			BlockNumber *start, uint32 *npages, uint64 *nnulls)
{
	Size		maxn = Max(nnew, 64);
	Size		n = 0;
	ItemPointerData *all;
	LearnedLeafLayout nl;

	*start = meta->nulls_start;
	*npages = meta->nulls_npages;
	*nnulls = meta->nnulls;
	if (nnew == 0)
		return;
	all = palloc_extended(maxn * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	if (meta->nulls_npages > 0)
		read_nulls(index, meta->nulls_start, meta->nulls_npages, &all, &n, &maxn);
	if (n + nnew > maxn)
		all = repalloc_huge(all, (n + nnew) * sizeof(ItemPointerData));
	memcpy(all + n, nulls, nnew * sizeof(ItemPointerData));
	n += nnew;
	LearnedLeafLayoutInit(&nl, 0);
	*start = LearnedWriteLeafRun(index, NULL, &nl, LEARNED_PAGE_NULLS, NULL, all, n,
								 gen, false);
	*npages = (uint32) ((n + nl.capacity - 1) / nl.capacity);
	*nnulls = n;
	pfree(all);
}

/* the new static stage's fields of the metapage, set in the flip's record */
static void
flip_static(LearnedMetaPage m, const LearnedSegmentSet *set, uint32 gen,
			BlockNumber dir_start, uint32 dir_npages, uint64 nstatic,
			BlockNumber nulls_start, uint32 nulls_npages, uint64 nnulls)
{
	m->generation = gen;
	m->nsegments = (uint32) set->nsegs;
	m->npieces = (uint32) set->npieces;
	m->dir_start = dir_start;
	m->dir_npages = dir_npages;
	m->nstatic = nstatic;
	m->nulls_start = nulls_start;
	m->nulls_npages = nulls_npages;
	m->nnulls = nnulls;
	if (set->npieces > 0)
	{
		double		sum = 0;
		int32		mx = 0;
		Size		i;

		for (i = 0; i < set->npieces; i++)
		{
			sum += (set->pieces[i].err_below + set->pieces[i].err_above) / 2.0;
			mx = Max(mx, Max(set->pieces[i].err_below, set->pieces[i].err_above));
		}
		m->mean_error = sum / set->npieces;
		m->max_error = mx;
	}
}

/*
 * Pages a flip writes and replaces (for the merge log): written are the new
 * directory, a new NULL run and the segments of generation gen; replaced the
 * old directory, a replaced NULL run and the old segments not kept.
 */
static void
count_pages(const LearnedMetaPageData *meta, const LearnedDirectory *dir,
			const LearnedSegmentSet *set, uint32 gen, uint32 dir_npages,
			bool new_nulls, uint32 nulls_npages, uint64 *written, uint64 *replaced)
{
	uint32		s;

	*written = dir_npages + (new_nulls ? nulls_npages : 0);
	*replaced = meta->dir_npages + (new_nulls ? meta->nulls_npages : 0);
	for (s = 0; s < dir->nsegments; s++)
		*replaced += dir->segments[s].npages;
	for (s = 0; s < set->nsegs; s++)
	{
		if (set->segs[s].generation == gen)
			*written += set->segs[s].npages;
		else
			*replaced -= set->segs[s].npages;
	}
}

/*
 * Merge the pending list into the static stage.  The caller holds the merge
 * lock.  Segments flagged in rewrite[] (by VACUUM: mostly dead entries) are
 * rewritten even if no entry arrived, so their dead entries go away.
 * Returns the number of pending entries merged.
 */
static int64
merge_locked(Relation index, const bool *rewrite, uint32 nrewrite, LearnedMergeBy by)
{
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	LearnedKeyInfo ki;
	PendingRead pr;
	uint64		upto;
	uint32		gen;
	LearnedSegmentSet set;
	BlockNumber nulls_start;
	uint32		nulls_npages;
	uint64		nnulls;
	uint64		nstatic = 0;
	BlockNumber dir_start;
	uint32		dir_npages = 0;
	MemoryContext cxt;
	MemoryContext old;
	int64		merged;
	Buffer		metabuf;
	GenericXLogState *state;
	LearnedMetaPage m;
	Page		metapage;
	bool		remap = false;
	bool		rewrite_all = false;
	Size		nout = 0;
	bool		by_cmp;
	FullTransactionId flip_xid;
	TimestampTz start = GetCurrentTimestamp();
	TimestampTz end;
	BlockNumber freed = 0;
	uint64		written;
	uint64		replaced;
	LearnedMergeStatsData *stats;
	int64		swept = 0;

	/*
	 * A sweep in progress is finished first: this merge then reads the rest
	 * of the pending list (runs created since, the tail) whole.  Its steps
	 * rewrite segments, so VACUUM's rewrite[] (by segment number) no longer
	 * applies; VACUUM merges before it plans one, so this does not happen.
	 */
	LearnedReadMeta(index, &meta);
	if (meta.sweep_end_seq != 0)
	{
		while (meta.sweep_end_seq != 0)
		{
			swept += sweep_step(index, by);
			LearnedReadMeta(index, &meta);
		}
		rewrite = NULL;
		nrewrite = 0;
	}

	/*
	 * VACUUM's whole merge is swept too (vacuum_sweep): then, with the
	 * inserts stopped, only what arrived meanwhile is left for the whole
	 * merge below.
	 */
	if (rewrite == NULL && by == LEARNED_MERGE_BY_VACUUM)
		swept += vacuum_sweep(index, by);

	/* read the FSM afresh for this merge's page runs (LearnedAllocRun) */
	LearnedAllocMapReset();
	cxt = AllocSetContextCreate(CurrentMemoryContext, "learned merge",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);

	LearnedReadMeta(index, &meta);
	upto = LearnedPendingAppended(index, &meta);
	if (upto == meta.pending_merged && rewrite == NULL)
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return swept;
	}
	if (rewrite == NULL)
		freed = collect_garbage_if_due(index, &meta, false);
	dir = LearnedGetDirectory(index, meta.generation);
	LearnedKeyInfoInit(index, &ki);
	LearnedKeyInfoLoadMap(index, &ki);
	gen = meta.generation + 1;

	learned_fault("merge-start");
	read_pending(index, &ki, &meta, upto, &pr);

	/*
	 * Plan a composite index's key map anew, and publish it with the flip
	 * (scans that took the old map meanwhile only get poorer hints):
	 *
	 * - when the static stage is empty (built on an empty table): its map
	 *   has empty ranges, under which every key clamps to one image, and no
	 *   piece was trained under it;
	 * - when much of what this merge brings lies past the map's ranges
	 *   (replan_due): such keys clamp to one image per prefix (every order
	 *   appended past the build's largest o_id of a district), so models,
	 *   pending searches and the copy's order fall back to the comparator
	 *   for them.  Every piece was trained under the old map, so every
	 *   segment is rewritten (rewrite_all), and the new ranges take in the
	 *   static keys, with room for growth (LearnedKeyMapPlan), so this
	 *   happens once per half-again growth of a range, not every merge.
	 */
	if (LearnedKeyIsComposite(&ki) && pr.nkeys > 0 &&
		(dir->nsegments == 0 || replan_due(&ki, &pr, &nout)))
	{
		uint64		lo[INDEX_MAX_KEYS];
		uint64		hi[INDEX_MAX_KEYS];
		Size		i;

		memset(lo, 0xFF, sizeof(lo));
		memset(hi, 0, sizeof(hi));
		for (i = 0; i < pr.nkeys; i++)
			LearnedKeyRangeAdd(&ki, pr.keys[i].key, lo, hi);
		if (dir->nsegments > 0)
		{
			static_ranges(index, &ki, dir, lo, hi);
			rewrite_all = true;
			elog(DEBUG1, "learned index \"%s\": key map planned anew, %zu of %zu merged entries past its ranges",
				 RelationGetRelationName(index), nout, pr.nkeys);
		}
		LearnedKeyMapPlan(&ki, lo, hi, rewrite_all, learned_map_columns_guc);
		for (i = 0; i < pr.nkeys; i++)
			pr.keys[i].mkey = LearnedKeyMap(&ki, pr.keys[i].key);
		remap = true;
	}
	/* likewise a single string column's shared prefix */
	if (!LearnedKeyIsComposite(&ki) && dir->nsegments == 0 && pr.nkeys > 0 &&
		LearnedStringMapPlan(&ki, pr.keys, pr.nkeys))
	{
		Size		i;

		for (i = 0; i < pr.nkeys; i++)
			pr.keys[i].mkey = LearnedKeyMap(&ki, pr.keys[i].key);
		remap = true;
	}
	LearnedSortEntries(&ki, pr.keys, pr.nkeys);
	merged = (int64) (pr.nkeys + pr.nnulls);

	/*
	 * Walk the segments in key order.  Segment s holds the keys from its
	 * first key up to the next segment's first key; the pending entries in
	 * that range go into it.  Untouched segments are kept as they are.
	 */
	by_cmp = LearnedKeyImagesCollated(&ki) || rewrite_all;
	segment_set_init(index, dir, &set);
	merge_segments(index, &ki, &meta, dir, 0, dir->nsegments, pr.keys, pr.nkeys,
				   rewrite, nrewrite, rewrite_all, by_cmp, gen, &set, &nstatic);
	learned_fault("merge-after-segments");

	/* NULLs: rewrite the NULL run if any NULL arrived */
	merge_nulls(index, &meta, pr.nulls, pr.nnulls, gen, &nulls_start, &nulls_npages, &nnulls);

	dir_start = LearnedWriteDirectory(index, &set, gen, &dir_npages, false);
	learned_fault("merge-before-flip");

	/* and the pending pages that leave the chain are replaced too */
	count_pages(&meta, dir, &set, gen, dir_npages, pr.nnulls > 0, nulls_npages,
				&written, &replaced);
	if (pr.new_head != InvalidBlockNumber)
		replaced += pr.dropped_pages;

	/* the flip: one record makes the new generation the index */
	metabuf = ReadBuffer(index, LEARNED_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);

	/*
	 * The next xid only now, under the exclusive lock: a scan that read the
	 * old metapage did so, and took its snapshot, before we got the lock, so
	 * its xmin is at most this.  Read before the lock, a snapshot taken in
	 * between (once more xids were assigned and the older transactions
	 * ended) could have an xmin above flip_xid while its scan still read the
	 * old metapage, and GC could then recycle pages that scan was reading
	 * ("unexpected page type" in t/005, seen once with compressed pages).
	 */
	flip_xid = ReadNextFullTransactionId();
	state = LearnedXLogStart(index);
	metapage = LearnedXLogRegister(state, metabuf, false);
	m = LearnedPageGetMeta(metapage);
	if (remap)
		memcpy(LearnedPageGetKeyMap(metapage), &ki.map, sizeof(LearnedKeyMapData));
	flip_static(m, &set, gen, dir_start, dir_npages, nstatic,
				nulls_start, nulls_npages, nnulls);
	m->pending_merged = upto;
	/* every run is merged: the chain left is tail */
	m->nruns = 0;
	m->runs_end_seq = 0;
	m->tail_first_blk = InvalidBlockNumber;
	/* pages wholly below upto leave the chain (the tail always stays) */
	if (pr.new_head != InvalidBlockNumber)
	{
		m->pending_head = pr.new_head;
		m->pending_pages -= Min(m->pending_pages, pr.dropped_pages);
	}
	m->pending_epoch++;
	m->nmerges++;
	end = GetCurrentTimestamp();
	m->last_merge_time = end;

	/* the cumulative counters ride in the same record */
	stats = LearnedPageGetMergeStats(metapage);
	stats->merged_entries += (uint64) merged;
	stats->last_merge_us = end - start;
	/*
	 * Any snapshot that may still use the old generation was taken before
	 * the flip, so its xmin is at most the next xid at the flip: once that
	 * is below every horizon, the old pages are safe to recycle.  (Not the
	 * merging transaction's own xid: VACUUM's xid is ignored by other
	 * backends' snapshots, so it proves nothing about them.)
	 */
	m->last_flip_xid = U64FromFullTransactionId(flip_xid);
	LearnedXLogFinish(state);
	UnlockReleaseBuffer(metabuf);
	learned_fault("merge-after-flip");

	/*
	 * A new key map: backends cache the old one with the index's relcache
	 * entry (LearnedKeyInfoForScan), and an index created empty has a map
	 * that gives almost every key the same image, so their lookups would
	 * gallop over whole segments (25 buffers a lookup instead of 3 on a
	 * 1M-row composite index) until some other invalidation came.  Sent at
	 * commit; a backend that reads the index before it processes the
	 * message still answers right (pending.c rebuilds its copy when the
	 * map it loads changes).
	 */
	if (remap)
		CacheInvalidateRelcache(index);

	log_merge(index, by, merged, gen, written, replaced, freed, start, end);

	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return swept + merged;
}

/* ---------- the swept main merge ---------- */

/*
 * May the main merge be swept (sweep_step) rather than done in one flip?
 * When there are runs to sweep and a static stage of at least two segments
 * under a key map that stays (a composite index's map is re-planned only by
 * a whole merge: learned_index_merge, VACUUM).
 */
static bool
sweep_eligible(const LearnedMetaPageData *meta)
{
	return learned_merge_step_segments >= 0 && meta->nruns > 0 &&
		meta->nsegments >= 2 && meta->sweep_end_seq == 0;
}

/*
 * The segments of one step: learned_idx.merge_step_segments, or with 0 an
 * eighth of the static stage's (at least one).
 */
static uint32
sweep_step_segments(const LearnedDirectory *dir)
{
	if (learned_merge_step_segments > 0)
		return (uint32) learned_merge_step_segments;
	return Max(1, dir->nsegments / 8);
}

/*
 * Read run ri's entries from rank "from" up to the first key at or past
 * bound (NULL: every key), live keys into pr->keys; *to gets that rank.
 * With nulls, also its live NULL entries into pr->nulls.
 */
static void
read_run_range(Relation index, LearnedKeyInfo *ki, const LearnedRunInfo *ri,
			   uint32 from, SegStart *bound, bool nulls, PendingRead *pr,
			   Size *maxkeys, Size *maxnulls, uint32 *to)
{
	char	   *hdrbuf = palloc(BLCKSZ);
	const LearnedRunHeader *h;
	int			cap = LearnedPendingMaxEntries(ki->keylen);
	LearnedPendingEntry *ents = palloc(sizeof(LearnedPendingEntry) * cap);
	uint64	   *mkeys = palloc(sizeof(uint64) * cap);
	uint16	   *flags = palloc(sizeof(uint16) * cap);
	MemoryContext pcxt = AllocSetContextCreate(CurrentMemoryContext, "learned sweep page",
											   ALLOCSET_SMALL_SIZES);
	uint32		rank = from;
	uint32		end = nulls ? ri->nentries : ri->nkeys;
	bool		stop = false;

	*to = from;
	LearnedRunReadHeader(index, ri, hdrbuf);
	h = LearnedPageGetRunHeader((Page) hdrbuf);
	while (rank < end && !stop)
	{
		int			pg = LearnedRunPageOf(h, rank);
		int			n;
		int			i;

		MemoryContextReset(pcxt);
		n = LearnedRunReadPage(index, ki, ri, h, pg, ents, mkeys, flags, pcxt);
		for (i = (int) (rank - h->pages[pg].first_rank); i < n && rank < end; i++, rank++)
		{
			if (rank < ri->nkeys)
			{
				LearnedEntry *e;

				if (bound && past_seg_start(index, ki, bound, mkeys[i], ents[i].key))
				{
					stop = true;
					break;
				}
				*to = rank + 1;
				if (flags[i] & LEARNED_PENDING_DEAD)
					continue;
				if (pr->nkeys >= *maxkeys)
				{
					*maxkeys *= 2;
					pr->keys = repalloc_huge(pr->keys, *maxkeys * sizeof(LearnedEntry));
				}
				e = &pr->keys[pr->nkeys++];
				e->tid = ents[i].tid;
				e->key = LearnedKeyCopyAlloc(ki, ents[i].key, CurrentMemoryContext);
				e->mkey = LearnedKeyMap(ki, e->key);
			}
			else if (!(flags[i] & LEARNED_PENDING_DEAD))
			{
				if (pr->nnulls >= *maxnulls)
				{
					*maxnulls *= 2;
					pr->nulls = repalloc_huge(pr->nulls, *maxnulls * sizeof(ItemPointerData));
				}
				pr->nulls[pr->nnulls++] = ents[i].tid;
			}
		}
		CHECK_FOR_INTERRUPTS();
	}
	MemoryContextDelete(pcxt);
	pfree(hdrbuf);
	pfree(ents);
	pfree(mkeys);
	pfree(flags);
}

/*
 * One step of a swept main merge (docs/architecture.md, section 6).  A
 * sweep merges the runs that exist when it starts (sweep_end_seq) into the
 * static stage one group of segments at a time, in key order, each step
 * with its own flip: the group's segments (from sweep_seg on) and the
 * swept runs' entries that sort before the next group's first key, merged
 * as merge_locked merges, in one record with the directory, the runs'
 * swept ranks (run_swept) and the next group's first segment.  So only one
 * group's old and new pages coexist, and the pages a step replaces return
 * to the free map (garbage collection, run here before each step's writes)
 * before later steps allocate.  The last step also merges the swept runs'
 * NULL entries and drops the runs from the chain (pending_merged moves to
 * sweep_end_seq).  Runs flushed meanwhile are not swept: the next main
 * merge takes them.  The caller holds the merge lock.  Returns the entries
 * merged, or -1 if there is no sweep and none may start.
 */
static int64
sweep_step(Relation index, LearnedMergeBy by)
{
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	LearnedKeyInfo ki;
	PendingRead pr;
	Size		maxkeys = 1024;
	Size		maxnulls = 64;
	uint64		end_seq;
	uint32		nswept;
	uint32		newswept[LEARNED_MAX_RUNS];
	uint32		s0,
				s1,
				s;
	uint32		j;
	bool		last;
	bool		by_cmp;
	SegStart	bound;
	uint32		gen;
	uint32		next_seg;
	LearnedSegmentSet set;
	uint64		nstatic = 0;
	BlockNumber nulls_start;
	uint32		nulls_npages;
	uint64		nnulls;
	BlockNumber dir_start;
	uint32		dir_npages = 0;
	uint32		dropped = 0;
	MemoryContext cxt;
	MemoryContext old;
	Buffer		metabuf;
	GenericXLogState *state;
	Page		metapage;
	LearnedMetaPage m;
	LearnedMergeStatsData *stats;
	TimestampTz start = GetCurrentTimestamp();
	TimestampTz end;
	BlockNumber freed;
	uint64		written;
	uint64		replaced;
	int64		merged;
	LearnedMetaPageData flipped;

	LearnedReadMeta(index, &meta);
	if (meta.sweep_end_seq == 0 && !sweep_eligible(&meta))
		return -1;

	LearnedAllocMapReset();
	cxt = AllocSetContextCreate(CurrentMemoryContext, "learned sweep",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);

	/* the pages earlier steps replaced, for this step's writes to reuse */
	freed = collect_garbage_if_due(index, &meta, false);
	if (meta.sweep_end_seq == 0)
	{
		end_seq = LearnedTailStartSeq(&meta);
		s0 = 0;
	}
	else
	{
		end_seq = meta.sweep_end_seq;
		s0 = meta.sweep_seg;
	}
	dir = LearnedGetDirectory(index, meta.generation);
	LearnedKeyInfoInit(index, &ki);
	LearnedKeyInfoLoadMap(index, &ki);
	gen = meta.generation + 1;
	nswept = 0;
	while (nswept < meta.nruns && meta.runs[nswept].first_seq < end_seq)
		nswept++;
	if (s0 >= dir->nsegments)
		LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO,
							 "a merge step starts past the last segment");
	s1 = s0;
	by_cmp = LearnedKeyImagesCollated(&ki);

	learned_fault("sweep-start");

	/* the swept runs' entries below the next group's first key */
	memset(&pr, 0, sizeof(pr));
	pr.keys = palloc_extended(maxkeys * sizeof(LearnedEntry), MCXT_ALLOC_HUGE);
	pr.nulls = palloc(maxnulls * sizeof(ItemPointerData));

	/*
	 * A group that receives no entry would only be written out as it is
	 * (a new directory and a flip, a new generation for every backend's
	 * directory cache, and the wait for the step's witness): with keys
	 * that grow at the end, every group but the last.  The step takes in
	 * the groups after it until one receives an entry, which costs a
	 * bounded search of each swept run per group: the segments it gets
	 * that way are kept, not rewritten.
	 */
	do
	{
		s1 = Min(dir->nsegments, s1 + sweep_step_segments(dir));
		last = s1 >= dir->nsegments;
		if (!last)
			seg_start_init(&bound, &dir->segments[s1], by_cmp);
		for (j = 0; j < nswept; j++)
			read_run_range(index, &ki, &meta.runs[j], LearnedRunSwept(&meta, j),
						   last ? NULL : &bound, last, &pr, &maxkeys, &maxnulls,
						   &newswept[j]);
	} while (pr.nkeys == 0 && pr.nnulls == 0 && !last);
	LearnedSortEntries(&ki, pr.keys, pr.nkeys);
	merged = (int64) (pr.nkeys + pr.nnulls);

	/* segments before the group and after it are kept; the group merges */
	segment_set_init(index, dir, &set);
	for (s = 0; s < s0; s++)
		keep_segment(dir, &dir->segments[s], &set, &nstatic);
	merge_segments(index, &ki, &meta, dir, s0, s1, pr.keys, pr.nkeys,
				   NULL, 0, false, by_cmp, gen, &set, &nstatic);
	next_seg = (uint32) set.nsegs;
	for (s = s1; s < dir->nsegments; s++)
		keep_segment(dir, &dir->segments[s], &set, &nstatic);
	merge_nulls(index, &meta, pr.nulls, pr.nnulls, gen, &nulls_start, &nulls_npages, &nnulls);
	dir_start = LearnedWriteDirectory(index, &set, gen, &dir_npages, false);
	learned_fault("sweep-before-flip");

	count_pages(&meta, dir, &set, gen, dir_npages, pr.nnulls > 0, nulls_npages,
				&written, &replaced);
	if (last)
		for (j = 0; j < nswept; j++)
			dropped += meta.runs[j].npages;
	replaced += dropped;

	/* the flip */
	metabuf = ReadBuffer(index, LEARNED_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	state = LearnedXLogStart(index);
	metapage = LearnedXLogRegister(state, metabuf, false);
	m = LearnedPageGetMeta(metapage);
	/* only inserts ran meanwhile (we hold the merge lock): they move the tail */
	if (m->nruns != meta.nruns || m->generation != meta.generation)
		elog(ERROR, "learned index \"%s\" changed during a merge step",
			 RelationGetRelationName(index));
	flip_static(m, &set, gen, dir_start, dir_npages, nstatic,
				nulls_start, nulls_npages, nnulls);
	if (!last)
	{
		m->sweep_end_seq = end_seq;
		m->sweep_seg = next_seg;
		for (j = 0; j < nswept; j++)
			m->run_swept[j] = newswept[j];
	}
	else
	{
		/* the swept runs leave the chain: the next run or the tail heads it */
		m->pending_merged = end_seq;
		m->pending_head = nswept < m->nruns ? m->runs[nswept].first_blk : m->tail_first_blk;
		m->pending_pages -= Min(m->pending_pages, dropped);
		for (j = nswept; j < m->nruns; j++)
		{
			m->runs[j - nswept] = m->runs[j];
			m->run_swept[j - nswept] = 0;
		}
		m->nruns -= nswept;
		for (j = m->nruns; j < LEARNED_MAX_RUNS; j++)
		{
			memset(&m->runs[j], 0, sizeof(LearnedRunInfo));
			m->run_swept[j] = 0;
		}
		if (m->nruns == 0)
		{
			m->runs_end_seq = 0;
			m->tail_first_blk = InvalidBlockNumber;
		}
		m->sweep_end_seq = 0;
		m->sweep_seg = 0;
		m->nmerges++;
	}
	m->pending_epoch++;
	end = GetCurrentTimestamp();
	m->last_merge_time = end;
	stats = LearnedPageGetMergeStats(metapage);
	stats->merged_entries += (uint64) merged;
	stats->last_merge_us = end - start;
	/* under the exclusive lock, as merge_locked's flip_xid */
	m->last_flip_xid = U64FromFullTransactionId(ReadNextFullTransactionId());
	memcpy(&flipped, m, sizeof(flipped));
	LearnedXLogFinish(state);
	UnlockReleaseBuffer(metabuf);
	witness_record(index, &flipped);
	learned_fault("sweep-after-flip");

	log_merge(index, by, merged, gen, written, replaced, freed, start, end);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return merged;
}

/*
 * A whole merge as a sweep: VACUUM's, and the merge of a list far past
 * pending_limit (merge_far_over).  A whole merge of random keys reaches
 * every segment, so it writes a whole new static stage beside the old one,
 * which waits for the snapshot horizon: the file doubled and kept that
 * high-water mark.  Instead: flush the whole tail into a run
 * (LearnedRunFlushWhole), so that every pending entry is in a sorted run,
 * then sweep the runs in steps (sweep_step); each step's garbage
 * collection frees the pages the steps before it replaced once no scan can
 * read them (VACUUM's horizon, gc_horizon, or this backend's flip witness,
 * witness_passed, which the sweep waits a little for: witness_wait), and
 * the step reuses them.  A sweep in progress (a worker's, or the steps an
 * inserter took) is finished first, then the tail flushed and swept: twice
 * at most, since a full run table is swept before the tail can be
 * flushed.  What is appended meanwhile is left to the triggers (or, far
 * over again, to merge_far_over).  Only a caller with no scan of its own
 * open gains: its own snapshot predates each of its flips, and
 * only then may garbage collection leave it out (learned_index_merge,
 * whose caller may hold cursors, stays a whole merge).  Returns the
 * entries merged.
 */
static int64
sweep_all(Relation index, LearnedMergeBy by)
{
	LearnedMetaPageData meta;
	int64		merged = 0;
	int			round;

	if (learned_merge_step_segments < 0 || RelationUsesLocalBuffers(index))
		return 0;
	/* no sweep on a static stage of one segment (sweep_eligible): no flush */
	LearnedReadMeta(index, &meta);
	if (meta.nsegments < 2)
		return 0;
	for (round = 0; round < 2; round++)
	{
		bool		flushed;

		/* the seal's page is taken by first fit: from the FSM as it is now */
		LearnedAllocMapReset();
		flushed = LearnedRunFlushWhole(index);

		LearnedReadMeta(index, &meta);
		if (meta.sweep_end_seq == 0 && !sweep_eligible(&meta))
			break;
		while (meta.sweep_end_seq != 0 || sweep_eligible(&meta))
		{
			/*
			 * The witness of the last flip, ours or not (the step before,
			 * a flush, a worker's step): taken at any moment after a flip,
			 * under the merge lock (no flip happens meanwhile), it holds
			 * every backend that may still read what the flip replaced, so
			 * the step's garbage collection can free that once they have
			 * moved on; wait a little for that (witness_wait).
			 */
			witness_record(index, &meta);
			witness_wait(index, &meta);
			merged += sweep_step(index, by);
			LearnedReadMeta(index, &meta);
			if (meta.sweep_end_seq == 0)
				break;
			learned_fault("sweep-between-steps");

			/*
			 * Inserts go on meanwhile and cannot flush (we hold the merge
			 * lock): flush for them, as merge_or_step does, or the tail
			 * (and every backend's copy of it) grows with the whole sweep.
			 */
			if (tail_over(&meta, LearnedPendingAppended(index, &meta)))
				(void) LearnedRunFlush(index, Max(1, learned_tail_limit / 2));
			LearnedReadMeta(index, &meta);
		}
		if (flushed)
			break;
	}
	return merged;
}

/* VACUUM's whole merge (merge_locked): swept in a lazy VACUUM */
static int64
vacuum_sweep(Relation index, LearnedMergeBy by)
{
	if (!(MyProc->statusFlags & PROC_IN_VACUUM))
		return 0;
	return sweep_all(index, by);
}

/*
 * The merge of a list far past twice pending_limit (an inserter's, or the
 * worker's): the whole list, which bounds it, but swept (sweep_all) when
 * this backend has no learned index scan open; swept once more if other
 * writers took the list far over again meanwhile, and merged whole only if
 * it is still far over after that, or at once with a scan open.  One whole
 * merge writes the whole static stage beside the old one, and that
 * generation waits for the snapshot horizon, which the inserter's own open
 * transaction holds back as long as it runs: at 10M rows it was half of
 * the index's peak.  The caller holds the merge lock.
 */
static int64
merge_far_over(Relation index, LearnedMergeBy by)
{
	int64		merged = 0;
	int			round;

	/*
	 * Entries appended during a sweep are left for the triggers, unless
	 * they took the list far past the limit again (other writers went on).
	 */
	for (round = 0; round < 2 && LearnedNoOpenScans() && !RecoveryInProgress(); round++)
	{
		merged += sweep_all(index, by);
		if (!far_over_now(index))
			return merged;
	}
	return merged + merge_locked(index, NULL, 0, by);
}

/*
 * VACUUM's rewrite of its mostly dead segments (rewrite[], by segment
 * number), one group of sweep_step_segments at a time, each group its own
 * merge and flip, followed by a collection.  Deletes spread over the keys
 * bring many segments to the dead fraction in the same VACUUM, and one
 * merge would write all of them beside the old ones: the file grew by the
 * whole static stage, and the truncation could not cut it back.  In
 * groups, VACUUM's horizon (gc_horizon) frees each group's replaced
 * pages at once when no other snapshot predates its flip, and the next
 * group reuses them, so the file grows by about one group.  The groups are
 * found again by their first page after each flip: a segment not yet
 * rewritten keeps its pages, and one the merge of an entry that arrived
 * meanwhile rewrote anyway is no longer found and is skipped.  Outside a
 * lazy VACUUM (whose horizon alone lets a group reuse the one before), or
 * with learned_idx.merge_step_segments = -1, one merge rewrites them all.
 */
static int64
rewrite_in_groups(Relation index, const bool *rewrite, uint32 nrewrite, LearnedMergeBy by)
{
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	BlockNumber *starts;
	uint32		nstarts = 0;
	uint32		done = 0;
	uint32		group;
	uint32		s;
	int64		merged = 0;

	if (!(MyProc->statusFlags & PROC_IN_VACUUM) || learned_merge_step_segments < 0 ||
		RelationUsesLocalBuffers(index))
		return merge_locked(index, rewrite, nrewrite, by);
	LearnedReadMeta(index, &meta);
	dir = LearnedGetDirectory(index, meta.generation);
	if (meta.sweep_end_seq != 0 || nrewrite != dir->nsegments)
		return merge_locked(index, rewrite, nrewrite, by);
	group = sweep_step_segments(dir);
	starts = palloc(sizeof(BlockNumber) * Max(nrewrite, 1));
	for (s = 0; s < nrewrite; s++)
		if (rewrite[s])
			starts[nstarts++] = dir->segments[s].start_blk;
	if (nstarts <= group)
	{
		pfree(starts);
		return merge_locked(index, rewrite, nrewrite, by);
	}
	while (done < nstarts)
	{
		uint32		end = Min(nstarts, done + group);
		bool	   *now;
		bool		any = false;
		uint32		i;

		LearnedReadMeta(index, &meta);
		dir = LearnedGetDirectory(index, meta.generation);
		now = palloc0(sizeof(bool) * Max(dir->nsegments, 1));
		for (s = 0; s < dir->nsegments; s++)
			for (i = done; i < end; i++)
				if (dir->segments[s].start_blk == starts[i])
				{
					now[s] = true;
					any = true;
				}
		if (any)
		{
			merged += merge_locked(index, now, dir->nsegments, by);
			(void) collect_garbage_locked(index, NULL);
		}
		pfree(now);
		done = end;
	}
	pfree(starts);
	return merged;
}

int64
LearnedMergeLocked(Relation index, const bool *rewrite, uint32 nrewrite, LearnedMergeBy by)
{
	if (rewrite != NULL)
		return rewrite_in_groups(index, rewrite, nrewrite, by);
	return merge_locked(index, rewrite, nrewrite, by);
}

/*
 * Merge now, waiting for a running merge or VACUUM of the index.
 */
int64
LearnedMerge(Relation index, LearnedMergeBy by)
{
	int64		n;

	LockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
	n = merge_locked(index, NULL, 0, by);
	UnlockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
	return n;
}

/* ---------- garbage collection ---------- */

static inline void
mark_run(uint8 *reach, BlockNumber nblocks, BlockNumber start, uint32 npages)
{
	uint32		i;

	if (start == InvalidBlockNumber)
		return;
	for (i = 0; i < npages; i++)
		if (start + i < nblocks)
			reach[(start + i) >> 3] |= (uint8) (1 << ((start + i) & 7));
}

/*
 * The oldest xmin (or xid, to stay as strict as the snapshot horizon) of
 * every other backend and of the replication slots, into *oldest
 * (InvalidTransactionId if there is none), for a caller that runs no scan
 * of a learned index that could outlive a flip: a lazy VACUUM
 * (PROC_IN_VACUUM) or a merge worker; false for any other (an inserter's
 * sweep has the flip witness instead, below).
 * A page replaced by a flip whose next xid was x can then be freed if x
 * precedes *oldest (or there is none): a scan that read the old metapage
 * took its snapshot before the flip, so its backend's xmin is at most x for
 * as long as it runs.  A standby's hot_standby_feedback is seen as a slot's
 * xmin, or without a slot as its walsender's own xmin.
 *
 * This is the horizon of GlobalVisCheckRemovableFullXid without its cap at
 * the latest completed xid + 1.  That cap is why no flip is removable until
 * a transaction that took an xid after it has ended: when the inserts have
 * stopped, a VACUUM that merges in steps (merge_locked) could not reuse
 * between steps the pages each step replaced, and the index would hold the
 * old and the new static stage at its end; and the last steps of a merge
 * worker waited for the next VACUUM.  The caller itself is left out, as
 * every horizon leaves out a VACUUM's xmin: it has no scan open, and one it
 * opens later reads the current metapage.  Other VACUUMs are left out as
 * the horizon leaves them out.  Called by GC, after the flips, under the
 * metapage's exclusive lock: a backend taking its snapshot meanwhile reads
 * the new metapage.  Not used while vacuum_defer_cleanup_age (15) holds
 * the horizon back.
 */
static bool in_merge_worker = false;

static bool
gc_horizon(TransactionId *oldest)
{
	TransactionId slot_xmin;
	TransactionId slot_catalog_xmin;
	uint32		i;

	*oldest = InvalidTransactionId;
	if (!((MyProc->statusFlags & PROC_IN_VACUUM) || in_merge_worker) ||
		LI_DEFER_CLEANUP_AGE > 0)
		return false;
	ProcArrayGetReplicationSlotXmin(&slot_xmin, &slot_catalog_xmin);
	if (TransactionIdIsNormal(slot_xmin))
		*oldest = slot_xmin;
	LWLockAcquire(ProcArrayLock, LW_SHARED);
	for (i = 0; i < ProcGlobal->allProcCount; i++)
	{
		PGPROC	   *proc = &ProcGlobal->allProcs[i];
		TransactionId xids[2];
		int			k;

		if (proc == MyProc || (proc->statusFlags & PROC_IN_VACUUM))
			continue;
		/* read once: they may change under our shared lock */
		xids[0] = *(volatile TransactionId *) &proc->xmin;
		xids[1] = *(volatile TransactionId *) &proc->xid;
		for (k = 0; k < 2; k++)
			if (TransactionIdIsNormal(xids[k]) &&
				(!TransactionIdIsValid(*oldest) || TransactionIdPrecedes(xids[k], *oldest)))
				*oldest = xids[k];
	}
	LWLockRelease(ProcArrayLock);
	return true;
}

/* whether x precedes a GC caller's horizon (gc_horizon) */
static inline bool
gc_horizon_passed(bool have, TransactionId oldest, TransactionId x)
{
	return have && TransactionIdIsNormal(x) &&
		(!TransactionIdIsValid(oldest) || TransactionIdPrecedes(x, oldest));
}

/*
 * The flip witness: after each of its flips, a backend notes the other
 * backends that might still run a scan that read the metapage before it
 * (witness_record), and its next garbage collection frees every
 * unreachable page once each of them has moved on (witness_passed).
 *
 * Why not the xid horizon: a backend that sweeps inside its own writing
 * transaction (an inserter far over pending_limit, merge_far_over) holds an
 * xid below every flip it makes, so every snapshot taken after a flip has
 * an xmin at most that xid, below the flip's: no horizon made of xmins can
 * tell a snapshot that predates the flip from one that does not, and a
 * step could never reuse the pages of the step before.  The witness tells
 * them apart by transaction instead.  A scan that read the metapage before
 * the flip belongs to a backend whose xmin was set before it read the
 * metapage (a snapshot is taken before a scan starts) and stays set while
 * the scan runs (its snapshot is registered or active), so that backend
 * has a valid xmin when the flip is over and is noted, with its virtual
 * transaction id.  It has moved on once any of these holds: another
 * process has its PGPROC (it exited); its virtual transaction id changed
 * (a scan does not outlive its transaction); its xmin is unset (it has no
 * snapshot at all); its xmin follows the flip's xid (every snapshot it has
 * was taken after the flip); it is a lazy VACUUM (left out as gc_horizon
 * leaves it out); or it holds LEARNED_NOSCAN_LOCK (an inserter with no
 * scan open, or a merge worker, waiting for the merge lock: it reads no
 * page of the index until it releases it, and then reads the current
 * metapage).  Backends of other
 * databases are not noted (they cannot open the index).  A walsender has no
 * virtual transaction id: with hot_standby_feedback its xmin must unset or
 * pass the flip, as a replication slot's must.  The caller itself must
 * have no scan open (LearnedNoOpenScans).  The witness is only for the
 * last flip, named by its xid and pending_epoch (every flip bumps it; two
 * flips with no xid assigned between them have the same xid), and only in
 * the backend that took it: any flip since voids it, and garbage
 * collection falls back to the horizon and the stamps.
 */
typedef struct WitnessEntry
{
	int			procno;
	int			pid;
	VirtualTransactionId vxid;
} WitnessEntry;

static WitnessEntry *witness = NULL;
static int	witness_n = 0;
static Oid	witness_relid = InvalidOid;
static uint64 witness_flip = 0;
static uint64 witness_epoch = 0;

static void
witness_record(Relation index, const LearnedMetaPageData *meta)
{
	uint32		i;

	witness_relid = InvalidOid;
	if (witness == NULL)
		witness = MemoryContextAlloc(TopMemoryContext,
									 sizeof(WitnessEntry) * ProcGlobal->allProcCount);
	witness_n = 0;
	LWLockAcquire(ProcArrayLock, LW_SHARED);
	for (i = 0; i < ProcGlobal->allProcCount; i++)
	{
		PGPROC	   *proc = &ProcGlobal->allProcs[i];

		/* (a backend of another database cannot open the index) */
		if (proc == MyProc || (proc->statusFlags & PROC_IN_VACUUM) ||
			(OidIsValid(proc->databaseId) && proc->databaseId != MyDatabaseId) ||
			!TransactionIdIsValid(*(volatile TransactionId *) &proc->xmin))
			continue;
		witness[witness_n].procno = (int) i;
		witness[witness_n].pid = proc->pid;
		GET_VXID_FROM_PGPROC(witness[witness_n].vxid, *proc);
		witness_n++;
	}
	LWLockRelease(ProcArrayLock);
	witness_relid = RelationGetRelid(index);
	witness_flip = meta->last_flip_xid;
	witness_epoch = meta->pending_epoch;
}

/* whether the witness names the last flip of this index and may be used here */
static bool
witness_usable(Relation index, const LearnedMetaPageData *meta)
{
	return witness_relid == RelationGetRelid(index) && witness_flip == meta->last_flip_xid &&
		witness_epoch == (uint64) meta->pending_epoch &&
		LearnedNoOpenScans() && LI_DEFER_CLEANUP_AGE == 0 && !RecoveryInProgress();
}

static bool
witness_passed(Relation index, const LearnedMetaPageData *meta)
{
	TransactionId x;
	TransactionId slot_xmin;
	TransactionId slot_catalog_xmin;
	LOCKTAG		tag;
	VirtualTransactionId *holders;
	int			nholders;
	int			i;
	bool		passed = true;

	if (!witness_usable(index, meta))
		return false;
	x = XidFromFullTransactionId(FullTransactionIdFromU64(witness_flip));
	ProcArrayGetReplicationSlotXmin(&slot_xmin, &slot_catalog_xmin);
	if (TransactionIdIsNormal(slot_xmin) && !TransactionIdFollows(slot_xmin, x))
		return false;
	SET_LOCKTAG_PAGE(tag, index->rd_lockInfo.lockRelId.dbId,
					 index->rd_lockInfo.lockRelId.relId, LEARNED_NOSCAN_LOCK);
	holders = GetLockConflicts(&tag, ExclusiveLock, &nholders);
	LWLockAcquire(ProcArrayLock, LW_SHARED);
	for (i = 0; i < witness_n && passed; i++)
	{
		const WitnessEntry *e = &witness[i];
		PGPROC	   *proc = &ProcGlobal->allProcs[e->procno];
		TransactionId xmin = *(volatile TransactionId *) &proc->xmin;
		VirtualTransactionId cur;
		int			k;

		GET_VXID_FROM_PGPROC(cur, *proc);
		if (proc->pid != e->pid || !TransactionIdIsValid(xmin) ||
			TransactionIdFollows(xmin, x) || (proc->statusFlags & PROC_IN_VACUUM))
			continue;
		if (VirtualTransactionIdIsValid(e->vxid))
		{
			if (!VirtualTransactionIdEquals(cur, e->vxid))
				continue;
			for (k = 0; k < nholders; k++)
				if (VirtualTransactionIdEquals(holders[k], e->vxid))
					break;
			if (k < nholders)
				continue;
		}
		passed = false;
	}
	LWLockRelease(ProcArrayLock);
	pfree(holders);
	return passed;
}

/*
 * Wait, up to LEARNED_WITNESS_WAIT_MS, for the witness of the last flip to
 * pass (witness_passed).  A sweep's next step collects garbage right after
 * the flip before it: the scans the witness noted (a point lookup, the row
 * an inserter was writing) are still running then, so the collection
 * stamped the replaced group and left it for the xid horizon, which the
 * writers' own transactions, waiting for this merge (far_over_merge), hold
 * back until the sweep ends: every step took new pages, and at 10M rows
 * the file grew by the static stage.  Statements that short end within a
 * few milliseconds; a longer one (a cursor) costs the wait once per step.
 */
#define LEARNED_WITNESS_WAIT_MS		50

static void
witness_wait(Relation index, const LearnedMetaPageData *meta)
{
	int			waited;

	if (!witness_usable(index, meta))
		return;
	for (waited = 0; waited < LEARNED_WITNESS_WAIT_MS && !witness_passed(index, meta); waited++)
	{
		CHECK_FOR_INTERRUPTS();
		pg_usleep(1000L);
	}
}

/*
 * Whether the unreachable page in buf (exclusively locked) carries a stamp
 * below every snapshot horizon.  A page without one (or with one that looks
 * newer than now: a wrap) is stamped with stamp_now, WAL-logged, and waits.
 */
static bool
stamp_removable(Relation index, Buffer buf, TransactionId stamp_now,
				bool have_vh, TransactionId vh)
{
	Page		page = BufferGetPage(buf);
	TransactionId stamp = ((PageHeader) page)->pd_prune_xid;
	GenericXLogState *state;

	if (TransactionIdIsNormal(stamp) && !TransactionIdFollows(stamp, stamp_now))
		return GlobalVisCheckRemovableXid(NULL, stamp) ||
			gc_horizon_passed(have_vh, vh, stamp);
	state = LearnedXLogStart(index);
	page = LearnedXLogRegister(state, buf, false);
	((PageHeader) page)->pd_prune_xid = stamp_now;
	LearnedXLogFinish(state);
	return false;
}

/*
 * The pages this backend's last collection of an index left waiting for a
 * scan that may still read them, and the statement it ran in.  Within that
 * statement they count as no garbage in collect_garbage_if_due: an
 * INSERT's own flushes replace pages that its own snapshot keeps waiting
 * (it predates their flips, and its xmin holds the horizon until the
 * statement ends): counted, every flush probe of a long INSERT ran a pass
 * that read them all again and freed none (t/058's twelve 1,100-row
 * INSERTs with tail_limit 300 ran 693 passes).  A new statement, or new
 * garbage past the threshold, runs a pass again.  Not for a merge worker
 * or VACUUM: their horizon leaves their own snapshot out (gc_horizon), so
 * what they left waiting waits only for other backends, which may move on
 * at any moment.
 */
static struct
{
	Oid			relid;
	LiRelFile	node;
	VirtualTransactionId vxid;
	TimestampTz statement;
	BlockNumber waiting;
}			gc_waiting_memo;

/* whether gc_waiting_memo holds for index, in this backend's statement */
static bool
gc_waiting_memo_holds(Relation index)
{
	VirtualTransactionId vxid;

	if (in_merge_worker || (MyProc->statusFlags & PROC_IN_VACUUM))
		return false;
	GET_VXID_FROM_PGPROC(vxid, *MyProc);
	return gc_waiting_memo.relid == RelationGetRelid(index) &&
		LiRelFileEquals(gc_waiting_memo.node, LI_REL_FILE(index)) &&
		VirtualTransactionIdEquals(gc_waiting_memo.vxid, vxid) &&
		gc_waiting_memo.statement == GetCurrentStatementStartTimestamp();
}

/*
 * Free every page that no generation a running scan may use can reach:
 * pages replaced by merges, pending pages already merged, orphans of a merge
 * that crashed before its flip.  They are marked FREE (WAL-logged) and
 * recorded in the FSM.  Runs under the merge lock, which excludes every
 * other writer that allocates or links pages but inserts, and a share lock
 * on the metapage, which excludes the one thing an insert does that matters
 * here: linking a new tail page, which takes the metapage exclusively and
 * may take a FREE page from the FSM.  So the pages reachable when the pass
 * reads the metapage stay exactly the reachable ones to its end, and no
 * page it finds unreachable is taken meanwhile.  A share lock, not an
 * exclusive one: appends to the tail page and scans, which share-lock the
 * metapage, go on while the pass reads the file (an exclusive lock held
 * them all for the whole pass, milliseconds for a few hundred pages, at
 * every flush that found the file loose).
 *
 * Every unreachable page is read, FREE ones included, although the FSM
 * may already record them: the FSM is not crash-safe, and after a crash it
 * can name a page that was reused and replaced since (not FREE), or miss a
 * FREE one.  Reading each page and recording it again is what lets the
 * merges after a crash reuse them (t/020: a pass that trusted the FSM let
 * the file grow by a merge's worth over crash cycles).
 *
 * A scan whose view predates a flip may still read the pages the flip
 * replaced, until its snapshot ends.  If the last flip is older than every
 * snapshot (last_flip_xid removable), every unreachable page is free.
 * Otherwise a page may have been replaced by that flip or by an older one,
 * and nothing on it says which: it is stamped, in pd_prune_xid (no reader
 * looks there), with the next transaction id of the pass that first finds
 * it unreachable, and freed by a later pass once that stamp is removable,
 * as nbtree recycles a deleted page once its safexid is.  Without the
 * stamp, merges that follow each other faster than the longest snapshot
 * (a busy index) kept every replaced page until a quiet moment.  The stamp
 * is WAL-logged: replicas must see the same page bytes (generic redo, and
 * wal_consistency_checking, compare them).
 *
 * Returns where the last page that stays in use ends, and, in *nfreed if
 * not NULL, how many pages it freed.
 */
static BlockNumber
collect_garbage_locked(Relation index, BlockNumber *nfreed)
{
	Buffer		metabuf;
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	BlockNumber nblocks;
	uint8	   *reach;
	BlockNumber blk;
	uint32		s;
	uint32		steps = 0;
	BlockNumber freed = 0;
	BlockNumber busy_end = 1;	/* past the last page that stays in use */
	bool		all_free;
	TransactionId stamp_now;
	FullTransactionId flip_xid;
	bool		have_vh;
	TransactionId vh;
	uint16		kind;
	PGAlignedBlock hdr;
	BlockNumber nread = 0;
	BlockNumber nwaiting = 0;
	TimestampTz start = GetCurrentTimestamp();

	/*
	 * Load the directory before locking the metapage (loading reads the
	 * metapage).  It cannot change meanwhile: merges need our merge lock.
	 */
	LearnedReadMeta(index, &meta);
	dir = LearnedGetDirectory(index, meta.generation);

	metabuf = ReadBuffer(index, LEARNED_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	memcpy(&meta, LearnedPageGetMeta(BufferGetPage(metabuf)), sizeof(meta));
	LearnedCheckMeta(index, &meta);
	if (meta.generation != dir->generation)
		elog(ERROR, "learned index \"%s\" changed generation during garbage collection",
			 RelationGetRelationName(index));

	/* a scan that started before the last flip may still read old pages */
	flip_xid = FullTransactionIdFromU64(meta.last_flip_xid);
	stamp_now = XidFromFullTransactionId(ReadNextFullTransactionId());
	have_vh = gc_horizon(&vh);
	/* (a flip xid past the next xid, a corrupt metapage, proves nothing) */
	all_free = (meta.nmerges == 0 && meta.nflushes == 0) ||
		GlobalVisCheckRemovableFullXid(NULL, flip_xid) ||
		(!FullTransactionIdFollows(flip_xid, ReadNextFullTransactionId()) &&
		 gc_horizon_passed(have_vh, vh, XidFromFullTransactionId(flip_xid))) ||
		witness_passed(index, &meta);

	nblocks = RelationGetNumberOfBlocks(index);
	reach = palloc0(nblocks / 8 + 1);
	mark_run(reach, nblocks, LEARNED_METAPAGE_BLKNO, 1);
	mark_run(reach, nblocks, meta.dir_start, meta.dir_npages);
	mark_run(reach, nblocks, meta.nulls_start, meta.nulls_npages);
	for (s = 0; s < dir->nsegments; s++)
		mark_run(reach, nblocks, dir->segments[s].start_blk, dir->segments[s].npages);
	/* run data pages are in the chain; their headers and filter pages are not */
	for (s = 0; s < meta.nruns && s < LEARNED_MAX_RUNS; s++)
	{
		const LearnedRunHeader *h;
		uint32		fp;

		mark_run(reach, nblocks, meta.runs[s].hdr_blk, 1);
		LearnedRunReadHeader(index, &meta.runs[s], hdr.data);
		h = LearnedPageGetRunHeader((Page) hdr.data);
		for (fp = 0; fp < h->nfilter; fp++)
			mark_run(reach, nblocks, LearnedRunFilterPages(h)[fp], 1);
	}
	for (blk = meta.pending_head; blk != InvalidBlockNumber;)
	{
		Buffer		buf;

		LearnedCheckLink(index, blk, &steps);
		buf = ReadBuffer(index, blk);

		mark_run(reach, nblocks, blk, 1);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		LearnedCheckPage(index, BufferGetPage(buf), blk, LEARNED_PAGE_PENDING);
		blk = LearnedPageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
	}

	/* the metapage share-locked: appends and scans go on (t/053) */
	learned_fault("gc-pass");
	for (blk = 1; blk < nblocks; blk++)
	{
		Buffer		buf;
		Page		page;

		if (reach[blk >> 3] & (1 << (blk & 7)))
		{
			busy_end = blk + 1;
			continue;
		}
		nread++;
		buf = ReadBuffer(index, blk);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		kind = LearnedPageKind(page);
		/* pages of ours that a scan may still read wait for their stamp */
		if (!all_free && kind != LEARNED_PAGE_FREE && kind != 0 &&
			!stamp_removable(index, buf, stamp_now, have_vh, vh))
		{
			UnlockReleaseBuffer(buf);
			busy_end = blk + 1;
			nwaiting++;
			continue;
		}
		if (kind != LEARNED_PAGE_FREE)
		{
			GenericXLogState *state = LearnedXLogStart(index);

			/*
			 * A page of ours only changes its type, and its bounds become an
			 * empty page's: a delta of a few bytes instead of a full image,
			 * since a random-key merge retires every page of the index.  The
			 * allocator reinitialises a FREE page (full image) before using
			 * it, and no reader takes a FREE page for data, so its contents
			 * are dead: as the page's hole, GenericXLog neither compares
			 * them (its byte-by-byte delta over a full page was most of a
			 * recycling's CPU) nor logs them (a page logged whole, a pending
			 * page with hints, is then a header and its special space), and
			 * redo zeroes them.  Anything else (a page a crash left
			 * uninitialised) is initialised in full.
			 */
			if (kind != 0)
			{
				page = LearnedXLogRegister(state, buf, false);
				LearnedPageGetOpaque(page)->type = LEARNED_PAGE_FREE;
				((PageHeader) page)->pd_lower = SizeOfPageHeaderData;
				((PageHeader) page)->pd_upper = ((PageHeader) page)->pd_special;
			}
			else
			{
				page = LearnedXLogRegister(state, buf, true);
				LearnedInitPage(page, LEARNED_PAGE_FREE, 0);
			}
			LearnedXLogFinish(state);
		}
		UnlockReleaseBuffer(buf);
		RecordFreeIndexPage(index, blk);
		freed++;
		CHECK_FOR_INTERRUPTS();
	}
	gc_waiting_memo.relid = RelationGetRelid(index);
	gc_waiting_memo.node = LI_REL_FILE(index);
	GET_VXID_FROM_PGPROC(gc_waiting_memo.vxid, *MyProc);
	gc_waiting_memo.statement = GetCurrentStatementStartTimestamp();
	gc_waiting_memo.waiting = nwaiting;
	/* before the unlock: t/053 counts the passes a statement waited for */
	log_collection(index, nblocks, nread, nwaiting, freed, start);
	UnlockReleaseBuffer(metabuf);
	if (freed > 0)
		IndexFreeSpaceMapVacuum(index);
	pfree(reach);
	if (nfreed)
		*nfreed = freed;
	return busy_end;
}

/*
 * Give a free tail of the relation back to the file system (VACUUM only,
 * after its garbage collection, under the merge lock).  The file otherwise
 * keeps the high-water mark of moments when several generations waited for
 * the snapshot horizon at once (docs/architecture.md, "VACUUM and garbage
 * collection"); merges allocate first fit, so free pages tend to gather at
 * the end (not always: a segment run that fits in no hole extends the
 * file, and a run at the end keeps the holes before it).  As VACUUM
 * truncates a heap: only a tail of at least 1000 pages or
 * a sixteenth of the relation, and only if an ACCESS EXCLUSIVE lock on the
 * index is free within LEARNED_TRUNCATE_LOCK_WAIT_MS, asked for without
 * queueing every LEARNED_TRUNCATE_LOCK_INTERVAL_MS, as VACUUM asks for a
 * heap's (no scan, insert or merge waits for it, and it is released right
 * after).  Asked for once only, it was mostly not free after a load: a
 * merge worker waiting for the merge lock, which VACUUM holds, holds the
 * index open until it gives up a second later, and any statement in flight
 * holds it too (a file left at 1,253 pages where 765 were in use).  Under
 * that lock nobody
 * else uses the index, so the tail is read again and cut where its last
 * page that is not FREE (or new) ends: an insert may have claimed a free
 * page for the pending list since the collection.  RelationTruncate
 * WAL-logs the truncation, and the lock, logged too, makes a standby
 * cancel or wait for its scans of the index before replaying it, as for a
 * heap.  The reloption vacuum_truncate = off turns it off, as the table's
 * does for the heap (for standbys whose scans should not wait for or be
 * cancelled by the replayed lock).
 */
#define LEARNED_TRUNCATE_LOCK_WAIT_MS		2000
#define LEARNED_TRUNCATE_LOCK_INTERVAL_MS	20

static void
truncate_free_tail(Relation index, BlockNumber busy_end)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BlockNumber keep;
	int			waited;

	if (!learned_get_vacuum_truncate(index) || busy_end >= nblocks ||
		(nblocks - busy_end < 1000 && nblocks - busy_end < nblocks / 16))
		return;
	for (waited = 0; !ConditionalLockRelation(index, AccessExclusiveLock);
		 waited += LEARNED_TRUNCATE_LOCK_INTERVAL_MS)
	{
		if (waited >= LEARNED_TRUNCATE_LOCK_WAIT_MS)
		{
			elog(DEBUG1, "learned index \"%s\": not truncated, its lock was not free",
				 RelationGetRelationName(index));
			return;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 LEARNED_TRUNCATE_LOCK_INTERVAL_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	nblocks = RelationGetNumberOfBlocks(index);
	for (keep = nblocks; keep > Max(busy_end, 1); keep--)
	{
		Buffer		buf = ReadBuffer(index, keep - 1);
		Page		page = BufferGetPage(buf);
		bool		free_page;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		free_page = PageIsNew(page) || LearnedPageKind(page) == LEARNED_PAGE_FREE;
		UnlockReleaseBuffer(buf);
		if (!free_page)
			break;
	}
	if (keep < nblocks)
	{
		RelationTruncate(index, keep);
		learned_fault("vacuum-after-truncate");
		IndexFreeSpaceMapVacuum(index);
	}
	UnlockRelation(index, AccessExclusiveLock);
}

/*
 * Merge-time garbage collection.  Only VACUUM used to recycle the pages
 * merges replace, so an index merged often but vacuumed rarely (autovacuum
 * off, or a table that only grows) took new pages for every merge: 300k
 * int8 rows plus 1.1M random inserts in 32 s, no VACUUM, ended at 15,989
 * pages for 2,183 reachable ones.  A merge, a sweep's step and a flush
 * (each holding the merge lock) therefore collect first when the
 * unreachable pages that the FSM does not record as free
 * (LearnedAllocMapFreeBlocks: the map the caller's writes then use), less
 * those this backend's last pass in this statement left waiting
 * (gc_waiting_memo), exceed a sixty-fourth of the reachable ones (and
 * 64).  Counting the FREE pages too, every flush of a 10M-row index under
 * 2-client random inserts re-read its 2,000 FREE pages, 2 ms eighty times
 * a second, to free a dozen.  The horizon check in collect_garbage_locked still decides
 * whether anything may be freed.  With any, past 64 such pages (a merge
 * worker's last look: the pages its last steps replaced).  Returns the
 * number of pages freed (the FREE ones it found included).
 */
static BlockNumber
collect_garbage_if_due(Relation index, const LearnedMetaPageData *meta, bool any)
{
	LearnedDirectory *dir = LearnedGetDirectory(index, meta->generation);
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	uint64		reachable;
	uint64		garbage;
	uint32		s;
	BlockNumber freed = 0;

	if (RelationUsesLocalBuffers(index))
		return 0;
	reachable = 1 + (uint64) meta->dir_npages + meta->nulls_npages + meta->pending_pages +
		meta->nruns;
	for (s = 0; s < dir->nsegments; s++)
		reachable += dir->segments[s].npages;
	if ((uint64) nblocks <= reachable + 64)
		return 0;
	/* the runs' filter pages, outside the chain (collect_garbage_locked) */
	for (s = 0; s < meta->nruns && s < LEARNED_MAX_RUNS; s++)
	{
		PGAlignedBlock hdr;

		LearnedRunReadHeader(index, &meta->runs[s], hdr.data);
		reachable += LearnedPageGetRunHeader((Page) hdr.data)->nfilter;
	}
	if ((uint64) nblocks <= reachable + 64)
		return 0;
	garbage = (uint64) nblocks - reachable;
	garbage -= Min(LearnedAllocMapFreeBlocks(index), garbage);
	if (gc_waiting_memo_holds(index))
		garbage -= Min((uint64) gc_waiting_memo.waiting, garbage);
	if (garbage <= (any ? 64 : Max(64, reachable / 64)))
		return 0;
	(void) collect_garbage_locked(index, &freed);
	/* the map misses what the pass freed: read it afresh for the writes */
	LearnedAllocMapReset();
	return freed;
}

void
LearnedCollectGarbageLocked(Relation index)
{
	(void) collect_garbage_locked(index, NULL);
}

/*
 * Where the pages in use would end if the marked segments moved: the end
 * of the pages that stay (fixed_end, the unmarked segments) or of the last
 * moved piece, whichever is higher; InvalidBlockNumber if they do not all
 * fit in the file's holes.  The pieces go where first fit (LearnedAllocRun)
 * would put runs of the marked segments' sizes, in key order (the order
 * merge_locked writes them), on a copy of the free map, each cut to the
 * lowest hole of LEARNED_RELOCATE_MIN_PAGES or more (holes_fit's lowest
 * rule, which the writer follows during the relocation).  The moved
 * segments' own pages stay in use until the flip.
 */
static BlockNumber
relocation_end(const LearnedDirectory *dir, const bool *move, const bool *freemap,
			   BlockNumber nblocks, BlockNumber fixed_end)
{
	bool	   *f = palloc(Max(nblocks, 1) * sizeof(bool));
	BlockNumber end = fixed_end;
	uint32		s;

	for (s = 0; s < dir->nsegments; s++)
		if (!move[s])
			end = Max(end, dir->segments[s].start_blk + dir->segments[s].npages);
	memcpy(f, freemap, Max(nblocks, 1) * sizeof(bool));
	for (s = 0; s < dir->nsegments && end != InvalidBlockNumber; s++)
	{
		uint32		left = dir->segments[s].npages;

		if (!move[s])
			continue;
		/* its pages, cut to the lowest holes as the writer cuts them */
		while (left > 0)
		{
			uint32		first;
			uint32		take = holes_fit(f, nblocks, left, LEARNED_RELOCATE_MIN_PAGES,
										 true, &first);

			if (first == HOLES_NONE)
			{
				end = InvalidBlockNumber;
				break;
			}
			memset(&f[first], false, take * sizeof(bool));
			end = Max(end, first + take);
			left -= take;
		}
	}
	pfree(f);
	return end;
}

/*
 * After VACUUM's merge the pending list is one page, the tail, with every
 * entry merged; it was allocated while the pages a merge then replaced
 * were still in use, so it may sit in the middle of what is now a hole,
 * where it splits the hole for the segments moved below and can keep the
 * truncation from cutting the file.  Put an empty tail page on the lowest
 * free block instead, in one record with the metapage (a flip: pending
 * epoch + 1 and last_flip_xid, so that a scan that read the old metapage
 * may still read the old page until GC frees it).  The free block is found
 * before the metapage is locked, to keep inserts waiting only for the
 * flip.  The old page is locked exclusively from its count to the flip,
 * and the flip links it to the new one: an append that does not read the
 * metapage (tail.c, append_fast) takes a pending page without a link for
 * the tail, so it must find the old page full of its count or linked on.
 * (The link leads nowhere a reader could go wrong: the new page's entries
 * continue the old one's sequence numbers, and from the new metapage on
 * the old page is not in the chain.)  Returns whether it moved.
 */
static bool
move_tail_down(Relation index)
{
	LearnedMetaPageData meta;
	Buffer		metabuf;
	Buffer		newbuf;
	Buffer		oldbuf;
	Page		metapage;
	LearnedMetaPage m;
	BlockNumber blk;
	uint64		appended;
	FullTransactionId flip_xid;
	GenericXLogState *state;

	LearnedReadMeta(index, &meta);
	if (meta.pending_tail == InvalidBlockNumber)
		return false;
	for (blk = 1; blk < meta.pending_tail; blk++)
		if (GetRecordedFreeSpace(index, blk) >= BLCKSZ / 2)
			break;
	if (blk >= meta.pending_tail)
		return false;

	metabuf = ReadBuffer(index, LEARNED_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	m = LearnedPageGetMeta(BufferGetPage(metabuf));
	LearnedCheckMeta(index, m);
	if (m->nruns > 0 || m->sweep_end_seq != 0 || m->pending_pages != 1 ||
		m->pending_tail != meta.pending_tail || m->pending_head != m->pending_tail)
	{
		UnlockReleaseBuffer(metabuf);
		return false;
	}
	oldbuf = LearnedPendingLockTail(index, m, BUFFER_LOCK_EXCLUSIVE, &appended);
	if (appended != m->pending_merged ||
		LearnedPageGetOpaque(BufferGetPage(oldbuf))->next != InvalidBlockNumber ||
		!BufferIsValid(newbuf = LearnedClaimBlock(index, blk)))
	{
		UnlockReleaseBuffer(oldbuf);
		UnlockReleaseBuffer(metabuf);
		return false;
	}
	RecordUsedIndexPage(index, blk);
	learned_fault("tail-move-before-flip");

	flip_xid = ReadNextFullTransactionId();
	state = LearnedXLogStart(index);
	metapage = LearnedXLogRegister(state, metabuf, false);
	m = LearnedPageGetMeta(metapage);
	LearnedPendingInitPage(LearnedXLogRegister(state, newbuf, true), m->keylen,
						   m->generation, appended);
	LearnedPageGetOpaque(LearnedXLogRegister(state, oldbuf, false))->next = blk;
	m->pending_head = blk;
	m->pending_tail = blk;
	m->pending_tail_seq = appended;
	m->pending_epoch++;
	m->last_flip_xid = U64FromFullTransactionId(flip_xid);
	LearnedXLogFinish(state);
	UnlockReleaseBuffer(newbuf);
	UnlockReleaseBuffer(oldbuf);
	UnlockReleaseBuffer(metabuf);
	elog(DEBUG1, "learned index \"%s\": the pending list's page moves down to block %u",
		 RelationGetRelationName(index), blk);
	return true;
}

/*
 * The relocation's rewrite of the marked segments, the writer cutting them
 * to the lowest holes as planned (relocation_end).  Then it notes who may
 * still read what the flip replaced and waits a little for them, as a
 * sweep's step does, so that the collection after it frees the moved
 * segments' old pages: once the inserts stop, no xid is assigned after the
 * flip, and a snapshot taken after it (a merge worker's, waiting for the
 * merge lock) has the flip's xid as its xmin, so the xid horizon alone
 * keeps those pages until that snapshot is gone, and the truncation cannot
 * cut them (1,201 pages left where 745 were in use).
 */
static void
relocation_merge(Relation index, const bool *move, uint32 nsegments)
{
	LearnedMetaPageData meta;

	LearnedAllocLowest(true);
	PG_TRY();
	{
		merge_locked(index, move, nsegments, LEARNED_MERGE_BY_VACUUM);
	}
	PG_FINALLY();
	{
		LearnedAllocLowest(false);
	}
	PG_END_TRY();
	LearnedReadMeta(index, &meta);
	witness_record(index, &meta);
	witness_wait(index, &meta);
}

/*
 * After VACUUM's merge and collection, the file may be mostly free and
 * still not be cut: first fit puts a segment that fits in no hole (up to
 * 128 contiguous pages, where runs freed scattered single pages) at the
 * end, and a segment at the end keeps every hole before it.  Move the
 * segments that end highest, one more at a time while that lowers the end
 * of the pages in use (relocation_end: their pieces in the lowest holes, as
 * the writer then cuts them), by rewriting them (merge_locked's rewrite[],
 * a merge that brings them nothing), then collect the pages they left.
 * VACUUM runs a second pass if the first lowered the end: the pages the
 * first one moved are free only after its flip.  Only with two segments or
 * more, when nothing is pending (a merge would also take pending entries,
 * and random ones reach every segment), when at least a quarter more than
 * the pages in use (and 64) is free and the truncation may cut its
 * minimum; no page that stays (pending pages, the NULL run) ends above the
 * segments moved.
 * Returns the new end of the pages in use.
 */
static BlockNumber
relocate_segments(Relation index, BlockNumber busy_end)
{
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BlockNumber fixed_end;
	BlockNumber blk;
	uint64		used;
	bool	   *move;
	bool	   *freemap;
	uint32		s;
	uint32		nmove = 0;
	BlockNumber end;

	if (!learned_get_vacuum_truncate(index) || RelationUsesLocalBuffers(index) ||
		!(MyProc->statusFlags & PROC_IN_VACUUM))
		return busy_end;
	LearnedReadMeta(index, &meta);
	if (meta.nruns > 0 || meta.sweep_end_seq != 0 ||
		LearnedPendingAppended(index, &meta) != meta.pending_merged)
		return busy_end;
	if (move_tail_down(index))
	{
		busy_end = collect_garbage_locked(index, NULL);
		LearnedReadMeta(index, &meta);
	}
	dir = LearnedGetDirectory(index, meta.generation);
	used = 1 + (uint64) meta.dir_npages + meta.nulls_npages + meta.pending_pages;
	for (s = 0; s < dir->nsegments; s++)
		used += dir->segments[s].npages;
	/*
	 * Only where segments are many (one segment is rewritten by merges
	 * often enough) and the file holds a quarter more than it uses.
	 */
	if (dir->nsegments < 2 || used >= nblocks || nblocks - used < Max(64, used / 4) ||
		(nblocks - used < 1000 && nblocks - used < nblocks / 16))
		return busy_end;

	/* the pages that stay where they are: the pending chain, the NULL run */
	fixed_end = 1;
	if (meta.nulls_start != InvalidBlockNumber && meta.nulls_npages > 0)
		fixed_end = Max(fixed_end, meta.nulls_start + meta.nulls_npages);
	for (blk = meta.pending_head; blk != InvalidBlockNumber;)
	{
		Buffer		buf;
		uint32		steps = 0;

		LearnedCheckLink(index, blk, &steps);
		fixed_end = Max(fixed_end, blk + 1);
		buf = ReadBuffer(index, blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		LearnedCheckPage(index, BufferGetPage(buf), blk, LEARNED_PAGE_PENDING);
		blk = LearnedPageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
	}

	freemap = palloc0(Max(nblocks, 1) * sizeof(bool));
	for (blk = 1; blk < nblocks; blk++)
		freemap[blk] = GetRecordedFreeSpace(index, blk) >= BLCKSZ / 2;
	move = palloc0(Max(dir->nsegments, 1) * sizeof(bool));
	end = relocation_end(dir, move, freemap, nblocks, fixed_end);
	for (;;)
	{
		int64		top = -1;
		BlockNumber e;

		/* the unmarked segment that ends highest, above the fixed pages */
		for (s = 0; s < dir->nsegments; s++)
			if (!move[s] && dir->segments[s].start_blk + dir->segments[s].npages > fixed_end &&
				(top < 0 || dir->segments[s].start_blk > dir->segments[top].start_blk))
				top = s;
		if (top < 0)
			break;
		move[top] = true;
		e = relocation_end(dir, move, freemap, nblocks, fixed_end);
		if (e == InvalidBlockNumber || e >= end)
		{
			move[top] = false;
			break;
		}
		end = e;
		nmove++;
	}
	if (nmove > 0)
	{
		elog(DEBUG1, "learned index \"%s\": %u segments move down for the truncation",
			 RelationGetRelationName(index), nmove);
		relocation_merge(index, move, dir->nsegments);
		busy_end = collect_garbage_locked(index, NULL);
	}
	pfree(move);
	pfree(freemap);
	return busy_end;
}

/*
 * VACUUM's collection: also truncates a free tail, and with "merge" merges
 * the pending list in between (amvacuumcleanup).  The collection comes
 * first, as in ambulkdelete: it frees the pages earlier merges replaced,
 * so the merge reuses them instead of extending the file.  The truncation
 * reads the tail again, so pages the merge took are kept.
 */
void
LearnedCollectGarbage(Relation index, bool merge)
{
	BlockNumber busy_end;
	int			pass;

	LockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
	busy_end = collect_garbage_locked(index, NULL);
	if (merge)
	{
		LearnedMetaPageData before;
		LearnedMetaPageData after;

		LearnedReadMeta(index, &before);
		merge_locked(index, NULL, 0, LEARNED_MERGE_BY_VACUUM);
		LearnedReadMeta(index, &after);

		/*
		 * What the merge replaced, the last step of a sweep included: VACUUM
		 * may see the horizon pass it at once (gc_horizon), and the
		 * truncation then cuts it too.
		 */
		if (after.generation != before.generation || after.nflushes != before.nflushes)
			busy_end = collect_garbage_locked(index, NULL);
	}
	/*
	 * A second pass may move more: the first one's moved segments leave
	 * their pages free only after its flip and collection.
	 */
	for (pass = 0; pass < 2; pass++)
	{
		BlockNumber before = busy_end;

		busy_end = relocate_segments(index, busy_end);
		if (busy_end >= before)
			break;
	}
	truncate_free_tail(index, busy_end);
	UnlockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
}

/* ---------- trigger and background worker ---------- */

/*
 * The merge trigger, for a pending list of "pending" entries.  By ratio:
 * at least LEARNED_MERGE_MIN_PENDING entries and more than static entries
 * / merge_ratio, one rule at every size (an index created on an empty
 * table merges at the floor, then as any other).  By size: the records'
 * bytes past pending_limit.  Far over: past twice the limit, not counting
 * the ranks a sweep in progress has already merged (run_swept).  Those
 * stay in the list until the sweep's last step, but no reader visits them
 * and the sweep does not merge them again; counting them made inserters
 * wait (far_over_merge) for the whole of a worker's sweep of a big index,
 * while its steps were shortening the list, one group of segments a step.
 */
typedef struct MergeTrigger
{
	bool		by_ratio;
	bool		by_size;
	bool		far_over;
} MergeTrigger;

static bool
merge_trigger(Relation index, const LearnedMetaPageData *meta, uint64 pending,
			  MergeTrigger *t)
{
	double		ratio = learned_get_merge_ratio(index);
	int64		limit_bytes = (int64) learned_get_pending_limit(index) * 1024;

	/* the records' bytes: pages are not filled (tail.c) */
	int64		item = (int64) LearnedPendingItemSize(meta->keylen);
	uint64		swept = 0;
	uint32		j;

	for (j = 0; j < meta->nruns && j < LEARNED_MAX_RUNS; j++)
		swept += LearnedRunSwept(meta, j);
	t->by_ratio = pending >= LEARNED_MERGE_MIN_PENDING &&
		(double) pending > (double) meta->nstatic / ratio;
	t->by_size = (int64) pending * item > limit_bytes;
	t->far_over = (int64) (pending - Min(swept, pending)) * item > 2 * limit_bytes;
	/* a full run table: the tail can no longer be flushed */
	if (meta->nruns >= LEARNED_MAX_RUNS)
		t->by_ratio = true;
	return t->by_ratio || t->by_size;
}

/*
 * Whether the tail holds more than learned_idx.tail_limit entries and the
 * run table has room for its flush.
 */
static bool
tail_over(const LearnedMetaPageData *meta, uint64 appended)
{
	return learned_tail_limit > 0 && meta->nruns < LEARNED_MAX_RUNS &&
		appended > LearnedTailStartSeq(meta) &&
		appended - LearnedTailStartSeq(meta) > (uint64) learned_tail_limit;
}

/*
 * A main merge as the triggers do it: a step of the sweep in progress, or
 * of a new one where one may start, else the whole merge.  A list past
 * twice pending_limit is merged whole (the sweep in progress finished
 * first): a step leaves the list as long as it was until the sweep's last
 * one, and the bound on the list must hold whoever merges (a worker that
 * loops over steps holds the merge lock most of the time, and inserters
 * then skip their inline merges).
 */
static int64
merge_or_step(Relation index, LearnedMergeBy by)
{
	LearnedMetaPageData meta;
	int64		n;

	if (far_over_now(index))
		return merge_far_over(index, by);
	n = sweep_step(index, by);

	/*
	 * No sweep may start because no entry is in a run yet (the tail was
	 * not flushed: a list past pending_limit before tail_limit, or flushes
	 * turned off).  A trigger's merge (an inserter's or the worker's, with
	 * no scan open) then flushes the whole tail into a run and takes a
	 * step, as VACUUM does: a whole merge of random keys writes the whole
	 * static stage beside the old one, which waits for the snapshot
	 * horizon, and an inserting transaction running meanwhile holds that
	 * back.
	 */
	if (n < 0 && (by == LEARNED_MERGE_BY_INSERT || by == LEARNED_MERGE_BY_WORKER) &&
		learned_merge_step_segments >= 0 && !RelationUsesLocalBuffers(index) &&
		!RecoveryInProgress() && LearnedNoOpenScans())
	{
		LearnedReadMeta(index, &meta);
		if (meta.nsegments >= 2 && meta.sweep_end_seq == 0 && meta.nruns < LEARNED_MAX_RUNS)
		{
			LearnedAllocMapReset();
			if (LearnedRunFlushWhole(index))
				n = sweep_step(index, by);
		}
	}
	if (n < 0)
		return merge_locked(index, NULL, 0, by);

	/*
	 * Inserts flush the tail only when the merge lock is free, and a sweep
	 * whose steps follow each other (a worker's) holds it most of the time:
	 * the tail, and every backend's sorted copy of it, would grow with what
	 * a load appends during the whole sweep (73k entries, 2.6 MB a backend,
	 * seen at 10M rows).  So the step flushes it while it holds the lock.
	 */
	LearnedReadMeta(index, &meta);
	if (tail_over(&meta, LearnedPendingAppended(index, &meta)))
		(void) LearnedRunFlush(index, Max(1, learned_tail_limit / 2));
	return n;
}

/* whether the list is far past pending_limit now (the caller holds the merge lock) */
static bool
far_over_now(Relation index)
{
	LearnedMetaPageData meta;
	MergeTrigger t;

	LearnedReadMeta(index, &meta);
	return merge_trigger(index, &meta, LearnedPendingAppended(index, &meta) - meta.pending_merged, &t) &&
		t.far_over;
}

/*
 * Per backend: the index we last asked for a worker for, when, and the
 * worker that request started (NULL if none) with the index's generation
 * then.
 */
static Oid	last_launch_index = InvalidOid;
static TimestampTz last_launch_time = 0;
static BackgroundWorkerHandle *last_launch_handle = NULL;
static uint32 last_launch_generation = 0;

static void
forget_launch(void)
{
	if (last_launch_handle)
		pfree(last_launch_handle);
	last_launch_handle = NULL;
}

static bool
launch_worker(Relation index, uint32 generation)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	Oid			dboid = MyDatabaseId;
	MemoryContext old;
	bool		started;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "learned_idx");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "learned_merge_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "learned_idx merge of %u", RelationGetRelid(index));
	snprintf(worker.bgw_type, BGW_MAXLEN, "learned_idx merge");
	worker.bgw_main_arg = ObjectIdGetDatum(RelationGetRelid(index));
	memcpy(worker.bgw_extra, &dboid, sizeof(Oid));
	worker.bgw_notify_pid = 0;

	/* the handle outlives the statement: launch_throttled reads it later */
	forget_launch();
	old = MemoryContextSwitchTo(TopMemoryContext);
	started = RegisterDynamicBackgroundWorker(&worker, &handle);
	MemoryContextSwitchTo(old);
	if (started)
	{
		last_launch_handle = handle;
		last_launch_generation = generation;
	}
	return started;
}

/*
 * Whether a merge worker of the index may still look at the list again: it
 * holds LEARNED_WORKER_LOCK from its start until after its last look but
 * one (learned_merge_worker_main).  An insert that appended before finding
 * the lock held is seen by the worker's last look, which comes after it
 * releases the lock; one that finds it free starts a worker.  (The
 * worker's PGPROC staying registered until the postmaster reaps it, which
 * GetBackgroundWorkerPid reports, was not that: a worker that had already
 * taken its last look counted as running, and the last inserts of a load
 * were left over the trigger.)  The probe asks for ShareLock, which the
 * worker's ExclusiveLock excludes and another probe does not: two inserters
 * probing at once must not take each other for the worker.
 */
static bool
worker_running(Relation index)
{
	LOCKTAG		tag;

	SET_LOCKTAG_PAGE(tag, index->rd_lockInfo.lockRelId.dbId,
					 index->rd_lockInfo.lockRelId.relId, LEARNED_WORKER_LOCK);
	if (LockAcquire(&tag, ShareLock, false, true) == LOCKACQUIRE_NOT_AVAIL)
		return true;
	LockRelease(&tag, ShareLock, false);
	return false;
}

/*
 * A worker found running (worker_running) while the list was past the ratio
 * trigger will look at the list again after this insert: its last look
 * comes after it releases the lock this probe found held.  Until the list's
 * epoch moves (a flip or a flush), that stays true for this backend's later
 * inserts: the list only grows meanwhile, so that look finds it past the
 * trigger still and merges, which bumps the epoch, instead of exiting (a
 * list past twice pending_limit takes the far-over path, which does not ask
 * here).  The epoch compared is the insert's copy of the metapage, taken
 * under the share lock its append holds (LearnedAppendEntry), which every
 * flip's exclusive lock waits for, or, after an append that did not read
 * the metapage, read after the append (LearnedMaybeMergeStale): either way
 * an insert that sees the old epoch appended before the flip, and the
 * worker's look after it sees the entry.
 * So the probe, a lock-manager round trip, is made once an epoch rather
 * than once a row: per row it took 4% of the inserting backends' CPU under
 * 2-client 100-row INSERTs of random keys, where merges move the generation
 * every few hundred milliseconds (perf).
 *
 * What the argument does not cover ends the skip LEARNED_WORKER_SEEN_ROWS
 * appends on (a probe every 64 rows costs nothing measurable): a worker
 * that fails (an ERROR, a terminated backend) leaves the epoch as it is,
 * and so does an ALTER INDEX that lowers merge_ratio meanwhile, after which
 * the worker's look may find the list under its new trigger while this
 * statement's relcache entry still has the old one.  The file number is
 * compared with the OID because TRUNCATE and REINDEX start the epoch and
 * the sequence numbers again.
 */
#define LEARNED_WORKER_SEEN_ROWS	64

/*
 * What a probe of a lock found, remembered by this backend for one index
 * file and pending epoch, from one append on: the worker probe above and
 * the flush probe below (flush_probe_due) skip a lock-manager round trip
 * while it holds.
 */
typedef struct ProbeMemo
{
	Oid			relid;			/* InvalidOid: nothing remembered */
	Oid			file;
	uint32		epoch;
	uint64		seq;
} ProbeMemo;

static void
probe_memo_note(ProbeMemo *m, Relation index, const LearnedMetaPageData *meta,
				uint64 appended)
{
	m->relid = RelationGetRelid(index);
	m->file = LI_REL_FILE_NUMBER(index);
	m->epoch = meta->pending_epoch;
	m->seq = appended;
}

/* whether it holds for this append: same file and epoch, fewer than rows on */
static bool
probe_memo_holds(const ProbeMemo *m, Relation index, const LearnedMetaPageData *meta,
				 uint64 appended, uint64 rows)
{
	return m->relid == RelationGetRelid(index) &&
		m->file == LI_REL_FILE_NUMBER(index) &&
		meta->pending_epoch == m->epoch &&
		appended >= m->seq && appended - m->seq < rows;
}

static ProbeMemo worker_seen_memo = {InvalidOid};

/*
 * Did this backend ask for a worker for the index less than a second ago,
 * and may that request still take care of the list?  For a list past the
 * ratio trigger, it may unless the worker it started has exited after a
 * merge (the generation moved since): a worker merges until the list is
 * under the ratio trigger (learned_merge_worker_main), so entries appended
 * after its last look need another one now, or the tail of a load would
 * wait for the next insert or VACUUM.  A worker that exited without a
 * merge (it failed, say) waits out the second, so a failing worker is not
 * started for every insert.  A list past pending_limit alone waits out the
 * second too: the inserters merge it inline past twice the limit, which a
 * worker holding the merge lock would prevent.
 */
static bool
launch_throttled(Relation index, const LearnedMetaPageData *meta,
				 const MergeTrigger *t, TimestampTz now, uint64 appended)
{
	if (last_launch_index != RelationGetRelid(index) ||
		TimestampDifferenceExceeds(last_launch_time, now, LEARNED_MERGE_INTERVAL_MS))
		return false;
	if (!t->by_ratio || last_launch_handle == NULL ||
		meta->generation == last_launch_generation)
		return true;
	if (!worker_running(index))
		return false;
	probe_memo_note(&worker_seen_memo, index, meta, appended);
	return true;
}

/*
 * An inserter found the list past twice pending_limit.  A merge, flush or
 * VACUUM that holds the merge lock may be about to shorten it (a sweep's
 * step shortens what merge_trigger counts), or may be one that leaves it
 * as long: so wait for the lock, polling, for
 * up to LEARNED_FAR_OVER_WAIT_MS or until the metapage shows the list back
 * under the bound (far_over_meta), then merge whole if the list is still
 * that long.  The wait is what bounds the list while another backend
 * merges (without it, every insert of a load skipped its merge while a
 * worker held the lock, and the list grew past the bound).  It polls with
 * ConditionalLockPage rather than waiting in LockPage because the holder
 * may wait for a cleanup lock on a page this backend's own scan pins (an
 * INSERT ... SELECT reading the same index): a pin wait the deadlock
 * detector cannot see.  After the timeout the insert goes on, as before.
 */
#define LEARNED_FAR_OVER_WAIT_MS	1000

/*
 * Whether the list is still far past pending_limit, from the metapage
 * alone (the tail's own entries left out: at most a tail's worth).  The
 * metapage is the one page no flip replaces, so an inserter that says it
 * reads no page (LEARNED_NOSCAN_LOCK) may read it: a sweep's steps shorten
 * the list while their holder keeps the merge lock (merge_trigger), and
 * the inserter need not wait for the whole sweep once they have.
 */
#define LEARNED_FAR_OVER_RECHECK_MS	10

static bool
far_over_meta(Relation index)
{
	LearnedMetaPageData meta;
	MergeTrigger t;

	LearnedReadMeta(index, &meta);
	return merge_trigger(index, &meta,
						 meta.pending_tail_seq > meta.pending_merged ?
						 meta.pending_tail_seq - meta.pending_merged : 0, &t) &&
		t.far_over;
}

static void
far_over_merge(Relation index)
{
	int			waited;
	bool		noscan = LearnedNoOpenScans();

	/*
	 * While it waits, its statement's snapshot predates the flips of the
	 * merge it waits for; with no scan open it reads no page of the index
	 * until it has the lock, and says so (LEARNED_NOSCAN_LOCK), so that the
	 * holder's steps need not wait for it to reuse each other's pages.
	 */
	if (noscan)
		LockPage(index, LEARNED_NOSCAN_LOCK, ShareLock);
	for (waited = 0; !ConditionalLockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock); waited++)
	{
		if (waited >= LEARNED_FAR_OVER_WAIT_MS ||
			(waited % LEARNED_FAR_OVER_RECHECK_MS == LEARNED_FAR_OVER_RECHECK_MS - 1 &&
			 !far_over_meta(index)))
		{
			if (noscan)
				UnlockPage(index, LEARNED_NOSCAN_LOCK, ShareLock);
			return;
		}
		CHECK_FOR_INTERRUPTS();
		pg_usleep(1000L);
	}
	if (noscan)
		UnlockPage(index, LEARNED_NOSCAN_LOCK, ShareLock);
	if (far_over_now(index))
		merge_far_over(index, LEARNED_MERGE_BY_INSERT);
	UnlockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
}

/*
 * An insert whose tail is over tail_limit probes the merge lock to flush it
 * (LearnedMaybeMerge).  While a merge, a sweep's steps or another flush hold
 * that lock, every insert of a load found the tail over and probed again: a
 * lock manager round trip (the lock table's hash and its partition lock)
 * per row, 1-2% of the CPU under 2-client 100-row appends, where a
 * worker's sweep holds the lock most of the time (perf).  So after a failed
 * probe this backend probes again only LEARNED_FLUSH_PROBE_STEP entries
 * later, or once the pending list's epoch moved (a flip: the holder may be
 * done).  The tail is no less bounded: the holder flushes it when its step
 * ends (merge_or_step), and the next probe comes a few appends later.
 */
#define LEARNED_FLUSH_PROBE_STEP	64

static ProbeMemo flush_probe_memo = {InvalidOid};

static bool
flush_probe_due(Relation index, const LearnedMetaPageData *meta, uint64 appended)
{
	return !probe_memo_holds(&flush_probe_memo, index, meta, appended,
							 LEARNED_FLUSH_PROBE_STEP);
}

/*
 * Called after an insert with the metapage as the insert left it.  When the
 * pending list passes the trigger (merge_trigger) ask a background worker
 * to merge; if none can start, or the list passed twice the limit, merge
 * here, unless a merge is running.  An INSERT never fails because a worker
 * could not start.
 */
void
LearnedMaybeMerge(Relation index, const LearnedMetaPageData *meta, uint64 appended)
{
	MergeTrigger t;
	TimestampTz now;

	/*
	 * The tail passed its bound: flush it into a sorted run now, if no
	 * merge, flush or VACUUM holds the merge lock (else an insert tries
	 * again a few appends on: flush_probe_due).  Its cost is the tail's,
	 * not the index's.  Only complete
	 * pages are flushed, so a flush waits for half the bound in them.
	 */
	if (tail_over(meta, appended) && !RecoveryInProgress() &&
		flush_probe_due(index, meta, appended))
	{
		if (ConditionalLockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock))
		{
			/*
			 * As a merge does: collect the pages earlier flushes and merges
			 * replaced if they pile up, and read the FSM afresh for the
			 * run's pages (a VACUUM may have truncated the file since the
			 * last map).
			 */
			LearnedMetaPageData now_meta;

			LearnedAllocMapReset();
			LearnedReadMeta(index, &now_meta);
			(void) collect_garbage_if_due(index, &now_meta, false);
			LearnedRunFlush(index, Max(1, learned_tail_limit / 2));
			UnlockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
			flush_probe_memo.relid = InvalidOid;
		}
		else
		{
			/* busy: probe again LEARNED_FLUSH_PROBE_STEP entries on */
			probe_memo_note(&flush_probe_memo, index, meta, appended);
		}
	}

	if (!learned_auto_merge ||
		!merge_trigger(index, meta, appended - meta->pending_merged, &t))
		return;
	if (RelationUsesLocalBuffers(index) || RecoveryInProgress())
	{
		/* temp indexes: no worker can see them; merge inline */
		if (t.far_over || t.by_ratio)
			LearnedMerge(index, LEARNED_MERGE_BY_INSERT);
		return;
	}

	if (!t.far_over)
	{
		if (t.by_ratio &&
			probe_memo_holds(&worker_seen_memo, index, meta, appended,
							 LEARNED_WORKER_SEEN_ROWS))
			return;
		now = GetCurrentTimestamp();
		if (launch_throttled(index, meta, &t, now, appended))
			return;
		if (last_launch_index != RelationGetRelid(index))
			forget_launch();
		last_launch_index = RelationGetRelid(index);
		last_launch_time = now;

		/*
		 * A merge of a big index with random keys can run longer than a
		 * second (it rewrites every segment).  A worker started meanwhile
		 * would only connect, fail to get the merge lock and exit: a fork
		 * and a backend start-up for nothing, once a second per inserting
		 * backend.  Probe the lock instead (never wait on it): while a
		 * merge runs, ask again a second later (a worker's merge looks
		 * again when it ends).
		 */
		if (!ConditionalLockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock))
			return;
		UnlockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
		if (launch_worker(index, meta->generation))
			return;
	}

	/*
	 * No worker, or far over the limit: merge inline unless one runs.  One
	 * step of a sweep (the next trigger or a worker does the next), except
	 * far over the limit: then all of it, which bounds the list.
	 */
	if (!t.far_over)
	{
		if (ConditionalLockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock))
		{
			merge_or_step(index, LEARNED_MERGE_BY_INSERT);
			UnlockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
		}
		return;
	}
	far_over_merge(index);
}

/*
 * The trigger after an append that did not read the metapage (tail.c,
 * append_fast), with this backend's older copy of it.  The triggers count
 * from sequence numbers that only grow (pending_merged and the tail's
 * start, LearnedTailStartSeq), so an old copy overstates the tail and the
 * list: if it sees no trigger, a fresh one would see none either, unless
 * the static stage shrank meanwhile (a merge that dropped dead entries
 * lowers the ratio's bound) or the run table filled (a full table triggers
 * a merge), which the copy's refresh, at least every
 * LEARNED_APPEND_META_EVERY appends, catches a few appends late.  If it sees one, the metapage is read afresh and the
 * trigger runs on that, as after any append: a probe or a worker's start
 * must not act on an old view (the epoch the probes compare is the fresh
 * copy's, read after this append, so the argument of worker_seen_memo
 * holds).
 */
void
LearnedMaybeMergeStale(Relation index, const LearnedMetaPageData *copy,
					   uint64 appended)
{
	LearnedMetaPageData meta;
	MergeTrigger t;

	if (!tail_over(copy, appended) &&
		(!learned_auto_merge ||
		 !merge_trigger(index, copy, appended - copy->pending_merged, &t)))
		return;
	LearnedReadMeta(index, &meta);
	LearnedAppendNoteMeta(index, &meta);

	/*
	 * A merge that started after our append may have flipped before this
	 * read: then it merged past our entry, and the list counts from its end
	 * (an append that reads the metapage holds it across the append, so its
	 * copy never runs ahead of it).
	 */
	LearnedMaybeMerge(index, &meta, Max(appended, meta.pending_merged));
}

/*
 * Take the worker's LEARNED_WORKER_LOCK (a session lock), waiting up to
 * 100 ms: an insert probing it (worker_running) holds it for an instant,
 * and a worker that gave up then would leave the list to nobody.  A worker
 * that holds it longer runs: then false.
 */
static bool
worker_lock(const LOCKTAG *tag)
{
	int			tries;

	for (tries = 0; tries < 10; tries++)
	{
		if (LockAcquire(tag, ExclusiveLock, true, true) != LOCKACQUIRE_NOT_AVAIL)
			return true;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	return false;
}

/*
 * At the worker's exit, its session lock (LEARNED_WORKER_LOCK) may still be
 * held: a FATAL (SIGTERM) between two transactions.  Session locks outside
 * a transaction are not released at exit (ShutdownPostgres aborts only a
 * transaction in progress), and a worker lock left behind would keep every
 * later worker of the index from starting; so release them, as the logical
 * replication apply worker does.
 */
static void
worker_onexit(int code, Datum arg)
{
	LockReleaseAll(DEFAULT_LOCKMETHOD, true);
}

/*
 * Whether the worker should merge the list (again): past the ratio trigger,
 * and not far past pending_limit (the inserters merge that, see below).
 */
static bool
worker_due(Relation index, LearnedMetaPageData *meta)
{
	MergeTrigger t;

	LearnedReadMeta(index, meta);
	return merge_trigger(index, meta, LearnedPendingAppended(index, meta) - meta->pending_merged,
						 &t) && t.by_ratio && !t.far_over;
}

/*
 * Background worker: merge one index.  It copes with the index (or its
 * database) being dropped: it opens it with try_relation_open and checks
 * that it is still a valid learned index.
 *
 * It merges until the list is under the ratio trigger: entries appended
 * during a merge (a load goes on meanwhile) would otherwise wait for an
 * insert that asks again, and the last statement of a load asks no more.
 * A list past pending_limit alone, or past twice it, is left to the
 * inserters, which merge it inline past twice the limit: a worker that
 * kept the merge lock would let it grow without that bound.  Each merge is
 * a transaction of its own, so the worker holds back no snapshot horizon
 * (garbage collection waits for it) between merges.
 *
 * So that no list is left over the trigger, the worker holds
 * LEARNED_WORKER_LOCK (one worker an index; a second one exits at once)
 * while it runs, and exits only after a look at the list that follows the
 * lock's release: an insert that found the lock held asked no worker
 * (worker_running), and that look sees its entries; if they are over the
 * trigger, it takes the lock again and goes on (or, if another worker took
 * it meanwhile, leaves the list to that one).  While the merge lock is
 * busy and the list is over the trigger, it tries again after the pause
 * instead of exiting.  Before it exits it collects the garbage its last
 * merge left (gc_horizon leaves its own snapshot out), so that the pages
 * of a load's last steps need not wait for the next merge or VACUUM.
 */
void
learned_merge_worker_main(Datum arg)
{
	Oid			indexoid = DatumGetObjectId(arg);
	Oid			dboid;
	bool		again = true;
	bool		sweeping = false;
	bool		holding = false;
	LOCKTAG		wtag;

	memcpy(&dboid, MyBgworkerEntry->bgw_extra, sizeof(Oid));
	in_merge_worker = true;
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	before_shmem_exit(worker_onexit, (Datum) 0);
	SET_LOCKTAG_PAGE(wtag, dboid, indexoid, LEARNED_WORKER_LOCK);

	while (again)
	{
		Relation	index;
		TimestampTz started = GetCurrentTimestamp();

		again = false;
		sweeping = false;
		CHECK_FOR_INTERRUPTS();
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		pgstat_report_activity(STATE_RUNNING, "learned_idx merge");

		/* a session lock: it outlives each merge's transaction */
		if (!holding)
			holding = worker_lock(&wtag);

		index = holding ? try_relation_open(indexoid, RowExclusiveLock) : NULL;
		if (index != NULL)
		{
			if (index->rd_rel->relkind == RELKIND_INDEX &&
				index->rd_rel->relam == get_index_am_oid("learned", true) &&
				index->rd_index->indisready && index->rd_index->indislive)
			{
				bool		locked = false;
				int			tries;
				LearnedMetaPageData meta;

				/*
				 * Someone else merging will take our entries too; but a flush
				 * into a sorted run (run.c) or GC holds the lock only briefly
				 * and merges nothing: wait out those, up to a second, without
				 * queueing behind a long merge.  Meanwhile its snapshot is
				 * set but it reads no page of the index: it says so, as a
				 * waiting inserter does (far_over_merge), or the holder's
				 * sweep could not reuse its own steps' pages until this
				 * wait ended.
				 */
				LockPage(index, LEARNED_NOSCAN_LOCK, ShareLock);
				for (tries = 0; tries < 100; tries++)
				{
					if ((locked = ConditionalLockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock)))
						break;
					(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
									 10, PG_WAIT_EXTENSION);
					ResetLatch(MyLatch);
					CHECK_FOR_INTERRUPTS();
				}
				UnlockPage(index, LEARNED_NOSCAN_LOCK, ShareLock);
				if (locked)
				{
					/*
					 * If the step before (this worker's last transaction)
					 * noted the backends that may still read what it
					 * replaced, and nothing flipped since, wait a little for
					 * them to move on, so that this step's garbage
					 * collection frees those pages for its writes
					 * (witness_wait returns at once otherwise; sweep_all
					 * does the same).
					 */
					LearnedReadMeta(index, &meta);
					witness_wait(index, &meta);
					merge_or_step(index, LEARNED_MERGE_BY_WORKER);
					LearnedReadMeta(index, &meta);
					/* a sweep's steps follow each other without the pause */
					sweeping = meta.sweep_end_seq != 0;
					if (sweeping)
						witness_record(index, &meta);
					again = sweeping || worker_due(index, &meta);
					if (!again)
						(void) collect_garbage_if_due(index, &meta, true);
					UnlockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);

					/*
					 * Take an xid after the flip.  Garbage collection frees
					 * the pages a step replaced once its flip xid is below
					 * every snapshot's xmin; with no xid assigned since the
					 * flip (the inserts stopped), a snapshot taken after the
					 * flip has that very xmin and cannot be told from one
					 * taken before it, so the next steps could not reuse
					 * those pages and the file would grow by each step.
					 */
					if (sweeping)
						(void) GetTopTransactionId();
				}
				else

					/*
					 * Someone holds the merge lock: a long merge may leave
					 * the list over the trigger (if it is not the list's
					 * whole merge), so look again after the pause.
					 */
					again = worker_due(index, &meta);

				/* the last look, after the lock's release (see above) */
				if (!again)
				{
					LockRelease(&wtag, ExclusiveLock, true);
					holding = false;
					if (worker_due(index, &meta))
					{
						holding = worker_lock(&wtag);
						again = holding;
					}
				}
			}
			relation_close(index, RowExclusiveLock);
		}

		PopActiveSnapshot();
		CommitTransactionCommand();
		pgstat_report_activity(STATE_IDLE, NULL);

		/*
		 * At most one merge a second, as inserters ask for workers at most
		 * once a second: under a steady stream of inserts the list is past
		 * the trigger again right after a merge, and back-to-back merges of
		 * random keys would rewrite the static stage for every few thousand
		 * entries.  The pause batches them; the loop still takes the tail
		 * of a load that no insert will ask about.
		 */
		if (again && !sweeping)
		{
			long		secs;
			int			usecs;
			long		ms;

			TimestampDifference(started, GetCurrentTimestamp(), &secs, &usecs);
			ms = secs * 1000 + usecs / 1000;
			if (ms < LEARNED_MERGE_INTERVAL_MS)
			{
				(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
								 LEARNED_MERGE_INTERVAL_MS - ms, PG_WAIT_EXTENSION);
				ResetLatch(MyLatch);
			}
		}
	}
	if (holding)
		LockRelease(&wtag, ExclusiveLock, true);
	proc_exit(0);
}

/*
 * The index a merge function works on: not during recovery, owner only, and
 * the table locked as a writer locks it.
 */
static Relation
open_for_merge(Oid relid)
{
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("recovery is in progress"),
				 errhint("Learned index merges cannot run during recovery.")));
	return LearnedOpenIndexChecked(relid, RowExclusiveLock, "merge", true, NULL);
}

/*
 * SQL: learned_index_merge(regclass) merges the pending list now and returns
 * the number of entries merged.
 */
Datum
learned_index_merge(PG_FUNCTION_ARGS)
{
	Relation	index = open_for_merge(PG_GETARG_OID(0));
	int64		n;

	n = LearnedMerge(index, LEARNED_MERGE_BY_FUNCTION);
	index_close(index, RowExclusiveLock);
	PG_RETURN_INT64(n);
}

/*
 * SQL: learned_index_merge_step(regclass) does what one merge trigger does:
 * a step of the swept main merge in progress, or of a new one, or (where no
 * sweep may start) the whole merge.  Returns the entries merged.
 */
Datum
learned_index_merge_step(PG_FUNCTION_ARGS)
{
	Relation	index = open_for_merge(PG_GETARG_OID(0));
	int64		n;

	LockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
	n = merge_or_step(index, LEARNED_MERGE_BY_FUNCTION);
	UnlockPage(index, LEARNED_MERGE_LOCK, ExclusiveLock);
	index_close(index, RowExclusiveLock);
	PG_RETURN_INT64(n);
}
