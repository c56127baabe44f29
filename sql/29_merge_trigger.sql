-- 29_merge_trigger: the merge trigger at every size, VACUUM's merge of the
-- pending list, learned_idx.auto_merge, and the merge counters of
-- learned_index_info (merges, merged_entries, last_merge_ms).
--
-- The trigger is one rule: the pending list merges once it holds at least
-- 1024 entries and more than static entries / merge_ratio, so an index
-- created on an empty table merges at 1024 entries, as a tiny one does.  A
-- temporary index merges inline (no worker can see it): each merge below
-- happens at a known insert.
CREATE TEMP TABLE tt (k int8);
CREATE INDEX tt_k ON tt USING learned (k);
SELECT generation, entries, pending_entries, merges, merged_entries, last_merge_ms
FROM learned_index_info('tt_k');
INSERT INTO tt SELECT g FROM generate_series(1, 1023) g;
SELECT generation, entries, pending_entries, merges, merged_entries, last_merge_ms
FROM learned_index_info('tt_k');
-- the 1024th entry merges
INSERT INTO tt VALUES (1024);
SELECT generation, entries, pending_entries, merges, merged_entries, last_merge_ms >= 0 AS timed
FROM learned_index_info('tt_k');
-- 1024 static entries: 1024 / 10 is below the floor, which decides
INSERT INTO tt SELECT g FROM generate_series(1025, 2047) g;
SELECT generation, entries, pending_entries, merges, merged_entries
FROM learned_index_info('tt_k');
INSERT INTO tt VALUES (NULL);
SELECT generation, entries, null_entries, pending_entries, merges, merged_entries
FROM learned_index_info('tt_k');
-- past 10240 static entries the ratio decides: the list never holds more
-- than max(1024, entries / 10) entries after an insert
INSERT INTO tt SELECT g FROM generate_series(2048, 60000) g;
SELECT generation, entries, pending_entries, merges, merged_entries,
       pending_entries <= greatest(1024, entries / 10) AS within_trigger
FROM learned_index_info('tt_k');
SELECT count(*), sum(k) FROM tt WHERE k >= 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(k) FROM tt WHERE k >= 0;
SELECT count(*) FROM tt WHERE k IS NULL;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- learned_idx.auto_merge = off: this session's inserts start no merge
SET learned_idx.auto_merge = off;
INSERT INTO tt SELECT g FROM generate_series(60001, 90000) g;
SELECT generation, pending_entries, merges FROM learned_index_info('tt_k');
-- a manual ANALYZE leaves the list alone (autovacuum's merges it)
ANALYZE tt;
SELECT generation, pending_entries, merges FROM learned_index_info('tt_k');
-- a VACUUM with no dead row to remove merges the list (amvacuumcleanup,
-- as GIN's cleans its pending list): insert-driven autovacuum runs only it
VACUUM tt;
SELECT generation, entries, pending_entries, merges, merged_entries
FROM learned_index_info('tt_k');
SELECT learned_index_check('tt_k', true);
RESET learned_idx.auto_merge;

-- A permanent index: created on an empty table, loaded with no merge,
-- merged by a VACUUM that finds nothing to delete; TRUNCATE makes a new
-- empty index, whose counters start again.
SET learned_idx.auto_merge = off;
CREATE TABLE e (k int8, v int4) WITH (autovacuum_enabled = off);
CREATE INDEX e_k ON e USING learned (k);
INSERT INTO e SELECT (g * 7919) % 1000003, g FROM generate_series(1, 20000) g;
SELECT entries, pending_entries, merges, merged_entries FROM learned_index_info('e_k');
VACUUM e;
SELECT entries, pending_entries, merges, merged_entries, last_merge_ms >= 0 AS timed
FROM learned_index_info('e_k');
-- a VACUUM with nothing pending does not merge
VACUUM e;
SELECT generation, merges FROM learned_index_info('e_k');
SELECT learned_index_merge('e_k');
SELECT generation, merges FROM learned_index_info('e_k');
-- learned_index_merge counts too; the counters are cumulative
INSERT INTO e SELECT g, g FROM generate_series(1, 500) g;
SELECT learned_index_merge('e_k');
SELECT entries, pending_entries, merges, merged_entries FROM learned_index_info('e_k');
TRUNCATE e;
SELECT entries, pending_entries, merges, merged_entries, last_merge_ms FROM learned_index_info('e_k');
INSERT INTO e SELECT (g * 7919) % 1000003, g FROM generate_series(1, 5000) g;
VACUUM e;
SELECT entries, pending_entries, merges, merged_entries FROM learned_index_info('e_k');
SELECT learned_index_check('e_k', true);
RESET learned_idx.auto_merge;

-- learned_idx.log_merge_min_duration: off (-1) by default, in ms,
-- superuser-settable (t/044_merge_log.pl checks the log lines)
SHOW learned_idx.log_merge_min_duration;
SET learned_idx.log_merge_min_duration = '2s';
SHOW learned_idx.log_merge_min_duration;
-- (the message's unit formatting differs between majors: the SQLSTATE)
\set VERBOSITY sqlstate
SET learned_idx.log_merge_min_duration = -2;
\set VERBOSITY default
RESET learned_idx.log_merge_min_duration;
SHOW learned_idx.auto_merge;

DROP TABLE tt, e;
