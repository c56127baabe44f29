/*
 * keypack.h
 *		Pure C: the monotone 64-bit image of a composite key (mixed radix over
 *		the leading columns, with ranges observed at build).  No PostgreSQL
 *		headers; unit-tested by test/unit/test_keypack.c.
 */
#ifndef KEYPACK_H
#define KEYPACK_H

#include <stdbool.h>
#include <stdint.h>

/* one column of the plan (ON-DISK inside the metapage's key map) */
typedef struct KeyPackCol
{
	uint64_t	lo;				/* smallest per-type image seen at build */
	uint64_t	hi;				/* largest */
	uint64_t	radix;			/* digits of this column in the packed key */
	uint64_t	divisor;		/* ordinal / divisor = digit (1: exact) */
} KeyPackCol;

/* where a column's value falls relative to the build's range */
#define KP_VALUE	0			/* inside: the ordinal is meaningful */
#define KP_BEFORE	1			/* before the range in index order (or NULL there) */
#define KP_AFTER	2			/* after it */

/*
 * Plan the packing of ncols columns with observed images [lo[i], hi[i]]
 * (lo > hi means "no value seen": treated as the range [0, 0]).  Leading
 * columns get exact digits (range + 3 ordinals: before, the values, after)
 * while their product fits in 64 bits; the first column that does not fit
 * gets the remaining capacity with a divisor (lossy) and ends the packing;
 * at most maxcols columns are packed (maxcols <= 0: no limit).  lossy[i]
 * says that column i's per-type image is itself not exact (equal images of
 * different values): such a column also ends the packing, since a later
 * column's digits would then break monotonicity.  Returns the number of
 * packed columns; cols[i] is filled for every i < ncols.
 */
extern int	keypack_plan(int ncols, const uint64_t *lo, const uint64_t *hi,
						 const bool *lossy, int maxcols, KeyPackCol *cols);

/*
 * The ordinal of a column value with image m in index order: KP_VALUE with
 * *u in [0, range] (its digit is (u + 1) / divisor: digit 0 means "before"),
 * or KP_BEFORE / KP_AFTER when outside the range.
 */
extern int	keypack_ordinal(const KeyPackCol *col, uint64_t m, bool desc,
							uint64_t *u);

/*
 * Combine per-column (status, ordinal) of the npacked leading columns into
 * the key image.  After a column that is KP_BEFORE (KP_AFTER) every later
 * digit is the smallest (largest), which keeps the image monotone in the
 * lexicographic order even for values outside the build's ranges.
 */
extern uint64_t keypack_combine(const KeyPackCol *cols, int npacked,
								const int *status, const uint64_t *u);

/*
 * Room for growth, before a map is planned: every column i with values
 * (lo[i] <= hi[i]) gets half its width, plus one, above its largest image
 * (saturating at the 64-bit domain), and, when the map is planned again
 * (old != NULL: a merge re-plans a map whose ranges the keys outgrew), as
 * much below its smallest where keys went below the old plan's range.
 * Keys that keep growing (orders appended per district past the largest
 * o_id, timestamps) then keep distinct images until a range has grown by
 * half again.  The price is a hole of unused images after each prefix (one
 * more model piece per district), and fewer exact digits when the widened
 * ranges no longer fit in 64 bits.
 */
extern void keypack_widen(int ncols, const KeyPackCol *old, uint64_t *lo,
						  uint64_t *hi);

#endif							/* KEYPACK_H */
