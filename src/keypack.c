/*
 * keypack.c
 *		Pure C: plan and compute the monotone 64-bit image of a composite key.
 *
 * The image is a mixed-radix number whose digits are the columns' ordinals
 * in index order: for TPC-C's (w_id, d_id, o_id) with 100 x 10 x 3000 keys
 * the image is ((w - 1 + 1) * 13 + d ...) * 3003 + o, dense, so one linear
 * model covers many districts (a power-of-two bit packing would leave a
 * hole after every district).  Each column's digit has range + 3 values:
 * 0 for "before the build's range" (and NULLS FIRST), range + 2 for "after"
 * (and NULLS LAST), the values in between.  A value outside the range
 * clamps its digit and sets every later digit to 0 (before) or to the
 * maximum (after): the image stays non-decreasing in the lexicographic
 * order, so the models stay usable after inserts of new values; they only
 * become less precise there.  The comparator always decides.
 *
 * Digits of all packed columns but the last are exact; the last may be
 * divided (lossy).  If a digit before the last were lossy, two different
 * values could share it and a later column's digits would then order the
 * images against the keys.
 */
#include "keypack.h"

typedef unsigned __int128 kp_u128;

int
keypack_plan(int ncols, const uint64_t *lo, const uint64_t *hi,
			 const bool *lossy, int maxcols, KeyPackCol *cols)
{
	kp_u128		total = 1;		/* product of the radixes so far */
	kp_u128		limit = ((kp_u128) 1) << 64;
	int			npacked = 0;
	int			i;

	for (i = 0; i < ncols; i++)
	{
		cols[i].lo = lo[i];
		cols[i].hi = hi[i];
		if (lo[i] > hi[i])
			cols[i].lo = cols[i].hi = 0;
		cols[i].radix = 0;
		cols[i].divisor = 1;
	}
	for (i = 0; i < ncols; i++)
	{
		kp_u128		full = (kp_u128) (cols[i].hi - cols[i].lo) + 3;
		kp_u128		avail = limit / total;

		if (maxcols > 0 && i >= maxcols)
			break;
		if (avail < 2)
			break;
		if (full <= avail && full <= (kp_u128) UINT64_MAX)
		{
			cols[i].radix = (uint64_t) full;
			cols[i].divisor = 1;
			total *= full;
			npacked++;
			if (lossy && lossy[i])
				break;
			continue;
		}
		/* the rest of the capacity, with a divisor; this column is the last */
		if (avail > (kp_u128) UINT64_MAX)
			avail = UINT64_MAX;
		cols[i].radix = (uint64_t) avail;
		cols[i].divisor = (uint64_t) ((full - 1) / avail + 1);
		npacked++;
		break;
	}
	return npacked;
}

int
keypack_ordinal(const KeyPackCol *col, uint64_t m, bool desc, uint64_t *u)
{
	*u = 0;
	if (m < col->lo)
		return desc ? KP_AFTER : KP_BEFORE;
	if (m > col->hi)
		return desc ? KP_BEFORE : KP_AFTER;
	*u = desc ? col->hi - m : m - col->lo;
	return KP_VALUE;
}

uint64_t
keypack_combine(const KeyPackCol *cols, int npacked, const int *status,
				const uint64_t *u)
{
	uint64_t	m = 0;
	int			state = KP_VALUE;
	int			i;

	for (i = 0; i < npacked; i++)
	{
		uint64_t	d;

		if (state == KP_VALUE)
			state = status[i];
		if (state == KP_BEFORE)
			d = 0;
		else if (state == KP_AFTER)
			d = cols[i].radix - 1;
		else if (cols[i].divisor == 1)
			d = u[i] + 1;		/* u < radix - 1: no overflow, no division */
		else
			d = (uint64_t) (((kp_u128) u[i] + 1) / cols[i].divisor);
		/* cannot overflow: the product of the radixes is at most 2^64 */
		m = m * cols[i].radix + d;
	}
	return m;
}

void
keypack_widen(int ncols, const KeyPackCol *old, uint64_t *lo, uint64_t *hi)
{
	int			i;

	for (i = 0; i < ncols; i++)
	{
		kp_u128		room;

		if (lo[i] > hi[i])
			continue;
		room = ((kp_u128) (hi[i] - lo[i])) / 2 + 1;
		hi[i] = (kp_u128) hi[i] + room > (kp_u128) UINT64_MAX ?
			UINT64_MAX : (uint64_t) (hi[i] + room);
		if (old && lo[i] < old[i].lo)
			lo[i] = (kp_u128) lo[i] < room ? 0 : (uint64_t) (lo[i] - room);
	}
}
