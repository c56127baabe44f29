-- kill_prior_tuple on pending entries.  A run entry whose heap tuple a scan
-- found dead to every transaction gets a hint on its data page
-- (LEARNED_PENDING_HINT, counted in hinted_entries), which every backend's
-- later scans skip; an entry of the unsorted tail keeps the hint in the
-- backend's copy.  Either way the next scan visits no heap page for them:
-- the buffers of EXPLAIN (ANALYZE, BUFFERS) drop.  Answers never change:
-- every query is compared with a sequential scan.
SET learned_idx.auto_merge = off;
SET learned_idx.tail_limit = 200;
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- lcheck() compares with a sequential scan; query_blocks() counts the
-- buffers a query's plan touched (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

CREATE TABLE ph (k int8, pad text) WITH (autovacuum_enabled = off);
INSERT INTO ph SELECT g, repeat('x', 200) FROM generate_series(1, 1000) g;
CREATE INDEX ph_k ON ph USING learned (k);
-- 3000 pending entries, in runs and the tail, their heap rows scattered
-- over the heap's pages (a fixed permutation of the keys)
INSERT INTO ph SELECT 1000 + (g * 7919) % 3000 + 1, repeat('x', 200)
FROM generate_series(0, 2999) g;
SELECT sum(entries) FILTER (WHERE run IS NOT NULL) > 0 AS in_runs,
       sum(entries) FILTER (WHERE run IS NULL) > 0 AS in_tail
FROM learned_index_runs('ph_k');
SELECT pending_entries, hinted_entries FROM learned_index_info('ph_k');

-- a transaction that deletes them and rolls back is no reason to hint
BEGIN;
DELETE FROM ph WHERE k > 1000;
SELECT count(*) FROM ph WHERE k > 1000;
ROLLBACK;
SELECT count(*) FROM ph WHERE k > 1000;
SELECT hinted_entries FROM learned_index_info('ph_k');

-- delete them: the first scan walks over every deleted entry, fetching its
-- heap tuple, and hints it; the second fetches none
DELETE FROM ph WHERE k > 1000;
SELECT query_blocks('SELECT k FROM ph WHERE k > 1000') AS first_scan_hits \gset
SELECT query_blocks('SELECT k FROM ph WHERE k > 1000') AS second_scan_hits \gset
SELECT :first_scan_hits > 3000 AS first_visits_every_entry,
       :second_scan_hits < 100 AS second_visits_no_heap;
-- on the run pages: the run entries, and not the tail's
SELECT i.hinted_entries = (SELECT sum(entries) FROM learned_index_runs('ph_k') WHERE run IS NOT NULL)
       AS runs_hinted
FROM learned_index_info('ph_k') i;
SELECT lcheck('SELECT k FROM ph WHERE k > 900 ORDER BY k', 'is,ios,bis');
SELECT lcheck('SELECT k FROM ph WHERE k > 900 ORDER BY k DESC', 'is,ios,bis');
SELECT lcheck('SELECT k FROM ph WHERE k BETWEEN 1990 AND 2010', 'is,ios,bis');
SELECT learned_index_check('ph_k', true);

-- another backend: the run pages' hints are shared, the tail copy's are not
\c
SET learned_idx.auto_merge = off;
SET learned_idx.tail_limit = 200;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT query_blocks('SELECT k FROM ph WHERE k > 1000') AS other_first_hits \gset
SELECT query_blocks('SELECT k FROM ph WHERE k > 1000') AS other_second_hits \gset
SELECT :other_first_hits < :first_scan_hits AS run_hints_shared,
       :other_first_hits > :other_second_hits AS tail_hints_its_own,
       :other_second_hits < 100 AS then_no_heap;

-- an index-only scan and a bitmap scan skip them too
SET enable_indexonlyscan = on;
SELECT count(*) FROM ph WHERE k > 1000;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT count(*), sum(k) FROM ph WHERE k > 500;
RESET enable_indexscan;
SET enable_bitmapscan = off;

-- rows inserted after the hints: found (new entries, new TIDs)
INSERT INTO ph SELECT g, 'y' FROM generate_series(1001, 1010) g;
SELECT lcheck('SELECT k FROM ph WHERE k > 995 ORDER BY k', 'is,ios,bis');

-- a unique index: the insert's check walks over deleted duplicates in a
-- run, hinting them, and the same keys insert again
CREATE TABLE pu (k int8, pad text) WITH (autovacuum_enabled = off);
INSERT INTO pu SELECT g, 'a' FROM generate_series(1, 100) g;
SET client_min_messages = error;  -- (15-17 warn about ON CONFLICT)
CREATE UNIQUE INDEX pu_k ON pu USING learned (k);
RESET client_min_messages;
INSERT INTO pu SELECT g, 'b' FROM generate_series(101, 1100) g;
DELETE FROM pu WHERE k > 100;
INSERT INTO pu SELECT g, 'c' FROM generate_series(101, 1100) g;
SELECT count(*), min(pad), max(pad) FROM pu WHERE k > 100;
INSERT INTO pu VALUES (500, 'dup');
SELECT hinted_entries > 0 AS hinted FROM learned_index_info('pu_k');
SELECT learned_index_check('pu_k', true);

-- VACUUM marks the hinted entries dead on their run pages (each such page
-- is logged whole, hints included: LearnedXLogRegister); then a merge
VACUUM ph;
SELECT hinted_entries, pending_entries FROM learned_index_info('ph_k');
SELECT learned_index_check('ph_k', true);
SELECT lcheck('SELECT k FROM ph WHERE k > 995 ORDER BY k', 'is,ios,bis');
DELETE FROM pu WHERE k BETWEEN 200 AND 300;
SELECT count(*) FROM pu WHERE k BETWEEN 150 AND 350;
SELECT learned_index_merge('pu_k') > 0 AS merged;
SELECT count(*) FROM pu WHERE k BETWEEN 150 AND 350;
SELECT learned_index_check('pu_k', true);

DROP TABLE ph, pu;
