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

#include "catalog/pg_type_d.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "learned.h"

#define SIGN_FLIP	UINT64CONST(0x8000000000000000)

static inline uint64
map_int64(int64 v)
{
	return ((uint64) v) ^ SIGN_FLIP;
}

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
			return true;
		default:
			return false;
	}
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
			return map_int64((int64) DatumGetInt16(value));
		case INT4OID:
			return map_int64((int64) DatumGetInt32(value));
		case INT8OID:
			return map_int64(DatumGetInt64(value));
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
						return map_int64(PG_INT64_MIN);
					if (DATE_IS_NOEND(d))
						return map_int64(PG_INT64_MAX);
					return map_int64((int64) d);
				}
				return map_int64(date_to_usecs(d));
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
					return map_int64(usecs_to_days(ts));
				return map_int64(ts);
			}
		case TIMEOID:
			return map_int64(DatumGetTimeADT(value));
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
				return map_int64((int64) span);
			}
		default:
			elog(ERROR, "learned: unsupported key type %u", valtype);
			return 0;			/* keep compiler quiet */
	}
}

/*
 * Keys are stored as the low keylen bytes of their Datum, which for every
 * supported (pass-by-value) type is the value itself.
 */
Datum
learned_fetch_key(const char *p, int keylen, Oid typid)
{
	switch (keylen)
	{
		case 1:
			return BoolGetDatum(*p != 0);
		case 16:
			/* uuid, interval: by reference, 8-aligned where they are stored */
			return PointerGetDatum(p);
		case 2:
			{
				int16		v;

				memcpy(&v, p, sizeof(v));
				return Int16GetDatum(v);
			}
		case 4:
			{
				uint32		v;

				memcpy(&v, p, sizeof(v));
				if (typid == FLOAT4OID || typid == OIDOID)
					return (Datum) v;
				return Int32GetDatum((int32) v);
			}
		case 8:
			{
				Datum		v;

				memcpy(&v, p, sizeof(v));
				return v;
			}
		default:
			elog(ERROR, "learned: bad key length %d", keylen);
			return (Datum) 0;
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
	return learned_type_supported(typid) && typid != UUIDOID && typid != INTERVALOID;
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
	return (((const uint8 *) p)[col >> 3] >> (col & 7)) & 1;
}

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
	if (!LearnedKeyIsComposite(ki))
		learned_store_key(dst, ki->keylen, key);
	else
		memcpy(dst, DatumGetPointer(key), ki->keylen);
}

/* copy a key's bytes to dst if it has any; returns the key to use */
Datum
LearnedKeyCopy(const LearnedKeyInfo *ki, Datum key, char *dst)
{
	if (!ki->byref)
		return key;
	memcpy(dst, DatumGetPointer(key), ki->keylen);
	return PointerGetDatum(dst);
}

Datum
LearnedKeyCopyAlloc(const LearnedKeyInfo *ki, Datum key, MemoryContext cxt)
{
	if (!ki->byref)
		return key;
	return LearnedKeyCopy(ki, key, MemoryContextAlloc(cxt, ki->keylen));
}

/* form the stored bytes of a composite key from index column values */
void
LearnedKeyPack(const LearnedKeyInfo *ki, const Datum *values,
			   const bool *isnull, char *dst)
{
	int			i;

	Assert(LearnedKeyIsComposite(ki));
	memset(dst, 0, ki->keylen);
	for (i = 0; i < ki->natts; i++)
	{
		if (isnull[i])
			((uint8 *) dst)[i >> 3] |= (uint8) (1 << (i & 7));
		else
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
	return learned_fetch_key(p + ki->cols[col].offset, ki->cols[col].width,
							 ki->cols[col].type);
}

void
LearnedKeyDeform(const LearnedKeyInfo *ki, Datum key, Datum *values, bool *isnull)
{
	int			i;

	for (i = 0; i < ki->natts; i++)
		values[i] = LearnedKeyColumn(ki, key, i, &isnull[i]);
}

/* the index order of two keys */
int
LearnedKeyCmp(LearnedKeyInfo *ki, Datum a, Datum b)
{
	const char *pa;
	const char *pb;
	int			i;

	if (!LearnedKeyIsComposite(ki))
		return DatumGetInt32(FunctionCall2Coll(&ki->cmp, ki->collation, a, b));
	pa = DatumGetPointer(a);
	pb = DatumGetPointer(b);
	for (i = 0; i < ki->nkeys; i++)
	{
		LearnedColumn *c = &ki->cols[i];
		bool		an = key_column_null(ki, pa, i);
		bool		bn = key_column_null(ki, pb, i);
		int			r;

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
	const LearnedColumn *c = &ki->cols[col];

	*u = 0;
	if (isnull)
		return c->nulls_first ? KP_BEFORE : KP_AFTER;
	return keypack_ordinal(&ki->map.cols[col],
						   learned_map_datum(value, valtype, c->type),
						   c->desc, u);
}

/* the models' image of a key */
uint64
LearnedKeyMap(const LearnedKeyInfo *ki, Datum key)
{
	int			status[INDEX_MAX_KEYS];
	uint64		u[INDEX_MAX_KEYS];
	int			i;

	if (!LearnedKeyIsComposite(ki))
		return learned_map_datum(key, ki->keytype, ki->keytype);
	for (i = 0; i < ki->map.npacked; i++)
	{
		bool		isnull;
		Datum		v = LearnedKeyColumn(ki, key, i, &isnull);

		status[i] = LearnedColumnStatus(ki, i, v, ki->cols[i].type, isnull, &u[i]);
	}
	return keypack_combine(ki->map.cols, ki->map.npacked, status, u);
}

/*
 * Plan the key map from the per-column ranges of images seen at build
 * (lo > hi: no value).  maxcols > 0 limits the packed columns (the
 * learned_idx.map_columns experiment knob).
 */
void
LearnedKeyMapPlan(LearnedKeyInfo *ki, const uint64 *lo, const uint64 *hi,
				  int maxcols)
{
	bool		lossy[INDEX_MAX_KEYS];
	int			i;

	memset(&ki->map, 0, sizeof(ki->map));
	ki->map.natts = (uint16) ki->nkeys;
	if (!LearnedKeyIsComposite(ki))
		return;
	for (i = 0; i < ki->nkeys; i++)
		lossy[i] = !ki->cols[i].exact;
	ki->map.npacked = (uint16) keypack_plan(ki->nkeys, lo, hi, lossy, maxcols,
											ki->map.cols);
}
