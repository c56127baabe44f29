/*
 * insert.c
 *		aminsert: a unique index checks first (unique.c); the entry goes to
 *		the pending list's tail (tail.c); the merge trigger runs after the
 *		append either way (merge.c).
 */
#include "postgres.h"

#include "nodes/execnodes.h"

#include "learned.h"

/*
 * aminsert.  Unique indexes check first, and their append verifies the
 * check (unique.c); the merge trigger runs after the append either way, on
 * a fresh copy of the metapage or, after an append that did not read it,
 * on this backend's older copy (LearnedMaybeMergeStale).
 */
bool
learnedinsert(Relation index, Datum *values, bool *isnull,
			  ItemPointer ht_ctid, Relation heapRel,
			  IndexUniqueCheck checkUnique, bool indexUnchanged,
			  IndexInfo *indexInfo)
{
	LearnedMetaPageData after;
	uint64		appended;
	bool		stale;

	if (checkUnique != UNIQUE_CHECK_NO)
		return LearnedUniqueInsert(index, values, isnull, ht_ctid, heapRel,
								   checkUnique, indexInfo);
	(void) LearnedAppendEntry(index, values, isnull, ht_ctid, &after, &appended,
							  NULL, &stale);
	if (stale)
		LearnedMaybeMergeStale(index, &after, appended);
	else
		LearnedMaybeMerge(index, &after, appended);
	return false;
}
