/*
 * page.c
 *		Page layout helpers, page and link checks, metapage access, and the
 *		GenericXLog wrappers every page change goes through.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/rmgr.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type_d.h"
#include "storage/lmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"

#include "learned.h"

/*
 * Compute the leaf layout for a key width: keys[P], tids[P], dead bitmap.
 * keylen 0 gives the NULL-page layout (TIDs only).
 */
void
LearnedLeafLayoutInit(LearnedLeafLayout *layout, int keylen)
{
	int			limit = BLCKSZ - MAXALIGN(sizeof(LearnedPageOpaqueData));
	int			cap;

	if (keylen < 0)
	{
		/* variable-width pages describe themselves (leaf.c) */
		memset(layout, 0, sizeof(*layout));
		layout->keylen = keylen;
		return;
	}

	/* bits per item: 8 * (key + tid) + 1 dead bit */
	cap = (int) (((Size) LEARNED_LEAF_SPACE * 8) /
				 (8 * (keylen + sizeof(ItemPointerData)) + 1));
	for (;;)
	{
		int			tids_off = LEARNED_LEAF_DATA_OFFSET + cap * keylen;
		int			dead_off;

		tids_off = TYPEALIGN(2, tids_off);
		dead_off = tids_off + cap * (int) sizeof(ItemPointerData);
		if (dead_off + (cap + 7) / 8 <= limit)
		{
			layout->keylen = keylen;
			layout->prefix_ok = false;
			layout->capacity = cap;
			layout->tids_off = tids_off;
			layout->dead_off = dead_off;
			layout->end_off = dead_off + (cap + 7) / 8;
			return;
		}
		cap--;
	}
}

/*
 * Initialize a page of any learned type.
 */
void
LearnedInitPage(Page page, uint16 type, uint32 generation)
{
	LearnedPageOpaque opaque;

	PageInit(page, BLCKSZ, sizeof(LearnedPageOpaqueData));
	opaque = LearnedPageGetOpaque(page);
	opaque->type = type;
	opaque->nitems = 0;
	opaque->generation = generation;
	opaque->next = InvalidBlockNumber;
	opaque->flags = 0;
	opaque->page_id = LEARNED_PAGE_ID;
}

/*
 * Give a freshly written leaf or NULL page its hint bitmap if its data left
 * room for one (LEARNED_LEAF_HINTS in learned.h).  pd_upper moves down to
 * the bitmap, so GenericXLog and full-page images keep it as data.  The
 * planners of compressed and variable-width pages leave the room.  Plain
 * and NULL pages have none: their layout reserves all of the index's
 * capacity (fixed at build, in the metapage) even on a partly filled page.
 */
void
LearnedLeafReserveHints(Page page)
{
	PageHeader	ph = (PageHeader) page;
	LearnedPageOpaque op = LearnedPageGetOpaque(page);
	Size		need = LEARNED_HINT_BYTES(op->nitems);

	if (op->nitems == 0 || (Size) ph->pd_lower + need > ph->pd_special)
		return;
	ph->pd_upper = ph->pd_special - need;
	memset((char *) page + ph->pd_upper, 0, need);
	op->flags |= LEARNED_LEAF_HINTS;
}

/*
 * Clear a page's hint bits: every WAL-logged change of a leaf page does, in
 * the image it logs (LearnedXLogRegister), so that the page a standby
 * replays (whose hint bits were never logged) is byte for byte the
 * primary's (wal_consistency_checking compares them).  The scans that set
 * the bits redo that work on their next visit.
 */
void
LearnedLeafClearHints(Page page)
{
	uint8	   *hints = LearnedLeafHints(page);

	if (hints)
		memset(hints, 0, LEARNED_HINT_BYTES(LearnedPageGetOpaque(page)->nitems));
}

/*
 * Set the hint bit of slot in a page's bitmap (LearnedLeafHints) under a
 * share lock; returns whether it was clear.  Other backends can set bits of
 * the same byte at the same time: the OR is atomic so that none is lost,
 * which also keeps the bits a checksum's hint image may carry to a standby
 * a subset of the primary's, all of which the next WAL-logged change clears.
 */
bool
LearnedHintSet(uint8 *hints, int slot)
{
	uint8		bit = (uint8) (1 << (slot & 7));

	if (hints[slot >> 3] & bit)
		return false;
	return (__atomic_fetch_or(&hints[slot >> 3], bit, __ATOMIC_RELAXED) & bit) == 0;
}

/*
 * Extend the index by one page; returns it exclusively locked.
 *
 * PostgreSQL 15 requires the caller of P_NEW to serialize extension.
 */
Buffer
LearnedNewBuffer(Relation index, ForkNumber forknum)
{
	Buffer		buf;
	bool		needLock = !RELATION_IS_LOCAL(index);

	if (needLock)
		LockRelationForExtension(index, ExclusiveLock);
	buf = ReadBufferExtended(index, forknum, P_NEW, RBM_NORMAL, NULL);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (needLock)
		UnlockRelationForExtension(index, ExclusiveLock);
	return buf;
}

void
LearnedReportCorrupt(Relation index, BlockNumber blkno, const char *what)
{
	/*
	 * On a standby, a page that is not what the scan expected was most
	 * likely recycled by a merge on the primary while this scan still used
	 * it (generic WAL carries no recovery conflicts): cancel, as a conflict.
	 */
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("canceling statement due to conflict with recovery"),
				 errdetail("Block %u of learned index \"%s\" changed under this scan (%s); a merge on the primary may have recycled it.",
						   blkno, RelationGetRelationName(index), what),
				 errhint("Set hot_standby_feedback = on to keep the primary from recycling pages that standby queries still read.")));
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("learned index \"%s\" is corrupted: %s at block %u",
					RelationGetRelationName(index), what, blkno),
			 errhint("REINDEX the index.")));
}

/* the error of LearnedCheckHeapTid (learned.h), out of line */
void
LearnedReportHeapTid(Relation index, ItemPointer tid)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("learned index \"%s\" is corrupted: invalid heap TID (%u,%u)",
					RelationGetRelationName(index),
					ItemPointerGetBlockNumberNoCheck(tid),
					ItemPointerGetOffsetNumberNoCheck(tid)),
			 errhint("REINDEX the index.")));
}

/*
 * Whether the relation has at least "end" blocks.  Block numbers read from
 * the metapage, the directory and pending pages are checked with it before
 * ReadBuffer, so that damage is reported as corruption, with the REINDEX
 * hint, rather than as md.c's "could not read block".
 *
 * The relation's size is cached per backend for the last few indexes
 * asked about (a row inserted into a table with several learned indexes
 * reads each one's pending tail), so that the hot paths pay a few
 * comparisons.  A cached size that is too small is looked up again (one
 * lseek) before the answer is no.  A page another backend just added is in
 * the file before any link to it: the extension writes it before the
 * link's WAL record.  A cached size can also be too large, after VACUUM
 * truncated a free tail (truncate_free_tail in merge.c), but only FREE
 * pages are cut, which no link names: only a damaged link then gets past
 * this check, and ReadBuffer's error reports the missing block instead.
 */
#define SIZE_CACHE_SIZE 8

bool
LearnedBlocksExist(Relation index, uint64 end)
{
	static struct
	{
		LiRelFile	node;
		BlockNumber nblocks;
	}			cache[SIZE_CACHE_SIZE];
	static int	next_victim = 0;
	int			i;

	for (i = 0; i < SIZE_CACHE_SIZE; i++)
		if (LiRelFileEquals(cache[i].node, LI_REL_FILE(index)))
			break;
	if (i == SIZE_CACHE_SIZE)
	{
		i = next_victim;
		next_victim = (next_victim + 1) % SIZE_CACHE_SIZE;
		cache[i].node = LI_REL_FILE(index);
		cache[i].nblocks = 0;
	}
	if (end <= cache[i].nblocks)
		return true;
	cache[i].nblocks = RelationGetNumberOfBlocks(index);
	return end <= cache[i].nblocks;
}

/*
 * Check a link of the pending chain (the metapage's head or tail, or a
 * page's next) before ReadBuffer follows it, and end a walk that a damaged
 * link turned into a loop instead of following it forever (a merge in a
 * background worker has no statement_timeout, and the garbage collector
 * walks under the metapage's lock, which holds off interrupts).  "steps",
 * if not NULL, counts the links a walk has followed: a chain with more
 * links than the relation has blocks loops.
 */
void
LearnedCheckLink(Relation index, BlockNumber blkno, uint32 *steps)
{
	if (!LearnedBlocksExist(index, (uint64) blkno + 1))
		LearnedReportCorrupt(index, blkno, "pending chain link past the end of the index");
	if (steps != NULL && !LearnedBlocksExist(index, ++(*steps)))
		LearnedReportCorrupt(index, blkno, "the pending chain loops");
}

/*
 * A packed run data page's header (learned.h, LearnedPackedHeader): every
 * width within its field's type, the entries within the page's bound, and
 * the fields inside the page, ending at pd_lower with LECO_PAD_BYTES
 * before the page's end, so that no read of any slot below count leaves
 * the page, whatever the fields hold.  O(1): every reader of a pending
 * page runs it.  Whether the key width is the index's is checked where a
 * key is read (LearnedPendingKeyAt), the fields' values by
 * learned_index_check.
 */
static void
check_packed_header(Relation index, Page page, BlockNumber blkno)
{
	const LearnedPackedHeader *ph = LearnedPackedGetHeader(page);

	if (ph->keylen < 1 || ph->keylen > sizeof(uint64) ||
		ph->key_bits > 8 * ph->keylen || ph->blk_bits > 32 || ph->off_bits > 16 ||
		ph->count > LEARNED_PACKED_MAX_ENTRIES || ph->nkeys > ph->count ||
		ph->pad != 0 ||
		LearnedPackedEnd(ph->count, ph->nkeys, ph->key_bits, ph->blk_bits,
						 ph->off_bits) != ((PageHeader) page)->pd_lower ||
		((PageHeader) page)->pd_lower + LECO_PAD_BYTES > BLCKSZ)
		LearnedReportCorrupt(index, blkno, "bad packed run page header");
}

/*
 * Validate a page read from disk: page id, type, and item count.
 */
void
LearnedCheckPage(Relation index, Page page, BlockNumber blkno,
				 uint16 expected_type)
{
	LearnedPageOpaque opaque;

	if (PageIsNew(page))
		LearnedReportCorrupt(index, blkno, "unexpected all-zero page");
	if (((PageHeader) page)->pd_special !=
		BLCKSZ - MAXALIGN(sizeof(LearnedPageOpaqueData)))
		LearnedReportCorrupt(index, blkno, "bad special space");
	opaque = LearnedPageGetOpaque(page);
	if (opaque->page_id != LEARNED_PAGE_ID)
		LearnedReportCorrupt(index, blkno, "bad page id");
	/* the types say which reader met which page: a recycled page reads as FREE (6) */
	if (expected_type != 0 && opaque->type != expected_type)
		LearnedReportCorrupt(index, blkno,
							 psprintf("unexpected page type %u (expected %u, page generation %u)",
									  opaque->type, expected_type, opaque->generation));
	/* pending pages: no page flags but the hint's and the packed layout's */
	if (opaque->type == LEARNED_PAGE_PENDING &&
		(opaque->flags & ~(LEARNED_PENDING_PAGE_HINTED | LEARNED_PENDING_PAGE_PACKED)) != 0)
		LearnedReportCorrupt(index, blkno, "bad pending page flags");
	if (opaque->type == LEARNED_PAGE_PENDING &&
		(opaque->flags & LEARNED_PENDING_PAGE_PACKED) != 0)
		check_packed_header(index, page, blkno);
}

/*
 * The type of a learned page, or 0 for an all-zero page or anything that
 * is not a learned page.  For walks over every block (garbage collection,
 * VACUUM of retired pages), which must not error out on a page a crash left
 * uninitialized.
 */
uint16
LearnedPageKind(Page page)
{
	if (PageIsNew(page) ||
		((PageHeader) page)->pd_special != BLCKSZ - MAXALIGN(sizeof(LearnedPageOpaqueData)) ||
		LearnedPageGetOpaque(page)->page_id != LEARNED_PAGE_ID)
		return 0;
	return LearnedPageGetOpaque(page)->type;
}

/*
 * Validate the metapage contents: magic and on-disk format version.
 */
void
LearnedCheckMeta(Relation index, LearnedMetaPage meta)
{
	if (meta->magic != LEARNED_MAGIC)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a valid learned index",
						RelationGetRelationName(index)),
				 errhint("REINDEX the index.")));
	if (meta->version != LEARNED_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("learned index \"%s\" has on-disk format version %u, but this build reads version %u",
						RelationGetRelationName(index), meta->version,
						LEARNED_VERSION),
				 errhint("REINDEX the index.")));
	if (meta->nruns > LEARNED_MAX_RUNS)
		LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad run table");
	if ((meta->keylen <= 0 && meta->keylen != LEARNED_VARWIDTH) ||
		meta->keylen > (int) (LEARNED_LEAF_SPACE / 4) ||
		meta->items_per_page == 0 ||
		(meta->keylen == LEARNED_VARWIDTH && meta->items_per_page != LEARNED_VW_MAX_ITEMS))
		LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad metapage");

	/*
	 * The key type and stored width are frozen at build and follow from the
	 * index's columns (LearnedKeyColumnsInit).  Check them here, where it
	 * costs two comparisons, and not only where the key map is loaded:
	 * inserts format their record from meta->keylen inside a critical
	 * section, where a bad width would be a PANIC, not an ERROR.
	 */
	if (meta->keytype != index->rd_opcintype[0] ||
		meta->keylen != (IndexRelationGetNumberOfAttributes(index) > 1 ?
						 LEARNED_VARWIDTH : learned_type_keylen(meta->keytype)))
		LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO,
							 "key type or width does not match the index");
}

/*
 * ReadBuffer, trying first the buffer that held the block last time
 * (*recent, InvalidBuffer at first), which skips the buffer mapping
 * lookup.  For the pages every scan reads (the metapage, the pending
 * list's tail): in a nested-loop join the lookup was a visible part of
 * each rescan.  *recent is a hint only: ReadRecentBuffer checks the
 * buffer's tag and pins it, or fails and we read normally.
 */
Buffer
LearnedReadBufferRecent(Relation index, BlockNumber blkno, Buffer *recent)
{
	if (LearnedPinRecentBuffer(index, blkno, *recent))
		return *recent;
	*recent = ReadBuffer(index, blkno);
	return *recent;
}

/*
 * Pin recent if it still holds block blkno of the index, and say whether
 * it did; read nothing otherwise.
 */
bool
LearnedPinRecentBuffer(Relation index, BlockNumber blkno, Buffer recent)
{
	if (!BufferIsValid(recent) ||
		!ReadRecentBuffer(LI_REL_FILE(index), MAIN_FORKNUM, blkno, recent))
		return false;

	/*
	 * ReadBuffer counts every access as a fetch and, when found in shared
	 * buffers, also as a hit (pg_statio's reads are fetches minus hits):
	 * count both, or the reads come out negative.
	 */
	pgstat_count_buffer_read(index);
	pgstat_count_buffer_hit(index);
	return true;
}

/*
 * Copy the metapage under a share lock.
 */
void
LearnedReadMeta(Relation index, LearnedMetaPageData *copy)
{
	Buffer		recent = InvalidBuffer;

	LearnedReadMetaRecent(index, copy, &recent);
}

/*
 * The merge counters: the metapage's nmerges and, read under the same lock,
 * the merge statistics after the key map.
 */
void
LearnedReadMergeStats(Relation index, uint64 *nmerges, LearnedMergeStatsData *stats)
{
	Buffer		buf = ReadBuffer(index, LEARNED_METAPAGE_BLKNO);
	Page		page;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	LearnedCheckPage(index, page, LEARNED_METAPAGE_BLKNO, LEARNED_PAGE_META);
	LearnedCheckMeta(index, LearnedPageGetMeta(page));
	*nmerges = LearnedPageGetMeta(page)->nmerges;
	memcpy(stats, LearnedPageGetMergeStats(page), sizeof(LearnedMergeStatsData));
	UnlockReleaseBuffer(buf);
}

/* LearnedReadMeta, for callers that keep the metapage's last buffer */
void
LearnedReadMetaRecent(Relation index, LearnedMetaPageData *copy, Buffer *recent)
{
	Buffer		kept = InvalidBuffer;
	XLogRecPtr	lsn = InvalidXLogRecPtr;

	LearnedReadMetaKept(index, copy, &kept, recent, &lsn, NULL);
	ReleaseBuffer(kept);
}

/*
 * The metapage copy of a scan that keeps the metapage pinned from its first
 * view to its end (*kept: InvalidBuffer at first, then read, through the
 * hint *recent, and left pinned; the caller releases it).  Copies the page
 * under a share lock, unless its LSN is still *lsn, the LSN of the page
 * that *copy was taken from.  Returns whether it copied.
 *
 * Why the LSN tells: every change of the metapage is WAL-logged
 * (GenericXLog, LearnedXLogRanges), each sets the page's LSN to its
 * record's, which is larger than every earlier one, and a standby's replay
 * sets it too; a writer changes the page and its LSN under the exclusive
 * lock.  So under our share lock an unchanged LSN is an unchanged page,
 * and the copy is what a fresh copy would be.  An index that writes no WAL
 * (unlogged, temporary, or made in this transaction under wal_level =
 * minimal) keeps its LSN: *lsn stays invalid, and its page is copied every
 * time.  Nothing takes a cleanup lock on the metapage, so the kept pin
 * holds up no one; the lock is taken and released here alone, never with
 * another page's, as a fresh copy takes it.
 */
bool
LearnedReadMetaKept(Relation index, LearnedMetaPageData *copy, Buffer *kept,
					Buffer *recent, XLogRecPtr *lsn, LearnedKeyMapData *map)
{
	Page		page;
	XLogRecPtr	now;

	if (!BufferIsValid(*kept))
		*kept = LearnedReadBufferRecent(index, LEARNED_METAPAGE_BLKNO, recent);
	LockBuffer(*kept, BUFFER_LOCK_SHARE);
	page = BufferGetPage(*kept);
	now = PageGetLSN(page);
	if (!XLogRecPtrIsInvalid(*lsn) && now == *lsn)
	{
		LockBuffer(*kept, BUFFER_LOCK_UNLOCK);
		return false;
	}
	LearnedCheckPage(index, page, LEARNED_METAPAGE_BLKNO, LEARNED_PAGE_META);
	memcpy(copy, LearnedPageGetMeta(page), sizeof(LearnedMetaPageData));
	if (map)
		memcpy(map, LearnedPageGetKeyMap(page), sizeof(LearnedKeyMapData));
	LockBuffer(*kept, BUFFER_LOCK_UNLOCK);
	/* a copy that fails the check is not one to keep */
	*lsn = InvalidXLogRecPtr;
	LearnedCheckMeta(index, copy);
	if (RelationNeedsWAL(index))
		*lsn = now;
	return true;
}

/*
 * The key's columns and stored layout, from the relation (no page read);
 * with_cmp also looks up the comparators (inserts do not need them).
 */
void
LearnedKeyColumnsInit(Relation index, LearnedKeyInfo *ki, bool with_cmp)
{
	int			natts = IndexRelationGetNumberOfAttributes(index);
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	int			off;
	bool		varwidth = false;
	int			i;

	ki->natts = natts;
	ki->nkeys = nkeys;
	ki->keytype = index->rd_opcintype[0];
	ki->collation = index->rd_indcollation[0];
	ki->cols = palloc0(sizeof(LearnedColumn) * natts);
	ki->nullbytes = natts > 1 ? (natts + 7) / 8 : 0;
	off = ki->nullbytes;
	for (i = 0; i < natts; i++)
	{
		LearnedColumn *c = &ki->cols[i];

		/* INCLUDE columns: stored, never compared (no opclass, no options) */
		c->type = i < nkeys ? index->rd_opcintype[i] :
			TupleDescAttr(RelationGetDescr(index), i)->atttypid;
		c->width = (int16) learned_type_keylen(c->type);
		c->varlena = c->width == LEARNED_VARWIDTH;
		if (c->varlena)
		{
			/* after the fixed part, in column order (keymap.c) */
			c->offset = -1;
			varwidth = true;
		}
		else
		{
			/* by-reference columns (uuid, interval) are read in place: align */
			if (natts > 1 && c->width > 8)
				off = TYPEALIGN(8, off);
			c->offset = (int16) off;
			off += c->width;
		}
		if (i >= nkeys)
			continue;
		c->collation = index->rd_indcollation[i];
		c->cxt = CurrentMemoryContext;
		/* a single column is stored ascending, NULLs apart */
		c->desc = natts > 1 && (index->rd_indoption[i] & INDOPTION_DESC) != 0;
		c->nulls_first = natts > 1 && (index->rd_indoption[i] & INDOPTION_NULLS_FIRST) != 0;
		c->exact = learned_type_exact(c->type);
		if (with_cmp)
			fmgr_info_copy(&c->cmp, index_getprocinfo(index, i + 1, 1),
						   CurrentMemoryContext);
	}
	ki->keylen = natts > 1 ? off : ki->cols[0].width;
	ki->byref = natts > 1 || ki->cols[0].width > 8 || varwidth;
	ki->fixedalign = 1;
	/* keep every stored key 8-aligned when a column is read in place */
	for (i = 0; i < natts; i++)
		if (natts > 1 && ki->cols[i].width > 8)
		{
			ki->keylen = TYPEALIGN(8, ki->keylen);
			ki->fixedalign = 8;
		}
	ki->fixedlen = natts > 1 ? ki->keylen : 0;
	ki->fixedonly = natts > 1 && !varwidth;

	/*
	 * Composite keys (and INCLUDE lists) live on variable-width pages even
	 * when every column is fixed-width: their pages store the keys' common
	 * prefix once (leaf.c), which for keys sorted on leading columns is
	 * most of each key (TPC-C's (w_id, d_id, o_id): 9 of 13 bytes).
	 */
	if (varwidth || natts > 1)
		ki->keylen = LEARNED_VARWIDTH;
	if (with_cmp)
		ki->cmp = ki->cols[0].cmp;
	memset(&ki->map, 0, sizeof(ki->map));
	ki->map.natts = (uint16) nkeys;
	ki->map_serial = 0;
	ki->order = 0;
	LearnedLeafLayoutInit(&ki->layout, ki->keylen);
	/*
	 * One column whose value is its bytes, or a fixed-width one by
	 * reference (packed segments): pages store a common prefix once.
	 */
	ki->layout.prefix_ok = natts > 1 || (varwidth && LearnedKeyLocalImages(ki)) ||
		LearnedKeyPackable(ki);
	ki->bytewise = natts == 1 &&
		((varwidth && (ki->keytype == BYTEAOID ||
					   (ki->keytype == TEXTOID && OidIsValid(ki->collation) &&
						lc_collate_is_c(ki->collation)))) ||
		 (LearnedKeyPackable(ki) && ki->keytype == UUIDOID));
}

void
LearnedKeyInfoInit(Relation index, LearnedKeyInfo *ki)
{
	LearnedKeyColumnsInit(index, ki, true);
}

/*
 * Read the key map frozen in the metapage: a composite key's packing, or a
 * single string column's shared prefix.
 */
void
LearnedKeyInfoLoadMap(Relation index, LearnedKeyInfo *ki)
{
	Buffer		buf;
	Page		page;
	LearnedKeyMapData *map;
	int			keylen;

	/* a single non-string column's image needs no map: save the read */
	if (!LearnedKeyIsComposite(ki) && !LearnedKeyLocalImages(ki))
		return;
	buf = ReadBuffer(index, LEARNED_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	LearnedCheckPage(index, page, LEARNED_METAPAGE_BLKNO, LEARNED_PAGE_META);
	LearnedCheckMeta(index, LearnedPageGetMeta(page));
	map = LearnedPageGetKeyMap(page);
	memcpy(&ki->map, map, sizeof(LearnedKeyMapData));
	keylen = LearnedPageGetMeta(page)->keylen;
	UnlockReleaseBuffer(buf);
	if (ki->map.natts != ki->nkeys || ki->map.npacked > ki->nkeys ||
		keylen != ki->keylen || ki->map.str_skip > LEARNED_STR_PREFIX_MAX ||
		(!LearnedKeyIsComposite(ki) && ki->map.npacked != 0))
		LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "key map does not match the index");
	LearnedStringMapApply(ki);
}

/* templates built in this backend (a serial, never 0) */
static uint32 map_loads = 0;

/*
 * A scan's key info (and an append's).  LearnedKeyInfoInit and
 * LearnedKeyInfoLoadMap run once per relcache entry; their result is kept
 * flat (the struct, then its columns) in rd_amcache, which a relcache
 * invalidation frees (a REINDEX gives a new relfilenode and so a new key
 * map, an ALTER INDEX new options).  Each scan takes a copy, since a
 * relcache invalidation may free rd_amcache while the scan runs; the copy's
 * comparators get the scan's memory for their fn_extra, and its columns
 * make their own string image state.  Setting all this up from the catalogs
 * (support functions, type switches, for a string or composite key the
 * metapage read of its map) was about a third of a point lookup's scan
 * start (perf).
 */
void
LearnedKeyInfoForScan(Relation index, LearnedKeyInfo *ki)
{
	LearnedKeyInfo *t = (LearnedKeyInfo *) index->rd_amcache;
	int			i;

	if (t == NULL)
	{
		LearnedKeyInfo built;
		Size		head = MAXALIGN(sizeof(LearnedKeyInfo));

		memset(&built, 0, sizeof(built));
		LearnedKeyInfoInit(index, &built);
		LearnedKeyInfoLoadMap(index, &built);
		/*
		 * A merge into an empty index plans a new map, and its relcache
		 * invalidation reaches this backend only when it next takes a new
		 * lock, so a transaction may keep using the old one for a while
		 * (images that mislead the models cost reads, never answers).  But
		 * images of two maps must not meet in one sorted pending copy: the
		 * serial tells LearnedPendingGet that the map may have changed.
		 */
		map_loads = map_loads == PG_UINT32_MAX ? 1 : map_loads + 1;
		built.map_serial = map_loads;
		(void) LearnedKeyOrderOf(&built);
		t = MemoryContextAlloc(index->rd_indexcxt,
							   head + sizeof(LearnedColumn) * built.natts);
		memcpy(t, &built, sizeof(LearnedKeyInfo));
		t->cols = (LearnedColumn *) ((char *) t + head);
		memcpy(t->cols, built.cols, sizeof(LearnedColumn) * built.natts);
		pfree(built.cols);
		/* nothing in the template points into memory it does not own */
		t->cmp.fn_extra = NULL;
		for (i = 0; i < t->natts; i++)
		{
			t->cols[i].cmp.fn_extra = NULL;
			t->cols[i].strmap = NULL;
			t->cols[i].cxt = NULL;
		}
		index->rd_amcache = t;
	}
	memcpy(ki, t, sizeof(LearnedKeyInfo));
	ki->cols = palloc(sizeof(LearnedColumn) * t->natts);
	memcpy(ki->cols, t->cols, sizeof(LearnedColumn) * t->natts);
	ki->cmp.fn_mcxt = CurrentMemoryContext;
	for (i = 0; i < ki->natts; i++)
	{
		ki->cols[i].cmp.fn_mcxt = CurrentMemoryContext;
		ki->cols[i].cxt = CurrentMemoryContext;
	}
}

/* ---------- GenericXLog wrappers ---------- */

GenericXLogState *
LearnedXLogStart(Relation index)
{
	return GenericXLogStart(index);
}

/*
 * Register a buffer; a new (or fully rewritten) page is logged as a full
 * image, anything else as a delta.
 *
 * A leaf or NULL page's hint bits are cleared in the image: they were never
 * logged, so the standby's copy has none, and the delta covers only the
 * bytes that change, while wal_consistency_checking compares the whole page.
 * Every writer of such a page goes through here: VACUUM's dead marks, and
 * garbage collection's stamp and FREE mark on a retired page, which a scan
 * whose view predates the merge may have hinted.
 */
Page
LearnedXLogRegister(GenericXLogState *state, Buffer buf, bool newpage)
{
	Page		page;

	/*
	 * A pending page whose run entries carry hints (LEARNED_PENDING_HINT):
	 * they lie in the records, between bytes the change may touch, and the
	 * writers (VACUUM's dead marks, a flush's link, garbage collection's
	 * stamp) are rare next to a scan's visits, so the page is logged whole,
	 * hints included, rather than cleared record by record (which would
	 * need the record width, and would lose them).
	 */
	if (!newpage)
	{
		Page		cur = BufferGetPage(buf);

		if (LearnedPageKind(cur) == LEARNED_PAGE_PENDING &&
			(LearnedPageGetOpaque(cur)->flags & LEARNED_PENDING_PAGE_HINTED))
			newpage = true;
	}
	page = GenericXLogRegisterBuffer(state, buf,
									 newpage ? GENERIC_XLOG_FULL_IMAGE : 0);

	if (!newpage && (LearnedPageKind(page) == LEARNED_PAGE_LEAF ||
					 LearnedPageKind(page) == LEARNED_PAGE_NULLS))
		LearnedLeafClearHints(page);
	return page;
}

void
LearnedXLogFinish(GenericXLogState *state)
{
	GenericXLogFinish(state);
}

/*
 * Append to delta the fragments (GenericXLog's format: offset and length as
 * OffsetNumbers, then the bytes) that turn old into new over [off, off +
 * len): runs of changed bytes, where a run of at most a fragment header's
 * size of unchanged bytes joins its neighbours (a new fragment would cost
 * more).  old NULL: the whole range.
 */
static char *
delta_append(char *delta, const char *page, const LearnedByteRange *r)
{
	const int	join = 2 * sizeof(OffsetNumber);
	int			i = 0;

	while (i < r->len)
	{
		int			begin,
					end;
		OffsetNumber fo,
					fl;

		if (r->old != NULL)
		{
			/* the next changed byte, then the run up to a long enough match */
			while (i < r->len && r->old[i] == page[r->off + i])
				i++;
			if (i >= r->len)
				break;
			begin = i;
			end = i + 1;
			for (i = end; i < r->len; i++)
			{
				if (r->old[i] != page[r->off + i])
					end = i + 1;
				else if (i - end >= join)
					break;
			}
		}
		else
		{
			begin = 0;
			end = r->len;
		}
		fo = (OffsetNumber) (r->off + begin);
		fl = (OffsetNumber) (end - begin);
		memcpy(delta, &fo, sizeof(fo));
		memcpy(delta + sizeof(fo), &fl, sizeof(fl));
		memcpy(delta + 2 * sizeof(OffsetNumber), page + fo, fl);
		delta += 2 * sizeof(OffsetNumber) + fl;
		i = end;
	}
	return delta;
}

/*
 * Log byte ranges of one page that the caller has just changed in place, in
 * a critical section, as a generic WAL record: RM_GENERIC_ID, one block
 * reference (standard page layout), whose data is GenericXLog's delta
 * format.  The core's generic_redo replays it as it replays
 * GenericXLogFinish's records, with no custom resource manager, so the
 * standby, crash recovery and wal_consistency_checking = 'generic' see no
 * difference.  What it saves is GenericXLog's work on a page it does not
 * know: a 64 kB state, an 8 kB copy of the page, a byte-by-byte comparison
 * of its used part, and a copy back that zeroes the hole.  For a pending
 * append that was most of the insert's own cost.
 *
 * A range with old bytes (its content before the change) logs only the
 * bytes that changed, which is what GenericXLog does below pd_lower.  It
 * may also skip bytes that were in the hole, where GenericXLog logs all of
 * them: the hole is zero on this page (GenericXLog zeroes it, and nothing
 * here writes into it) and on the standby's (redo zeroes it after applying
 * a generic record, and a restored full-page image has it zeroed), so zero
 * bytes written there are already there.  For an int8 append that makes
 * the record 64 bytes, btree's INSERT_LEAF size, not 72.
 *
 * The caller must leave the hole (pd_lower to pd_upper) zero, pass the
 * ranges in ascending order, and hold the buffer exclusively.  This marks
 * the buffer dirty and sets the page's LSN; an unlogged index writes no
 * WAL, as with GenericXLog.
 */
void
LearnedXLogRanges(Relation index, Buffer buf, const LearnedByteRange *ranges,
				  int nranges)
{
	Page		page = BufferGetPage(buf);
	union
	{
		/*
		 * A diffed range of LEARNED_XLOG_DIFF_MAX (64) bytes makes at most 11
		 * fragments, 108 bytes
		 */
		char		data[BLCKSZ + LEARNED_XLOG_MAX_RANGES * 2 * LEARNED_XLOG_DIFF_MAX];
		double		force_align_d;
	}			delta;
	char	   *end = delta.data;
	XLogRecPtr	lsn;
	int			i;

	Assert(CritSectionCount > 0);
	Assert(nranges <= LEARNED_XLOG_MAX_RANGES);
	/* the tail page: never hinted (tail.c refuses one that is) */
	Assert(!(LearnedPageGetOpaque(page)->flags & LEARNED_PENDING_PAGE_HINTED));
	MarkBufferDirty(buf);
	if (!RelationNeedsWAL(index))
		return;
	for (i = 0; i < nranges; i++)
	{
		Assert(i == 0 || ranges[i].off >= ranges[i - 1].off + ranges[i - 1].len);
		Assert(ranges[i].off + ranges[i].len <= BLCKSZ);
		/* only short ranges are diffed: their fragments fit the buffer */
		Assert(ranges[i].old == NULL || ranges[i].len <= LEARNED_XLOG_DIFF_MAX);
		end = delta_append(end, (const char *) page, &ranges[i]);
	}
	XLogBeginInsert();
	XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
	if (end > delta.data)
		XLogRegisterBufData(0, delta.data, end - delta.data);
	lsn = XLogInsert(RM_GENERIC_ID, 0);
	PageSetLSN(page, lsn);
}
