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

#endif							/* KEYPACK_H */
