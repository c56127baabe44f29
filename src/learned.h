/*
 * learned.h
 *		On-disk structures, constants and prototypes of the "learned" index AM.
 *
 * See docs/architecture.md for the page formats and the locking order.  Any
 * change to a struct marked ON-DISK below must bump LEARNED_VERSION.
 */
#ifndef LEARNED_H
#define LEARNED_H

#include "postgres.h"

#include "access/amapi.h"
#include "access/generic_xlog.h"
#include "access/itup.h"
#include "access/relscan.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "nodes/tidbitmap.h"
#include "storage/bufmgr.h"
#include "storage/itemptr.h"
#include "storage/lockdefs.h"
#include "utils/relcache.h"

#include "compat.h"

#include "keypack.h"
#include "leafcodec.h"
#include "leco.h"
#include "pla.h"

/* ---------- constants ---------- */

#define LEARNED_MAGIC			0x4C524E44	/* "LRND" */
/*
 * 1: plain LearnedSegment/LearnedPiece arrays in the directory, one key column.
 * 2: LeCo-compressed directory columns and zone-map segments (directory.c);
 *    the metapage carries the key map (LearnedKeyMapData) after
 *    LearnedMetaPageData, and keys may be composite (several columns).
 * 3: compressed leaf pages (leaf.c, leafcodec.h): the page opaque's flags,
 *    and a per-segment page capacity column in the directory.
 * 4: variable-width leaf pages (offsets array, page prefix) and pending
 *    records, for string, numeric and every composite key; the key map's
 *    string prefix; a segment's string skip in the directory's kind column.
 * 5: stride pages (LEARNED_LEAF_STRIDE: equal-size keys after the page
 *    prefix, no offsets), also for the packed segments of a fixed-width
 *    by-reference key such as uuid (the kind column's bit 48).
 */
/*
 * 9: one pending record layout: flags, TID, key bytes, a page's record
 *    count its used slots (LearnedPendingCount), and every key of 1 to 8
 *    bytes but slot 0's stored XORed with slot 0's; the merge statistics
 *    always follow the key map.  Formats 5 to 8 (other record layouts,
 *    counts in nitems, metapages without the statistics) are refused with
 *    a REINDEX hint, like every older one.
 * 10: a sorted run's filter is a blocked Bloom filter, in its header page
 *    or in filter pages of its own (LEARNED_PAGE_RUNFILTER) that the header
 *    lists (LearnedRunHeader.nfilter).
 * 11: a sorted run's data pages of a by-value key of 1 to 8 bytes are
 *    packed (LEARNED_PENDING_PAGE_PACKED, LearnedPackedHeader).
 * 12: a sorted run's filter hashes a composite key's filter value
 *    (LearnedKeyFilterValue: its column values mixed in when its image is
 *    shared), not only its image.
 * 13: a sorted run's filter of a composite key also holds its keys'
 *    leading columns (LearnedKeyPrefixValues).
 */
#define LEARNED_VERSION			13

#define LEARNED_METAPAGE_BLKNO	0

/* last two bytes of every page, like other index AMs' page ids */
#define LEARNED_PAGE_ID			0xFF9A

/* page types (LearnedPageOpaque.type) */
#define LEARNED_PAGE_META		1
#define LEARNED_PAGE_LEAF		2	/* static stage: dense sorted (key, tid) */
#define LEARNED_PAGE_NULLS		3	/* static stage: TIDs of NULL keys */
#define LEARNED_PAGE_DIR		4	/* segment directory */
#define LEARNED_PAGE_PENDING	5	/* pending list: unsorted appended entries */
#define LEARNED_PAGE_FREE		6	/* unreachable, recorded in the FSM */
#define LEARNED_PAGE_RUNHDR		7	/* a sorted run's header (run.c) */
#define LEARNED_PAGE_RUNFILTER	8	/* a page of a sorted run's filter (run.c) */

/* heavyweight lock on this pseudo page serialises merges, VACUUM and GC */
#define LEARNED_MERGE_LOCK		0

/*
 * Held in share mode by an inserter that waits for the merge lock with no
 * learned index scan open (merge.c, far_over_merge): a backend holding it
 * reads no page of the index, so a flip witness need not wait for it.
 */
#define LEARNED_NOSCAN_LOCK		1

/*
 * Held (session lock) by the merge worker of the index while it may still
 * look at the list again (merge.c, learned_merge_worker_main).
 */
#define LEARNED_WORKER_LOCK		2

/*
 * pending_limit reloption and GUC, in kB.  12 MB is about 786k int8 entries
 * (16 bytes a record), whose per-backend sorted copy takes about 27 MB (35
 * bytes an entry): what 4 MB, the earlier default, cost before the copy was
 * compacted.  On a 10M-row index it makes a random-key merge, which rewrites
 * nearly every leaf page, three times rarer (bench/RESULTS_DYNAMIC.md).
 */
#define LEARNED_DEFAULT_PENDING_LIMIT	12288
#define LEARNED_MIN_PENDING_LIMIT	64
#define LEARNED_MAX_PENDING_LIMIT	(INT_MAX / 1024)

/* error_bound reloption */
#define LEARNED_DEFAULT_ERROR_BOUND	32
#define LEARNED_MIN_ERROR_BOUND		1
#define LEARNED_MAX_ERROR_BOUND		65536

/*
 * The merge trigger's floor: the pending list merges once it holds at
 * least this many entries and more than static entries / merge_ratio
 * (merge.c), so a tiny index does not merge for every insert, and one
 * created on an empty table merges at the floor.
 */
#define LEARNED_MERGE_MIN_PENDING	1024
/*
 * Merges of one index start at most this often from its inserts (a
 * backend asks for a worker at most once per interval) and from its worker
 * (which pauses that long between merges of a steady stream).
 */
#define LEARNED_MERGE_INTERVAL_MS	1000

/* merge_ratio reloption (used by the dynamic stage) */
#define LEARNED_DEFAULT_MERGE_RATIO	10.0
#define LEARNED_MIN_MERGE_RATIO		1.0
#define LEARNED_MAX_MERGE_RATIO		100000.0

/*
 * Segments are capped in pages, so that a later merge rewrites bounded runs.
 */
#define LEARNED_SEGMENT_MAX_PAGES	128

/*
 * A merge's segment that fits in no hole of the file is cut to the largest
 * hole instead of extending the file, if that hole has at least this many
 * pages (LearnedFitPages): below it, the cut would leave slivers.
 */
#define LEARNED_FIT_MIN_PAGES	16

/*
 * VACUUM's relocation (which moves segments down so that the file's free
 * end can be cut) cuts them to holes of at least this many pages: free
 * pages are scattered in short holes by then, and a segment that fits in
 * none of LEARNED_FIT_MIN_PAGES stays at the end.
 */
#define LEARNED_RELOCATE_MIN_PAGES	4

/*
 * A merge whose new keys routed to a segment all sort at or after its last
 * key keeps that segment's pages and writes the keys as new segment(s)
 * after it, if the segment has at least this many pages; a smaller one is
 * rewritten with them, so tails coalesce (merge.c, append path).
 */
#define LEARNED_APPEND_KEEP_MIN_PAGES	(LEARNED_SEGMENT_MAX_PAGES / 2)

/*
 * A merge keeps the pages of a model segment that its new entries do not
 * reach, in runs of at least this many pages, as segments of their own,
 * and rewrites only the rest (merge.c, partial_rewrite).
 */
#define LEARNED_PARTIAL_KEEP_PAGES	16

/*
 * Fewest new entries of a rewritten segment, all between two neighbouring
 * old ones, that make the merge end a segment right after them (merge.c,
 * append_point): a place where keys grow.
 */
#define LEARNED_APPEND_POINT_MIN	256

/* VACUUM rewrites a segment once this fraction of its entries is dead */
#define LEARNED_REWRITE_DEAD_FRACTION	0.2

/* progress reporting sub-phases of CREATE INDEX */
#define LEARNED_PHASE_SCAN		2
#define LEARNED_PHASE_SORT		3
#define LEARNED_PHASE_LOAD		4
#define LEARNED_PHASE_TRAIN		5

/* ---------- reloptions ---------- */

typedef struct LearnedOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly) */
	int			error_bound;	/* frozen into the metapage at build */
	double		merge_ratio;	/* read live */
	int			pending_limit;	/* kB; -1: use learned_idx.pending_limit */
	int			mode;			/* LEARNED_MODE_*: read at build and each merge */
	int			compression;	/* LEARNED_COMPRESSION_*: likewise */
	bool		vacuum_truncate;	/* VACUUM may cut a free tail: read live */
} LearnedOptions;

/* compression reloption */
#define LEARNED_COMPRESSION_OFF		0
#define LEARNED_COMPRESSION_ON		1
#define LEARNED_DEFAULT_COMPRESSION	LEARNED_COMPRESSION_ON

/* ---------- page special space (ON-DISK) ---------- */

typedef struct LearnedPageOpaqueData
{
	uint16		type;			/* LEARNED_PAGE_* */
	uint16		nitems;			/* entries on a leaf/nulls/pending page */
	uint32		generation;		/* directory generation that wrote it */
	BlockNumber next;			/* pending/dir chain link, or InvalidBlockNumber */
	uint16		flags;			/* LEARNED_LEAF_COMPRESSED, else 0 */
	uint16		page_id;		/* LEARNED_PAGE_ID */
} LearnedPageOpaqueData;

/* a leaf page in the compressed format (leaf.c, leafcodec.h) */
#define LEARNED_LEAF_COMPRESSED	0x0001
/* a leaf page of variable-width keys (leaf.c: bitmap, TIDs, offsets, keys) */
#define LEARNED_LEAF_VARWIDTH	0x0002
/* ... whose keys are stored after the page's common prefix (leaf.c) */
#define LEARNED_LEAF_PREFIX		0x0004
/*
 * ... whose keys all have the same size: no offsets, every key's suffix
 * after the page prefix (maybe empty) has the same width (leaf.c)
 */
#define LEARNED_LEAF_STRIDE		0x0008
/*
 * A leaf or NULL page with a hint bitmap (kill_prior_tuple): n bits, to 8
 * bytes, at the end of the data area, between pd_upper and the special
 * space.  See LearnedLeafHints.
 */
#define LEARNED_LEAF_HINTS		0x0010

/*
 * keylen of an index whose stored keys vary in size (a text, bytea or
 * numeric column, or a composite key or INCLUDE list with one)
 */
#define LEARNED_VARWIDTH		(-1)

/*
 * Entries a variable-width leaf page can hold at most (each takes at least
 * a TID, an offset and one key byte); the metapage's items_per_page of a
 * variable-width index, whose segments each have their own P.
 */
#define LEARNED_VW_MAX_ITEMS	1024

/*
 * The largest stored entry, counted as btree counts an index tuple
 * (MAXALIGN(8-byte header + key bytes)): btree's limit for 8 kB pages,
 * so a key btree accepts fits, and a longer one gets the same kind of error.
 */
#define LEARNED_MAX_ENTRY_SIZE	2704

typedef LearnedPageOpaqueData *LearnedPageOpaque;

#define LearnedPageGetOpaque(page) \
	((LearnedPageOpaque) PageGetSpecialPointer(page))

/* ---------- metapage (ON-DISK) ---------- */

/*
 * Sorted runs (run.c): the pending chain is a sequence of sorted runs
 * followed by the unsorted tail.  A run is a stretch of the chain whose
 * pending pages hold the entries of one sequence range sorted by (key,
 * TID), NULL keys last, plus a header page (LEARNED_PAGE_RUNHDR) with each
 * data page's block, first rank and first mapped key.  Its pages are
 * allocated one by one, so a run reuses scattered free pages.  An entry's rank is its place in the run: ranks [0, nkeys) hold
 * keys, [nkeys, nentries) NULLs.
 */
#define LEARNED_MAX_RUNS		16
/* learned_idx.tail_limit: entries of the unsorted tail before a flush */
#define LEARNED_DEFAULT_TAIL_LIMIT	4096

typedef struct LearnedRunInfo
{
	BlockNumber first_blk;		/* first data page */
	BlockNumber last_blk;		/* last data page (links to the next run) */
	BlockNumber hdr_blk;		/* its header page */
	uint32		npages;			/* data pages */
	uint32		tier;			/* compactions its entries went through */
	uint64		first_seq;		/* its entries' sequence numbers: */
	uint32		nentries;		/* [first_seq, first_seq + nentries) */
	uint32		nkeys;			/* entries with a key (the rest are NULL) */
	uint64		min_mkey;		/* mapped keys of its first and last keys */
	uint64		max_mkey;
} LearnedRunInfo;

typedef struct LearnedMetaPageData
{
	uint32		magic;
	uint32		version;

	/* frozen at build */
	Oid			keytype;		/* opcintype of the (first) key column */
	int16		keylen;			/* bytes per stored key: 2, 4 or 8; composite: see key map */
	uint16		items_per_page; /* plain leaf capacity (segments: see directory) */
	int32		error_bound;	/* epsilon, in items */

	/* static stage */
	uint32		generation;		/* bumped by every rewrite of the directory */
	uint32		nsegments;		/* key segments (the NULL segment excluded) */
	uint32		npieces;		/* PLA pieces over all segments */
	BlockNumber dir_start;		/* first directory page */
	uint32		dir_npages;		/* directory pages, contiguous */
	uint64		nstatic;		/* non-NULL static entries (dead included) */
	BlockNumber nulls_start;	/* first NULL page, contiguous run */
	uint32		nulls_npages;
	uint64		nnulls;			/* static NULL entries */

	/* pending list (dynamic stage) */
	BlockNumber pending_head;	/* InvalidBlockNumber if empty */
	BlockNumber pending_tail;
	uint64		pending_tail_seq;	/* first sequence number of the tail page */
	uint64		pending_merged; /* entries with seq below this are merged */
	uint32		pending_epoch;	/* bumped when merged or dead-marked */
	uint32		pending_pages;	/* pages in the chain */

	/* merges */
	uint64		nmerges;
	int64		last_merge_time;	/* TimestampTz, 0 if never */
	uint64		last_flip_xid;	/* next FullTransactionId at the last flip */

	/* build statistics, for learned_index_info */
	double		mean_error;		/* mean measured window half-width */
	int32		max_error;
	int64		build_time_us;	/* CREATE INDEX wall time of the static stage */

	/*
	 * Sorted runs, oldest first: entries in [pending_merged, runs_end_seq)
	 * are in runs, the chain from tail_first_blk on is the unsorted tail
	 * (nruns 0: the whole chain is tail, and the two fields are unused).
	 */
	uint32		nruns;
	BlockNumber tail_first_blk;
	uint64		runs_end_seq;
	uint64		nflushes;		/* flushes and compactions since the build */
	LearnedRunInfo runs[LEARNED_MAX_RUNS];

	/*
	 * A swept main merge in progress (merge.c, sweep_step): the runs with
	 * first_seq below sweep_end_seq (0: no sweep) are being merged into the
	 * static stage segment group by segment group, in key order.  Segments
	 * before sweep_seg hold every entry of those runs that sorts before
	 * segment sweep_seg's first key: ranks [0, run_swept[j]) of run j.  Those
	 * ranks are in the static stage, not in the run, for every reader.
	 */
	uint64		sweep_end_seq;
	uint32		sweep_seg;
	uint32		run_swept[LEARNED_MAX_RUNS];
} LearnedMetaPageData;

/* key ranks of run j that a sweep already merged (readers start past them) */
static inline uint32
LearnedRunSwept(const LearnedMetaPageData *meta, uint32 j)
{
	return meta->runs[j].first_seq < meta->sweep_end_seq ? meta->run_swept[j] : 0;
}

/* is the pending entry of sequence number seq one a sweep already merged? */
static inline bool
LearnedSeqSwept(const LearnedMetaPageData *meta, uint64 seq)
{
	uint32		j;

	for (j = 0; j < meta->nruns && meta->runs[j].first_seq < meta->sweep_end_seq; j++)
		if (seq >= meta->runs[j].first_seq && seq < meta->runs[j].first_seq + meta->run_swept[j])
			return true;
	return false;
}

/* how many of the oldest runs a sweep in progress merges (0: none) */
static inline uint32
LearnedSweptRuns(const LearnedMetaPageData *meta)
{
	uint32		k = 0;

	while (k < meta->nruns && meta->runs[k].first_seq < meta->sweep_end_seq)
		k++;
	return k;
}

/* where the unsorted tail's entries start (sequence number, chain block) */
static inline uint64
LearnedTailStartSeq(const LearnedMetaPageData *meta)
{
	return meta->nruns > 0 ? meta->runs_end_seq : meta->pending_merged;
}

static inline BlockNumber
LearnedTailStartBlk(const LearnedMetaPageData *meta)
{
	return meta->nruns > 0 ? meta->tail_first_blk : meta->pending_head;
}

/*
 * A run's header page: LearnedRunHeader, then one LearnedRunPageRef per data
 * page (ON-DISK).
 */
typedef struct LearnedRunPageRef
{
	uint64		first_mkey;		/* mapped key of its first entry (if a key) */
	BlockNumber blkno;			/* the data page */
	uint32		first_rank;		/* rank of its first entry */
} LearnedRunPageRef;

typedef struct LearnedRunHeader
{
	uint64		first_seq;		/* the run's, as in the run table */
	uint32		npages;
	uint32		nentries;
	uint32		nkeys;
	uint32		filter_off;		/* byte offset of the filter in this page,
								 * or 0: it is in filter pages */
	uint32		filter_blocks;	/* its 64-byte blocks (0: no filter) */
	uint32		nfilter;		/* filter pages, listed after pages[] */
	LearnedRunPageRef pages[FLEXIBLE_ARRAY_MEMBER];
} LearnedRunHeader;

/*
 * A run's membership filter (run.c): a blocked Bloom filter of its keys'
 * filter values (LearnedKeyFilterValue) and, for a composite key, of each
 * distinct value of their leading columns (LearnedKeyPrefixValues).  A
 * value sets LEARNED_RUN_FILTER_K bits of one 64-byte block, so a lookup
 * reads one block of one page.  It takes the header page's room after the
 * page list when that holds LEARNED_RUN_FILTER_BITS bits a value (a run of
 * a few thousand entries), else pages of its own: their blocks follow the
 * header's page list, and each starts with LearnedRunFilterPageData.  A run
 * has at most LEARNED_RUN_MAX_FILTER filter pages (enough for 10 bits a
 * value up to 416k values; a larger run gets fewer bits a value).
 */
#define LEARNED_RUN_FILTER_K	7
#define LEARNED_RUN_FILTER_BITS	10
#define LEARNED_RUN_FILTER_BLOCK 64
#define LEARNED_RUN_MAX_FILTER	64

typedef struct LearnedRunFilterPageData
{
	uint64		first_seq;		/* the run's */
	uint32		index;			/* which of its filter pages */
	uint32		nblocks;		/* filter blocks on this page */
} LearnedRunFilterPageData;

/* a key's hashes for the filters of every run (LearnedRunFilterKey) */
typedef struct LearnedRunFilterProbe
{
	uint64		x;				/* picks the block */
	uint64		y;				/* picks the bits in it */
} LearnedRunFilterProbe;

#define LEARNED_RUN_FILTER_OFF \
	(MAXALIGN(SizeOfPageHeaderData) + MAXALIGN(sizeof(LearnedRunFilterPageData)))
#define LEARNED_RUN_FILTER_PER_PAGE \
	((uint32) ((BLCKSZ - MAXALIGN(sizeof(LearnedPageOpaqueData)) - LEARNED_RUN_FILTER_OFF) / \
			   LEARNED_RUN_FILTER_BLOCK))

/* a header's page list leaves room for the filter pages' block numbers */
#define LEARNED_RUN_MAX_PAGES \
	((int) ((BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(LearnedPageOpaqueData)) - \
			 offsetof(LearnedRunHeader, pages) - \
			 LEARNED_RUN_MAX_FILTER * sizeof(BlockNumber)) / sizeof(LearnedRunPageRef)))
#define LearnedPageGetRunHeader(page) \
	((LearnedRunHeader *) PageGetContents(page))
/* the filter pages' blocks, after the page list */
#define LearnedRunFilterPages(h) \
	((BlockNumber *) &(h)->pages[(h)->npages])

/* the entries on a run's data page pg */
static inline uint32
LearnedRunPageEntries(const LearnedRunHeader *h, uint32 pg)
{
	return (pg + 1 < h->npages ? h->pages[pg + 1].first_rank : h->nentries) -
		h->pages[pg].first_rank;
}

typedef LearnedMetaPageData *LearnedMetaPage;

#define LearnedPageGetMeta(page) \
	((LearnedMetaPage) PageGetContents(page))

/*
 * The key map (ON-DISK), right after LearnedMetaPageData (MAXALIGNed) and
 * covered by pd_lower: how a composite key becomes the models' 64-bit
 * image (keypack.c), frozen at CREATE INDEX from the ranges seen then.
 * natts 1 is the single-column format: the image is the type's own mapping
 * and the per-column entries are unused.
 */
#define LEARNED_STR_PREFIX_MAX	56

typedef struct LearnedKeyMapData
{
	uint16		natts;			/* key columns */
	uint16		npacked;		/* leading columns in the image */
	uint32		unused;
	KeyPackCol	cols[INDEX_MAX_KEYS];

	/*
	 * A single string column (keymap.c): the sort-key prefix its keys
	 * shared at build, skipped by the image (0: none).  Zero in indexes
	 * written before it existed (the bytes past pd_lower are zero).
	 */
	uint16		str_skip;
	uint8		str_prefix[LEARNED_STR_PREFIX_MAX];
} LearnedKeyMapData;

#define LearnedPageGetKeyMap(page) \
	((LearnedKeyMapData *) ((char *) PageGetContents(page) + \
							MAXALIGN(sizeof(LearnedMetaPageData))))
#define LEARNED_KEYMAP_END_OFFSET \
	(MAXALIGN(SizeOfPageHeaderData) + MAXALIGN(sizeof(LearnedMetaPageData)) + \
	 sizeof(LearnedKeyMapData))

/*
 * Merge statistics (ON-DISK), after the key map (MAXALIGNed) and covered by
 * pd_lower: cumulative since the build, set by each merge's flip in the
 * same record, so a standby and a crash agree with the primary.
 */
typedef struct LearnedMergeStatsData
{
	uint64		merged_entries; /* pending entries (NULLs included) merged */
	int64		last_merge_us;	/* wall time of the last merge */
} LearnedMergeStatsData;

#define LEARNED_MERGE_STATS_OFFSET	MAXALIGN(LEARNED_KEYMAP_END_OFFSET)
#define LearnedPageGetMergeStats(page) \
	((LearnedMergeStatsData *) ((char *) (page) + LEARNED_MERGE_STATS_OFFSET))
#define LEARNED_META_END_OFFSET \
	(LEARNED_MERGE_STATS_OFFSET + sizeof(LearnedMergeStatsData))

/* ---------- directory entries ---------- */

/* segment kinds */
#define LEARNED_SEG_MODEL		0	/* PLA pieces predict the rank */
#define LEARNED_SEG_ZONEMAP		1	/* LeCo zone map of page-group separators */

/* mode reloption */
#define LEARNED_MODE_AUTO		0
#define LEARNED_MODE_MODEL		1
#define LEARNED_MODE_ZONEMAP	2

/*
 * A segment owns a contiguous run of leaf pages, all full but the last, so an
 * item's rank inside the segment gives its page and slot by arithmetic:
 * page rank / P, slot rank % P, with P = items_per_page of the segment (the
 * plain capacity, or the one chosen for its compressed pages).
 *
 * In memory only: the directory stores the stored fields as LeCo-compressed
 * columns (directory.c) and the loader derives the others.
 */
typedef struct LearnedSegment
{
	BlockNumber start_blk;		/* first leaf page */
	uint32		items_per_page; /* P of its pages */
	bool		compressed;		/* its pages are compressed */
	uint32		npages;			/* derived: ceil(nitems / P) */
	uint32		nitems;			/* entries, dead included */
	uint32		first_piece;	/* derived: index of its first PLA piece */
	uint32		npieces;		/* 0 for a zone-map segment */
	uint32		generation;		/* generation that wrote its pages */
	uint16		kind;			/* LEARNED_SEG_* */
	uint16		zone_stride;	/* zone map: pages per group (>= 1) */
	uint32		first_zone;		/* derived: index of its first separator */
	uint32		nzones;			/* derived: groups - 1 (zone map), else 0 */
	uint64		first_key;		/* mapped key of its first entry */
	uint64		rank_base;		/* derived: entries in earlier segments */
	uint8		str_skip;		/* one string column: its pieces' and zones' keys
								 * are segment-local images (keymap.c) */
	bool		packed;			/* fixed-width key on stride pages (leaf.c) */
} LearnedSegment;

/*
 * A PLA piece predicts the rank inside its segment.  The window to search is
 * [pred - err_below, pred + err_above], measured at build with the query-time
 * arithmetic (pla_predict).  In memory only (see LearnedSegment).
 */
typedef struct LearnedPiece
{
	uint64		first_key;		/* mapped key of its first point */
	float4		slope;			/* ranks per mapped-key unit */
	int32		intercept;		/* rank in the segment at first_key */
	uint32		start_rank;		/* rank of its first point */
	uint16		err_below;
	uint16		err_above;
} LearnedPiece;

/* the format-1 sizes, reported as the uncompressed model size */
#define LEARNED_RAW_SEGMENT_BYTES	24
#define LEARNED_RAW_PIECE_BYTES		24
#define LEARNED_RAW_ZONE_BYTES		8

/*
 * The slope is stored as a float: a piece never spans more than one
 * segment (< 2^20 ranks), so the rounding moves a prediction by a small
 * fraction of a rank, and the build measures the window with the rounded
 * slope anyway.
 */

/*
 * Directory pages hold one byte stream (directory.c: a header and LeCo runs)
 * cut into page-sized chunks (LEARNED_DIR_BYTES_PER_PAGE each).
 */
#define LEARNED_DIR_BYTES_PER_PAGE \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(LearnedPageOpaqueData)))

/* ---------- leaf page layout ---------- */

/*
 * A composite key is stored as: a NULL bitmap (one bit per column, bytes
 * rounded up), then every column at its natural width in column order (a
 * NULL column's bytes are zero), unaligned.  A single-column key is just
 * the value (NULL keys live apart, in NULL pages).
 *
 * A leaf page is: page header, keys[P] (keylen bytes each), tids[P]
 * (ItemPointerData), dead bitmap (P bits).  pd_lower covers all of it so
 * GenericXLog keeps it (it zeroes the hole between pd_lower and pd_upper).
 * NULL pages have keylen 0.  Pending pages use LearnedPendingItem records.
 *
 * A compressed leaf page (LEARNED_LEAF_COMPRESSED) holds the area of
 * leafcodec.h instead, whose dead bitmap is at a fixed offset: readers go
 * through LearnedLeafOpen and LearnedLeafViewKey/Tid, which serve both.
 */
#define LEARNED_LEAF_DATA_OFFSET	MAXALIGN(SizeOfPageHeaderData)
#define LEARNED_LEAF_SPACE \
	(BLCKSZ - LEARNED_LEAF_DATA_OFFSET - MAXALIGN(sizeof(LearnedPageOpaqueData)))

typedef struct LearnedLeafLayout
{
	int			keylen;
	int			capacity;		/* P */
	int			tids_off;		/* byte offsets from page start */
	int			dead_off;
	int			end_off;		/* pd_lower */
	bool		prefix_ok;		/* varwidth pages may have a prefix (leaf.c) */
} LearnedLeafLayout;

/*
 * Pending page: data area starts with the sequence number of its first
 * entry (uint64), then records of: flags, tid, key bytes (ON-DISK).  An
 * entry's sequence number is first_seq + slot; VACUUM marks entries dead
 * instead of moving them, so sequence numbers are stable.  The record count
 * is the number of used slots (LearnedPendingCount).
 *
 * An append logs its record's changed bytes, from the first to the last
 * one that differs from the empty slot's zeros, as one fragment.  In the
 * order flags, TID, key, the TID's high block half (zero below 2^16 heap
 * blocks) and the flags (zero unless NULL) lie outside that run, and the
 * TID's low block half and offset lie right before the key's low bytes: an
 * int8 key below 2^32 in a heap of fewer than 2^16 blocks changes at most 8
 * contiguous bytes, not up to 10, and its record takes 56 bytes of WAL, not
 * 64 (docs/architecture.md, "An append's WAL record").
 */
typedef struct LearnedPendingItem
{
	uint16		flags;			/* LEARNED_PENDING_* */
	ItemPointerData tid;
	/* key bytes follow, keylen of them, unaligned */
} LearnedPendingItem;

#define LEARNED_PENDING_NULL	0x0001
#define LEARNED_PENDING_DEAD	0x0002
/*
 * A run entry whose heap tuple a scan found dead to every transaction
 * (kill_prior_tuple): later scans on the primary skip it without a heap
 * visit.  A hint, as a leaf page's hint bitmap: set under a share lock
 * with MarkBufferDirtyHint, only on run data pages (LearnedRunHint; the
 * tail, which inserts change in place, keeps its hints in each backend's
 * copy instead), never WAL-logged by itself; a page holding one carries
 * LEARNED_PENDING_PAGE_HINTED, and LearnedXLogRegister logs such a page
 * whole, so that a standby's replayed page stays the primary's byte for
 * byte.  Scans in recovery ignore it; merges, flushes and compactions read
 * the entry as live (they drop only LEARNED_PENDING_DEAD).
 */
#define LEARNED_PENDING_HINT	0x0004
/* page flag of a pending page: some record has LEARNED_PENDING_HINT */
#define LEARNED_PENDING_PAGE_HINTED	0x0001
/* page flag of a run data page in the packed layout (LearnedPackedHeader) */
#define LEARNED_PENDING_PAGE_PACKED	0x0002
#define LEARNED_PENDING_HDR		(sizeof(uint16) + sizeof(ItemPointerData))
#define LEARNED_PENDING_FLAGS_OFF	0
#define LEARNED_PENDING_TID_OFF		((int) sizeof(uint16))
#define LEARNED_PENDING_ITEMS_OFFSET	(LEARNED_LEAF_DATA_OFFSET + sizeof(uint64))
/*
 * Variable-width keys (keylen LEARNED_VARWIDTH): a record is the header plus
 * the key's offset and length (uint16 each); the key bytes are stacked from
 * the end of the page down, pd_upper marking the lowest (GenericXLog's
 * delta skips the hole between pd_lower and pd_upper).
 */
#define LEARNED_PENDING_VHDR	(LEARNED_PENDING_HDR + 2 * sizeof(uint16))
#define LearnedPendingItemSize(keylen) \
	((keylen) < 0 ? LEARNED_PENDING_VHDR : LEARNED_PENDING_HDR + (keylen))
/* at most this many records on a page (a varwidth key takes >= 1 byte) */
#define LearnedPendingCapacity(keylen) \
	((int) ((LEARNED_LEAF_SPACE - sizeof(uint64)) / \
			(LearnedPendingItemSize(keylen) + ((keylen) < 0 ? 1 : 0))))
#define LearnedPendingItemPtr(page, keylen, slot) \
	((char *) (page) + LEARNED_PENDING_ITEMS_OFFSET + (slot) * LearnedPendingItemSize(keylen))

/*
 * The key of each record of a by-value key (1 to 8 bytes) but the first is
 * stored XORed with the first record's key bytes.  Appended keys
 * (sequences, timestamps) share their high bytes with the page's first
 * key, so the XOR leaves them zero, as the empty slot was, and the
 * append's logged run of changed bytes (see above) ends at the key's last
 * differing byte: a timestamp a few milliseconds after the page's first
 * changes 3 bytes, not 7, and its record typically takes 56 bytes of WAL,
 * not 64 (a carry across a byte boundary between the two keys widens the
 * XOR).  Readers go through LearnedPendingKeyAt (pending.c), which undoes
 * it.  A NULL record's key bytes stay zero.
 */
#define LearnedPendingXorWidth(keylen)	((keylen) > 0 && (keylen) <= (int) sizeof(Datum))

/*
 * The TID of the record at p on page.  Copied, not pointed to: a record of
 * an odd-sized composite key starts at an odd address.
 */
static inline ItemPointerData
LearnedPendingTid(Page page, const char *p)
{
	ItemPointerData tid;

	memcpy(&tid, p + LEARNED_PENDING_TID_OFF, sizeof(tid));
	return tid;
}

static inline void
LearnedPendingSetTid(Page page, char *p, ItemPointer tid)
{
	memcpy(p + LEARNED_PENDING_TID_OFF, tid, sizeof(ItemPointerData));
}

static inline uint16
LearnedPendingFlags(Page page, const char *p)
{
	uint16		flags;

	memcpy(&flags, p + LEARNED_PENDING_FLAGS_OFF, sizeof(uint16));
	return flags;
}

static inline void
LearnedPendingSetFlags(Page page, char *p, uint16 flags)
{
	memcpy(p + LEARNED_PENDING_FLAGS_OFF, &flags, sizeof(uint16));
}

static inline uint64
LearnedPendingFirstSeq(Page page)
{
	uint64		seq;

	memcpy(&seq, (char *) page + LEARNED_LEAF_DATA_OFFSET, sizeof(seq));
	return seq;
}

/*
 * Packed run data pages (ON-DISK; LEARNED_PENDING_PAGE_PACKED).  A sorted
 * run's data pages never take appends, so for a by-value key of 1 to 8
 * bytes (LearnedPendingXorWidth) they are written in a frame-of-reference
 * layout instead of records (run.c, layout_pages):
 *
 *   | PageHeader | first_seq | LearnedPackedHeader | dead bits | hint bits |
 *   | key fields (nkeys x key_bits) | TID fields (count x (blk_bits + off_bits)) |
 *
 * Entry "slot" keeps its sequence number first_seq + slot, as on every
 * pending page.  Its key is key_base plus the key_bits field at slot,
 * taken as the unsigned integer of the key's keylen bytes (lossless for any
 * bytes: NaN, infinities, INT8's extremes; a page whose keys span a wide
 * range gets wide fields, up to 64 bits); its TID is block blk_base plus
 * the blk_bits field and offset the off_bits field (the block in the low
 * bits of one field).  Fields are LSB first (leco_load_bits), so any slot
 * is read in O(1).  pd_lower ends the last field, and pd_special lies at
 * least LECO_PAD_BYTES past it (the special space counts), which the
 * 16-byte loads need.
 *
 * The flags that change after the write live apart in two bitmaps, one bit
 * an entry each, so that VACUUM (dead) and scans (hint) still set them in
 * place.  NULL is not stored: a run puts its NULL keys last, so slots from
 * nkeys on are NULL and hold no key field.  That saves a bit an entry over a
 * flag and leaves no NULL flag to disagree with a key field;
 * learned_index_check verifies that the header's nkeys agrees with the
 * run header's ranks.
 *
 * The tail's pages and every other key (variable-width, composite, uuid,
 * ...) keep the record layout above, run pages included.
 */
typedef struct LearnedPackedHeader
{
	uint64		key_base;		/* smallest key, as an unsigned integer */
	uint32		blk_base;		/* smallest heap block */
	uint16		count;			/* entries */
	uint16		nkeys;			/* non-NULL entries: slots [0, nkeys) */
	uint8		keylen;			/* key bytes (1 to 8), the index's */
	uint8		key_bits;		/* 0..64 */
	uint8		blk_bits;		/* 0..32 */
	uint8		off_bits;		/* 0..16 */
	uint32		pad;			/* zero */
} LearnedPackedHeader;

#define LEARNED_PACKED_HDR_OFFSET	(LEARNED_LEAF_DATA_OFFSET + sizeof(uint64))
#define LEARNED_PACKED_BITS_OFFSET	(LEARNED_PACKED_HDR_OFFSET + sizeof(LearnedPackedHeader))
/*
 * At most this many entries on a packed page (sizes the arrays of a page's
 * decoded entries, LearnedPendingMaxEntries): int8 keys in random order
 * take about 40 bits an entry, about 1,600 a page.
 */
#define LEARNED_PACKED_MAX_ENTRIES	2048

/* entries a pending page of keylen may hold, in either layout */
#define LearnedPendingMaxEntries(keylen) \
	(LearnedPendingXorWidth(keylen) ? \
	 Max(LearnedPendingCapacity(keylen), LEARNED_PACKED_MAX_ENTRIES) : \
	 LearnedPendingCapacity(keylen))

static inline bool
LearnedPendingIsPacked(Page page)
{
	return (((LearnedPageOpaque) PageGetSpecialPointer(page))->flags &
			LEARNED_PENDING_PAGE_PACKED) != 0;
}

static inline const LearnedPackedHeader *
LearnedPackedGetHeader(Page page)
{
	return (const LearnedPackedHeader *) ((char *) page + LEARNED_PACKED_HDR_OFFSET);
}

/* byte offset of the dead bitmap, the hint bitmap and the fields */
static inline int
LearnedPackedBitmapBytes(int count)
{
	return (count + 7) / 8;
}

/* the dead bitmap of a packed page; the hint bitmap follows it */
static inline uint8 *
LearnedPackedDeadBits(Page page)
{
	return (uint8 *) page + LEARNED_PACKED_BITS_OFFSET;
}

static inline uint64
LearnedPackedFieldsBit(int count)
{
	return ((uint64) LEARNED_PACKED_BITS_OFFSET +
			2 * (uint64) LearnedPackedBitmapBytes(count)) * 8;
}

/* the bytes from the page's start to the end of the last field */
static inline uint64
LearnedPackedEnd(int count, int nkeys, int key_bits, int blk_bits, int off_bits)
{
	uint64		bits = LearnedPackedFieldsBit(count) + (uint64) nkeys * key_bits +
		(uint64) count * (blk_bits + off_bits);

	return (bits + 7) / 8;
}

static inline ItemPointerData
LearnedPackedTid(Page page, int slot)
{
	const LearnedPackedHeader *ph = LearnedPackedGetHeader(page);
	unsigned	w = ph->blk_bits + ph->off_bits;
	uint64		v = leco_load_bits((const uint8_t *) page,
								   LearnedPackedFieldsBit(ph->count) +
								   (uint64) ph->nkeys * ph->key_bits + (uint64) slot * w, w);
	ItemPointerData tid;

	ItemPointerSet(&tid,
				   ph->blk_base + (BlockNumber) (ph->blk_bits == 0 ? 0 :
												 v & ((UINT64CONST(1) << ph->blk_bits) - 1)),
				   (OffsetNumber) (v >> ph->blk_bits));
	return tid;
}

/* the key's bytes as an unsigned integer (slot < nkeys) */
static inline uint64
LearnedPackedKeyBits(Page page, int slot)
{
	const LearnedPackedHeader *ph = LearnedPackedGetHeader(page);

	return ph->key_base +
		leco_load_bits((const uint8_t *) page,
					   LearnedPackedFieldsBit(ph->count) + (uint64) slot * ph->key_bits,
					   ph->key_bits);
}

/*
 * Slot-based accessors of a pending page's entries, for both layouts.
 * slot < LearnedPendingCount(page, keylen).  Keys: LearnedPendingKeyAt.
 */
static inline ItemPointerData
LearnedPendingTidAt(Page page, int keylen, int slot)
{
	if (LearnedPendingIsPacked(page))
		return LearnedPackedTid(page, slot);
	return LearnedPendingTid(page, LearnedPendingItemPtr(page, keylen, slot));
}

static inline uint16
LearnedPendingFlagsAt(Page page, int keylen, int slot)
{
	if (LearnedPendingIsPacked(page))
	{
		const LearnedPackedHeader *ph = LearnedPackedGetHeader(page);
		const uint8 *dead = LearnedPackedDeadBits(page);
		const uint8 *hint = dead + LearnedPackedBitmapBytes(ph->count);
		uint16		f = 0;

		if (slot >= ph->nkeys)
			f |= LEARNED_PENDING_NULL;
		if (dead[slot >> 3] & (1 << (slot & 7)))
			f |= LEARNED_PENDING_DEAD;
		if (hint[slot >> 3] & (1 << (slot & 7)))
			f |= LEARNED_PENDING_HINT;
		return f;
	}
	return LearnedPendingFlags(page, LearnedPendingItemPtr(page, keylen, slot));
}

/*
 * Add flags (LEARNED_PENDING_DEAD, _HINT) to an entry's.  On a packed page
 * the hint bit shares its byte with seven others: two scans hinting
 * neighbours under a share lock may lose one of the hints, which is only a
 * hint; the dead bit is set under a cleanup lock, when nobody else writes.
 */
static inline void
LearnedPendingAddFlagsAt(Page page, int keylen, int slot, uint16 flags)
{
	if (LearnedPendingIsPacked(page))
	{
		const LearnedPackedHeader *ph = LearnedPackedGetHeader(page);
		uint8	   *dead = LearnedPackedDeadBits(page);
		uint8	   *hint = dead + LearnedPackedBitmapBytes(ph->count);

		if (flags & LEARNED_PENDING_DEAD)
			dead[slot >> 3] |= (uint8) (1 << (slot & 7));
		if (flags & LEARNED_PENDING_HINT)
			hint[slot >> 3] |= (uint8) (1 << (slot & 7));
		return;
	}
	{
		char	   *p = LearnedPendingItemPtr(page, keylen, slot);

		LearnedPendingSetFlags(page, p, LearnedPendingFlags(page, p) | flags);
	}
}

/* ---------- key mapping (keymap.c) ---------- */

/* families of key types that share a mapped domain */
typedef enum LearnedKeyClass
{
	LKC_INT,					/* int2, int4, int8: the integer value */
	LKC_OID,					/* oid: unsigned */
	LKC_FLOAT,					/* float4, float8: IEEE order, NaN last */
	LKC_TIME					/* date, timestamp, timestamptz: microseconds */
} LearnedKeyClass;

struct LearnedColumn;

/*
 * int2, int4 and int8 all map to their value as an int64 (LKC_INT), which
 * is also what their cross-type comparators compare: an integer bound on an
 * integer key has an exact image, whatever the two widths.
 */
static inline bool
LearnedTypeIsInteger(Oid typid)
{
	return typid == INT2OID || typid == INT4OID || typid == INT8OID;
}

extern bool learned_type_supported(Oid typid);
extern int	learned_type_keylen(Oid typid);
extern uint64 learned_map_datum(Datum value, Oid valtype, Oid keytype);
extern uint64 learned_map_value_general(struct LearnedColumn *c, Datum value,
										Oid valtype);

/* an integer's image: its value with the sign bit flipped (unsigned order) */
static inline uint64
learned_map_int64(int64 v)
{
	return ((uint64) v) ^ UINT64CONST(0x8000000000000000);
}

/*
 * The image of a value of type valtype (possibly cross-type) in the domain
 * of column c: every caller that may meet a string or numeric key goes
 * through here.  The integer types are answered inline, because every image
 * of a key (a run's flush and compaction, the tail's copy, each bound) maps
 * each of its columns, and OLTP keys are made of these.
 */
static inline uint64
learned_map_value(struct LearnedColumn *c, Datum value, Oid valtype)
{
	if (valtype == INT4OID)
		return learned_map_int64((int64) DatumGetInt32(value));
	if (valtype == INT8OID)
		return learned_map_int64(DatumGetInt64(value));
	if (valtype == INT2OID)
		return learned_map_int64((int64) DatumGetInt16(value));
	return learned_map_value_general(c, value, valtype);
}

extern bool learned_type_varlena(Oid typid);

/*
 * Read and write a key of the index type at a given width.  Keys are stored
 * as the low keylen bytes of their Datum, which for every supported
 * (pass-by-value) type is the value itself.
 */
static inline Datum
learned_fetch_key(const char *p, int keylen, Oid typid)
{
	switch (keylen)
	{
		case 1:
			return BoolGetDatum(*p != 0);
		case 16:
			/* uuid, interval: by reference, 8-aligned where they are stored */
			return PointerGetDatum(p);
		case NAMEDATALEN:
			/* name: by reference, char-aligned */
			return PointerGetDatum(p);
		case LEARNED_VARWIDTH:
			/* a varlena, stored aligned as its header needs (LearnedKeyAlign) */
			return PointerGetDatum(p);
		case 2:
			{
				int16		v;

				memcpy(&v, p, sizeof(v));
				return Int16GetDatum(v);
			}
		case 4:
			{
				uint32		v;

				memcpy(&v, p, sizeof(v));
				if (typid == FLOAT4OID || typid == OIDOID)
					return (Datum) v;
				return Int32GetDatum((int32) v);
			}
		case 8:
			{
				Datum		v;

				memcpy(&v, p, sizeof(v));
				return v;
			}
		default:
			elog(ERROR, "learned: bad key length %d", keylen);
			return (Datum) 0;
	}
}

extern void learned_store_key(char *p, int keylen, Datum value);
extern bool learned_type_exact(Oid typid);

/* ---------- per-backend cached directory ---------- */

typedef struct LearnedDirectory
{
	int			refcount;		/* scans using it (see directory.c) */
	uint32		generation;
	Oid			keytype;
	int			keylen;
	int			items_per_page;
	int			error_bound;
	uint32		nsegments;
	uint32		npieces;
	uint64		nstatic;
	BlockNumber nulls_start;
	uint32		nulls_npages;
	uint64		nnulls;
	uint32		nvpages;		/* leaf pages over all key segments */
	uint32		nzones;			/* zone-map separators over all segments */
	LearnedSegment *segments;	/* decoded: nsegments is small */
	uint32	   *seg_first_vpage;	/* [nsegments + 1] prefix sums of npages */

	/*
	 * Pieces and zone maps stay LeCo-compressed (leco.h runs inside the
	 * directory stream, which the cache keeps as read): searched and
	 * decoded in place by directory.c.
	 */
	char	   *stream;
	Size		stream_bytes;
	Size		model_bytes;	/* segment and piece runs, compressed */
	Size		zonemap_bytes;	/* zone run, compressed */
	const uint8 *pk_key;		/* piece first_key */
	const uint8 *pk_rank;		/* rank_base + start_rank */
	const uint8 *pk_icpt;		/* intercept - start_rank, sign-flipped */
	const uint8 *pk_slope;		/* float4 bits */
	const uint8 *pk_elo;		/* err_below */
	const uint8 *pk_ehi;		/* err_above */
	const uint8 *zone;			/* zone-map separators, all segments */

	/*
	 * One string column (scan.c, loaded on first use): each segment's first
	 * key, and the sort-key prefix its local images skip.
	 */
	Datum	   *seg_keys;
	uint8	   *seg_prefix;		/* [nsegments][LEARNED_STR_PREFIX_MAX] */
	int			seg_max_skip;	/* the largest str_skip of a segment */

	/*
	 * [nvpages] the shared buffer each leaf page was last read into by a scan
	 * of this backend (InvalidBuffer: none yet), or NULL for a directory
	 * over LEARNED_LEAF_HINT_MAX pages: a hint for ReadRecentBuffer (scan.c),
	 * which checks the buffer still holds the page.
	 */
	Buffer	   *leaf_hint;
} LearnedDirectory;

#define LEARNED_LEAF_HINT_MAX	65536	/* pages: 256 kB of hints at most */

/* one key column of a composite key */
typedef struct LearnedColumn
{
	Oid			type;			/* opcintype */
	int16		width;			/* stored bytes: 1, 2, 4, 8 or 16 (by reference) */
	int16		offset;			/* of its bytes in the stored key */
	Oid			collation;
	bool		desc;			/* index order descending (composite keys) */
	bool		nulls_first;	/* NULLs first in index order (composite keys) */
	bool		exact;			/* the type's mapping orders like cmp */
	bool		varlena;		/* stored as a varlena after the fixed part */
	FmgrInfo	cmp;			/* support 1, type vs type */
	void	   *strmap;			/* string image state (keymap.c), made on first use */
	MemoryContext cxt;			/* where strmap is made: the column's own */
	int			str_skip;		/* the key map's shared sort-key prefix */
	uint8		str_prefix[LEARNED_STR_PREFIX_MAX];
} LearnedColumn;

/*
 * State shared by scans, inserts and vacuum: opclass support.
 *
 * A key is passed around as a Datum: for a single column, the value; for a
 * composite key, a pointer to its stored bytes (keylen of them), which the
 * holder must keep valid (LearnedKeyCopy).  Single-column keys are stored
 * in ascending order with NULLs apart (DESC is a scan direction); composite
 * keys are stored in index order (per-column DESC, NULLS FIRST), NULLs
 * included, like btree.
 */
typedef struct LearnedKeyInfo
{
	Oid			keytype;		/* first column's type */
	int			keylen;			/* LEARNED_VARWIDTH if keys vary in size */
	/* rd_amcache's copy only: the metapage's buffer at the last scan start */
	Buffer		meta_hint;
	int			fixedlen;		/* composite: NULL bitmap and fixed-width columns */
	bool		fixedonly;		/* composite without a varlena column: every
								 * key is fixedlen bytes */
	int			fixedalign;		/* alignment a stored key's start needs for them */
	Oid			collation;		/* first column's */
	FmgrInfo	cmp;			/* support 1 of the first column */
	LearnedLeafLayout layout;
	int			natts;			/* stored columns: key columns, then INCLUDE ones */
	int			nkeys;			/* key columns (the order, the models, the scans) */
	int			nullbytes;		/* composite: NULL bitmap bytes */
	LearnedColumn *cols;		/* [natts] */
	bool		byref;			/* keys are pointers to stored bytes */
	bool		bytewise;		/* one text ("C"), bytea or uuid column: keys
								 * order as their bytes (memcmp, then length),
								 * as bttextcmp, byteacmp and uuid_cmp do */
	LearnedKeyMapData map;		/* loaded from the metapage, or planned */
	uint32		map_serial;		/* scans: which load of the map (rd_amcache)
								 * this is; 0 elsewhere */
	int			order;			/* LearnedKeyOrder, or 0 before it is known */
} LearnedKeyInfo;

/*
 * How the images of a key order the keys themselves (LearnedKeyOrderOf):
 * exactly (equal images are equal keys: single-column exact types);
 * monotonically (a smaller image is a smaller key, equal images need the
 * comparator: composite keys, lossy types, strings under "C" or ICU); or
 * not trustworthily (a libc strxfrm prefix, which PostgreSQL does not
 * trust to agree with strcoll: only the comparator orders).
 */
typedef enum LearnedKeyOrder
{
	LEARNED_ORDER_EXACT = 1,
	LEARNED_ORDER_MONOTONE,
	LEARNED_ORDER_COMPARATOR
} LearnedKeyOrder;

#define LearnedKeyIsComposite(ki)	((ki)->natts > 1)
#define LearnedKeyIsVarwidth(ki)	((ki)->keylen < 0)
/*
 * One fixed-width by-reference column (uuid, interval, name): its segments
 * may be packed on stride pages, which store a page's common prefix once
 * (leaf.c), when that holds more entries a page than plain pages do.
 */
#define LearnedKeyPackable(ki)	((ki)->keylen > 0 && (ki)->byref)
/* the image orders keys exactly: equal images are equal keys */
#define LearnedKeyMapExact(ki)	((ki)->natts == 1 && (ki)->cols[0].exact)

/* bytes a vs bytes b, as memcmp then length (keys of a bytewise index) */
static inline int32
LearnedBytesCmp(const char *a, Size alen, const char *b, Size blen)
{
	int			r = memcmp(a, b, Min(alen, blen));

	if (r != 0)
		return r;
	return (alen > blen) - (alen < blen);
}

extern Datum LearnedKeyFetch(const LearnedKeyInfo *ki, const char *p);
extern void LearnedKeyStore(const LearnedKeyInfo *ki, char *dst, Datum key);
extern Datum LearnedKeyCopy(const LearnedKeyInfo *ki, Datum key, char *dst);
extern Datum LearnedKeyCopyAlloc(const LearnedKeyInfo *ki, Datum key,
								 MemoryContext cxt);
extern Size LearnedKeySize(const LearnedKeyInfo *ki, Datum key);
extern int	LearnedKeyAlign(const LearnedKeyInfo *ki, Datum key);
extern int64 LearnedKeySizeWalk(const LearnedKeyInfo *ki, const char *p, Size avail);
extern bool LearnedKeyImagesTrusted(LearnedKeyInfo *ki);
extern LearnedKeyOrder LearnedKeyOrderOf(LearnedKeyInfo *ki);
extern void LearnedStringMapApply(LearnedKeyInfo *ki);
extern bool LearnedKeyLocalImages(const LearnedKeyInfo *ki);
extern int	LearnedStringSkip(LearnedKeyInfo *ki, Datum first, Datum last);
extern void LearnedStringPrefix(LearnedKeyInfo *ki, Datum key, int skip, uint8 *out);
extern uint64 LearnedStringImageAt(LearnedKeyInfo *ki, Datum value, Oid valtype, int skip,
								   const uint8 *prefix);
extern bool LearnedKeyImagesCollated(LearnedKeyInfo *ki);
/* bytes LearnedStringSortKey may write */
#define LEARNED_SORTKEY_BYTES	(LEARNED_STR_PREFIX_MAX + 16)
extern void LearnedStringSortKey(LearnedKeyInfo *ki, Datum value, Oid valtype, int skip,
								 uint8 *out);
extern uint64 LearnedStringImageOf(const uint8 *kb, int skip, const uint8 *prefix);
extern Datum LearnedKeyForm(LearnedKeyInfo *ki, Relation index, const Datum *values,
							const bool *isnull, ItemPointer tid);
extern void LearnedKeyPack(const LearnedKeyInfo *ki, const Datum *values,
						   const bool *isnull, char *dst);
extern Datum LearnedKeyColumn(const LearnedKeyInfo *ki, Datum key, int col,
							  bool *isnull);

/* the NULL bit of column col of a composite key's stored bytes at p */
static inline bool
LearnedKeyNullBit(const char *p, int col)
{
	return (((const uint8 *) p)[col >> 3] >> (col & 7)) & 1;
}

/* does a composite key's stored bytes at p have a NULL column? */
static inline bool
LearnedKeyAnyNull(const LearnedKeyInfo *ki, const char *p)
{
	int			i;

	for (i = 0; i < ki->nullbytes; i++)
		if (p[i] != 0)
			return true;
	return false;
}

/*
 * The size of the stored key at p if it lies within avail bytes and is
 * well-formed, else -1 (LearnedKeySizeWalk).  A key of fixed length, a
 * composite one without varlena columns included, is answered inline:
 * readers of leaf pages check every key they rebuild.
 */
static inline int64
LearnedKeySizeBounded(const LearnedKeyInfo *ki, const char *p, Size avail)
{
	if (!LearnedKeyIsVarwidth(ki))
		return (Size) ki->keylen <= avail ? ki->keylen : -1;
	if (ki->fixedonly)
		return (Size) ki->fixedlen <= avail ? ki->fixedlen : -1;
	return LearnedKeySizeWalk(ki, p, avail);
}

/*
 * LearnedKeyColumn, with a fixed-width column of a composite key read in
 * place: a scan's comparisons read one column at a time, a few hundred a
 * TPC-C statement, and the call cost more than the read.
 */
static inline Datum
LearnedKeyColumnInline(const LearnedKeyInfo *ki, Datum key, int col, bool *isnull)
{
	const LearnedColumn *c = &ki->cols[col];
	const char *p;

	if (!LearnedKeyIsComposite(ki) || c->varlena)
		return LearnedKeyColumn(ki, key, col, isnull);
	p = DatumGetPointer(key);
	*isnull = LearnedKeyNullBit(p, col);
	return *isnull ? (Datum) 0 : learned_fetch_key(p + c->offset, c->width, c->type);
}

extern void LearnedKeyDeform(const LearnedKeyInfo *ki, Datum key,
							 Datum *values, bool *isnull);
extern int	LearnedKeyCmp(LearnedKeyInfo *ki, Datum a, Datum b);
extern uint64 LearnedKeyMap(const LearnedKeyInfo *ki, Datum key);
extern int	LearnedColumnStatus(const LearnedKeyInfo *ki, int col, Datum value,
								Oid valtype, bool isnull, uint64 *u);
extern void LearnedKeyMapPlan(LearnedKeyInfo *ki, uint64 *lo, uint64 *hi,
							  bool replan, int maxcols);
extern bool LearnedKeyOutOfRange(const LearnedKeyInfo *ki, Datum key);
extern uint64 LearnedKeyFilterValue(const LearnedKeyInfo *ki, const Datum *values,
									 const bool *isnull, const Oid *types,
									 const int *status, uint64 mkey);
extern uint64 LearnedKeyMapFilter(const LearnedKeyInfo *ki, Datum key, uint64 *fv);
/* a composite key's leading columns in a run's filter (LearnedKeyPrefixValues) */
#define LEARNED_PREFIX_SEED		UINT64CONST(0x6a09e667f3bcc909)
extern int	LearnedKeyPrefixValues(const LearnedKeyInfo *ki, const Datum *values,
								   const bool *isnull, const Oid *types, int upto,
								   uint64 *pv);
extern int	LearnedKeyPrefixValuesOf(const LearnedKeyInfo *ki, Datum key, uint64 *pv);
extern void LearnedKeyRangeAdd(const LearnedKeyInfo *ki, Datum key,
							   uint64 *lo, uint64 *hi);
extern int	learned_map_columns_guc;

/* ---------- page.c ---------- */

extern void LearnedLeafLayoutInit(LearnedLeafLayout *layout, int keylen);
extern void LearnedInitPage(Page page, uint16 type, uint32 generation);
extern Buffer LearnedNewBuffer(Relation index, ForkNumber forknum);
extern uint16 LearnedPageKind(Page page);
extern void LearnedCheckPage(Relation index, Page page, BlockNumber blkno,
							 uint16 expected_type);
extern void LearnedCheckMeta(Relation index, LearnedMetaPage meta);
extern void LearnedReportCorrupt(Relation index, BlockNumber blkno, const char *what);
extern void LearnedReportHeapTid(Relation index, ItemPointer tid);

extern bool LearnedBlocksExist(Relation index, uint64 end);
extern void LearnedCheckLink(Relation index, BlockNumber blkno, uint32 *steps);
extern void LearnedReadMeta(Relation index, LearnedMetaPageData *copy);
extern void LearnedReadMergeStats(Relation index, uint64 *nmerges,
								  LearnedMergeStatsData *stats);
extern void LearnedReadMetaRecent(Relation index, LearnedMetaPageData *copy,
								  Buffer *recent);
extern bool LearnedReadMetaKept(Relation index, LearnedMetaPageData *copy,
								Buffer *kept, Buffer *recent, XLogRecPtr *lsn,
								LearnedKeyMapData *map);
extern Buffer LearnedReadBufferRecent(Relation index, BlockNumber blkno,
									  Buffer *recent);
extern bool LearnedPinRecentBuffer(Relation index, BlockNumber blkno, Buffer recent);
extern void LearnedKeyInfoInit(Relation index, LearnedKeyInfo *ki);
extern void LearnedKeyInfoLoadMap(Relation index, LearnedKeyInfo *ki);
extern void LearnedKeyInfoForScan(Relation index, LearnedKeyInfo *ki);
extern void LearnedKeyColumnsInit(Relation index, LearnedKeyInfo *ki, bool with_cmp);

/*
 * GenericXLog wrappers: every page change goes through these, and pending
 * appends through LearnedXLogRanges (the same record format, built directly)
 */
extern GenericXLogState *LearnedXLogStart(Relation index);
extern Page LearnedXLogRegister(GenericXLogState *state, Buffer buf, bool newpage);
extern void LearnedXLogFinish(GenericXLogState *state);

/* a changed byte range of a page, for LearnedXLogRanges */
typedef struct LearnedByteRange
{
	uint16		off;
	uint16		len;
	const char *old;			/* its bytes before the change (at most
								 * LEARNED_XLOG_DIFF_MAX), so that only
								 * changed bytes are logged; or NULL: log
								 * them all */
} LearnedByteRange;

#define LEARNED_XLOG_MAX_RANGES	4
/* the longest range given with its old bytes (its fragments fit the buffer) */
#define LEARNED_XLOG_DIFF_MAX	64
extern void LearnedXLogRanges(Relation index, Buffer buf,
							  const LearnedByteRange *ranges, int nranges);

/* leaf accessors */
static inline char *
LearnedLeafKeyPtr(Page page, const LearnedLeafLayout *l, int slot)
{
	return (char *) page + LEARNED_LEAF_DATA_OFFSET + slot * l->keylen;
}

static inline ItemPointer
LearnedLeafTid(Page page, const LearnedLeafLayout *l, int slot)
{
	return (ItemPointer) ((char *) page + l->tids_off) + slot;
}

/* where the dead bitmap of a page is: fixed in either format */
static inline int
LearnedLeafDeadOff(Page page, const LearnedLeafLayout *l)
{
	if (LearnedPageGetOpaque(page)->flags & LEARNED_LEAF_COMPRESSED)
		return LEARNED_LEAF_DATA_OFFSET + (int) LCP_DEAD_OFFSET;
	if (LearnedPageGetOpaque(page)->flags & LEARNED_LEAF_VARWIDTH)
		return LEARNED_LEAF_DATA_OFFSET;
	return l->dead_off;
}

static inline bool
LearnedLeafIsDead(Page page, const LearnedLeafLayout *l, int slot)
{
	return (((uint8 *) page + LearnedLeafDeadOff(page, l))[slot >> 3] >> (slot & 7)) & 1;
}

static inline void
LearnedLeafSetDead(Page page, const LearnedLeafLayout *l, int slot)
{
	((uint8 *) page + LearnedLeafDeadOff(page, l))[slot >> 3] |= (uint8) (1 << (slot & 7));
}

/*
 * The hint bitmap (LEARNED_LEAF_HINTS).  A scan sets the bit of an entry
 * whose heap tuple it found dead to every transaction (kill_prior_tuple),
 * under a share lock and with MarkBufferDirtyHint, as btree sets LP_DEAD;
 * later scans on the primary skip the entry without a heap visit.  Unlike
 * the dead bitmap, the bits are not WAL-logged: a standby ignores them
 * (they may reach it in a hint's full-page image, but its snapshots can be
 * older than the primary's horizon), and every WAL-logged change of a leaf
 * page clears them (LearnedXLogRegister calls LearnedLeafClearHints), so a
 * replayed page equals the primary's.  Pages written with room for it at
 * the end have one (LearnedLeafReserveHints); writers keep that room free
 * (LEARNED_HINT_BYTES).  Returns NULL for a page without one, or whose
 * bounds are not the ones its entry count gives (learned_index_check
 * reports those).
 */
#define LEARNED_HINT_BYTES(n)	((Size) ((((n) + 63) / 64) * 8))

static inline uint8 *
LearnedLeafHints(Page page)
{
	PageHeader	ph = (PageHeader) page;
	LearnedPageOpaque op = LearnedPageGetOpaque(page);

	if (!(op->flags & LEARNED_LEAF_HINTS) ||
		(Size) ph->pd_upper + LEARNED_HINT_BYTES(op->nitems) != ph->pd_special ||
		ph->pd_lower > ph->pd_upper)
		return NULL;
	return (uint8 *) page + ph->pd_upper;
}

static inline bool
LearnedHintIsSet(const uint8 *hints, int slot)
{
	return (hints[slot >> 3] >> (slot & 7)) & 1;
}

extern void LearnedLeafReserveHints(Page page);
extern void LearnedLeafClearHints(Page page);
extern bool LearnedHintSet(uint8 *hints, int slot);

/* ---------- module.c: settings, fault points, open scans, the SQL gate ---------- */

extern bytea *learnedoptions(Datum reloptions, bool validate);
extern int	learned_get_error_bound(Relation index);
extern double learned_get_merge_ratio(Relation index);
extern int	learned_get_pending_limit(Relation index);
extern int	learned_get_mode(Relation index);
extern int	learned_get_compression(Relation index);
extern bool learned_get_vacuum_truncate(Relation index);
extern const char *learned_mode_name(int mode);
extern Relation LearnedOpenIndexChecked(Oid indexoid, LOCKMODE lockmode, const char *action,
										bool owner_only, Relation *heap_out);
extern int	learned_pending_limit_guc;
extern int	learned_log_merge_min_duration;
extern bool learned_auto_merge;
extern char *learned_fail_point;

/* test-only fault injection: ERROR or PANIC at a named point */
extern void learned_fault(const char *point);

/* this backend's open learned index scans */
extern void LearnedScanOpened(void);
extern void LearnedScanClosed(void);
extern bool LearnedNoOpenScans(void);

/* ---------- alloc.c: pages and page runs ---------- */

typedef void (*LearnedFillPage) (Page page, uint32 pg, void *arg);

extern Buffer LearnedClaimBlock(Relation index, BlockNumber blkno);
extern Buffer LearnedAllocPage(Relation index);
extern BlockNumber LearnedAllocRun(Relation index, uint32 npages, bool building);
extern uint32 LearnedFitPages(Relation index, uint32 npages);
extern void LearnedAllocLowest(bool on);
extern void LearnedAllocMapReset(void);
extern BlockNumber LearnedAllocMapFreeBlocks(Relation index);
extern BlockNumber LearnedWriteRun(Relation index, uint32 npages, uint16 type,
								   uint32 generation, bool building,
								   LearnedFillPage fill, void *arg);

/* ---------- merge.c ---------- */

/* who runs a merge (learned_idx.log_merge_min_duration names it) */
typedef enum LearnedMergeBy
{
	LEARNED_MERGE_BY_INSERT,	/* an inserting backend, inline */
	LEARNED_MERGE_BY_WORKER,	/* the background worker */
	LEARNED_MERGE_BY_VACUUM,	/* ambulkdelete or amvacuumcleanup */
	LEARNED_MERGE_BY_FUNCTION	/* learned_index_merge() */
} LearnedMergeBy;

extern int64 LearnedMerge(Relation index, LearnedMergeBy by);
extern int64 LearnedMergeLocked(Relation index, const bool *rewrite, uint32 nrewrite,
								LearnedMergeBy by);
extern void LearnedMaybeMerge(Relation index, const LearnedMetaPageData *meta,
							  uint64 appended);
extern void LearnedMaybeMergeStale(Relation index, const LearnedMetaPageData *copy,
								   uint64 appended);
extern void LearnedCollectGarbage(Relation index, bool merge);
extern void LearnedCollectGarbageLocked(Relation index);
extern PGDLLEXPORT void learned_merge_worker_main(Datum arg);

/* ---------- writer.c: the static stage's writer (build and merge) ---------- */

/* an entry being sorted and written by a build or a merge */
typedef struct LearnedEntry
{
	uint64		mkey;			/* mapped key */
	Datum		key;
	ItemPointerData tid;
} LearnedEntry;

/* segments and pieces being produced by a build or a merge */
typedef struct LearnedSegmentSet
{
	LearnedSegment *segs;
	Size		nsegs;
	Size		maxsegs;
	LearnedPiece *pieces;
	Size		npieces;
	Size		maxpieces;
	uint64	   *zlo;			/* zone-map separator intervals (rough) */
	uint64	   *zhi;
	Size		nzones;
	Size		maxzones;
	double		err_sum;
	int32		err_max;
	int			mode;			/* LEARNED_MODE_* for new segments */
	bool		compression;	/* compress new segments' pages if the key allows */
	int			last_P;			/* the last compressed segment's capacity, or 0 */
} LearnedSegmentSet;

/* leaf.c, for the writers of compressed segments */
typedef struct LearnedCompressedPlan
{
	int			P;				/* entries per page */
	Size		n;				/* entries in the segment */
	uint32		npages;
	char	   *pages;			/* npages encoded areas, LEARNED_LEAF_SPACE apart */
	size_t		used[LEARNED_SEGMENT_MAX_PAGES];	/* bytes of each area */
} LearnedCompressedPlan;

extern bool LearnedPlanCompressed(const LearnedKeyInfo *ki, const LearnedEntry *entries,
								  Size n, int plain_cap, int hint,
								  LearnedCompressedPlan *plan);
extern BlockNumber LearnedWriteCompressedRun(Relation index, LearnedCompressedPlan *plan,
											 uint32 generation, bool building);
extern int	LearnedPlanVarwidth(const LearnedKeyInfo *ki, const LearnedEntry *entries,
								Size n, Size *cnt);
extern BlockNumber LearnedWriteVarRun(Relation index, const LearnedKeyInfo *ki,
									  const LearnedEntry *entries, Size n, int P,
									  uint32 generation, bool building);

extern void LearnedSortEntries(LearnedKeyInfo *ki, LearnedEntry *entries, Size n);
extern void LearnedCheckOrder(Relation index, const LearnedKeyInfo *ki,
							  const LearnedEntry *entries, Size n, bool building);
extern bool LearnedStringMapPlan(LearnedKeyInfo *ki, const LearnedEntry *entries, Size n);
extern BlockNumber LearnedWriteLeafRun(Relation index, const LearnedKeyInfo *ki,
									   const LearnedLeafLayout *layout,
									   uint16 type, const LearnedEntry *entries,
									   const ItemPointerData *tids, Size n,
									   uint32 generation, bool building);
extern void LearnedWriteSegments(Relation index, const LearnedKeyInfo *ki, int eps,
								 const LearnedEntry *entries, Size n,
								 uint32 generation, bool building,
								 LearnedSegmentSet *set);

/* ---------- directory.c: the LeCo-compressed directory ---------- */

extern BlockNumber LearnedWriteDirectory(Relation index, const LearnedSegmentSet *set,
										 uint32 generation, uint32 *npages,
										 bool building);
extern void LearnedDirDecode(Relation index, LearnedDirectory *dir, MemoryContext cxt);
extern void LearnedDirGetPiece(const LearnedDirectory *dir, const LearnedSegment *seg,
							   uint32 p, LearnedPiece *out);
extern uint64 LearnedDirGetZone(const LearnedDirectory *dir, uint32 z);
extern bool LearnedDirWindow(const LearnedDirectory *dir, uint64 hint,
							 uint32 *wlo, uint32 *whi, int *slots);
extern void LearnedDirWindowSeg(const LearnedDirectory *dir, uint32 segno, uint64 hint,
								bool local, uint32 *wlo, uint32 *whi, int *slots);
extern void LearnedSegmentSetAddZone(LearnedSegmentSet *set, uint64 lo, uint64 hi);
extern void LearnedChooseSegmentKind(LearnedSegmentSet *set, LearnedSegment *seg,
									 const LearnedEntry *entries, int P);
extern LearnedDirectory *LearnedGetDirectory(Relation index, uint32 generation);
extern void LearnedReleaseDirectory(LearnedDirectory *dir);
extern LearnedDirectory *LearnedReadMetaAndDirectory(Relation index,
													 LearnedMetaPageData *meta);

/* ---------- build.c ---------- */

extern IndexBuildResult *learnedbuild(Relation heap, Relation index,
									  struct IndexInfo *indexInfo);
extern void learnedbuildempty(Relation index);

/* ---------- insert.c ---------- */

extern bool learnedinsert(Relation index, Datum *values, bool *isnull,
						  ItemPointer ht_ctid, Relation heapRel,
						  IndexUniqueCheck checkUnique, bool indexUnchanged,
						  struct IndexInfo *indexInfo);

/* ---------- tail.c ---------- */

typedef enum LearnedAppendResult
{
	LEARNED_APPEND_DONE,		/* appended */
	LEARNED_APPEND_FULL,		/* (tail.c only) the tail page has no room */
	LEARNED_APPEND_RETRY,		/* unique: the check's reading cannot be verified */
	LEARNED_APPEND_DUPLICATE	/* unique: an equal key was appended since */
} LearnedAppendResult;

/* a unique insert's append: where its check stopped reading the list */
typedef struct LearnedAppendCheck
{
	uint64		seen;			/* sequence number after the last entry read */
	LearnedKeyInfo *ki;			/* the index's key info */
} LearnedAppendCheck;

extern LearnedAppendResult LearnedAppendEntry(Relation index, Datum *values, bool *isnull,
											  ItemPointer ht_ctid, LearnedMetaPageData *after,
											  uint64 *appendedp,
											  const LearnedAppendCheck *check,
											  bool *stale);
extern void LearnedAppendNoteMeta(Relation index, const LearnedMetaPageData *meta);

/* ---------- unique.c ---------- */

extern bool LearnedUniqueInsert(Relation index, Datum *values, bool *isnull,
								ItemPointer tid, Relation heapRel,
								IndexUniqueCheck checkUnique,
								struct IndexInfo *indexInfo);
extern void LearnedUniqueCheckBuild(Relation heap, Relation index, LearnedKeyInfo *ki,
									const LearnedEntry *entries, Size n,
									ItemPointerData *dead, Size ndead,
									Size live_nulls);

/* ---------- scan.c ---------- */

extern IndexScanDesc learnedbeginscan(Relation index, int nkeys, int norderbys);
extern void learnedrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
						  ScanKey orderbys, int norderbys);
extern bool learnedgettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 learnedgetbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void learnedendscan(IndexScanDesc scan);
extern void LearnedScanPark(IndexScanDesc scan);
extern void LearnedScanUnpark(IndexScanDesc scan);
extern uint64 LearnedScanPendingSeen(IndexScanDesc scan);
extern LearnedKeyInfo *LearnedScanKeyInfo(IndexScanDesc scan);
extern void learnedmarkpos(IndexScanDesc scan);
extern void learnedrestrpos(IndexScanDesc scan);

/* ---------- vacuum.c ---------- */

extern IndexBulkDeleteResult *learnedbulkdelete(IndexVacuumInfo *info,
												IndexBulkDeleteResult *stats,
												IndexBulkDeleteCallback callback,
												void *callback_state);
extern IndexBulkDeleteResult *learnedvacuumcleanup(IndexVacuumInfo *info,
												   IndexBulkDeleteResult *stats);

#endif							/* LEARNED_H */
