-- bench/composite/tpcc_appends.sql: the key map is frozen at CREATE INDEX.
-- TPC-C appends new orders past every district's largest o_id; those keys
-- clamp to the last digit of the image, so after a merge a district's new
-- orders share one image.  This measures index blocks per lookup (and time)
-- for old and new orders, learned vs btree: 100 x 10 x 3000 orders, then
-- 300 new orders per district (10%), merged.
--
--   psql -X -v ON_ERROR_STOP=1 -f bench/composite/tpcc_appends.sql
--
\set QUIET on
\pset pager off
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS learned_idx;
CREATE EXTENSION IF NOT EXISTS pg_prewarm;
DROP TABLE IF EXISTS orders, probe_old, probe_new, bench_out;
DROP FUNCTION IF EXISTS bench_probe(text, text, text);
SELECT setseed(0.5);
CREATE TABLE orders (o_w_id int, o_d_id int, o_id int, o_c_id int) WITH (autovacuum_enabled = false);
INSERT INTO orders SELECT w, d, o, (o * 7) % 3000 + 1
  FROM generate_series(1, 100) w, generate_series(1, 10) d, generate_series(1, 3000) o;
CREATE TABLE probe_old (w int, d int, o int) WITH (autovacuum_enabled = false);
INSERT INTO probe_old SELECT 1 + floor(random() * 100), 1 + floor(random() * 10), 1 + floor(random() * 3000)
  FROM generate_series(1, 100000);
CREATE TABLE probe_new (w int, d int, o int) WITH (autovacuum_enabled = false);
INSERT INTO probe_new SELECT 1 + floor(random() * 100), 1 + floor(random() * 10), 3001 + floor(random() * 300)
  FROM generate_series(1, 100000);
CREATE TABLE bench_out (am text, probes text, blocks_per_lookup numeric, us_per_lookup numeric);

CREATE FUNCTION bench_probe(am text, probes text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    times numeric[] := '{}';
    plan json;
    q text := format('SELECT count(*), sum(t.o_c_id) FROM %I p JOIN orders t ON t.o_w_id = p.w AND t.o_d_id = p.d AND t.o_id = p.o', probes);
    i int;
BEGIN
    PERFORM pg_prewarm('orders');
    PERFORM pg_prewarm(probes);
    PERFORM pg_prewarm('orders_k');
    SET LOCAL enable_hashjoin = off;
    SET LOCAL enable_mergejoin = off;
    SET LOCAL enable_bitmapscan = off;
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_material = off;
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) ' || q INTO plan;
    FOR i IN 1..3 LOOP
        t0 := clock_timestamp();
        EXECUTE q;
        times := times || extract(epoch FROM clock_timestamp() - t0) * 1e6 / 100000;
    END LOOP;
    INSERT INTO bench_out VALUES (am, probes,
        round((SELECT ((n->>'Shared Hit Blocks')::numeric + (n->>'Shared Read Blocks')::numeric) / 100000 - 1
               FROM jsonb_path_query(plan::jsonb, 'strict $.**?(@."Index Name" == "orders_k")') n LIMIT 1), 2),
        round((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(times) x), 3));
END $$;

CREATE INDEX orders_k ON orders USING learned (o_w_id, o_d_id, o_id);
SET learned_idx.pending_limit = '1GB';
INSERT INTO orders SELECT w, d, o, 1 FROM generate_series(3001, 3300) o, generate_series(1, 100) w,
    generate_series(1, 10) d;
SELECT learned_index_merge('orders_k') > 0 AS merged;
VACUUM (FREEZE, ANALYZE) orders, probe_old, probe_new;
SELECT bench_probe('learned', 'probe_old');
SELECT bench_probe('learned', 'probe_new');
SELECT segments, pieces, round(mean_error::numeric, 2) AS mean_error, max_error FROM learned_index_info('orders_k');
DROP INDEX orders_k;
CREATE INDEX orders_k ON orders USING learned (o_w_id, o_d_id, o_id);
SELECT bench_probe('learned rebuilt', 'probe_old');
SELECT bench_probe('learned rebuilt', 'probe_new');
DROP INDEX orders_k;
CREATE INDEX orders_k ON orders (o_w_id, o_d_id, o_id);
SELECT bench_probe('btree', 'probe_old');
SELECT bench_probe('btree', 'probe_new');
\pset format aligned
SELECT * FROM bench_out;
DROP FUNCTION bench_probe(text, text);
DROP TABLE orders, probe_old, probe_new, bench_out;
