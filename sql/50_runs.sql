-- Sorted runs of the pending list: a small learned_idx.tail_limit makes
-- inserts flush the tail into runs, four runs of a tier compact into one of
-- the next, and a merge folds them into the static stage.  At each stage
-- every query answers as a sequential scan does, through an index scan
-- (both directions), an index-only scan and a bitmap scan.
SET learned_idx.auto_merge = off;
SET learned_idx.tail_limit = 200;
SET extra_float_digits = 0;

-- paths_same(): q through each access path against a sequential scan (sql/include/samepaths.sql)
\set ECHO none
\i sql/include/samepaths.sql
\set ECHO all

CREATE FUNCTION runs_check_all(t text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	q text;
	ok boolean := true;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		'SELECT k FROM ' || t || ' WHERE k = 4242 ORDER BY k',
		'SELECT k FROM ' || t || ' WHERE k = 77 ORDER BY k',
		'SELECT k FROM ' || t || ' WHERE k BETWEEN 1000 AND 1400 ORDER BY k',
		'SELECT k FROM ' || t || ' WHERE k BETWEEN 1000 AND 1400 ORDER BY k DESC',
		'SELECT k FROM ' || t || ' WHERE k > 9000 ORDER BY k DESC LIMIT 7',
		'SELECT k FROM ' || t || ' WHERE k < 300 ORDER BY k LIMIT 9',
		'SELECT k FROM ' || t || ' WHERE k IN (5, 500, 5000, 50000) ORDER BY k',
		'SELECT count(*) FROM ' || t || ' WHERE k IS NULL',
		'SELECT k FROM ' || t || ' ORDER BY k NULLS FIRST LIMIT 20',
		'SELECT k FROM ' || t || ' ORDER BY k DESC LIMIT 20',
		'SELECT count(*), sum(k) FROM ' || t || ' WHERE k >= 0']
	LOOP
		IF NOT paths_same(q) THEN
			ok := false;
		END IF;
	END LOOP;
	RETURN ok;
END $$;

CREATE TABLE rt (k int8, v int);
INSERT INTO rt SELECT (i * 7919) % 10007, i FROM generate_series(1, 5000) i;
CREATE INDEX rt_k ON rt USING learned (k);
SELECT runs_check_all('rt') AS built;

-- 600 inserts: one flush (complete pages only) and a short tail
INSERT INTO rt SELECT (i * 7919) % 10007, i FROM generate_series(5001, 5600) i;
INSERT INTO rt VALUES (NULL, -1), (4242, -2), (4242, -3), (NULL, -4);
SELECT run, tier, pages, entries, null_entries, dead_entries FROM learned_index_runs('rt_k');
SELECT runs_check_all('rt') AS one_run;

-- more: four runs of tier 0 compact into one of tier 1
INSERT INTO rt SELECT (i * 7919) % 10007, i FROM generate_series(5601, 7800) i;
INSERT INTO rt VALUES (NULL, -5), (77, -6);
SELECT run, tier, pages, entries, null_entries, dead_entries FROM learned_index_runs('rt_k');
SELECT runs_check_all('rt') AS compacted;
SELECT learned_index_check('rt_k', true);
SELECT pending_entries, pending_pages FROM learned_index_info('rt_k');

-- a new connection: its copy loads only the tail
\c
SET learned_idx.auto_merge = off;
SET learned_idx.tail_limit = 200;
SELECT runs_check_all('rt') AS fresh_session;

-- deleted rows: the heap hides them until VACUUM, which merges the runs
-- first and marks the dead entries in the static stage
DELETE FROM rt WHERE v BETWEEN 5001 AND 5300;
SELECT runs_check_all('rt') AS after_delete;
VACUUM rt;
SELECT count(*) AS runs_after_vacuum FROM learned_index_runs('rt_k') WHERE run IS NOT NULL;
SELECT runs_check_all('rt') AS after_vacuum;

-- runs again, then a merge folds them all
INSERT INTO rt SELECT (i * 7919) % 10007, i FROM generate_series(7801, 9000) i;
SELECT count(*) > 0 AS has_runs FROM learned_index_runs('rt_k') WHERE run IS NOT NULL;
SELECT learned_index_merge('rt_k') > 0 AS merged;
SELECT run, tier, pages, entries FROM learned_index_runs('rt_k');
SELECT runs_check_all('rt') AS merged;
SELECT learned_index_check('rt_k', true);

-- tail_limit 0: no flush
SET learned_idx.tail_limit = 0;
INSERT INTO rt SELECT i, i FROM generate_series(20001, 21000) i;
SELECT count(*) AS runs_with_limit_0 FROM learned_index_runs('rt_k') WHERE run IS NOT NULL;
SET learned_idx.tail_limit = 200;
INSERT INTO rt VALUES (20000, 0);
SELECT count(*) > 0 AS flushed_later FROM learned_index_runs('rt_k') WHERE run IS NOT NULL;
SELECT runs_check_all('rt') AS big_flush;
DROP TABLE rt;

-- float8: NaN and infinities sort last and first, as btree's
CREATE TABLE rf (k float8);
INSERT INTO rf SELECT (i % 997) / 7.0 FROM generate_series(1, 3000) i;
CREATE INDEX rf_k ON rf USING learned (k);
INSERT INTO rf SELECT CASE WHEN i % 50 = 0 THEN 'NaN'::float8
	WHEN i % 50 = 1 THEN 'Infinity' WHEN i % 50 = 2 THEN '-Infinity'
	WHEN i % 50 = 3 THEN NULL ELSE (i % 1009) / 3.0 END
	FROM generate_series(1, 1500) i;
SELECT count(*) > 0 AS has_runs FROM learned_index_runs('rf_k') WHERE run IS NOT NULL;
SELECT paths_same('SELECT k FROM rf WHERE k > 300 ORDER BY k') AS above,
	paths_same('SELECT k FROM rf WHERE k > 300 ORDER BY k DESC') AS above_desc,
	paths_same('SELECT k FROM rf WHERE k = ''NaN'' ORDER BY k') AS nan,
	paths_same('SELECT k FROM rf WHERE k < 0 ORDER BY k') AS neg_inf,
	paths_same('SELECT k FROM rf ORDER BY k DESC NULLS LAST LIMIT 30') AS top,
	paths_same('SELECT count(*) FROM rf WHERE k IS NULL') AS nulls;
SELECT learned_index_check('rf_k', true);
DROP TABLE rf;

-- text keys and a composite key
CREATE TABLE rs (s text, a int4, b text);
INSERT INTO rs SELECT 'key' || lpad((i * 37 % 2000)::text, 5, '0'), i % 13, 'b' || (i % 101)
	FROM generate_series(1, 2000) i;
CREATE INDEX rs_s ON rs USING learned (s);
CREATE INDEX rs_ab ON rs USING learned (a, b);
INSERT INTO rs SELECT 'key' || lpad((i * 37 % 2003)::text, 5, '0'), i % 13, 'b' || (i % 103)
	FROM generate_series(1, 1500) i;
SELECT count(*) > 0 AS text_runs FROM learned_index_runs('rs_s') WHERE run IS NOT NULL;
SELECT count(*) > 0 AS composite_runs FROM learned_index_runs('rs_ab') WHERE run IS NOT NULL;
SELECT paths_same('SELECT s FROM rs WHERE s = ''key00111'' ORDER BY s') AS text_point,
	paths_same('SELECT s FROM rs WHERE s BETWEEN ''key01000'' AND ''key01100'' ORDER BY s DESC') AS text_range,
	paths_same('SELECT a, b FROM rs WHERE a = 5 AND b = ''b7'' ORDER BY a, b') AS comp_point,
	paths_same('SELECT a, b FROM rs WHERE a = 5 ORDER BY a DESC, b DESC') AS comp_prefix,
	paths_same('SELECT a, b FROM rs WHERE a > 10 AND b < ''b5'' ORDER BY a, b') AS comp_range;
SELECT learned_index_check('rs_s', true), learned_index_check('rs_ab', true);
DROP TABLE rs;

-- a unique index finds a duplicate that sits in a run
CREATE TABLE ru (k int4);
SET client_min_messages = error;	-- before 18: the ON CONFLICT warning
CREATE UNIQUE INDEX ru_k ON ru USING learned (k);
RESET client_min_messages;
INSERT INTO ru SELECT i FROM generate_series(1, 1000) i;
INSERT INTO ru SELECT i FROM generate_series(1001, 2000) i;
SELECT count(*) > 0 AS unique_runs FROM learned_index_runs('ru_k') WHERE run IS NOT NULL;
INSERT INTO ru VALUES (1500);
INSERT INTO ru VALUES (1999);
INSERT INTO ru VALUES (2001);
SELECT count(*) FROM ru;
SELECT learned_index_check('ru_k', true);
DROP TABLE ru;


-- A run too large for a filter in its header page (16,384 entries from
-- four compacted flushes, 65,536 from four of those) gets filter pages.
-- The flushes that follow collect garbage while such runs live, which
-- must keep their filter pages.  Every key a run holds is found: by single
-- lookups (each probes a filter page in place) and by a nested loop (its
-- scan copies filter pages after a few rescans), with duplicates, deleted
-- rows and NULLs; keys no run holds are not.
SET learned_idx.tail_limit = 4096;
CREATE TABLE rb (k int8);
INSERT INTO rb SELECT i * 4 FROM generate_series(1, 20000) i;
CREATE INDEX rb_k ON rb USING learned (k);
INSERT INTO rb SELECT ((hashint4(i) & 2147483647) % 40000) * 2 + 1 FROM generate_series(1, 30000) i;
INSERT INTO rb SELECT ((hashint4(i) & 2147483647) % 40000) * 2 + 1 FROM generate_series(30001, 45000) i;
INSERT INTO rb SELECT ((hashint4(i) & 2147483647) % 40000) * 2 + 1 FROM generate_series(45001, 60000) i;
INSERT INTO rb SELECT ((hashint4(i) & 2147483647) % 40000) * 2 + 1 FROM generate_series(60001, 75000) i;
INSERT INTO rb SELECT ((hashint4(i) & 2147483647) % 40000) * 2 + 1 FROM generate_series(75001, 90000) i;
-- a flush each, whose garbage collection may free what the runs replaced
INSERT INTO rb SELECT ((hashint4(i) & 2147483647) % 40000) * 2 + 1 FROM generate_series(90001, 94200) i;
INSERT INTO rb SELECT ((hashint4(i) & 2147483647) % 40000) * 2 + 1 FROM generate_series(94201, 98400) i;
INSERT INTO rb SELECT ((hashint4(i) & 2147483647) % 40000) * 2 + 1 FROM generate_series(98401, 102600) i;
INSERT INTO rb SELECT 4001 FROM generate_series(1, 40);
INSERT INTO rb VALUES (NULL), (NULL);
SELECT run, tier, entries, null_entries, filter_pages FROM learned_index_runs('rb_k');
CREATE TABLE rb_probe AS SELECT DISTINCT k FROM rb WHERE k IS NOT NULL
	UNION ALL SELECT i * 4 + 2 FROM generate_series(1, 3000) i;
DELETE FROM rb WHERE k % 7 = 3;
CREATE FUNCTION rb_single_ok() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	w record;
	a int8;
BEGIN
	-- what a sequential scan finds for a sample of the probes
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	CREATE TEMP TABLE rb_want AS SELECT p.k, count(rb.k) AS n
		FROM rb_probe p LEFT JOIN rb ON rb.k = p.k
		WHERE p.k % 128 = 1 OR p.k = 4001 OR p.k % 1600 = 2 GROUP BY p.k;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	PERFORM set_config('enable_seqscan', 'off', true);
	FOR w IN SELECT * FROM rb_want LOOP
		EXECUTE 'SELECT count(*) FROM rb WHERE k = $1' INTO a USING w.k;
		IF a <> w.n THEN
			RAISE NOTICE 'key %: index % rows, heap %', w.k, a, w.n;
			DROP TABLE rb_want;
			RETURN false;
		END IF;
	END LOOP;
	DROP TABLE rb_want;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	RETURN true;
END $$;
SELECT rb_single_ok() AS single_lookups;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_memoize = off;
SELECT count(*) AS nested_loop, sum(rb.k) FROM rb_probe p JOIN rb ON rb.k = p.k;
SET enable_indexonlyscan = off;
SELECT count(*) AS nested_loop_heap, sum(rb.k) FROM rb_probe p JOIN rb ON rb.k = p.k;
RESET enable_indexonlyscan;
RESET enable_seqscan;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_memoize;
SET enable_indexscan = off;
SELECT count(*) AS seqscan, sum(rb.k) FROM rb_probe p JOIN rb ON rb.k = p.k;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT runs_check_all('rb') AS all_paths;
SELECT learned_index_check('rb_k', true);
-- VACUUM collects garbage with the runs alive, then merges them
VACUUM rb;
SELECT count(*) AS runs_left FROM learned_index_runs('rb_k') WHERE run IS NOT NULL;
SELECT learned_index_check('rb_k', true);
SELECT rb_single_ok() AS single_lookups_merged;
DROP FUNCTION rb_single_ok();
DROP TABLE rb, rb_probe;
RESET learned_idx.tail_limit;
DROP FUNCTION runs_check_all(text);

-- Runs whose filter sits in the header page's room, on a composite key: a
-- single lookup copies only the header's lists and probes that filter in
-- place; a nested loop's scan copies the whole header from its 8th probe
-- on.  Both find every key the runs hold (duplicates and deleted rows
-- too), and no key they do not hold; a unique index's check sees them.
SET learned_idx.tail_limit = 300;
CREATE TABLE rh (a int4, b int4);
INSERT INTO rh SELECT i % 10, i FROM generate_series(1, 3000) i;
SET client_min_messages = error;	-- before 18: the ON CONFLICT warning
CREATE UNIQUE INDEX rh_ab ON rh USING learned (a, b);
RESET client_min_messages;
INSERT INTO rh SELECT i % 10, i FROM generate_series(3001, 3500) i;
INSERT INTO rh SELECT i % 10, i FROM generate_series(3501, 4000) i;
INSERT INTO rh SELECT i % 10, i FROM generate_series(4001, 4500) i;
INSERT INTO rh SELECT i % 10, i FROM generate_series(4501, 5000) i;
INSERT INTO rh SELECT i % 10, i FROM generate_series(5001, 5500) i;
INSERT INTO rh SELECT i % 10, i FROM generate_series(5501, 6000) i;
INSERT INTO rh SELECT i % 10, i FROM generate_series(6001, 6500) i;
INSERT INTO rh SELECT i % 10, i FROM generate_series(6501, 6900) i;
DELETE FROM rh WHERE b % 11 = 4;
SELECT count(*) > 0 AS runs, max(pages) > 2 AS multipage, sum(filter_pages) AS filter_pages
	FROM learned_index_runs('rh_ab') WHERE run IS NOT NULL;
CREATE TABLE rh_probe AS SELECT i % 10 AS a, i AS b FROM generate_series(2990, 7100) i
	UNION ALL SELECT 3, 4003 UNION ALL SELECT 1, 4001;
CREATE FUNCTION rh_single_ok() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	w record;
	n int8;
BEGIN
	-- what a sequential scan finds for a sample of the probes
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	CREATE TEMP TABLE rh_want AS SELECT p.a, p.b, count(rh.b) AS n
		FROM (SELECT DISTINCT a, b FROM rh_probe) p LEFT JOIN rh ON rh.a = p.a AND rh.b = p.b
		WHERE p.b % 3 = 0 OR p.b BETWEEN 4000 AND 4100 GROUP BY p.a, p.b;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	PERFORM set_config('enable_seqscan', 'off', true);
	FOR w IN SELECT * FROM rh_want LOOP
		EXECUTE 'SELECT count(*) FROM rh WHERE a = $1 AND b = $2' INTO n USING w.a, w.b;
		IF n <> w.n THEN
			RAISE NOTICE 'key (%, %): index % rows, heap %', w.a, w.b, n, w.n;
			DROP TABLE rh_want;
			RETURN false;
		END IF;
	END LOOP;
	DROP TABLE rh_want;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	RETURN true;
END $$;
SELECT rh_single_ok() AS single_lookups;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_memoize = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS nested_loop, sum(rh.b) FROM rh_probe p JOIN rh ON rh.a = p.a AND rh.b = p.b;
RESET enable_seqscan;
SET enable_indexscan = off;
SELECT count(*) AS seqscan, sum(rh.b) FROM rh_probe p JOIN rh ON rh.a = p.a AND rh.b = p.b;
RESET enable_indexscan;
RESET enable_bitmapscan;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_memoize;
-- ranges over the runs' pages (a composite key's first images narrow each
-- run's pages): each through the index, both directions, as a seq scan
CREATE FUNCTION rh_ranges_ok() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	q text;
	x text;
	y text;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		'SELECT a, b FROM rh WHERE a = 5 ORDER BY a, b',
		'SELECT a, b FROM rh WHERE a = 5 ORDER BY a DESC, b DESC',
		'SELECT a, b FROM rh WHERE a = 5 AND b BETWEEN 3500 AND 6000 ORDER BY a DESC, b DESC',
		'SELECT a, b FROM rh WHERE a >= 3 AND a < 5 ORDER BY a, b',
		'SELECT a, b FROM rh WHERE a = 7 AND b > 6500 ORDER BY a, b',
		'SELECT a, b FROM rh WHERE a = 0 AND b < 3100 ORDER BY a DESC, b DESC',
		'SELECT a, b FROM rh WHERE a > 8 ORDER BY a, b',
		'SELECT a, b FROM rh WHERE a = 2 AND b >= 4002 AND b <= 4012 ORDER BY a, b',
		'SELECT a, b FROM rh WHERE a IN (1, 6) AND b > 6000 ORDER BY a, b']
	LOOP
		PERFORM set_config('enable_seqscan', 'off', true);
		PERFORM set_config('enable_bitmapscan', 'off', true);
		EXECUTE 'SELECT string_agg(a || '':'' || b, '','') FROM (' || q || ') s' INTO x;
		PERFORM set_config('enable_seqscan', 'on', true);
		PERFORM set_config('enable_indexscan', 'off', true);
		PERFORM set_config('enable_indexonlyscan', 'off', true);
		EXECUTE 'SELECT string_agg(a || '':'' || b, '','') FROM (' || q || ') s' INTO y;
		PERFORM set_config('enable_indexscan', 'on', true);
		PERFORM set_config('enable_indexonlyscan', 'on', true);
		PERFORM set_config('enable_bitmapscan', 'on', true);
		IF x IS DISTINCT FROM y OR x IS NULL THEN
			RAISE NOTICE 'differs: %', q;
			RETURN false;
		END IF;
	END LOOP;
	RETURN true;
END $$;
SELECT rh_ranges_ok() AS ranges;
INSERT INTO rh VALUES (5, 4005);	-- a duplicate of a key in a run
INSERT INTO rh VALUES (8, 4008);	-- deleted: no conflict
INSERT INTO rh VALUES (7, 7007);
SELECT learned_index_check('rh_ab', true);
DROP FUNCTION rh_single_ok();
DROP FUNCTION rh_ranges_ok();
DROP TABLE rh, rh_probe;
-- Ranges whose end is a few entries after their start: the end's rank is
-- searched from the start's, over the data page the start left decoded
-- (run_bound_from), and from scratch when the end is on a later page.
-- Widths from 0 to past a page, inclusive and exclusive ends, on int8 keys
-- with duplicates and on a TPC-C-shaped composite key, both directions,
-- through each access path (runs_same).
CREATE TABLE rw (k int8, w int4, d int4, o int4, n int4);
INSERT INTO rw SELECT (i * 7919) % 3001, 1 + i % 2, 1 + i % 3, i / 6, i % 5
	FROM generate_series(1, 3000) i;
CREATE INDEX rw_k ON rw USING learned (k);
CREATE INDEX rw_wdon ON rw USING learned (w, d, o, n);
INSERT INTO rw SELECT (i * 7919) % 3001, 1 + i % 2, 1 + i % 3, i / 6, i % 5
	FROM generate_series(3001, 16000) i;
INSERT INTO rw SELECT k, w, d, o, n FROM rw WHERE k % 97 = 0;	-- duplicates
SELECT count(*) > 1 AS runs, max(pages) > 2 AS multipage FROM learned_index_runs('rw_k') WHERE run IS NOT NULL;
SELECT count(*) > 1 AS runs, max(pages) > 2 AS multipage FROM learned_index_runs('rw_wdon') WHERE run IS NOT NULL;
CREATE FUNCTION rw_ranges_bad() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	bad int := 0;
	lo int;
	wd int;
	q text;
BEGIN
	FOREACH lo IN ARRAY ARRAY[0, 1, 97, 1234, 2990, 3001] LOOP
		FOREACH wd IN ARRAY ARRAY[0, 1, 2, 3, 5, 9, 17, 40, 130, 700, 2500] LOOP
			FOREACH q IN ARRAY ARRAY[
				format('SELECT k FROM rw WHERE k >= %s AND k <= %s ORDER BY k', lo, lo + wd),
				format('SELECT k FROM rw WHERE k > %s AND k < %s ORDER BY k DESC', lo, lo + wd),
				format('SELECT w, d, o, n FROM rw WHERE w = 2 AND d = 3 AND o >= %s AND o <= %s ORDER BY w, d, o, n',
					   lo / 3, lo / 3 + wd),
				format('SELECT w, d, o, n FROM rw WHERE w = 1 AND d = 2 AND o > %s AND o < %s ORDER BY w DESC, d DESC, o DESC, n DESC',
					   lo / 3, lo / 3 + wd),
				format('SELECT w, d, o, n FROM rw WHERE w = 1 AND d = 1 AND o = %s AND n >= %s ORDER BY w, d, o, n',
					   lo / 3, wd % 5)]
			LOOP
				IF NOT paths_same(q) THEN
					bad := bad + 1;
				END IF;
			END LOOP;
		END LOOP;
	END LOOP;
	RETURN bad;
END $$;
SELECT rw_ranges_bad() AS ranges_differing;
SELECT learned_index_check('rw_k', true), learned_index_check('rw_wdon', true);
DROP FUNCTION rw_ranges_bad();
DROP TABLE rw;

-- The backend's copies of run headers (run.c): one session scans after
-- every flush, one statement (and transaction) a round, while runs
-- compact tier over tier (a compaction keeps its first run's first
-- sequence number) and the pages they free, header pages among them, are
-- used again.  A copy must serve only the run it was read for.
CREATE TABLE rc (k int8);
CREATE INDEX rc_k ON rc USING learned (k);
CREATE TABLE rc_bad (round int, q text);
CREATE FUNCTION rc_round(r int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	lo int8 := (r * 389) % 5003;
	q text;
BEGIN
	INSERT INTO rc SELECT (g * 7 + r * 13) % 5003 FROM generate_series(1, 230) g;
	FOREACH q IN ARRAY ARRAY[
		format('SELECT k FROM rc WHERE k BETWEEN %s AND %s ORDER BY k', lo, lo + 40),
		format('SELECT k FROM rc WHERE k = %s', lo + 3),
		format('SELECT k FROM rc WHERE k > %s ORDER BY k DESC LIMIT 5', lo)]
	LOOP
		IF NOT paths_same(q) THEN
			INSERT INTO rc_bad VALUES (r, q);
		END IF;
	END LOOP;
END $$;
-- a transaction a round
CREATE PROCEDURE rc_rounds(n int) LANGUAGE plpgsql AS $$
BEGIN
	FOR r IN 1..n LOOP
		PERFORM rc_round(r);
		COMMIT;
	END LOOP;
END $$;
CALL rc_rounds(60);
SELECT max(tier) >= 2 AS compacted_twice FROM learned_index_runs('rc_k') WHERE run IS NOT NULL;
SELECT count(*) AS rounds_differing FROM rc_bad;
SELECT learned_index_check('rc_k', true);
DROP PROCEDURE rc_rounds(int);
DROP FUNCTION rc_round(int);
DROP TABLE rc, rc_bad;
RESET learned_idx.tail_limit;
