/*
 * unit_util.h
 *		Helpers shared by the standalone unit tests: a fixed-seed splitmix64
 *		generator (so every run sees the same data), a few distributions, a
 *		u64 comparator for qsort and a checked malloc.
 *
 * Header-only and static: each test program is one translation unit.
 */
#ifndef UNIT_UTIL_H
#define UNIT_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define UNIT_UNUSED __attribute__((unused))

static uint64_t rng_state;

static UNIT_UNUSED uint64_t
rnd(void)
{
	uint64_t	z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* uniform in [0, m) (m > 0); the modulo bias is irrelevant here */
static UNIT_UNUSED uint64_t
rnd_below(uint64_t m)
{
	return rnd() % m;
}

/* uniform in (0, 1) */
static UNIT_UNUSED double
rnd_unit(void)
{
	return ((double) (rnd() >> 11) + 0.5) / 9007199254740992.0;
}

static UNIT_UNUSED double
rnd_normal(void)
{
	return sqrt(-2.0 * log(rnd_unit())) * cos(6.283185307179586 * rnd_unit());
}

static UNIT_UNUSED int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

static UNIT_UNUSED void *
xmalloc(size_t sz)
{
	void	   *p = malloc(sz ? sz : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

#endif							/* UNIT_UTIL_H */
