/*
 * build.c
 *		CREATE INDEX: scan the heap, sort, write dense leaf pages, fit the
 *		models, write the directory and the metapage.
 *
 * Pages are written through shared buffers with MarkBufferDirty only, and
 * the whole relation is WAL-logged at the end with log_newpage_range (the
 * pgvector approach): no page is visible to anybody before the build ends.
 */
#include "postgres.h"

#include <sys/time.h>

#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "catalog/pg_opfamily.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "compat.h"
#include "learned.h"

typedef struct BuildState
{
	LearnedKeyInfo ki;
	LearnedEntry *entries;
	Size		nentries;
	Size		maxentries;
	ItemPointerData *nulls;
	Size		nnulls;
	Size		maxnulls;
	double		indtuples;
	/* unique indexes: TIDs of indexed tuples that are not alive */
	bool		unique;
	ItemPointerData *dead;
	Size		ndead;
	Size		maxdead;
	Size		live_nulls;
	/* composite keys: stored bytes in chunks, per-column ranges of images */
	MemoryContext tmpcxt;		/* a variable-width key being formed */
	bool		string_map;		/* one string column: images after the scan */
	char	   *chunk;
	Size		chunk_used;
	Size		chunk_size;
	uint64		lo[INDEX_MAX_KEYS];
	uint64		hi[INDEX_MAX_KEYS];
} BuildState;

/* room for one stored key's bytes (size, aligned), in chunks that never move */
static char *
build_key_space(BuildState *bs, Size size, int align)
{
	char	   *p;

	bs->chunk_used = TYPEALIGN(align, bs->chunk_used);
	if (bs->chunk == NULL || bs->chunk_used + size > bs->chunk_size)
	{
		bs->chunk_size = Max((Size) 1024 * 1024, size);
		bs->chunk = palloc(bs->chunk_size);
		bs->chunk_used = 0;
	}
	p = bs->chunk + bs->chunk_used;
	bs->chunk_used += size;
	return p;
}

/* a formed key (LearnedKeyForm, in tmpcxt) kept in the key space */
static Datum
build_keep_key(BuildState *bs, Datum key)
{
	return LearnedKeyCopy(&bs->ki, key,
						  build_key_space(bs, LearnedKeySize(&bs->ki, key),
										  LearnedKeyAlign(&bs->ki, key)));
}

static void
build_callback(Relation index, ItemPointer tid, Datum *values,
			   bool *isnull, bool tupleIsAlive, void *state)
{
	BuildState *bs = (BuildState *) state;

	/* unique: dead tuples are indexed but not checked (as btree's spool2) */
	if (bs->unique)
	{
		if (!tupleIsAlive)
		{
			if (bs->ndead >= bs->maxdead)
			{
				bs->maxdead = Max(64, bs->maxdead * 2);
				bs->dead = bs->dead ?
					repalloc_huge(bs->dead, bs->maxdead * sizeof(ItemPointerData)) :
					palloc_extended(bs->maxdead * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
			}
			bs->dead[bs->ndead++] = *tid;
		}
		else if (isnull[0] && !LearnedKeyIsComposite(&bs->ki))
			bs->live_nulls++;	/* composite keys keep NULLs inline */
	}

	if (LearnedKeyIsComposite(&bs->ki))
	{
		LearnedEntry *e;
		char	   *p;
		int			i;

		/* NULLs of any column are ordinary entries, placed in index order */
		if (bs->nentries >= bs->maxentries)
		{
			bs->maxentries *= 2;
			bs->entries = repalloc_huge(bs->entries, bs->maxentries * sizeof(LearnedEntry));
		}
		if (LearnedKeyIsVarwidth(&bs->ki))
		{
			MemoryContext old = MemoryContextSwitchTo(bs->tmpcxt);
			Datum		formed = LearnedKeyForm(&bs->ki, index, values, isnull, tid);

			MemoryContextSwitchTo(old);
			p = DatumGetPointer(build_keep_key(bs, formed));
			MemoryContextReset(bs->tmpcxt);
		}
		else
		{
			p = build_key_space(bs, bs->ki.keylen, bs->ki.fixedalign);
			LearnedKeyPack(&bs->ki, values, isnull, p);
		}
		for (i = 0; i < bs->ki.nkeys; i++)
		{
			uint64		m;

			if (isnull[i])
				continue;
			m = learned_map_value(&bs->ki.cols[i], values[i], bs->ki.cols[i].type);
			bs->lo[i] = Min(bs->lo[i], m);
			bs->hi[i] = Max(bs->hi[i], m);
		}
		e = &bs->entries[bs->nentries++];
		e->key = PointerGetDatum(p);
		e->mkey = 0;			/* once the map is planned */
		e->tid = *tid;
	}
	else if (isnull[0])
	{
		if (bs->nnulls >= bs->maxnulls)
		{
			bs->maxnulls *= 2;
			bs->nulls = repalloc_huge(bs->nulls, bs->maxnulls * sizeof(ItemPointerData));
		}
		bs->nulls[bs->nnulls++] = *tid;
	}
	else
	{
		LearnedEntry *e;

		if (bs->nentries >= bs->maxentries)
		{
			bs->maxentries *= 2;
			bs->entries = repalloc_huge(bs->entries, bs->maxentries * sizeof(LearnedEntry));
		}
		e = &bs->entries[bs->nentries++];
		/* a by-reference value lives in per-tuple memory: keep a copy */
		if (LearnedKeyIsVarwidth(&bs->ki))
		{
			MemoryContext old = MemoryContextSwitchTo(bs->tmpcxt);
			Datum		formed = LearnedKeyForm(&bs->ki, index, values, isnull, tid);

			MemoryContextSwitchTo(old);
			e->key = build_keep_key(bs, formed);
			MemoryContextReset(bs->tmpcxt);
		}
		else
			e->key = LearnedKeyCopy(&bs->ki, values[0],
									bs->ki.byref ?
									build_key_space(bs, bs->ki.keylen, bs->ki.fixedalign) :
									NULL);
		/* a string's image waits for the key map (LearnedStringMapPlan) */
		e->mkey = bs->string_map ? 0 :
			learned_map_value(&bs->ki.cols[0], values[0], bs->ki.keytype);
		e->tid = *tid;
	}
	bs->indtuples += 1;
}

static void
init_meta(LearnedMetaPage meta, const LearnedKeyInfo *ki, int eps)
{
	memset(meta, 0, sizeof(LearnedMetaPageData));
	meta->magic = LEARNED_MAGIC;
	meta->version = LEARNED_VERSION;
	meta->keytype = ki->keytype;
	meta->keylen = ki->keylen;
	meta->items_per_page = LearnedKeyIsVarwidth(ki) ? LEARNED_VW_MAX_ITEMS :
		ki->layout.capacity;
	meta->error_bound = eps;
	meta->generation = 1;
	meta->dir_start = InvalidBlockNumber;
	meta->nulls_start = InvalidBlockNumber;
	meta->pending_head = InvalidBlockNumber;
	meta->pending_tail = InvalidBlockNumber;
}

/* the metapage's contents end after the key map */
static void
set_meta_lower(Page page, const LearnedKeyInfo *ki)
{
	memcpy(LearnedPageGetKeyMap(page), &ki->map, sizeof(LearnedKeyMapData));
	((PageHeader) page)->pd_lower = LEARNED_META_END_OFFSET;
}

static void
check_key_type(Relation index)
{
	int			i;

	for (i = 0; i < IndexRelationGetNumberOfKeyAttributes(index); i++)
		if (!learned_type_supported(index->rd_opcintype[i]))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("learned indexes do not support type %s",
							format_type_be(index->rd_opcintype[i]))));
	/* INCLUDE columns: any type learned indexes support as keys */
	for (; i < IndexRelationGetNumberOfAttributes(index); i++)
	{
		Oid			typid = TupleDescAttr(RelationGetDescr(index), i)->atttypid;

		if (!learned_type_supported(typid))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("learned indexes do not support INCLUDE columns of type %s",
							format_type_be(typid)),
					 errhint("INCLUDE columns must have a type that learned indexes support as keys.")));
	}
}

/*
 * Whether this build creates the index: CREATE INDEX (the relation is new
 * in this transaction), or CREATE INDEX CONCURRENTLY and REINDEX
 * CONCURRENTLY, which build a new index in a later transaction with
 * ii_Concurrent set.  REINDEX, TRUNCATE, VACUUM FULL and CLUSTER rebuild an
 * existing index: what is said or refused about an index's definition is
 * said when it is created, and a rebuild must not fail on an index that
 * exists.
 */
static bool
build_creates_index(Relation index, const IndexInfo *indexInfo)
{
	return index->rd_createSubid != InvalidSubTransactionId || indexInfo->ii_Concurrent;
}

/* the name of an index column's operator family */
static char *
opfamily_name(Relation index, int col)
{
	HeapTuple	tup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(index->rd_opfamily[col]));
	char	   *name;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator family %u", index->rd_opfamily[col]);
	name = pstrdup(NameStr(((Form_pg_opfamily) GETSTRUCT(tup))->opfname));
	ReleaseSysCache(tup);
	return name;
}

/*
 * Refuse a key column that queries on it could not search.  A column whose
 * type is not its operator class's input type got there through a binary
 * coercion (citext, or a domain over it, indexed with text_ops).  A
 * condition on the column uses its type's operators, and the index serves
 * it only if they belong to the index's operator family: varchar's "=" is
 * text's (varchar has none of its own), and a domain over int8 compares as
 * int8, but citext's "=" is an operator of its own, so only conditions on
 * c::text, not on c, could use the index (btree builds citext with its
 * citext_ops instead).  The operator a type's "=" resolves to is the
 * equality of its default btree operator class, domains going to their
 * base type, as the type cache has it; a type with none is compared
 * through the coercion, whose operators are the family's.
 */
static void
check_key_usable(Relation index)
{
	int			i;

	for (i = 0; i < IndexRelationGetNumberOfKeyAttributes(index); i++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(index), i);
		Oid			opcintype = index->rd_opcintype[i];
		TypeCacheEntry *tce;
		bool		is_column = index->rd_index->indkey.values[i] != 0;

		if (att->atttypid == opcintype)
			continue;
		tce = lookup_type_cache(att->atttypid, TYPECACHE_EQ_OPR);
		if (!OidIsValid(tce->eq_opr) || op_in_opfamily(tce->eq_opr, index->rd_opfamily[i]))
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("no query could use learned index column \"%s\" of type %s",
						NameStr(att->attname), format_type_be(att->atttypid)),
				 errdetail("Conditions on the column use operator %s, which is not in the "
						   "index's operator family \"%s\": the column would be indexed "
						   "as %s, through a binary coercion.",
						   format_operator(tce->eq_opr), opfamily_name(index, i),
						   format_type_be(opcintype)),
				 is_column ?
				 errhint("To search the column as %s, index the expression (%s::%s) and write "
						 "conditions on it; for the comparisons of type %s, use an index "
						 "with an operator class for that type, such as btree's.",
						 format_type_be(opcintype), quote_identifier(NameStr(att->attname)),
						 format_type_be(opcintype), format_type_be(att->atttypid)) :
				 errhint("To search the expression as %s, cast it to %s in the index and "
						 "in the conditions; for the comparisons of type %s, use an index "
						 "with an operator class for that type, such as btree's.",
						 format_type_be(opcintype), format_type_be(opcintype),
						 format_type_be(att->atttypid))));
	}
}

IndexBuildResult *
learnedbuild(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	BuildState	bs;
	double		reltuples;
	int			eps;
	Buffer		metabuf;
	Page		metapage;
	LearnedMetaPage meta;
	LearnedSegmentSet set;
	uint32		dir_npages;
	BlockNumber dir_start;
	TimestampTz start_time = GetCurrentTimestamp();
	MemoryContext buildCxt;
	MemoryContext oldCxt;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));
	check_key_type(index);
	if (build_creates_index(index, indexInfo))
	{
		check_key_usable(index);
		if (LEARNED_UNIQUE_BREAKS_ON_CONFLICT && indexInfo->ii_Unique)
			ereport(WARNING,
					(errmsg("INSERT ... ON CONFLICT will fail on table \"%s\" while it has "
							"unique learned index \"%s\"",
							RelationGetRelationName(heap), RelationGetRelationName(index)),
					 errdetail("Before version 18, PostgreSQL takes only btree unique indexes "
							   "as ON CONFLICT arbiters and considers every unique index of "
							   "the table: each INSERT ... ON CONFLICT on it fails with "
							   "\"unexpected non-btree speculative unique index\", "
							   "whatever its conflict target."),
					 errhint("Keep the unique keys of a table that takes INSERT ... ON CONFLICT "
							 "in btree indexes; EXCLUDE USING learned (k WITH =) enforces "
							 "uniqueness and allows ON CONFLICT DO NOTHING.")));
	}

	buildCxt = AllocSetContextCreate(CurrentMemoryContext, "learned build",
									 ALLOCSET_DEFAULT_SIZES);
	oldCxt = MemoryContextSwitchTo(buildCxt);

	memset(&bs, 0, sizeof(bs));
	LearnedKeyInfoInit(index, &bs.ki);
	memset(bs.lo, 0xFF, sizeof(bs.lo));	/* lo > hi: no value seen yet */
	eps = learned_get_error_bound(index);
	bs.maxentries = 1024;
	bs.entries = palloc_extended(bs.maxentries * sizeof(LearnedEntry), MCXT_ALLOC_HUGE);
	bs.maxnulls = 64;
	bs.nulls = palloc_extended(bs.maxnulls * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	bs.unique = indexInfo->ii_Unique;
	bs.tmpcxt = AllocSetContextCreate(buildCxt, "learned build key",
									  ALLOCSET_SMALL_SIZES);
	bs.string_map = LearnedKeyLocalImages(&bs.ki);

	/* block 0 is the metapage; written last, once everything else exists */
	metabuf = LearnedNewBuffer(index, MAIN_FORKNUM);
	Assert(BufferGetBlockNumber(metabuf) == LEARNED_METAPAGE_BLKNO);
	metapage = BufferGetPage(metabuf);
	LearnedInitPage(metapage, LEARNED_PAGE_META, 1);
	meta = LearnedPageGetMeta(metapage);
	init_meta(meta, &bs.ki, eps);
	set_meta_lower(metapage, &bs.ki);
	MarkBufferDirty(metabuf);
	LockBuffer(metabuf, BUFFER_LOCK_UNLOCK);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, LEARNED_PHASE_SCAN);
	reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
									   build_callback, (void *) &bs, NULL);

	/* one string column: the shared sort-key prefix the image skips */
	if (bs.string_map)
	{
		Size		i;

		(void) LearnedStringMapPlan(&bs.ki, bs.entries, bs.nentries);
		for (i = 0; i < bs.nentries; i++)
			bs.entries[i].mkey = LearnedKeyMap(&bs.ki, bs.entries[i].key);
	}

	/* composite keys: plan the key map from the ranges seen, then map */
	if (LearnedKeyIsComposite(&bs.ki))
	{
		Size		i;

		LearnedKeyMapPlan(&bs.ki, bs.lo, bs.hi, false, learned_map_columns_guc);
		for (i = 0; i < bs.nentries; i++)
			bs.entries[i].mkey = LearnedKeyMap(&bs.ki, bs.entries[i].key);
	}

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, LEARNED_PHASE_SORT);
	LearnedSortEntries(&bs.ki, bs.entries, bs.nentries);
	if (bs.unique)
		LearnedUniqueCheckBuild(heap, index, &bs.ki, bs.entries, bs.nentries,
								bs.dead, bs.ndead, bs.live_nulls);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, LEARNED_PHASE_LOAD);
	{
		const int	index_cols[] = {PROGRESS_CREATEIDX_TUPLES_TOTAL,
		PROGRESS_CREATEIDX_TUPLES_DONE};
		const int64 vals[] = {(int64) bs.nentries, 0};

		pgstat_progress_update_multi_param(2, index_cols, vals);
	}

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, LEARNED_PHASE_TRAIN);
	memset(&set, 0, sizeof(set));
	set.mode = learned_get_mode(index);
	set.compression = learned_get_compression(index) == LEARNED_COMPRESSION_ON;
	LearnedWriteSegments(index, &bs.ki, eps, bs.entries, bs.nentries, 1, true, &set);

	/* NULL keys: a run of TID-only pages after the key segments */
	if (bs.nnulls > 0)
	{
		LearnedLeafLayout nl;

		LearnedLeafLayoutInit(&nl, 0);
		meta->nulls_start = LearnedWriteLeafRun(index, NULL, &nl, LEARNED_PAGE_NULLS, NULL,
												bs.nulls, bs.nnulls, 1, true);
		meta->nulls_npages = (uint32) ((bs.nnulls + nl.capacity - 1) / nl.capacity);
	}

	dir_start = LearnedWriteDirectory(index, &set, 1, &dir_npages, true);

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	set_meta_lower(metapage, &bs.ki);
	meta->nsegments = (uint32) set.nsegs;
	meta->npieces = (uint32) set.npieces;
	meta->dir_start = dir_start;
	meta->dir_npages = dir_npages;
	meta->nstatic = bs.nentries;
	meta->nnulls = bs.nnulls;
	meta->mean_error = set.npieces > 0 ? set.err_sum / set.npieces : 0;
	meta->max_error = set.err_max;
	meta->build_time_us = GetCurrentTimestamp() - start_time;
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);

	/* WAL-log every page at once (also covers unlogged-to-logged cases) */
	if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0,
						  RelationGetNumberOfBlocks(index), true);

	MemoryContextSwitchTo(oldCxt);
	MemoryContextDelete(buildCxt);

	result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
	return result;
}

/*
 * The init fork of an unlogged index: just an empty metapage.  GenericXLog
 * and log_newpage_range in the main build do not cover this fork, so write
 * it directly, WAL-log it, and sync it (a checkpoint cannot see it).
 */
void
learnedbuildempty(Relation index)
{
	PGIOAlignedBlock block;
	Page		page = (Page) block.data;
	LearnedKeyInfo ki;

	check_key_type(index);
	LearnedKeyInfoInit(index, &ki);
	LearnedInitPage(page, LEARNED_PAGE_META, 1);
	init_meta(LearnedPageGetMeta(page), &ki, learned_get_error_bound(index));
	{
		uint64		lo[INDEX_MAX_KEYS];
		uint64		hi[INDEX_MAX_KEYS];

		/* no value seen: every later key maps outside the (empty) ranges */
		memset(lo, 0xFF, sizeof(lo));
		memset(hi, 0, sizeof(hi));
		LearnedKeyMapPlan(&ki, lo, hi, false, learned_map_columns_guc);
	}
	set_meta_lower(page, &ki);

	PageSetChecksumInplace(page, LEARNED_METAPAGE_BLKNO);
	smgrwrite(RelationGetSmgr(index), INIT_FORKNUM, LEARNED_METAPAGE_BLKNO,
			  (char *) page, true);
	log_newpage(LI_SMGR_FILE(RelationGetSmgr(index)), INIT_FORKNUM,
				LEARNED_METAPAGE_BLKNO, page, true);
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}
