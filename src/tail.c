/*
 * tail.c
 *		Append (key, TID) to the pending list, for aminsert and for a unique
 *		index's insert, which first checks under the tail page's lock that
 *		no equal key was appended since its check read the list (unique.c).
 *
 * The pending list is a chain of append-only pages (like GIN's fast-update
 * list).  One insert changes only the tail page (the record and pd_lower),
 * in a single generic record; a new tail page adds the metapage and the
 * old tail's link.  Most appends do not read the metapage (append_fast).
 *
 * Lock order (everywhere in the AM): metapage, then pending or leaf pages.
 * Nobody waits for the metapage while holding another page's lock.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/rel.h"

#include "learned.h"
#include "pending.h"

/*
 * An append that passes pd_lower moves it this many records on (fixed-width
 * keys): a 64th of the appends log the pd_lower fragment, and a full-page
 * image of the tail carries at most a kilobyte of zeros past its records.
 */
#define LEARNED_PENDING_LOWER_STEP	64

/*
 * Per backend, for a few indexes: the buffers that last held the metapage
 * and the pending tail, hints for ReadRecentBuffer (LearnedReadBufferRecent),
 * which checks the buffer's tag and pins it without the buffer mapping
 * lookup.  An insert reads the tail and, unless it skips it (append_fast),
 * the metapage; under 2-client 100-row INSERTs the two lookups (hash,
 * mapping partition lock, pin) were 5.8% of the cluster's CPU (perf).  A hint is only a hint: a wrong or stale one (the
 * index dropped, rewritten, the page evicted) costs a failed check and a
 * normal read.  Direct-mapped by relation OID.
 *
 * The hint also keeps the metapage as this backend's last append that read
 * it found it (copy), for the appends that do not read it (append_fast):
 * they need its key width, and the merge trigger a view of the list that
 * may be a few appends old (LearnedMaybeMergeStale).
 */
#define LEARNED_INSERT_HINTS	8

/*
 * An append that does not read the metapage is followed by one that does
 * at least every this many appends of a backend, so that a trigger the
 * backend's copy cannot see (a merge that removed dead entries lowered the
 * ratio's bound, an ALTER INDEX) fires at most this many appends late.
 */
#define LEARNED_APPEND_META_EVERY	64

typedef struct InsertHint
{
	Oid			relid;
	Oid			file;			/* relfilenumber the hint is for */
	Buffer		meta;
	Buffer		tail;
	BlockNumber tail_blk;		/* the tail at our last append that read the metapage */
	int			count;			/* the tail's count after our last append */
	int			fast_left;		/* appends left that may skip the metapage */
	LearnedMetaPageData copy;	/* valid if fast_left > 0 */
} InsertHint;

static InsertHint insert_hints[LEARNED_INSERT_HINTS];

static void
insert_hint_reset(InsertHint *h, Oid relid, Oid file)
{
	h->relid = relid;
	h->file = file;
	h->meta = InvalidBuffer;
	h->tail = InvalidBuffer;
	h->tail_blk = InvalidBlockNumber;
	h->count = 0;
	h->fast_left = 0;
}

static InsertHint *
insert_hint(Relation index, InsertHint *none)
{
	InsertHint *h = &insert_hints[RelationGetRelid(index) % LEARNED_INSERT_HINTS];

	/*
	 * Not for a temporary index: its hints would be local buffers, and one
	 * left by a dropped index whose OID a shared one reuses (or the other
	 * way round) would be checked against the wrong buffer pool's tags.
	 */
	if (RelationUsesLocalBuffers(index))
	{
		insert_hint_reset(none, InvalidOid, InvalidOid);
		return none;
	}
	if (h->relid != RelationGetRelid(index) || h->file != LI_REL_FILE_NUMBER(index))
		insert_hint_reset(h, RelationGetRelid(index), LI_REL_FILE_NUMBER(index));
	return h;
}

/*
 * A unique insert's key, and where its check stopped reading the pending
 * list (the sequence number after the last entry it read).
 */
typedef struct TailCheck
{
	uint64		seen;
	LearnedKeyInfo *ki;
	Datum		key;			/* as LearnedKeyCmp takes it (stored form) */
	bool		isnull;			/* a single-column NULL (NULLS NOT DISTINCT) */
} TailCheck;

/*
 * Under the tail page's exclusive lock (n its records): was an equal key
 * appended since the check read the list?  Every entry appended since then
 * lies on this page at slots from seen on, if the check read to this page;
 * if the tail moved on to a new page meanwhile (or a merge moved the list),
 * the entries in between are elsewhere, and the caller checks again.
 */
static LearnedAppendResult
verify_tail(Relation index, Page page, BlockNumber blkno, int keylen, int n,
			const TailCheck *tc)
{
	uint64		first = LearnedPendingFirstSeq(page);
	int			i;

	if (tc->seen < first || tc->seen > first + (uint64) n)
		return LEARNED_APPEND_RETRY;
	for (i = (int) (tc->seen - first); i < n; i++)
	{
		uint16		flags = LearnedPendingFlagsAt(page, keylen, i);

		if (flags & LEARNED_PENDING_DEAD)
			continue;
		if ((flags & LEARNED_PENDING_NULL) || tc->isnull)
		{
			if ((flags & LEARNED_PENDING_NULL) && tc->isnull)
				return LEARNED_APPEND_DUPLICATE;
			continue;
		}
		if (LearnedKeyCmp(tc->ki, tc->key,
						  LearnedPendingKeyAt(index, tc->ki, page, blkno, i)) == 0)
			return LEARNED_APPEND_DUPLICATE;
	}
	return LEARNED_APPEND_DONE;
}

/*
 * Append to the tail page tailbuf (blkno), which the caller holds
 * exclusively locked, and release it.  Returns LEARNED_APPEND_DONE on
 * success and sets *appended to the sequence number after the new entry;
 * LEARNED_APPEND_FULL if the page has no room; for a unique insert (tc),
 * what verify_tail found instead of appending.
 */
static LearnedAppendResult
append_locked(Relation index, int keylen, Buffer tailbuf, BlockNumber blkno,
			  ItemPointer tid, const LearnedPendingKeyData *key, uint64 *appended,
			  InsertHint *hint, const TailCheck *tc)
{
	Page		tailpage = BufferGetPage(tailbuf);
	PageHeader	ph;
	int			n;
	uint16		old_upper;
	char	   *rec;
	int			recsize;
	char		old_hdr[2 * sizeof(LocationIndex)];
	char		old_rec[LEARNED_XLOG_DIFF_MAX];
	LearnedByteRange r[LEARNED_XLOG_MAX_RANGES];
	int			nr = 0;
	LearnedAppendResult res;

	/*
	 * Hints are set on run pages only; an append logs a delta, not the page.
	 * Only run pages are packed: an append writes a record.
	 */
	if (LearnedPageGetOpaque(tailpage)->flags &
		(LEARNED_PENDING_PAGE_HINTED | LEARNED_PENDING_PAGE_PACKED))
	{
		UnlockReleaseBuffer(tailbuf);
		LearnedReportCorrupt(index, blkno,
							 "the pending tail page is flagged hinted or packed");
	}
	n = LearnedPendingCountFrom(tailpage, keylen, hint->count);
	if (tc &&
		(res = verify_tail(index, tailpage, blkno, keylen, n, tc)) !=
		LEARNED_APPEND_DONE)
	{
		UnlockReleaseBuffer(tailbuf);
		return res;
	}
	if (!LearnedPendingHasRoom(tailpage, keylen, n, key))
	{
		UnlockReleaseBuffer(tailbuf);
		return LEARNED_APPEND_FULL;
	}

	/*
	 * Change the page in place and log just what changed (LearnedXLogRanges):
	 * pd_lower and pd_upper, the record, a variable-width key's bytes below
	 * the old pd_upper.  The hole stays
	 * zero: the record lies below the new pd_lower, the key above the new
	 * pd_upper.
	 */
	ph = (PageHeader) tailpage;
	old_upper = ph->pd_upper;
	rec = LearnedPendingItemPtr(tailpage, keylen, n);
	recsize = LearnedPendingItemSize(keylen);
	memcpy(old_hdr, &ph->pd_lower, sizeof(old_hdr));
	if (recsize <= (int) sizeof(old_rec))
		memcpy(old_rec, rec, recsize);

	START_CRIT_SECTION();
	if (keylen >= 0 &&
		rec + recsize > (char *) tailpage + ph->pd_lower)
	{
		/*
		 * Move pd_lower past the next LEARNED_PENDING_LOWER_STEP records at
		 * once, not past each one: an append that changes pd_lower logs
		 * another fragment, which takes an int8 append's record from 56 to
		 * 64 bytes of WAL.  The slots it skips over are zero, as the hole
		 * was (LearnedPendingCount stops at the first one).  A variable-width
		 * key moves pd_upper anyway, in the same fragment.
		 */
		ph->pd_lower = (LocationIndex)
			Min((rec - (char *) tailpage) + LEARNED_PENDING_LOWER_STEP * recsize,
				LEARNED_PENDING_ITEMS_OFFSET + LearnedPendingFillLimit(keylen) * recsize);
		Assert(ph->pd_lower <= ph->pd_upper);
	}
	LearnedPendingPut(tailpage, keylen, n, tid, key);
	r[nr].off = offsetof(PageHeaderData, pd_lower);
	r[nr].len = sizeof(old_hdr);
	r[nr++].old = old_hdr;
	r[nr].off = (uint16) (rec - (char *) tailpage);
	r[nr].len = (uint16) recsize;
	r[nr++].old = recsize <= (int) sizeof(old_rec) ? old_rec : NULL;
	if (ph->pd_upper < old_upper)
	{
		r[nr].off = ph->pd_upper;
		r[nr].len = old_upper - ph->pd_upper;
		r[nr++].old = NULL;
	}
	LearnedXLogRanges(index, tailbuf, r, nr);
	END_CRIT_SECTION();
	*appended = LearnedPendingFirstSeq(tailpage) + n + 1;
	hint->count = n + 1;
	UnlockReleaseBuffer(tailbuf);
	return LEARNED_APPEND_DONE;
}

/*
 * Try to append to the current tail page while holding the metapage in the
 * given mode: append_locked's results, and LEARNED_APPEND_FULL also when
 * there is no tail page.
 */
static LearnedAppendResult
append_to_tail(Relation index, LearnedMetaPage meta, ItemPointer tid,
			   const LearnedPendingKeyData *key, uint64 *appended,
			   InsertHint *hint, const TailCheck *tc)
{
	Buffer		tailbuf;

	if (meta->pending_tail == InvalidBlockNumber)
	{
		/* no tail page: the check read nothing past pending_tail_seq */
		if (tc && tc->seen != meta->pending_tail_seq)
			return LEARNED_APPEND_RETRY;
		return LEARNED_APPEND_FULL;
	}
	LearnedCheckLink(index, meta->pending_tail, NULL);
	tailbuf = LearnedReadBufferRecent(index, meta->pending_tail, &hint->tail);
	hint->tail_blk = meta->pending_tail;
	LockBuffer(tailbuf, BUFFER_LOCK_EXCLUSIVE);
	LearnedCheckPage(index, BufferGetPage(tailbuf), meta->pending_tail,
					 LEARNED_PAGE_PENDING);
	return append_locked(index, meta->keylen, tailbuf, meta->pending_tail, tid,
						 key, appended, hint, tc);
}

/*
 * Append to the page this backend last found to be the tail, without
 * reading the metapage, if it still is the tail: a pending page that links
 * to no next page.  The metapage only says which page that is, and every
 * change that makes another page the tail links the old one to it, in the
 * same record and under the old tail's exclusive lock (LearnedPendingNewTail,
 * move_tail_down in merge.c), so under that lock a pending page without a
 * link is the tail: no other pending page lacks one (a run's pages link
 * on to the stretch after them, even those of a run a failure left
 * unflipped; a page claimed and never written is not a pending page; a
 * freed one is FREE).  Only through a buffer that still holds the page
 * (ReadRecentBuffer): a block that a VACUUM's truncation removed has no
 * buffer, and is not read.  Returns whether it appended; if not, the caller
 * appends through the metapage.
 *
 * Not for a unique index: its appends verify their check under the lock
 * that decides the append, the tail page's or, for a new tail page, the
 * metapage's exclusive lock, which an append that does not take the
 * metapage would bypass.
 */
static bool
append_fast(Relation index, ItemPointer tid, const LearnedPendingKeyData *key,
			uint64 *appended, InsertHint *hint)
{
	Buffer		buf = hint->tail;
	Page		page;
	LearnedPageOpaque opaque;

	if (hint->fast_left <= 0 || hint->tail_blk == InvalidBlockNumber ||
		!LearnedPinRecentBuffer(index, hint->tail_blk, buf))
		return false;
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buf);
	opaque = LearnedPageGetOpaque(page);
	if (LearnedPageKind(page) != LEARNED_PAGE_PENDING ||
		opaque->next != InvalidBlockNumber || opaque->flags != 0)
	{
		UnlockReleaseBuffer(buf);
		hint->fast_left = 0;
		return false;
	}
	if (append_locked(index, hint->copy.keylen, buf, hint->tail_blk, tid, key,
					  appended, hint, NULL) != LEARNED_APPEND_DONE)
	{
		/* full (append_locked released it): the next tail page is linked */
		hint->fast_left = 0;
		return false;
	}
	hint->fast_left--;
	return true;
}

/*
 * Append (key, TID) to the pending list.  *after gets a copy of the
 * metapage and *appendedp the sequence number after the new entry, for the
 * merge trigger, which the caller runs (after releasing any lock of its own).
 *
 * The common case does not read the metapage at all (append_fast): it
 * locks the page this backend last appended to, finds it still the tail,
 * and changes it alone, so concurrent inserters only meet on the tail page
 * and the WAL record is one small delta.  Then *after is this backend's
 * copy of the metapage, at most LEARNED_APPEND_META_EVERY appends old, and
 * *stale says so: LearnedMaybeMergeStale reads the metapage afresh only if
 * the copy says a trigger may be due.  stale NULL asks for a fresh copy
 * (a unique index's appends, which never skip the metapage).  Otherwise
 * the append holds the metapage in share mode (it just says which page is
 * the tail) while it changes the tail page; only when the tail is full does
 * an insert take the metapage exclusively, to link a new tail page (one
 * record: metapage, old tail, new page).
 *
 * check (a unique insert's; NULL for others): append only if no entry
 * equal to the key was appended after check->seen, deciding it under the
 * lock the append takes (the tail page's; for a new tail page the
 * metapage's exclusive lock, which keeps every other inserter out).
 * Otherwise nothing is appended and the result says why: the caller checks
 * again.  check->ki is used for the key's stored form as well.
 */
LearnedAppendResult
LearnedAppendEntry(Relation index, Datum *values, bool *isnull,
				   ItemPointer ht_ctid, LearnedMetaPageData *after,
				   uint64 *appendedp, const LearnedAppendCheck *check,
				   bool *stale)
{
	Buffer		metabuf;
	Page		metapage;
	LearnedMetaPage meta;
	uint64		appended = 0;
	LearnedAppendResult res;
	LearnedPendingKeyData key;
	InsertHint *hint;
	InsertHint	nohint;
	TailCheck	tc;
	LearnedKeyInfo kibuf;
	LearnedKeyInfo *ki = NULL;

	/* a zero offset number marks a free slot (LearnedPendingCount) */
	if (!OffsetNumberIsValid(ItemPointerGetOffsetNumberNoCheck(ht_ctid)))
		elog(ERROR, "learned index: invalid heap TID offset %u",
			 ItemPointerGetOffsetNumberNoCheck(ht_ctid));
	key.value = values[0];
	key.isnull = isnull[0];
	key.packed = NULL;
	key.size = 0;
	key.align = 1;
	tc.key = values[0];
	if (check)
		ki = check->ki;
	if (IndexRelationGetNumberOfAttributes(index) > 1 ||
		learned_type_varlena(index->rd_opcintype[0]))
	{
		/*
		 * The relcache's key info, not one set up from the catalogs: that
		 * was 2% of a composite key's unique insert
		 */
		if (ki == NULL)
		{
			LearnedKeyInfoForScan(index, &kibuf);
			ki = &kibuf;
		}
		if (LearnedKeyIsComposite(ki) || !isnull[0])
		{
			Datum		k = LearnedKeyForm(ki, index, values, isnull, ht_ctid);

			key.packed = DatumGetPointer(k);
			key.size = LearnedKeySize(ki, k);
			key.align = LearnedKeyAlign(ki, k);
			key.isnull = false;
			tc.key = k;
		}
	}
	if (check)
	{
		tc.seen = check->seen;
		tc.ki = ki;
		tc.isnull = key.isnull;
	}

	hint = insert_hint(index, &nohint);
	if (stale)
		*stale = false;
	if (stale && check == NULL && !index->rd_index->indisunique &&
		append_fast(index, ht_ctid, &key, &appended, hint))
	{
		memcpy(after, &hint->copy, sizeof(LearnedMetaPageData));
		*stale = true;
		*appendedp = appended;
		return LEARNED_APPEND_DONE;
	}
	metabuf = LearnedReadBufferRecent(index, LEARNED_METAPAGE_BLKNO, &hint->meta);
	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	metapage = BufferGetPage(metabuf);
	LearnedCheckPage(index, metapage, LEARNED_METAPAGE_BLKNO, LEARNED_PAGE_META);
	meta = LearnedPageGetMeta(metapage);
	LearnedCheckMeta(index, meta);
	res = append_to_tail(index, meta, ht_ctid, &key, &appended, hint,
						 check ? &tc : NULL);
	if (res == LEARNED_APPEND_FULL)
	{
		/* retake the metapage exclusively; someone may have extended */
		LockBuffer(metabuf, BUFFER_LOCK_UNLOCK);
		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		meta = LearnedPageGetMeta(metapage);
		res = append_to_tail(index, meta, ht_ctid, &key, &appended, hint,
							 check ? &tc : NULL);
	}
	if (res == LEARNED_APPEND_FULL)
	{
		/*
		 * The full tail page passed verify_tail above, under this exclusive
		 * metapage lock, which no appender holds meanwhile: the new page
		 * holds our entry alone.
		 */
		appended = LearnedPendingNewTail(index, metabuf, ht_ctid, &key);
		meta = LearnedPageGetMeta(metapage);
		res = LEARNED_APPEND_DONE;
		/* the old tail links on now: the next append reads the metapage */
		hint->tail = InvalidBuffer;
	}
	memcpy(after, meta, sizeof(LearnedMetaPageData));
	UnlockReleaseBuffer(metabuf);
	if (res == LEARNED_APPEND_DONE && hint != &nohint)
	{
		/* the next appends may skip the metapage (append_fast) */
		memcpy(&hint->copy, after, sizeof(LearnedMetaPageData));
		hint->fast_left = LEARNED_APPEND_META_EVERY;
	}
	*appendedp = appended;
	return res;
}

/*
 * A fresh copy of the metapage that the merge trigger read after an append
 * that did not (LearnedMaybeMergeStale): keep it as this backend's copy, so
 * that the next appends judge the trigger on it, not on the older one,
 * which, once a flush or a merge has moved the list on, would send each of
 * them to read the metapage again.
 */
void
LearnedAppendNoteMeta(Relation index, const LearnedMetaPageData *meta)
{
	InsertHint	nohint;
	InsertHint *hint = insert_hint(index, &nohint);

	if (hint == &nohint || hint->fast_left <= 0)
		return;
	memcpy(&hint->copy, meta, sizeof(LearnedMetaPageData));
	hint->fast_left = LEARNED_APPEND_META_EVERY;
}
