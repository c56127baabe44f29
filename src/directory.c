/*
 * directory.c
 *		The segment directory, LeCo-compressed (guidelines G4 and G5).
 *
 * The directory of a generation is one byte stream over contiguous
 * directory pages (LEARNED_DIR_BYTES_PER_PAGE bytes each):
 *
 *   LearnedDirHeader | 13 LeCo runs (leco.h), each 8-byte aligned
 *
 *   segment columns (nsegments values each):
 *     start_blk, first_key (mapped), nitems, npieces, generation,
 *     kind | zone_stride << 8 | items_per_page << 24 | compressed << 40 |
 *     str_skip << 41 | packed << 48
 *     (items_per_page: the page capacity P of the segment, the metapage's
 *     for plain pages, the one chosen when it was written for compressed
 *     ones, leaf.c; one column for all four keeps the directory's fixed
 *     cost, and the column is nearly constant, so LeCo stores it in a few
 *     bits an entry)
 *   piece columns (npieces values each, pieces of all model segments in
 *   key order):
 *     first_key (mapped), rank (segment rank_base + start_rank: increasing
 *     over the whole index, so one line fits many pieces), intercept -
 *     start_rank (sign-flipped int64), slope (the float4's bits),
 *     err_below, err_above
 *   zone column (nzones values): the rough separators of all zone-map
 *     segments, in key order (LeCo-Zonemap-D, see below).
 *
 * Everything else (npages, first_piece, first_zone, rank_base) is derived
 * on load.  The per-backend cache (below) keeps the stream as read: the
 * segments are decoded (they are few: one per 128 leaf pages), the piece and
 * zone runs stay compressed and are searched in place (leco_upper_bound /
 * leco_lower_bound, then O(1) random-access decodes of one piece).
 *
 * Zone-map segments: the pages of the segment are cut into groups of
 * zone_stride pages; group j < ngroups - 1 has a separator u_j with
 * max_j <= u_j < min_{j+1} (mapped keys; u_j = max_j if min_{j+1} = max_j).
 * The first entry >= x lies in the first group whose separator is >= x, or
 * (x in a gap, max_j < x <= u_j) at the start of the next group, which the
 * scan's verification reaches by moving right.  Any value in the interval
 * gives that answer, so the encoder picks the one nearest its line (rough
 * separators, the paper's LeCo-Zonemap-D).
 */
#include "postgres.h"

#include "learned.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/hsearch.h"
#include "utils/rel.h"
#include "utils/memutils.h"

#define LEARNED_DIR_MAGIC	0x5249444C	/* "LDIR" */
#define LEARNED_DIR_NRUNS	13

/* ON-DISK: the start of the directory stream */
typedef struct LearnedDirHeader
{
	uint32		magic;
	uint32		nsegments;
	uint32		npieces;
	uint32		nzones;
	uint32		total_bytes;	/* header and runs */
	uint32		model_bytes;	/* the 12 segment and piece runs */
} LearnedDirHeader;

enum
{
	RUN_SEG_BLK, RUN_SEG_KEY, RUN_SEG_NITEMS, RUN_SEG_NPIECES, RUN_SEG_GEN,
	RUN_SEG_KIND,
	RUN_PK_KEY, RUN_PK_RANK, RUN_PK_ICPT, RUN_PK_SLOPE, RUN_PK_ELO, RUN_PK_EHI,
	RUN_ZONE
};

/* ---------- encoding ---------- */

static void
append_run(StringInfo buf, const uint64 *lo, const uint64 *hi, Size n)
{
	size_t		size;
	uint8	   *run;

	if (n > PG_UINT32_MAX)
		elog(ERROR, "learned index directory column too long");
	run = hi ? leco_encode_intervals(lo, hi, (uint32) n, NULL, &size) :
		leco_encode(lo, (uint32) n, NULL, &size);
	if (run == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory while compressing a learned index directory")));
	Assert(size % 8 == 0 && buf->len % 8 == 0);
	appendBinaryStringInfo(buf, (const char *) run, (int) size);
	free(run);
}

static char *
encode_directory(const LearnedSegmentSet *set, Size *len)
{
	StringInfoData buf;
	Size		ns = set->nsegs;
	Size		np = set->npieces;
	Size		nmax = Max(Max(ns, np), 1);
	uint64	   *col = palloc_extended(sizeof(uint64) * nmax * 6, MCXT_ALLOC_HUGE);
	uint64	   *c[6];
	LearnedDirHeader hdr;
	Size		i;
	Size		s;
	uint64		rank_base = 0;
	int			k;

	for (k = 0; k < 6; k++)
		c[k] = col + k * nmax;
	initStringInfo(&buf);
	memset(&hdr, 0, sizeof(hdr));
	appendBinaryStringInfo(&buf, (const char *) &hdr, sizeof(hdr));
	while (buf.len % 8 != 0)
		appendStringInfoChar(&buf, 0);

	/* segment columns */
	for (s = 0; s < ns; s++)
	{
		const LearnedSegment *seg = &set->segs[s];

		c[0][s] = seg->start_blk;
		c[1][s] = seg->first_key;
		c[2][s] = seg->nitems;
		c[3][s] = seg->npieces;
		c[4][s] = seg->generation;
		c[5][s] = (uint64) seg->kind | ((uint64) seg->zone_stride << 8) |
			((uint64) seg->items_per_page << 24) | ((uint64) seg->compressed << 40) |
			((uint64) seg->str_skip << 41) | ((uint64) seg->packed << 48);
	}
	for (k = 0; k < 6; k++)
		append_run(&buf, c[k], NULL, ns);

	/* piece columns, with ranks made global */
	for (s = 0; s < ns; s++)
	{
		const LearnedSegment *seg = &set->segs[s];

		for (i = seg->first_piece; i < seg->first_piece + seg->npieces; i++)
		{
			const LearnedPiece *p = &set->pieces[i];
			uint32		bits;

			memcpy(&bits, &p->slope, sizeof(bits));
			c[0][i] = p->first_key;
			c[1][i] = rank_base + p->start_rank;
			c[2][i] = leco_i64_to_u64((int64) p->intercept - (int64) p->start_rank);
			c[3][i] = bits;
			c[4][i] = p->err_below;
			c[5][i] = p->err_above;
		}
		rank_base += seg->nitems;
	}
	for (k = 0; k < 6; k++)
		append_run(&buf, c[k], NULL, np);
	hdr.model_bytes = (uint32) (buf.len - MAXALIGN(sizeof(hdr)));

	append_run(&buf, set->zlo, set->zhi, set->nzones);

	hdr.magic = LEARNED_DIR_MAGIC;
	hdr.nsegments = (uint32) ns;
	hdr.npieces = (uint32) np;
	hdr.nzones = (uint32) set->nzones;
	hdr.total_bytes = (uint32) buf.len;
	memcpy(buf.data, &hdr, sizeof(hdr));
	pfree(col);
	*len = buf.len;
	return buf.data;
}

/*
 * Write the directory of a segment set over a run of contiguous directory
 * pages.  Returns the first block.
 */
BlockNumber
LearnedWriteDirectory(Relation index, const LearnedSegmentSet *set,
					  uint32 generation, uint32 *npages, bool building)
{
	Size		total;
	char	   *stream = encode_directory(set, &total);
	Size		off = 0;
	BlockNumber first;
	uint32		pg = 0;

	/* an empty static stage has no directory pages */
	if (set->nsegs == 0)
	{
		pfree(stream);
		*npages = 0;
		return InvalidBlockNumber;
	}
	*npages = (uint32) ((total + LEARNED_DIR_BYTES_PER_PAGE - 1) / LEARNED_DIR_BYTES_PER_PAGE);
	first = LearnedAllocRun(index, *npages, building);
	while (off < total)
	{
		Buffer		buf = ReadBuffer(index, first + pg);
		Page		page;
		Size		chunk = Min(total - off, LEARNED_DIR_BYTES_PER_PAGE);
		char	   *dst;

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		LearnedInitPage(page, LEARNED_PAGE_DIR, generation);
		dst = PageGetContents(page);
		memcpy(dst, stream + off, chunk);
		((PageHeader) page)->pd_lower = (dst - (char *) page) + chunk;
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
		off += chunk;
		pg++;
	}
	if (!building && RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, first, first + *npages, true);
	pfree(stream);
	return first;
}

void
LearnedSegmentSetAddZone(LearnedSegmentSet *set, uint64 lo, uint64 hi)
{
	if (set->nzones >= set->maxzones)
	{
		set->maxzones = Max(64, set->maxzones * 2);
		set->zlo = set->zlo ? repalloc_huge(set->zlo, set->maxzones * sizeof(uint64)) :
			palloc_extended(set->maxzones * sizeof(uint64), MCXT_ALLOC_HUGE);
		set->zhi = set->zhi ? repalloc_huge(set->zhi, set->maxzones * sizeof(uint64)) :
			palloc_extended(set->maxzones * sizeof(uint64), MCXT_ALLOC_HUGE);
	}
	set->zlo[set->nzones] = lo;
	set->zhi[set->nzones] = hi;
	set->nzones++;
}

/* ---------- decoding ---------- */

/*
 * Parse dir->stream (stream_bytes long, read by load_directory) and derive the
 * segment array.  Any inconsistency is reported as corruption.
 */
void
LearnedDirDecode(Relation index, LearnedDirectory *dir, MemoryContext cxt)
{
	LearnedDirHeader hdr;
	const uint8 *runs[LEARNED_DIR_NRUNS];
	Size		off;
	int			k;
	uint32		s;
	uint64		rank_base = 0;
	uint32		first_piece = 0;
	uint32		first_zone = 0;

	if (dir->stream_bytes == 0 && dir->nsegments == 0 && dir->npieces == 0)
	{
		/* empty static stage: no directory pages, empty columns */
		static uint64 empty_buf[(sizeof(LecoRunHeader) + LECO_PAD_BYTES) / 8];
		LecoRunHeader *h = (LecoRunHeader *) empty_buf;

		h->magic = LECO_MAGIC;
		h->resid_bytes = LECO_PAD_BYTES;
		h->total_bytes = sizeof(LecoRunHeader) + LECO_PAD_BYTES;
		dir->nzones = 0;
		dir->model_bytes = dir->zonemap_bytes = 0;
		dir->pk_key = dir->pk_rank = dir->pk_icpt = dir->pk_slope =
			dir->pk_elo = dir->pk_ehi = dir->zone = (const uint8 *) empty_buf;
		dir->segments = MemoryContextAllocZero(cxt, sizeof(LearnedSegment));
		dir->seg_first_vpage = MemoryContextAllocZero(cxt, sizeof(uint32));
		dir->nvpages = 0;
		return;
	}
	if (dir->stream_bytes < MAXALIGN(sizeof(hdr)))
		LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "directory too short");
	memcpy(&hdr, dir->stream, sizeof(hdr));
	if (hdr.magic != LEARNED_DIR_MAGIC || hdr.total_bytes > dir->stream_bytes ||
		hdr.nsegments != dir->nsegments || hdr.npieces != dir->npieces)
		LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad directory header");
	off = MAXALIGN(sizeof(hdr));
	for (k = 0; k < LEARNED_DIR_NRUNS; k++)
	{
		const uint8 *run = (const uint8 *) dir->stream + off;
		uint32		want = k <= RUN_SEG_KIND ? hdr.nsegments :
			(k == RUN_ZONE ? hdr.nzones : hdr.npieces);

		if (!leco_validate(run, hdr.total_bytes - off) || leco_count(run) != want)
			LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad directory column");
		runs[k] = run;
		off += leco_size(run);
		if (k == RUN_PK_EHI && off - MAXALIGN(sizeof(hdr)) != hdr.model_bytes)
			LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad directory header");
	}
	if (off != hdr.total_bytes)
		LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad directory header");

	dir->nzones = hdr.nzones;
	dir->model_bytes = hdr.model_bytes + MAXALIGN(sizeof(hdr));
	dir->zonemap_bytes = hdr.total_bytes - dir->model_bytes;
	dir->pk_key = runs[RUN_PK_KEY];
	dir->pk_rank = runs[RUN_PK_RANK];
	dir->pk_icpt = runs[RUN_PK_ICPT];
	dir->pk_slope = runs[RUN_PK_SLOPE];
	dir->pk_elo = runs[RUN_PK_ELO];
	dir->pk_ehi = runs[RUN_PK_EHI];
	dir->zone = runs[RUN_ZONE];

	dir->segments = MemoryContextAllocZero(cxt, sizeof(LearnedSegment) * Max(dir->nsegments, 1));
	dir->seg_first_vpage = MemoryContextAlloc(cxt, sizeof(uint32) * (dir->nsegments + 1));
	dir->seg_first_vpage[0] = 0;
	for (s = 0; s < dir->nsegments; s++)
	{
		LearnedSegment *seg = &dir->segments[s];
		uint64		kind = leco_get(runs[RUN_SEG_KIND], s);
		uint64		nitems = leco_get(runs[RUN_SEG_NITEMS], s);
		uint64		npieces = leco_get(runs[RUN_SEG_NPIECES], s);
		uint64		blk = leco_get(runs[RUN_SEG_BLK], s);
		uint64		gen = leco_get(runs[RUN_SEG_GEN], s);
		uint32		P = (uint32) ((kind >> 24) & 0xFFFF);
		bool		compressed = ((kind >> 40) & 1) != 0;
		uint32		str_skip = (uint32) ((kind >> 41) & 0x7F);
		bool		packed = ((kind >> 48) & 1) != 0;

		/*
		 * Plain pages have the metapage's capacity; compressed, packed and
		 * variable-width ones a sane one.  Only a fixed-width index's
		 * segments can be packed (on stride pages).
		 */
		if ((kind >> 49) != 0 || str_skip > LEARNED_STR_PREFIX_MAX || P == 0 ||
			(packed && (compressed || dir->keylen == LEARNED_VARWIDTH)) ||
			(compressed ? P > LCP_MAX_ITEMS :
			 (dir->keylen == LEARNED_VARWIDTH || packed) ? P > LEARNED_VW_MAX_ITEMS :
			 P != (uint32) dir->items_per_page))
			LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad segment descriptor");
		if (nitems == 0 || nitems > (uint64) LEARNED_SEGMENT_MAX_PAGES * P * 2 ||
			blk >= MaxBlockNumber || gen > PG_UINT32_MAX)
			LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad segment descriptor");
		seg->start_blk = (BlockNumber) blk;
		seg->items_per_page = P;
		seg->compressed = compressed;
		seg->packed = packed;
		seg->str_skip = (uint8) str_skip;
		seg->nitems = (uint32) nitems;
		seg->npages = (uint32) ((nitems + P - 1) / P);
		seg->generation = (uint32) gen;
		seg->kind = (uint16) (kind & 0xFF);
		seg->zone_stride = (uint16) ((kind >> 8) & 0xFFFF);
		seg->first_key = leco_get(runs[RUN_SEG_KEY], s);
		seg->rank_base = rank_base;
		seg->first_piece = first_piece;
		seg->first_zone = first_zone;
		if (seg->kind == LEARNED_SEG_MODEL)
		{
			if (npieces == 0 || npieces > hdr.npieces - first_piece ||
				seg->zone_stride != 0)
				LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad segment descriptor");
			seg->npieces = (uint32) npieces;
			seg->nzones = 0;
		}
		else if (seg->kind == LEARNED_SEG_ZONEMAP)
		{
			uint32		ngroups;

			if (npieces != 0 || seg->zone_stride == 0)
				LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad segment descriptor");
			ngroups = (seg->npages + seg->zone_stride - 1) / seg->zone_stride;
			seg->npieces = 0;
			seg->nzones = ngroups - 1;
			if (seg->nzones > hdr.nzones - first_zone)
				LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad segment descriptor");
		}
		else
			LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad segment kind");
		/* piece ranks must lie inside the segment */
		if (seg->npieces > 0 &&
			(leco_get(dir->pk_rank, first_piece) != rank_base ||
			 leco_get(dir->pk_rank, first_piece + seg->npieces - 1) > rank_base + nitems))
			LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "bad piece descriptor");
		first_piece += seg->npieces;
		first_zone += seg->nzones;
		rank_base += nitems;
		dir->seg_first_vpage[s + 1] = dir->seg_first_vpage[s] + seg->npages;
	}
	if (first_piece != hdr.npieces || first_zone != hdr.nzones ||
		rank_base != dir->nstatic)
		LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, "directory does not match the metapage");
	dir->nvpages = dir->seg_first_vpage[dir->nsegments];
	if (dir->nvpages <= LEARNED_LEAF_HINT_MAX)
		dir->leaf_hint = MemoryContextAllocZero(cxt, sizeof(Buffer) * Max(dir->nvpages, 1));
}

/* decode piece p (global index) of segment seg */
void
LearnedDirGetPiece(const LearnedDirectory *dir, const LearnedSegment *seg,
				   uint32 p, LearnedPiece *out)
{
	uint32		bits = (uint32) leco_get(dir->pk_slope, p);
	int64		start = (int64) (leco_get(dir->pk_rank, p) - seg->rank_base);

	out->first_key = leco_get(dir->pk_key, p);
	out->start_rank = (uint32) start;
	out->intercept = (int32) (start + leco_u64_to_i64(leco_get(dir->pk_icpt, p)));
	memcpy(&out->slope, &bits, sizeof(bits));
	out->err_below = (uint16) leco_get(dir->pk_elo, p);
	out->err_above = (uint16) leco_get(dir->pk_ehi, p);
}

uint64
LearnedDirGetZone(const LearnedDirectory *dir, uint32 z)
{
	return leco_get(dir->zone, z);
}

/*
 * The window of vpages [*wlo, *whi] where the first entry with mapped key
 * >= hint should be.  Returns false if hint is below every segment (then
 * the answer is the first entry).  The scan verifies the window with the
 * comparator, so a wrong window costs reads, never answers.
 *
 * slots (may be NULL): the model's window inside those pages, slots[0] in
 * page *wlo to slots[1] in page *whi (0 and INT_MAX when the segment has no
 * model: a zone map), to narrow the search inside a page.
 */
bool
LearnedDirWindow(const LearnedDirectory *dir, uint64 hint, uint32 *wlo, uint32 *whi,
				 int *slots)
{
	uint32		lo = 0,
				hi = dir->nsegments;

	*wlo = *whi = 0;
	if (slots)
	{
		slots[0] = 0;
		slots[1] = INT_MAX;
	}
	if (dir->nsegments == 0 || dir->segments[0].first_key > hint)
		return false;
	/* rightmost segment whose first key is at most hint */
	while (hi - lo > 1)
	{
		uint32		mid = (lo + hi) / 2;

		if (dir->segments[mid].first_key <= hint)
			lo = mid;
		else
			hi = mid;
	}
	LearnedDirWindowSeg(dir, lo, hint, false, wlo, whi, slots);
	return true;
}

/*
 * The window inside segment segno.  With local (segment-local images: a
 * string column, keymap.c), piece keys and zone separators are ordered only
 * within their segment, so they are searched there alone (random access);
 * otherwise the whole runs are ordered and searched on the compressed form.
 */
void
LearnedDirWindowSeg(const LearnedDirectory *dir, uint32 segno, uint64 hint,
					bool local, uint32 *wlo, uint32 *whi, int *slots)
{
	const LearnedSegment *seg = &dir->segments[segno];
	uint32		segvp = dir->seg_first_vpage[segno];
	uint32		P = seg->items_per_page;
	int			slo = 0,
				shi = INT_MAX;

	if (seg->kind == LEARNED_SEG_ZONEMAP)
	{
		uint32		g;

		/* first group whose separator is >= hint (the last has none) */
		if (local)
		{
			uint32		lo = 0,
						hi = seg->nzones;

			while (lo < hi)
			{
				uint32		mid = (lo + hi) / 2;

				if (leco_get(dir->zone, seg->first_zone + mid) < hint)
					lo = mid + 1;
				else
					hi = mid;
			}
			g = lo;
		}
		else
		{
			uint32		z = leco_lower_bound(dir->zone, hint);

			g = z <= seg->first_zone ? 0 : Min(z - seg->first_zone, seg->nzones);
		}
		*wlo = segvp + g * seg->zone_stride;
		*whi = segvp + Min((g + 1) * seg->zone_stride, seg->npages) - 1;
	}
	else
	{
		uint32		p;
		LearnedPiece pc;
		PlaPiece	pp;
		int64		pred;
		int64		next;
		int64		rlo,
					rhi;

		/* rightmost piece whose first key is at most hint, in this segment */
		if (local)
		{
			uint32		lo = 0,
						hi = seg->npieces;

			while (hi - lo > 1)
			{
				uint32		mid = (lo + hi) / 2;

				if (leco_get(dir->pk_key, seg->first_piece + mid) <= hint)
					lo = mid;
				else
					hi = mid;
			}
			p = seg->first_piece + lo;
		}
		else
		{
			p = leco_upper_bound(dir->pk_key, hint);
			p = p == 0 ? 0 : p - 1;
			p = Max(p, seg->first_piece);
			p = Min(p, seg->first_piece + seg->npieces - 1);
		}
		LearnedDirGetPiece(dir, seg, p, &pc);
		pp.first_key = pc.first_key;
		pp.intercept = pc.intercept;
		pp.slope = (double) pc.slope;
		pred = pla_predict(&pp, hint);
		next = (p + 1 < seg->first_piece + seg->npieces) ?
			(int64) (leco_get(dir->pk_rank, p + 1) - seg->rank_base) : (int64) seg->nitems;
		pred = Max(pred, (int64) pc.start_rank);
		pred = Min(pred, next);
		rlo = Max(pred - pc.err_below, 0);
		rhi = Min(pred + pc.err_above, (int64) seg->nitems - 1);
		rhi = Max(rhi, rlo);
		*wlo = segvp + (uint32) (rlo / P);
		*whi = segvp + (uint32) (rhi / P);
		slo = (int) (rlo % P);
		shi = (int) (rhi % P);
	}
	if (*whi > dir->nvpages - 1 || *wlo > *whi)
		slo = 0, shi = INT_MAX;
	*whi = Min(*whi, dir->nvpages - 1);
	*wlo = Min(*wlo, *whi);
	if (slots)
	{
		slots[0] = slo;
		slots[1] = shi;
	}
}

/* ---------- G5: model or zone map, per segment ---------- */

/*
 * Marginal compressed size of a column: without the run header, the
 * padding and one partition header, which the segment shares with its
 * neighbours in the directory's global columns.
 */
static Size
column_bytes(const uint64 *lo, const uint64 *hi, Size n)
{
	size_t		size;
	uint8	   *run;

	run = hi ? leco_encode_intervals(lo, hi, (uint32) n, NULL, &size) :
		leco_encode(lo, (uint32) n, NULL, &size);
	if (run == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory while compressing a learned index directory")));
	free(run);
	size -= sizeof(LecoRunHeader) + LECO_PAD_BYTES;
	return n > 0 ? size - Min(size, sizeof(LecoPart)) : 0;
}

/* append the rough separators of seg's page groups (stride pages each) */
static void
add_zones(LearnedSegmentSet *set, const LearnedEntry *entries, uint32 nitems,
		  int P, uint32 stride)
{
	uint64		group_items = (uint64) stride * P;
	uint32		ngroups = (uint32) ((nitems + group_items - 1) / group_items);
	uint32		j;

	for (j = 0; j + 1 < ngroups; j++)
	{
		uint64		last = entries[(j + 1) * group_items - 1].mkey;
		uint64		next = entries[(j + 1) * group_items].mkey;

		/* any u with last <= u < next finds the same group */
		LearnedSegmentSetAddZone(set, last, next > last ? next - 1 : last);
	}
}

/*
 * seg (the last segment of set, entries[0..nitems-1] its entries) was
 * trained as a model (unless mode is zonemap).  Decide its kind:
 *
 * - model: keep the pieces;
 * - zonemap: one separator per page;
 * - auto (the paper's Fig. 8-9 rule): build the zone map whose window has
 *   no more pages than the model's expected window (stride = floor of the
 *   model's expected pages per lookup), and keep whichever is smaller
 *   compressed.  Hard data (many pieces) or tight error bounds favour the
 *   zone map, smooth data the model.
 */
void
LearnedChooseSegmentKind(LearnedSegmentSet *set, LearnedSegment *seg,
						 const LearnedEntry *entries, int P)
{
	uint32		stride = 1;
	Size		nz0 = set->nzones;

	seg->zone_stride = 0;
	if (set->mode == LEARNED_MODE_MODEL ||
		(set->mode == LEARNED_MODE_AUTO && seg->npages <= 1))
		return;

	if (set->mode == LEARNED_MODE_AUTO)
	{
		double		pages = 0;
		Size		model = 0;
		Size		zone;
		uint32		i;
		uint32		np = seg->npieces;
		uint64	   *col = palloc(sizeof(uint64) * np * 6);
		LearnedPiece *pc = &set->pieces[seg->first_piece];

		/* expected window of a present key, weighted by the piece's items */
		for (i = 0; i < np; i++)
		{
			uint32		end = i + 1 < np ? pc[i + 1].start_rank : seg->nitems;
			uint32		bits;

			pages += (double) (end - pc[i].start_rank) *
				(1.0 + (double) (pc[i].err_below + pc[i].err_above) / P);
			memcpy(&bits, &pc[i].slope, sizeof(bits));
			col[i] = pc[i].first_key;
			col[np + i] = pc[i].start_rank;
			col[2 * np + i] = leco_i64_to_u64((int64) pc[i].intercept - pc[i].start_rank);
			col[3 * np + i] = bits;
			col[4 * np + i] = pc[i].err_below;
			col[5 * np + i] = pc[i].err_above;
		}
		for (i = 0; i < 6; i++)
			model += column_bytes(col + i * np, NULL, np);
		pfree(col);
		pages /= seg->nitems;
		stride = (uint32) Max(1.0, floor(pages));
		stride = Min(stride, seg->npages);

		add_zones(set, entries, seg->nitems, P, stride);
		zone = column_bytes(set->zlo + nz0, set->zhi + nz0, set->nzones - nz0);
		if (zone >= model)
		{
			set->nzones = nz0;
			return;
		}
	}
	else
		add_zones(set, entries, seg->nitems, P, stride);

	/* a zone map: drop the pieces (and their share of the error stats) */
	while (set->npieces > seg->first_piece)
	{
		LearnedPiece *pc = &set->pieces[--set->npieces];

		set->err_sum -= (double) (pc->err_below + pc->err_above) / 2.0;
	}
	seg->npieces = 0;
	seg->kind = LEARNED_SEG_ZONEMAP;
	seg->zone_stride = (uint16) stride;
}

/* ---------- directory cache ---------- */

/*
 * The directory is cached per backend, keyed by index OID, and validated by
 * (relfilenode, generation) read from the metapage at every scan start.  It
 * is not kept in rd_amcache: a relcache invalidation may free rd_amcache in
 * the middle of a scan, and the directory of a large index is too big to
 * copy per scan.  Each cached directory lives in its own memory context.
 */
typedef struct DirCacheEntry
{
	Oid			indexoid;		/* hash key */
	Oid			relfilenode;
	LearnedDirectory *dir;
	MemoryContext cxt;
} DirCacheEntry;

static HTAB *dir_cache = NULL;

/*
 * Directories replaced while a scan of this backend still used them; freed
 * once released.  (A scan ended by an error never releases its reference:
 * that directory then stays until the backend exits.)
 */
typedef struct OrphanDir
{
	LearnedDirectory *dir;
	MemoryContext cxt;
	struct OrphanDir *next;
} OrphanDir;

static OrphanDir *orphans = NULL;

void
LearnedReleaseDirectory(LearnedDirectory *dir)
{
	OrphanDir **prev = &orphans;
	OrphanDir  *o;

	Assert(dir->refcount > 0);
	dir->refcount--;
	if (dir->refcount > 0)
		return;
	for (o = orphans; o != NULL; prev = &o->next, o = o->next)
	{
		if (o->dir == dir)
		{
			*prev = o->next;
			MemoryContextDelete(o->cxt);
			pfree(o);
			return;
		}
	}
}

/*
 * A run of npages pages from start, named by the metapage or the directory,
 * must lie inside the relation (LearnedBlocksExist): a damaged block number would
 * otherwise reach ReadBuffer and fail there, with a file-level error and no
 * REINDEX hint, and a damaged page count could become a huge allocation.
 * An empty run may have start InvalidBlockNumber.
 */
static void
check_run_inside(Relation index, BlockNumber start, uint32 npages, const char *what)
{
	if (npages > 0 && !LearnedBlocksExist(index, (uint64) start + npages))
		LearnedReportCorrupt(index, LEARNED_METAPAGE_BLKNO, what);
}

static LearnedDirectory *
load_directory(Relation index, MemoryContext cxt)
{
	LearnedMetaPageData meta;
	LearnedDirectory *dir;
	char	   *bytes;
	Size		off = 0;
	uint32		i;

	LearnedReadMeta(index, &meta);
	dir = MemoryContextAllocZero(cxt, sizeof(LearnedDirectory));
	dir->generation = meta.generation;
	dir->keytype = meta.keytype;
	dir->keylen = meta.keylen;
	dir->items_per_page = meta.items_per_page;
	dir->error_bound = meta.error_bound;
	dir->nsegments = meta.nsegments;
	dir->npieces = meta.npieces;
	dir->nstatic = meta.nstatic;
	dir->nulls_start = meta.nulls_start;
	dir->nulls_npages = meta.nulls_npages;
	dir->nnulls = meta.nnulls;

	/* before the stream's allocation, which dir_npages sizes */
	check_run_inside(index, meta.dir_start, meta.dir_npages,
					 "directory pages past the end of the index");

	/* the compressed stream, as written (directory.c decodes it) */
	bytes = MemoryContextAllocHuge(cxt, Max((Size) meta.dir_npages * LEARNED_DIR_BYTES_PER_PAGE, 8));
	for (i = 0; i < meta.dir_npages; i++)
	{
		BlockNumber blkno = meta.dir_start + i;
		Buffer		buf = ReadBuffer(index, blkno);
		Page		page;
		Size		chunk;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		LearnedCheckPage(index, page, blkno, LEARNED_PAGE_DIR);
		if (LearnedPageGetOpaque(page)->generation != meta.generation)
			LearnedReportCorrupt(index, blkno, "directory page of another generation");
		chunk = ((PageHeader) page)->pd_lower - (PageGetContents(page) - (char *) page);
		if (((PageHeader) page)->pd_lower < (PageGetContents(page) - (char *) page) ||
			chunk > LEARNED_DIR_BYTES_PER_PAGE ||
			(i + 1 < meta.dir_npages && chunk != LEARNED_DIR_BYTES_PER_PAGE))
			LearnedReportCorrupt(index, blkno, "bad directory page");
		memcpy(bytes + off, PageGetContents(page), chunk);
		UnlockReleaseBuffer(buf);
		off += chunk;
	}
	dir->stream = bytes;
	dir->stream_bytes = off;
	LearnedDirDecode(index, dir, cxt);

	for (i = 0; i < dir->nsegments; i++)
		check_run_inside(index, dir->segments[i].start_blk, dir->segments[i].npages,
						 "a segment's pages lie past the end of the index");
	check_run_inside(index, dir->nulls_start, dir->nulls_npages,
					 "NULL pages past the end of the index");
	return dir;
}

/*
 * Return the cached directory of the index, reloading it if the cached copy
 * is not of the given generation.  The result stays valid until the next
 * call for the same index that has to reload; callers (scans) keep their
 * own pointer only while the generation they read in the metapage matches.
 */
LearnedDirectory *
LearnedGetDirectory(Relation index, uint32 generation)
{
	DirCacheEntry *entry;
	Oid			key = RelationGetRelid(index);
	bool		found;
	MemoryContext cxt;

	if (dir_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(DirCacheEntry);
		ctl.hcxt = CacheMemoryContext;
		dir_cache = hash_create("learned directory cache", 16, &ctl,
								HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	entry = hash_search(dir_cache, &key, HASH_ENTER, &found);
	if (found && entry->dir != NULL &&
		entry->relfilenode == LI_REL_FILE_NUMBER(index) &&
		entry->dir->generation == generation)
		return entry->dir;

	if (!found)
	{
		entry->dir = NULL;
		entry->cxt = NULL;
	}
	cxt = AllocSetContextCreate(CacheMemoryContext, "learned directory",
								ALLOCSET_DEFAULT_SIZES);
	PG_TRY();
	{
		LearnedDirectory *dir = load_directory(index, cxt);

		if (entry->cxt && entry->dir && entry->dir->refcount > 0)
		{
			OrphanDir  *o = MemoryContextAlloc(CacheMemoryContext, sizeof(OrphanDir));

			o->dir = entry->dir;
			o->cxt = entry->cxt;
			o->next = orphans;
			orphans = o;
		}
		else if (entry->cxt)
			MemoryContextDelete(entry->cxt);
		entry->cxt = cxt;
		entry->dir = dir;
		entry->relfilenode = LI_REL_FILE_NUMBER(index);
	}
	PG_CATCH();
	{
		MemoryContextDelete(cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return entry->dir;
}

/*
 * Read the metapage and the directory of that same generation: a merge may
 * flip between the two reads, and then we read the metapage again.
 */
LearnedDirectory *
LearnedReadMetaAndDirectory(Relation index, LearnedMetaPageData *meta)
{
	for (;;)
	{
		LearnedDirectory *dir;

		LearnedReadMeta(index, meta);
		dir = LearnedGetDirectory(index, meta->generation);
		if (dir->generation == meta->generation)
			return dir;
		CHECK_FOR_INTERRUPTS();
	}
}
