/*
 * pla.h
 *		Optimal piecewise-linear approximation (PGM-style) over sorted keys.
 *
 * Pure C: no PostgreSQL headers, so the fitter can be unit-tested alone
 * (test/unit/test_pla.c).  The index build maps keys to monotone uint64
 * values, turns them into points with pla_make_points(), fits pieces with
 * pla_fit(), and measures each piece's real error with pla_measure().
 *
 * Everything that is stored on disk and re-evaluated at query time goes
 * through pla_predict(), so the build measures exactly the arithmetic the
 * scans use (this file is compiled with -ffp-contract=off).
 */
#ifndef LEARNED_PLA_H
#define LEARNED_PLA_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <math.h>

/* A fitted piece: predicts rank(x) ~ intercept + floor(slope * (x - first_key)) */
typedef struct PlaPiece
{
	uint64_t	first_key;		/* x of the piece's first point */
	int64_t		intercept;		/* predicted rank at first_key */
	double		slope;			/* ranks per unit of x, >= 0 */
	int64_t		first_point;	/* index of the piece's first point */
	int64_t		npoints;		/* points covered by the piece */
} PlaPiece;

/*
 * Prediction used both at build time (to measure the error) and at query
 * time.  x below first_key predicts the intercept.  The result is not
 * clamped to the piece's rank range: callers clamp.
 */
static inline int64_t
pla_predict(const PlaPiece *p, uint64_t x)
{
	double		d;
	double		off;

	if (x <= p->first_key)
		return p->intercept;
	d = (double) (x - p->first_key);	/* difference first, in uint64 */
	off = floor(p->slope * d);
	if (off > 9.0e18)
		off = 9.0e18;
	return p->intercept + (int64_t) off;
}

/*
 * Build the PLA input points from sorted mapped keys keys[0..n-1]
 * (duplicates allowed; equal mapped keys are treated as one run).
 *
 * For every distinct key the point is (key, rank of its first occurrence).
 * After a run of equal keys, when key+1 is below the next key, a "gap point"
 * (key+1, rank just past the run) is added, so that absent keys just above a
 * long run are predicted past the run.
 *
 * Intervals: with page_items == 0 the interval is [y-eps, y+eps].  With
 * page_items = P > 0 (page-aligned error, guideline G3), it is
 * [zl-eps, zr+eps] where zl = floor(y/P)*P and zr = zl+P-1: a prediction
 * anywhere in the true page costs nothing.
 *
 * Output arrays must have room for 2*n points; also fills yrank (the true
 * rank of each point).  Returns the number of points.
 */
extern int64_t pla_make_points(const uint64_t *keys, int64_t n,
							   int64_t eps, int64_t page_items,
							   uint64_t *x, int64_t *ylo, int64_t *yhi,
							   int64_t *yrank);

/*
 * Fit the fewest pieces such that for every point i the exact line of its
 * piece passes within [ylo[i], yhi[i]].  x must be strictly increasing.
 * out must have room for n pieces.  Returns the number of pieces.
 * Allocates temporary memory with malloc(); returns -1 if that fails.
 */
extern int64_t pla_fit(const uint64_t *x, const int64_t *ylo,
					   const int64_t *yhi, int64_t n, PlaPiece *out);

/*
 * pla_fit on the first and last point of each run of points with one
 * interval (with page-aligned intervals: each page's first and last
 * point).  Pieces index the full arrays; measure them over all points
 * (pla_measure).  out must have room for n pieces.
 */
extern int64_t pla_fit_pages(const uint64_t *x, const int64_t *ylo,
							 const int64_t *yhi, int64_t n, PlaPiece *out);

/*
 * Measure a piece with the query-time arithmetic (pla_predict): for its
 * points (x, tlo and thi are the whole point arrays given to pla_fit; the
 * piece's points start at p->first_point), given target ranges [tlo[i], thi[i]] (e.g. the true page of the
 * point), return in *below / *above the smallest values such that
 * [pred-below, pred+above] intersects [tlo, thi] for every point.
 * pred is clamped to [clamp_lo, clamp_hi] first, as the scans do.  x must
 * increase within the piece: inside a run of points with one target only
 * the run's first and last are predicted (the prediction is monotone).
 */
extern void pla_measure(const PlaPiece *p, const uint64_t *x,
						const int64_t *tlo, const int64_t *thi,
						int64_t clamp_lo, int64_t clamp_hi,
						int64_t *below, int64_t *above);

#endif							/* LEARNED_PLA_H */
