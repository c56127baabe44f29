/*
 * pla.c
 *		Optimal piecewise-linear approximation (PGM-style) over sorted keys.
 *
 * The segmentation is the streaming "feasible line" algorithm (O'Rourke,
 * as used by the PGM-index): every point is a vertical interval
 * [ylo, yhi] at x, and a piece grows while some straight line crosses all
 * the intervals it covers.  The set of such lines is convex; it is tracked
 * by its two extreme lines (minimum and maximum slope) and by two convex
 * chains of interval endpoints that can still become tangent points.
 * Closing a piece only when the next point does not fit gives the fewest
 * pieces (the greedy argument: a longest feasible prefix never hurts).
 *
 * All geometric decisions are exact: coordinates are uint64 x and int64 y,
 * differences are taken in __int128 and slopes are compared by
 * cross-multiplication, never divided.  This needs |y| < 2^62, so that
 * dy < 2^63 and dy * dx < 2^127; ranks of an index are far below that.
 *
 * The stored line is chosen after the segmentation, with the query-time
 * arithmetic itself (pla_predict), see pla_emit_piece().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "pla.h"

/*
 * Not "int128": PostgreSQL's c.h has a type of that name.  __extension__
 * keeps -pedantic quiet about the non-ISO type.
 */
__extension__ typedef __int128 pla_i128;

#define PLA_INT64_MAX	((pla_i128) INT64_MAX)
#define PLA_INT64_MIN	((pla_i128) INT64_MIN)

/* An endpoint of a point's interval */
typedef struct PlaPt
{
	uint64_t	x;
	int64_t		y;
} PlaPt;

/*
 * State of the piece being grown.
 *
 * min line: r0 -> r2 (r0 an upper endpoint, r2 a later lower endpoint)
 * max line: r1 -> r3 (r1 a lower endpoint, r3 a later upper endpoint)
 *
 * upper[u0 .. nu-1] is the lower convex chain of the upper endpoints that
 * can still bound the min line; lower[l0 .. nl-1] is the upper convex chain
 * of the lower endpoints that can still bound the max line.  Entries before
 * u0 / l0 lie behind the current tangent points and can never bind again,
 * because the extreme slopes only move inwards.
 */
typedef struct PlaFitState
{
	PlaPt	   *upper;
	PlaPt	   *lower;
	int64_t		nu;
	int64_t		nl;
	int64_t		u0;
	int64_t		l0;
	PlaPt		r0;
	PlaPt		r1;
	PlaPt		r2;
	PlaPt		r3;
	int64_t		cnt;			/* points in the current piece */
	uint64_t	last_x;			/* x of the last accepted point */
} PlaFitState;

/*
 * slope(a->b) < slope(c->d), for a.x < b.x and c.x < d.x.
 *
 * With positive dx both sides can be cross-multiplied without flipping the
 * inequality.  Each product is below 2^127 in magnitude (see the header
 * comment), and the two products are compared, never subtracted, so
 * nothing overflows.
 */
static inline int
slope_lt(const PlaPt *a, const PlaPt *b, const PlaPt *c, const PlaPt *d)
{
	pla_i128	dx1 = (pla_i128) b->x - (pla_i128) a->x;
	pla_i128	dy1 = (pla_i128) b->y - (pla_i128) a->y;
	pla_i128	dx2 = (pla_i128) d->x - (pla_i128) c->x;
	pla_i128	dy2 = (pla_i128) d->y - (pla_i128) c->y;

	return dy1 * dx2 < dy2 * dx1;
}

/* Floor division for d > 0 (C division truncates toward zero) */
static inline pla_i128
floor_div(pla_i128 n, pla_i128 d)
{
	pla_i128	q = n / d;

	if ((n % d) != 0 && n < 0)
		q--;
	return q;
}

static inline int64_t
clamp_i64(pla_i128 v)
{
	if (v > PLA_INT64_MAX)
		return INT64_MAX;
	if (v < PLA_INT64_MIN)
		return INT64_MIN;
	return (int64_t) v;
}

/*
 * Try to add the point (x, [lo, hi]) to the current piece.  Returns 0 when
 * no line crosses all intervals of the piece plus this one; the state is
 * then unchanged, and the caller closes the piece.
 */
static int
pla_add(PlaFitState *st, uint64_t x, int64_t lo, int64_t hi)
{
	PlaPt		up;
	PlaPt		dn;
	int			cut_max;
	int			cut_min;
	int64_t		k;

	up.x = x;
	up.y = hi;
	dn.x = x;
	dn.y = lo;

	if (st->cnt == 0)
	{
		st->r0 = up;
		st->r1 = dn;
		st->upper[0] = up;
		st->lower[0] = dn;
		st->nu = st->nl = 1;
		st->u0 = st->l0 = 0;
		st->cnt = 1;
		st->last_x = x;
		return 1;
	}

	/*
	 * Every comparison below needs x strictly to the right of the piece's
	 * points (positive dx).  The contract says x is strictly increasing;
	 * if it is not, refuse the point so that it starts a new piece instead
	 * of corrupting the hull with a zero or negative dx.
	 */
	if (x <= st->last_x)
		return 0;

	if (st->cnt == 1)
	{
		/*
		 * Two intervals: the steepest line joins the first lower endpoint
		 * to the new upper one, the flattest joins the first upper endpoint
		 * to the new lower one.
		 */
		st->r2 = dn;
		st->r3 = up;
		st->upper[st->nu++] = up;
		st->lower[st->nl++] = dn;
		st->cnt = 2;
		st->last_x = x;
		return 1;
	}

	/*
	 * For x right of every point of the piece, the lowest value any
	 * feasible line takes at x is on the min-slope line and the highest is
	 * on the max-slope line.  So the interval fits iff up is not strictly
	 * below the min line and dn is not strictly above the max line.
	 */
	if (slope_lt(&st->r2, &up, &st->r0, &st->r2))
		return 0;
	if (slope_lt(&st->r1, &st->r3, &st->r3, &dn))
		return 0;

	/* Does the new interval cut into the region from above / below? */
	cut_max = slope_lt(&st->r1, &up, &st->r1, &st->r3);
	cut_min = slope_lt(&st->r0, &st->r2, &st->r0, &dn);

	/*
	 * up lies below the max line: the new max line passes through up and
	 * is tangent to the chain of lower endpoints, i.e. it joins up to the
	 * lower endpoint that minimises slope(L[k] -> up).  Along an upper
	 * convex chain that slope is unimodal in k, and the tangent point never
	 * moves left, so a forward walk from l0 finds it in amortised O(1).
	 * Only endpoints with x below the current x take part: the current
	 * point's own lower endpoint lies straight under up and bounds nothing
	 * (this also keeps every dx positive when lo == hi).
	 */
	if (cut_max)
	{
		k = st->l0;
		while (k + 1 < st->nl &&
			   !slope_lt(&st->lower[k], &up, &st->lower[k + 1], &up))
			k++;
		st->r1 = st->lower[k];
		st->r3 = up;
		st->l0 = k;
	}

	/* Mirror image: dn lies above the min line. */
	if (cut_min)
	{
		k = st->u0;
		while (k + 1 < st->nu &&
			   !slope_lt(&st->upper[k + 1], &dn, &st->upper[k], &dn))
			k++;
		st->r0 = st->upper[k];
		st->r2 = dn;
		st->u0 = k;
	}

	/*
	 * Only endpoints that cut into the region are kept for later tangents.
	 * An upper endpoint that does not cut lies on or above every feasible
	 * line, and since the region only shrinks it can never bind again; if
	 * it lies exactly on the max line, r3 (already in the chain) is
	 * collinear with it and dominates it for every later tangent.
	 *
	 * upper[] is a lower convex chain: drop the last vertex while it is not
	 * strictly below the segment from the one before it to the new point.
	 * Vertices before u0 + 1 are never dropped: upper[u0] is r0.
	 */
	if (cut_max)
	{
		while (st->nu - st->u0 >= 2 &&
			   !slope_lt(&st->upper[st->nu - 2], &st->upper[st->nu - 1],
						 &st->upper[st->nu - 2], &up))
			st->nu--;
		st->upper[st->nu++] = up;
	}

	/* lower[] is an upper convex chain: the mirror image. */
	if (cut_min)
	{
		while (st->nl - st->l0 >= 2 &&
			   !slope_lt(&st->lower[st->nl - 2], &dn,
						 &st->lower[st->nl - 2], &st->lower[st->nl - 1]))
			st->nl--;
		st->lower[st->nl++] = dn;
	}

	st->cnt++;
	st->last_x = x;
	return 1;
}

/*
 * Turn the closed piece x[first .. first+count-1] into a stored line.
 *
 * Any line between the two extreme lines (a convex combination of them) is
 * feasible.  But what is stored is a double slope, an integer intercept and
 * a floor() at query time, so the exact line is not what the scans
 * evaluate.  Instead of rounding an exact line (which may land one unit
 * outside an interval), fix the slope first, as the double that will be
 * stored, then compute for every point the offset o_i that pla_predict()
 * really adds, and pick the intercept I that best centres I + o_i in the
 * intervals: I in [max(ylo_i - o_i), min(yhi_i - o_i)], take the midpoint.
 *
 * The slope is the mean of the two extreme slopes (the line through the
 * intersection of the extreme lines with the middle slope, as PGM does for
 * floating keys), clamped to >= 0 as PlaPiece requires.  With ylo
 * non-decreasing in x, the max slope is >= 0, so the clamped slope stays
 * inside [s_min, s_max].  For any exactly feasible slope the intercept
 * range above is non-empty up to the floor() (less than 1) and the double
 * rounding of s * d (far less than 1 for realistic ranks), so the midpoint
 * predicts within [ylo_i - 1, yhi_i] at worst, and within [ylo_i, yhi_i]
 * in the usual case.  This costs one extra pass over the piece's points.
 */
static void
pla_emit_piece(const PlaFitState *st, const uint64_t *x, const int64_t *ylo,
			   const int64_t *yhi, int64_t first, int64_t count,
			   PlaPiece *out)
{
	PlaPiece	tmp;
	double		smin;
	double		smax;
	double		s;
	pla_i128	a;
	pla_i128	b;
	int64_t		i;

	out->first_key = x[first];
	out->first_point = first;
	out->npoints = count;

	if (count == 1)
	{
		/* Any line through the interval: horizontal through its middle. */
		out->slope = 0.0;
		out->intercept = clamp_i64(floor_div((pla_i128) ylo[first] +
											 (pla_i128) yhi[first], 2));
		return;
	}

	smin = (double) ((pla_i128) st->r2.y - (pla_i128) st->r0.y) /
		(double) ((pla_i128) st->r2.x - (pla_i128) st->r0.x);
	smax = (double) ((pla_i128) st->r3.y - (pla_i128) st->r1.y) /
		(double) ((pla_i128) st->r3.x - (pla_i128) st->r1.x);
	s = 0.5 * smin + 0.5 * smax;
	if (!(s >= 0.0))
		s = 0.0;

	/* Offsets exactly as the scans compute them: intercept 0, same slope. */
	tmp.first_key = x[first];
	tmp.intercept = 0;
	tmp.slope = s;
	tmp.first_point = first;
	tmp.npoints = count;

	a = PLA_INT64_MIN;
	b = PLA_INT64_MAX;
	for (i = first; i < first + count; i++)
	{
		pla_i128	o = (pla_i128) pla_predict(&tmp, x[i]);
		pla_i128	lo = (pla_i128) ylo[i] - o;
		pla_i128	hi = (pla_i128) yhi[i] - o;

		if (lo > a)
			a = lo;
		if (hi < b)
			b = hi;
	}

	/*
	 * If a > b (by at most 1, see above) the midpoint splits the unit of
	 * excess between both sides rather than pushing it all to one.
	 */
	out->slope = s;
	out->intercept = clamp_i64(floor_div(a + b, 2));
}

int64_t
pla_fit(const uint64_t *x, const int64_t *ylo, const int64_t *yhi, int64_t n,
		PlaPiece *out)
{
	PlaFitState st;
	int64_t		npieces = 0;
	int64_t		start = 0;
	int64_t		i;

	if (n <= 0)
		return 0;

	/*
	 * One allocation per chain, sized for the worst case (every point of a
	 * piece pushed), so the per-point work never allocates.
	 */
	memset(&st, 0, sizeof(st));
	st.upper = (PlaPt *) malloc(sizeof(PlaPt) * (size_t) n);
	st.lower = (PlaPt *) malloc(sizeof(PlaPt) * (size_t) n);
	if (st.upper == NULL || st.lower == NULL)
	{
		free(st.upper);
		free(st.lower);
		return -1;
	}

	for (i = 0; i < n; i++)
	{
		if (!pla_add(&st, x[i], ylo[i], yhi[i]))
		{
			/* Close the piece; the point that did not fit starts the next. */
			pla_emit_piece(&st, x, ylo, yhi, start, i - start, &out[npieces++]);
			start = i;
			st.cnt = 0;
			(void) pla_add(&st, x[i], ylo[i], yhi[i]);
		}
	}
	pla_emit_piece(&st, x, ylo, yhi, start, n - start, &out[npieces++]);

	free(st.upper);
	free(st.lower);
	return npieces;
}

/*
 * Whether point i starts or ends a run of points with one interval (a
 * page's points, with page-aligned intervals).
 */
static inline int
pla_run_end_point(const int64_t *ylo, const int64_t *yhi, int64_t n, int64_t i)
{
	return i == 0 || i == n - 1 ||
		ylo[i - 1] != ylo[i] || yhi[i - 1] != yhi[i] ||
		ylo[i + 1] != ylo[i] || yhi[i + 1] != yhi[i];
}

/*
 * pla_fit over the first and last point of each run of points with one
 * interval only: with page-aligned intervals (G3), each page's first and
 * last point.  A segment's model is asked for a page, not a rank, and the
 * stored line is monotone in x (slope >= 0, floor() and the double
 * product are monotone), so where a run's first and last points share a
 * piece, the prediction for every point between them lies between the
 * predictions for those two, inside their interval: the points in between
 * add no constraint.  Where a piece starts at a run's last point, the
 * run's other points are predicted by the piece before it, outside what
 * that piece was fitted on: the caller measures every piece over all
 * points (pla_measure), so their windows hold them (and with page
 * intervals the errors stay within eps + 1 there too: those predictions
 * are at least the page's first point's, which was fed, and the scans
 * clamp them to at most the next piece's first rank, in the same page).
 * About two points a page instead of one a distinct key: at some 1,270
 * int8 keys a compressed page, the fit's hull updates were most of a
 * merge's model work.  The pieces' first_point and npoints index the full
 * arrays.  Returns the number of pieces, -1 when out of memory.
 */
int64_t
pla_fit_pages(const uint64_t *x, const int64_t *ylo, const int64_t *yhi,
			  int64_t n, PlaPiece *out)
{
	int64_t    *idx;
	uint64_t   *sx;
	int64_t    *slo;
	int64_t    *shi;
	int64_t		m = 0;
	int64_t		i;
	int64_t		np;

	if (n <= 2)
		return pla_fit(x, ylo, yhi, n, out);

	/*
	 * Count, then copy: the sample is small, and arrays sized for every
	 * point cost more in page faults than the fit saves.
	 */
	for (i = 0; i < n; i++)
		if (pla_run_end_point(ylo, yhi, n, i))
			m++;
	idx = (int64_t *) malloc(sizeof(int64_t) * (size_t) m);
	sx = (uint64_t *) malloc(sizeof(uint64_t) * (size_t) m);
	slo = (int64_t *) malloc(sizeof(int64_t) * (size_t) m);
	shi = (int64_t *) malloc(sizeof(int64_t) * (size_t) m);
	if (idx == NULL || sx == NULL || slo == NULL || shi == NULL)
	{
		free(idx);
		free(sx);
		free(slo);
		free(shi);
		return -1;
	}
	m = 0;
	for (i = 0; i < n; i++)
		if (pla_run_end_point(ylo, yhi, n, i))
		{
			idx[m] = i;
			sx[m] = x[i];
			slo[m] = ylo[i];
			shi[m] = yhi[i];
			m++;
		}
	np = pla_fit(sx, slo, shi, m, out);
	for (i = 0; i < np; i++)
		out[i].first_point = idx[out[i].first_point];
	for (i = 0; i < np; i++)
		out[i].npoints = (i + 1 < np ? out[i + 1].first_point : n) - out[i].first_point;
	free(idx);
	free(sx);
	free(slo);
	free(shi);
	return np;
}

/*
 * Points for the fit (PGM's point set, generalised to page intervals).
 *
 * The first occurrence of each distinct key gives (key, rank): a lookup
 * wants the lower bound, the first entry >= key.  A gap point is added
 * after a run of two or more equal keys, and after the last run:
 *
 *  - after an inner run of length >= 2, (key+1, end of run) when key+1 is
 *    below the next key, so that absent keys between the run and the next
 *    key are not predicted at the start of a long run.  After a run of one
 *    key the next key's point already has rank = end of run, and the
 *    monotone line between the two is within one rank of the step, so the
 *    extra point would only cost pieces;
 *  - after the last run, (key+1, n) so that keys above the maximum map to
 *    n.  It is skipped when key == UINT64_MAX: no larger key exists, and
 *    key+1 would wrap around.
 *
 * x stays strictly increasing: distinct keys increase, and a gap point is
 * only added when key+1 < next key.
 */
int64_t
pla_make_points(const uint64_t *keys, int64_t n, int64_t eps,
				int64_t page_items, uint64_t *x, int64_t *ylo, int64_t *yhi,
				int64_t *yrank)
{
	int64_t		m = 0;
	int64_t		i = 0;
	int64_t		zl = 0;
	int64_t		zend = 0;

	while (i < n)
	{
		uint64_t	k = keys[i];
		int64_t		e = i + 1;
		int64_t		p;
		int64_t		np;

		while (e < n && keys[e] == k)
			e++;

		np = 0;
		x[m] = k;
		yrank[m] = i;
		np++;
		if (e < n)
		{
			if (e - i >= 2 && k + 1 < keys[e])
			{
				x[m + np] = k + 1;
				yrank[m + np] = e;
				np++;
			}
		}
		else if (k != UINT64_MAX)
		{
			x[m + np] = k + 1;
			yrank[m + np] = n;
			np++;
		}

		for (p = m; p < m + np; p++)
		{
			int64_t		y = yrank[p];

			if (page_items > 0)
			{
				/*
				 * Anywhere in the true page is as good as the exact rank.
				 * Ranks only grow: divide where a point opens a page, not
				 * for every point.
				 */
				if (y >= zend)
				{
					zl = (y / page_items) * page_items;
					zend = zl + page_items;
				}
				ylo[p] = zl - eps;
				yhi[p] = zl + page_items - 1 + eps;
			}
			else
			{
				ylo[p] = y - eps;
				yhi[p] = y + eps;
			}
		}
		m += np;
		i = e;
	}
	return m;
}

/*
 * Measure one piece with the scans' arithmetic.  x, tlo and thi are the
 * whole point arrays (as given to pla_fit): the piece's points are
 * p->first_point .. p->first_point + p->npoints - 1.
 *
 * [pred - below, pred + above] meets [tlo, thi] iff pred - below <= thi and
 * pred + above >= tlo, so below = max(0, pred - thi) and
 * above = max(0, tlo - pred) over the points.
 */
void
pla_measure(const PlaPiece *p, const uint64_t *x, const int64_t *tlo,
			const int64_t *thi, int64_t clamp_lo, int64_t clamp_hi,
			int64_t *below, int64_t *above)
{
	int64_t		b = 0;
	int64_t		a = 0;
	int64_t		first = p->first_point;
	int64_t		end = p->first_point + p->npoints;
	int64_t		i;

	for (i = first; i < end; i++)
	{
		int64_t		pred;

		/*
		 * Inside a run of points with one target (a page's keys), the
		 * prediction is monotone in x (pla_predict: slope >= 0, and the
		 * double product, floor() and the clamp are monotone), so it
		 * misses the target by no more than at the run's first or last
		 * point: measure those only.
		 */
		if (i > first && i + 1 < end &&
			tlo[i - 1] == tlo[i] && tlo[i + 1] == tlo[i] &&
			thi[i - 1] == thi[i] && thi[i + 1] == thi[i])
			continue;
		pred = pla_predict(p, x[i]);
		if (pred < clamp_lo)
			pred = clamp_lo;
		if (pred > clamp_hi)
			pred = clamp_hi;
		if (pred > thi[i] && pred - thi[i] > b)
			b = pred - thi[i];
		if (pred < tlo[i] && tlo[i] - pred > a)
			a = tlo[i] - pred;
	}
	*below = b;
	*above = a;
}
