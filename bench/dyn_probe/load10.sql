DROP TABLE IF EXISTS e_l, e_b;
CREATE EXTENSION IF NOT EXISTS learned_idx;
CREATE TABLE e_l (k bigint, v bigint);
INSERT INTO e_l SELECT 10*i, i FROM generate_series(1, :N) i ORDER BY random();
CREATE TABLE e_b AS SELECT * FROM e_l;
CREATE INDEX e_l_k ON e_l USING learned (k);
CREATE INDEX e_b_k ON e_b (k);
VACUUM ANALYZE e_l; VACUUM ANALYZE e_b;
