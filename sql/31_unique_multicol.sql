-- Unique learned indexes on several key columns (composite keys) and with
-- INCLUDE columns.  Every statement's outcome (error, message, detail) was
-- checked against the same script run with btree indexes.
SET client_min_messages = warning;
DROP TABLE IF EXISTS o, u, inc;
RESET client_min_messages;
-- Each CREATE UNIQUE INDEX warns that the table can no longer take
-- INSERT ... ON CONFLICT (PostgreSQL 15-17); 61_traps shows that warning.
SET client_min_messages = error;
CREATE TABLE o (w int, d int, o int8, x int);
INSERT INTO o SELECT w, d, o, 0 FROM generate_series(1,3) w, generate_series(1,10) d, generate_series(1,100) o;
CREATE UNIQUE INDEX o_u ON o USING learned (w, d, o);
INSERT INTO o VALUES (1, 1, 1, 0);
INSERT INTO o VALUES (1, 1, 101, 0);
INSERT INTO o VALUES (1, 1, 101, 0);
INSERT INTO o VALUES (1, NULL, 101, 0);
INSERT INTO o VALUES (1, NULL, 101, 0);
SELECT learned_index_merge('o_u');
INSERT INTO o VALUES (1, 1, 101, 0);
INSERT INTO o VALUES (3, 10, 100, 0);
INSERT INTO o VALUES (4, 10, 100, 0);
DELETE FROM o WHERE w = 2 AND d = 5 AND o = 50;
INSERT INTO o VALUES (2, 5, 50, 1);
SELECT count(*) FROM o;
DROP INDEX o_u;
INSERT INTO o VALUES (2, 2, 2, 7);
CREATE UNIQUE INDEX o_u ON o USING learned (w, d, o);
DELETE FROM o WHERE x = 7;
CREATE UNIQUE INDEX o_u ON o USING learned (w, d, o);
CREATE UNIQUE INDEX o_u2 ON o USING learned (w, d, o) NULLS NOT DISTINCT;
DELETE FROM o WHERE d IS NULL AND ctid = (SELECT min(ctid) FROM o WHERE d IS NULL);
CREATE UNIQUE INDEX o_u2 ON o USING learned (w, d, o) NULLS NOT DISTINCT;
INSERT INTO o VALUES (1, NULL, 101, 0);
INSERT INTO o VALUES (1, NULL, 102, 0);
-- uuid with shared 8-byte prefix
CREATE TABLE u (id uuid);
INSERT INTO u SELECT ('00000000-0000-0000-0000-' || lpad(i::text, 12, '0'))::uuid FROM generate_series(1, 1000) i;
CREATE UNIQUE INDEX u_u ON u USING learned (id);
INSERT INTO u VALUES ('00000000-0000-0000-0000-000000000005');
INSERT INTO u VALUES ('00000000-0000-0000-0000-000000001005');
-- single key + include
CREATE TABLE inc (k int8, v int4);
INSERT INTO inc SELECT i, i FROM generate_series(1, 1000) i;
CREATE UNIQUE INDEX inc_u ON inc USING learned (k) INCLUDE (v);
INSERT INTO inc VALUES (5, 99);
INSERT INTO inc VALUES (1005, 99);
INSERT INTO inc VALUES (1005, 98);
-- the contents through the indexes equal a sequential scan
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(hashint8(o)::int8 + hashint4(coalesce(d, -1))) FROM o WHERE w BETWEEN 1 AND 4;
SELECT count(*) FROM u WHERE id >= '00000000-0000-0000-0000-000000000000';
SELECT count(*), sum(v) FROM inc WHERE k > 0;
RESET enable_seqscan; RESET enable_bitmapscan;
SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(hashint8(o)::int8 + hashint4(coalesce(d, -1))) FROM o WHERE w BETWEEN 1 AND 4;
SELECT count(*) FROM u WHERE id >= '00000000-0000-0000-0000-000000000000';
SELECT count(*), sum(v) FROM inc WHERE k > 0;
RESET enable_indexscan; RESET enable_indexonlyscan; RESET enable_bitmapscan;
SELECT learned_index_check('o_u', true), learned_index_check('o_u2', true),
       learned_index_check('u_u', true), learned_index_check('inc_u', true);
DROP TABLE o, u, inc;
