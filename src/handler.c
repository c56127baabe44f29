/*
 * handler.c
 *		The access method handler, reloptions, amvalidate, cost estimation
 *		and build phase names.
 */
#include "postgres.h"

#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "access/reloptions.h"
#include "access/stratnum.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type_d.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "nodes/pathnodes.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/guc.h"
#include "utils/index_selfuncs.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "learned.h"

PG_MODULE_MAGIC;

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

	add_int_reloption(learned_relopt_kind, "pending_limit",
					  "Merge the pending list when it exceeds this many kB (-1: learned_idx.pending_limit)",
					  -1, -1, LEARNED_MAX_PENDING_LIMIT,
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
							   "Test only: raise an error (name) or a PANIC (name:panic) at a named merge step.",
							   NULL, &learned_fail_point, "",
							   PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);

	DefineCustomIntVariable("learned_idx.map_columns",
							"Experiments: pack at most this many leading columns of a composite key into the models' key image at CREATE INDEX (0: as many as fit).",
							NULL, &learned_map_columns_guc,
							0, 0, INDEX_MAX_KEYS,
							PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);

	MarkGUCPrefixReserved("learned_idx");
}

static bytea *
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
	/* the range has a hole (0..63) that the generic check cannot express */
	if (validate && opts &&
		opts->pending_limit >= 0 && opts->pending_limit < LEARNED_MIN_PENDING_LIMIT)
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
 * raises an ERROR at that point, 'name:panic' a PANIC.
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
}

static bool
learnedcanreturn(Relation index, int attno)
{
	return attno >= 1 && attno <= IndexRelationGetNumberOfAttributes(index);
}

static char *
learnedbuildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case LEARNED_PHASE_SCAN:
			return "scanning table";
		case LEARNED_PHASE_SORT:
			return "sorting keys";
		case LEARNED_PHASE_LOAD:
			return "writing leaf pages";
		case LEARNED_PHASE_TRAIN:
			return "training models";
		default:
			return NULL;
	}
}

/*
 * Costs: the learned index answers btree's questions (same strategies, same
 * selectivities), so btree's estimator applies.  It charges a descent of
 * log100(pages), and our pages are fewer, so the estimate favours the
 * smaller index, as it should.
 */
static void
learnedcostestimate(PlannerInfo *root, IndexPath *path, double loop_count,
					Cost *indexStartupCost, Cost *indexTotalCost,
					Selectivity *indexSelectivity, double *indexCorrelation,
					double *indexPages)
{
	btcostestimate(root, path, loop_count, indexStartupCost, indexTotalCost,
				   indexSelectivity, indexCorrelation, indexPages);
}

/*
 * Report an opclass problem at INFO, as the core amvalidate functions do.
 */
static void
validate_report(const char *family, const char *what)
{
	ereport(INFO,
			(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
			 errmsg("operator family \"%s\" of access method %s %s",
					family, "learned", what)));
}

/*
 * Check an operator class and its family: btree strategies 1..5 with
 * boolean binary operators, support function 1 as a btree comparator
 * int4(left, right), on a supported key type, and for every type pair that
 * has operators a complete set of five plus a comparator.
 */
static bool
learnedvalidate(Oid opclassoid)
{
	bool		result = true;
	HeapTuple	classtup;
	HeapTuple	familytup;
	Form_pg_opclass classform;
	Oid			opfamilyoid;
	Oid			opcintype;
	char	   *family;
	CatCList   *oprlist;
	CatCList   *proclist;
	List	   *grouplist;
	ListCell   *lc;
	bool		found_own = false;
	int			i;

	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	opfamilyoid = classform->opcfamily;
	opcintype = classform->opcintype;

	familytup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(opfamilyoid));
	if (!HeapTupleIsValid(familytup))
		elog(ERROR, "cache lookup failed for operator family %u", opfamilyoid);
	family = pstrdup(NameStr(((Form_pg_opfamily) GETSTRUCT(familytup))->opfname));

	if (!learned_type_supported(opcintype))
	{
		validate_report(family, psprintf("has operator class \"%s\" for unsupported type %s",
										 NameStr(classform->opcname),
										 format_type_be(opcintype)));
		result = false;
	}

	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));
	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));

	for (i = 0; i < proclist->n_members; i++)
	{
		Form_pg_amproc proc = (Form_pg_amproc) GETSTRUCT(&proclist->members[i]->tuple);

		if (proc->amprocnum != 1)
		{
			validate_report(family, psprintf("contains function %s with invalid support number %d",
											 format_procedure(proc->amproc),
											 proc->amprocnum));
			result = false;
		}
		else if (!check_amproc_signature(proc->amproc, INT4OID, true, 2, 2,
										 proc->amproclefttype,
										 proc->amprocrighttype))
		{
			validate_report(family, psprintf("contains function %s with wrong signature for support number 1",
											 format_procedure(proc->amproc)));
			result = false;
		}
	}

	for (i = 0; i < oprlist->n_members; i++)
	{
		Form_pg_amop op = (Form_pg_amop) GETSTRUCT(&oprlist->members[i]->tuple);

		if (op->amopstrategy < 1 || op->amopstrategy > BTMaxStrategyNumber)
		{
			validate_report(family, psprintf("contains operator %s with invalid strategy number %d",
											 format_operator(op->amopopr),
											 op->amopstrategy));
			result = false;
		}
		if (op->amoppurpose != AMOP_SEARCH || OidIsValid(op->amopsortfamily))
		{
			validate_report(family, psprintf("contains ORDER BY operator %s, which is not supported",
											 format_operator(op->amopopr)));
			result = false;
		}
		if (!check_amop_signature(op->amopopr, BOOLOID,
								  op->amoplefttype, op->amoprighttype))
		{
			validate_report(family, psprintf("contains operator %s with wrong signature",
											 format_operator(op->amopopr)));
			result = false;
		}
	}

	/* every type pair: all five strategies and a comparator */
	grouplist = identify_opfamily_groups(oprlist, proclist);
	foreach(lc, grouplist)
	{
		OpFamilyOpFuncGroup *g = (OpFamilyOpFuncGroup *) lfirst(lc);
		uint64		all = 0;
		int			s;

		for (s = 1; s <= BTMaxStrategyNumber; s++)
			all |= ((uint64) 1) << s;
		if ((g->operatorset & all) != all || (g->functionset & (((uint64) 1) << 1)) == 0)
		{
			validate_report(family, psprintf("is missing operators or support function 1 for types %s and %s",
											 format_type_be(g->lefttype),
											 format_type_be(g->righttype)));
			result = false;
		}
		if (g->lefttype == opcintype && g->righttype == opcintype)
			found_own = true;
	}
	if (!found_own)
	{
		validate_report(family, psprintf("has operator class \"%s\" without operators for its own type",
										 NameStr(classform->opcname)));
		result = false;
	}

	ReleaseCatCacheList(proclist);
	ReleaseCatCacheList(oprlist);
	ReleaseSysCache(familytup);
	ReleaseSysCache(classtup);
	return result;
}

PG_FUNCTION_INFO_V1(learned_handler);

Datum
learned_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine = makeNode(IndexAmRoutine);

	amroutine->amstrategies = BTMaxStrategyNumber;
	amroutine->amsupport = 1;
	amroutine->amoptsprocnum = 0;
	amroutine->amcanorder = true;
	amroutine->amcanorderbyop = false;
	/* direction never changes mid-scan; scroll cursors get a Material node */
	amroutine->amcanbackward = false;
	/* unique: single key column only (unique.c rejects more) */
	amroutine->amcanunique = true;
	amroutine->amcanmulticol = true;
	amroutine->amoptionalkey = true;
	amroutine->amsearcharray = true;
	amroutine->amsearchnulls = true;
	amroutine->amstorage = false;
	/* CLUSTER would scan with SnapshotAny */
	amroutine->amclusterable = false;
	amroutine->ampredlocks = false;
	amroutine->amcanparallel = false;
	amroutine->amcaninclude = true;
	amroutine->amusemaintenanceworkmem = false;
	/* bulkdelete merges and takes the merge lock: keep it in the leader */
	amroutine->amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL;
	amroutine->amkeytype = InvalidOid;

	amroutine->ambuild = learnedbuild;
	amroutine->ambuildempty = learnedbuildempty;
	amroutine->aminsert = learnedinsert;
	amroutine->ambulkdelete = learnedbulkdelete;
	amroutine->amvacuumcleanup = learnedvacuumcleanup;
	amroutine->amcanreturn = learnedcanreturn;
	amroutine->amcostestimate = learnedcostestimate;
	amroutine->amoptions = learnedoptions;
	amroutine->amproperty = NULL;
	amroutine->ambuildphasename = learnedbuildphasename;
	amroutine->amvalidate = learnedvalidate;
	amroutine->amadjustmembers = NULL;
	amroutine->ambeginscan = learnedbeginscan;
	amroutine->amrescan = learnedrescan;
	amroutine->amgettuple = learnedgettuple;
	amroutine->amgetbitmap = learnedgetbitmap;
	amroutine->amendscan = learnedendscan;
	amroutine->ammarkpos = learnedmarkpos;
	amroutine->amrestrpos = learnedrestrpos;
	amroutine->amestimateparallelscan = NULL;
	amroutine->aminitparallelscan = NULL;
	amroutine->amparallelrescan = NULL;

	PG_RETURN_POINTER(amroutine);
}
