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
