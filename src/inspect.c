/*
 * inspect.c
 *		SQL functions for DBAs: learned_index_info, learned_index_segments.
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/htup_details.h"
#include "commands/defrem.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "learned.h"

PG_FUNCTION_INFO_V1(learned_index_info);
PG_FUNCTION_INFO_V1(learned_index_segments);

/*
 * Open a relation and insist that it is a learned index.
 */
static Relation
open_learned_index(Oid relid)
{
	Relation	rel = relation_open(relid, AccessShareLock);

	if (rel->rd_rel->relkind != RELKIND_INDEX ||
		rel->rd_rel->relam != get_index_am_oid("learned", false))
	{
		char	   *name = pstrdup(RelationGetRelationName(rel));

		relation_close(rel, AccessShareLock);
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a learned index", name)));
	}
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary indexes of other sessions")));
	return rel;
}

/* count the dead entries of a run of static pages */
static int64
count_dead(Relation index, BlockNumber start, uint32 npages, uint16 type,
		   const LearnedLeafLayout *layout)
{
	int64		dead = 0;
	uint32		i;

	for (i = 0; i < npages; i++)
	{
		Buffer		buf = ReadBuffer(index, start + i);
		Page		page;
		int			n;
		int			s;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, start + i, type);
		n = Min(LearnedPageGetOpaque(page)->nitems, layout->capacity);
		for (s = 0; s < n; s++)
			if (LearnedLeafIsDead(page, layout, s))
				dead++;
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
	return dead;
}

Datum
learned_index_info(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	index = open_learned_index(relid);
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	LearnedKeyInfo ki;
	LearnedLeafLayout nl;
	TupleDesc	tupdesc;
	Datum		values[20];
	bool		nulls[20];
	int64		dead;
	int64		pending = 0;
	int64		pending_pages = 0;
	BlockNumber blkno;
	uint32		s;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	LearnedReadMeta(index, &meta);
	dir = LearnedGetDirectory(index, meta.generation);
	LearnedKeyInfoInit(index, &ki);
	LearnedLeafLayoutInit(&nl, 0);

	dead = 0;
	for (s = 0; s < dir->nsegments; s++)
		dead += count_dead(index, dir->segments[s].start_blk,
						   dir->segments[s].npages, LEARNED_PAGE_LEAF, &ki.layout);
	if (dir->nulls_npages > 0)
		dead += count_dead(index, dir->nulls_start, dir->nulls_npages,
						   LEARNED_PAGE_NULLS, &nl);

	for (blkno = meta.pending_head; blkno != InvalidBlockNumber;)
	{
		Buffer		buf = ReadBuffer(index, blkno);
		Page		page;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, blkno, LEARNED_PAGE_PENDING);
		{
			uint64		first_seq = LearnedPendingFirstSeq(page);
			int			n = LearnedPageGetOpaque(page)->nitems;
			int			i;

			for (i = 0; i < n; i++)
			{
				uint16		flags;

				memcpy(&flags, LearnedPendingItemPtr(page, meta.keylen, i) +
					   sizeof(ItemPointerData), sizeof(uint16));
				if (!(flags & LEARNED_PENDING_DEAD) && first_seq + i >= meta.pending_merged)
					pending++;
			}
		}
		pending_pages++;
		blkno = LearnedPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}

	memset(nulls, 0, sizeof(nulls));
	values[0] = Int64GetDatum(dir->nsegments);
	values[1] = Int64GetDatum(dir->npieces);
	values[2] = Int64GetDatum((int64) dir->npieces * sizeof(LearnedPiece) +
							  (int64) dir->nsegments * sizeof(LearnedSegment));
	values[3] = Int64GetDatum(0);	/* no zone maps yet */
	values[4] = Int64GetDatum(meta.dir_npages);
	values[5] = Int64GetDatum(dir->nvpages);
	values[6] = Int64GetDatum(dir->nulls_npages);
	values[7] = Int64GetDatum((int64) dir->nstatic);
	values[8] = Int64GetDatum(dead);
	values[9] = Int64GetDatum((int64) dir->nnulls);
	values[10] = Int64GetDatum(pending);
	values[11] = Int64GetDatum(pending_pages);
	values[12] = Int64GetDatum(RelationGetNumberOfBlocks(index));
	values[13] = Float8GetDatum(meta.mean_error);
	values[14] = Int32GetDatum(meta.max_error);
	values[15] = Int32GetDatum(meta.error_bound);
	values[16] = Int32GetDatum(meta.items_per_page);
	values[17] = CStringGetTextDatum("model");
	values[18] = Int64GetDatum(meta.generation);
	if (meta.nmerges > 0)
		values[19] = TimestampTzGetDatum((TimestampTz) meta.last_merge_time);
	else
		nulls[19] = true;

	relation_close(index, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* the text form of the key at a slot of a leaf page */
static text *
key_text(Relation index, const LearnedKeyInfo *ki, BlockNumber blkno, bool last)
{
	Buffer		buf = ReadBuffer(index, blkno);
	Page		page;
	int			n;
	Datum		key;
	Oid			outfunc;
	bool		isvarlena;
	text	   *result = NULL;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	LearnedCheckPage(index, page, blkno, LEARNED_PAGE_LEAF);
	n = LearnedPageGetOpaque(page)->nitems;
	if (n > 0)
	{
		key = learned_fetch_key(LearnedLeafKeyPtr(page, &ki->layout, last ? n - 1 : 0),
								ki->keylen, ki->keytype);
		getTypeOutputInfo(ki->keytype, &outfunc, &isvarlena);
		result = cstring_to_text(OidOutputFunctionCall(outfunc, key));
	}
	UnlockReleaseBuffer(buf);
	return result;
}

Datum
learned_index_segments(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	index;
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	LearnedKeyInfo ki;
	uint32		s;

	InitMaterializedSRF(fcinfo, 0);
	index = open_learned_index(relid);
	LearnedReadMeta(index, &meta);
	dir = LearnedGetDirectory(index, meta.generation);
	LearnedKeyInfoInit(index, &ki);

	for (s = 0; s < dir->nsegments; s++)
	{
		LearnedSegment *seg = &dir->segments[s];
		Datum		values[9];
		bool		nulls[9];
		text	   *t;
		int32		maxerr = 0;
		uint32		p;

		for (p = seg->first_piece; p < seg->first_piece + seg->npieces; p++)
			maxerr = Max(maxerr, Max(dir->pieces[p].err_below, dir->pieces[p].err_above));
		memset(nulls, 0, sizeof(nulls));
		values[0] = Int32GetDatum((int32) s);
		values[1] = CStringGetTextDatum("model");
		t = key_text(index, &ki, seg->start_blk, false);
		values[2] = t ? PointerGetDatum(t) : (Datum) 0;
		nulls[2] = (t == NULL);
		t = key_text(index, &ki, seg->start_blk + seg->npages - 1, true);
		values[3] = t ? PointerGetDatum(t) : (Datum) 0;
		nulls[3] = (t == NULL);
		values[4] = Int64GetDatum(seg->start_blk);
		values[5] = Int32GetDatum((int32) seg->npages);
		values[6] = Int64GetDatum(seg->nitems);
		values[7] = Int32GetDatum((int32) seg->npieces);
		values[8] = Int32GetDatum(maxerr);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	if (dir->nulls_npages > 0)
	{
		Datum		values[9];
		bool		nulls[9];

		memset(nulls, 0, sizeof(nulls));
		values[0] = Int32GetDatum((int32) dir->nsegments);
		values[1] = CStringGetTextDatum("nulls");
		nulls[2] = nulls[3] = true;
		values[4] = Int64GetDatum(dir->nulls_start);
		values[5] = Int32GetDatum((int32) dir->nulls_npages);
		values[6] = Int64GetDatum((int64) dir->nnulls);
		values[7] = Int32GetDatum(0);
		nulls[8] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(index, AccessShareLock);
	return (Datum) 0;
}
