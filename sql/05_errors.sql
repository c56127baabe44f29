-- 05_errors
--
-- What a learned index refuses, and the messages it gives.
--
CREATE TABLE e (a int4, b int8, t text, n numeric, f float8, iv interval,
                u uuid, c char(4), bo bool, m money, ti time);
INSERT INTO e (a, b, t, n, f) SELECT i, i, i::text, i, i FROM generate_series(1, 100) i;

-- Reloptions: out of range, malformed, unknown.
CREATE INDEX e_bad ON e USING learned (a) WITH (error_bound = 0);
CREATE INDEX e_bad ON e USING learned (a) WITH (error_bound = 65537);
CREATE INDEX e_bad ON e USING learned (a) WITH (error_bound = -1);
CREATE INDEX e_bad ON e USING learned (a) WITH (error_bound = 'abc');
CREATE INDEX e_bad ON e USING learned (a) WITH (error_bound = 4294967328);
CREATE INDEX e_bad ON e USING learned (a) WITH (merge_ratio = 0.5);
CREATE INDEX e_bad ON e USING learned (a) WITH (merge_ratio = 0);
CREATE INDEX e_bad ON e USING learned (a) WITH (merge_ratio = -3);
CREATE INDEX e_bad ON e USING learned (a) WITH (merge_ratio = 100001);
CREATE INDEX e_bad ON e USING learned (a) WITH (merge_ratio = 'NaN');
CREATE INDEX e_bad ON e USING learned (a) WITH (merge_ratio = 'x');
CREATE INDEX e_bad ON e USING learned (a) WITH (pending_limit = 10);
CREATE INDEX e_bad ON e USING learned (a) WITH (pending_limit = 63);
CREATE INDEX e_bad ON e USING learned (a) WITH (pending_limit = -2);
CREATE INDEX e_bad ON e USING learned (a) WITH (pending_limit = 2097152);
CREATE INDEX e_bad ON e USING learned (a) WITH (pending_limit = 'x');
CREATE INDEX e_bad ON e USING learned (a) WITH (fillfactor = 50);
CREATE INDEX e_bad ON e USING learned (a) WITH (no_such_option = 1);
CREATE INDEX e_bad ON e USING learned (a) WITH (error_bound = 8, error_bound = 9);
-- The bounds themselves are accepted.
CREATE INDEX e_min ON e USING learned (a) WITH (error_bound = 1, merge_ratio = 1);
CREATE INDEX e_max ON e USING learned (a) WITH (error_bound = 65536, merge_ratio = 100000);
CREATE INDEX e_frac ON e USING learned (a) WITH (merge_ratio = 2.5, pending_limit = 64);
CREATE INDEX e_pl ON e USING learned (a) WITH (pending_limit = -1);
-- An integer option given as a fraction is rounded (as for every integer
-- reloption of PostgreSQL).
CREATE INDEX e_round ON e USING learned (a) WITH (error_bound = 1.5);
SELECT relname, reloptions FROM pg_class WHERE relname IN ('e_min', 'e_max', 'e_frac', 'e_round', 'e_pl') ORDER BY 1;
SELECT error_bound FROM learned_index_info('e_round');
SELECT error_bound FROM learned_index_info('e_max');
ALTER INDEX e_min SET (error_bound = 0);
ALTER INDEX e_min SET (error_bound = 70000);
ALTER INDEX e_min SET (merge_ratio = 0.99);
ALTER INDEX e_min SET (merge_ratio = 1e6);
ALTER INDEX e_min SET (pending_limit = 1);
ALTER INDEX e_min SET (bogus = 1);
SELECT relname, reloptions FROM pg_class WHERE relname = 'e_min';
-- They still answer correctly.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM e WHERE a BETWEEN 10 AND 20;
SELECT a FROM e WHERE a > 95 ORDER BY a DESC;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP INDEX e_min, e_max, e_frac, e_round, e_pl;
-- The GUC behind pending_limit = -1.
-- (the message's range differs between majors: the SQLSTATE says it)
\set VERBOSITY sqlstate
SET learned_idx.pending_limit = 10;
SET learned_idx.pending_limit = -1;
\set VERBOSITY default
SET learned_idx.pending_limit = '1MB';
SHOW learned_idx.pending_limit;
RESET learned_idx.pending_limit;
SET learned_idx.no_such_setting = 1;

-- Types without a learned operator class (interval, uuid, bool, time:
-- 42_types; text, varchar, char, name, bytea, numeric: 44_text).
CREATE INDEX e_bad ON e USING learned ((t::jsonb));
CREATE INDEX e_bad ON e USING learned ((b::bit(64)));
CREATE INDEX e_bad ON e USING learned (m);
CREATE INDEX e_bad ON e USING learned ((t::jsonb || '{}'));
CREATE INDEX e_bad ON e USING learned ((a::bit(32)));
-- Operator classes that do not fit the column.
CREATE INDEX e_bad ON e USING learned (a float8_ops);
CREATE INDEX e_bad ON e USING learned (t int4_ops);
CREATE INDEX e_bad ON e USING learned (a int8_ops);
CREATE INDEX e_bad ON e USING learned (a no_such_ops);
-- Included columns of a type learned indexes do not store (several key
-- columns: see 40_multicol; INCLUDE columns: 43_include; unique: 30_unique,
-- 31_unique_multicol).
CREATE INDEX e_bad ON e USING learned (a) INCLUDE (m);
ALTER TABLE e ADD CONSTRAINT e_bad EXCLUDE USING learned (a WITH <>);
SELECT count(*) FROM pg_class WHERE relname = 'e_bad';

-- Operators outside the family cannot use the index.
-- (lexplain: sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all
CREATE INDEX e_a ON e USING learned (a);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT lexplain('SELECT * FROM e WHERE a <> 5');
SELECT lexplain('SELECT * FROM e WHERE a::numeric = 5');
SELECT lexplain('SELECT * FROM e WHERE a = 5.0');
RESET enable_seqscan;
RESET enable_bitmapscan;

-- The inspection functions only accept learned indexes.
CREATE INDEX e_btree ON e USING btree (a);
SELECT * FROM learned_index_info('e_btree');
SELECT * FROM learned_index_segments('e_btree');
SELECT * FROM learned_index_info('e');
SELECT * FROM learned_index_segments('e');
SELECT learned_index_check('e_btree');
SELECT learned_index_merge('e_btree');
SELECT count(*) FROM learned_index_info(NULL);
SELECT count(*) FROM learned_index_segments(NULL);
CREATE TABLE e_part (k int8) PARTITION BY RANGE (k);
CREATE TABLE e_part_1 PARTITION OF e_part FOR VALUES FROM (0) TO (100);
CREATE INDEX e_part_k ON e_part USING learned (k);
SELECT * FROM learned_index_info('e_part_k');
SELECT entries FROM learned_index_info('e_part_1_k_idx');
-- a unique index on a partitioned table: before 18, core takes only btree;
-- 18 takes any AM that maps its equality strategy (amtranslatecmptype)
DO $$
BEGIN
    CREATE UNIQUE INDEX e_bad ON e_part USING learned (k);
    IF current_setting('server_version_num')::int < 180000 THEN
        RAISE EXCEPTION 'unique learned index on a partitioned table accepted before 18';
    END IF;
    RAISE NOTICE 'unique learned index on a partitioned table: as the major allows';
EXCEPTION WHEN feature_not_supported THEN
    IF current_setting('server_version_num')::int >= 180000 THEN
        RAISE;
    END IF;
    RAISE NOTICE 'unique learned index on a partitioned table: as the major allows';
END $$;

DROP TABLE e, e_part;
