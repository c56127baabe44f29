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
 * check (unique.c); the merge trigger runs after the append either way.
 */
bool
learnedinsert(Relation index, Datum *values, bool *isnull,
			  ItemPointer ht_ctid, Relation heapRel,
			  IndexUniqueCheck checkUnique, bool indexUnchanged,
			  IndexInfo *indexInfo)
{
	LearnedMetaPageData after;
	uint64		appended;

	if (checkUnique != UNIQUE_CHECK_NO)
		return LearnedUniqueInsert(index, values, isnull, ht_ctid, heapRel,
								   checkUnique, indexInfo);
	(void) LearnedAppendEntry(index, values, isnull, ht_ctid, &after, &appended, NULL);
	LearnedMaybeMerge(index, &after, appended);
	return false;
}
