/*
 * handler.c
 *		The access method handler: the routine table, amvalidate, cost
 *		estimation, amcanreturn and the build phase names.  The module's
 *		settings and the SQL functions' privilege gate are in module.c.
 */
#include "postgres.h"

#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/index.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "nodes/pathnodes.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/index_selfuncs.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "learned.h"

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

#ifdef LEARNED_HAVE_TREEHEIGHT
/*
 * btcostestimate (our cost estimate) charges (tree_height + 1) pages per
 * descent: the inner levels and the leaf, but not btree's metapage, which
 * it keeps in the relcache.  A learned search reads the leaf window
 * (usually one page) that the model, kept in backend memory, points to:
 * no inner level, whatever the index's size, so 0.  (Without it the
 * planner assumes -1 and charges nothing, not even the leaf page.)
 */
static int
learnedgettreeheight(Relation rel)
{
	return 0;
}
#endif

/*
 * The access method, written once; fields that majors after 15 added
 * (amsummarizing, amcanbuildparallel, aminsertcleanup, amcanhash) are left
 * zero: false, NULL; compat.h adds the ones a major needs.
 */
static const IndexAmRoutine learned_amroutine = {
	.type = T_IndexAmRoutine,
	.amstrategies = BTMaxStrategyNumber,
	.amsupport = 1,
	.amoptsprocnum = 0,
	.amcanorder = true,
	.amcanorderbyop = false,
	/* direction never changes mid-scan; scroll cursors get a Material node */
	.amcanbackward = false,
	/* unique: single key column only (unique.c rejects more) */
	.amcanunique = true,
	.amcanmulticol = true,
	.amoptionalkey = true,
	.amsearcharray = true,
	.amsearchnulls = true,
	.amstorage = false,
	/* CLUSTER would scan with SnapshotAny */
	.amclusterable = false,
	.ampredlocks = false,
	.amcanparallel = false,
	.amcaninclude = true,
	.amusemaintenanceworkmem = false,
	/* bulkdelete merges and takes the merge lock: keep it in the leader */
	.amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL,
	.amkeytype = InvalidOid,

	.ambuild = learnedbuild,
	.ambuildempty = learnedbuildempty,
	.aminsert = learnedinsert,
	.ambulkdelete = learnedbulkdelete,
	.amvacuumcleanup = learnedvacuumcleanup,
	.amcanreturn = learnedcanreturn,
	.amcostestimate = learnedcostestimate,
	.amoptions = learnedoptions,
	.amproperty = NULL,
	.ambuildphasename = learnedbuildphasename,
	.amvalidate = learnedvalidate,
	.amadjustmembers = NULL,
	.ambeginscan = learnedbeginscan,
	.amrescan = learnedrescan,
	.amgettuple = learnedgettuple,
	.amgetbitmap = learnedgetbitmap,
	.amendscan = learnedendscan,
	.ammarkpos = learnedmarkpos,
	.amrestrpos = learnedrestrpos,
	.amestimateparallelscan = NULL,
	.aminitparallelscan = NULL,
	.amparallelrescan = NULL,
	LI_AMROUTINE_SINCE_18
#ifdef LEARNED_HAVE_TREEHEIGHT
	.amgettreeheight = learnedgettreeheight,
#endif
};

PG_FUNCTION_INFO_V1(learned_handler);

Datum
learned_handler(PG_FUNCTION_ARGS)
{
	LI_RETURN_AMROUTINE(learned_amroutine);
}
