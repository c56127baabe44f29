-- 01_basic
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Creating a learned index, the plans that use it, and simple answers.
--
SELECT amname, amtype FROM pg_am WHERE amname = 'learned';

-- Access-method and column properties the planner relies on.
SELECT p, pg_indexam_has_property(a.oid, p)
FROM pg_am a,
     unnest(ARRAY['can_order', 'can_unique', 'can_multi_col', 'can_exclude',
                  'can_include']) p
WHERE a.amname = 'learned';

CREATE TABLE t1 (id int4, k int4, v text);
INSERT INTO t1 SELECT i, i * 2, 'v' || i FROM generate_series(1, 10000) i;
CREATE INDEX t1_k ON t1 USING learned (k);
\d t1
SELECT p, pg_index_has_property('t1_k'::regclass, p)
FROM unnest(ARRAY['clusterable', 'index_scan', 'bitmap_scan',
                  'backward_scan']) p;
SELECT p, pg_index_column_has_property('t1_k'::regclass, 1, p)
FROM unnest(ARRAY['asc', 'desc', 'nulls_first', 'nulls_last', 'orderable',
                  'distance_orderable', 'returnable', 'search_array',
                  'search_nulls']) p;
VACUUM ANALYZE t1;

-- Left to itself, the planner picks the index for selective quals.
EXPLAIN (COSTS OFF) SELECT * FROM t1 WHERE k = 500;
EXPLAIN (COSTS OFF) SELECT * FROM t1 WHERE k BETWEEN 100 AND 140;
EXPLAIN (COSTS OFF) SELECT k FROM t1 WHERE k BETWEEN 100 AND 140;

-- Each scan node in turn.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM t1 WHERE k = 500;
SELECT * FROM t1 WHERE k = 500;
SELECT * FROM t1 WHERE k = 501;
EXPLAIN (COSTS OFF) SELECT * FROM t1 WHERE k >= 100 AND k < 110 ORDER BY k;
SELECT * FROM t1 WHERE k >= 100 AND k < 110 ORDER BY k;
EXPLAIN (COSTS OFF) SELECT * FROM t1 WHERE k < 30 ORDER BY k DESC;
SELECT * FROM t1 WHERE k < 30 ORDER BY k DESC;
EXPLAIN (COSTS OFF) SELECT k FROM t1 ORDER BY k DESC LIMIT 3;
SELECT k FROM t1 ORDER BY k DESC LIMIT 3;
SELECT k FROM t1 ORDER BY k LIMIT 3;
SELECT count(*) FROM t1 WHERE k < 1000;
SELECT count(*) FROM t1 WHERE k > 19990;
SELECT count(*) FROM t1 WHERE k > 20000;
SELECT count(*) FROM t1 WHERE k <= 0;
SET enable_indexonlyscan = on;
EXPLAIN (COSTS OFF) SELECT k FROM t1 WHERE k BETWEEN 1000 AND 1010;
SELECT k FROM t1 WHERE k BETWEEN 1000 AND 1010;
SELECT lexplain('SELECT k FROM t1 WHERE k BETWEEN 1000 AND 1010', 'ANALYZE, TIMING OFF, SUMMARY OFF');
EXPLAIN (COSTS OFF) SELECT count(*) FROM t1 WHERE k > 15000;
SELECT count(*) FROM t1 WHERE k > 15000;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT * FROM t1 WHERE k BETWEEN 100 AND 110;
SELECT * FROM t1 WHERE k BETWEEN 100 AND 110 ORDER BY id;
EXPLAIN (COSTS OFF) SELECT * FROM t1 WHERE k < 10 OR k > 19990;
SELECT * FROM t1 WHERE k < 10 OR k > 19990 ORDER BY id;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;

-- The same, checked against a sequential scan in every scan mode.
SELECT q, lcheck(q, m) FROM (VALUES
  ('SELECT * FROM t1 WHERE k = 500', 'is,bis'),
  ('SELECT * FROM t1 WHERE k = 501', 'is,bis'),
  ('SELECT * FROM t1 WHERE k = 2', 'is,bis'),
  ('SELECT * FROM t1 WHERE k = 20000', 'is,bis'),
  ('SELECT * FROM t1 WHERE k >= 100 AND k < 110 ORDER BY k', 'is'),
  ('SELECT * FROM t1 WHERE k BETWEEN 100 AND 110', 'is,bis'),
  ('SELECT k FROM t1 WHERE k < 3000 ORDER BY k', 'is,ios'),
  ('SELECT k FROM t1 WHERE k < 3000 ORDER BY k DESC', 'is,ios'),
  ('SELECT k FROM t1 WHERE k > 17001 ORDER BY k', 'is,ios'),
  ('SELECT k FROM t1 WHERE k > 17001 ORDER BY k DESC', 'is,ios'),
  ('SELECT k FROM t1 WHERE k >= 17001', 'is,ios,bis'),
  ('SELECT k FROM t1 WHERE k <= 17001', 'is,ios,bis'),
  ('SELECT k FROM t1 ORDER BY k', 'is,ios'),
  ('SELECT k FROM t1 ORDER BY k DESC', 'is,ios'),
  ('SELECT k FROM t1 ORDER BY k LIMIT 7', 'is,ios'),
  ('SELECT k FROM t1 ORDER BY k DESC LIMIT 7', 'is,ios'),
  ('SELECT count(*) FROM t1 WHERE k > 0', 'is,ios,bis'),
  ('SELECT count(*) FROM t1 WHERE k < -5', 'is,ios,bis'),
  ('SELECT count(*) FROM t1 WHERE k > 25000', 'is,ios,bis'),
  ('SELECT * FROM t1 WHERE k < 10 OR k > 19990', 'bis')
) v(q, m);

-- Expression and partial learned indexes.
CREATE INDEX t1_kmod ON t1 USING learned ((k % 1000));
CREATE INDEX t1_id_part ON t1 USING learned (id) WHERE v LIKE 'v1%';
ANALYZE t1;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM t1 WHERE k % 1000 = 8;
EXPLAIN (COSTS OFF) SELECT * FROM t1 WHERE id < 200 AND v LIKE 'v1%';
RESET enable_seqscan;
SELECT q, lcheck(q, m) FROM (VALUES
  ('SELECT * FROM t1 WHERE k % 1000 = 8', 'is,bis'),
  ('SELECT k % 1000 FROM t1 WHERE k % 1000 < 4 ORDER BY 1', 'is'),
  ('SELECT * FROM t1 WHERE id < 200 AND v LIKE ''v1%''', 'is,bis'),
  ('SELECT id FROM t1 WHERE id > 9000 AND v LIKE ''v1%'' ORDER BY id DESC', 'is')
) v(q, m);

-- Two learned indexes on one table: BitmapAnd/BitmapOr.
CREATE INDEX t1_id ON t1 USING learned (id);
ANALYZE t1;
SET enable_seqscan = off;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM t1 WHERE k < 100 OR id > 9990;
RESET enable_seqscan;
RESET enable_indexscan;
SELECT lcheck('SELECT * FROM t1 WHERE k < 100 OR id > 9990', 'bis');
SELECT lcheck('SELECT * FROM t1 WHERE k < 5000 AND id > 2400', 'is,bis');

-- A prepared statement with a parameter (generic plan).
SET plan_cache_mode = force_generic_plan;
SET enable_seqscan = off;
PREPARE p1(int8) AS SELECT id, k FROM t1 WHERE k = $1;
EXPLAIN (COSTS OFF) EXECUTE p1(4);
EXECUTE p1(4);
EXECUTE p1(5);
EXECUTE p1(19998);
PREPARE p2(int4, int4) AS SELECT count(*) FROM t1 WHERE k > $1 AND k <= $2;
EXECUTE p2(0, 100);
EXECUTE p2(100, 0);
EXECUTE p2(-100, 100000);
RESET plan_cache_mode;
RESET enable_seqscan;
DEALLOCATE p1;
DEALLOCATE p2;

-- Nested loop with the learned index on the inner side (rescans).
CREATE TABLE t1_probe (p int4);
INSERT INTO t1_probe VALUES (4), (5), (6), (6), (19998), (NULL), (-2), (40000);
ANALYZE t1_probe;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT lexplain('SELECT t1_probe.p, t1.id FROM t1_probe JOIN t1 ON t1.k = t1_probe.p');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT lcheck('SELECT t1_probe.p, t1.id FROM t1_probe JOIN t1 ON t1.k = t1_probe.p', 'is,bis');
SELECT lcheck('SELECT t1_probe.p, t1.k FROM t1_probe JOIN t1 ON t1.k BETWEEN t1_probe.p AND t1_probe.p + 5', 'is,ios,bis');
RESET enable_hashjoin;
RESET enable_mergejoin;

DROP INDEX t1_kmod;
DROP TABLE t1_probe;
DROP TABLE t1;
