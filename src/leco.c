/*
 * leco.c
 *		LeCo learned compression of uint64 sequences (see leco.h).
 *
 * Pure C (no PostgreSQL headers); integer arithmetic only, so a run decodes
 * to the same values everywhere (a standby decodes what the primary wrote).
 *
 * The model of a partition is the line through the midpoints of its first
 * and last targets (exact fit at the ends, computed in fixed point with as
 * many fractional bits as fit in an int64), or a constant when that gives
 * narrower residuals (unsorted or jumpy data: then it is frame-of-reference).
 * The cost of a partition is its header plus len * b bits.  Variable-length
 * partitioning starts from short blocks and merges neighbours while the
 * merged partition is cheaper than the two apart (the "merge" phase of
 * LeCo's split-merge partitioner), alternating the pairing between passes.
 */
#include "leco.h"

#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 leco_i128;

#define LECO_DEFAULT_INIT_LEN	16
#define LECO_MAX_PASSES			64
#define LECO_MAX_SH				32

#define Min64(a, b)		((a) < (b) ? (a) : (b))
#define Max64(a, b)		((a) > (b) ? (a) : (b))

/* ---------- shared arithmetic (encoder and decoder) ---------- */

/* floor(slope * k / 2^sh), exact */
static inline leco_i128
leco_pred(int64_t slope, unsigned sh, uint32_t k)
{
	leco_i128	prod = (leco_i128) slope * (leco_i128) k;

	if (prod >= 0)
		return prod >> sh;
	return -(((-prod) + (((leco_i128) 1 << sh) - 1)) >> sh);
}


static inline const LecoPart *
leco_parts(const uint8_t *run)
{
	return (const LecoPart *) (run + sizeof(LecoRunHeader));
}

static inline size_t
leco_jump_bytes(uint32_t njump)
{
	return ((size_t) njump * sizeof(uint32_t) + 7) & ~(size_t) 7;
}

static inline const uint32_t *
leco_jump(const uint8_t *run)
{
	return (const uint32_t *) (run + sizeof(LecoRunHeader) +
							   (size_t) leco_header(run)->npart * sizeof(LecoPart));
}

static inline const uint8_t *
leco_resid(const uint8_t *run)
{
	return run + sizeof(LecoRunHeader) +
		(size_t) leco_header(run)->npart * sizeof(LecoPart) +
		leco_jump_bytes(leco_header(run)->njump);
}

/*
 * The line of a partition at k, floor(slope * k / 2^sh), modulo 2^64 (all
 * a decode needs: an element is base + line + residual, modulo 2^64), in
 * 64-bit arithmetic.  With slope = ip * 2^sh + frac, ip = floor(slope /
 * 2^sh) (an arithmetic shift) and 0 <= frac < 2^sh, the floor is exactly
 * ip * k + floor(frac * k / 2^sh), and frac * k < 2^64 because sh <=
 * LECO_MAX_SH = 32 (partitions are checked before they are read) and k <
 * 2^32.  The same value as leco_pred, which the encoder keeps.
 */
static inline uint64_t
leco_line_ip(const LecoPart *p)
{
	return (uint64_t) (p->slope >> p->sh);
}

static inline uint64_t
leco_line_frac(const LecoPart *p)
{
	return (uint64_t) p->slope & ((UINT64_C(1) << p->sh) - 1);
}

/* a residual field of b bits at bit (b <= 64) */
static inline uint64_t
leco_load_resid(const uint8_t *area, uint64_t bit, unsigned b)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/*
	 * up to 56 bits lie in the 8 bytes from the field's first one (the
	 * residual area's padding covers the last field): one load
	 */
	if (b <= 56)
	{
		uint64_t	w;

		memcpy(&w, area + (bit >> 3), sizeof(w));
		return (w >> (bit & 7)) & ((UINT64_C(1) << b) - 1);
	}
#endif
	return leco_load_bits(area, bit, b);
}

static inline uint64_t
leco_part_get(const LecoPart *p, const uint8_t *resid, uint32_t k)
{
	uint64_t	v = p->base + leco_line_ip(p) * k + ((leco_line_frac(p) * k) >> p->sh);

	if (p->b > 0)
		v += leco_load_resid(resid, (uint64_t) p->bitoff + (uint64_t) k * p->b, p->b) << p->q;
	return v;
}

static inline uint32_t
leco_part_len(const uint8_t *run, uint32_t p)
{
	const LecoRunHeader *h = leco_header(run);
	const LecoPart *parts = leco_parts(run);

	return (p + 1 < h->npart ? parts[p + 1].start : h->n) - parts[p].start;
}

/* ---------- decoding ---------- */

/*
 * Elements k .. k + cnt - 1 of partition p into out: the line advanced by
 * additions (its integer and fractional parts, as leco_part_get splits
 * it), the residuals read in order.
 */
static inline void
leco_part_decode(const LecoPart *p, const uint8_t *resid, uint32_t k, uint32_t cnt,
				 uint64_t *out)
{
	const uint64_t ip = leco_line_ip(p);
	const uint64_t frac = leco_line_frac(p);
	const uint64_t base = p->base;
	const unsigned sh = p->sh,
				b = p->b,
				q = p->q;
	uint64_t	line = ip * k;
	uint64_t	facc = frac * k;	/* < 2^64 up to the partition's end */
	uint64_t	bit = (uint64_t) p->bitoff + (uint64_t) k * b;
	uint32_t	j;

	if (b == 0)
	{
		for (j = 0; j < cnt; j++)
		{
			out[j] = base + line + (facc >> sh);
			line += ip;
			facc += frac;
		}
		return;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (b <= 56)
	{
		const uint64_t mask = (UINT64_C(1) << b) - 1;

		for (j = 0; j < cnt; j++)
		{
			uint64_t	w;

			memcpy(&w, resid + (bit >> 3), sizeof(w));
			out[j] = base + line + (facc >> sh) + (((w >> (bit & 7)) & mask) << q);
			line += ip;
			facc += frac;
			bit += b;
		}
		return;
	}
#endif
	for (j = 0; j < cnt; j++)
	{
		out[j] = base + line + (facc >> sh) + (leco_load_bits(resid, bit, b) << q);
		line += ip;
		facc += frac;
		bit += b;
	}
}

uint32_t
leco_find_part(const uint8_t *run, uint32_t i)
{
	const LecoRunHeader *h = leco_header(run);
	const LecoPart *parts = leco_parts(run);
	uint32_t	lo = 0,
				hi = h->npart;

	/* one partition (compressed leaf pages' TID runs): no division */
	if (h->npart <= 1)
		return 0;
	if (h->fixed_len > 0)
		return i / h->fixed_len;
	if (h->njump > 0)
	{
		/* the partition of the block's first element, then walk forward */
		uint32_t	p = leco_jump(run)[i >> h->jump_shift];

		while (p + 1 < h->npart && parts[p + 1].start <= i)
			p++;
		return p;
	}
	/* last partition with start <= i */
	while (hi - lo > 1)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (parts[mid].start <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

uint64_t
leco_get(const uint8_t *run, uint32_t i)
{
	uint32_t	p = leco_find_part(run, i);
	const LecoPart *part = &leco_parts(run)[p];

	return leco_part_get(part, leco_resid(run), i - part->start);
}

void
leco_decode_all(const uint8_t *run, uint64_t *out)
{
	const LecoRunHeader *h = leco_header(run);
	const LecoPart *parts = leco_parts(run);
	const uint8_t *resid = leco_resid(run);
	uint32_t	p;

	for (p = 0; p < h->npart; p++)
	{
		uint32_t	len = leco_part_len(run, p);
		uint32_t	k;

		for (k = 0; k < len; k++)
			out[parts[p].start + k] = leco_part_get(&parts[p], resid, k);
	}
}

/*
 * Decode elements from .. from + count - 1 into out, partition p (the one
 * holding from) onwards; with check, each next partition is checked
 * (leco_part_sane) before it is read, and false means it is damaged.
 */
static inline bool leco_part_sane(const uint8_t *run, uint32_t p);

static bool
decode_slice(const uint8_t *run, uint32_t p, uint32_t from, uint32_t count,
			 uint64_t *out, bool check)
{
	const LecoRunHeader *h = leco_header(run);
	const LecoPart *parts = leco_parts(run);
	const uint8_t *resid = leco_resid(run);
	uint32_t	i = from;
	uint32_t	end = from + count;

	for (;;)
	{
		uint32_t	pend = p + 1 < h->npart ? parts[p + 1].start : h->n;
		uint32_t	k = i - parts[p].start;

		if (pend > end)
			pend = end;
		leco_part_decode(&parts[p], resid, k, pend - i, out);
		out += pend - i;
		i = pend;
		if (i >= end)
			return true;
		/* partitions are checked as the slice reaches them */
		p++;
		if (check && !leco_part_sane(run, p))
			return false;
	}
}

/*
 * Decode elements from .. from + count - 1 (all < n) into out[0..count-1]:
 * one partition look-up, then sequential decodes partition by partition
 * (a scan returning a slice of a page decodes only that slice).
 */
void
leco_decode_range(const uint8_t *run, uint32_t from, uint32_t count, uint64_t *out)
{
	if (count == 0)
		return;
	(void) decode_slice(run, leco_find_part(run, from), from, count, out, false);
}

/*
 * First index whose value is >= x (strict = false) or > x (strict = true).
 * Binary search over the partitions' first elements, then inside one
 * partition: log2(npart) + log2(len) random-access decodes, no decompression.
 */
static uint32_t
leco_search(const uint8_t *run, uint64_t x, bool strict)
{
	const LecoRunHeader *h = leco_header(run);
	const LecoPart *parts = leco_parts(run);
	const uint8_t *resid = leco_resid(run);
	uint32_t	lo = 0,
				hi = h->npart;
	uint32_t	a,
				b;
	const LecoPart *p;

#define LECO_BELOW(v) (strict ? (v) <= x : (v) < x)
	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (LECO_BELOW(leco_part_get(&parts[mid], resid, 0)))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* partition lo is the first one starting at or past the answer */
	if (lo == 0)
		return 0;
	p = &parts[lo - 1];
	a = 1;
	b = leco_part_len(run, lo - 1);
	while (a < b)
	{
		uint32_t	mid = a + (b - a) / 2;

		if (LECO_BELOW(leco_part_get(p, resid, mid)))
			a = mid + 1;
		else
			b = mid;
	}
#undef LECO_BELOW
	return p->start + a;
}

uint32_t
leco_lower_bound(const uint8_t *run, uint64_t x)
{
	return leco_search(run, x, false);
}

uint32_t
leco_upper_bound(const uint8_t *run, uint64_t x)
{
	return leco_search(run, x, true);
}

/* the residual bits a run holds (its padding excluded) */
static inline uint64_t
leco_resid_bits(const LecoRunHeader *h)
{
	return (uint64_t) (h->resid_bytes - LECO_PAD_BYTES) * 8;
}

/*
 * Partition p of a run whose header is sane (leco_validate_header): its
 * start, length, widths and residual bits lie where they must, so every
 * element of it decodes from inside the run.
 */
static inline bool
leco_part_sane(const uint8_t *run, uint32_t p)
{
	const LecoRunHeader *h = leco_header(run);
	const LecoPart *pp = &leco_parts(run)[p];
	uint32_t	next = p + 1 < h->npart ? pp[1].start : h->n;

	if ((p == 0 && pp->start != 0) || pp->start >= next ||
		(h->fixed_len > 0 && pp->start != p * h->fixed_len))
		return false;
	if (pp->b > 64 || pp->sh > LECO_MAX_SH || pp->q > 63)
		return false;
	return (uint64_t) pp->bitoff + (uint64_t) (next - pp->start) * pp->b <= leco_resid_bits(h);
}

bool
leco_validate_header(const uint8_t *run, size_t avail)
{
	const LecoRunHeader *h = leco_header(run);

	if (avail < sizeof(LecoRunHeader) || ((uintptr_t) run & 7) != 0)
		return false;
	if (h->magic != LECO_MAGIC || h->total_bytes > avail || (h->total_bytes & 7) != 0)
		return false;
	if ((uint64_t) sizeof(LecoRunHeader) + (uint64_t) h->npart * sizeof(LecoPart) +
		leco_jump_bytes(h->njump) + h->resid_bytes != h->total_bytes ||
		h->resid_bytes < LECO_PAD_BYTES)
		return false;
	if (h->jump_shift > 31 || (h->fixed_len > 0 && h->njump != 0) ||
		(h->njump > 0 &&
		 (uint64_t) h->njump != (((uint64_t) h->n + ((uint64_t) 1 << h->jump_shift) - 1) >> h->jump_shift)))
		return false;
	if ((h->n == 0) != (h->npart == 0) || h->npart > h->n)
		return false;
	if (h->fixed_len > 0 &&
		(uint64_t) h->npart != ((uint64_t) h->n + h->fixed_len - 1) / h->fixed_len)
		return false;
	return true;
}

bool
leco_validate(const uint8_t *run, size_t avail)
{
	const LecoRunHeader *h = leco_header(run);
	const LecoPart *parts;
	uint32_t	p;

	if (!leco_validate_header(run, avail))
		return false;
	parts = leco_parts(run);
	for (p = 0; p < h->npart; p++)
		if (!leco_part_sane(run, p))
			return false;
	for (p = 0; p < h->njump; p++)
	{
		uint32_t	j = leco_jump(run)[p];
		uint64_t	first = (uint64_t) p << h->jump_shift;

		if (j >= h->npart || parts[j].start > first ||
			(j + 1 < h->npart && parts[j + 1].start <= first))
			return false;
	}
	return true;
}

/* prefetch the residual bits of element i, in partition p */
static inline void
prefetch_elem(const uint8_t *run, uint32_t p, uint32_t i)
{
	const LecoPart *part = &leco_parts(run)[p];

#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(leco_resid(run) +
					   (((uint64_t) part->bitoff + (uint64_t) (i - part->start) * part->b) >> 3));
#else
	(void) part;
	(void) i;
#endif
}

/* ask the CPU for the cache line of element i's residual (i < n) */
void
leco_prefetch(const uint8_t *run, uint32_t i)
{
	prefetch_elem(run, leco_find_part(run, i), i);
}

/* ---------- checked access (runs whose header only was validated) ---------- */

bool
leco_part_ok(const uint8_t *run, uint32_t p)
{
	return p < leco_header(run)->npart && leco_part_sane(run, p);
}

/* leco_find_part on an unchecked partition table: false if it is damaged */
static bool
leco_find_part_checked(const uint8_t *run, uint32_t i, uint32_t *pp)
{
	const LecoRunHeader *h = leco_header(run);
	const LecoPart *parts = leco_parts(run);
	uint32_t	p;

	if (i >= h->n)
		return false;
	if (h->njump > 0)
	{
		/* a jump entry out of range is damage; the walk stays in the table */
		p = leco_jump(run)[i >> h->jump_shift];
		if (p >= h->npart)
			return false;
		while (p + 1 < h->npart && parts[p + 1].start <= i)
			p++;
	}
	else
		p = leco_find_part(run, i);
	if (!leco_part_sane(run, p) || parts[p].start > i)
		return false;
	*pp = p;
	return true;
}

/* leco_prefetch for a run whose partitions were not all checked: nothing if damaged */
void
leco_prefetch_checked(const uint8_t *run, uint32_t i)
{
	uint32_t	p;

	if (leco_find_part_checked(run, i, &p))
		prefetch_elem(run, p, i);
}

bool
leco_get_checked(const uint8_t *run, uint32_t i, uint64_t *out)
{
	uint32_t	p;
	const LecoPart *part;

	if (!leco_find_part_checked(run, i, &p))
		return false;
	part = &leco_parts(run)[p];
	*out = leco_part_get(part, leco_resid(run), i - part->start);
	return true;
}

bool
leco_decode_range_checked(const uint8_t *run, uint32_t from, uint32_t count,
						  uint64_t *out)
{
	const LecoRunHeader *h = leco_header(run);
	uint32_t	p;
	uint32_t	end = from + count;

	if (count == 0)
		return true;
	if (end > h->n || end < from || !leco_find_part_checked(run, from, &p))
		return false;
	return decode_slice(run, p, from, count, out, true);
}

/*
 * Narrow [*a, *b) of partition p, searched for its first element >= x, by
 * the line alone: element k lies in [base + pred(k), base + pred(k) +
 * maxr], maxr = (2^b - 1) << q, so every k whose top is below x is below
 * the answer and the first k whose bottom is >= x is at or past it.  Only
 * for a rising line and a base at or below the first element v0 (else the
 * base wrapped around 2^64 and the bounds do not hold); no residual is
 * read, so a well-fitted partition is searched in a few cache lines.
 */
static void
leco_narrow(const LecoPart *p, uint64_t v0, uint64_t x, uint32_t *a, uint32_t *b)
{
	leco_i128	maxr;
	uint32_t	lo,
				hi;

	if (p->slope <= 0 || p->base > v0)
		return;
	maxr = p->b == 0 ? 0 : ((((leco_i128) 1 << p->b) - 1) << p->q);
	/* first k in [a, b) whose top reaches x */
	lo = *a;
	hi = *b;
	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if ((leco_i128) p->base + leco_pred(p->slope, p->sh, mid) + maxr < (leco_i128) x)
			lo = mid + 1;
		else
			hi = mid;
	}
	*a = lo;
	/* first k in [a, b) whose bottom reaches x (the answer is at most that) */
	hi = *b;
	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if ((leco_i128) p->base + leco_pred(p->slope, p->sh, mid) < (leco_i128) x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < *b)
		*b = lo;
}

/*
 * Ask the CPU for the cache lines of residual bits [from, to) of a checked
 * partition: a binary search's loads depend on each other, so each one
 * would otherwise wait for its own miss; fetched together, they overlap.
 */
static inline void
leco_prefetch_bits(const uint8_t *resid, uint64_t from, uint64_t to)
{
#if defined(__GNUC__) || defined(__clang__)
	uint64_t	byte;

	for (byte = from >> 3; byte <= (to + 7) >> 3; byte += 64)
		__builtin_prefetch(resid + byte);
	__builtin_prefetch(resid + ((to + 7) >> 3));
#else
	(void) resid;
	(void) from;
	(void) to;
#endif
}

bool
leco_lower_bound_checked(const uint8_t *run, uint64_t x, uint32_t *out)
{
	const LecoRunHeader *h = leco_header(run);
	const LecoPart *parts = leco_parts(run);
	const uint8_t *resid = leco_resid(run);
	uint32_t	lo = 0,
				hi = h->npart;
	uint32_t	a,
				b;
	const LecoPart *p;

	/*
	 * The partitions' first residuals (a page's key run has a handful of
	 * partitions), if their offsets are sane; the search checks each one it
	 * reads.
	 */
	if (h->npart <= 16)
	{
		uint32_t	q;

		for (q = 0; q < h->npart; q++)
			if (parts[q].bitoff < leco_resid_bits(h))
				leco_prefetch_bits(resid, parts[q].bitoff, parts[q].bitoff);
	}
	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (!leco_part_sane(run, mid))
			return false;
		if (leco_part_get(&parts[mid], resid, 0) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
	{
		*out = 0;
		return true;
	}
	if (!leco_part_sane(run, lo - 1))
		return false;
	p = &parts[lo - 1];
	a = 1;
	b = leco_part_len(run, lo - 1);
	leco_narrow(p, leco_part_get(p, resid, 0), x, &a, &b);
	if (b - a > 4)
		leco_prefetch_bits(resid, (uint64_t) p->bitoff + (uint64_t) a * p->b,
						   (uint64_t) p->bitoff + (uint64_t) b * p->b);
	while (a < b)
	{
		uint32_t	mid = a + (b - a) / 2;

		if (leco_part_get(p, resid, mid) < x)
			a = mid + 1;
		else
			b = mid;
	}
	*out = p->start + a;
	return true;
}

/* ---------- encoding ---------- */

typedef struct LecoFit
{
	uint64_t	base;
	int64_t		slope;
	uint8_t		sh;
	uint8_t		b;
	uint8_t		q;
	uint64_t	mn;				/* exact targets: their minimum and maximum */
	uint64_t	mx;
} LecoFit;

static unsigned
leco_bits(leco_u128 x)
{
	unsigned	n = 0;

	if ((x >> 64) != 0)
	{
		n = 64;
		x >>= 64;
	}
#if defined(__GNUC__) || defined(__clang__)
	return x == 0 ? n : n + 64 - (unsigned) __builtin_clzll((uint64_t) x);
#else
	while (x != 0)
	{
		n++;
		x >>= 1;
	}
	return n;
#endif
}

/*
 * The point of target interval k, [lo[k], hi[k]], nearest to the line
 * anchor + pred(k), as an offset from the line (0 if the line passes through
 * it); *rlp gets the interval's lower end as such an offset.
 */
static inline leco_i128
leco_nearest(const uint64_t *lo, const uint64_t *hi, uint32_t k,
			 uint64_t anchor, int64_t slope, unsigned sh, leco_i128 *rlp)
{
	leco_i128	y = (leco_i128) anchor + leco_pred(slope, sh, k);
	leco_i128	rl = (leco_i128) lo[k] - y;
	leco_i128	rh = (leco_i128) hi[k] - y;

	if (rlp)
		*rlp = rl;
	return rl > 0 ? rl : (rh < 0 ? rh : 0);
}

/*
 * Residuals of one model over targets [lo, hi] (s .. s+len-1): each is the
 * point of its target interval nearest to the line (0 if the line passes
 * through it), snapped to the grid rmin + j * 2^q.  Returns the width b, or
 * 65 if the residual range does not fit in 64 bits.  With u != NULL, stores
 * the packed values.
 */
static unsigned
leco_residuals(const uint64_t *lo, const uint64_t *hi, uint32_t len,
			   uint64_t anchor, int64_t slope, unsigned sh, unsigned q,
			   uint64_t *base, uint64_t *u)
{
	leco_i128	rmin = 0;
	leco_u128	umax = 0;
	leco_i128	step = (leco_i128) 1 << q;
	uint32_t	k;

	/*
	 * Exact targets, packing (the encoder's last pass): the residuals are
	 * those of the pass below, the line advanced by addition.
	 */
	if (lo == hi && q == 0 && u != NULL)
	{
		leco_i128	acc = 0;

		for (k = 0; k < len; k++)
		{
			leco_i128	c = (leco_i128) lo[k] - ((leco_i128) anchor + (acc >> sh));

			if (k == 0 || c < rmin)
				rmin = c;
			acc += slope;
		}
		acc = 0;
		for (k = 0; k < len; k++)
		{
			leco_i128	c = (leco_i128) lo[k] - ((leco_i128) anchor + (acc >> sh));
			leco_u128	uk = (leco_u128) (c - rmin);

			if (uk > umax)
				umax = uk;
			u[k] = (uint64_t) uk;
			acc += slope;
		}
		if (base)
			*base = (uint64_t) ((leco_i128) anchor + rmin);
		if (umax > (leco_u128) UINT64_MAX)
			return 65;
		return leco_bits(umax);
	}

	/*
	 * Exact targets (leco_encode: lo and hi are the same array), no packing:
	 * the residual is the value minus the line, the line advanced by one
	 * addition per element (an arithmetic shift of slope * k floors it as
	 * leco_pred does).  This is the encoder's cost model's inner loop.
	 */
	if (lo == hi && q == 0 && u == NULL)
	{
		leco_i128	rmax = 0;
		leco_i128	acc = 0;

		for (k = 0; k < len; k++)
		{
			leco_i128	c = (leco_i128) lo[k] - ((leco_i128) anchor + (acc >> sh));

			if (k == 0 || c < rmin)
				rmin = c;
			if (k == 0 || c > rmax)
				rmax = c;
			acc += slope;
		}
		if (base)
			*base = (uint64_t) ((leco_i128) anchor + rmin);
		umax = (leco_u128) (rmax - rmin);
		if (umax > (leco_u128) UINT64_MAX)
			return 65;
		return leco_bits(umax);
	}

	/*
	 * Exact targets' grid (q = 0) and no packing: every residual is c itself,
	 * so the width is that of max(c) - min(c), found in one pass (the
	 * encoder's cost model calls this for every candidate partition).
	 */
	if (q == 0 && u == NULL)
	{
		leco_i128	rmax = 0;

		for (k = 0; k < len; k++)
		{
			leco_i128	c = leco_nearest(lo, hi, k, anchor, slope, sh, NULL);

			if (k == 0 || c < rmin)
				rmin = c;
			if (k == 0 || c > rmax)
				rmax = c;
		}
		if (base)
			*base = (uint64_t) ((leco_i128) anchor + rmin);
		umax = (leco_u128) (rmax - rmin);
		if (umax > (leco_u128) UINT64_MAX)
			return 65;
		return leco_bits(umax);
	}

	for (k = 0; k < len; k++)
	{
		leco_i128	c = leco_nearest(lo, hi, k, anchor, slope, sh, NULL);

		if (k == 0 || c < rmin)
			rmin = c;
	}
	for (k = 0; k < len; k++)
	{
		leco_i128	rl;
		leco_i128	c = leco_nearest(lo, hi, k, anchor, slope, sh, &rl);
		leco_i128	r;
		leco_u128	uk;

		/*
		 * grid point at or below c; the next one up if that is below rl
		 * (c >= rmin, so the floor division by 2^q is a shift: no 128-bit
		 * division on the encoder's hot path)
		 */
		r = rmin + (((c - rmin) >> q) << q);
		if (r < rl)
			r += step;
		uk = (leco_u128) ((r - rmin) >> q);
		if (uk > umax)
			umax = uk;
		if (u)
			u[k] = (uint64_t) uk;
	}
	if (base)
		*base = (uint64_t) ((leco_i128) anchor + rmin);
	if (umax > (leco_u128) UINT64_MAX)
		return 65;
	return leco_bits(umax);
}

/*
 * leco_residuals' width and base for exact targets v[0..len-1] whose range
 * (max - min) is below 2^61, in 64-bit arithmetic, or 65 as soon as the
 * width exceeds limit bits (<= 64; the caller's other choice is as good): the values' offsets from
 * the anchor and the line's (at most the range) are then below 2^61, so
 * every residual fits an int64.  pred(k) = floor(slope * k / 2^sh) is kept
 * as k * floor(slope / 2^sh) plus floor(k * (slope mod 2^sh) / 2^sh): the
 * same floor, with no 128-bit product (leco_line_ip, the decoder's split).
 */
static unsigned
leco_line_width64(const uint64_t *v, uint32_t len, uint64_t anchor, int64_t slope,
				  unsigned sh, unsigned limit, uint64_t *base)
{
	uint64_t	ip = (uint64_t) (slope >> sh);	/* floor: arithmetic shift */
	uint64_t	fr = (uint64_t) slope & (((uint64_t) 1 << sh) - 1);
	uint64_t	line = 0;
	uint64_t	facc = 0;		/* fr * k: below 2^64, as sh <= 32 */
	int64_t		rmin,
				rmax;
	uint64_t	over = limit < 64 ? (uint64_t) 1 << limit : UINT64_MAX;
	uint32_t	k;

	/*
	 * c = v[k] - anchor - pred(k), modulo 2^64: its true value is below
	 * 2^62 in magnitude, so the int64 is exact; pred(k) = ip * k + floor(fr
	 * * k / 2^sh) with no carry to branch on
	 */
	rmin = rmax = (int64_t) (v[0] - anchor);
	for (k = 0; k < len; k++)
	{
		int64_t		c = (int64_t) (v[k] - anchor - line - (facc >> sh));

		rmin = c < rmin ? c : rmin;
		rmax = c > rmax ? c : rmax;
		line += ip;
		facc += fr;

		/*
		 * Wider than limit bits already: the caller does not want it.
		 * Checked after every eighth element (the width only grows: the
		 * same answer as a check after each one, for fewer branches).
		 */
		if ((k & 7) == 7 && (uint64_t) (rmax - rmin) >= over)
			return 65;
	}
	if ((uint64_t) (rmax - rmin) >= over)
		return 65;
	*base = anchor + (uint64_t) rmin;
	return leco_bits((leco_u128) (uint64_t) (rmax - rmin));
}

/*
 * Fit partition targets [lo, hi] of length len; returns its cost in bits.
 *
 * mm: for exact targets, a fit whose mn and mx are already the targets'
 * minimum and maximum (the two halves of a merge know theirs), or NULL.
 * budget: the cost only matters if it is below budget (a merge is kept
 * only if it is cheaper than its halves apart): a fit that cannot be is
 * abandoned as soon as that is certain, and UINT64_MAX returned (f is then
 * undefined).  Either way a returned cost below budget, and f, are what
 * the full computation gives.
 */
static uint64_t
leco_fit(const uint64_t *lo, const uint64_t *hi, uint32_t len, const LecoFit *mm,
		 uint64_t budget, LecoFit *f)
{
	const uint64_t hdr = (uint64_t) sizeof(LecoPart) * 8;
	uint64_t	minw = UINT64_MAX;
	unsigned	q = 0;
	uint64_t	mfirst,
				mlast;
	unsigned	b0,
				b1 = 65;
	uint64_t	base0 = 0,
				base1 = 0;
	int64_t		slope = 0;
	unsigned	sh = 0;
	uint32_t	k;
	uint64_t	mn = 0,
				mx = UINT64_MAX;	/* exact targets: their range, below */

	f->mn = f->mx = 0;
	/* exact targets: every interval is a point */
	if (lo == hi && len > 0)
		minw = 0;
	else
		for (k = 0; k < len; k++)
		{
			uint64_t	w = hi[k] - lo[k];

			if (w < minw)
				minw = w;
		}
	/* the largest power of two not above the narrowest interval's size */
	if (minw == UINT64_MAX)
		q = 63;
	else
		q = leco_bits((leco_u128) minw + 1) - 1;

	mfirst = lo[0] + (hi[0] - lo[0]) / 2;
	mlast = lo[len - 1] + (hi[len - 1] - lo[len - 1]) / 2;

	if (lo == hi)
	{
		/* the constant model of exact targets: min and max say it all */
		if (mm != NULL)
		{
			mn = mm->mn;
			mx = mm->mx;
		}
		else
		{
			mn = mx = lo[0];
			for (k = 1; k < len; k++)
			{
				mn = lo[k] < mn ? lo[k] : mn;
				mx = lo[k] > mx ? lo[k] : mx;
			}
		}
		b0 = leco_bits((leco_u128) (mx - mn));
		base0 = mn;
		f->mn = mn;
		f->mx = mx;
	}
	else
		b0 = leco_residuals(lo, hi, len, mfirst, 0, 0, q, &base0, NULL);
	if (len > 1 && mlast != mfirst)
	{
		bool		neg = mlast < mfirst;
		leco_u128	ad = neg ? (leco_u128) (mfirst - mlast) : (leco_u128) (mlast - mfirst);
		leco_u128	m = len - 1;

		leco_u128	s;

		/*
		 * The most fractional bits (up to LECO_MAX_SH) for which the slope
		 * (ad << sh) / m fits an int64: floor(x / m) < 2^63 exactly when
		 * x < m << 63, so one division.
		 */
		for (sh = LECO_MAX_SH; sh > 0 && (ad << sh) >= (m << 63); sh--)
			;
		s = (ad << sh) / m;
		if (s >= ((leco_u128) 1 << 63))
			s = ((leco_u128) 1 << 63) - 1;
		slope = neg ? -(int64_t) s : (int64_t) s;
		if (lo == hi && mx - mn < ((uint64_t) 1 << 61))
		{
			/*
			 * The line is chosen only if narrower than the constant, and
			 * matters only if its cost is below budget: its pass stops as
			 * soon as it is wider than both allow (b1 = 65 then, and the
			 * constant model, or no fit within budget, is the answer the
			 * full pass would give).
			 */
			uint64_t	limit = b0 > 0 ? b0 - 1 : 0;

			if (budget != UINT64_MAX)
			{
				uint64_t	lb = budget <= hdr ? 0 : (budget - hdr - 1) / len;

				if (budget <= hdr)
					return UINT64_MAX;
				if (lb < limit)
					limit = lb;
			}
			if (b0 == 0)
				b1 = 65;		/* the constant is exact: the line cannot win */
			else
				b1 = leco_line_width64(lo, len, mfirst, slope, sh, (unsigned) limit, &base1);
		}
		else
			b1 = leco_residuals(lo, hi, len, mfirst, slope, sh, q, &base1, NULL);
	}
	/* the base comes with the width: no third pass over the targets */
	if (b1 < b0)
	{
		f->slope = slope;
		f->sh = (uint8_t) sh;
		f->b = (uint8_t) b1;
		f->base = base1;
	}
	else
	{
		f->slope = 0;
		f->sh = 0;
		f->b = (uint8_t) b0;
		f->base = base0;
	}
	f->q = (uint8_t) q;
	if (hdr + (uint64_t) f->b * len >= budget)
		return UINT64_MAX;
	return hdr + (uint64_t) f->b * len;
}

typedef struct LecoSpan
{
	uint32_t	start;
	uint32_t	len;
	uint64_t	cost;
	LecoFit		fit;			/* the model its cost is for */
	uint32_t	failed_with;	/* the length of the right neighbour a merge
								 * with failed (0: none tried) */
} LecoSpan;

static uint8_t *
leco_encode_impl(const uint64_t *lo, const uint64_t *hi, uint32_t n,
				 const LecoOptions *opts, size_t *size)
{
	uint32_t	fixed = opts ? opts->fixed_len : 0;
	uint32_t	init = (opts && opts->init_len > 0) ? opts->init_len : LECO_DEFAULT_INIT_LEN;
	uint32_t	blk = fixed > 0 ? fixed : init;
	uint32_t	nspan = n == 0 ? 0 : (uint32_t) (((uint64_t) n + blk - 1) / blk);
	LecoSpan   *spans = NULL;
	uint64_t   *u = NULL;
	uint8_t    *out;
	LecoRunHeader *h;
	LecoPart   *parts;
	uint8_t    *resid;
	uint64_t	bits = 0;
	uint64_t	resid_bytes;
	uint64_t	total;
	uint32_t	i;
	uint32_t	njump = 0;
	uint32_t	jshift = 0;
	LecoFit		f;
	leco_u128	wacc = 0;		/* bit writer: pending bits, their count */
	unsigned	wn = 0;
	size_t		wbyte = 0;		/* where its next word goes */

	if (nspan > 0)
	{
		spans = malloc(sizeof(LecoSpan) * nspan);
		if (spans == NULL)
			return NULL;
	}
	for (i = 0; i < nspan; i++)
	{
		spans[i].start = i * blk;
		spans[i].len = (i + 1 < nspan) ? blk : n - i * blk;
		spans[i].cost = leco_fit(lo + spans[i].start, hi + spans[i].start,
								 spans[i].len, NULL, UINT64_MAX, &spans[i].fit);
		spans[i].failed_with = 0;
	}

	/* cost-based variable-length: merge neighbours while it saves bits */
	if (fixed == 0)
	{
		int			pass;
		int			idle = 0;

		for (pass = 0; pass < LECO_MAX_PASSES && idle < 2 && nspan > 1; pass++)
		{
			uint32_t	j = 0;
			uint32_t	w = 0;
			bool		merged = false;

			/* alternate the pairing: (0,1)(2,3).. then 0 (1,2)(3,4).. */
			if (pass & 1)
				spans[w++] = spans[j++];
			while (j < nspan)
			{
				/*
				 * A merge is a function of the two spans (their data, hence
				 * their fits and costs): one that failed fails again while
				 * both are unchanged, so it is not recomputed (the
				 * alternating pairing and the idle passes retry many).
				 */
				if (j + 1 < nspan && spans[j].failed_with != spans[j + 1].len)
				{
					uint32_t	s = spans[j].start;
					uint32_t	len = spans[j].len + spans[j + 1].len;
					uint64_t	c;
					LecoFit		mm;

					mm.mn = Min64(spans[j].fit.mn, spans[j + 1].fit.mn);
					mm.mx = Max64(spans[j].fit.mx, spans[j + 1].fit.mx);
					c = leco_fit(lo + s, hi + s, len, lo == hi ? &mm : NULL,
								 spans[j].cost + spans[j + 1].cost, &f);
					if (c < spans[j].cost + spans[j + 1].cost)
					{
						spans[w].start = s;
						spans[w].len = len;
						spans[w].cost = c;
						spans[w].fit = f;
						spans[w].failed_with = 0;
						w++;
						j += 2;
						merged = true;
						continue;
					}
					spans[j].failed_with = spans[j + 1].len;
				}
				spans[w++] = spans[j++];
			}
			nspan = w;
			idle = merged ? 0 : idle + 1;
		}
	}

	for (i = 0; i < nspan; i++)
	{
		bits += (uint64_t) spans[i].fit.b * spans[i].len;
	}
	resid_bytes = (bits + 7) / 8 + LECO_PAD_BYTES;
	resid_bytes = (resid_bytes + 7) & ~(uint64_t) 7;
	if (fixed == 0 && nspan > 1)
	{
		/* no more blocks than partitions */
		while ((((uint64_t) n + ((uint64_t) 1 << jshift) - 1) >> jshift) > nspan)
			jshift++;
		njump = (uint32_t) ((((uint64_t) n + ((uint64_t) 1 << jshift) - 1) >> jshift));
	}
	total = sizeof(LecoRunHeader) + (uint64_t) nspan * sizeof(LecoPart) +
		leco_jump_bytes(njump) + resid_bytes;
	if (bits > UINT32_MAX || total > UINT32_MAX)
	{
		free(spans);
		return NULL;
	}
	out = calloc(1, total);
	u = malloc(sizeof(uint64_t) * (size_t) (blk > 0 ? (n > 0 ? n : 1) : 1));
	if (out == NULL || u == NULL)
	{
		free(out);
		free(u);
		free(spans);
		return NULL;
	}
	h = (LecoRunHeader *) out;
	h->magic = LECO_MAGIC;
	h->n = n;
	h->npart = nspan;
	h->fixed_len = fixed;
	h->resid_bytes = (uint32_t) resid_bytes;
	h->total_bytes = (uint32_t) total;
	h->njump = njump;
	h->jump_shift = jshift;
	parts = (LecoPart *) (out + sizeof(LecoRunHeader));
	resid = out + sizeof(LecoRunHeader) + (size_t) nspan * sizeof(LecoPart) +
		leco_jump_bytes(njump);
	if (njump > 0)
	{
		uint32_t   *jump = (uint32_t *) (out + sizeof(LecoRunHeader) +
										 (size_t) nspan * sizeof(LecoPart));
		uint32_t	p = 0;
		uint32_t	j;

		for (j = 0; j < njump; j++)
		{
			uint64_t	first = (uint64_t) j << jshift;

			while (p + 1 < nspan && spans[p + 1].start <= first)
				p++;
			jump[j] = p;
		}
	}
	bits = 0;
	for (i = 0; i < nspan; i++)
	{
		uint32_t	s = spans[i].start;
		uint32_t	len = spans[i].len;
		uint32_t	k;

		f = spans[i].fit;
		if (lo == hi && f.q == 0)
		{
			/*
			 * Exact targets: residual k is v[k] - line(k) - base, the base
			 * being the anchor plus the smallest such difference (the fit
			 * found it): one pass, modulo 2^64 (the true value is in [0,
			 * 2^b)), the line split as the decoder splits it
			 */
			LecoPart	lp;
			uint64_t	ip,
						fr,
						line = 0,
						facc = 0;

			lp.slope = f.slope;
			lp.sh = f.sh;
			ip = leco_line_ip(&lp);
			fr = leco_line_frac(&lp);
			for (k = 0; k < len && f.b > 0; k++)
			{
				u[k] = lo[s + k] - f.base - line - (facc >> f.sh);
				line += ip;
				facc += fr;
			}
		}
		else
			(void) leco_residuals(lo + s, hi + s, len,
								  lo[s] + (hi[s] - lo[s]) / 2,
								  f.slope, f.sh, f.q, NULL, u);
		parts[i].base = f.base;
		parts[i].slope = f.slope;
		parts[i].start = s;
		parts[i].bitoff = (uint32_t) bits;
		parts[i].sh = f.sh;
		parts[i].b = f.b;
		parts[i].q = f.q;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/*
		 * The partitions' residuals are one stream of bits (each bitoff is
		 * the bits before it): pack it 64 bits at a time, LSB first, into
		 * little-endian words, the bytes leco_store_bits would set.
		 */
		for (k = 0; k < len && f.b > 0; k++)
		{
			wacc |= (leco_u128) u[k] << wn;
			wn += f.b;
			if (wn >= 64)
			{
				uint64_t	word = (uint64_t) wacc;

				memcpy(resid + wbyte, &word, sizeof(word));
				wbyte += 8;
				wacc >>= 64;
				wn -= 64;
			}
		}
#else
		for (k = 0; k < len && f.b > 0; k++)
			leco_store_bits(resid, bits + (uint64_t) k * f.b, f.b, u[k]);
#endif
		bits += (uint64_t) f.b * len;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* the last partial word (the padding keeps 16 bytes past the bits) */
	if (wn > 0)
	{
		uint64_t	word = (uint64_t) wacc;

		memcpy(resid + wbyte, &word, sizeof(word));
	}
#endif
	free(u);
	free(spans);
	*size = (size_t) total;
	return out;
}

uint8_t *
leco_encode(const uint64_t *v, uint32_t n, const LecoOptions *opts, size_t *size)
{
	return leco_encode_impl(v, v, n, opts, size);
}

/*
 * The greedy partitioner is not monotone in its input, so the rough run is
 * compared with the exact one (lo, a valid choice too) and the smaller kept.
 */
uint8_t *
leco_encode_intervals(const uint64_t *lo, const uint64_t *hi, uint32_t n,
					  const LecoOptions *opts, size_t *size)
{
	size_t		exact_size;
	uint8_t    *rough = leco_encode_impl(lo, hi, n, opts, size);
	uint8_t    *exact;

	if (rough == NULL)
		return NULL;
	exact = leco_encode_impl(lo, lo, n, opts, &exact_size);
	if (exact != NULL && exact_size < *size)
	{
		free(rough);
		*size = exact_size;
		return exact;
	}
	free(exact);
	return rough;
}
