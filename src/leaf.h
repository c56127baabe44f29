/*
 * leaf.h
 *		Leaf pages of any format opened as a view (leaf.c), and the check of
 *		a heap TID read from an index page.
 */
#ifndef LEARNED_LEAF_H
#define LEARNED_LEAF_H

#include "learned.h"

/* ---------- leaf.c: compressed leaf pages, and a view over either format ---------- */

#define LEARNED_CKEY_NONE		0	/* pages stay plain */
#define LEARNED_CKEY_SIGNED		1	/* int2/4/8, date, timestamp(tz), time */
#define LEARNED_CKEY_UNSIGNED	2	/* oid */

/*
 * A variable-width leaf page (LEARNED_LEAF_VARWIDTH), for n entries:
 *   | header | dead bitmap (n bits, to 8 bytes) | tids[n] | offsets[n] (uint16) | keys | hole | special |
 * Key i starts at offsets[i] (from the page start), aligned as its header
 * needs (LearnedKeyAlign); the keys are in slot order; pd_lower ends the last.
 *
 * A stride page (LEARNED_LEAF_VARWIDTH | LEARNED_LEAF_STRIDE) has no
 * offsets: after the TIDs come plen and width (uint16 each), the prefix
 * (plen bytes), then n suffixes of width bytes each, unaligned.  Key i is
 * the prefix then suffix i (a single varlena column gets its header back).
 */
#define LearnedVwBitmapBytes(n)	((((n) + 63) / 64) * 8)
#define LearnedVwTidsOff(n)		(LEARNED_LEAF_DATA_OFFSET + LearnedVwBitmapBytes(n))
#define LearnedVwOffsOff(n)		(LearnedVwTidsOff(n) + (n) * (int) sizeof(ItemPointerData))
#define LearnedVwKeysOff(n)		(LearnedVwOffsOff(n) + (n) * (int) sizeof(uint16))
#define LearnedStHeadOff(n)		LearnedVwOffsOff(n)
#define LearnedStPrefixOff(n)	(LearnedStHeadOff(n) + 2 * (int) sizeof(uint16))

/* an opened leaf page (keys or NULLs) of any format */
typedef struct LearnedLeafView
{
	Page		page;
	const LearnedLeafLayout *layout;	/* of the plain format */
	bool		compressed;
	bool		varwidth;
	bool		lazy;			/* compressed, opened by LearnedLeafOpenLazy */
	int			nitems;
	LcpView		lcp;			/* compressed: the validated runs */
	Relation	index;			/* varwidth: to report damage */
	BlockNumber blkno;
	int			plen;			/* LEARNED_LEAF_PREFIX: the common prefix */
	const char *prefix;
	bool		stride;			/* LEARNED_LEAF_STRIDE: */
	int			width;			/* each suffix's bytes */
	const char *suffixes;		/* suffix 0 */
} LearnedLeafView;

/*
 * The key back from its image on a compressed page: exactly the Datum
 * learned_fetch_key gives.  Inline: a range scan converts every entry it
 * returns.
 */
static inline Datum
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

extern int	LearnedCompressKeyKind(const LearnedKeyInfo *ki);
extern bool LearnedLeafBoundImage(const LearnedKeyInfo *ki, Datum value, Oid typid,
								  uint64 *image);
extern void LearnedLeafOpen(Relation index, Page page, BlockNumber blkno,
							const LearnedLeafLayout *layout, LearnedLeafView *v);
extern void LearnedLeafOpenLazy(Relation index, Page page, BlockNumber blkno,
								const LearnedLeafLayout *layout, LearnedLeafView *v);
extern int	LearnedLeafLowerBound(const LearnedLeafView *v, uint64 x);
extern int	LearnedLeafLowerBoundIn(const LearnedLeafView *v, uint64 x, int a, int b);
extern void LearnedLeafDecodeRange(const LearnedLeafView *v, int from, int count,
								   uint64 *keys, uint64 *blocks, uint64 *offsets);
extern Datum LearnedLeafCompressedKey(const LearnedLeafView *v,
									  const LearnedKeyInfo *ki, int slot);
extern ItemPointerData LearnedLeafCompressedTid(const LearnedLeafView *v, int slot);
extern bool LearnedLeafCheckSlot(const LearnedLeafView *v, const LearnedKeyInfo *ki,
								 int slot);
extern Datum LearnedLeafVarKey(const LearnedLeafView *v, const LearnedKeyInfo *ki, int slot);
extern void LearnedLeafStrideKeyCopy(const LearnedLeafView *v, const LearnedKeyInfo *ki,
									 int slot, char *dst);

/* bytes of a key of a stride page of a composite key (LearnedLeafStrideKeyCopy) */
#define LearnedLeafStrideKeySize(v)	((Size) (v)->plen + (v)->width)
extern bool LearnedLeafVarData(const LearnedLeafView *v, const LearnedKeyInfo *ki, int slot,
							   const char **data, Size *len);

/*
 * Does a leaf page's format (its opaque flags) match its segment's:
 * compressed pages in compressed segments, and in a fixed-width index,
 * variable-width (stride) pages in packed segments only?
 */
static inline bool
LearnedLeafFormatMatches(uint16 flags, const LearnedSegment *seg, int keylen)
{
	if (((flags & LEARNED_LEAF_COMPRESSED) != 0) != seg->compressed)
		return false;
	return keylen < 0 || ((flags & LEARNED_LEAF_VARWIDTH) != 0) == seg->packed;
}

/* key of slot (slot < v->nitems): a Datum as LearnedKeyFetch gives it */
static inline Datum
LearnedLeafViewKey(const LearnedLeafView *v, const LearnedKeyInfo *ki, int slot)
{
	if (v->compressed)
		return LearnedLeafCompressedKey(v, ki, slot);
	if (v->varwidth)
		return LearnedLeafVarKey(v, ki, slot);
	return LearnedKeyFetch(ki, LearnedLeafKeyPtr(v->page, v->layout, slot));
}

static inline ItemPointerData
LearnedLeafViewTid(const LearnedLeafView *v, int slot)
{
	if (v->compressed)
		return LearnedLeafCompressedTid(v, slot);
	if (v->varwidth)
	{
		ItemPointerData t;

		memcpy(&t, (char *) v->page + LearnedVwTidsOff(v->nitems) +
			   slot * sizeof(ItemPointerData), sizeof(t));
		return t;
	}
	return *LearnedLeafTid(v->page, v->layout, slot);
}


/*
 * A heap TID read from an index page, checked before it goes to core (a scan
 * result, a bitmap, VACUUM's callback).  A damaged page can hold offset 0 or
 * block InvalidBlockNumber, which core only asserts against: a build with
 * assertions aborts, and one without reads block InvalidBlockNumber as P_NEW,
 * extending the heap.  Inline: a range scan checks every TID it returns.
 */
static inline void
LearnedCheckHeapTid(Relation index, ItemPointer tid)
{
	if (unlikely(!ItemPointerIsValid(tid) ||
				 ItemPointerGetBlockNumberNoCheck(tid) == InvalidBlockNumber))
		LearnedReportHeapTid(index, tid);
}

#endif							/* LEARNED_LEAF_H */
