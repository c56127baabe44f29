-- bench/composite/tpcc_orders.sql: a TPC-C-shaped composite key
-- (w_id, d_id, o_id) = 100 x 10 x 3000 = 3M rows, indexed by btree, by
-- learned with the whole key packed into the models' image, and by learned
-- with only the first column in the image (learned_idx.map_columns = 1).
-- For each: index size, segments/pieces/error, index blocks per lookup, and
-- the per-lookup time of a server-side nested loop over 200,000 random
-- probes (median of 5 runs, minus nothing: the join loop's own cost is
-- the same for every index).
--
--   psql -X -v ON_ERROR_STOP=1 -f bench/composite/tpcc_orders.sql
--
\set QUIET on
\pset pager off
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS learned_idx;
CREATE EXTENSION IF NOT EXISTS pg_prewarm;
DROP TABLE IF EXISTS orders, probe, bench_out;
SELECT setseed(0.5);
CREATE TABLE orders (o_w_id int, o_d_id int, o_id int, o_c_id int) WITH (autovacuum_enabled = false);
INSERT INTO orders SELECT w, d, o, (o * 7) % 3000 + 1
  FROM generate_series(1, 100) w, generate_series(1, 10) d, generate_series(1, 3000) o;
CREATE TABLE probe (w int, d int, o int) WITH (autovacuum_enabled = false);
INSERT INTO probe SELECT 1 + floor(random() * 100), 1 + floor(random() * 10), 1 + floor(random() * 3000)
  FROM generate_series(1, 200000);
VACUUM (FREEZE, ANALYZE) orders, probe;
CREATE TABLE bench_out (kind text, size_mb numeric, segments int, pieces int, mean_error float8,
                        max_error int, blocks_per_lookup numeric, us_per_lookup numeric, build_s numeric);

CREATE FUNCTION bench_index(kind text, ddl text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    build numeric;
    times numeric[] := '{}';
    plan json;
    blocks numeric;
    i int;
    info record;
BEGIN
    t0 := clock_timestamp();
    EXECUTE ddl;
    build := extract(epoch FROM clock_timestamp() - t0);
    PERFORM pg_prewarm('orders');
    PERFORM pg_prewarm('probe');
    PERFORM pg_prewarm('orders_k');
    SET LOCAL enable_hashjoin = off;
    SET LOCAL enable_mergejoin = off;
    SET LOCAL enable_bitmapscan = off;
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_material = off;
    -- index blocks per lookup, from the inner index scan's buffer counts
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) SELECT count(*), sum(t.o_c_id) FROM probe p JOIN orders t ON t.o_w_id = p.w AND t.o_d_id = p.d AND t.o_id = p.o' INTO plan;
    -- the inner index scan node, wherever it is; minus the heap block of
    -- the one row each probe finds
    blocks := (SELECT ((n->>'Shared Hit Blocks')::numeric + (n->>'Shared Read Blocks')::numeric) / 200000 - 1
               FROM jsonb_path_query(plan::jsonb, 'strict $.**?(@."Index Name" == "orders_k")') n LIMIT 1);
    FOR i IN 1..5 LOOP
        t0 := clock_timestamp();
        PERFORM count(*), sum(t.o_c_id) FROM probe p JOIN orders t
            ON t.o_w_id = p.w AND t.o_d_id = p.d AND t.o_id = p.o;
        times := times || extract(epoch FROM clock_timestamp() - t0) * 1e6 / 200000;
    END LOOP;
    IF kind LIKE 'learned%' THEN
        SELECT * INTO info FROM learned_index_info('orders_k');
        INSERT INTO bench_out VALUES (kind, round(pg_relation_size('orders_k') / 1048576.0, 2),
            info.segments, info.pieces, info.mean_error, info.max_error, round(blocks, 2),
            round((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(times) x), 3), round(build, 2));
    ELSE
        INSERT INTO bench_out VALUES (kind, round(pg_relation_size('orders_k') / 1048576.0, 2),
            NULL, NULL, NULL, NULL, round(blocks, 2),
            round((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(times) x), 3), round(build, 2));
    END IF;
    EXECUTE 'DROP INDEX orders_k';
END $$;

SELECT bench_index('btree', 'CREATE INDEX orders_k ON orders (o_w_id, o_d_id, o_id)');
SELECT bench_index('learned', 'CREATE INDEX orders_k ON orders USING learned (o_w_id, o_d_id, o_id)');
SET learned_idx.map_columns = 1;
SELECT bench_index('learned, first column mapped', 'CREATE INDEX orders_k ON orders USING learned (o_w_id, o_d_id, o_id)');
RESET learned_idx.map_columns;
SELECT bench_index('btree', 'CREATE INDEX orders_k ON orders (o_w_id, o_d_id, o_id)');
SELECT bench_index('learned', 'CREATE INDEX orders_k ON orders USING learned (o_w_id, o_d_id, o_id)');
\pset format aligned
SELECT kind, size_mb, round(size_mb / (SELECT min(size_mb) FROM bench_out WHERE kind = 'btree'), 3) AS size_vs_btree,
       segments, pieces, round(mean_error::numeric, 2) AS mean_error, max_error, blocks_per_lookup, us_per_lookup, build_s
FROM bench_out;
DROP FUNCTION bench_index(text, text);
DROP TABLE orders, probe, bench_out;
