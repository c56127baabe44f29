-- Packed run data pages: a sorted run's data pages of a by-value key of 1
-- to 8 bytes hold frame-of-reference bit-packed keys and TIDs (learned.h,
-- LearnedPackedHeader).  Keys that stress the packing: INT8's extremes and
-- both signs on one page (a 64-bit key field), float8 NaN, infinities and
-- -0.0, int2, int4, date, timestamp, bool, duplicates, NULLs, deleted rows
-- and VACUUM.  Every answer is compared with a sequential scan (lcheck),
-- and learned_index_check validates every packed page.
SET learned_idx.auto_merge = off;
SET learned_idx.tail_limit = 1000;
SET extra_float_digits = 0;

\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

-- every key's point lookup, ranges both ways, NULLs, the whole order; e
-- is what ordered queries return (float8's -0.0 and 0.0 tie: 'k + 0')
CREATE FUNCTION pk_all(t text, e text DEFAULT 'k') RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	q text;
	r text;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		'SELECT ' || e || ' FROM ' || t || ' ORDER BY k',
		'SELECT ' || e || ' FROM ' || t || ' ORDER BY k DESC',
		'SELECT count(*) FROM ' || t || ' WHERE k IS NULL',
		'SELECT k, v FROM ' || t || ' WHERE k IS NOT NULL',
		'SELECT ' || e || ' FROM ' || t || ' WHERE k > (SELECT percentile_disc(0.3) WITHIN GROUP (ORDER BY k) FROM ' || t || ') ORDER BY k',
		'SELECT ' || e || ' FROM ' || t || ' WHERE k < (SELECT percentile_disc(0.6) WITHIN GROUP (ORDER BY k) FROM ' || t || ') ORDER BY k DESC',
		'SELECT ' || e || ' FROM ' || t || ' WHERE k >= (SELECT k FROM ' || t || ' WHERE k IS NOT NULL ORDER BY k LIMIT 1) AND k <= (SELECT k FROM ' || t || ' WHERE k IS NOT NULL ORDER BY k DESC LIMIT 1) ORDER BY k']
	LOOP
		r := lcheck(q, 'is,ios,bis');
		IF r ~ 'WRONG' THEN
			RETURN NEXT q || ': ' || r;
		END IF;
	END LOOP;
	-- each distinct key found by an index lookup as often as it is stored
	PERFORM lcheck_set('off', 'on', 'off', 'off');
	EXECUTE 'SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (SELECT d.k, (SELECT count(*) FROM ' ||
		t || ' t2 WHERE t2.k = d.k) FROM (SELECT DISTINCT k FROM ' || t ||
		' WHERE k IS NOT NULL) d) x' INTO r;
	PERFORM lcheck_set('on', 'off', 'off', 'off');
	EXECUTE 'SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (SELECT k, count(*) FROM ' ||
		t || ' WHERE k IS NOT NULL GROUP BY k) x' INTO q;
	PERFORM lcheck_set('on', 'on', 'on', 'on');
	IF r IS DISTINCT FROM q THEN
		RETURN NEXT 'point lookups differ in ' || t;
	END IF;
	RETURN NEXT 'ok';
END $$;

-- int8: INT8's extremes, -1, 0, 1 and both signs on the same run page
CREATE TABLE p8 (k int8, v int);
INSERT INTO p8 SELECT (i * 7919) % 10007, i FROM generate_series(1, 3000) i;
CREATE INDEX p8_k ON p8 USING learned (k);
INSERT INTO p8 SELECT CASE i % 9
	WHEN 0 THEN -9223372036854775808 WHEN 1 THEN 9223372036854775807
	WHEN 2 THEN -1 WHEN 3 THEN 0 WHEN 4 THEN 1 WHEN 5 THEN NULL
	WHEN 6 THEN -((i * 7919) % 10007)::int8 * 1000000007
	ELSE (i * 7919) % 10007 END, i
	FROM generate_series(1, 4000) i;
-- 64-bit key fields: about 730 entries a page (a record page holds 509)
SELECT run, tier, pages, entries, null_entries FROM learned_index_runs('p8_k');
SELECT pk_all('p8');
SELECT lcheck('SELECT k FROM p8 WHERE k = -9223372036854775808', 'is,ios,bis'),
	lcheck('SELECT k FROM p8 WHERE k = 9223372036854775807', 'is,ios,bis'),
	lcheck('SELECT k FROM p8 WHERE k < 0 ORDER BY k DESC LIMIT 5', 'is,ios'),
	lcheck('SELECT k FROM p8 WHERE k > 9223372036854775806', 'is,ios,bis');
SELECT learned_index_check('p8_k', true);

-- deleted rows: VACUUM marks them dead (run pages it replaced included)
-- and merges; the heap's freed slots take new rows, which must not be
-- found under the deleted rows' keys
DELETE FROM p8 WHERE v % 5 = 2;
SELECT pk_all('p8');
VACUUM p8;
INSERT INTO p8 SELECT (i * 104729) % 10009 - 5000, -i FROM generate_series(1, 2500) i;
INSERT INTO p8 VALUES (-9223372036854775808, 0), (9223372036854775807, 0), (NULL, 0);
SELECT count(*) > 0 AS runs_again FROM learned_index_runs('p8_k') WHERE run IS NOT NULL;
SELECT pk_all('p8');
SELECT learned_index_check('p8_k', true);
-- deleted rows in runs, seen by scans before VACUUM
DELETE FROM p8 WHERE v % 3 = 0;
SELECT pk_all('p8');
SELECT learned_index_check('p8_k', true);
DROP TABLE p8;

-- keys within 100,007 (17-bit fields): a page holds up to 2,048 entries
CREATE TABLE pn (k int8, v int);
INSERT INTO pn SELECT (i * 7919) % 10007, i FROM generate_series(1, 3000) i;
CREATE INDEX pn_k ON pn USING learned (k);
INSERT INTO pn SELECT (i * 7919) % 100007, i FROM generate_series(1, 12000) i;
SELECT run, tier, pages, entries, null_entries FROM learned_index_runs('pn_k');
SELECT pk_all('pn');
SELECT learned_index_check('pn_k', true);
DROP TABLE pn;

-- float8: NaN, the infinities, -0.0 (equal to 0.0), tiny and huge values
CREATE TABLE pf (k float8, v int);
INSERT INTO pf SELECT (i % 997) / 7.0, i FROM generate_series(1, 2000) i;
CREATE INDEX pf_k ON pf USING learned (k);
INSERT INTO pf SELECT CASE i % 12
	WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity'
	WHEN 3 THEN '-0'::float8 WHEN 4 THEN 0 WHEN 5 THEN NULL
	WHEN 6 THEN 1e-300 * i WHEN 7 THEN -1e300 / i
	ELSE -((i % 1009) / 3.0) END, i
	FROM generate_series(1, 3000) i;
SELECT count(*) > 0 AS has_runs FROM learned_index_runs('pf_k') WHERE run IS NOT NULL;
SELECT pk_all('pf', 'k + 0');
SELECT lcheck('SELECT k FROM pf WHERE k = ''NaN''', 'is,ios,bis'),
	lcheck('SELECT v FROM pf WHERE k = 0', 'is,bis'),
	lcheck('SELECT v FROM pf WHERE k = ''-0''', 'is,bis'),
	lcheck('SELECT k FROM pf WHERE k > 1e300 ORDER BY k', 'is,ios'),
	lcheck('SELECT k FROM pf WHERE k < -1e299 ORDER BY k DESC', 'is,ios');
SELECT learned_index_check('pf_k', true);
DROP TABLE pf;

-- int2, int4 (both signs, their extremes), date, timestamp, bool
CREATE TABLE p2 (k int2, v int);
INSERT INTO p2 SELECT (i % 200) - 100, i FROM generate_series(1, 1000) i;
CREATE INDEX p2_k ON p2 USING learned (k);
INSERT INTO p2 SELECT CASE i % 7 WHEN 0 THEN -32768 WHEN 1 THEN 32767 WHEN 2 THEN NULL
	ELSE ((i * 31) % 65536) - 32768 END, i FROM generate_series(1, 3000) i;
SELECT count(*) > 0 AS has_runs FROM learned_index_runs('p2_k') WHERE run IS NOT NULL;
SELECT pk_all('p2');
SELECT learned_index_check('p2_k', true);

CREATE TABLE p4 (k int4, v int);
INSERT INTO p4 SELECT i, i FROM generate_series(1, 1000) i;
CREATE INDEX p4_k ON p4 USING learned (k);
INSERT INTO p4 SELECT CASE i % 6 WHEN 0 THEN -2147483648 WHEN 1 THEN 2147483647
	WHEN 2 THEN NULL ELSE (i * 2654435761::int8 % 4294967296 - 2147483648)::int4 END, i
	FROM generate_series(1, 3000) i;
SELECT count(*) > 0 AS has_runs FROM learned_index_runs('p4_k') WHERE run IS NOT NULL;
SELECT pk_all('p4');
SELECT learned_index_check('p4_k', true);

CREATE TABLE pd (k date, v int);
INSERT INTO pd SELECT date '2000-01-01' + i, i FROM generate_series(1, 1000) i;
CREATE INDEX pd_k ON pd USING learned (k);
INSERT INTO pd SELECT CASE i % 8 WHEN 0 THEN date '4713-01-01 BC' WHEN 1 THEN NULL
	WHEN 2 THEN date '2000-01-01' + 17 ELSE date '1900-01-01' + (i * 37) % 100000 END, i
	FROM generate_series(1, 3000) i;
SELECT count(*) > 0 AS has_runs FROM learned_index_runs('pd_k') WHERE run IS NOT NULL;
SELECT pk_all('pd');
SELECT learned_index_check('pd_k', true);

CREATE TABLE pt (k timestamp, v int);
INSERT INTO pt SELECT timestamp '2020-01-01' + i * interval '1 minute', i FROM generate_series(1, 1000) i;
CREATE INDEX pt_k ON pt USING learned (k);
INSERT INTO pt SELECT CASE i % 9 WHEN 0 THEN timestamp '4713-01-01 00:00 BC' WHEN 1 THEN NULL
	WHEN 2 THEN timestamp '294276-12-31 23:59:59' WHEN 3 THEN timestamp '1960-01-01'
	ELSE timestamp '2020-01-01' + (i * 7919 % 100000) * interval '1 second' END, i
	FROM generate_series(1, 3000) i;
SELECT count(*) > 0 AS has_runs FROM learned_index_runs('pt_k') WHERE run IS NOT NULL;
SELECT pk_all('pt');
SELECT learned_index_check('pt_k', true);

CREATE TABLE pb (k bool, v int);
INSERT INTO pb SELECT i % 2 = 0, i FROM generate_series(1, 1000) i;
CREATE INDEX pb_k ON pb USING learned (k);
INSERT INTO pb SELECT CASE i % 5 WHEN 0 THEN NULL ELSE i % 3 = 0 END, i FROM generate_series(1, 3000) i;
SELECT count(*) > 0 AS has_runs FROM learned_index_runs('pb_k') WHERE run IS NOT NULL;
SELECT pk_all('pb');
SELECT learned_index_check('pb_k', true);

-- a merge folds the packed runs into the static stage
SELECT learned_index_merge('p4_k') > 0 AS merged;
SELECT count(*) AS runs_left FROM learned_index_runs('p4_k') WHERE run IS NOT NULL;
SELECT pk_all('p4');
SELECT learned_index_check('p4_k', true);
DROP TABLE p2, p4, pd, pt, pb;
DROP FUNCTION pk_all(text, text);
