-- 33_index_searches: EXPLAIN ANALYZE's "Index Searches" for learned scans.
-- PostgreSQL 18 shows it for every index node (expected/33_index_searches.out):
-- learned counts one search per key interval it positions in (each
-- = ANY element, each rescan) and one for entering the NULL area.  15-17
-- have no such counter: every value is "-" (expected/33_index_searches_1.out).
CREATE TABLE isx (k int8, v int);
INSERT INTO isx SELECT i, i FROM generate_series(1, 5000) i;
INSERT INTO isx SELECT NULL, 0 FROM generate_series(1, 10);
CREATE INDEX isx_k ON isx USING learned (k);
INSERT INTO isx VALUES (100001, 1);   -- a pending entry
CREATE TABLE isx_outer (k int8);
INSERT INTO isx_outer VALUES (5), (50), (500), (100001);
ANALYZE isx, isx_outer;

-- index nodes of the plan, in plan order: node type and searches
CREATE FUNCTION searches(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    p jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q
        INTO p;
    RETURN (SELECT string_agg((n ->> 'Node Type') || ': ' ||
                              coalesce(n ->> 'Index Searches', '-'), ', ')
              FROM jsonb_path_query(p, 'strict $.** ? (exists (@."Index Name"))') n);
END $$;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT searches('SELECT * FROM isx WHERE k = 5') AS point;
SELECT searches('SELECT * FROM isx WHERE k = 4999999') AS absent_key;
SELECT searches('SELECT * FROM isx WHERE k = 100001') AS pending_key;
SELECT searches('SELECT * FROM isx WHERE k = ANY(''{5,500,900}'')') AS any_of_3;
SELECT searches('SELECT * FROM isx WHERE k BETWEEN 10 AND 20') AS range;
SELECT searches('SELECT * FROM isx WHERE k IS NULL') AS nulls;
SELECT searches('SELECT k FROM isx WHERE k = 7') AS index_only;
SELECT searches('SELECT * FROM isx ORDER BY k LIMIT 5') AS ordered_limit;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
SET enable_memoize = off;
SELECT searches('SELECT * FROM isx_outer o JOIN isx i ON i.k = o.k') AS nested_loop_4;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SELECT searches('SELECT * FROM isx WHERE k = ANY(''{5,500,900}'')') AS bitmap_any_of_3;
RESET ALL;

DROP FUNCTION searches(text);
DROP TABLE isx, isx_outer;
