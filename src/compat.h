/*
 * compat.h
 *		What differs between the PostgreSQL majors learned_idx builds against
 *		(15, 16, 17, 18, 19): every PG_VERSION_NUM test of the tree is here.
 *
 * The rest of the source is written against PostgreSQL 15's API; this header
 * maps each name that a later major renamed or removed onto that major's
 * equivalent, so call sites stay the same on every major.  Where a name only
 * lost an argument's meaning (vacuum_delay_point(bool)) or disappeared
 * because the feature went away (TestForOldSnapshot, with
 * old_snapshot_threshold in 17), the old spelling is kept as a macro.  Where
 * no such spelling fits (the relfilenode rename, the collation internals),
 * a small li_ helper names what the code needs.
 *
 * Included by learned.h, so every file sees it.
 */
#ifndef LEARNED_COMPAT_H
#define LEARNED_COMPAT_H

#include "access/amapi.h"
#include "catalog/pg_collation_d.h"
#include "commands/vacuum.h"
#include "mb/pg_wchar.h"
#include "storage/bufpage.h"
#include "storage/smgr.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"

#if PG_VERSION_NUM < 150000
#error "learned_idx needs PostgreSQL 15 or later"
#endif

/*
 * The module's magic block: 18 can carry the extension's name and version
 * (shown by pg_get_loaded_modules()).
 */
#ifndef LEARNED_IDX_VERSION
#define LEARNED_IDX_VERSION "0.1"
#endif
#if PG_VERSION_NUM >= 180000
#define LI_MODULE_MAGIC \
	PG_MODULE_MAGIC_EXT(.name = "learned_idx", .version = LEARNED_IDX_VERSION)
#else
#define LI_MODULE_MAGIC PG_MODULE_MAGIC
#endif

/*
 * A relation's physical file: RelFileNode (15) became RelFileLocator in 16
 * (rd_node -> rd_locator, relNode -> relNumber, smgr_rnode ->
 * smgr_rlocator).
 */
#if PG_VERSION_NUM >= 160000
typedef RelFileLocator LiRelFile;
#define LI_REL_FILE(rel)			((rel)->rd_locator)
#define LI_REL_FILE_NUMBER(rel)		((rel)->rd_locator.relNumber)
#define LI_SMGR_FILE(smgr)			(&(smgr)->smgr_rlocator.locator)
#define LiRelFileEquals(a, b)		RelFileLocatorEquals(a, b)
#else
typedef RelFileNode LiRelFile;
#define LI_REL_FILE(rel)			((rel)->rd_node)
#define LI_REL_FILE_NUMBER(rel)		((rel)->rd_node.relNode)
#define LI_SMGR_FILE(smgr)			(&(smgr)->smgr_rnode.node)
#define LiRelFileEquals(a, b)		RelFileNodeEquals(a, b)
#endif

/*
 * A page written with smgrwrite: 16's direct I/O wants it aligned to
 * PG_IO_ALIGN_SIZE (an assertion in md.c checks).
 */
#if PG_VERSION_NUM < 160000
typedef PGAlignedBlock PGIOAlignedBlock;
#endif

/* 16 replaced the per-catalog ownership checks with object_ownercheck */
#if PG_VERSION_NUM >= 160000
#include "catalog/pg_class.h"
#include "utils/acl.h"
#define pg_class_ownercheck(relid, roleid) \
	object_ownercheck(RelationRelationId, (relid), (roleid))
#endif

/* 17 removed old_snapshot_threshold, and with it the check */
#if PG_VERSION_NUM >= 170000
#define TestForOldSnapshot(snapshot, relation, page) ((void) 0)
#endif

/* 18: vacuum_delay_point(bool is_analyze) */
#if PG_VERSION_NUM >= 180000
#define vacuum_delay_point() vacuum_delay_point(false)
#endif

/* 19 renamed the in-place page checksum */
#if PG_VERSION_NUM >= 190000
#define PageSetChecksumInplace(page, blkno) PageSetChecksum((page), (blkno))
#endif

/*
 * The handler's IndexAmRoutine.  Through 18, core copies what the handler
 * returns into the relcache and pfrees it, so it must be palloc'd; 19 asks
 * for a static routine that core never copies nor frees.  The routine is
 * written once, statically (fields a major adds after 15 stay zero: false,
 * NULL), and LI_RETURN_AMROUTINE returns it the way the major wants.
 */
/*
 * 18 finds an ordered AM's "<" (for the sort order of its scans, the
 * planner's correlation estimate, and more) by translating between the AM's
 * strategy numbers and CompareType; without the translation, an ordered scan
 * of the index has no pathkeys and btcostestimate, which the AM's estimator
 * calls, reads a missing sort order.  The strategies are btree's, so
 * btree's translation is exact.  The same translation gives core the "=" of
 * a unique index (BuildSpeculativeIndexInfo): a learned unique index is an
 * INSERT ... ON CONFLICT arbiter on 18.  amconsistentequality/ordering hold
 * as for btree: every opfamily's operators are btree's, so its "=" is one
 * equivalence relation that <, <=, >=, > agree with, in one total order.
 */
#if PG_VERSION_NUM >= 180000
#include "access/nbtree.h"
#define LI_AMROUTINE_SINCE_18 \
	.amconsistentequality = true, \
	.amconsistentordering = true, \
	.amtranslatestrategy = bttranslatestrategy, \
	.amtranslatecmptype = bttranslatecmptype,
#else
#define LI_AMROUTINE_SINCE_18
#endif

#if PG_VERSION_NUM >= 190000
#define LI_RETURN_AMROUTINE(routine) PG_RETURN_POINTER(&(routine))
#else
#define LI_RETURN_AMROUTINE(routine) \
	do { \
		IndexAmRoutine *li_copy_ = makeNode(IndexAmRoutine); \
		memcpy(li_copy_, &(routine), sizeof(IndexAmRoutine)); \
		PG_RETURN_POINTER(li_copy_); \
	} while (0)
#endif

/*
 * Collations (keymap.c, page.c).  18 removed lc_collate_is_c() and
 * icu_to_uchar(), and made pg_newlocale_from_collation() return a locale for
 * every collation, the default one and "C" included; 19 reshaped
 * pg_locale_struct (no provider field).  From 18 on, the supported way to a
 * sort key is pg_strnxfrm() / pg_strnxfrm_prefix(), which make exactly the
 * calls the code below makes on 15-17 (strxfrm_l with the collation's
 * locale_t; ucol_nextSortKeyPart for ICU), so an image is the same on every
 * major.
 */
#if PG_VERSION_NUM >= 180000
#define lc_collate_is_c(collid) (pg_newlocale_from_collation(collid)->collate_is_c)
#endif

/*
 * li_locale_has_prefix: the locale builds its sort keys a prefix at a time
 * (ICU); li_sortkey_prefix then writes the first want bytes of s's sort key
 * to out (fewer when the key is shorter).  Otherwise (libc) li_strxfrm
 * transforms the NUL-terminated src (srclen bytes) into dst (dstsize bytes)
 * and returns the length of the whole transform: dst is defined only when
 * that is below dstsize, as for strxfrm.  loc is NULL for 15-17's libc
 * default collation.
 */
#if PG_VERSION_NUM >= 180000

static inline bool
li_locale_has_prefix(pg_locale_t loc)
{
	return pg_strxfrm_prefix_enabled(loc);
}

static inline void
li_sortkey_prefix(pg_locale_t loc, const char *s, Size len, uint8 *out, Size want)
{
	(void) pg_strnxfrm_prefix((char *) out, want, s, len, loc);
}

static inline size_t
li_strxfrm(pg_locale_t loc, char *dst, const char *src, Size srclen, Size dstsize)
{
	return pg_strnxfrm(dst, dstsize, src, srclen, loc);
}

#else							/* 15 to 17 */

static inline bool
li_locale_has_prefix(pg_locale_t loc)
{
	return loc && loc->provider == COLLPROVIDER_ICU;
}

#ifdef USE_ICU
static inline void
li_sortkey_prefix(pg_locale_t loc, const char *s, Size len, uint8 *out, Size want)
{
	UCharIterator iter;
	uint32_t	state[2] = {0, 0};
	UErrorCode	status = U_ZERO_ERROR;
	UChar	   *ubuf = NULL;

	if (GetDatabaseEncoding() == PG_UTF8)
		uiter_setUTF8(&iter, s, (int32_t) len);
	else
	{
		int32_t		ulen = icu_to_uchar(&ubuf, s, len);

		uiter_setString(&iter, ubuf, ulen);
	}
	(void) ucol_nextSortKeyPart(loc->info.icu.ucol, &iter, state, out,
								(int32_t) want, &status);
	if (U_FAILURE(status))
		ereport(ERROR,
				(errmsg("sort key generation failed: %s", u_errorName(status))));
	if (ubuf)
		pfree(ubuf);
}
#else
static inline void
li_sortkey_prefix(pg_locale_t loc, const char *s, Size len, uint8 *out, Size want)
{
	elog(ERROR, "ICU collation without ICU support");
}
#endif

static inline size_t
li_strxfrm(pg_locale_t loc, char *dst, const char *src, Size srclen, Size dstsize)
{
	if (loc)
		return strxfrm_l(dst, src, dstsize, loc->info.lt);
	return strxfrm(dst, src, dstsize);
}

#endif							/* PG_VERSION_NUM >= 180000 */

/*
 * 17 renamed the autovacuum worker test (IsAutoVacuumWorkerProcess() became
 * AmAutoVacuumWorkerProcess(), a macro over MyBackendType).
 */
#if PG_VERSION_NUM >= 170000
#define IsAutoVacuumWorkerProcess() AmAutoVacuumWorkerProcess()
#endif

/*
 * Before 18, core accepts only btree unique indexes as ON CONFLICT arbiters
 * and builds speculative-insertion info for every unique index of the
 * table, so one unique learned index makes every INSERT ... ON CONFLICT on
 * it fail ("unexpected non-btree speculative unique index").  18 asks the
 * AM for its equality strategy (LI_AMROUTINE_SINCE_18), and it works.
 */
#define LEARNED_UNIQUE_BREAKS_ON_CONFLICT (PG_VERSION_NUM < 180000)

/*
 * Index-AM features of 18 (handler.c, scan.c), besides LI_AMROUTINE_SINCE_18:
 *
 * LEARNED_HAVE_TREEHEIGHT: amgettreeheight, which btcostestimate (our cost
 * estimate) charges as pages descended per search.
 *
 * LI_COUNT_INDEX_SEARCH(scan): one more "Index Searches" for EXPLAIN
 * ANALYZE (scan->instrument, NULL when nobody asked), per positioning, as
 * btree counts a descent.
 */
#if PG_VERSION_NUM >= 180000
#define LEARNED_HAVE_TREEHEIGHT 1
#define LI_COUNT_INDEX_SEARCH(scan) \
	do { \
		if ((scan)->instrument) \
			(scan)->instrument->nsearches++; \
	} while (0)
#else
#define LI_COUNT_INDEX_SEARCH(scan) ((void) 0)
#endif

/*
 * vacuum_defer_cleanup_age (removed in 16) holds the snapshot horizon back
 * by that many xids on 15; LI_DEFER_CLEANUP_AGE is 0 where it is gone.
 */
#if PG_VERSION_NUM < 160000
#include "storage/standby.h"
#define LI_DEFER_CLEANUP_AGE vacuum_defer_cleanup_age
#else
#define LI_DEFER_CLEANUP_AGE 0
#endif

#endif							/* LEARNED_COMPAT_H */
