/*
 * writer.c
 *		The static stage's writer, shared by CREATE INDEX and the merge:
 *		sort entries, check their order, cut them into segments, train each
 *		segment's model and write its leaf pages (plain, compressed or
 *		variable-width).
 *
 * A build writes through shared buffers with MarkBufferDirty only (build.c
 * logs the whole relation at its end); outside a build every page run is
 * WAL-logged as full images as it is written (LearnedWriteRun), since
 * nothing can see those pages before the metapage flip.
 */
#include "postgres.h"

#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "compat.h"
#include "learned.h"
#include "leaf.h"
/*
 * Sort by mapped key, then TID.  The mapping of every supported type is
 * strictly monotone on the opclass's equality classes, so equal mapped keys
 * are equal keys and the comparator is not needed here; a lossy mapping
 * would need it as a tie-breaker.
 */
static inline int
entry_cmp(const LearnedEntry *a, const LearnedEntry *b)
{
	if (a->mkey != b->mkey)
		return a->mkey < b->mkey ? -1 : 1;
	return ItemPointerCompare((ItemPointer) &a->tid, (ItemPointer) &b->tid);
}

#define ST_SORT sort_learned_entries
#define ST_ELEMENT_TYPE LearnedEntry
#define ST_COMPARE(a, b) entry_cmp(a, b)
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Composite keys and types with a lossy mapping (uuid, interval): the image
 * is monotone but not exact (columns beyond the packed ones, a lossy digit,
 * values outside the build's ranges), so equal images are ordered by the
 * comparator.
 */
static inline int
composite_cmp(const LearnedEntry *a, const LearnedEntry *b, LearnedKeyInfo *ki)
{
	int			r;

	if (a->mkey != b->mkey)
		return a->mkey < b->mkey ? -1 : 1;
	r = LearnedKeyCmp(ki, a->key, b->key);
	if (r != 0)
		return r;
	return ItemPointerCompare((ItemPointer) &a->tid, (ItemPointer) &b->tid);
}

#define ST_SORT sort_learned_composite
#define ST_ELEMENT_TYPE LearnedEntry
#define ST_COMPARE(a, b, arg) composite_cmp(a, b, arg)
#define ST_COMPARE_ARG_TYPE LearnedKeyInfo
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Entries about to be written must be in index order.  Sorting (and
 * merging) by image first relies on images never decreasing where the
 * comparator increases: true of every image but a libc collation's
 * strxfrm prefix, which PostgreSQL does not trust to agree with strcoll.
 * For such keys, check every neighbour with the comparator, and refuse to
 * write a misordered index.
 *
 * In a build the entries come from the heap, so a misorder can only be the
 * library's.  In a merge the static stage's keys come from leaf pages, and
 * a damaged key is at least as likely: report it as index corruption, and
 * let the REINDEX its hint asks for tell the two apart.
 */
void
LearnedCheckOrder(Relation index, const LearnedKeyInfo *ki,
				  const LearnedEntry *entries, Size n, bool building)
{
	LearnedKeyInfo *k = (LearnedKeyInfo *) ki;
	Size		i;

	if (LearnedKeyImagesTrusted(k))
		return;
	for (i = 1; i < n; i++)
	{
		if (LearnedKeyCmp(k, entries[i - 1].key, entries[i].key) > 0)
		{
			if (!building)
				ereport(ERROR,
						(errcode(ERRCODE_INDEX_CORRUPTED),
						 errmsg("learned index \"%s\" has keys out of order",
								RelationGetRelationName(index)),
						 errdetail("Either a page of the index is damaged, or the C library's strxfrm() disagrees with strcoll() for this collation."),
						 errhint("REINDEX the index.  If the REINDEX fails because strxfrm() disagrees, use the \"C\" collation or an ICU collation for this index.")));
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("the C library's strxfrm() disagrees with strcoll() for this collation"),
					 errdetail("A learned index orders strings by a strxfrm() prefix first, and the library ordered two keys differently from its own comparison."),
					 errhint("Use the \"C\" collation or an ICU collation for this index.")));
		}
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

void
LearnedSortEntries(LearnedKeyInfo *ki, LearnedEntry *entries, Size n)
{
	if (!LearnedKeyMapExact(ki))
		sort_learned_composite(entries, n, ki);
	else
		sort_learned_entries(entries, n);
}

typedef struct PlainRun
{
	const LearnedKeyInfo *ki;
	const LearnedLeafLayout *layout;
	const LearnedEntry *entries;
	const ItemPointerData *tids;
	Size		n;
} PlainRun;

static void
fill_plain_page(Page page, uint32 pg, void *arg)
{
	PlainRun   *r = (PlainRun *) arg;
	Size		done = (Size) pg * r->layout->capacity;
	int			cnt = (int) Min((Size) r->layout->capacity, r->n - done);
	int			i;

	((PageHeader) page)->pd_lower = r->layout->end_off;
	for (i = 0; i < cnt; i++)
	{
		if (r->entries)
		{
			LearnedKeyStore(r->ki, LearnedLeafKeyPtr(page, r->layout, i),
							r->entries[done + i].key);
			*LearnedLeafTid(page, r->layout, i) = r->entries[done + i].tid;
		}
		else
			*LearnedLeafTid(page, r->layout, i) = r->tids[done + i];
	}
	LearnedPageGetOpaque(page)->nitems = cnt;
}

/*
 * Write n entries (or NULL TIDs) as a run of full pages of the plain
 * layout (LearnedWriteRun).
 */
BlockNumber
LearnedWriteLeafRun(Relation index, const LearnedKeyInfo *ki,
					const LearnedLeafLayout *layout,
					uint16 type, const LearnedEntry *entries,
					const ItemPointerData *tids, Size n, uint32 generation,
					bool building)
{
	PlainRun	r;

	r.ki = ki;
	r.layout = layout;
	r.entries = entries;
	r.tids = tids;
	r.n = n;
	return LearnedWriteRun(index, (uint32) ((n + layout->capacity - 1) / layout->capacity),
						   type, generation, building, fill_plain_page, &r);
}

/*
 * The point arrays of train_segment, kept across the segments of one
 * LearnedWriteSegments call: a fresh allocation of this size is fresh
 * memory (every page of it faulted in again, for each segment).
 */
typedef struct TrainScratch
{
	Size		cap;			/* entries the arrays are for */
	uint64	   *keys;
	uint64	   *x;
	int64	   *ylo;
	int64	   *yhi;
	int64	   *yrank;
} TrainScratch;

static void
train_scratch_free(TrainScratch *ts)
{
	if (ts->cap == 0)
		return;
	pfree(ts->keys);
	pfree(ts->x);
	pfree(ts->ylo);
	pfree(ts->yhi);
	pfree(ts->yrank);
	ts->cap = 0;
}

/*
 * The largest bound a segment's model is fitted to.  Its measured errors
 * are stored in 16 bits, and a window clipped to them could end short of a
 * key; they reach eps + 1 (and 2 more where a merge re-anchors a piece,
 * merge.c), so error_bound's last few values (up to 65536) fit as this.
 */
#define LEARNED_FIT_MAX_EPS		(PG_UINT16_MAX - 4)

/*
 * Fit the models of one segment: points from the mapped keys with
 * page-aligned intervals (G3), optimal PLA, then measure every piece with
 * the query-time arithmetic.  Appends to *pieces.
 */
static void
train_segment(const LearnedEntry *entries, Size n, int eps, int P, TrainScratch *ts,
			  LearnedPiece **pieces, Size *npieces,
			  Size *maxpieces, double *err_sum, int32 *err_max)
{
	uint64	   *keys;
	uint64	   *x;
	int64	   *ylo;
	int64	   *yhi;
	int64	   *yrank;
	PlaPiece   *fit;
	int64		npoints;
	int64		nfit;
	int64		i;
	int64		p;

	if (ts->cap < n)
	{
		train_scratch_free(ts);
		ts->keys = palloc_extended(sizeof(uint64) * n, MCXT_ALLOC_HUGE);
		ts->x = palloc_extended(sizeof(uint64) * 2 * n, MCXT_ALLOC_HUGE);
		ts->ylo = palloc_extended(sizeof(int64) * 2 * n, MCXT_ALLOC_HUGE);
		ts->yhi = palloc_extended(sizeof(int64) * 2 * n, MCXT_ALLOC_HUGE);
		ts->yrank = palloc_extended(sizeof(int64) * 2 * n, MCXT_ALLOC_HUGE);
		ts->cap = n;
	}
	eps = Min(eps, LEARNED_FIT_MAX_EPS);
	keys = ts->keys;
	x = ts->x;
	ylo = ts->ylo;
	yhi = ts->yhi;
	yrank = ts->yrank;
	for (i = 0; i < (int64) n; i++)
		keys[i] = entries[i].mkey;
	npoints = pla_make_points(keys, n, eps, P, x, ylo, yhi, yrank);
	fit = palloc_extended(sizeof(PlaPiece) * Max(npoints, 1), MCXT_ALLOC_HUGE);
	nfit = pla_fit_pages(x, ylo, yhi, npoints, fit);
	if (nfit < 0)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory while fitting learned index models")));

	/*
	 * The target of each point is its true page: reuse ylo/yhi for it (the
	 * intervals less eps; no division a point).
	 */
	for (i = 0; i < npoints; i++)
	{
		ylo[i] += eps;
		yhi[i] -= eps;
	}

	for (p = 0; p < nfit; p++)
	{
		PlaPiece   *f = &fit[p];
		LearnedPiece *lp;
		int64		start = yrank[f->first_point];
		int64		next = (p + 1 < nfit) ? yrank[fit[p + 1].first_point] : (int64) n;
		int64		below;
		int64		above;

		/* store the slope as a float, and measure with what is stored */
		f->slope = (double) (float4) f->slope;
		pla_measure(f, x, ylo, yhi, start, next, &below, &above);
		if (*npieces >= *maxpieces)
		{
			*maxpieces *= 2;
			*pieces = repalloc_huge(*pieces, *maxpieces * sizeof(LearnedPiece));
		}
		lp = &(*pieces)[(*npieces)++];
		memset(lp, 0, sizeof(LearnedPiece));
		lp->first_key = f->first_key;
		lp->intercept = (int32) f->intercept;
		lp->slope = (float4) f->slope;
		lp->start_rank = (uint32) start;
		/* never clipped: LEARNED_FIT_MAX_EPS keeps them in 16 bits */
		lp->err_below = (uint16) Min(below, PG_UINT16_MAX);
		lp->err_above = (uint16) Min(above, PG_UINT16_MAX);
		*err_sum += (double) (below + above) / 2.0;
		*err_max = Max(*err_max, (int32) Max(below, above));
	}

	pfree(fit);
}

/*
 * Cut sorted entries into segments of at most LEARNED_SEGMENT_MAX_PAGES,
 * write their leaf runs and train their models; append to the arrays.
 *
 * With set->compression and a compressible key (leaf.c), each segment
 * first gets its own page capacity P, from the previous compressed
 * segment's and its own first page (LearnedPlanCompressed, which encodes
 * its pages once and ends it before a page that would not fit); a segment
 * for which that is no better than the plain capacity is written plain.
 */
void
LearnedWriteSegments(Relation index, const LearnedKeyInfo *ki, int eps,
					 const LearnedEntry *entries, Size n, uint32 generation,
					 bool building, LearnedSegmentSet *set)
{
	int			plainP = LearnedKeyIsVarwidth(ki) ? LEARNED_VW_MAX_ITEMS : ki->layout.capacity;
	Size		segcap = (Size) LEARNED_SEGMENT_MAX_PAGES * plainP;
	bool		compress = set->compression &&
		LearnedCompressKeyKind(ki) != LEARNED_CKEY_NONE;
	Size		nparts = (n + segcap - 1) / segcap;
	Size		per;
	Size		done;
	TrainScratch ts = {0};

	/*
	 * Split evenly, in whole pages: a segment that just outgrew the cap
	 * becomes two half-full ones rather than a full one and a sliver.
	 */
	if (nparts == 0)
		return;
	per = (n + nparts - 1) / nparts;
	per = ((per + plainP - 1) / plainP) * plainP;
	per = Min(per, segcap);
	/* any key whose images are untrusted: text, and also name (fixed width) */
	LearnedCheckOrder(index, ki, entries, n, building);
	for (done = 0; done < n;)
	{
		Size		cnt = Min(per, n - done);
		int			P = plainP;
		bool		comp = false;
		bool		packed = false;
		LearnedCompressedPlan plan;
		LearnedSegment *seg;
		LearnedEntry *local;

		if (LearnedKeyIsVarwidth(ki))
			P = LearnedPlanVarwidth(ki, entries + done, n - done, &cnt);
		else if (LearnedKeyPackable(ki))
		{
			Size		pcnt;
			int			pP = LearnedPlanVarwidth(ki, entries + done, n - done, &pcnt);

			/*
			 * Packed on stride pages if that holds more entries a page
			 * (the keys share a prefix: uuid v7's timestamp), else plain.
			 */
			if (pP > plainP)
			{
				P = pP;
				cnt = pcnt;
				packed = true;
			}
		}
		else if (compress &&
				 LearnedPlanCompressed(ki, entries + done, n - done, plainP,
									   set->last_P, &plan))
		{
			P = plan.P;
			comp = true;
			cnt = plan.n;
			/* the next segment's first guess (a merge's next call too) */
			set->last_P = P;
		}

		/*
		 * Outside a build, a segment that fits in no hole is cut to the
		 * longest one (LearnedFitPages), whatever its page format: every
		 * page but a segment's last holds exactly P entries (plain,
		 * compressed, variable-width and stride pages alike), so the first
		 * fit * P entries fill fit whole pages, laid out as they would have
		 * been, and the rest start the next segment.  A compressed plan's
		 * pages are encoded one by one, so it is cut at that boundary too.
		 * (Composite and string keys live on variable-width pages: without
		 * the cut, their segments of up to 128 pages extended the file past
		 * every smaller hole, and VACUUM's relocation, whose plan
		 * (relocation_end) assumes the cut for every segment, could
		 * rewrite one at the file's end instead of lower.)
		 */
		if (!building)
		{
			uint32		need = (uint32) ((cnt + P - 1) / P);
			uint32		fit = LearnedFitPages(index, need);

			if (fit < need)
			{
				cnt = (Size) fit * P;
				if (comp)
				{
					plan.npages = fit;
					plan.n = cnt;
				}
			}
		}

		if (set->nsegs >= set->maxsegs)
		{
			set->maxsegs = Max(16, set->maxsegs * 2);
			set->segs = set->segs ?
				repalloc_huge(set->segs, set->maxsegs * sizeof(LearnedSegment)) :
				palloc_extended(set->maxsegs * sizeof(LearnedSegment), MCXT_ALLOC_HUGE);
		}
		if (set->pieces == NULL)
		{
			set->maxpieces = 64;
			set->pieces = palloc_extended(set->maxpieces * sizeof(LearnedPiece), MCXT_ALLOC_HUGE);
		}
		seg = &set->segs[set->nsegs];
		memset(seg, 0, sizeof(LearnedSegment));
		if (comp)
			seg->start_blk = LearnedWriteCompressedRun(index, &plan, generation, building);
		else if (LearnedKeyIsVarwidth(ki) || packed)
			seg->start_blk = LearnedWriteVarRun(index, ki, entries + done, cnt, P,
												generation, building);
		else
			seg->start_blk = LearnedWriteLeafRun(index, ki, &ki->layout, LEARNED_PAGE_LEAF,
												 entries + done, NULL, cnt,
												 generation, building);
		seg->items_per_page = (uint32) P;
		seg->compressed = comp;
		seg->packed = packed;
		seg->npages = (uint32) ((cnt + P - 1) / P);
		seg->nitems = (uint32) cnt;
		seg->first_piece = (uint32) set->npieces;
		seg->generation = generation;
		seg->first_key = entries[done].mkey;
		seg->kind = LEARNED_SEG_MODEL;

		/*
		 * One string column: the models see the segment-local images
		 * (keymap.c), which skip the sort-key prefix the segment's keys
		 * share.
		 */
		local = NULL;
		if (LearnedKeyLocalImages(ki))
		{
			LearnedKeyInfo *k = (LearnedKeyInfo *) ki;
			int			skip = LearnedStringSkip(k, entries[done].key,
												 entries[done + cnt - 1].key);

			if (skip > 0)
			{
				uint8		prefix[LEARNED_STR_PREFIX_MAX];
				Size		i;

				LearnedStringPrefix(k, entries[done].key, skip, prefix);
				local = palloc_extended(sizeof(LearnedEntry) * cnt, MCXT_ALLOC_HUGE);
				for (i = 0; i < cnt; i++)
				{
					local[i] = entries[done + i];
					local[i].mkey = LearnedStringImageAt(k, local[i].key, k->keytype,
														 skip, prefix);
				}
				seg->str_skip = (uint8) skip;
			}
		}
		if (set->mode != LEARNED_MODE_ZONEMAP)
			train_segment(local ? local : entries + done, cnt, eps, P, &ts, &set->pieces,
						  &set->npieces, &set->maxpieces, &set->err_sum, &set->err_max);
		/* train_segment may have grown the pieces array: re-fetch seg */
		seg = &set->segs[set->nsegs];
		seg->npieces = (uint32) (set->npieces - seg->first_piece);
		/* G5: model or zone map for this key range (directory.c) */
		LearnedChooseSegmentKind(set, seg, local ? local : entries + done, P);
		if (local)
			pfree(local);
		set->nsegs++;
		done += cnt;
		if (building)
			pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, (int64) done);
	}
	train_scratch_free(&ts);
}
