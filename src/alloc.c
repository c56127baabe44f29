/*
 * alloc.c
 *		Pages and page runs for the index's own writers: claiming a free
 *		block, one page, a run of contiguous blocks (first fit over the free
 *		space map, else extending the file), the longest hole a segment can
 *		be cut to, and writing a run of pages.
 *
 * Build, merge, the pending list, the runs and the directory all allocate
 * here.  The free space map is only a hint (not WAL-logged, possibly stale
 * after a crash): a block is owned by whoever turns it from FREE into
 * something else under its buffer's exclusive lock (LearnedClaimBlock).
 */
#include "postgres.h"

#include "access/xloginsert.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "holes.h"
#include "learned.h"

/*
 * Claim a block for a new page: it must be a FREE page (or never
 * initialized).  The FSM is only a hint (it is not WAL-logged and may be
 * stale after a crash), so ownership is decided here, under the buffer's
 * exclusive lock: whoever turns a FREE page into something else owns it.
 * Returns the buffer exclusively locked, or InvalidBuffer.
 */
Buffer
LearnedClaimBlock(Relation index, BlockNumber blkno)
{
	Buffer		buf = ReadBuffer(index, blkno);
	Page		page;

	/*
	 * Never wait for the lock: a stale FSM entry (after a crash) can name a
	 * page the caller itself holds locked, such as the pending list's tail
	 * that LearnedAppendEntry is about to link (a wait would never end), or
	 * a page another backend holds while it waits for a lock we hold.  A
	 * locked page is in use or being claimed: skip it.
	 */
	if (!ConditionalLockBuffer(buf))
	{
		ReleaseBuffer(buf);
		return InvalidBuffer;
	}
	page = BufferGetPage(buf);
	if (PageIsNew(page) || LearnedPageKind(page) == LEARNED_PAGE_FREE)
	{
		/* mark it taken at once (not WAL-logged: the writer logs it) */
		LearnedInitPage(page, LEARNED_PAGE_LEAF, 0);
		return buf;
	}
	UnlockReleaseBuffer(buf);
	return InvalidBuffer;
}

/*
 * One page, for the pending list or a directory: a recycled one if the FSM
 * has one, else a new one.  Returned exclusively locked.
 */
Buffer
LearnedAllocPage(Relation index)
{
	for (;;)
	{
		BlockNumber blkno = GetFreeIndexPage(index);
		Buffer		buf;

		if (blkno == InvalidBlockNumber)
			break;
		buf = LearnedClaimBlock(index, blkno);
		if (BufferIsValid(buf))
			return buf;
	}
	return LearnedNewBuffer(index, MAIN_FORKNUM);
}

/*
 * The free blocks the FSM recorded, read once per merge (a merge allocates
 * one run per segment it writes).  Only a hint, like the FSM itself:
 * LearnedClaimBlock decides, under the buffer lock, whether a block is FREE.
 * merge_locked resets it at its start, so it never outlives a merge by
 * more than the next merge's start.
 */
typedef struct AllocMap
{
	Oid			relid;
	LiRelFile	node;
	BlockNumber nblocks;		/* blocks the map covers */
	bool	   *free;			/* free[blk]: the FSM said blk was free */
} AllocMap;

static AllocMap alloc_map;

/* segments are cut to the lowest hole, not the longest (LearnedAllocLowest) */
static bool alloc_lowest = false;

void
LearnedAllocMapReset(void)
{
	if (alloc_map.free)
		pfree(alloc_map.free);
	memset(&alloc_map, 0, sizeof(alloc_map));
}

static bool
alloc_map_valid(Relation index)
{
	return alloc_map.free != NULL &&
		alloc_map.relid == RelationGetRelid(index) &&
		LiRelFileEquals(alloc_map.node, LI_REL_FILE(index));
}

static void
alloc_map_build(Relation index)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BlockNumber blk;

	LearnedAllocMapReset();
	alloc_map.free = MemoryContextAllocZero(TopMemoryContext,
											Max(nblocks, 1) * sizeof(bool));
	for (blk = 1; blk < nblocks; blk++)
		alloc_map.free[blk] = GetRecordedFreeSpace(index, blk) >= BLCKSZ / 2;
	alloc_map.relid = RelationGetRelid(index);
	alloc_map.node = LI_REL_FILE(index);
	alloc_map.nblocks = nblocks;
}

/*
 * Whether there is a map of free blocks, read now if it is not valid and
 * one probe of the FSM tree finds any free block at all.
 */
static bool
alloc_map_ready(Relation index)
{
	if (alloc_map_valid(index))
		return true;
	if (GetPageWithFreeSpace(index, BLCKSZ / 2) == InvalidBlockNumber)
		return false;
	alloc_map_build(index);
	return true;
}

/*
 * How many blocks the FSM records as free: the map's count, the map read
 * now if it is not valid (it is then the one the next LearnedAllocRun
 * uses).  0 without a map when one probe of the FSM tree finds no free
 * block.  A hint like the FSM: garbage collection subtracts it from the
 * unreachable pages to tell how many it could free.
 */
BlockNumber
LearnedAllocMapFreeBlocks(Relation index)
{
	BlockNumber n = 0;
	BlockNumber blk;

	if (!alloc_map_ready(index))
		return 0;
	for (blk = 1; blk < alloc_map.nblocks; blk++)
		n += alloc_map.free[blk] ? 1 : 0;
	return n;
}

/*
 * A run of npages contiguous blocks (leaf segments need them: an entry's
 * rank gives its block by arithmetic).  Outside a build, look for a run of
 * free blocks in the FSM first (first fit), else extend the relation.  The
 * blocks are claimed (see LearnedClaimBlock) and released unlocked; the caller
 * initializes and writes them.
 *
 * The FSM is read into alloc_map once per merge, and only if one
 * GetPageWithFreeSpace probe of the FSM tree finds any free page at all.
 * Reading it block by block for every run costs O(segments x blocks) per
 * merge, and each GetRecordedFreeSpace past the FSM fork's end (or with no
 * fork: a new or reindexed index) is a failed open() of the fork.  That
 * made a merge of 100k random entries into a 10M-row index take 24.7 s
 * (8.7 s after a VACUUM) instead of about 1.5 s.
 */
BlockNumber
LearnedAllocRun(Relation index, uint32 npages, bool building)
{
	BlockNumber first;
	uint32		i;

	if (!building && npages > 0 && alloc_map_ready(index))
	{
		BlockNumber blk;
		uint32		run = 0;

		for (blk = 1; blk < alloc_map.nblocks; blk++)
		{
			if (!alloc_map.free[blk])
			{
				run = 0;
				continue;
			}
			if (++run < npages)
				continue;
			/* candidate run [blk - npages + 1, blk]: claim every page */
			first = blk - npages + 1;
			for (i = 0; i < npages; i++)
			{
				Buffer		buf = LearnedClaimBlock(index, first + i);

				if (!BufferIsValid(buf))
					break;
				UnlockReleaseBuffer(buf);
				RecordUsedIndexPage(index, first + i);
				alloc_map.free[first + i] = false;
			}
			if (i == npages)
				return first;
			/*
			 * Someone took a page of the run (or the FSM was stale).  The
			 * pages claimed so far are unreachable: GC frees them again.
			 */
			RecordUsedIndexPage(index, first + i);
			alloc_map.free[first + i] = false;
			run = 0;
			blk = first + i;
		}
	}

	/* extend the relation by npages, under the extension lock */
	if (!RELATION_IS_LOCAL(index))
		LockRelationForExtension(index, ExclusiveLock);
	first = InvalidBlockNumber;
	for (i = 0; i < npages; i++)
	{
		Buffer		buf = ReadBufferExtended(index, MAIN_FORKNUM, P_NEW, RBM_NORMAL, NULL);

		if (i == 0)
			first = BufferGetBlockNumber(buf);
		Assert(BufferGetBlockNumber(buf) == first + i);
		ReleaseBuffer(buf);
	}
	if (!RELATION_IS_LOCAL(index))
		UnlockRelationForExtension(index, ExclusiveLock);
	return first;
}

/*
 * Cut the segments this backend writes to the lowest hole, not the longest
 * (holes_fit), until called with false: VACUUM's relocation, around its
 * merge, which then puts the pages it moves where its plan did
 * (relocation_end): a 79-page segment moved from block 703 to the 83-page
 * hole at 620, while holes of 43 and 39 pages lower stayed empty, left the
 * file's end at 699 pages instead of 543.
 */
void
LearnedAllocLowest(bool on)
{
	alloc_lowest = on;
}

/*
 * How many pages a new segment of npages should take so that it lands in a
 * hole (holes_fit's rule, on the free map LearnedAllocRun reads):
 * npages if first fit finds a run of npages free blocks, or if no hole has
 * LEARNED_FIT_MIN_PAGES; else a hole's length, to which the writer
 * (LearnedWriteSegments) cuts the segment, the rest of its entries going to
 * the next.  Segments need contiguous blocks, and a merge that frees
 * scattered runs shorter than its segments would otherwise extend the file
 * by every segment it writes while those holes stay empty (a segment at the
 * end of the file also keeps VACUUM from cutting them).
 */
uint32
LearnedFitPages(Relation index, uint32 npages)
{
	uint32		min_cut = alloc_lowest ? LEARNED_RELOCATE_MIN_PAGES : LEARNED_FIT_MIN_PAGES;
	uint32		first;

	if (npages <= min_cut)
		return npages;
	if (!alloc_map_ready(index))
		return npages;
	return holes_fit(alloc_map.free, alloc_map.nblocks, npages, min_cut, alloc_lowest, &first);
}

/*
 * Write a run of npages pages of the given type on freshly allocated
 * contiguous blocks: fill writes each page's contents (after
 * LearnedInitPage) and sets its pd_lower and nitems.  Outside a build the
 * run is WAL-logged here (full images: nothing can see these pages before
 * the metapage flip).  Returns the first block.  Every leaf-run writer
 * (plain, compressed, variable-width) goes through here.
 */
BlockNumber
LearnedWriteRun(Relation index, uint32 npages, uint16 type, uint32 generation,
				bool building, LearnedFillPage fill, void *arg)
{
	BlockNumber first = LearnedAllocRun(index, npages, building);
	uint32		pg;

	for (pg = 0; pg < npages; pg++)
	{
		Buffer		buf = ReadBuffer(index, first + pg);
		Page		page;

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		LearnedInitPage(page, type, generation);
		fill(page, pg, arg);
		if (type == LEARNED_PAGE_LEAF || type == LEARNED_PAGE_NULLS)
			LearnedLeafReserveHints(page);
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
	if (!building && RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, first, first + npages, true);
	return first;
}
