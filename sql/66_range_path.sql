-- 66_range_path
--
-- The per-tuple path of long ranges: fill_batch takes the entries between
-- two matching ones (a run) without a test but the dead and hint bitmaps',
-- tests the end of the next step first after a run, and decodes a
-- compressed slice one step at a time into fixed arrays; amgettuple returns
-- the batch's next item directly while the pending stream has nothing left.
-- Checked against a btree on a copy of the table: ranges of many lengths
-- from many starts (so runs, steps, slices and pages end at every offset),
-- both directions, with heap fetches and index-only; entries VACUUM marked
-- dead whose heap slots hold new rows with other keys (a run that took a
-- dead entry would return them); hints set at batch and page boundaries;
-- pending entries in and at the end of a range; mark and restore of a
-- merge join; a scroll cursor moving back and forth; text keys.
SET enable_bitmapscan = off;
SET enable_seqscan = off;
SET learned_idx.auto_merge = off;
CREATE TABLE rp (k int8, v int8) WITH (autovacuum_enabled = false);
INSERT INTO rp SELECT g * 2, g FROM generate_series(1, 30000) g;
CREATE INDEX rp_c ON rp USING learned (k) WITH (compression = on);
CREATE TABLE rp_ref (k int8, v int8);
INSERT INTO rp_ref SELECT * FROM rp;
CREATE INDEX rp_ref_k ON rp_ref (k);
-- range_check(): statements whose rows differ from rp_ref's (keys in index
-- order and sum(v) with heap fetches; keys index-only; both directions)
CREATE FUNCTION range_check() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    lo int8;
    len int;
    bad int := 0;
    a int8[];
    b int8[];
    s1 numeric;
    s2 numeric;
BEGIN
    FOREACH len IN ARRAY ARRAY[95, 96, 97, 255, 256, 257, 300, 767, 768, 769, 1000,
                                1791, 1792, 1793, 4100, 9000]
    LOOP
        FOREACH lo IN ARRAY ARRAY[2, 33, 1000, 7777, 60000 - 2 * len]
        LOOP
            SET LOCAL enable_indexonlyscan = off;
            SELECT array_agg(x.k), sum(x.v) INTO a, s1 FROM
                (SELECT k, v FROM rp WHERE k >= lo AND k <= lo + 2 * len ORDER BY k) x;
            SELECT array_agg(x.k ORDER BY x.k), sum(x.v) INTO b, s2 FROM rp_ref x
                WHERE k >= lo AND k <= lo + 2 * len;
            IF a IS DISTINCT FROM b OR s1 IS DISTINCT FROM s2 THEN
                bad := bad + 1;
            END IF;
            SELECT array_agg(x.k), sum(x.v) INTO a, s1 FROM
                (SELECT k, v FROM rp WHERE k > lo AND k < lo + 2 * len ORDER BY k DESC) x;
            SELECT array_agg(x.k ORDER BY x.k DESC), sum(x.v) INTO b, s2 FROM rp_ref x
                WHERE k > lo AND k < lo + 2 * len;
            IF a IS DISTINCT FROM b OR s1 IS DISTINCT FROM s2 THEN
                bad := bad + 1;
            END IF;
            SET LOCAL enable_indexonlyscan = on;
            SELECT array_agg(x.k) INTO a FROM
                (SELECT k FROM rp WHERE k >= lo AND k < lo + 2 * len ORDER BY k) x;
            SELECT array_agg(x.k ORDER BY x.k) INTO b FROM rp_ref x
                WHERE k >= lo AND k < lo + 2 * len;
            IF a IS DISTINCT FROM b THEN
                bad := bad + 1;
            END IF;
        END LOOP;
    END LOOP;
    RETURN bad;
END $$;
SELECT range_check() AS compressed_bad;
-- every end offset through the first five decoded steps (16, 32, 64, 128,
-- 128 entries), both directions
SELECT count(*) AS mismatches FROM generate_series(0, 400, 3) e,
  LATERAL (SELECT
    (SELECT coalesce(array_agg(k), '{}') FROM (SELECT k FROM rp WHERE k >= 5000 AND k <= 5000 + 2 * e ORDER BY k) a) AS fi,
    (SELECT coalesce(array_agg(k), '{}') FROM (SELECT k FROM rp WHERE k >= 5000 - 2 * e AND k < 5000 ORDER BY k DESC) a) AS bi,
    (SELECT coalesce(array_agg(k ORDER BY k), '{}') FROM rp_ref WHERE k >= 5000 AND k <= 5000 + 2 * e) AS fr,
    (SELECT coalesce(array_agg(k ORDER BY k DESC), '{}') FROM rp_ref WHERE k >= 5000 - 2 * e AND k < 5000) AS br) x
  WHERE fi <> fr OR bi <> br;
-- the plans: index scans of the learned index
EXPLAIN (COSTS OFF) SELECT k, v FROM rp WHERE k >= 10 AND k <= 20 ORDER BY k DESC;
-- dead entries: VACUUM marks them and frees their heap slots, which new
-- rows with keys outside every range above then take (below a fifth of
-- the entries: VACUUM would rewrite a segment with more dead)
DELETE FROM rp WHERE v % 16 = 0 OR v % 256 IN (1, 255) OR v BETWEEN 3000 AND 3100;
DELETE FROM rp_ref WHERE v % 16 = 0 OR v % 256 IN (1, 255) OR v BETWEEN 3000 AND 3100;
VACUUM rp;
INSERT INTO rp SELECT -g, -g FROM generate_series(1, 6000) g;
INSERT INTO rp_ref SELECT -g, -g FROM generate_series(1, 6000) g;
SELECT count(*) > 0 AS reused_slots FROM rp
  WHERE k < 0 AND ctid < (SELECT max(ctid) FROM rp WHERE k > 0);
SELECT dead_entries > 0 AS has_dead, pending_entries FROM learned_index_info('rp_c');
SELECT range_check() AS dead_bad;
-- hints: the first scan with heap fetches walks over the deleted rows
-- (every seventh, and three of every 256: a range's slices hold 256, 512,
-- 1024 entries, so some are at batch ends) and hints every one; the second
-- skips them
CREATE TABLE rp_del AS SELECT count(*) AS n FROM rp_ref
  WHERE k BETWEEN 4000 AND 36000 AND (v % 7 = 0 OR v % 256 IN (0, 254, 3));
DELETE FROM rp WHERE k BETWEEN 4000 AND 36000 AND (v % 7 = 0 OR v % 256 IN (0, 254, 3));
DELETE FROM rp_ref WHERE k BETWEEN 4000 AND 36000 AND (v % 7 = 0 OR v % 256 IN (0, 254, 3));
SELECT hinted_entries AS hinted_before FROM learned_index_info('rp_c');
SET enable_indexonlyscan = off;
SELECT count(*), sum(v) FROM rp WHERE k BETWEEN 4000 AND 36000;
SELECT count(*), sum(v) FROM rp_ref WHERE k BETWEEN 4000 AND 36000;
-- each row deleted in the range is hinted, once
SELECT hinted_entries AS hinted_after, (SELECT n FROM rp_del) AS deleted
  FROM learned_index_info('rp_c');
SELECT count(*), sum(v) FROM (SELECT v FROM rp WHERE k BETWEEN 4000 AND 36000 ORDER BY k DESC) x;
RESET enable_indexonlyscan;
SELECT range_check() AS hinted_bad;
-- pending entries: inside ranges, and one past every static entry of a range
INSERT INTO rp SELECT g * 2 + 1, g FROM generate_series(500, 20000, 11) g;
INSERT INTO rp_ref SELECT g * 2 + 1, g FROM generate_series(500, 20000, 11) g;
INSERT INTO rp VALUES (60003, 1), (60005, 2);
INSERT INTO rp_ref VALUES (60003, 1), (60005, 2);
SELECT pending_entries > 0 AS has_pending FROM learned_index_info('rp_c');
SELECT range_check() AS pending_bad;
SELECT (SELECT array_agg(k) FROM (SELECT k FROM rp WHERE k >= 50000 ORDER BY k) x) =
       (SELECT array_agg(k ORDER BY k) FROM rp_ref WHERE k >= 50000) AS tail_same;
-- mark and restore: a merge join of duplicated keys, the learned index inner
CREATE TABLE rp_outer (k int8);
INSERT INTO rp_outer SELECT g * 2 FROM generate_series(1, 20000) g, generate_series(1, 2);
SET enable_hashjoin = off;
SET enable_nestloop = off;
CREATE FUNCTION rp_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
    t text := '';
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        t := t || r || ' ';
    END LOOP;
    RETURN t;
END $$;
SELECT rp_plan('SELECT count(*), sum(t.v) FROM (SELECT k FROM rp_outer ORDER BY k) o
  JOIN rp t ON t.k = o.k WHERE o.k BETWEEN 100 AND 39000') ~ 'Merge Join.*Index Scan using rp_c on rp t'
  AS merge_join_on_learned;
SELECT count(*), sum(t.v) FROM (SELECT k FROM rp_outer ORDER BY k) o
  JOIN rp t ON t.k = o.k WHERE o.k BETWEEN 100 AND 39000;
INSERT INTO rp SELECT k, 0 FROM rp WHERE k BETWEEN 20000 AND 26000;
INSERT INTO rp_ref SELECT k, 0 FROM rp_ref WHERE k BETWEEN 20000 AND 26000;
SELECT learned_index_merge('rp_c') >= 0 AS merged;
SELECT count(*), sum(t.v) FROM (SELECT k FROM rp_outer ORDER BY k) o
  JOIN rp t ON t.k = o.k WHERE o.k BETWEEN 100 AND 39000;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_seqscan = on;
SET enable_hashjoin = on;
SELECT count(*), sum(t.v) FROM rp_outer o JOIN rp_ref t ON t.k = o.k WHERE o.k BETWEEN 100 AND 39000;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_seqscan;
RESET enable_hashjoin;
RESET enable_nestloop;
SET enable_seqscan = off;
-- a scroll cursor (the executor materializes: amcanbackward is false)
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT k FROM rp WHERE k BETWEEN 1000 AND 50000 ORDER BY k;
MOVE FORWARD 3000 IN c;
FETCH 1 FROM c;
MOVE BACKWARD 1500 IN c;
FETCH 1 FROM c;
MOVE FORWARD 4000 IN c;
FETCH 1 FROM c;
COMMIT;
SELECT k FROM rp_ref WHERE k BETWEEN 1000 AND 50000 ORDER BY k OFFSET 3000 LIMIT 1;
SELECT k FROM rp_ref WHERE k BETWEEN 1000 AND 50000 ORDER BY k OFFSET 1501 LIMIT 1;
SELECT k FROM rp_ref WHERE k BETWEEN 1000 AND 50000 ORDER BY k OFFSET 5502 LIMIT 1;
-- plain pages: the same ranges, runs tested by random access
DROP INDEX rp_c;
CREATE INDEX rp_p ON rp USING learned (k) WITH (compression = off);
SELECT range_check() AS plain_bad;
-- text keys, rebuilt from a page prefix into a small ring of buffers:
-- an entry's key is copied into the batch after the probes past it
CREATE TABLE rp_text (t text);
INSERT INTO rp_text SELECT 'key' || lpad(g::text, 6, '0') FROM generate_series(1, 20000) g;
CREATE INDEX rp_text_t ON rp_text USING learned (t);
CREATE TABLE rp_text_ref AS SELECT * FROM rp_text;
SELECT count(*) AS text_mismatches FROM generate_series(0, 300, 7) e,
  LATERAL (SELECT 'key' || lpad((5000 + e)::text, 6, '0') AS hi) h,
  LATERAL (SELECT
    (SELECT coalesce(array_agg(t), '{}') FROM (SELECT t FROM rp_text WHERE t >= 'key005000' AND t <= h.hi ORDER BY t) a) AS fi,
    (SELECT coalesce(array_agg(t), '{}') FROM (SELECT t FROM rp_text WHERE t > 'key005000' AND t < h.hi ORDER BY t DESC) a) AS bi,
    (SELECT coalesce(array_agg(t ORDER BY t), '{}') FROM rp_text_ref WHERE t >= 'key005000' AND t <= h.hi) AS fr,
    (SELECT coalesce(array_agg(t ORDER BY t DESC), '{}') FROM rp_text_ref WHERE t > 'key005000' AND t < h.hi) AS br) x
  WHERE fi <> fr OR bi <> br;
DROP TABLE rp_text, rp_text_ref;
-- a test that cannot fail would prove nothing: a wrong reference must show
UPDATE rp_ref SET v = v + 1 WHERE k = 7778;
SELECT range_check() > 0 AS detects_a_difference;
DROP TABLE rp, rp_ref, rp_outer, rp_del;
RESET learned_idx.auto_merge;
DROP FUNCTION range_check();
DROP FUNCTION rp_plan(text);
