-- Scaling out without Citus: a learned index per partition, and a foreign
-- partition (postgres_fdw, loopback) whose remote table has a learned index,
-- all queried through the partitioned parent.  Every answer is checked
-- against the same query with index scans disabled.
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
CREATE TABLE so_remote (k int8 NOT NULL, v int4);
INSERT INTO so_remote SELECT g, g % 1000 FROM generate_series(200001, 300000) g;
CREATE INDEX so_remote_k ON so_remote USING learned (k);
ANALYZE so_remote;
DO $$
BEGIN
  EXECUTE format('CREATE SERVER so_loop FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname %L, port %L, host %L)',
                 current_database(), current_setting('port'),
                 split_part(current_setting('unix_socket_directories'), ',', 1));
END $$;
CREATE USER MAPPING FOR CURRENT_USER SERVER so_loop;
CREATE TABLE so_parent (k int8 NOT NULL, v int4) PARTITION BY RANGE (k);
CREATE TABLE so_p1 PARTITION OF so_parent FOR VALUES FROM (1) TO (100001);
CREATE TABLE so_p2 PARTITION OF so_parent FOR VALUES FROM (100001) TO (200001);
CREATE FOREIGN TABLE so_p3 PARTITION OF so_parent FOR VALUES FROM (200001) TO (300001)
  SERVER so_loop OPTIONS (table_name 'so_remote', use_remote_estimate 'true');
-- a learned index on the parent makes one on each local partition
CREATE INDEX so_parent_k ON so_parent USING learned (k);
INSERT INTO so_parent SELECT g, g % 1000 FROM generate_series(1, 200000) g;
INSERT INTO so_parent VALUES (150000, -1);             -- a pending entry in so_p2's index
ANALYZE so_parent;
SELECT c.relname, a.amname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  JOIN pg_am a ON a.oid = c.relam WHERE i.inhparent = 'so_parent_k'::regclass ORDER BY 1;
-- the local partitions: pruned, each searched by its own learned index
EXPLAIN (COSTS OFF) SELECT v FROM so_parent WHERE k = 150000;
-- the remote side plans the pushed-down query with its learned index
EXPLAIN (COSTS OFF) SELECT k, v FROM so_remote WHERE k = 250000;
EXPLAIN (COSTS OFF, VERBOSE) SELECT k, v FROM so_parent WHERE k = 250000;
CREATE TEMP TABLE so_q (q text);
INSERT INTO so_q VALUES
  ('SELECT count(*), sum(v) FROM so_parent WHERE k = 150000'),
  ('SELECT count(*), sum(v) FROM so_parent WHERE k = 250000'),
  ('SELECT count(*), sum(v) FROM so_parent WHERE k BETWEEN 99990 AND 100010'),
  ('SELECT count(*), sum(v) FROM so_parent WHERE k BETWEEN 199995 AND 200005'),
  ('SELECT count(*), sum(v) FROM so_parent WHERE k IN (5, 100001, 150000, 299999, 300001)'),
  ('SELECT count(*), sum(v) FROM so_parent WHERE k > 299990'),
  ('SELECT string_agg(k::text, '','' ORDER BY k) FROM (SELECT k FROM so_parent WHERE k >= 199998 ORDER BY k LIMIT 5) s');
CREATE FUNCTION so_check() RETURNS TABLE (q text, answer text, same bool) LANGUAGE plpgsql AS $$
DECLARE r record; a text; b text;
BEGIN
  FOR r IN SELECT so_q.q FROM so_q LOOP
    SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
    EXECUTE 'SELECT s::text FROM (' || r.q || ') s' INTO a;
    SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off;
    SET LOCAL enable_indexonlyscan = off; SET LOCAL enable_bitmapscan = on;
    EXECUTE 'SELECT s::text FROM (' || r.q || ') s' INTO b;
    RESET enable_seqscan; RESET enable_indexscan; RESET enable_indexonlyscan; RESET enable_bitmapscan;
    q := r.q; answer := a; same := a IS NOT DISTINCT FROM b AND a IS NOT NULL;
    RETURN NEXT;
  END LOOP;
END $$;
SELECT answer, same FROM so_check();
SELECT count(*), sum(v) FROM so_parent WHERE k BETWEEN 199995 AND 200005;
SELECT learned_index_check('so_p1_k_idx', true), learned_index_check('so_p2_k_idx', true),
       learned_index_check('so_remote_k', true);
DROP TABLE so_parent;
DROP TABLE so_remote;
DROP FUNCTION so_check();
DROP USER MAPPING FOR CURRENT_USER SERVER so_loop;
DROP SERVER so_loop;
