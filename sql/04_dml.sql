-- 04_dml
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Inserts after the build (the pending area), deletes and VACUUM, updates,
-- rollbacks, TRUNCATE, REINDEX, concurrent builds, unlogged, temporary and
-- partitioned tables, reloption changes, an exclusion constraint.
--

-- lverify(tab): a battery of queries on column k (int8) of tab, each checked
-- by lcheck; one summary line.
CREATE FUNCTION lverify(tab text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    q text;
    res text;
    checks int := 0;
    nrows bigint := 0;
    bad text[] := '{}';
BEGIN
    FOREACH q IN ARRAY ARRAY[
        'SELECT k FROM %I ORDER BY k',
        'SELECT k FROM %I ORDER BY k DESC',
        'SELECT k FROM %I ORDER BY k LIMIT 10',
        'SELECT k FROM %I ORDER BY k DESC LIMIT 10',
        'SELECT k FROM %I WHERE k IS NOT NULL ORDER BY k DESC LIMIT 10',
        'SELECT id, k FROM %I WHERE k IS NULL',
        'SELECT id, k FROM %I WHERE k IS NOT NULL',
        'SELECT id, k FROM %I WHERE k = 0',
        'SELECT id, k FROM %I WHERE k = 5',
        'SELECT id, k FROM %I WHERE k = 100',
        'SELECT id, k FROM %I WHERE k = 105',
        'SELECT id, k FROM %I WHERE k = 77777',
        'SELECT id, k FROM %I WHERE k = 199990',
        'SELECT id, k FROM %I WHERE k = -9223372036854775808',
        'SELECT id, k FROM %I WHERE k = 9223372036854775807',
        'SELECT k FROM %I WHERE k < 1000 ORDER BY k',
        'SELECT k FROM %I WHERE k < 1000 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k >= 150000 ORDER BY k',
        'SELECT k FROM %I WHERE k > 150000 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k BETWEEN 50000 AND 50500 ORDER BY k',
        'SELECT k FROM %I WHERE k BETWEEN 50000 AND 50500 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k > 99990 ORDER BY k LIMIT 7',
        'SELECT k FROM %I WHERE k < 100010 ORDER BY k DESC LIMIT 7',
        'SELECT id, k FROM %I WHERE k BETWEEN 20000 AND 80000',
        'SELECT k FROM %I WHERE k IN (5, 100, 105, 12345, 77777, 199990, 250000) ORDER BY k',
        'SELECT k FROM %I WHERE k IN (5, 100, 105, 12345, 77777, 199990, 250000) ORDER BY k DESC',
        'SELECT count(*) FROM %I WHERE k > 0',
        'SELECT count(*) FROM %I WHERE k IS NULL'] LOOP
        q := format(q, tab);
        res := lcheck(q, CASE WHEN q ~ '^SELECT id' THEN 'is,bis'
                              WHEN q ~ 'ORDER BY' THEN 'is,ios'
                              ELSE 'is,ios,bis' END);
        checks := checks + 1;
        nrows := nrows + substring(res from 'rows=(\d+)')::int;
        IF res ~ ':(WRONG|noidx)' THEN
            bad := bad || (q || ' => ' || res);
        END IF;
    END LOOP;
    -- and the index's own consistency check, heap included
    IF EXISTS (SELECT 1 FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
               JOIN pg_am a ON a.oid = c.relam
               LEFT JOIN pg_inherits h ON h.inhrelid = x.indrelid
               WHERE (x.indrelid = tab::regclass OR h.inhparent = tab::regclass)
                 AND a.amname = 'learned' AND c.relkind = 'i'
                 AND NOT learned_index_check(c.oid, true)) THEN
        bad := bad || 'learned_index_check'::text;
    END IF;
    RETURN format('checks=%s rows=%s', checks, nrows) ||
           CASE WHEN cardinality(bad) = 0 THEN ' all ok'
                ELSE ' FAILED: ' || array_to_string(bad, '; ') END;
END $$;

-- 20000 keys 0, 10, ..., 199990 and 50 NULLs; merge_ratio 1 keeps the
-- inserted entries in the pending area for a while.
CREATE TABLE d (id serial, k int8, v text);
INSERT INTO d (k, v) SELECT i * 10, 'b' FROM generate_series(0, 19999) i;
INSERT INTO d (k, v) SELECT NULL, 'bn' FROM generate_series(1, 50);
CREATE INDEX d_k ON d USING learned (k) WITH (merge_ratio = 1);
ANALYZE d;
SELECT lverify('d');

-- Inserts after the build: between the keys, equal to existing keys,
-- beyond both ends, NULLs, extremes.
INSERT INTO d (k, v) SELECT i * 10 + 5, 'i1' FROM generate_series(0, 19999, 97) i;
INSERT INTO d (k, v) SELECT i * 10, 'i2' FROM generate_series(0, 19999, 101) i;
INSERT INTO d (k, v) VALUES (-5, 'i3'), (-9223372036854775808, 'i3'),
    (9223372036854775807, 'i3'), (250000, 'i3'), (NULL, 'i3'), (NULL, 'i3'),
    (77777, 'i3'), (77777, 'i3');
SELECT lverify('d');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT k, v FROM d WHERE k BETWEEN 95 AND 105 ORDER BY k, v;
SELECT k, v FROM d WHERE k < 11 ORDER BY k, v;
SELECT k, v FROM d WHERE k IS NOT NULL ORDER BY k DESC LIMIT 3;
SELECT count(*), count(k) FROM d WHERE k IS NULL;
SELECT k, v FROM d WHERE k = 77777;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Own inserts are visible inside the transaction; rolled-back ones never.
BEGIN;
INSERT INTO d (k, v) VALUES (33333, 'tx'), (NULL, 'tx');
SELECT lcheck('SELECT k, v FROM d WHERE k = 33333', 'is,bis');
SELECT lcheck('SELECT id, v FROM d WHERE k IS NULL', 'is,bis');
SAVEPOINT s1;
INSERT INTO d (k, v) VALUES (33334, 'sub');
ROLLBACK TO s1;
SELECT lcheck('SELECT k, v FROM d WHERE k BETWEEN 33333 AND 33334', 'is,bis');
ROLLBACK;
SELECT lcheck('SELECT k, v FROM d WHERE k BETWEEN 33333 AND 33334', 'is,bis');
SELECT lverify('d');

-- DELETE, then VACUUM, then new rows that reuse the freed heap slots with
-- other keys: a dead index entry left behind would point at a wrong row.
DELETE FROM d WHERE k % 20 = 0 OR v = 'i3' OR (k IS NULL AND id % 2 = 0);
SELECT lverify('d');
VACUUM d;
SELECT lverify('d');
INSERT INTO d (k, v) SELECT i * 20 + 1, 'r' FROM generate_series(0, 9999) i;
SELECT lverify('d');
SELECT lcheck('SELECT id, k, v FROM d WHERE k % 20 = 0 AND k BETWEEN 0 AND 200000', 'is,bis');
SELECT lcheck('SELECT k, v FROM d WHERE k BETWEEN 1000 AND 1100 ORDER BY k, v', 'is');
-- Delete everything from the pending area (and some of the rest) and vacuum.
DELETE FROM d WHERE v IN ('i1', 'i2', 'r') OR k > 190000;
VACUUM d;
SELECT lverify('d');
-- Everything, then vacuum: an index with no live entry.
DELETE FROM d;
VACUUM d;
SELECT lverify('d');
INSERT INTO d (k, v) SELECT i * 10, 'again' FROM generate_series(0, 19999, 3) i;
SELECT lverify('d');

-- UPDATE: key changes (new index entries) and HOT updates of other columns.
UPDATE d SET k = k + 1 WHERE k % 90 = 0;
UPDATE d SET v = 'hot' WHERE k % 30 = 0;
UPDATE d SET k = NULL WHERE k BETWEEN 1000 AND 1200;
UPDATE d SET k = 77777 WHERE k BETWEEN 2000 AND 2100;
SELECT lverify('d');
VACUUM d;
SELECT lverify('d');

-- TRUNCATE empties the index; it keeps working.
TRUNCATE d;
SELECT lverify('d');
INSERT INTO d (k, v) VALUES (5, 't'), (100, 't'), (NULL, 't'), (105, 't');
SELECT lverify('d');
INSERT INTO d (k, v) SELECT i * 10, 't2' FROM generate_series(0, 19999) i;
SELECT lverify('d');

-- REINDEX (plain and concurrent), CREATE INDEX CONCURRENTLY, on an index
-- with pending entries.
INSERT INTO d (k, v) SELECT i * 10 + 5, 'p' FROM generate_series(0, 19999, 50) i;
REINDEX INDEX d_k;
SELECT lverify('d');
INSERT INTO d (k, v) SELECT i * 10 + 7, 'p2' FROM generate_series(0, 19999, 50) i;
REINDEX TABLE d;
SELECT lverify('d');
INSERT INTO d (k, v) SELECT i * 10 + 8, 'p3' FROM generate_series(0, 19999, 50) i;
REINDEX INDEX CONCURRENTLY d_k;
SELECT lverify('d');
DROP INDEX d_k;
CREATE INDEX CONCURRENTLY d_k ON d USING learned (k);
SELECT lverify('d');
SELECT indisvalid, indisready FROM pg_index WHERE indexrelid = 'd_k'::regclass;

-- Reloption changes on an existing index.
ALTER INDEX d_k SET (merge_ratio = 1000);
INSERT INTO d (k, v) SELECT i * 10 + 9, 'm' FROM generate_series(0, 19999, 7) i;
SELECT lverify('d');
ALTER INDEX d_k SET (error_bound = 2);
INSERT INTO d (k, v) SELECT i * 10 + 3, 'm2' FROM generate_series(0, 19999, 11) i;
SELECT lverify('d');
REINDEX INDEX d_k;
SELECT lverify('d');
ALTER INDEX d_k RESET (error_bound, merge_ratio);
SELECT reloptions FROM pg_class WHERE relname = 'd_k';

-- Many more inserts than the build had.
CREATE TABLE g (id serial, k int8, v text);
INSERT INTO g (k, v) SELECT i * 100, 'b' FROM generate_series(1, 1000) i;
CREATE INDEX g_k ON g USING learned (k);
INSERT INTO g (k, v) SELECT (i * 7919) % 200000, 'g' FROM generate_series(1, 30000) i;
INSERT INTO g (k, v) SELECT NULL, 'g' FROM generate_series(1, 100) i;
SELECT lverify('g');
VACUUM g;
SELECT lverify('g');
DELETE FROM g WHERE id % 3 = 0;
VACUUM g;
SELECT lverify('g');

-- Unlogged and temporary tables.
CREATE UNLOGGED TABLE u (id serial, k int8, v text);
INSERT INTO u (k, v) SELECT i * 10, 'u' FROM generate_series(0, 19999) i;
CREATE INDEX u_k ON u USING learned (k);
INSERT INTO u (k, v) SELECT i * 10 + 5, 'u2' FROM generate_series(0, 19999, 13) i;
INSERT INTO u (k, v) VALUES (NULL, 'u3');
SELECT lverify('u');
DELETE FROM u WHERE k % 3 = 0;
VACUUM u;
SELECT lverify('u');
CREATE TEMP TABLE tmp (id serial, k int8, v text);
INSERT INTO tmp (k, v) SELECT i * 10, 't' FROM generate_series(0, 19999) i;
CREATE INDEX tmp_k ON tmp USING learned (k);
INSERT INTO tmp (k, v) SELECT i * 10 + 5, 't2' FROM generate_series(0, 19999, 13) i;
INSERT INTO tmp (k, v) VALUES (NULL, 't3'), (77777, 't3');
SELECT lverify('tmp');
DELETE FROM tmp WHERE k % 3 = 0;
VACUUM tmp;
SELECT lverify('tmp');
SELECT relpersistence, relname FROM pg_class WHERE relname IN ('u_k', 'tmp_k') ORDER BY relname;

-- A partitioned table with the learned index declared on the parent.
CREATE TABLE pt (id serial, k int8, v text) PARTITION BY RANGE (k);
CREATE TABLE pt_1 PARTITION OF pt FOR VALUES FROM (MINVALUE) TO (50000);
CREATE TABLE pt_2 PARTITION OF pt FOR VALUES FROM (50000) TO (150000);
CREATE TABLE pt_3 PARTITION OF pt FOR VALUES FROM (150000) TO (190000);
CREATE TABLE pt_def PARTITION OF pt DEFAULT;
INSERT INTO pt (k, v) SELECT i * 10, 'p' FROM generate_series(0, 18999) i;
INSERT INTO pt (k, v) VALUES (NULL, 'pn');
CREATE INDEX pt_k ON pt USING learned (k);
-- A table with its own learned index, attached later: the index is adopted.
CREATE TABLE pt_4 (id int4 NOT NULL DEFAULT 0, k int8, v text);
INSERT INTO pt_4 (k, v) SELECT i * 10, 'p4' FROM generate_series(19000, 19999) i;
CREATE INDEX pt_4_k ON pt_4 USING learned (k);
ALTER TABLE pt ATTACH PARTITION pt_4 FOR VALUES FROM (190000) TO (MAXVALUE);
SELECT c.relname, pg_get_indexdef(i.indexrelid),
       (SELECT p.relname FROM pg_inherits h JOIN pg_class p ON p.oid = h.inhparent
        WHERE h.inhrelid = i.indexrelid) AS parent_index
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid IN ('pt'::regclass, 'pt_1'::regclass, 'pt_2'::regclass,
                     'pt_3'::regclass, 'pt_4'::regclass, 'pt_def'::regclass)
ORDER BY 1;
INSERT INTO pt (k, v) SELECT i * 10 + 5, 'p2' FROM generate_series(0, 19999, 9) i;
INSERT INTO pt (k, v) VALUES (-9223372036854775808, 'x'), (9223372036854775807, 'x'), (NULL, 'x');
ANALYZE pt;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM pt WHERE k > 140000 AND k < 160000 ORDER BY k;
EXPLAIN (COSTS OFF) SELECT k FROM pt ORDER BY k DESC LIMIT 3;
SELECT k FROM pt ORDER BY k DESC LIMIT 3;
SELECT k FROM pt WHERE k IS NOT NULL ORDER BY k DESC LIMIT 3;
RESET enable_seqscan;
RESET enable_bitmapscan;
-- (terse: the CONTEXT line names the PL/pgSQL expression differently on 18)
\set VERBOSITY terse
SELECT lverify('pt');
DELETE FROM pt WHERE k % 4 = 0;
VACUUM pt;
SELECT lverify('pt');
\set VERBOSITY default

-- An exclusion constraint on a learned index behaves like a unique one.
CREATE TABLE ex (k int4, EXCLUDE USING learned (k WITH =));
INSERT INTO ex SELECT i FROM generate_series(1, 1000) i;
INSERT INTO ex VALUES (500);
INSERT INTO ex VALUES (1001), (NULL), (NULL);
INSERT INTO ex VALUES (1001);
SELECT count(*), count(k) FROM ex;

DROP TABLE d, g, u, tmp, pt, ex;
DROP FUNCTION lverify(text);
