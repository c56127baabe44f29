-- 74_run_compaction
--
-- A compaction merges four sorted runs instead of sorting their entries
-- again (run.c, order_stretch), and a positioning on a plain or stride
-- page starts from the window's slots or gallops from the last boundary
-- (scan.c, page_boundary).  Composite keys whose runs overlap: duplicates
-- in several runs, NULL columns, keys past the key map's range, DESC
-- columns; after each flush and compaction every query answers as a
-- sequential scan, learned_index_check verifies each run's order, and a
-- unique index finds duplicates of static and pending keys among rows
-- that a multi-row INSERT checks in ascending order.
SET learned_idx.auto_merge = off;
SET learned_idx.tail_limit = 150;
SET extra_float_digits = 0;
-- before 18, CREATE UNIQUE INDEX warns about ON CONFLICT (30_unique shows it)
SET client_min_messages = error;

-- paths_same(): q through each access path against a sequential scan (sql/include/samepaths.sql)
\set ECHO none
\i sql/include/samepaths.sql
\set ECHO all

CREATE FUNCTION rm_bad() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	q text;
	bad int := 0;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		'SELECT a, b, v FROM rm WHERE a = 3 ORDER BY a, b DESC, v',
		'SELECT a, b, v FROM rm WHERE a = 3 AND b = 41 ORDER BY v',
		'SELECT a, b, v FROM rm WHERE a = 9 AND b BETWEEN 10 AND 90 ORDER BY a, b DESC, v',
		'SELECT a, b, v FROM rm WHERE a IS NULL ORDER BY v',
		'SELECT a, b, v FROM rm WHERE a = 5 AND b IS NULL ORDER BY v',
		'SELECT a, b, v FROM rm WHERE a > 14 ORDER BY a, b DESC, v',
		'SELECT a, b, v FROM rm WHERE a >= 2 AND a < 4 AND b > 150 ORDER BY a, b DESC, v',
		'SELECT count(*), sum(v) FROM rm WHERE a >= 0']
	LOOP
		IF NOT paths_same(q) THEN
			bad := bad + 1;
		END IF;
	END LOOP;
	RETURN bad;
END $$;

-- the static stage: a in 0..9, b in 0..199
CREATE TABLE rm (a int4, b int4, v int);
INSERT INTO rm SELECT i % 10, (i * 37) % 200, i FROM generate_series(1, 2000) i;
CREATE INDEX rm_ab ON rm USING learned (a, b DESC);

-- rounds of 160 rows spread over every key: each flush's run overlaps the
-- others, every round repeats keys of earlier rounds, and a third of the
-- rows lie past the key map's planned range of a (0..9 and half again)
CREATE FUNCTION rm_round(r int) RETURNS void LANGUAGE sql AS $$
	INSERT INTO rm
	SELECT CASE WHEN g % 23 = 0 THEN NULL ELSE (g * 7 + r) % 20 END,
		   CASE WHEN g % 31 = 0 THEN NULL ELSE (g * 13 + r * 5) % 200 END,
		   10000 * r + g
	FROM generate_series(1, 160) g
$$;
-- a round at a time, the answers checked after each: flushes, then
-- compactions of four runs of a tier into one of the next, tier over tier
CREATE TABLE rm_log (r int, tiers text, bad int);
DO $$ BEGIN
	FOR r IN 1..60 LOOP
		PERFORM rm_round(r);
		INSERT INTO rm_log
		SELECT r, string_agg(tier::text, ',' ORDER BY run), rm_bad()
		FROM learned_index_runs('rm_ab') WHERE run IS NOT NULL;
	END LOOP;
END $$;
SELECT count(DISTINCT tiers) > 8 AS many_states,
	   bool_or(tiers LIKE '%1%') AS compacted,
	   bool_or(tiers LIKE '%2%') AS compacted_twice,
	   sum(bad) AS differing
FROM rm_log;
SELECT learned_index_check('rm_ab', true);
SELECT learned_index_merge('rm_ab') > 0 AS merged;
SELECT rm_bad() AS differing_merged;

-- A unique composite index, each order's lines inserted in one INSERT in
-- ascending line order (each row's check positions at or just after the
-- last one's boundary), orders past the static stage's and inside it
CREATE TABLE ru (w int4, o int4, n int4);
INSERT INTO ru SELECT w, o, n FROM generate_series(1, 3) w, generate_series(1, 300) o,
	generate_series(1, 10) n WHERE o % 3 <> 0;
CREATE UNIQUE INDEX ru_won ON ru USING learned (w, o, n) WITH (compression = off);
CREATE FUNCTION ru_order(w int, o int) RETURNS void LANGUAGE sql AS $$
	INSERT INTO ru SELECT w, o, n FROM generate_series(1, 10) n
$$;
-- new orders between static ones, and past them, flushed into runs
DO $$ BEGIN
	FOR o IN 3..300 BY 3 LOOP PERFORM ru_order(1 + o % 3, o); END LOOP;
	FOR o IN 301..330 LOOP PERFORM ru_order(2, o); END LOOP;
END $$;
SELECT count(*) > 0 AS has_runs FROM learned_index_runs('ru_won') WHERE run IS NOT NULL;
-- the last line of a static order, of an order in a run, and past both
INSERT INTO ru VALUES (2, 299, 11), (2, 299, 10);
INSERT INTO ru SELECT 2, 317, n FROM generate_series(8, 12) n;
INSERT INTO ru VALUES (3, 4, 10), (3, 4, 9);
INSERT INTO ru SELECT 3, 301, n FROM generate_series(1, 10) n;
SELECT count(*) AS rows, count(DISTINCT (w, o, n)) AS distinct_keys FROM ru;
SELECT learned_index_check('ru_won', true);

-- Four runs that together hold more entries than one run of record pages
-- can (491 pages of about 509 int8 records) compact all the same: packed
-- pages hold over three times as many, and the merged run takes no more
-- pages than the four.  (Capped by entries, such runs would stay apart
-- until the run table filled, and a full run table forces the main merge.)
SET learned_idx.tail_limit = 70000;
CREATE TABLE rw (k int8);
INSERT INTO rw SELECT 10 * i FROM generate_series(1, 20000) i;
CREATE INDEX rw_k ON rw USING learned (k);
INSERT INTO rw SELECT 10 * (hashint4(g) & 1048575) + 1 + g % 9
FROM generate_series(1, 300000) g;
SELECT count(*) FILTER (WHERE tier = 1) AS tier1_runs,
	   max(entries) > 491 * 509 AS past_record_cap,
	   sum(pages) FILTER (WHERE tier = 1) <= 491 AS fits_one_run
FROM learned_index_runs('rw_k') WHERE run IS NOT NULL;
SELECT paths_same('SELECT count(*), sum(k) FROM rw WHERE k BETWEEN 1000 AND 5000000') AS range_same,
	   paths_same('SELECT k FROM rw WHERE k IN (10, 4711, 200000, 2345679, 9999999) ORDER BY k') AS points_same;
SELECT learned_index_check('rw_k', true);
RESET learned_idx.tail_limit;

DROP FUNCTION ru_order(int, int);
DROP FUNCTION rm_round(int);
DROP FUNCTION rm_bad();
DROP TABLE rm, rm_log, ru, rw;
