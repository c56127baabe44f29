-- 65_fresh_scans
--
-- Fresh scans: each statement of a PL/pgSQL loop is a new index scan, as an
-- OLTP statement's is.  Its batch starts with room for 64 items and
-- grows while fill_batch fills it (a compressed page's slice is decoded a
-- step at a time); its leaf pages and metapage are read first through the
-- buffers that earlier scans of the backend read them into (hints kept in
-- the directory cache and rd_amcache).  Ranges whose lengths cross every
-- size the arrays grow through, both directions, compressed and plain
-- pages, duplicates of one key over several pages, and the same statements
-- again after a merge, a REINDEX and a TRUNCATE and reload (hints from the
-- directory before), against a btree on a copy of the table.
SET enable_bitmapscan = off;
SET enable_seqscan = off;
CREATE TABLE fs (k int8, v int);
INSERT INTO fs SELECT g * 2, g FROM generate_series(1, 30000) g;
-- key 7: 3000 duplicates, on six plain pages and across compressed slices
INSERT INTO fs SELECT 7, -g FROM generate_series(1, 3000) g;
CREATE INDEX fs_c ON fs USING learned (k) WITH (compression = on);
CREATE TABLE fs_ref AS SELECT * FROM fs;
CREATE INDEX fs_ref_k ON fs_ref (k);
-- fresh_check(): every range as its own statement, forward and backward,
-- with heap fetches (sum(v) of the rows, in index order) and index-only;
-- returns the number of statements whose rows differ from fs_ref's
CREATE FUNCTION fresh_check() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    lo int8;
    len int;
    bad int := 0;
    a int8[];
    b int8[];
    s1 numeric;
    s2 numeric;
BEGIN
    FOREACH len IN ARRAY ARRAY[1, 2, 10, 16, 17, 31, 33, 63, 64, 65, 127, 129, 255, 257,
                                511, 513, 1023, 1025, 2100, 5000]
    LOOP
        FOREACH lo IN ARRAY ARRAY[2, 1000, 1001, 30001, 59990 - 2 * len]
        LOOP
            -- the keys in index order, and the rows' v (heap fetches)
            SELECT array_agg(x.k), sum(x.v) INTO a, s1 FROM
                (SELECT k, v FROM fs WHERE k >= lo AND k < lo + 2 * len ORDER BY k) x;
            SELECT array_agg(x.k ORDER BY x.k), sum(x.v) INTO b, s2 FROM fs_ref x
                WHERE k >= lo AND k < lo + 2 * len;
            IF a IS DISTINCT FROM b OR s1 IS DISTINCT FROM s2 THEN
                bad := bad + 1;
            END IF;
            SELECT array_agg(x.k) INTO a FROM (SELECT k FROM fs WHERE k > lo AND k <= lo + 2 * len ORDER BY k DESC) x;
            SELECT array_agg(x.k ORDER BY x.k DESC) INTO b FROM fs_ref x WHERE k > lo AND k <= lo + 2 * len;
            IF a IS DISTINCT FROM b THEN
                bad := bad + 1;
            END IF;
        END LOOP;
    END LOOP;
    -- the duplicated key: an equality over thousands of entries, both ways
    FOR len IN 1..3 LOOP
        SELECT array_agg(x.v ORDER BY x.v) INTO a FROM (SELECT v FROM fs WHERE k = 7) x;
        SELECT array_agg(x.v ORDER BY x.v) INTO b FROM fs_ref x WHERE k = 7;
        IF a IS DISTINCT FROM b THEN
            bad := bad + 1;
        END IF;
        SELECT count(*) INTO lo FROM (SELECT k FROM fs WHERE k = 7 ORDER BY k DESC) x;
        IF lo <> 3000 THEN
            bad := bad + 1;
        END IF;
    END LOOP;
    RETURN bad;
END $$;
SELECT fresh_check() AS compressed_bad;
-- the plans: index scans on the learned index, forward and backward
EXPLAIN (COSTS OFF) SELECT v FROM fs WHERE k >= 10 AND k < 20 ORDER BY k;
EXPLAIN (COSTS OFF) SELECT k FROM fs WHERE k > 10 AND k <= 20 ORDER BY k DESC;
-- plain pages
DROP INDEX fs_c;
CREATE INDEX fs_p ON fs USING learned (k) WITH (compression = off);
SELECT fresh_check() AS plain_bad;
-- inserts into the ranges, then a merge: a new directory generation, whose
-- pages the old hints do not name
INSERT INTO fs SELECT g * 2 + 1, g FROM generate_series(400, 20000, 3) g;
INSERT INTO fs_ref SELECT g * 2 + 1, g FROM generate_series(400, 20000, 3) g;
SELECT fresh_check() AS pending_bad;
SELECT learned_index_merge('fs_p') >= 0 AS merged;
SELECT fresh_check() AS merged_bad;
-- REINDEX (a new relfilenode), then TRUNCATE and reload (new pages again)
REINDEX INDEX fs_p;
SELECT fresh_check() AS reindexed_bad;
TRUNCATE fs;
INSERT INTO fs SELECT * FROM fs_ref;
SELECT fresh_check() AS reloaded_bad;
ALTER INDEX fs_p SET (compression = on);
REINDEX INDEX fs_p;
SELECT fresh_check() AS compressed_again_bad;
-- a test that cannot fail would prove nothing: a wrong reference must show
UPDATE fs_ref SET v = v + 1 WHERE k = 1000;
SELECT fresh_check() > 0 AS detects_a_difference;
DROP TABLE fs, fs_ref;
DROP FUNCTION fresh_check();
