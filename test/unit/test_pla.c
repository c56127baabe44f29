/*
 * test_pla.c
 *		Standalone tests for src/pla.c (no PostgreSQL needed).
 *
 *		make -C test/unit run
 *
 * One line per test case, then "N passed, M failed".  Exit status is
 * non-zero if any case failed.  All data come from a fixed-seed splitmix64
 * generator, so runs are reproducible.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdarg.h>

#include "pla.h"
#include "unit_util.h"

__extension__ typedef __int128 i128;

static int	n_passed = 0;
static int	n_failed = 0;

/* ---------------------------------------------------------------------- */
/* Helpers (the PRNG and the others shared with test_leco are in unit_util.h) */
/* ---------------------------------------------------------------------- */


/* floor(a / b) for b > 0 */
static int64_t
fdiv(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	if ((a % b) != 0 && a < 0)
		q--;
	return q;
}

/* first index i with keys[i] >= q */
static int64_t
lower_bound(const uint64_t *keys, int64_t n, uint64_t q)
{
	int64_t		lo = 0;
	int64_t		hi = n;

	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (keys[mid] < q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* rightmost piece with first_key < q, or -1 */
static int64_t
piece_before(const PlaPiece *pc, int64_t np, uint64_t q)
{
	int64_t		lo = 0;
	int64_t		hi = np;

	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (pc[mid].first_key < q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* ---------------------------------------------------------------------- */
/* Data sets                                                               */
/* ---------------------------------------------------------------------- */

typedef enum
{
	DS_SEQ,
	DS_SEQ_STRIDE,
	DS_SEQ_HOLES,
	DS_UNIFORM,
	DS_LOGNORMAL,
	DS_CLUSTERED,
	DS_HEAVY_DUPS,
	DS_DUP_RUNS,
	DS_SINGLE_VALUE,
	DS_SINGLE_MAX,
	DS_EDGE_0_MAX,
	DS_HUGE_GAPS,
	DS_NEAR_MAX_SEQ
} DataKind;

static const char *
ds_name(DataKind k)
{
	switch (k)
	{
		case DS_SEQ:
			return "sequential";
		case DS_SEQ_STRIDE:
			return "seq_stride7";
		case DS_SEQ_HOLES:
			return "seq_holes";
		case DS_UNIFORM:
			return "uniform64";
		case DS_LOGNORMAL:
			return "lognormal_gaps";
		case DS_CLUSTERED:
			return "clustered";
		case DS_HEAVY_DUPS:
			return "heavy_dups";
		case DS_DUP_RUNS:
			return "dup_runs";
		case DS_SINGLE_VALUE:
			return "single_value";
		case DS_SINGLE_MAX:
			return "single_value_max";
		case DS_EDGE_0_MAX:
			return "edge_0_max";
		case DS_HUGE_GAPS:
			return "huge_gaps";
		case DS_NEAR_MAX_SEQ:
			return "near_max_seq";
	}
	return "?";
}

/* Fill keys[0..n-1] (sorted on return) */
static void
gen_keys(DataKind kind, uint64_t *keys, int64_t n, uint64_t seed)
{
	int64_t		i;
	uint64_t	v = 0;

	rng_state = seed;
	switch (kind)
	{
		case DS_SEQ:
			for (i = 0; i < n; i++)
				keys[i] = 1000 + (uint64_t) i;
			break;
		case DS_SEQ_STRIDE:
			for (i = 0; i < n; i++)
				keys[i] = 5 + 7 * (uint64_t) i;
			break;
		case DS_SEQ_HOLES:
			v = 1;
			for (i = 0; i < n; i++)
			{
				keys[i] = v;
				v += 1;
				if (rnd_below(100) == 0)
					v += rnd_below(100000);
			}
			break;
		case DS_UNIFORM:
			for (i = 0; i < n; i++)
				keys[i] = rnd();
			break;
		case DS_LOGNORMAL:
			v = 0;
			for (i = 0; i < n; i++)
			{
				v += 1 + (uint64_t) (1000.0 * exp(2.0 * rnd_normal()));
				keys[i] = v;
			}
			break;
		case DS_CLUSTERED:
			{
				int64_t		per = n / 50 + 1;

				for (i = 0; i < n; i++)
				{
					if (i % per == 0)
						v = rnd() >> 1;
					keys[i] = v;
					v += 1 + rnd_below(3);
				}
			}
			break;
		case DS_HEAVY_DUPS:
			{
				uint64_t	vals[30];
				int			j;

				for (j = 0; j < 30; j++)
					vals[j] = rnd() >> 4;
				for (i = 0; i < n; i++)
					keys[i] = vals[rnd_below(1 + rnd_below(30))];
			}
			break;
		case DS_DUP_RUNS:
			v = 100;
			i = 0;
			while (i < n)
			{
				int64_t		run = (rnd_below(2) == 0) ? 1 : 1 + (int64_t) rnd_below(200);

				while (run-- > 0 && i < n)
					keys[i++] = v;
				/* sometimes adjacent (no room for a gap point) */
				v += (rnd_below(3) == 0) ? 1 : 1 + rnd_below(1000);
			}
			break;
		case DS_SINGLE_VALUE:
			for (i = 0; i < n; i++)
				keys[i] = 12345;
			break;
		case DS_SINGLE_MAX:
			for (i = 0; i < n; i++)
				keys[i] = UINT64_MAX;
			break;
		case DS_EDGE_0_MAX:
			for (i = 0; i < n; i++)
			{
				uint64_t	r = rnd_below(10);

				if (r < 2)
					keys[i] = 0;
				else if (r < 4)
					keys[i] = UINT64_MAX;
				else if (r == 4)
					keys[i] = UINT64_MAX - 1 - rnd_below(3);
				else if (r == 5)
					keys[i] = 1 + rnd_below(3);
				else
					keys[i] = rnd();
			}
			break;
		case DS_HUGE_GAPS:
			for (i = 0; i < n; i++)
			{
				uint64_t	r = rnd_below(8);

				if (r == 0)
					keys[i] = 0;
				else if (r == 1)
					keys[i] = UINT64_MAX - rnd_below(2);
				else if (r == 2)
					keys[i] = (UINT64_C(1) << 63) + rnd_below(2);
				else
					keys[i] = (rnd_below(16) << 60) + rnd_below(4);
			}
			break;
		case DS_NEAR_MAX_SEQ:
			for (i = 0; i < n; i++)
				keys[i] = UINT64_MAX - (uint64_t) (n - 1 - i);
			break;
	}
	qsort(keys, (size_t) n, sizeof(uint64_t), cmp_u64);
}

/* ---------------------------------------------------------------------- */
/* The checks of one (keys, eps, page_items) case                          */
/* ---------------------------------------------------------------------- */

typedef struct CaseResult
{
	int64_t		npoints;
	int64_t		npieces;
	int64_t		bad_struct;		/* malformed output */
	int64_t		bad_point;		/* fed point outside [ylo-1, yhi+1] */
	int64_t		bad_measure;	/* measured error above eps+1 */
	int64_t		bad_lookup;		/* lookup window misses */
	int64_t		nqueries;
	char		first_err[256];
} CaseResult;

/* remember the first error of a case (all integer arguments as long long) */
static void note(CaseResult *r, const char *fmt,...) __attribute__((format(printf, 2, 3)));

static void
note(CaseResult *r, const char *fmt,...)
{
	va_list		ap;

	if (r->first_err[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(r->first_err, sizeof(r->first_err), fmt, ap);
	va_end(ap);
}

#define LL(v) ((long long) (v))
#define ULL(v) ((unsigned long long) (v))

/*
 * Simulate one index lookup for q and check the window.
 *
 * Piece choice: the brief asks for the rightmost piece with first_key < q
 * (strict).  That is wrong by design when q equals a piece's first key:
 * the previous piece is then extrapolated past the point that did *not*
 * fit it, so its prediction can be far below the point's rank (a run of
 * 1000 duplicates ending a piece, followed by key+1 as the next piece's
 * first point, is off by ~1000; the clamp only bounds it from above).
 * Run with the strict rule, this test reports such misses on dup_runs,
 * heavy_dups and edge_0_max, always at q == first_key of the next piece
 * (the rule below passes them all).  So the test uses the
 * predecessor rule of the research notes (P17): the rightmost piece with
 * first_key <= q, i.e. the strict rule for q + 1 when q < UINT64_MAX.
 * Below the first key, piece 0 predicts its intercept (pla_predict does
 * that for any x <= first_key).
 *
 * Clamp: [rank of the piece's first point, rank of the next piece's first
 * point (or n)], as the scans do.
 *
 * Rank bounds (page_items == 0): for fed points pred is within
 * [y-eps-1, y+eps+1]; an absent q lies between two consecutive fed points
 * whose ranks are its lower bound's neighbours, and the monotone prediction
 * gives one more unit on the right: lower_bound in [pred-eps-1, pred+eps+2].
 *
 * Page bounds (page_items == P): fed points predict within their page
 * widened by eps+1, so the page of lower_bound is in
 * [floor((pred-eps-1)/P), floor((pred+eps+1)/P)]; an absent q whose lower
 * bound is the first entry of the next page (just past a point's page)
 * needs one more page on the right.
 */
static void
check_lookup(CaseResult *r, const uint64_t *keys, int64_t n,
			 const PlaPiece *pc, int64_t np, const int64_t *yrank,
			 int64_t eps, int64_t page_items, const int64_t *werr, uint64_t q)
{
	int64_t		j;
	int64_t		pred;
	int64_t		lo;
	int64_t		hi;
	int64_t		lb;

	r->nqueries++;
	if (np == 0)
		return;
	j = (q == UINT64_MAX) ? np - 1 : piece_before(pc, np, q + 1);
	if (j < 0)
		pred = pc[0].intercept;
	else
	{
		pred = pla_predict(&pc[j], q);
		lo = yrank[pc[j].first_point];
		hi = (j + 1 < np) ? yrank[pc[j + 1].first_point] : n;
		if (pred < lo)
			pred = lo;
		if (pred > hi)
			pred = hi;
	}
	lb = lower_bound(keys, n, q);
	if (page_items == 0)
	{
		if (lb < pred - eps - 1 || lb > pred + eps + 2)
		{
			r->bad_lookup++;
			note(r, "lookup q=%llu piece=%lld pred=%lld lower_bound=%lld",
				 ULL(q), LL(j), LL(pred), LL(lb));
		}
	}
	else
	{
		/* a sampled fit (pla_fit_pages): the piece's measured window */
		int64_t		w = (werr && j >= 0) ? werr[j] : eps;
		int64_t		pg = lb / page_items;
		int64_t		plo = fdiv(pred - w - 1, page_items);
		int64_t		phi = fdiv(pred + w + 1, page_items) + 1;

		if (pg < plo || pg > phi)
		{
			r->bad_lookup++;
			note(r, "page lookup q=%llu pred=%lld page=%lld pages=[%lld, %lld]",
				 ULL(q), LL(pred), LL(pg), LL(plo), LL(phi));
		}
	}
}

static inline int64_t
page_or_1(int64_t page_items)
{
	return page_items > 0 ? page_items : 1;
}

/*
 * pages_fit: fit with pla_fit_pages (page_items > 0), which feeds only each
 * page's first and last point.  Then the fed-point check covers the points
 * of every page whose first and last points share a piece (the monotone
 * line between them), and lookups use each piece's measured window, as the
 * scans do.  The measured errors stay within eps + 1 as with every point
 * fed: a piece starts at a page's first or last point, and the points of a
 * page split at its last point b are predicted by the piece before, at
 * least as high as the page's first point (fed, monotone) and clamped to
 * at most b's rank, in the same page.  The fit must not take more pieces
 * than pla_fit's.
 */
static void
run_checks(CaseResult *r, const uint64_t *keys, int64_t n, int64_t eps,
		   int64_t page_items, int corrupt, int pages_fit)
{
	uint64_t   *x = xmalloc(sizeof(uint64_t) * (size_t) (2 * n));
	int64_t    *ylo = xmalloc(sizeof(int64_t) * (size_t) (2 * n));
	int64_t    *yhi = xmalloc(sizeof(int64_t) * (size_t) (2 * n));
	int64_t    *yr = xmalloc(sizeof(int64_t) * (size_t) (2 * n));
	int64_t    *tlo = xmalloc(sizeof(int64_t) * (size_t) (2 * n));
	int64_t    *thi = xmalloc(sizeof(int64_t) * (size_t) (2 * n));
	PlaPiece   *pc = xmalloc(sizeof(PlaPiece) * (size_t) (2 * n));
	int64_t    *pfirst = xmalloc(sizeof(int64_t) * (size_t) (2 * n));
	int64_t    *plast = xmalloc(sizeof(int64_t) * (size_t) (2 * n));
	int64_t    *werr = NULL;
	int64_t		m;
	int64_t		np;
	int64_t		i;
	int64_t		j;

	memset(r, 0, sizeof(*r));
	m = pla_make_points(keys, n, eps, page_items, x, ylo, yhi, yr);
	r->npoints = m;

	/* point set structure */
	if (m < 0 || m > 2 * n || (n > 0 && m < 1))
	{
		r->bad_struct++;
		note(r, "point count %lld for n=%lld", LL(m), LL(n));
		m = 0;
	}
	for (i = 0; i < m; i++)
	{
		int64_t		want_rank = lower_bound(keys, n, x[i]);

		if (i > 0 && x[i] <= x[i - 1])
		{
			r->bad_struct++;
			note(r, "x not increasing at x=%llu (point %lld)", ULL(x[i]), LL(i));
		}
		if (yr[i] != want_rank)
		{
			r->bad_struct++;
			note(r, "point x=%llu rank %lld, lower_bound %lld", ULL(x[i]), LL(yr[i]), LL(want_rank));
		}
		if (page_items == 0)
		{
			tlo[i] = yr[i];
			thi[i] = yr[i];
		}
		else
		{
			tlo[i] = (yr[i] / page_items) * page_items;
			thi[i] = tlo[i] + page_items - 1;
		}
		if (ylo[i] != tlo[i] - eps || yhi[i] != thi[i] + eps)
		{
			r->bad_struct++;
			note(r, "interval of x=%llu is [%lld, %lld] (rank %lld)", ULL(x[i]), LL(ylo[i]), LL(yhi[i]), LL(yr[i]));
		}
	}
	/* the end point exists unless the maximum key is UINT64_MAX */
	if (n > 0 && keys[n - 1] != UINT64_MAX &&
		(x[m - 1] != keys[n - 1] + 1 || yr[m - 1] != n))
	{
		r->bad_struct++;
		note(r, "missing end point after %llu", ULL(keys[n - 1]));
	}

	np = pla_fit(x, ylo, yhi, m, pc);
	if (pages_fit)
	{
		int64_t		full = np;

		np = pla_fit_pages(x, ylo, yhi, m, pc);
		if (np > full)
		{
			r->bad_struct++;
			note(r, "%lld pieces sampled, %lld on every point", LL(np), LL(full));
		}
		werr = xmalloc(sizeof(int64_t) * (size_t) (2 * n));
	}
	/* each point's page's first and last point */
	for (i = 0; i < m; i++)
		pfirst[i] = (i > 0 && yr[i - 1] / page_or_1(page_items) == yr[i] / page_or_1(page_items)) ?
			pfirst[i - 1] : i;
	for (i = m - 1; i >= 0; i--)
		plast[i] = (i + 1 < m && yr[i + 1] / page_or_1(page_items) == yr[i] / page_or_1(page_items)) ?
			plast[i + 1] : i;
	r->npieces = np;
	if (np < 0 || np > m || (m > 0 && np < 1))
	{
		r->bad_struct++;
		note(r, "piece count %lld for %lld points", LL(np), LL(m));
		np = 0;
	}
	if (corrupt && np > 0)
		pc[np / 2].intercept += 3 * eps + 10;

	/* pieces tile the points in order */
	{
		int64_t		next = 0;

		for (j = 0; j < np; j++)
		{
			if (pc[j].first_point != next || pc[j].npoints < 1 ||
				pc[j].first_key != x[pc[j].first_point] ||
				!(pc[j].slope >= 0.0) || !isfinite(pc[j].slope))
			{
				r->bad_struct++;
				note(r, "bad piece %lld (first_point %lld, npoints %lld)", LL(j),
					 LL(pc[j].first_point), LL(pc[j].npoints));
				np = j;
				break;
			}
			next += pc[j].npoints;
		}
		if (np > 0 && next != m)
		{
			r->bad_struct++;
			note(r, "pieces cover %lld of %lld points", LL(next), LL(m));
		}
	}

	/* fed points: the fitted line, modulo rounding */
	for (j = 0; j < np; j++)
	{
		for (i = pc[j].first_point; i < pc[j].first_point + pc[j].npoints; i++)
		{
			int64_t		p = pla_predict(&pc[j], x[i]);

			if (pages_fit && (pfirst[i] < pc[j].first_point ||
							  plast[i] >= pc[j].first_point + pc[j].npoints))
				continue;

			if (p < ylo[i] - 1 || p > yhi[i] + 1)
			{
				r->bad_point++;
				note(r, "point x=%llu pred %lld not in [%lld, %lld] (+-1)", ULL(x[i]), LL(p), LL(ylo[i]), LL(yhi[i]));
			}
		}
	}

	/* measured error with the scans' clamp */
	for (j = 0; j < np; j++)
	{
		int64_t		below;
		int64_t		above;
		int64_t		clo = yr[pc[j].first_point];
		int64_t		chi = (j + 1 < np) ? yr[pc[j + 1].first_point] : n;

		pla_measure(&pc[j], x, tlo, thi, clo, chi, &below, &above);
		/* the same as predicting every point (pla_measure skips some) */
		{
			int64_t		bb = 0;
			int64_t		aa = 0;

			for (i = pc[j].first_point; i < pc[j].first_point + pc[j].npoints; i++)
			{
				int64_t		p = pla_predict(&pc[j], x[i]);

				p = p < clo ? clo : (p > chi ? chi : p);
				if (p - thi[i] > bb)
					bb = p - thi[i];
				if (tlo[i] - p > aa)
					aa = tlo[i] - p;
			}
			if (bb != below || aa != above)
			{
				r->bad_measure++;
				note(r, "piece %lld measured %lld/%lld, every point %lld/%lld", LL(j),
					 LL(below), LL(above), LL(bb), LL(aa));
			}
		}
		if (werr)
			werr[j] = below > above ? below : above;
		if (below < 0 || above < 0 || below > eps + 1 || above > eps + 1)
		{
			r->bad_measure++;
			note(r, "piece %lld measured below=%lld above=%lld eps=%lld", LL(j), LL(below), LL(above), LL(eps));
		}
	}

	/* lookups: present keys, neighbours, midpoints, extremes */
	check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, 0);
	check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, UINT64_MAX);
	check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, UINT64_MAX - 1);
	check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, UINT64_C(1) << 63);
	for (i = 0; i < n; i++)
	{
		uint64_t	k = keys[i];

		if (i > 0 && k == keys[i - 1])
			continue;
		check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, k);
		if (k > 0)
			check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, k - 1);
		if (k < UINT64_MAX)
			check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, k + 1);
		if (k < UINT64_MAX - 1)
			check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, k + 2);
		if (i + 1 < n && keys[i + 1] != k)
		{
			uint64_t	nk;
			int64_t		e = i + 1;

			/* next distinct key */
			nk = keys[e];
			check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, k + (nk - k) / 2);
			if (nk > 1)
				check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, nk - 2);
		}
	}
	if (n > 0)
	{
		if (keys[0] > 1)
			check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, keys[0] / 2);
		if (keys[n - 1] < UINT64_MAX - 10)
		{
			check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr, keys[n - 1] + 10);
			check_lookup(r, keys, n, pc, np, yr, eps, page_items, werr,
						 keys[n - 1] + (UINT64_MAX - keys[n - 1]) / 2);
		}
	}

	free(x);
	free(ylo);
	free(yhi);
	free(yr);
	free(tlo);
	free(thi);
	free(pc);
	free(pfirst);
	free(plast);
	free(werr);
}

static int
case_ok(const CaseResult *r)
{
	return r->bad_struct == 0 && r->bad_point == 0 && r->bad_measure == 0 &&
		r->bad_lookup == 0;
}

static void
report(int ok, const char *name, const char *detail)
{
	if (ok)
	{
		n_passed++;
		printf("ok   %s%s%s\n", name, detail[0] ? ": " : "", detail);
	}
	else
	{
		n_failed++;
		printf("FAIL %s: %s\n", name, detail);
	}
	fflush(stdout);
}

static void
run_keys_case(const char *name, const uint64_t *keys, int64_t n, int64_t eps,
			  int64_t page_items, int64_t want_pieces, int pages_fit)
{
	CaseResult	r;
	char		label[160];
	char		detail[512];
	int			ok;

	snprintf(label, sizeof(label), "%s n=%lld eps=%lld page=%lld%s", name,
			 (long long) n, (long long) eps, (long long) page_items,
			 pages_fit ? " sampled" : "");
	run_checks(&r, keys, n, eps, page_items, 0, pages_fit);
	ok = case_ok(&r);
	if (ok && want_pieces >= 0 && r.npieces != want_pieces)
	{
		ok = 0;
		snprintf(r.first_err, sizeof(r.first_err), "expected %lld piece(s), got %lld",
				 (long long) want_pieces, (long long) r.npieces);
	}
	if (ok)
		snprintf(detail, sizeof(detail), "%lld points, %lld pieces, %lld queries",
				 (long long) r.npoints, (long long) r.npieces,
				 (long long) r.nqueries);
	else
		snprintf(detail, sizeof(detail),
				 "struct=%lld point=%lld measure=%lld lookup=%lld; first: %s",
				 (long long) r.bad_struct, (long long) r.bad_point,
				 (long long) r.bad_measure, (long long) r.bad_lookup,
				 r.first_err);
	report(ok, label, detail);
}

/* ---------------------------------------------------------------------- */
/* Exact brute force for pla_fit on small inputs                           */
/* ---------------------------------------------------------------------- */

/*
 * Does one line cross the intervals of points s..e-1?  If the feasible set
 * is non-empty and the points have at least two x, it is a bounded convex
 * polygon in (slope, intercept) space, and each vertex is a line tight at
 * two constraints of different x (the two constraints of one x are
 * parallel).  So trying every line through two endpoints of different
 * points is exact.
 */
static int
bf_feasible(const uint64_t *x, const int64_t *lo, const int64_t *hi,
			int64_t s, int64_t e)
{
	int64_t		i;
	int64_t		j;
	int64_t		k;
	int			ea;
	int			eb;

	if (e - s == 1)
		return lo[s] <= hi[s];
	for (i = s; i < e; i++)
		for (j = i + 1; j < e; j++)
			for (ea = 0; ea < 2; ea++)
				for (eb = 0; eb < 2; eb++)
				{
					i128		ya = ea ? hi[i] : lo[i];
					i128		yb = eb ? hi[j] : lo[j];
					i128		dx = (i128) x[j] - (i128) x[i];
					int			good = 1;

					for (k = s; k < e && good; k++)
					{
						/* line(x_k) * dx = ya*dx + (yb-ya)*(x_k-x_i) */
						i128		v = ya * dx + (yb - ya) * ((i128) x[k] - (i128) x[i]);

						if (v < (i128) lo[k] * dx || v > (i128) hi[k] * dx)
							good = 0;
					}
					if (good)
						return 1;
				}
	return 0;
}

/*
 * Random small fits, compared with the greedy segmentation computed by
 * brute force (greedy longest feasible prefix = fewest pieces).
 * mode 0: monotone intervals (like ranks), also checks the predictions;
 * mode 1: arbitrary intervals, including zero-width ones (segmentation only);
 * mode 2: monotone, huge x near 0 and UINT64_MAX.
 */
static void
test_bruteforce(int mode, int rounds)
{
	char		label[64];
	char		detail[256];
	int			bad = 0;
	int			total_pieces = 0;
	int			round;

	snprintf(label, sizeof(label), "bruteforce_optimal mode=%d rounds=%d", mode, rounds);
	detail[0] = '\0';
	rng_state = UINT64_C(0xC0FFEE) + (uint64_t) mode;
	for (round = 0; round < rounds && bad == 0; round++)
	{
		int64_t		m = 1 + (int64_t) rnd_below(24);
		uint64_t	x[32];
		int64_t		lo[32];
		int64_t		hi[32];
		PlaPiece	pc[32];
		int64_t		np;
		int64_t		i;
		int64_t		s;
		int64_t		j;
		int64_t		y = (int64_t) rnd_below(5);
		uint64_t	xv = (mode == 2) ? rnd_below(3) : rnd_below(100);
		int64_t		w = (int64_t) rnd_below(4);

		for (i = 0; i < m; i++)
		{
			if (mode == 2 && i == m / 2)
				xv = UINT64_MAX - (uint64_t) (m - i) * 3 - rnd_below(3);
			x[i] = xv;
			xv += 1 + ((mode == 2) ? rnd_below(2) : rnd_below((rnd_below(4) == 0) ? 1000 : 5));
			if (mode == 1)
			{
				int64_t		a = (int64_t) rnd_below(20) - 10;
				int64_t		b = (rnd_below(3) == 0) ? a : a + (int64_t) rnd_below(6);

				lo[i] = a;
				hi[i] = b;
			}
			else
			{
				lo[i] = y - w;
				hi[i] = y + w;
				y += (int64_t) rnd_below(4);
			}
		}

		np = pla_fit(x, lo, hi, m, pc);
		if (np < 1 || np > m)
		{
			bad = 1;
			snprintf(detail, sizeof(detail), "round %d: %lld pieces for %lld points",
					 round, (long long) np, (long long) m);
			break;
		}
		total_pieces += (int) np;

		/* compare with greedy */
		s = 0;
		for (j = 0; j < np && !bad; j++)
		{
			int64_t		e = s + 1;

			while (e < m && bf_feasible(x, lo, hi, s, e + 1))
				e++;
			if (pc[j].first_point != s || pc[j].npoints != e - s)
			{
				bad = 1;
				snprintf(detail, sizeof(detail),
						 "round %d piece %lld: got [%lld, +%lld), greedy [%lld, +%lld)",
						 round, (long long) j, (long long) pc[j].first_point,
						 (long long) pc[j].npoints, (long long) s, (long long) (e - s));
				break;
			}
			if (mode != 1)
			{
				for (i = s; i < e; i++)
				{
					int64_t		p = pla_predict(&pc[j], x[i]);

					if (p < lo[i] - 1 || p > hi[i] + 1)
					{
						bad = 1;
						snprintf(detail, sizeof(detail),
								 "round %d point %lld: pred %lld not in [%lld, %lld] +-1",
								 round, (long long) i, (long long) p,
								 (long long) lo[i], (long long) hi[i]);
						break;
					}
				}
			}
			s = e;
		}
		if (!bad && s != m)
		{
			bad = 1;
			snprintf(detail, sizeof(detail), "round %d: greedy needs more pieces", round);
		}
	}
	if (!bad)
		snprintf(detail, sizeof(detail), "%d pieces matched", total_pieces);
	report(!bad, label, detail);
}

/* ---------------------------------------------------------------------- */
/* Hand-made cases                                                         */
/* ---------------------------------------------------------------------- */

static void
test_empty(void)
{
	uint64_t	keys[1] = {0};
	uint64_t	x[2];
	int64_t		lo[2];
	int64_t		hi[2];
	int64_t		yr[2];
	PlaPiece	pc[2];
	int64_t		m = pla_make_points(keys, 0, 4, 0, x, lo, hi, yr);
	int64_t		np = pla_fit(x, lo, hi, 0, pc);

	report(m == 0 && np == 0, "empty input", m == 0 && np == 0 ? "" : "non-zero output");
}

/* A point set with a known answer: two lines meeting at a sharp corner. */
static void
test_two_lines(void)
{
	uint64_t	x[40];
	int64_t		lo[40];
	int64_t		hi[40];
	PlaPiece	pc[40];
	int64_t		i;
	int64_t		np;
	int			ok;

	for (i = 0; i < 40; i++)
	{
		int64_t		y = (i < 20) ? i : 20 + 10 * (i - 20);

		x[i] = (uint64_t) i * 1000;
		lo[i] = y - 1;
		hi[i] = y + 1;
	}
	np = pla_fit(x, lo, hi, 40, pc);
	ok = (np == 2 && pc[0].npoints == 21 && pc[1].first_point == 21);
	report(ok, "two_lines corner", ok ? "" : "expected pieces [0,21) [21,40)");
}

/* zero-width intervals on one exact line: must stay one piece */
static void
test_zero_width_line(void)
{
	uint64_t	x[100];
	int64_t		lo[100];
	int64_t		hi[100];
	PlaPiece	pc[100];
	int64_t		i;
	int64_t		np;
	int			ok;

	for (i = 0; i < 100; i++)
	{
		x[i] = UINT64_C(1) << 40 | ((uint64_t) i * 3);
		lo[i] = hi[i] = 7 + 2 * i;
	}
	np = pla_fit(x, lo, hi, 100, pc);
	ok = (np == 1);
	for (i = 0; ok && i < 100; i++)
		ok = pla_predict(&pc[0], x[i]) >= lo[i] - 1 &&
			pla_predict(&pc[0], x[i]) <= hi[i] + 1;
	report(ok, "zero_width exact line", ok ? "" : "expected 1 piece within +-1");
}

/* x not increasing: must not crash, and must never merge across it */
static void
test_non_increasing(void)
{
	uint64_t	x[6] = {1, 2, 3, 3, 2, 10};
	int64_t		lo[6] = {0, 1, 2, 3, 4, 5};
	int64_t		hi[6] = {2, 3, 4, 5, 6, 7};
	PlaPiece	pc[6];
	int64_t		np = pla_fit(x, lo, hi, 6, pc);
	int			ok = (np >= 3 && np <= 6);

	report(ok, "non_increasing x handled", ok ? "" : "unexpected piece count");
}

/*
 * Self-test of the checker: corrupt one intercept; the case must fail.
 * Guards against a checker that cannot fail.
 */
static void
test_checker_detects(void)
{
	int64_t		n = 20000;
	uint64_t   *keys = xmalloc(sizeof(uint64_t) * (size_t) n);
	CaseResult	r;
	int			ok;

	gen_keys(DS_UNIFORM, keys, n, 77);
	run_checks(&r, keys, n, 16, 0, 1, 0);
	ok = (r.bad_point > 0 && r.bad_measure > 0 && r.bad_lookup > 0);
	run_checks(&r, keys, n, 16, 256, 1, 0);
	ok = ok && (r.bad_point > 0 && r.bad_measure > 0 && r.bad_lookup > 0);
	report(ok, "checker detects a corrupted piece", ok ? "" : "corruption not detected");
	free(keys);
}

/* Explicit n = 1, 2, 3 inputs */
static void
test_tiny(void)
{
	static const uint64_t sets[][3] = {
		{5, 0, 0}, {0, 0, 0}, {UINT64_MAX, 0, 0},
		{0, UINT64_MAX, 0}, {5, 5, 0}, {5, 6, 0}, {UINT64_MAX - 1, UINT64_MAX, 0},
		{1, 2, 3}, {0, UINT64_C(1) << 63, UINT64_MAX}, {UINT64_MAX, UINT64_MAX, UINT64_MAX},
		{0, 0, 0}, {0, 0, 1}, {7, 7, 100}, {7, 100, 100}
	};
	static const int lens[] = {1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3};
	static const int64_t epss[] = {1, 4, 64};
	size_t		s;
	int			e;
	int			pg;

	for (s = 0; s < sizeof(lens) / sizeof(lens[0]); s++)
		for (e = 0; e < 3; e++)
			for (pg = 0; pg < 2; pg++)
			{
				char		name[80];

				snprintf(name, sizeof(name), "tiny[%d]={%llu,%llu,%llu}",
						 (int) s, (unsigned long long) sets[s][0],
						 (unsigned long long) (lens[s] > 1 ? sets[s][1] : 0),
						 (unsigned long long) (lens[s] > 2 ? sets[s][2] : 0));
			{
				run_keys_case(name, sets[s], lens[s], epss[e], pg ? 2 : 0, -1, 0);
				if (pg)
					run_keys_case(name, sets[s], lens[s], epss[e], 2, -1, 1);
			}
			}
}

int
main(void)
{
	static const DataKind kinds[] = {
		DS_SEQ, DS_SEQ_STRIDE, DS_SEQ_HOLES, DS_UNIFORM, DS_LOGNORMAL,
		DS_CLUSTERED, DS_HEAVY_DUPS, DS_DUP_RUNS, DS_SINGLE_VALUE,
		DS_SINGLE_MAX, DS_EDGE_0_MAX, DS_HUGE_GAPS, DS_NEAR_MAX_SEQ
	};
	static const int64_t epss[] = {1, 4, 16, 64, 256};
	static const int64_t pages[] = {0, 256, 7};
	static const int64_t sizes[] = {1, 2, 3, 50, 30000};
	size_t		k;
	size_t		e;
	size_t		p;
	size_t		z;
	uint64_t   *keys = xmalloc(sizeof(uint64_t) * 1000000);

	test_empty();
	test_two_lines();
	test_zero_width_line();
	test_non_increasing();
	test_tiny();
	test_bruteforce(0, 3000);
	test_bruteforce(1, 3000);
	test_bruteforce(2, 1000);
	test_checker_detects();

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
			for (e = 0; e < sizeof(epss) / sizeof(epss[0]); e++)
				for (p = 0; p < sizeof(pages) / sizeof(pages[0]); p++)
				{
					int64_t		n = sizes[z];
					int64_t		want = -1;

					/* small sizes: one eps/page combination is enough */
					if (n < 1000 && (e % 2 != 0 || p == 2))
						continue;
					gen_keys(kinds[k], keys, n, 1000 + k * 17 + z);

					/*
					 * Evenly spaced keys lie on one line (the end point
					 * included), and a single key value is two points: one
					 * piece either way.
					 */
					if (kinds[k] == DS_SEQ || kinds[k] == DS_SEQ_STRIDE ||
						kinds[k] == DS_NEAR_MAX_SEQ ||
						kinds[k] == DS_SINGLE_VALUE ||
						kinds[k] == DS_SINGLE_MAX)
						want = 1;
					run_keys_case(ds_name(kinds[k]), keys, n, epss[e], pages[p], want, 0);
					if (pages[p] > 0)
						run_keys_case(ds_name(kinds[k]), keys, n, epss[e], pages[p], want, 1);
				}

	/* one large case, closer to an index build */
	gen_keys(DS_LOGNORMAL, keys, 1000000, 4242);
	run_keys_case("lognormal_gaps large", keys, 1000000, 64, 0, -1, 0);
	run_keys_case("lognormal_gaps large", keys, 1000000, 32, 1270, -1, 1);

	free(keys);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
