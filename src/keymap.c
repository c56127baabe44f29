/*
 * keymap.c
 *		Map keys to a monotone uint64 domain for the models, and store keys
 *		in leaf pages at their natural width.
 *
 * The mapping only has to be non-decreasing (a < b implies map(a) <= map(b))
 * and consistent with the opclass comparator: the models use it to propose a
 * window, and the comparator always decides.  The domain is chosen by the
 * index key type, and cross-type scan values (an int4 constant against an
 * int8 column, a date against a timestamp column) are mapped into that same
 * domain, so that they predict the right place.
 *
 * No buffer or WAL code here.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/heaptoast.h"
#include "access/toast_compression.h"
#include "access/toast_internals.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "common/hashfn.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "mb/pg_wchar.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "learned.h"

#define SIGN_FLIP	UINT64CONST(0x8000000000000000)

/*
 * IEEE order, with PostgreSQL's rules: -0 equals +0, every NaN is equal and
 * above +Infinity.
 */
static inline uint64
map_double(double d)
{
	uint64		b;

	if (isnan(d))
		d = get_float8_nan();
	else if (d == 0.0)
		d = 0.0;
	memcpy(&b, &d, sizeof(b));
	return (b & SIGN_FLIP) ? ~b : (b ^ SIGN_FLIP);
}

/* a date in microseconds, clamped: used when the index key is a timestamp */
static int64
date_to_usecs(DateADT d)
{
	int64		us;

	if (DATE_IS_NOBEGIN(d))
		return PG_INT64_MIN;
	if (DATE_IS_NOEND(d))
		return PG_INT64_MAX;
	if (pg_mul_s64_overflow((int64) d, USECS_PER_DAY, &us))
		return d < 0 ? PG_INT64_MIN + 1 : PG_INT64_MAX - 1;
	return us;
}

/* a timestamp in days (floor), used when the index key is a date */
static int64
usecs_to_days(int64 ts)
{
	int64		q;

	if (ts == PG_INT64_MIN || ts == PG_INT64_MAX)
		return ts;
	q = ts / USECS_PER_DAY;
	if (ts % USECS_PER_DAY < 0)
		q--;
	return q;
}

bool
learned_type_supported(Oid typid)
{
	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case OIDOID:
		case FLOAT4OID:
		case FLOAT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case TIMEOID:
		case BOOLOID:
		case UUIDOID:
		case INTERVALOID:
		case NAMEOID:
		case TEXTOID:
		case BPCHAROID:
		case BYTEAOID:
		case NUMERICOID:
		case VARCHAROID:		/* INCLUDE columns: keys use text's opclass */
			return true;
		default:
			return false;
	}
}

/* stored as a varlena of its own size (keys of these types vary in width) */
bool
learned_type_varlena(Oid typid)
{
	return typid == TEXTOID || typid == BPCHAROID || typid == BYTEAOID ||
		typid == NUMERICOID || typid == VARCHAROID;
}

int
learned_type_keylen(Oid typid)
{
	switch (typid)
	{
		case BOOLOID:
			return 1;
		case UUIDOID:
			return UUID_LEN;
		case INTERVALOID:
			return sizeof(Interval);
		case NAMEOID:
			return NAMEDATALEN;
		case TEXTOID:
		case BPCHAROID:
		case BYTEAOID:
		case NUMERICOID:
		case VARCHAROID:
			return LEARNED_VARWIDTH;
		case INT2OID:
			return 2;
		case INT4OID:
		case OIDOID:
		case FLOAT4OID:
		case DATEOID:
			return 4;
		default:
			return 8;
	}
}

/*
 * Map value (of type valtype) into the domain of index key type keytype.
 */
uint64
learned_map_datum(Datum value, Oid valtype, Oid keytype)
{
	switch (valtype)
	{
		case INT2OID:
			return learned_map_int64((int64) DatumGetInt16(value));
		case INT4OID:
			return learned_map_int64((int64) DatumGetInt32(value));
		case INT8OID:
			return learned_map_int64(DatumGetInt64(value));
		case OIDOID:
			return (uint64) DatumGetObjectId(value);
		case FLOAT4OID:
			return map_double((double) DatumGetFloat4(value));
		case FLOAT8OID:
			return map_double(DatumGetFloat8(value));
		case DATEOID:
			{
				DateADT		d = DatumGetDateADT(value);

				if (keytype == DATEOID)
				{
					if (DATE_IS_NOBEGIN(d))
						return learned_map_int64(PG_INT64_MIN);
					if (DATE_IS_NOEND(d))
						return learned_map_int64(PG_INT64_MAX);
					return learned_map_int64((int64) d);
				}
				return learned_map_int64(date_to_usecs(d));
			}
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			{
				int64		ts = DatumGetInt64(value);

				/*
				 * timestamp and timestamptz compare through the session time
				 * zone; ignoring the offset only costs a wider search.
				 */
				if (keytype == DATEOID)
					return learned_map_int64(usecs_to_days(ts));
				return learned_map_int64(ts);
			}
		case TIMEOID:
			return learned_map_int64(DatumGetTimeADT(value));
		case BOOLOID:
			return DatumGetBool(value) ? 1 : 0;
		case UUIDOID:
			{
				/* the first 8 bytes, big-endian: memcmp order, not exact */
				const unsigned char *b = DatumGetUUIDP(value)->data;
				uint64		m = 0;
				int			i;

				for (i = 0; i < 8; i++)
					m = (m << 8) | b[i];
				return m;
			}
		case INTERVALOID:
			{
				/*
				 * interval_cmp's key: the span with 30-day months and 24-hour
				 * days, in 128 bits; clamped to 64 (so not exact).
				 */
				Interval   *iv = DatumGetIntervalP(value);
				int128		span = (int128) iv->time +
					(int128) ((int64) iv->month * 30 + iv->day) * USECS_PER_DAY;

				if (span > (int128) PG_INT64_MAX)
					span = PG_INT64_MAX;
				if (span < (int128) PG_INT64_MIN)
					span = PG_INT64_MIN;
				return learned_map_int64((int64) span);
			}
		case BYTEAOID:
		case NUMERICOID:
			/* no collation involved: learned_map_value gives these */
			{
				LearnedColumn c;

				memset(&c, 0, sizeof(c));
				c.type = valtype;
				return learned_map_value(&c, value, valtype);
			}
		default:
			/* strings need their column's collation: learned_map_value */
			elog(ERROR, "learned: unsupported key type %u", valtype);
			return 0;			/* keep compiler quiet */
	}
}

void
learned_store_key(char *p, int keylen, Datum value)
{
	switch (keylen)
	{
		case 1:
			*p = DatumGetBool(value) ? 1 : 0;
			break;
		case 16:
			memcpy(p, DatumGetPointer(value), 16);
			break;
		case NAMEDATALEN:
			memcpy(p, DatumGetPointer(value), NAMEDATALEN);
			break;
		case 2:
			{
				int16		v = DatumGetInt16(value);

				memcpy(p, &v, sizeof(v));
				break;
			}
		case 4:
			{
				uint32		v = (uint32) value;

				memcpy(p, &v, sizeof(v));
				break;
			}
		case 8:
			memcpy(p, &value, sizeof(value));
			break;
		default:
			elog(ERROR, "learned: bad key length %d", keylen);
	}
}

/*
 * The types whose mapping is strictly monotone on the opclass's equality
 * classes (equal images are equal keys): every type supported so far.
 * A composite key compares such columns by their images, without fmgr.
 */
bool
learned_type_exact(Oid typid)
{
	return learned_type_supported(typid) && typid != UUIDOID && typid != INTERVALOID &&
		typid != NAMEOID && !learned_type_varlena(typid);
}

/* ---------- keys of the index: single-column or composite ---------- */

/* -1, 0, 1 with NULLs placed as the column says (composite keys only) */
static inline int
column_cmp(LearnedKeyInfo *ki, int i, Datum a, bool anull, Datum b, bool bnull)
{
	LearnedColumn *c = &ki->cols[i];
	int			r;

	if (anull || bnull)
	{
		if (anull && bnull)
			return 0;
		r = anull ? -1 : 1;
		return c->nulls_first ? r : -r;
	}
	if (c->exact)
	{
		uint64		x = learned_map_datum(a, c->type, c->type);
		uint64		y = learned_map_datum(b, c->type, c->type);

		r = (x < y) ? -1 : (x > y) ? 1 : 0;
	}
	else
		r = DatumGetInt32(FunctionCall2Coll(&c->cmp, c->collation, a, b));
	if (r == 0)
		return 0;
	r = r < 0 ? -1 : 1;
	return c->desc ? -r : r;
}

static inline bool
key_column_null(const LearnedKeyInfo *ki, const char *p, int col)
{
	return LearnedKeyNullBit(p, col);
}

static Size var_walk(const LearnedKeyInfo *ki, const char *p, int stopcol, int *align);

/* a key at p (leaf slot or pending record) */
Datum
LearnedKeyFetch(const LearnedKeyInfo *ki, const char *p)
{
	if (!LearnedKeyIsComposite(ki))
		return learned_fetch_key(p, ki->keylen, ki->keytype);
	return PointerGetDatum(p);
}

void
LearnedKeyStore(const LearnedKeyInfo *ki, char *dst, Datum key)
{
	if (!LearnedKeyIsComposite(ki) && !LearnedKeyIsVarwidth(ki))
		learned_store_key(dst, ki->keylen, key);
	else
		memcpy(dst, DatumGetPointer(key), LearnedKeySize(ki, key));
}

/*
 * Copy a key's bytes to dst if it has any (LearnedKeySize of them, dst
 * aligned as LearnedKeyAlign says); returns the key to use.
 */
Datum
LearnedKeyCopy(const LearnedKeyInfo *ki, Datum key, char *dst)
{
	if (!ki->byref)
		return key;
	memcpy(dst, DatumGetPointer(key), LearnedKeySize(ki, key));
	return PointerGetDatum(dst);
}

Datum
LearnedKeyCopyAlloc(const LearnedKeyInfo *ki, Datum key, MemoryContext cxt)
{
	if (!ki->byref)
		return key;
	return LearnedKeyCopy(ki, key, MemoryContextAlloc(cxt, LearnedKeySize(ki, key)));
}

/* form the stored bytes of a composite key from index column values */
void
LearnedKeyPack(const LearnedKeyInfo *ki, const Datum *values,
			   const bool *isnull, char *dst)
{
	int			i;

	Assert(LearnedKeyIsComposite(ki));
	memset(dst, 0, ki->fixedlen);
	for (i = 0; i < ki->natts; i++)
	{
		if (isnull[i])
			((uint8 *) dst)[i >> 3] |= (uint8) (1 << (i & 7));
		else if (!ki->cols[i].varlena)	/* varlenas: LearnedKeyForm */
			learned_store_key(dst + ki->cols[i].offset, ki->cols[i].width, values[i]);
	}
}

/* column col (0-based) of a key */
Datum
LearnedKeyColumn(const LearnedKeyInfo *ki, Datum key, int col, bool *isnull)
{
	const char *p;

	if (!LearnedKeyIsComposite(ki))
	{
		*isnull = false;
		return key;
	}
	p = DatumGetPointer(key);
	*isnull = key_column_null(ki, p, col);
	if (*isnull)
		return (Datum) 0;
	if (ki->cols[col].varlena)
		return PointerGetDatum(p + var_walk(ki, p, col, NULL));
	return learned_fetch_key(p + ki->cols[col].offset, ki->cols[col].width,
							 ki->cols[col].type);
}

void
LearnedKeyDeform(const LearnedKeyInfo *ki, Datum key, Datum *values, bool *isnull)
{
	int			i;

	for (i = 0; i < ki->natts; i++)
		values[i] = LearnedKeyColumnInline(ki, key, i, &isnull[i]);
}

/* the index order of two keys */
int
LearnedKeyCmp(LearnedKeyInfo *ki, Datum a, Datum b)
{
	const char *pa;
	const char *pb;
	int			i;

	if (!LearnedKeyIsComposite(ki))
	{
		/* keys that order as bytes: compare them without fmgr (builds sort) */
		if (ki->bytewise)
		{
			pa = DatumGetPointer(a);
			pb = DatumGetPointer(b);
			if (ki->keylen > 0)
				return LearnedBytesCmp(pa, ki->keylen, pb, ki->keylen);
			if (!VARATT_IS_COMPRESSED(pa) && !VARATT_IS_EXTERNAL(pa) &&
				!VARATT_IS_COMPRESSED(pb) && !VARATT_IS_EXTERNAL(pb))
				return LearnedBytesCmp(VARDATA_ANY(pa), VARSIZE_ANY_EXHDR(pa),
									   VARDATA_ANY(pb), VARSIZE_ANY_EXHDR(pb));
		}
		return DatumGetInt32(FunctionCall2Coll(&ki->cmp, ki->collation, a, b));
	}
	pa = DatumGetPointer(a);
	pb = DatumGetPointer(b);
	for (i = 0; i < ki->nkeys; i++)
	{
		LearnedColumn *c = &ki->cols[i];
		bool		an = key_column_null(ki, pa, i);
		bool		bn = key_column_null(ki, pb, i);
		int			r;

		if (c->varlena)
		{
			bool		dummy;

			r = column_cmp(ki, i,
						   an ? (Datum) 0 : LearnedKeyColumn(ki, a, i, &dummy), an,
						   bn ? (Datum) 0 : LearnedKeyColumn(ki, b, i, &dummy), bn);
		}
		else
			r = column_cmp(ki, i,
						   an ? (Datum) 0 : learned_fetch_key(pa + c->offset, c->width, c->type), an,
						   bn ? (Datum) 0 : learned_fetch_key(pb + c->offset, c->width, c->type), bn);
		if (r != 0)
			return r;
	}
	return 0;
}

/*
 * Where a value of column col (of type valtype, possibly cross-type) falls
 * in the key map: KP_VALUE with its ordinal, KP_BEFORE or KP_AFTER.
 */
int
LearnedColumnStatus(const LearnedKeyInfo *ki, int col, Datum value, Oid valtype,
					bool isnull, uint64 *u)
{
	LearnedColumn *c = (LearnedColumn *) &ki->cols[col];
	uint64		m;

	*u = 0;
	if (isnull)
		return c->nulls_first ? KP_BEFORE : KP_AFTER;

	m = learned_map_value(c, value, valtype);
	return keypack_ordinal(&ki->map.cols[col], m, c->desc, u);
}

/* the models' image of a key */
uint64
LearnedKeyMap(const LearnedKeyInfo *ki, Datum key)
{
	return LearnedKeyMapFilter(ki, key, NULL);
}

/*
 * LearnedKeyMap, and, if fv is not NULL, the key's filter value into *fv
 * (LearnedKeyFilterValue) from the same column statuses: for a run's
 * writer, which needs both for every entry.
 */
uint64
LearnedKeyMapFilter(const LearnedKeyInfo *ki, Datum key, uint64 *fv)
{
	int			status[INDEX_MAX_KEYS];
	uint64		u[INDEX_MAX_KEYS];
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	Oid			types[INDEX_MAX_KEYS];
	uint64		mkey;
	int			i;

	if (!LearnedKeyIsComposite(ki))
	{
		mkey = learned_map_value((LearnedColumn *) &ki->cols[0], key, ki->keytype);
		if (fv)
			*fv = mkey;
		return mkey;
	}
	for (i = 0; i < ki->map.npacked; i++)
	{
		values[i] = LearnedKeyColumnInline(ki, key, i, &isnull[i]);
		status[i] = LearnedColumnStatus(ki, i, values[i], ki->cols[i].type, isnull[i], &u[i]);
	}
	mkey = keypack_combine(ki->map.cols, ki->map.npacked, status, u);
	if (fv)
	{
		for (i = 0; i < ki->nkeys; i++)
		{
			if (i >= ki->map.npacked)
				values[i] = LearnedKeyColumn(ki, key, i, &isnull[i]);
			types[i] = ki->cols[i].type;
		}
		*fv = LearnedKeyFilterValue(ki, values, isnull, types, status, mkey);
	}
	return mkey;
}

/*
 * Does a composite key fall outside the map's ranges in a packed column
 * (not counting NULLs, which clamp by design)?  Such a key shares its image
 * with every key past the same range, so the models cannot tell them apart.
 */
bool
LearnedKeyOutOfRange(const LearnedKeyInfo *ki, Datum key)
{
	int			i;

	if (!LearnedKeyIsComposite(ki))
		return false;
	for (i = 0; i < ki->map.npacked; i++)
	{
		bool		isnull;
		uint64		u;
		Datum		v = LearnedKeyColumn(ki, key, i, &isnull);

		if (!isnull &&
			LearnedColumnStatus(ki, i, v, ki->cols[i].type, false, &u) != KP_VALUE)
			return true;
	}
	return false;
}

/*
 * The value a sorted run's filter hashes for a composite key, given as its
 * column values (of types types[], cross-type as LearnedColumnStatus takes
 * them) and its image mkey.  The image names one key only when every
 * column is packed, undivided and in the map's range.  Otherwise many keys
 * share it (every order appended past a district's planned range shares
 * one), and a filter of images would admit all of them for each: so, when
 * every column's type maps one to one (cols[].exact, which column_cmp
 * relies on too), every column's value is mixed in, and equal keys, only
 * they, hash alike.  A key with a NULL column or an inexact column keeps
 * its image: no filter probe names a NULL (bound_is_key_image), and such
 * probes stay as they were, shared images and all.  Runs and probes must
 * use the same map, as for the images themselves.  status holds the
 * packed columns' LearnedColumnStatus, which the caller computed for mkey.
 * A single-column key's image is its filter value.
 */
uint64
LearnedKeyFilterValue(const LearnedKeyInfo *ki, const Datum *values,
					  const bool *isnull, const Oid *types, const int *status,
					  uint64 mkey)
{
	bool		shared = ki->map.npacked < ki->nkeys;
	uint64		h = mkey;
	int			i;

	if (!LearnedKeyIsComposite(ki))
		return mkey;
	for (i = 0; i < ki->nkeys; i++)
		if (isnull[i] || !ki->cols[i].exact)
			return mkey;
	for (i = 0; i < ki->map.npacked && !shared; i++)
		shared = ki->map.cols[i].divisor != 1 || status[i] != KP_VALUE;
	if (!shared)
		return mkey;
	for (i = 0; i < ki->nkeys; i++)
		h = hash_combine64(h, learned_map_value((LearnedColumn *) &ki->cols[i],
												values[i], types[i]));
	return h;
}

/*
 * The values a sorted run's filter also holds for a composite key's
 * leading columns, so that a scan fixing some of them by equality (an
 * order's lines: w, d and o equal on (w, d, o, n); or a lookup by the
 * first column alone) rules out the runs that hold no key with them, as a
 * point lookup rules out runs by the whole key.  pv[l - 1] is the value of
 * the first l columns, for l from 1 to at most upto (at most every column
 * but the last: the whole key has its own filter value), each mixing the
 * one before with column l's image.  The columns are given as values (of
 * types types[], cross-type as for LearnedKeyFilterValue).  Returns the
 * number of values: the prefixes stop before the first NULL column or the
 * first whose type does not map one to one (cols[].exact), and a run holds
 * none for a key that is not composite.  The columns' images do not depend
 * on the key map's plan, so the values stay what they were when a later
 * merge plans the map anew.
 */
int
LearnedKeyPrefixValues(const LearnedKeyInfo *ki, const Datum *values,
					   const bool *isnull, const Oid *types, int upto, uint64 *pv)
{
	uint64		h = LEARNED_PREFIX_SEED;
	int			l;

	if (!LearnedKeyIsComposite(ki))
		return 0;
	upto = Min(upto, ki->nkeys - 1);
	for (l = 0; l < upto; l++)
	{
		if (isnull[l] || !ki->cols[l].exact)
			break;
		h = hash_combine64(h, learned_map_value((LearnedColumn *) &ki->cols[l],
												values[l], types[l]));
		pv[l] = h;
	}
	return l;
}

/*
 * LearnedKeyPrefixValues of a stored key, every prefix: only the leading
 * columns of exact types are read (a text first column: none).
 */
int
LearnedKeyPrefixValuesOf(const LearnedKeyInfo *ki, Datum key, uint64 *pv)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	Oid			types[INDEX_MAX_KEYS];
	int			n;
	int			i;

	if (!LearnedKeyIsComposite(ki))
		return 0;
	for (n = 0; n < ki->nkeys - 1 && ki->cols[n].exact; n++)
		;
	for (i = 0; i < n; i++)
	{
		values[i] = LearnedKeyColumnInline(ki, key, i, &isnull[i]);
		types[i] = ki->cols[i].type;
	}
	return LearnedKeyPrefixValues(ki, values, isnull, types, n, pv);
}

/* widen the per-column ranges [lo, hi] of images to take in a key */
void
LearnedKeyRangeAdd(const LearnedKeyInfo *ki, Datum key, uint64 *lo, uint64 *hi)
{
	int			c;

	for (c = 0; c < ki->nkeys; c++)
	{
		bool		isnull;
		Datum		v = LearnedKeyColumn(ki, key, c, &isnull);
		uint64		m;

		if (isnull)
			continue;
		m = learned_map_value((LearnedColumn *) &ki->cols[c], v, ki->cols[c].type);
		lo[c] = Min(lo[c], m);
		hi[c] = Max(hi[c], m);
	}
}

/*
 * Plan the key map from the per-column ranges of images [lo, hi] seen at
 * build or by a merge (lo > hi: no value), with room for growth
 * (keypack_widen: half a range above it; when replan, also below it where
 * keys went below the current map's range).  lo and hi are widened in
 * place.  maxcols > 0 limits the packed columns (the learned_idx.map_columns
 * experiment knob).
 */
void
LearnedKeyMapPlan(LearnedKeyInfo *ki, uint64 *lo, uint64 *hi, bool replan,
				  int maxcols)
{
	bool		lossy[INDEX_MAX_KEYS];
	KeyPackCol	old[INDEX_MAX_KEYS];
	int			i;

	if (replan)
		memcpy(old, ki->map.cols, sizeof(old));
	memset(&ki->map, 0, sizeof(ki->map));
	ki->map.natts = (uint16) ki->nkeys;
	if (!LearnedKeyIsComposite(ki))
		return;
	keypack_widen(ki->nkeys, replan ? old : NULL, lo, hi);
	for (i = 0; i < ki->nkeys; i++)
		lossy[i] = !ki->cols[i].exact;
	ki->map.npacked = (uint16) keypack_plan(ki->nkeys, lo, hi, lossy, maxcols,
											ki->map.cols);
}

/* ---------- images of strings and numerics ---------- */

/*
 * A string's image comes from its sort key in the column's collation (the
 * byte string whose memcmp order is the collation's order): the bytes
 * themselves under "C"/"POSIX" (and for bytea, which has no collation);
 * ucol's sort key under ICU (computed only as far as needed, with
 * ucol_nextSortKeyPart, as PostgreSQL's abbreviated keys do); strxfrm's
 * output under a libc collation.  The image is 8 bytes of it, big-endian,
 * zero-padded: the first 8, or, when the index's keys shared a longer
 * sort-key prefix at build (URLs: "https://www."), the 8 after that
 * prefix (the key map's str_skip and str_prefix; a key below the prefix
 * maps to 0, above it to the maximum, so the image stays monotone for
 * keys the build never saw).
 *
 * PostgreSQL does not trust glibc's strxfrm to agree with strcoll, so the
 * build and every merge verify the order of what they write with the
 * comparator (LearnedCheckOrder): a disagreement is an ERROR, never a
 * misordered index.  A scan only takes the image as a hint: a wrong one costs reads
 * (scan.c gallops), never answers.
 */
typedef struct StrMap
{
	bool		c_order;		/* "C" collation, or bytea: the bytes */
	bool		use_prefix;		/* ICU: the sort key a prefix at a time */
	pg_locale_t locale;			/* its locale (15-17: NULL for the libc default) */
} StrMap;

#define SORTKEY_WANT	(LEARNED_STR_PREFIX_MAX + 8)

static uint64
bytes_image(const char *p, Size len)
{
	uint64		m = 0;
	Size		i;

	for (i = 0; i < 8; i++)
		m = (m << 8) | (i < len ? (uint8) p[i] : 0);
	return m;
}

static bool
is_string_type(Oid typid)
{
	return typid == TEXTOID || typid == BPCHAROID || typid == NAMEOID ||
		typid == BYTEAOID;
}

static StrMap *
strmap_get(LearnedColumn *c)
{
	StrMap	   *sm;
	MemoryContext cxt;

	if (c->strmap)
		return (StrMap *) c->strmap;
	/* lives as long as the column it belongs to */
	cxt = c->cxt ? c->cxt : CurrentMemoryContext;
	sm = MemoryContextAllocZero(cxt, sizeof(StrMap));
	if (c->type == BYTEAOID || !OidIsValid(c->collation) || lc_collate_is_c(c->collation))
		sm->c_order = true;
	else
	{
		sm->locale = pg_newlocale_from_collation(c->collation);
		sm->use_prefix = li_locale_has_prefix(sm->locale);
	}
	c->strmap = sm;
	return sm;
}

/* the bytes a string value of type typid compares by (bpchar: no trailing blanks) */
static const char *
string_bytes(Datum value, Oid typid, Size *len, void **tofree)
{
	*tofree = NULL;
	if (typid == NAMEOID)
	{
		const char *s = NameStr(*DatumGetName(value));

		*len = strnlen(s, NAMEDATALEN);
		return s;
	}
	else
	{
		struct varlena *v = (struct varlena *) DatumGetPointer(value);
		struct varlena *d = pg_detoast_datum_packed(v);
		const char *s = VARDATA_ANY(d);
		Size		n = VARSIZE_ANY_EXHDR(d);

		if (d != v)
			*tofree = d;
		if (typid == BPCHAROID)
			while (n > 0 && s[n - 1] == ' ')
				n--;
		*len = n;
		return s;
	}
}

static void
xfrm_prefix(StrMap *sm, const char *s, Size len, uint8 *out, Size want)
{
	char		sbuf[256];
	char		xbuf[512];
	char	   *src = len < sizeof(sbuf) ? sbuf : palloc(len + 1);
	char	   *dst = xbuf;
	size_t		need;

	memcpy(src, s, len);
	src[len] = '\0';
	need = li_strxfrm(sm->locale, dst, src, len, sizeof(xbuf));
	if (need >= sizeof(xbuf))
	{
		/* the output is only defined when it fits: redo with room */
		dst = palloc(need + 1);
		(void) li_strxfrm(sm->locale, dst, src, len, need + 1);
	}
	memcpy(out, dst, Min(need, want));
	if (dst != xbuf)
		pfree(dst);
	if (src != sbuf)
		pfree(src);
}

/*
 * The first want bytes of the sort key of s in the column's collation,
 * zero-padded (a sort key never holds a zero byte before its end, so the
 * padding orders as the end does).
 */
static void
sortkey_prefix(LearnedColumn *c, const char *s, Size len, uint8 *out, Size want)
{
	StrMap	   *sm = strmap_get(c);

	memset(out, 0, want);
	if (sm->c_order)
		memcpy(out, s, Min(len, want));
	else if (sm->use_prefix)
		li_sortkey_prefix(sm->locale, s, len, out, want);
	else
		xfrm_prefix(sm, s, len, out, want);
}

/* a value's sort-key prefix, as far as an image skipping skip bytes needs */
static void
value_sortkey(LearnedColumn *c, Datum value, Oid valtype, int skip, uint8 *out)
{
	void	   *tofree;
	Size		len;
	const char *s = string_bytes(value, valtype, &len, &tofree);

	sortkey_prefix(c, s, len, out, Min((Size) SORTKEY_WANT, (Size) skip + 8 + 8));
	if (tofree)
		pfree(tofree);
}

/*
 * The image of a string value of type valtype (text, bpchar, name or
 * bytea; a cross-type value against a column of another of these) that
 * skips a sort-key prefix of skip bytes: 8 bytes after it if the value
 * has it, else 0 (below it) or the maximum (above it).
 */
static uint64
string_image_at(LearnedColumn *c, Datum value, Oid valtype, int skip,
				const uint8 *prefix)
{
	uint8		kb[SORTKEY_WANT + 8];

	value_sortkey(c, value, valtype, skip, kb);
	return LearnedStringImageOf(kb, skip, prefix);
}

/*
 * The image that skips skip bytes of a sort-key prefix kb (at least skip +
 * 8 bytes of it), given the prefix the image skips.
 */
uint64
LearnedStringImageOf(const uint8 *kb, int skip, const uint8 *prefix)
{
	uint64		m;
	int			r;

	if (skip == 0)
		return bytes_image((const char *) kb, 8);
	r = memcmp(kb, prefix, skip);
	if (r < 0)
		return 0;
	if (r > 0)
		return PG_UINT64_MAX;
	/* keys with the prefix keep 0 and the maximum for the others */
	m = bytes_image((const char *) kb + skip, 8);
	return Min(Max(m, 1), PG_UINT64_MAX - 1);
}

/* the index-wide image: skips the key map's shared prefix */
static uint64
string_image(LearnedColumn *c, Datum value, Oid valtype)
{
	return string_image_at(c, value, valtype, c->str_skip, c->str_prefix);
}

/*
 * Segment-local images (one string column): inside a segment, the models
 * see keys through the image that skips the sort-key prefix all keys of
 * the segment share (its first and last key's, as the keys are sorted),
 * so that keys whose first 8 sort-key bytes are all alike (URLs of one
 * site) still spread out.  directory.c stores the skip per segment; scans
 * find the segment by comparing keys (scan.c), then use this image.
 */
bool
LearnedKeyLocalImages(const LearnedKeyInfo *ki)
{
	return !LearnedKeyIsComposite(ki) && is_string_type(ki->keytype);
}

int
LearnedStringSkip(LearnedKeyInfo *ki, Datum first, Datum last)
{
	uint8		a[SORTKEY_WANT];
	uint8		b[SORTKEY_WANT];
	int			k = 0;

	value_sortkey(&ki->cols[0], first, ki->keytype, LEARNED_STR_PREFIX_MAX, a);
	value_sortkey(&ki->cols[0], last, ki->keytype, LEARNED_STR_PREFIX_MAX, b);
	while (k < LEARNED_STR_PREFIX_MAX && a[k] == b[k])
		k++;
	return k;
}

void
LearnedStringPrefix(LearnedKeyInfo *ki, Datum key, int skip, uint8 *out)
{
	uint8		kb[SORTKEY_WANT + 8];

	value_sortkey(&ki->cols[0], key, ki->keytype, skip, kb);
	memcpy(out, kb, skip);
}

/*
 * One string column: the sort-key prefix of a value as far as images that
 * skip up to skip bytes need (LEARNED_SORTKEY_BYTES at most), computed once
 * for several images (LearnedStringImageOf): a scan's global and
 * segment-local images of its bound.
 */
void
LearnedStringSortKey(LearnedKeyInfo *ki, Datum value, Oid valtype, int skip, uint8 *out)
{
	value_sortkey(&ki->cols[0], value, valtype, skip, out);
}

uint64
LearnedStringImageAt(LearnedKeyInfo *ki, Datum value, Oid valtype, int skip,
					 const uint8 *prefix)
{
	return string_image_at(&ki->cols[0], value, valtype, skip, prefix);
}

/* copy the key map's string prefix into the first column (scans, merges) */
void
LearnedStringMapApply(LearnedKeyInfo *ki)
{
	LearnedColumn *c = &ki->cols[0];

	c->str_skip = 0;
	if (LearnedKeyIsComposite(ki) || !is_string_type(c->type))
		return;
	c->str_skip = Min(ki->map.str_skip, LEARNED_STR_PREFIX_MAX);
	memcpy(c->str_prefix, ki->map.str_prefix, LEARNED_STR_PREFIX_MAX);
}

/*
 * Plan the image of a single string column from keys about to be written
 * into an empty index (the build, or a merge into an empty static stage):
 * the sort-key prefix shared by (a sample of up to 10,000 of) them.  Keys
 * outside the sample that do not share it map to the ends of the domain:
 * correct, only less well modelled.  Returns true if the caller must
 * recompute its images.
 */
bool
LearnedStringMapPlan(LearnedKeyInfo *ki, const LearnedEntry *entries, Size n)
{
	LearnedColumn *c = &ki->cols[0];
	uint8		first[SORTKEY_WANT];
	uint8		kb[SORTKEY_WANT];
	Size		step;
	Size		lcp = LEARNED_STR_PREFIX_MAX;
	Size		i;

	ki->map.str_skip = 0;
	memset(ki->map.str_prefix, 0, sizeof(ki->map.str_prefix));
	c->str_skip = 0;
	if (LearnedKeyIsComposite(ki) || !is_string_type(c->type) || n < 2)
		return false;
	step = Max((Size) 1, n / 10000);
	value_sortkey(c, entries[0].key, c->type, LEARNED_STR_PREFIX_MAX, first);
	for (i = step; i < n && lcp > 0; i += step)
	{
		Size		k = 0;

		value_sortkey(c, entries[i].key, c->type, LEARNED_STR_PREFIX_MAX, kb);
		while (k < lcp && kb[k] == first[k])
			k++;
		lcp = k;
	}
	if (lcp == 0)
		return false;
	ki->map.str_skip = (uint16) lcp;
	memcpy(ki->map.str_prefix, first, lcp);
	LearnedStringMapApply(ki);
	return true;
}

/* numeric as a double: rounding is monotone; NaN last, as numeric_cmp does */
static uint64
numeric_image(Datum value)
{
	Numeric		n = DatumGetNumeric(value);
	double		d;

	if (numeric_is_nan(n))
		return map_double(get_float8_nan());
	d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
										   NumericGetDatum(n)));
	if ((Pointer) n != DatumGetPointer(value))
		pfree(n);
	return map_double(d);
}

/* learned_map_value past its inline integer cases */
uint64
learned_map_value_general(LearnedColumn *c, Datum value, Oid valtype)
{
	switch (valtype)
	{
		case TEXTOID:
		case BPCHAROID:
		case NAMEOID:
			return string_image(c, value, valtype);
		case BYTEAOID:
			{
				void	   *tofree;
				Size		len;
				const char *s = string_bytes(value, BYTEAOID, &len, &tofree);
				uint64		m = bytes_image(s, len);

				if (tofree)
					pfree(tofree);
				return m;
			}
		case NUMERICOID:
			return numeric_image(value);
		default:
			return learned_map_datum(value, valtype, c->type);
	}
}

/* ---------- variable-width stored keys ---------- */

/*
 * A variable-width key is stored as follows.
 *  - A single column: its varlena, with a 1-byte header when it fits one
 *    (then unaligned) and a 4-byte header otherwise (then 4-aligned), the
 *    value inline-compressed if it is large and compresses, as btree's
 *    index_form_tuple does.
 *  - A composite key (or INCLUDE list) with varlena columns: the fixed part
 *    (NULL bitmap, fixed-width columns at their offsets, as for fixed-width
 *    composite keys) then every non-NULL varlena column in column order,
 *    each as above, a 4-byte-header value padded with zero bytes to a
 *    4-aligned offset (relative to the key's start).  A zero byte can never
 *    start a 1-byte header, so a reader skips padding exactly as the heap's
 *    att_align_pointer does.
 * The key's start is aligned as LearnedKeyAlign says, wherever it is kept.
 */

/*
 * Walk the varlena part of a composite stored key p: returns the offset of
 * varlena column stopcol (-1: the end of the key), skipping the padding
 * before 4-byte headers; *align (if given) gets the alignment the key's
 * start needs for the columns walked.
 */
static Size
var_walk(const LearnedKeyInfo *ki, const char *p, int stopcol, int *align)
{
	Size		off = ki->fixedlen;
	int			i;

	if (align)
		*align = ki->fixedalign;
	for (i = 0; i < ki->natts; i++)
	{
		if (!ki->cols[i].varlena || key_column_null(ki, p, i))
			continue;
		if (p[off] == 0)
			off = INTALIGN(off);	/* padding before a 4-byte header */
		if (i == stopcol)
			return off;
		if (align && !VARATT_IS_1B(p + off))
			*align = Max(*align, ALIGNOF_INT);
		off += VARSIZE_ANY(p + off);
	}
	if (stopcol >= 0)
		elog(ERROR, "learned: column %d is not a stored varlena", stopcol);
	return off;
}

Size
LearnedKeySize(const LearnedKeyInfo *ki, Datum key)
{
	const char *p = DatumGetPointer(key);

	if (!LearnedKeyIsVarwidth(ki))
		return ki->keylen;
	if (ki->fixedonly)
		return ki->fixedlen;
	if (!LearnedKeyIsComposite(ki))
		return VARSIZE_ANY(p);
	return var_walk(ki, p, -1, NULL);
}

/*
 * LearnedKeySizeBounded of a key with a varlena column: the size of the
 * stored key at p if it lies within avail bytes and is well-formed (no
 * TOAST pointer, sizes in range), else -1, by a walk over its varlenas:
 * readers of pages call this before they trust a key's bytes.
 */
int64
LearnedKeySizeWalk(const LearnedKeyInfo *ki, const char *p, Size avail)
{
	Size		off = 0;
	int			i;

	Assert(LearnedKeyIsVarwidth(ki) && !ki->fixedonly);
	if (LearnedKeyIsComposite(ki))
	{
		if ((Size) ki->fixedlen > avail)
			return -1;
		off = ki->fixedlen;
	}
	for (i = 0; i < ki->natts; i++)
	{
		Size		sz;

		if (!ki->cols[i].varlena ||
			(LearnedKeyIsComposite(ki) && key_column_null(ki, p, i)))
			continue;
		if (off >= avail)
			return -1;
		if (p[off] == 0)
		{
			off = INTALIGN(off);
			if (off + 4 > avail)
				return -1;
		}
		if (VARATT_IS_1B_E(p + off))
			return -1;
		if (!VARATT_IS_1B(p + off) && off + 4 > avail)
			return -1;
		sz = VARSIZE_ANY(p + off);
		if (sz < (VARATT_IS_1B(p + off) ? 1 : VARHDRSZ) || sz > avail - off)
			return -1;
		off += sz;
	}
	return (int64) off;
}

/* alignment the start of a stored key needs (1, 4 or 8) */
int
LearnedKeyAlign(const LearnedKeyInfo *ki, Datum key)
{
	const char *p = DatumGetPointer(key);
	int			align;

	if (!LearnedKeyIsVarwidth(ki))
		return ki->byref ? ki->fixedalign : 1;
	if (!LearnedKeyIsComposite(ki))
		return VARATT_IS_1B(p) ? 1 : ALIGNOF_INT;
	(void) var_walk(ki, p, -1, &align);
	return align;
}

/*
 * A varlena value as a key stores it: detoasted, compressed if large (as
 * index_form_tuple does for btree), with a short header when it fits one.
 * Returns a palloc'd copy.
 */
static struct varlena *
prepare_varlena(Datum value)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);
	struct varlena *d;
	Size		sz;

	if (VARATT_IS_EXTERNAL(v))
		v = detoast_external_attr(v);
	if (!VARATT_IS_COMPRESSED(v) && VARSIZE_ANY(v) > TOAST_INDEX_TARGET)
	{
		Datum		c = toast_compress_datum(PointerGetDatum(v),
											 default_toast_compression);

		if (DatumGetPointer(c) != NULL)
			v = (struct varlena *) DatumGetPointer(c);
	}
	if (VARATT_IS_SHORT(v))
	{
		sz = VARSIZE_SHORT(v);
		d = palloc(sz);
		memcpy(d, v, sz);
		return d;
	}
	if (VARATT_IS_COMPRESSED(v) || !VARATT_CAN_MAKE_SHORT(v))
	{
		sz = VARSIZE(v);
		d = palloc(sz);
		memcpy(d, v, sz);
		return d;
	}
	sz = VARATT_CONVERTED_SHORT_SIZE(v);
	d = palloc(sz);
	SET_VARSIZE_SHORT(d, sz);
	memcpy((char *) d + VARHDRSZ_SHORT, VARDATA(v), sz - VARHDRSZ_SHORT);
	return d;
}

/*
 * The stored key of index column values (a single column never NULL here):
 * a Datum as LearnedKeyFetch gives it, in palloc'd memory for a
 * by-reference key.  A key over btree's size limit is an error, as in
 * btree.
 */
Datum
LearnedKeyForm(LearnedKeyInfo *ki, Relation index, const Datum *values,
			   const bool *isnull, ItemPointer tid)
{
	struct varlena *prep[INDEX_MAX_KEYS];
	Size		size;
	char	   *dst;
	int			i;

	if (!LearnedKeyIsVarwidth(ki))
	{
		if (!LearnedKeyIsComposite(ki))
			return ki->byref ? LearnedKeyCopyAlloc(ki, values[0], CurrentMemoryContext) :
				values[0];
		dst = palloc(ki->keylen);
		LearnedKeyPack(ki, values, isnull, dst);
		return PointerGetDatum(dst);
	}
	size = LearnedKeyIsComposite(ki) ? ki->fixedlen : 0;
	for (i = 0; i < ki->natts; i++)
	{
		prep[i] = NULL;
		if (!ki->cols[i].varlena || isnull[i])
			continue;
		prep[i] = prepare_varlena(values[i]);
		if (!VARATT_IS_SHORT(prep[i]))
			size = INTALIGN(size);
		size += VARSIZE_ANY(prep[i]);
	}
	if (MAXALIGN(size + sizeof(IndexTupleData)) > LEARNED_MAX_ENTRY_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("index row size %zu exceeds maximum %zu for index \"%s\"",
						(Size) MAXALIGN(size + sizeof(IndexTupleData)),
						(Size) LEARNED_MAX_ENTRY_SIZE,
						RelationGetRelationName(index)),
				 tid ? errdetail("Index row references tuple (%u,%u) in relation \"%s\".",
								 ItemPointerGetBlockNumber(tid),
								 ItemPointerGetOffsetNumber(tid),
								 get_rel_name(index->rd_index->indrelid)) : 0,
				 errhint("Values larger than 1/3 of a buffer page cannot be indexed.\n"
						 "Consider a function index of an MD5 hash of the value, "
						 "or use full text indexing.")));
	if (!LearnedKeyIsComposite(ki))
		return PointerGetDatum(prep[0]);
	dst = palloc0(size);
	LearnedKeyPack(ki, values, isnull, dst);
	{
		Size		off = ki->fixedlen;

		for (i = 0; i < ki->natts; i++)
		{
			if (prep[i] == NULL)
				continue;
			if (!VARATT_IS_SHORT(prep[i]))
				off = INTALIGN(off);	/* the gap stays zero: padding */
			memcpy(dst + off, prep[i], VARSIZE_ANY(prep[i]));
			off += VARSIZE_ANY(prep[i]);
			pfree(prep[i]);
		}
		Assert(off == size);
	}
	return PointerGetDatum(dst);
}

/*
 * The string key columns' image sources: *xfrm if one comes from a libc
 * strxfrm, *collated if one depends on a collation library at all (text,
 * bpchar, name not under "C").
 */
static void
string_columns(LearnedKeyInfo *ki, bool *xfrm, bool *collated)
{
	int			i;

	*xfrm = *collated = false;
	for (i = 0; i < ki->nkeys; i++)
	{
		LearnedColumn *c = &ki->cols[i];
		StrMap	   *sm;

		if (c->type != TEXTOID && c->type != BPCHAROID && c->type != NAMEOID)
			continue;
		sm = strmap_get(c);
		*xfrm |= !sm->c_order && !sm->use_prefix;
		*collated |= !sm->c_order;
	}
}

/* false if some key column's image comes from a libc strxfrm (LearnedCheckOrder) */
bool
LearnedKeyImagesTrusted(LearnedKeyInfo *ki)
{
	bool		xfrm;
	bool		collated;

	string_columns(ki, &xfrm, &collated);
	return !xfrm;
}

/* how the key's images order keys (learned.h), found once per key info */
LearnedKeyOrder
LearnedKeyOrderOf(LearnedKeyInfo *ki)
{
	if (ki->order == 0)
		ki->order = LearnedKeyMapExact(ki) ? LEARNED_ORDER_EXACT :
			LearnedKeyImagesTrusted(ki) ? LEARNED_ORDER_MONOTONE :
			LEARNED_ORDER_COMPARATOR;
	return (LearnedKeyOrder) ki->order;
}

/*
 * true if some key column's image depends on a collation library: merge.c
 * then places pending keys by the comparator, not by the directory's
 * stored images.
 */
bool
LearnedKeyImagesCollated(LearnedKeyInfo *ki)
{
	bool		xfrm;
	bool		collated;

	string_columns(ki, &xfrm, &collated);
	return collated;
}
