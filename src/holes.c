/*
 * holes.c
 *		Pure C: the placement rule of the index's page runs in the file's
 *		holes (alloc.c applies it to the free space map's blocks, VACUUM's
 *		relocation plan in merge.c to a copy of them).
 *
 * Leaf segments need contiguous blocks (an entry's rank gives its block by
 * arithmetic).  A merge that frees scattered runs shorter than its segments
 * would extend the file by every segment it writes while those holes stay
 * empty, so a segment that fits in no hole is cut to one, the rest of its
 * entries starting the next segment; holes below min_cut pages are left, as
 * cutting to them would leave slivers.  A merge cuts to the longest hole,
 * which keeps segments long.  VACUUM's relocation, which moves segments down
 * so that the file's free end can be cut off, cuts to the lowest: the
 * longest hole is often just below the pages being emptied, and a segment
 * moved there still ends the file.
 */
#include "holes.h"

uint32_t
holes_fit(const bool *free, uint32_t nblocks, uint32_t npages,
		  uint32_t min_cut, bool lowest, uint32_t *first)
{
	uint32_t	blk;
	uint32_t	run = 0;
	uint32_t	best = 0;
	uint32_t	best_start = HOLES_NONE;

	*first = HOLES_NONE;
	if (npages == 0)
		return 0;
	/* blk == nblocks closes a hole that reaches the end of the map */
	for (blk = 1; blk <= nblocks; blk++)
	{
		if (blk < nblocks && free[blk])
		{
			if (++run >= npages)
			{
				*first = blk - npages + 1;
				return npages;
			}
			continue;
		}
		/* the hole [blk - run, blk) is shorter than npages */
		if (npages > min_cut && run >= min_cut && run > 0)
		{
			if (lowest)
			{
				*first = blk - run;
				return run;
			}
			if (run > best)
			{
				best = run;
				best_start = blk - run;
			}
		}
		run = 0;
	}
	if (best > 0)
	{
		*first = best_start;
		return best;
	}
	return npages;
}
