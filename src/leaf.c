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
#include "miscadmin.h"

#include "learned.h"
#include "leaf.h"

/*
 * Keys stored after a page prefix (LEARNED_LEAF_PREFIX): one column of a
 * type whose value is its bytes (text, bpchar, bytea; varchar uses text).
 */
static inline bool
vw_prefix_ok(const LearnedKeyInfo *ki)
{
	return ki->layout.prefix_ok;
}

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

/*
 * The image a compressed page would give a scan bound's value of type
 * typid, if one orders exactly like the comparator: a value of the key's
 * own type, or any integer against an integer key (an integer's image is
 * its int64 value's, whatever its width, so an int8 bound beyond an int4
 * key's range still falls before or after every key).  It only narrows the
 * search inside a page (lcp_lower_bound); the caller's comparator checks
 * the answer.
 */
bool
LearnedLeafBoundImage(const LearnedKeyInfo *ki, Datum value, Oid typid, uint64 *image)
{
	int64		v;

	if (LearnedCompressKeyKind(ki) == LEARNED_CKEY_NONE)
		return false;
	if (typid == ki->keytype)
	{
		*image = key_image(ki, value);
		return true;
	}
	if (!LearnedTypeIsInteger(ki->keytype))
		return false;
	switch (typid)
	{
		case INT2OID:
			v = DatumGetInt16(value);
			break;
		case INT4OID:
			v = DatumGetInt32(value);
			break;
		case INT8OID:
			v = DatumGetInt64(value);
			break;
		default:
			return false;
	}
	*image = leco_i64_to_u64(v);
	return true;
}

/*
 * Open a leaf page (keys or NULLs) for reading: a plain page needs nothing,
 * a compressed one is validated (header, runs, counts, residual widths);
 * damage is reported as corruption.  The caller holds a lock on the page.
 *
 * lazy (scans): a compressed page's key run is checked at open only in
 * O(1) (its header, its first and last partitions), and each partition
 * when a read reaches it (lcp_open_lazy): a lookup that reads a few keys
 * of a page does not pay for checking its whole partition table at every
 * visit.  Every byte read is still checked before it is trusted, so a page
 * whose bytes changed (a new buffer load after corruption) is never read
 * out of bounds; damage is reported when a read reaches it.
 */
static void
leaf_open(Relation index, Page page, BlockNumber blkno,
		  const LearnedLeafLayout *layout, LearnedLeafView *v, bool lazy)
{
	LearnedPageOpaque opaque = LearnedPageGetOpaque(page);

	v->page = page;
	v->layout = layout;
	v->compressed = (opaque->flags & LEARNED_LEAF_COMPRESSED) != 0;
	v->varwidth = (opaque->flags & LEARNED_LEAF_VARWIDTH) != 0;
	v->index = index;
	v->blkno = blkno;
	v->lazy = false;
	v->stride = false;
	if (v->varwidth && (opaque->flags & LEARNED_LEAF_STRIDE))
	{
		PageHeader	ph = (PageHeader) page;
		int			n = opaque->nitems;
		uint16		head[2];

		/*
		 * A stride page: of a variable-width index, or a packed segment of a
		 * fixed-width by-reference key, whose prefix and suffix then make up
		 * exactly its size.
		 */
		if (v->compressed || (layout->keylen >= 0 && !layout->prefix_ok) ||
			opaque->type != LEARNED_PAGE_LEAF || n > LEARNED_VW_MAX_ITEMS ||
			ph->pd_lower < LearnedStPrefixOff(n) ||
			ph->pd_lower > LEARNED_LEAF_DATA_OFFSET + LEARNED_LEAF_SPACE)
			LearnedReportCorrupt(index, blkno, "bad stride leaf page header");
		memcpy(head, (char *) page + LearnedStHeadOff(n), sizeof(head));
		if ((head[0] > 0) != ((opaque->flags & LEARNED_LEAF_PREFIX) != 0) ||
			(head[0] > 0 && !layout->prefix_ok) ||
			(layout->keylen > 0 && head[0] + head[1] != layout->keylen) ||
			(Size) head[0] + head[1] > LEARNED_MAX_ENTRY_SIZE ||
			LearnedStPrefixOff(n) + head[0] + (Size) n * head[1] != (Size) ph->pd_lower)
			LearnedReportCorrupt(index, blkno, "bad stride leaf page header");
		v->nitems = n;
		v->stride = true;
		v->plen = head[0];
		v->width = head[1];
		v->prefix = (char *) page + LearnedStPrefixOff(n);
		v->suffixes = v->prefix + head[0];
		return;
	}
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
		v->plen = 0;
		v->prefix = NULL;
		if (opaque->flags & LEARNED_LEAF_PREFIX)
		{
			uint16		plen;

			memcpy(&plen, (char *) page + LearnedVwKeysOff(n), sizeof(plen));
			if (!layout->prefix_ok || plen == 0 || plen > LEARNED_MAX_ENTRY_SIZE ||
				LearnedVwKeysOff(n) + sizeof(uint16) + plen > ph->pd_lower)
				LearnedReportCorrupt(index, blkno, "bad variable-width leaf page prefix");
			v->plen = plen;
			v->prefix = (char *) page + LearnedVwKeysOff(n) + sizeof(uint16);
		}
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
		if (!(lazy ? lcp_open_lazy : lcp_open) ((const uint8 *) page + LEARNED_LEAF_DATA_OFFSET,
												avail, opaque->nitems, &v->lcp))
			LearnedReportCorrupt(index, blkno, "bad compressed leaf page");
		v->nitems = opaque->nitems;
		v->lazy = lazy;
	}
}

void
LearnedLeafOpen(Relation index, Page page, BlockNumber blkno,
				const LearnedLeafLayout *layout, LearnedLeafView *v)
{
	leaf_open(index, page, blkno, layout, v, false);
}

void
LearnedLeafOpenLazy(Relation index, Page page, BlockNumber blkno,
					const LearnedLeafLayout *layout, LearnedLeafView *v)
{
	leaf_open(index, page, blkno, layout, v, true);
}

/*
 * A compressed page: the first slot whose key image is >= x, searched on
 * the compressed key run.
 */
int
LearnedLeafLowerBound(const LearnedLeafView *v, uint64 x)
{
	uint32		pos;

	Assert(v->compressed);
	if (!v->lazy)
		return (int) lcp_lower_bound(&v->lcp, x);
	if (!lcp_lower_bound_checked(&v->lcp, x, &pos))
		LearnedReportCorrupt(v->index, v->blkno, "bad compressed leaf page");
	return (int) pos;
}

/* the same inside slots [a, b) (0 <= a <= b <= nitems) */
int
LearnedLeafLowerBoundIn(const LearnedLeafView *v, uint64 x, int a, int b)
{
	uint32		pos;

	Assert(v->compressed && a >= 0 && a <= b && b <= v->nitems);
	if (!lcp_lower_bound_in_checked(&v->lcp, x, (uint32) a, (uint32) b, &pos))
		LearnedReportCorrupt(v->index, v->blkno, "bad compressed leaf page");
	return (int) pos;
}

/*
 * A compressed page: decode entries from .. from + count - 1 (key images,
 * block numbers, offsets).
 */
void
LearnedLeafDecodeRange(const LearnedLeafView *v, int from, int count,
					   uint64 *keys, uint64 *blocks, uint64 *offsets)
{
	Assert(v->compressed && from >= 0 && count >= 0 && from + count <= v->nitems);
	if (!v->lazy)
		lcp_decode_range(&v->lcp, (uint32) from, (uint32) count, keys, blocks, offsets);
	else if (!lcp_decode_range_checked(&v->lcp, (uint32) from, (uint32) count,
									   keys, blocks, offsets))
		LearnedReportCorrupt(v->index, v->blkno, "bad compressed leaf page");
}

#define VW_RING 4

/*
 * memcpy of a few bytes (a composite key's prefix or suffix: a scan's
 * binary search rebuilds one key a step), eight at a time in place: a
 * library call per piece cost more than the comparisons it served.
 */
static inline void
copy_short(char *dst, const char *src, Size n)
{
	if (n > 32)
	{
		memcpy(dst, src, n);
		return;
	}
	for (; n >= 8; n -= 8, dst += 8, src += 8)
		memcpy(dst, src, 8);
	if (n >= 4)
	{
		memcpy(dst, src, 4);
		n -= 4, dst += 4, src += 4;
	}
	if (n >= 2)
	{
		memcpy(dst, src, 2);
		n -= 2, dst += 2, src += 2;
	}
	if (n > 0)
		*dst = *src;
}

/*
 * A packed or composite key's stored bytes, the page's prefix then slen
 * bytes at data, written to dst: a packed key's size was checked by
 * LearnedLeafOpen, a composite key's is checked here, once whole.
 */
static inline void
join_key(const LearnedLeafView *v, const LearnedKeyInfo *ki, const char *data, Size slen,
		 char *dst)
{
	Size		len = v->plen + slen;

	copy_short(dst, v->prefix, v->plen);
	copy_short(dst + v->plen, data, slen);
	if (LearnedKeyIsComposite(ki) && LearnedKeySizeBounded(ki, dst, len) != (int64) len)
		LearnedReportCorrupt(v->index, v->blkno, "bad key in variable-width leaf page");
}

/*
 * A key of a page with a prefix (or of a stride page): the prefix then the
 * suffix's slen bytes at data, rebuilt in the next buffer of a small ring
 * as the index stores it (a single varlena column gets the header the
 * whole value was stored with, short if its data fits one).  The Datum
 * stays valid for the next VW_RING - 1 rebuilds: every caller uses a key
 * before it reads the next one, or copies it.
 */
static Datum
rebuild_key(const LearnedLeafView *v, const LearnedKeyInfo *ki, const char *data, Size slen)
{
	static char ring[VW_RING][MAXALIGN(LEARNED_MAX_ENTRY_SIZE) + 8] pg_attribute_aligned(MAXIMUM_ALIGNOF);
	static int	next = 0;
	Size		len = v->plen + slen;
	char	   *dst;

	if (len + VARHDRSZ > sizeof(ring[0]))
		LearnedReportCorrupt(v->index, v->blkno, "bad key in variable-width leaf page");
	dst = ring[next];
	next = (next + 1) % VW_RING;
	if (LearnedKeyPackable(ki) || LearnedKeyIsComposite(ki))
		join_key(v, ki, data, slen, dst);
	else if (len + VARHDRSZ_SHORT <= VARATT_SHORT_MAX)
	{
		SET_VARSIZE_SHORT(dst, len + VARHDRSZ_SHORT);
		memcpy(dst + VARHDRSZ_SHORT, v->prefix, v->plen);
		memcpy(dst + VARHDRSZ_SHORT + v->plen, data, slen);
	}
	else
	{
		SET_VARSIZE(dst, len + VARHDRSZ);
		memcpy(dst + VARHDRSZ, v->prefix, v->plen);
		memcpy(dst + VARHDRSZ + v->plen, data, slen);
	}
	return PointerGetDatum(dst);
}

/*
 * The stored bytes of the key at slot of a variable-width page after the
 * page's prefix (v->plen bytes at v->prefix): a suffix, or with no prefix
 * the whole key (*whole: a pointer to it, for LearnedLeafVarKey).  Its
 * offset and its bytes are checked to lie inside the page's key area
 * before anyone reads them.
 */
static pg_attribute_always_inline void
var_suffix(const LearnedLeafView *v, const LearnedKeyInfo *ki, int slot,
		   const char **data, Size *slen, const char **whole)
{
	const char *page = (const char *) v->page;
	int			lower = ((PageHeader) v->page)->pd_lower;
	const char *p;
	uint16		off;

	*whole = NULL;
	if (v->stride)
	{
		/* LearnedLeafOpen checked that every suffix lies inside the page */
		*data = v->suffixes + (Size) slot * v->width;
		*slen = v->width;
		return;
	}
	memcpy(&off, page + LearnedVwOffsOff(v->nitems) + slot * sizeof(uint16), sizeof(off));
	p = page + off;
	if (v->plen == 0)
	{
		if (off < LearnedVwKeysOff(v->nitems) || off >= lower ||
			LearnedKeySizeBounded(ki, p, lower - off) < 0)
			LearnedReportCorrupt(v->index, v->blkno, "bad key in variable-width leaf page");
		*whole = p;
		return;
	}
	/* the suffix: a plain varlena inside the key area, after the prefix */
	if (off < LearnedVwKeysOff(v->nitems) + 2 + v->plen || off >= lower ||
		(!VARATT_IS_1B(p) && (off != INTALIGN(off) || off + VARHDRSZ > lower)) ||
		VARATT_IS_EXTERNAL(p) || VARATT_IS_COMPRESSED(p) ||
		VARSIZE_ANY(p) > (Size) (lower - off))
		LearnedReportCorrupt(v->index, v->blkno, "bad key in variable-width leaf page");
	*slen = VARSIZE_ANY_EXHDR(p);
	*data = VARDATA_ANY(p);
}

/* the key at slot of a variable-width page */
Datum
LearnedLeafVarKey(const LearnedLeafView *v, const LearnedKeyInfo *ki, int slot)
{
	const char *data;
	const char *whole;
	Size		slen;

	var_suffix(v, ki, slot, &data, &slen, &whole);
	if (whole)
		return PointerGetDatum(whole);
	return rebuild_key(v, ki, data, slen);
}

/*
 * The stored bytes of the key at slot of a stride page of a composite key,
 * written to dst (LearnedLeafStrideKeySize bytes): a scan's batch keeps a
 * copy of each key it returns, and rebuilding the key in the ring first
 * (LearnedLeafVarKey) copied it twice.
 */
void
LearnedLeafStrideKeyCopy(const LearnedLeafView *v, const LearnedKeyInfo *ki, int slot,
						 char *dst)
{
	Assert(v->stride && LearnedKeyIsComposite(ki) && slot >= 0 && slot < v->nitems);
	/* LearnedLeafOpen checked that every suffix lies inside the page */
	join_key(v, ki, v->suffixes + (Size) slot * v->width, v->width, dst);
}

/*
 * One varlena column (text, bytea), or a packed fixed-width one: the data
 * bytes of the key at slot that follow the page's prefix (v->plen bytes at
 * v->prefix), without building the key, for comparisons in byte order.
 * False if the key is stored inline-compressed (the caller compares it
 * the usual way).
 */
bool
LearnedLeafVarData(const LearnedLeafView *v, const LearnedKeyInfo *ki, int slot,
				   const char **data, Size *len)
{
	const char *whole;

	Assert(!LearnedKeyIsComposite(ki) && v->varwidth);
	var_suffix(v, ki, slot, data, len, &whole);
	if (whole)
	{
		if (VARATT_IS_COMPRESSED(whole))
			return false;
		*data = VARDATA_ANY(whole);
		*len = VARSIZE_ANY_EXHDR(whole);
	}
	return true;
}

/* the out-of-line half of LearnedLeafViewKey */
Datum
LearnedLeafCompressedKey(const LearnedLeafView *v, const LearnedKeyInfo *ki, int slot)
{
	uint64		image;

	if (!v->lazy)
		return LearnedLeafImageKey(ki, lcp_key(&v->lcp, (uint32) slot));
	if (!lcp_key_checked(&v->lcp, (uint32) slot, &image))
		LearnedReportCorrupt(v->index, v->blkno, "bad compressed leaf page");
	return LearnedLeafImageKey(ki, image);
}

ItemPointerData
LearnedLeafCompressedTid(const LearnedLeafView *v, int slot)
{
	ItemPointerData tid;
	uint32		blk;
	uint16		off;

	if (!lcp_tid_checked(&v->lcp, (uint32) slot, &blk, &off))
		LearnedReportCorrupt(v->index, v->blkno, "bad compressed leaf page");
	ItemPointerSet(&tid, blk, off);
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

	Assert(!v->lazy);			/* every partition was checked at open */

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

/* the bytes of a page n entries' compressed area may take: the hint bitmap
 * (LearnedLeafReserveHints) takes the end */
static inline double
lcp_budget(Size n)
{
	return (double) (LEARNED_LEAF_SPACE - LEARNED_HINT_BYTES(n));
}

/*
 * Encode entries[0..n-1] into area (lcp_budget(n) bytes).  Returns
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
					(size_t) lcp_budget(n), used);
	if (rc == LCP_NOMEM)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory while compressing a learned index leaf page")));
	return rc;
}

/* the most entries a first chunk may be re-encoded for, growing or shrinking P */
#define PLAN_MAX_TRIES	8

/*
 * Plan the next compressed segment of entries[0..n-1]: its page capacity P
 * (up to LCP_MAX_ITEMS) and its pages, each entry encoded about once.
 *
 * P starts from hint (the previous segment's P: neighbouring keys compress
 * alike), or without one from a sample (the first chunk the page could
 * hold, scaled by the size the encoder reports).  The first chunk of P
 * entries then settles it: if it does not fit, P shrinks by the size it
 * needed (1% under the proportional estimate, and strictly smaller); if it
 * fits with room to spare, P grows once the same way (when that chunk does
 * not fit, the smaller one is kept).  Every next chunk of P entries is
 * encoded once: the segment takes chunks while they fit, up to
 * LEARNED_SEGMENT_MAX_PAGES pages, and ends before the first that does not
 * (the next segment starts there, with a smaller P), so no pass is redone.
 * The encoded pages stay in plan, for LearnedWriteCompressedRun.  Returns
 * false, plan empty, if P is not above plain_cap: the segment stays plain.
 */
bool
LearnedPlanCompressed(const LearnedKeyInfo *ki, const LearnedEntry *entries,
					  Size n, int plain_cap, int hint, LearnedCompressedPlan *plan)
{
	PageCols	pc;
	int			P;
	size_t		used;
	uint8	   *spare;
	bool		ok = false;
	bool		grown = false;
	int			tries;
	Size		done;
	Size		range;
	uint32		pg;

	memset(plan, 0, sizeof(*plan));
	if (n == 0)
		return false;
	page_cols_init(&pc);
	if (hint > plain_cap)
		P = (int) Min((Size) Min(hint, LCP_MAX_ITEMS), n);
	else
	{
		uint32		cnt = (uint32) Min((Size) LCP_MAX_ITEMS, n);

		if (encode_chunk(ki, entries, cnt, &pc, pc.area, &used) == LCP_OK)
			P = (int) cnt;
		else
			P = (int) Min((double) cnt * lcp_budget(cnt) / Max(used, 1) * 0.98,
						  (double) (cnt - 1));
	}
	plan->pages = palloc((Size) LEARNED_SEGMENT_MAX_PAGES * LEARNED_LEAF_SPACE);
	spare = palloc(LEARNED_LEAF_SPACE);

	/* the first chunk: P such that it fits, grown once if it has room */
	for (tries = 0; tries < PLAN_MAX_TRIES && P > plain_cap; tries++)
	{
		uint32		c = (uint32) Min((Size) P, n);
		int			newP;

		if (encode_chunk(ki, entries, c, &pc, (uint8 *) plan->pages, &used) != LCP_OK)
		{
			double		scaled = (double) c * lcp_budget(c) / Max(used, 1) * 0.99;

			P = (int) Max(Min(scaled, (double) (P - 1)), 1.0);
			continue;
		}
		plan->used[0] = used;
		ok = true;
		if (grown || (Size) c >= n || P >= LCP_MAX_ITEMS ||
			used >= (size_t) (lcp_budget(c) * 0.95))
			break;
		grown = true;
		newP = (int) Min((double) c * lcp_budget(c) / Max(used, 1) * 0.98,
						 (double) Min((Size) LCP_MAX_ITEMS, n));
		if (newP <= P)
			break;
		/* the larger chunk, kept only if it fits */
		if (encode_chunk(ki, entries, (uint32) newP, &pc, spare, &used) == LCP_OK)
		{
			memcpy(plan->pages, spare, used);
			plan->used[0] = used;
			P = newP;
		}
		break;
	}
	if (ok && P <= plain_cap)
		ok = false;
	if (ok)
	{
		/* the other chunks, each encoded once, while they fit */
		range = Min(n, (Size) LEARNED_SEGMENT_MAX_PAGES * P);
		done = Min((Size) P, n);
		for (pg = 1; done < range; pg++)
		{
			uint32		c = (uint32) Min((Size) P, range - done);
			uint8	   *area = (uint8 *) plan->pages + (Size) pg * LEARNED_LEAF_SPACE;

			if (encode_chunk(ki, entries + done, c, &pc, area, &used) != LCP_OK)
				break;
			plan->used[pg] = used;
			done += c;
			CHECK_FOR_INTERRUPTS();
		}
		plan->P = P;
		plan->n = done;
		plan->npages = pg;
	}
	pfree(spare);
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
static void
fill_compressed_page(Page page, uint32 pg, void *arg)
{
	LearnedCompressedPlan *plan = (LearnedCompressedPlan *) arg;
	Size		done = (Size) pg * plan->P;

	memcpy((char *) page + LEARNED_LEAF_DATA_OFFSET,
		   plan->pages + (Size) pg * LEARNED_LEAF_SPACE, plan->used[pg]);
	((PageHeader) page)->pd_lower = LEARNED_LEAF_DATA_OFFSET + plan->used[pg];
	LearnedPageGetOpaque(page)->nitems = (uint16) Min((Size) plan->P, plan->n - done);
	LearnedPageGetOpaque(page)->flags |= LEARNED_LEAF_COMPRESSED;
}

BlockNumber
LearnedWriteCompressedRun(Relation index, LearnedCompressedPlan *plan,
						  uint32 generation, bool building)
{
	BlockNumber first = LearnedWriteRun(index, plan->npages, LEARNED_PAGE_LEAF,
										generation, building,
										fill_compressed_page, plan);

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
 * The bytes of a stored key a page prefix is taken from: a single column's
 * data (NULL if it is compressed: no prefix then), a composite key's or a
 * fixed-width one's whole stored bytes.
 */
static inline const char *
vw_data(const LearnedKeyInfo *ki, Datum key, Size *len)
{
	const char *p = DatumGetPointer(key);

	if (LearnedKeyPackable(ki))
	{
		*len = ki->keylen;
		return p;
	}
	if (LearnedKeyIsComposite(ki))
	{
		*len = LearnedKeySize(ki, key);
		return p;
	}
	if (VARATT_IS_COMPRESSED(p))
		return NULL;
	*len = VARSIZE_ANY_EXHDR(p);
	return VARDATA_ANY(p);
}

/*
 * The common prefix of the data of c keys (0 if the index stores no page
 * prefixes or a key is compressed); *stride gets whether the c keys can
 * share a stride page: their data all have one size, none compressed.  The
 * common prefix of a set is the shortest common prefix of its first
 * element with each other one (the order need not be bytewise).
 */
static Size
vw_chunk_lcp(const LearnedKeyInfo *ki, const LearnedEntry *e, Size c, bool *stride)
{
	const char *first;
	Size		flen;
	Size		lcp;
	Size		i;

	*stride = false;
	if (c == 0)
		return 0;
	first = vw_data(ki, e[0].key, &flen);
	if (first == NULL)
		return 0;
	*stride = true;
	lcp = vw_prefix_ok(ki) ? Min(flen, (Size) LEARNED_MAX_ENTRY_SIZE) : 0;
	if (ki->bytewise && lcp > 0 && c > 1)
	{
		/*
		 * Keys sorted in byte order: every key between the first and the
		 * last shares their common prefix, so only the sizes (and that no
		 * key is compressed) are left to check: each key's header, not its
		 * bytes.
		 */
		Size		len;
		const char *d = vw_data(ki, e[c - 1].key, &len);
		Size		k = 0;

		if (d == NULL)
		{
			*stride = false;
			return 0;
		}
		lcp = Min(lcp, len);
		while (k < lcp && d[k] == first[k])
			k++;
		lcp = k;
		for (i = 1; i < c; i++)
		{
			if (vw_data(ki, e[i].key, &len) == NULL)
			{
				*stride = false;
				return 0;
			}
			if (len != flen)
				*stride = false;
		}
		return lcp;
	}
	for (i = 1; i < c; i++)
	{
		Size		len;
		const char *d = vw_data(ki, e[i].key, &len);
		Size		k = 0;

		if (d == NULL)
		{
			*stride = false;
			return 0;
		}
		if (len != flen)
			*stride = false;
		lcp = Min(lcp, len);
		while (k < lcp && d[k] == first[k])
			k++;
		lcp = k;
		if (lcp == 0 && !*stride)
			return 0;
	}
	return lcp;
}

/*
 * How c keys are laid out on a page: stride (*width: each suffix's bytes)
 * or offsets; returns the prefix length (offsets: 0 unless at least 2).
 */
static Size
vw_chunk_prefix(const LearnedKeyInfo *ki, const LearnedEntry *e, Size c,
				bool *stride, Size *width)
{
	Size		lcp = vw_chunk_lcp(ki, e, c, stride);

	if (*stride)
	{
		Size		len = 0;

		(void) vw_data(ki, e[0].key, &len);
		*width = len - lcp;
		return lcp;
	}
	*width = 0;
	return lcp >= 2 ? lcp : 0;
}

/* the most a suffix of slen data bytes takes: header, and padding for a long one */
static inline Size
vw_suffix_cost(Size slen)
{
	if (slen + VARHDRSZ_SHORT <= VARATT_SHORT_MAX)
		return slen + VARHDRSZ_SHORT;
	return slen + VARHDRSZ + (ALIGNOF_INT - 1);
}

/*
 * The most page bytes c entries take, with the page's hint bitmap
 * (LearnedLeafReserveHints)
 */
static Size
vw_chunk_need(const LearnedKeyInfo *ki, const LearnedEntry *e, Size c)
{
	bool		stride;
	Size		width;
	Size		lcp = vw_chunk_prefix(ki, e, c, &stride, &width);
	Size		need;
	Size		i;

	if (stride)
		return LearnedStPrefixOff(c) - LEARNED_LEAF_DATA_OFFSET + lcp + c * width +
			LEARNED_HINT_BYTES(c);
	need = vw_overhead(c) + LEARNED_HINT_BYTES(c);
	if (lcp > 0)
	{
		need += sizeof(uint16) + lcp;
		for (i = 0; i < c; i++)
		{
			Size		len = 0;

			(void) vw_data(ki, e[i].key, &len);
			need += vw_suffix_cost(len - lcp);
		}
	}
	else
		for (i = 0; i < c; i++)
			need += LearnedKeySize(ki, e[i].key) + (LearnedKeyAlign(ki, e[i].key) - 1);
	return need;
}

/* a string segment may end where its keys' shared prefix shrinks after this */
#define VW_SEG_MIN_PAGES	4

/* does a chunk of c entries fit a page? */
static inline bool
vw_fits(const LearnedKeyInfo *ki, const LearnedEntry *e, Size c)
{
	return vw_chunk_need(ki, e, c) <= LEARNED_LEAF_SPACE;
}

/*
 * Plan the next variable-width segment of entries[0..n-1]: its page
 * capacity P (at most LEARNED_VW_MAX_ITEMS) and its entry count.  Keeping P
 * fixed inside a segment keeps ranks arithmetic (page r / P, slot r % P),
 * so the models and the dead bitmap work unchanged.  Each key counts at the
 * most it can take: its size and alignment padding, or its suffix after the
 * page's common prefix.
 *
 * P is the largest for which the first chunks (up to 8 pages; the very
 * first one only if no other is full) fit.  The
 * segment then grows page by page while each next chunk of P entries fits,
 * up to LEARNED_SEGMENT_MAX_PAGES pages; at the first chunk that does not,
 * it ends with the longest part of that chunk that fits (a last page may
 * be partial).  So a place where the keys' shared prefix shrinks (a new
 * warehouse in (w_id, d_id, o_id), a new site in URLs) ends a segment
 * instead of lowering P for all of it.  Returns P; *cnt is the segment's
 * entry count (at least 1: a single entry always fits,
 * LEARNED_MAX_ENTRY_SIZE being far below a page).
 */
int
LearnedPlanVarwidth(const LearnedKeyInfo *ki, const LearnedEntry *entries,
					Size n, Size *cnt)
{
	int			P = (int) Min(n, (Size) LEARNED_VW_MAX_ITEMS);
	int			seg_lcp = -1;
	Size		pos;

	for (;;)
	{
		Size		r = Min(n, (Size) 8 * P);
		Size		worst = 0;
		Size		done;

		/*
		 * The first chunk counts only if no other full one does: an odd first
		 * page (the empty string, an all-zero uuid before v7 ones) would
		 * otherwise set P for the whole segment.  If it does not fit, the
		 * segment ends inside it below, and the next one plans afresh.
		 */
		for (done = (r >= 2 * (Size) P ? (Size) P : 0); done < r; done += P)
			worst = Max(worst, vw_chunk_need(ki, entries + done, Min((Size) P, r - done)));
		if (worst <= LEARNED_LEAF_SPACE)
			break;
		if (P == 1)
			elog(ERROR, "learned index: an entry of %zu bytes does not fit a page", worst);
		P = (int) Max(1.0, Min((double) P * LEARNED_LEAF_SPACE / worst, (double) (P - 1)));
		CHECK_FOR_INTERRUPTS();
	}
	for (pos = 0; pos < n && pos < (Size) LEARNED_SEGMENT_MAX_PAGES * P;)
	{
		Size		c = Min((Size) P, n - pos);
		Size		lo,
					hi;

		/*
		 * One string column: past VW_SEG_MIN_PAGES pages, end the segment
		 * where its keys stop sharing the sort-key prefix its pages so far
		 * share, so that the segment-local image (the 8 sort-key bytes after
		 * that prefix, keymap.c) keeps telling its keys apart: URLs then get
		 * a segment per site section instead of one image for a section.
		 */
		if (LearnedKeyLocalImages(ki) && pos >= (Size) VW_SEG_MIN_PAGES * P)
		{
			LearnedKeyInfo *k = (LearnedKeyInfo *) ki;

			if (seg_lcp < 0)
				seg_lcp = LearnedStringSkip(k, entries[0].key, entries[pos - 1].key);
			if (LearnedStringSkip(k, entries[0].key, entries[pos + c - 1].key) < seg_lcp)
			{
				/* the first key that does not share it (they are sorted) */
				lo = pos;
				hi = pos + c - 1;
				while (lo < hi)
				{
					Size		mid = (lo + hi) / 2;

					if (LearnedStringSkip(k, entries[0].key, entries[mid].key) < seg_lcp)
						hi = mid;
					else
						lo = mid + 1;
				}
				/* that part of the chunk fits: it is part of a chunk that fits or not */
				c = lo - pos;
				if (c == 0 || vw_fits(ki, entries + pos, c))
				{
					pos += c;
					break;
				}
			}
		}
		if (vw_fits(ki, entries + pos, c))
		{
			pos += c;
			if (c < (Size) P)
				break;			/* cut short above: the segment ends here */
			continue;
		}
		/* the longest part of this chunk that fits (need grows with it) */
		lo = 1;
		hi = c - 1;
		while (lo < hi)
		{
			Size		mid = (lo + hi + 1) / 2;

			if (vw_fits(ki, entries + pos, mid))
				lo = mid;
			else
				hi = mid - 1;
		}
		pos += lo;
		break;
	}
	*cnt = pos;
	return P;
}

/*
 * Write n entries as a run of variable-width pages of P entries each (the
 * last may hold fewer), on freshly allocated contiguous blocks, like
 * LearnedWriteLeafRun.
 */
typedef struct VarRun
{
	const LearnedKeyInfo *ki;
	const LearnedEntry *entries;
	Size		n;
	int			P;
} VarRun;

static void
fill_var_page(Page page, uint32 pgno, void *arg)
{
	VarRun	   *r = (VarRun *) arg;
	const LearnedKeyInfo *ki = r->ki;
	const LearnedEntry *entries = r->entries;
	Size		done = (Size) pgno * r->P;
	int			cnt = (int) Min((Size) r->P, r->n - done);
	int			pos = LearnedVwKeysOff(cnt);
	bool		stride;
	Size		width;
	Size		plen = vw_chunk_prefix(ki, entries + done, cnt, &stride, &width);
	Size		flen;
	int			i;

	if (stride)
	{
		/* plen, width, the prefix, then each key's suffix (no offsets) */
		uint16		head[2];

		head[0] = (uint16) plen;
		head[1] = (uint16) width;
		pos = LearnedStPrefixOff(cnt);
		if (pos + plen + (Size) cnt * width > LEARNED_LEAF_DATA_OFFSET + LEARNED_LEAF_SPACE)
			elog(ERROR, "learned index: stride page overflow");
		memcpy((char *) page + LearnedStHeadOff(cnt), head, sizeof(head));
		memcpy((char *) page + pos, vw_data(ki, entries[done].key, &flen), plen);
		pos += plen;
		for (i = 0; i < cnt; i++)
		{
			const LearnedEntry *e = &entries[done + i];

			memcpy((char *) page + pos, vw_data(ki, e->key, &flen) + plen, width);
			memcpy((char *) page + LearnedVwTidsOff(cnt) + i * sizeof(ItemPointerData),
				   &e->tid, sizeof(ItemPointerData));
			pos += width;
		}
		if (plen > 0)
			LearnedPageGetOpaque(page)->flags |= LEARNED_LEAF_PREFIX;
		((PageHeader) page)->pd_lower = pos;
		LearnedPageGetOpaque(page)->nitems = (uint16) cnt;
		LearnedPageGetOpaque(page)->flags |= LEARNED_LEAF_VARWIDTH | LEARNED_LEAF_STRIDE;
		return;
	}
	Assert(!LearnedKeyPackable(ki));
	if (plen > 0)
	{
		/* the prefix once, then each key's suffix as a varlena */
		uint16		pl = (uint16) plen;

		memcpy((char *) page + pos, &pl, sizeof(pl));
		memcpy((char *) page + pos + sizeof(pl), vw_data(ki, entries[done].key, &flen), plen);
		pos += sizeof(pl) + plen;
		LearnedPageGetOpaque(page)->flags |= LEARNED_LEAF_PREFIX;
	}
	for (i = 0; i < cnt; i++)
	{
		const LearnedEntry *e = &entries[done + i];
		Size		sz;
		uint16		off;

		if (plen > 0)
		{
			Size		len = 0;
			const char *d = vw_data(ki, e->key, &len);
			Size		slen = len - plen;

			if (slen + VARHDRSZ_SHORT <= VARATT_SHORT_MAX)
				sz = slen + VARHDRSZ_SHORT;
			else
			{
				pos = TYPEALIGN(ALIGNOF_INT, pos);
				sz = slen + VARHDRSZ;
			}
			if (pos + sz > LEARNED_LEAF_DATA_OFFSET + LEARNED_LEAF_SPACE)
				elog(ERROR, "learned index: variable-width page overflow");
			if (sz == slen + VARHDRSZ_SHORT)
				SET_VARSIZE_SHORT((char *) page + pos, sz);
			else
				SET_VARSIZE((char *) page + pos, sz);
			memcpy(VARDATA_ANY((char *) page + pos), d + plen, slen);
		}
		else
		{
			sz = LearnedKeySize(ki, e->key);
			pos = TYPEALIGN(LearnedKeyAlign(ki, e->key), pos);
			if (pos + sz > LEARNED_LEAF_DATA_OFFSET + LEARNED_LEAF_SPACE)
				elog(ERROR, "learned index: variable-width page overflow");
			memcpy((char *) page + pos, DatumGetPointer(e->key), sz);
		}
		off = (uint16) pos;
		memcpy((char *) page + LearnedVwTidsOff(cnt) + i * sizeof(ItemPointerData),
			   &e->tid, sizeof(ItemPointerData));
		memcpy((char *) page + LearnedVwOffsOff(cnt) + i * sizeof(uint16),
			   &off, sizeof(off));
		pos += sz;
	}
	((PageHeader) page)->pd_lower = pos;
	LearnedPageGetOpaque(page)->nitems = (uint16) cnt;
	LearnedPageGetOpaque(page)->flags |= LEARNED_LEAF_VARWIDTH;
}

BlockNumber
LearnedWriteVarRun(Relation index, const LearnedKeyInfo *ki,
				   const LearnedEntry *entries, Size n, int P,
				   uint32 generation, bool building)
{
	VarRun		r;

	r.ki = ki;
	r.entries = entries;
	r.n = n;
	r.P = P;
	return LearnedWriteRun(index, (uint32) ((n + P - 1) / P), LEARNED_PAGE_LEAF,
						   generation, building, fill_var_page, &r);
}
