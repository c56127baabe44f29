-- 68_read_stream
--
-- On 17 and later a range's leaf pages after its first are read through a
-- read stream (learned_idx.read_stream, on by default), up to the model's
-- guess of the range's last page, then a page at a time; on 15 and 16 the
-- setting changes nothing.  Every answer, with the stream on and off,
-- against a sequential scan: ranges across pages and segment ends, both
-- directions, ends the model's guess misses (no far bound, a far bound past
-- the index), scans stopped early by LIMIT, a merge join's mark and
-- restore, a cursor read in parts with a merge between, and = ANY arrays
-- (a stream per value).
SET learned_idx.auto_merge = off;
CREATE TABLE rst (k int8, v int);
INSERT INTO rst SELECT g * 2, g FROM generate_series(1, 120000) g;
-- uncompressed: a few hundred entries a page, several segments
CREATE INDEX rst_k ON rst USING learned (k) WITH (compression = off);
SELECT segments >= 2 AS several_segments, leaf_pages > 200 AS many_pages
FROM learned_index_info('rst_k');

-- q's rows, in order, through an index scan and an index-only scan with the
-- stream off and on, and a sequential scan: true if all agree
CREATE FUNCTION rst_same(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	r text[] := '{}';
	seq text;
	s text;
	sql text := 'SELECT md5(coalesce(string_agg(x::text, '','' ORDER BY n), '''')) FROM (SELECT x, row_number() OVER () AS n FROM (' || q || ') x) y';
BEGIN
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_seqscan', 'off', true);
	FOREACH s IN ARRAY ARRAY['off', 'on'] LOOP
		PERFORM set_config('learned_idx.read_stream', s, true);
		PERFORM set_config('enable_indexonlyscan', 'off', true);
		EXECUTE sql INTO seq;
		r := r || seq;
		PERFORM set_config('enable_indexonlyscan', 'on', true);
		EXECUTE sql INTO seq;
		r := r || seq;
	END LOOP;
	PERFORM set_config('learned_idx.read_stream', 'on', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	PERFORM set_config('enable_seqscan', 'on', true);
	EXECUTE sql INTO seq;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	FOREACH s IN ARRAY r LOOP
		IF s IS DISTINCT FROM seq THEN
			RAISE NOTICE 'differs: %', q;
			RETURN false;
		END IF;
	END LOOP;
	RETURN true;
END $$;

-- ranges of one to many pages, across every segment end, both directions
SELECT bool_and(rst_same(format(
         'SELECT k FROM rst WHERE k >= %s AND k <= %s ORDER BY k', lo, lo + len)))
   AND bool_and(rst_same(format(
         'SELECT k FROM rst WHERE k > %s AND k < %s ORDER BY k DESC', lo, lo + len)))
       AS ranges_same
FROM (SELECT s.first_key::int8 - d AS lo FROM learned_index_segments('rst_k') s,
             (VALUES (-500), (3), (1500)) x(d)
      WHERE s.first_key IS NOT NULL
      UNION ALL VALUES (1), (239000)) b,
     (VALUES (10), (900), (5000), (60000)) l(len);
-- no far bound (the stream runs towards the index's end), a far bound past
-- the index, the whole index
SELECT rst_same('SELECT k FROM rst WHERE k >= 100000 ORDER BY k') AS open_fwd,
       rst_same('SELECT k FROM rst WHERE k <= 140000 ORDER BY k DESC') AS open_back,
       rst_same('SELECT k FROM rst WHERE k BETWEEN 200000 AND 900000 ORDER BY k') AS past_end,
       rst_same('SELECT k FROM rst WHERE k BETWEEN -900000 AND 30000 ORDER BY k DESC') AS before_start,
       rst_same('SELECT k FROM rst ORDER BY k') AS whole;
-- stopped early: the stream ends with pages read ahead
SELECT rst_same('SELECT k FROM rst WHERE k >= 5000 ORDER BY k LIMIT 3000') AS limit_fwd,
       rst_same('SELECT k FROM rst WHERE k <= 200000 ORDER BY k DESC LIMIT 3000') AS limit_back,
       rst_same('SELECT k FROM rst WHERE k BETWEEN 5000 AND 150000 ORDER BY k LIMIT 2500') AS limit_range;
-- = ANY: a stream per array value, some values' runs spanning pages
INSERT INTO rst SELECT 77777, g FROM generate_series(1, 1500) g;
INSERT INTO rst SELECT 123457, g FROM generate_series(1, 1500) g;
REINDEX INDEX rst_k;
SELECT rst_same('SELECT k FROM rst WHERE k = ANY(''{4, 77777, 80000, 123457, 200000}'') ORDER BY k') AS any_fwd,
       rst_same('SELECT k FROM rst WHERE k = ANY(''{4, 77777, 80000, 123457, 200000}'') ORDER BY k DESC') AS any_back;
-- a merge join's mark and restore: the outer side's repeated keys send the
-- inner scan back to the first page of a run of equal keys three pages
-- long, behind the page its stream reached
CREATE TABLE rst_outer AS SELECT k FROM rst WHERE k BETWEEN 70000 AND 130000 AND k % 6 = 0;
INSERT INTO rst_outer VALUES (77777), (77777), (77777), (123457), (123457);
ANALYZE rst_outer;
CREATE FUNCTION rst_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
	t text := '';
BEGIN
	FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		t := t || r || ' ';
	END LOOP;
	RETURN t;
END $$;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_material = off;
SET enable_bitmapscan = off;
SELECT rst_plan('SELECT count(*), sum(r.v) FROM (SELECT k FROM rst_outer ORDER BY k) o
  JOIN rst r ON r.k = o.k') ~ 'Merge Join.*Index Scan using rst_k on rst r'
  AS merge_join_on_learned;
SELECT count(*), sum(r.v) FROM (SELECT k FROM rst_outer ORDER BY k) o JOIN rst r ON r.k = o.k;
SET learned_idx.read_stream = off;
SELECT count(*), sum(r.v) FROM (SELECT k FROM rst_outer ORDER BY k) o JOIN rst r ON r.k = o.k;
RESET learned_idx.read_stream;
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_material;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SELECT count(*), sum(r.v) FROM rst_outer o JOIN rst r ON r.k = o.k;
RESET enable_indexscan;
-- a cursor read in parts, inserts and a merge between: the scan keeps the
-- directory and pages it started with, and its snapshot's rows
CREATE TABLE rst_ref AS SELECT * FROM rst;
CREATE FUNCTION rst_cursor_merge(back boolean) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	c refcursor;
	kk int8;
	prev int8 := NULL;
	n int8 := 0;
	total numeric := 0;
	disorder int := 0;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	IF back THEN
		OPEN c FOR SELECT k FROM rst WHERE k BETWEEN 20000 AND 180000 ORDER BY k DESC;
	ELSE
		OPEN c FOR SELECT k FROM rst WHERE k BETWEEN 20000 AND 180000 ORDER BY k;
	END IF;
	LOOP
		FETCH c INTO kk;
		EXIT WHEN NOT FOUND;
		IF prev IS NOT NULL AND (kk < prev) <> back AND kk <> prev THEN
			disorder := disorder + 1;
		END IF;
		prev := kk;
		n := n + 1;
		total := total + kk;
		IF n = 4000 THEN
			INSERT INTO rst SELECT g * 2 + 1, -g FROM generate_series(10000, 90000, 3) g;
			PERFORM learned_index_merge('rst_k');
		END IF;
	END LOOP;
	CLOSE c;
	RETURN format('%s rows, %s out of order, same sum: %s', n, disorder,
				  total = (SELECT sum(k) FROM rst_ref WHERE k BETWEEN 20000 AND 180000));
END $$;
SELECT count(*) AS rows_in_range FROM rst_ref WHERE k BETWEEN 20000 AND 180000;
SELECT rst_cursor_merge(false) AS forward_cursor;
SELECT rst_same('SELECT k FROM rst WHERE k BETWEEN 20000 AND 180000 ORDER BY k') AS after_merge;
TRUNCATE rst;
INSERT INTO rst SELECT * FROM rst_ref;
REINDEX INDEX rst_k;
SELECT rst_cursor_merge(true) AS backward_cursor;
SELECT rst_same('SELECT k FROM rst WHERE k BETWEEN 20001 AND 180001 ORDER BY k DESC') AS after_merge_back;
SELECT learned_index_check('rst_k', true);
DROP TABLE rst, rst_ref, rst_outer;
DROP FUNCTION rst_same(text);
DROP FUNCTION rst_cursor_merge(boolean);
DROP FUNCTION rst_plan(text);
RESET learned_idx.auto_merge;
