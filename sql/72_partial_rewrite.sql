-- 72_partial_rewrite
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Partial rewrites (merge.c, partial_rewrite): a merge whose new entries
-- reach only some pages of a model segment keeps the runs of at least 16
-- pages they do not reach as segments of their own (same blocks, the old
-- model shifted) and rewrites only the pages around the new entries.
-- Checked after each merge: which segments sit on blocks that were static
-- pages before (kept) and which were written anew, learned_index_check,
-- and queries across every new boundary in both directions against a
-- sequential scan, with dead entries inside a kept part.
--

-- 1. Order lines of 4 districts, 3000 orders of 10 lines each: a composite
-- key that grows at 4 places.  No merge but the ones asked for.
CREATE TABLE pr (id serial, d int, o int, n int);
INSERT INTO pr (d, o, n) SELECT d, o, n
FROM generate_series(1, 4) d, generate_series(1, 3000) o, generate_series(1, 10) n;
CREATE INDEX pr_k ON pr USING learned (d, o, n) WITH (merge_ratio = 1, pending_limit = 100000);
ANALYZE pr;

-- prsegs(idx): the segments, each with whether its first block was a
-- static page in the snapshot table pr_before (kept) or not (written).
CREATE TABLE pr_before AS SELECT * FROM learned_index_segments('pr_k') WHERE false;
CREATE FUNCTION prsegs(idx regclass) RETURNS TABLE (segment int, first_key text,
    last_key text, pages int, entries int8, kept bool)
LANGUAGE sql AS $$
    SELECT n.segment, n.first_key, n.last_key, n.pages, n.entries,
           EXISTS (SELECT 1 FROM pr_before b
                   WHERE n.start_block BETWEEN b.start_block AND b.start_block + b.pages - 1)
    FROM learned_index_segments(idx) n ORDER BY n.segment
$$;
CREATE FUNCTION prsnap(idx regclass) RETURNS void
LANGUAGE sql AS $$
    DELETE FROM pr_before;
    INSERT INTO pr_before SELECT * FROM learned_index_segments(idx);
$$;

SELECT prsnap('pr_k');
SELECT * FROM prsegs('pr_k');

-- New orders at the end of district 2 and, like TPC-C's deliveries, new
-- entries for old keys of district 2 (orders 1001-1100: an updated row is a
-- new index entry with the same key).  The merge keeps the pages before
-- order 1001 and those between order 1100 and the district's end, and
-- rewrites the two stretches the new entries reach (the second one with
-- the next district's first keys, which its segment held: they become a
-- segment of their own after the new orders, an append point).
INSERT INTO pr (d, o, n) SELECT 2, 3000 + o, n FROM generate_series(1, 100) o, generate_series(1, 10) n;
INSERT INTO pr (d, o, n) SELECT 2, 1000 + o, n FROM generate_series(1, 100) o, generate_series(1, 10) n;
SELECT lcheck('SELECT d, o, n FROM pr WHERE d = 2 AND o BETWEEN 995 AND 1105 ORDER BY d, o, n, id', 'is');
SELECT learned_index_merge('pr_k');
SELECT * FROM prsegs('pr_k');
SELECT learned_index_check('pr_k', true);
SELECT lcheck_many('pr', ARRAY[
    'SELECT d, o, n FROM %I ORDER BY d, o, n',
    'SELECT d, o, n FROM %I ORDER BY d DESC, o DESC, n DESC',
    'SELECT id, d, o, n FROM %I WHERE d = 2 AND o BETWEEN 990 AND 1110',
    'SELECT d, o, n FROM %I WHERE (d, o) >= (2, 1000) ORDER BY d, o, n LIMIT 30',
    'SELECT d, o, n FROM %I WHERE (d, o) <= (2, 1101) ORDER BY d DESC, o DESC, n DESC LIMIT 30',
    'SELECT d, o, n FROM %I WHERE d = 2 AND o > 2990 ORDER BY d, o, n',
    'SELECT d, o, n FROM %I WHERE (d, o) BETWEEN (2, 3095) AND (3, 2) ORDER BY d DESC, o DESC, n DESC',
    'SELECT count(*) FROM %I WHERE d = 2 AND o = 1050',
    'SELECT count(*) FROM %I WHERE d = 2 AND o = 1101 AND n = 1',
    'SELECT count(*) FROM %I WHERE d >= 1']);

-- 2. Dead entries inside a part that the next merge keeps: deleted rows of
-- district 2 (orders 500-520) and district 3, vacuumed (marked dead in
-- place), then new entries elsewhere in district 2.
SELECT prsnap('pr_k');
DELETE FROM pr WHERE d IN (2, 3) AND o BETWEEN 500 AND 520;
VACUUM pr;
INSERT INTO pr (d, o, n) SELECT 2, 1100 + o, n FROM generate_series(1, 100) o, generate_series(1, 10) n;
INSERT INTO pr (d, o, n) SELECT 2, 3100 + o, n FROM generate_series(1, 100) o, generate_series(1, 10) n;
SELECT learned_index_merge('pr_k');
SELECT * FROM prsegs('pr_k');
SELECT learned_index_check('pr_k', true);
SELECT lcheck_many('pr', ARRAY[
    'SELECT d, o, n FROM %I ORDER BY d, o, n',
    'SELECT id, d, o, n FROM %I WHERE d IN (2, 3) AND o BETWEEN 490 AND 530',
    'SELECT id, d, o, n FROM %I WHERE d = 2 AND o BETWEEN 1090 AND 1210',
    'SELECT count(*) FROM %I WHERE d >= 1']);

-- Cursors that turn around on the new boundaries, index scan only.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT d, o, n FROM pr WHERE (d, o) >= (2, 1099) ORDER BY d, o, n;
FETCH 5 FROM c;
FETCH FORWARD 20 FROM c;
FETCH BACKWARD 12 FROM c;
CLOSE c;
COMMIT;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- 3. A single int8 column on compressed pages: keys 10, 20, ..., 6000000
-- and 2000 new keys in one narrow stretch (500001-502000): the pages below
-- and above it are kept.  Then random keys over the whole range: every
-- page receives some, so the merge rewrites every segment (nothing kept).
CREATE TABLE pk (id serial, k int8);
INSERT INTO pk (k) SELECT i * 10 FROM generate_series(1, 600000) i;
CREATE INDEX pk_k ON pk USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
SELECT prsnap('pk_k');
INSERT INTO pk (k) SELECT 500000 + i FROM generate_series(1, 2000) i;
SELECT learned_index_merge('pk_k');
SELECT * FROM prsegs('pk_k');
SELECT learned_index_check('pk_k', true);
SELECT lcheck_many('pk', ARRAY[
    'SELECT k FROM %I ORDER BY k',
    'SELECT k FROM %I WHERE k BETWEEN 499990 AND 502010 ORDER BY k DESC',
    'SELECT id, k FROM %I WHERE k IN (10, 500000, 500001, 500010, 502000, 502010, 6000000)',
    'SELECT count(*), sum(k) FROM %I WHERE k > 0']);
SELECT prsnap('pk_k');
INSERT INTO pk (k) SELECT (i * 7919) % 6000000 + 5 FROM generate_series(1, 2000) i;
SELECT learned_index_merge('pk_k');
SELECT count(*) FILTER (WHERE kept) AS kept_segments, count(*) AS segments FROM prsegs('pk_k');
SELECT learned_index_check('pk_k', true);
SELECT lcheck_many('pk', ARRAY[
    'SELECT k FROM %I ORDER BY k',
    'SELECT count(*), sum(k) FROM %I WHERE k > 0']);

DROP TABLE pr;
DROP TABLE pk;
DROP TABLE pr_before;
DROP FUNCTION prsegs(regclass);
DROP FUNCTION prsnap(regclass);
