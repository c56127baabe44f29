-- 10_compression
-- expected/10_compression_1.out: PostgreSQL 18 and later, whose planner serves more of
-- these queries with the index ("noidx" becomes "ok": OR of equalities as
-- = ANY, boolean columns); edit both files alike.
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Compressed leaf pages (reloption compression = on | off, read by the
-- build and by each merge): which key types compress, exact answers and
-- exact index-only keys at the type's extremes, NULLs, duplicates, dead
-- entries, merges in the current setting, segment splits, and the figures
-- of learned_index_info / learned_index_segments.  Every answer is compared
-- with a sequential scan (lcheck).
--
SET client_min_messages = notice;
SELECT setseed(0.31);

-- the reloption
CREATE TABLE c_opt (k int8);
CREATE INDEX c_opt_k ON c_opt USING learned (k) WITH (compression = maybe);
CREATE INDEX c_opt_k ON c_opt USING learned (k);
SELECT compression FROM learned_index_info('c_opt_k');
ALTER INDEX c_opt_k SET (compression = off);
SELECT compression, compressed_pages, leaf_pages, mean_items_per_page IS NULL AS no_pages
FROM learned_index_info('c_opt_k');
ALTER INDEX c_opt_k SET (compression = 'yes');
DROP TABLE c_opt;

-- every single-column type, with its extremes, NULLs and duplicates
CREATE TABLE ct (id int, i2 int2, i4 int4, i8 int8, o oid, d date, ts timestamp,
                 tz timestamptz, ti time, f8 float8, u uuid, c2 int4);
INSERT INTO ct SELECT i,
    CASE WHEN i % 37 = 0 THEN NULL ELSE (i % 60001 - 30000)::int2 END,
    CASE WHEN i % 41 = 0 THEN NULL ELSE (i / 3) * 7 - 50000 END,
    CASE WHEN i % 43 = 0 THEN NULL ELSE i::int8 * 1000003 - 10000000000 END,
    CASE WHEN i % 47 = 0 THEN NULL ELSE (i * 13)::oid END,
    CASE WHEN i % 53 = 0 THEN NULL ELSE date '2000-01-01' + i / 4 END,
    CASE WHEN i % 59 = 0 THEN NULL ELSE timestamp '2020-01-01' + i * interval '1 second' END,
    CASE WHEN i % 61 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00+00' + (i / 2) * interval '1 minute' END,
    CASE WHEN i % 67 = 0 THEN NULL ELSE time '00:00' + (i * 7 % 86400) * interval '1 second' END,
    CASE WHEN i % 71 = 0 THEN NULL ELSE i / 7.0 END,
    md5(i::text)::uuid, i % 100
FROM generate_series(1, 30000) i;
INSERT INTO ct VALUES
    (30001, -32768, -2147483648, -9223372036854775808, 0, '-infinity', '-infinity', '-infinity', '00:00', '-infinity', NULL, 0),
    (30002, 32767, 2147483647, 9223372036854775807, 4294967295, 'infinity', 'infinity', 'infinity', '24:00', 'infinity', NULL, 0),
    (30003, 0, 0, 0, 1, '4713-01-01 BC', '4713-01-01 BC', '4713-01-01 00:00+00 BC', '00:00:00.000001', 'NaN', NULL, 0),
    (30004, -1, -1, -1, 2147483648, '5874897-12-31', '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00', '23:59:59.999999', '-0', NULL, 0);
-- heap order follows i2 for a while: correlated TIDs too
INSERT INTO ct (id, i2, i4, i8) SELECT 40000 + i, 12345, 12345, 12345 FROM generate_series(1, 3000) i;
VACUUM ANALYZE ct;
CREATE INDEX ct_i2 ON ct USING learned (i2) WITH (compression = on);
CREATE INDEX ct_i4 ON ct USING learned (i4) WITH (compression = on);
CREATE INDEX ct_i8 ON ct USING learned (i8) WITH (error_bound = 4, compression = on);
CREATE INDEX ct_o ON ct USING learned (o) WITH (compression = on);
CREATE INDEX ct_d ON ct USING learned (d) WITH (compression = on);
CREATE INDEX ct_ts ON ct USING learned (ts) WITH (compression = on);
CREATE INDEX ct_tz ON ct USING learned (tz DESC) WITH (compression = on);
CREATE INDEX ct_ti ON ct USING learned (ti) WITH (mode = zonemap, compression = on);
CREATE INDEX ct_f8 ON ct USING learned (f8) WITH (compression = on);
CREATE INDEX ct_u ON ct USING learned (u) WITH (compression = on);
CREATE INDEX ct_c2 ON ct USING learned (c2, i4) WITH (compression = on);
CREATE INDEX ct_inc ON ct USING learned (i8) INCLUDE (i4) WITH (compression = on);
-- integer-like keys compress (and hold more per page); floats, uuid,
-- composite keys and INCLUDE columns stay plain
SELECT c.relname, i.compression, i.compressed_pages = i.leaf_pages AS all_compressed,
       i.compressed_pages > 0 AS some_compressed,
       i.mean_items_per_page > i.items_per_page AS denser,
       learned_index_check(c.oid, true) AS check_ok
FROM pg_class c, learned_index_info(c.oid) i
WHERE c.relname LIKE 'ct\_%' AND c.relkind = 'i' ORDER BY c.relname;
-- (composite keys live on variable-width pages: each segment has its own P,
-- none compressed)
SELECT c.relname, bool_and(CASE WHEN c.relname IN ('ct_c2', 'ct_inc') THEN NOT s.compressed
                                ELSE s.compressed = (s.items_per_page <> i.items_per_page OR s.compressed) END) AS consistent
FROM pg_class c, learned_index_info(c.oid) i, learned_index_segments(c.oid) s
WHERE c.relname LIKE 'ct\_%' AND c.relkind = 'i' AND s.kind <> 'nulls'
GROUP BY c.relname ORDER BY c.relname;

CREATE TABLE ctq (n serial, q text, modes text DEFAULT 'is,ios,bis');
INSERT INTO ctq (q) VALUES
  ('SELECT i2 FROM ct WHERE i2 = -32768'),
  ('SELECT i2 FROM ct WHERE i2 >= 32000 ORDER BY i2'),
  ('SELECT i2 FROM ct WHERE i2 < -29990 ORDER BY i2 DESC'),
  ('SELECT i2 FROM ct WHERE i2 BETWEEN -5 AND 5'),
  ('SELECT i2 FROM ct WHERE i2 = 12345'),
  ('SELECT i4 FROM ct WHERE i4 IN (-2147483648, 2147483647, 0, -1, 12345, 7, -50000)'),
  ('SELECT i4 FROM ct WHERE i4 > 19900 ORDER BY i4'),
  ('SELECT i8 FROM ct WHERE i8 = -9223372036854775808 OR i8 = 9223372036854775807'),
  ('SELECT i8 FROM ct WHERE i8 BETWEEN -100 AND 5000000'),
  ('SELECT i8 FROM ct WHERE i8 < -9999000000 ORDER BY i8 DESC'),
  ('SELECT o FROM ct WHERE o >= 4294967295'),
  ('SELECT o FROM ct WHERE o > 2147483647 OR o < 3'),
  ('SELECT o FROM ct WHERE o BETWEEN 1000 AND 1300 ORDER BY o'),
  ('SELECT d FROM ct WHERE d = ''-infinity'' OR d = ''infinity'''),
  ('SELECT d FROM ct WHERE d < ''2000-01-03'' ORDER BY d'),
  ('SELECT d FROM ct WHERE d > ''5000-01-01'''),
  ('SELECT ts FROM ct WHERE ts >= ''294276-12-31'' OR ts <= ''4713-01-02 BC'''),
  ('SELECT ts FROM ct WHERE ts BETWEEN ''2020-01-01 01:00'' AND ''2020-01-01 01:01'' ORDER BY ts'),
  ('SELECT tz FROM ct WHERE tz > ''2020-01-10 00:00+00'' ORDER BY tz DESC'),
  ('SELECT tz FROM ct WHERE tz = ''2020-01-01 00:05+00'''),
  ('SELECT ti FROM ct WHERE ti = ''24:00'' OR ti = ''00:00'''),
  ('SELECT ti FROM ct WHERE ti > ''23:59:59'' ORDER BY ti'),
  ('SELECT ti FROM ct WHERE ti BETWEEN ''12:00'' AND ''12:00:30'''),
  ('SELECT f8 FROM ct WHERE f8 = ''NaN'' OR f8 = ''-infinity'' OR f8 = 0'),
  ('SELECT f8 FROM ct WHERE f8 > 4280 ORDER BY f8'),
  ('SELECT i8, i4 FROM ct WHERE i8 BETWEEN 0 AND 3000000'),
  ('SELECT id FROM ct WHERE i2 IS NULL'),
  ('SELECT id FROM ct WHERE i8 IS NULL'),
  ('SELECT id FROM ct WHERE o IS NOT NULL AND o < 100');
SELECT n, lcheck(q, modes) FROM ctq ORDER BY n;

-- VACUUM marks dead entries on compressed pages; scans skip them
DELETE FROM ct WHERE id % 3 = 0;
VACUUM ct;
SELECT c.relname, i.dead_entries > 0 AS has_dead, learned_index_check(c.oid, true) AS check_ok
FROM pg_class c, learned_index_info(c.oid) i
WHERE c.relname IN ('ct_i2', 'ct_i8', 'ct_o', 'ct_ts') ORDER BY c.relname;
SELECT n, lcheck(q, modes) FROM ctq WHERE n % 4 = 1 ORDER BY n;

-- a merge writes its segments in the index's current setting (merge_ratio = 1:
-- no background merge races learned_index_merge below); untouched
-- segments keep their format
CREATE TABLE cm (id serial, k int8);
INSERT INTO cm (k) SELECT i * 10 FROM generate_series(1, 200000) i;
CREATE INDEX cm_k ON cm USING learned (k) WITH (merge_ratio = 1, compression = off);
SELECT segments > 1 AS several, compressed_pages FROM learned_index_info('cm_k');
ALTER INDEX cm_k SET (compression = on);
-- new keys at the end: only the last segment is rewritten (compressed)
INSERT INTO cm (k) SELECT 2000000 + i FROM generate_series(1, 5000) i;
SELECT learned_index_merge('cm_k') > 0 AS merged;
SELECT bool_or(compressed) AS some_compressed, bool_or(NOT compressed) AS some_plain
FROM learned_index_segments('cm_k') WHERE kind <> 'nulls';
SELECT learned_index_check('cm_k', true);
SELECT lcheck('SELECT k FROM cm WHERE k BETWEEN 1999990 AND 2000010 ORDER BY k', 'is,ios,bis');
SELECT lcheck('SELECT count(*) FROM cm WHERE k > 1000', 'is,ios,bis');
-- and back: keys everywhere, every segment rewritten plain
ALTER INDEX cm_k SET (compression = off);
INSERT INTO cm (k) SELECT i * 10 + 5 FROM generate_series(1, 200000, 1000) i;
INSERT INTO cm (k) SELECT 2000000 + i FROM generate_series(1, 5000, 100) i;
SELECT learned_index_merge('cm_k') > 0 AS merged;
SELECT compressed_pages FROM learned_index_info('cm_k');
SELECT learned_index_check('cm_k', true);
SELECT lcheck('SELECT k FROM cm WHERE k BETWEEN 4990 AND 5020 ORDER BY k', 'is,ios,bis');

-- a compressed build large enough for several segments (128 pages each at
-- most), then a merge into them
CREATE TABLE cs (id serial, k int8);
INSERT INTO cs (k) SELECT (i::int8 * 7919) % 700001 * 3 FROM generate_series(1, 700001) i;
CREATE INDEX cs_k ON cs USING learned (k) WITH (merge_ratio = 1000, compression = on);
SELECT segments > 1 AS several, compressed_pages = leaf_pages AS all_compressed,
       mean_items_per_page > 4 * items_per_page AS much_denser
FROM learned_index_info('cs_k');
SELECT bool_and(pages <= 128) AS capped FROM learned_index_segments('cs_k');
INSERT INTO cs (k) SELECT i * 3 + 1 FROM generate_series(1, 700001, 997) i;
SELECT learned_index_merge('cs_k') > 0 AS merged;
SELECT learned_index_check('cs_k', true);
SELECT lcheck('SELECT k FROM cs WHERE k BETWEEN 1000000 AND 1000100 ORDER BY k', 'is,ios,bis');
SELECT lcheck('SELECT k FROM cs WHERE k > 2099000 ORDER BY k DESC', 'is,ios,bis');
SELECT lcheck('SELECT k FROM cs WHERE k IN (0, 1, 3, 4, 2100000, 2100003, 5)', 'is,ios,bis');

DROP TABLE ct, ctq, cm, cs;
