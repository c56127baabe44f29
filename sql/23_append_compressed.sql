-- 23_append_compressed: the append path of a merge (22_append) on compressed
-- leaf pages.  The old segments are large enough to be kept (>= half the
-- segment cap); a merge of keys at or after the last key, one of them equal
-- to it, must keep every old segment's blocks and append new segments, and
-- every answer must equal a sequential scan's.
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all
CREATE TABLE apc (id serial, k int8);
INSERT INTO apc (k) SELECT i * 10 FROM generate_series(1, 700000) i;
CREATE INDEX apc_k ON apc USING learned (k)
    WITH (merge_ratio = 1, pending_limit = 100000, compression = on);
ANALYZE apc;
CREATE TABLE apc_before AS SELECT * FROM learned_index_segments('apc_k');
SELECT count(*) AS segments, min(pages) >= 64 AS each_big_enough,
       sum(entries) AS entries
FROM apc_before;
-- 3000 keys past the end and one more copy of the last key (7000000)
INSERT INTO apc (k) VALUES (7000000);
INSERT INTO apc (k) SELECT 7000000 + i FROM generate_series(1, 3000) i;
SELECT lcheck('SELECT k FROM apc WHERE k >= 6999990 ORDER BY k', 'is,ios,bis');
SELECT learned_index_merge('apc_k') > 0 AS merged;
SELECT pending_entries FROM learned_index_info('apc_k');
-- every old segment kept its blocks; the new keys are in new segments
SELECT count(*) FILTER (WHERE b.segment IS NOT NULL) AS old_segments,
       bool_and(n.start_block = b.start_block AND n.pages = b.pages AND n.entries = b.entries)
           FILTER (WHERE b.segment IS NOT NULL) AS old_kept,
       count(*) FILTER (WHERE b.segment IS NULL) >= 1 AS new_segments,
       sum(n.entries) AS entries
FROM learned_index_segments('apc_k') n LEFT JOIN apc_before b USING (segment);
SELECT learned_index_check('apc_k', true);
SELECT lcheck('SELECT k FROM apc WHERE k >= 6999990 ORDER BY k', 'is,ios,bis');
SELECT lcheck('SELECT k FROM apc WHERE k >= 6999990 ORDER BY k DESC', 'is,ios');
SELECT lcheck('SELECT id, k FROM apc WHERE k = 7000000', 'is,bis');
SELECT lcheck('SELECT count(*) FROM apc WHERE k BETWEEN 6000000 AND 7000100', 'is,ios,bis');
DROP TABLE apc, apc_before;
