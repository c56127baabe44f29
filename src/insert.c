/*
 * insert.c
 *		aminsert: append (key, TID) to the pending list.
 *
 * The pending list is a chain of append-only pages (like GIN's fast-update
 * list).  One insert changes the tail page and the metapage's append counter
 * in a single GenericXLog record; a new tail page adds the old tail's link.
 *
 * Lock order (everywhere in the AM): metapage, then pending or leaf pages.
 * Nobody waits for the metapage while holding another page's lock.
 */
#include "postgres.h"

#include "nodes/execnodes.h"
#include "utils/rel.h"

#include "learned.h"

static void
pending_put(Page page, int keylen, int slot, ItemPointer tid, bool isnull,
			Datum key)
{
	char	   *p = LearnedPendingItemPtr(page, keylen, slot);
	uint16		flags = isnull ? LEARNED_PENDING_NULL : 0;

	memcpy(p, tid, sizeof(ItemPointerData));
	memcpy(p + sizeof(ItemPointerData), &flags, sizeof(uint16));
	if (isnull)
		memset(p + LEARNED_PENDING_HDR, 0, keylen);
	else
		learned_store_key(p + LEARNED_PENDING_HDR, keylen, key);
}

bool
learnedinsert(Relation index, Datum *values, bool *isnull,
			  ItemPointer ht_ctid, Relation heapRel,
			  IndexUniqueCheck checkUnique, bool indexUnchanged,
			  IndexInfo *indexInfo)
{
	Buffer		metabuf;
	Page		metapage;
	LearnedMetaPage meta;
	int			keylen;
	int			capacity;
	Buffer		tailbuf = InvalidBuffer;
	GenericXLogState *state;
	LearnedMetaPageData after;

	metabuf = ReadBuffer(index, LEARNED_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	metapage = BufferGetPage(metabuf);
	LearnedCheckPage(index, metapage, LEARNED_METAPAGE_BLKNO, LEARNED_PAGE_META);
	meta = LearnedPageGetMeta(metapage);
	LearnedCheckMeta(index, meta);
	keylen = meta->keylen;
	capacity = LearnedPendingCapacity(keylen);

	if (meta->pending_tail != InvalidBlockNumber)
	{
		Page		tailpage;

		tailbuf = ReadBuffer(index, meta->pending_tail);
		LockBuffer(tailbuf, BUFFER_LOCK_EXCLUSIVE);
		tailpage = BufferGetPage(tailbuf);
		LearnedCheckPage(index, tailpage, meta->pending_tail, LEARNED_PAGE_PENDING);
		if (LearnedPageGetOpaque(tailpage)->nitems < capacity)
		{
			LearnedPageOpaque opaque;

			state = LearnedXLogStart(index);
			meta = LearnedPageGetMeta(LearnedXLogRegister(state, metabuf, false));
			tailpage = LearnedXLogRegister(state, tailbuf, false);
			opaque = LearnedPageGetOpaque(tailpage);
			pending_put(tailpage, keylen, opaque->nitems, ht_ctid, isnull[0], values[0]);
			opaque->nitems++;
			meta->pending_appended++;
			LearnedXLogFinish(state);
			memcpy(&after, LearnedPageGetMeta(metapage), sizeof(after));
			UnlockReleaseBuffer(tailbuf);
			UnlockReleaseBuffer(metabuf);
			LearnedMaybeMerge(index, &after);
			return false;
		}
	}

	/* the tail is full or absent: start a new tail page */
	{
		Buffer		newbuf = LearnedAllocPage(index);
		BlockNumber newblk = BufferGetBlockNumber(newbuf);
		Page		newpage;

		state = LearnedXLogStart(index);
		meta = LearnedPageGetMeta(LearnedXLogRegister(state, metabuf, false));
		newpage = LearnedXLogRegister(state, newbuf, true);
		LearnedPendingInitPage(newpage, keylen, meta->generation,
							   meta->pending_appended);
		pending_put(newpage, keylen, 0, ht_ctid, isnull[0], values[0]);
		LearnedPageGetOpaque(newpage)->nitems = 1;
		if (BufferIsValid(tailbuf))
		{
			Page		tailpage = LearnedXLogRegister(state, tailbuf, false);

			LearnedPageGetOpaque(tailpage)->next = newblk;
		}
		else
			meta->pending_head = newblk;
		meta->pending_tail = newblk;
		meta->pending_appended++;
		meta->pending_pages++;
		LearnedXLogFinish(state);
		UnlockReleaseBuffer(newbuf);
		memcpy(&after, LearnedPageGetMeta(metapage), sizeof(after));
		if (BufferIsValid(tailbuf))
			UnlockReleaseBuffer(tailbuf);
		UnlockReleaseBuffer(metabuf);
	}
	LearnedMaybeMerge(index, &after);
	return false;
}
