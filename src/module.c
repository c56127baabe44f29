/*
 * module.c
 *		What the module holds for a backend: _PG_init with its GUCs and
 *		reloptions and their getters, the fault points of the tests, this
 *		backend's open scans (which a merge asks about), and the privilege
 *		gate of the SQL functions (LearnedOpenIndexChecked).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/reloptions.h"
#include "access/table.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "utils/wait_event.h"

#include "learned.h"

LI_MODULE_MAGIC;

static relopt_kind learned_relopt_kind;

static relopt_enum_elt_def learned_mode_values[] = {
	{"auto", LEARNED_MODE_AUTO},
	{"model", LEARNED_MODE_MODEL},
	{"zonemap", LEARNED_MODE_ZONEMAP},
	{(const char *) NULL}
};

static relopt_enum_elt_def learned_compression_values[] = {
	{"on", LEARNED_COMPRESSION_ON},
	{"off", LEARNED_COMPRESSION_OFF},
	{(const char *) NULL}
};

int			learned_pending_limit_guc = LEARNED_DEFAULT_PENDING_LIMIT;
int			learned_log_merge_min_duration = -1;
bool		learned_auto_merge = true;
int			learned_tail_limit = LEARNED_DEFAULT_TAIL_LIMIT;
int			learned_merge_step_segments = 0;
char	   *learned_fail_point = NULL;
int			learned_map_columns_guc = 0;

void		_PG_init(void);

/*
 * Register the reloptions once per backend.
 */
void
_PG_init(void)
{
	learned_relopt_kind = add_reloption_kind();

	add_int_reloption(learned_relopt_kind, "error_bound",
					  "Maximum model error in entries (epsilon); frozen at build",
					  LEARNED_DEFAULT_ERROR_BOUND,
					  LEARNED_MIN_ERROR_BOUND, LEARNED_MAX_ERROR_BOUND,
					  AccessExclusiveLock);
	add_real_reloption(learned_relopt_kind, "merge_ratio",
					   "Merge the pending list when it exceeds static entries / merge_ratio",
					   LEARNED_DEFAULT_MERGE_RATIO,
					   LEARNED_MIN_MERGE_RATIO, LEARNED_MAX_MERGE_RATIO,
					   ShareUpdateExclusiveLock);

	/*
	 * Bounds checked by learnedoptions: the valid range has a hole (0..63),
	 * and the generic check's message would name -1..max for every value.
	 */
	add_int_reloption(learned_relopt_kind, "pending_limit",
					  "Merge the pending list when it exceeds this many kB (-1: learned_idx.pending_limit)",
					  -1, INT_MIN, INT_MAX,
					  ShareUpdateExclusiveLock);

	add_enum_reloption(learned_relopt_kind, "mode",
					   "Segment kind built by CREATE INDEX and merges: auto, model or zonemap",
					   learned_mode_values, LEARNED_MODE_AUTO,
					   "Valid values are \"auto\", \"model\" and \"zonemap\".",
					   ShareUpdateExclusiveLock);

	add_enum_reloption(learned_relopt_kind, "compression",
					   "Compressed leaf pages for segments written by CREATE INDEX and merges: on or off",
					   learned_compression_values, LEARNED_DEFAULT_COMPRESSION,
					   "Valid values are \"on\" and \"off\".",
					   ShareUpdateExclusiveLock);

	add_bool_reloption(learned_relopt_kind, "vacuum_truncate",
					   "VACUUM gives a free tail of the index back to the file system, as vacuum_truncate does for a table",
					   true, ShareUpdateExclusiveLock);

	DefineCustomIntVariable("learned_idx.pending_limit",
							"Default pending list size, in kB, that triggers a merge.",
							NULL, &learned_pending_limit_guc,
							LEARNED_DEFAULT_PENDING_LIMIT,
							LEARNED_MIN_PENDING_LIMIT, LEARNED_MAX_PENDING_LIMIT,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("learned_idx.tail_limit",
							"Unsorted pending entries after which an insert flushes them into a sorted run.",
							"Each backend keeps a sorted copy of the unsorted tail only.  Zero: never flush.",
							&learned_tail_limit, LEARNED_DEFAULT_TAIL_LIMIT, 0, INT_MAX / 2,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("learned_idx.merge_step_segments",
							"Segments one step of a swept main merge rewrites.",
							"Zero: an eighth of the static stage's segments.  -1: no sweep, a main merge rewrites every segment it reaches in one step.",
							&learned_merge_step_segments, 0, -1, INT_MAX / 2,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("learned_idx.auto_merge",
							 "Lets this session's inserts start merges of learned indexes.",
							 "Off: inserts never merge nor start a merge worker; VACUUM and learned_index_merge() still merge.",
							 &learned_auto_merge, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("learned_idx.log_merge_min_duration",
							"Sets the minimum execution time above which learned index merges are logged.",
							"Zero logs every merge; -1 turns this logging off.",
							&learned_log_merge_min_duration,
							-1, -1, INT_MAX,
							PGC_SUSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomStringVariable("learned_idx.fail_point",
							   "Test only: raise an error (name) or a PANIC (name:panic) at a named step, or wait there (name:sleep).",
							   NULL, &learned_fail_point, "",
							   PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);

	DefineCustomIntVariable("learned_idx.map_columns",
							"Experiments: pack at most this many leading columns of a composite key into the models' key image at CREATE INDEX (0: as many as fit).",
							NULL, &learned_map_columns_guc,
							0, 0, INDEX_MAX_KEYS,
							PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);

	MarkGUCPrefixReserved("learned_idx");
}

bytea *
learnedoptions(Datum reloptions, bool validate)
{
	static const relopt_parse_elt tab[] = {
		{"error_bound", RELOPT_TYPE_INT, offsetof(LearnedOptions, error_bound)},
		{"merge_ratio", RELOPT_TYPE_REAL, offsetof(LearnedOptions, merge_ratio)},
		{"pending_limit", RELOPT_TYPE_INT, offsetof(LearnedOptions, pending_limit)},
		{"mode", RELOPT_TYPE_ENUM, offsetof(LearnedOptions, mode)},
		{"compression", RELOPT_TYPE_ENUM, offsetof(LearnedOptions, compression)},
		{"vacuum_truncate", RELOPT_TYPE_BOOL, offsetof(LearnedOptions, vacuum_truncate)},
	};

	LearnedOptions *opts;

	opts = (LearnedOptions *) build_reloptions(reloptions, validate,
											   learned_relopt_kind,
											   sizeof(LearnedOptions),
											   tab, lengthof(tab));
	/* -1, or LEARNED_MIN_PENDING_LIMIT to LEARNED_MAX_PENDING_LIMIT */
	if (validate && opts && opts->pending_limit != -1 &&
		(opts->pending_limit < LEARNED_MIN_PENDING_LIMIT ||
		 opts->pending_limit > LEARNED_MAX_PENDING_LIMIT))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("value %d out of bounds for option \"pending_limit\"",
						opts->pending_limit),
				 errdetail("Valid values are -1 (use learned_idx.pending_limit) and between \"%d\" and \"%d\".",
						   LEARNED_MIN_PENDING_LIMIT, LEARNED_MAX_PENDING_LIMIT)));
	return (bytea *) opts;
}

int
learned_get_error_bound(Relation index)
{
	LearnedOptions *opts = (LearnedOptions *) index->rd_options;

	return opts ? opts->error_bound : LEARNED_DEFAULT_ERROR_BOUND;
}

double
learned_get_merge_ratio(Relation index)
{
	LearnedOptions *opts = (LearnedOptions *) index->rd_options;

	return opts ? opts->merge_ratio : LEARNED_DEFAULT_MERGE_RATIO;
}

int
learned_get_mode(Relation index)
{
	LearnedOptions *opts = (LearnedOptions *) index->rd_options;

	return opts ? opts->mode : LEARNED_MODE_AUTO;
}

int
learned_get_compression(Relation index)
{
	LearnedOptions *opts = (LearnedOptions *) index->rd_options;

	return opts ? opts->compression : LEARNED_DEFAULT_COMPRESSION;
}

bool
learned_get_vacuum_truncate(Relation index)
{
	LearnedOptions *opts = (LearnedOptions *) index->rd_options;

	return opts ? opts->vacuum_truncate : true;
}

const char *
learned_mode_name(int mode)
{
	switch (mode)
	{
		case LEARNED_MODE_MODEL:
			return "model";
		case LEARNED_MODE_ZONEMAP:
			return "zonemap";
		default:
			return "auto";
	}
}

int
learned_get_pending_limit(Relation index)
{
	LearnedOptions *opts = (LearnedOptions *) index->rd_options;

	if (opts && opts->pending_limit >= LEARNED_MIN_PENDING_LIMIT)
		return opts->pending_limit;
	return learned_pending_limit_guc;
}

/*
 * Fault injection for the crash tests: learned_idx.fail_point = 'name'
 * raises an ERROR at that point, 'name:panic' a PANIC, and 'name:sleep'
 * waits there for three seconds (wait event PgSleep, so that a test sees
 * it in pg_stat_activity and acts meanwhile: the race tests).
 */
void
learned_fault(const char *point)
{
	size_t		len;

	if (learned_fail_point == NULL || learned_fail_point[0] == '\0')
		return;
	len = strlen(point);
	if (strncmp(learned_fail_point, point, len) != 0)
		return;
	if (learned_fail_point[len] == '\0')
		elog(ERROR, "learned_idx fault injected at \"%s\"", point);
	if (strcmp(learned_fail_point + len, ":panic") == 0)
		elog(PANIC, "learned_idx fault injected at \"%s\"", point);
	if (strcmp(learned_fail_point + len, ":sleep") == 0)
	{
		int			i;

		for (i = 0; i < 30; i++)
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 100, WAIT_EVENT_PG_SLEEP);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
}

/*
 * This backend's open learned index scans (ambeginscan to amendscan, the
 * unique check's included), counted per top transaction: a scan never
 * outlives its transaction (a holdable cursor is materialised before the
 * commit), and one that an ERROR abandoned without amendscan is forgotten
 * at the next transaction instead of counting for good.  Garbage
 * collection may leave this backend's own snapshot out of its horizon only
 * when it has none open (merge.c, gc_horizon and the flip witness): a scan
 * opened later reads the current metapage.
 */
static int	open_scans = 0;
static LocalTransactionId open_scans_lxid = InvalidLocalTransactionId;

static LocalTransactionId
my_lxid(void)
{
	VirtualTransactionId vxid;

	GET_VXID_FROM_PGPROC(vxid, *MyProc);
	return vxid.localTransactionId;
}

void
LearnedScanOpened(void)
{
	LocalTransactionId lxid = my_lxid();

	if (lxid != open_scans_lxid)
	{
		open_scans = 0;
		open_scans_lxid = lxid;
	}
	open_scans++;
}

void
LearnedScanClosed(void)
{
	if (my_lxid() == open_scans_lxid && open_scans > 0)
		open_scans--;
}

bool
LearnedNoOpenScans(void)
{
	return my_lxid() != open_scans_lxid || open_scans == 0;
}

/*
 * The gate of the SQL functions (learned_index_info, _segments, _check,
 * _merge): open a learned index for the caller, or raise an ERROR.
 *
 * The functions show keys and counts, or do work in proportion to the
 * table, so they follow amcheck: the extension script revokes EXECUTE from
 * PUBLIC, and beyond that the caller must be allowed to SELECT from the
 * indexed table, or own it; with owner_only (a merge writes the index),
 * only its owner passes.  The table is the one the index belongs to, found
 * in pg_index: an index has no privileges of its own.  The check comes
 * before any lock, so a role that may not read the table cannot block it
 * either, and before anything is read from the index.
 *
 * Locks are taken as every other path takes them, table first, then index
 * (amcheck's verify_nbtree.c does the same), and since the table was
 * looked up without a lock, the index's table is looked up again once both
 * are held: the index may have been dropped, and its OID reused, meanwhile.
 *
 * action names what the caller does ("inspect", "merge") in the messages.
 * Returns the index opened with lockmode; the table, locked with lockmode
 * too, goes to *heap_out (opened) or stays locked to the end of the
 * transaction (heap_out NULL).
 */
Relation
LearnedOpenIndexChecked(Oid indexoid, LOCKMODE lockmode, const char *action,
						bool owner_only, Relation *heap_out)
{
	Oid			heapoid = IndexGetRelation(indexoid, true);
	Oid			userid = GetUserId();
	Oid			learned_am = get_index_am_oid("learned", false);
	Relation	heap;
	Relation	index;
	HeapTuple	tup;
	Oid			relam;

	/* what the relation is, from the catalog that every role may read */
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(indexoid));
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", indexoid)));
	relam = ((Form_pg_class) GETSTRUCT(tup))->relam;
	if (!OidIsValid(heapoid) || relam != learned_am)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a learned index",
						NameStr(((Form_pg_class) GETSTRUCT(tup))->relname))));
	ReleaseSysCache(tup);

	if (!pg_class_ownercheck(heapoid, userid) &&
		(owner_only || pg_class_aclcheck(heapoid, userid, ACL_SELECT) != ACLCHECK_OK))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to %s learned index \"%s\"",
						action, get_rel_name(indexoid)),
				 owner_only ?
				 errdetail("Only the owner of table \"%s\" can %s its indexes.",
						   get_rel_name(heapoid), action) :
				 errdetail("The index holds the keys and row counts of table \"%s\": only "
						   "a role that may SELECT from the table, or owns it, can %s it.",
						   get_rel_name(heapoid), action),
				 owner_only ? 0 :
				 errhint("GRANT SELECT on the table to the role, as for reading its rows.")));

	heap = table_open(heapoid, lockmode);
	index = index_open(indexoid, lockmode);
	if (IndexGetRelation(indexoid, false) != heapoid)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("could not open the table of index \"%s\"",
						RelationGetRelationName(index)),
				 errdetail("The index was dropped and its OID reused during the call.")));

	if (index->rd_rel->relam == learned_am &&
		index->rd_rel->relkind == RELKIND_PARTITIONED_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a partitioned index", RelationGetRelationName(index)),
				 errdetail("A partitioned index has no pages of its own: each partition of "
						   "table \"%s\" has its own learned index.",
						   RelationGetRelationName(heap)),
				 errhint("Call the function on the partitions' indexes; "
						 "SELECT relid FROM pg_partition_tree(%s) WHERE isleaf lists them.",
						 quote_literal_cstr(DatumGetCString(DirectFunctionCall1(regclassout,
																				ObjectIdGetDatum(indexoid)))))));
	if (index->rd_rel->relam != learned_am)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a learned index", RelationGetRelationName(index))));
	if (RELATION_IS_OTHER_TEMP(index))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary indexes of other sessions")));

	if (heap_out)
		*heap_out = heap;
	else
		table_close(heap, NoLock);
	return index;
}
