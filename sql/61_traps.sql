-- 61_traps
--
-- Traps a user can fall into, named or closed: a unique index and
-- INSERT ... ON CONFLICT, types that would build an index no query can
-- use, keyset pagination with row comparisons, and a partitioned index
-- given to the inspection functions.
--

-- 1. ON CONFLICT.  Before PostgreSQL 18, every INSERT ... ON CONFLICT on a
-- table with a unique learned index fails in core, whatever its conflict
-- target: CREATE UNIQUE INDEX says so.
CREATE TABLE oc (id int8 PRIMARY KEY, k int8);
CREATE UNIQUE INDEX oc_k ON oc USING learned (k);
INSERT INTO oc VALUES (1, 1) ON CONFLICT (id) DO NOTHING;
INSERT INTO oc VALUES (1, 1);
-- said when the index is created, not when TRUNCATE or REINDEX rebuilds it
TRUNCATE oc;
REINDEX INDEX oc_k;
-- an exclusion constraint is no unique index: no warning, and
-- ON CONFLICT DO NOTHING works with it
CREATE TABLE oc_ex (k int8, EXCLUDE USING learned (k WITH =));
INSERT INTO oc_ex VALUES (1) ON CONFLICT DO NOTHING;
INSERT INTO oc_ex VALUES (1) ON CONFLICT DO NOTHING;
SELECT * FROM oc_ex;
DROP TABLE oc, oc_ex;

-- 2. Types.  A column whose type reaches an operator class only through a
-- binary coercion is refused when its type's "=" is not in the index's
-- operator family: no condition on the column could use the index.
CREATE EXTENSION IF NOT EXISTS citext;
CREATE DOMAIN ty_citext AS citext;
CREATE DOMAIN ty_int8 AS int8;
CREATE DOMAIN ty_varchar AS varchar(20);
CREATE TABLE ty (c citext, dc ty_citext, v varchar(20), dv ty_varchar,
                 d8 ty_int8, n int4);
INSERT INTO ty SELECT 'Key' || i, 'Key' || i, 'key' || i, 'key' || i, i, i
FROM generate_series(1, 1000) i;
CREATE INDEX ty_c ON ty USING learned (c);
CREATE INDEX ty_c ON ty USING learned (c text_ops);
CREATE INDEX ty_dc ON ty USING learned (dc);
CREATE INDEX ty_nc ON ty USING learned (n, c);
CREATE UNIQUE INDEX ty_c ON ty USING learned (c);
-- CONCURRENTLY: refused in the build, which leaves an invalid index, as a
-- failed CREATE INDEX CONCURRENTLY does
CREATE INDEX CONCURRENTLY ty_c ON ty USING learned (c);
SELECT indisvalid FROM pg_index WHERE indexrelid = 'ty_c'::regclass;
DROP INDEX ty_c;
-- what the HINT offers: the column cast to text, searched as text
CREATE INDEX ty_ct ON ty USING learned ((c::text));
-- types whose "=" is the family's: varchar's is text's, a domain's its base
-- type's
CREATE INDEX ty_v ON ty USING learned (v);
CREATE INDEX ty_dv ON ty USING learned (dv);
CREATE INDEX ty_d8 ON ty USING learned (d8);
ANALYZE ty;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT c FROM ty WHERE c::text = 'Key7';
SELECT c FROM ty WHERE c::text = 'Key7';
SELECT c FROM ty WHERE c::text = 'key7';
EXPLAIN (COSTS OFF) SELECT v FROM ty WHERE v = 'key7';
SELECT v FROM ty WHERE v = 'key7';
EXPLAIN (COSTS OFF) SELECT dv FROM ty WHERE dv = 'key7';
SELECT dv FROM ty WHERE dv = 'key7';
EXPLAIN (COSTS OFF) SELECT d8 FROM ty WHERE d8 = 7;
SELECT d8 FROM ty WHERE d8 = 7;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE ty;
DROP DOMAIN ty_citext, ty_int8, ty_varchar;
DROP EXTENSION citext;

-- 3. Keyset pagination.  PostgreSQL makes a row comparison (a, b) > (x, y)
-- an index condition for btree only: on a learned index it is a filter
-- over every row before the position, and so is its OR form; the form
-- with a bound on the leading column starts the scan there.  Each form
-- returns btree's rows.
CREATE TABLE ks (a int4, b int4);
INSERT INTO ks SELECT i / 100, i % 100 FROM generate_series(0, 99999) i;
CREATE INDEX ks_ab ON ks USING learned (a, b);
ANALYZE ks;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT a, b FROM ks WHERE (a, b) > (500, 50) ORDER BY a, b LIMIT 3;
EXPLAIN (COSTS OFF) SELECT a, b FROM ks WHERE a > 500 OR (a = 500 AND b > 50) ORDER BY a, b LIMIT 3;
EXPLAIN (COSTS OFF) SELECT a, b FROM ks WHERE a >= 500 AND (a > 500 OR b > 50) ORDER BY a, b LIMIT 3;
SELECT a, b FROM ks WHERE (a, b) > (500, 50) ORDER BY a, b LIMIT 3;
SELECT a, b FROM ks WHERE a > 500 OR (a = 500 AND b > 50) ORDER BY a, b LIMIT 3;
SELECT a, b FROM ks WHERE a >= 500 AND (a > 500 OR b > 50) ORDER BY a, b LIMIT 3;
SELECT a, b FROM ks WHERE a >= 999 AND (a > 999 OR b > 97) ORDER BY a, b LIMIT 3;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE ks;

-- 4. A partitioned index has no pages: every function says so and points
-- to the partitions' indexes, which it can inspect.
CREATE TABLE tp (k int8) PARTITION BY RANGE (k);
CREATE TABLE tp_1 PARTITION OF tp FOR VALUES FROM (0) TO (1000);
CREATE TABLE tp_2 PARTITION OF tp FOR VALUES FROM (1000) TO (2000);
INSERT INTO tp SELECT i FROM generate_series(0, 1999) i;
CREATE INDEX tp_k ON tp USING learned (k);
SELECT entries FROM learned_index_info('tp_k');
SELECT * FROM learned_index_segments('tp_k');
SELECT learned_index_check('tp_k');
SELECT learned_index_merge('tp_k');
SELECT relid, (SELECT entries FROM learned_index_info(relid)), learned_index_check(relid, true)
FROM pg_partition_tree('tp_k') WHERE isleaf ORDER BY relid::text;
-- a partitioned btree index is just not a learned index
CREATE INDEX tp_b ON tp (k);
SELECT entries FROM learned_index_info('tp_b');
-- nor is a table, and an OID that names nothing is said to
SELECT entries FROM learned_index_info('tp');
SELECT entries FROM learned_index_info(0);
DROP TABLE tp;
