/*
 * test_holes.c: holes_fit places a run by first fit when a hole holds it,
 * else cuts it to the longest hole of at least min_cut pages, else extends
 * the file; with lowest, it takes the first hole that holds it or has
 * min_cut pages, whichever comes first.  Checked against a reference that
 * lists the map's holes, on random maps, and on the layout that VACUUM's
 * relocation met (a segment moved into the longest hole stayed at the end).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "holes.h"
#include "unit_util.h"

static int	failures = 0;
static int	checks = 0;

#define CHECK(cond, ...) do { checks++; if (!(cond) && failures++ < 10) { \
	fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#define MAXB 300

/* the reference: the maximal holes of the map, in block order */
static void
reference(const bool *free, uint32_t nblocks, uint32_t npages, uint32_t min_cut,
		  bool lowest, uint32_t *take, uint32_t *first)
{
	uint32_t	start[MAXB];
	uint32_t	len[MAXB];
	int			nh = 0;
	int			h;
	uint32_t	b = 1;

	while (b < nblocks)
	{
		if (!free[b])
		{
			b++;
			continue;
		}
		start[nh] = b;
		while (b < nblocks && free[b])
			b++;
		len[nh] = b - start[nh];
		nh++;
	}
	/*
	 * lowest: the first hole that holds npages (at its start) or, for a run
	 * longer than min_cut, has min_cut pages (all of it)
	 */
	for (h = 0; lowest && h < nh; h++)
		if (len[h] >= npages || (npages > min_cut && len[h] >= min_cut))
		{
			*take = len[h] >= npages ? npages : len[h];
			*first = start[h];
			return;
		}
	/* else first fit: the lowest hole that holds npages, at its start */
	for (h = 0; h < nh; h++)
		if (len[h] >= npages)
		{
			*take = npages;
			*first = start[h];
			return;
		}
	if (npages > min_cut)
	{
		int			pick = -1;

		for (h = 0; h < nh; h++)
			if (len[h] >= min_cut && len[h] > 0 &&
				(pick < 0 || (!lowest && len[h] > len[pick])))
			{
				pick = h;
				if (lowest)
					break;
			}
		if (pick >= 0)
		{
			*take = len[pick];
			*first = start[pick];
			return;
		}
	}
	*take = npages;
	*first = HOLES_NONE;
}

static void
random_maps(void)
{
	bool		free[MAXB];
	int			iter;

	for (iter = 0; iter < 200000; iter++)
	{
		uint32_t	nblocks = 1 + (uint32_t) rnd_below(MAXB);
		uint32_t	npages = 1 + (uint32_t) rnd_below(90);
		uint32_t	min_cut = (uint32_t) rnd_below(3) == 0 ? 1 : 16;
		uint32_t	density = 1 + (uint32_t) rnd_below(9);
		uint32_t	burst = 1 + (uint32_t) rnd_below(40);
		uint32_t	b;
		int			mode;

		/* runs of free and used blocks of random lengths */
		free[0] = false;
		for (b = 1; b < nblocks;)
		{
			bool		f = rnd_below(10) < density;
			uint32_t	n = 1 + (uint32_t) rnd_below(burst);

			while (n-- > 0 && b < nblocks)
				free[b++] = f;
		}
		for (mode = 0; mode < 2; mode++)
		{
			uint32_t	first;
			uint32_t	want_first;
			uint32_t	want_take;
			uint32_t	take = holes_fit(free, nblocks, npages, min_cut, mode == 1, &first);

			reference(free, nblocks, npages, min_cut, mode == 1, &want_take, &want_first);
			CHECK(take == want_take && first == want_first,
				  "nblocks %u npages %u min_cut %u lowest %d: got %u at %u, want %u at %u",
				  nblocks, npages, min_cut, mode, take, first, want_take, want_first);
			if (first != HOLES_NONE)
			{
				uint32_t	i;
				bool		all = true;

				for (i = 0; i < take; i++)
					all = all && first + i < nblocks && free[first + i];
				CHECK(all, "the run at %u of %u pages is not all free", first, take);
				CHECK(take <= npages, "took %u of %u pages", take, npages);
			}
		}
	}
}

/* the holes VACUUM's relocation planned with, before a 79-page segment moved */
static void
relocation_layout(void)
{
	static const uint32_t holes[][2] = {
		{3, 17}, {22, 22}, {34, 42}, {66, 66}, {107, 149}, {228, 266}, {593, 597}, {620, 702}
	};
	bool		free[767];
	uint32_t	first;
	uint32_t	take;
	size_t		h;

	memset(free, 0, sizeof(free));
	for (h = 0; h < sizeof(holes) / sizeof(holes[0]); h++)
		memset(&free[holes[h][0]], 1, holes[h][1] - holes[h][0] + 1);
	take = holes_fit(free, 767, 79, 16, false, &first);
	CHECK(take == 79 && first == 620, "longest rule: got %u at %u, want 79 at 620", take, first);
	take = holes_fit(free, 767, 79, 16, true, &first);
	CHECK(take == 43 && first == 107, "lowest rule: got %u at %u, want 43 at 107", take, first);
	/* the rest of that segment: 36 pages go to the 39-page hole at 228 */
	memset(&free[107], 0, 43);
	take = holes_fit(free, 767, 36, 16, true, &first);
	CHECK(take == 36 && first == 228, "lowest rule, rest: got %u at %u, want 36 at 228", take, first);
	/* no hole of min_cut pages: the file is extended */
	memset(free, 0, sizeof(free));
	free[5] = free[6] = true;
	take = holes_fit(free, 767, 40, 16, true, &first);
	CHECK(take == 40 && first == HOLES_NONE, "no hole: got %u at %u", take, first);
	/* a small run still takes a small hole whole, lowest first */
	take = holes_fit(free, 767, 2, 16, false, &first);
	CHECK(take == 2 && first == 5, "small run: got %u at %u", take, first);
}

int
main(void)
{
	rng_state = 20261130;
	relocation_layout();
	random_maps();
	printf("%d passed, %d failed\n", checks - failures, failures);
	return failures > 0;
}
