/*
 * test_keypack.c: the composite key image is monotone in the lexicographic
 * order (per-column ASC/DESC, NULLS FIRST/LAST, values outside the build's
 * ranges, lossy last digit), and exact where the plan says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keypack.h"

static int	failures = 0;
static int	checks = 0;

#define CHECK(cond, ...) do { checks++; if (!(cond) && failures++ < 5) { \
	fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint64_t rng = 88172645463325252ULL;

static uint64_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#define MAXC 4

typedef struct Tup
{
	bool		null[MAXC];
	uint64_t	v[MAXC];
} Tup;

static int	ncols;
static bool desc[MAXC];
static bool nulls_first[MAXC];

/* the index order: lexicographic, per-column direction and NULL placement */
static int
tup_cmp(const Tup *a, const Tup *b)
{
	int			i;

	for (i = 0; i < ncols; i++)
	{
		int			r;

		if (a->null[i] || b->null[i])
		{
			if (a->null[i] && b->null[i])
				continue;
			r = a->null[i] ? -1 : 1;
			if (!nulls_first[i])
				r = -r;
			return r;
		}
		if (a->v[i] == b->v[i])
			continue;
		r = a->v[i] < b->v[i] ? -1 : 1;
		return desc[i] ? -r : r;
	}
	return 0;
}

static uint64_t
image(const KeyPackCol *cols, int npacked, const Tup *t)
{
	int			st[MAXC];
	uint64_t	u[MAXC];
	int			i;

	for (i = 0; i < npacked; i++)
	{
		if (t->null[i])
		{
			st[i] = nulls_first[i] ? KP_BEFORE : KP_AFTER;
			u[i] = 0;
		}
		else
			st[i] = keypack_ordinal(&cols[i], t->v[i], desc[i], &u[i]);
	}
	return keypack_combine(cols, npacked, st, u);
}

static uint64_t
rand_in(uint64_t lo, uint64_t hi)
{
	if (hi - lo == UINT64_MAX)
		return next_rand();
	return lo + next_rand() % (hi - lo + 1);
}

static void
one_round(int round)
{
	uint64_t	lo[MAXC],
				hi[MAXC];
	KeyPackCol	cols[MAXC];
	Tup			t[400];
	int			npacked;
	int			i,
				j,
				k;

	ncols = 1 + (int) (next_rand() % MAXC);
	for (i = 0; i < ncols; i++)
	{
		int			kind = (int) (next_rand() % 4);

		desc[i] = next_rand() % 2;
		nulls_first[i] = next_rand() % 2;
		if (kind == 0)
		{
			lo[i] = 0x8000000000000000ULL + 1;
			hi[i] = lo[i] + (next_rand() % 20);
		}
		else if (kind == 1)
		{
			lo[i] = next_rand() % 1000;
			hi[i] = lo[i] + next_rand() % 5000;
		}
		else if (kind == 2)
		{
			lo[i] = 0;
			hi[i] = UINT64_MAX;
		}
		else
		{
			lo[i] = next_rand() >> 1;
			hi[i] = lo[i] + (next_rand() >> 20);
		}
	}
	npacked = keypack_plan(ncols, lo, hi, NULL, round % 5 == 0 ? 1 : 0, cols);
	CHECK(npacked >= 1 && npacked <= ncols, "npacked %d", npacked);

	/* tuples: mostly in range, some outside, some NULL; small domains for ties */
	for (k = 0; k < 400; k++)
	{
		for (i = 0; i < ncols; i++)
		{
			uint64_t	r = next_rand() % 20;

			t[k].null[i] = (r == 0);
			if (r == 1 && lo[i] > 0)
				t[k].v[i] = rand_in(0, lo[i] - 1);
			else if (r == 2 && hi[i] < UINT64_MAX)
				t[k].v[i] = rand_in(hi[i] + 1, UINT64_MAX);
			else if (r < 10)
				t[k].v[i] = lo[i] + next_rand() % 3;
			else
				t[k].v[i] = rand_in(lo[i], hi[i]);
			if (t[k].null[i])
				t[k].v[i] = 0;
		}
	}
	for (j = 0; j < 400; j++)
		for (k = 0; k < 400; k++)
		{
			int			c = tup_cmp(&t[j], &t[k]);
			uint64_t	a = image(cols, npacked, &t[j]);
			uint64_t	b = image(cols, npacked, &t[k]);

			if (c < 0)
				CHECK(a <= b, "round %d: not monotone (%d cols, %d packed)", round, ncols, npacked);
			if (c == 0)
				CHECK(a == b, "round %d: equal keys, different images", round);
		}

	/* exact plans: distinct in-range, non-NULL keys get distinct images */
	{
		bool		exact = true;

		for (i = 0; i < ncols; i++)
			if (i >= npacked || cols[i].divisor != 1)
				exact = false;
		if (exact)
			for (j = 0; j < 50; j++)
				for (k = 0; k < 50; k++)
				{
					bool		inrange = true;

					for (i = 0; i < ncols; i++)
						if (t[j].null[i] || t[k].null[i] ||
							t[j].v[i] < lo[i] || t[j].v[i] > hi[i] ||
							t[k].v[i] < lo[i] || t[k].v[i] > hi[i])
							inrange = false;
					if (inrange && tup_cmp(&t[j], &t[k]) < 0)
						CHECK(image(cols, npacked, &t[j]) < image(cols, npacked, &t[k]),
							  "round %d: exact plan, equal images", round);
				}
	}
}

static void
test_tpcc_shape(void)
{
	uint64_t	lo[3] = {1, 1, 1},
				hi[3] = {100, 10, 3000};
	KeyPackCol	cols[3];
	int			n;
	int			st[3] = {KP_VALUE, KP_VALUE, KP_VALUE};
	uint64_t	u[3];
	uint64_t	a,
				b;

	ncols = 3;
	n = keypack_plan(3, lo, hi, NULL, 0, cols);
	CHECK(n == 3 && cols[0].radix == 102 && cols[1].radix == 12 && cols[2].radix == 3002,
		  "tpcc plan: %d cols, radixes %llu %llu %llu", n,
		  (unsigned long long) cols[0].radix, (unsigned long long) cols[1].radix,
		  (unsigned long long) cols[2].radix);
	/* dense: the last order of a district and the first of the next are close */
	u[0] = 1;
	u[1] = 1;
	u[2] = 3000;
	a = keypack_combine(cols, 3, st, u);
	u[1] = 2;
	u[2] = 1;
	b = keypack_combine(cols, 3, st, u);
	CHECK(b > a && b - a <= 3, "tpcc: district gap %llu", (unsigned long long) (b - a));
	/* a limit of one column packs only the first */
	n = keypack_plan(3, lo, hi, NULL, 1, cols);
	CHECK(n == 1, "maxcols 1: %d", n);
	/* a lossy column ends the packing */
	{
		bool		lossy[3] = {false, true, false};

		n = keypack_plan(3, lo, hi, lossy, 0, cols);
		CHECK(n == 2, "lossy: %d", n);
	}
}

/* room for growth: above every range; below it only where keys went below */
static void
test_widen(void)
{
	uint64_t	lo[4] = {1, 1, 1, 5},
				hi[4] = {2, 10, 3000, 4};	/* column 3: no value seen */
	KeyPackCol	old[4];
	KeyPackCol	cols[4];
	int			st[4] = {KP_VALUE, KP_VALUE, KP_VALUE, KP_VALUE};
	uint64_t	u[4] = {0, 0, 0, 0};
	uint64_t	a,
				b;

	(void) keypack_plan(4, lo, hi, NULL, 0, old);
	/* a first plan: only upwards */
	keypack_widen(4, NULL, lo, hi);
	CHECK(lo[0] == 1 && hi[0] == 2 + 1 / 2 + 1, "widen: w [%llu, %llu]",
		  (unsigned long long) lo[0], (unsigned long long) hi[0]);
	CHECK(lo[1] == 1 && hi[1] == 10 + 9 / 2 + 1, "widen: d [%llu, %llu]",
		  (unsigned long long) lo[1], (unsigned long long) hi[1]);
	CHECK(lo[2] == 1 && hi[2] == 3000 + 2999 / 2 + 1, "widen: o [%llu, %llu]",
		  (unsigned long long) lo[2], (unsigned long long) hi[2]);
	CHECK(lo[3] == 5 && hi[3] == 4, "widen: empty column untouched");
	/* the widened plan gives orders past the build's largest distinct images */
	(void) keypack_plan(3, lo, hi, NULL, 0, cols);
	u[0] = 1;
	u[1] = 4;
	u[2] = 4000;
	a = keypack_combine(cols, 3, st, u);
	u[2] = 4001;
	b = keypack_combine(cols, 3, st, u);
	CHECK(b == a + 1, "widen: consecutive orders %llu %llu",
		  (unsigned long long) a, (unsigned long long) b);
	/* a re-plan: a warehouse below w 1 widens w downwards too */
	lo[0] = 0;
	hi[0] = 2;
	lo[2] = 1;
	hi[2] = 3400;
	keypack_widen(3, old, lo, hi);
	CHECK(lo[0] == 0 && hi[0] == 4, "re-plan: w [%llu, %llu]",
		  (unsigned long long) lo[0], (unsigned long long) hi[0]);
	CHECK(lo[2] == 1 && hi[2] == 3400 + 3399 / 2 + 1, "re-plan: o [%llu, %llu]",
		  (unsigned long long) lo[2], (unsigned long long) hi[2]);
	/* saturation at the ends of the domain */
	lo[0] = 10;
	hi[0] = UINT64_MAX - 3;
	old[0].lo = 20;
	old[0].hi = 30;
	keypack_widen(1, old, lo, hi);
	CHECK(lo[0] == 0 && hi[0] == UINT64_MAX, "widen: saturates [%llu, %llu]",
		  (unsigned long long) lo[0], (unsigned long long) hi[0]);
}

int
main(void)
{
	int			r;

	test_tpcc_shape();
	test_widen();
	for (r = 0; r < 300; r++)
		one_round(r);
	/* the last line is "N passed, M failed", as the other unit tests print */
	printf("%d passed, %d failed\n", checks - failures, failures);
	return failures ? 1 : 0;
}
