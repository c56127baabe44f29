-- kill_prior_tuple: a scan that finds an entry's heap tuple dead to every
-- transaction sets the entry's hint bit, and later scans skip it without a
-- heap visit.  The hints never change an answer: every query is compared
-- with the same query on a sequential scan.
SET enable_seqscan = off;
SET enable_bitmapscan = off;

CREATE FUNCTION hcheck(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    a text;
    b text;
BEGIN
    EXECUTE format('SELECT string_agg(x::text, '','') FROM (%s) x', q) INTO a;
    SET LOCAL enable_seqscan = on;
    SET LOCAL enable_indexscan = off;
    SET LOCAL enable_indexonlyscan = off;
    SET LOCAL enable_bitmapscan = off;
    EXECUTE format('SELECT string_agg(x::text, '','') FROM (%s) x', q) INTO b;
    RETURN CASE WHEN a IS NOT DISTINCT FROM b THEN 'same' ELSE 'DIFFERENT: ' || coalesce(a, '<null>') || ' vs ' || coalesce(b, '<null>') END;
END $$;

-- compressed pages (int8)
CREATE TABLE hq (k int8, v int);
INSERT INTO hq SELECT g, g FROM generate_series(1, 20000) g;
CREATE INDEX hq_k ON hq USING learned (k);
VACUUM ANALYZE hq;
SELECT hinted_entries, compressed_pages = leaf_pages AS compressed FROM learned_index_info('hq_k');

-- a queue: the oldest rows are deleted, and the next reader walks over them
DELETE FROM hq WHERE k <= 1000;
SELECT k FROM hq WHERE k > 0 ORDER BY k LIMIT 1;
-- every deleted entry it walked over is now hinted
SELECT hinted_entries FROM learned_index_info('hq_k');
SELECT hcheck('SELECT k FROM hq WHERE k > 0 ORDER BY k LIMIT 1');
SELECT hcheck('SELECT k, v FROM hq WHERE k BETWEEN 900 AND 1100 ORDER BY k');
SELECT hcheck('SELECT k FROM hq WHERE k <= 1500 ORDER BY k DESC');
SELECT learned_index_check('hq_k', true);

-- a deletion not yet committed is no reason to hint: the rows come back
BEGIN;
DELETE FROM hq WHERE k BETWEEN 5001 AND 5100;
SELECT count(*) FROM hq WHERE k BETWEEN 5001 AND 5200;
ROLLBACK;
SELECT hinted_entries FROM learned_index_info('hq_k');
SELECT count(*) FROM hq WHERE k BETWEEN 5001 AND 5200;

-- backward and bitmap scans: a backward scan hints too; a bitmap scan
-- skips hinted entries (the heap would drop them anyway)
DELETE FROM hq WHERE k > 19000;
SELECT k FROM hq WHERE k < 1000000 ORDER BY k DESC LIMIT 1;
SELECT hinted_entries FROM learned_index_info('hq_k');
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT count(*), sum(k) FROM hq WHERE k > 18000;
RESET enable_indexscan;
SET enable_bitmapscan = off;
SELECT hcheck('SELECT count(*), sum(k) FROM hq WHERE k > 18000');

-- an UPDATE that moves the key: the old entries die with the old versions
UPDATE hq SET k = k + 100000 WHERE k BETWEEN 3001 AND 3200;
SELECT count(*) FROM hq WHERE k BETWEEN 3001 AND 3200;
SELECT hinted_entries FROM learned_index_info('hq_k');
SELECT hcheck('SELECT k FROM hq WHERE k BETWEEN 2900 AND 3300 OR k > 100000 ORDER BY k');

-- VACUUM marks them dead in the WAL-logged dead bitmap and clears the
-- hints of each page it changes (a standby's copy never had them)
VACUUM hq;
SELECT hinted_entries, dead_entries > 0 AS some_dead FROM learned_index_info('hq_k');
SELECT learned_index_check('hq_k', true);
SELECT hcheck('SELECT k FROM hq WHERE k BETWEEN 2900 AND 3300 OR k > 100000 ORDER BY k');

-- a merge writes new pages: without hints, with room for them
INSERT INTO hq SELECT g, g FROM generate_series(30001, 32000) g;
SELECT learned_index_merge('hq_k') > 0 AS merged;
DELETE FROM hq WHERE k BETWEEN 30001 AND 30500;
SELECT count(*) FROM hq WHERE k BETWEEN 30001 AND 31000;
SELECT hinted_entries FROM learned_index_info('hq_k');
SELECT learned_index_check('hq_k', true);

-- a unique index: the insert's check walks over a deleted duplicate and
-- hints it, as btree's does
CREATE TABLE hu (k int8);
INSERT INTO hu SELECT g FROM generate_series(1, 5000) g;
-- (its ON CONFLICT warning, given before PostgreSQL 18, is 61_traps')
SET client_min_messages = error;
CREATE UNIQUE INDEX hu_k ON hu USING learned (k);
RESET client_min_messages;
DELETE FROM hu WHERE k = 42;
INSERT INTO hu VALUES (42);
SELECT hinted_entries FROM learned_index_info('hu_k');
INSERT INTO hu VALUES (42);
SELECT count(*) FROM hu WHERE k = 42;

-- variable-width (text) and stride (composite) pages have hints too
CREATE TABLE ht (k text, a int4, b int4);
INSERT INTO ht SELECT 'key' || lpad(g::text, 6, '0'), g % 7, g FROM generate_series(1, 10000) g;
CREATE INDEX ht_k ON ht USING learned (k);
CREATE INDEX ht_ab ON ht USING learned (a, b);
VACUUM ANALYZE ht;
DELETE FROM ht WHERE b <= 3000;
SELECT count(*) FROM ht WHERE k < 'key004000';
SELECT count(*) FROM ht WHERE a = 3 AND b < 5000;
SELECT (SELECT hinted_entries FROM learned_index_info('ht_k')) AS text_hinted,
       (SELECT hinted_entries FROM learned_index_info('ht_ab')) AS composite_hinted;
SELECT hcheck('SELECT k FROM ht WHERE k < ''key004000'' ORDER BY k');
SELECT hcheck('SELECT a, b FROM ht WHERE a = 3 AND b < 5000 ORDER BY a, b');
SELECT learned_index_check('ht_k', true), learned_index_check('ht_ab', true);

-- plain pages (compression = off, float, uuid keys...) have no room for
-- the bitmap (their layout is the index's capacity): no hints, same answers
CREATE TABLE hp (k int8);
INSERT INTO hp SELECT g FROM generate_series(1, 5000) g;
CREATE INDEX hp_k ON hp USING learned (k) WITH (compression = off);
DELETE FROM hp WHERE k <= 1000 OR k > 4900;
SELECT count(*) FROM hp WHERE k <= 1000 OR k > 4900;
SELECT hinted_entries FROM learned_index_info('hp_k');
SELECT hcheck('SELECT k FROM hp WHERE k <= 1100 OR k > 4800 ORDER BY k');

-- runs of gone entries of every length and alignment: scans step over
-- whole bytes of the dead and hint bitmaps where all 8 entries are gone,
-- never over the last slot they visit, in both directions; hinted (by a
-- first pass) and dead (after VACUUM) alike
CREATE TABLE hr (k int8, t text);
INSERT INTO hr SELECT g, 'r' || lpad(g::text, 6, '0') FROM generate_series(1, 12000) g;
CREATE INDEX hr_k ON hr USING learned (k);
CREATE INDEX hr_t ON hr USING learned (t);
VACUUM ANALYZE hr;
DELETE FROM hr WHERE (k % 101) < 61 OR k BETWEEN 3000 AND 4100 OR (k % 29) = 3;
SELECT count(*) FROM hr WHERE k > 0;
SELECT count(*) FROM hr WHERE t > 'r';
SELECT hcheck('SELECT k FROM hr WHERE k > 0 ORDER BY k');
SELECT hcheck('SELECT k FROM hr WHERE k < 100000 ORDER BY k DESC');
SELECT hcheck('SELECT k FROM hr WHERE k BETWEEN 2990 AND 4200 ORDER BY k');
SELECT hcheck('SELECT k FROM hr WHERE k BETWEEN 2990 AND 4200 ORDER BY k DESC');
SELECT hcheck('SELECT k FROM hr WHERE k BETWEEN 3003 AND 4097 ORDER BY k DESC');
SELECT hcheck('SELECT k FROM hr WHERE k >= 4101 ORDER BY k LIMIT 3');
SELECT hcheck('SELECT k FROM hr WHERE k <= 2999 ORDER BY k DESC LIMIT 3');
SELECT hcheck('SELECT t FROM hr WHERE t BETWEEN ''r002990'' AND ''r004200'' ORDER BY t');
SELECT hcheck('SELECT t FROM hr WHERE t BETWEEN ''r002990'' AND ''r004200'' ORDER BY t DESC');
SELECT (SELECT hinted_entries FROM learned_index_info('hr_k')) > 5000 AS k_hinted,
       (SELECT hinted_entries FROM learned_index_info('hr_t')) > 5000 AS t_hinted;
VACUUM hr;
SELECT hcheck('SELECT k FROM hr WHERE k > 0 ORDER BY k');
SELECT hcheck('SELECT k FROM hr WHERE k < 100000 ORDER BY k DESC');
SELECT hcheck('SELECT k FROM hr WHERE k BETWEEN 3003 AND 4097 ORDER BY k DESC');
SELECT hcheck('SELECT t FROM hr WHERE t BETWEEN ''r002990'' AND ''r004200'' ORDER BY t DESC');
SELECT learned_index_check('hr_k', true), learned_index_check('hr_t', true);

DROP TABLE hq, hu, ht, hp, hr;
DROP FUNCTION hcheck(text);
