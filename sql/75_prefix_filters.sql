-- A sorted run's filter of a composite key also holds its keys' leading
-- columns (each prefix but the whole key, up to the first column whose type
-- does not map one to one: LearnedKeyPrefixValues), so a scan that fixes
-- leading columns by equality (an order's lines, w, d and o equal on
-- (w, d, o, n)) skips the runs that hold none of its keys.  Its answers are
-- a sequential scan's through every path, for leading columns present in
-- the runs and absent from them, with cross-type values, IN lists and a
-- range on the last column; a range on a leading column, or a leading
-- column bounded by two conditions instead of one equality, probes only the
-- columns before it.
SET learned_idx.auto_merge = off;
SET learned_idx.tail_limit = 200;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- the ON CONFLICT warning of a unique learned index differs across majors
SET client_min_messages = error;

\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

-- orders 1 to 60 of every (w, d) at build, then orders 61 to 300 of
-- districts 1 to 5 only, in statements of 400 rows: several runs, none of
-- which holds a district above 5
CREATE TABLE pf (w int4, d int4, o int4, pad int4) WITH (autovacuum_enabled = off);
INSERT INTO pf SELECT w, d, o, 0 FROM generate_series(1, 4) w, generate_series(1, 10) d,
  generate_series(1, 60) o;
CREATE UNIQUE INDEX pf_wdo ON pf USING learned (w, d, o);
DO $$
BEGIN
  FOR b IN 0..11 LOOP
    INSERT INTO pf SELECT w, d, o, 1 FROM generate_series(61 + 20 * b, 80 + 20 * b) o,
      generate_series(1, 4) w, generate_series(1, 5) d;
  END LOOP;
END $$;
SELECT count(*) >= 3 AS runs, sum(entries) FILTER (WHERE run IS NOT NULL) >= 4000 AS in_runs
FROM learned_index_runs('pf_wdo');

-- leading columns present in the runs and in the static stage
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 2 AND d = 3 ORDER BY o', 'is,ios,bis');
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 2 AND d = 3 ORDER BY o DESC', 'is,ios');
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 2 AND d = 3 AND o BETWEEN 55 AND 65 ORDER BY o', 'is,ios,bis');
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 4 AND d = 5 AND o > 290 ORDER BY o', 'is,ios,bis');
-- absent from every run: the static stage's keys only
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 2 AND d = 7 ORDER BY o', 'is,ios,bis');
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 1 AND d = 10 AND o >= 59 ORDER BY o DESC', 'is,ios');
-- absent from both
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 5 AND d = 1', 'is,ios,bis');
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 2 AND d = 11', 'is,ios,bis');
-- values of other integer types, and IN lists (one interval per value)
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 2::int8 AND d = 3::int2 AND o < 70 ORDER BY o', 'is,ios,bis');
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 3 AND d IN (2, 6, 5, 9) ORDER BY d, o', 'is,ios,bis');
SELECT lcheck('SELECT w, d, o FROM pf WHERE w IN (1, 4) AND d = 4 AND o IN (1, 60, 61, 300, 301)', 'is,ios,bis');
-- a range on a leading column: only the columns before it are probed (every
-- run holds w = 2), or none when it is the first
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 2 AND d BETWEEN 5 AND 6 AND o > 58 ORDER BY d, o', 'is,ios,bis');
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 2 AND d >= 7 AND d <= 7 ORDER BY o', 'is,ios,bis');
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 2 ORDER BY d, o', 'is,ios,bis');

-- the runs' filters rule out a district they do not hold: the scan reads
-- fewer blocks than the same rows bounded by two conditions on d, which
-- fix only w (every run holds w = 2) and search every run's pages
SELECT query_blocks('SELECT * FROM pf WHERE w = 2 AND d = 7') AS eq_blocks \gset
SELECT query_blocks('SELECT * FROM pf WHERE w = 2 AND d >= 7 AND d <= 7') AS range_blocks \gset
SELECT :eq_blocks < :range_blocks AS runs_ruled_out;
-- a district the runs hold is searched in them
SELECT count(*) FROM pf WHERE w = 2 AND d = 3;

-- unique checks and new keys, a compaction of the runs, then the same
INSERT INTO pf VALUES (2, 7, 61, 2);
INSERT INTO pf VALUES (2, 7, 61, 2);
INSERT INTO pf SELECT w, 8, o, 3 FROM generate_series(61, 200) o, generate_series(1, 4) w;
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 2 AND d = 7 ORDER BY o', 'is,ios,bis');
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 3 AND d = 8 AND o BETWEEN 59 AND 62 ORDER BY o', 'is,ios,bis');
SELECT lcheck('SELECT w, d, o FROM pf WHERE w = 3 AND d = 9 ORDER BY o DESC', 'is,ios');
SELECT learned_index_check('pf_wdo', true);

-- a leading column that is NULL, or of a type that does not map one to one
-- (text), ends the prefixes a run holds: a scan probes the longest one
-- before it (a = 0 is in no run), or reads every run
CREATE TABLE pn (a int4, b text, c int4) WITH (autovacuum_enabled = off);
INSERT INTO pn SELECT a % 5, 'b' || (a % 7), a FROM generate_series(1, 2000) a;
CREATE INDEX pn_abc ON pn USING learned (a, b COLLATE "C", c);
INSERT INTO pn SELECT NULLIF(a % 5, 0), 'b' || (a % 3), a FROM generate_series(2001, 4000) a;
SELECT lcheck('SELECT a, b, c FROM pn WHERE a = 2 AND b = ''b1'' ORDER BY c', 'is,ios,bis');
SELECT lcheck('SELECT a, b, c FROM pn WHERE a IS NULL AND b = ''b2'' ORDER BY c', 'is,ios,bis');
SELECT lcheck('SELECT a, b, c FROM pn WHERE a = 3 AND b = ''b5'' AND c > 1000 ORDER BY c', 'is,ios,bis');
SELECT lcheck('SELECT a, b, c FROM pn WHERE a = 0 AND b = ''b3'' ORDER BY c', 'is,ios,bis');
SELECT lcheck('SELECT a, b, c FROM pn WHERE a = 0 AND b > ''b5'' ORDER BY b, c DESC', 'is,ios');
SELECT query_blocks('SELECT * FROM pn WHERE a = 0 AND b = ''b3''') AS eq_blocks \gset
SELECT query_blocks('SELECT * FROM pn WHERE a >= 0 AND a <= 0 AND b = ''b3''') AS range_blocks \gset
SELECT :eq_blocks < :range_blocks AS runs_ruled_out;
SELECT learned_index_check('pn_abc', true);

-- a leading column with a value for each key: as many prefix values as
-- keys in every run; lookups by it find the runs' keys and skip the others
CREATE TABLE pu (a int4, b int4) WITH (autovacuum_enabled = off);
INSERT INTO pu SELECT a, a % 3 FROM generate_series(1, 3000, 3) a;
CREATE INDEX pu_ab ON pu USING learned (a, b);
INSERT INTO pu SELECT a, a % 3 FROM generate_series(2, 3000, 3) a;
INSERT INTO pu SELECT a, a % 3 FROM generate_series(3, 3000, 3) a;
SELECT count(*) >= 2 AS runs FROM learned_index_runs('pu_ab') WHERE run IS NOT NULL;
SELECT count(*) AS found FROM generate_series(1, 3000) g, LATERAL (SELECT 1 FROM pu WHERE a = g) x;
SELECT lcheck('SELECT a, b FROM pu WHERE a IN (1, 2, 3, 1499, 1500, 1501, 2998, 2999, 3000, 3001)', 'is,ios,bis');
SELECT lcheck('SELECT a, b FROM pu WHERE a = 2000 AND b >= 0 ORDER BY b DESC', 'is,ios');
SELECT learned_index_check('pu_ab', true);

-- an integer column before a text one under a libc collation: the whole
-- key's filter value is never probed (collated images), the leading
-- column's is (an exact column's own image)
CREATE COLLATION pf_en (provider = libc, locale = 'en_US.utf8');
CREATE TABLE pc (w int4, s text COLLATE pf_en, n int4) WITH (autovacuum_enabled = off);
INSERT INTO pc SELECT w, 'k' || o, o FROM generate_series(1, 4) w, generate_series(1, 300) o;
CREATE INDEX pc_wsn ON pc USING learned (w, s, n);
INSERT INTO pc SELECT w, 'z' || o, o FROM generate_series(1, 2) w, generate_series(1, 600) o;
SELECT lcheck('SELECT w, s, n FROM pc WHERE w = 3 AND s = ''k150''', 'is,ios,bis');
SELECT lcheck('SELECT w, s, n FROM pc WHERE w = 2 AND s = ''z150''', 'is,ios,bis');
SELECT lcheck('SELECT w, s, n FROM pc WHERE w = 4 AND s > ''k9'' ORDER BY s', 'is,ios');
-- w = 5 is in no run and not in the static stage: the two scans differ in
-- the runs only
SELECT query_blocks('SELECT * FROM pc WHERE w = 5 AND s = ''k150''') AS eq_blocks \gset
SELECT query_blocks('SELECT * FROM pc WHERE w >= 5 AND w <= 5 AND s = ''k150''') AS range_blocks \gset
SELECT :eq_blocks < :range_blocks AS runs_ruled_out;
SELECT learned_index_check('pc_wsn', true);

DROP TABLE pf, pn, pu, pc;
DROP COLLATION pf_en;
