#!/usr/bin/env bash
# scripts/demo.sh: build + install learned_idx, start a throwaway PostgreSQL
# cluster (15 from Debian's packages; PG_MAJOR=17, 18 or 19 builds that major
# from Debian's source package the first time, see scripts/pg_build.sh), load 1M int8 keys, build a btree and a learned index on the same
# column and compare them side by side.  Everything is removed at the end.
#
#   bash scripts/demo.sh
#   PG_MAJOR=18 bash scripts/demo.sh
#
# Environment: DEMO_ROWS (default 1000000), DEMO_PROBES (default 100000),
#              DEMO_EPS (learned error_bound, default 32), DEMO_PORT (default 5499),
#              DEMO_REPS (timed repetitions per lookup run, median shown; default 3).
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROWS="${DEMO_ROWS:-1000000}"
PROBES="${DEMO_PROBES:-100000}"
EPS="${DEMO_EPS:-32}"
PORT="${DEMO_PORT:-5499}"
REPS="${DEMO_REPS:-3}"

CL=""
cleanup() {
    li_cluster_stop
    [ -n "$CL" ] && rm -rf "$CL"
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

li_is_root || li_log "running as $(id -un), not root: skipping package installation and (unless writable) 'make install'"
li_install_deps

li_log "Building learned_idx (make) for PostgreSQL $LI_PG_MAJOR"
li_build_in_place "$LI_REPO" >/dev/null 2>"${TMPDIR:-/tmp}/learned_idx_build.$$" || {
    cat "${TMPDIR:-/tmp}/learned_idx_build.$$" >&2; rm -f "${TMPDIR:-/tmp}/learned_idx_build.$$"
    li_die "make failed"; }
rm -f "${TMPDIR:-/tmp}/learned_idx_build.$$"
li_log "Installing into $("$PG_CONFIG" --pkglibdir) (make install)"
li_make_install "$LI_REPO"

CL="$(li_mktemp_pg learned_idx_demo)"
li_log "Starting a throwaway cluster in $CL (port $PORT, shared_buffers=512MB)"
li_cluster_start "$CL" "$PORT" "shared_buffers = 512MB" "max_wal_size = 4GB" \
    "checkpoint_timeout = 30min" "jit = off"

li_log "Loading $ROWS rows and building both indexes"
li_as_pg psql -X -q -v ON_ERROR_STOP=1 -P pager=off \
    -v rows="$ROWS" -v probes="$PROBES" -v eps="$EPS" -v reps="$REPS" -f - <<'SQL'
CREATE EXTENSION learned_idx;

-- Dataset: keys are the cumulative sum of random gaps in [1, 100] (unique,
-- sorted by construction), v is the row number.  Fixed seed: every run loads
-- the same data.
SELECT setseed(0.42) \gset
CREATE TABLE demo (k int8 NOT NULL, v int8 NOT NULL);
INSERT INTO demo
SELECT sum(gap) OVER (ORDER BY i), i
FROM (SELECT i, 1 + floor(random() * 100)::int8 AS gap
      FROM generate_series(1, :rows) AS i) AS g;
VACUUM (FREEZE, ANALYZE) demo;

-- 100k random keys that exist, in random order.
CREATE TABLE probes AS SELECT k FROM demo ORDER BY random() LIMIT :probes;
ANALYZE probes;

-- Build each index with nothing else on the table (timed by the server clock).
SELECT clock_timestamp() AS t0 \gset
CREATE INDEX demo_k_btree ON demo USING btree (k);
SELECT round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)::numeric * 1000, 1) AS btree_build_ms \gset
SELECT clock_timestamp() AS t0 \gset
CREATE INDEX demo_k_learned ON demo USING learned (k) WITH (error_bound = :eps);
SELECT round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)::numeric * 1000, 1) AS learned_build_ms \gset

-- Runs a query REPS times after one warm-up run; returns the median in ms.
CREATE FUNCTION demo_time_ms(q text, reps int) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    ms float8[] := '{}';
BEGIN
    EXECUTE q;
    FOR i IN 1 .. reps LOOP
        t0 := clock_timestamp();
        EXECUTE q;
        ms := ms || extract(epoch FROM clock_timestamp() - t0)::float8 * 1000;
    END LOOP;
    RETURN (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY x)::numeric, 1)
            FROM unnest(ms) AS x);
END $$;

-- The index scans named in the plan of q (to show which index was measured).
CREATE FUNCTION demo_plan_indexes(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r record;
    found text[] := '{}';
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF r."QUERY PLAN" ~ 'Index (Only )?Scan using' THEN
            found := found || regexp_replace(r."QUERY PLAN", '^.*(Index (Only )?Scan) using (\S+).*$', '\3 (\1)');
        END IF;
    END LOOP;
    RETURN coalesce(array_to_string(found, ', '), 'none');
END $$;

-- Point lookups: a nested loop probing the index once per probe key and
-- fetching the heap row.  Each index is measured alone: the other one is
-- dropped inside a transaction that is rolled back (same table, same probes).
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_bitmapscan = off;
SET enable_seqscan = off;
SET max_parallel_workers_per_gather = 0;
\set lookup 'SELECT count(*), sum(d.v) FROM probes p JOIN demo d ON d.k = p.k'

BEGIN;
DROP INDEX demo_k_learned;
SELECT demo_plan_indexes(:'lookup') AS btree_plan \gset
SELECT demo_time_ms(:'lookup', :reps) AS btree_lookup_ms \gset
SELECT count(*) || ' rows, sum(v) = ' || sum(d.v) AS btree_result FROM probes p JOIN demo d ON d.k = p.k \gset
ROLLBACK;

BEGIN;
DROP INDEX demo_k_btree;
SELECT demo_plan_indexes(:'lookup') AS learned_plan \gset
SELECT demo_time_ms(:'lookup', :reps) AS learned_lookup_ms \gset
SELECT count(*) || ' rows, sum(v) = ' || sum(d.v) AS learned_result FROM probes p JOIN demo d ON d.k = p.k \gset
ROLLBACK;

\pset footer off
\echo
\echo ================ learned_idx demo ================
\echo 'Dataset: k = cumulative sum of random gaps in [1,100] (unique, setseed(0.42)), v = row number.'
SELECT :rows AS "rows in demo(k int8, v int8)",
       pg_size_pretty(pg_relation_size('demo')) AS "heap size",
       :probes AS "lookup probes",
       :eps AS "learned error_bound";

\echo
\echo Side by side (same table; lookups = nested loop of :probes existing keys, heap fetch included, median of :reps runs after a warm-up):
SELECT * FROM (VALUES
    ('index size',
     pg_size_pretty(pg_relation_size('demo_k_btree')),
     pg_size_pretty(pg_relation_size('demo_k_learned'))),
    ('index size (bytes)',
     pg_relation_size('demo_k_btree')::text,
     pg_relation_size('demo_k_learned')::text),
    ('CREATE INDEX time', :'btree_build_ms' || ' ms', :'learned_build_ms' || ' ms'),
    (:probes || ' lookups', :'btree_lookup_ms' || ' ms', :'learned_lookup_ms' || ' ms'),
    ('per lookup',
     round(:btree_lookup_ms * 1000 / :probes, 2) || ' us',
     round(:learned_lookup_ms * 1000 / :probes, 2) || ' us'),
    ('index used by the lookups', :'btree_plan', :'learned_plan'),
    ('lookup result', :'btree_result', :'learned_result')
) AS t(metric, btree, learned);

\echo
\echo 'SELECT * FROM learned_index_info(''demo_k_learned'');'
\x on
SELECT * FROM learned_index_info('demo_k_learned');
\x off

\echo
\echo 'SELECT * FROM learned_index_segments(''demo_k_learned'') LIMIT 5;'
SELECT * FROM learned_index_segments('demo_k_learned') LIMIT 5;

\echo
SELECT k AS some_key FROM demo WHERE v = :rows / 2 \gset
\echo EXPLAIN ANALYZE of a point and a range query served by the learned index
\echo (btree dropped in a rolled-back transaction so that the planner has to use it):
RESET enable_seqscan;
RESET enable_bitmapscan;
BEGIN;
DROP INDEX demo_k_btree;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
    SELECT * FROM demo WHERE k = :some_key;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
    SELECT * FROM demo WHERE k BETWEEN :some_key AND :some_key + 1000 ORDER BY k;
ROLLBACK;
SQL

li_log "Done; stopping and removing the cluster"
