-- 22_append
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- The append path of a merge: when every pending key routed to the last
-- segment sorts at or after its last key, and that segment has at least
-- half the segment cap (64 pages), the merge keeps its pages and writes the
-- new keys as new segment(s) after it.  Keys equal to the old last key go
-- to the new segment, so a run of equal keys spans the boundary.  Checked:
-- the old segment keeps its blocks (start_block), ordered scans in both
-- directions across the boundary (also cursors that turn around on it),
-- point lookups of the boundary key, learned_index_check after each step;
-- and the cases that must still rewrite (a key below the last key, a small
-- tail segment).
--

-- averify(tab): queries on k around the boundary key 800000, each checked
-- by lcheck against a sequential scan; one summary line.
CREATE FUNCTION averify(tab text) RETURNS text
LANGUAGE sql AS $$
    SELECT lcheck_many(tab, ARRAY[
        'SELECT k FROM %I ORDER BY k',
        'SELECT k FROM %I ORDER BY k DESC',
        'SELECT k FROM %I WHERE k >= 799990 ORDER BY k',
        'SELECT k FROM %I WHERE k >= 799990 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k >= 800000 ORDER BY k',
        'SELECT k FROM %I WHERE k >= 800000 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k > 800000 ORDER BY k',
        'SELECT k FROM %I WHERE k > 800000 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k <= 800000 ORDER BY k DESC LIMIT 12',
        'SELECT k FROM %I WHERE k < 800000 ORDER BY k DESC LIMIT 12',
        'SELECT k FROM %I WHERE k BETWEEN 799990 AND 800010 ORDER BY k',
        'SELECT k FROM %I WHERE k BETWEEN 799990 AND 800010 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k IN (799990, 800000, 800001, 800250, 900000) ORDER BY k',
        'SELECT k FROM %I WHERE k IN (799990, 800000, 800001, 800250, 900000) ORDER BY k DESC',
        'SELECT k FROM %I ORDER BY k DESC LIMIT 20',
        'SELECT id, k FROM %I WHERE k = 800000',
        'SELECT id, k FROM %I WHERE k = 800001',
        'SELECT id, k FROM %I WHERE k = 799990',
        'SELECT id, k FROM %I WHERE k BETWEEN 799000 AND 801000',
        'SELECT count(*), sum(hashint8(id)) FROM %I WHERE k >= 0',
        'SELECT count(*) FROM %I WHERE k >= 800000'])
$$;

-- 80000 keys 10, 20, ..., 800000, plus 4 more rows of the last key: two
-- segments of about 70 pages.  No merge but the ones asked for.
CREATE TABLE ap (id serial, k int8);
INSERT INTO ap (k) SELECT i * 10 FROM generate_series(1, 80000) i;
INSERT INTO ap (k) SELECT 800000 FROM generate_series(1, 4);
CREATE INDEX ap_k ON ap USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000, compression = off);
ANALYZE ap;
CREATE TABLE seg_before AS SELECT * FROM learned_index_segments('ap_k');
-- The segments now, with whether each one kept the blocks it had in the
-- snapshot table seg_before (NULL: a segment the snapshot did not have).
CREATE FUNCTION asegs(idx regclass) RETURNS TABLE (segment int, first_key text,
    last_key text, pages int, entries int8, kept bool)
LANGUAGE sql AS $$
    SELECT n.segment, n.first_key, n.last_key, n.pages, n.entries,
           n.start_block = b.start_block AND n.pages = b.pages AND n.entries = b.entries
    FROM learned_index_segments(idx) n LEFT JOIN seg_before b USING (segment)
    ORDER BY n.segment
$$;
SELECT * FROM asegs('ap_k');

-- 1. A pending key below the last key (799995), one equal to it: they
-- reach only the last segment's last page, so the merge rewrites that page
-- with them and keeps the 68 pages before it as a segment of their own
-- (partial_rewrite, 72_partial_rewrite: same blocks, a new descriptor, so
-- kept = f here).
INSERT INTO ap (k) VALUES (799995), (800000);
SELECT learned_index_merge('ap_k');
SELECT * FROM asegs('ap_k');
SELECT learned_index_check('ap_k', true);
SELECT averify('ap');

-- 2. Keys at or after the last key, three of them equal to it: the last
-- segment is now the one rewritten page, too small for the append path
-- (64 pages), so it is rewritten with them; the large segment before it
-- keeps its pages (kept = t).  Step 5 shows the append path keeping a
-- large last segment and starting a new one at the old last key.
DROP TABLE seg_before;
CREATE TABLE seg_before AS SELECT * FROM learned_index_segments('ap_k');
INSERT INTO ap (k) SELECT 800000 FROM generate_series(1, 3);
INSERT INTO ap (k) SELECT 800010 + i FROM generate_series(1, 500) i;
SELECT averify('ap');  -- before the merge: the pending list holds them
SELECT learned_index_merge('ap_k');
SELECT * FROM asegs('ap_k');
SELECT learned_index_check('ap_k', true);
SELECT averify('ap');
SELECT count(*) AS boundary_rows, count(DISTINCT id) AS distinct_ids FROM ap WHERE k = 800000;

-- Scroll cursors that turn around on the boundary, index scan only.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT k FROM ap WHERE k >= 799990 ORDER BY k;
FETCH 8 FROM c;
FETCH BACKWARD 6 FROM c;
FETCH 10 FROM c;
FETCH BACKWARD 3 FROM c;
CLOSE c;
DECLARE d SCROLL CURSOR FOR SELECT k FROM ap WHERE k <= 800012 ORDER BY k DESC;
FETCH 16 FROM d;
FETCH BACKWARD 8 FROM d;
FETCH 4 FROM d;
COMMIT;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- 3. More rows of the boundary key, and keys above: they route to the
-- small last segment, which is rewritten with them; the big one stays kept.
INSERT INTO ap (k) SELECT 800000 FROM generate_series(1, 2);
INSERT INTO ap (k) SELECT 801000 + i FROM generate_series(1, 100) i;
SELECT averify('ap');
SELECT learned_index_merge('ap_k');
SELECT * FROM asegs('ap_k');
SELECT learned_index_check('ap_k', true);
SELECT averify('ap');

-- 4. The last key deleted and vacuumed (dead entries stay in the kept
-- segment), then keys after it, one equal to it.
DELETE FROM ap WHERE k >= 801050;
VACUUM ap;
DROP TABLE seg_before;
CREATE TABLE seg_before AS SELECT * FROM learned_index_segments('ap_k');
INSERT INTO ap (k) SELECT 801100 FROM generate_series(1, 2);
INSERT INTO ap (k) SELECT 801100 + i FROM generate_series(1, 50) i;
SELECT learned_index_merge('ap_k');
SELECT * FROM asegs('ap_k');
SELECT learned_index_check('ap_k', true);
SELECT averify('ap');

-- 5. Enough appended keys to fill a large segment: the next append merge
-- keeps it and adds a new one.
DROP TABLE seg_before;
INSERT INTO ap (k) SELECT 900000 + i FROM generate_series(1, 40000) i;
SELECT learned_index_merge('ap_k');
CREATE TABLE seg_before AS SELECT * FROM learned_index_segments('ap_k');
INSERT INTO ap (k) SELECT 940000 FROM generate_series(1, 2);
INSERT INTO ap (k) SELECT 950000 + i FROM generate_series(1, 700) i;
SELECT learned_index_merge('ap_k');
SELECT * FROM asegs('ap_k');
SELECT learned_index_check('ap_k', true);
SELECT averify('ap');

-- 6. The same in zone-map mode: kept segments keep their zone maps.
DROP INDEX ap_k;
CREATE INDEX ap_k ON ap USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000, mode = zonemap, compression = off);
DROP TABLE seg_before;
CREATE TABLE seg_before AS SELECT * FROM learned_index_segments('ap_k');
SELECT segment, kind, pages FROM learned_index_segments('ap_k') ORDER BY segment;
INSERT INTO ap (k) SELECT 950700 FROM generate_series(1, 2);
INSERT INTO ap (k) SELECT 960000 + i FROM generate_series(1, 300) i;
SELECT learned_index_merge('ap_k');
SELECT * FROM asegs('ap_k');
SELECT learned_index_check('ap_k', true);
SELECT averify('ap');

DROP TABLE ap;
DROP TABLE seg_before;
DROP FUNCTION averify(text);
DROP FUNCTION asegs(regclass);
