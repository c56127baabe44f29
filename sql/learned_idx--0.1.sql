/* learned_idx--0.1.sql: the "learned" index access method */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION learned_idx" to load this file. \quit

CREATE FUNCTION learned_handler(internal)
RETURNS index_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C;

CREATE ACCESS METHOD learned TYPE INDEX HANDLER learned_handler;
COMMENT ON ACCESS METHOD learned IS 'learned index: piecewise-linear models over dense sorted pages';

-- Operator families mirror btree's (integer_ops, float_ops, datetime_ops,
-- oid_ops), with btree strategy numbers 1..5 so that the planner can use the
-- index for ORDER BY, and with every cross-type operator btree has.
CREATE OPERATOR FAMILY integer_ops USING learned;
CREATE OPERATOR CLASS int2_ops DEFAULT FOR TYPE int2 USING learned FAMILY integer_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (int2, int2) btint2cmp(int2, int2);
CREATE OPERATOR CLASS int4_ops DEFAULT FOR TYPE int4 USING learned FAMILY integer_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (int4, int4) btint4cmp(int4, int4);
CREATE OPERATOR CLASS int8_ops DEFAULT FOR TYPE int8 USING learned FAMILY integer_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (int8, int8) btint8cmp(int8, int8);
ALTER OPERATOR FAMILY integer_ops USING learned ADD
    OPERATOR 1 < (int2, int4), OPERATOR 2 <= (int2, int4), OPERATOR 3 = (int2, int4),
    OPERATOR 4 >= (int2, int4), OPERATOR 5 > (int2, int4),
    FUNCTION 1 (int2, int4) btint24cmp(int2, int4);
ALTER OPERATOR FAMILY integer_ops USING learned ADD
    OPERATOR 1 < (int2, int8), OPERATOR 2 <= (int2, int8), OPERATOR 3 = (int2, int8),
    OPERATOR 4 >= (int2, int8), OPERATOR 5 > (int2, int8),
    FUNCTION 1 (int2, int8) btint28cmp(int2, int8);
ALTER OPERATOR FAMILY integer_ops USING learned ADD
    OPERATOR 1 < (int4, int2), OPERATOR 2 <= (int4, int2), OPERATOR 3 = (int4, int2),
    OPERATOR 4 >= (int4, int2), OPERATOR 5 > (int4, int2),
    FUNCTION 1 (int4, int2) btint42cmp(int4, int2);
ALTER OPERATOR FAMILY integer_ops USING learned ADD
    OPERATOR 1 < (int4, int8), OPERATOR 2 <= (int4, int8), OPERATOR 3 = (int4, int8),
    OPERATOR 4 >= (int4, int8), OPERATOR 5 > (int4, int8),
    FUNCTION 1 (int4, int8) btint48cmp(int4, int8);
ALTER OPERATOR FAMILY integer_ops USING learned ADD
    OPERATOR 1 < (int8, int2), OPERATOR 2 <= (int8, int2), OPERATOR 3 = (int8, int2),
    OPERATOR 4 >= (int8, int2), OPERATOR 5 > (int8, int2),
    FUNCTION 1 (int8, int2) btint82cmp(int8, int2);
ALTER OPERATOR FAMILY integer_ops USING learned ADD
    OPERATOR 1 < (int8, int4), OPERATOR 2 <= (int8, int4), OPERATOR 3 = (int8, int4),
    OPERATOR 4 >= (int8, int4), OPERATOR 5 > (int8, int4),
    FUNCTION 1 (int8, int4) btint84cmp(int8, int4);

CREATE OPERATOR FAMILY float_ops USING learned;
CREATE OPERATOR CLASS float4_ops DEFAULT FOR TYPE float4 USING learned FAMILY float_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (float4, float4) btfloat4cmp(float4, float4);
CREATE OPERATOR CLASS float8_ops DEFAULT FOR TYPE float8 USING learned FAMILY float_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (float8, float8) btfloat8cmp(float8, float8);
ALTER OPERATOR FAMILY float_ops USING learned ADD
    OPERATOR 1 < (float4, float8), OPERATOR 2 <= (float4, float8), OPERATOR 3 = (float4, float8),
    OPERATOR 4 >= (float4, float8), OPERATOR 5 > (float4, float8),
    FUNCTION 1 (float4, float8) btfloat48cmp(float4, float8);
ALTER OPERATOR FAMILY float_ops USING learned ADD
    OPERATOR 1 < (float8, float4), OPERATOR 2 <= (float8, float4), OPERATOR 3 = (float8, float4),
    OPERATOR 4 >= (float8, float4), OPERATOR 5 > (float8, float4),
    FUNCTION 1 (float8, float4) btfloat84cmp(float8, float4);

CREATE OPERATOR FAMILY datetime_ops USING learned;
CREATE OPERATOR CLASS date_ops DEFAULT FOR TYPE date USING learned FAMILY datetime_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (date, date) date_cmp(date, date);
CREATE OPERATOR CLASS timestamp_ops DEFAULT FOR TYPE timestamp USING learned FAMILY datetime_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (timestamp, timestamp) timestamp_cmp(timestamp, timestamp);
CREATE OPERATOR CLASS timestamptz_ops DEFAULT FOR TYPE timestamptz USING learned FAMILY datetime_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (timestamptz, timestamptz) timestamptz_cmp(timestamptz, timestamptz);
ALTER OPERATOR FAMILY datetime_ops USING learned ADD
    OPERATOR 1 < (date, timestamp), OPERATOR 2 <= (date, timestamp), OPERATOR 3 = (date, timestamp),
    OPERATOR 4 >= (date, timestamp), OPERATOR 5 > (date, timestamp),
    FUNCTION 1 (date, timestamp) date_cmp_timestamp(date, timestamp);
ALTER OPERATOR FAMILY datetime_ops USING learned ADD
    OPERATOR 1 < (date, timestamptz), OPERATOR 2 <= (date, timestamptz), OPERATOR 3 = (date, timestamptz),
    OPERATOR 4 >= (date, timestamptz), OPERATOR 5 > (date, timestamptz),
    FUNCTION 1 (date, timestamptz) date_cmp_timestamptz(date, timestamptz);
ALTER OPERATOR FAMILY datetime_ops USING learned ADD
    OPERATOR 1 < (timestamp, date), OPERATOR 2 <= (timestamp, date), OPERATOR 3 = (timestamp, date),
    OPERATOR 4 >= (timestamp, date), OPERATOR 5 > (timestamp, date),
    FUNCTION 1 (timestamp, date) timestamp_cmp_date(timestamp, date);
ALTER OPERATOR FAMILY datetime_ops USING learned ADD
    OPERATOR 1 < (timestamp, timestamptz), OPERATOR 2 <= (timestamp, timestamptz), OPERATOR 3 = (timestamp, timestamptz),
    OPERATOR 4 >= (timestamp, timestamptz), OPERATOR 5 > (timestamp, timestamptz),
    FUNCTION 1 (timestamp, timestamptz) timestamp_cmp_timestamptz(timestamp, timestamptz);
ALTER OPERATOR FAMILY datetime_ops USING learned ADD
    OPERATOR 1 < (timestamptz, date), OPERATOR 2 <= (timestamptz, date), OPERATOR 3 = (timestamptz, date),
    OPERATOR 4 >= (timestamptz, date), OPERATOR 5 > (timestamptz, date),
    FUNCTION 1 (timestamptz, date) timestamptz_cmp_date(timestamptz, date);
ALTER OPERATOR FAMILY datetime_ops USING learned ADD
    OPERATOR 1 < (timestamptz, timestamp), OPERATOR 2 <= (timestamptz, timestamp), OPERATOR 3 = (timestamptz, timestamp),
    OPERATOR 4 >= (timestamptz, timestamp), OPERATOR 5 > (timestamptz, timestamp),
    FUNCTION 1 (timestamptz, timestamp) timestamptz_cmp_timestamp(timestamptz, timestamp);

CREATE OPERATOR FAMILY oid_ops USING learned;
CREATE OPERATOR CLASS oid_ops DEFAULT FOR TYPE oid USING learned FAMILY oid_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (oid, oid) btoidcmp(oid, oid);

-- Inspection functions

CREATE FUNCTION learned_index_info(index regclass,
    OUT segments int8, OUT pieces int8, OUT model_bytes int8,
    OUT zonemap_bytes int8, OUT directory_pages int8, OUT leaf_pages int8,
    OUT null_pages int8, OUT entries int8, OUT dead_entries int8,
    OUT null_entries int8, OUT pending_entries int8, OUT pending_pages int8,
    OUT total_pages int8, OUT mean_error float8, OUT max_error int4,
    OUT error_bound int4, OUT items_per_page int4, OUT mode text,
    OUT generation int8, OUT last_merge timestamptz,
    OUT model_bytes_uncompressed int8, OUT zonemap_bytes_uncompressed int8,
    OUT compression text, OUT compressed_pages int8, OUT mean_items_per_page float8,
    OUT hinted_entries int8, OUT merges int8, OUT merged_entries int8,
    OUT last_merge_ms float8)
RETURNS record
AS 'MODULE_PATHNAME', 'learned_index_info'
LANGUAGE C STRICT;

CREATE FUNCTION learned_index_segments(index regclass,
    OUT segment int4, OUT kind text, OUT first_key text, OUT last_key text,
    OUT start_block int8, OUT pages int4, OUT entries int8, OUT pieces int4,
    OUT max_error int4, OUT items_per_page int4, OUT compressed bool)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'learned_index_segments'
LANGUAGE C STRICT;

CREATE FUNCTION learned_index_runs(index regclass,
    OUT run int4, OUT tier int4, OUT start_block int8, OUT pages int4,
    OUT entries int8, OUT null_entries int8, OUT dead_entries int8,
    OUT filter_pages int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'learned_index_runs'
LANGUAGE C STRICT;
COMMENT ON FUNCTION learned_index_runs(regclass) IS 'the sorted runs of a learned index''s pending list, oldest first, and its unsorted tail (run NULL)';

CREATE FUNCTION learned_index_merge(index regclass)
RETURNS int8
AS 'MODULE_PATHNAME', 'learned_index_merge'
LANGUAGE C STRICT;
COMMENT ON FUNCTION learned_index_merge(regclass) IS 'merge the pending list of a learned index into its static stage now';

CREATE FUNCTION learned_index_merge_step(index regclass)
RETURNS int8
AS 'MODULE_PATHNAME', 'learned_index_merge_step'
LANGUAGE C STRICT;
COMMENT ON FUNCTION learned_index_merge_step(regclass) IS 'one step of a learned index''s swept main merge (or the whole merge where none may be swept)';

CREATE FUNCTION learned_index_sweep(index regclass,
    OUT runs int4, OUT next_segment int4, OUT merged_entries int8, OUT left_entries int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'learned_index_sweep'
LANGUAGE C STRICT;
COMMENT ON FUNCTION learned_index_sweep(regclass) IS 'the swept main merge in progress on a learned index, if any: its runs, next segment, entries merged and left';

CREATE FUNCTION learned_index_check(index regclass, heapallindexed boolean DEFAULT false)
RETURNS boolean
AS 'MODULE_PATHNAME', 'learned_index_check'
LANGUAGE C STRICT;
COMMENT ON FUNCTION learned_index_check(regclass, boolean) IS 'verify a learned index: key order, model windows, page ownership, pending list; optionally that every live heap tuple is indexed';

-- No role may call these by default, as with amcheck's functions: they show
-- an index's keys and row counts, read a whole index (and its table, for
-- heapallindexed), or rewrite it.  A superuser GRANTs EXECUTE to the roles
-- that inspect indexes, pg_monitor say (README, "SQL functions"); each
-- function also checks at run time that the caller may SELECT from the
-- indexed table or owns it, and learned_index_merge that the caller owns it.
-- The handler takes an internal argument, so SQL cannot call it; the index
-- access method does not need EXECUTE on it.
REVOKE ALL ON FUNCTION learned_handler(internal) FROM PUBLIC;
REVOKE ALL ON FUNCTION learned_index_info(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION learned_index_segments(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION learned_index_runs(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION learned_index_merge(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION learned_index_merge_step(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION learned_index_sweep(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION learned_index_check(regclass, boolean) FROM PUBLIC;

-- Other fixed-width types (one type per family, as in btree).  uuid and
-- interval map to 64 bits lossily: their comparators order equal images.
CREATE OPERATOR FAMILY bool_ops USING learned;
CREATE OPERATOR CLASS bool_ops DEFAULT FOR TYPE bool USING learned FAMILY bool_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (bool, bool) btboolcmp(bool, bool);
CREATE OPERATOR FAMILY time_ops USING learned;
CREATE OPERATOR CLASS time_ops DEFAULT FOR TYPE time USING learned FAMILY time_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (time, time) time_cmp(time, time);
CREATE OPERATOR FAMILY uuid_ops USING learned;
CREATE OPERATOR CLASS uuid_ops DEFAULT FOR TYPE uuid USING learned FAMILY uuid_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (uuid, uuid) uuid_cmp(uuid, uuid);
CREATE OPERATOR FAMILY interval_ops USING learned;
CREATE OPERATOR CLASS interval_ops DEFAULT FOR TYPE interval USING learned FAMILY interval_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (interval, interval) interval_cmp(interval, interval);

-- Variable-width types.  Keys are stored as varlenas (the leaf pages of
-- such an index have an offsets array); a string's image is the first 8
-- bytes of its sort key in the column's collation (keymap.c).  text_ops
-- serves text and varchar (binary-coercible), and compares name and text
-- across types, as btree's text_ops does.
CREATE OPERATOR FAMILY text_ops USING learned;
CREATE OPERATOR CLASS text_ops DEFAULT FOR TYPE text USING learned FAMILY text_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (text, text) bttextcmp(text, text);
CREATE OPERATOR CLASS name_ops DEFAULT FOR TYPE name USING learned FAMILY text_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (name, name) btnamecmp(name, name);
ALTER OPERATOR FAMILY text_ops USING learned ADD
    OPERATOR 1 < (name, text), OPERATOR 2 <= (name, text), OPERATOR 3 = (name, text),
    OPERATOR 4 >= (name, text), OPERATOR 5 > (name, text),
    FUNCTION 1 (name, text) btnametextcmp(name, text);
ALTER OPERATOR FAMILY text_ops USING learned ADD
    OPERATOR 1 < (text, name), OPERATOR 2 <= (text, name), OPERATOR 3 = (text, name),
    OPERATOR 4 >= (text, name), OPERATOR 5 > (text, name),
    FUNCTION 1 (text, name) bttextnamecmp(text, name);
CREATE OPERATOR FAMILY bpchar_ops USING learned;
CREATE OPERATOR CLASS bpchar_ops DEFAULT FOR TYPE bpchar USING learned FAMILY bpchar_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (bpchar, bpchar) bpcharcmp(bpchar, bpchar);
CREATE OPERATOR FAMILY bytea_ops USING learned;
CREATE OPERATOR CLASS bytea_ops DEFAULT FOR TYPE bytea USING learned FAMILY bytea_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (bytea, bytea) byteacmp(bytea, bytea);
-- numeric maps to a double (monotone, not exact); btree has no cross-type
-- operators between numeric and the integers either
CREATE OPERATOR FAMILY numeric_ops USING learned;
CREATE OPERATOR CLASS numeric_ops DEFAULT FOR TYPE numeric USING learned FAMILY numeric_ops AS
    OPERATOR 1 < , OPERATOR 2 <= , OPERATOR 3 = , OPERATOR 4 >= , OPERATOR 5 > ,
    FUNCTION 1 (numeric, numeric) numeric_cmp(numeric, numeric);
