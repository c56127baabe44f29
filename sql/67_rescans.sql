-- 67_rescans
--
-- What a rescan keeps from the last one when nothing it depends on
-- changed, and when it must stop keeping it:
-- * the metapage stays pinned and is copied again only when its LSN moved
--   (an index that writes no WAL, unlogged or temporary, keeps its LSN and
--   is copied every time);
-- * keys of the last rescan's shape (flags, columns, strategies, types)
--   take only their new values: a NULL outer value, an array, another
--   shape go through the whole preprocessing;
-- * an MVCC rescan on an unchanged metapage keeps its pending view (the
--   tail copy it pinned, the runs' page copies);
-- * a refresh of the backend's tail copy skips the tail page when its LSN
--   has not moved since the last refresh read it to its end (never on an
--   index without WAL).
-- Each answer must equal a hash join's over sequential scans (or a count
-- by a sequential scan), through appends to the tail page, a new tail
-- page, flushes into runs, merges, on logged, unlogged and temporary
-- tables.

-- nl_check(): the nested loop against a join over sequential scans (sql/include/nlcheck.sql)
\set ECHO none
\i sql/include/nlcheck.sql
\set ECHO all

-- Fresh scans see what was appended since the last one: one entry on the
-- tail page the last refresh read to its end, then entries enough for new
-- tail pages, on a logged, an unlogged and a temporary table (no WAL: the
-- tail page's LSN never moves).  Counts by the index against a sequential
-- scan (k + 0).
CREATE FUNCTION rs_tail(tab text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    out text := '';
    a int8;
    b int8;
    step text;
BEGIN
    PERFORM set_config('enable_seqscan', 'off', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    FOREACH step IN ARRAY ARRAY[
        'SELECT 1',
        format('INSERT INTO %I VALUES (5, -1)', tab),
        format('INSERT INTO %I VALUES (5, -2)', tab),
        format('INSERT INTO %I SELECT 5, -g FROM generate_series(3, 1500) g', tab),
        format('INSERT INTO %I VALUES (5, -1501)', tab),
        format('DELETE FROM %I WHERE v = -2', tab)]
    LOOP
        EXECUTE step;
        EXECUTE format('SELECT count(*) FROM %I WHERE k = 5', tab) INTO a;
        EXECUTE format('SELECT count(*) FROM %I WHERE k + 0 = 5', tab) INTO b;
        out := out || a || CASE WHEN a = b THEN ' ' ELSE '(WRONG: ' || b || ') ' END;
    END LOOP;
    RETURN out;
END $$;
SET learned_idx.auto_merge = off;
CREATE TABLE rs_log (k int8, v int);
CREATE UNLOGGED TABLE rs_unl (k int8, v int);
CREATE TEMP TABLE rs_tmp (k int8, v int);
INSERT INTO rs_log SELECT g * 2, g FROM generate_series(1, 5000) g;
INSERT INTO rs_unl SELECT g * 2, g FROM generate_series(1, 5000) g;
INSERT INTO rs_tmp SELECT g * 2, g FROM generate_series(1, 5000) g;
CREATE INDEX rs_log_k ON rs_log USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
CREATE INDEX rs_unl_k ON rs_unl USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
CREATE INDEX rs_tmp_k ON rs_tmp USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
INSERT INTO rs_log SELECT g * 2 + 1, -g FROM generate_series(1, 100) g;
INSERT INTO rs_unl SELECT g * 2 + 1, -g FROM generate_series(1, 100) g;
INSERT INTO rs_tmp SELECT g * 2 + 1, -g FROM generate_series(1, 100) g;
SELECT rs_tail('rs_log') AS logged, rs_tail('rs_unl') AS unlogged, rs_tail('rs_tmp') AS temporary;
SELECT pending_entries > 1000 AS pending, pending_pages > 2 AS several_tail_pages
FROM learned_index_info('rs_log_k');

-- A nested loop whose rescans cross appends, flushes into runs and a
-- merge: the outer side's volatile function, at given outer rows, inserts
-- rows (invisible to the statement, which keeps its snapshot), inserts
-- enough to flush the tail into a run, and merges the pending list.  The
-- answer must equal the hash join's taken before.  On the logged and the
-- unlogged table: the unlogged one's metapage keeps its LSN through every
-- change, so each rescan copies it.
CREATE TABLE rs_out (n int, k int8);
INSERT INTO rs_out SELECT g, (g * 7) / 2 FROM generate_series(1, 2800) g;
CREATE FUNCTION rs_probe(tab text, n int, k int8) RETURNS int8 LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF current_setting('rs.act', true) = 'on' THEN
        IF n = 400 THEN
            EXECUTE format('INSERT INTO %I SELECT 2000 + g, -g FROM generate_series(1, 5) g', tab);
        ELSIF n = 900 THEN
            -- past tail_limit: the inserts flush the tail into runs
            EXECUTE format('INSERT INTO %I SELECT g * 5, -g FROM generate_series(1, 700) g', tab);
            PERFORM set_config('rs.runs', (SELECT count(*) FROM learned_index_runs(tab || '_k')
                                           WHERE run IS NOT NULL)::text, true);
        ELSIF n = 1700 THEN
            PERFORM learned_index_merge(tab || '_k');
        ELSIF n = 2300 THEN
            EXECUTE format('INSERT INTO %I SELECT g * 3, -g FROM generate_series(1, 300) g', tab);
        END IF;
    END IF;
    RETURN k;
END $$;
CREATE FUNCTION rs_during(tab text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    q text := format('SELECT o.n, x.id FROM (SELECT n, rs_probe(%L, n, k) AS k FROM rs_out OFFSET 0) o '
                     'CROSS JOIN LATERAL (SELECT t.ctid AS id FROM %I t WHERE t.k = o.k OFFSET 0) x',
                     tab, tab);
    plan text := '';
    ln text;
    got text[];
    ref text[];
    g0 int8;
    g1 int8;
BEGIN
    EXECUTE format('SELECT array_agg(r::text) FROM (SELECT o.n, t.ctid FROM rs_out o JOIN %I t ON t.k = o.k) r',
                   tab) INTO ref;
    SELECT generation INTO g0 FROM learned_index_info(tab || '_k');
    PERFORM set_config('enable_seqscan', 'off', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    PERFORM set_config('enable_memoize', 'off', true);
    PERFORM set_config('enable_material', 'off', true);
    PERFORM set_config('enable_hashjoin', 'off', true);
    PERFORM set_config('enable_mergejoin', 'off', true);
    PERFORM set_config('learned_idx.tail_limit', '200', true);
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        plan := plan || ln || ' ';
    END LOOP;
    PERFORM set_config('rs.act', 'on', true);
    EXECUTE format('SELECT array_agg(r::text) FROM (%s) r', q) INTO got;
    PERFORM set_config('rs.act', 'off', true);
    PERFORM set_config('learned_idx.tail_limit', '4096', true);
    SELECT generation INTO g1 FROM learned_index_info(tab || '_k');
    RETURN 'rows=' || coalesce(cardinality(ref), 0) ||
        CASE WHEN (SELECT count(*) FROM (SELECT unnest(ref) EXCEPT ALL SELECT unnest(got)) s) = 0 AND
                  (SELECT count(*) FROM (SELECT unnest(got) EXCEPT ALL SELECT unnest(ref)) s) = 0
             THEN ' ok' ELSE ' WRONG' END ||
        CASE WHEN current_setting('rs.runs')::int > 0 THEN ' flushed' ELSE ' no runs!' END ||
        CASE WHEN g1 > g0 THEN ' merged' ELSE ' not merged!' END ||
        CASE WHEN plan ~ ('Nested Loop.*Index Scan using ' || tab || '_k ') THEN '' ELSE ' plan!' END;
END $$;
SELECT rs_during('rs_log') AS logged, rs_during('rs_unl') AS unlogged;
-- the rows inserted during the joins, now visible
SELECT nl_check('rs_out', 'rs_log', 'rs_log_k', 't.k = o.k', col => 'ctid') AS logged,
       nl_check('rs_out', 'rs_unl', 'rs_unl_k', 't.k = o.k', col => 'ctid') AS unlogged;

-- Runs, a tail and the static stage, probed in key order (the runs' page
-- copies kept from one rescan to the next) and shuffled.
CREATE TABLE rs_runs (id serial, k int8);
INSERT INTO rs_runs (k) SELECT g * 4 FROM generate_series(1, 6000) g;
CREATE INDEX rs_runs_k ON rs_runs USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
SET learned_idx.tail_limit = 300;
INSERT INTO rs_runs (k) SELECT g * 4 + 1 FROM generate_series(1, 6000, 3) g;
INSERT INTO rs_runs (k) SELECT g * 4 + 2 FROM generate_series(1, 6000, 5) g;
RESET learned_idx.tail_limit;
INSERT INTO rs_runs (k) SELECT g * 4 + 3 FROM generate_series(1, 6000, 50) g;
SELECT count(*) > 1 AS runs FROM learned_index_runs('rs_runs_k') WHERE run IS NOT NULL;
SELECT entries > 0 AS tail FROM learned_index_runs('rs_runs_k') WHERE run IS NULL;
CREATE TABLE rs_o_asc AS SELECT g AS n, g::int8 * 2 AS k FROM generate_series(1, 12100) g;
CREATE TABLE rs_o_rand AS SELECT * FROM rs_o_asc ORDER BY hashint4(n);
CREATE TABLE rs_o_few AS SELECT g AS n, g::int8 * 61 AS k FROM generate_series(1, 400) g;
SELECT nl_check('rs_o_asc', 'rs_runs', 'rs_runs_k', 't.k = o.k', col => 'ctid') AS ascending,
       nl_check('rs_o_rand', 'rs_runs', 'rs_runs_k', 't.k = o.k', col => 'ctid') AS shuffled,
       nl_check('rs_o_few', 'rs_runs', 'rs_runs_k', 't.k >= o.k AND t.k < o.k + 3', col => 'ctid') AS ranges;

-- Key shapes that change between rescans: NULL outer values among the
-- others, arrays of 0 to 60 values (each rescan's intervals: the pending
-- ranges grow), two conditions per probe, a cross-type bound, text keys,
-- a composite key with an equality and an inequality.
CREATE TABLE rs_o_null (n int, k int8);
INSERT INTO rs_o_null SELECT g, CASE WHEN g % 5 = 0 THEN NULL ELSE g * 3 END
FROM generate_series(1, 4000) g;
CREATE TABLE rs_o_arr (n int, ks int8[]);
INSERT INTO rs_o_arr SELECT g, ARRAY(SELECT (g * 37 + i * 11) % 24000 FROM generate_series(1, g % 61) i)
FROM generate_series(1, 300) g;
CREATE TABLE rs_o_i4 (n int, k int4);
INSERT INTO rs_o_i4 SELECT g, g * 45 FROM generate_series(1, 500) g;
SELECT nl_check('rs_o_null', 'rs_runs', 'rs_runs_k', 't.k = o.k', col => 'ctid') AS null_outer,
       nl_check('rs_o_arr', 'rs_runs', 'rs_runs_k', 't.k = ANY (o.ks)', col => 'ctid') AS arrays,
       nl_check('rs_o_i4', 'rs_runs', 'rs_runs_k', 't.k > o.k AND t.k <= o.k + 6', col => 'ctid') AS int4_range;
CREATE TABLE rs_text (id serial, k text);
INSERT INTO rs_text (k) SELECT 'key' || lpad(g::text, 5, '0') FROM generate_series(1, 8000, 2) g;
CREATE INDEX rs_text_k ON rs_text USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
INSERT INTO rs_text (k) SELECT 'key' || lpad(g::text, 5, '0') FROM generate_series(2, 8000, 6) g;
CREATE TABLE rs_o_text AS SELECT g AS n, 'key' || lpad(g::text, 5, '0') AS k FROM generate_series(1, 8000, 3) g;
CREATE TABLE rs_comp (id serial, a int4, b int4);
INSERT INTO rs_comp (a, b) SELECT g / 10, g % 10 FROM generate_series(0, 19999) g;
CREATE INDEX rs_comp_ab ON rs_comp USING learned (a, b) WITH (merge_ratio = 1, pending_limit = 100000);
INSERT INTO rs_comp (a, b) SELECT g / 10, g % 10 + 20 FROM generate_series(0, 19999, 7) g;
CREATE TABLE rs_o_comp AS SELECT g AS n, g / 3 AS a, g % 12 AS b FROM generate_series(0, 5999) g;
SELECT nl_check('rs_o_text', 'rs_text', 'rs_text_k', 't.k = o.k', col => 'ctid') AS text,
       nl_check('rs_o_comp', 'rs_comp', 'rs_comp_ab', 't.a = o.a AND t.b > o.b', col => 'ctid') AS composite;

SELECT learned_index_check(i, true) FROM unnest(ARRAY['rs_log_k', 'rs_unl_k', 'rs_runs_k']::regclass[]) i;
RESET learned_idx.auto_merge;
DROP TABLE rs_log, rs_unl, rs_tmp, rs_out, rs_runs, rs_o_asc, rs_o_rand, rs_o_few, rs_o_null, rs_o_arr,
    rs_o_i4, rs_text, rs_o_text, rs_comp, rs_o_comp;
DROP FUNCTION nl_check(text, text, text, text, text, text, text), rs_tail(text), rs_probe(text, int, int8),
    rs_during(text);
