/*
 * leaf.c
 *		Compressed leaf pages on the PostgreSQL side: which keys compress,
 *		the per-segment page capacity, writing compressed runs, and the leaf
 *		view every reader goes through (plain or compressed page alike).
 *
 * A compressed leaf page has LEARNED_LEAF_COMPRESSED in its opaque flags
 * and, at LEARNED_LEAF_DATA_OFFSET, the area of leafcodec.h: a header, the
 * dead bitmap (at a fixed offset, so the dead-bit accessors of learned.h
 * need no decoding), then the keys' images, the TIDs' block numbers and
 * their offsets as LeCo runs.  pd_lower covers the area, so GenericXLog
 * keeps it.
 *
 * Every page of a segment holds the same number of entries P (but the
 * last), so an entry's rank still gives its page and slot by arithmetic;
 * P is chosen per segment when it is written (the largest P for which
 * every page of the segment fits) and stored in the directory.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
#include "access/xloginsert.h"
#include "miscadmin.h"

#include "learned.h"

/*
 * How a single-column key of this index is imaged for a compressed page,
 * or LEARNED_CKEY_NONE if its pages stay plain.  Composite keys and
 * INCLUDE columns, floats (the stored bits are not an integer order),
 * bool, uuid and interval stay plain.
 */
int
LearnedCompressKeyKind(const LearnedKeyInfo *ki)
{
	if (ki->natts != 1)
		return LEARNED_CKEY_NONE;
	switch (ki->keytype)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case TIMEOID:
			return LEARNED_CKEY_SIGNED;
		case OIDOID:
			return LEARNED_CKEY_UNSIGNED;
		default:
			return LEARNED_CKEY_NONE;
	}
}

/* the order-preserving image of a key (compressible kinds only) */
static inline uint64
key_image(const LearnedKeyInfo *ki, Datum key)
{
	switch (ki->keylen)
	{
		case 2:
			return leco_i64_to_u64((int64) DatumGetInt16(key));
		case 4:
			if (ki->keytype == OIDOID)
				return (uint64) DatumGetObjectId(key);
			return leco_i64_to_u64((int64) DatumGetInt32(key));
		default:
			return leco_i64_to_u64(DatumGetInt64(key));
	}
}

/* the key back from its image: exactly the Datum learned_fetch_key gives */
Datum
LearnedLeafImageKey(const LearnedKeyInfo *ki, uint64 image)
{
	switch (ki->keylen)
	{
		case 2:
			return Int16GetDatum((int16) leco_u64_to_i64(image));
		case 4:
			if (ki->keytype == OIDOID)
				return ObjectIdGetDatum((Oid) image);
			return Int32GetDatum((int32) leco_u64_to_i64(image));
		default:
			return Int64GetDatum(leco_u64_to_i64(image));
	}
}

/*
 * Open a leaf page (keys or NULLs) for reading: a plain page needs nothing,
 * a compressed one is validated (header, runs, counts, residual widths);
 * damage is reported as corruption.  The caller holds a lock on the page.
 */
void
LearnedLeafOpen(Relation index, Page page, BlockNumber blkno,
				const LearnedLeafLayout *layout, LearnedLeafView *v)
{
	LearnedPageOpaque opaque = LearnedPageGetOpaque(page);

	v->page = page;
	v->layout = layout;
	v->compressed = (opaque->flags & LEARNED_LEAF_COMPRESSED) != 0;
	if (!v->compressed)
	{
		v->nitems = Min(opaque->nitems, layout->capacity);
		return;
	}
	else
	{
		PageHeader	ph = (PageHeader) page;
		size_t		avail;

		if (opaque->type != LEARNED_PAGE_LEAF || layout->keylen == 0 ||
			ph->pd_lower < LEARNED_LEAF_DATA_OFFSET ||
			ph->pd_lower > LEARNED_LEAF_DATA_OFFSET + LEARNED_LEAF_SPACE)
			LearnedReportCorrupt(index, blkno, "bad compressed leaf page header");
		avail = ph->pd_lower - LEARNED_LEAF_DATA_OFFSET;
		if (!lcp_open((const uint8 *) page + LEARNED_LEAF_DATA_OFFSET, avail,
					  opaque->nitems, &v->lcp))
			LearnedReportCorrupt(index, blkno, "bad compressed leaf page");
		v->nitems = opaque->nitems;
	}
}

/* the out-of-line half of LearnedLeafViewKey */
Datum
LearnedLeafCompressedKey(const LearnedLeafView *v, const LearnedKeyInfo *ki, int slot)
{
	return LearnedLeafImageKey(ki, lcp_key(&v->lcp, (uint32) slot));
}

ItemPointerData
LearnedLeafCompressedTid(const LearnedLeafView *v, int slot)
{
	ItemPointerData tid;

	ItemPointerSet(&tid, lcp_block(&v->lcp, (uint32) slot),
				   lcp_offset(&v->lcp, (uint32) slot));
	return tid;
}

/*
 * learned_index_check: the entry at slot of a compressed page decodes to a
 * value of the key type (its image round-trips) and a valid TID.
 */
bool
LearnedLeafCheckSlot(const LearnedLeafView *v, const LearnedKeyInfo *ki, int slot)
{
	uint64		image = lcp_key(&v->lcp, (uint32) slot);
	uint64		blk = leco_get(v->lcp.blocks, (uint32) slot);
	uint64		off = leco_get(v->lcp.offsets, (uint32) slot);

	if (key_image(ki, LearnedLeafImageKey(ki, image)) != image)
		return false;
	return blk < MaxBlockNumber && off >= FirstOffsetNumber && off <= MaxOffsetNumber;
}

/* scratch columns for encoding a page */
typedef struct PageCols
{
	uint64	   *keys;
	uint64	   *blocks;
	uint64	   *offsets;
	uint8	   *area;
} PageCols;

static void
page_cols_init(PageCols *pc)
{
	pc->keys = palloc(sizeof(uint64) * LCP_MAX_ITEMS);
	pc->blocks = palloc(sizeof(uint64) * LCP_MAX_ITEMS);
	pc->offsets = palloc(sizeof(uint64) * LCP_MAX_ITEMS);
	pc->area = palloc(BLCKSZ);
}

static void
page_cols_free(PageCols *pc)
{
	pfree(pc->keys);
	pfree(pc->blocks);
	pfree(pc->offsets);
	pfree(pc->area);
}

/*
 * Encode entries[0..n-1] into area (LEARNED_LEAF_SPACE bytes).  Returns
 * LCP_OK or LCP_NOFIT; *used is the size used, or needed.
 */
static int
encode_chunk(const LearnedKeyInfo *ki, const LearnedEntry *entries, uint32 n,
			 PageCols *pc, uint8 *area, size_t *used)
{
	uint32		i;
	int			rc;

	for (i = 0; i < n; i++)
	{
		pc->keys[i] = key_image(ki, entries[i].key);
		pc->blocks[i] = ItemPointerGetBlockNumberNoCheck(&entries[i].tid);
		pc->offsets[i] = ItemPointerGetOffsetNumberNoCheck(&entries[i].tid);
	}
	rc = lcp_encode(pc->keys, pc->blocks, pc->offsets, n, area,
					LEARNED_LEAF_SPACE, used);
	if (rc == LCP_NOMEM)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory while compressing a learned index leaf page")));
	return rc;
}

/*
 * The page capacity of the next compressed segment of entries[0..n-1]: the
 * largest P (up to LCP_MAX_ITEMS, found by scaling from the sizes the
 * encoder reports) such that every chunk of P entries of the segment
 * (its first min(n, LEARNED_SEGMENT_MAX_PAGES * P) entries) fits on a page.
 * Returns 0 if that P is not above plain_cap: the segment stays plain.
 */
int
LearnedChooseCapacity(const LearnedKeyInfo *ki, const LearnedEntry *entries,
					  Size n, int plain_cap)
{
	PageCols	pc;
	int			P = (int) Min((Size) LCP_MAX_ITEMS, n);
	int			result = 0;
	size_t		used;

	page_cols_init(&pc);
	for (;;)
	{
		Size		range = Min(n, (Size) LEARNED_SEGMENT_MAX_PAGES * P);
		Size		done;
		int			newP = P;

		if (P <= plain_cap)
			break;
		/*
		 * One pass over the segment's chunks: the worst chunk gives the next
		 * P (1% under the proportional estimate, and strictly smaller).
		 */
		for (done = 0; done < range; done += P)
		{
			uint32		cnt = (uint32) Min((Size) P, range - done);

			if (encode_chunk(ki, entries + done, cnt, &pc, pc.area, &used) != LCP_OK)
			{
				double		scaled = (double) cnt * LEARNED_LEAF_SPACE / Max(used, 1) * 0.99;
				int			cand = (int) Min(scaled, (double) (P - 1));

				newP = Min(newP, Max(cand, 1));
			}
			CHECK_FOR_INTERRUPTS();
		}
		if (newP == P)
		{
			result = P;
			break;
		}
		P = newP;
	}
	page_cols_free(&pc);
	return result;
}

/*
 * Write entries[0..n-1] as compressed pages of P entries (the last page
 * the rest) on freshly allocated contiguous blocks, like
 * LearnedWriteLeafRun.  P comes from LearnedChooseCapacity on the same
 * entries, so every page fits.
 */
BlockNumber
LearnedWriteCompressedRun(Relation index, const LearnedKeyInfo *ki, int P,
						  const LearnedEntry *entries, Size n,
						  uint32 generation, bool building)
{
	uint32		npages = (uint32) ((n + P - 1) / P);
	BlockNumber first = LearnedAllocRun(index, npages, building);
	Size		done = 0;
	uint32		pg;
	PageCols	pc;

	page_cols_init(&pc);
	for (pg = 0; pg < npages; pg++)
	{
		Buffer		buf = ReadBuffer(index, first + pg);
		Page		page;
		uint32		cnt = (uint32) Min((Size) P, n - done);
		size_t		used;

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		LearnedInitPage(page, LEARNED_PAGE_LEAF, generation);
		if (encode_chunk(ki, entries + done, cnt, &pc,
						 (uint8 *) page + LEARNED_LEAF_DATA_OFFSET, &used) != LCP_OK)
			elog(ERROR, "learned index leaf page of %u entries does not fit", cnt);
		((PageHeader) page)->pd_lower = LEARNED_LEAF_DATA_OFFSET + used;
		LearnedPageGetOpaque(page)->nitems = (uint16) cnt;
		LearnedPageGetOpaque(page)->flags |= LEARNED_LEAF_COMPRESSED;
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
		done += cnt;
		CHECK_FOR_INTERRUPTS();
	}
	page_cols_free(&pc);
	if (!building && RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, first, first + npages, true);
	return first;
}
