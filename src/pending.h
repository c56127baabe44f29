/*
 * pending.h
 *		The per-backend sorted copy of the pending list and the pending
 *		pages' record helpers (pending.c).
 */
#ifndef LEARNED_PENDING_H
#define LEARNED_PENDING_H

#include "learned.h"

/* ---------- pending.c: per-backend sorted copy of the pending list ---------- */

/*
 * One entry of the copy: 24 bytes, since every backend that scans the index
 * holds one per pending entry.  The mapped keys live in packed arrays beside
 * the entries (a lookup's binary search reads those), NULL keys in their own
 * array, and the entry's place is (blkno, slot) plus the low half of its
 * sequence number, which tells a recycled page apart (pending_entry_usable).
 */
typedef struct LearnedPendingEntry
{
	Datum		key;
	ItemPointerData tid;
	uint16		slot;			/* its slot on the page (| _SLOT_KILLED) */
	BlockNumber blkno;			/* pending page holding it */
	uint32		seqlo;			/* low 32 bits of its sequence number */
} LearnedPendingEntry;

/*
 * In a backend's copy of the tail (pending.c): the top bit of an entry's
 * slot says that a scan of this backend found its heap tuple dead to every
 * transaction (kill_prior_tuple, scan.c); its scans skip it.  Slots are
 * far below it (LearnedPendingCapacity).
 */
#define LEARNED_PENDING_SLOT_KILLED	0x8000

/*
 * Sorted by (key, TID): a large array and a small recent one, merged when
 * the recent one grows, so an incremental refresh costs O(new log new +
 * recent) and a lookup two binary searches.  NULL keys are kept apart.
 *
 * A scan pins the version of the copy it started with (LearnedPendingPin)
 * and reads its entries in place, lazily, until its rescan or end.  A
 * refresh never changes a pinned version: it makes a new one first, which
 * shares the large main run until a fold changes it (pending.c), and the
 * old version is freed when its last pin goes (LearnedPendingRelease).
 */
#define LEARNED_PENDING_TOP_STRIDE 16

typedef struct LearnedPendingCache
{
	int			nmain;
	LearnedPendingEntry *main;
	uint64	   *main_mkeys;		/* main's mapped keys, packed: a lookup's binary
								 * search touches 8 bytes a probe, not an entry */
	uint64	   *main_top;		/* every LEARNED_PENDING_TOP_STRIDE-th of
								 * main_mkeys: searched first, it stays in
								 * cache, and the search ends in one stride */
	int			ntop;
	int			nrecent;
	LearnedPendingEntry *recent;
	uint64	   *recent_mkeys;	/* recent's mapped keys, packed */
	uint64	   *filter;			/* a bit per hash of each cached mapped key
								 * (a one-hash Bloom filter), or NULL */
	uint64		filter_mask;	/* its number of bits - 1 (a power of 2) */
	int			nnulls;
	LearnedPendingEntry *nulls;
	uint64		nentries;		/* live entries cached */
	/* the version itself (pending.c) */
	int			pins;			/* scans reading it (LearnedPendingPin) */
	bool		orphan;			/* no longer the index's copy: freed unpinned */
	int			maxrecent;		/* room in recent (and recent_mkeys) */
	int			maxnulls;		/* room in nulls */
	struct LearnedPendingRun *run;	/* owns main, main_mkeys, main_top */
	struct LearnedPendingEpoch *epoch;	/* its memory, and its keys' */
} LearnedPendingCache;

/*
 * The order of the copy's entries, given their mapped keys: the mapped keys
 * decide where they differ and the order allows (order is the key's
 * LearnedKeyOrderOf), the comparator between equal images of an inexact
 * map (or always, for an untrusted one), and the TID breaks ties.  With a
 * monotone image a smaller image is a smaller key, so this is the
 * comparator's order; a composite lookup's merge then calls it only for
 * entries whose packed columns agree.
 */
static inline int
LearnedPendingOrder(LearnedKeyInfo *ki, LearnedKeyOrder order,
					const LearnedPendingEntry *x, uint64 xm,
					const LearnedPendingEntry *y, uint64 ym)
{
	if (order != LEARNED_ORDER_COMPARATOR && xm != ym)
		return xm < ym ? -1 : 1;
	if (order != LEARNED_ORDER_EXACT)
	{
		int			r = LearnedKeyCmp(ki, x->key, y->key);

		if (r != 0)
			return r;
	}
	return ItemPointerCompare((ItemPointer) &x->tid, (ItemPointer) &y->tid);
}

extern LearnedPendingCache *LearnedPendingGet(Relation index,
											  const LearnedMetaPageData *meta,
											  LearnedKeyInfo *ki, uint64 *seen);
extern void LearnedPendingInitPage(Page page, int keylen, uint32 generation,
								   uint64 first_seq);
extern void LearnedPendingXorWithFirst(Page page, int keylen, char *key);

/*
 * A record's key to write: a single column's value (or NULL), or the
 * stored bytes of a composite or variable-width key (a composite key's
 * NULL columns are inside; never a NULL entry).
 */
typedef struct LearnedPendingKeyData
{
	Datum		value;
	bool		isnull;
	const char *packed;			/* composite or varwidth: size bytes */
	Size		size;
	int			align;			/* varwidth: LearnedKeyAlign */
} LearnedPendingKeyData;

extern uint64 LearnedPendingNewTail(Relation index, Buffer metabuf, ItemPointer tid,
									const LearnedPendingKeyData *key);

extern int	LearnedPendingFillLimit(int keylen);
extern uint64 LearnedFilterHash(uint64 x);

/* run.c */
extern int	learned_tail_limit;
extern int	learned_merge_step_segments;
extern bool LearnedRunFlush(Relation index, uint64 min);
extern bool LearnedRunFlushWhole(Relation index);
extern void LearnedRunReadHeader(Relation index, const LearnedRunInfo *run, char *hdr);
extern void LearnedRunReadHeaderCached(Relation index, const LearnedRunInfo *run, char *hdr,
									   bool lists_only, const LearnedRunFilterProbe *p,
									   bool *probed, bool *may);
extern int	LearnedRunPageOf(const LearnedRunHeader *h, uint32 rank);
extern void LearnedRunFilterKey(uint64 mkey, LearnedRunFilterProbe *p);
extern int	LearnedRunFilterWhere(const LearnedRunHeader *h, const LearnedRunFilterProbe *p,
								  uint32 *off);
extern bool LearnedRunFilterBlockHas(const char *block, const LearnedRunFilterProbe *p);
extern void LearnedRunLoadFilter(Relation index, const LearnedRunHeader *h, int fp, char *copy);
/*
 * A caller's hints for the filter probes of one run (LearnedRunMayContain):
 * the slot of the backend's copies that held the run's header last time,
 * and the buffer each filter page was last read in.  Only hints: each is
 * checked before it is used.
 */
typedef struct LearnedRunFilterHints
{
	int			slot;			/* -1: none yet */
	Buffer		recent[LEARNED_RUN_MAX_FILTER];
} LearnedRunFilterHints;

extern void LearnedRunFilterHintsInit(LearnedRunFilterHints *hints);
extern bool LearnedRunMayContain(Relation index, const char *hdr, const LearnedRunInfo *run,
								 const LearnedRunFilterProbe *p, LearnedRunFilterHints *hints);
extern Buffer LearnedRunLockPage(Relation index, LearnedKeyInfo *ki, const LearnedRunInfo *run,
								const LearnedRunHeader *h, int pg, Page *page);
extern int	LearnedRunLoadPage(Relation index, LearnedKeyInfo *ki, const LearnedRunInfo *run,
							   const LearnedRunHeader *h, int pg, char *copy);
extern void LearnedRunDecode(Relation index, LearnedKeyInfo *ki, const char *copy,
							 BlockNumber blkno, int i, LearnedPendingEntry *e, uint64 *mkey,
							 uint16 *flags, MemoryContext cxt);
extern void LearnedRunHint(Relation index, int keylen, const LearnedPendingEntry *e);

/* the mapped key of a decoded run entry with those flags (0 for NULL) */
static inline uint64
LearnedRunEntryMkey(const LearnedKeyInfo *ki, const LearnedPendingEntry *e, uint16 flags)
{
	return (flags & LEARNED_PENDING_NULL) ? 0 : LearnedKeyMap(ki, e->key);
}

extern int	LearnedRunReadPage(Relation index, LearnedKeyInfo *ki, const LearnedRunInfo *run,
							   const LearnedRunHeader *h, int pg, LearnedPendingEntry *out,
							   uint64 *mkeys, uint16 *flags, MemoryContext cxt);
extern bool LearnedPendingHasRoom(Page page, int keylen, int n,
								  const LearnedPendingKeyData *key);
extern void LearnedPendingPut(Page page, int keylen, int slot, ItemPointer tid,
							  const LearnedPendingKeyData *key);
extern void LearnedPendingPin(LearnedPendingCache *c);
extern void LearnedPendingRelease(LearnedPendingCache *c);
extern bool LearnedPendingMayContain(const LearnedPendingCache *c, uint64 mkey);
extern Datum LearnedPendingKeyAt(Relation index, const LearnedKeyInfo *ki, Page page,
								 BlockNumber blkno, int slot);
extern uint64 LearnedPendingAppended(Relation index, const LearnedMetaPageData *meta);
extern Buffer LearnedPendingLockTail(Relation index, const LearnedMetaPageData *meta,
									 int mode, uint64 *appended);
extern int	LearnedPendingCount(Page page, int keylen);
extern int	LearnedPendingCountFrom(Page page, int keylen, int from);

#endif							/* LEARNED_PENDING_H */
