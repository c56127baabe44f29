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
	v->varwidth = (opaque->flags & LEARNED_LEAF_VARWIDTH) != 0;
	v->index = index;
	v->blkno = blkno;
	if (v->varwidth || (layout->keylen < 0 && opaque->type == LEARNED_PAGE_LEAF))
	{
		PageHeader	ph = (PageHeader) page;
		int			n = opaque->nitems;

		/* the format is the index's: variable-width keys, or not */
		if (!v->varwidth || v->compressed || layout->keylen >= 0 ||
			opaque->type != LEARNED_PAGE_LEAF || n > LEARNED_VW_MAX_ITEMS ||
			ph->pd_lower < LearnedVwKeysOff(n) ||
			ph->pd_lower > LEARNED_LEAF_DATA_OFFSET + LEARNED_LEAF_SPACE)
			LearnedReportCorrupt(index, blkno, "bad variable-width leaf page header");
		v->nitems = n;
		return;
	}
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

/*
 * The key at slot of a variable-width page: its offset and its bytes are
 * checked to lie inside the page's key area before anyone reads them.
 */
Datum
LearnedLeafVarKey(const LearnedLeafView *v, const LearnedKeyInfo *ki, int slot)
{
	const char *page = (const char *) v->page;
	int			lower = ((PageHeader) v->page)->pd_lower;
	uint16		off;

	memcpy(&off, page + LearnedVwOffsOff(v->nitems) + slot * sizeof(uint16), sizeof(off));
	if (off < LearnedVwKeysOff(v->nitems) || off >= lower ||
		LearnedKeySizeBounded(ki, page + off, lower - off) < 0)
		LearnedReportCorrupt(v->index, v->blkno, "bad key in variable-width leaf page");
	return PointerGetDatum(page + off);
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
 * Plan the next compressed segment of entries[0..n-1]: the largest P (up
 * to LCP_MAX_ITEMS) such that every chunk of P entries of the segment (its
 * first min(n, LEARNED_SEGMENT_MAX_PAGES * P) entries) fits on a page.  A
 * sample (the first chunk the page could hold) gives the first P from the
 * size the encoder reports; each pass over the segment encodes every chunk
 * and, if some chunk does not fit, scales P down by the worst one (1% under
 * the proportional estimate, and strictly smaller) for another pass.  The
 * pass that fits keeps its encoded pages in plan, for
 * LearnedWriteCompressedRun.  Returns false, plan empty, if that P is not
 * above plain_cap: the segment stays plain.
 */
bool
LearnedPlanCompressed(const LearnedKeyInfo *ki, const LearnedEntry *entries,
					  Size n, int plain_cap, LearnedCompressedPlan *plan)
{
	PageCols	pc;
	int			P;
	uint32		cnt = (uint32) Min((Size) LCP_MAX_ITEMS, n);
	size_t		used;
	bool		ok = false;

	memset(plan, 0, sizeof(*plan));
	page_cols_init(&pc);
	if (encode_chunk(ki, entries, cnt, &pc, pc.area, &used) == LCP_OK)
		P = (int) cnt;
	else
		P = (int) Min((double) cnt * LEARNED_LEAF_SPACE / Max(used, 1) * 0.98,
					  (double) (cnt - 1));
	plan->pages = palloc((Size) LEARNED_SEGMENT_MAX_PAGES * LEARNED_LEAF_SPACE);
	for (;;)
	{
		Size		range;
		Size		done;
		uint32		pg = 0;
		int			newP;

		if (P <= plain_cap)
			break;
		range = Min(n, (Size) LEARNED_SEGMENT_MAX_PAGES * P);
		newP = P;
		for (done = 0; done < range; done += P, pg++)
		{
			uint32		c = (uint32) Min((Size) P, range - done);
			uint8	   *area = (uint8 *) plan->pages + (Size) pg * LEARNED_LEAF_SPACE;

			if (encode_chunk(ki, entries + done, c, &pc, area, &used) == LCP_OK)
				plan->used[pg] = used;
			else
			{
				double		scaled = (double) c * LEARNED_LEAF_SPACE / Max(used, 1) * 0.99;

				newP = Min(newP, (int) Max(Min(scaled, (double) (P - 1)), 1.0));
			}
			CHECK_FOR_INTERRUPTS();
		}
		if (newP == P)
		{
			plan->P = P;
			plan->n = range;
			plan->npages = pg;
			ok = true;
			break;
		}
		P = newP;
	}
	page_cols_free(&pc);
	if (!ok)
	{
		pfree(plan->pages);
		plan->pages = NULL;
	}
	return ok;
}

/*
 * Write a planned segment (LearnedPlanCompressed) on freshly allocated
 * contiguous blocks, like LearnedWriteLeafRun: its pages are copies of the
 * plan's encoded areas.  Frees the plan's pages.
 */
BlockNumber
LearnedWriteCompressedRun(Relation index, LearnedCompressedPlan *plan,
						  uint32 generation, bool building)
{
	BlockNumber first = LearnedAllocRun(index, plan->npages, building);
	Size		done = 0;
	uint32		pg;

	for (pg = 0; pg < plan->npages; pg++)
	{
		Buffer		buf = ReadBuffer(index, first + pg);
		Page		page;
		uint32		cnt = (uint32) Min((Size) plan->P, plan->n - done);

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		LearnedInitPage(page, LEARNED_PAGE_LEAF, generation);
		memcpy((char *) page + LEARNED_LEAF_DATA_OFFSET,
			   plan->pages + (Size) pg * LEARNED_LEAF_SPACE, plan->used[pg]);
		((PageHeader) page)->pd_lower = LEARNED_LEAF_DATA_OFFSET + plan->used[pg];
		LearnedPageGetOpaque(page)->nitems = (uint16) cnt;
		LearnedPageGetOpaque(page)->flags |= LEARNED_LEAF_COMPRESSED;
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
		done += cnt;
		CHECK_FOR_INTERRUPTS();
	}
	if (!building && RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, first, first + plan->npages, true);
	pfree(plan->pages);
	plan->pages = NULL;
	return first;
}

/* ---------- variable-width leaf pages ---------- */

/* page bytes m entries need beyond their keys' (bitmap, TIDs, offsets) */
static inline Size
vw_overhead(Size m)
{
	return LearnedVwKeysOff(m) - LEARNED_LEAF_DATA_OFFSET;
}

/*
 * Plan the next variable-width segment of entries[0..n-1]: the largest P
 * (up to LEARNED_VW_MAX_ITEMS) such that every chunk of P entries of the
 * segment (its first min(n, LEARNED_SEGMENT_MAX_PAGES * P) entries) fits a
 * page, counting each key at its size plus the most padding its alignment
 * can cost.  Keeping P fixed inside a segment keeps ranks arithmetic (page
 * r / P, slot r % P), so the models and the dead bitmap work unchanged;
 * the price is that the segment's largest chunk of keys sets every page's
 * count.  Each pass scales P by the worst chunk and retries until all fit
 * (P strictly decreases; a single entry always fits, LEARNED_MAX_ENTRY_SIZE
 * being far below a page).  Returns P; *cnt is the segment's entry count.
 */
int
LearnedPlanVarwidth(const LearnedKeyInfo *ki, const LearnedEntry *entries,
					Size n, Size *cnt)
{
	Size		range = Min(n, (Size) LEARNED_SEGMENT_MAX_PAGES * LEARNED_VW_MAX_ITEMS);
	Size	   *prefix = palloc_extended(sizeof(Size) * (range + 1), MCXT_ALLOC_HUGE);
	int			P = (int) Min(n, (Size) LEARNED_VW_MAX_ITEMS);
	Size		i;

	prefix[0] = 0;
	for (i = 0; i < range; i++)
		prefix[i + 1] = prefix[i] + LearnedKeySize(ki, entries[i].key) +
			(LearnedKeyAlign(ki, entries[i].key) - 1);
	for (;;)
	{
		Size		r = Min(n, (Size) LEARNED_SEGMENT_MAX_PAGES * P);
		Size		worst = 0;
		Size		done;

		for (done = 0; done < r; done += P)
		{
			Size		c = Min((Size) P, r - done);
			Size		need = vw_overhead(c) + prefix[done + c] - prefix[done];

			worst = Max(worst, need);
		}
		if (worst <= LEARNED_LEAF_SPACE)
		{
			*cnt = r;
			break;
		}
		if (P == 1)
			elog(ERROR, "learned index: an entry of %zu bytes does not fit a page", worst);
		P = (int) Max(1.0, Min((double) P * LEARNED_LEAF_SPACE / worst, (double) (P - 1)));
		CHECK_FOR_INTERRUPTS();
	}
	pfree(prefix);
	return P;
}

/*
 * Write n entries as a run of variable-width pages of P entries each (the
 * last may hold fewer), on freshly allocated contiguous blocks, like
 * LearnedWriteLeafRun.
 */
BlockNumber
LearnedWriteVarRun(Relation index, const LearnedKeyInfo *ki,
				   const LearnedEntry *entries, Size n, int P,
				   uint32 generation, bool building)
{
	uint32		npages = (uint32) ((n + P - 1) / P);
	BlockNumber first = LearnedAllocRun(index, npages, building);
	Size		done = 0;
	uint32		pg;

	for (pg = 0; pg < npages; pg++)
	{
		Buffer		buf = ReadBuffer(index, first + pg);
		Page		page;
		int			cnt = (int) Min((Size) P, n - done);
		int			pos = LearnedVwKeysOff(cnt);
		int			i;

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		LearnedInitPage(page, LEARNED_PAGE_LEAF, generation);
		for (i = 0; i < cnt; i++)
		{
			const LearnedEntry *e = &entries[done + i];
			Size		sz = LearnedKeySize(ki, e->key);
			uint16		off;

			pos = TYPEALIGN(LearnedKeyAlign(ki, e->key), pos);
			if (pos + sz > LEARNED_LEAF_DATA_OFFSET + LEARNED_LEAF_SPACE)
				elog(ERROR, "learned index: variable-width page overflow");
			off = (uint16) pos;
			memcpy((char *) page + pos, DatumGetPointer(e->key), sz);
			memcpy((char *) page + LearnedVwTidsOff(cnt) + i * sizeof(ItemPointerData),
				   &e->tid, sizeof(ItemPointerData));
			memcpy((char *) page + LearnedVwOffsOff(cnt) + i * sizeof(uint16),
				   &off, sizeof(off));
			pos += sz;
		}
		((PageHeader) page)->pd_lower = pos;
		LearnedPageGetOpaque(page)->nitems = (uint16) cnt;
		LearnedPageGetOpaque(page)->flags |= LEARNED_LEAF_VARWIDTH;
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
		done += cnt;
		CHECK_FOR_INTERRUPTS();
	}
	if (!building && RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, first, first + npages, true);
	return first;
}
