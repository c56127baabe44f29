/*
 * test_leco.c
 *		Standalone tests for src/leco.c (no PostgreSQL needed).
 *
 *		make -C test/unit run
 *
 * One line per case ("ok ..." or "FAIL ..."), then "N passed, M failed".
 * Data come from a fixed-seed splitmix64 generator.  Every case checks the
 * round trip (decode_all and random access), lower/upper bound against a
 * plain binary search on the raw data, and leco_validate; rough-interval
 * cases check that each decoded value lies in its interval.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "leco.h"
#include "unit_util.h"

static int	n_passed = 0;
static int	n_failed = 0;

static uint32_t
ref_bound(const uint64_t *v, uint32_t n, uint64_t x, int strict)
{
	uint32_t	lo = 0,
				hi = n;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (strict ? v[mid] <= x : v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

typedef enum
{
	DS_SEQ_GAPS,
	DS_UNIFORM,
	DS_LOGNORMAL,
	DS_DUPS,
	DS_CLUSTERED,
	DS_INT64_EDGES,
	DS_ALL_EQUAL,
	DS_ALL_MAX,
	DS_UNSORTED,
	DS_NKINDS
} Kind;

static const char *kind_names[] = {
	"seq_gaps", "uniform64", "lognormal_gaps", "dups_heavy", "clustered",
	"int64_edges", "all_equal", "all_max", "unsorted_uniform"
};

static int	kind_sorted[] = {1, 1, 1, 1, 1, 1, 1, 1, 0};

static void
gen(Kind k, uint64_t *v, uint32_t n, uint64_t seed)
{
	uint32_t	i;
	uint64_t	x = 0;

	rng_state = seed;
	switch (k)
	{
		case DS_SEQ_GAPS:
			x = 5000;
			for (i = 0; i < n; i++)
			{
				x += 1 + (rnd() % 100 == 0 ? rnd() % 1000 : 0);
				v[i] = x;
			}
			break;
		case DS_UNIFORM:
			for (i = 0; i < n; i++)
				v[i] = rnd();
			qsort(v, n, sizeof(uint64_t), cmp_u64);
			break;
		case DS_LOGNORMAL:
			x = 1;
			for (i = 0; i < n; i++)
			{
				x += (uint64_t) exp(2.0 + 2.0 * rnd_normal());
				v[i] = x;
			}
			break;
		case DS_DUPS:
			for (i = 0; i < n; i++)
			{
				if (rnd() % 5 != 0)
					x += rnd() % 3 == 0 ? 1000 : 0;
				v[i] = x;
			}
			break;
		case DS_CLUSTERED:
			x = UINT64_C(1) << 40;
			for (i = 0; i < n; i++)
			{
				if (rnd() % 200 == 0)
					x += rnd() >> 20;	/* jump to a new cluster */
				x += rnd() % 16;
				v[i] = x;
			}
			break;
		case DS_INT64_EDGES:
			/* signed data around the extremes, mapped by the sign flip */
			for (i = 0; i < n; i++)
			{
				int64_t		s;

				if (i < n / 3)
					s = INT64_MIN + (int64_t) i;
				else if (i < 2 * n / 3)
					s = -(int64_t) (n / 2) + (int64_t) i;
				else
					s = INT64_MAX - (int64_t) (n - 1 - i);
				v[i] = leco_i64_to_u64(s);
			}
			break;
		case DS_ALL_EQUAL:
			for (i = 0; i < n; i++)
				v[i] = UINT64_C(123456789);
			break;
		case DS_ALL_MAX:
			for (i = 0; i < n; i++)
				v[i] = UINT64_MAX;
			break;
		case DS_UNSORTED:
			for (i = 0; i < n; i++)
				v[i] = rnd();
			break;
		default:
			break;
	}
}

static void
report(int ok, const char *fmt, const char *name, uint32_t n, const char *mode,
	   double bits)
{
	if (ok)
		n_passed++;
	else
		n_failed++;
	printf("%s %s n=%u %s (%.2f bits/value)\n", ok ? "ok" : "FAIL", name, n, mode, bits);
	(void) fmt;
}

/* round trip, random access, bounds, validate */
static void
check_run(const char *name, const uint64_t *v, uint32_t n, int sorted,
		  const LecoOptions *opts, const char *mode)
{
	size_t		size = 0;
	uint8_t    *run = leco_encode(v, n, opts, &size);
	uint64_t   *out;
	int			ok = 1;
	uint32_t	i;
	uint32_t	t;

	if (run == NULL)
	{
		report(0, NULL, name, n, mode, 0);
		return;
	}
	out = xmalloc(sizeof(uint64_t) * (n + 1));
	if (!leco_validate(run, size) || leco_count(run) != n || leco_size(run) != size)
		ok = 0;
	leco_decode_all(run, out);
	for (i = 0; i < n && ok; i++)
		if (out[i] != v[i])
		{
			fprintf(stderr, "%s %s: decode_all[%u] = %llu, want %llu\n", name, mode, i,
					(unsigned long long) out[i], (unsigned long long) v[i]);
			ok = 0;
		}
	for (t = 0; t < 2000 && n > 0 && ok; t++)
	{
		i = (uint32_t) (rnd() % n);
		if (leco_get(run, i) != v[i])
		{
			fprintf(stderr, "%s %s: get(%u) wrong\n", name, mode, i);
			ok = 0;
		}
	}
	/*
	 * Slices (leco_decode_range): the 64-bit fast path and the general loop
	 * (wide residuals, steep lines) give the same values, at partition
	 * edges and across them
	 */
	for (t = 0; t < 300 && n > 0 && ok; t++)
	{
		uint32_t	from = (uint32_t) (rnd() % n);
		uint32_t	cnt = 1 + (uint32_t) (rnd() % (t % 3 == 0 ? 8 : 600));

		if (t == 0)
			from = 0, cnt = n;
		if (cnt > n - from)
			cnt = n - from;
		memset(out, 0xA5, sizeof(uint64_t) * cnt);
		leco_decode_range(run, from, cnt, out);
		for (i = 0; i < cnt && ok; i++)
			if (out[i] != v[from + i])
			{
				fprintf(stderr, "%s %s: decode_range(%u, %u)[%u] = %llu, want %llu\n",
						name, mode, from, cnt, i, (unsigned long long) out[i],
						(unsigned long long) v[from + i]);
				ok = 0;
			}
	}
	if (sorted)
	{
		for (t = 0; t < 3000 && ok; t++)
		{
			uint64_t	x;

			switch (t % 6)
			{
				case 0:
					x = n ? v[rnd() % n] : 0;
					break;
				case 1:
					x = n ? v[rnd() % n] + 1 : 1;
					break;
				case 2:
					x = n ? v[rnd() % n] - 1 : UINT64_MAX;
					break;
				case 3:
					x = rnd();
					break;
				case 4:
					x = t & 8 ? 0 : UINT64_MAX;
					break;
				default:
					x = n ? v[0] + (rnd() % ((v[n - 1] - v[0]) | 1)) : 7;
					break;
			}
			if (leco_lower_bound(run, x) != ref_bound(v, n, x, 0) ||
				leco_upper_bound(run, x) != ref_bound(v, n, x, 1))
			{
				fprintf(stderr, "%s %s: bound(%llu) = %u/%u, want %u/%u\n", name, mode,
						(unsigned long long) x, leco_lower_bound(run, x),
						leco_upper_bound(run, x), ref_bound(v, n, x, 0),
						ref_bound(v, n, x, 1));
				ok = 0;
			}
		}
	}
	/* a damaged header must not validate */
	if (ok && n > 0)
	{
		uint8_t    *bad = xmalloc(size);

		memcpy(bad, run, size);
		((LecoRunHeader *) bad)->npart += 1000;
		if (leco_validate(bad, size))
			ok = 0;
		memcpy(bad, run, size);
		((LecoPart *) (bad + sizeof(LecoRunHeader)))[0].b = 65;
		if (leco_validate(bad, size))
			ok = 0;
		memcpy(bad, run, size);
		((LecoRunHeader *) bad)->magic ^= 1;
		if (leco_validate(bad, size))
			ok = 0;
		/* a jump table entry pointing past its block */
		if (((LecoRunHeader *) bad)->njump > 1)
		{
			LecoRunHeader *bh = (LecoRunHeader *) bad;
			uint32_t   *jump;

			memcpy(bad, run, size);
			jump = (uint32_t *) (bad + sizeof(LecoRunHeader) + bh->npart * sizeof(LecoPart));
			jump[0] = bh->npart - 1;
			if (leco_validate(bad, size))
				ok = 0;
		}
		free(bad);
	}
	report(ok, NULL, name, n, mode, n ? (double) size * 8 / n : 0);
	free(out);
	free(run);
}

/* rough separators: decoded values inside their intervals, non-decreasing */
static void
check_rough(const char *name, const uint64_t *v, uint32_t n)
{
	uint64_t   *lo = xmalloc(sizeof(uint64_t) * (n + 1));
	uint64_t   *hi = xmalloc(sizeof(uint64_t) * (n + 1));
	uint64_t   *out = xmalloc(sizeof(uint64_t) * (n + 1));
	size_t		size_exact = 0,
				size_rough = 0;
	uint8_t    *exact;
	uint8_t    *rough;
	uint32_t	i;
	int			ok = 1;

	/* interval i: [v[i], v[i+1] - 1], or the point when the next is equal */
	for (i = 0; i < n; i++)
	{
		lo[i] = v[i];
		hi[i] = (i + 1 < n && v[i + 1] > v[i]) ? v[i + 1] - 1 : v[i];
	}
	exact = leco_encode(lo, n, NULL, &size_exact);
	rough = leco_encode_intervals(lo, hi, n, NULL, &size_rough);
	if (!exact || !rough || !leco_validate(rough, size_rough))
		ok = 0;
	else
	{
		leco_decode_all(rough, out);
		for (i = 0; i < n && ok; i++)
		{
			if (out[i] < lo[i] || out[i] > hi[i] || leco_get(rough, i) != out[i] ||
				(i > 0 && out[i] < out[i - 1]))
			{
				fprintf(stderr, "%s rough: [%u] = %llu not in [%llu, %llu]\n", name, i,
						(unsigned long long) out[i], (unsigned long long) lo[i],
						(unsigned long long) hi[i]);
				ok = 0;
			}
		}
		/* a search over the rough values lands on the same element for keys */
		for (i = 0; i < 2000 && ok && n > 0; i++)
		{
			uint32_t	j = (uint32_t) (rnd() % n);
			uint64_t	x = v[j];

			/* the first separator >= a present key is that key's first position */
			if (leco_lower_bound(rough, x) != ref_bound(v, n, x, 0))
				ok = 0;
		}
		/* never larger than the exact run */
		if (size_rough > size_exact)
			ok = 0;
	}
	if (ok)
		n_passed++;
	else
		n_failed++;
	printf("%s %s n=%u rough intervals: %.2f bits/value (exact %.2f)\n",
		   ok ? "ok" : "FAIL", name, n, n ? (double) size_rough * 8 / n : 0,
		   n ? (double) size_exact * 8 / n : 0);
	free(exact);
	free(rough);
	free(lo);
	free(hi);
	free(out);
}

int
main(void)
{
	static const uint32_t sizes[] = {0, 1, 2, 3, 17, 1000, 65537};
	uint64_t   *v = xmalloc(sizeof(uint64_t) * 1000000);
	LecoOptions fix64 = {64, 0};
	LecoOptions fix1 = {1, 0};
	LecoOptions one = {5000, 0};
	LecoOptions fix1000 = {1000, 0};
	LecoOptions var4 = {0, 4};
	int			k;
	size_t		z;

	for (k = 0; k < DS_NKINDS; k++)
		for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
		{
			uint32_t	n = sizes[z];

			gen((Kind) k, v, n, 77 + k * 13 + z);
			check_run(kind_names[k], v, n, kind_sorted[k], NULL, "variable");
			check_run(kind_names[k], v, n, kind_sorted[k], &fix64, "fixed64");
			if (n <= 1000)
			{
				check_run(kind_names[k], v, n, kind_sorted[k], &fix1, "fixed1");
				check_run(kind_names[k], v, n, kind_sorted[k], &var4, "variable_init4");
			}
			else
				check_run(kind_names[k], v, n, kind_sorted[k], &fix1000, "fixed1000");
			if (kind_sorted[k])
				check_rough(kind_names[k], v, n);
		}

	/* explicit extremes */
	{
		uint64_t	e[] = {0, UINT64_MAX};
		uint64_t	e2[] = {UINT64_MAX, 0, UINT64_MAX, 0, 1, UINT64_MAX - 1};
		uint64_t	e3[] = {leco_i64_to_u64(INT64_MIN), leco_i64_to_u64(-1),
		leco_i64_to_u64(0), leco_i64_to_u64(INT64_MAX)};

		check_run("edge_0_max", e, 2, 1, NULL, "variable");
		check_run("edge_alternating", e2, 6, 0, NULL, "variable");
		check_run("edge_alternating", e2, 6, 0, &fix1, "fixed1");
		check_run("edge_int64_min_max", e3, 4, 1, NULL, "variable");
		check_rough("edge_int64_min_max", e3, 4);
		if (leco_u64_to_i64(leco_i64_to_u64(INT64_MIN)) == INT64_MIN &&
			leco_i64_to_u64(INT64_MIN) < leco_i64_to_u64(INT64_MAX))
			n_passed++, printf("ok int64 mapping keeps order\n");
		else
			n_failed++, printf("FAIL int64 mapping\n");
	}

	/*
	 * Falling lines (a page's block numbers when heap order is the reverse
	 * of key order): negative slopes, steep and shallow, with and without
	 * residuals, the decoders' floor of a negative line
	 */
	{
		static const uint64_t steps[] = {1, 3, 1000, UINT64_C(1) << 40, UINT64_C(3) << 52};
		int			st;

		for (st = 0; st < 5; st++)
		{
			uint64_t	x = UINT64_MAX - 17;
			uint32_t	i;
			char		nm[64];

			rng_state = 99 + st;
			for (i = 0; i < 5000; i++)
			{
				v[i] = x;
				x -= steps[st] + (st % 2 ? rnd() % (steps[st] + 1) : 0);
			}
			snprintf(nm, sizeof(nm), "falling_step%d", st);
			check_run(nm, v, 5000, 0, NULL, "variable");
			check_run(nm, v, 5000, 0, &one, "one partition");
		}
	}

	/* one large case of each sorted distribution, as a directory would hold */
	for (k = 0; k < DS_NKINDS; k++)
	{
		if (!kind_sorted[k])
			continue;
		gen((Kind) k, v, 1000000, 4242 + k);
		check_run(kind_names[k], v, 1000000, 1, NULL, "variable large");
	}

	free(v);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
