/*
 * holes.h
 *		Pure C: where a run of contiguous pages goes in a map of free blocks,
 *		and how many pages it takes when no hole holds it whole.  No
 *		PostgreSQL headers; unit-tested by test/unit/test_holes.c.
 */
#ifndef HOLES_H
#define HOLES_H

#include <stdbool.h>
#include <stdint.h>

#define HOLES_NONE	UINT32_MAX	/* no hole: the file is extended */

/*
 * A run of npages in free[1 .. nblocks - 1] (block 0 is the metapage, never
 * free).  Returns the pages to take and sets *first to their first block,
 * or to HOLES_NONE (taking npages) when the file must be extended.
 *
 * By default a hole that holds npages is taken by first fit; otherwise, if
 * npages > min_cut, the run is cut to the longest hole of at least min_cut
 * pages (the first of equal ones).  With lowest, the run goes to the first
 * hole that holds it or, if npages > min_cut, has min_cut pages, cut to
 * that hole's length: a higher hole that would hold it whole is passed over.
 */
extern uint32_t holes_fit(const bool *free, uint32_t nblocks, uint32_t npages,
						  uint32_t min_cut, bool lowest, uint32_t *first);

#endif							/* HOLES_H */
