-- A sorted run's filter tells composite keys apart even where their images
-- do not: keys past the key map's planned range (orders appended after a
-- district's last planned o) share one image per prefix, and keys of a
-- divided last column share images too.  The filter hashes their column
-- values then (LearnedKeyFilterValue), so a lookup of an absent key is
-- ruled out by every run's filter, as an in-range one is; a lookup or a
-- unique check of a present key still finds it, with parameters of the
-- columns' types or of other integer types.
SET learned_idx.auto_merge = off;
SET learned_idx.tail_limit = 200;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- the ON CONFLICT warning of a unique learned index differs across majors
SET client_min_messages = error;

\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

-- odd orders 1 to 999 at build (the plan leaves room to about 1500), then
-- odd orders 1001 to 2999 into runs: most of them past the plan
CREATE TABLE rf (w int4, o int4, pad int4) WITH (autovacuum_enabled = off);
INSERT INTO rf SELECT w, o, 0 FROM generate_series(1, 4) w, generate_series(1, 999, 2) o;
CREATE UNIQUE INDEX rf_wo ON rf USING learned (w, o);
INSERT INTO rf SELECT w, o, 1 FROM generate_series(1001, 2999, 2) o, generate_series(1, 4) w;
SELECT count(*) >= 2 AS runs, sum(entries) FILTER (WHERE run IS NOT NULL) >= 3000 AS in_runs
FROM learned_index_runs('rf_wo');

-- present keys past the plan, through every path; ranges across it
SELECT lcheck('SELECT w, o FROM rf WHERE w = 2 AND o = 2001', 'is,ios,bis');
SELECT lcheck('SELECT w, o FROM rf WHERE w = 3 AND o = 2999', 'is,ios,bis');
SELECT lcheck('SELECT w, o FROM rf WHERE w = 2 AND o = 2001::int8', 'is,ios,bis');
SELECT lcheck('SELECT w, o FROM rf WHERE w = 4::int2 AND o = 1501::int8', 'is,ios,bis');
SELECT lcheck('SELECT w, o FROM rf WHERE w = 1 AND o IN (999, 1001, 1999, 2000, 2999)', 'is,ios,bis');
SELECT lcheck('SELECT w, o FROM rf WHERE w = 2 AND o BETWEEN 1480 AND 1530 ORDER BY o', 'is,ios,bis');
SELECT lcheck('SELECT w, o FROM rf WHERE w = 2 AND o > 2990 ORDER BY o DESC', 'is,ios,bis');
SELECT count(*) FROM rf WHERE w = 2 AND o = 2000;

-- an absent key past the plan reads no more than an absent key inside it:
-- every run's filter rules both out (without the filter values, each run's
-- filter admitted the shared image and its pages were searched)
SELECT query_blocks('SELECT * FROM rf WHERE w = 2 AND o = 500') AS inside_hits \gset
SELECT query_blocks('SELECT * FROM rf WHERE w = 2 AND o = 2000') AS past_hits \gset
SELECT query_blocks('SELECT * FROM rf WHERE w = 2 AND o = 2001') AS present_hits \gset
SELECT :past_hits <= :inside_hits AS past_plan_ruled_out,
       :present_hits > :past_hits AS present_key_searched;

-- unique checks: a duplicate past the plan is caught, new keys go in
INSERT INTO rf VALUES (2, 2001, 9);
INSERT INTO rf VALUES (2, 2999::int8, 9);
INSERT INTO rf VALUES (2, 2000, 9), (2, 3000, 9);
SELECT lcheck('SELECT w, o, pad FROM rf WHERE w = 2 AND o >= 1998 ORDER BY o', 'is,bis');
SELECT learned_index_check('rf_wo', true);

-- a divided last column: two int8 columns whose ranges need more than 64
-- bits, so that neighbouring values of b share an image
CREATE TABLE rd (a int8, b int8) WITH (autovacuum_enabled = off);
INSERT INTO rd SELECT a * 1000000000000, b * 1000003 FROM generate_series(1, 40) a, generate_series(1, 50) b;
CREATE INDEX rd_ab ON rd USING learned (a, b);
INSERT INTO rd SELECT a * 1000000000000, b * 1000003 + 1 FROM generate_series(1, 40) a, generate_series(1, 50) b;
SELECT lcheck('SELECT a, b FROM rd WHERE a = 7000000000000 AND b = 25000076', 'is,ios,bis');
SELECT lcheck('SELECT a, b FROM rd WHERE a = 7000000000000 AND b = 25000075', 'is,ios,bis');
SELECT lcheck('SELECT a, b FROM rd WHERE a = 7000000000000 AND b = 25000077', 'is,ios,bis');
SELECT lcheck('SELECT a, b FROM rd WHERE a = 39000000000000 AND b BETWEEN 1000000 AND 5000000 ORDER BY b', 'is,ios,bis');
SELECT learned_index_check('rd_ab', true);

-- a text column keeps its images (shared ones admit every key of them)
CREATE TABLE rt (w int4, s text) WITH (autovacuum_enabled = off);
INSERT INTO rt SELECT w, 'k' || o FROM generate_series(1, 3) w, generate_series(1, 300) o;
CREATE INDEX rt_ws ON rt USING learned (w, s COLLATE "C");
INSERT INTO rt SELECT w, 'z' || o FROM generate_series(1, 3) w, generate_series(1, 900) o;
SELECT lcheck('SELECT w, s FROM rt WHERE w = 2 AND s = ''z450''', 'is,ios,bis');
SELECT lcheck('SELECT w, s FROM rt WHERE w = 2 AND s = ''z4500''', 'is,ios,bis');
SELECT learned_index_check('rt_ws', true);

DROP TABLE rf, rd, rt;

-- runs with filter pages of their own: the backend keeps a copy of a
-- filter page from its second probe on, beside its copy of the run's
-- header, so later statements probe the copy.  Lookups one statement each
-- (PL/pgSQL), of present and absent keys, count what they find, before
-- and after the runs are compacted (other runs: other copies) and after a
-- REINDEX (another relfilenode); the copies stay within their bound.
CREATE TABLE rp (w int4, o int4) WITH (autovacuum_enabled = off);
INSERT INTO rp SELECT w, o FROM generate_series(1, 4) w, generate_series(1, 999, 2) o;
CREATE UNIQUE INDEX rp_wo ON rp USING learned (w, o);
SET learned_idx.tail_limit = 20000;
INSERT INTO rp SELECT w, o FROM generate_series(1001, 40999, 2) o, generate_series(1, 4) w;
SELECT max(filter_pages) > 1 AS filter_pages FROM learned_index_runs('rp_wo');
CREATE FUNCTION rp_probe(n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE found int := 0; absent int := 0; c int; i int;
BEGIN
  FOR i IN 1..n LOOP
    SELECT count(*) INTO c FROM rp WHERE w = 1 + i % 4 AND o = 1001 + 2 * ((i * 7919) % 20000);
    found := found + c;
    SELECT count(*) INTO c FROM rp WHERE w = 1 + i % 4 AND o = 1002 + 2 * ((i * 7919) % 20000);
    absent := absent + c;
  END LOOP;
  RETURN format('found %s of %s, absent found %s', found, n, absent);
END $$;
SELECT rp_probe(3000);
SELECT pg_size_pretty(total_bytes) IS NOT NULL AS kept,
       total_bytes <= 600 * 1024 AS within_bound
FROM pg_backend_memory_contexts WHERE name = 'learned run headers';
INSERT INTO rp SELECT w, o FROM generate_series(41001, 60999, 2) o, generate_series(1, 4) w;
SELECT rp_probe(3000);
-- a unique check probes the same copies
INSERT INTO rp VALUES (3, 1203);
INSERT INTO rp VALUES (3, 1204);
SELECT count(*) FROM rp WHERE w = 3 AND o BETWEEN 1201 AND 1205;
REINDEX INDEX rp_wo;
INSERT INTO rp SELECT w, o FROM generate_series(61001, 80999, 2) o, generate_series(1, 4) w;
SELECT rp_probe(3000);
SELECT learned_index_check('rp_wo', true);
RESET learned_idx.tail_limit;
DROP FUNCTION rp_probe(int);
DROP TABLE rp;
