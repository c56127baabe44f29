-- 21_gc: merges recycle the pages earlier merges replaced, without VACUUM.
-- Random keys reach every segment, so every merge rewrites the whole static
-- stage copy-on-write; without merge-time garbage collection the relation
-- grows by a copy of the index per merge until a VACUUM.  Each INSERT and
-- each merge below is its own transaction (\gexec in autocommit), so the
-- horizon passes each flip and the next merge may collect.
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all
CREATE TABLE gc (k int8);
SELECT setseed(0.21);
INSERT INTO gc SELECT (random() * 1e9)::int8 FROM generate_series(1, 20000);
-- merge_ratio 1 and a large pending_limit: only the merges asked for
CREATE INDEX gc_k ON gc USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
SELECT s FROM generate_series(1, 15) i,
    LATERAL (VALUES (1, 'INSERT INTO gc SELECT (random() * 1e9)::int8 FROM generate_series(1, 5000)'),
                    (2, 'SELECT learned_index_merge(''gc_k'') AS merged')) v(o, s)
ORDER BY i, o
\gexec
-- 15 merges, 95000 entries: the relation stays within three times the
-- reachable pages plus the collection threshold (measured: 421 pages for 169
-- reachable; with the collection disabled, 1768)
SELECT generation, entries, pending_entries,
       total_pages <= 3 * (leaf_pages + directory_pages + null_pages + pending_pages + 1) + 64
           AS bounded
FROM learned_index_info('gc_k');
SELECT learned_index_check('gc_k', true);
-- VACUUM gives the free tail of the file back (as it truncates a heap):
-- no snapshot predates the last merge, so every unreachable page is free,
-- and merges allocate first fit, so the last ones are at the end.  The
-- segments, directory and pending pages all stay before the cut.
SELECT total_pages AS pages_before FROM learned_index_info('gc_k') \gset
-- not with vacuum_truncate = off (a reloption, as a table's)
ALTER INDEX gc_k SET (vacuum_truncate = off);
VACUUM gc;
SELECT total_pages = :pages_before AS kept FROM learned_index_info('gc_k');
ALTER INDEX gc_k RESET (vacuum_truncate);
VACUUM gc;
SELECT total_pages < :pages_before AS truncated,
       total_pages >= (SELECT max(start_block + pages) FROM learned_index_segments('gc_k'))
           AS segments_kept
FROM learned_index_info('gc_k');
SELECT learned_index_check('gc_k', true);
-- the answers are still a sequential scan's (lcheck: every row, each scan type)
SELECT lcheck('SELECT k FROM gc WHERE k >= 0', 'is,ios,bis');
-- and a merge after the cut (which allocates from the free holes, or
-- extends the file again) keeps them right
INSERT INTO gc SELECT (random() * 1e9)::int8 FROM generate_series(1, 20000);
SELECT learned_index_merge('gc_k') AS merged;
SELECT learned_index_check('gc_k', true);
SELECT lcheck('SELECT k FROM gc WHERE k >= 0', 'is,ios,bis');
DROP TABLE gc;
