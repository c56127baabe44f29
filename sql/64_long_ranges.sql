-- 64_long_ranges
--
-- Long ranges: fill_batch tests one entry per decoded step inside a
-- single-column range and takes the ones between untested, and index-only
-- scans reuse one index tuple for a by-value key.  Every range end at every
-- offset of a step, both directions, compressed and plain pages, with dead
-- and hinted entries, pending entries and NULLs, against a sequential scan.
SET enable_bitmapscan = off;
SET enable_seqscan = off;
CREATE TABLE lr (k int8, v int);
INSERT INTO lr SELECT g * 2, g FROM generate_series(1, 20000) g;
INSERT INTO lr VALUES (NULL, 0), (NULL, 1);
CREATE INDEX lr_c ON lr USING learned (k) WITH (compression = on);
CREATE TABLE lr_ref AS SELECT * FROM lr;
-- every end offset within two steps, both directions, both bounds' kinds
SELECT count(*) AS mismatches FROM generate_series(0, 70) e, (VALUES (1000), (1001)) s(lo),
  LATERAL (SELECT
    (SELECT coalesce(array_agg(k ORDER BY k), '{}') FROM (SELECT k FROM lr WHERE k >= s.lo AND k <= s.lo + 2 * e ORDER BY k) a) AS fi,
    (SELECT coalesce(array_agg(k ORDER BY k DESC), '{}') FROM (SELECT k FROM lr WHERE k > s.lo AND k < s.lo + 2 * e ORDER BY k DESC) a) AS bi,
    (SELECT coalesce(array_agg(k ORDER BY k), '{}') FROM lr_ref WHERE k >= s.lo AND k <= s.lo + 2 * e) AS fr,
    (SELECT coalesce(array_agg(k ORDER BY k DESC), '{}') FROM lr_ref WHERE k > s.lo AND k < s.lo + 2 * e) AS br) x
  WHERE fi <> fr OR bi <> br;
-- long ranges across pages, index-only and with heap fetches
SELECT (SELECT sum(k) FROM lr WHERE k BETWEEN 3 AND 39001) =
       (SELECT sum(k) FROM lr_ref WHERE k BETWEEN 3 AND 39001) AS ios_same;
-- dead entries, pending entries (inside the range), NULLs
DELETE FROM lr WHERE k % 14 = 0;
DELETE FROM lr_ref WHERE k % 14 = 0;
INSERT INTO lr SELECT g * 2 + 1, g FROM generate_series(100, 9000, 7) g;
INSERT INTO lr_ref SELECT g * 2 + 1, g FROM generate_series(100, 9000, 7) g;
VACUUM lr;
SELECT (SELECT array_agg(k ORDER BY k DESC) FROM (SELECT k FROM lr WHERE k > 150 AND k <= 30001 ORDER BY k DESC) a) =
       (SELECT array_agg(k ORDER BY k DESC) FROM lr_ref WHERE k > 150 AND k <= 30001) AS back_same;
SELECT (SELECT array_agg(k ORDER BY k) FROM (SELECT k FROM lr WHERE k >= 150 AND k < 30001 ORDER BY k) a) =
       (SELECT array_agg(k ORDER BY k) FROM lr_ref WHERE k >= 150 AND k < 30001) AS fwd_same;
SELECT (SELECT count(*) FROM lr WHERE k IS NULL), (SELECT count(*) FROM lr WHERE k < 100000);
SET enable_indexonlyscan = off;
SELECT (SELECT sum(v) FROM lr WHERE k BETWEEN 3 AND 39001) =
       (SELECT sum(v) FROM lr_ref WHERE k BETWEEN 3 AND 39001) AS heap_same;
-- a plain (uncompressed) index: the step is tested by random access
DROP INDEX lr_c;
CREATE INDEX lr_p ON lr USING learned (k) WITH (compression = off);
RESET enable_indexonlyscan;
SELECT count(*) AS mismatches FROM generate_series(0, 70) e,
  LATERAL (SELECT
    (SELECT coalesce(array_agg(k ORDER BY k DESC), '{}') FROM (SELECT k FROM lr WHERE k >= 2000 AND k <= 2000 + e ORDER BY k DESC) a) AS bi,
    (SELECT coalesce(array_agg(k ORDER BY k DESC), '{}') FROM lr_ref WHERE k >= 2000 AND k <= 2000 + e) AS br) x
  WHERE bi <> br;
DROP TABLE lr, lr_ref;
