-- 26_pending_pin
--
-- A scan reads the backend's sorted pending copy in place, lazily, from the
-- version it pinned at its start.  Scans of the same index in the same
-- backend can overlap with refreshes: a cursor, or a volatile function
-- called per row of an index scan, that inserts and looks up.  A refresh
-- must then make a new version before changing the copy (one that shares
-- the large main run, or after a merge a new epoch of versions), and the
-- pinned version must live until its last scan ends, and no longer, even
-- when the transaction aborts.
SET learned_idx.tail_limit = 0;	-- the copy of a long pending list (no sorted runs)
CREATE TABLE pp (k int8, v int);
INSERT INTO pp SELECT i * 10, 0 FROM generate_series(1, 20000) i;
CREATE INDEX pp_k ON pp USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
-- 2000 pending entries, interleaved with the static keys
INSERT INTO pp SELECT i * 10 + 5, 1 FROM generate_series(1, 2000) i;
CREATE TABLE ppt (k text, v int);
INSERT INTO ppt SELECT lpad((i * 10)::text, 7, '0'), 0 FROM generate_series(1, 20000) i;
CREATE INDEX ppt_k ON ppt USING learned (k COLLATE "C") WITH (merge_ratio = 1, pending_limit = 100000);
INSERT INTO ppt SELECT lpad((i * 10 + 5)::text, 7, '0'), 1 FROM generate_series(1, 2000) i;
VACUUM ppt;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET jit = off;

-- epochs of the pending copy this backend holds: one memory context each
-- (the versions of one epoch share it)
CREATE FUNCTION pending_copies(idx text) RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FROM pg_backend_memory_contexts
    WHERE name = 'learned pending copy' AND ident = idx $$;

-- per row of the outer scan: insert keys on both sides of it, and look one
-- up through the index, which refreshes the copy the outer scan pinned
CREATE FUNCTION poke(x int8) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE n int8;
BEGIN
    INSERT INTO pp VALUES (x + 1, 2), (x + 11, 2), (x - 9, 2);
    SELECT count(*) INTO n FROM pp WHERE k = x + 11;
    RETURN n;
END $$;
CREATE FUNCTION poket(x text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE n int8;
BEGIN
    INSERT INTO ppt VALUES (x || 'a', 2), (lpad((x::int8 + 11)::text, 7, '0'), 2);
    SELECT count(*) INTO n FROM ppt WHERE k = x || 'a';
    RETURN n;
END $$;

-- the outer scans return exactly the rows of their snapshot, each once:
-- what a sequential scan (k + 0 cannot use the index) finds just before
SELECT count(*), count(DISTINCT k), sum(k), sum(v) FROM pp WHERE k + 0 BETWEEN 1000 AND 6000;
SELECT count(*), count(DISTINCT k), sum(k), sum(v), min(n), max(n) FROM (
    SELECT k, v, poke(k) AS n FROM pp WHERE k BETWEEN 1000 AND 6000 ORDER BY k) s;
SELECT count(*), count(DISTINCT k), sum(k), sum(v) FROM pp WHERE k + 0 BETWEEN 7000 AND 12000;
SELECT count(*), count(DISTINCT k), sum(k), sum(v), min(n), max(n) FROM (
    SELECT k, v, poke(k) AS n FROM pp WHERE k BETWEEN 7000 AND 12000 ORDER BY k DESC) s;
-- index-only, by-reference keys read from the pinned copy
SELECT count(*), count(DISTINCT k), min(k), max(k), sum(length(k)) FROM ppt
    WHERE k || '' BETWEEN '0001000' AND '0003000';
EXPLAIN (COSTS OFF) SELECT k FROM ppt
    WHERE k COLLATE "C" BETWEEN '0001000' AND '0003000' ORDER BY k COLLATE "C";
SELECT count(*), count(DISTINCT k), min(k), max(k), sum(length(k)), min(n), max(n) FROM (
    SELECT k, poket(k) AS n FROM ppt
    WHERE k COLLATE "C" BETWEEN '0001000' AND '0003000' ORDER BY k COLLATE "C") s;
SELECT pending_copies('pp_k'), pending_copies('ppt_k');

-- a cursor keeps its version across statements that refresh and merge
CREATE TEMP TABLE want AS SELECT * FROM pp WHERE k + 0 BETWEEN 10000 AND 30000;
CREATE TEMP TABLE rest AS SELECT * FROM pp WHERE false;
CREATE PROCEDURE fetch_rest(n int) LANGUAGE plpgsql AS $$
DECLARE r record; cur refcursor := 'c'; i int := 0; BEGIN
    LOOP
        EXIT WHEN i = n;
        FETCH cur INTO r;
        EXIT WHEN NOT FOUND;
        INSERT INTO rest VALUES (r.k, r.v);
        i := i + 1;
    END LOOP;
END $$;
BEGIN;
DECLARE c CURSOR FOR SELECT k, v FROM pp WHERE k BETWEEN 10000 AND 30000 ORDER BY k;
CALL fetch_rest(3);
SELECT * FROM rest ORDER BY k;
INSERT INTO pp SELECT i * 10 + 7, 3 FROM generate_series(2000, 4000) i;
SELECT count(*) FROM pp WHERE k BETWEEN 10000 AND 30000;
SELECT pending_copies('pp_k');
SELECT learned_index_merge('pp_k') > 0 AS merged;
SELECT count(*) FROM pp WHERE k BETWEEN 10000 AND 30000;
SELECT pending_copies('pp_k');
-- the rest of the cursor: what it saw at its start, not the inserts
CALL fetch_rest(-1);
SELECT count(*), count(DISTINCT k), sum(k), sum(v) FROM rest;
SELECT count(*) AS missing FROM (TABLE want EXCEPT ALL TABLE rest) s;
SELECT count(*) AS extra FROM (TABLE rest EXCEPT ALL TABLE want) s;
CLOSE c;
SELECT pending_copies('pp_k');
COMMIT;
SELECT learned_index_check('pp_k');

-- an abort releases the pin: the pinned version is freed
INSERT INTO pp SELECT i * 10 + 3, 4 FROM generate_series(1, 500) i;
BEGIN;
DECLARE c2 CURSOR FOR SELECT k FROM pp WHERE k < 3000 ORDER BY k;
FETCH 2 FROM c2;
INSERT INTO pp VALUES (33, 5);
SELECT count(*) FROM pp WHERE k < 3000;
SELECT learned_index_merge('pp_k') > 0 AS merged;
SELECT count(*) FROM pp WHERE k < 3000;
SELECT pending_copies('pp_k');
SELECT 1 / 0;
ROLLBACK;
SELECT pending_copies('pp_k');
SELECT count(*) FROM pp WHERE k < 3000;
SELECT learned_index_check('pp_k'), learned_index_check('ppt_k');
-- composite keys: the pending copy's mapped keys narrow each lookup's
-- binary search (pending_bound), checked by the comparator at both edges.
-- The first column spans int8's range, so the second packs lossily and
-- many entries share an image.
CREATE TABLE pc (a int8, b int4);
INSERT INTO pc SELECT (g - 2500)::int8 * 3600000000000000, g % 7 FROM generate_series(1, 5000) g;
CREATE INDEX pc_ab ON pc USING learned (a, b) WITH (merge_ratio = 1, pending_limit = 100000);
INSERT INTO pc SELECT ((g % 2500) - 1250)::int8 * 7200000000000000 + (g % 3) * 1800000000000000, g % 5 FROM generate_series(1, 4000) g;
INSERT INTO pc SELECT ((g % 900) - 450)::int8 * 3600000000000000, 9 FROM generate_series(1, 900) g;
SELECT pending_entries FROM learned_index_info('pc_ab');
CREATE FUNCTION pc_mismatches() RETURNS int LANGUAGE plpgsql AS $$
DECLARE bad int := 0; x int8; y int4; c1 bigint; c2 bigint; i int;
BEGIN
    FOR i IN 0..249 LOOP
        x := ((i * 7919 % 5000) - 2500)::int8 * 3600000000000000 + CASE WHEN i % 4 = 0 THEN 1800000000000000 ELSE 0 END;
        y := i % 10;
        SELECT count(*) INTO c1 FROM pc WHERE a = x AND b = y;
        SELECT count(*) INTO c2 FROM pc WHERE a + 0 = x AND b + 0 = y;
        IF c1 <> c2 THEN bad := bad + 1; END IF;
        SELECT count(*) INTO c1 FROM pc WHERE a = x;
        SELECT count(*) INTO c2 FROM pc WHERE a + 0 = x;
        IF c1 <> c2 THEN bad := bad + 1; END IF;
        SELECT count(*) INTO c1 FROM pc WHERE a > x AND a <= x + 10800000000000000 AND b >= y % 5;
        SELECT count(*) INTO c2 FROM pc WHERE a + 0 > x AND a + 0 <= x + 10800000000000000 AND b + 0 >= y % 5;
        IF c1 <> c2 THEN bad := bad + 1; END IF;
        -- an int4 bound on the int8 column
        SELECT count(*) INTO c1 FROM pc WHERE a = (x % 2000000000)::int4 AND b = y;
        SELECT count(*) INTO c2 FROM pc WHERE a + 0 = (x % 2000000000)::int4 AND b + 0 = y;
        IF c1 <> c2 THEN bad := bad + 1; END IF;
    END LOOP;
    RETURN bad;
END $$;
SELECT pc_mismatches();
SELECT learned_index_check('pc_ab');
DROP TABLE pc;
DROP FUNCTION pc_mismatches();
DROP TABLE pp, ppt;
DROP FUNCTION pending_copies(text), poke(int8), poket(text);
DROP PROCEDURE fetch_rest(int);
