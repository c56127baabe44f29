/*
 * inspect.c
 *		SQL functions for DBAs: learned_index_info, learned_index_segments.
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "utils/snapmgr.h"
#include "access/htup_details.h"
#include "commands/defrem.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "learned.h"
#include "leaf.h"
#include "pending.h"

PG_FUNCTION_INFO_V1(learned_index_info);
PG_FUNCTION_INFO_V1(learned_index_segments);

/*
 * Count the dead entries of a run of static pages, and add the live ones
 * a scan hinted dead (kill_prior_tuple) to *hinted.
 */
static int64
count_dead(Relation index, BlockNumber start, uint32 npages, uint16 type,
		   const LearnedLeafLayout *layout, int64 *hinted)
{
	int64		dead = 0;
	uint32		i;

	for (i = 0; i < npages; i++)
	{
		Buffer		buf = ReadBuffer(index, start + i);
		Page		page;
		LearnedLeafView view;
		int			n;
		int			s;
		const uint8 *hints;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, start + i, type);
		LearnedLeafOpen(index, page, start + i, layout, &view);
		n = view.nitems;
		hints = LearnedLeafHints(page);
		for (s = 0; s < n; s++)
			if (LearnedLeafIsDead(page, layout, s))
				dead++;
			else if (hints && LearnedHintIsSet(hints, s))
				(*hinted)++;
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
	return dead;
}

Datum
learned_index_info(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	index = LearnedOpenIndexChecked(relid, AccessShareLock, "inspect", false, NULL);
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	LearnedKeyInfo ki;
	LearnedLeafLayout nl;
	TupleDesc	tupdesc;
	Datum		values[29];
	bool		nulls[29];
	uint64		nmerges;
	LearnedMergeStatsData mstats;
	int64		dead;
	int64		hinted = 0;
	int64		pending = 0;
	int64		pending_pages = 0;
	BlockNumber blkno;
	uint32		s;
	uint32		steps = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	dir = LearnedReadMetaAndDirectory(index, &meta);
	LearnedKeyInfoInit(index, &ki);
	LearnedLeafLayoutInit(&nl, 0);

	dead = 0;
	for (s = 0; s < dir->nsegments; s++)
		dead += count_dead(index, dir->segments[s].start_blk,
						   dir->segments[s].npages, LEARNED_PAGE_LEAF, &ki.layout,
						   &hinted);
	if (dir->nulls_npages > 0)
		dead += count_dead(index, dir->nulls_start, dir->nulls_npages,
						   LEARNED_PAGE_NULLS, &nl, &hinted);

	for (blkno = meta.pending_head; blkno != InvalidBlockNumber;)
	{
		Buffer		buf;
		Page		page;

		LearnedCheckLink(index, blkno, &steps);
		buf = ReadBuffer(index, blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, blkno, LEARNED_PAGE_PENDING);
		{
			uint64		first_seq = LearnedPendingFirstSeq(page);
			int			n = LearnedPendingCount(page, meta.keylen);
			int			i;

			for (i = 0; i < n; i++)
			{
				uint16		flags = LearnedPendingFlagsAt(page, meta.keylen, i);

				/* an entry a sweep merged is counted in the static stage */
				if (!(flags & LEARNED_PENDING_DEAD) && first_seq + i >= meta.pending_merged &&
					!LearnedSeqSwept(&meta, first_seq + i))
				{
					pending++;
					/* a run entry's hint (LEARNED_PENDING_HINT) */
					if (flags & LEARNED_PENDING_HINT)
						hinted++;
				}
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
	/* compressed: the directory stream as stored and cached */
	values[2] = Int64GetDatum((int64) dir->model_bytes);
	values[3] = Int64GetDatum((int64) dir->zonemap_bytes);
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
	values[17] = CStringGetTextDatum(learned_mode_name(learned_get_mode(index)));
	values[18] = Int64GetDatum(meta.generation);
	if (meta.nmerges > 0)
		values[19] = TimestampTzGetDatum((TimestampTz) meta.last_merge_time);
	else
		nulls[19] = true;
	/* uncompressed: what format 1 stored (24-byte segments and pieces) */
	values[20] = Int64GetDatum((int64) dir->nsegments * LEARNED_RAW_SEGMENT_BYTES +
							   (int64) dir->npieces * LEARNED_RAW_PIECE_BYTES);
	values[21] = Int64GetDatum((int64) dir->nzones * LEARNED_RAW_ZONE_BYTES);
	/* the setting (for the next build or merge) and what the pages are */
	values[22] = CStringGetTextDatum(learned_get_compression(index) == LEARNED_COMPRESSION_ON ?
									 "on" : "off");
	{
		int64		cpages = 0;

		for (s = 0; s < dir->nsegments; s++)
			if (dir->segments[s].compressed)
				cpages += dir->segments[s].npages;
		values[23] = Int64GetDatum(cpages);
	}
	if (dir->nvpages > 0)
		values[24] = Float8GetDatum((double) dir->nstatic / dir->nvpages);
	else
		nulls[24] = true;
	values[25] = Int64GetDatum(hinted);

	/*
	 * The merge counters, read together (a merge may have flipped since the
	 * reads above).
	 */
	LearnedReadMergeStats(index, &nmerges, &mstats);
	values[26] = Int64GetDatum((int64) nmerges);
	values[27] = Int64GetDatum((int64) mstats.merged_entries);
	if (nmerges > 0)
		values[28] = Float8GetDatum(mstats.last_merge_us / 1000.0);
	else
		nulls[28] = true;

	relation_close(index, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* the text form of the key at a slot of a leaf page */
static text *
key_text(Relation index, const LearnedKeyInfo *ki, BlockNumber blkno, bool last)
{
	Buffer		buf = ReadBuffer(index, blkno);
	Page		page;
	LearnedLeafView view;
	int			n;
	Datum		key;
	Oid			outfunc;
	bool		isvarlena;
	text	   *result = NULL;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	LearnedCheckPage(index, page, blkno, LEARNED_PAGE_LEAF);
	LearnedLeafOpen(index, page, blkno, &ki->layout, &view);
	n = view.nitems;
	if (n > 0 && !LearnedKeyIsComposite(ki))
	{
		key = LearnedLeafViewKey(&view, ki, last ? n - 1 : 0);
		getTypeOutputInfo(ki->keytype, &outfunc, &isvarlena);
		result = cstring_to_text(OidOutputFunctionCall(outfunc, key));
	}
	else if (n > 0)
	{
		/* a composite key reads as a row: (v1,v2,...) */
		StringInfoData buf_out;
		int			i;

		key = LearnedLeafViewKey(&view, ki, last ? n - 1 : 0);
		initStringInfo(&buf_out);
		appendStringInfoChar(&buf_out, '(');
		for (i = 0; i < ki->natts; i++)
		{
			bool		isnull;
			Datum		v = LearnedKeyColumn(ki, key, i, &isnull);

			if (i > 0)
				appendStringInfoChar(&buf_out, ',');
			if (!isnull)
			{
				getTypeOutputInfo(ki->cols[i].type, &outfunc, &isvarlena);
				appendStringInfoString(&buf_out, OidOutputFunctionCall(outfunc, v));
			}
		}
		appendStringInfoChar(&buf_out, ')');
		result = cstring_to_text(buf_out.data);
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

	index = LearnedOpenIndexChecked(relid, AccessShareLock, "inspect", false, NULL);
	InitMaterializedSRF(fcinfo, 0);
	dir = LearnedReadMetaAndDirectory(index, &meta);
	LearnedKeyInfoInit(index, &ki);

	for (s = 0; s < dir->nsegments; s++)
	{
		LearnedSegment *seg = &dir->segments[s];
		Datum		values[11];
		bool		nulls[11];
		text	   *t;
		int32		maxerr = 0;
		uint32		p;

		for (p = seg->first_piece; p < seg->first_piece + seg->npieces; p++)
		{
			LearnedPiece pc;

			LearnedDirGetPiece(dir, seg, p, &pc);
			maxerr = Max(maxerr, Max(pc.err_below, pc.err_above));
		}
		memset(nulls, 0, sizeof(nulls));
		values[0] = Int32GetDatum((int32) s);
		values[1] = CStringGetTextDatum(seg->kind == LEARNED_SEG_ZONEMAP ? "zonemap" : "model");
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
		/* a zone map's window is one group of pages: no item error */
		if (seg->kind == LEARNED_SEG_ZONEMAP)
			nulls[8] = true;
		values[9] = Int32GetDatum((int32) seg->items_per_page);
		values[10] = BoolGetDatum(seg->compressed);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	if (dir->nulls_npages > 0)
	{
		Datum		values[11];
		bool		nulls[11];
		LearnedLeafLayout nl;

		LearnedLeafLayoutInit(&nl, 0);
		memset(nulls, 0, sizeof(nulls));
		values[0] = Int32GetDatum((int32) dir->nsegments);
		values[1] = CStringGetTextDatum("nulls");
		nulls[2] = nulls[3] = true;
		values[4] = Int64GetDatum(dir->nulls_start);
		values[5] = Int32GetDatum((int32) dir->nulls_npages);
		values[6] = Int64GetDatum((int64) dir->nnulls);
		values[7] = Int32GetDatum(0);
		nulls[8] = true;
		values[9] = Int32GetDatum(nl.capacity);
		values[10] = BoolGetDatum(false);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(index, AccessShareLock);
	return (Datum) 0;
}

/* ---------- learned_index_runs, learned_index_sweep ---------- */

PG_FUNCTION_INFO_V1(learned_index_runs);

/*
 * learned_index_runs(index): the sorted runs of the pending list, oldest
 * first, with the unsorted tail as a last row (run NULL).  Dead entries
 * are counted from the runs' pages.
 */
Datum
learned_index_runs(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	index;
	LearnedMetaPageData meta;
	uint32		j;

	index = LearnedOpenIndexChecked(relid, AccessShareLock, "inspect", false, NULL);
	InitMaterializedSRF(fcinfo, 0);
	LearnedReadMeta(index, &meta);
	for (j = 0; j < meta.nruns; j++)
	{
		const LearnedRunInfo *ri = &meta.runs[j];
		Datum		values[8];
		bool		nulls[8];
		int64		dead = 0;
		uint32		pg;
		char	   *hdr = palloc(BLCKSZ);
		const LearnedRunHeader *h;

		LearnedRunReadHeader(index, ri, hdr);
		h = LearnedPageGetRunHeader((Page) hdr);
		for (pg = 0; pg < ri->npages; pg++)
		{
			Buffer		buf = ReadBuffer(index, h->pages[pg].blkno);
			Page		page;
			int			n;
			int			i;

			LockBuffer(buf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			LearnedCheckPage(index, page, h->pages[pg].blkno, LEARNED_PAGE_PENDING);
			n = LearnedPendingCount(page, meta.keylen);
			for (i = 0; i < n; i++)
				if (LearnedPendingFlagsAt(page, meta.keylen, i) & LEARNED_PENDING_DEAD)
					dead++;
			UnlockReleaseBuffer(buf);
		}
		memset(nulls, 0, sizeof(nulls));
		values[0] = Int32GetDatum((int32) j);
		values[1] = Int32GetDatum((int32) ri->tier);
		values[2] = Int64GetDatum((int64) ri->first_blk);
		values[3] = Int32GetDatum((int32) ri->npages);
		values[4] = Int64GetDatum((int64) ri->nentries);
		values[5] = Int64GetDatum((int64) (ri->nentries - ri->nkeys));
		values[6] = Int64GetDatum(dead);
		values[7] = Int32GetDatum((int32) h->nfilter);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	{
		Datum		values[8];
		bool		nulls[8];
		uint64		appended = LearnedPendingAppended(index, &meta);
		uint64		start = LearnedTailStartSeq(&meta);
		BlockNumber first = meta.nruns > 0 ? meta.tail_first_blk : meta.pending_head;

		memset(nulls, 0, sizeof(nulls));
		nulls[0] = nulls[1] = nulls[3] = nulls[5] = nulls[6] = nulls[7] = true;
		/* the tail's first page: where a move or a merge leaves the list */
		nulls[2] = !BlockNumberIsValid(first);
		values[2] = Int64GetDatum((int64) first);
		values[4] = Int64GetDatum((int64) (appended > start ? appended - start : 0));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(index, AccessShareLock);
	return (Datum) 0;
}

/*
 * learned_index_sweep(index): the swept main merge in progress, if any (no
 * row otherwise): the runs it merges, the first segment of its next step,
 * and the entries of those runs it merged so far (in the static stage).
 */
PG_FUNCTION_INFO_V1(learned_index_sweep);

Datum
learned_index_sweep(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	index;
	LearnedMetaPageData meta;

	index = LearnedOpenIndexChecked(relid, AccessShareLock, "inspect", false, NULL);
	InitMaterializedSRF(fcinfo, 0);
	LearnedReadMeta(index, &meta);
	if (meta.sweep_end_seq != 0)
	{
		Datum		values[4];
		bool		nulls[4];
		uint32		nswept = LearnedSweptRuns(&meta);
		int64		merged = 0;
		int64		left = 0;
		uint32		j;

		for (j = 0; j < nswept; j++)
		{
			merged += meta.run_swept[j];
			left += meta.runs[j].nentries - meta.run_swept[j];
		}
		memset(nulls, 0, sizeof(nulls));
		values[0] = Int32GetDatum((int32) nswept);
		values[1] = Int32GetDatum((int32) meta.sweep_seg);
		values[2] = Int64GetDatum(merged);
		values[3] = Int64GetDatum(left);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(index, AccessShareLock);
	return (Datum) 0;
}

/* ---------- learned_index_check ---------- */

PG_FUNCTION_INFO_V1(learned_index_check);

static void
check_fail(Relation index, const char *fmt, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("learned index \"%s\" failed check: %s",
					RelationGetRelationName(index), fmt),
			 detail ? errdetail_internal("%s", detail) : 0,
			 errhint("REINDEX the index.")));
}

/* a page that says it has a hint bitmap has it where its entry count puts it */
/*
 * A packed run data page (learned.h, LearnedPackedHeader), beyond what
 * LearnedCheckPage checks of its header: a page of the runs (in_runs), of
 * the index's key width; no bit set past the last field, nor in the
 * bitmaps past the last entry; every key within its width (the page's key
 * bytes) without wrapping, every TID's block without wrapping and its
 * offset valid.  The order of the keys, the NULLs (slots from nkeys on)
 * against the run's ranks and the sequence numbers are check_runs'.
 */
static void
check_packed_page(Relation index, Page page, BlockNumber blk, int keylen, bool in_runs)
{
	const LearnedPackedHeader *ph = LearnedPackedGetHeader(page);
	PageHeader	hd = (PageHeader) page;
	const uint8 *bytes = (const uint8 *) page;
	uint64		endbit = LearnedPackedFieldsBit(ph->count) +
		(uint64) ph->nkeys * ph->key_bits +
		(uint64) ph->count * (ph->blk_bits + ph->off_bits);
	int			nb = LearnedPackedBitmapBytes(ph->count);
	int			i;
	int			b;

	if (!in_runs || !LearnedPendingXorWidth(keylen))
		check_fail(index, "a packed pending page outside the sorted runs, or of a key that does not pack",
				   psprintf("block %u", blk));
	if (ph->keylen != keylen)
		check_fail(index, "a packed run page has another key width",
				   psprintf("block %u: %u bytes, the index's %d", blk, ph->keylen, keylen));
	/* the last field's byte past its end, then the hole */
	if ((endbit & 7) != 0 && (bytes[endbit >> 3] >> (endbit & 7)) != 0)
		check_fail(index, "a packed run page has bits past its last field",
				   psprintf("block %u", blk));
	for (b = hd->pd_lower; b < hd->pd_special; b++)
		if (bytes[b] != 0)
			check_fail(index, "a packed run page has bytes past its last field",
					   psprintf("block %u, byte %d", blk, b));
	/* the two bitmaps' bits past the last entry */
	if ((ph->count & 7) != 0 &&
		((LearnedPackedDeadBits(page)[nb - 1] >> (ph->count & 7)) != 0 ||
		 (LearnedPackedDeadBits(page)[2 * nb - 1] >> (ph->count & 7)) != 0))
		check_fail(index, "a packed run page has flags past its last entry",
				   psprintf("block %u", blk));
	for (i = 0; i < ph->count; i++)
	{
		ItemPointerData tid = LearnedPackedTid(page, i);

		if (i < ph->nkeys)
		{
			uint64		u = LearnedPackedKeyBits(page, i);

			if (u < ph->key_base ||
				(keylen < (int) sizeof(uint64) && (u >> (8 * keylen)) != 0))
				check_fail(index, "a packed run page has a key out of its width",
						   psprintf("block %u, slot %d", blk, i));
		}
		if (ItemPointerGetBlockNumberNoCheck(&tid) < ph->blk_base ||
			ItemPointerGetOffsetNumberNoCheck(&tid) == InvalidOffsetNumber)
			check_fail(index, "a packed run page has an invalid heap TID",
					   psprintf("block %u, slot %d", blk, i));
	}
}

static void
check_hints(Relation index, Page page, BlockNumber blkno)
{
	if ((LearnedPageGetOpaque(page)->flags & LEARNED_LEAF_HINTS) &&
		LearnedLeafHints(page) == NULL)
		check_fail(index, "a page's hint bitmap is out of place",
				   psprintf("block %u: pd_lower %u, pd_upper %u, %u entries", blkno,
							((PageHeader) page)->pd_lower, ((PageHeader) page)->pd_upper,
							LearnedPageGetOpaque(page)->nitems));
}

/* claim a block for the ownership check */
static void
own_block(Relation index, uint8 *seen, BlockNumber nblocks, BlockNumber blk,
		  const char *what)
{
	if (blk >= nblocks)
		check_fail(index, "a reachable block is past the end of the relation",
				   psprintf("%s block %u, relation has %u blocks", what, blk, nblocks));
	if (seen[blk >> 3] & (1 << (blk & 7)))
		check_fail(index, "a block is reachable twice",
				   psprintf("%s block %u", what, blk));
	seen[blk >> 3] |= (uint8) (1 << (blk & 7));
}

/*
 * Does a run's filter (header page hdr, filter pages fpages) admit the
 * filter value v?  A run without a filter admits everything.
 */
static bool
filter_admits(const LearnedRunHeader *h, const char *hdr, char *const *fpages, uint64 v)
{
	LearnedRunFilterProbe probe;
	uint32		off;
	int			fp;

	LearnedRunFilterKey(v, &probe);
	fp = LearnedRunFilterWhere(h, &probe, &off);
	return fp == -2 ||
		LearnedRunFilterBlockHas((fp == -1 ? hdr : fpages[fp]) + off, &probe);
}

/*
 * The sorted runs of the view: each covers the sequence range after the
 * one before (the first starts at pending_merged, the last ends at
 * runs_end_seq, where the tail starts), its data pages are pages of the
 * chain, in the header's order, linked to the next run or the tail, and
 * match its header; its entries are sorted by (key, TID) with NULLs last,
 * and the header's and the run table's mapped keys are its keys'.
 */
static void
check_runs(Relation index, const LearnedMetaPageData *meta, LearnedKeyInfo *ki,
		   const LearnedDirectory *dir, uint8 *seen, BlockNumber nblocks)
{
	LearnedKeyOrder order = LearnedKeyOrderOf(ki);
	LearnedPendingEntry *ents = palloc(sizeof(LearnedPendingEntry) * LearnedPendingMaxEntries(ki->keylen));
	uint64	   *mkeys = palloc(sizeof(uint64) * LearnedPendingMaxEntries(ki->keylen));
	uint16	   *flags = palloc(sizeof(uint16) * LearnedPendingMaxEntries(ki->keylen));
	char	   *hdr = palloc(BLCKSZ);
	char	   *fpages[LEARNED_RUN_MAX_FILTER];
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "learned check run",
											  ALLOCSET_DEFAULT_SIZES);
	uint64		seq = meta->pending_merged;
	uint32		j;
	uint32		nswept = LearnedSweptRuns(meta);
	uint64		sweep_first = 0;

	memset(fpages, 0, sizeof(fpages));

	/*
	 * A sweep in progress: it merges the oldest runs (at least one), its
	 * next group starts at a segment of the directory, and each swept run's
	 * merged ranks are its keys below that segment's first key (by mapped
	 * key, which is monotone: an entry is in the static stage or in its
	 * run, never both, never neither).
	 */
	if (meta->sweep_end_seq != 0)
	{
		if (nswept == 0 || meta->sweep_end_seq > meta->runs[nswept - 1].first_seq +
			meta->runs[nswept - 1].nentries)
			check_fail(index, "a merge step's runs do not match the run table",
					   psprintf("sweep ends at " UINT64_FORMAT ", %u runs swept",
								meta->sweep_end_seq, nswept));
		if (meta->sweep_seg >= dir->nsegments)
			check_fail(index, "a merge step's next segment is past the last",
					   psprintf("segment %u of %u", meta->sweep_seg, dir->nsegments));
		sweep_first = dir->segments[meta->sweep_seg].first_key;
	}
	for (j = 0; j < LEARNED_MAX_RUNS; j++)
		if ((j >= nswept && meta->run_swept[j] != 0) ||
			(j < nswept && meta->run_swept[j] > meta->runs[j].nkeys))
			check_fail(index, "a run's merged ranks are out of range",
					   psprintf("run %u: %u", j, meta->run_swept[j]));

	for (j = 0; j < meta->nruns; j++)
	{
		const LearnedRunInfo *ri = &meta->runs[j];
		const LearnedRunHeader *h;
		LearnedPendingEntry prev;
		uint64		prevm = 0;
		uint32		rank = 0;
		uint32		pg;
		uint32		swept = LearnedRunSwept(meta, j);

		if (ri->first_seq != seq)
			check_fail(index, "a sorted run does not start where the one before ends",
					   psprintf("run %u starts at " UINT64_FORMAT ", expected " UINT64_FORMAT,
								j, ri->first_seq, seq));
		seq = ri->first_seq + ri->nentries;
		own_block(index, seen, nblocks, ri->hdr_blk, "run header");
		LearnedRunReadHeader(index, ri, hdr);
		h = LearnedPageGetRunHeader((Page) hdr);
		/* the filter pages, checked against the header and read once */
		for (pg = 0; pg < h->nfilter; pg++)
		{
			own_block(index, seen, nblocks, LearnedRunFilterPages(h)[pg], "run filter page");
			if (fpages[pg] == NULL)
				fpages[pg] = palloc(BLCKSZ);
			LearnedRunLoadFilter(index, h, (int) pg, fpages[pg]);
		}
		if (ri->nkeys > ri->nentries)
			check_fail(index, "a sorted run has more keys than entries", psprintf("run %u", j));
		for (pg = 0; pg < ri->npages; pg++)
		{
			BlockNumber blk = h->pages[pg].blkno;
			BlockNumber want_next;
			Buffer		buf;
			BlockNumber next;
			int			n;
			int			i;

			if (blk >= nblocks || !(seen[blk >> 3] & (1 << (blk & 7))))
				check_fail(index, "a sorted run's page is not in the pending chain",
						   psprintf("run %u, block %u", j, blk));
			buf = ReadBuffer(index, blk);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			next = LearnedPageGetOpaque(BufferGetPage(buf))->next;
			UnlockReleaseBuffer(buf);
			want_next = pg + 1 < ri->npages ? h->pages[pg + 1].blkno :
				j + 1 < meta->nruns ? meta->runs[j + 1].first_blk : meta->tail_first_blk;
			if (next != want_next)
				check_fail(index, "a sorted run's page links elsewhere",
						   psprintf("run %u, block %u links to %u, expected %u", j, blk, next, want_next));
			MemoryContextReset(cxt);
			n = LearnedRunReadPage(index, ki, ri, h, (int) pg, ents, mkeys, flags, cxt);
			if (h->pages[pg].first_rank < ri->nkeys && h->pages[pg].first_mkey != mkeys[0])
				check_fail(index, "a sorted run's header has a wrong separator",
						   psprintf("run %u, page %u", j, pg));
			for (i = 0; i < n; i++, rank++)
			{
				bool		isnull = (flags[i] & LEARNED_PENDING_NULL) != 0;

				if ((rank < ri->nkeys) == isnull)
					check_fail(index, "a sorted run's NULL entries are not last",
							   psprintf("run %u, rank %u", j, rank));
				if (rank == 0 && ri->nkeys > 0 && mkeys[i] != ri->min_mkey)
					check_fail(index, "a sorted run's smallest key is not the run table's",
							   psprintf("run %u", j));
				if (ri->nkeys > 0 && rank == ri->nkeys - 1 && mkeys[i] != ri->max_mkey)
					check_fail(index, "a sorted run's largest key is not the run table's",
							   psprintf("run %u", j));
				if (rank > 0 && rank < ri->nkeys &&
					LearnedPendingOrder(ki, order, &prev, prevm, &ents[i], mkeys[i]) >= 0)
					check_fail(index, "a sorted run is out of order",
							   psprintf("run %u, rank %u (block %u)", j, rank, blk));
				if (rank < swept && mkeys[i] > sweep_first)
					check_fail(index, "an entry a merge step merged sorts after its next group",
							   psprintf("run %u, rank %u (block %u)", j, rank, blk));
				if (swept > 0 && rank >= swept && rank < ri->nkeys && mkeys[i] < sweep_first)
					check_fail(index, "an entry a merge step left in its run sorts before its next group",
							   psprintf("run %u, rank %u (block %u)", j, rank, blk));
				if (rank < ri->nkeys)
				{
					uint64		pv[INDEX_MAX_KEYS];
					uint64		fv;
					int			npv;
					int			l;

					LearnedKeyMapFilter(ki, ents[i].key, &fv);
					if (!filter_admits(h, hdr, fpages, fv))
						check_fail(index, "a sorted run's filter misses one of its keys",
								   psprintf("run %u, rank %u", j, rank));
					/* and its leading columns (LearnedKeyPrefixValues) */
					npv = LearnedKeyPrefixValuesOf(ki, ents[i].key, pv);
					for (l = 0; l < npv; l++)
						if (!filter_admits(h, hdr, fpages, pv[l]))
							check_fail(index, "a sorted run's filter misses the leading columns of one of its keys",
									   psprintf("run %u, rank %u, %d columns", j, rank, l + 1));
				}
				if (rank < ri->nkeys)
				{
					/* the previous key outlives this page's context */
					prev = ents[i];
					prev.key = LearnedKeyCopyAlloc(ki, ents[i].key, CurrentMemoryContext);
					prevm = mkeys[i];
				}
			}
		}
		if (rank != ri->nentries)
			check_fail(index, "a sorted run's entry count is wrong",
					   psprintf("run %u has %u entries, the run table says %u", j, rank, ri->nentries));
	}
	if (meta->nruns > 0 && meta->runs_end_seq != seq)
		check_fail(index, "the sorted runs do not end where the tail starts",
				   psprintf("they end at " UINT64_FORMAT ", the metapage says " UINT64_FORMAT,
							seq, meta->runs_end_seq));
	MemoryContextDelete(cxt);
}

typedef struct CheckTids
{
	ItemPointerData *tids;
	Size		n;
	Size		max;
	int64		missing;
	ItemPointerData first_missing;
} CheckTids;

static void
add_tid(CheckTids *ct, ItemPointer tid)
{
	if (ct->n >= ct->max)
	{
		ct->max = Max(1024, ct->max * 2);
		ct->tids = ct->tids ? repalloc_huge(ct->tids, ct->max * sizeof(ItemPointerData)) :
			palloc_extended(ct->max * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	}
	ct->tids[ct->n++] = *tid;
}

static int
tid_cmp(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) a, (ItemPointer) b);
}

static void
check_heap_callback(Relation index, ItemPointer tid, Datum *values,
					bool *isnull, bool tupleIsAlive, void *state)
{
	CheckTids  *ct = (CheckTids *) state;

	if (!tupleIsAlive)
		return;
	if (bsearch(tid, ct->tids, ct->n, sizeof(ItemPointerData), tid_cmp) == NULL)
	{
		if (ct->missing == 0)
			ct->first_missing = *tid;
		ct->missing++;
	}
}

/*
 * The check's view of the index, taken once, as a scan takes its own: the
 * metapage, the directory of its generation and the key map that generation
 * was written under (a merge that plans a new map flips generation with
 * it), then the number of pending entries appended so far (the tail page's
 * count), then the relation's size.  In that order, every block the view
 * reaches already existed when the size was read: an insert writes a new
 * pending page before the record that links it, and a merge writes its
 * pages before its flip.  Nothing the view reaches changes under the check
 * but what may change under a scan: appends past its count, dead marks and
 * hints.  Nor is any of it recycled while the check runs: the caller's
 * snapshot, registered here before the metapage is read, holds back GC as
 * a scan's does (merge.c's flip_xid, vacuum.c's stamps).
 */
static LearnedDirectory *
check_take_view(Relation index, LearnedMetaPageData *meta, LearnedKeyInfo *ki,
				uint64 *appended, BlockNumber *nblocks)
{
	LearnedDirectory *dir;
	LearnedMetaPageData again;

	for (;;)
	{
		dir = LearnedReadMetaAndDirectory(index, meta);
		LearnedKeyInfoLoadMap(index, ki);
		LearnedReadMeta(index, &again);
		if (again.generation == meta->generation)
			break;
		CHECK_FOR_INTERRUPTS();
	}
	*appended = LearnedPendingAppended(index, meta);
	*nblocks = RelationGetNumberOfBlocks(index);
	return dir;
}

/*
 * learned_index_check(index regclass, heapallindexed bool default false)
 *
 * Verifies: key order within and across pages and segments, every model's
 * window on the keys it was trained on, page ownership (no page reachable
 * twice), the pending list's sequence numbers and counters, and optionally
 * that every live heap tuple is indexed.  Raises an ERROR naming the first
 * violation; returns true otherwise.
 *
 * It judges one view (check_take_view), so it may run under any load:
 * pending entries and pages appended after the view, and generations
 * flipped after it, are neither read nor reported.
 */
Datum
learned_index_check(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	bool		heapallindexed = PG_GETARG_BOOL(1);
	Relation	heap;
	Relation	index = LearnedOpenIndexChecked(relid, AccessShareLock, "check", false, &heap);
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	LearnedKeyInfo ki;
	LearnedLeafLayout nl;
	BlockNumber nblocks;
	uint8	   *seen;
	bool		have_prev = false;
	Datum		prev = (Datum) 0;
	char	   *prevbuf;
	uint32		s;
	BlockNumber blk;
	uint64		expect_seq = 0;
	uint64		pending_seen = 0;
	uint64		appended;
	uint32		chain = 0;
	CheckTids	ct;
	Snapshot	snapshot = InvalidSnapshot;

	/*
	 * As amcheck: an index that is not valid is being built by CREATE INDEX
	 * CONCURRENTLY (whose pages other backends can read while it writes
	 * them, and which lacks the rows inserted before it was ready), or is
	 * what a failed one left.  Either would be reported as corrupt.
	 */
	if (!index->rd_index->indisvalid)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot check index \"%s\"", RelationGetRelationName(index)),
				 errdetail("Index is not valid."),
				 errhint("Wait for CREATE INDEX CONCURRENTLY or REINDEX CONCURRENTLY to finish; if one failed, drop the index or REINDEX it.")));

	memset(&ct, 0, sizeof(ct));
	/* before the view: it keeps the view's pages from GC (check_take_view) */
	snapshot = RegisterSnapshot(GetTransactionSnapshot());

	LearnedKeyInfoInit(index, &ki);
	dir = check_take_view(index, &meta, &ki, &appended, &nblocks);
	seen = palloc0(nblocks / 8 + 1);
	/* a variable-width key is smaller than a page */
	prevbuf = palloc(LearnedKeyIsVarwidth(&ki) ? BLCKSZ : ki.keylen);
	LearnedLeafLayoutInit(&nl, 0);

	own_block(index, seen, nblocks, LEARNED_METAPAGE_BLKNO, "metapage");
	for (blk = meta.dir_start; blk != InvalidBlockNumber && blk < meta.dir_start + meta.dir_npages; blk++)
		own_block(index, seen, nblocks, blk, "directory");
	if (meta.nstatic != dir->nstatic || meta.nsegments != dir->nsegments)
		check_fail(index, "the directory does not match the metapage", NULL);

	for (s = 0; s < dir->nsegments; s++)
	{
		LearnedSegment *seg = &dir->segments[s];
		uint32		pg;
		uint32		p;
		int64		rank = 0;
		uint64		prev_mkey = 0;
		bool		first_in_seg = true;
		uint8		seg_prefix[LEARNED_STR_PREFIX_MAX];

		for (pg = 0; pg < seg->npages; pg++)
		{
			BlockNumber b = seg->start_blk + pg;
			Buffer		buf;
			Page		page;
			LearnedPageOpaque op;
			LearnedLeafView view;
			int			n;
			int			expect;
			int			i;
			uint32		P = seg->items_per_page;
			const uint8 *hints;

			own_block(index, seen, nblocks, b, "leaf");
			buf = ReadBuffer(index, b);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			LearnedCheckPage(index, page, b, LEARNED_PAGE_LEAF);
			op = LearnedPageGetOpaque(page);
			expect = (pg + 1 < seg->npages) ? (int) P :
				(int) (seg->nitems - (uint64) pg * P);
			if (op->nitems != expect || op->generation != seg->generation)
				check_fail(index, "a leaf page does not match its segment",
						   psprintf("block %u: %u items, generation %u; expected %d, %u",
									b, op->nitems, op->generation, expect, seg->generation));
			if (!LearnedLeafFormatMatches(op->flags, seg, ki.keylen))
				check_fail(index, "a leaf page's format does not match its segment",
						   psprintf("block %u", b));
			check_hints(index, page, b);

			/*
			 * A hinted entry's heap tuple was dead to every snapshot, ours
			 * included, when the hint was set: with heapallindexed, a live
			 * tuple whose entry is hinted is reported as not indexed (scans
			 * skip the entry).  A standby's hints may be the primary's,
			 * newer than our snapshot: counted as indexed there.
			 */
			hints = RecoveryInProgress() ? NULL : LearnedLeafHints(page);
			/* a compressed page: header, runs, counts and widths */
			LearnedLeafOpen(index, page, b, &ki.layout, &view);
			n = view.nitems;
			for (i = 0; i < n; i++, rank++)
			{
				Datum		key = LearnedLeafViewKey(&view, &ki, i);
				uint64		gkey = LearnedKeyMap(&ki, key);
				uint64		mkey = gkey;

				/* one string column: the models saw segment-local images */
				if (seg->str_skip > 0)
				{
					if (first_in_seg)
						LearnedStringPrefix(&ki, key, seg->str_skip, seg_prefix);
					mkey = LearnedStringImageAt(&ki, key, ki.keytype, seg->str_skip,
												seg_prefix);
				}

				/* decoded values in the key type's range, TIDs valid */
				if (view.compressed && !LearnedLeafCheckSlot(&view, &ki, i))
					check_fail(index, "a compressed leaf page decodes out of bounds",
							   psprintf("segment %u, block %u, slot %d", s, b, i));

				if (have_prev && LearnedKeyCmp(&ki, prev, key) > 0)
					check_fail(index, "keys out of order",
							   psprintf("segment %u, block %u, slot %d", s, b, i));
				/* the model window of each distinct key's first occurrence */
				if ((first_in_seg || mkey != prev_mkey) && seg->kind == LEARNED_SEG_MODEL)
				{
					uint32		lo = seg->first_piece,
								hi = seg->first_piece + seg->npieces;
					int64		pred;
					int64		next;
					LearnedPiece pc;
					LearnedPiece pnext;
					PlaPiece	pp;
					int64		page_of_rank = rank / P;

					while (hi - lo > 1)
					{
						uint32		mid = (lo + hi) / 2;

						LearnedDirGetPiece(dir, seg, mid, &pc);
						if (pc.first_key <= mkey)
							lo = mid;
						else
							hi = mid;
					}
					LearnedDirGetPiece(dir, seg, lo, &pc);
					if (pc.first_key <= mkey)
					{
						pp.first_key = pc.first_key;
						pp.intercept = pc.intercept;
						pp.slope = (double) pc.slope;
						pred = pla_predict(&pp, mkey);
						if (lo + 1 < seg->first_piece + seg->npieces)
						{
							LearnedDirGetPiece(dir, seg, lo + 1, &pnext);
							next = pnext.start_rank;
						}
						else
							next = seg->nitems;
						pred = Min(Max(pred, (int64) pc.start_rank), next);
						if (page_of_rank < Max(pred - pc.err_below, 0) / P ||
							page_of_rank > (pred + pc.err_above) / P)
							check_fail(index, "a key lies outside its model's window",
									   psprintf("segment %u, piece %u, rank " INT64_FORMAT ", predicted " INT64_FORMAT,
												s, lo, rank, pred));
					}
					else if (!first_in_seg || s == 0)
						check_fail(index, "a key precedes its segment's first piece",
								   psprintf("segment %u, rank " INT64_FORMAT, s, rank));
				}
				/* a zone map: every key's group is the one its separators say */
				if ((first_in_seg || mkey != prev_mkey) && seg->kind == LEARNED_SEG_ZONEMAP)
				{
					int64		group = rank / P / seg->zone_stride;

					if (group > 0 &&
						LearnedDirGetZone(dir, seg->first_zone + group - 1) >= mkey)
						check_fail(index, "a key lies before its zone-map group",
								   psprintf("segment %u, rank " INT64_FORMAT, s, rank));
					if (group < seg->nzones &&
						LearnedDirGetZone(dir, seg->first_zone + group) < mkey)
						check_fail(index, "a key lies past its zone-map group",
								   psprintf("segment %u, rank " INT64_FORMAT, s, rank));
				}
				if (first_in_seg && gkey != seg->first_key)
					check_fail(index, "a segment's first key does not match its directory",
							   psprintf("segment %u", s));
				first_in_seg = false;
				prev_mkey = mkey;
				prev = LearnedKeyCopy(&ki, key, prevbuf);
				have_prev = true;
				if (heapallindexed && !LearnedLeafIsDead(page, &ki.layout, i) &&
					!(hints && LearnedHintIsSet(hints, i)))
				{
					ItemPointerData tid = LearnedLeafViewTid(&view, i);

					add_tid(&ct, &tid);
				}
			}
			UnlockReleaseBuffer(buf);
			CHECK_FOR_INTERRUPTS();
		}
		for (p = seg->first_piece; p + 1 < seg->first_piece + seg->npieces; p++)
			if (leco_get(dir->pk_key, p) >= leco_get(dir->pk_key, p + 1))
				check_fail(index, "piece keys are not increasing",
						   psprintf("segment %u, piece %u", s, p));
	}

	for (blk = 0; blk < meta.nulls_npages; blk++)
	{
		BlockNumber b = meta.nulls_start + blk;
		Buffer		buf;
		Page		page;
		int			i;

		own_block(index, seen, nblocks, b, "nulls");
		buf = ReadBuffer(index, b);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, b, LEARNED_PAGE_NULLS);
		check_hints(index, page, b);
		if (heapallindexed)
			for (i = 0; i < LearnedPageGetOpaque(page)->nitems; i++)
				if (!LearnedLeafIsDead(page, &nl, i))
					add_tid(&ct, LearnedLeafTid(page, &nl, i));
		UnlockReleaseBuffer(buf);
	}

	/*
	 * The pending list: sequence numbers continue page to page, from the
	 * view's head to its tail, and entries [pending_merged, appended) are
	 * all there.  The walk ends at the view's tail: a page linked after it,
	 * and entries appended to it since, are not the view's.
	 */
	if ((meta.pending_head == InvalidBlockNumber) != (meta.pending_tail == InvalidBlockNumber))
		check_fail(index, "the pending chain does not end at the tail",
				   psprintf("head %u, tail %u", meta.pending_head, meta.pending_tail));
	for (blk = meta.pending_head; blk != InvalidBlockNumber;)
	{
		Buffer		buf;
		Page		page;
		uint64		first_seq;
		BlockNumber next;
		int			n;
		int			i;

		own_block(index, seen, nblocks, blk, "pending");
		buf = ReadBuffer(index, blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, blk, LEARNED_PAGE_PENDING);
		first_seq = LearnedPendingFirstSeq(page);
		n = LearnedPendingCount(page, meta.keylen);
		if (chain > 0 && first_seq != expect_seq)
			check_fail(index, "pending sequence numbers are not contiguous",
					   psprintf("block %u starts at " UINT64_FORMAT ", expected " UINT64_FORMAT,
								blk, first_seq, expect_seq));
		if (chain == 0 && first_seq > meta.pending_merged)
			check_fail(index, "the pending head starts after the merged position", NULL);

		/*
		 * A packed page (learned.h) only in the runs, of a key that packs,
		 * with nothing past its fields.
		 */
		if (LearnedPendingIsPacked(page))
			check_packed_page(index, page, blk, meta.keylen,
							  meta.nruns > 0 && first_seq >= meta.runs[0].first_seq &&
							  first_seq < meta.runs_end_seq);

		/*
		 * The slots past the last record, up to pd_lower, are zero: appends
		 * move pd_lower ahead of their records (tail.c), and the count
		 * stops at the first slot whose TID offset is 0, so a record past a
		 * zero slot would be lost to every reader.
		 */
		else
		{
			int			itemsize = LearnedPendingItemSize(meta.keylen);
			int			lower = ((PageHeader) page)->pd_lower;
			const char *z = LearnedPendingItemPtr(page, meta.keylen, n);
			const char *end = (const char *) page +
				Min(lower, (int) (LEARNED_PENDING_ITEMS_OFFSET +
								  LearnedPendingCapacity(meta.keylen) * itemsize));

			for (; z < end; z++)
				if (*z != 0)
					check_fail(index, "a pending page has bytes past its last record",
							   psprintf("block %u, %d records, byte %d", blk, n,
										(int) (z - (const char *) page)));
		}
		for (i = 0; i < n && first_seq + i < appended; i++)
		{
			uint16		flags;

			if (first_seq + i < meta.pending_merged)
				continue;
			pending_seen++;
			flags = LearnedPendingFlagsAt(page, meta.keylen, i);
			/* a variable-width key's place and size on its page */
			if (!(flags & LEARNED_PENDING_NULL))
				(void) LearnedPendingKeyAt(index, &ki, page, blk, i);

			/*
			 * Hints are set only on run pages, which then carry the page
			 * flag that has LearnedXLogRegister log them whole; a hinted
			 * entry is left out of the indexed TIDs as a hinted static one
			 * is (on a primary), so that a live tuple behind a hint is
			 * reported.
			 */
			if ((flags & LEARNED_PENDING_HINT) &&
				(first_seq + i >= meta.runs_end_seq || meta.nruns == 0 ||
				 !(LearnedPageGetOpaque(page)->flags & LEARNED_PENDING_PAGE_HINTED)))
				check_fail(index, "a pending entry outside the runs, or on a page without the hint flag, is hinted",
						   psprintf("block %u, slot %d", blk, i));
			if (heapallindexed && !(flags & LEARNED_PENDING_DEAD) &&
				!((flags & LEARNED_PENDING_HINT) && !RecoveryInProgress()))
			{
				ItemPointerData tid = LearnedPendingTidAt(page, meta.keylen, i);

				add_tid(&ct, &tid);
			}
		}
		expect_seq = first_seq + n;
		chain++;
		next = LearnedPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
		if (blk == meta.pending_tail)
		{
			if (first_seq != meta.pending_tail_seq)
				check_fail(index, "the pending tail does not start where the metapage says",
						   psprintf("block %u starts at " UINT64_FORMAT ", the metapage says " UINT64_FORMAT,
									blk, first_seq, meta.pending_tail_seq));
			break;
		}
		if (next == InvalidBlockNumber)
			check_fail(index, "the pending chain does not end at the tail",
					   psprintf("block %u ends it, the tail is %u", blk, meta.pending_tail));
		blk = next;
	}
	if (meta.pending_merged > appended ||
		pending_seen != appended - meta.pending_merged)
		check_fail(index, "pending entries are missing",
				   psprintf("found " UINT64_FORMAT ", the metapage and the tail say " UINT64_FORMAT " to " UINT64_FORMAT,
							pending_seen, meta.pending_merged, appended));
	if (chain != meta.pending_pages)
		check_fail(index, "the pending page count is wrong",
				   psprintf("chain has %u pages, metapage says %u", chain, meta.pending_pages));
	check_runs(index, &meta, &ki, dir, seen, nblocks);

	if (heapallindexed)
	{
		IndexInfo  *indexInfo = BuildIndexInfo(index);
		TableScanDesc scan;
		Oid			save_userid;
		int			save_sec_context;
		int			save_nestlevel;

		/*
		 * The index's expressions and predicate run as the table's owner,
		 * in a security-restricted operation, as in CREATE INDEX and
		 * amcheck: a function its owner wrote must not run with the rights
		 * of whoever checks the index.
		 */
		GetUserIdAndSecContext(&save_userid, &save_sec_context);
		SetUserIdAndSecContext(heap->rd_rel->relowner,
							   save_sec_context | SECURITY_RESTRICTED_OPERATION);
		save_nestlevel = NewGUCNestLevel();

		qsort(ct.tids, ct.n, sizeof(ItemPointerData), tid_cmp);
		scan = table_beginscan_strat(heap, snapshot, 0, NULL, true, false);
		indexInfo->ii_Concurrent = true;	/* use our MVCC snapshot */
		table_index_build_scan(heap, index, indexInfo, true, false,
							   check_heap_callback, (void *) &ct, scan);
		if (ct.missing > 0)
			check_fail(index, "live heap tuples are not indexed",
					   psprintf(INT64_FORMAT " missing, first (%u,%u)", ct.missing,
								ItemPointerGetBlockNumber(&ct.first_missing),
								ItemPointerGetOffsetNumber(&ct.first_missing)));
		AtEOXact_GUC(false, save_nestlevel);
		SetUserIdAndSecContext(save_userid, save_sec_context);
	}
	UnregisterSnapshot(snapshot);

	relation_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);
	PG_RETURN_BOOL(true);
}
