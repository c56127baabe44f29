/*
 * test_leafcodec.c
 *		Standalone tests for src/leafcodec.c, the compressed leaf page codec
 *		(no PostgreSQL needed).
 *
 *		make -C test/unit run
 *
 * One line per case ("ok ..." or "FAIL ..."), then "N passed, M failed".
 * Each case encodes a page of keys and TIDs, opens it, and checks every
 * entry by random access and by full decode, the lower bound against a
 * plain binary search, and that the largest n that fits really is full
 * (n + 1 entries of the same data do not fit).  Corruption cases damage
 * an encoded page and check that lcp_open refuses it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "leafcodec.h"
#include "leco.h"
#include "unit_util.h"

/* a page's data area, as learned leaf pages have it (8 kB pages) */
#define AREA_BYTES	(8192 - 24 - 16)

static int	n_passed = 0;
static int	n_failed = 0;

static void
report(int ok, const char *name)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", name);
	if (ok)
		n_passed++;
	else
		n_failed++;
}

typedef enum
{
	K_SEQ_GAPS, K_LOGNORMAL, K_DUPS, K_UNIFORM64, K_NEGATIVE, K_EDGES,
	K_ALL_ZERO, K_ALL_MAX, K_CLUSTERED, K_NKINDS
} KeyKind;

static const char *key_names[] = {
	"seq_gaps", "lognormal_gaps", "dups", "uniform64", "negative",
	"int64_edges", "all_zero", "all_max", "clustered"
};

typedef enum
{
	T_CORRELATED, T_RANDOM, T_EDGES, T_NKINDS
} TidKind;

static const char *tid_names[] = {"correlated", "random", "tid_edges"};

static void
gen_keys(KeyKind k, uint64_t *v, uint32_t n)
{
	uint32_t	i;
	uint64_t	x = 0;

	for (i = 0; i < n; i++)
	{
		switch (k)
		{
			case K_SEQ_GAPS:
				x += 1 + (rnd() % 100 == 0 ? rnd() % 1000 : 0);
				v[i] = leco_i64_to_u64((int64_t) x);
				break;
			case K_LOGNORMAL:
				x += (uint64_t) exp(2.0 + 2.0 * rnd_normal());
				v[i] = leco_i64_to_u64((int64_t) x);
				break;
			case K_DUPS:
				if (rnd() % 5 == 0)
					x += rnd() % 50;
				v[i] = leco_i64_to_u64((int64_t) x);
				break;
			case K_UNIFORM64:
				v[i] = rnd();
				break;
			case K_NEGATIVE:
				v[i] = leco_i64_to_u64(-1000000 + (int64_t) (i * 3));
				break;
			case K_EDGES:
				if (i < n / 3)
					v[i] = leco_i64_to_u64(INT64_MIN + (int64_t) i);
				else if (i < 2 * n / 3)
					v[i] = leco_i64_to_u64((int64_t) i - (int64_t) n / 2);
				else
					v[i] = leco_i64_to_u64(INT64_MAX - (int64_t) (n - 1 - i));
				break;
			case K_ALL_ZERO:
				v[i] = 0;
				break;
			case K_ALL_MAX:
				v[i] = UINT64_MAX;
				break;
			case K_CLUSTERED:
				if (rnd() % 200 == 0)
					x += rnd() >> 20;
				x += rnd() % 16;
				v[i] = x;
				break;
			default:
				break;
		}
	}
	if (k == K_UNIFORM64)
		qsort(v, n, sizeof(uint64_t), cmp_u64);
}

static void
gen_tids(TidKind k, uint64_t *blk, uint64_t *off, uint32_t n)
{
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		switch (k)
		{
			case T_CORRELATED:
				blk[i] = 1000 + i / 185;
				off[i] = 1 + i % 185;
				break;
			case T_RANDOM:
				blk[i] = rnd() % 100000;
				off[i] = 1 + rnd() % 291;
				break;
			case T_EDGES:
				blk[i] = (i & 1) ? 0xFFFFFFFEu : 0;
				off[i] = (i & 2) ? 0xFFFF : 1;
				break;
			default:
				break;
		}
	}
}

static uint32_t
ref_lower(const uint64_t *v, uint32_t n, uint64_t x)
{
	uint32_t	lo = 0,
				hi = n;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* encode, open, check everything; returns 1 if all is well */
static int
check_page(const uint64_t *keys, const uint64_t *blk, const uint64_t *off,
		   uint32_t n, uint64_t *area, char *why)
{
	size_t		used;
	LcpView		v;
	uint64_t   *dk = malloc(sizeof(uint64_t) * n);
	uint64_t   *db = malloc(sizeof(uint64_t) * n);
	uint64_t   *dof = malloc(sizeof(uint64_t) * n);
	uint32_t	i;
	int			ok = 1;

	if (lcp_encode(keys, blk, off, n, (uint8_t *) area, AREA_BYTES, &used) != LCP_OK)
	{
		sprintf(why, "encode failed");
		ok = 0;
		goto out;
	}
	if (used > AREA_BYTES || !lcp_open((uint8_t *) area, AREA_BYTES, n, &v))
	{
		sprintf(why, "open failed");
		ok = 0;
		goto out;
	}
	if (lcp_open((uint8_t *) area, AREA_BYTES, n + 1, &v) ||
		!lcp_open((uint8_t *) area, used, n, &v))
	{
		sprintf(why, "count or size check wrong");
		ok = 0;
		goto out;
	}
	/* the dead bitmap starts clear */
	for (i = 0; i < lcp_bitmap_bytes(n); i++)
		if (((uint8_t *) area)[LCP_DEAD_OFFSET + i] != 0)
			ok = 0;
	lcp_decode(&v, dk, db, dof);
	for (i = 0; i < n && ok; i++)
	{
		if (lcp_key(&v, i) != keys[i] || lcp_block(&v, i) != (uint32_t) blk[i] ||
			lcp_offset(&v, i) != (uint16_t) off[i] ||
			dk[i] != keys[i] || db[i] != blk[i] || dof[i] != off[i])
		{
			sprintf(why, "entry %u differs", i);
			ok = 0;
		}
	}
	/* slices: at the ends, across partitions, single entries, everything */
	for (i = 0; i < 60 && ok; i++)
	{
		uint32_t	from = i == 0 ? 0 : (i == 1 ? n - 1 : (uint32_t) (rnd() % n));
		uint32_t	cnt = i < 2 ? 1 : (i == 2 ? n - from : 1 + (uint32_t) (rnd() % (n - from)));
		uint32_t	j;

		if (i == 3)
			from = 0, cnt = n;
		memset(dk, 0xAB, sizeof(uint64_t) * n);
		lcp_decode_range(&v, from, cnt, dk, db, i % 3 == 0 ? NULL : dof);
		for (j = 0; j < cnt && ok; j++)
			if (dk[j] != keys[from + j] || db[j] != blk[from + j] ||
				(i % 3 != 0 && dof[j] != off[from + j]))
			{
				sprintf(why, "range [%u, +%u) entry %u differs", from, cnt, j);
				ok = 0;
			}
		/* nothing written past the slice */
		if (ok && cnt < n && dk[cnt] != UINT64_C(0xABABABABABABABAB))
		{
			sprintf(why, "range [%u, +%u) wrote past its end", from, cnt);
			ok = 0;
		}
	}
	for (i = 0; i < 200 && ok; i++)
	{
		uint64_t	x = (i % 2) ? keys[rnd() % n] : rnd();

		if (i % 7 == 0 && x > 0)
			x--;
		if (lcp_lower_bound(&v, x) != ref_lower(keys, n, x))
		{
			sprintf(why, "lower bound of %llu", (unsigned long long) x);
			ok = 0;
		}
	}
	if (ok && (lcp_lower_bound(&v, 0) != ref_lower(keys, n, 0) ||
			   lcp_lower_bound(&v, UINT64_MAX) != ref_lower(keys, n, UINT64_MAX)))
	{
		sprintf(why, "lower bound at the extremes");
		ok = 0;
	}
	/* a lazily opened view answers the same through the checked readers */
	if (ok)
	{
		LcpView		lv;
		uint64_t	kv;
		uint32_t	pos;

		if (!lcp_open_lazy((uint8_t *) area, used, n, &lv) ||
			lcp_open_lazy((uint8_t *) area, used, n + 1, &lv))
		{
			sprintf(why, "lazy open");
			ok = 0;
		}
		for (i = 0; i < n && ok; i++)
			if (!lcp_key_checked(&lv, i, &kv) || kv != keys[i])
			{
				sprintf(why, "checked key %u", i);
				ok = 0;
			}
		if (ok && lcp_key_checked(&lv, n, &kv))
		{
			sprintf(why, "checked key past the end");
			ok = 0;
		}
		for (i = 0; i < 40 && ok; i++)
		{
			uint32_t	from = (uint32_t) (rnd() % n);
			uint32_t	cnt = 1 + (uint32_t) (rnd() % (n - from));
			uint32_t	j;

			if (!lcp_decode_range_checked(&lv, from, cnt, dk, db, dof))
				ok = 0;
			for (j = 0; j < cnt && ok; j++)
				if (dk[j] != keys[from + j] || db[j] != blk[from + j] || dof[j] != off[from + j])
					ok = 0;
			if (!ok)
				sprintf(why, "checked range [%u, +%u)", from, cnt);
		}
		if (ok && lcp_decode_range_checked(&lv, n - 1, 2, dk, db, dof))
		{
			sprintf(why, "checked range past the end");
			ok = 0;
		}
		for (i = 0; i < 200 && ok; i++)
		{
			uint64_t	x = (i % 2) ? keys[rnd() % n] : rnd();

			if (i == 0)
				x = 0;
			if (i == 1)
				x = UINT64_MAX;
			if (!lcp_lower_bound_checked(&lv, x, &pos) || pos != ref_lower(keys, n, x))
			{
				sprintf(why, "checked lower bound of %llu", (unsigned long long) x);
				ok = 0;
			}
		}
		/*
		 * lower bounds in windows: narrow ones (a point lookup's, one or two
		 * partitions) and ones over the whole page (past the partitions a
		 * window walks), empty ones, x inside, below and above the window
		 */
		for (i = 0; i < 400 && ok; i++)
		{
			uint32_t	a = (uint32_t) (rnd() % (n + 1));
			uint32_t	w = (i % 4 == 3) ? (uint32_t) (rnd() % (n + 1)) : (uint32_t) (rnd() % 130);
			uint32_t	b = a + w > n ? n : a + w;
			uint64_t	x;
			uint32_t	want;

			if (i % 5 == 0)
				x = rnd();
			else if (b > a)
				x = keys[a + rnd() % (b - a)] + (i % 5 == 1);
			else
				x = keys[a < n ? a : n - 1];
			if (i % 7 == 0)
				x = (i % 2) ? 0 : UINT64_MAX;
			want = a + ref_lower(keys + a, b - a, x);
			if (!lcp_lower_bound_in_checked(&lv, x, a, b, &pos) || pos != want)
			{
				sprintf(why, "checked lower bound of %llu in [%u, %u): %u, want %u",
						(unsigned long long) x, a, b, pos, want);
				ok = 0;
			}
		}
		if (ok && (lcp_lower_bound_in_checked(&lv, keys[0], 1, 0, &pos) ||
				   lcp_lower_bound_in_checked(&lv, keys[0], 0, n + 1, &pos)))
		{
			sprintf(why, "checked lower bound in a window that is not one");
			ok = 0;
		}
	}
out:
	free(dk);
	free(db);
	free(dof);
	return ok;
}

/* the largest n <= LCP_MAX_ITEMS whose first n entries fit */
static uint32_t
max_fit(const uint64_t *keys, const uint64_t *blk, const uint64_t *off,
		uint32_t avail_n, uint64_t *area)
{
	uint32_t	lo = 0,
				hi = avail_n;
	size_t		used;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo + 1) / 2;

		if (lcp_encode(keys, blk, off, mid, (uint8_t *) area, AREA_BYTES, &used) == LCP_OK)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static void test_lazy_corruption(uint64_t *area, const uint64_t *copy,
								 const uint64_t *keys, uint32_t n);

static void
test_corruption(uint64_t *area)
{
	uint64_t	keys[600],
				blk[600],
				off[600];
	uint64_t	copy[AREA_BYTES / 8 + 1];
	size_t		used;
	LcpView		v;
	LcpHeader	h;
	LecoRunHeader rh;
	LecoPart	part;
	int			ok;
	int			i;

	rng_state = 77;
	gen_keys(K_LOGNORMAL, keys, 600);
	gen_tids(T_RANDOM, blk, off, 600);
	ok = lcp_encode(keys, blk, off, 600, (uint8_t *) area, AREA_BYTES, &used) == LCP_OK;
	memcpy(copy, area, AREA_BYTES);
	memcpy(&h, area, sizeof(h));

	((uint8_t *) area)[0] ^= 0xFF;
	report(ok && !lcp_open((uint8_t *) area, AREA_BYTES, 600, &v), "corrupt: bad magic");
	memcpy(area, copy, AREA_BYTES);

	((LcpHeader *) area)->n = 601;
	report(!lcp_open((uint8_t *) area, AREA_BYTES, 601, &v), "corrupt: count over the bitmap");
	memcpy(area, copy, AREA_BYTES);

	((LcpHeader *) area)->end_off = AREA_BYTES + 8;
	report(!lcp_open((uint8_t *) area, AREA_BYTES, 600, &v), "corrupt: runs past the page");
	memcpy(area, copy, AREA_BYTES);

	((LcpHeader *) area)->blk_off = h.key_off;
	report(!lcp_open((uint8_t *) area, AREA_BYTES, 600, &v), "corrupt: overlapping runs");
	memcpy(area, copy, AREA_BYTES);

	/* a key residual width over 64 bits */
	memcpy(&part, (uint8_t *) area + h.key_off + sizeof(LecoRunHeader), sizeof(part));
	part.b = 65;
	memcpy((uint8_t *) area + h.key_off + sizeof(LecoRunHeader), &part, sizeof(part));
	report(!lcp_open((uint8_t *) area, AREA_BYTES, 600, &v), "corrupt: key residual width 65");
	memcpy(area, copy, AREA_BYTES);

	/* a block residual width over 33 bits (legal for LeCo, not for a block) */
	memcpy(&part, (uint8_t *) area + h.blk_off + sizeof(LecoRunHeader), sizeof(part));
	part.b = 40;
	memcpy((uint8_t *) area + h.blk_off + sizeof(LecoRunHeader), &part, sizeof(part));
	report(!lcp_open((uint8_t *) area, AREA_BYTES, 600, &v), "corrupt: block residual width 40");
	memcpy(area, copy, AREA_BYTES);

	/* a run whose element count is not the page's */
	memcpy(&rh, (uint8_t *) area + h.off_off, sizeof(rh));
	rh.n = 599;
	memcpy((uint8_t *) area + h.off_off, &rh, sizeof(rh));
	report(!lcp_open((uint8_t *) area, AREA_BYTES, 600, &v), "corrupt: run count");
	memcpy(area, copy, AREA_BYTES);

	/* zeroed page */
	memset(area, 0, AREA_BYTES);
	report(!lcp_open((uint8_t *) area, AREA_BYTES, 600, &v), "corrupt: zeroed area");
	memcpy(area, copy, AREA_BYTES);
	report(lcp_open((uint8_t *) area, AREA_BYTES, 600, &v), "undamaged copy opens");
	/* clustered keys: a partition per cluster, a jump table */
	for (i = 0; i < 600; i++)
		keys[i] = (uint64_t) (i / 25) * 1000003 + (uint64_t) (i % 25) * 7 + (uint64_t) (i * i) % 5;
	ok = lcp_encode(keys, blk, off, 600, (uint8_t *) area, AREA_BYTES, &used) == LCP_OK;
	report(ok, "lazy: clustered page encodes");
	memcpy(copy, area, AREA_BYTES);
	if (ok)
		test_lazy_corruption(area, copy, keys, 600);
}

/*
 * A lazily opened page: damage to a partition in the middle of the key run
 * (not checked at open) is reported by every checked reader that reaches
 * it, and a reader that does not reach it still answers right.
 */
static void
test_lazy_corruption(uint64_t *area, const uint64_t *copy, const uint64_t *keys,
					 uint32_t n)
{
	LcpHeader	h;
	LecoRunHeader rh;
	LecoPart	part;
	LcpView		v;
	uint8_t    *run;
	uint32_t	mid;
	uint32_t	start,
				pos;
	uint64_t	kv;
	uint64_t	out[600];
	int			how;

	memcpy(&h, copy, sizeof(h));
	run = (uint8_t *) area + h.key_off;
	memcpy(&rh, (const uint8_t *) copy + h.key_off, sizeof(rh));
	report(rh.npart >= 5 && rh.njump >= 3, "lazy: the test page has partitions in the middle");
	if (rh.npart < 5 || rh.njump < 3)
		return;
	mid = rh.npart / 2;
	for (how = 0; how < 4; how++)
	{
		uint8_t    *pp = run + sizeof(LecoRunHeader) + (size_t) mid * sizeof(LecoPart);
		const char *names[] = {"width 65", "residuals past the run",
		"start past the next", "jump entry out of range"};
		char		name[100];

		memcpy(area, copy, AREA_BYTES);
		memcpy(&part, pp, sizeof(part));
		start = part.start;
		if (how == 0)
			part.b = 65;
		else if (how == 1)
			part.bitoff = 0xFFFFFF00u;
		else if (how == 2)
		{
			LecoPart	next;

			memcpy(&next, pp + sizeof(LecoPart), sizeof(next));
			part.start = next.start;
		}
		memcpy(pp, &part, sizeof(part));
		if (how == 3)
		{
			uint32_t	bad = rh.npart + 5;

			memcpy(run + sizeof(LecoRunHeader) + (size_t) rh.npart * sizeof(LecoPart) +
				   sizeof(uint32_t) * (rh.njump / 2), &bad, sizeof(bad));
		}
		snprintf(name, sizeof(name), "lazy: %s opens lazily, fails a full open", names[how]);
		report(lcp_open_lazy((uint8_t *) area, AREA_BYTES, n, &v) &&
			   !lcp_open((uint8_t *) area, AREA_BYTES, n, &v), name);
		lcp_open_lazy((uint8_t *) area, AREA_BYTES, n, &v);
		snprintf(name, sizeof(name), "lazy: %s: readers reaching it fail", names[how]);
		if (how == 3)
		{
			/* the first entry of the jump block whose entry is damaged */
			uint32_t	first = (rh.njump / 2) << rh.jump_shift;

			report(!lcp_key_checked(&v, first, &kv) &&
				   !lcp_decode_range_checked(&v, first, 1, out, NULL, NULL), name);
		}
		else
			report(!lcp_key_checked(&v, start, &kv) &&
				   !lcp_decode_range_checked(&v, 0, n, out, NULL, NULL) &&
				   !lcp_lower_bound_checked(&v, keys[start], &pos) &&
				   !lcp_lower_bound_in_checked(&v, keys[start], start, start + 1, &pos), name);
		snprintf(name, sizeof(name), "lazy: %s: other readers answer right", names[how]);
		report(lcp_key_checked(&v, 0, &kv) && kv == keys[0] &&
			   lcp_key_checked(&v, n - 1, &kv) && kv == keys[n - 1] &&
			   lcp_lower_bound_in_checked(&v, keys[5], 0, 10, &pos) && pos == ref_lower(keys, 10, keys[5]) &&
			   lcp_lower_bound_in_checked(&v, keys[n - 5], n - 10, n, &pos) &&
			   pos == n - 10 + ref_lower(keys + n - 10, 10, keys[n - 5]), name);
	}
	memcpy(area, copy, AREA_BYTES);
}

/*
 * A lazily opened page whose offset run has partitions: its TIDs read
 * right through the checked readers; damage to a middle partition passes
 * the lazy open, fails a full one, and fails the readers that reach it
 * (also a partition whose values no longer fit an offset), while the
 * others still answer right.
 */
static void
test_lazy_tids(uint64_t *area, const uint64_t *blk,
			   const uint64_t *off, uint32_t n)
{
	uint64_t   *copy = malloc(AREA_BYTES);
	uint64_t   *db = malloc(sizeof(uint64_t) * n);
	uint64_t   *dof = malloc(sizeof(uint64_t) * n);
	LcpHeader	h;
	LecoRunHeader rh;
	LecoPart	part;
	LcpView		v;
	uint8_t    *pp;
	uint32_t	i,
				b32,
				start;
	uint16_t	o16;
	int			ok,
				how;

	memcpy(copy, area, AREA_BYTES);
	memcpy(&h, area, sizeof(h));
	memcpy(&rh, (uint8_t *) area + h.off_off, sizeof(rh));
	ok = lcp_open_lazy((uint8_t *) area, AREA_BYTES, n, &v) && v.tids_lazy &&
		lcp_decode_range_checked(&v, 0, n, NULL, db, dof);
	for (i = 0; i < n && ok; i++)
		ok = db[i] == blk[i] && dof[i] == off[i] &&
			lcp_tid_checked(&v, i, &b32, &o16) && b32 == blk[i] && o16 == off[i];
	report(ok && !lcp_tid_checked(&v, n, &b32, &o16), "lazy: partitioned TIDs read right");
	if (rh.npart < 5)
	{
		report(0, "lazy: the offset run has partitions in the middle");
		goto out;
	}
	pp = (uint8_t *) area + h.off_off + sizeof(LecoRunHeader) +
		(size_t) (rh.npart / 2) * sizeof(LecoPart);
	for (how = 0; how < 2; how++)
	{
		char		name[100];
		const char *what = how == 0 ? "offset width 65" : "offset past 65535";

		memcpy(area, copy, AREA_BYTES);
		memcpy(&part, pp, sizeof(part));
		start = part.start;
		if (how == 0)
			part.b = 65;
		else
			part.base = 1 << 20;
		memcpy(pp, &part, sizeof(part));
		snprintf(name, sizeof(name), "lazy: %s: readers reaching it fail", what);
		report(lcp_open_lazy((uint8_t *) area, AREA_BYTES, n, &v) &&
			   !lcp_tid_checked(&v, start, &b32, &o16) &&
			   !lcp_decode_range_checked(&v, 0, n, NULL, NULL, dof), name);
		snprintf(name, sizeof(name), "lazy: %s: other readers answer right", what);
		report(lcp_tid_checked(&v, 0, &b32, &o16) && b32 == blk[0] && o16 == off[0] &&
			   lcp_decode_range_checked(&v, 0, start, NULL, db, dof) &&
			   dof[start - 1] == off[start - 1], name);
		if (how == 0)
			report(!lcp_open((uint8_t *) area, AREA_BYTES, n, &v),
				   "lazy: offset width 65 fails a full open");
	}
out:
	memcpy(area, copy, AREA_BYTES);
	free(copy);
	free(db);
	free(dof);
}

/*
 * Heap-ordered TIDs: the offsets' sawtooth takes partitions (a line or two
 * per heap page) and the run is then well under the byte an entry of one
 * frame of reference over 1..185; random TIDs keep a single partition.
 * Round trips are check_page's.
 */
static void
test_tid_partitions(uint64_t *area, uint64_t *keys, uint64_t *blk, uint64_t *off)
{
	uint32_t	n = 4000;
	uint32_t	i;
	LcpHeader	hdr;
	size_t		used;
	char		why[200] = "";
	int			ok;
	LcpView		v;

	for (i = 0; i < n; i++)
		keys[i] = 1000 + i;
	gen_tids(T_CORRELATED, blk, off, n);
	ok = check_page(keys, blk, off, n, area, why) &&
		lcp_encode(keys, blk, off, n, (uint8_t *) area, AREA_BYTES, &used) == LCP_OK;
	memcpy(&hdr, area, sizeof(hdr));
	report(ok && leco_header((uint8_t *) area + hdr.off_off)->npart > 1 &&
		   hdr.end_off - hdr.off_off < n * 5 / 8,
		   "heap-ordered offsets take partitions");
	if (ok)
		test_lazy_tids(area, blk, off, n);

	rng_state = 77;
	n = 1500;
	gen_tids(T_RANDOM, blk, off, n);
	ok = check_page(keys, blk, off, n, area, why) &&
		lcp_encode(keys, blk, off, n, (uint8_t *) area, AREA_BYTES, &used) == LCP_OK;
	memcpy(&hdr, area, sizeof(hdr));
	report(ok && leco_header((uint8_t *) area + hdr.off_off)->npart == 1,
		   "random offsets keep one partition");
	report(ok && lcp_open_lazy((uint8_t *) area, AREA_BYTES, n, &v) && !v.tids_lazy,
		   "lazy: one-partition TID runs are checked at open");
}

int
main(void)
{
	uint64_t   *area = malloc(AREA_BYTES + 64);
	uint32_t	N = LCP_MAX_ITEMS + 1;
	uint64_t   *keys = malloc(sizeof(uint64_t) * N);
	uint64_t   *blk = malloc(sizeof(uint64_t) * N);
	uint64_t   *off = malloc(sizeof(uint64_t) * N);
	int			k,
				t;
	char		name[200];
	char		why[200];
	size_t		used;

	for (k = 0; k < K_NKINDS; k++)
	{
		for (t = 0; t < T_NKINDS; t++)
		{
			uint32_t	sizes[] = {1, 2, 7, 100, 577};
			uint32_t	full;
			unsigned	s;

			rng_state = 1000 + k * 10 + t;
			gen_keys((KeyKind) k, keys, N);
			gen_tids((TidKind) t, blk, off, N);
			for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			{
				int			ok;

				why[0] = 0;
				ok = check_page(keys, blk, off, sizes[s], area, why);
				/* n = 577 of uniform 64-bit keys and edge TIDs may not fit */
				if (!ok && strcmp(why, "encode failed") == 0 && sizes[s] > 100 &&
					(k == K_UNIFORM64 || k == K_EDGES || t == T_EDGES))
					continue;
				snprintf(name, sizeof(name), "%s/%s n=%u %s", key_names[k],
						 tid_names[t], sizes[s], why);
				report(ok, name);
			}
			/* a full page: the most entries that fit, and one more does not */
			full = max_fit(keys, blk, off, LCP_MAX_ITEMS, area);
			why[0] = 0;
			snprintf(name, sizeof(name), "%s/%s full page n=%u", key_names[k],
					 tid_names[t], full);
			report(full > 0 && check_page(keys, blk, off, full, area, why) &&
				   (full == LCP_MAX_ITEMS ||
					lcp_encode(keys, blk, off, full + 1, (uint8_t *) area,
							   AREA_BYTES, &used) == LCP_NOFIT), name);
		}
	}
	/* more entries than a page may count */
	report(lcp_encode(keys, blk, off, LCP_MAX_ITEMS + 1, (uint8_t *) area,
					  AREA_BYTES, &used) == LCP_NOFIT, "over LCP_MAX_ITEMS refused");
	report(lcp_encode(keys, blk, off, 0, (uint8_t *) area,
					  AREA_BYTES, &used) == LCP_NOFIT, "empty page refused");
	test_tid_partitions(area, keys, blk, off);
	test_corruption(area);

	free(area);
	free(keys);
	free(blk);
	free(off);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
