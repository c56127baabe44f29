-- bench/composite/uuid.sql: uuid keys, v4 (random) and v7-like (48-bit
-- millisecond time first), 1M rows each: btree vs learned index size,
-- index blocks per lookup, and per-lookup time of a server-side nested
-- loop over 100,000 probes of existing keys (median of 5 runs).
--
--   psql -X -v ON_ERROR_STOP=1 -f bench/composite/uuid.sql
--
\set QUIET on
\pset pager off
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS learned_idx;
CREATE EXTENSION IF NOT EXISTS pg_prewarm;
DROP TABLE IF EXISTS ut, u_v4, u_v7, p_v4, p_v7, bench_out;
DROP FUNCTION IF EXISTS bench_uuid(text, text);
SELECT setseed(0.25);
CREATE TABLE ut (kind text, k uuid, v int) WITH (autovacuum_enabled = false);
INSERT INTO ut SELECT 'v4', gen_random_uuid(), i FROM generate_series(1, 1000000) i;
INSERT INTO ut SELECT 'v7', (lpad(to_hex(1700000000000 + i * 3 + floor(random() * 3)::int8), 12, '0') || '7' ||
    substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15))::uuid, i
  FROM generate_series(1, 1000000) i;
CREATE TABLE u_v4 WITH (autovacuum_enabled = false) AS SELECT k, v FROM ut WHERE kind = 'v4';
CREATE TABLE u_v7 WITH (autovacuum_enabled = false) AS SELECT k, v FROM ut WHERE kind = 'v7';
CREATE TABLE p_v4 WITH (autovacuum_enabled = false) AS SELECT k FROM u_v4 ORDER BY random() LIMIT 100000;
CREATE TABLE p_v7 WITH (autovacuum_enabled = false) AS SELECT k FROM u_v7 ORDER BY random() LIMIT 100000;
DROP TABLE ut;
VACUUM (FREEZE, ANALYZE) u_v4, u_v7, p_v4, p_v7;
CREATE TABLE bench_out (kind text, am text, size_mb numeric, segments int, pieces int, mean_error float8,
                        blocks_per_lookup numeric, us_per_lookup numeric);

CREATE FUNCTION bench_uuid(kind text, am text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    times numeric[] := '{}';
    plan json;
    blocks numeric;
    seg int;
    pcs int;
    merr float8;
    i int;
BEGIN
    EXECUTE format('CREATE INDEX u1_k ON u_%s USING %s (k)', kind, am);
    PERFORM pg_prewarm('u_' || kind);
    PERFORM pg_prewarm('p_' || kind);
    PERFORM pg_prewarm('u1_k');
    SET LOCAL enable_hashjoin = off;
    SET LOCAL enable_mergejoin = off;
    SET LOCAL enable_bitmapscan = off;
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_material = off;
    EXECUTE format('EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) SELECT count(*), sum(t.v) FROM p_%s p JOIN u_%s t ON t.k = p.k', kind, kind) INTO plan;
    blocks := (SELECT ((n->>'Shared Hit Blocks')::numeric + (n->>'Shared Read Blocks')::numeric) / 100000 - 1
               FROM jsonb_path_query(plan::jsonb, 'strict $.**?(@."Index Name" == "u1_k")') n LIMIT 1);
    FOR i IN 1..5 LOOP
        t0 := clock_timestamp();
        EXECUTE format('SELECT count(*), sum(t.v) FROM p_%s p JOIN u_%s t ON t.k = p.k', kind, kind);
        times := times || extract(epoch FROM clock_timestamp() - t0) * 1e6 / 100000;
    END LOOP;
    IF am = 'learned' THEN
        SELECT segments, pieces, mean_error INTO seg, pcs, merr FROM learned_index_info('u1_k');
    END IF;
    INSERT INTO bench_out VALUES (kind, am, round(pg_relation_size('u1_k') / 1048576.0, 2),
        seg, pcs, merr, round(blocks, 2),
        round((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(times) x), 3));
    EXECUTE 'DROP INDEX u1_k';
END $$;

SELECT bench_uuid('v4', 'btree');
SELECT bench_uuid('v4', 'learned');
SELECT bench_uuid('v7', 'btree');
SELECT bench_uuid('v7', 'learned');
\pset format aligned
SELECT b.kind, b.am, b.size_mb, round(b.size_mb / t.size_mb, 3) AS size_vs_btree, b.segments, b.pieces,
       round(b.mean_error::numeric, 2) AS mean_error, b.blocks_per_lookup, b.us_per_lookup
FROM bench_out b JOIN bench_out t ON t.kind = b.kind AND t.am = 'btree' ORDER BY 1, 2;
DROP FUNCTION bench_uuid(text, text);
DROP TABLE IF EXISTS u_v4, u_v7, p_v4, p_v7, bench_out;
