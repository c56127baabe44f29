/*
 * leafcodec.c
 *		Compressed leaf pages: encoding, validation and access (leafcodec.h).
 *
 * Pure C (no PostgreSQL headers).  The three columns are LeCo runs, so the
 * arithmetic is leco.c's: integers only, bit-exact on every platform.
 */
#include "leafcodec.h"

#include <stdlib.h>
#include <string.h>

#include "leco.h"

static inline size_t
lcp_align8(size_t x)
{
	return (x + 7) & ~(size_t) 7;
}

/*
 * Whether a page's block run says its entries follow the heap: one line
 * with residuals of at most LCP_HEAP_ORDER_BITS bits (a few blocks of
 * scatter, as when several backends append to their own heap pages).
 * Random heap order needs the full width of the table's block range.
 */
#define LCP_HEAP_ORDER_BITS	4

static bool
lcp_heap_ordered(const uint8_t *blockrun)
{
	const LecoPart *parts = (const LecoPart *) (blockrun + sizeof(LecoRunHeader));

	return leco_header(blockrun)->npart == 1 && parts[0].b <= LCP_HEAP_ORDER_BITS;
}

/*
 * The offsets of heap-ordered entries are a sawtooth (1, 2, ... up to the
 * heap page's tuple count, then 1 again): one frame of reference over the
 * page needs about 8 bits an entry, while cost-based partitions find each
 * tooth's line and need almost none.  Encode them so too and keep the
 * smaller run; the reader handles either (the run says which it is).  On
 * out of memory the single-partition run is kept, so NULL only ever comes
 * from the first encoding.
 */
static uint8_t *
lcp_smaller_partitioned(const uint64_t *v, uint32_t n, uint8_t *run,
						size_t *size)
{
	size_t		psize;
	uint8_t    *prun = leco_encode(v, n, NULL, &psize);

	if (prun == NULL)
		return run;
	if (psize < *size)
	{
		free(run);
		*size = psize;
		return prun;
	}
	free(prun);
	return run;
}

int
lcp_encode(const uint64_t *keys, const uint64_t *blocks,
		   const uint64_t *offsets, uint32_t n,
		   uint8_t *area, size_t avail, size_t *used)
{
	const uint64_t *cols[3];
	size_t		off;
	size_t		start[3];
	size_t		sizes[3];
	uint8_t    *runs[3];
	int			c;
	LcpHeader	hdr;
	LecoOptions single;

	*used = 0;
	if (n == 0 || n > LCP_MAX_ITEMS)
		return LCP_NOFIT;
	off = LCP_DEAD_OFFSET + lcp_bitmap_bytes(n);
	if (off > avail)
	{
		*used = off;
		return LCP_NOFIT;
	}
	memset(area, 0, off);
	cols[0] = keys;
	cols[1] = blocks;
	cols[2] = offsets;
	/*
	 * Keys: cost-based partitions (clustered keys need them).  TIDs: one
	 * partition each, a line or frame-of-reference, which is what random
	 * heap order allows anyway, at a fraction of the encoding time; but
	 * offsets in heap order also try partitions (lcp_smaller_partitioned).
	 */
	single.fixed_len = n;
	single.init_len = 0;
	for (c = 0; c < 3; c++)
	{
		runs[c] = leco_encode(cols[c], n, c == 0 ? NULL : &single, &sizes[c]);
		if (runs[c] != NULL && c == 2 && lcp_heap_ordered(runs[1]))
			runs[c] = lcp_smaller_partitioned(cols[c], n, runs[c], &sizes[c]);
		if (runs[c] == NULL)
		{
			while (c-- > 0)
				free(runs[c]);
			return LCP_NOMEM;
		}
		start[c] = off;
		off = lcp_align8(off + sizes[c]);
	}
	/* too big: report the size it would need (the caller scales from it) */
	if (off > avail)
	{
		for (c = 0; c < 3; c++)
			free(runs[c]);
		*used = off;
		return LCP_NOFIT;
	}
	for (c = 0; c < 3; c++)
	{
		memcpy(area + start[c], runs[c], sizes[c]);
		free(runs[c]);
	}
	hdr.magic = LCP_MAGIC;
	hdr.n = n;
	hdr.key_off = (uint32_t) start[0];
	hdr.blk_off = (uint32_t) start[1];
	hdr.off_off = (uint32_t) start[2];
	hdr.end_off = (uint32_t) off;
	memcpy(area, &hdr, sizeof(hdr));
	*used = off;
	return LCP_OK;
}

/* a run of exactly len bytes, n elements, no rough quanta, widths <= maxb */
static bool
lcp_run_ok(const uint8_t *run, size_t len, uint32_t n, unsigned maxb)
{
	const LecoRunHeader *h = leco_header(run);
	const LecoPart *parts;
	uint32_t	p;

	if (!leco_validate(run, len) || h->total_bytes != len || h->n != n)
		return false;
	parts = (const LecoPart *) (run + sizeof(LecoRunHeader));
	for (p = 0; p < h->npart; p++)
	{
		if (parts[p].b > maxb || parts[p].q != 0)
			return false;
	}
	return true;
}

/* the O(1) checks of a key run (lcp_open_lazy): its header, size and count */
static bool
lcp_run_header_ok(const uint8_t *run, size_t len, uint32_t n)
{
	const LecoRunHeader *h = leco_header(run);

	if (!leco_validate_header(run, len) || h->total_bytes != len || h->n != n)
		return false;
	/* the first and last partitions, which the page's edge keys come from */
	return leco_part_ok(run, 0) && leco_part_ok(run, h->npart - 1);
}

/*
 * A block or offset run: fully checked, unless lazy and of several
 * partitions (then as a key run, and *lazy_out is set): checking every
 * partition of heap-ordered offsets would cost a lookup more than reading
 * the one TID it needs.
 */
static bool
lcp_tid_run_ok(const uint8_t *run, size_t len, uint32_t n, unsigned maxb,
			   bool lazy, bool *lazy_out)
{
	/* one partition (or a header too short to say): the full check, once */
	if (!lazy || len < sizeof(LecoRunHeader) || leco_header(run)->npart == 1)
		return lcp_run_ok(run, len, n, maxb);
	if (!lcp_run_header_ok(run, len, n))
		return false;
	*lazy_out = true;
	return true;
}

static bool
lcp_open_impl(const uint8_t *area, size_t avail, uint32_t expect_n, LcpView *v,
			  bool lazy)
{
	LcpHeader	hdr;

	v->tids_lazy = false;
	if (avail < sizeof(hdr) || ((uintptr_t) area & 7) != 0)
		return false;
	memcpy(&hdr, area, sizeof(hdr));
	if (hdr.magic != LCP_MAGIC || hdr.n != expect_n || hdr.n == 0 ||
		hdr.n > LCP_MAX_ITEMS)
		return false;
	if (hdr.key_off != LCP_DEAD_OFFSET + lcp_bitmap_bytes(hdr.n) ||
		hdr.blk_off <= hdr.key_off || hdr.off_off <= hdr.blk_off ||
		hdr.end_off <= hdr.off_off || hdr.end_off > avail ||
		((hdr.blk_off | hdr.off_off | hdr.end_off) & 7) != 0)
		return false;
	if (!(lazy ?
		  lcp_run_header_ok(area + hdr.key_off, hdr.blk_off - hdr.key_off, hdr.n) :
		  lcp_run_ok(area + hdr.key_off, hdr.blk_off - hdr.key_off, hdr.n,
					 LCP_MAX_KEY_BITS)) ||
		!lcp_tid_run_ok(area + hdr.blk_off, hdr.off_off - hdr.blk_off, hdr.n,
						LCP_MAX_BLOCK_BITS, lazy, &v->tids_lazy) ||
		!lcp_tid_run_ok(area + hdr.off_off, hdr.end_off - hdr.off_off, hdr.n,
						LCP_MAX_OFFSET_BITS, lazy, &v->tids_lazy))
		return false;
	v->n = hdr.n;
	v->keys = area + hdr.key_off;
	v->blocks = area + hdr.blk_off;
	v->offsets = area + hdr.off_off;
	return true;
}

bool
lcp_open(const uint8_t *area, size_t avail, uint32_t expect_n, LcpView *v)
{
	return lcp_open_impl(area, avail, expect_n, v, false);
}

bool
lcp_open_lazy(const uint8_t *area, size_t avail, uint32_t expect_n, LcpView *v)
{
	return lcp_open_impl(area, avail, expect_n, v, true);
}

bool
lcp_key_checked(const LcpView *v, uint32_t i, uint64_t *key)
{
	return leco_get_checked(v->keys, i, key);
}

/* values[0..count-1] all <= max */
static bool
lcp_all_le(const uint64_t *values, uint32_t count, uint64_t max)
{
	uint32_t	i;

	for (i = 0; i < count; i++)
		if (values[i] > max)
			return false;
	return true;
}

bool
lcp_tid_checked(const LcpView *v, uint32_t i, uint32_t *block, uint16_t *offset)
{
	uint64_t	b,
				o;

	if (!v->tids_lazy)
	{
		if (i >= v->n)
			return false;
		*block = lcp_block(v, i);
		*offset = lcp_offset(v, i);
		return true;
	}
	if (!leco_get_checked(v->blocks, i, &b) || b > UINT32_MAX ||
		!leco_get_checked(v->offsets, i, &o) || o > UINT16_MAX)
		return false;
	*block = (uint32_t) b;
	*offset = (uint16_t) o;
	return true;
}

bool
lcp_decode_range_checked(const LcpView *v, uint32_t from, uint32_t count,
						 uint64_t *keys, uint64_t *blocks, uint64_t *offsets)
{
	if (keys && !leco_decode_range_checked(v->keys, from, count, keys))
		return false;
	if ((uint64_t) from + count > v->n)
		return false;
	if (!v->tids_lazy)
	{
		if (blocks)
			leco_decode_range(v->blocks, from, count, blocks);
		if (offsets)
			leco_decode_range(v->offsets, from, count, offsets);
		return true;
	}
	return (!blocks ||
			(leco_decode_range_checked(v->blocks, from, count, blocks) &&
			 lcp_all_le(blocks, count, UINT32_MAX))) &&
		(!offsets ||
		 (leco_decode_range_checked(v->offsets, from, count, offsets) &&
		  lcp_all_le(offsets, count, UINT16_MAX)));
}

bool
lcp_lower_bound_checked(const LcpView *v, uint64_t x, uint32_t *pos)
{
	return leco_lower_bound_checked(v->keys, x, pos);
}

bool
lcp_lower_bound_in_checked(const LcpView *v, uint64_t x, uint32_t a, uint32_t b,
						   uint32_t *pos)
{
	if (a > b || b > v->n)
		return false;
	while (a < b)
	{
		uint32_t	mid = a + (b - a) / 2;
		uint64_t	k;

		if (!leco_get_checked(v->keys, mid, &k))
			return false;
		if (k < x)
			a = mid + 1;
		else
			b = mid;
	}
	*pos = a;
	return true;
}

uint64_t
lcp_key(const LcpView *v, uint32_t i)
{
	return leco_get(v->keys, i);
}

uint32_t
lcp_block(const LcpView *v, uint32_t i)
{
	return (uint32_t) leco_get(v->blocks, i);
}

uint16_t
lcp_offset(const LcpView *v, uint32_t i)
{
	return (uint16_t) leco_get(v->offsets, i);
}

void
lcp_decode(const LcpView *v, uint64_t *keys, uint64_t *blocks, uint64_t *offsets)
{
	if (keys)
		leco_decode_all(v->keys, keys);
	if (blocks)
		leco_decode_all(v->blocks, blocks);
	if (offsets)
		leco_decode_all(v->offsets, offsets);
}

void
lcp_decode_range(const LcpView *v, uint32_t from, uint32_t count,
				 uint64_t *keys, uint64_t *blocks, uint64_t *offsets)
{
	if (keys)
		leco_decode_range(v->keys, from, count, keys);
	if (blocks)
		leco_decode_range(v->blocks, from, count, blocks);
	if (offsets)
		leco_decode_range(v->offsets, from, count, offsets);
}

void
lcp_prefetch_tid(const LcpView *v, uint32_t i)
{
	if (v->tids_lazy)
	{
		leco_prefetch_checked(v->blocks, i);
		leco_prefetch_checked(v->offsets, i);
		return;
	}
	leco_prefetch(v->blocks, i);
	leco_prefetch(v->offsets, i);
}

uint32_t
lcp_lower_bound(const LcpView *v, uint64_t x)
{
	return leco_lower_bound(v->keys, x);
}
