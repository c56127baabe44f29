/*
 * unique.c
 *		Unique learned indexes: the uniqueness check of aminsert (btree's
 *		_bt_check_unique protocol over both stages) and the duplicate check
 *		of CREATE UNIQUE INDEX / REINDEX.
 *
 * Insert protocol (see docs/architecture.md, "Unique indexes"):
 *
 *	1. Look the key up with the ordinary scan code (scan.c) under a dirty
 *	   snapshot: the scan reads the metapage once and uses that generation's
 *	   directory and that metapage's pending boundary, and it refreshes the
 *	   backend's copy of the pending list up to the tail, so it sees every
 *	   entry appended before it read the tail (in-progress transactions'
 *	   included), whether a merge has moved it into the static stage or not.
 *	   It also says where it stopped reading: the sequence number after the
 *	   last entry it read ("seen", LearnedScanPendingSeen).
 *	2. For each entry returned, fetch the heap tuple with SnapshotDirty
 *	   (following the HOT chain).  A live tuple of another transaction that
 *	   is still in progress: wait for that transaction (XactLockTableWait,
 *	   or SpeculativeInsertionWait for ON CONFLICT inserters), start again.
 *	   A live committed tuple: unique violation, with btree's message and
 *	   detail.
 *	3. No conflict: append (tail.c), which first checks, under the lock
 *	   the append itself takes, the entries appended after seen: they are
 *	   on the tail page, from slot seen - its first sequence number on.
 *	   An equal key among them, or a tail that moved to a new page since
 *	   (the entries in between are elsewhere), appends nothing, and the
 *	   check starts again; its new scan reads those entries.
 *
 * Two inserts of equal keys are so ordered by the tail page's lock: the
 * one that appends second checks, under that lock, every entry appended
 * since its scan read the list, the first one's included.  No lock is held
 * across the scan: a check costs no lock manager round trip, and an insert
 * waits for nothing but buffer locks and the transactions it conflicts
 * with.  The merge trigger runs after the append.
 *
 * The scan keeps the page of the entry it returned pinned until the next
 * entry (leaf batches, and pending pages for non-MVCC scans), and VACUUM
 * cleanup-locks those pages before marking entries dead: the heap slot of
 * an entry we are checking cannot be freed and reused meanwhile.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "learned.h"

/* outcome of one pass of the check */
typedef enum UniqueOutcome
{
	UNIQUE_OK,					/* no live conflicting entry */
	UNIQUE_MAYBE,				/* PARTIAL: a possible conflict, not waited for */
	UNIQUE_WAIT,				/* a conflicting in-progress inserter/deleter */
	UNIQUE_CONFLICT				/* a definite conflict: error */
} UniqueOutcome;

/*
 * Raise btree's unique violation for (value, isnull).  Called with no
 * buffer pinned: BuildIndexValueDescription may access catalogs.
 */
static void
report_violation(Relation index, Relation heapRel, Datum *values, bool *isnull)
{
	char	   *key_desc = BuildIndexValueDescription(index, values, isnull);

	ereport(ERROR,
			(errcode(ERRCODE_UNIQUE_VIOLATION),
			 errmsg("duplicate key value violates unique constraint \"%s\"",
					RelationGetRelationName(index)),
			 key_desc ? errdetail("Key %s already exists.", key_desc) : 0,
			 errtableconstraint(heapRel, RelationGetRelationName(index))));
}

/*
 * The scan of a check.  An INSERT of many rows checks each row with the
 * same IndexInfo: its first check makes the scan in the IndexInfo's context
 * (ii_AmCache), and each check parks it at its end (LearnedScanPark: no pin,
 * no directory, not counted as open) for the next one, whose rescan then
 * only takes new values and a new view; the memory goes with the
 * statement's.  A scan's start and end were a sixth of a 10-row INSERT's
 * instructions (bench/scan_instructions.sh).
 */
static IndexScanDesc
check_scan_open(Relation index, IndexInfo *indexInfo, int nkeys)
{
	IndexScanDesc scan;
	MemoryContext old;

	if (indexInfo != NULL && indexInfo->ii_AmCache != NULL)
	{
		scan = (IndexScanDesc) indexInfo->ii_AmCache;
		LearnedScanUnpark(scan);
		return scan;
	}
	old = MemoryContextSwitchTo(indexInfo ? indexInfo->ii_Context : CurrentMemoryContext);
	scan = learnedbeginscan(index, nkeys, 0);
	MemoryContextSwitchTo(old);
	if (indexInfo != NULL)
		indexInfo->ii_AmCache = scan;
	return scan;
}

static void
check_scan_close(IndexScanDesc scan, IndexInfo *indexInfo)
{
	if (indexInfo != NULL)
		LearnedScanPark(scan);
	else
	{
		learnedendscan(scan);
		IndexScanEnd(scan);
	}
}

/*
 * One pass of _bt_check_unique over both stages.  Sets *xwait / *spec_token
 * for UNIQUE_WAIT, *found_self for UNIQUE_CHECK_EXISTING, *seen to where
 * the scan stopped reading the pending list, and *ki to the scan's key
 * info if the scan stays (parked in the IndexInfo), else to NULL.
 */
static UniqueOutcome
check_once(Relation index, Relation heapRel, Datum *values, bool *isnull,
		   ItemPointer tid, IndexUniqueCheck checkUnique, IndexInfo *indexInfo,
		   TransactionId *xwait, uint32 *spec_token, bool *found_self,
		   uint64 *seen, LearnedKeyInfo **ki)
{
	SnapshotData SnapshotDirty;
	IndexScanDesc scan;
	ScanKeyData skeys[INDEX_MAX_KEYS];
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	int			i;
	UniqueOutcome outcome = UNIQUE_OK;

	InitDirtySnapshot(SnapshotDirty);
	*found_self = false;

	/* one equality (or IS NULL, with NULLS NOT DISTINCT) per key column */
	for (i = 0; i < nkeys; i++)
	{
		if (isnull[i])
			ScanKeyEntryInitialize(&skeys[i], SK_ISNULL | SK_SEARCHNULL, i + 1,
								   InvalidStrategy, InvalidOid, InvalidOid,
								   InvalidOid, (Datum) 0);
		else
			ScanKeyEntryInitializeWithInfo(&skeys[i], 0, i + 1, BTEqualStrategyNumber,
										   index->rd_opcintype[i],
										   index->rd_indcollation[i],
										   index_getprocinfo(index, i + 1, 1),
										   values[i]);
	}

	/*
	 * The ordinary scan code with a non-MVCC snapshot: it returns every
	 * entry not marked dead, from the static stage and from the pending
	 * list, and re-checks each pending entry on its (pinned) page.
	 */
	scan = check_scan_open(index, indexInfo, nkeys);
	scan->heapRelation = heapRel;
	scan->xs_snapshot = &SnapshotDirty;
	learnedrescan(scan, skeys, nkeys, NULL, 0);

	while (learnedgettuple(scan, ForwardScanDirection))
	{
		ItemPointerData htid = scan->xs_heaptid;
		bool		all_dead = false;

		CHECK_FOR_INTERRUPTS();
		scan->kill_prior_tuple = false;
		if (checkUnique == UNIQUE_CHECK_EXISTING &&
			ItemPointerCompare(&htid, tid) == 0)
		{
			/* the entry being rechecked: not a duplicate of itself */
			*found_self = true;
			continue;
		}

		/*
		 * Any tuple of the HOT chain visible to a dirty snapshot?  If none
		 * is visible to anyone, the next call hints the entry dead, as
		 * _bt_check_unique sets LP_DEAD, so the next check skips it.
		 */
		if (!table_index_fetch_tuple_check(heapRel, &htid, &SnapshotDirty,
										   &all_dead))
		{
			scan->kill_prior_tuple = all_dead;
			continue;
		}

		/* a duplicate */
		if (checkUnique == UNIQUE_CHECK_PARTIAL)
		{
			outcome = UNIQUE_MAYBE;
			break;
		}
		*xwait = TransactionIdIsValid(SnapshotDirty.xmin) ?
			SnapshotDirty.xmin : SnapshotDirty.xmax;
		if (TransactionIdIsValid(*xwait))
		{
			*spec_token = SnapshotDirty.speculativeToken;
			outcome = UNIQUE_WAIT;
			break;
		}

		/*
		 * A definite conflict, unless the tuple being inserted is itself
		 * dead by now (CREATE INDEX CONCURRENTLY inserts such tuples; as in
		 * btree, follow its HOT chain).  Then there is no error and no need
		 * to look further.
		 */
		htid = *tid;
		if (!table_index_fetch_tuple_check(heapRel, &htid, SnapshotSelf, NULL))
			break;
		outcome = UNIQUE_CONFLICT;
		break;
	}
	/* the view was taken by the first amgettuple, whatever it returned */
	*seen = LearnedScanPendingSeen(scan);
	*ki = indexInfo != NULL ? LearnedScanKeyInfo(scan) : NULL;
	check_scan_close(scan, indexInfo);
	return outcome;
}

/*
 * aminsert for a unique index (checkUnique != UNIQUE_CHECK_NO).
 *
 * UNIQUE_CHECK_YES: error on a definite conflict, wait for in-progress
 * conflicting transactions.  UNIQUE_CHECK_PARTIAL (ON CONFLICT arbiters,
 * deferred constraints): always insert; return false if a conflict is
 * possible, without waiting.  UNIQUE_CHECK_EXISTING (deferred recheck): the
 * entry is already in the index; only check.
 */
bool
LearnedUniqueInsert(Relation index, Datum *values, bool *isnull,
					ItemPointer tid, Relation heapRel,
					IndexUniqueCheck checkUnique, IndexInfo *indexInfo)
{
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	bool		anynull = false;
	int			i;
	bool		nulls_not_distinct = index->rd_index->indnullsnotdistinct;
	bool		is_unique = true;
	MemoryContext cxt;
	MemoryContext old;
	LearnedMetaPageData after;
	uint64		appended = 0;
	bool		appending = (checkUnique != UNIQUE_CHECK_EXISTING);
	LearnedKeyInfo own_ki;
	LearnedAppendCheck check;
	int			attempt = 0;

	for (i = 0; i < nkeys; i++)
		anynull |= isnull[i];

	/*
	 * NULL is distinct from everything, unless NULLS NOT DISTINCT: a key
	 * with a NULL in any column never conflicts (as in btree).
	 */
	if (anynull && !nulls_not_distinct)
	{
		if (appending)
		{
			(void) LearnedAppendEntry(index, values, isnull, tid, &after, &appended, NULL,
									  NULL);
			LearnedMaybeMerge(index, &after, appended);
		}
		return true;
	}

	cxt = AllocSetContextCreate(CurrentMemoryContext, "learned unique check",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	for (;;)
	{
		UniqueOutcome outcome;
		TransactionId xwait = InvalidTransactionId;
		uint32		spec_token = 0;
		bool		found_self;
		LearnedAppendResult res;

		outcome = check_once(index, heapRel, values, isnull, tid, checkUnique,
							 indexInfo, &xwait, &spec_token, &found_self,
							 &check.seen, &check.ki);

		if (outcome == UNIQUE_WAIT)
		{
			if (spec_token)
				SpeculativeInsertionWait(xwait, spec_token);
			else
				XactLockTableWait(xwait, index, tid, XLTW_InsertIndex);
			continue;
		}
		if (outcome == UNIQUE_CONFLICT)
		{
			/*
			 * (SSI: index_insert already checked for a conflict-in on the
			 * whole index, since the AM takes no page-level predicate locks,
			 * so the violation masks nothing.)
			 */
			MemoryContextSwitchTo(old);
			report_violation(index, heapRel, values, isnull);
		}
		if (outcome == UNIQUE_MAYBE)
			is_unique = false;
		if (checkUnique == UNIQUE_CHECK_EXISTING && !found_self)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("failed to re-find tuple within index \"%s\"",
							RelationGetRelationName(index)),
					 errhint("This may be because of a non-immutable index expression."),
					 errtableconstraint(heapRel,
										RelationGetRelationName(index))));
		if (!appending)
			break;
		if (check.seen == PG_UINT64_MAX)
			elog(ERROR, "learned index \"%s\": a unique check read no view of the pending list",
				 RelationGetRelationName(index));

		/*
		 * The key info for the append's comparisons, which run under buffer
		 * locks, where loading it (a metapage read) must not happen: the
		 * parked scan's, which lives as long as the statement, or our own.
		 */
		if (check.ki == NULL)
		{
			LearnedKeyInfoForScan(index, &own_ki);
			check.ki = &own_ki;
		}

		/* the race tests' window between the check and the append */
		if (attempt++ == 0)
			learned_fault("unique-before-append");

		/*
		 * A PARTIAL check that found a possible conflict inserts anyway: it
		 * has its answer, and a key appended since cannot change it.
		 */
		res = LearnedAppendEntry(index, values, isnull, tid, &after, &appended,
								 is_unique ? &check : NULL, NULL);
		if (res == LEARNED_APPEND_DONE)
			break;

		/*
		 * An equal key was appended after the scan read the list, or the
		 * list moved on past the tail page it read: check again (the new
		 * scan reads those entries).  A check takes microseconds and a tail
		 * page holds hundreds of entries, so a retry is rare and the next
		 * one all but never needed; each is interruptible.
		 */
		MemoryContextReset(cxt);
		CHECK_FOR_INTERRUPTS();
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	if (appending)
		LearnedMaybeMerge(index, &after, appended);
	return is_unique;
}

static int
tid_cmp(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) a, (ItemPointer) b);
}

/* does a stored key have a NULL in a key column? */
static bool
key_has_null(LearnedKeyInfo *ki, Datum key)
{
	int			i;
	bool		isnull;

	if (!LearnedKeyIsComposite(ki))
		return false;			/* single-column NULLs are kept apart */
	for (i = 0; i < ki->nkeys; i++)
	{
		(void) LearnedKeyColumn(ki, key, i, &isnull);
		if (isnull)
			return true;
	}
	return false;
}

/*
 * CREATE UNIQUE INDEX / REINDEX: after the build's sort, equal keys are
 * adjacent (sorted by mapped key, then, where the mapping is not exact, by
 * the comparator, then by TID).  Only live tuples count, as in btree
 * (which spools dead ones apart): a run of equal keys is a violation if at
 * least two of its TIDs are not among the dead ones.  dead[] lists the TIDs
 * the build scan reported as not alive (recently dead tuples still indexed);
 * live_nulls counts the live NULL keys of a single-column index (a
 * violation only with NULLS NOT DISTINCT).  Composite keys keep their NULL
 * columns inline: a key with a NULL column is never a duplicate, unless
 * NULLS NOT DISTINCT.
 */
void
LearnedUniqueCheckBuild(Relation heap, Relation index, LearnedKeyInfo *ki,
						const LearnedEntry *entries, Size n,
						ItemPointerData *dead, Size ndead, Size live_nulls)
{
	Size		i = 0;
	bool		exact = LearnedKeyMapExact(ki);
	bool		nulls_not_distinct = index->rd_index->indnullsnotdistinct;

	if (ndead > 1)
		qsort(dead, ndead, sizeof(ItemPointerData), tid_cmp);

	while (i < n)
	{
		Size		j = i + 1;
		Size		live = 0;
		Size		k;

		while (j < n && entries[j].mkey == entries[i].mkey &&
			   (exact || LearnedKeyCmp(ki, entries[j].key, entries[i].key) == 0))
			j++;
		if (j - i > 1 && (nulls_not_distinct || !key_has_null(ki, entries[i].key)))
		{
			for (k = i; k < j && live < 2; k++)
			{
				if (ndead == 0 ||
					bsearch(&entries[k].tid, dead, ndead, sizeof(ItemPointerData),
							tid_cmp) == NULL)
					live++;
			}
			if (live >= 2)
			{
				Datum		values[INDEX_MAX_KEYS];
				bool		nulls[INDEX_MAX_KEYS];
				char	   *key_desc;

				if (LearnedKeyIsComposite(ki))
					LearnedKeyDeform(ki, entries[i].key, values, nulls);
				else
				{
					values[0] = entries[i].key;
					nulls[0] = false;
				}
				key_desc = BuildIndexValueDescription(index, values, nulls);
				ereport(ERROR,
						(errcode(ERRCODE_UNIQUE_VIOLATION),
						 errmsg("could not create unique index \"%s\"",
								RelationGetRelationName(index)),
						 key_desc ? errdetail("Key %s is duplicated.", key_desc) :
						 errdetail("Duplicate keys exist."),
						 errtableconstraint(heap, RelationGetRelationName(index))));
			}
		}
		i = j;
	}

	if (live_nulls > 1 && index->rd_index->indnullsnotdistinct)
	{
		Datum		value = (Datum) 0;
		bool		null = true;
		char	   *key_desc = BuildIndexValueDescription(index, &value, &null);

		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("could not create unique index \"%s\"",
						RelationGetRelationName(index)),
				 key_desc ? errdetail("Key %s is duplicated.", key_desc) :
				 errdetail("Duplicate keys exist."),
				 errtableconstraint(heap, RelationGetRelationName(index))));
	}
}
