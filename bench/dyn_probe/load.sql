DROP TABLE IF EXISTS d_l, d_b;
CREATE EXTENSION IF NOT EXISTS learned_idx;
CREATE TABLE d_l (k bigint, v bigint);
INSERT INTO d_l SELECT 10*i, i FROM generate_series(1, :N) i ORDER BY random();
CREATE TABLE d_b AS SELECT * FROM d_l;
CREATE INDEX d_l_k ON d_l USING learned (k);
CREATE INDEX d_b_k ON d_b (k);
VACUUM ANALYZE d_l; VACUUM ANALYZE d_b;
