-- 02_types
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Every supported key type, every operator of its family (cross-type
-- included), extreme and special values, NULLs, duplicates, empty tables.
--

-- ltype(tab, probes, probe_types, sel): for every probe value cast to every
-- probe type (combinations whose cast fails are skipped) and every operator
-- < <= = >= >, checks
--   SELECT <sel> FROM tab WHERE k <op> probe ORDER BY k [DESC]  (is, ios)
--   SELECT id FROM tab WHERE k <op> probe                       (bis)
-- then, per pair of probes, a closed range with mixed probe types, and
-- k = ANY(all probes).  Reports the number of checks, the total number of
-- rows returned (a checksum of sorts), and how many checks did not say "ok".
CREATE FUNCTION lcastable(val text, typ text) RETURNS bool
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('SELECT %L::%s', val, typ);
    RETURN true;
EXCEPTION WHEN OTHERS THEN
    RETURN false;
END $$;

CREATE FUNCTION ltype(tab text, probes text[], ptypes text[], sel text DEFAULT 'k')
RETURNS TABLE(probe_type text, checks int, total_rows bigint, not_ok int)
LANGUAGE plpgsql AS $$
DECLARE
    pt text;
    pt2 text;
    p text;
    p2 text;
    op text;
    res text;
    ok_probes text[];
    i int;
    j int;
    n int;
    coltype text := (SELECT format_type(atttypid, NULL) FROM pg_attribute
                     WHERE attrelid = tab::regclass AND attname = 'k');
BEGIN
    FOREACH pt IN ARRAY ptypes LOOP
        checks := 0; total_rows := 0; not_ok := 0; probe_type := pt;
        ok_probes := '{}';
        FOREACH p IN ARRAY probes LOOP
            IF lcastable(p, pt) THEN
                ok_probes := ok_probes || p;
            END IF;
        END LOOP;
        FOREACH p IN ARRAY ok_probes LOOP
            n := 0;
            FOREACH op IN ARRAY ARRAY['<', '<=', '=', '>=', '>'] LOOP
                n := n + 1;
                FOR res IN
                    SELECT lcheck(format('SELECT %s FROM %I WHERE k %s %L::%s ORDER BY k%s',
                                         sel, tab, op, p, pt,
                                         CASE WHEN n % 2 = 0 THEN ' DESC' ELSE '' END),
                                  'is,ios')
                    UNION ALL
                    SELECT lcheck(format('SELECT id FROM %I WHERE k %s %L::%s',
                                         tab, op, p, pt), 'bis')
                LOOP
                    checks := checks + 1;
                    total_rows := total_rows + substring(res from 'rows=(\d+)')::int;
                    IF res ~ ':(WRONG|noidx)' THEN
                        not_ok := not_ok + 1;
                    END IF;
                END LOOP;
            END LOOP;
        END LOOP;
        -- closed and half-open ranges between two probes, the second one of
        -- the next probe type (round robin)
        pt2 := ptypes[1 + (array_position(ptypes, pt) % cardinality(ptypes))];
        FOR i IN 1 .. cardinality(ok_probes) LOOP
            FOR j IN 1 .. cardinality(probes) LOOP
                p := ok_probes[i];
                p2 := probes[j];
                CONTINUE WHEN NOT lcastable(p2, pt2);
                FOR res IN
                    SELECT lcheck(format('SELECT %s FROM %I WHERE k >= %L::%s AND k < %L::%s ORDER BY k%s',
                                         sel, tab, p, pt, p2, pt2,
                                         CASE WHEN (i + j) % 2 = 0 THEN ' DESC' ELSE '' END),
                                  'is,ios')
                    UNION ALL
                    SELECT lcheck(format('SELECT id FROM %I WHERE k > %L::%s AND k <= %L::%s',
                                         tab, p, pt, p2, pt2), 'is,bis')
                LOOP
                    checks := checks + 1;
                    total_rows := total_rows + substring(res from 'rows=(\d+)')::int;
                    IF res ~ ':(WRONG|noidx)' THEN
                        not_ok := not_ok + 1;
                    END IF;
                END LOOP;
            END LOOP;
        END LOOP;
        -- one IN list / = ANY(array) with every probe, and one with a NULL
        FOR res IN
            SELECT lcheck(format('SELECT %s FROM %I WHERE k = ANY (%L::%s[]) ORDER BY k',
                                 sel, tab, ok_probes, pt), 'is,ios,bis')
            UNION ALL
            SELECT lcheck(format('SELECT %s FROM %I WHERE k = ANY (%L::%s[]) ORDER BY k DESC',
                                 sel, tab, array_append(ok_probes, NULL), pt), 'is,ios,bis')
            UNION ALL
            SELECT lcheck(format('SELECT id FROM %I WHERE k IN (%s)', tab,
                                 (SELECT string_agg(format('%L', x), ', ')
                                  FROM unnest(ok_probes) x
                                  WHERE lcastable(x, coltype))), 'is,bis')
        LOOP
            checks := checks + 1;
            total_rows := total_rows + substring(res from 'rows=(\d+)')::int;
            IF res ~ ':(WRONG|noidx)' THEN
                not_ok := not_ok + 1;
            END IF;
        END LOOP;
        RETURN NEXT;
    END LOOP;
END $$;

-- lfull(tab, sel): whole-index scans in every order, and the NULL tests.
CREATE FUNCTION lfull(tab text, sel text DEFAULT 'k')
RETURNS TABLE(query text, result text)
LANGUAGE plpgsql AS $$
DECLARE
    q text;
BEGIN
    FOREACH q IN ARRAY ARRAY[
        'SELECT %s FROM %I ORDER BY k',
        'SELECT %s FROM %I ORDER BY k DESC',
        'SELECT %s FROM %I ORDER BY k ASC NULLS LAST',
        'SELECT %s FROM %I ORDER BY k DESC NULLS FIRST',
        'SELECT %s FROM %I ORDER BY k LIMIT 5',
        'SELECT %s FROM %I ORDER BY k DESC LIMIT 5',
        'SELECT %s FROM %I WHERE k IS NOT NULL ORDER BY k DESC',
        'SELECT %s FROM %I WHERE k IS NOT NULL ORDER BY k',
        'SELECT %s FROM %I WHERE k IS NOT NULL ORDER BY k DESC LIMIT 3'] LOOP
        query := format(q, 'k', tab);
        result := lcheck(format(q, sel, tab), 'is,ios');
        RETURN NEXT;
    END LOOP;
    FOREACH q IN ARRAY ARRAY[
        'SELECT id FROM %I WHERE k IS NULL',
        'SELECT id FROM %I WHERE k IS NOT NULL'] LOOP
        query := format(q, tab);
        result := lcheck(query, 'is,bis');
        RETURN NEXT;
    END LOOP;
    query := format('SELECT count(*) FROM %I WHERE k IS NULL', tab);
    result := lcheck(query, 'is,ios,bis');
    RETURN NEXT;
END $$;

-- int2
CREATE TABLE ty_int2 (id serial, k int2);
INSERT INTO ty_int2 (k) SELECT i FROM generate_series(-32768, 32767, 37) i;
INSERT INTO ty_int2 (k) VALUES (32767), (32767), (-32768), (0), (-1), (1);
INSERT INTO ty_int2 (k) SELECT 7 FROM generate_series(1, 300);
INSERT INTO ty_int2 (k) SELECT NULL FROM generate_series(1, 25);
CREATE INDEX ty_int2_k ON ty_int2 USING learned (k);
VACUUM ANALYZE ty_int2;
SELECT * FROM ltype('ty_int2',
    ARRAY['-9223372036854775808', '-2147483649', '-40000', '-32768', '-32767',
          '-1', '0', '1', '6', '7', '8', '2000', '32766', '32767', '32768',
          '2147483648', '9223372036854775807'],
    ARRAY['int2', 'int4', 'int8']);
SELECT * FROM lfull('ty_int2');

-- int4
CREATE TABLE ty_int4 (id serial, k int4);
INSERT INTO ty_int4 (k) SELECT i * 1234567 FROM generate_series(-1739, 1739) i;
INSERT INTO ty_int4 (k) VALUES (2147483647), (2147483647), (-2147483648), (-2147483647), (0), (-1), (1);
INSERT INTO ty_int4 (k) SELECT 1234567 FROM generate_series(1, 300);
INSERT INTO ty_int4 (k) SELECT NULL FROM generate_series(1, 25);
CREATE INDEX ty_int4_k ON ty_int4 USING learned (k);
VACUUM ANALYZE ty_int4;
SELECT * FROM ltype('ty_int4',
    ARRAY['-9223372036854775808', '-2147483649', '-2147483648', '-2147483647',
          '-32768', '-1234568', '-1', '0', '1', '1234566', '1234567',
          '1234568', '32767', '2146912513', '2147483646', '2147483647',
          '2147483648', '9223372036854775807'],
    ARRAY['int2', 'int4', 'int8']);
SELECT * FROM lfull('ty_int4');

-- int8
CREATE TABLE ty_int8 (id serial, k int8);
INSERT INTO ty_int8 (k) SELECT i * 5000000000000000 FROM generate_series(-1844, 1844) i;
INSERT INTO ty_int8 (k) VALUES (9223372036854775807), (9223372036854775807),
    (-9223372036854775808), (-9223372036854775808), (-9223372036854775807),
    (9223372036854775806), (0), (-1), (1), (2147483647), (2147483648),
    (-2147483648), (-2147483649), (32767), (-32768);
INSERT INTO ty_int8 (k) SELECT -5000000000000000 FROM generate_series(1, 300);
INSERT INTO ty_int8 (k) SELECT NULL FROM generate_series(1, 25);
CREATE INDEX ty_int8_k ON ty_int8 USING learned (k);
VACUUM ANALYZE ty_int8;
SELECT * FROM ltype('ty_int8',
    ARRAY['-9223372036854775808', '-9223372036854775807', '-9220000000000000000',
          '-5000000000000001', '-5000000000000000', '-4999999999999999',
          '-2147483649', '-2147483648', '-32768', '-1', '0', '1', '32767',
          '2147483647', '2147483648', '4611686018427387904',
          '9220000000000000000', '9223372036854775806', '9223372036854775807'],
    ARRAY['int2', 'int4', 'int8']);
SELECT * FROM lfull('ty_int8');

-- float4: -0 and 0 are equal, NaN sorts above Infinity.  Ordered checks
-- select k + '0' so that the order of -0 against 0 does not matter.
CREATE TABLE ty_float4 (id serial, k float4);
INSERT INTO ty_float4 (k) SELECT s * power(10::float8, e / 10.0)::float4
    FROM generate_series(-379, 379, 3) e, (VALUES (-1), (1)) v(s);
INSERT INTO ty_float4 (k) VALUES ('NaN'), ('NaN'), ('Infinity'), ('-Infinity'),
    ('Infinity'), ('-0'), ('-0'), ('0'), ('0'), ('1.4e-45'), ('-1.4e-45'),
    ('1.17549435e-38'), ('3.4028235e38'), ('-3.4028235e38'), ('0.1'), ('1.5');
INSERT INTO ty_float4 (k) SELECT 1.5 FROM generate_series(1, 300);
INSERT INTO ty_float4 (k) SELECT NULL FROM generate_series(1, 25);
CREATE INDEX ty_float4_k ON ty_float4 USING learned (k);
VACUUM ANALYZE ty_float4;
SELECT * FROM ltype('ty_float4',
    ARRAY['-Infinity', '-1e300', '-3.4028235e38', '-1', '-1.4e-45', '-0', '0',
          '1e-300', '1.4e-45', '0.1', '1', '1.5', '1.50001', '100',
          '3.4028235e38', '1e300', 'Infinity', 'NaN'],
    ARRAY['float4', 'float8'], 'k + ''0''');
SELECT * FROM lfull('ty_float4', 'k + ''0''');

-- float8
CREATE TABLE ty_float8 (id serial, k float8);
INSERT INTO ty_float8 (k) SELECT s * power(10::float8, e / 10.0)
    FROM generate_series(-3070, 3070, 7) e, (VALUES (-1), (1)) v(s);
INSERT INTO ty_float8 (k) VALUES ('NaN'), ('NaN'), ('Infinity'), ('-Infinity'),
    ('Infinity'), ('-0'), ('-0'), ('0'), ('0'), ('4.9e-324'), ('-4.9e-324'),
    ('2.2250738585072014e-308'), ('1.7976931348623157e308'),
    ('-1.7976931348623157e308'), ('0.1'), (0.1::float4), ('1.5');
INSERT INTO ty_float8 (k) SELECT 1.5 FROM generate_series(1, 300);
INSERT INTO ty_float8 (k) SELECT NULL FROM generate_series(1, 25);
CREATE INDEX ty_float8_k ON ty_float8 USING learned (k);
VACUUM ANALYZE ty_float8;
SELECT * FROM ltype('ty_float8',
    ARRAY['-Infinity', '-1.7976931348623157e308', '-1e300', '-1', '-4.9e-324',
          '-0', '0', '4.9e-324', '1e-300', '0.1', '0.100000001490116',
          '1', '1.5', '1.50001', '100', '3.4028235e38', '1e300',
          '1.7976931348623157e308', 'Infinity', 'NaN'],
    ARRAY['float4', 'float8'], 'k + ''0''');
SELECT * FROM lfull('ty_float8', 'k + ''0''');

-- Plain answers for the special float values.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, k FROM ty_float8 WHERE k = 0 ORDER BY id;
SELECT id, k FROM ty_float8 WHERE k = '-0' ORDER BY id;
SELECT count(*) FROM ty_float8 WHERE k < 0 AND k > '-4.9e-324';
SELECT count(*) FROM ty_float8 WHERE k = 'NaN';
SELECT count(*) FROM ty_float8 WHERE k > 'Infinity';
SELECT count(*) FROM ty_float8 WHERE k >= 'Infinity';
SELECT k FROM ty_float8 WHERE k IS NOT NULL ORDER BY k DESC LIMIT 4;
SELECT k FROM ty_float8 WHERE k IS NOT NULL ORDER BY k LIMIT 2;
SELECT count(*) FROM ty_float4 WHERE k = 0.1::float8;
SELECT count(*) FROM ty_float4 WHERE k = 0.1::float4;
SELECT count(*) FROM ty_float8 WHERE k = 0.1::float4;
SELECT k FROM ty_float4 WHERE k > 1e38::float8 ORDER BY k;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- date
CREATE TABLE ty_date (id serial, k date);
INSERT INTO ty_date (k) SELECT '1900-01-01'::date + i * 23 FROM generate_series(0, 3200) i;
INSERT INTO ty_date (k) VALUES ('infinity'), ('-infinity'), ('infinity'),
    ('4713-01-01 BC'), ('5874897-12-31'), ('2000-01-01'), ('1970-01-01');
INSERT INTO ty_date (k) SELECT '2024-02-29' FROM generate_series(1, 300);
INSERT INTO ty_date (k) SELECT NULL FROM generate_series(1, 25);
CREATE INDEX ty_date_k ON ty_date USING learned (k);
VACUUM ANALYZE ty_date;
SELECT * FROM ltype('ty_date',
    ARRAY['-infinity', '4713-01-01 BC', '4713-01-02 BC', '4714-11-24 00:00:00 BC',
          '1899-12-31', '1900-01-01', '1969-12-31 23:59:59', '1970-01-01',
          '2000-01-01', '2024-02-28 23:59:59.999999', '2024-02-29',
          '2024-02-29 00:00:00.000001', '2100-01-01', '294276-12-31 23:59:59.999999',
          '5874897-12-31', 'infinity'],
    ARRAY['date', 'timestamp', 'timestamptz']);
SELECT * FROM lfull('ty_date');

-- timestamp
CREATE TABLE ty_timestamp (id serial, k timestamp);
INSERT INTO ty_timestamp (k) SELECT '1900-01-01'::timestamp + i * interval '23 days 1 hour 1 second'
    FROM generate_series(0, 3200) i;
INSERT INTO ty_timestamp (k) VALUES ('infinity'), ('-infinity'), ('-infinity'),
    ('4714-11-24 00:00:00 BC'), ('294276-12-31 23:59:59.999999'),
    ('2000-01-01'), ('2000-01-01 00:00:00.000001'), ('1999-12-31 23:59:59.999999'),
    ('1970-01-01');
INSERT INTO ty_timestamp (k) SELECT '2024-02-29 12:00' FROM generate_series(1, 300);
INSERT INTO ty_timestamp (k) SELECT NULL FROM generate_series(1, 25);
CREATE INDEX ty_timestamp_k ON ty_timestamp USING learned (k);
VACUUM ANALYZE ty_timestamp;
SELECT * FROM ltype('ty_timestamp',
    ARRAY['-infinity', '4713-01-01 BC', '4714-11-24 00:00:00 BC',
          '4714-11-24 00:00:01 BC', '1899-12-31', '1900-01-01',
          '1999-12-31 23:59:59.999999', '2000-01-01', '2000-01-01 00:00:00.000001',
          '2024-02-29', '2024-02-29 12:00', '2024-02-29 12:00:00.000001',
          '2124-01-01', '294276-12-31 23:59:59.999999', '5874897-12-31', 'infinity'],
    ARRAY['date', 'timestamp', 'timestamptz']);
SELECT * FROM lfull('ty_timestamp');

-- timestamptz
CREATE TABLE ty_timestamptz (id serial, k timestamptz);
INSERT INTO ty_timestamptz (k) SELECT '1900-01-01 00:00+00'::timestamptz + i * interval '23 days 1 hour 1 second'
    FROM generate_series(0, 3200) i;
INSERT INTO ty_timestamptz (k) VALUES ('infinity'), ('-infinity'), ('infinity'),
    ('4714-11-24 00:00:00+00 BC'), ('294276-12-31 23:59:59.999999+00'),
    ('2000-01-01 00:00+00'), ('2000-01-01 00:00:00.000001+00'),
    ('1999-12-31 23:59:59.999999+00'), ('2000-01-01 00:00 America/New_York');
INSERT INTO ty_timestamptz (k) SELECT '2024-02-29 12:00+00' FROM generate_series(1, 300);
INSERT INTO ty_timestamptz (k) SELECT NULL FROM generate_series(1, 25);
CREATE INDEX ty_timestamptz_k ON ty_timestamptz USING learned (k);
VACUUM ANALYZE ty_timestamptz;
SELECT * FROM ltype('ty_timestamptz',
    ARRAY['-infinity', '4714-11-24 00:00:00+00 BC', '4714-11-24 00:00:01+00 BC',
          '4713-01-01 BC', '1899-12-31', '1900-01-01 00:00+00',
          '1999-12-31 23:59:59.999999+00', '2000-01-01 00:00+00', '2000-01-01',
          '2000-01-01 00:00:00.000001+00', '2024-02-29 12:00+00', '2024-02-29',
          '2124-01-01', '294276-12-31 23:59:59.999999+00', '5874897-12-31', 'infinity'],
    ARRAY['date', 'timestamp', 'timestamptz']);
SELECT * FROM lfull('ty_timestamptz');

-- oid (unsigned: 4294967295 is the largest)
CREATE TABLE ty_oid (id serial, k oid);
INSERT INTO ty_oid (k) SELECT (i::int8 * 1234567)::oid FROM generate_series(0, 3478) i;
INSERT INTO ty_oid (k) VALUES (0), (1), (2147483647), (2147483648), (4294967295),
    (4294967295), (4294967294);
INSERT INTO ty_oid (k) SELECT 2469134 FROM generate_series(1, 300);
INSERT INTO ty_oid (k) SELECT NULL FROM generate_series(1, 25);
CREATE INDEX ty_oid_k ON ty_oid USING learned (k);
VACUUM ANALYZE ty_oid;
SELECT * FROM ltype('ty_oid',
    ARRAY['0', '1', '2', '1234567', '2469133', '2469134', '2469135',
          '2147483647', '2147483648', '2147483649', '4293708665',
          '4294967294', '4294967295'],
    ARRAY['oid']);
SELECT * FROM lfull('ty_oid');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT k FROM ty_oid WHERE k > 4294967290 ORDER BY k;
SELECT k FROM ty_oid WHERE k >= 2147483647 ORDER BY k LIMIT 3;
SELECT k FROM ty_oid ORDER BY k DESC NULLS LAST LIMIT 3;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Cross-type comparisons pick the right operator and still use the index.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM ty_int8 WHERE k = 5;
EXPLAIN (COSTS OFF) SELECT k FROM ty_int2 WHERE k > 5::int8 AND k < 100;
EXPLAIN (COSTS OFF) SELECT k FROM ty_float4 WHERE k < 1.5::float8;
EXPLAIN (COSTS OFF) SELECT k FROM ty_timestamp WHERE k >= '2024-01-01'::date;
EXPLAIN (COSTS OFF) SELECT k FROM ty_timestamptz WHERE k < '2024-01-01'::timestamp;
EXPLAIN (COSTS OFF) SELECT k FROM ty_date WHERE k = ANY ('{2024-02-29,2000-01-01}'::timestamptz[]);
RESET enable_seqscan;
RESET enable_bitmapscan;

-- One key repeated over many pages, with a few neighbours.
CREATE TABLE dup (id serial, k int8);
INSERT INTO dup (k) SELECT 42 FROM generate_series(1, 5000);
INSERT INTO dup (k) SELECT i FROM generate_series(0, 100) i;
INSERT INTO dup (k) SELECT NULL FROM generate_series(1, 10);
CREATE INDEX dup_k ON dup USING learned (k);
VACUUM ANALYZE dup;
SELECT q, lcheck(q, m) FROM (VALUES
  ('SELECT id FROM dup WHERE k = 42', 'is,bis'),
  ('SELECT count(*) FROM dup WHERE k = 42', 'is,ios,bis'),
  ('SELECT count(*) FROM dup WHERE k = 42::int4', 'is,ios,bis'),
  ('SELECT count(*) FROM dup WHERE k > 41 AND k < 43', 'is,ios,bis'),
  ('SELECT count(*) FROM dup WHERE k >= 42 AND k <= 42', 'is,ios,bis'),
  ('SELECT k FROM dup WHERE k >= 42 ORDER BY k', 'is,ios'),
  ('SELECT k FROM dup WHERE k >= 42 ORDER BY k DESC', 'is,ios'),
  ('SELECT k FROM dup WHERE k > 42 ORDER BY k', 'is,ios'),
  ('SELECT k FROM dup WHERE k > 42 ORDER BY k DESC', 'is,ios'),
  ('SELECT k FROM dup WHERE k < 42 ORDER BY k DESC', 'is,ios'),
  ('SELECT k FROM dup WHERE k <= 42 ORDER BY k DESC LIMIT 5', 'is,ios'),
  ('SELECT k FROM dup WHERE k >= 42 ORDER BY k LIMIT 5', 'is,ios'),
  ('SELECT k FROM dup WHERE k > 41 ORDER BY k LIMIT 3', 'is,ios'),
  ('SELECT k FROM dup WHERE k < 43 ORDER BY k DESC LIMIT 3', 'is,ios'),
  ('SELECT k FROM dup WHERE k IN (41, 42, 43) ORDER BY k DESC', 'is,ios,bis'),
  ('SELECT k FROM dup ORDER BY k DESC', 'is,ios'),
  ('SELECT k FROM dup ORDER BY k ASC NULLS LAST LIMIT 5105', 'is,ios')
) v(q, m);

-- All keys equal; all keys NULL; no rows at all.
CREATE TABLE same (id serial, k int4);
INSERT INTO same (k) SELECT -7 FROM generate_series(1, 3000);
CREATE INDEX same_k ON same USING learned (k);
CREATE TABLE allnull (id serial, k float8);
INSERT INTO allnull (k) SELECT NULL FROM generate_series(1, 3000);
CREATE INDEX allnull_k ON allnull USING learned (k);
CREATE TABLE empty (id serial, k timestamptz);
CREATE INDEX empty_k ON empty USING learned (k);
VACUUM ANALYZE same, allnull, empty;
SELECT q, lcheck(q, m) FROM (VALUES
  ('SELECT count(*) FROM same WHERE k = -7', 'is,ios,bis'),
  ('SELECT count(*) FROM same WHERE k = -8', 'is,ios,bis'),
  ('SELECT count(*) FROM same WHERE k < -7', 'is,ios,bis'),
  ('SELECT count(*) FROM same WHERE k > -7', 'is,ios,bis'),
  ('SELECT count(*) FROM same WHERE k <= -7', 'is,ios,bis'),
  ('SELECT k FROM same ORDER BY k DESC LIMIT 2', 'is,ios'),
  ('SELECT count(*) FROM same WHERE k IS NULL', 'is,ios,bis'),
  ('SELECT count(*) FROM allnull WHERE k IS NULL', 'is,ios,bis'),
  ('SELECT count(*) FROM allnull WHERE k IS NOT NULL', 'is,ios,bis'),
  ('SELECT count(*) FROM allnull WHERE k = 0', 'is,ios,bis'),
  ('SELECT count(*) FROM allnull WHERE k < ''Infinity''', 'is,ios,bis'),
  ('SELECT k FROM allnull ORDER BY k LIMIT 2', 'is,ios'),
  ('SELECT count(*) FROM empty WHERE k = now()', 'is,ios,bis'),
  ('SELECT count(*) FROM empty WHERE k IS NULL', 'is,ios,bis'),
  ('SELECT k FROM empty ORDER BY k DESC', 'is,ios'),
  ('SELECT k FROM empty WHERE k > ''-infinity'' ORDER BY k', 'is,ios')
) v(q, m);
-- The empty index takes inserts.
INSERT INTO empty (k) VALUES ('2024-01-01 10:00+00'), (NULL), ('infinity');
SELECT lcheck('SELECT k FROM empty ORDER BY k', 'is,ios');
SELECT lcheck('SELECT k FROM empty WHERE k < ''2030-01-01'' ORDER BY k DESC', 'is,ios');
SELECT lcheck('SELECT id FROM empty WHERE k IS NULL', 'is,bis');

DROP TABLE ty_int2, ty_int4, ty_int8, ty_float4, ty_float8, ty_date,
    ty_timestamp, ty_timestamptz, ty_oid, dup, same, allnull, empty;
DROP FUNCTION ltype(text, text[], text[], text);
DROP FUNCTION lfull(text, text);
DROP FUNCTION lcastable(text, text);
