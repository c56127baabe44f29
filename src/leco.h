/*
 * leco.h
 *		LeCo ("learned compression") of uint64 sequences: partitions, a linear
 *		model per partition, bit-packed residuals, O(1) random access and a
 *		lower_bound that works on the compressed form.
 *
 * Pure C: no PostgreSQL headers (unit-tested by test/unit/test_leco.c).
 *
 * Everything stored is an integer and every decode is integer arithmetic
 * (64-bit values, __int128 intermediates), so encoder and decoder agree bit
 * for bit on every platform.  Signed int64 data is encoded after flipping
 * the sign bit (leco_i64_to_u64), which keeps the order.
 *
 * A run is one contiguous, 8-byte aligned blob:
 *
 *   LecoRunHeader | LecoPart[npart] | jump[njump] (uint32, padded to 8) |
 *   residual bits (+16 bytes of padding)
 *
 * Variable-length runs carry a jump table: jump[j] is the partition holding
 * element j << jump_shift, with jump_shift chosen so that there are no more
 * blocks than partitions; finding the partition of element i is then a
 * table look-up plus a short forward walk (O(1) expected random access).
 *
 * Element i of partition p (start s, 0 <= k = i - s < len) decodes as
 *
 *   value = base + floor(slope * k / 2^sh) + (resid[i] << q)      (mod 2^64)
 *
 * where resid[i] is a b-bit unsigned field at bit bitoff + k * b of the
 * residual area (LSB first).  resid is the signed residual of the line
 * shifted by the partition's minimum residual (offset binary), so b =
 * bits(max residual - min residual).  q > 0 only for "rough" runs
 * (leco_encode_intervals): residuals are then quantised in units of 2^q.
 */
#ifndef LEARNED_LECO_H
#define LEARNED_LECO_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define LECO_MAGIC			0x4F43454C	/* "LECO" */

/* ON-DISK (inside learned directory pages) */
typedef struct LecoRunHeader
{
	uint32_t	magic;
	uint32_t	n;				/* elements */
	uint32_t	npart;			/* partitions */
	uint32_t	fixed_len;		/* partition length if fixed, 0 if variable */
	uint32_t	resid_bytes;	/* residual area, padding included */
	uint32_t	total_bytes;	/* whole run, multiple of 8 */
	uint32_t	njump;			/* jump table entries (0 if fixed_len) */
	uint32_t	jump_shift;		/* elements per jump block: 1 << jump_shift */
} LecoRunHeader;

/* ON-DISK */
typedef struct LecoPart
{
	uint64_t	base;
	int64_t		slope;			/* fixed point, sh fractional bits */
	uint32_t	start;			/* first element */
	uint32_t	bitoff;			/* first residual bit */
	uint8_t		sh;
	uint8_t		b;				/* residual width, 0..64 */
	uint8_t		q;				/* quantum shift (rough runs), else 0 */
	uint8_t		pad[5];
} LecoPart;

#define LECO_PAD_BYTES		16

__extension__ typedef unsigned __int128 leco_u128;

/*
 * The b-bit field (b <= 64) at bit "bit" of area, LSB first, and its
 * store (OR into zeroed bits).  Both touch the 16 bytes from the field's
 * first byte: the area needs LECO_PAD_BYTES after its last field.  Also
 * used by the packed pages of sorted runs (learned.h).
 */
static inline uint64_t
leco_load_bits(const uint8_t *area, uint64_t bit, unsigned b)
{
	leco_u128	w;
	uint64_t	r;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&w, area + (bit >> 3), sizeof(w));
#else
	{
		int			j;

		w = 0;
		for (j = 15; j >= 0; j--)
			w = (w << 8) | area[(bit >> 3) + j];
	}
#endif
	w >>= (bit & 7);
	r = (uint64_t) w;
	if (b < 64)
		r &= (UINT64_C(1) << b) - 1;
	return r;
}

static inline void
leco_store_bits(uint8_t *area, uint64_t bit, unsigned b, uint64_t val)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/*
	 * OR the value into the 16 bytes from its first one (the residual area
	 * has LECO_PAD_BYTES of padding, and is zeroed): the same bits as the
	 * byte loop below, a word at a time.
	 */
	leco_u128	w;

	(void) b;
	memcpy(&w, area + (bit >> 3), sizeof(w));
	w |= (leco_u128) val << (bit & 7);
	memcpy(area + (bit >> 3), &w, sizeof(w));
#else
	unsigned	i;

	for (i = 0; i < b;)
	{
		uint64_t	pos = bit + i;
		unsigned	off = (unsigned) (pos & 7);
		unsigned	take = 8 - off;

		if (take > b - i)
			take = b - i;
		area[pos >> 3] |= (uint8_t) (((val >> i) & ((1u << take) - 1)) << off);
		i += take;
	}
#endif
}

typedef struct LecoOptions
{
	uint32_t	fixed_len;		/* > 0: fixed-length partitions of this size */
	uint32_t	init_len;		/* variable: initial block length (default 16) */
} LecoOptions;

/*
 * Encode v[0..n-1] (any order; compresses best when locally linear).
 * Returns a malloc()ed run and its size in *size, or NULL if out of memory.
 * opts may be NULL (cost-based variable-length partitions).
 */
extern uint8_t *leco_encode(const uint64_t *v, uint32_t n,
							const LecoOptions *opts, size_t *size);

/*
 * Rough encoding (LeCo-Zonemap-D): element i decodes to some value in
 * [lo[i], hi[i]], chosen to shrink the residuals.  Requires lo[i] <= hi[i]
 * and hi[i] <= lo[i+1], so the decoded sequence is non-decreasing.
 */
extern uint8_t *leco_encode_intervals(const uint64_t *lo, const uint64_t *hi,
									  uint32_t n, const LecoOptions *opts,
									  size_t *size);

/* Sanity check of a run read from disk (header, bounds, widths). */
extern bool leco_validate(const uint8_t *run, size_t avail);

/*
 * The O(1) part of leco_validate: the header and the table sizes, not the
 * partitions or the jump table.  A run checked only so is read with the
 * _checked functions below, which check each partition they touch (and
 * return false on damage): a reader that touches a few elements of a long
 * run does not pay for checking all of it.
 */
extern bool leco_validate_header(const uint8_t *run, size_t avail);
extern bool leco_part_ok(const uint8_t *run, uint32_t p);
extern bool leco_get_checked(const uint8_t *run, uint32_t i, uint64_t *out);
extern void leco_prefetch_checked(const uint8_t *run, uint32_t i);
extern bool leco_decode_range_checked(const uint8_t *run, uint32_t from,
									  uint32_t count, uint64_t *out);
extern bool leco_lower_bound_checked(const uint8_t *run, uint64_t x, uint32_t *out);

static inline const LecoRunHeader *
leco_header(const uint8_t *run)
{
	return (const LecoRunHeader *) run;
}

static inline uint32_t
leco_count(const uint8_t *run)
{
	return leco_header(run)->n;
}

static inline size_t
leco_size(const uint8_t *run)
{
	return leco_header(run)->total_bytes;
}

/* partition holding element i */
extern uint32_t leco_find_part(const uint8_t *run, uint32_t i);

/* element i (i < n) */
extern uint64_t leco_get(const uint8_t *run, uint32_t i);

/* prefetch the residual of element i (i < n; of a validated run) */
extern void leco_prefetch(const uint8_t *run, uint32_t i);

/* decode everything into out[n] */
extern void leco_decode_all(const uint8_t *run, uint64_t *out);

/* decode elements from .. from + count - 1 (all < n) into out[count] */
extern void leco_decode_range(const uint8_t *run, uint32_t from, uint32_t count,
							  uint64_t *out);

/*
 * For a non-decreasing run: first index with value >= x (n if none), and
 * first index with value > x.
 */
extern uint32_t leco_lower_bound(const uint8_t *run, uint64_t x);
extern uint32_t leco_upper_bound(const uint8_t *run, uint64_t x);

static inline uint64_t
leco_i64_to_u64(int64_t x)
{
	return (uint64_t) x ^ UINT64_C(0x8000000000000000);
}

static inline int64_t
leco_u64_to_i64(uint64_t x)
{
	return (int64_t) (x ^ UINT64_C(0x8000000000000000));
}

#endif							/* LEARNED_LECO_H */
