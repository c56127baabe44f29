/*
 * scan.c
 *		Index scans: key preprocessing, the model-guided search, ordered
 *		amgettuple merging the static and pending streams, amgetbitmap,
 *		index-only scans and mark/restore.
 *
 * A scan takes its view at the first call after amrescan: the metapage's
 * directory generation and the pending list as it is then.  Entries that
 * appear later belong to transactions our snapshot cannot see.
 *
 * Static stream: the leaf pages of all key segments form one sequence of
 * "virtual pages" (vpages) in key order.  The model proposes a window of
 * vpages; the comparator verifies the window's edges and the search widens
 * (exponentially) when the model missed, so a wrong model costs time, never
 * an answer.  Items of the current leaf page are copied into a batch while
 * the page is share-locked, and the page stays pinned until the scan leaves
 * it, so VACUUM (which takes a cleanup lock) cannot mark an entry dead and
 * let its heap slot be reused under us (nbtree's rule).
 *
 * Pending stream: the scan pins the version of the backend's sorted pending
 * copy that it started with (pending.c), finds each interval's run in the
 * copy's two sorted arrays by binary search, and reads those runs in place,
 * merging the two arrays and filtering as it goes: a LIMIT 1 over a long
 * pending range reads one entry, not the range.  That stream is merged with
 * the static one.
 *
 * Order: keys are stored ascending with NULLs apart.  The logical order the
 * planner expects (DESC, NULLS FIRST) is produced by choosing the physical
 * direction and where the NULL phase goes.
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/tupmacs.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "access/xlog.h"

#include "learned.h"
#include "leaf.h"
#include "pending.h"

/*
 * A scalar condition on one key column: column <strategy> value, or a NULL
 * test.  For composite keys, strategy is the operator's and istrategy the
 * same condition in index order (commuted for a DESC column, as btree's
 * _bt_fix_scankey_strategy does); a single column is stored ascending, so
 * both are the same there.
 */
typedef struct ScanCond
{
	int			attno;			/* 0-based key column */
	StrategyNumber strategy;
	StrategyNumber istrategy;
	int			nulltest;		/* 0, or COND_IS_NULL / COND_NOT_NULL */
	bool		required;		/* failing it on the scan's end side ends it */
	Datum		value;
	Oid			type;
	FmgrInfo	cmp;			/* column type vs type */
} ScanCond;

#define COND_IS_NULL	1
#define COND_NOT_NULL	2

/* an "= ANY(array)" condition: sorted distinct values */
typedef struct ScanArray
{
	int			attno;
	int			nvalues;
	Datum	   *values;			/* in index order */
	Oid			type;
	FmgrInfo	cmp;
} ScanArray;

/*
 * A positioning bound: the first entry whose leading nkeys columns compare
 * above (strict) or at-or-above the values, in index order.
 */
typedef struct Bound
{
	int			nkeys;
	bool		strict;
	bool		point;			/* every key column equal to a value (or NULL) */
	uint64		hint;			/* image of the bound (not incremented) */
	int			status[INDEX_MAX_KEYS]; /* composite: packed columns' statuses */
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	Oid			types[INDEX_MAX_KEYS];
	FmgrInfo   *cmps[INDEX_MAX_KEYS];
	/* keys compare as bytes (ki.bytewise) and so does the bound: its data */
	bool		bytes;
	const char *bdata;
	Size		blen;
} Bound;

/* by-value keys: a fresh scan's item arrays (ensure_batch_cap grows them) */
#define LEARNED_BATCH_INITIAL	64

typedef struct BatchItem
{
	Datum		key;
	ItemPointerData tid;
	uint16		slot;			/* static items: the entry's slot on its page */
} BatchItem;

/* the items of one page that the scan will return, in scan order */
typedef struct Batch
{
	Buffer		buf;			/* pinned while the batch is in use */
	uint32		vpage;			/* vpage, or null page number */
	uint64		seq;			/* identifies the batch for mark/restore */
	bool		last;			/* no more items in this direction/interval */
	int			resume;			/* compressed page: next slot to read, or -1 */
	uint32		page_gen;		/* the page's generation and entry count when */
	uint16		page_items;		/* read: kill_items checks it is the same page */
	int			nitems;
	int			next;			/* next item to return */
	BatchItem  *items;
	char	   *keys;			/* by-reference keys: the items' key bytes */
	Size		keys_used;		/* bytes of keys in use */
	Size		keys_cap;		/* bytes allocated at keys */
} Batch;

/*
 * A batch's key area at first: room for LEARNED_BATCH_INITIAL keys, each
 * MAXALIGNed (variable-width ones counted at 32 bytes).  batch_key_space
 * grows it to what a batch takes, up to one page's keys (or more: keys
 * rebuilt from a page prefix can be longer than the page).
 */
#define BATCH_KEY_INITIAL(ki) \
	((Size) LEARNED_BATCH_INITIAL * \
	 (LearnedKeyIsVarwidth(ki) ? (Size) 32 : (Size) MAXALIGN((ki)->keylen)))

#define PHASE_KEYS	0
#define PHASE_NULLS 1

/*
 * An interval's pending entries: a run of the pinned copy's main array and
 * one of its recent array, [lo, hi) each.
 */
typedef struct PendRange
{
	int			main_lo;
	int			main_hi;
	int			recent_lo;
	int			recent_hi;
	int			run_lo[LEARNED_MAX_RUNS];	/* ranks in each sorted run */
	int			run_hi[LEARNED_MAX_RUNS];
} PendRange;

/* which source holds the pending stream's next entry (ScanPos.pend_pick) */
#define PICK_NONE	0			/* not found yet */
#define PICK_MAIN	1
#define PICK_RECENT 2
#define PICK_RUN0	3			/* sorted run j: PICK_RUN0 + j */

/*
 * A sorted run of the view (run.c), read in place: its header, read when
 * the scan first positions in it, and the data page it read last (a copy,
 * and the entries decoded from it as the scan needs them: their mapped
 * keys and flags, by-reference keys pointing into the copy).  A scan holds
 * one page of each run at most, whatever the number of pending entries.
 */
/* ScanRun.have: a slot's entry decoded, and its mapped key too */
#define RUN_HAVE_ENTRY	1
#define RUN_HAVE_MKEY	2

typedef struct ScanRun
{
	LearnedRunInfo info;
	char	   *hdr;			/* header page copy (scanCxt), or NULL */
	bool		hdr_valid;		/* hdr is this run's */
	bool		hdr_whole;		/* ... with a filter in its room (run_header) */
	int			page;			/* data page decoded, or -1 */
	uint32		page_rank;		/* rank of its first entry */
	int			nloaded;
	char	   *copy;			/* the data page, copied */
	int			cap;			/* entries the slot arrays below hold */
	uint8	   *have;			/* slots decoded so far (RUN_HAVE_*) */
	LearnedPendingEntry *ents;
	uint64	   *mkeys;
	uint16	   *flags;
	LearnedRunFilterHints *fhints;	/* its filter probes' hints (scanCxt), or NULL */
} ScanRun;


typedef struct ScanPos
{
	int			phase_idx;
	int			interval;		/* current array value, or 0 */
	bool		static_done;	/* static stream exhausted for this phase */

	/*
	 * The pending stream: how many of its ranges (in physical direction)
	 * are done, and the next entry of main and of recent to consider in the
	 * current one (moving in the physical direction); pend_pick says which
	 * of the two is the next matching entry, once found.  NULL keys: the
	 * next entry of the copy's nulls.
	 */
	int			pend_iv;
	int			pend_main;
	int			pend_recent;
	int			pend_run[LEARNED_MAX_RUNS];
	int			pend_pick;
	int			pend_null;
	Batch		batch;
} ScanPos;

/* the scan's pin on a version of the pending copy, released with rescanCxt */
typedef struct PendingPin
{
	MemoryContextCallback cb;
	LearnedPendingCache *cache;
} PendingPin;

/*
 * Slices of a compressed page (fill_batch): the first of a positioning, the
 * largest, a range scan's at least; the entries a slice decodes at a time,
 * SLICE_FIRST first and twice as many each next step up to SLICE_STEP_MAX;
 * and a plain page's distance between two entries a run is tested at.
 */
#define SLICE_FIRST		16
#define SLICE_MAX		1024
#define SLICE_RANGE		256
#define SLICE_STEP_MAX	128
#define SLICE_STEP		32

/*
 * Entries of a compressed page a scan keeps decoded across rescans
 * (near_probe), at most
 */
#define NEAR_MAX		64

/*
 * A window loaded for descending probes ends this many entries past the
 * boundary (room for its run of equal keys), and holds the entries before
 * it
 */
#define NEAR_AFTER		8
#define NEAR_BEFORE		(NEAR_MAX - NEAR_AFTER)

/*
 * Decoded columns, apart from the scan's struct: fill_batch's step of a
 * compressed slice, and near_probe's window (key images, blocks, offsets).
 * Allocated on first use (scan_arrays): a point lookup uses neither, and
 * with them inside it the struct (7.9 kB) did not fit the first block of
 * the scan's memory context, so every scan, one per query in an OLTP
 * lookup, had a 16 kB block malloc'd and freed.
 */
typedef struct ScanArrays
{
	uint64		step_keys[SLICE_STEP_MAX];
	uint64		step_blocks[SLICE_STEP_MAX];
	uint64		step_offsets[SLICE_STEP_MAX];
	uint64		near_keys[NEAR_MAX];
	uint64		near_blocks[NEAR_MAX];
	uint64		near_offsets[NEAR_MAX];
} ScanArrays;

typedef struct LearnedScanOpaqueData
{
	MemoryContext scanCxt;		/* lives until endscan */
	MemoryContext rescanCxt;	/* reset at each rescan */
	MemoryContext tupCxt;		/* reset per returned index tuple */
	IndexTuple	itup_fixed;		/* a tuple of fixed-width columns, reused */
	bool		itup_varies;	/* a column has no fixed width: never reuse */
	uint16		itup_offs[INDEX_MAX_KEYS];	/* where itup_fixed's columns are */
	bool		itup_bytes;		/* composite: each column's stored bytes are its
								 * value in itup_fixed */
	Buffer		meta_recent;	/* the metapage's buffer last time (a hint) */
	Buffer		meta_buf;		/* the metapage, pinned from the first view
								 * to endscan, or InvalidBuffer */
	XLogRecPtr	meta_lsn;		/* its LSN when meta was copied (or invalid) */

	/*
	 * The metapage's key map (composite and string keys) as of the view, and
	 * whether it differs from ki's.  A merge that plans a new map sends a
	 * relcache invalidation, which reaches this backend only when it next
	 * takes a lock it does not hold, so ki may keep the old map for a while.
	 * Images of the old map only mislead searches that the comparator
	 * verifies, but the runs' filters hash images of the new one: a probe
	 * with an old image could rule out a run that holds the key.  So a scan
	 * whose map is not the metapage's skips the filters.  Allocated by the
	 * first view of a key that uses it: an opaque of at most 4 kB fits the
	 * scan context's first block, which a fresh scan (one per OLTP query)
	 * then does not add to.
	 */
	LearnedKeyMapData *meta_map;
	bool		map_stale;

	/*
	 * The key's images depend on a collation library (C library or ICU
	 * sort keys): a run's filter hashes the images of when it was written,
	 * and a library upgrade may change them without changing the order,
	 * which otherwise only costs reads.  Such a scan does not use filters.
	 */
	bool		no_filters;
	BlockNumber leaf_recent_blk;	/* the leaf page read_vpage read last, */
	Buffer		leaf_recent;	/* and its buffer then (a hint) */

	/*
	 * Where the last positioning found its boundary (find_boundary), kept
	 * across rescans: a nested loop whose outer side comes in key order
	 * rescans with ascending keys, and the next boundary is then usually on
	 * the same page or the next one.  Only a starting point: the comparator
	 * verifies it as it verifies a model's window.  It belongs to the
	 * directory it was found in (generation, relfilenode): a merge between
	 * rescans renumbers the vpages.
	 */
	bool		last_valid;
	uint32		last_gen;
	Oid			last_relfile;
	uint32		last_vp;
	int			last_slot;
	int			reuse_skip;		/* positionings left before reuse is tried again */
	int			reuse_backoff;	/* skip after the next miss (doubles per miss) */

	/*
	 * Entries of a compressed page decoded by an earlier positioning of
	 * this scan, kept across rescans (near_probe): slots [near_lo, near_lo +
	 * near_n) of vpage near_vp, block near_blk, whose generation and entry
	 * count were near_page_gen and near_nitems, in directory generation
	 * near_gen of relfilenode near_relfile.  A leaf page is never changed
	 * in place but by VACUUM's dead marks (and hint bits), so the same
	 * generation and entry count mean the same keys and TIDs at the same
	 * slots (kill_items relies on it too).  The arrays are in arr.
	 */
	bool		near_valid;
	uint32		near_gen;
	Oid			near_relfile;
	uint32		near_vp;
	BlockNumber near_blk;
	uint32		near_page_gen;
	int			near_nitems;
	int			near_lo;
	int			near_n;
	uint64		near_first;		/* the page's first key image */
	uint64		near_last;		/* the page's last key image */
	LearnedKeyInfo ki;
	bool		desc;			/* single index column is DESC */
	bool		nulls_first;	/* single index column is NULLS FIRST */

	/* preprocessed keys */
	bool		qual_ok;
	bool		want_keys;
	bool		want_nulls;
	int			nconds;
	ScanCond   *conds;
	ScanArray  *driver;			/* array that drives positioning, or NULL */
	int			nfilters;
	ScanArray  *filters;		/* other arrays: membership filters */

	/*
	 * The keys preprocess_keys digested last, when each was an ordinary
	 * scalar condition (no NULL, no array), then kept in conds[i] for key
	 * i: a rescan whose keys have the same flags, columns, strategies and
	 * types (a nested loop's next probe) only takes their new values.
	 */
	bool		prep_simple;
	ScanKeyData *prep_keys;		/* in scanCxt: numberOfKeys of them */

	/* the view taken at scan start */
	bool		started;
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	PendingPin *pin;			/* in rescanCxt, or NULL: the pinned pending
								 * copy is pin->cache (pinned_copy) */
	int			npranges;
	PendRange  *pranges;		/* non-empty intervals' runs, in key order */
	int			pranges_cap;	/* allocated (scanCxt), kept across rescans */
	bool		pending_kept;	/* the pin and the runs' page copies are the
								 * last view's (load_pending) */
	uint64		pending_seen;	/* the view's: sequence number after the last
								 * pending entry read (LearnedPendingGet) */
	Relation	index;
	int			nruns;			/* the view's sorted runs */
	ScanRun    *runs;			/* in scanCxt, runs_cap of them */
	int			runs_cap;
	uint32		nviews;			/* views taken (rescans) */
	BatchItem	pend_item;		/* the entry pending_peek returned ... */
	const LearnedPendingEntry *pend_entry;	/* ... and where it lives */
	bool		check_pending;	/* verify pending entries before use */
	int			npins;
	Buffer	   *pins;			/* pending page pinned by the last entry */

	/* iteration */
	bool		forward;		/* physical direction of the key phase */
	int			nphases;
	int			phases[2];
	uint64		batch_seq;
	ScanPos		pos;
	bool		mark_valid;
	ScanPos		mark;
	BatchItem  *spare_items;	/* item storage to swap in at mark time */
	char	   *spare_keys;
	Size		spare_keys_cap;
	int			batch_cap;		/* items each of the two item arrays holds */

	/*
	 * kill_prior_tuple: whether the item the last amgettuple returned is
	 * pos.batch's items[next - 1], and the slots of the batch's page whose
	 * heap tuples were found dead to everyone, for kill_items
	 */
	bool		last_static;
	bool		ignore_hints;	/* a scan started in recovery (learned.h) */

	/*
	 * ... or the pending entry it returned (NULL: none): in the pinned copy
	 * (last_pick PICK_MAIN or PICK_RECENT), whose kill is remembered in the
	 * copy (LEARNED_PENDING_SLOT_KILLED), or in a run (PICK_RUN0 + j),
	 * copied to last_run_entry, whose kill sets the entry's hint on its
	 * data page (LearnedRunHint)
	 */
	const LearnedPendingEntry *last_pend;
	int			last_pick;
	LearnedPendingEntry last_run_entry;
	int			nkilled;
	int			killed_cap;
	int		   *killed;

	/* the leaf page last read by read_vpage (plain or compressed) */
	LearnedLeafView view;

	/*
	 * Compressed pages are read a slice at a time (fill_batch): the next
	 * slice's size, and the decoded columns of the step of the current
	 * slice that fill_batch decoded last (SLICE_STEP_MAX entries at most:
	 * the loop reads no entry of an earlier step, so the columns stay in
	 * the CPU's first-level cache beside the batch), in arr.
	 */
	int			slice;
	bool		slice_point;	/* an equality on the key: few entries expected */
	bool		slice_has_end;	/* a range: the scan has an end bound */
	ScanArrays *arr;			/* made by the first use (scan_arrays) */

	/*
	 * The forward bound of the first interval, as find_pending_ranges made
	 * it in the view of rescan number bound_rescan: position_interval takes
	 * it instead of making it again (a composite bound's column statuses
	 * were a twentieth of a unique check's instructions, made three times).
	 * Allocated by the first use.
	 */
	uint64		rescans;		/* learnedrescan calls */
	uint64		bound_rescan;	/* the rescan bound_fwd was made in */
	Bound	   *bound_fwd;
} LearnedScanOpaqueData;

typedef LearnedScanOpaqueData *LearnedScanOpaque;

/* so->arr, made on first use; the columns are written before they are read */
static inline ScanArrays *
scan_arrays(LearnedScanOpaque so)
{
	if (so->arr == NULL)
		so->arr = MemoryContextAlloc(so->scanCxt, sizeof(ScanArrays));
	return so->arr;
}

/* the version of the pending copy the scan pinned (load_pending), or NULL */
static inline const LearnedPendingCache *
pinned_copy(LearnedScanOpaque so)
{
	return so->pin ? so->pin->cache : NULL;
}

/*
 * The column's comparator on a key's column and a value.  The integer
 * types' own comparators are done inline: they are what OLTP keys are made
 * of (every TPC-C index), and a positioning calls the comparator a dozen
 * times per bound, each through fmgr.  Same sign as the comparator.
 */
static inline int32
cmp_key(FmgrInfo *cmp, Oid collation, Datum key, Datum value)
{
	if (cmp->fn_addr == btint4cmp)
	{
		int32		a = DatumGetInt32(key);
		int32		b = DatumGetInt32(value);

		return (a > b) - (a < b);
	}
	if (cmp->fn_addr == btint8cmp)
	{
		int64		a = DatumGetInt64(key);
		int64		b = DatumGetInt64(value);

		return (a > b) - (a < b);
	}
	if (cmp->fn_addr == btint2cmp)
		return (int32) DatumGetInt16(key) - (int32) DatumGetInt16(value);
	return DatumGetInt32(FunctionCall2Coll(cmp, collation, key, value));
}

static bool
cond_holds(int32 r, StrategyNumber strategy)
{
	switch (strategy)
	{
		case BTLessStrategyNumber:
			return r < 0;
		case BTLessEqualStrategyNumber:
			return r <= 0;
		case BTEqualStrategyNumber:
			return r == 0;
		case BTGreaterEqualStrategyNumber:
			return r >= 0;
		case BTGreaterStrategyNumber:
			return r > 0;
	}
	return false;
}

/*
 * Look up the comparator for (column type, type) in the column's opfamily.
 */
static void
lookup_cmp(Relation index, int attno, Oid keytype, Oid type, FmgrInfo *finfo,
		   MemoryContext cxt)
{
	Oid			proc;

	if (type == keytype)
	{
		fmgr_info_copy(finfo, index_getprocinfo(index, attno + 1, 1), cxt);
		return;
	}
	proc = get_opfamily_proc(index->rd_opfamily[attno], keytype, type, 1);
	if (!OidIsValid(proc))
		elog(ERROR, "missing support function 1(%u,%u) in opfamily %u",
			 keytype, type, index->rd_opfamily[attno]);
	fmgr_info_cxt(proc, finfo, cxt);
}

IndexScanDesc
learnedbeginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	LearnedScanOpaque so;
	MemoryContext cxt;
	MemoryContext old;
	LearnedLeafLayout nl;
	int			cap;

	cxt = AllocSetContextCreate(CurrentMemoryContext, "learned scan",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	so = palloc0(sizeof(LearnedScanOpaqueData));
	so->scanCxt = cxt;
	so->index = index;
	so->rescanCxt = AllocSetContextCreate(cxt, "learned rescan",
										  ALLOCSET_SMALL_SIZES);
	/* tupCxt: made by the first index-only fetch */
	LearnedKeyInfoForScan(index, &so->ki);
	so->no_filters = LearnedKeyImagesCollated(&so->ki);
	/* composite keys are stored in index order: no direction flip */
	so->desc = !LearnedKeyIsComposite(&so->ki) &&
		(index->rd_indoption[0] & INDOPTION_DESC) != 0;
	so->nulls_first = !LearnedKeyIsComposite(&so->ki) &&
		(index->rd_indoption[0] & INDOPTION_NULLS_FIRST) != 0;
	/*
	 * A batch holds at most one page of keys or of NULL TIDs.  Its arrays
	 * start small and grow to what a batch needs (ensure_batch_cap,
	 * batch_key_space): a point lookup returns one item, a short range ten,
	 * and sizing both item arrays and the key area for a full page (about
	 * 16 kB each for composite keys) cost every scan, one per query in an
	 * OLTP lookup and one per row for a unique index's check, three fresh
	 * mallocs and frees (TPC-C, whose indexes are all composite, spent 4% of
	 * its backends' CPU on them).  The spare arrays are made by the first
	 * markpos.
	 */
	LearnedLeafLayoutInit(&nl, 0);
	cap = Max((LearnedKeyIsVarwidth(&so->ki) || LearnedKeyPackable(&so->ki)) ?
			  LEARNED_VW_MAX_ITEMS : so->ki.layout.capacity,
			  nl.capacity);
	cap = Min(cap, LEARNED_BATCH_INITIAL);
	so->meta_buf = InvalidBuffer;
	so->pos.batch.buf = InvalidBuffer;
	so->pos.batch.resume = -1;
	so->pos.batch.items = palloc(sizeof(BatchItem) * cap);
	so->batch_cap = cap;
	if (so->ki.byref)
	{
		so->pos.batch.keys = palloc(BATCH_KEY_INITIAL(&so->ki));
		so->pos.batch.keys_cap = BATCH_KEY_INITIAL(&so->ki);
	}
	so->mark.batch.buf = InvalidBuffer;
	so->mark.batch.items = NULL;
	/* hint bits may be newer than a standby snapshot (LearnedLeafHints) */
	so->ignore_hints = scan->xactStartedInRecovery;
	MemoryContextSwitchTo(old);

	scan->opaque = so;
	scan->xs_itupdesc = RelationGetDescr(index);
	LearnedScanOpened();
	return scan;
}

/*
 * Set the hint bits of the entries the scan found dead (kill_prior_tuple)
 * on pos.batch's page, which the batch still pins, as btree's
 * _bt_killitems sets LP_DEAD.  A share lock is enough: only hint bits
 * change (LearnedHintSet).  A leaf page is never changed in place but
 * by VACUUM's dead marks, and a recycled page gets a later generation, so
 * the same generation and entry count mean the same entries at the same
 * slots.
 */
static void
kill_items(LearnedScanOpaque so)
{
	Batch	   *b = &so->pos.batch;
	Page		page;
	LearnedPageOpaque op;
	uint8	   *hints;
	bool		dirty = false;
	int			i;

	if (so->nkilled == 0 || !BufferIsValid(b->buf))
	{
		so->nkilled = 0;
		return;
	}
	LockBuffer(b->buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(b->buf);
	op = LearnedPageGetOpaque(page);
	hints = LearnedLeafHints(page);
	if (hints != NULL &&
		(LearnedPageKind(page) == LEARNED_PAGE_LEAF ||
		 LearnedPageKind(page) == LEARNED_PAGE_NULLS) &&
		op->generation == b->page_gen && op->nitems == b->page_items)
	{
		/* slots come from this page's batch: below page_items */
		for (i = 0; i < so->nkilled; i++)
			if (LearnedHintSet(hints, so->killed[i]))
				dirty = true;
		if (dirty)
			MarkBufferDirtyHint(b->buf, true);
	}
	LockBuffer(b->buf, BUFFER_LOCK_UNLOCK);
	so->nkilled = 0;
}

/*
 * The executor found the heap tuple of the pending entry last returned dead
 * to all.  A run entry gets its hint on its data page, where every backend's
 * later scans skip it (LearnedRunHint).  An entry of the unsorted tail
 * cannot: inserts change the tail page in place with small WAL deltas,
 * which a hint between its records would make differ from a standby's
 * page; the hint stays in this backend's copy, which keeps it until the
 * entry leaves the tail (a flush, whose run then takes hints of its own)
 * or the copy is rebuilt.  The copy's entries are this backend's own and
 * the flag only says what is true of the heap tuple for good (dead to
 * every snapshot; its TID can only be reused after VACUUM has marked the
 * entry itself dead), so a version of the copy that another scan of this
 * backend still pins may see it too.
 */
static void
remember_pending_kill(LearnedScanOpaque so)
{
	if (so->ignore_hints)
		return;
	if (so->last_pick >= PICK_RUN0)
		LearnedRunHint(so->index, so->ki.keylen, &so->last_run_entry);
	else
		((LearnedPendingEntry *) so->last_pend)->slot |= LEARNED_PENDING_SLOT_KILLED;
}

/* the executor found the heap tuple of the item last returned dead to all */
static void
remember_kill(LearnedScanOpaque so)
{
	Batch	   *b = &so->pos.batch;

	if (so->last_pend != NULL)
	{
		remember_pending_kill(so);
		return;
	}
	if (!so->last_static || b->next < 1 || b->next > b->nitems ||
		!BufferIsValid(b->buf))
		return;
	if (so->nkilled >= so->killed_cap)
	{
		int			cap = Max(64, so->killed_cap * 2);

		so->killed = so->killed == NULL ?
			MemoryContextAlloc(so->scanCxt, sizeof(int) * cap) :
			repalloc(so->killed, sizeof(int) * cap);
		so->killed_cap = cap;
	}
	so->killed[so->nkilled++] = b->items[b->next - 1].slot;
}

/* release a batch; pos.batch first sets the hints its scan found */
static void
release_batch(LearnedScanOpaque so, Batch *b)
{
	if (b == &so->pos.batch)
	{
		kill_items(so);
		so->last_static = false;
	}
	if (BufferIsValid(b->buf))
		ReleaseBuffer(b->buf);
	b->buf = InvalidBuffer;
	b->resume = -1;
	b->nitems = 0;
	b->next = 0;
}

static void
release_pins(LearnedScanOpaque so)
{
	int			i;

	for (i = 0; i < so->npins; i++)
		ReleaseBuffer(so->pins[i]);
	so->npins = 0;
}

static void
reset_position(LearnedScanOpaque so)
{
	release_batch(so, &so->pos.batch);
	if (so->mark_valid)
	{
		release_batch(so, &so->mark.batch);
		so->mark_valid = false;
	}
	release_pins(so);
}

/*
 * Turn an "= ANY(array)" key into sorted distinct values.  Other strategies
 * with ANY reduce to one scalar condition on the extreme element.
 */
static void
preprocess_array(IndexScanDesc scan, ScanKey key, ScanArray *arr,
				 ScanCond *cond, bool *is_scalar)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	int			attno = key->sk_attno - 1;
	Oid			coltype = so->ki.cols[attno].type;
	ArrayType  *a = DatumGetArrayTypeP(key->sk_argument);
	Oid			elemtype = ARR_ELEMTYPE(a);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	int			n = 0;
	int			i;
	FmgrInfo	elemcmp;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(a, elemtype, typlen, typbyval, typalign,
					  &elems, &nulls, &nelems);
	for (i = 0; i < nelems; i++)
		if (!nulls[i])
			elems[n++] = elems[i];

	/* comparator between array elements, for sorting and extremes */
	if (elemtype == coltype)
		lookup_cmp(scan->indexRelation, attno, elemtype, elemtype, &elemcmp,
				   so->rescanCxt);
	else
	{
		Oid			proc = get_opfamily_proc(scan->indexRelation->rd_opfamily[attno],
											 elemtype, elemtype, 1);

		if (!OidIsValid(proc))
			elog(ERROR, "missing support function 1(%u,%u)", elemtype, elemtype);
		fmgr_info_cxt(proc, &elemcmp, so->rescanCxt);
	}

	/* insertion sort would be quadratic: use a simple merge-free qsort */
	for (i = 1; i < n; i++)
	{
		Datum		v = elems[i];
		int			j = i - 1;
		int			lo = 0,
					hi = i;

		/* binary insertion keeps it O(n log n) comparisons */
		while (lo < hi)
		{
			int			mid = (lo + hi) / 2;

			if (cmp_key(&elemcmp, key->sk_collation, elems[mid], v) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; j >= lo; j--)
			elems[j + 1] = elems[j];
		elems[lo] = v;
	}

	if (key->sk_strategy != BTEqualStrategyNumber)
	{
		*is_scalar = true;
		if (n == 0)
		{
			so->qual_ok = false;
			return;
		}
		cond->attno = attno;
		cond->strategy = key->sk_strategy;
		cond->type = elemtype;
		/* x < ANY(a) is x < max(a); x > ANY(a) is x > min(a) */
		if (key->sk_strategy == BTLessStrategyNumber ||
			key->sk_strategy == BTLessEqualStrategyNumber)
			cond->value = elems[n - 1];
		else
			cond->value = elems[0];
		return;
	}

	*is_scalar = false;
	arr->attno = attno;
	arr->type = elemtype;
	arr->values = MemoryContextAlloc(so->rescanCxt, sizeof(Datum) * Max(n, 1));
	arr->nvalues = 0;
	for (i = 0; i < n; i++)
	{
		if (arr->nvalues > 0 &&
			cmp_key(&elemcmp, key->sk_collation,
					arr->values[arr->nvalues - 1], elems[i]) == 0)
			continue;
		arr->values[arr->nvalues] = datumCopy(elems[i], typbyval, typlen);
		arr->nvalues++;
	}
	lookup_cmp(scan->indexRelation, attno, coltype, elemtype, &arr->cmp,
			   so->rescanCxt);
	if (arr->nvalues == 0)
		so->qual_ok = false;
}

/* a condition in index order: commuted for a DESC column of a composite key */
static StrategyNumber
index_order_strategy(LearnedScanOpaque so, int attno, StrategyNumber s)
{
	if (so->ki.cols[attno].desc)
		return BTCommuteStrategyNumber(s);
	return s;
}

/*
 * Composite keys: choose the driving array and mark the required conditions.
 * As in btree, a condition is required when every column before its own has
 * an equality (or IS NULL, or the driving array): then the keys satisfying
 * it form one run in index order (per driving value), and failing it on the
 * scan's end side ends the run.  The driving array must itself sit after
 * such a prefix.
 */
static void
choose_driver_composite(LearnedScanOpaque so)
{
	bool		eq[INDEX_MAX_KEYS];
	int			eqprefix = 0;
	int			best = -1;
	int			i;

	memset(eq, 0, sizeof(eq));
	for (i = 0; i < so->nconds; i++)
	{
		ScanCond   *c = &so->conds[i];

		if (c->nulltest == COND_IS_NULL ||
			(c->nulltest == 0 && c->strategy == BTEqualStrategyNumber))
			eq[c->attno] = true;
	}
	while (eqprefix < so->ki.nkeys && eq[eqprefix])
		eqprefix++;
	for (i = 0; i < so->nfilters; i++)
		if (so->filters[i].attno <= eqprefix &&
			(best < 0 || so->filters[i].nvalues < so->filters[best].nvalues))
			best = i;
	if (best >= 0)
	{
		so->driver = palloc(sizeof(ScanArray));
		*so->driver = so->filters[best];
		so->filters[best] = so->filters[--so->nfilters];
		/* the intervals are visited in index order */
		if (so->ki.cols[so->driver->attno].desc)
		{
			int			lo = 0,
						hi = so->driver->nvalues - 1;

			for (; lo < hi; lo++, hi--)
			{
				Datum		t = so->driver->values[lo];

				so->driver->values[lo] = so->driver->values[hi];
				so->driver->values[hi] = t;
			}
		}
		if (so->driver->attno == eqprefix)
		{
			eqprefix++;
			while (eqprefix < so->ki.nkeys && eq[eqprefix])
				eqprefix++;
		}
	}
	for (i = 0; i < so->nconds; i++)
		so->conds[i].required = so->conds[i].attno <= eqprefix;
}

/* an ordinary scalar condition: a value, no NULL test, no array */
static inline bool
simple_key(const ScanKeyData *key)
{
	return (key->sk_flags & (SK_ISNULL | SK_SEARCHARRAY | SK_SEARCHNULL |
							 SK_SEARCHNOTNULL | SK_ROW_HEADER)) == 0;
}

/*
 * Do keys b have the shape of keys a (simple keys, as preprocess_keys
 * digested them): what the conditions are made from but the values.
 */
static bool
same_key_shape(const ScanKeyData *a, const ScanKeyData *b, int nkeys)
{
	int			i;

	for (i = 0; i < nkeys; i++)
		if (a[i].sk_flags != b[i].sk_flags || a[i].sk_attno != b[i].sk_attno ||
			a[i].sk_strategy != b[i].sk_strategy ||
			a[i].sk_subtype != b[i].sk_subtype ||
			a[i].sk_collation != b[i].sk_collation)
			return false;
	return true;
}

/*
 * Digest the scan keys: NULL tests, scalar conditions, arrays.
 */
static void
preprocess_keys(IndexScanDesc scan)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	int			nkeys = scan->numberOfKeys;
	bool		composite = LearnedKeyIsComposite(&so->ki);
	int			i;
	MemoryContext old;

	so->npranges = 0;
	so->nruns = 0;
	if (so->prep_simple && same_key_shape(so->prep_keys, scan->keyData, nkeys))
	{
		/* the conditions of the last preprocessing, with the new values */
		for (i = 0; i < nkeys; i++)
			so->conds[i].value = scan->keyData[i].sk_argument;
		/* the pending view stays pinned: load_pending decides its fate */
		return;
	}

	/* releases the pending copy's pin too (pending_unpin_cb) */
	MemoryContextReset(so->rescanCxt);
	so->pin = NULL;
	so->pending_kept = false;
	so->prep_simple = false;
	/* so->runs (in scanCxt) stays: load_pending keeps what is still valid */
	old = MemoryContextSwitchTo(so->rescanCxt);
	so->qual_ok = true;
	so->want_keys = true;
	/* composite keys keep their NULLs in the key stream */
	so->want_nulls = !composite;
	so->nconds = 0;
	so->conds = palloc0(sizeof(ScanCond) * Max(nkeys, 1));
	so->driver = NULL;
	so->nfilters = 0;
	so->filters = palloc(sizeof(ScanArray) * Max(nkeys, 1));

	for (i = 0; i < nkeys; i++)
	{
		ScanKey		key = &scan->keyData[i];
		int			attno = key->sk_attno - 1;
		Oid			coltype = so->ki.cols[attno].type;

		if (key->sk_flags & SK_ISNULL)
		{
			if (!(key->sk_flags & (SK_SEARCHNULL | SK_SEARCHNOTNULL)))
				so->qual_ok = false;	/* strict operator with a NULL */
			else if (composite)
			{
				ScanCond   *cond = &so->conds[so->nconds++];

				cond->attno = attno;
				cond->nulltest = (key->sk_flags & SK_SEARCHNULL) ?
					COND_IS_NULL : COND_NOT_NULL;
				cond->strategy = cond->istrategy = BTEqualStrategyNumber;
			}
			else if (key->sk_flags & SK_SEARCHNULL)
				so->want_keys = false;
			else
				so->want_nulls = false;
			continue;
		}
		/* any ordinary condition excludes NULL keys */
		if (!composite)
			so->want_nulls = false;

		if (key->sk_flags & SK_SEARCHARRAY)
		{
			ScanArray	arr;
			ScanCond	cond;
			bool		is_scalar;

			memset(&arr, 0, sizeof(arr));
			memset(&cond, 0, sizeof(cond));
			preprocess_array(scan, key, &arr, &cond, &is_scalar);
			if (!so->qual_ok)
				break;
			if (is_scalar)
			{
				lookup_cmp(scan->indexRelation, attno, coltype, cond.type,
						   &cond.cmp, so->rescanCxt);
				cond.istrategy = index_order_strategy(so, attno, cond.strategy);
				so->conds[so->nconds++] = cond;
			}
			else
				so->filters[so->nfilters++] = arr;
		}
		else
		{
			ScanCond   *cond = &so->conds[so->nconds++];

			cond->attno = attno;
			cond->strategy = key->sk_strategy;
			cond->istrategy = index_order_strategy(so, attno, key->sk_strategy);
			cond->value = key->sk_argument;
			cond->type = OidIsValid(key->sk_subtype) ? key->sk_subtype : coltype;
			lookup_cmp(scan->indexRelation, attno, coltype, cond->type,
					   &cond->cmp, so->rescanCxt);
		}
	}
	if (!so->want_keys && !so->want_nulls)
		so->qual_ok = false;

	if (composite)
		choose_driver_composite(so);
	else
	{
		/* one column: every condition is required */
		for (i = 0; i < so->nconds; i++)
			so->conds[i].required = true;
		/* the array with the fewest values drives the scan */
		if (so->nfilters > 0)
		{
			int			best = 0;

			for (i = 1; i < so->nfilters; i++)
				if (so->filters[i].nvalues < so->filters[best].nvalues)
					best = i;
			so->driver = palloc(sizeof(ScanArray));
			*so->driver = so->filters[best];
			so->filters[best] = so->filters[--so->nfilters];
		}
	}
	MemoryContextSwitchTo(old);

	/* every key an ordinary scalar condition: conds[i] is key i's */
	if (so->qual_ok && so->nconds == nkeys && so->nfilters == 0 && so->driver == NULL)
	{
		for (i = 0; i < nkeys; i++)
			if (!simple_key(&scan->keyData[i]))
				break;
		if (i == nkeys && nkeys > 0)
		{
			if (so->prep_keys == NULL)
				so->prep_keys = MemoryContextAlloc(so->scanCxt, sizeof(ScanKeyData) * nkeys);
			memcpy(so->prep_keys, scan->keyData, sizeof(ScanKeyData) * nkeys);
			so->prep_simple = true;
		}
	}
}

/* a key's column: the key itself for a single column */
static inline Datum
key_column(LearnedScanOpaque so, Datum key, int attno, bool *isnull)
{
	return LearnedKeyColumnInline(&so->ki, key, attno, isnull);
}

/*
 * Compare a key's column with a value in index order (DESC negated, a NULL
 * column where the column puts its NULLs).
 */
static inline int32
column_vs_value(LearnedScanOpaque so, Datum key, int attno, FmgrInfo *cmp,
				Datum value, bool value_null)
{
	LearnedColumn *c = &so->ki.cols[attno];
	bool		isnull;
	Datum		col = key_column(so, key, attno, &isnull);
	int32		r;

	if (isnull || value_null)
	{
		if (isnull && value_null)
			return 0;
		r = isnull ? -1 : 1;
		return c->nulls_first ? r : -r;
	}
	r = cmp_key(cmp, c->collation, col, value);
	if (c->desc)
		r = (r < 0) ? 1 : (r > 0) ? -1 : 0;
	return r;
}

static bool
cond_matches(LearnedScanOpaque so, ScanCond *c, Datum key)
{
	bool		isnull;
	Datum		col = key_column(so, key, c->attno, &isnull);

	if (c->nulltest == COND_IS_NULL)
		return isnull;
	if (c->nulltest == COND_NOT_NULL)
		return !isnull;
	if (isnull)
		return false;
	return cond_holds(cmp_key(&c->cmp, so->ki.cols[c->attno].collation, col, c->value),
					  c->strategy);
}

/*
 * Does a key satisfy every condition?  (The driving array's current value
 * is checked by the caller.)
 */
static bool
key_matches(LearnedScanOpaque so, Datum key)
{
	int			i;

	for (i = 0; i < so->nconds; i++)
		if (!cond_matches(so, &so->conds[i], key))
			return false;
	for (i = 0; i < so->nfilters; i++)
	{
		ScanArray  *a = &so->filters[i];
		int			lo = 0,
					hi = a->nvalues;
		bool		isnull;
		Datum		col = key_column(so, key, a->attno, &isnull);

		if (isnull)
			return false;
		while (lo < hi)
		{
			int			mid = (lo + hi) / 2;
			int32		r = cmp_key(&a->cmp, so->ki.cols[a->attno].collation,
									col, a->values[mid]);

			if (r == 0)
				break;
			if (r > 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo >= hi)
			return false;
	}
	return true;
}

/*
 * Is the key past the run of keys satisfying condition c, in the scan's
 * physical direction (index order, where NULLs sit at one end)?
 */
static bool
cond_beyond(LearnedScanOpaque so, ScanCond *c, Datum key, bool forward)
{
	bool		nulls_first = so->ki.cols[c->attno].nulls_first;
	bool		isnull;
	int32		r;

	(void) key_column(so, key, c->attno, &isnull);
	if (c->nulltest == COND_IS_NULL)
		return !isnull && (forward ? nulls_first : !nulls_first);
	if (isnull)
		return forward ? !nulls_first : nulls_first;
	if (c->nulltest == COND_NOT_NULL)
		return false;
	r = column_vs_value(so, key, c->attno, &c->cmp, c->value, false);
	if (forward)
	{
		switch (c->istrategy)
		{
			case BTLessStrategyNumber:
				return r >= 0;
			case BTLessEqualStrategyNumber:
			case BTEqualStrategyNumber:
				return r > 0;
			default:
				return false;
		}
	}
	switch (c->istrategy)
	{
		case BTGreaterStrategyNumber:
			return r <= 0;
		case BTGreaterEqualStrategyNumber:
		case BTEqualStrategyNumber:
			return r < 0;
		default:
			return false;
	}
}

/*
 * After a key fails some condition, can any later key (in direction
 * forward) still match?  Required conditions bounding that side end the
 * scan (or the current array interval).
 */
static bool
past_end(LearnedScanOpaque so, Datum key, bool forward)
{
	int			i;

	for (i = 0; i < so->nconds; i++)
	{
		ScanCond   *c = &so->conds[i];

		if (c->required && cond_beyond(so, c, key, forward))
			return true;
	}
	return false;
}

/*
 * The bound that positions the scan in direction forward for the driving
 * array's value number interval: the columns with an equality (or IS NULL,
 * or the driving value) in order, then at most one condition bounding the
 * start side.  Returns false if there is none (start at the end).
 */
static bool
make_bound(LearnedScanOpaque so, int interval, bool forward, Bound *b)
{
	StrategyNumber last = BTEqualStrategyNumber;
	int			col;
	int			i;

	b->nkeys = 0;
	for (col = 0; col < so->ki.nkeys; col++)
	{
		ScanCond   *eq = NULL;
		ScanCond   *start = NULL;

		if (so->driver && so->driver->attno == col)
		{
			b->values[col] = so->driver->values[interval];
			b->isnull[col] = false;
			b->types[col] = so->driver->type;
			b->cmps[col] = &so->driver->cmp;
			b->nkeys++;
			continue;
		}
		for (i = 0; i < so->nconds; i++)
		{
			ScanCond   *c = &so->conds[i];

			if (c->attno != col || c->nulltest == COND_NOT_NULL)
				continue;
			if (c->nulltest == COND_IS_NULL || c->istrategy == BTEqualStrategyNumber)
			{
				eq = c;
				break;
			}
			if (start == NULL &&
				(forward ? c->istrategy > BTEqualStrategyNumber :
				 c->istrategy < BTEqualStrategyNumber))
				start = c;
		}
		if (eq == NULL)
			eq = start;
		if (eq == NULL)
			break;
		b->values[col] = eq->value;
		b->isnull[col] = (eq->nulltest == COND_IS_NULL);
		b->types[col] = eq->type;
		b->cmps[col] = &eq->cmp;
		b->nkeys++;
		if (eq == start)
		{
			last = start->istrategy;
			break;
		}
	}
	if (b->nkeys == 0)
		return false;
	b->point = b->nkeys == so->ki.nkeys && last == BTEqualStrategyNumber;
	/* forward: first entry >= or > the bound; backward: one before that */
	if (forward)
		b->strict = (last == BTGreaterStrategyNumber);
	else
		b->strict = (last != BTLessStrategyNumber);

	/*
	 * Keys that compare as bytes, and a bound of their type that is not
	 * toasted (a join's outer value may be): find_boundary compares the
	 * page's bytes with it directly, without building each key.
	 */
	b->bytes = false;
	if (so->ki.bytewise && b->nkeys == 1 && !b->isnull[0] && b->types[0] == so->ki.keytype)
	{
		const char *v = DatumGetPointer(b->values[0]);

		if (so->ki.keylen > 0)
		{
			b->bytes = true;
			b->bdata = v;
			b->blen = so->ki.keylen;
		}
		else if (!VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v))
		{
			b->bytes = true;
			b->bdata = VARDATA_ANY(v);
			b->blen = VARSIZE_ANY_EXHDR(v);
		}
	}

	if (LearnedKeyLocalImages(&so->ki))
		b->hint = 0;			/* find_boundary computes the images it needs */
	else if (!LearnedKeyIsComposite(&so->ki))
		b->hint = b->isnull[0] ? 0 :
			learned_map_value(&so->ki.cols[0], b->values[0], b->types[0]);
	else
	{
		uint64		u[INDEX_MAX_KEYS];

		for (col = 0; col < so->ki.map.npacked; col++)
		{
			if (col < b->nkeys)
				b->status[col] = LearnedColumnStatus(&so->ki, col, b->values[col],
													 b->types[col], b->isnull[col],
													 &u[col]);
			else
			{
				/* the rest of the key: its smallest or largest image */
				b->status[col] = b->strict ? KP_AFTER : KP_BEFORE;
				u[col] = 0;
			}
		}
		b->hint = keypack_combine(so->ki.map.cols, so->ki.map.npacked, b->status, u);
	}
	return true;
}

/*
 * Would make_bound find a bound in direction forward?  The same test on the
 * first column, without building the bound (position_interval asks it of
 * the far side at every positioning).
 */
static bool
has_bound(LearnedScanOpaque so, bool forward)
{
	int			i;

	if (so->driver && so->driver->attno == 0)
		return true;
	for (i = 0; i < so->nconds; i++)
	{
		ScanCond   *c = &so->conds[i];

		if (c->attno != 0 || c->nulltest == COND_NOT_NULL)
			continue;
		if (c->nulltest == COND_IS_NULL || c->istrategy == BTEqualStrategyNumber ||
			(forward ? c->istrategy > BTEqualStrategyNumber :
			 c->istrategy < BTEqualStrategyNumber))
			return true;
	}
	return false;
}

/* a key vs a bound, in index order, over the bound's columns */
static inline int32
bound_cmp(LearnedScanOpaque so, Datum key, const Bound *b)
{
	int			i;

	for (i = 0; i < b->nkeys; i++)
	{
		int32		r = column_vs_value(so, key, i, b->cmps[i], b->values[i],
										b->isnull[i]);

		if (r != 0)
			return r;
	}
	return 0;
}

/* ---------- reading leaf pages ---------- */

static inline LearnedSegment *
vpage_segment(LearnedDirectory *dir, uint32 vpage, uint32 *segno)
{
	uint32		lo = 0,
				hi = dir->nsegments;

	/* rightmost segment whose first vpage <= vpage */
	while (hi - lo > 1)
	{
		uint32		mid = (lo + hi) / 2;

		if (dir->seg_first_vpage[mid] <= vpage)
			lo = mid;
		else
			hi = mid;
	}
	*segno = lo;
	return &dir->segments[lo];
}

/*
 * Check that the share-locked leaf page in buf is what the directory says
 * vpage is, and open it (so->view).  Returns its item count.  On damage
 * the page is unlocked, and released if release is set, before the error.
 */
static int
open_vpage(IndexScanDesc scan, uint32 vpage, Buffer buf, bool release)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	LearnedDirectory *dir = so->dir;
	uint32		segno;
	LearnedSegment *seg = vpage_segment(dir, vpage, &segno);
	uint32		pg = vpage - dir->seg_first_vpage[segno];
	BlockNumber blkno = seg->start_blk + pg;
	int			expect;
	Page		page = BufferGetPage(buf);
	LearnedPageOpaque opaque;

	expect = (pg + 1 < seg->npages) ? (int) seg->items_per_page :
		(int) (seg->nitems - (uint64) pg * seg->items_per_page);
	TestForOldSnapshot(scan->xs_snapshot, scan->indexRelation, page);
	LearnedCheckPage(scan->indexRelation, page, blkno, LEARNED_PAGE_LEAF);
	opaque = LearnedPageGetOpaque(page);
	if (opaque->generation != seg->generation || opaque->nitems != expect ||
		!LearnedLeafFormatMatches(opaque->flags, seg, so->ki.keylen))
	{
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		if (release)
			ReleaseBuffer(buf);
		LearnedReportCorrupt(scan->indexRelation, blkno,
							 "leaf page does not match its directory");
	}
	/*
	 * A compressed page's header is checked at every visit, its key run's
	 * partitions as reads reach them (LearnedLeafOpenLazy)
	 */
	LearnedLeafOpenLazy(scan->indexRelation, page, blkno, &so->ki.layout, &so->view);
	return expect;
}

/* pin leaf page vpage, block blkno */
static Buffer
pin_vpage(IndexScanDesc scan, uint32 vpage, BlockNumber blkno)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	LearnedDirectory *dir = so->dir;
	Buffer		buf;

	/*
	 * Rescans often come back to the page they read last (a nested loop's
	 * probes in key order, a short range after a nearby one): try the
	 * buffer that held it, which skips the buffer mapping lookup.  Else
	 * the buffer a scan of this backend last read the page into, which the
	 * directory keeps per page: a fresh scan (one per statement) skips the
	 * lookup too, where btree's descent makes one per level.
	 */
	if (blkno != so->leaf_recent_blk)
		so->leaf_recent = dir->leaf_hint ? dir->leaf_hint[vpage] : InvalidBuffer;
	buf = LearnedReadBufferRecent(scan->indexRelation, blkno, &so->leaf_recent);
	so->leaf_recent_blk = blkno;
	if (dir->leaf_hint)
		dir->leaf_hint[vpage] = buf;
	return buf;
}

/*
 * Read and share-lock a leaf page by vpage; checks that it is what the
 * directory says it is.  Returns the buffer; *nitems is its item count.
 */
static Buffer
read_vpage(IndexScanDesc scan, uint32 vpage, int *nitems)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	LearnedDirectory *dir = so->dir;
	uint32		segno;
	LearnedSegment *seg = vpage_segment(dir, vpage, &segno);
	Buffer		buf;

	buf = pin_vpage(scan, vpage, seg->start_blk + (vpage - dir->seg_first_vpage[segno]));
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	*nitems = open_vpage(scan, vpage, buf, true);
	return buf;
}

/*
 * The same for a page a batch kept pinned (the next slice of a compressed
 * page): re-lock it and open it again.
 */
static void
reopen_vpage(IndexScanDesc scan, uint32 vpage, Buffer buf, int *nitems)
{
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	*nitems = open_vpage(scan, vpage, buf, false);
}

/* key of a slot of the page last read by read_vpage (page is that page) */
static inline Datum
leaf_key(LearnedScanOpaque so, Page page, int slot)
{
	Assert(so->view.page == page);
	return LearnedLeafViewKey(&so->view, &so->ki, slot);
}

/* boundary predicate: key > bound (strict) or key >= bound */
static inline bool
past_bound(LearnedScanOpaque so, Datum key, const Bound *b)
{
	int32		r = bound_cmp(so, key, b);

	return b->strict ? r > 0 : r >= 0;
}

/*
 * The key at slot of the page last read vs a bound that compares as bytes
 * (b->bytes), without building the key: the page's prefix decides alone
 * unless the bound starts with it, then the slot's suffix does.  False if
 * the key is stored compressed, or on a plain page (compare it the usual
 * way then).
 */
static inline bool
slot_cmp_bytes(LearnedScanOpaque so, int slot, const Bound *b, int32 *r)
{
	const LearnedLeafView *v = &so->view;
	Size		plen = v->plen;
	const char *d;
	Size		len;

	if (!v->varwidth)
		return false;			/* a plain page of a uuid index */
	if (plen > 0)
	{
		int			c = memcmp(v->prefix, b->bdata, Min(plen, b->blen));

		if (c != 0 || b->blen < plen)
		{
			/* every key of the page is on this side of the bound */
			*r = c != 0 ? c : 1;
			return true;
		}
	}
	if (!LearnedLeafVarData(v, &so->ki, slot, &d, &len))
		return false;
	*r = LearnedBytesCmp(d, len, b->bdata + plen, b->blen - plen);
	return true;
}

/* the boundary predicate for the key at slot of the page last read */
static inline bool
slot_past_bound(LearnedScanOpaque so, Page page, int slot, const Bound *b)
{
	int32		r;

	if (b->bytes && slot_cmp_bytes(so, slot, b, &r))
		return b->strict ? r > 0 : r >= 0;
	return past_bound(so, leaf_key(so, page, slot), b);
}

/* a segment's cached first key vs the bound, in index order */
static inline int32
seg_key_cmp(LearnedScanOpaque so, Datum key, const Bound *b)
{
	const char *p = DatumGetPointer(key);

	if (b->bytes && !VARATT_IS_COMPRESSED(p))
		return LearnedBytesCmp(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p), b->bdata, b->blen);
	return bound_cmp(so, key, b);
}

/* does the last (first) item of a vpage satisfy the boundary predicate? */
static bool
vpage_edge_past(IndexScanDesc scan, uint32 vpage, bool last, const Bound *b)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	int			n;
	Buffer		buf = read_vpage(scan, vpage, &n);
	bool		res;

	res = slot_past_bound(so, BufferGetPage(buf), last ? n - 1 : 0, b);
	UnlockReleaseBuffer(buf);
	return res;
}

/*
 * One string column: the directory cache's copy of each segment's first
 * key and of the sort-key prefix its local images skip, read once per
 * directory generation (one leaf page per segment).
 */
static void
load_segment_keys(IndexScanDesc scan)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	LearnedDirectory *dir = so->dir;
	MemoryContext cxt = GetMemoryChunkContext(dir);
	Datum	   *keys;
	uint8	   *prefix;
	uint32		s;

	if (dir->seg_keys != NULL || dir->nsegments == 0)
		return;
	keys = MemoryContextAlloc(cxt, sizeof(Datum) * dir->nsegments);
	prefix = MemoryContextAllocZero(cxt, (Size) LEARNED_STR_PREFIX_MAX * dir->nsegments);
	for (s = 0; s < dir->nsegments; s++)
	{
		uint32		vp = dir->seg_first_vpage[s];
		int			n;
		Buffer		buf = read_vpage(scan, vp, &n);

		keys[s] = LearnedKeyCopyAlloc(&so->ki,
									  leaf_key(so, BufferGetPage(buf), 0), cxt);
		UnlockReleaseBuffer(buf);
		if (dir->segments[s].str_skip > 0)
			LearnedStringPrefix(&so->ki, keys[s], dir->segments[s].str_skip,
								prefix + (Size) s * LEARNED_STR_PREFIX_MAX);
	}
	dir->seg_max_skip = 0;
	for (s = 0; s < dir->nsegments; s++)
		dir->seg_max_skip = Max(dir->seg_max_skip, (int) dir->segments[s].str_skip);
	dir->seg_prefix = prefix;
	dir->seg_keys = keys;
}

/*
 * The lower bound of x in slots [a, b) of a compressed page, searched from
 * a outwards: in [a, a + 16), then a window four times as wide after it,
 * and so on.  A reused position's window runs from the last boundary to
 * the end of the page (thousands of entries), and the next boundary of a
 * nested loop's ascending probes is usually near its start: a binary
 * search over the whole window probed a dozen keys.
 */
static int
lower_bound_gallop(const LearnedLeafView *v, uint64 x, int a, int b)
{
	int			step = 16;

	while (b - a > step)
	{
		int			s = LearnedLeafLowerBoundIn(v, x, a, a + step);

		if (s < a + step)
			return s;
		a += step;
		step *= 4;
	}
	return LearnedLeafLowerBoundIn(v, x, a, b);
}

/*
 * The same in slots [0, b) searched from b backwards, for a boundary at or
 * before b (a nested loop's descending probes): in [b - 16, b), then a
 * window four times as wide before it, and so on.
 */
static int
lower_bound_gallop_back(const LearnedLeafView *v, uint64 x, int b)
{
	int			step = 16;

	while (b > step)
	{
		int			s = LearnedLeafLowerBoundIn(v, x, b - step, b);

		if (s > b - step)
			return s;
		b -= step;
		step *= 4;
	}
	return LearnedLeafLowerBoundIn(v, x, 0, b);
}

/* key of a slot of the page last read: from img (slots [a, a + got)) if there */
static inline Datum
near_key(LearnedScanOpaque so, Page page, const uint64 *img, int a, int got, int slot)
{
	if (slot >= a && slot < a + got)
		return LearnedLeafImageKey(&so->ki, img[slot - a]);
	return leaf_key(so, page, slot);
}

/*
 * The boundary slot on a compressed page (the view): the lower bound of
 * the bound's image, searched on the compressed key run (it decodes only
 * the keys it probes and calls no comparator), first inside the model's
 * window on this page, slots [a, e] (a few neighbouring keys), then in the
 * whole page.  The comparator confirms it on the keys around it: key s is
 * past the bound, key s - 1 is not.  Returns s, or -1 if the bound has no
 * image or the page does not confirm it (then the caller's comparator
 * search decides).
 *
 * near: the window starts at the last positioning's boundary (reuse_window),
 * and this one is usually a few entries on: the first NEAR_KEYS keys of
 * the window are decoded in one sequential pass (one partition lookup
 * where a binary search makes one per probe) and scanned, the comparator
 * checks take their keys from there, and a boundary further on (or
 * before the window, for descending probes) is found by galloping
 * (lower_bound_gallop, lower_bound_gallop_back).
 */
#define NEAR_KEYS	16

static int
compressed_boundary(LearnedScanOpaque so, Page page, const Bound *b, int n,
					int a, int e, bool near)
{
	uint64		x;
	int			pass;
	uint64		img[NEAR_KEYS];
	int			got = 0;		/* img holds the images of slots [a, a + got) */

	Assert(so->view.compressed);
	if (b->nkeys != 1 || b->isnull[0] ||
		!LearnedLeafBoundImage(&so->ki, b->values[0], b->types[0], &x) ||
		(b->strict && x == PG_UINT64_MAX))
		return -1;
	if (b->strict)
		x++;
	a = Min(a, n - 1);
	e = Min(e, n - 1);
	if (e < a)
		a = 0, e = n - 1;		/* no usable window: the whole page */
	for (pass = (a > 0 || e < n - 1) ? 0 : 1; pass < 2; pass++)
	{
		int			s;

		if (pass == 1)
			s = LearnedLeafLowerBound(&so->view, x);
		else if (near)
		{
			got = Min(NEAR_KEYS, e + 1 - a);
			LearnedLeafDecodeRange(&so->view, a, got, img, NULL, NULL);
			for (s = a; s < a + got && img[s - a] < x; s++)
				;
			if (s == a + got && s <= e)
				s = lower_bound_gallop(&so->view, x, s, e + 1);
			else if (s == a && a > 0)
				s = lower_bound_gallop_back(&so->view, x, a);
			/* nothing of the page is past the bound: no whole-page search */
			if (s == n)
				break;
		}
		else
			s = LearnedLeafLowerBoundIn(&so->view, x, a, e + 1);

		/* the TID fill_batch will read, while the comparator runs */
		if (s < n)
			lcp_prefetch_tid(&so->view.lcp, (uint32) s);
		if (s < n && past_bound(so, near_key(so, page, img, a, got, s), b) &&
			(s == 0 || !past_bound(so, near_key(so, page, img, a, got, s - 1), b)))
			return s;
	}
	return -1;
}

/*
 * The model's window for a bound: vpages [*wlo, *whi] and the slots inside
 * them (slots[0] in page *wlo to slots[1] in page *whi).
 */
static void
model_window(IndexScanDesc scan, const Bound *b, uint32 *wlo_out, uint32 *whi_out,
			 int *slots)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	LearnedDirectory *dir = so->dir;
	uint32		wlo = 0,
				whi = 0;
	uint64		hint = b->hint;

	slots[0] = 0;
	slots[1] = INT_MAX;

	/*
	 * The directory proposes a window (directory.c: the rightmost piece whose
	 * first key is at most the mapped bound, or the zone-map group).  When
	 * equal keys straddle a segment boundary this lands past the run's
	 * start; the left check below corrects it.
	 */
	if (LearnedKeyLocalImages(&so->ki))
	{
		/*
		 * One string column: the segment by comparing keys (the images of
		 * several segments may be alike), then its local image.
		 */
		uint32		lo = 0,
					hi = dir->nsegments;
		uint32		a,
					c;
		const uint8 *prefix;
		LearnedColumn *col = &so->ki.cols[0];
		uint8		kb[LEARNED_SORTKEY_BYTES];
		uint64		global;

		load_segment_keys(scan);

		/*
		 * The bound's sort-key prefix once (a collation library call), as
		 * far as its index-wide image and any segment's local image need.
		 */
		LearnedStringSortKey(&so->ki, b->values[0], b->types[0],
							 Max(col->str_skip, dir->seg_max_skip), kb);
		global = LearnedStringImageOf(kb, col->str_skip, col->str_prefix);

		/*
		 * The segments' first images narrow the search first: images are
		 * monotone, so a segment whose first image is below the bound's
		 * starts below the bound, and one whose first image is above it
		 * starts above it.  Only segments of an equal image need the
		 * comparator (with a collation library that changed its sort keys
		 * since they were written, this only picks a worse start, which
		 * the walk below corrects).
		 */
		a = 0;
		c = dir->nsegments;
		while (a < c)
		{
			uint32		mid = (a + c) / 2;

			if (dir->segments[mid].first_key < global)
				a = mid + 1;
			else
				c = mid;
		}
		c = a;
		hi = dir->nsegments;
		while (c < hi)
		{
			uint32		mid = (c + hi) / 2;

			if (dir->segments[mid].first_key <= global)
				c = mid + 1;
			else
				hi = mid;
		}
		lo = a > 0 ? a - 1 : 0;
		hi = Max(c, lo + 1);
		while (hi - lo > 1)
		{
			uint32		mid = (lo + hi) / 2;

			if (seg_key_cmp(so, dir->seg_keys[mid], b) <= 0)
				lo = mid;
			else
				hi = mid;
		}
		prefix = dir->seg_prefix + (Size) lo * LEARNED_STR_PREFIX_MAX;
		hint = LearnedStringImageOf(kb, dir->segments[lo].str_skip, prefix);
		if (b->strict && hint < PG_UINT64_MAX)
			hint++;
		LearnedDirWindowSeg(dir, lo, hint, true, &wlo, &whi, slots);
	}
	else
	{
		if (b->strict && hint < PG_UINT64_MAX)
			hint++;
		(void) LearnedDirWindow(dir, hint, &wlo, &whi, slots);
	}

	*wlo_out = wlo;
	*whi_out = whi;
}

/*
 * Pages a positioning reuses from the last one's boundary: that page and
 * the next.  A key further on is left to the model (a walk would read a
 * page per step where the model reads one).
 */
#define REUSE_PAGES		2

/*
 * A reused window that missed costs a page or two before the model's
 * search: after a miss, reuse waits for 1, 2, 4 ... up to REUSE_MAX_SKIP
 * positionings (random probes try it rarely), and a hit ends the wait.
 */
#define REUSE_MAX_SKIP	256

/*
 * May this positioning start from the last one's boundary (so->last_*)?
 * Only in the directory it was found in.
 */
static bool
reuse_window(IndexScanDesc scan, uint32 *wlo, uint32 *whi, int *slots)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	LearnedDirectory *dir = so->dir;

	if (so->reuse_skip > 0)
	{
		so->reuse_skip--;
		return false;
	}
	if (!so->last_valid || so->last_gen != dir->generation ||
		so->last_relfile != LI_REL_FILE_NUMBER(scan->indexRelation) ||
		so->last_vp >= dir->nvpages)
		return false;
	*wlo = so->last_vp;
	*whi = Min(so->last_vp + REUSE_PAGES - 1, dir->nvpages - 1);
	slots[0] = so->last_slot;
	slots[1] = INT_MAX;
	return true;
}

/* a reused window missed: the model searches, and reuse waits a while */
static void
reuse_missed(IndexScanDesc scan, const Bound *b, uint32 *wlo, uint32 *whi, int *slots)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;

	so->reuse_backoff = Min(Max(so->reuse_backoff * 2, 1), REUSE_MAX_SKIP);
	so->reuse_skip = so->reuse_backoff;
	model_window(scan, b, wlo, whi, slots);
}

/*
 * Remember a boundary for the next positioning (reuse_window); reused: it
 * was found in a reused window.
 */
static uint32
found_boundary(IndexScanDesc scan, uint32 vp, int slot, bool reused)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;

	if (reused)
		so->reuse_backoff = 0;
	so->last_valid = true;
	so->last_gen = so->dir->generation;
	so->last_relfile = LI_REL_FILE_NUMBER(scan->indexRelation);
	so->last_vp = vp;
	so->last_slot = slot;
	return vp;
}

/*
 * The first slot of a page past the bound, the page's last entry being past
 * it, by the comparator, from the window's slots on this page when it has
 * them: slo, the window's first slot (the model's lowest rank, or where the
 * last positioning found its boundary), and shi, its last.  Each is only a
 * hint, checked against its neighbour before it narrows the search.  With
 * no last slot (a reused boundary), the search gallops right from the
 * first: the keys of ascending probes (a multi-row INSERT's unique checks,
 * a nested loop's sorted outer side) usually share or follow the last
 * boundary, found with two comparisons instead of a binary search's eight
 * or nine over a page.
 */
static int
page_boundary(LearnedScanOpaque so, Page page, const Bound *b, int n, int slo, int shi)
{
	int			lo = 0;
	int			hi = n - 1;		/* past the bound */

	if (slo > 0 && slo <= hi)
	{
		if (slot_past_bound(so, page, slo - 1, b))
			hi = slo - 1;
		else
			lo = slo;
	}
	if (shi >= lo && shi < hi)
	{
		if (slot_past_bound(so, page, shi, b))
			hi = shi;
		else
			lo = shi + 1;
	}
	else if (slo > 0 && lo == slo)
	{
		int			step = 1;

		while (lo < hi)
		{
			int			probe = Min(lo + step - 1, hi - 1);

			if (slot_past_bound(so, page, probe, b))
			{
				hi = probe;
				break;
			}
			lo = probe + 1;
			step *= 2;
		}
	}
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (slot_past_bound(so, page, mid, b))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Find the first entry e of the static stage with e > v (strict) or e >= v.
 * Returns its vpage and slot, with that page share-locked in *bufp, or
 * vpage == nvpages (and no buffer) when every entry is below the bound.
 *
 * The search starts from a window of vpages: the page where the last
 * positioning of this scan found its boundary and the next one
 * (reuse_window: monotone probes, a nested loop's rescans in key order),
 * or else the model's window.  The first page's first item and the
 * window's pages' last items verify it.  A model's window that misses
 * widens by galloping; a reused one that misses (the key lies before it or
 * past it) gives way to the model's.  Either way the comparator decides.
 */
static uint32
find_boundary(IndexScanDesc scan, const Bound *b, int *slotp, Buffer *bufp)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	LearnedDirectory *dir = so->dir;
	uint32		nv = dir->nvpages;
	uint32		wlo = 0,
				whi = 0;
	uint32		vp;
	Buffer		buf = InvalidBuffer;
	int			n = 0;
	int			slots[2] = {0, INT_MAX};
	bool		reuse;

	*bufp = InvalidBuffer;
	if (nv == 0)
		return 0;

	reuse = reuse_window(scan, &wlo, &whi, slots);
	if (!reuse)
		model_window(scan, b, &wlo, &whi, slots);

retry:
	/* G1: ask for every page of the window before reading any of them */
	if (whi > wlo && !reuse)
	{
		uint32		w;

		for (w = wlo; w <= whi; w++)
		{
			uint32		segno;
			LearnedSegment *seg = vpage_segment(dir, w, &segno);

			PrefetchBuffer(scan->indexRelation, MAIN_FORKNUM,
						   seg->start_blk + (w - dir->seg_first_vpage[segno]));
		}
	}

	vp = wlo;
	buf = read_vpage(scan, vp, &n);

	/*
	 * A compressed page where the search on its key run finds the boundary
	 * strictly inside it (a key not past the bound before it): no edge
	 * checks needed, the page holds it.
	 */
	if (so->view.compressed)
	{
		int			s = compressed_boundary(so, BufferGetPage(buf), b, n, slots[0],
											vp == whi ? slots[1] : INT_MAX, reuse);

		if (s > 0)
		{
			*slotp = s;
			*bufp = buf;
			return found_boundary(scan, vp, s, reuse);
		}
	}
	if (vp > 0 && slot_past_bound(so, BufferGetPage(buf), 0, b))
	{
		/*
		 * The window starts too far right: gallop left to a page whose last
		 * item is below the bound, then binary-search.  A reused window:
		 * the key is before the last boundary's page, the model's turn.
		 */
		int64		known_true = vp;
		int64		known_false = -1;
		int64		step = 1;

		UnlockReleaseBuffer(buf);
		buf = InvalidBuffer;
		if (reuse)
		{
			reuse = false;
			reuse_missed(scan, b, &wlo, &whi, slots);
			goto retry;
		}
		for (;;)
		{
			int64		probe = (int64) vp - step;

			if (probe < 0)
				break;
			if (vpage_edge_past(scan, (uint32) probe, true, b))
				known_true = probe;
			else
			{
				known_false = probe;
				break;
			}
			step *= 2;
		}
		while (known_true - known_false > 1)
		{
			int64		mid = (known_true + known_false) / 2;

			if (vpage_edge_past(scan, (uint32) mid, true, b))
				known_true = mid;
			else
				known_false = mid;
		}
		vp = (uint32) known_true;
		buf = read_vpage(scan, vp, &n);
	}

	/* walk right through the window, then gallop right */
	while (!slot_past_bound(so, BufferGetPage(buf), n - 1, b))
	{
		UnlockReleaseBuffer(buf);
		buf = InvalidBuffer;
		vp++;
		if (vp >= nv)
			return nv;
		if (reuse && vp > whi)
		{
			/* past the reused pages: the model's turn */
			reuse = false;
			reuse_missed(scan, b, &wlo, &whi, slots);
			goto retry;
		}
		if (vp > whi + 1)
		{
			int64		known_false = (int64) vp - 1;
			int64		known_true = -1;
			int64		step = 1;

			for (;;)
			{
				int64		probe = known_false + step;

				if (probe >= nv)
				{
					if (!vpage_edge_past(scan, nv - 1, true, b))
						return nv;
					known_true = nv - 1;
					break;
				}
				if (vpage_edge_past(scan, (uint32) probe, true, b))
				{
					known_true = probe;
					break;
				}
				known_false = probe;
				step *= 2;
			}
			while (known_true - known_false > 1)
			{
				int64		mid = (known_true + known_false) / 2;

				if (vpage_edge_past(scan, (uint32) mid, true, b))
					known_true = mid;
				else
					known_false = mid;
			}
			vp = (uint32) known_true;
		}
		buf = read_vpage(scan, vp, &n);
		CHECK_FOR_INTERRUPTS();
	}

	/* the boundary is in this page */
	{
		Page		page = BufferGetPage(buf);
		int			s = -1;

		/* a compressed page: on its key run first (the edges are checked) */
		if (so->view.compressed)
			s = compressed_boundary(so, page, b, n, vp == wlo ? slots[0] : 0,
									vp == whi ? slots[1] : INT_MAX,
									reuse && vp == wlo);
		if (s < 0)
			s = page_boundary(so, page, b, n, vp == wlo ? slots[0] : 0,
							  vp == whi ? slots[1] : INT_MAX);
		*slotp = s;
	}
	*bufp = buf;
	return found_boundary(scan, vp, *slotp, reuse);
}

/* ---------- building batches ---------- */

/*
 * Make both item arrays (the batch's and the mark's or spare one, once
 * made) hold n items.  The items move; by-reference keys stay in the
 * batch's key area, which the items point into.
 */
static void
ensure_batch_cap(LearnedScanOpaque so, int n)
{
	BatchItem **other;

	if (n <= so->batch_cap)
		return;
	n = Max(n, so->batch_cap * 2);
	other = so->mark.batch.items ? &so->mark.batch.items : &so->spare_items;
	so->pos.batch.items = repalloc(so->pos.batch.items, sizeof(BatchItem) * n);
	if (*other)
		*other = repalloc(*other, sizeof(BatchItem) * n);
	so->batch_cap = n;
}

/*
 * Make the batch's key area hold need bytes, moving the keys it holds (the
 * items point into it) if it must grow.
 */
static void
batch_key_space(Batch *b, Size need)
{
	uintptr_t	old = (uintptr_t) b->keys;
	int			i;

	if (need <= b->keys_cap)
		return;
	b->keys_cap = Max(need, b->keys_cap * 2);
	b->keys = repalloc(b->keys, b->keys_cap);
	for (i = 0; i < b->nitems; i++)
		if (DatumGetPointer(b->items[i].key) != NULL)
			b->items[i].key = PointerGetDatum(b->keys +
											  ((uintptr_t) DatumGetPointer(b->items[i].key) - old));
}

/*
 * Point pos.batch, empty, at a locked leaf or NULL page (vpage: its vpage
 * or NULL page number), remembering the page for kill_items.  Returns the
 * hint bitmap the scan obeys: the page's, or NULL in recovery or without.
 */
static const uint8 *
batch_start(LearnedScanOpaque so, Buffer buf, uint32 vpage)
{
	Batch	   *b = &so->pos.batch;
	Page		page = BufferGetPage(buf);

	b->buf = buf;
	b->vpage = vpage;
	b->page_gen = LearnedPageGetOpaque(page)->generation;
	b->page_items = LearnedPageGetOpaque(page)->nitems;
	b->seq = ++so->batch_seq;
	b->nitems = 0;
	b->keys_used = 0;
	b->next = 0;
	b->last = false;
	b->resume = -1;
	return so->ignore_hints ? NULL : LearnedLeafHints(page);
}

/*
 * From a gone (dead or hinted) slot i, the next slot the loop must look at:
 * past every whole byte of the bitmaps, in the direction, whose 8 entries
 * are all gone and that lies strictly before the last slot to visit; i + 1
 * (i - 1 backward) when i does not start such a byte.
 */
static inline int
skip_gone_bytes(Page page, const LearnedLeafLayout *l, const uint8 *hints, int i,
				int last, bool forward)
{
	const uint8 *dead = (const uint8 *) page + LearnedLeafDeadOff(page, l);
	int			start = i;

	if (forward)
	{
		while ((i & 7) == 0 && i + 7 < last &&
			   (uint8) (dead[i >> 3] | (hints ? hints[i >> 3] : 0)) == 0xFF)
			i += 8;
		return i == start ? i + 1 : i;
	}
	while ((i & 7) == 7 && i - 7 > last &&
		   (uint8) (dead[i >> 3] | (hints ? hints[i >> 3] : 0)) == 0xFF)
		i -= 8;
	return i == start ? i - 1 : i;
}

/*
 * Add to the batch the entries from slot a to slot z (in the scan's
 * direction, both included), every one known to match, but for the dead
 * and hinted ones: a long range's entries go here, between two matching
 * entries (fill_batch), with no test but the two bitmaps'.  By-value keys
 * only (by-reference ones are copied into the batch's key area); a
 * compressed page's entries come from the step the loop decoded last.
 */
static inline void
take_matching(LearnedScanOpaque so, Page page, const uint8 *dead, const uint8 *hints,
			  int a, int z, bool sliced, int step_lo, int room)
{
	Batch	   *b = &so->pos.batch;
	int			d = so->forward ? 1 : -1;
	int			n = (z - a) * d + 1;
	const uint8 *h = hints ? hints : dead;
	BatchItem  *it;
	int			k;

	Assert(!so->ki.byref && n > 0);
	if (b->nitems + n > so->batch_cap)
		ensure_batch_cap(so, Min(Max(b->nitems * 2, b->nitems + n), room));
	it = b->items + b->nitems;
	for (k = a; k != z + d; k += d)
	{
		if (((dead[k >> 3] | h[k >> 3]) >> (k & 7)) & 1)
			continue;
		it->slot = (uint16) k;
		if (sliced)
		{
			it->key = LearnedLeafImageKey(&so->ki, so->arr->step_keys[k - step_lo]);
			ItemPointerSet(&it->tid, (BlockNumber) so->arr->step_blocks[k - step_lo],
						   (OffsetNumber) so->arr->step_offsets[k - step_lo]);
		}
		else
		{
			it->key = leaf_key(so, page, k);
			it->tid = LearnedLeafViewTid(&so->view, k);
		}
		it++;
	}
	b->nitems = it - b->items;
}

/*
 * fill_batch on a single-column key without arrays, at a matching entry i:
 * the slot that bounds, with i, a run of matching entries, if it matches
 * (else -1): the end of the step decoded last on a compressed page (probe),
 * SLICE_STEP - 1 entries on on a plain one, never past the last slot the
 * loop visits.  *failed is a slot known not to match (past the range's
 * end, since i matches), or -1: a probe there or beyond is not tested, a
 * probe found not to match becomes it.
 */
static int
run_end(LearnedScanOpaque so, Page page, int i, int last, bool sliced, int probe,
		int step_lo, int *failed)
{
	int			j = sliced ? probe :
		(so->forward ? Min(i + SLICE_STEP - 1, last) : Max(i - SLICE_STEP + 1, last));

	if ((so->forward ? j <= i : j >= i) ||
		(*failed >= 0 && (so->forward ? j >= *failed : j <= *failed)))
		return -1;
	if (key_matches(so, sliced ?
					LearnedLeafImageKey(&so->ki, so->arr->step_keys[j - step_lo]) :
					leaf_key(so, page, j)))
		return j;
	*failed = j;
	return -1;
}

/*
 * fill_batch on a single-column key without arrays: slot a matches and
 * slot z (of the step decoded last, or of a plain page) does not, so the
 * entries from a towards z that match are those next to a.  The last of
 * them, by binary search: the step holding a range's end costs a few
 * comparator calls, not one an entry.
 */
static int
last_match(LearnedScanOpaque so, Page page, int a, int z, bool sliced, int step_lo)
{
	while (z - a > 1 || a - z > 1)
	{
		int			mid = a + (z - a) / 2;

		if (key_matches(so, sliced ?
						LearnedLeafImageKey(&so->ki, so->arr->step_keys[mid - step_lo]) :
						leaf_key(so, page, mid)))
			a = mid;
		else
			z = mid;
	}
	return a;
}

/*
 * Is every condition required (composite keys: on a column that only
 * equalities precede, choose_driver_composite)?  Then, without arrays, the
 * keys that match them all are one interval of the index order.  A single
 * column's conditions always are.
 */
static inline bool
all_required(LearnedScanOpaque so)
{
	int			i;

	for (i = 0; i < so->nconds; i++)
		if (!so->conds[i].required)
			return false;
	return true;
}

/*
 * Fill the batch from a locked page, starting at slot, in the scan's
 * direction, with the items that match; stop at the first item past the end
 * of the current interval.  The caller unlocks the page; the batch keeps
 * the pin.
 *
 * A compressed page holds thousands of entries: it is read a slice at a
 * time (SLICE_FIRST entries after positioning, twice as many each
 * next slice, up to SLICE_MAX), and b->resume says where the next slice
 * starts (static_advance re-locks the page, which the batch kept pinned, so
 * VACUUM cannot have changed it); a range scan (one with an end bound)
 * takes at least SLICE_RANGE entries a slice.  The first slice of an
 * equality scan decodes by random access only the keys the loop reads and
 * the TIDs of the items it returns (a point lookup reads a key or two);
 * other slices decode sequentially, a step at a time as the loop reaches
 * them: SLICE_FIRST entries, then twice as many each step up to
 * SLICE_STEP_MAX.  So a LIMIT 10 or a point lookup decodes a few entries,
 * not the rest of the page, and a range little past its end.
 */
static void
fill_batch(IndexScanDesc scan, Buffer buf, uint32 vpage, int nitems, int slot)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	Batch	   *b = &so->pos.batch;
	Page		page = BufferGetPage(buf);
	int			step = so->forward ? 1 : -1;
	int			i;
	int			end = so->forward ? nitems : -1;
	int			last;			/* the last slot the loop can visit */
	bool		sliced = false;
	int			decoded = 0;	/* sliced: entries of the slice decoded so far */
	int			step_lo = 0;	/* sliced: the lowest slot of the step decoded */
	int			stepsz = SLICE_FIRST;	/* sliced: entries the next step decodes */
	int			room = so->view.compressed ? 0 : nitems;	/* items the loop may return */
	ScanArray  *drv = so->driver;
	const uint8 *hints;
	const uint8 *dead = (const uint8 *) page + LearnedLeafDeadOff(page, &so->ki.layout);
	int			probe = -1;		/* convex: the slot to test after a match */
	int			known = -1;		/* convex: slots up to it (in direction) match */
	int			failed = -1;	/* convex: a slot found past the end, or -1 */
	bool		convex;

	/*
	 * A by-reference key is copied into the batch only if someone reads it
	 * there: an index-only scan's tuple, or the merge with the view's
	 * pending entries (learnedgettuple compares the two streams' keys).  A
	 * plain scan of a range no pending entry falls in (a TPC-C range over
	 * old orders) keeps TIDs only, as btree does.
	 */
	bool		copy_keys = so->ki.byref &&
		(scan->xs_want_itup || so->npranges > 0);

	/* a composite key of a stride page is copied from the page itself */
	bool		stride_copy = copy_keys && so->view.stride &&
		LearnedKeyIsComposite(&so->ki);

	Assert(so->view.page == page);

	/*
	 * No arrays, and (composite keys) every condition required, i.e. on a
	 * column after an equality prefix: the matching keys are one interval
	 * of the index order, so two matching entries say every entry between
	 * them matches.  The loop tests an entry, and after a match the last
	 * entry of the step decoded (of the next SLICE_STEP on a plain page),
	 * and takes the entries between (take_matching); the step after such a
	 * run tests its last entry first, which the run's last match bounds
	 * from the other side.  So a long range makes one comparator call a
	 * step (up to SLICE_STEP_MAX entries), not one an entry (the largest
	 * part of its per-tuple work once), and the step holding the range's
	 * end a binary search (last_match).
	 */
	convex = drv == NULL && so->nfilters == 0 && all_required(so);
	hints = batch_start(so, buf, vpage);
	if (so->view.compressed && slot >= 0 && slot < nitems)
	{
		int			c = Min(Max(so->slice, SLICE_FIRST),
						so->forward ? nitems - slot : slot + 1);

		/*
		 * A scan with an end bound (a range) returns every entry up to it:
		 * at least SLICE_RANGE entries a slice (the decoding below stops
		 * a little past the end anyway).
		 */
		if (so->slice_has_end && !so->slice_point)
			c = Min(Max(c, SLICE_RANGE), so->forward ? nitems - slot : slot + 1);

		end = so->forward ? slot + c : slot - c;
		room = c;
		if (c > SLICE_FIRST || !so->slice_point)
			sliced = true;
		so->slice = Min(Max(so->slice, SLICE_FIRST) * 2, SLICE_MAX);
	}

	/*
	 * Room for the items the loop can return: the page's, or a compressed
	 * page's slice.  Sizing for a compressed page's thousands of entries
	 * made every fresh scan (one per query in an OLTP lookup) reallocate
	 * both item arrays, about 30 kB each, for the one item it returns; and
	 * sizing for a plain page's or a range's slice (hundreds) made a short
	 * range's fresh scan reallocate them for its ten.  By-value items grow
	 * as the loop adds them (by-reference ones are sized for a page at
	 * beginscan: their keys' area must not move).
	 */
	if (so->ki.byref)
		ensure_batch_cap(so, room);
	last = so->forward ? Min(end, nitems) - 1 : Max(end, -1) + 1;
	for (i = slot; i >= 0 && i < nitems && i != end; i += step)
	{
		Datum		key;
		bool		gone;
		bool		after_run;
		bool		probed = false; /* keys of other slots read since key's */
		int			j;
		int			off = so->forward ? i - slot : slot - i;

		/*
		 * A dead or hinted entry is skipped before its key is even read (or
		 * decoded), as btree skips LP_DEAD items, but for the last slot the
		 * loop visits, whose key still says whether the scan went past its
		 * end: a run of dead entries there costs at most the rest of the
		 * page or slice.  Whole bytes of both bitmaps that are gone go 8
		 * entries a step (a queue read from its head walks over thousands).
		 */
		gone = ((dead[i >> 3] | (hints ? hints[i >> 3] : 0)) >> (i & 7)) & 1;
		if (gone && i != last)
		{
			i = skip_gone_bytes(page, &so->ki.layout, hints, i, last, so->forward) - step;
			continue;
		}

		/*
		 * A slice is decoded a step at a time (16, 32, 64, then 128
		 * entries), from the first entry the loop reads past what is
		 * decoded: a scan that ends early decodes little past its end, a
		 * long one makes few decoding calls, and runs of gone entries are
		 * not decoded.  The step's columns are indexed from step_lo, its
		 * lowest slot, in either direction.
		 */
		if (sliced && off >= decoded)
		{
			int			m = Min(stepsz, (so->forward ? end - i : i - end));
			int			lo = so->forward ? i : i - m + 1;
			ScanArrays *arr = scan_arrays(so);

			StaticAssertStmt(SLICE_FIRST <= SLICE_STEP_MAX, "the first step must fit the arrays");
			LearnedLeafDecodeRange(&so->view, lo, m, arr->step_keys, arr->step_blocks,
								   arr->step_offsets);
			step_lo = lo;
			decoded = off + m;
			stepsz = Min(stepsz * 2, SLICE_STEP_MAX);
			probe = so->forward ? lo + m - 1 : lo;
		}
		if (convex && known >= 0 && (so->forward ? i <= known : i >= known))
		{
			/* known to match: a key the batch does not keep is not read */
			key = (so->ki.byref && (!copy_keys || stride_copy)) ? (Datum) 0 :
				sliced ? LearnedLeafImageKey(&so->ki, so->arr->step_keys[i - step_lo]) :
				leaf_key(so, page, i);
			goto matched;
		}
		key = sliced ? LearnedLeafImageKey(&so->ki, so->arr->step_keys[i - step_lo]) :
			leaf_key(so, page, i);

		/* just past a run of matching entries: test the next step's end first */
		after_run = convex && known >= 0 && i == known + step && i != last;
		if (after_run)
		{
			probed = true;
			j = run_end(so, page, i, last, sliced, probe, step_lo, &failed);
			if (j < 0 && failed >= 0 && (so->forward ? failed > i : failed < i))
			{
				j = last_match(so, page, known, failed, sliced, step_lo);
				failed = j + step;
				if (j == known)
					j = -1;
			}
			if (j >= 0)
			{
				known = j;
				goto matched;
			}
		}

		if (drv)
		{
			int32		r = column_vs_value(so, key, drv->attno, &drv->cmp,
											drv->values[so->pos.interval], false);

			if (so->forward ? r > 0 : r < 0)
			{
				b->last = true;
				break;
			}
		}
		if (!key_matches(so, key))
		{
			if (past_end(so, key, so->forward))
			{
				b->last = true;
				break;
			}
			continue;
		}
		/*
		 * An equality's first match on a page read by random access (a
		 * point lookup): its next entry first, which usually ends the
		 * run; the probe for a longer run waits for a second match.
		 */
		if (convex && i != last && !after_run &&
			!(so->slice_point && !sliced && i == slot))
		{
			probed = true;
			j = run_end(so, page, i, last, sliced, probe, step_lo, &failed);
			if (j < 0 && failed >= 0 && (so->forward ? failed > i : failed < i))
			{
				j = last_match(so, page, i, failed, sliced, step_lo);
				failed = j + step;
			}
			if (j >= 0)
				known = j;
		}
matched:
		if (!gone)
		{
			if (b->nitems >= so->batch_cap)
				ensure_batch_cap(so, Min(b->nitems * 2, room));
			b->items[b->nitems].slot = (uint16) i;
			if (so->ki.byref && !copy_keys)
				b->items[b->nitems].key = (Datum) 0;
			else if (so->ki.byref)
			{
				Size		at;
				Size		sz;

				/*
				 * A key rebuilt from a page prefix lives in a small ring
				 * (LearnedLeafVarKey), which the probes above may have
				 * turned over: read it again to copy it.
				 */
				if (probed && !stride_copy)
					key = leaf_key(so, page, i);
				at = LearnedKeyIsVarwidth(&so->ki) ? MAXALIGN(b->keys_used) :
					(Size) b->nitems * so->ki.keylen;
				sz = stride_copy ? LearnedLeafStrideKeySize(&so->view) :
					LearnedKeySize(&so->ki, key);

				batch_key_space(b, at + sz);
				if (stride_copy)
				{
					LearnedLeafStrideKeyCopy(&so->view, &so->ki, i, b->keys + at);
					b->items[b->nitems].key = PointerGetDatum(b->keys + at);
				}
				else
					b->items[b->nitems].key = LearnedKeyCopy(&so->ki, key, b->keys + at);
				b->keys_used = at + sz;
			}
			else
				b->items[b->nitems].key = key;
			if (sliced)
				ItemPointerSet(&b->items[b->nitems].tid,
							   (BlockNumber) so->arr->step_blocks[i - step_lo],
							   (OffsetNumber) so->arr->step_offsets[i - step_lo]);
			else
				b->items[b->nitems].tid = LearnedLeafViewTid(&so->view, i);
			b->nitems++;
		}

		/* the rest of a run known to match, at once */
		if (convex && !so->ki.byref && known >= 0 && i != known &&
			(so->forward ? i < known : i > known))
		{
			take_matching(so, page, dead, hints, i + step, known, sliced, step_lo, room);
			i = known;
		}
	}
	/* a slice ended before the page or the interval did */
	if (!b->last && i >= 0 && i < nitems)
		b->resume = i;
	if (so->forward ? i >= nitems : i < 0)
		b->last = b->last || (so->forward ? vpage + 1 >= so->dir->nvpages : vpage == 0);
}

/* ---------- monotone point probes on compressed pages ---------- */

/*
 * An index nested loop whose outer keys come in key order probes one
 * compressed page many times in a row, each key a few entries past the
 * last one.  A positioning then decoded the same entries again at every
 * rescan: the page's run headers checked, a partition found and decoded
 * for the boundary, its neighbours and the TIDs of the entries returned.
 * Instead, an equality probe on a single-column compressed key that lands
 * on the page of the last boundary at or after it, or on the next page,
 * decodes NEAR_MAX entries of it from just before its boundary (keys and
 * TIDs, in one sequential pass: near_load), and the scan keeps them across
 * rescans; one that lands before the last boundary (descending probes), on
 * its page or the one before, a window that ends NEAR_AFTER entries past
 * its boundary.  The next probe (near_probe) searches that window: a key
 * image outside the page's first and last gives way to the positioning by
 * find_boundary; one in the window finds its boundary and its run of equal
 * keys there, and the page is only pinned and locked for its dead and hint
 * bits, its generation and entry count checked against the window's,
 * without opening its runs; an absent key (the window holds the next key
 * above it) reads no page at all.  A key on the page but past the window
 * (before it) opens the page and decodes the next window from its
 * boundary, found by galloping from the window's end (start).
 *
 * The images order exactly like the comparator (LearnedLeafBoundImage);
 * the comparator confirms the first entry of the run, or that the first
 * key above it is past the scan's end.  A new directory generation (a
 * merge) or relfilenode ends the window, as it ends the reuse of the last
 * boundary.
 */
#define NEAR_MISS		0		/* not decided: position as usual */
#define NEAR_EMPTY		1		/* no static entry equals the bound */
#define NEAR_FOUND		2		/* the batch holds the equal entries */

/* may a positioning of the scan by bound b use the window?  *x: its image */
static inline bool
near_eligible(LearnedScanOpaque so, const Bound *b, uint64 *x)
{
	return so->forward && b->point && !b->strict && b->nkeys == 1 && !b->isnull[0] &&
		so->driver == NULL && !LearnedKeyIsComposite(&so->ki) &&
		LearnedLeafBoundImage(&so->ki, b->values[0], b->types[0], x);
}

/*
 * Decode slots [lo, lo + NEAR_MAX) of compressed page vp (up to its end),
 * which the caller holds locked and open in so->view, into the window.
 */
static void
near_load(IndexScanDesc scan, uint32 vp, int lo)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	uint32		segno;
	LearnedSegment *seg = vpage_segment(so->dir, vp, &segno);
	int			n = Min(NEAR_MAX, so->view.nitems - lo);
	ScanArrays *arr = scan_arrays(so);

	Assert(so->view.compressed && lo >= 0 && n > 0);
	LearnedLeafDecodeRange(&so->view, lo, n, arr->near_keys, arr->near_blocks,
						   arr->near_offsets);
	if (!so->near_valid || so->near_vp != vp || so->near_gen != so->dir->generation ||
		so->near_relfile != LI_REL_FILE_NUMBER(scan->indexRelation))
	{
		LearnedLeafDecodeRange(&so->view, 0, 1, &so->near_first, NULL, NULL);
		LearnedLeafDecodeRange(&so->view, so->view.nitems - 1, 1, &so->near_last,
							   NULL, NULL);
	}
	so->near_valid = true;
	so->near_gen = so->dir->generation;
	so->near_relfile = LI_REL_FILE_NUMBER(scan->indexRelation);
	so->near_vp = vp;
	so->near_blk = seg->start_blk + (vp - so->dir->seg_first_vpage[segno]);
	so->near_page_gen = LearnedPageGetOpaque(so->view.page)->generation;
	so->near_nitems = so->view.nitems;
	so->near_lo = lo;
	so->near_n = n;
}

/*
 * In the window, from index from on (the key before it is below x): *sp,
 * the first entry whose image is at least x (near_n if none), and *tp, the
 * end of the run of entries equal to x from there.
 */
static void
near_search(LearnedScanOpaque so, uint64 x, int from, int *sp, int *tp)
{
	const uint64 *k = so->arr->near_keys;
	int			n = so->near_n;
	int			s = from;
	int			t;

	/* a few steps on, the boundary of the next ascending probe usually */
	while (s < n && s < from + 8 && k[s] < x)
		s++;
	if (s < n && k[s] < x)
	{
		int			hi = n;

		while (s < hi)
		{
			int			mid = s + (hi - s) / 2;

			if (k[mid] < x)
				s = mid + 1;
			else
				hi = mid;
		}
	}
	for (t = s; t < n && k[t] == x; t++)
		;
	*sp = s;
	*tp = t;
}

/*
 * Pin and share-lock the window's page, and check that it is the page the
 * window was decoded from: the same generation and entry count.  Returns
 * InvalidBuffer (the window dropped) if it is not.
 */
static Buffer
near_read(IndexScanDesc scan)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	Buffer		buf = pin_vpage(scan, so->near_vp, so->near_blk);
	Page		page = BufferGetPage(buf);
	LearnedPageOpaque op;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	TestForOldSnapshot(scan->xs_snapshot, scan->indexRelation, page);
	LearnedCheckPage(scan->indexRelation, page, so->near_blk, LEARNED_PAGE_LEAF);
	op = LearnedPageGetOpaque(page);
	if (op->generation != so->near_page_gen || op->nitems != so->near_nitems ||
		!(op->flags & LEARNED_LEAF_COMPRESSED))
	{
		UnlockReleaseBuffer(buf);
		so->near_valid = false;
		return InvalidBuffer;
	}
	return buf;
}

/*
 * The window's entries [s, t) all equal the bound: those not dead or
 * hinted on the locked page in buf go into the batch, which ends there.
 */
static void
near_take(IndexScanDesc scan, Buffer buf, int s, int t)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	Batch	   *b = &so->pos.batch;
	Page		page = BufferGetPage(buf);
	const uint8 *hints = batch_start(so, buf, so->near_vp);
	const uint8 *dead = (const uint8 *) page + LearnedLeafDeadOff(page, &so->ki.layout);
	int			i;

	if (t - s > so->batch_cap)
		ensure_batch_cap(so, t - s);
	for (i = s; i < t; i++)
	{
		int			slot = so->near_lo + i;
		BatchItem  *it;

		if (((dead[slot >> 3] | (hints ? hints[slot >> 3] : 0)) >> (slot & 7)) & 1)
			continue;
		it = &b->items[b->nitems++];
		it->key = LearnedLeafImageKey(&so->ki, so->arr->near_keys[i]);
		it->slot = (uint16) slot;
		ItemPointerSet(&it->tid, (BlockNumber) so->arr->near_blocks[i],
					   (OffsetNumber) so->arr->near_offsets[i]);
	}
	b->last = true;
}

/*
 * The window holds the boundary s and the whole run [s, t) of entries
 * equal to the bound (t < near_n): an empty run, or one whose first key
 * fails the scan's other conditions, is NEAR_EMPTY (every key of the run
 * is that key, every key after it is above the bound); else the run's
 * live entries fill the batch (NEAR_FOUND), from the page in buf, locked,
 * or read now.  The comparator confirms the first key.  NEAR_MISS leaves
 * a buffer the caller passed locked.
 */
static int
near_finish(IndexScanDesc scan, Buffer buf, int s, int t)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	Datum		key = LearnedLeafImageKey(&so->ki, so->arr->near_keys[s]);
	bool		passed = BufferIsValid(buf);

	/* a key above the bound that does not end the scan: not ours to decide */
	if (s == t && !past_end(so, key, true))
		return NEAR_MISS;
	if (s == t || !key_matches(so, key))
	{
		if (passed)
			UnlockReleaseBuffer(buf);
		found_boundary(scan, so->near_vp, so->near_lo + s, true);
		return NEAR_EMPTY;
	}
	if (!passed && !BufferIsValid(buf = near_read(scan)))
		return NEAR_MISS;
	near_take(scan, buf, s, t);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	found_boundary(scan, so->near_vp, so->near_lo + s, true);
	return NEAR_FOUND;
}

/*
 * Position an equality probe of image x in the window kept from the last
 * positionings (see above), if it can.
 */
static int
near_probe(IndexScanDesc scan, uint64 x)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	int			from = 1;
	int			s,
				t;
	int			r;
	Buffer		buf;

	if (!so->near_valid || so->near_gen != so->dir->generation ||
		so->near_relfile != LI_REL_FILE_NUMBER(scan->indexRelation) ||
		x > so->near_last)
		return NEAR_MISS;
	if (x <= so->arr->near_keys[0])
	{
		/*
		 * Before the window (descending probes): if the page's first key
		 * is below x, the boundary is on the page, before the window; the
		 * next window ends a few entries after it.
		 */
		int			e;
		int			lo;

		if (so->near_lo == 0 || x <= so->near_first ||
			!BufferIsValid(buf = near_read(scan)))
			return NEAR_MISS;
		(void) open_vpage(scan, so->near_vp, buf, true);
		e = lower_bound_gallop_back(&so->view, x, so->near_lo);
		lo = Max(e - NEAR_BEFORE, 0);
		near_load(scan, so->near_vp, lo);
		near_search(so, x, e - lo, &s, &t);
		if (t < so->near_n && (r = near_finish(scan, buf, s, t)) != NEAR_MISS)
			return r;
		UnlockReleaseBuffer(buf);
		return NEAR_MISS;
	}
	/* from the last boundary, if the window holds it and it is below x */
	if (so->last_valid && so->last_vp == so->near_vp)
	{
		int			l = so->last_slot - so->near_lo;

		if (l > 1 && l < so->near_n && so->arr->near_keys[l - 1] < x)
			from = l;
	}
	near_search(so, x, from, &s, &t);
	if (t < so->near_n)
		return near_finish(scan, InvalidBuffer, s, t);

	/*
	 * The window ends before the run does: decode on from the entry before
	 * the boundary (past the window: galloping on the page from its end).
	 * The page's last key is at least x, so the boundary is on it, but the
	 * run may go on to the next page.
	 */
	if (so->near_lo + so->near_n >= so->near_nitems ||
		!BufferIsValid(buf = near_read(scan)))
		return NEAR_MISS;
	(void) open_vpage(scan, so->near_vp, buf, true);
	if (s == so->near_n)
		s = lower_bound_gallop(&so->view, x, so->near_lo + so->near_n, so->near_nitems) -
			so->near_lo;
	near_load(scan, so->near_vp, so->near_lo + s - 1);
	near_search(so, x, 1, &s, &t);
	if (t < so->near_n && (r = near_finish(scan, buf, s, t)) != NEAR_MISS)
		return r;
	UnlockReleaseBuffer(buf);
	return NEAR_MISS;
}

/*
 * Position the static stream at the start of the current interval (the
 * whole key range if there is no driving array), in the scan direction.
 * Returns false if the interval has no entry in the index.
 */
static bool
position_interval(IndexScanDesc scan)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	LearnedDirectory *dir = so->dir;
	Bound		bound;
	bool		have;
	uint32		vp;
	int			slot = 0;
	Buffer		buf;
	int			n;
	int			c;

	/*
	 * One search per interval (each array element), whether or not the
	 * static stage has pages: EXPLAIN's "Index Searches" counts btree's
	 * descents the same way.
	 */
	LI_COUNT_INDEX_SEARCH(scan);
	if (dir->nvpages == 0)
		return false;

	/* forward: first entry past the bound; backward: the one before it */
	if (so->forward && so->pos.interval == 0 && so->bound_fwd != NULL &&
		so->bound_rescan == so->rescans)
	{
		bound = *so->bound_fwd;
		have = true;
	}
	else
		have = make_bound(so, so->pos.interval, so->forward, &bound);
	so->slice = SLICE_FIRST;
	so->slice_point = so->driver != NULL;
	/* a bound on the far side too: a range (the backward bound is the end) */
	so->slice_has_end = LearnedCompressKeyKind(&so->ki) != LEARNED_CKEY_NONE &&
		has_bound(so, !so->forward);
	for (c = 0; c < so->nconds && !so->slice_point; c++)
		so->slice_point = so->conds[c].attno == 0 &&
			so->conds[c].istrategy == BTEqualStrategyNumber &&
			so->conds[c].nulltest == 0;

	if (so->forward)
	{
		uint64		x;

		if (!have)
		{
			buf = read_vpage(scan, 0, &n);
			vp = 0;
		}
		else if (near_eligible(so, &bound, &x))
		{
			/* an equality probe: first in the kept window */
			bool		prev = so->last_valid && so->last_gen == dir->generation;
			uint32		prev_vp = so->last_vp;
			int			prev_slot = so->last_slot;
			int			s,
						t,
						r;

			/* NEAR_FOUND: the batch is filled; NEAR_EMPTY: no entry */
			if ((r = near_probe(scan, x)) != NEAR_MISS)
				return r == NEAR_FOUND;
			vp = find_boundary(scan, &bound, &slot, &buf);
			if (vp >= dir->nvpages)
				return false;
			n = LearnedPageGetOpaque(BufferGetPage(buf))->nitems;

			/*
			 * The boundary at or after the last one, on its page or the
			 * next (ascending probes): keep a window of the page from here;
			 * before it, on its page or the one before (descending
			 * probes): a window that ends a few entries after it.
			 */
			if (so->view.compressed && prev &&
				(vp == prev_vp || vp == prev_vp + 1 || vp + 1 == prev_vp))
			{
				bool		asc = vp == prev_vp ? slot >= prev_slot : vp == prev_vp + 1;
				int			lo = asc ? Max(slot - 1, 0) : Max(slot - NEAR_BEFORE, 0);

				near_load(scan, vp, lo);
				near_search(so, x, slot > 0 ? slot - lo : 0, &s, &t);
				if (t < so->near_n &&
					(r = near_finish(scan, buf, s, t)) != NEAR_MISS)
					return r == NEAR_FOUND;
			}
		}
		else
		{
			vp = find_boundary(scan, &bound, &slot, &buf);
			if (vp >= dir->nvpages)
				return false;
			n = LearnedPageGetOpaque(BufferGetPage(buf))->nitems;
		}
	}
	else
	{
		if (!have)
		{
			vp = dir->nvpages - 1;
			buf = read_vpage(scan, vp, &n);
			slot = n - 1;
		}
		else
		{
			/* the last entry before the boundary */
			vp = find_boundary(scan, &bound, &slot, &buf);
			if (vp < dir->nvpages && slot > 0)
			{
				slot--;
				n = LearnedPageGetOpaque(BufferGetPage(buf))->nitems;
			}
			else
			{
				if (BufferIsValid(buf))
					UnlockReleaseBuffer(buf);
				if (vp == 0)
					return false;
				vp--;
				buf = read_vpage(scan, vp, &n);
				slot = n - 1;
			}
		}
	}
	fill_batch(scan, buf, vp, n, slot);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	return true;
}

/*
 * Make the batch hold a next static item, or mark the static stream done.
 */
static void
static_advance(IndexScanDesc scan)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	ScanPos    *pos = &so->pos;
	Batch	   *b = &pos->batch;

	while (!pos->static_done && b->next >= b->nitems)
	{
		CHECK_FOR_INTERRUPTS();
		if (!BufferIsValid(b->buf))
		{
			/* not positioned in the current interval yet */
			if (!position_interval(scan))
				b->last = true, b->nitems = 0, b->next = 0;
			else
				continue;
		}
		if (b->last)
		{
			release_batch(so, b);
			/* next array value in scan order */
			if (so->driver && so->forward && pos->interval + 1 < so->driver->nvalues)
			{
				pos->interval++;
				b->last = false;
				continue;
			}
			if (so->driver && !so->forward && pos->interval > 0)
			{
				pos->interval--;
				b->last = false;
				continue;
			}
			pos->static_done = true;
			break;
		}
		else if (b->resume >= 0)
		{
			/* the next slice of a compressed page the batch kept pinned */
			Buffer		buf = b->buf;
			int			n;

			kill_items(so);
			reopen_vpage(scan, b->vpage, buf, &n);
			fill_batch(scan, buf, b->vpage, n, b->resume);
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}
		else
		{
			uint32		vp = so->forward ? b->vpage + 1 : b->vpage - 1;
			int			n;
			Buffer		buf;

			release_batch(so, b);
			buf = read_vpage(scan, vp, &n);
			fill_batch(scan, buf, vp, n, so->forward ? 0 : n - 1);
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}
	}
}

/* NULL pages: all TIDs, dead ones skipped, in page order */
static void
nulls_advance(IndexScanDesc scan)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	ScanPos    *pos = &so->pos;
	Batch	   *b = &pos->batch;
	LearnedLeafLayout nl;

	LearnedLeafLayoutInit(&nl, 0);
	while (!pos->static_done && b->next >= b->nitems)
	{
		uint32		pg;
		BlockNumber blkno;
		Buffer		buf;
		Page		page;
		int			n;
		int			i;
		const uint8 *hints;

		if (!BufferIsValid(b->buf))
		{
			/* entering the NULL area is a search of its own */
			LI_COUNT_INDEX_SEARCH(scan);
			pg = 0;
		}
		else
			pg = b->vpage + 1;
		release_batch(so, b);
		if (pg >= so->dir->nulls_npages)
		{
			pos->static_done = true;
			break;
		}
		blkno = so->dir->nulls_start + pg;
		buf = ReadBuffer(scan->indexRelation, blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		TestForOldSnapshot(scan->xs_snapshot, scan->indexRelation, page);
		LearnedCheckPage(scan->indexRelation, page, blkno, LEARNED_PAGE_NULLS);
		n = LearnedPageGetOpaque(page)->nitems;
		hints = batch_start(so, buf, pg);
		ensure_batch_cap(so, Min(n, nl.capacity));
		for (i = 0; i < n && i < nl.capacity; i++)
		{
			if (LearnedLeafIsDead(page, &nl, i) ||
				(hints && LearnedHintIsSet(hints, i)))
				continue;
			b->items[b->nitems].slot = (uint16) i;
			b->items[b->nitems].key = (Datum) 0;
			b->items[b->nitems].tid = *LearnedLeafTid(page, &nl, i);
			b->nitems++;
		}
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	}
}

/* ---------- the pending list ---------- */

/*
 * Does pending entry i satisfy past_bound(key, bound)?  For a single column
 * and a bound of the key's own type, the exact mapping orders like the
 * comparator and the test compares mapped keys (no fmgr call), from the
 * array's packed copy of them (both arrays of the pending copy have one).
 */
static inline bool
pending_past(LearnedScanOpaque so, const LearnedPendingEntry *arr,
			 const uint64 *mkeys, int i, const Bound *b, bool exact)
{
	if (exact)
		return b->strict ? mkeys[i] > b->hint : mkeys[i] >= b->hint;
	return past_bound(so, arr[i].key, b);
}

/*
 * First i in [0, n) with a[i] >= t (n if none), for sorted a.  Branch-free
 * (the comparison feeds a conditional move): a pending lookup runs a few
 * of these on random keys, where a branch per probe would be mispredicted
 * half of the time.
 */
static inline int
mkeys_lower_bound(const uint64 *a, int n, uint64 t)
{
	const uint64 *base = a;
	int			len = n;

	if (n <= 0)
		return 0;
	while (len > 1)
	{
		int			half = len / 2;

		base = (base[half - 1] < t) ? base + half : base;
		len -= half;
	}
	return (int) (base - a) + (*base < t);
}

/*
 * First i in [0, n) with mkeys[i] >= t, over top (every
 * LEARNED_PENDING_TOP_STRIDE-th of mkeys, or NULL) first.
 */
static inline int
mkeys_search(const uint64 *mkeys, const uint64 *top, int ntop, int n, uint64 t)
{
	int			j;
	int			lo;
	int			hi;

	if (top == NULL || ntop <= 1)
		return mkeys_lower_bound(mkeys, n, t);
	/* the first top entry >= t: the answer is in the stride before it */
	j = mkeys_lower_bound(top, ntop, t);
	if (j == 0)
		return 0;
	lo = (j - 1) * LEARNED_PENDING_TOP_STRIDE + 1;
	hi = Min(n, j * LEARNED_PENDING_TOP_STRIDE);
	return lo + mkeys_lower_bound(mkeys + lo, hi - lo, t);
}

/*
 * First index in [from, n) whose key satisfies past_bound(key, bound); the
 * caller knows that none before from does.
 *
 * From 0 with exact mapped keys (packed in mkeys) a branch-free binary
 * search, over top (every LEARNED_PENDING_TOP_STRIDE-th mapped key, when
 * the caller has it) first: top is small and shared by every lookup, so it
 * stays in cache, and the search then ends inside one stride of mkeys
 * instead of missing the cache on each of its last probes.  From further
 * on (the end of a lookup's run, whose start the caller found) a gallop,
 * since the answer is usually next to from.  Otherwise a binary search
 * that compares with the comparator.
 *
 * From 0 with a monotone but inexact image (approx: composite keys, whose
 * image packs the leading columns, and lossy types), the mapped keys first
 * narrow the search to the entries whose image equals the bound's: those
 * below it are not past the bound, those above are.  The comparator checks
 * both edges of that window, so an image that does not bracket the bound
 * (a bound of another type, a stale key map) costs the full search, never
 * an answer; inside the window it searches as above.  A composite primary
 * key's lookup compares a few entries instead of twenty.
 */
static int
pending_bound(LearnedScanOpaque so, const LearnedPendingEntry *arr,
			  const uint64 *mkeys, const uint64 *top, int ntop, int n,
			  int from, const Bound *b, bool exact, bool approx)
{
	int			lo = from,
				hi = n;

	if (from > 0)
	{
		int			step = 1;

		for (;;)
		{
			int			probe;

			if (lo >= n)
				return n;
			probe = Min(lo + step - 1, n - 1);
			if (pending_past(so, arr, mkeys, probe, b, exact))
			{
				hi = probe;
				break;
			}
			lo = probe + 1;
			step *= 2;
		}
	}
	else if (exact)
	{
		/* past the bound: m > hint (strict) or m >= hint, i.e. m >= t */
		if (b->strict && b->hint == PG_UINT64_MAX)
			return n;
		return mkeys_search(mkeys, top, ntop, n, b->strict ? b->hint + 1 : b->hint);
	}
	else if (approx && n > 0)
	{
		int			a = mkeys_search(mkeys, top, ntop, n, b->hint);
		int			z = a;
		int			step = 1;

		/* z: the first image above the bound's, galloping (usually a or a + 1) */
		while (z < n && mkeys[z] <= b->hint)
		{
			int			probe = Min(z + step, n) - 1;

			if (mkeys[probe] <= b->hint)
			{
				z = probe + 1;
				step *= 2;
			}
			else
			{
				z += mkeys_lower_bound(mkeys + z, probe - z, b->hint + 1);
				break;
			}
		}

		/* the first entry past the bound is in [a, z] if the edges agree */
		if ((a == 0 || !pending_past(so, arr, mkeys, a - 1, b, false)) &&
			(z == n || pending_past(so, arr, mkeys, z, b, false)))
		{
			lo = a;
			hi = z;
		}
	}
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (pending_past(so, arr, mkeys, mid, b, exact))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * A bound value of type valtype maps as a key of column type coltype does:
 * the same type, or integers of any width (int2, int4 and int8 values all
 * map to their value as an int64, which is what the cross-type comparators
 * compare).
 */
static inline bool
value_maps_as_key(Oid valtype, Oid coltype)
{
	return valtype == coltype ||
		(LearnedTypeIsInteger(valtype) && LearnedTypeIsInteger(coltype));
}

/*
 * Does the bound's image order it among the keys' images exactly, so that
 * the pending copy's mapped keys (and its filter) decide without the
 * comparator?  For a bound of the key's own type on an exact map, and for
 * any integer bound on an integer key (LearnedTypeIsInteger; the same rule
 * as LearnedLeafBoundImage's on compressed pages).  A lookup with an int4
 * parameter on an int8 column (WHERE k = $1 with an integer literal, or
 * k = 10 * $1) is common.
 */
static bool
bound_image_exact(LearnedScanOpaque so, const Bound *b)
{
	return LearnedKeyMapExact(&so->ki) && value_maps_as_key(b->types[0], so->ki.keytype);
}

/*
 * Is the bound one key (a lookup naming every key column, none NULL) whose
 * image is the image of every key it matches, so that the copy's filter
 * can rule it out?  Its values must be of the columns' own types (or
 * integers on integer columns, as in bound_image_exact), so that they map
 * as the keys do (a single string column's bound: once
 * pending_string_image gave it one).  For the inexact maps (composite
 * keys, lossy types, strings): bound_image_exact covers the exact ones.
 */
static bool
bound_is_key_image(LearnedScanOpaque so, const Bound *b)
{
	int			i;

	if (!b->point)
		return false;
	for (i = 0; i < b->nkeys; i++)
		if (b->isnull[i] || !value_maps_as_key(b->types[i], so->ki.cols[i].type))
			return false;
	return true;
}

/*
 * May the copy's filter rule out the interval from fwd to bwd, that is, is
 * it one key whose image (fwd->hint) is the image of every key it matches?
 * With an exact map, both bounds the same non-NULL value of the key's
 * type; otherwise a lookup naming every key column (bound_is_key_image).
 */
static bool
bounds_one_image(LearnedScanOpaque so, const Bound *fwd, bool exact_fwd,
				 const Bound *bwd, bool exact_bwd)
{
	if (exact_fwd && exact_bwd)
		return !fwd->strict && bwd->strict && fwd->hint == bwd->hint &&
			!fwd->isnull[0] && !bwd->isnull[0];
	return bound_is_key_image(so, fwd) && bound_is_key_image(so, bwd);
}

/*
 * Do the interval's bounds fix a composite key's leading columns by
 * equality, so that every key between them has those values?  A column
 * both bounds take from the same condition (or the driving array's value)
 * is an equality: a range condition bounds one direction only
 * (make_bound).  Then *p is the probe of the longest such prefix that the
 * runs' filters hold (LearnedKeyPrefixValues: short of the whole key, up
 * to the first column whose type does not map one to one).  Its
 * values must map as the columns' own (value_maps_as_key), as for
 * bound_is_key_image.
 */
static bool
bounds_fix_prefix(LearnedScanOpaque so, const Bound *fwd, const Bound *bwd,
				  LearnedRunFilterProbe *p)
{
	int			n = Min(Min(fwd->nkeys, bwd->nkeys), so->ki.nkeys - 1);
	uint64		pv[INDEX_MAX_KEYS];
	int			k;

	if (!LearnedKeyIsComposite(&so->ki))
		return false;
	for (k = 0; k < n; k++)
		if (fwd->isnull[k] || bwd->isnull[k] || fwd->cmps[k] != bwd->cmps[k] ||
			fwd->values[k] != bwd->values[k] ||
			!value_maps_as_key(fwd->types[k], so->ki.cols[k].type))
			break;
	/* the runs hold prefixes up to the first inexact column */
	if (k > 0)
		k = LearnedKeyPrefixValues(&so->ki, fwd->values, fwd->isnull, fwd->types, k, pv);
	if (k == 0)
		return false;
	LearnedRunFilterKey(pv[k - 1], p);
	return true;
}

/*
 * A single string column's bound carries no image: find_boundary makes
 * the segment-local images it needs.  The pending copy's images are the
 * key map's (LearnedKeyMap): give a non-NULL bound of the column's own
 * type that image, so that the copy's mapped keys can narrow its search
 * and its filter rule out a point lookup, instead of a binary search that
 * calls the collation's comparator at every probe.  Returns false (hint
 * left 0) for other bounds.
 */
static bool
pending_string_image(LearnedScanOpaque so, Bound *b)
{
	if (b->nkeys != 1 || b->isnull[0] || b->types[0] != so->ki.keytype)
		return false;
	b->hint = learned_map_value(&so->ki.cols[0], b->values[0], b->types[0]);
	return true;
}

/*
 * The run [lo, hi) of one sorted array of the pinned pending copy (n
 * entries, mkeys their packed mapped keys, top their stride samples or
 * NULL) that holds an interval's key range: from the first entry past fwd
 * to the first past bwd, a NULL bound being the array's end.  approx: the
 * keys' images are monotone but not exact (pending_bound).
 */
static void
pending_run(LearnedScanOpaque so, const LearnedPendingEntry *arr,
			const uint64 *mkeys, const uint64 *top, int ntop, int n,
			const Bound *fwd, bool exact_fwd, const Bound *bwd, bool exact_bwd,
			bool approx, int *lo, int *hi)
{
	*lo = fwd ? pending_bound(so, arr, mkeys, top, ntop, n, 0, fwd, exact_fwd,
							  approx) : 0;
	/* the run ends at or after its start */
	*hi = bwd ? pending_bound(so, arr, mkeys, NULL, 0, n, *lo, bwd, exact_bwd,
							  false) : n;
}

/* ---------- sorted runs ---------- */

/* see run_header */
#define SCAN_FILTER_COPY_AFTER	8


/*
 * run j's header, read at its first use: its lists only (a filter in the
 * header's room is then probed in place) until the scan has taken
 * SCAN_FILTER_COPY_AFTER views, the whole page from then on.
 */
static const LearnedRunHeader *
run_header(LearnedScanOpaque so, int j)
{
	ScanRun    *r = &so->runs[j];

	if (!r->hdr_valid)
	{
		if (r->hdr == NULL)
			r->hdr = MemoryContextAlloc(so->scanCxt, BLCKSZ);
		r->hdr_whole = so->nviews >= SCAN_FILTER_COPY_AFTER;
		LearnedRunReadHeaderCached(so->index, &r->info, r->hdr, !r->hdr_whole,
								   NULL, NULL, NULL);
		r->hdr_valid = true;
	}
	return LearnedPageGetRunHeader((Page) r->hdr);
}

/*
 * A point lookup's filter probe of run j, for mapped key mkey.  A filter
 * page is probed in the backend's copy of it, which LearnedRunMayContain
 * makes at the page's second probe in place (filter_cache_use: probes by
 * hash land on a large run's pages, most of them once while it is the
 * view's, and a copy costs a page's bytes where a probe in place costs a
 * pin), or in place: from the scan's second view on (a rescan loop, a
 * parked unique check) from the buffer the page was last read in
 * (LearnedRunFilterHints).  A single lookup keeps nothing of its own.
 */
static bool
run_may_contain(LearnedScanOpaque so, int j, const LearnedRunFilterProbe *p)
{
	ScanRun    *r = &so->runs[j];
	const LearnedRunHeader *h;
	uint32		off;
	int			fp;

	/* a header read now: a filter in its room is probed in the same visit */
	if (!r->hdr_valid && so->nviews < SCAN_FILTER_COPY_AFTER)
	{
		bool		probed;
		bool		may;

		if (r->hdr == NULL)
			r->hdr = MemoryContextAlloc(so->scanCxt, BLCKSZ);
		LearnedRunReadHeaderCached(so->index, &r->info, r->hdr, true, p, &probed, &may);
		r->hdr_whole = false;
		r->hdr_valid = true;
		if (probed)
			return may;
	}
	h = run_header(so, j);
	fp = LearnedRunFilterWhere(h, p, &off);
	if (fp == -2)
		return true;
	if (fp == -1 && !r->hdr_whole && so->nviews >= SCAN_FILTER_COPY_AFTER)
	{
		/* a rescan loop: copy the whole header once */
		LearnedRunReadHeaderCached(so->index, &r->info, r->hdr, false, NULL, NULL, NULL);
		r->hdr_whole = true;
	}
	if (fp == -1)
		return r->hdr_whole ? LearnedRunFilterBlockHas(r->hdr + off, p) :
			LearnedRunMayContain(so->index, r->hdr, &r->info, p, NULL);
	if (so->nviews < 2)
		return LearnedRunMayContain(so->index, r->hdr, &r->info, p, NULL);
	if (r->fhints == NULL)
	{
		r->fhints = MemoryContextAlloc(so->scanCxt, sizeof(LearnedRunFilterHints));
		LearnedRunFilterHintsInit(r->fhints);
	}
	return LearnedRunMayContain(so->index, r->hdr, &r->info, p, r->fhints);
}

/*
 * The entry of run j at rank, decoding its data page unless it is the one
 * decoded last.  The entry (and its key) stay valid until run j decodes
 * another page.
 */
static const LearnedPendingEntry *
run_entry(LearnedScanOpaque so, int j, int rank, uint64 *mkey, bool *dead)
{
	ScanRun    *r = &so->runs[j];
	int			i;

	if (r->page < 0 || rank < (int) r->page_rank || rank >= (int) r->page_rank + r->nloaded)
	{
		const LearnedRunHeader *h = run_header(so, j);
		int			pg = LearnedRunPageOf(h, (uint32) rank);

		int			n = (int) LearnedRunPageEntries(h, (uint32) pg);

		/*
		 * The page copy and the slot arrays are one allocation, whose arrays
		 * hold the page's entries, not a page's most (2,048 for packed
		 * pages, 60 kB of arrays): a lookup reads a page or two of each run,
		 * and its scan made them afresh, five mallocs a run.
		 */
		if (n > r->cap)
		{
			int			cap = Max(n, r->cap * 2);
			char	   *p;

			if (r->copy)
				pfree(r->copy);
			p = MemoryContextAlloc(so->scanCxt, BLCKSZ +
								   MAXALIGN(sizeof(LearnedPendingEntry) * cap) +
								   MAXALIGN(sizeof(uint64) * cap) +
								   MAXALIGN(sizeof(uint16) * cap) + sizeof(uint8) * cap);
			r->copy = p;
			p += BLCKSZ;
			r->ents = (LearnedPendingEntry *) p;
			p += MAXALIGN(sizeof(LearnedPendingEntry) * cap);
			r->mkeys = (uint64 *) p;
			p += MAXALIGN(sizeof(uint64) * cap);
			r->flags = (uint16 *) p;
			p += MAXALIGN(sizeof(uint16) * cap);
			r->have = (uint8 *) p;
			r->cap = cap;
		}
		r->page = -1;
		r->nloaded = LearnedRunLoadPage(so->index, &so->ki, &r->info, h, pg, r->copy);
		Assert(r->nloaded == n);
		memset(r->have, 0, sizeof(uint8) * r->nloaded);
		r->page = pg;
		r->page_rank = h->pages[pg].first_rank;
	}
	i = rank - (int) r->page_rank;
	if (r->have[i] == 0)
	{
		LearnedRunDecode(so->index, &so->ki, r->copy,
						 LearnedPageGetRunHeader((Page) r->hdr)->pages[r->page].blkno,
						 i, &r->ents[i], mkey ? &r->mkeys[i] : NULL, &r->flags[i], NULL);
		r->have[i] = mkey ? RUN_HAVE_ENTRY | RUN_HAVE_MKEY : RUN_HAVE_ENTRY;
	}
	else if (mkey && !(r->have[i] & RUN_HAVE_MKEY))
	{
		r->mkeys[i] = LearnedRunEntryMkey(&so->ki, &r->ents[i], r->flags[i]);
		r->have[i] |= RUN_HAVE_MKEY;
	}
	if (mkey)
		*mkey = r->mkeys[i];
	/* a hinted entry is skipped as a dead one, but in recovery */
	if (dead)
		*dead = (r->flags[i] & LEARNED_PENDING_DEAD) != 0 ||
			((r->flags[i] & LEARNED_PENDING_HINT) && !so->ignore_hints);
	return &r->ents[i];
}

/* does the entry of run j at rank satisfy past_bound(key, b)? */
static bool
run_past(LearnedScanOpaque so, int j, int rank, const Bound *b, bool exact)
{
	uint64		m;
	const LearnedPendingEntry *e = run_entry(so, j, rank, exact ? &m : NULL, NULL);

	if (exact)
		return b->strict ? m > b->hint : m >= b->hint;
	return past_bound(so, e->key, b);
}

/*
 * The first rank in [lo, hi) of run j past the bound, hi if none: a binary
 * search, the ranks below lo known not past it, hi past it or the end.
 */
static int
run_first_past(LearnedScanOpaque so, int j, const Bound *b, bool exact, int lo, int hi)
{
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (run_past(so, j, mid, b, exact))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * The first rank of run j's keys past the bound, when the first page whose
 * first entry is past it (P) is known to lie in [lo, hi] (hi past the last
 * page with a key when none is): a binary search over those pages' first
 * keys (their first mapped keys when the bound's image is exact), then
 * inside page P - 1.  *pg is set to P.
 */
static int
run_bound_pages(LearnedScanOpaque so, int j, const LearnedRunHeader *h, const Bound *b,
				bool exact, int lo, int hi, int npages, int *pg)
{
	int			nkeys = (int) so->runs[j].info.nkeys;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		bool		past;

		if (exact)
			past = b->strict ? h->pages[mid].first_mkey > b->hint :
				h->pages[mid].first_mkey >= b->hint;
		else
			past = run_past(so, j, (int) h->pages[mid].first_rank, b, false);
		if (past)
			hi = mid;
		else
			lo = mid + 1;
	}
	*pg = lo;
	if (lo == 0)
		return 0;
	/* the answer is in page lo - 1, or the first entry of page lo */
	hi = lo < npages ? (int) h->pages[lo].first_rank : nkeys;
	return run_first_past(so, j, b, exact, (int) h->pages[lo - 1].first_rank,
						  Min(hi, nkeys));
}

/*
 * The first rank of run j's keys past the bound (nkeys if none): over the
 * header's pages first, then inside the one page that holds it.
 */
static int
run_bound(LearnedScanOpaque so, int j, const Bound *b, bool exact)
{
	const LearnedRunHeader *h = run_header(so, j);
	int			nkeys = (int) so->runs[j].info.nkeys;
	int			npages;
	int			lo = 0;
	int			hi;
	int			z = -1;
	int			pg;
	int			res;

	if (nkeys == 0)
		return 0;
	/* the pages whose first entry has a key */
	for (npages = (int) h->npages; npages > 0 && (int) h->pages[npages - 1].first_rank >= nkeys; npages--)
		;
	hi = npages;

	/*
	 * A composite key's image orders keys only roughly (monotone, with
	 * ties), and a run is sorted by image first: the pages' first images
	 * narrow P to (a, z], a the first page whose first image is the
	 * bound's or above, z the first one above, when the first entries at
	 * those edges agree (as pending_bound does for the tail copy).  Page
	 * a - 1 is confirmed first: it is the page the answer is usually in,
	 * and the search finds it there without loading another page.  Page z
	 * is confirmed only if the answer is its first entry (z = -1 when no
	 * confirmation is owed).  So a bound usually loads one data page of a
	 * run, not one for each step of a binary search over its pages.
	 */
	if (!exact && LearnedKeyIsComposite(&so->ki) && npages > 1)
	{
		int			a = 0;

		while (a < hi)
		{
			int			mid = (a + hi) / 2;

			if (h->pages[mid].first_mkey >= b->hint)
				hi = mid;
			else
				a = mid + 1;
		}
		z = a;
		hi = npages;
		while (z < hi)
		{
			int			mid = (z + hi) / 2;

			if (h->pages[mid].first_mkey > b->hint)
				hi = mid;
			else
				z = mid + 1;
		}
		if (a == 0 || !run_past(so, j, (int) h->pages[a - 1].first_rank, b, false))
		{
			lo = a;
			hi = z;
		}
		else
		{
			hi = npages;
			z = -1;
		}
	}
	res = run_bound_pages(so, j, h, b, exact, lo, hi, npages, &pg);
	if (z >= 0 && z < npages && pg == z && res == (int) h->pages[z].first_rank &&
		!run_past(so, j, res, b, false))
	{
		/* the images disagree with the comparator: search every page */
		res = run_bound_pages(so, j, h, b, exact, 0, npages, npages, &pg);
	}
	return res;
}

/*
 * run_bound for a bound known not to be past any rank below from (the
 * scan's upper bound, from its lower bound's rank): a range's end is
 * usually a few entries after its start, on the data page that finding the
 * start left decoded, so a galloping search over that page's later entries
 * finds it with a few comparisons, and no header or page is read.  If no
 * entry of the page from from on is past the bound, the search starts over
 * (run_bound).
 */
static int
run_bound_from(LearnedScanOpaque so, int j, const Bound *b, bool exact, int from)
{
	ScanRun    *r = &so->runs[j];
	int			nkeys = (int) r->info.nkeys;
	int			end;
	int			lo;
	int			hi;
	int			step;

	if (from >= nkeys)
		return nkeys;
	if (r->page < 0 || from < (int) r->page_rank ||
		from >= (int) r->page_rank + r->nloaded)
		return run_bound(so, j, b, exact);
	end = Min((int) r->page_rank + r->nloaded, nkeys);
	/* ranks below lo are not past the bound; hi is, or is end */
	lo = from;
	hi = end;
	for (step = 1; lo < end; step *= 2)
	{
		int			probe = Min(lo + step - 1, end - 1);

		if (run_past(so, j, probe, b, exact))
		{
			hi = probe;
			break;
		}
		lo = probe + 1;
	}
	if (lo >= end)
		return end == nkeys ? nkeys : run_bound(so, j, b, exact);
	return run_first_past(so, j, b, exact, lo, hi);
}

/*
 * The NULL entry number idx of the runs (their NULLs in run order), or NULL
 * past the last.
 */
static const LearnedPendingEntry *
run_null(LearnedScanOpaque so, int idx, bool *dead)
{
	int			j;

	for (j = 0; j < so->nruns; j++)
	{
		int			nn = (int) (so->runs[j].info.nentries - so->runs[j].info.nkeys);

		if (idx < nn)
			return run_entry(so, j, (int) so->runs[j].info.nkeys + idx, NULL, dead);
		idx -= nn;
	}
	return NULL;
}

/*
 * Find each interval's runs in the pinned copy's main and recent arrays,
 * by binary search: a lookup costs O(log n), and nothing is copied.  Each
 * interval's bounds are made once for both arrays.  Intervals with no
 * entry in either are left out.
 */
static void
find_pending_ranges(LearnedScanOpaque so, const LearnedPendingCache *c)
{
	int			nintervals = so->driver ? so->driver->nvalues : 1;
	bool		local = LearnedKeyLocalImages(&so->ki);
	/* a monotone image of keys and bound that orders them only roughly */
	bool		approx = !LearnedKeyMapExact(&so->ki) && !local;
	int			v;

	if (nintervals > so->pranges_cap)
	{
		if (so->pranges)
			pfree(so->pranges);
		so->pranges = MemoryContextAlloc(so->scanCxt, sizeof(PendRange) * nintervals);
		so->pranges_cap = nintervals;
	}
	so->npranges = 0;
	for (v = 0; v < nintervals; v++)
	{
		Bound		fwd,
					bwd;
		bool		has_fwd = make_bound(so, v, true, &fwd);
		bool		has_bwd;
		bool		exact_fwd = has_fwd && bound_image_exact(so, &fwd);
		bool		exact_bwd;
		bool		approx_fwd = approx;
		PendRange  *r = &so->pranges[so->npranges];
		bool		one_image;
		LearnedRunFilterProbe probe;
		LearnedRunFilterProbe pprobe;
		bool		key_probe;
		bool		prefix;
		bool		any = false;
		int			j;

		if (has_fwd && fwd.point)
		{
			/*
			 * Every column equal to a value: the backward bound has the
			 * same values, statuses and image, and is strict
			 */
			bwd = fwd;
			bwd.strict = true;
			has_bwd = true;
		}
		else
			has_bwd = make_bound(so, v, false, &bwd);
		exact_bwd = has_bwd && bound_image_exact(so, &bwd);
		if (v == 0 && has_fwd)
		{
			if (so->bound_fwd == NULL)
				so->bound_fwd = MemoryContextAlloc(so->scanCxt, sizeof(Bound));
			*so->bound_fwd = fwd;
			so->bound_rescan = so->rescans;
		}

		if (local)
		{
			/* a bound without an image is not for the filter */
			approx_fwd = has_fwd && pending_string_image(so, &fwd);
			if (has_fwd && !approx_fwd)
				fwd.point = false;
			if (has_bwd && !pending_string_image(so, &bwd))
				bwd.point = false;
		}

		/*
		 * A point lookup (the whole single-column key equal to a value of its
		 * type, or every column of a composite key): the copy's filter may
		 * say that no entry of the copy has it.
		 */
		one_image = has_fwd && has_bwd &&
			bounds_one_image(so, &fwd, exact_fwd, &bwd, exact_bwd);
		/* the runs' filters take the whole key's value only from this map */
		key_probe = one_image && so->nruns > 0 && !so->map_stale && !so->no_filters;
		if (key_probe)
			LearnedRunFilterKey(LearnedKeyFilterValue(&so->ki, fwd.values, fwd.isnull,
													  fwd.types, fwd.status, fwd.hint),
								&probe);
		/*
		 * Not a whole key the runs' filters rule out, but leading columns
		 * fixed (an order's lines): the filters may rule out the runs
		 * without them.  Their values are exact columns' own images, which
		 * neither the key map's plan nor a collation library makes, so a
		 * stale map or collated images do not stop this probe.
		 */
		prefix = !key_probe && has_fwd && has_bwd && so->nruns > 0 &&
			bounds_fix_prefix(so, &fwd, &bwd, &pprobe);
		r->main_lo = r->main_hi = r->recent_lo = r->recent_hi = 0;
		if (c != NULL && !(one_image && !LearnedPendingMayContain(c, fwd.hint)))
		{
			pending_run(so, c->main, c->main_mkeys, c->main_top, c->ntop, c->nmain,
						has_fwd ? &fwd : NULL, exact_fwd, has_bwd ? &bwd : NULL, exact_bwd,
						approx_fwd, &r->main_lo, &r->main_hi);
			pending_run(so, c->recent, c->recent_mkeys, NULL, 0, c->nrecent,
						has_fwd ? &fwd : NULL, exact_fwd, has_bwd ? &bwd : NULL, exact_bwd,
						approx_fwd, &r->recent_lo, &r->recent_hi);
			any = r->main_lo < r->main_hi || r->recent_lo < r->recent_hi;
		}

		/*
		 * Each sorted run: a bound of an exact image outside the run's key
		 * range rules it out without reading its header.
		 */
		for (j = 0; j < so->nruns; j++)
		{
			const LearnedRunInfo *ri = &so->runs[j].info;

			r->run_lo[j] = r->run_hi[j] = 0;
			if (ri->nkeys == 0 ||
				(has_fwd && exact_fwd && !fwd.isnull[0] &&
				 (fwd.strict ? fwd.hint >= ri->max_mkey : fwd.hint > ri->max_mkey)) ||
				(has_bwd && exact_bwd && !bwd.isnull[0] &&
				 (bwd.strict ? bwd.hint < ri->min_mkey : bwd.hint <= ri->min_mkey)))
				continue;
			/* a lookup of one key: the run's filter may rule it out */
			if (key_probe && !run_may_contain(so, j, &probe))
				continue;
			if (prefix && !run_may_contain(so, j, &pprobe))
				continue;
			r->run_lo[j] = has_fwd ? run_bound(so, j, &fwd, exact_fwd) : 0;
			if (!has_bwd)
				r->run_hi[j] = (int) ri->nkeys;
			else if (has_fwd)
				r->run_hi[j] = run_bound_from(so, j, &bwd, exact_bwd, r->run_lo[j]);
			else
				r->run_hi[j] = run_bound(so, j, &bwd, exact_bwd);
			/* a sweep in progress merged the ranks below run_swept already */
			r->run_lo[j] = Max(r->run_lo[j], (int) LearnedRunSwept(&so->meta, j));
			r->run_hi[j] = Max(r->run_hi[j], r->run_lo[j]);
			if (r->run_lo[j] < r->run_hi[j])
				any = true;
		}
		if (any)
			so->npranges++;
	}
}

static void
pending_unpin_cb(void *arg)
{
	PendingPin *pin = (PendingPin *) arg;

	if (pin->cache)
		LearnedPendingRelease(pin->cache);
	pin->cache = NULL;
}

/*
 * Take the scan's view of the pending entries: pin the backend's sorted
 * copy, refreshed (no pending page is read unless entries were appended
 * since the last refresh), and find the runs that the scan's intervals
 * read.  The pin lasts until the rescan or the end of the scan (or the
 * abort that deletes its memory), through rescanCxt's reset callback.
 */
static void
load_pending(IndexScanDesc scan, bool meta_changed)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	const LearnedPendingCache *c;

	int			j;

	so->npranges = 0;

	/*
	 * An MVCC scan's rescan whose metapage did not change keeps the last
	 * view's pending entries: the copy it pinned and the run pages it
	 * copied.  What the copy lacks was appended after the last view, which
	 * followed the scan's snapshot, by transactions that commit after it
	 * (or by later commands of ours): invisible to the snapshot, as btree
	 * would return them only for the heap to reject them.  What changes
	 * the entries a view must hold changes the metapage: a flush,
	 * compaction, merge or sweep step (the run table, pending_merged), and
	 * VACUUM, which bumps pending_epoch after flagging pending entries dead
	 * and before their heap slots can be reused.  Other snapshots (a dirty
	 * snapshot's unique or exclusion check rescans after waiting for an
	 * inserter) read the tail again, as a fresh scan does.
	 */
	if (!meta_changed && so->pending_kept && IsMVCCSnapshot(scan->xs_snapshot))
	{
		c = pinned_copy(so);
		so->nruns = (int) so->meta.nruns;
		if (so->nviews < PG_UINT32_MAX)
			so->nviews++;
		if (so->want_keys && ((c && c->nmain + c->nrecent > 0) || so->nruns > 0))
			find_pending_ranges(so, c && c->nmain + c->nrecent > 0 ? c : NULL);
		return;
	}
	so->pending_kept = false;
	if (so->pin)
		pending_unpin_cb(so->pin);
	if (so->meta.pending_head == InvalidBlockNumber)
	{
		/* no pending page yet: the first append starts at pending_tail_seq */
		so->pending_seen = so->meta.pending_tail_seq;
		so->pending_kept = true;
		return;
	}

	/* the view's sorted runs: read in place, headers and pages on demand */
	/*
	 * A rescan (each probe of a nested loop) keeps the headers it read
	 * while the view's run is the same one (headers never change): the
	 * run table entry names it.  Data pages are read again (VACUUM may
	 * have flagged entries dead since).
	 */
	so->nruns = (int) so->meta.nruns;
	if (so->nviews < PG_UINT32_MAX)
		so->nviews++;
	if (so->nruns > so->runs_cap)
	{
		/*
		 * Room for the view's runs, not for LEARNED_MAX_RUNS: 2 kB zeroed
		 * for a lookup that reads two or three runs cost every fresh scan a
		 * block of its own.  A later view with more runs adds zeroed slots.
		 */
		int			cap = Max(so->nruns, 4);

		if (so->runs == NULL)
			so->runs = MemoryContextAllocZero(so->scanCxt, sizeof(ScanRun) * cap);
		else
		{
			so->runs = repalloc(so->runs, sizeof(ScanRun) * cap);
			memset(&so->runs[so->runs_cap], 0, sizeof(ScanRun) * (cap - so->runs_cap));
		}
		so->runs_cap = cap;
	}
	for (j = 0; j < so->nruns; j++)
	{
		ScanRun    *r = &so->runs[j];

		if (memcmp(&r->info, &so->meta.runs[j], sizeof(LearnedRunInfo)) != 0)
		{
			r->info = so->meta.runs[j];
			r->hdr_valid = false;
			if (r->fhints)
				LearnedRunFilterHintsInit(r->fhints);
		}
		r->page = -1;
	}

	{
		LearnedPendingCache *got = LearnedPendingGet(scan->indexRelation, &so->meta, &so->ki,
													 &so->pending_seen);

		c = NULL;
		if (got->nmain + got->nrecent + got->nnulls > 0)
		{
			if (so->pin == NULL)
			{
				so->pin = MemoryContextAllocZero(so->rescanCxt, sizeof(PendingPin));
				so->pin->cb.func = pending_unpin_cb;
				so->pin->cb.arg = so->pin;
				MemoryContextRegisterResetCallback(so->rescanCxt, &so->pin->cb);
			}
			LearnedPendingPin(got);
			so->pin->cache = got;
			c = got;
		}
	}
	so->pending_kept = true;
	if (so->want_keys && ((c && c->nmain + c->nrecent > 0) || so->nruns > 0))
		find_pending_ranges(so, c && c->nmain + c->nrecent > 0 ? c : NULL);
}

/*
 * Index-only and non-MVCC scans: before returning a pending entry, pin its
 * page and check that VACUUM has not marked it dead.  The pin is kept until
 * the next entry, so VACUUM (which cleanup-locks pending pages) cannot mark
 * it dead, and the heap slot be freed and set all-visible, while we use it.
 * An entry on the page pinned for the one before keeps that pin (a range's
 * entries of a run come a page at a time): a pinned buffer keeps its page.
 */
static bool
pending_entry_usable(IndexScanDesc scan, const LearnedPendingEntry *e)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	Buffer		buf;
	Page		page;
	uint64		first_seq;
	bool		ok = false;
	int			slot = e->slot & ~LEARNED_PENDING_SLOT_KILLED;

	if (so->npins == 1 && BufferGetBlockNumber(so->pins[0]) == e->blkno)
	{
		buf = so->pins[0];
		so->npins = 0;
	}
	else
	{
		release_pins(so);
		buf = ReadBuffer(scan->indexRelation, e->blkno);
	}
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	LearnedCheckPage(scan->indexRelation, page, e->blkno, LEARNED_PAGE_PENDING);
	first_seq = LearnedPendingFirstSeq(page);
	if ((uint32) (first_seq + slot) == e->seqlo &&
		slot < LearnedPendingCount(page, so->ki.keylen))
	{
		uint16		flags = LearnedPendingFlagsAt(page, so->ki.keylen, slot);
		ItemPointerData tid = LearnedPendingTidAt(page, so->ki.keylen, slot);

		if (!ItemPointerEquals(&tid, (ItemPointer) &e->tid))
		{
			/* not our entry any more: the page was recycled */
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			LearnedReportCorrupt(scan->indexRelation, e->blkno,
								 "pending entry moved");
		}
		/* dead: VACUUM removed it since we copied it; skip it */
		ok = !(flags & LEARNED_PENDING_DEAD);
	}
	else
	{
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		LearnedReportCorrupt(scan->indexRelation, e->blkno, "pending entry missing");
	}
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (so->pins == NULL)
		so->pins = MemoryContextAlloc(so->scanCxt, sizeof(Buffer));
	so->pins[0] = buf;
	so->npins = 1;
	return ok;
}

/*
 * Take the scan's view: metapage, directory, pending entries.
 */
static void
start_scan(IndexScanDesc scan)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	LearnedDirectory *last = so->dir;	/* the last view's, still referenced */
	bool		changed = false;
	bool		uses_map = LearnedKeyIsComposite(&so->ki) || LearnedKeyLocalImages(&so->ki);

	so->dir = NULL;

	/*
	 * The directory must be of the generation of the metapage we read: a
	 * merge flipping in between would make the loaded directory newer than
	 * our pending view, and entries would be returned twice.
	 */
	for (;;)
	{
		LearnedDirectory *dir;

		/*
		 * The scan keeps the metapage pinned from its first view to its end,
		 * and a rescan (each probe of a nested loop) copies the page again
		 * only if its LSN moved (LearnedReadMetaKept says why that is
		 * enough): a probe then costs the share lock, not a buffer lookup
		 * and the copy.  The first view starts from the buffer the last
		 * scan start of this backend found the metapage in (kept in
		 * rd_amcache, built by ambeginscan; only a hint, which
		 * ReadRecentBuffer checks).
		 */
		if (!BufferIsValid(so->meta_buf))
		{
			if (!BufferIsValid(so->meta_recent) && scan->indexRelation->rd_amcache)
				so->meta_recent = ((LearnedKeyInfo *) scan->indexRelation->rd_amcache)->meta_hint;
			so->meta_lsn = InvalidXLogRecPtr;
		}
		if (uses_map && so->meta_map == NULL)
			so->meta_map = MemoryContextAlloc(so->scanCxt, sizeof(LearnedKeyMapData));
		if (LearnedReadMetaKept(scan->indexRelation, &so->meta, &so->meta_buf,
								&so->meta_recent, &so->meta_lsn,
								uses_map ? so->meta_map : NULL))
		{
			changed = true;
			so->map_stale = uses_map &&
				memcmp(so->meta_map, &so->ki.map, sizeof(LearnedKeyMapData)) != 0;
		}
		if (scan->indexRelation->rd_amcache)
			((LearnedKeyInfo *) scan->indexRelation->rd_amcache)->meta_hint = so->meta_buf;

		/*
		 * A rescan in the generation of the last view (a nested loop's
		 * next probe, usually) keeps its directory, which our reference
		 * kept alive, without the cache's lookup.  The relation cannot
		 * get a new relfilenode while the scan holds its lock.
		 */
		if (last != NULL && last->generation == so->meta.generation)
		{
			so->dir = last;
			last = NULL;
			break;
		}
		dir = LearnedGetDirectory(scan->indexRelation, so->meta.generation);
		if (dir->generation == so->meta.generation)
		{
			/*
			 * The directory's key type is the metapage's, which
			 * LearnedCheckMeta matched against the index's column when the
			 * directory was loaded.
			 */
			so->dir = dir;
			so->dir->refcount++;
			break;
		}
		CHECK_FOR_INTERRUPTS();
	}
	if (last != NULL)
		LearnedReleaseDirectory(last);

	load_pending(scan, changed);
	so->started = true;
	pgstat_count_index_scan(scan->indexRelation);
}

void
learnedrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
			  ScanKey orderbys, int norderbys)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;

	reset_position(so);
	so->rescans++;
	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));
	preprocess_keys(scan);
	so->started = false;
	so->pending_seen = PG_UINT64_MAX;
	so->check_pending = scan->xs_want_itup || !IsMVCCSnapshot(scan->xs_snapshot);
}

/*
 * Start the pending stream at its k-th range, in physical direction.
 */
static void
pending_enter(LearnedScanOpaque so, int k)
{
	so->pos.pend_iv = k;
	so->pos.pend_pick = PICK_NONE;
	if (k < so->npranges)
	{
		const PendRange *r = &so->pranges[so->forward ? k : so->npranges - 1 - k];
		int			j;

		so->pos.pend_main = so->forward ? r->main_lo : r->main_hi - 1;
		so->pos.pend_recent = so->forward ? r->recent_lo : r->recent_hi - 1;
		for (j = 0; j < so->nruns; j++)
			so->pos.pend_run[j] = so->forward ? r->run_lo[j] : r->run_hi[j] - 1;
	}
}

/* the pending streams (keys and NULLs) from their start */
static void
pending_restart(LearnedScanOpaque so)
{
	pending_enter(so, 0);
	so->pos.pend_null = 0;
}

/* move past the entry of array pick (PICK_MAIN or PICK_RECENT) */
static void
pending_step(LearnedScanOpaque so, int pick)
{
	int			d = so->forward ? 1 : -1;

	if (pick == PICK_MAIN)
		so->pos.pend_main += d;
	else if (pick == PICK_RECENT)
		so->pos.pend_recent += d;
	else
		so->pos.pend_run[pick - PICK_RUN0] += d;
	so->pos.pend_pick = PICK_NONE;
}

/* did this backend find the copy entry's heap tuple dead to all? */
static inline bool
copy_entry_killed(LearnedScanOpaque so, const LearnedPendingEntry *e)
{
	return (e->slot & LEARNED_PENDING_SLOT_KILLED) && !so->ignore_hints;
}

/*
 * The pending stream's next matching entry with a key, or NULL: the nearer
 * (in physical direction) of the current range's next main and recent
 * entries, skipping those the scan's conditions reject.  Found once: the
 * choice stays in pos.pend_pick until pending_step moves past it, since
 * the merge with the static stream asks again after each static item.
 */
static const LearnedPendingEntry *
pending_next_entry(LearnedScanOpaque so)
{
	const LearnedPendingCache *c = pinned_copy(so);
	LearnedKeyOrder order = LearnedKeyOrderOf(&so->ki);
	int			d = so->forward ? 1 : -1;

	/*
	 * A run entry's image is computed when it is decoded, unlike the
	 * copy's.  A composite key's costs more than comparing the keys (its
	 * columns' statuses and packing: about 600 instructions for four int4
	 * columns, the comparison a sixth of that), and its images are
	 * monotone, so where they differ they order as the comparator does:
	 * the comparator alone then orders a run's entry against the others.
	 */
	bool		run_images = order == LEARNED_ORDER_EXACT ||
		!LearnedKeyIsComposite(&so->ki);
	LearnedKeyOrder run_order = run_images ? order : LEARNED_ORDER_COMPARATOR;

	while (so->pos.pend_pick == PICK_NONE)
	{
		const PendRange *r;
		int			mi = so->pos.pend_main;
		int			ri = so->pos.pend_recent;
		int			pick = PICK_NONE;
		const LearnedPendingEntry *best = NULL;
		uint64		bm = 0;
		int			j;

		if (so->pos.pend_iv >= so->npranges)
			return NULL;
		r = &so->pranges[so->forward ? so->pos.pend_iv : so->npranges - 1 - so->pos.pend_iv];
		if ((so->forward ? mi < r->main_hi : mi >= r->main_lo) &&
			copy_entry_killed(so, &c->main[mi]))
		{
			so->pos.pend_main += d;
			continue;
		}
		if ((so->forward ? ri < r->recent_hi : ri >= r->recent_lo) &&
			copy_entry_killed(so, &c->recent[ri]))
		{
			so->pos.pend_recent += d;
			continue;
		}
		if (so->forward ? mi < r->main_hi : mi >= r->main_lo)
		{
			pick = PICK_MAIN;
			best = &c->main[mi];
			bm = c->main_mkeys[mi];
		}
		if (so->forward ? ri < r->recent_hi : ri >= r->recent_lo)
		{
			const LearnedPendingEntry *e = &c->recent[ri];
			uint64		m = c->recent_mkeys[ri];
			int			cmp = best ? LearnedPendingOrder(&so->ki, order, e, m, best, bm) : 0;

			if (best == NULL || (so->forward ? cmp < 0 : cmp > 0))
			{
				pick = PICK_RECENT;
				best = e;
				bm = m;
			}
		}
		for (j = 0; j < so->nruns; j++)
		{
			int			rk = so->pos.pend_run[j];
			const LearnedPendingEntry *e;
			uint64		m;
			bool		dead;
			int			cmp;

			if (!(so->forward ? rk < r->run_hi[j] : rk >= r->run_lo[j]))
				continue;
			m = 0;
			e = run_entry(so, j, rk, run_images ? &m : NULL, &dead);
			if (dead)
			{
				/* VACUUM marked it: not an entry any more */
				so->pos.pend_run[j] += d;
				j--;
				continue;
			}
			cmp = best ? LearnedPendingOrder(&so->ki, run_order, e, m, best, bm) : 0;
			if (best == NULL || (so->forward ? cmp < 0 : cmp > 0))
			{
				pick = PICK_RUN0 + j;
				best = e;
				bm = m;
			}
		}
		if (best == NULL)
		{
			pending_enter(so, so->pos.pend_iv + 1);
			continue;
		}
		if (key_matches(so, best->key))
			so->pos.pend_pick = pick;
		else
			pending_step(so, pick);
	}
	if (so->pos.pend_pick == PICK_MAIN)
		return &c->main[so->pos.pend_main];
	if (so->pos.pend_pick == PICK_RECENT)
		return &c->recent[so->pos.pend_recent];
	return run_entry(so, so->pos.pend_pick - PICK_RUN0,
					 so->pos.pend_run[so->pos.pend_pick - PICK_RUN0], NULL, NULL);
}

/*
 * The next pending item in physical direction, or NULL.  NULL keys come in
 * the copy's order (appended), as the static NULL pages hold them in TID
 * order only within a page.
 */
static BatchItem *
pending_peek(LearnedScanOpaque so, bool nulls)
{
	const LearnedPendingCache *c = pinned_copy(so);
	const LearnedPendingEntry *e;

	if (nulls)
	{
		int			ncopy = c ? c->nnulls : 0;

		if (so->pos.pend_null < ncopy)
			e = &c->nulls[so->pos.pend_null];
		else
		{
			/* then the runs' NULLs, skipping those VACUUM marked dead */
			for (;;)
			{
				bool		dead;

				e = run_null(so, so->pos.pend_null - ncopy, &dead);
				if (e == NULL)
					return NULL;
				if (!dead)
					break;
				so->pos.pend_null++;
			}
		}
		so->pend_item.key = (Datum) 0;
	}
	else
	{
		e = pending_next_entry(so);
		if (e == NULL)
			return NULL;
		/* the pinned copy keeps the key until the scan's rescan or end */
		so->pend_item.key = e->key;
	}
	so->pend_item.tid = e->tid;
	so->pend_entry = e;
	return &so->pend_item;
}

/*
 * Set up the phases for a scan direction (logical, as the executor sees it).
 */
static void
init_iteration(IndexScanDesc scan, ScanDirection dir)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	bool		logical_forward = !ScanDirectionIsBackward(dir);
	int			k = 0;
	int			phases_fwd[2];

	so->forward = (logical_forward != so->desc);
	if (so->nulls_first)
	{
		if (so->want_nulls)
			phases_fwd[k++] = PHASE_NULLS;
		if (so->want_keys)
			phases_fwd[k++] = PHASE_KEYS;
	}
	else
	{
		if (so->want_keys)
			phases_fwd[k++] = PHASE_KEYS;
		if (so->want_nulls)
			phases_fwd[k++] = PHASE_NULLS;
	}
	so->nphases = k;
	if (logical_forward)
		memcpy(so->phases, phases_fwd, sizeof(int) * k);
	else
	{
		int			i;

		for (i = 0; i < k; i++)
			so->phases[i] = phases_fwd[k - 1 - i];
	}
	so->pos.phase_idx = 0;
	so->pos.interval = (so->driver && !so->forward) ? so->driver->nvalues - 1 : 0;
	so->pos.static_done = false;
	pending_restart(so);
	release_batch(so, &so->pos.batch);
	so->pos.batch.last = false;
}

/*
 * Keep the tuple just formed (no NULLs) as the template set_itup writes
 * later items' columns into, when every column has a fixed width: then the
 * tuple's layout, and where each column starts, never change.  The offsets
 * follow index_form_tuple's own placement (heap_fill_tuple aligns each
 * column's pointer nominally, from a MAXALIGNed tuple and data offset).
 */
static void
keep_itup_template(LearnedScanOpaque so, TupleDesc desc, IndexTuple itup)
{
	Size		sz = IndexTupleSize(itup);
	Size		off = IndexInfoFindDataOffset(itup->t_info);
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attlen <= 0)
		{
			so->itup_varies = true;
			return;
		}
		off = att_align_nominal(off, att->attalign);
		so->itup_offs[i] = (uint16) off;
		off += att->attlen;
	}
	if (off > sz)
		elog(ERROR, "learned index tuple of %zu bytes holds %zu bytes of columns",
			 sz, off);

	/*
	 * A composite key stores a fixed-width column as the value's bytes
	 * (learned_store_key; a bool as 0 or 1, as a tuple does), at the width
	 * of the column's type: a column of the tuple's width is copied over,
	 * without making its Datum.
	 */
	so->itup_bytes = LearnedKeyIsComposite(&so->ki);
	for (i = 0; i < desc->natts && so->itup_bytes; i++)
		so->itup_bytes = so->ki.cols[i].width == TupleDescAttr(desc, i)->attlen;
	so->itup_fixed = MemoryContextAlloc(so->scanCxt, sz);
	memcpy(so->itup_fixed, itup, sz);
}

/*
 * xs_itup of an index-only scan, for the item set_result returns.  An item
 * without NULLs whose columns all have a fixed width is written over the
 * template of the first such item (keep_itup_template): forming (and
 * freeing) a tuple per call was a fifth of a single-column index-only
 * range scan's CPU, and a quarter of a composite one's; btree returns a
 * pointer into the tuples it copied once per page.  The executor deforms
 * xs_itup before the next call, as it must with any AM.
 */
static void
set_itup(IndexScanDesc scan, BatchItem *item, bool isnull)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	TupleDesc	desc = RelationGetDescr(scan->indexRelation);
	Datum		values[INDEX_MAX_KEYS];
	bool		nulls[INDEX_MAX_KEYS];
	bool		anynull = false;
	int			i;
	MemoryContext old;

	if (so->itup_bytes && !LearnedKeyAnyNull(&so->ki, DatumGetPointer(item->key)))
	{
		const char *p = DatumGetPointer(item->key);

		for (i = 0; i < desc->natts; i++)
		{
			char	   *to = (char *) so->itup_fixed + so->itup_offs[i];
			const char *from = p + so->ki.cols[i].offset;

			/* a call of memcpy a column cost more than the copy */
			switch (so->ki.cols[i].width)
			{
				case 4:
					memcpy(to, from, 4);
					break;
				case 8:
					memcpy(to, from, 8);
					break;
				default:
					memcpy(to, from, so->ki.cols[i].width);
			}
		}
		scan->xs_itup = so->itup_fixed;
		return;
	}
	if (LearnedKeyIsComposite(&so->ki))
	{
		LearnedKeyDeform(&so->ki, item->key, values, nulls);
		for (i = 0; i < so->ki.natts; i++)
			anynull |= nulls[i];
	}
	else
	{
		values[0] = item->key;
		nulls[0] = anynull = isnull;
	}
	if (!anynull && so->itup_fixed != NULL)
	{
		for (i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);
			char	   *to = (char *) so->itup_fixed + so->itup_offs[i];

			if (att->attbyval)
				store_att_byval(to, values[i], att->attlen);
			else
				memcpy(to, DatumGetPointer(values[i]), att->attlen);
		}
		scan->xs_itup = so->itup_fixed;
		return;
	}

	if (so->tupCxt == NULL)
		so->tupCxt = AllocSetContextCreate(so->scanCxt, "learned index tuple",
										   ALLOCSET_SMALL_SIZES);
	else
		MemoryContextReset(so->tupCxt);
	old = MemoryContextSwitchTo(so->tupCxt);
	scan->xs_itup = index_form_tuple(desc, values, nulls);
	MemoryContextSwitchTo(old);
	if (!anynull && !so->itup_varies)
		keep_itup_template(so, desc, scan->xs_itup);
}

/* return item: its heap TID, and its index tuple to an index-only scan */
static inline void
set_result(IndexScanDesc scan, BatchItem *item, bool isnull)
{
	LearnedCheckHeapTid(scan->indexRelation, &item->tid);
	scan->xs_heaptid = item->tid;
	scan->xs_recheck = false;
	if (scan->xs_want_itup)
		set_itup(scan, item, isnull);
}

bool
learnedgettuple(IndexScanDesc scan, ScanDirection dir)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	Batch	   *cur = &so->pos.batch;

	if (!so->qual_ok)
		return false;
	if (scan->kill_prior_tuple)
		remember_kill(so);
	so->last_static = false;
	so->last_pend = NULL;
	if (!so->started)
	{
		start_scan(scan);
		init_iteration(scan, dir);
	}

	/*
	 * Most calls of a long scan: the key phase's batch holds a next item and
	 * the pending stream has nothing left (no range of it ahead, no entry
	 * picked), so the merge below would return that item; return it here,
	 * as btree returns its next item, without the merge's calls.
	 */
	if (cur->next < cur->nitems && so->pos.phase_idx < so->nphases &&
		so->phases[so->pos.phase_idx] == PHASE_KEYS && !so->pos.static_done &&
		so->pos.pend_pick == PICK_NONE && so->pos.pend_iv >= so->npranges)
	{
		so->last_static = true;
		set_result(scan, &cur->items[cur->next++], false);
		return true;
	}

	while (so->pos.phase_idx < so->nphases)
	{
		int			phase = so->phases[so->pos.phase_idx];
		Batch	   *b = &so->pos.batch;
		BatchItem  *s = NULL;
		BatchItem  *p;

		if (phase == PHASE_KEYS)
			static_advance(scan);
		else
			nulls_advance(scan);
		if (!so->pos.static_done && b->next < b->nitems)
			s = &b->items[b->next];
		p = pending_peek(so, phase == PHASE_NULLS);

		if (s == NULL && p == NULL)
		{
			/* this phase is over */
			so->pos.phase_idx++;
			so->pos.static_done = false;
			pending_restart(so);
			so->pos.interval = (so->driver && !so->forward) ? so->driver->nvalues - 1 : 0;
			release_batch(so, b);
			b->last = false;
			continue;
		}
		if (s && p && phase == PHASE_KEYS)
		{
			int32		r = LearnedKeyCmp(&so->ki, s->key, p->key);

			if (r == 0)
				r = ItemPointerCompare(&s->tid, &p->tid);
			if (!so->forward)
				r = -r;
			if (r > 0)
				s = NULL;
			else
				p = NULL;
		}
		else if (s && p)
			p = NULL;			/* NULLs: static first, then pending */

		if (s)
		{
			b->next++;
			so->last_static = true;
			set_result(scan, s, phase == PHASE_NULLS);
		}
		else
		{
			const LearnedPendingEntry *ref = so->pend_entry;
			int			pick = so->pos.pend_pick;

			if (phase == PHASE_NULLS)
				so->pos.pend_null++;
			else
				pending_step(so, pick);
			if (so->check_pending && !pending_entry_usable(scan, ref))
				continue;
			if (phase == PHASE_KEYS)
			{
				/* for kill_prior_tuple on the next call */
				so->last_pend = ref;
				so->last_pick = pick;
				if (pick >= PICK_RUN0)
					so->last_run_entry = *ref;
			}
			set_result(scan, p, phase == PHASE_NULLS);
		}
		return true;
	}
	return false;
}

/* add the matching entries of a run of the pinned pending copy */
static int64
pending_to_bitmap(Relation index, LearnedScanOpaque so, TIDBitmap *tbm,
				  const LearnedPendingEntry *arr, int lo, int hi)
{
	int64		n = 0;
	int			i;

	for (i = lo; i < hi; i++)
		if (!copy_entry_killed(so, &arr[i]) && key_matches(so, arr[i].key))
		{
			LearnedCheckHeapTid(index, (ItemPointer) &arr[i].tid);
			tbm_add_tuples(tbm, (ItemPointer) &arr[i].tid, 1, false);
			n++;
		}
	return n;
}

/*
 * Add every TID of the static stage's matching entries (keys or NULLs, as
 * the advance function walks them) to a bitmap, batch by batch.
 */
static int64
static_to_bitmap(IndexScanDesc scan, TIDBitmap *tbm,
				 void (*advance) (IndexScanDesc scan))
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	Batch	   *b = &so->pos.batch;
	int64		ntids = 0;

	so->pos.static_done = false;
	for (;;)
	{
		advance(scan);
		if (so->pos.static_done || b->next >= b->nitems)
			break;
		for (; b->next < b->nitems; b->next++)
		{
			LearnedCheckHeapTid(scan->indexRelation, &b->items[b->next].tid);
			tbm_add_tuples(tbm, &b->items[b->next].tid, 1, false);
			ntids++;
		}
	}
	release_batch(so, b);
	return ntids;
}

int64
learnedgetbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	const LearnedPendingCache *c;
	int64		ntids = 0;
	int			i;

	if (!so->qual_ok)
		return 0;
	start_scan(scan);
	c = pinned_copy(so);
	init_iteration(scan, ForwardScanDirection);
	/* physical order is all a bitmap needs, whatever the index's DESC */
	so->forward = true;
	so->pos.interval = 0;

	if (so->want_keys)
	{
		ntids += static_to_bitmap(scan, tbm, static_advance);
		for (i = 0; i < so->npranges; i++)
		{
			const PendRange *r = &so->pranges[i];
			int			j;

			if (c)
			{
				ntids += pending_to_bitmap(scan->indexRelation, so, tbm, c->main, r->main_lo, r->main_hi);
				ntids += pending_to_bitmap(scan->indexRelation, so, tbm, c->recent, r->recent_lo,
										   r->recent_hi);
			}
			for (j = 0; j < so->nruns; j++)
			{
				int			rk;

				for (rk = r->run_lo[j]; rk < r->run_hi[j]; rk++)
				{
					bool		dead;
					const LearnedPendingEntry *e = run_entry(so, j, rk, NULL, &dead);

					if (dead || !key_matches(so, e->key))
						continue;
					LearnedCheckHeapTid(scan->indexRelation, (ItemPointer) &e->tid);
					tbm_add_tuples(tbm, (ItemPointer) &e->tid, 1, false);
					ntids++;
				}
			}
		}
	}
	if (so->want_nulls)
	{
		ntids += static_to_bitmap(scan, tbm, nulls_advance);
		if (c)
		{
			for (i = 0; i < c->nnulls; i++)
			{
				LearnedCheckHeapTid(scan->indexRelation, &c->nulls[i].tid);
				tbm_add_tuples(tbm, &c->nulls[i].tid, 1, false);
			}
			ntids += c->nnulls;
		}
		for (i = 0;; i++)
		{
			bool		dead;
			const LearnedPendingEntry *e = run_null(so, i, &dead);

			if (e == NULL)
				break;
			if (dead)
				continue;
			LearnedCheckHeapTid(scan->indexRelation, (ItemPointer) &e->tid);
			tbm_add_tuples(tbm, (ItemPointer) &e->tid, 1, false);
			ntids++;
		}
	}
	release_pins(so);
	return ntids;
}

/*
 * A scan its owner keeps between uses (unique.c: a unique index's check, one
 * per row an INSERT brings, keeps one scan for the statement): between two
 * uses it holds no buffer pin and no directory, and does not count as open
 * (LearnedNoOpenScans: an inline merge of ours may then recycle pages at
 * once), as if it had ended.  It keeps its memory: its conditions (a rescan
 * of the same shape only takes new values), the pinned pending copy (a
 * backend-local copy, released by the next view or with the memory), the
 * run headers it copied (named by their run table entry, which the next
 * view compares, as any rescan's does).  The next use calls
 * LearnedScanUnpark, then amrescan, which takes a new view from the
 * metapage.
 */
void
LearnedScanPark(IndexScanDesc scan)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;

	reset_position(so);
	if (so->dir)
		LearnedReleaseDirectory(so->dir);
	so->dir = NULL;
	if (BufferIsValid(so->meta_buf))
		ReleaseBuffer(so->meta_buf);
	so->meta_buf = InvalidBuffer;
	so->started = false;
	LearnedScanClosed();
}

/*
 * Where a non-MVCC scan's view stopped reading the pending list, after its
 * first amgettuple: every entry below that sequence number it could return
 * was in its view.  PG_UINT64_MAX if the scan read no view.
 */
uint64
LearnedScanPendingSeen(IndexScanDesc scan)
{
	return ((LearnedScanOpaque) scan->opaque)->pending_seen;
}

/* the scan's key info: in the scan's memory, for as long as the scan */
LearnedKeyInfo *
LearnedScanKeyInfo(IndexScanDesc scan)
{
	return &((LearnedScanOpaque) scan->opaque)->ki;
}

void
LearnedScanUnpark(IndexScanDesc scan)
{
	scan->kill_prior_tuple = false;
	LearnedScanOpened();
}

/* the end of a scan: what a parked scan releases, then its memory */
void
learnedendscan(IndexScanDesc scan)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;

	LearnedScanPark(scan);
	MemoryContextDelete(so->scanCxt);
	scan->opaque = NULL;
}

/* copy a batch's items (and a composite key's bytes, re-pointed) */
static void
copy_batch_items(LearnedScanOpaque so, Batch *dst, const Batch *src)
{
	int			i;

	if (src->nitems <= 0)
		return;
	memcpy(dst->items, src->items, sizeof(BatchItem) * src->nitems);
	if (!so->ki.byref)
		return;
	if (src->keys_used > dst->keys_cap)
	{
		dst->keys_cap = src->keys_cap;
		dst->keys = repalloc(dst->keys, dst->keys_cap);
	}
	memcpy(dst->keys, src->keys, src->keys_used);
	dst->keys_used = src->keys_used;
	for (i = 0; i < src->nitems; i++)
		if (DatumGetPointer(src->items[i].key) != NULL)	/* NULL phase: none */
			dst->items[i].key = PointerGetDatum(dst->keys +
												((char *) DatumGetPointer(src->items[i].key) - src->keys));
}

/*
 * Mark: remember the position.  The batch items are copied and the page
 * re-pinned so that restoring never re-reads a page that VACUUM may have
 * changed meanwhile.
 */
void
learnedmarkpos(IndexScanDesc scan)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	BatchItem  *items;
	char	   *keys;
	Size		keys_cap;

	if (so->mark_valid)
		release_batch(so, &so->mark.batch);
	if (so->mark.batch.items == NULL && so->spare_items == NULL)
	{
		/* the first mark: make the second set of arrays */
		so->spare_items = MemoryContextAlloc(so->scanCxt, sizeof(BatchItem) * so->batch_cap);
		if (so->ki.byref)
		{
			so->spare_keys = MemoryContextAlloc(so->scanCxt, BATCH_KEY_INITIAL(&so->ki));
			so->spare_keys_cap = BATCH_KEY_INITIAL(&so->ki);
		}
	}
	items = so->mark.batch.items ? so->mark.batch.items : so->spare_items;
	keys = so->mark.batch.items ? so->mark.batch.keys : so->spare_keys;
	keys_cap = so->mark.batch.items ? so->mark.batch.keys_cap : so->spare_keys_cap;
	so->mark = so->pos;
	so->mark.batch.items = items;
	so->mark.batch.keys = keys;
	so->mark.batch.keys_cap = keys_cap;
	copy_batch_items(so, &so->mark.batch, &so->pos.batch);
	if (BufferIsValid(so->pos.batch.buf))
		IncrBufferRefCount(so->pos.batch.buf);
	so->mark_valid = true;
}

void
learnedrestrpos(IndexScanDesc scan)
{
	LearnedScanOpaque so = (LearnedScanOpaque) scan->opaque;
	BatchItem  *items;
	char	   *keys;
	Size		keys_cap;

	if (!so->mark_valid)
		elog(ERROR, "learned index: restore without a marked position");
	release_batch(so, &so->pos.batch);
	items = so->pos.batch.items;
	keys = so->pos.batch.keys;
	keys_cap = so->pos.batch.keys_cap;
	so->pos = so->mark;
	so->pos.batch.items = items;
	so->pos.batch.keys = keys;
	so->pos.batch.keys_cap = keys_cap;
	copy_batch_items(so, &so->pos.batch, &so->mark.batch);
	if (BufferIsValid(so->pos.batch.buf))
		IncrBufferRefCount(so->pos.batch.buf);
}
