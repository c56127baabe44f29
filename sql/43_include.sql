-- 43_include
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- INCLUDE columns: stored next to the key in leaf pages and pending
-- entries (fixed-width types), never compared, returned by index-only
-- scans.  A single key column with INCLUDE columns uses the composite
-- format (index order, NULLs inline).  Every answer is compared with a
-- sequential scan (lcheck).
--
SET client_min_messages = notice;

CREATE TABLE inc (k int4, d int8, f float8, ts timestamptz, u uuid, t text);
INSERT INTO inc SELECT CASE WHEN i % 41 = 0 THEN NULL ELSE i % 500 END,
    CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1000 END, i / 8.0,
    timestamptz '2024-01-01 00:00+00' + i * interval '1 minute',
    md5(i::text)::uuid, 'row ' || i
FROM generate_series(1, 5000) i;
CREATE INDEX inc_k ON inc USING learned (k) INCLUDE (d, f);
CREATE INDEX inc_kd ON inc USING learned (k DESC, d) INCLUDE (ts, u);
VACUUM ANALYZE inc;
SELECT learned_index_check(i, true) FROM unnest(ARRAY['inc_k', 'inc_kd']::regclass[]) i;
SELECT segment, items_per_page FROM learned_index_segments('inc_k');

-- index-only scans return the included columns
BEGIN;
DROP INDEX inc_kd;
EXPLAIN (COSTS OFF) SELECT k, d, f FROM inc WHERE k = 7;
SELECT lcheck('SELECT k, d, f FROM inc WHERE k = 7', 'is,ios,bis');
SELECT lcheck('SELECT d, f FROM inc WHERE k BETWEEN 10 AND 20', 'is,ios,bis');
SELECT lcheck('SELECT k, d, f FROM inc WHERE k > 490 ORDER BY k, f', 'is,ios');
SELECT lcheck('SELECT k, d, f FROM inc WHERE k < 3 OR k IS NULL ORDER BY k DESC, f', 'is,ios');
SELECT lcheck('SELECT k, d FROM inc WHERE k IS NULL', 'is,ios,bis');
SELECT lcheck('SELECT k, f FROM inc WHERE k = ANY(''{1, 250, 499, 600}'')', 'is,ios,bis');
-- a condition on an included column is a filter above the scan
SELECT lcheck('SELECT k, d FROM inc WHERE k = 8 AND d > 2000000', 'is,ios');
ROLLBACK;

BEGIN;
DROP INDEX inc_k;
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k = 7', 'is,ios,bis');
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k = 7 AND d < 3000000', 'is,ios,bis');
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k BETWEEN 5 AND 9 ORDER BY k DESC, d, ts', 'is,ios');
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k BETWEEN 5 AND 9 ORDER BY k, d DESC, ts', 'is,ios');
ROLLBACK;

-- pending entries, merges, VACUUM
SET learned_idx.pending_limit = '100MB';
INSERT INTO inc SELECT i % 600, i, -i, NULL, NULL, 'new' FROM generate_series(1, 900) i;
UPDATE inc SET d = d + 1 WHERE k = 7;
VACUUM inc;
BEGIN;
DROP INDEX inc_kd;
SELECT lcheck('SELECT k, d, f FROM inc WHERE k = 7', 'is,ios,bis');
SELECT lcheck('SELECT k, d, f FROM inc WHERE k > 590 ORDER BY k, f', 'is,ios');
ROLLBACK;
INSERT INTO inc SELECT i, i, i, NULL, NULL, 'more' FROM generate_series(1, 50) i;
SELECT learned_index_merge(i) >= 0 AND (SELECT pending_entries FROM learned_index_info(i)) = 0 AS merged FROM unnest(ARRAY['inc_k', 'inc_kd']::regclass[]) i;
DELETE FROM inc WHERE k % 3 = 0;
VACUUM inc;
SELECT learned_index_check(i, true) FROM unnest(ARRAY['inc_k', 'inc_kd']::regclass[]) i;
BEGIN;
DROP INDEX inc_kd;
SELECT lcheck('SELECT k, d, f FROM inc WHERE k = 7', 'is,ios,bis');
SELECT lcheck('SELECT k, d, f FROM inc WHERE k > 590 ORDER BY k, f', 'is,ios');
ROLLBACK;
BEGIN;
DROP INDEX inc_k;
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k = 7', 'is,ios,bis');
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k BETWEEN 5 AND 9 ORDER BY k DESC, d, ts', 'is,ios');
ROLLBACK;
RESET learned_idx.pending_limit;

-- INCLUDE columns of a variable-width type (text) are stored too, and
-- returned by index-only scans; a type learned indexes do not store is refused
CREATE INDEX inc_t ON inc USING learned (k) INCLUDE (t);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k, t FROM inc WHERE k BETWEEN 10 AND 12;
SELECT k, t FROM inc WHERE k BETWEEN 10 AND 12 ORDER BY k, t;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) FROM (SELECT k, t FROM inc WHERE k BETWEEN 10 AND 12 ORDER BY k, t) a
  FULL JOIN (SELECT k, t FROM inc WHERE k + 0 BETWEEN 10 AND 12) b USING (k, t)
  WHERE a.k IS NULL OR b.k IS NULL;
SELECT learned_index_check('inc_t', true);
ALTER TABLE inc ADD COLUMN m money;
CREATE INDEX inc_bad ON inc USING learned (k) INCLUDE (m);

DROP TABLE inc;

-- index-only scans reuse one tuple for items whose columns all have a fixed
-- width and none is NULL, writing each column at its aligned place: columns
-- of every width and alignment (int2 before int8 pads), by-reference ones
-- (uuid), and rows with NULLs between them (formed on their own)
CREATE TABLE pad (a int2, b int8, c bool, d float4, e uuid, f int2, g date, h float8);
INSERT INTO pad SELECT i % 40, CASE WHEN i % 11 = 0 THEN NULL ELSE -i END,
    i % 3 = 0, CASE WHEN i % 13 = 0 THEN NULL ELSE i / 4.0 END,
    md5(i::text)::uuid, (i % 7)::int2, date '2000-01-01' + i,
    CASE WHEN i % 17 = 0 THEN 'NaN' ELSE -i / 3.0 END
FROM generate_series(1, 3000) i;
CREATE INDEX pad_ab ON pad USING learned (a, b) INCLUDE (c, d, e, f, g, h);
CREATE INDEX pad_fa ON pad USING learned (f, a, c);
VACUUM ANALYZE pad;
BEGIN;
DROP INDEX pad_fa;
SELECT lcheck('SELECT a, b, c, d, e, f, g, h FROM pad WHERE a BETWEEN 3 AND 9', 'is,ios');
SELECT lcheck('SELECT a, b, e, h FROM pad WHERE a = 5 ORDER BY a, b, e', 'is,ios');
SELECT lcheck('SELECT a, b, c, d, e, f, g, h FROM pad WHERE a > 30 ORDER BY a DESC, b DESC, e', 'is,ios');
ROLLBACK;
BEGIN;
DROP INDEX pad_ab;
SELECT lcheck('SELECT f, a, c FROM pad WHERE f BETWEEN 2 AND 4 ORDER BY f, a, c', 'is,ios');
ROLLBACK;
-- without bool, each column's stored bytes are copied into the tuple as
-- they are: nine columns, the NULLs of the last one in a second byte of
-- the key's NULL bitmap
CREATE INDEX pad_nb ON pad USING learned (a, f) INCLUDE (d, e, g, h, a, f, b);
-- and pending entries, between and past the built ones
INSERT INTO pad SELECT i % 40, CASE WHEN i % 7 = 0 THEN NULL ELSE i END,
    i % 2 = 0, CASE WHEN i % 5 = 0 THEN NULL ELSE i / 8.0 END,
    md5(i::text)::uuid, (i % 9)::int2, date '1990-01-01' + i, i / 7.0
FROM generate_series(3001, 3600) i;
BEGIN;
DROP INDEX pad_ab, pad_fa;
SELECT lcheck('SELECT a, f, d, e, g, h, b FROM pad WHERE a BETWEEN 3 AND 9', 'is,ios');
SELECT lcheck('SELECT a, f, b, d, e, h FROM pad WHERE a = 5 AND f >= 2 ORDER BY a, f, e', 'is,ios');
SELECT lcheck('SELECT a, f, d, e, g, h, b FROM pad WHERE a > 30 ORDER BY a DESC, f DESC, e', 'is,ios');
ROLLBACK;
SELECT learned_index_check(i, true) FROM unnest(ARRAY['pad_ab', 'pad_fa', 'pad_nb']::regclass[]) i;
DROP TABLE pad;
