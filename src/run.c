/*
 * run.c
 *		Sorted runs of the pending list: the flush that turns the unsorted
 *		tail into a run, the compaction of runs, and the readers of a run's
 *		header and data pages (scan.c, inspect.c).
 *
 * The pending chain is a sequence of runs followed by the unsorted tail
 * (learned.h, LearnedRunInfo).  A run holds the entries of one sequence
 * range [first_seq, first_seq + nentries) on pending pages, sorted by
 * (key, TID) with NULL keys last, each page
 * continuing the numbering of the one before, so every reader that walks
 * the chain (VACUUM, the merge, GC, learned_index_check) reads a run as any
 * stretch of the chain.  Its header page (LEARNED_PAGE_RUNHDR) holds each
 * data page's block, first rank and first mapped key, so that a lookup
 * reads the header and one data page.  Pages are allocated one at a time,
 * so runs reuse the scattered pages that replaced runs and merges free.  A backend's sorted copy (pending.c) covers
 * only the tail: its memory and a new connection's first load stay within
 * the tail's bound, learned_idx.tail_limit entries.
 *
 * Flush and compaction both rewrite a stretch of the chain copy-on-write,
 * under the merge lock: read the stretch's entries, sort them, write the
 * run's pages and header (full images), then flip the metapage in one
 * record: the run table, runs_end_seq, the link into the new run (the
 * previous run's last page, or pending_head), pending_epoch + 1 and
 * last_flip_xid.  Before the flip nothing reachable changed (a crash leaves
 * orphans for GC); after it the replaced pages are unreachable and GC frees
 * them once no snapshot can read them, as it frees a merge's.  Dead entries
 * are copied with their flag, so sequence numbers stay contiguous.
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "learned.h"
#include "leaf.h"
#include "pending.h"

static const char *hdr_cache_get(Relation index, const LearnedRunInfo *run);
static void hdr_cache_put(Relation index, const LearnedRunInfo *run, char *page);
static const char *filter_cache_get(Relation index, const LearnedRunInfo *run, int fp,
									int *hint);
static void filter_cache_use(Relation index, const LearnedRunInfo *run, int fp, Page page,
							 int *hint);
static const char *header_problem(const LearnedRunInfo *run, const char *hdr);

/* an entry read from the chain for a rewrite */
typedef struct RunEntry
{
	uint64		mkey;
	uint64		fv;				/* its filter value (LearnedKeyFilterValue) */
	Datum		key;
	ItemPointerData tid;
	uint16		flags;
} RunEntry;

/* run order: keys by (image, comparator, TID), NULLs last by TID */
static int
run_entry_cmp(const void *a, const void *b, void *arg)
{
	LearnedKeyInfo *ki = (LearnedKeyInfo *) arg;
	const RunEntry *x = (const RunEntry *) a;
	const RunEntry *y = (const RunEntry *) b;
	bool		xn = (x->flags & LEARNED_PENDING_NULL) != 0;
	bool		yn = (y->flags & LEARNED_PENDING_NULL) != 0;
	LearnedKeyOrder order;

	if (xn != yn)
		return xn ? 1 : -1;
	if (!xn)
	{
		order = LearnedKeyOrderOf(ki);
		if (order != LEARNED_ORDER_COMPARATOR && x->mkey != y->mkey)
			return x->mkey < y->mkey ? -1 : 1;
		if (order != LEARNED_ORDER_EXACT)
		{
			int			r = LearnedKeyCmp(ki, x->key, y->key);

			if (r != 0)
				return r;
		}
	}
	return ItemPointerCompare((ItemPointer) &x->tid, (ItemPointer) &y->tid);
}

/*
 * run_entry_cmp for a key map whose images order the keys exactly (every
 * by-value key but a lossy one): no comparator, and nothing out of line.
 * Flushes sort and merge with it; under 2-client 100-row INSERTs of random
 * int8 keys the general one, with its calls to LearnedKeyOrderOf and
 * ItemPointerCompare per comparison, took 5% of the machine's CPU samples
 * (about a tenth of the inserting backends'), the inline one 1.7% (perf).
 */
static inline int
run_entry_cmp_exact(const RunEntry *x, const RunEntry *y)
{
	bool		xn = (x->flags & LEARNED_PENDING_NULL) != 0;
	bool		yn = (y->flags & LEARNED_PENDING_NULL) != 0;
	BlockNumber xb;
	BlockNumber yb;

	if (xn != yn)
		return xn ? 1 : -1;
	if (!xn && x->mkey != y->mkey)
		return x->mkey < y->mkey ? -1 : 1;
	xb = ItemPointerGetBlockNumberNoCheck(&x->tid);
	yb = ItemPointerGetBlockNumberNoCheck(&y->tid);
	if (xb != yb)
		return xb < yb ? -1 : 1;
	if (x->tid.ip_posid != y->tid.ip_posid)
		return x->tid.ip_posid < y->tid.ip_posid ? -1 : 1;
	return 0;
}

/*
 * A sort of RunEntry itself: qsort_arg swaps its 40-byte elements a byte at
 * a time, which cost a flush of a few thousand entries ten times what its
 * comparisons did.
 */
#define ST_SORT sort_run_entries_any
#define ST_ELEMENT_TYPE RunEntry
#define ST_COMPARE(a, b, arg) run_entry_cmp(a, b, arg)
#define ST_COMPARE_ARG_TYPE LearnedKeyInfo
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

#define ST_SORT sort_run_entries_exact
#define ST_ELEMENT_TYPE RunEntry
#define ST_COMPARE(a, b) run_entry_cmp_exact(a, b)
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

/* run order under either comparison */
static inline int
run_order(LearnedKeyInfo *ki, bool exact, const RunEntry *x, const RunEntry *y)
{
	return exact ? run_entry_cmp_exact(x, y) : run_entry_cmp(x, y, ki);
}

static void
sort_run_entries(RunEntry *entries, size_t n, LearnedKeyInfo *ki)
{
	if (LearnedKeyOrderOf(ki) == LEARNED_ORDER_EXACT)
		sort_run_entries_exact(entries, n);
	else
		sort_run_entries_any(entries, n, ki);
}

/*
 * Read the entries of the chain from blkno (inclusive) to end_blk
 * (exclusive) whose sequence numbers lie in [from, upto): all of them, dead
 * ones too.  Returns them (keys copied), and in *npages the pages visited.
 */
static RunEntry *
read_stretch(Relation index, LearnedKeyInfo *ki, BlockNumber blkno,
			 BlockNumber end_blk, uint64 from, uint64 upto, uint32 *npages)
{
	int			keylen = ki->keylen;
	Size		n = 0;
	Size		max = 1024;
	RunEntry   *out = palloc(sizeof(RunEntry) * max);
	uint64		expect = PG_UINT64_MAX;
	uint32		steps = 0;

	*npages = 0;
	while (blkno != end_blk)
	{
		Buffer		buf;
		Page		page;
		uint64		first_seq;
		int			cnt;
		int			i;

		if (blkno == InvalidBlockNumber)
			LearnedReportCorrupt(index, end_blk, "pending chain ends before the tail");
		LearnedCheckLink(index, blkno, &steps);
		buf = ReadBuffer(index, blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, blkno, LEARNED_PAGE_PENDING);
		first_seq = LearnedPendingFirstSeq(page);
		cnt = LearnedPendingCount(page, keylen);
		if (expect != PG_UINT64_MAX && first_seq != expect)
		{
			UnlockReleaseBuffer(buf);
			LearnedReportCorrupt(index, blkno, "pending page out of sequence");
		}
		expect = first_seq + cnt;
		for (i = 0; i < cnt; i++)
		{
			RunEntry   *e;

			if (first_seq + i < from || first_seq + i >= upto)
				continue;
			if (n >= max)
			{
				max *= 2;
				out = repalloc_huge(out, sizeof(RunEntry) * max);
			}
			e = &out[n++];
			e->flags = LearnedPendingFlagsAt(page, keylen, i) &
				(LEARNED_PENDING_NULL | LEARNED_PENDING_DEAD);
			e->tid = LearnedPendingTidAt(page, keylen, i);
			LearnedCheckHeapTid(index, &e->tid);
			if (e->flags & LEARNED_PENDING_NULL)
			{
				e->key = (Datum) 0;
				e->mkey = e->fv = 0;
			}
			else
			{
				e->key = LearnedKeyCopyAlloc(ki, LearnedPendingKeyAt(index, ki, page, blkno, i),
											 CurrentMemoryContext);
				e->mkey = LearnedKeyMapFilter(ki, e->key, &e->fv);
			}
		}
		(*npages)++;
		blkno = LearnedPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
	if (n != upto - from)
		LearnedReportCorrupt(index, end_blk, "pending chain misses entries of a run");
	return out;
}

/*
 * Put a stretch's entries (nseqs sequences of lens[] entries: the runs
 * first, each in run order, then, last, the tail's entries in append order)
 * in run order.  Only the tail is sorted; the sequences are then merged,
 * a comparison or a few an entry, where sorting the whole stretch took
 * log2 n of them (flushes and compactions spent about as much on their
 * sorts as on the images of their keys).  A run is in the
 * order run_entry_cmp gives under any key map: its entries are ordered by
 * key and TID, and every map's images are monotone in the key.  The merge
 * still checks each run's order as it takes its entries (an entry before
 * the one it follows), and sorts the whole stretch if one is out of order,
 * which only damage can cause: the run is then rewritten in order.
 */
static RunEntry *
order_stretch(LearnedKeyInfo *ki, RunEntry *entries, uint32 n, const uint32 *lens,
			  int nseqs)
{
	uint32		start[LEARNED_MAX_RUNS + 1];
	uint32		pos[LEARNED_MAX_RUNS + 1];
	uint32		end[LEARNED_MAX_RUNS + 1];
	RunEntry   *out;
	uint32		at = 0;
	uint32		o;
	int			active = 0;
	int			s;
	bool		exact;

	Assert(nseqs <= LEARNED_MAX_RUNS + 1);
	for (s = 0; s < nseqs; s++)
	{
		start[s] = pos[s] = at;
		at += lens[s];
		end[s] = at;
		if (s == nseqs - 1 && lens[s] > 1)
			sort_run_entries(&entries[start[s]], lens[s], ki);
		if (lens[s] > 0)
			active++;
	}
	Assert(at == n);
	if (active <= 1)
		return entries;

	exact = LearnedKeyOrderOf(ki) == LEARNED_ORDER_EXACT;
	out = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(RunEntry) * n);
	for (o = 0; o < n; o++)
	{
		int			best = -1;
		RunEntry   *e;

		for (s = 0; s < nseqs; s++)
			if (pos[s] < end[s] &&
				(best < 0 || run_order(ki, exact, &entries[pos[s]], &entries[pos[best]]) < 0))
				best = s;
		e = &entries[pos[best]];
		if (pos[best] > start[best] && run_order(ki, exact, e - 1, e) > 0)
		{
			pfree(out);
			sort_run_entries(entries, n, ki);
			return entries;
		}
		out[o] = *e;
		pos[best]++;
	}
	return out;
}

/* the record to write for an entry */
static void
entry_key(LearnedKeyInfo *ki, const RunEntry *e, LearnedPendingKeyData *k)
{
	k->value = e->key;
	k->isnull = (e->flags & LEARNED_PENDING_NULL) != 0;
	k->packed = NULL;
	k->size = 0;
	k->align = 1;
	if (!k->isnull && (LearnedKeyIsComposite(ki) || LearnedKeyIsVarwidth(ki)))
	{
		k->packed = DatumGetPointer(e->key);
		k->size = LearnedKeySize(ki, e->key);
		k->align = LearnedKeyAlign(ki, e->key);
	}
}

/* an entry's key bytes as an unsigned integer (learned.h, packed pages) */
static inline uint64
packed_key(LearnedKeyInfo *ki, const RunEntry *e)
{
	char		buf[sizeof(uint64)];
	uint64		u = 0;

	learned_store_key(buf, ki->keylen, e->key);
	memcpy(&u, buf, ki->keylen);
	return u;
}

/* the bits a field needs for values 0..x */
static inline int
field_bits(uint64 x)
{
	return x == 0 ? 0 : pg_leftmost_one_pos64(x) + 1;
}

/*
 * Write entries e[0..c) (the first nkeys of them with keys) on the packed
 * page image page (learned.h, LearnedPackedHeader) at the header's widths
 * and bases, which fit them.
 */
static void
write_packed(LearnedKeyInfo *ki, const RunEntry *e, int c, int nkeys,
			 LearnedPackedHeader *ph, Page page)
{
	uint8	   *area = (uint8 *) page;
	uint64		kbit = LearnedPackedFieldsBit(c);
	uint64		tbit = kbit + (uint64) nkeys * ph->key_bits;
	unsigned	tw = ph->blk_bits + ph->off_bits;
	int			j;

	LearnedPageGetOpaque(page)->flags |= LEARNED_PENDING_PAGE_PACKED;
	memcpy((char *) page + LEARNED_PACKED_HDR_OFFSET, ph, sizeof(*ph));
	for (j = 0; j < c; j++)
	{
		uint64		blk = ItemPointerGetBlockNumberNoCheck(&e[j].tid) - ph->blk_base;
		uint64		off = ItemPointerGetOffsetNumberNoCheck(&e[j].tid);

		if (e[j].flags & LEARNED_PENDING_DEAD)
			LearnedPendingAddFlagsAt(page, ki->keylen, j, LEARNED_PENDING_DEAD);
		if (j < nkeys && ph->key_bits > 0)
			leco_store_bits(area, kbit + (uint64) j * ph->key_bits, ph->key_bits,
							packed_key(ki, &e[j]) - ph->key_base);
		if (tw > 0)
			leco_store_bits(area, tbit + (uint64) j * tw, tw, blk | (off << ph->blk_bits));
	}
	((PageHeader) page)->pd_lower = (LocationIndex)
		LearnedPackedEnd(c, nkeys, ph->key_bits, ph->blk_bits, ph->off_bits);
}

/*
 * Lay the sorted entries of a by-value key of 1 to 8 bytes out on packed
 * page images, greedily: a page takes entries while they fit at the widths
 * the page would need with them (widths only grow as entries are added,
 * so the first entry that does not fit ends the page).
 */
static int
layout_packed(LearnedKeyInfo *ki, const RunEntry *e, uint32 n, uint32 nkeys,
			  uint64 first_seq, uint32 generation, char **images, LearnedRunHeader *h)
{
	int			npages = 0;
	uint32		i = 0;
	uint64		room = BLCKSZ - MAXALIGN(sizeof(LearnedPageOpaqueData));

	while (i < n)
	{
		uint32		start = i;
		uint64		kmin = PG_UINT64_MAX,
					kmax = 0;
		BlockNumber bmin = InvalidBlockNumber,
					bmax = 0;
		OffsetNumber omax = 0;
		int			c = 0,
					k = 0;
		LearnedPackedHeader ph;
		Page		page;

		if (npages >= LEARNED_RUN_MAX_PAGES)
			return -1;
		while (i < n && c < LEARNED_PACKED_MAX_ENTRIES)
		{
			BlockNumber blk = ItemPointerGetBlockNumberNoCheck(&e[i].tid);
			OffsetNumber off = ItemPointerGetOffsetNumberNoCheck(&e[i].tid);
			bool		haskey = i < nkeys;
			uint64		u = haskey ? packed_key(ki, &e[i]) : 0;
			uint64		nkmin = haskey ? Min(kmin, u) : kmin;
			uint64		nkmax = haskey ? Max(kmax, u) : kmax;
			BlockNumber nbmin = Min(bmin, blk);
			BlockNumber nbmax = Max(bmax, blk);
			OffsetNumber nomax = Max(omax, off);
			int			nk = k + (haskey ? 1 : 0);

			if (c > 0 &&
				LearnedPackedEnd(c + 1, nk, nk > 0 ? field_bits(nkmax - nkmin) : 0,
								 field_bits(nbmax - nbmin), field_bits(nomax)) > room)
				break;
			kmin = nkmin;
			kmax = nkmax;
			bmin = nbmin;
			bmax = nbmax;
			omax = nomax;
			k = nk;
			c++;
			i++;
		}
		memset(&ph, 0, sizeof(ph));
		ph.key_base = k > 0 ? kmin : 0;
		ph.blk_base = bmin;
		ph.count = (uint16) c;
		ph.nkeys = (uint16) k;
		ph.keylen = (uint8) ki->keylen;
		ph.key_bits = (uint8) (k > 0 ? field_bits(kmax - kmin) : 0);
		ph.blk_bits = (uint8) field_bits(bmax - bmin);
		ph.off_bits = (uint8) field_bits(omax);
		if (images[npages] == NULL)
			images[npages] = palloc0(BLCKSZ);
		page = (Page) images[npages];
		LearnedPendingInitPage(page, ki->keylen, generation, first_seq + start);
		write_packed(ki, &e[start], c, k, &ph, page);
		h->pages[npages].first_rank = start;
		h->pages[npages].first_mkey = start < nkeys ? e[start].mkey : 0;
		npages++;
	}
	return npages;
}

/*
 * Lay the sorted entries out on page images (pending pages numbered from
 * first_seq; packed for a by-value key of 1 to 8 bytes, else records, each
 * page as full as an append would fill it) and fill the header image.
 * Returns the number of pages, or -1 if the run would need more than a
 * header describes.
 */
static int
layout_pages(LearnedKeyInfo *ki, const RunEntry *e, uint32 n, uint32 nkeys,
			 uint64 first_seq, uint32 generation, char **images, Page hdrimg)
{
	LearnedRunHeader *h;
	int			npages = 0;
	int			slot = 0;
	Page		page = NULL;
	uint32		i;

	LearnedInitPage(hdrimg, LEARNED_PAGE_RUNHDR, generation);
	h = LearnedPageGetRunHeader(hdrimg);
	if (LearnedPendingXorWidth(ki->keylen))
	{
		npages = layout_packed(ki, e, n, nkeys, first_seq, generation, images, h);
		if (npages < 0)
			return -1;
		h->first_seq = first_seq;
		h->npages = npages;
		h->nentries = n;
		h->nkeys = nkeys;
		return npages;
	}
	for (i = 0; i < n; i++)
	{
		LearnedPendingKeyData k;

		entry_key(ki, &e[i], &k);
		if (page == NULL || !LearnedPendingHasRoom(page, ki->keylen, slot, &k))
		{
			if (npages >= LEARNED_RUN_MAX_PAGES)
				return -1;
			if (images[npages] == NULL)
				images[npages] = palloc0(BLCKSZ);
			page = (Page) images[npages];
			LearnedPendingInitPage(page, ki->keylen, generation, first_seq + i);
			h->pages[npages].first_rank = i;
			h->pages[npages].first_mkey = i < nkeys ? e[i].mkey : 0;
			npages++;
			slot = 0;
		}
		LearnedPendingPut(page, ki->keylen, slot, (ItemPointer) &e[i].tid, &k);
		if (e[i].flags & LEARNED_PENDING_DEAD)
			LearnedPendingAddFlagsAt(page, ki->keylen, slot, LEARNED_PENDING_DEAD);
		slot++;
	}
	h->first_seq = first_seq;
	h->npages = npages;
	h->nentries = n;
	h->nkeys = nkeys;
	return npages;
}

/*
 * A key's two filter hashes, from its filter value (LearnedKeyFilterValue):
 * its block, and the bits it sets there
 */
void
LearnedRunFilterKey(uint64 mkey, LearnedRunFilterProbe *p)
{
	p->x = LearnedFilterHash(mkey);
	p->y = LearnedFilterHash(p->x + UINT64CONST(0x9e3779b97f4a7c15));
}

static inline uint32
filter_block_of(uint32 nblocks, const LearnedRunFilterProbe *p)
{
	return (uint32) (((p->x >> 32) * (uint64) nblocks) >> 32);
}

/* set a filter value's LEARNED_RUN_FILTER_K bits in a filter of nblocks blocks */
static void
filter_put(uint8 *bits, uint32 nblocks, uint64 value)
{
	LearnedRunFilterProbe p;
	uint8	   *block;
	int			k;

	LearnedRunFilterKey(value, &p);
	block = bits + (Size) filter_block_of(nblocks, &p) * LEARNED_RUN_FILTER_BLOCK;
	for (k = 0; k < LEARNED_RUN_FILTER_K; k++)
	{
		uint32		b = (uint32) (p.y >> (9 * k)) & 511;

		block[b >> 3] |= (uint8) (1 << (b & 7));
	}
}

/*
 * Size a run's filter (its header image's filter_off, filter_blocks and
 * nfilter) and build it: LEARNED_RUN_FILTER_BITS bits a value, in the
 * header page if its room after the page list holds that many (then all
 * that room), else in filter pages.  The values: each key's filter value,
 * and for a composite key each distinct value of its leading columns
 * (LearnedKeyPrefixValues, every prefix but the whole key; keys in run
 * order, so equal prefixes are adjacent).  Returns the filter's blocks,
 * contiguous (filter_blocks * 64 bytes), or NULL if the run has no keys.
 */
static uint8 *
build_filter(Page hdrimg, const LearnedKeyInfo *ki, const RunEntry *e, uint32 nkeys)
{
	LearnedRunHeader *h = LearnedPageGetRunHeader(hdrimg);
	uint32		off = MAXALIGN((char *) &h->pages[h->npages] - (char *) hdrimg);
	uint32		room = ((PageHeader) hdrimg)->pd_special > off ?
		((PageHeader) hdrimg)->pd_special - off : 0;
	uint64	   *pv = NULL;
	Size		npv = 0;
	uint64		want;
	uint8	   *bits;
	Size		i;

	h->filter_off = 0;
	h->filter_blocks = 0;
	h->nfilter = 0;
	((PageHeader) hdrimg)->pd_lower = off;
	if (nkeys == 0)
		return NULL;
	if (LearnedKeyIsComposite(ki) && ki->nkeys > 1)
	{
		uint64		last[INDEX_MAX_KEYS];
		uint64		cur[INDEX_MAX_KEYS];
		int			nlast = 0;
		Size		cap = Max(nkeys / 4, 64);

		/* usually far fewer than the keys: an array that grows as needed */
		pv = palloc_extended(sizeof(uint64) * cap, MCXT_ALLOC_HUGE);
		for (i = 0; i < nkeys; i++)
		{
			int			n = LearnedKeyPrefixValuesOf(ki, e[i].key, cur);
			int			l;

			if (npv + n > cap)
			{
				cap = Max(cap * 2, npv + n);
				pv = repalloc_huge(pv, sizeof(uint64) * cap);
			}
			/* a prefix equal to the last key's is in already */
			for (l = 0; l < n; l++)
				if (l >= nlast || cur[l] != last[l])
					pv[npv++] = cur[l];
			memcpy(last, cur, sizeof(uint64) * n);
			nlast = n;
		}
	}
	want = ((uint64) (nkeys + npv) * LEARNED_RUN_FILTER_BITS +
			LEARNED_RUN_FILTER_BLOCK * 8 - 1) / (LEARNED_RUN_FILTER_BLOCK * 8);
	if (room / LEARNED_RUN_FILTER_BLOCK >= want)
	{
		h->filter_off = off;
		h->filter_blocks = room / LEARNED_RUN_FILTER_BLOCK;
	}
	else
	{
		h->nfilter = (uint32) Min((want + LEARNED_RUN_FILTER_PER_PAGE - 1) / LEARNED_RUN_FILTER_PER_PAGE,
								  (uint64) LEARNED_RUN_MAX_FILTER);
		h->filter_blocks = h->nfilter * LEARNED_RUN_FILTER_PER_PAGE;
	}
	bits = palloc0((Size) h->filter_blocks * LEARNED_RUN_FILTER_BLOCK);
	for (i = 0; i < nkeys; i++)
		filter_put(bits, h->filter_blocks, e[i].fv);
	for (i = 0; i < npv; i++)
		filter_put(bits, h->filter_blocks, pv[i]);
	if (pv)
		pfree(pv);
	if (h->nfilter == 0)
	{
		memcpy((char *) hdrimg + off, bits, (Size) h->filter_blocks * LEARNED_RUN_FILTER_BLOCK);
		((PageHeader) hdrimg)->pd_lower = off + h->filter_blocks * LEARNED_RUN_FILTER_BLOCK;
	}
	else
		((PageHeader) hdrimg)->pd_lower =
			(char *) &LearnedRunFilterPages(h)[h->nfilter] - (char *) hdrimg;
	return bits;
}

/*
 * Where a run's filter keeps the block of a key (its hashes: p): -2 if the
 * run has no filter (it may hold any key), -1 if in the header page, else
 * the filter page's index; *off is the block's byte offset in that page.
 */
int
LearnedRunFilterWhere(const LearnedRunHeader *h, const LearnedRunFilterProbe *p, uint32 *off)
{
	uint32		b;

	if (h->filter_blocks == 0)
		return -2;
	b = filter_block_of(h->filter_blocks, p);
	if (h->nfilter == 0)
	{
		*off = h->filter_off + b * LEARNED_RUN_FILTER_BLOCK;
		return -1;
	}
	*off = LEARNED_RUN_FILTER_OFF + (b % LEARNED_RUN_FILTER_PER_PAGE) * LEARNED_RUN_FILTER_BLOCK;
	return (int) (b / LEARNED_RUN_FILTER_PER_PAGE);
}

/* does the filter block (LearnedRunFilterWhere's) admit the key? */
bool
LearnedRunFilterBlockHas(const char *block, const LearnedRunFilterProbe *p)
{
	int			k;

	for (k = 0; k < LEARNED_RUN_FILTER_K; k++)
	{
		uint32		b = (uint32) (p->y >> (9 * k)) & 511;

		if (!(((const uint8 *) block)[b >> 3] & (1 << (b & 7))))
			return false;
	}
	return true;
}

/* the filter blocks on filter page fp of a run */
static uint32
filter_page_blocks(const LearnedRunHeader *h, uint32 fp)
{
	return Min(LEARNED_RUN_FILTER_PER_PAGE, h->filter_blocks - fp * LEARNED_RUN_FILTER_PER_PAGE);
}

/* check filter page fp of the run (locked, or a copy) against its header */
static void
check_filter_page(Relation index, const LearnedRunHeader *h, int fp, Page page)
{
	BlockNumber blkno = LearnedRunFilterPages(h)[fp];
	const LearnedRunFilterPageData *f;

	LearnedCheckPage(index, page, blkno, LEARNED_PAGE_RUNFILTER);
	f = (const LearnedRunFilterPageData *) PageGetContents(page);
	if (f->first_seq != h->first_seq || f->index != (uint32) fp ||
		f->nblocks != filter_page_blocks(h, (uint32) fp))
		LearnedReportCorrupt(index, blkno, "run filter page does not match its header");
}

/* copy filter page fp of a run into copy (BLCKSZ bytes), checked */
void
LearnedRunLoadFilter(Relation index, const LearnedRunHeader *h, int fp, char *copy)
{
	Buffer		buf = ReadBuffer(index, LearnedRunFilterPages(h)[fp]);

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	memcpy(copy, BufferGetPage(buf), BLCKSZ);
	UnlockReleaseBuffer(buf);
	check_filter_page(index, h, fp, (Page) copy);
}

void
LearnedRunFilterHintsInit(LearnedRunFilterHints *hints)
{
	int			i;

	hints->slot = -1;
	for (i = 0; i < LEARNED_RUN_MAX_FILTER; i++)
		hints->recent[i] = InvalidBuffer;
}

/*
 * May the run whose header page (a copy) is hdr hold a key of hashes p
 * (LearnedRunFilterKey)?  False only if it holds none.  run is the run's
 * entry in the run table, or NULL when hdr holds the whole header page.  A
 * filter page is probed in the backend's copy of it if there is one (with
 * run, filter_cache_use), else in place; hints, if not NULL, are the
 * caller's for this run (the backend's slot of the run, and the buffer the
 * page was last read in, see LearnedReadBufferRecent).  A filter in the
 * header's room is probed in hdr when run is NULL, else (the copy holds
 * only the header's lists, LearnedRunReadHeaderCached) in the backend's
 * copy of the header page, or in place.
 */
bool
LearnedRunMayContain(Relation index, const char *hdr, const LearnedRunInfo *run,
					 const LearnedRunFilterProbe *p, LearnedRunFilterHints *hints)
{
	BlockNumber hdr_blk = run ? run->hdr_blk : InvalidBlockNumber;
	const LearnedRunHeader *h = LearnedPageGetRunHeader((Page) hdr);
	uint32		off;
	int			fp = LearnedRunFilterWhere(h, p, &off);
	Buffer		buf;
	bool		r;
	const char *copy;

	if (fp == -2)
		return true;
	if (fp == -1 && hdr_blk == InvalidBlockNumber)
		return LearnedRunFilterBlockHas(hdr + off, p);
	if (fp == -1)
	{
		Page		page;

		copy = hdr_cache_get(index, run);
		/* read_header checked the filter's place against this page */
		if (copy != NULL)
			return LearnedRunFilterBlockHas(copy + off, p);
		buf = ReadBuffer(index, hdr_blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, hdr_blk, LEARNED_PAGE_RUNHDR);
		if (LearnedPageGetRunHeader(page)->first_seq != h->first_seq)
		{
			UnlockReleaseBuffer(buf);
			LearnedReportCorrupt(index, hdr_blk, "run header changed");
		}
		r = LearnedRunFilterBlockHas((char *) page + off, p);
		/* the next lookup of this run finds the page in the copies */
		if (header_problem(run, (const char *) page) == NULL)
			hdr_cache_put(index, run, page);
		UnlockReleaseBuffer(buf);
		return r;
	}
	copy = run ? filter_cache_get(index, run, fp, hints ? &hints->slot : NULL) : NULL;
	if (copy != NULL)
		return LearnedRunFilterBlockHas(copy + off, p);
	if (hints)
		buf = LearnedReadBufferRecent(index, LearnedRunFilterPages(h)[fp], &hints->recent[fp]);
	else
		buf = ReadBuffer(index, LearnedRunFilterPages(h)[fp]);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	check_filter_page(index, h, fp, BufferGetPage(buf));
	r = LearnedRunFilterBlockHas((char *) BufferGetPage(buf) + off, p);
	if (run != NULL)
		filter_cache_use(index, run, fp, BufferGetPage(buf), hints ? &hints->slot : NULL);
	UnlockReleaseBuffer(buf);
	return r;
}

/*
 * The last page boundary of the chain from start_blk (its first entry
 * start_seq) before stop_blk that lies at most cap entries after start_seq
 * and past start_blk: its block and first sequence number into *end_blk
 * and *end_seq.  The pages walked are complete (before the tail page), so
 * no insert changes them.  False if there is none.
 */
static bool
tail_prefix(Relation index, BlockNumber start_blk, uint64 start_seq, uint64 cap,
			BlockNumber stop_blk, BlockNumber *end_blk, uint64 *end_seq)
{
	BlockNumber blk = start_blk;
	uint32		steps = 0;
	bool		found = false;

	while (blk != InvalidBlockNumber && blk != stop_blk)
	{
		Buffer		buf;
		Page		page;
		uint64		first;
		BlockNumber next;

		LearnedCheckLink(index, blk, &steps);
		buf = ReadBuffer(index, blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, blk, LEARNED_PAGE_PENDING);
		first = LearnedPendingFirstSeq(page);
		next = LearnedPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
		if (blk != start_blk)
		{
			if (first < start_seq || first - start_seq > cap)
				break;
			*end_blk = blk;
			*end_seq = first;
			found = true;
		}
		blk = next;
	}
	return found;
}

/*
 * Rewrite the stretch of the chain from run "from" (nruns: from the tail's
 * start) to the tail's start (take_tail false: a compaction of runs
 * from..nruns-1) or to the tail page (take_tail: a flush, with the runs
 * from "from" on) as one run.  Caller holds the merge lock.  Returns
 * whether it flipped.
 */
static bool
rewrite_stretch(Relation index, int from, bool take_tail)
{
	LearnedMetaPageData meta;
	LearnedKeyInfo ki;
	uint64		start_seq;
	uint64		end_seq;
	BlockNumber start_blk;
	BlockNumber end_blk;
	RunEntry   *entries;
	uint32		n;
	uint32		nkeys;
	uint32		visited;
	char	  **images;
	PGAlignedBlock hdrimg;
	uint8	   *filter;
	int			npages;
	int			pg;
	BlockNumber first;
	Buffer		hdrbuf;
	LearnedRunHeader *hdr;
	Buffer		metabuf;
	Buffer		prevbuf = InvalidBuffer;
	GenericXLogState *state;
	LearnedMetaPage m;
	LearnedRunInfo *ri;
	uint32		tier = 0;
	int			i;
	MemoryContext cxt;
	MemoryContext old;

	LearnedReadMeta(index, &meta);
	/* runs a sweep merges stay as they are until its last step drops them */
	if (from < 0 || from > (int) meta.nruns || from >= LEARNED_MAX_RUNS ||
		from < (int) LearnedSweptRuns(&meta) ||
		meta.pending_tail == InvalidBlockNumber)
		return false;
	start_seq = from < (int) meta.nruns ? meta.runs[from].first_seq : LearnedTailStartSeq(&meta);
	start_blk = from < (int) meta.nruns ? meta.runs[from].first_blk : LearnedTailStartBlk(&meta);
	if (take_tail)
	{
		end_seq = meta.pending_tail_seq;
		end_blk = meta.pending_tail;
	}
	else
	{
		end_seq = LearnedTailStartSeq(&meta);
		end_blk = LearnedTailStartBlk(&meta);
	}
	if (end_seq <= start_seq || start_blk == end_blk)
		return false;
	/*
	 * Only a flush is capped by the entries a run of record pages holds: a
	 * compaction's caller bounds it by its runs' pages (each page of the
	 * merged run holds what a page of the four does), and packed pages hold
	 * three to four times as many entries as record pages: under that cap
	 * four runs of 65,152 int8 entries could not compact, the run table
	 * would fill with such runs, and a full table forces the main merge.
	 * A layout past LEARNED_RUN_MAX_PAGES fails below either way.
	 */
	if (take_tail &&
		end_seq - start_seq > (uint64) LEARNED_RUN_MAX_PAGES * LearnedPendingCapacity(meta.keylen))
	{
		/*
		 * A tail longer than one run (it grew while a long sweep held the
		 * merge lock): flush a prefix of its complete pages, half a run's
		 * worth, so that it does not stay too long to flush, with every
		 * insert trying again.
		 */
		if (from != (int) meta.nruns ||
			!tail_prefix(index, start_blk, start_seq,
						 (uint64) LEARNED_RUN_MAX_PAGES / 2 * LearnedPendingCapacity(meta.keylen),
						 end_blk, &end_blk, &end_seq))
			return false;
	}
	for (i = from; i < (int) meta.nruns; i++)
		tier = Max(tier, meta.runs[i].tier + 1);

	cxt = AllocSetContextCreate(CurrentMemoryContext, "learned run",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	LearnedKeyInfoInit(index, &ki);
	LearnedKeyInfoLoadMap(index, &ki);
	learned_fault("run-start");
	entries = read_stretch(index, &ki, start_blk, end_blk, start_seq, end_seq, &visited);
	n = (uint32) (end_seq - start_seq);
	{
		uint32		lens[LEARNED_MAX_RUNS + 1];
		uint32		inruns = 0;
		int			nseqs = 0;

		for (i = from; i < (int) meta.nruns; i++)
		{
			lens[nseqs++] = meta.runs[i].nentries;
			inruns += meta.runs[i].nentries;
		}
		if (inruns > n)
			LearnedReportCorrupt(index, start_blk, "runs hold more entries than their stretch");
		lens[nseqs++] = n - inruns;
		entries = order_stretch(&ki, entries, n, lens, nseqs);
	}
	for (nkeys = 0; nkeys < n && !(entries[nkeys].flags & LEARNED_PENDING_NULL); nkeys++)
		;

	images = palloc0(sizeof(char *) * LEARNED_RUN_MAX_PAGES);
	memset(hdrimg.data, 0, BLCKSZ);
	npages = layout_pages(&ki, entries, n, nkeys, start_seq, meta.generation,
						  images, (Page) hdrimg.data);
	if (npages <= 0)
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return false;
	}

	/*
	 * The data pages, one at a time wherever the FSM has one (a claimed
	 * page stays taken once unlocked: LearnedClaimBlock), linked in order,
	 * the last to end_blk; each logged as a full image.
	 */
	hdr = LearnedPageGetRunHeader((Page) hdrimg.data);
	for (pg = 0; pg < npages; pg++)
	{
		Buffer		buf = LearnedAllocPage(index);

		hdr->pages[pg].blkno = BufferGetBlockNumber(buf);
		UnlockReleaseBuffer(buf);
	}
	/* claimed and not written: what a failure leaves for VACUUM and GC */
	learned_fault(take_tail ? "flush-after-claim" : "compact-after-claim");
	first = hdr->pages[0].blkno;
	for (pg = 0; pg < npages; pg++)
	{
		Buffer		buf = ReadBuffer(index, hdr->pages[pg].blkno);
		Page		page;

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		START_CRIT_SECTION();
		memcpy(page, images[pg], BLCKSZ);
		LearnedPageGetOpaque(page)->next = pg + 1 < npages ? hdr->pages[pg + 1].blkno : end_blk;
		MarkBufferDirty(buf);
		if (RelationNeedsWAL(index))
			log_newpage_buffer(buf, true);
		END_CRIT_SECTION();
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
	/* the filter pages, if the header has no room for the filter */
	filter = build_filter((Page) hdrimg.data, &ki, entries, nkeys);
	for (pg = 0; pg < (int) hdr->nfilter; pg++)
	{
		Buffer		buf = LearnedAllocPage(index);
		Page		page = BufferGetPage(buf);
		LearnedRunFilterPageData *f;
		uint32		nb = filter_page_blocks(hdr, (uint32) pg);

		LearnedRunFilterPages(hdr)[pg] = BufferGetBlockNumber(buf);
		START_CRIT_SECTION();
		LearnedInitPage(page, LEARNED_PAGE_RUNFILTER, meta.generation);
		f = (LearnedRunFilterPageData *) PageGetContents(page);
		f->first_seq = start_seq;
		f->index = (uint32) pg;
		f->nblocks = nb;
		memcpy((char *) page + LEARNED_RUN_FILTER_OFF,
			   filter + (Size) pg * LEARNED_RUN_FILTER_PER_PAGE * LEARNED_RUN_FILTER_BLOCK,
			   (Size) nb * LEARNED_RUN_FILTER_BLOCK);
		((PageHeader) page)->pd_lower = LEARNED_RUN_FILTER_OFF + nb * LEARNED_RUN_FILTER_BLOCK;
		MarkBufferDirty(buf);
		if (RelationNeedsWAL(index))
			log_newpage_buffer(buf, true);
		END_CRIT_SECTION();
		UnlockReleaseBuffer(buf);
	}
	hdrbuf = LearnedAllocPage(index);
	state = LearnedXLogStart(index);
	memcpy(LearnedXLogRegister(state, hdrbuf, true), hdrimg.data, BLCKSZ);
	LearnedXLogFinish(state);
	learned_fault(take_tail ? "flush-after-write" : "compact-after-write");

	/* the flip */
	metabuf = ReadBuffer(index, LEARNED_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	if (from > 0)
	{
		const LearnedRunInfo *prev = &meta.runs[from - 1];

		prevbuf = ReadBuffer(index, prev->last_blk);
		LockBuffer(prevbuf, BUFFER_LOCK_EXCLUSIVE);
		LearnedCheckPage(index, BufferGetPage(prevbuf), prev->last_blk, LEARNED_PAGE_PENDING);
	}
	state = LearnedXLogStart(index);
	m = LearnedPageGetMeta(LearnedXLogRegister(state, metabuf, false));
	/* only inserts ran meanwhile (we hold the merge lock): they move the tail */
	if (m->nruns != meta.nruns || m->pending_merged != meta.pending_merged ||
		m->generation != meta.generation)
		elog(ERROR, "learned index \"%s\" changed during a run rewrite",
			 RelationGetRelationName(index));
	if (from > 0)
		LearnedPageGetOpaque(LearnedXLogRegister(state, prevbuf, false))->next = first;
	else
		m->pending_head = first;
	ri = &m->runs[from];
	ri->first_blk = first;
	ri->last_blk = hdr->pages[npages - 1].blkno;
	ri->hdr_blk = BufferGetBlockNumber(hdrbuf);
	ri->npages = (uint32) npages;
	ri->tier = tier;
	ri->first_seq = start_seq;
	ri->nentries = n;
	ri->nkeys = nkeys;
	ri->min_mkey = nkeys > 0 ? entries[0].mkey : 0;
	ri->max_mkey = nkeys > 0 ? entries[nkeys - 1].mkey : 0;
	m->run_swept[from] = 0;
	m->nruns = from + 1;
	m->runs_end_seq = end_seq;
	m->tail_first_blk = end_blk;
	m->pending_pages = m->pending_pages - Min(m->pending_pages, visited) + npages;
	m->pending_epoch++;
	m->nflushes++;
	m->last_flip_xid = U64FromFullTransactionId(ReadNextFullTransactionId());
	LearnedXLogFinish(state);
	if (BufferIsValid(prevbuf))
		UnlockReleaseBuffer(prevbuf);
	UnlockReleaseBuffer(metabuf);
	UnlockReleaseBuffer(hdrbuf);
	learned_fault(take_tail ? "flush-after-flip" : "compact-after-flip");

	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return true;
}

/*
 * Flush the tail into a run if it holds at least "min" entries and the run
 * table has room, then compact: while the last four runs share a tier and
 * fit one header, merge them into one run of the next tier.  Caller holds
 * the merge lock.  Returns whether anything flipped.
 */
bool
LearnedRunFlush(Relation index, uint64 min)
{
	LearnedMetaPageData meta;
	bool		done = false;

	LearnedReadMeta(index, &meta);
	if (meta.nruns < LEARNED_MAX_RUNS && meta.pending_tail != InvalidBlockNumber &&
		meta.pending_tail_seq > LearnedTailStartSeq(&meta) &&
		meta.pending_tail_seq - LearnedTailStartSeq(&meta) >= Max(min, 1))
		done = rewrite_stretch(index, (int) meta.nruns, true);
	for (;;)
	{
		int			k;
		uint32		pages = 0;

		LearnedReadMeta(index, &meta);
		if (meta.nruns < 4)
			break;
		k = (int) meta.nruns - 4;
		if (meta.runs[k].tier != meta.runs[meta.nruns - 1].tier)
			break;
		for (; k < (int) meta.nruns; k++)
			pages += meta.runs[k].npages;
		/* a page of the merged run holds what a page of the four does */
		if (pages + 4 > (uint32) LEARNED_RUN_MAX_PAGES)
			break;
		if (!rewrite_stretch(index, (int) meta.nruns - 4, false))
			break;
		done = true;
	}
	return done;
}

/*
 * Flush the whole tail into a run, its last page included, with no
 * compaction after it: a whole merge (merge_locked, VACUUM's) then finds
 * every pending entry in a sorted run and sweeps them all.  The tail page
 * is sealed first (LearnedPendingNewTail: an empty page after it takes the
 * inserts from now on, in one record with the metapage), then flushed as
 * any flush.  Caller holds the merge lock.  Returns whether it flipped:
 * not when the tail is empty, the run table full, or the tail larger than
 * one run (rewrite_stretch).
 */
bool
LearnedRunFlushWhole(Relation index)
{
	LearnedMetaPageData meta;
	Buffer		metabuf;
	LearnedMetaPage m;

	LearnedReadMeta(index, &meta);
	if (meta.nruns >= LEARNED_MAX_RUNS || meta.pending_tail == InvalidBlockNumber ||
		LearnedPendingAppended(index, &meta) <= LearnedTailStartSeq(&meta))
		return false;
	metabuf = ReadBuffer(index, LEARNED_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	m = LearnedPageGetMeta(BufferGetPage(metabuf));
	LearnedCheckMeta(index, m);
	if (LearnedPendingAppended(index, m) > m->pending_tail_seq)
		(void) LearnedPendingNewTail(index, metabuf, NULL, NULL);
	UnlockReleaseBuffer(metabuf);
	return rewrite_stretch(index, (int) meta.nruns, true);
}

/* ---------- readers ---------- */

/* what is wrong with a run's header (a copy, hdr) against the run table, or NULL */
static const char *
header_problem(const LearnedRunInfo *run, const char *hdr)
{
	const LearnedRunHeader *h = LearnedPageGetRunHeader((Page) hdr);
	uint32		i;

	if (h->first_seq != run->first_seq || h->npages != run->npages ||
		h->nentries != run->nentries || h->nkeys != run->nkeys ||
		h->npages == 0 || h->npages > (uint32) LEARNED_RUN_MAX_PAGES ||
		h->nfilter > LEARNED_RUN_MAX_FILTER ||
		(h->nfilter > 0 ?
		 h->filter_off != 0 || h->filter_blocks != h->nfilter * LEARNED_RUN_FILTER_PER_PAGE :
		 h->filter_blocks > 0 &&
		 (h->filter_off < (uint32) ((char *) &h->pages[h->npages] - hdr) ||
		  (uint64) h->filter_off + (uint64) h->filter_blocks * LEARNED_RUN_FILTER_BLOCK >
		  ((PageHeader) hdr)->pd_special)) ||
		(h->filter_blocks == 0) != (h->nkeys == 0))
		return "run header does not match the run table";
	for (i = 0; i < h->npages; i++)
		if ((i == 0 ? h->pages[i].first_rank != 0 :
			 h->pages[i].first_rank <= h->pages[i - 1].first_rank) ||
			h->pages[i].first_rank >= h->nentries ||
			(i == 0 ? h->pages[i].blkno != run->first_blk :
			 i + 1 == h->npages && h->pages[i].blkno != run->last_blk))
			return "bad run header page list";
	return NULL;
}

/*
 * The backend's copies of the run headers its scans read last.  A run's
 * header page never changes while the run exists, and its entry in the run
 * table names it (scans keep a header across rescans on the same test): a
 * header block recycled for a later run comes with other sequence numbers,
 * counts or blocks (a compaction that starts at the same sequence number
 * holds more entries, at a higher tier).  So a copy serves every later scan
 * of this backend that finds the run in its view of the metapage: a point
 * lookup then probes a run's filter in its header, and a range finds its
 * pages, without the header's buffer (in TPC-C, with its runs, one buffer
 * access per run per statement, where btree makes three per statement in
 * all).  At most RUN_HDR_CACHE_SLOTS pages (256 kB) a
 * backend, whatever the number of indexes and runs, the least recently
 * used replaced; learned_index_check and merges read the pages themselves.
 *
 * A slot also keeps copies of its run's filter pages, which never change
 * either (filter_cache_use): a run's filter pages are probed by hash, and
 * the unique checks of every INSERT probe the same few pages of each run
 * again, a pin and a share lock each (7% of a 10-row INSERT's
 * instructions into TPC-C's order_line, bench/scan_instructions.sh).  At
 * most RUN_FILTER_CACHE_PAGES (512 kB) a backend; they go with their slot.
 */
#define RUN_HDR_CACHE_SLOTS 32
#define RUN_FILTER_CACHE_PAGES 64

typedef struct RunHdrSlot
{
	Oid			relid;
	Oid			relfile;
	LearnedRunInfo run;			/* the run table's entry (memcmp, as scans) */
	uint64		used;			/* when last used (hdr_cache_clock) */
	char	   *page;			/* BLCKSZ, checked; NULL: an empty slot */
	uint64		filter_seen;	/* filter pages probed in place once (bit fp) */
	int			nfilters;		/* filter pages copied: */
	char	   *filters[LEARNED_RUN_MAX_FILTER];	/* BLCKSZ each, checked */
} RunHdrSlot;

static RunHdrSlot hdr_cache[RUN_HDR_CACHE_SLOTS];
static MemoryContext hdr_cache_cxt = NULL;
static uint64 hdr_cache_clock = 0;
static int	hdr_cache_nfilters = 0; /* filter pages copied, every slot */

/* does slot c hold the header of run? */
static inline bool
hdr_cache_holds(const RunHdrSlot *c, Relation index, const LearnedRunInfo *run)
{
	return c->page != NULL && c->run.hdr_blk == run->hdr_blk &&
		c->relid == RelationGetRelid(index) &&
		c->relfile == LI_REL_FILE_NUMBER(index) &&
		memcmp(&c->run, run, sizeof(LearnedRunInfo)) == 0;
}

/*
 * The slot holding the header of run, or NULL.  hint, if not NULL, is
 * where the caller found it last (a probe loop's scan keeps one per run),
 * tried first, and set to where it is now.
 */
static RunHdrSlot *
hdr_cache_slot(Relation index, const LearnedRunInfo *run, int *hint)
{
	int			i;

	if (hint != NULL && *hint >= 0 && *hint < RUN_HDR_CACHE_SLOTS &&
		hdr_cache_holds(&hdr_cache[*hint], index, run))
	{
		hdr_cache[*hint].used = ++hdr_cache_clock;
		return &hdr_cache[*hint];
	}
	for (i = 0; i < RUN_HDR_CACHE_SLOTS; i++)
	{
		RunHdrSlot *c = &hdr_cache[i];

		if (hdr_cache_holds(c, index, run))
		{
			c->used = ++hdr_cache_clock;
			if (hint != NULL)
				*hint = i;
			return c;
		}
	}
	return NULL;
}

/* the cached copy of the header of run, or NULL */
static const char *
hdr_cache_get(Relation index, const LearnedRunInfo *run)
{
	RunHdrSlot *c = hdr_cache_slot(index, run, NULL);

	return c ? c->page : NULL;
}

/* forget the filter pages slot c copied */
static void
hdr_cache_drop_filters(RunHdrSlot *c)
{
	int			fp;

	for (fp = 0; c->nfilters > 0 && fp < LEARNED_RUN_MAX_FILTER; fp++)
		if (c->filters[fp] != NULL)
		{
			pfree(c->filters[fp]);
			c->filters[fp] = NULL;
			c->nfilters--;
			hdr_cache_nfilters--;
		}
	c->filter_seen = 0;
}

/* keep a copy of a header page just read and checked */
static void
hdr_cache_put(Relation index, const LearnedRunInfo *run, Page page)
{
	RunHdrSlot *victim = &hdr_cache[0];
	int			i;

	for (i = 0; i < RUN_HDR_CACHE_SLOTS; i++)
	{
		if (hdr_cache[i].page == NULL)
		{
			victim = &hdr_cache[i];
			break;
		}
		if (hdr_cache[i].used < victim->used)
			victim = &hdr_cache[i];
	}
	if (victim->page == NULL)
	{
		if (hdr_cache_cxt == NULL)
			hdr_cache_cxt = AllocSetContextCreate(TopMemoryContext,
												  "learned run headers",
												  ALLOCSET_DEFAULT_SIZES);
		victim->page = MemoryContextAlloc(hdr_cache_cxt, BLCKSZ);
	}
	hdr_cache_drop_filters(victim);
	memcpy(victim->page, page, BLCKSZ);
	victim->relid = RelationGetRelid(index);
	victim->relfile = LI_REL_FILE_NUMBER(index);
	memcpy(&victim->run, run, sizeof(LearnedRunInfo));
	victim->used = ++hdr_cache_clock;
}

/* the backend's copy of filter page fp of run, or NULL (hint: hdr_cache_slot) */
static const char *
filter_cache_get(Relation index, const LearnedRunInfo *run, int fp, int *hint)
{
	RunHdrSlot *c = hdr_cache_slot(index, run, hint);

	return c ? c->filters[fp] : NULL;
}

/*
 * Filter page fp of run was just probed in place (checked): if the backend
 * keeps the run's header, copy the page beside it at its second probe,
 * within RUN_FILTER_CACHE_PAGES copies in all, making room by dropping
 * every copy of the least recently used other slot that has some.  Not at
 * the first: a lookup probes one page of a run, and most of a large run's
 * pages may never be probed again before the run goes.
 */
static void
filter_cache_use(Relation index, const LearnedRunInfo *run, int fp, Page page, int *hint)
{
	RunHdrSlot *c = hdr_cache_slot(index, run, hint);
	uint64		bit = UINT64CONST(1) << fp;
	int			i;

	if (c == NULL)
		return;
	if (!(c->filter_seen & bit))
	{
		c->filter_seen |= bit;
		return;
	}
	while (hdr_cache_nfilters >= RUN_FILTER_CACHE_PAGES)
	{
		RunHdrSlot *victim = NULL;

		for (i = 0; i < RUN_HDR_CACHE_SLOTS; i++)
			if (&hdr_cache[i] != c && hdr_cache[i].nfilters > 0 &&
				(victim == NULL || hdr_cache[i].used < victim->used))
				victim = &hdr_cache[i];
		if (victim == NULL)
			return;				/* this run's copies fill the room */
		hdr_cache_drop_filters(victim);
	}
	c->filters[fp] = MemoryContextAlloc(hdr_cache_cxt, BLCKSZ);
	memcpy(c->filters[fp], page, BLCKSZ);
	c->nfilters++;
	hdr_cache_nfilters++;
}

/*
 * Read a run's header page into hdr (a BLCKSZ buffer), checked against the
 * run table's entry: the whole page, or (lists_only) the page header, the
 * run header and its page and filter-page lists, without a filter kept in
 * the header's room.  With p (lists_only), a filter in the header's room
 * is probed for p on the page while it is locked: *probed says whether it
 * was (or the run has no filter), *may its answer.  So a lookup reads a
 * few hundred bytes of a run's header page, in one visit, not 8 kB.  With
 * cached, the page comes from the backend's copy when it has one (which
 * was checked when it was read), and a page read goes into it.
 */
static void
read_header(Relation index, const LearnedRunInfo *run, char *hdr, bool lists_only,
			const LearnedRunFilterProbe *p, bool *probed, bool *may, bool cached)
{
	Buffer		buf = InvalidBuffer;
	Page		page;
	LearnedRunHeader *h;
	Size		len = BLCKSZ;
	const char *problem;
	const char *copy = cached ? hdr_cache_get(index, run) : NULL;

	if (copy != NULL)
		page = (Page) copy;
	else
	{
		LearnedCheckLink(index, run->hdr_blk, NULL);
		buf = ReadBuffer(index, run->hdr_blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, run->hdr_blk, LEARNED_PAGE_RUNHDR);
	}
	h = LearnedPageGetRunHeader(page);
	if (lists_only && h->npages <= (uint32) LEARNED_RUN_MAX_PAGES &&
		h->nfilter <= LEARNED_RUN_MAX_FILTER)
		len = (char *) &LearnedRunFilterPages(h)[h->nfilter] - (char *) page;
	memcpy(hdr, page, len);
	problem = copy != NULL ? NULL : header_problem(run, hdr);
	if (probed)
		*probed = false;
	if (problem == NULL && p != NULL)
	{
		uint32		off;
		int			fp = LearnedRunFilterWhere(LearnedPageGetRunHeader((Page) hdr), p, &off);

		/* header_problem checked the filter's place in the page */
		if (fp == -2 || fp == -1)
		{
			*probed = true;
			*may = fp == -2 || LearnedRunFilterBlockHas((char *) page + off, p);
		}
	}
	if (copy == NULL)
	{
		if (problem == NULL && cached)
			hdr_cache_put(index, run, page);
		UnlockReleaseBuffer(buf);
	}
	if (problem)
		LearnedReportCorrupt(index, run->hdr_blk, problem);
}

void
LearnedRunReadHeader(Relation index, const LearnedRunInfo *run, char *hdr)
{
	read_header(index, run, hdr, false, NULL, NULL, NULL, false);
}

/*
 * A scan's read of a run's header (see read_header): the whole page, or
 * (lists_only) its lists, with p a filter in its room probed for p
 * (*probed, *may); from the backend's copy when it has one.
 */
void
LearnedRunReadHeaderCached(Relation index, const LearnedRunInfo *run, char *hdr,
						   bool lists_only, const LearnedRunFilterProbe *p,
						   bool *probed, bool *may)
{
	read_header(index, run, hdr, lists_only, p, probed, may, true);
}

/*
 * The data page of a run holding rank: a binary search of the header.
 */
int
LearnedRunPageOf(const LearnedRunHeader *h, uint32 rank)
{
	int			lo = 0,
				hi = (int) h->npages - 1;

	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (h->pages[mid].first_rank <= rank)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * Read data page pg of a run, checked against the header, and return it
 * share-locked (*page: its contents).
 */
Buffer
LearnedRunLockPage(Relation index, LearnedKeyInfo *ki, const LearnedRunInfo *run,
				   const LearnedRunHeader *h, int pg, Page *page)
{
	BlockNumber blkno = h->pages[pg].blkno;
	Buffer		buf;
	Page		p;

	buf = ReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	p = BufferGetPage(buf);
	LearnedCheckPage(index, p, blkno, LEARNED_PAGE_PENDING);
	if (LearnedPendingFirstSeq(p) != run->first_seq + h->pages[pg].first_rank ||
		LearnedPendingCount(p, ki->keylen) != (int) LearnedRunPageEntries(h, (uint32) pg))
		LearnedReportCorrupt(index, blkno, "run page does not match its header");
	*page = p;
	return buf;
}

/*
 * Copy data page pg of a run into copy (BLCKSZ bytes), checked against the
 * header.  Returns its entries.  The entries are then decoded from the
 * copy (LearnedRunDecode), as a scan needs them.
 */
int
LearnedRunLoadPage(Relation index, LearnedKeyInfo *ki, const LearnedRunInfo *run,
				   const LearnedRunHeader *h, int pg, char *copy)
{
	Page		page;
	Buffer		buf = LearnedRunLockPage(index, ki, run, h, pg, &page);

	memcpy(copy, page, BLCKSZ);
	UnlockReleaseBuffer(buf);
	return (int) LearnedRunPageEntries(h, (uint32) pg);
}

/*
 * Decode the entry in slot i of a run's data page (locked, or a copy, of
 * block blkno):
 * the entry, its mapped key unless mkey is NULL
 * (a composite key's image costs more than the rest: a binary search over
 * keys does without it) and its flags (LEARNED_PENDING_NULL, _DEAD, _HINT).
 * A by-reference key is copied into cxt, or, with cxt NULL (a copy the
 * caller keeps as long as the entry), points into the copy: a scan's
 * binary search decodes a few entries of each run a statement, and
 * copying each key cost more than comparing it.  (Only a packed page's
 * keys are rebuilt outside the page, and they are by value.)
 */
void
LearnedRunDecode(Relation index, LearnedKeyInfo *ki, const char *copy, BlockNumber blkno,
				 int i, LearnedPendingEntry *e, uint64 *mkey, uint16 *flags,
				 MemoryContext cxt)
{
	Page		page = (Page) copy;
	uint16		f = LearnedPendingFlagsAt(page, ki->keylen, i);
	Datum		key;
	const char *at;

	e->tid = LearnedPendingTidAt(page, ki->keylen, i);
	e->slot = (uint16) i;
	e->blkno = blkno;
	e->seqlo = (uint32) (LearnedPendingFirstSeq(page) + i);
	*flags = f & (LEARNED_PENDING_NULL | LEARNED_PENDING_DEAD | LEARNED_PENDING_HINT);
	if (f & LEARNED_PENDING_NULL)
		e->key = (Datum) 0;
	else
	{
		key = LearnedPendingKeyAt(index, ki, page, blkno, i);
		at = (const char *) DatumGetPointer(key);
		if (cxt != NULL)
			e->key = LearnedKeyCopyAlloc(ki, key, cxt);
		else if (!ki->byref || (at >= copy && at < copy + BLCKSZ))
			e->key = key;
		else
			elog(ERROR, "learned: run entry key outside its page copy");
	}
	if (mkey)
		*mkey = LearnedRunEntryMkey(ki, e, *flags);
}

/*
 * Set the hint flag (LEARNED_PENDING_HINT) of the run entry e, which a
 * scan returned from a copy of its data page and whose heap tuple the
 * executor then found dead to every transaction (kill_prior_tuple), as
 * btree's _bt_killitems sets LP_DEAD: under a share lock, with
 * MarkBufferDirtyHint.  Only the entry's own flags change, and nobody else
 * changes them under a share lock (VACUUM's dead mark takes a cleanup
 * lock), so a plain store loses nothing; another backend setting the same
 * flag stores the same bytes.  The page also gets
 * LEARNED_PENDING_PAGE_HINTED, for LearnedXLogRegister.  The scan's view
 * still names the run, so its page cannot have been recycled (garbage
 * collection waits for the view's snapshot), but this is only a hint:
 * a page that does not hold the entry at its slot any more is left alone.
 */
void
LearnedRunHint(Relation index, int keylen, const LearnedPendingEntry *e)
{
	Buffer		buf;
	Page		page;
	LearnedPageOpaque op;

	buf = ReadBuffer(index, e->blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	op = LearnedPageGetOpaque(page);
	/* a pending page's flags and packed header are checked before any slot is read */
	if (LearnedPageKind(page) == LEARNED_PAGE_PENDING)
		LearnedCheckPage(index, page, e->blkno, LEARNED_PAGE_PENDING);
	if (LearnedPageKind(page) == LEARNED_PAGE_PENDING &&
		(uint32) (LearnedPendingFirstSeq(page) + e->slot) == e->seqlo &&
		e->slot < LearnedPendingCount(page, keylen))
	{
		uint16		flags = LearnedPendingFlagsAt(page, keylen, e->slot);
		ItemPointerData tid = LearnedPendingTidAt(page, keylen, e->slot);

		if (ItemPointerEquals(&tid, (ItemPointer) &e->tid) &&
			!(flags & (LEARNED_PENDING_DEAD | LEARNED_PENDING_HINT)))
		{
			LearnedPendingAddFlagsAt(page, keylen, e->slot, LEARNED_PENDING_HINT);
			op->flags |= LEARNED_PENDING_PAGE_HINTED;
			MarkBufferDirtyHint(buf, true);
		}
	}
	UnlockReleaseBuffer(buf);
}

/*
 * Decode data page pg of a run into entries (keys copied into cxt), mapped
 * keys and flags, checked against the header.  Returns its entries.
 */
int
LearnedRunReadPage(Relation index, LearnedKeyInfo *ki, const LearnedRunInfo *run,
				   const LearnedRunHeader *h, int pg, LearnedPendingEntry *out,
				   uint64 *mkeys, uint16 *flags, MemoryContext cxt)
{
	char	   *copy = palloc(BLCKSZ);
	int			n = LearnedRunLoadPage(index, ki, run, h, pg, copy);
	int			i;

	for (i = 0; i < n; i++)
		LearnedRunDecode(index, ki, copy, h->pages[pg].blkno, i, &out[i], &mkeys[i],
						 &flags[i], cxt);
	pfree(copy);
	return n;
}
