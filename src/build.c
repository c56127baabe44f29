/*
 * build.c
 *		CREATE INDEX: scan the heap, sort, write dense leaf pages, fit the
 *		models, write the directory and the metapage.
 *
 * Pages are written through shared buffers with MarkBufferDirty only, and
 * the whole relation is WAL-logged at the end with log_newpage_range (the
 * pgvector approach): no page is visible to anybody before the build ends.
 */
#include "postgres.h"

#include <sys/time.h>

#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "catalog/pg_opfamily.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "compat.h"
#include "learned.h"

typedef struct BuildState
{
	LearnedKeyInfo ki;
	LearnedEntry *entries;
	Size		nentries;
	Size		maxentries;
	ItemPointerData *nulls;
	Size		nnulls;
	Size		maxnulls;
	double		indtuples;
	/* unique indexes: TIDs of indexed tuples that are not alive */
	bool		unique;
	ItemPointerData *dead;
	Size		ndead;
	Size		maxdead;
	Size		live_nulls;
	/* composite keys: stored bytes in chunks, per-column ranges of images */
	MemoryContext tmpcxt;		/* a variable-width key being formed */
	bool		string_map;		/* one string column: images after the scan */
	char	   *chunk;
	Size		chunk_used;
	Size		chunk_size;
	uint64		lo[INDEX_MAX_KEYS];
	uint64		hi[INDEX_MAX_KEYS];
} BuildState;

/*
 * Sort by mapped key, then TID.  The mapping of every supported type is
 * strictly monotone on the opclass's equality classes, so equal mapped keys
 * are equal keys and the comparator is not needed here; a lossy mapping
 * would need it as a tie-breaker.
 */
static inline int
build_entry_cmp(const LearnedEntry *a, const LearnedEntry *b)
{
	if (a->mkey != b->mkey)
		return a->mkey < b->mkey ? -1 : 1;
	return ItemPointerCompare((ItemPointer) &a->tid, (ItemPointer) &b->tid);
}

#define ST_SORT sort_learned_entries
#define ST_ELEMENT_TYPE LearnedEntry
#define ST_COMPARE(a, b) build_entry_cmp(a, b)
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
build_composite_cmp(const LearnedEntry *a, const LearnedEntry *b, LearnedKeyInfo *ki)
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
#define ST_COMPARE(a, b, arg) build_composite_cmp(a, b, arg)
#define ST_COMPARE_ARG_TYPE LearnedKeyInfo
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

/* room for one stored key's bytes (size, aligned), in chunks that never move */
static char *
build_key_space(BuildState *bs, Size size, int align)
{
	char	   *p;

	bs->chunk_used = TYPEALIGN(align, bs->chunk_used);
	if (bs->chunk == NULL || bs->chunk_used + size > bs->chunk_size)
	{
		bs->chunk_size = Max((Size) 1024 * 1024, size);
		bs->chunk = palloc(bs->chunk_size);
		bs->chunk_used = 0;
	}
	p = bs->chunk + bs->chunk_used;
	bs->chunk_used += size;
	return p;
}

/* a formed key (LearnedKeyForm, in tmpcxt) kept in the key space */
static Datum
build_keep_key(BuildState *bs, Datum key)
{
	return LearnedKeyCopy(&bs->ki, key,
						  build_key_space(bs, LearnedKeySize(&bs->ki, key),
										  LearnedKeyAlign(&bs->ki, key)));
}

static void
build_callback(Relation index, ItemPointer tid, Datum *values,
			   bool *isnull, bool tupleIsAlive, void *state)
{
	BuildState *bs = (BuildState *) state;

	/* unique: dead tuples are indexed but not checked (as btree's spool2) */
	if (bs->unique)
	{
		if (!tupleIsAlive)
		{
			if (bs->ndead >= bs->maxdead)
			{
				bs->maxdead = Max(64, bs->maxdead * 2);
				bs->dead = bs->dead ?
					repalloc_huge(bs->dead, bs->maxdead * sizeof(ItemPointerData)) :
					palloc_extended(bs->maxdead * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
			}
			bs->dead[bs->ndead++] = *tid;
		}
		else if (isnull[0] && !LearnedKeyIsComposite(&bs->ki))
			bs->live_nulls++;	/* composite keys keep NULLs inline */
	}

	if (LearnedKeyIsComposite(&bs->ki))
	{
		LearnedEntry *e;
		char	   *p;
		int			i;

		/* NULLs of any column are ordinary entries, placed in index order */
		if (bs->nentries >= bs->maxentries)
		{
			bs->maxentries *= 2;
			bs->entries = repalloc_huge(bs->entries, bs->maxentries * sizeof(LearnedEntry));
		}
		if (LearnedKeyIsVarwidth(&bs->ki))
		{
			MemoryContext old = MemoryContextSwitchTo(bs->tmpcxt);
			Datum		formed = LearnedKeyForm(&bs->ki, index, values, isnull, tid);

			MemoryContextSwitchTo(old);
			p = DatumGetPointer(build_keep_key(bs, formed));
			MemoryContextReset(bs->tmpcxt);
		}
		else
		{
			p = build_key_space(bs, bs->ki.keylen, bs->ki.fixedalign);
			LearnedKeyPack(&bs->ki, values, isnull, p);
		}
		for (i = 0; i < bs->ki.nkeys; i++)
		{
			uint64		m;

			if (isnull[i])
				continue;
			m = learned_map_value(&bs->ki.cols[i], values[i], bs->ki.cols[i].type);
			bs->lo[i] = Min(bs->lo[i], m);
			bs->hi[i] = Max(bs->hi[i], m);
		}
		e = &bs->entries[bs->nentries++];
		e->key = PointerGetDatum(p);
		e->mkey = 0;			/* once the map is planned */
		e->tid = *tid;
	}
	else if (isnull[0])
	{
		if (bs->nnulls >= bs->maxnulls)
		{
			bs->maxnulls *= 2;
			bs->nulls = repalloc_huge(bs->nulls, bs->maxnulls * sizeof(ItemPointerData));
		}
		bs->nulls[bs->nnulls++] = *tid;
	}
	else
	{
		LearnedEntry *e;

		if (bs->nentries >= bs->maxentries)
		{
			bs->maxentries *= 2;
			bs->entries = repalloc_huge(bs->entries, bs->maxentries * sizeof(LearnedEntry));
		}
		e = &bs->entries[bs->nentries++];
		/* a by-reference value lives in per-tuple memory: keep a copy */
		if (LearnedKeyIsVarwidth(&bs->ki))
		{
			MemoryContext old = MemoryContextSwitchTo(bs->tmpcxt);
			Datum		formed = LearnedKeyForm(&bs->ki, index, values, isnull, tid);

			MemoryContextSwitchTo(old);
			e->key = build_keep_key(bs, formed);
			MemoryContextReset(bs->tmpcxt);
		}
		else
			e->key = LearnedKeyCopy(&bs->ki, values[0],
									bs->ki.byref ?
									build_key_space(bs, bs->ki.keylen, bs->ki.fixedalign) :
									NULL);
		/* a string's image waits for the key map (LearnedStringMapPlan) */
		e->mkey = bs->string_map ? 0 :
			learned_map_value(&bs->ki.cols[0], values[0], bs->ki.keytype);
		e->tid = *tid;
	}
	bs->indtuples += 1;
}

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

/*
 * Write a run of npages pages of the given type on freshly allocated
 * contiguous blocks: fill writes each page's contents (after
 * LearnedInitPage) and sets its pd_lower and nitems.  Outside a build the
 * run is WAL-logged here (full images: nothing can see these pages before
 * the metapage flip).  Returns the first block.  Every leaf-run writer
 * (plain, compressed, variable-width) goes through here.
 */
BlockNumber
LearnedWriteRun(Relation index, uint32 npages, uint16 type, uint32 generation,
				bool building, LearnedFillPage fill, void *arg)
{
	BlockNumber first = LearnedAllocRun(index, npages, building);
	uint32		pg;

	for (pg = 0; pg < npages; pg++)
	{
		Buffer		buf = ReadBuffer(index, first + pg);
		Page		page;

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		LearnedInitPage(page, type, generation);
		fill(page, pg, arg);
		if (type == LEARNED_PAGE_LEAF || type == LEARNED_PAGE_NULLS)
			LearnedLeafReserveHints(page);
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
	if (!building && RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, first, first + npages, true);
	return first;
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
	keys = ts->keys;
	x = ts->x;
	ylo = ts->ylo;
	yhi = ts->yhi;
	yrank = ts->yrank;
	for (i = 0; i < (int64) n; i++)
		keys[i] = entries[i].mkey;
	npoints = pla_make_points(keys, n, eps, P, x, ylo, yhi, yrank);
	fit = palloc_extended(sizeof(PlaPiece) * Max(npoints, 1), MCXT_ALLOC_HUGE);
	nfit = pla_fit(x, ylo, yhi, npoints, fit);
	if (nfit < 0)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory while fitting learned index models")));

	/* the target of each point is its true page: reuse ylo/yhi for it */
	for (i = 0; i < npoints; i++)
	{
		ylo[i] = (yrank[i] / P) * P;
		yhi[i] = ylo[i] + P - 1;
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
		/* a clipped bound only widens the search, never breaks it */
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
	if (LearnedKeyIsVarwidth(ki))
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
		 * longest one (LearnedFitPages).  A compressed plan is cut at a
		 * page boundary: its pages are encoded one by one, P entries each.
		 */
		if (!building && !LearnedKeyIsVarwidth(ki) && !packed)
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

static void
init_meta(LearnedMetaPage meta, const LearnedKeyInfo *ki, int eps)
{
	memset(meta, 0, sizeof(LearnedMetaPageData));
	meta->magic = LEARNED_MAGIC;
	meta->version = LEARNED_VERSION;
	meta->keytype = ki->keytype;
	meta->keylen = ki->keylen;
	meta->items_per_page = LearnedKeyIsVarwidth(ki) ? LEARNED_VW_MAX_ITEMS :
		ki->layout.capacity;
	meta->error_bound = eps;
	meta->generation = 1;
	meta->dir_start = InvalidBlockNumber;
	meta->nulls_start = InvalidBlockNumber;
	meta->pending_head = InvalidBlockNumber;
	meta->pending_tail = InvalidBlockNumber;
}

/* the metapage's contents end after the key map */
static void
set_meta_lower(Page page, const LearnedKeyInfo *ki)
{
	memcpy(LearnedPageGetKeyMap(page), &ki->map, sizeof(LearnedKeyMapData));
	((PageHeader) page)->pd_lower = LEARNED_META_END_OFFSET;
}

static void
check_key_type(Relation index)
{
	int			i;

	for (i = 0; i < IndexRelationGetNumberOfKeyAttributes(index); i++)
		if (!learned_type_supported(index->rd_opcintype[i]))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("learned indexes do not support type %s",
							format_type_be(index->rd_opcintype[i]))));
	/* INCLUDE columns: any type learned indexes support as keys */
	for (; i < IndexRelationGetNumberOfAttributes(index); i++)
	{
		Oid			typid = TupleDescAttr(RelationGetDescr(index), i)->atttypid;

		if (!learned_type_supported(typid))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("learned indexes do not support INCLUDE columns of type %s",
							format_type_be(typid)),
					 errhint("INCLUDE columns must have a type that learned indexes support as keys.")));
	}
}

/*
 * Whether this build creates the index: CREATE INDEX (the relation is new
 * in this transaction), or CREATE INDEX CONCURRENTLY and REINDEX
 * CONCURRENTLY, which build a new index in a later transaction with
 * ii_Concurrent set.  REINDEX, TRUNCATE, VACUUM FULL and CLUSTER rebuild an
 * existing index: what is said or refused about an index's definition is
 * said when it is created, and a rebuild must not fail on an index that
 * exists.
 */
static bool
build_creates_index(Relation index, const IndexInfo *indexInfo)
{
	return index->rd_createSubid != InvalidSubTransactionId || indexInfo->ii_Concurrent;
}

/* the name of an index column's operator family */
static char *
opfamily_name(Relation index, int col)
{
	HeapTuple	tup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(index->rd_opfamily[col]));
	char	   *name;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator family %u", index->rd_opfamily[col]);
	name = pstrdup(NameStr(((Form_pg_opfamily) GETSTRUCT(tup))->opfname));
	ReleaseSysCache(tup);
	return name;
}

/*
 * Refuse a key column that queries on it could not search.  A column whose
 * type is not its operator class's input type got there through a binary
 * coercion (citext, or a domain over it, indexed with text_ops).  A
 * condition on the column uses its type's operators, and the index serves
 * it only if they belong to the index's operator family: varchar's "=" is
 * text's (varchar has none of its own), and a domain over int8 compares as
 * int8, but citext's "=" is an operator of its own, so only conditions on
 * c::text, not on c, could use the index (btree builds citext with its
 * citext_ops instead).  The operator a type's "=" resolves to is the
 * equality of its default btree operator class, domains going to their
 * base type, as the type cache has it; a type with none is compared
 * through the coercion, whose operators are the family's.
 */
static void
check_key_usable(Relation index)
{
	int			i;

	for (i = 0; i < IndexRelationGetNumberOfKeyAttributes(index); i++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(index), i);
		Oid			opcintype = index->rd_opcintype[i];
		TypeCacheEntry *tce;
		bool		is_column = index->rd_index->indkey.values[i] != 0;

		if (att->atttypid == opcintype)
			continue;
		tce = lookup_type_cache(att->atttypid, TYPECACHE_EQ_OPR);
		if (!OidIsValid(tce->eq_opr) || op_in_opfamily(tce->eq_opr, index->rd_opfamily[i]))
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("no query could use learned index column \"%s\" of type %s",
						NameStr(att->attname), format_type_be(att->atttypid)),
				 errdetail("Conditions on the column use operator %s, which is not in the "
						   "index's operator family \"%s\": the column would be indexed "
						   "as %s, through a binary coercion.",
						   format_operator(tce->eq_opr), opfamily_name(index, i),
						   format_type_be(opcintype)),
				 is_column ?
				 errhint("To search the column as %s, index the expression (%s::%s) and write "
						 "conditions on it; for the comparisons of type %s, use an index "
						 "with an operator class for that type, such as btree's.",
						 format_type_be(opcintype), quote_identifier(NameStr(att->attname)),
						 format_type_be(opcintype), format_type_be(att->atttypid)) :
				 errhint("To search the expression as %s, cast it to %s in the index and "
						 "in the conditions; for the comparisons of type %s, use an index "
						 "with an operator class for that type, such as btree's.",
						 format_type_be(opcintype), format_type_be(opcintype),
						 format_type_be(att->atttypid))));
	}
}

IndexBuildResult *
learnedbuild(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	BuildState	bs;
	double		reltuples;
	int			eps;
	Buffer		metabuf;
	Page		metapage;
	LearnedMetaPage meta;
	LearnedSegmentSet set;
	uint32		dir_npages;
	BlockNumber dir_start;
	TimestampTz start_time = GetCurrentTimestamp();
	MemoryContext buildCxt;
	MemoryContext oldCxt;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));
	check_key_type(index);
	if (build_creates_index(index, indexInfo))
	{
		check_key_usable(index);
		if (LEARNED_UNIQUE_BREAKS_ON_CONFLICT && indexInfo->ii_Unique)
			ereport(WARNING,
					(errmsg("INSERT ... ON CONFLICT will fail on table \"%s\" while it has "
							"unique learned index \"%s\"",
							RelationGetRelationName(heap), RelationGetRelationName(index)),
					 errdetail("Before version 18, PostgreSQL takes only btree unique indexes "
							   "as ON CONFLICT arbiters and considers every unique index of "
							   "the table: each INSERT ... ON CONFLICT on it fails with "
							   "\"unexpected non-btree speculative unique index\", "
							   "whatever its conflict target."),
					 errhint("Keep the unique keys of a table that takes INSERT ... ON CONFLICT "
							 "in btree indexes; EXCLUDE USING learned (k WITH =) enforces "
							 "uniqueness and allows ON CONFLICT DO NOTHING.")));
	}

	buildCxt = AllocSetContextCreate(CurrentMemoryContext, "learned build",
									 ALLOCSET_DEFAULT_SIZES);
	oldCxt = MemoryContextSwitchTo(buildCxt);

	memset(&bs, 0, sizeof(bs));
	LearnedKeyInfoInit(index, &bs.ki);
	memset(bs.lo, 0xFF, sizeof(bs.lo));	/* lo > hi: no value seen yet */
	eps = learned_get_error_bound(index);
	bs.maxentries = 1024;
	bs.entries = palloc_extended(bs.maxentries * sizeof(LearnedEntry), MCXT_ALLOC_HUGE);
	bs.maxnulls = 64;
	bs.nulls = palloc_extended(bs.maxnulls * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	bs.unique = indexInfo->ii_Unique;
	bs.tmpcxt = AllocSetContextCreate(buildCxt, "learned build key",
									  ALLOCSET_SMALL_SIZES);
	bs.string_map = LearnedKeyLocalImages(&bs.ki);

	/* block 0 is the metapage; written last, once everything else exists */
	metabuf = LearnedNewBuffer(index, MAIN_FORKNUM);
	Assert(BufferGetBlockNumber(metabuf) == LEARNED_METAPAGE_BLKNO);
	metapage = BufferGetPage(metabuf);
	LearnedInitPage(metapage, LEARNED_PAGE_META, 1);
	meta = LearnedPageGetMeta(metapage);
	init_meta(meta, &bs.ki, eps);
	set_meta_lower(metapage, &bs.ki);
	MarkBufferDirty(metabuf);
	LockBuffer(metabuf, BUFFER_LOCK_UNLOCK);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, LEARNED_PHASE_SCAN);
	reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
									   build_callback, (void *) &bs, NULL);

	/* one string column: the shared sort-key prefix the image skips */
	if (bs.string_map)
	{
		Size		i;

		(void) LearnedStringMapPlan(&bs.ki, bs.entries, bs.nentries);
		for (i = 0; i < bs.nentries; i++)
			bs.entries[i].mkey = LearnedKeyMap(&bs.ki, bs.entries[i].key);
	}

	/* composite keys: plan the key map from the ranges seen, then map */
	if (LearnedKeyIsComposite(&bs.ki))
	{
		Size		i;

		LearnedKeyMapPlan(&bs.ki, bs.lo, bs.hi, false, learned_map_columns_guc);
		for (i = 0; i < bs.nentries; i++)
			bs.entries[i].mkey = LearnedKeyMap(&bs.ki, bs.entries[i].key);
	}

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, LEARNED_PHASE_SORT);
	LearnedSortEntries(&bs.ki, bs.entries, bs.nentries);
	if (bs.unique)
		LearnedUniqueCheckBuild(heap, index, &bs.ki, bs.entries, bs.nentries,
								bs.dead, bs.ndead, bs.live_nulls);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, LEARNED_PHASE_LOAD);
	{
		const int	index_cols[] = {PROGRESS_CREATEIDX_TUPLES_TOTAL,
		PROGRESS_CREATEIDX_TUPLES_DONE};
		const int64 vals[] = {(int64) bs.nentries, 0};

		pgstat_progress_update_multi_param(2, index_cols, vals);
	}

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, LEARNED_PHASE_TRAIN);
	memset(&set, 0, sizeof(set));
	set.mode = learned_get_mode(index);
	set.compression = learned_get_compression(index) == LEARNED_COMPRESSION_ON;
	LearnedWriteSegments(index, &bs.ki, eps, bs.entries, bs.nentries, 1, true, &set);

	/* NULL keys: a run of TID-only pages after the key segments */
	if (bs.nnulls > 0)
	{
		LearnedLeafLayout nl;

		LearnedLeafLayoutInit(&nl, 0);
		meta->nulls_start = LearnedWriteLeafRun(index, NULL, &nl, LEARNED_PAGE_NULLS, NULL,
												bs.nulls, bs.nnulls, 1, true);
		meta->nulls_npages = (uint32) ((bs.nnulls + nl.capacity - 1) / nl.capacity);
	}

	dir_start = LearnedWriteDirectory(index, &set, 1, &dir_npages, true);

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	set_meta_lower(metapage, &bs.ki);
	meta->nsegments = (uint32) set.nsegs;
	meta->npieces = (uint32) set.npieces;
	meta->dir_start = dir_start;
	meta->dir_npages = dir_npages;
	meta->nstatic = bs.nentries;
	meta->nnulls = bs.nnulls;
	meta->mean_error = set.npieces > 0 ? set.err_sum / set.npieces : 0;
	meta->max_error = set.err_max;
	meta->build_time_us = GetCurrentTimestamp() - start_time;
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);

	/* WAL-log every page at once (also covers unlogged-to-logged cases) */
	if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0,
						  RelationGetNumberOfBlocks(index), true);

	MemoryContextSwitchTo(oldCxt);
	MemoryContextDelete(buildCxt);

	result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
	return result;
}

/*
 * The init fork of an unlogged index: just an empty metapage.  GenericXLog
 * and log_newpage_range in the main build do not cover this fork, so write
 * it directly, WAL-log it, and sync it (a checkpoint cannot see it).
 */
void
learnedbuildempty(Relation index)
{
	PGIOAlignedBlock block;
	Page		page = (Page) block.data;
	LearnedKeyInfo ki;

	check_key_type(index);
	LearnedKeyInfoInit(index, &ki);
	LearnedInitPage(page, LEARNED_PAGE_META, 1);
	init_meta(LearnedPageGetMeta(page), &ki, learned_get_error_bound(index));
	{
		uint64		lo[INDEX_MAX_KEYS];
		uint64		hi[INDEX_MAX_KEYS];

		/* no value seen: every later key maps outside the (empty) ranges */
		memset(lo, 0xFF, sizeof(lo));
		memset(hi, 0, sizeof(hi));
		LearnedKeyMapPlan(&ki, lo, hi, false, learned_map_columns_guc);
	}
	set_meta_lower(page, &ki);

	PageSetChecksumInplace(page, LEARNED_METAPAGE_BLKNO);
	smgrwrite(RelationGetSmgr(index), INIT_FORKNUM, LEARNED_METAPAGE_BLKNO,
			  (char *) page, true);
	log_newpage(LI_SMGR_FILE(RelationGetSmgr(index)), INIT_FORKNUM,
				LEARNED_METAPAGE_BLKNO, page, true);
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}
