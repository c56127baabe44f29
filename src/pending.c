/*
 * pending.c
 *		The pending list's page format helpers and the per-backend sorted
 *		copy of its entries (the paper's in-memory dynamic index).
 *
 * Each backend keeps, per index, a sorted copy of the live pending entries.
 * A scan refreshes it at its start: it reads only the entries appended since
 * the last refresh (from where it stopped reading, following the chain), and
 * reloads everything when the metapage's pending_epoch says that a merge
 * consumed entries or VACUUM marked some dead.  So a lookup never reads the
 * pending pages one by one.
 *
 * A scan pins the version of the copy it started with and reads it in
 * place (scan.c), so a refresh reorganises the copy in place only while no
 * scan pins it.  Scans of one index overlap within a backend more often
 * than one would think: an InitPlan's "ORDER BY o LIMIT 1" scan stays open
 * while the outer DELETE's scan of the same index starts, as do cursors
 * and nested loops.  So:
 *
 *	- all versions of the copy between two reloads belong to one epoch: one
 *	  memory context, which holds them and every key they point to (keys
 *	  are never freed before the reload), deleted when the epoch is over
 *	  (a reload started the next) and its last version is freed;
 *	- a refresh that finds new entries while a scan pins the current
 *	  version makes a new version first (make_private): it shares the main
 *	  run (refcounted), copies the small recent run (O(sqrt n)) and the
 *	  NULL entries, and takes over the membership filter (only the current
 *	  version's filter is read, by a scan's start);
 *	- a fold of recent into a shared main run writes a new main run
 *	  (unshare_run), at about the cost of the fold itself;
 *	- the pinned version, now an orphan, is freed by its last release.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "learned.h"
#include "pending.h"

/*
 * An entry of a refresh's read buffer: the entry and its mapped key, sorted
 * together, then split into the copy's entry and mapped-key arrays.
 */
typedef struct PendingFresh
{
	uint64		mkey;
	LearnedPendingEntry e;
} PendingFresh;

typedef struct PendingCacheEntry
{
	Oid			indexoid;		/* hash key */
	Oid			relfilenode;
	uint32		epoch;
	uint32		map_serial;		/* of the key info whose images it holds */
	bool		valid;
	BlockNumber next_blk;		/* where reading continues */
	Buffer		recent;			/* the buffer of the last page read (a hint) */
	int			next_slot;
	BlockNumber tail_blk;		/* the tail page the last refresh ended on, */
	XLogRecPtr	tail_lsn;		/* and its LSN then (invalid: no WAL, unknown) */
	uint64		seen_seq;		/* the sequence number after the last entry
								 * read (PG_UINT64_MAX: no tail read yet) */
	PendingFresh *fresh;		/* a refresh's small read buffer, kept */
	LearnedPendingEntry *scratch;	/* ... and its entries, split for merging */
	uint64	   *scratch_mkeys;
	MemoryContext work_cxt;		/* holds fresh and scratch */
	LearnedPendingCache *cache; /* the current version, or NULL */
} PendingCacheEntry;

static HTAB *pending_caches = NULL;

static inline Size top_size(int n);

/* entries of a refresh's kept read buffer (under the 8 kB chunk limit) */
#define LEARNED_PENDING_FRESH_KEEP	128

/* main grows by doubling up to this many entries, then by a quarter */
#define LEARNED_PENDING_GROW_DOUBLE	65536

/*
 * The entry of the index last asked for: a nested-loop lookup asks for the
 * same index at every rescan.  Entries are never removed from the table,
 * and dynahash does not move them, so the pointer stays valid.
 */
static Oid	last_indexoid = InvalidOid;
static PendingCacheEntry *last_pc = NULL;

/*
 * Initialize a pending page, with no records.  pd_lower starts right after
 * the header: the page is logged as a full image, without the hole.
 * Appends move it past their records, a few dozen at a time (tail.c),
 * and every slot between the last record and pd_lower is zero.
 */
void
LearnedPendingInitPage(Page page, int keylen, uint32 generation,
					   uint64 first_seq)
{
	LearnedInitPage(page, LEARNED_PAGE_PENDING, generation);
	memcpy((char *) page + LEARNED_LEAF_DATA_OFFSET, &first_seq, sizeof(uint64));
	((PageHeader) page)->pd_lower = LEARNED_PENDING_ITEMS_OFFSET;
}

/*
 * Link a new pending page after the tail page and make it the tail, in one
 * record with the metapage (metabuf, which the caller holds exclusively)
 * and the old tail, whose count is read under its exclusive lock (an
 * append that skips the metapage, tail.c, may have added to it until
 * then; the link tells later ones that it is no longer the tail): holding
 * the entry (tid, key) when an
 * insert found the tail page full (tail.c), or empty when tid is NULL (a
 * whole flush seals the tail page, LearnedRunFlushWhole, so that no insert
 * appends to it any more).  Returns the sequence number after the new
 * page's entries.
 */
uint64
LearnedPendingNewTail(Relation index, Buffer metabuf, ItemPointer tid,
					  const LearnedPendingKeyData *key)
{
	LearnedMetaPage meta = LearnedPageGetMeta(BufferGetPage(metabuf));
	int			keylen = meta->keylen;
	Buffer		tailbuf = InvalidBuffer;
	Buffer		newbuf;
	BlockNumber newblk;
	Page		newpage;
	GenericXLogState *state;
	uint64		first_seq = meta->pending_tail_seq;

	if (meta->pending_tail != InvalidBlockNumber)
		tailbuf = LearnedPendingLockTail(index, meta, BUFFER_LOCK_EXCLUSIVE,
										 &first_seq);
	if (tid)
		newbuf = LearnedAllocPage(index);
	else
	{
		/*
		 * A seal (VACUUM's whole flush): the lowest free block, by first fit
		 * as for a segment, not the FSM's next one, so that this page, which
		 * the merge after it leaves as the whole pending list, does not keep
		 * the truncation from cutting a free end of the file.
		 */
		newbuf = ReadBuffer(index, LearnedAllocRun(index, 1, false));
		LockBuffer(newbuf, BUFFER_LOCK_EXCLUSIVE);
	}
	newblk = BufferGetBlockNumber(newbuf);

	state = LearnedXLogStart(index);
	meta = LearnedPageGetMeta(LearnedXLogRegister(state, metabuf, false));
	newpage = LearnedXLogRegister(state, newbuf, true);
	LearnedPendingInitPage(newpage, keylen, meta->generation, first_seq);
	if (tid)
		LearnedPendingPut(newpage, keylen, 0, tid, key);
	if (BufferIsValid(tailbuf))
	{
		Page		tailpage = LearnedXLogRegister(state, tailbuf, false);

		LearnedPageGetOpaque(tailpage)->next = newblk;
	}
	else
		meta->pending_head = newblk;
	meta->pending_tail = newblk;
	meta->pending_tail_seq = first_seq;
	meta->pending_pages++;
	LearnedXLogFinish(state);
	UnlockReleaseBuffer(newbuf);
	if (BufferIsValid(tailbuf))
		UnlockReleaseBuffer(tailbuf);
	return first_seq + (tid ? 1 : 0);
}

/*
 * A pending page takes records up to this many bytes: all of it.  Until the
 * append logged its own record (LearnedXLogRanges), GenericXLogFinish found
 * each append's delta by comparing the page's used area byte by byte under
 * the tail's exclusive lock, so pages were filled to 2 kB only (on full
 * pages 200k single-row int8 inserts took about 1.4 s, 0.5 s at 2 kB).
 * Without that comparison a full page costs an append nothing more (the
 * same 200k inserts: 262-544 ms at 2 kB, 456-522 ms full, btree 543-578 ms;
 * noisy), and the chain needs a quarter of the pages and of the new-tail
 * records.
 * Pages written at 2 kB stay valid: readers count the used slots
 * (LearnedPendingCount).
 */
#define LEARNED_PENDING_FILL_BYTES	BLCKSZ

int
LearnedPendingFillLimit(int keylen)
{
	int			n = LEARNED_PENDING_FILL_BYTES / (int) LearnedPendingItemSize(keylen);

	return Max(1, Min(n, LearnedPendingCapacity(keylen)));
}

/*
 * Does the record fit the page, and, unless the page is empty, stay
 * within the fill target?  A variable-width record costs its slot, its
 * key and the key's alignment padding.
 */
bool
LearnedPendingHasRoom(Page page, int keylen, int n, const LearnedPendingKeyData *key)
{
	PageHeader	ph = (PageHeader) page;
	Size		need;
	Size		used;

	if (keylen >= 0)
		return n < LearnedPendingFillLimit(keylen);
	if (n >= LearnedPendingCapacity(keylen))
		return false;
	need = LEARNED_PENDING_VHDR + (key->isnull ? 0 : key->size + key->align - 1);
	if ((Size) (ph->pd_upper - ph->pd_lower) < need)
		return false;
	used = (ph->pd_lower - LEARNED_PENDING_ITEMS_OFFSET) +
		(BLCKSZ - MAXALIGN(sizeof(LearnedPageOpaqueData)) - ph->pd_upper);
	return n == 0 || used + need <= LEARNED_PENDING_FILL_BYTES;
}

void
LearnedPendingPut(Page page, int keylen, int slot, ItemPointer tid,
			const LearnedPendingKeyData *key)
{
	char	   *p = LearnedPendingItemPtr(page, keylen, slot);

	/* the caller checked the TID (this may run in a critical section) */
	LearnedPendingSetTid(page, p, tid);
	LearnedPendingSetFlags(page, p, key->isnull ? LEARNED_PENDING_NULL : 0);
	if (keylen < 0)
	{
		/* the key goes below pd_upper, which moves down over it */
		PageHeader	ph = (PageHeader) page;
		uint16		off = 0;
		uint16		len = 0;

		if (!key->isnull)
		{
			off = (uint16) TYPEALIGN_DOWN(key->align, ph->pd_upper - key->size);
			len = (uint16) key->size;
			memcpy((char *) page + off, key->packed, key->size);
			ph->pd_upper = off;
		}
		memcpy(p + LEARNED_PENDING_HDR, &off, sizeof(uint16));
		memcpy(p + LEARNED_PENDING_HDR + sizeof(uint16), &len, sizeof(uint16));
	}
	else if (key->isnull)
		memset(p + LEARNED_PENDING_HDR, 0, keylen);
	else if (key->packed)
		memcpy(p + LEARNED_PENDING_HDR, key->packed, keylen);
	else
		learned_store_key(p + LEARNED_PENDING_HDR, keylen, key->value);
	/* NULLs keep zero key bytes; slot 0's key is every other's XOR base */
	if (slot > 0 && !key->isnull && LearnedPendingXorWidth(keylen))
		LearnedPendingXorWithFirst(page, keylen, p + LEARNED_PENDING_HDR);
	/* keep the record below pd_lower, or GenericXLog would zero it */
	((PageHeader) page)->pd_lower = Max(((PageHeader) page)->pd_lower,
										(p - (char *) page) + LearnedPendingItemSize(keylen));
}

/*
 * The key of the pending record at p of page (blkno).  A variable-width
 * key's offset and length are checked against the page (keys lie between
 * pd_upper and the special space) and against the key's own size before
 * anyone reads it.
 */
static Datum
record_key(Relation index, const LearnedKeyInfo *ki, Page page,
		   BlockNumber blkno, const char *p)
{
	PageHeader	ph = (PageHeader) page;
	uint16		off;
	uint16		len;

	if (!LearnedKeyIsVarwidth(ki))
	{
		char		key[sizeof(Datum)];

		if (!LearnedPendingXorWidth(ki->keylen))
			return LearnedKeyFetch(ki, p + LEARNED_PENDING_HDR);
		/* a by-value key: the Datum does not point into key[] */
		memcpy(key, p + LEARNED_PENDING_HDR, ki->keylen);
		if (p != LearnedPendingItemPtr(page, ki->keylen, 0))
			LearnedPendingXorWithFirst(page, ki->keylen, key);
		return LearnedKeyFetch(ki, key);
	}
	memcpy(&off, p + LEARNED_PENDING_HDR, sizeof(uint16));
	memcpy(&len, p + LEARNED_PENDING_HDR + sizeof(uint16), sizeof(uint16));
	if (p + LEARNED_PENDING_VHDR > (char *) page + ph->pd_lower ||
		off < ph->pd_upper ||
		(Size) off + len > BLCKSZ - MAXALIGN(sizeof(LearnedPageOpaqueData)) ||
		LearnedKeySizeBounded(ki, (char *) page + off, len) != (int64) len)
		LearnedReportCorrupt(index, blkno, "bad pending entry");
	return PointerGetDatum((char *) page + off);
}

/*
 * The key of the entry in slot of a pending page (blkno), in either layout
 * (learned.h).  A packed page's key is rebuilt from its bytes, so its
 * Datum does not point into the page.
 */
Datum
LearnedPendingKeyAt(Relation index, const LearnedKeyInfo *ki, Page page,
					BlockNumber blkno, int slot)
{
	if (LearnedPendingIsPacked(page))
	{
		uint64		u;
		char		key[sizeof(uint64)];

		/* LearnedCheckPage checked the header, but not against the index */
		if (LearnedPackedGetHeader(page)->keylen != ki->keylen)
			LearnedReportCorrupt(index, blkno, "packed run page of another key width");
		u = LearnedPackedKeyBits(page, slot);
		memcpy(key, &u, sizeof(u));
		return LearnedKeyFetch(ki, key);
	}
	return record_key(index, ki, page, blkno,
					  LearnedPendingItemPtr(page, ki->keylen, slot));
}

/*
 * XOR keylen bytes at key with the key of the page's first record, both
 * ways (learned.h, LearnedPendingXorWidth): storing a record's key (tail.c) and
 * reading it back.
 */
void
LearnedPendingXorWithFirst(Page page, int keylen, char *key)
{
	const char *first = LearnedPendingItemPtr(page, keylen, 0) + LEARNED_PENDING_HDR;
	int			i;

	for (i = 0; i < keylen; i++)
		key[i] ^= first[i];
}

/*
 * The number of records on a pending page.  Appends fill the slots in
 * order and nothing empties one (VACUUM only flags it dead), and a heap
 * TID's offset number is never 0, so the used slots are a prefix of those
 * below pd_lower, whose end a binary search finds.  The records are not
 * counted in nitems: then an append changes the page in two places
 * (pd_lower and the record), not three, and its GenericXLog record is 69
 * bytes, not 74 (72 and 80 in the WAL, which aligns records to 8).
 */
int
LearnedPendingCount(Page page, int keylen)
{
	return LearnedPendingCountFrom(page, keylen, 0);
}

static inline bool
slot_used(Page page, int keylen, int slot)
{
	ItemPointerData tid = LearnedPendingTid(page,
											LearnedPendingItemPtr(page, keylen, slot));

	return ItemPointerGetOffsetNumberNoCheck(&tid) != InvalidOffsetNumber;
}

/*
 * LearnedPendingCount with a guess: the count is probably a little above
 * from (an inserter's count after its last append to this page; the other
 * inserters appended a few since).  Since the used slots are a prefix,
 * slot from - 1 in use proves the count is at least from, whatever page
 * this is; then a search that doubles its step from there finds the
 * first free slot in a few probes, near the page's end, instead of a
 * binary search over the whole page (2.3% of the CPU under 2-client
 * 100-row appends, perf).  A wrong guess costs one probe.
 */
int
LearnedPendingCountFrom(Page page, int keylen, int from)
{
	int			lower = ((PageHeader) page)->pd_lower;
	int			lo = 0;
	int			hi;

	if (LearnedPendingIsPacked(page))
		return LearnedPackedGetHeader(page)->count;
	if (lower <= (int) LEARNED_PENDING_ITEMS_OFFSET)
		return 0;
	hi = Min((lower - (int) LEARNED_PENDING_ITEMS_OFFSET) / (int) LearnedPendingItemSize(keylen),
			 LearnedPendingCapacity(keylen));
	if (from > 0 && from <= hi && slot_used(page, keylen, from - 1))
	{
		int			step = 1;

		/* slots below lo are used; probe lo, lo + 1, lo + 3, lo + 7 ... */
		lo = from;
		while (lo + step - 1 < hi)
		{
			int			probe = lo + step - 1;

			if (!slot_used(page, keylen, probe))
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
		int			mid = lo + (hi - lo) / 2;

		if (slot_used(page, keylen, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The sequence number of the next append.  Inserts touch the metapage only
 * when they start a new tail page, so the exact count is on the tail page.
 */
uint64
LearnedPendingAppended(Relation index, const LearnedMetaPageData *meta)
{
	uint64		appended;

	if (meta->pending_tail == InvalidBlockNumber)
		return meta->pending_tail_seq;
	UnlockReleaseBuffer(LearnedPendingLockTail(index, meta, BUFFER_LOCK_SHARE,
											   &appended));
	return appended;
}

/*
 * The tail page meta names (there must be one), read and locked in mode,
 * and in *appended the sequence number of the next append to it, which
 * stays so while an exclusive lock is held.
 */
Buffer
LearnedPendingLockTail(Relation index, const LearnedMetaPageData *meta, int mode,
					   uint64 *appended)
{
	Buffer		buf;
	Page		page;

	LearnedCheckLink(index, meta->pending_tail, NULL);
	buf = ReadBuffer(index, meta->pending_tail);
	LockBuffer(buf, mode);
	page = BufferGetPage(buf);
	LearnedCheckPage(index, page, meta->pending_tail, LEARNED_PAGE_PENDING);
	*appended = LearnedPendingFirstSeq(page) + LearnedPendingCount(page, meta->keylen);
	return buf;
}

/*
 * The copy is ordered by LearnedPendingOrder: by (mapped key, TID).  For
 * every supported single-column key type the mapping is strictly monotone
 * on the opclass's equality classes, so this is the comparator's order,
 * without an fmgr call per comparison.  Composite keys and lossy types are
 * ordered by their monotone image, then by the comparator among equal
 * images (the comparator alone for a libc strxfrm image).  All of a copy's
 * images come from one key map: a scan whose key info loaded another
 * (map_serial) rebuilds the copy.
 */

/*
 * The order of a refresh's read buffer, for composite and lossy keys.  A
 * typed sort (sort_template.h), as for exact keys below: qsort_arg swaps
 * its elements a byte at a time.
 */
static inline int
fresh_cmp(const PendingFresh *x, const PendingFresh *y, LearnedKeyInfo *ki)
{
	return LearnedPendingOrder(ki, LearnedKeyOrderOf(ki), &x->e, x->mkey, &y->e, y->mkey);
}

#define ST_SORT sort_fresh
#define ST_ELEMENT_TYPE PendingFresh
#define ST_COMPARE(a, b, arg) fresh_cmp(a, b, arg)
#define ST_COMPARE_ARG_TYPE LearnedKeyInfo
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Exact keys: the same order with the comparison inlined into the sort (a
 * full load sorts the whole list, 786k entries at the default limit).
 */
static inline int
fresh_exact_cmp(const PendingFresh *x, const PendingFresh *y)
{
	if (x->mkey != y->mkey)
		return x->mkey < y->mkey ? -1 : 1;
	return ItemPointerCompare((ItemPointer) &x->e.tid, (ItemPointer) &y->e.tid);
}

#define ST_SORT sort_fresh_exact
#define ST_ELEMENT_TYPE PendingFresh
#define ST_COMPARE(a, b) fresh_exact_cmp(a, b)
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Merge the sorted run b[0, nb) (bm its mapped keys) into the sorted run
 * a[0, na) (am), in place (a and am have room for na + nb), and return the
 * first position of a whose entry changed.  From the back: each entry of b
 * finds its place in what is left of a by binary search, and the entries
 * of a above it move up in one block, so no entry of a is overwritten
 * before it moves, entries of a below every entry of b stay where they
 * were (the caller re-samples only the rest), and equal entries of a stay
 * first.  A refresh absorbs one or two entries at a time into a few
 * hundred: an element-by-element merge into a new allocation (the earlier
 * way) cost a compare call per entry moved and a malloc per lookup under a
 * 50/50 insert/lookup mix.
 */
static int
merge_into(LearnedKeyInfo *ki, LearnedPendingEntry *a, uint64 *am, int na,
		   const LearnedPendingEntry *b, const uint64 *bm, int nb)
{
	int			end = na;		/* a[0, end) is still to be placed */
	int			k = na + nb;	/* a[k, na + nb) is final */
	LearnedKeyOrder order = LearnedKeyOrderOf(ki);
	int			j;

	for (j = nb - 1; j >= 0; j--)
	{
		int			lo = 0,
					hi = end;

		/* the first entry of a[0, end) above b[j] */
		while (lo < hi)
		{
			int			mid = lo + (hi - lo) / 2;

			if (LearnedPendingOrder(ki, order, &a[mid], am[mid], &b[j], bm[j]) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		k -= end - lo;
		memmove(&a[k], &a[lo], sizeof(LearnedPendingEntry) * (end - lo));
		memmove(&am[k], &am[lo], sizeof(uint64) * (end - lo));
		a[--k] = b[j];
		am[k] = bm[j];
		end = lo;
	}
	return end;
}

/*
 * An epoch: the memory of the versions of the copy between two reloads.
 * Allocated in its own context, which the last of its versions deletes
 * once a reload has retired it.
 */
typedef struct LearnedPendingEpoch
{
	MemoryContext cxt;
	int			versions;		/* versions alive in it */
	bool		retired;		/* a reload started the next epoch */
} LearnedPendingEpoch;

/* a version's main run, shared by the versions made while a scan pinned one */
typedef struct LearnedPendingRun
{
	int			refs;			/* versions using it */
	int			max;			/* room in entries and mkeys */
	LearnedPendingEntry *entries;
	uint64	   *mkeys;
	uint64	   *top;
} LearnedPendingRun;

static LearnedPendingRun *
new_run(LearnedPendingEpoch *ep, int max)
{
	LearnedPendingRun *r = MemoryContextAlloc(ep->cxt, sizeof(LearnedPendingRun));

	r->refs = 1;
	r->max = max;
	r->entries = MemoryContextAllocHuge(ep->cxt, sizeof(LearnedPendingEntry) * max);
	r->mkeys = MemoryContextAllocHuge(ep->cxt, sizeof(uint64) * max);
	r->top = MemoryContextAllocHuge(ep->cxt, top_size(max));
	return r;
}

static void
release_run(LearnedPendingRun *r)
{
	if (--r->refs > 0)
		return;
	pfree(r->entries);
	pfree(r->mkeys);
	pfree(r->top);
	pfree(r);
}

/* the version's view of its main run (after the run changed or moved) */
static void
mirror_run(LearnedPendingCache *c)
{
	c->main = c->run->entries;
	c->main_mkeys = c->run->mkeys;
	c->main_top = c->run->top;
}

/*
 * A new version in ep with room for maxrecent recent and maxnulls NULL
 * entries (none in use), and main run run (a new, empty one if NULL).
 */
static LearnedPendingCache *
new_version(LearnedPendingEpoch *ep, LearnedPendingRun *run, int maxrecent, int maxnulls)
{
	LearnedPendingCache *c = MemoryContextAllocZero(ep->cxt, sizeof(LearnedPendingCache));

	c->epoch = ep;
	ep->versions++;
	c->maxrecent = maxrecent;
	c->maxnulls = maxnulls;
	c->run = run ? run : new_run(ep, 64);
	mirror_run(c);
	c->recent = MemoryContextAllocHuge(ep->cxt, sizeof(LearnedPendingEntry) * maxrecent);
	c->recent_mkeys = MemoryContextAllocHuge(ep->cxt, sizeof(uint64) * maxrecent);
	c->nulls = MemoryContextAllocHuge(ep->cxt, sizeof(LearnedPendingEntry) * maxnulls);
	return c;
}

static void
free_version(LearnedPendingCache *c)
{
	LearnedPendingEpoch *ep = c->epoch;

	if (--ep->versions == 0 && ep->retired)
	{
		/* the epoch's last version: everything goes (ep too, it lives there) */
		MemoryContextDelete(ep->cxt);
		return;
	}
	release_run(c->run);
	pfree(c->recent);
	pfree(c->recent_mkeys);
	pfree(c->nulls);
	if (c->filter)
		pfree(c->filter);
	pfree(c);
}

/*
 * The index's copy is no longer c: free it, or, while scans pin it, leave
 * it to the last of them (LearnedPendingRelease).
 */
static void
retire_version(LearnedPendingCache *c)
{
	c->orphan = true;
	if (c->pins == 0)
		free_version(c);
}

/*
 * Start a new epoch with an empty copy: the first use of the index, a
 * reload after a merge or VACUUM changed the list, or a failed refresh.
 */
static void
reset_cache(PendingCacheEntry *pc, Relation index, const LearnedMetaPageData *meta,
			const LearnedKeyInfo *ki)
{
	LearnedPendingEpoch *ep;
	MemoryContext cxt;

	if (pc->cache)
	{
		pc->cache->epoch->retired = true;
		retire_version(pc->cache);
		pc->cache = NULL;
	}
	if (pc->work_cxt == NULL)
		pc->work_cxt = AllocSetContextCreate(CacheMemoryContext, "learned pending refresh",
											 ALLOCSET_SMALL_SIZES);
	pc->relfilenode = LI_REL_FILE_NUMBER(index);
	pc->epoch = meta->pending_epoch;
	pc->map_serial = ki->map_serial;
	pc->next_blk = LearnedTailStartBlk(meta);
	pc->next_slot = 0;
	pc->recent = InvalidBuffer;
	pc->tail_blk = InvalidBlockNumber;
	pc->tail_lsn = InvalidXLogRecPtr;
	pc->seen_seq = PG_UINT64_MAX;
	/* named after the index in pg_backend_memory_contexts */
	cxt = AllocSetContextCreate(CacheMemoryContext, "learned pending copy",
								ALLOCSET_DEFAULT_SIZES);
	MemoryContextCopyAndSetIdentifier(cxt, RelationGetRelationName(index));
	ep = MemoryContextAllocZero(cxt, sizeof(LearnedPendingEpoch));
	ep->cxt = cxt;
	pc->cache = new_version(ep, NULL, 64, 64);
	pc->valid = true;
}

/*
 * Before a refresh changes the copy: if a scan pins it, make the index a
 * new version, sharing the main run and copying the rest, and leave the
 * pinned one to its scans.
 */
static void
make_private(PendingCacheEntry *pc)
{
	LearnedPendingCache *old = pc->cache;
	LearnedPendingEpoch *ep = old->epoch;
	LearnedPendingCache *c;

	if (old->pins == 0)
		return;
	old->run->refs++;
	c = new_version(ep, old->run, Max(old->nrecent, 64), Max(old->nnulls, 64));
	c->nmain = old->nmain;
	c->ntop = old->ntop;
	memcpy(c->recent, old->recent, sizeof(LearnedPendingEntry) * old->nrecent);
	memcpy(c->recent_mkeys, old->recent_mkeys, sizeof(uint64) * old->nrecent);
	c->nrecent = old->nrecent;
	memcpy(c->nulls, old->nulls, sizeof(LearnedPendingEntry) * old->nnulls);
	c->nnulls = old->nnulls;
	c->nentries = old->nentries;
	/* only the current version's filter is read (LearnedPendingMayContain) */
	c->filter = old->filter;
	c->filter_mask = old->filter_mask;
	old->filter = NULL;
	retire_version(old);
	pc->cache = c;
}

/*
 * Before a fold changes the main run: if an older, pinned version shares
 * it, give this version its own copy, with room for need entries.
 */
static void
unshare_run(LearnedPendingCache *c, int need)
{
	LearnedPendingRun *old = c->run;
	LearnedPendingRun *r;

	if (old->refs == 1)
		return;
	r = new_run(c->epoch, Max(need, old->max));
	memcpy(r->entries, old->entries, sizeof(LearnedPendingEntry) * c->nmain);
	memcpy(r->mkeys, old->mkeys, sizeof(uint64) * c->nmain);
	memcpy(r->top, old->top, sizeof(uint64) * c->ntop);
	release_run(old);
	c->run = r;
	mirror_run(c);
}

void
LearnedPendingPin(LearnedPendingCache *c)
{
	c->pins++;
}

void
LearnedPendingRelease(LearnedPendingCache *c)
{
	Assert(c->pins > 0);
	if (--c->pins == 0 && c->orphan)
		free_version(c);
}

/*
 * The membership filter of the copy's mapped keys.  A point lookup whose
 * key has no bit set has no pending match, and skips the binary searches
 * of main and recent: one cache line instead of a chain of dependent
 * probes, for most lookups, since most keys have no pending entry.  Equal
 * keys have equal images under every map (an inexact one too: a composite
 * primary key's lookup names every column, and its image is the image of
 * each key it matches; scan.c decides when a bound's image is that).
 * Sized at 16 bits per entry (about 6% false positives with one hash),
 * rebuilt twice as large when the entries pass an eighth of the bits.
 */
#define LEARNED_PENDING_FILTER_MIN_BITS 4096

uint64
LearnedFilterHash(uint64 x)
{
	/* a 64-bit finalizer (xor-shift-multiply): every input bit moves the index */
	x ^= x >> 33;
	x *= UINT64CONST(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64CONST(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

static inline void
filter_set(LearnedPendingCache *c, uint64 mkey)
{
	uint64		h = LearnedFilterHash(mkey) & c->filter_mask;

	c->filter[h >> 6] |= UINT64CONST(1) << (h & 63);
}

bool
LearnedPendingMayContain(const LearnedPendingCache *c, uint64 mkey)
{
	uint64		h;

	if (c->filter == NULL)
		return true;
	h = LearnedFilterHash(mkey) & c->filter_mask;
	return (c->filter[h >> 6] >> (h & 63)) & 1;
}

static void
filter_add(PendingCacheEntry *pc, LearnedKeyInfo *ki,
		   const PendingFresh *fresh, int nfresh)
{
	LearnedPendingCache *c = pc->cache;
	uint64		nkeys = (uint64) c->nmain + c->nrecent;
	int			i;

	if (c->filter == NULL || nkeys > (c->filter_mask + 1) / 8)
	{
		uint64		nbits = LEARNED_PENDING_FILTER_MIN_BITS;

		while (nbits < nkeys * 16)
			nbits *= 2;
		if (c->filter)
			pfree(c->filter);
		c->filter = MemoryContextAllocHuge(c->epoch->cxt, nbits / 8);
		memset(c->filter, 0, nbits / 8);
		c->filter_mask = nbits - 1;
		for (i = 0; i < c->nmain; i++)
			filter_set(c, c->main_mkeys[i]);
		for (i = 0; i < c->nrecent; i++)
			filter_set(c, c->recent_mkeys[i]);
		return;
	}
	for (i = 0; i < nfresh; i++)
		filter_set(c, fresh[i].mkey);
}

/*
 * Sample every LEARNED_PENDING_TOP_STRIDE-th mapped key of main from entry
 * from on (element i of top holds entry i * stride).
 */
static void
resample_top(LearnedPendingCache *c, int from)
{
	int			i;

	c->ntop = (c->nmain + LEARNED_PENDING_TOP_STRIDE - 1) / LEARNED_PENDING_TOP_STRIDE;
	for (i = from / LEARNED_PENDING_TOP_STRIDE; i < c->ntop; i++)
		c->main_top[i] = c->main_mkeys[i * LEARNED_PENDING_TOP_STRIDE];
}

static inline Size
top_size(int n)
{
	return sizeof(uint64) * ((n + LEARNED_PENDING_TOP_STRIDE - 1) / LEARNED_PENDING_TOP_STRIDE);
}

/*
 * Make room for need entries in a sorted run and its mapped keys (and,
 * given top, its stride samples).  Small runs double; large ones grow by a
 * quarter, so main, which holds nearly every entry, wastes at most a fifth
 * of its room.
 */
static void
grow_run(LearnedPendingEntry **arr, uint64 **mkeys, uint64 **top, int *max,
		 int need)
{
	if (need <= *max)
		return;
	while (need > *max)
		*max = *max < LEARNED_PENDING_GROW_DOUBLE ? *max * 2 : *max + *max / 4;
	*arr = repalloc_huge(*arr, sizeof(LearnedPendingEntry) * *max);
	*mkeys = repalloc_huge(*mkeys, sizeof(uint64) * *max);
	if (top)
		*top = repalloc_huge(*top, top_size(*max));
}

/* the sorted read buffer's entries and mapped keys, into separate arrays */
static void
split_fresh(const PendingFresh *fresh, int nfresh, LearnedPendingEntry *entries,
			uint64 *mkeys)
{
	int			i;

	for (i = 0; i < nfresh; i++)
	{
		entries[i] = fresh[i].e;
		mkeys[i] = fresh[i].mkey;
	}
}

/*
 * Add freshly read entries (unsorted) to the copy.
 */
static void
absorb(PendingCacheEntry *pc, LearnedKeyInfo *ki, PendingFresh *fresh,
	   int nfresh)
{
	LearnedPendingCache *c = pc->cache;
	LearnedPendingEntry *be;
	uint64	   *bm;
	int			from;
	int			fold_at;

	if (nfresh == 0)
		return;
	if (nfresh > 1 && LearnedKeyMapExact(ki))
		sort_fresh_exact(fresh, nfresh);
	else if (nfresh > 1)
		sort_fresh(fresh, nfresh, ki);

	if (c->nmain == 0 && c->nrecent == 0 && nfresh > LEARNED_PENDING_FRESH_KEEP)
	{
		/*
		 * A full load (after a merge or VACUUM, or a backend's first scan):
		 * the sorted entries become main, allocated to size.  Passing them
		 * through recent, as small refreshes go, would hold three copies
		 * of the list at once and keep recent that large.
		 */
		release_run(c->run);
		c->run = new_run(c->epoch, nfresh);
		mirror_run(c);
		split_fresh(fresh, nfresh, c->main, c->main_mkeys);
		c->nmain = nfresh;
		resample_top(c, 0);
		filter_add(pc, ki, fresh, nfresh);
		return;
	}

	/* split the sorted entries from their mapped keys, for merge_into */
	if (nfresh <= LEARNED_PENDING_FRESH_KEEP)
	{
		if (pc->scratch == NULL)
		{
			pc->scratch = MemoryContextAlloc(pc->work_cxt, sizeof(LearnedPendingEntry) *
											 LEARNED_PENDING_FRESH_KEEP);
			pc->scratch_mkeys = MemoryContextAlloc(pc->work_cxt, sizeof(uint64) *
												   LEARNED_PENDING_FRESH_KEEP);
		}
		be = pc->scratch;
		bm = pc->scratch_mkeys;
	}
	else
	{
		be = MemoryContextAllocHuge(pc->work_cxt, sizeof(LearnedPendingEntry) * nfresh);
		bm = MemoryContextAllocHuge(pc->work_cxt, sizeof(uint64) * nfresh);
	}
	split_fresh(fresh, nfresh, be, bm);

	/* fresh into recent */
	grow_run(&c->recent, &c->recent_mkeys, NULL, &c->maxrecent,
			 c->nrecent + nfresh);
	merge_into(ki, c->recent, c->recent_mkeys, c->nrecent, be, bm, nfresh);
	c->nrecent += nfresh;
	if (be != pc->scratch)
	{
		pfree(be);
		pfree(bm);
	}

	/*
	 * recent grew past ~2 sqrt(main): fold it into main.  A refresh moves
	 * part of recent, a fold part of main, so with small refreshes (one
	 * entry per unique insert's check) the cost per entry is about
	 * nrecent/2 + nmain/threshold, least near sqrt(nmain); an eighth of
	 * main (the earlier threshold) copied ~nmain/16 entries per refresh.
	 */
	fold_at = Max(256, 2 * (int) sqrt((double) c->nmain));
	if (c->nrecent > fold_at)
	{
		unshare_run(c, c->nmain + c->nrecent);
		grow_run(&c->run->entries, &c->run->mkeys, &c->run->top, &c->run->max,
				 c->nmain + c->nrecent);
		mirror_run(c);
		from = merge_into(ki, c->main, c->main_mkeys, c->nmain,
						  c->recent, c->recent_mkeys, c->nrecent);
		c->nmain += c->nrecent;
		resample_top(c, from);
		c->nrecent = 0;
		/* a large refresh grew recent: give the room back */
		if (c->maxrecent > 4 * fold_at)
		{
			c->maxrecent = 64;
			c->recent = repalloc(c->recent, sizeof(LearnedPendingEntry) * c->maxrecent);
			c->recent_mkeys = repalloc(c->recent_mkeys, sizeof(uint64) * c->maxrecent);
		}
	}
	filter_add(pc, ki, fresh, nfresh);
}

/*
 * Return the refreshed copy of the pending entries of the view described by
 * meta (a metapage copy taken by the caller).  The result may change at
 * the next call for the same index; pinned (LearnedPendingPin), it stays
 * as it is, and allocated, until released.  *seen gets the sequence number
 * after the last entry the copy has read (the tail page's count when it
 * was last read; PG_UINT64_MAX if no tail page was read): every entry of
 * the view below it is in the copy, unless dead (a unique insert's append
 * checks the entries from there on, tail.c).
 */
LearnedPendingCache *
LearnedPendingGet(Relation index, const LearnedMetaPageData *meta,
				  LearnedKeyInfo *ki, uint64 *seen)
{
	PendingCacheEntry *pc;
	Oid			key = RelationGetRelid(index);
	bool		found;
	int			keylen = meta->keylen;
	PendingFresh *fresh;
	int			nfresh = 0;
	int			maxfresh;
	BlockNumber blkno;
	uint64		expect_seq = PG_UINT64_MAX;
	uint32		steps = 0;
	bool		own = false;

	if (pending_caches == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(PendingCacheEntry);
		ctl.hcxt = CacheMemoryContext;
		pending_caches = hash_create("learned pending copies", 16, &ctl,
									 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	if (last_pc != NULL && last_indexoid == key)
		pc = last_pc;
	else
	{
		pc = hash_search(pending_caches, &key, HASH_ENTER, &found);
		if (!found)
		{
			pc->work_cxt = NULL;
			pc->fresh = NULL;
			pc->scratch = NULL;
			pc->scratch_mkeys = NULL;
			pc->cache = NULL;
			pc->valid = false;
		}
		last_indexoid = key;
		last_pc = pc;
	}
	if (!pc->valid || pc->relfilenode != LI_REL_FILE_NUMBER(index) ||
		pc->epoch != meta->pending_epoch || pc->map_serial != ki->map_serial)
		reset_cache(pc, index, meta, ki);
	else if (pc->next_blk == InvalidBlockNumber)
		pc->next_blk = LearnedTailStartBlk(meta);	/* the tail was empty */

	/* a failure below leaves the copy to be rebuilt next time */
	pc->valid = false;
	/* most refreshes read a few entries: a kept buffer takes them */
	if (pc->fresh == NULL)
		pc->fresh = MemoryContextAlloc(pc->work_cxt, sizeof(PendingFresh) *
									   LEARNED_PENDING_FRESH_KEEP);
	fresh = pc->fresh;
	maxfresh = LEARNED_PENDING_FRESH_KEEP;
	if (pc->cache->nentries == 0 && pc->next_slot == 0)
	{
		/*
		 * A full load: size the buffer for the list as the metapage copy
		 * describes it (entries from pending_merged to the tail page, plus
		 * one page), so that it is not doubled, and twice as large, at the
		 * end.  Entries appended meanwhile still grow it.
		 */
		uint64		est = LearnedPendingCapacity(keylen);

		if (meta->pending_tail_seq > LearnedTailStartSeq(meta))
			est += meta->pending_tail_seq - LearnedTailStartSeq(meta);
		est = Min(est, (uint64) (meta->pending_pages + 1) * LearnedPendingCapacity(keylen));
		if (est > (uint64) maxfresh && est < (uint64) (MaxAllocHugeSize / sizeof(PendingFresh)))
		{
			maxfresh = (int) Min(est, (uint64) INT_MAX / 2);
			fresh = MemoryContextAllocHuge(pc->work_cxt, sizeof(PendingFresh) * maxfresh);
		}
	}
	blkno = pc->next_blk;
	while (blkno != InvalidBlockNumber)
	{
		Buffer		buf;
		Page		page;
		LearnedPageOpaque opaque;
		uint64		first_seq;
		int			n;
		int			i;

		LearnedCheckLink(index, blkno, &steps);
		buf = LearnedReadBufferRecent(index, blkno, &pc->recent);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);

		/*
		 * The tail page the last refresh read to its end, with the LSN it
		 * had then: nothing was appended to it, nor a page linked after it
		 * (each append and each new tail sets the page's LSN, under the
		 * exclusive lock: LearnedXLogRanges, LearnedPendingNewTail), so the
		 * copy is current.  Each rescan of a nested loop refreshes the copy:
		 * this saves it the page's checks and the count of its slots.
		 */
		if (blkno == pc->tail_blk && !XLogRecPtrIsInvalid(pc->tail_lsn) &&
			PageGetLSN(page) == pc->tail_lsn)
		{
			UnlockReleaseBuffer(buf);
			break;
		}
		LearnedCheckPage(index, page, blkno, LEARNED_PAGE_PENDING);
		opaque = LearnedPageGetOpaque(page);
		first_seq = LearnedPendingFirstSeq(page);
		n = LearnedPendingCount(page, keylen);
		/* the chain numbers entries without gaps: anything else was recycled */
		if (expect_seq != PG_UINT64_MAX && first_seq != expect_seq)
		{
			UnlockReleaseBuffer(buf);
			LearnedReportCorrupt(index, blkno, "pending page out of sequence");
		}
		expect_seq = first_seq + n;
		for (i = pc->next_slot; i < n; i++)
		{
			uint16		flags;
			LearnedPendingEntry *e;

			flags = LearnedPendingFlagsAt(page, keylen, i);
			if ((flags & LEARNED_PENDING_DEAD) || first_seq + i < LearnedTailStartSeq(meta))
				continue;
			/* the first new entry: the copy is about to change */
			if (!own)
			{
				make_private(pc);
				own = true;
			}
			if (flags & LEARNED_PENDING_NULL)
			{
				LearnedPendingCache *c = pc->cache;

				if (c->nnulls >= c->maxnulls)
				{
					c->maxnulls *= 2;
					c->nulls = repalloc_huge(c->nulls, sizeof(LearnedPendingEntry) * c->maxnulls);
				}
				e = &c->nulls[c->nnulls++];
				e->key = (Datum) 0;
			}
			else
			{
				if (nfresh >= maxfresh)
				{
					maxfresh *= 2;
					fresh = fresh == pc->fresh ?
						memcpy(MemoryContextAllocHuge(pc->work_cxt, sizeof(PendingFresh) * maxfresh),
							   fresh, sizeof(PendingFresh) * nfresh) :
						repalloc_huge(fresh, sizeof(PendingFresh) * maxfresh);
				}
				e = &fresh[nfresh].e;
				e->key = LearnedKeyCopyAlloc(ki, LearnedPendingKeyAt(index, ki, page, blkno, i),
											 pc->cache->epoch->cxt);
				fresh[nfresh++].mkey = LearnedKeyMap(ki, e->key);
			}
			e->tid = LearnedPendingTidAt(page, keylen, i);
			StaticAssertStmt(LearnedPendingCapacity(1) < LEARNED_PENDING_SLOT_KILLED &&
							 LEARNED_PACKED_MAX_ENTRIES < LEARNED_PENDING_SLOT_KILLED,
							 "a pending page's slots must stay below the copy's kill flag");
			e->slot = (uint16) i;
			e->blkno = blkno;
			e->seqlo = (uint32) (first_seq + i);
			pc->cache->nentries++;
		}
		if (opaque->next != InvalidBlockNumber)
		{
			blkno = opaque->next;
			pc->next_blk = blkno;
			pc->next_slot = 0;
		}
		else
		{
			/* the tail: continue from here next time */
			pc->next_slot = n;
			pc->tail_blk = blkno;
			pc->tail_lsn = RelationNeedsWAL(index) ? PageGetLSN(page) : InvalidXLogRecPtr;
			pc->seen_seq = first_seq + n;
			blkno = InvalidBlockNumber;
		}
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
	absorb(pc, ki, fresh, nfresh);
	if (fresh != pc->fresh)
		pfree(fresh);
	pc->valid = true;
	*seen = pc->seen_seq;
	return pc->cache;
}
