-- An inserting backend keeps, per index, hints: the buffers that last held
-- the metapage and the pending tail (for ReadRecentBuffer) and the tail's
-- count after its last append.  Stale hints must never be used as they are:
-- after REINDEX and TRUNCATE (new relfilenode, same OID), a new tail page,
-- a flush that replaces the tail's pages, DROP and a new index, a temporary
-- index, and indexes whose OIDs share a hint slot, every entry is found
-- and learned_index_check agrees.
SET learned_idx.auto_merge = off;
SET learned_idx.tail_limit = 600;
CREATE TABLE ih (k int8, v int);
CREATE INDEX ih_l ON ih USING learned (k);
CREATE FUNCTION ih_same() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	a text;
	b text;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	SELECT string_agg(k::text || ':' || v::text, ',' ORDER BY k, v) INTO a FROM ih WHERE k >= 0;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	SELECT string_agg(k::text || ':' || v::text, ',' ORDER BY k, v) INTO b FROM ih WHERE k >= 0;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	RETURN a IS NOT DISTINCT FROM b;
END $$;
-- single-row inserts (one statement each) across several tail pages and a flush
DO $$ BEGIN FOR i IN 1..1500 LOOP INSERT INTO ih VALUES ((i * 7919) % 1500, i); END LOOP; END $$;
SELECT ih_same(), learned_index_check('ih_l'), (SELECT count(*) FROM ih);
-- same OID, new relfilenode: the hints name buffers of the old file
REINDEX INDEX ih_l;
INSERT INTO ih SELECT g, -g FROM generate_series(1, 300) g;
SELECT ih_same(), learned_index_check('ih_l'), (SELECT count(*) FROM ih);
TRUNCATE ih;
INSERT INTO ih VALUES (5, 5);
DO $$ BEGIN FOR i IN 1..700 LOOP INSERT INTO ih VALUES (i, i); END LOOP; END $$;
SELECT ih_same(), learned_index_check('ih_l'), (SELECT count(*) FROM ih);
-- a merge empties the list: the tail count hint is past the new tail's
SELECT learned_index_merge('ih_l') >= 0;
DO $$ BEGIN FOR i IN 1..50 LOOP INSERT INTO ih VALUES (i, 1000 + i); END LOOP; END $$;
SELECT ih_same(), learned_index_check('ih_l'), (SELECT count(*) FROM ih);
-- a new index in its place
DROP INDEX ih_l;
CREATE INDEX ih_l2 ON ih USING learned (k);
DO $$ BEGIN FOR i IN 1..600 LOOP INSERT INTO ih VALUES (i, 2000 + i); END LOOP; END $$;
SELECT ih_same(), learned_index_check('ih_l2'), (SELECT count(*) FROM ih);
-- nine more indexes on the table: at least two share a hint slot, and
-- every insert goes through all of them
DO $$ BEGIN FOR i IN 1..9 LOOP EXECUTE format('CREATE INDEX ih_x%s ON ih USING learned (k)', i); END LOOP; END $$;
DO $$ BEGIN FOR i IN 1..800 LOOP INSERT INTO ih VALUES (i % 97, 3000 + i); END LOOP; END $$;
SELECT ih_same(), bool_and(learned_index_check(c.oid::regclass))
  FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE i.indrelid = 'ih'::regclass;
-- a temporary index takes no hints (local buffers)
CREATE TEMP TABLE iht (k int8);
CREATE INDEX iht_l ON iht USING learned (k);
DO $$ BEGIN FOR i IN 1..1200 LOOP INSERT INTO iht VALUES (i % 301); END LOOP; END $$;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(k) FROM iht WHERE k >= 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(k) FROM iht WHERE k >= 0;
SELECT learned_index_check('iht_l');
DROP TABLE iht;
DROP TABLE ih;
DROP FUNCTION ih_same();
