-- 71_append_points
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Keys that grow at several places at once (one counter per tenant or
-- district): a merge whose new entries for a segment all fall between two
-- neighbouring old entries, 256 of them or more, ends a segment right after
-- them; the next merge's keys for that place then sort after a segment's
-- last key, and the append path keeps that segment's pages (64 pages or
-- more) and writes the new keys as segment(s) after it, in the middle of
-- the index as at its end.  Checked: where segments start and end, which
-- ones kept their blocks, ordered scans in both directions across every
-- new boundary, cursors turning around on them, point lookups of the
-- boundary keys, learned_index_check after each step; and the cases that
-- must not cut (too few new keys, keys spread over the segment).
--

-- pverify(tab): queries around the places' boundaries, each checked by
-- lcheck against a sequential scan; one summary line.
CREATE FUNCTION pverify(tab text) RETURNS text
LANGUAGE sql AS $$
    SELECT lcheck_many(tab, ARRAY[
        'SELECT k FROM %I ORDER BY k',
        'SELECT k FROM %I ORDER BY k DESC',
        'SELECT k FROM %I WHERE k >= 799990 AND k < 1000000100 ORDER BY k',
        'SELECT k FROM %I WHERE k >= 799990 AND k < 1000000100 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k > 800300 ORDER BY k LIMIT 20',
        'SELECT k FROM %I WHERE k <= 800300 ORDER BY k DESC LIMIT 20',
        'SELECT k FROM %I WHERE k > 800600 ORDER BY k LIMIT 20',
        'SELECT k FROM %I WHERE k < 1000000010 ORDER BY k DESC LIMIT 20',
        'SELECT k FROM %I WHERE k BETWEEN 800290 AND 800310 ORDER BY k',
        'SELECT k FROM %I WHERE k BETWEEN 800590 AND 800610 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k IN (800000, 800001, 800300, 800301, 800600, 800601, 1000000010) ORDER BY k',
        'SELECT id, k FROM %I WHERE k = 800300',
        'SELECT id, k FROM %I WHERE k = 800301',
        'SELECT id, k FROM %I WHERE k = 800600',
        'SELECT id, k FROM %I WHERE k = 1000000010',
        'SELECT count(*), sum(hashint8(id)) FROM %I WHERE k >= 0',
        'SELECT count(*) FROM %I WHERE k BETWEEN 800001 AND 999999999'])
$$;

-- Two places: 100000 keys 8, 16, ..., 800000 and 80000 keys 10^9 + 10,
-- 10^9 + 20, ..., 10^9 + 800000; plain pages, about 310 of them.  No merge
-- but the ones asked for.
CREATE TABLE apt (id serial, k int8);
INSERT INTO apt (k) SELECT i * 8 FROM generate_series(1, 100000) i;
INSERT INTO apt (k) SELECT 1000000000 + i * 10 FROM generate_series(1, 80000) i;
CREATE INDEX apt_k ON apt USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000, compression = off);
ANALYZE apt;
CREATE TABLE pseg_before AS SELECT * FROM learned_index_segments('apt_k');
-- The segments now, with whether each one kept the blocks it had in the
-- snapshot table pseg_before (NULL: a segment the snapshot did not have).
CREATE FUNCTION psegs(idx regclass) RETURNS TABLE (segment int, first_key text,
    last_key text, pages int, entries int8, kept bool)
LANGUAGE sql AS $$
    SELECT n.segment, n.first_key, n.last_key, n.pages, n.entries,
           n.start_block = b.start_block AND n.pages = b.pages AND n.entries = b.entries
    FROM learned_index_segments(idx) n LEFT JOIN pseg_before b USING (segment)
    ORDER BY n.segment
$$;
SELECT * FROM psegs('apt_k');

-- 1. 255 keys after the first place's last key: too few to mark a place,
-- so no segment ends at them.  They reach two pages of the segment that
-- holds them, which are rewritten with them; the rest of that segment is
-- kept as two segments of its own (partial_rewrite, 72_partial_rewrite).
INSERT INTO apt (k) SELECT 800000 + i FROM generate_series(1, 255) i;
SELECT learned_index_merge('apt_k');
SELECT * FROM psegs('apt_k');
SELECT learned_index_check('apt_k', true);
SELECT pverify('apt');

-- 2. 45 more there and 300 spread over the first place (i * 10 + 5): not
-- one run, no cut; they reach every page of the place's segments, which
-- are rewritten whole.
DROP TABLE pseg_before;
CREATE TABLE pseg_before AS SELECT * FROM learned_index_segments('apt_k');
INSERT INTO apt (k) SELECT 800255 + i FROM generate_series(1, 45) i;
INSERT INTO apt (k) SELECT i * 2660 + 5 FROM generate_series(1, 300) i;  -- odd: no key of the place
SELECT learned_index_merge('apt_k');
SELECT * FROM psegs('apt_k');
SELECT learned_index_check('apt_k', true);
SELECT pverify('apt');

-- 3. 300 keys after the first place's last key (800300), two of them equal
-- to it: one run between 800300 and the second place's first key.  Step 1
-- left the place's end in a two-page segment, which also holds the second
-- place's first 398 keys: fewer than 16 pages of old entries after the
-- run, so no cut (step 8 shows one); the merge rewrites that small segment
-- and keeps the others.
DROP TABLE pseg_before;
CREATE TABLE pseg_before AS SELECT * FROM learned_index_segments('apt_k');
INSERT INTO apt (k) SELECT 800300 FROM generate_series(1, 2);
INSERT INTO apt (k) SELECT 800300 + i FROM generate_series(1, 298) i;
INSERT INTO apt (k) SELECT 800600 FROM generate_series(1, 2);
SELECT pverify('apt');  -- before the merge: the pending list holds them
SELECT learned_index_merge('apt_k');
SELECT * FROM psegs('apt_k');
SELECT learned_index_check('apt_k', true);
SELECT pverify('apt');

-- 4. The place grows again: its keys go to the same small segment, which
-- is rewritten with them; every other segment keeps its blocks (kept = t).
DROP TABLE pseg_before;
CREATE TABLE pseg_before AS SELECT * FROM learned_index_segments('apt_k');
INSERT INTO apt (k) SELECT 800600 FROM generate_series(1, 2);
INSERT INTO apt (k) SELECT 800600 + i FROM generate_series(1, 400) i;
SELECT learned_index_merge('apt_k');
SELECT * FROM psegs('apt_k');
SELECT learned_index_check('apt_k', true);
SELECT pverify('apt');
SELECT count(*) AS boundary_rows, count(DISTINCT id) AS distinct_ids FROM apt WHERE k = 800600;

-- Scroll cursors that turn around on the new boundaries, index scan only.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT k FROM apt WHERE k >= 800595 ORDER BY k;
FETCH 9 FROM c;
FETCH BACKWARD 6 FROM c;
FETCH 12 FROM c;
CLOSE c;
DECLARE d SCROLL CURSOR FOR SELECT k FROM apt WHERE k <= 1000000020 ORDER BY k DESC;
FETCH 4 FROM d;
FETCH BACKWARD 2 FROM d;
FETCH 3 FROM d;
COMMIT;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- 5. A deleted, vacuumed run of the place's keys, then keys at the place
-- again: every answer still as a sequential scan gives it.
DELETE FROM apt WHERE k BETWEEN 800650 AND 800700;
VACUUM apt;
INSERT INTO apt (k) SELECT 801000 + i FROM generate_series(1, 300) i;
SELECT learned_index_merge('apt_k');
SELECT learned_index_check('apt_k', true);
SELECT pverify('apt');

-- 6. Text keys under a libc collation other than C (en_US, as in
-- 48_libc_collation): their images are strxfrm prefixes, which the merge
-- does not trust to agree with the comparator across two streams, so 300
-- keys after a place's end do not cut a segment there, and the next
-- merge rewrites the segment that holds the place with them.  Answers as
-- a sequential scan gives them, either way.
CREATE COLLATION ap_en (provider = libc, locale = 'en_US.utf8');
CREATE TABLE apx (id serial, k text COLLATE ap_en);
INSERT INTO apx (k) SELECT 'b-' || lpad((i * 4)::text, 7, '0') FROM generate_series(1, 1000) i;
INSERT INTO apx (k) SELECT 'M ' || lpad((i * 4)::text, 7, '0') FROM generate_series(1, 9000) i;
CREATE INDEX apx_k ON apx USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
ANALYZE apx;
SELECT count(*) AS segments FROM learned_index_segments('apx_k');
INSERT INTO apx (k) SELECT 'b-' || lpad((4000 + i)::text, 7, '0') FROM generate_series(1, 300) i;
SELECT learned_index_merge('apx_k');
SELECT count(*) AS segments,
       count(*) FILTER (WHERE last_key = 'b-0004300') AS ending_at_place
FROM learned_index_segments('apx_k');
INSERT INTO apx (k) SELECT 'b-' || lpad((4300 + i)::text, 7, '0') FROM generate_series(1, 400) i;
SELECT learned_index_merge('apx_k');
SELECT learned_index_check('apx_k', true);
SELECT lcheck_many('apx', ARRAY[
    'SELECT k FROM %I ORDER BY k',
    'SELECT k FROM %I ORDER BY k DESC',
    'SELECT k FROM %I WHERE k >= ''b-0003990'' AND k < ''m 0000100'' ORDER BY k',
    'SELECT k FROM %I WHERE k > ''b-0004300'' ORDER BY k LIMIT 20',
    'SELECT k FROM %I WHERE k <= ''B-0004300'' ORDER BY k DESC LIMIT 20',
    'SELECT id, k FROM %I WHERE k = ''b-0004300''',
    'SELECT id, k FROM %I WHERE k IN (''b-0004000'', ''b-0004301'', ''b-0004700'', ''M 0000004'') ORDER BY k']);
DROP TABLE apx;
DROP COLLATION ap_en;

-- 7. A place whose keys grow downwards: each merge's run falls right before
-- the last one's.  A cut there would leave the last run behind as a small
-- segment that no key reaches again, one more every merge; no cut is made
-- with less than 16 pages of old entries after it, so ten merges leave the
-- segment count where it was (give or take the rewrite's own cuts).
CREATE TABLE apg (id serial, k int8);
INSERT INTO apg (k) SELECT i FROM generate_series(1, 60000) i;
INSERT INTO apg (k) SELECT 2000000 + i FROM generate_series(1, 60000) i;
CREATE INDEX apg_k ON apg USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000, compression = off);
SELECT count(*) AS segments_before FROM learned_index_segments('apg_k');
DO $$
BEGIN
    FOR r IN 1..10 LOOP
        INSERT INTO apg (k) SELECT 2000000 - r * 300 + i FROM generate_series(0, 299) i;
        PERFORM learned_index_merge('apg_k');
    END LOOP;
END
$$;
SELECT count(*) <= 4 AS few_segments, count(*) FILTER (WHERE pages = 1) AS one_page_segments
FROM learned_index_segments('apg_k');
SELECT learned_index_check('apg_k', true);
SELECT lcheck_many('apg', ARRAY[
    'SELECT k FROM %I ORDER BY k',
    'SELECT k FROM %I WHERE k BETWEEN 1996900 AND 2000010 ORDER BY k DESC',
    'SELECT count(*) FROM %I WHERE k > 60000']);
DROP TABLE apg;

-- 8. An append point in a segment that a merge rewrites whole (under 32
-- pages, too small to keep parts of), with 16 pages or more of old entries
-- after the new run: the merge ends a segment right after the run, and
-- the next merge's keys for the place go to that segment alone (the one
-- after it keeps its blocks).
CREATE TABLE apc (id serial, k int8);
INSERT INTO apc (k) SELECT i * 8 FROM generate_series(1, 2000) i;
INSERT INTO apc (k) SELECT 1000000000 + i * 10 FROM generate_series(1, 12000) i;
CREATE INDEX apc_k ON apc USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000, compression = off);
SELECT segment, first_key, last_key, pages FROM learned_index_segments('apc_k') ORDER BY segment;
INSERT INTO apc (k) SELECT 16000 + i FROM generate_series(1, 300) i;
SELECT learned_index_merge('apc_k');
SELECT segment, first_key, last_key, pages FROM learned_index_segments('apc_k') ORDER BY segment;
CREATE TABLE apc_before AS SELECT * FROM learned_index_segments('apc_k');
INSERT INTO apc (k) SELECT 16300 + i FROM generate_series(1, 300) i;
SELECT learned_index_merge('apc_k');
SELECT n.segment, n.first_key, n.last_key, n.pages, n.start_block = b.start_block AS same_blocks
FROM learned_index_segments('apc_k') n LEFT JOIN apc_before b USING (segment) ORDER BY n.segment;
SELECT learned_index_check('apc_k', true);
SELECT lcheck_many('apc', ARRAY[
    'SELECT k FROM %I ORDER BY k',
    'SELECT k FROM %I WHERE k BETWEEN 15990 AND 1000000100 ORDER BY k DESC',
    'SELECT id, k FROM %I WHERE k IN (16000, 16001, 16300, 16301, 16600, 1000000010)',
    'SELECT count(*) FROM %I WHERE k > 0']);
DROP TABLE apc;
DROP TABLE apc_before;

DROP TABLE apt;
DROP TABLE pseg_before;
DROP FUNCTION pverify(text);
DROP FUNCTION psegs(regclass);
