-- 20_dynamic
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
-- dyn_opts: more reloptions for the indexes (22_dynamic_plain sets it)
\if :{?dyn_opts}
\else
\set dyn_opts ''
\endif
\set ECHO all

--
-- The dynamic stage: inserts into the pending list before and after merges,
-- learned_index_merge, DELETE, UPDATE, VACUUM (which merges first, marks
-- entries dead, rewrites mostly-dead segments and collects garbage),
-- ordered scans over both stages, cursors that span merges, transactions,
-- empty and NULL-only stages, segment splits, failed merges (ERROR fault
-- points), error cases.  learned_index_check(heapallindexed) after each step.
--

-- dverify(tab): a battery of queries on column k (int8) of tab, each checked
-- by lcheck against a sequential scan; one summary line.  Keys are in
-- [-10, 400000) plus extremes.
CREATE FUNCTION dverify(tab text) RETURNS text
LANGUAGE sql AS $$
    SELECT lcheck_many(tab, ARRAY[
        'SELECT k FROM %I ORDER BY k',
        'SELECT k FROM %I ORDER BY k DESC',
        'SELECT k FROM %I ORDER BY k LIMIT 7',
        'SELECT k FROM %I ORDER BY k DESC LIMIT 7',
        'SELECT k FROM %I WHERE k IS NOT NULL ORDER BY k DESC LIMIT 7',
        'SELECT id, k FROM %I WHERE k IS NULL',
        'SELECT id, k FROM %I WHERE k IS NOT NULL',
        'SELECT id, k FROM %I WHERE k = 0',
        'SELECT id, k FROM %I WHERE k = 5',
        'SELECT id, k FROM %I WHERE k = 100',
        'SELECT id, k FROM %I WHERE k = 105',
        'SELECT id, k FROM %I WHERE k = 77777',
        'SELECT id, k FROM %I WHERE k = 199990',
        'SELECT id, k FROM %I WHERE k = -9223372036854775808',
        'SELECT id, k FROM %I WHERE k = 9223372036854775807',
        'SELECT k FROM %I WHERE k < 1000 ORDER BY k',
        'SELECT k FROM %I WHERE k < 1000 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k >= 150000 ORDER BY k',
        'SELECT k FROM %I WHERE k > 150000 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k BETWEEN 50000 AND 50500 ORDER BY k',
        'SELECT k FROM %I WHERE k BETWEEN 50000 AND 50500 ORDER BY k DESC',
        'SELECT k FROM %I WHERE k > 99990 ORDER BY k LIMIT 7',
        'SELECT k FROM %I WHERE k < 100010 ORDER BY k DESC LIMIT 7',
        'SELECT id, k FROM %I WHERE k BETWEEN 20000 AND 80000',
        'SELECT k FROM %I WHERE k IN (5, 100, 105, 12345, 77777, 199990, 250000) ORDER BY k',
        'SELECT k FROM %I WHERE k IN (5, 100, 105, 12345, 77777, 199990, 250000) ORDER BY k DESC',
        'SELECT count(*) FROM %I WHERE k > 0',
        'SELECT count(*) FROM %I WHERE k IS NULL'])
$$;

-- dstate(idx): the deterministic part of learned_index_info.
CREATE FUNCTION dstate(idx regclass) RETURNS text
LANGUAGE sql AS $$
    SELECT format('generation=%s segments=%s entries=%s dead=%s nulls=%s pending=%s',
                  generation, segments, entries, dead_entries, null_entries, pending_entries)
    FROM learned_index_info(idx)
$$;

-- 20000 keys 0, 10, ..., 199990 and 20 NULLs.  merge_ratio 1 and a large
-- pending_limit: no merge but the ones asked for (or VACUUM's).
CREATE TABLE d (id serial, k int8, v text);
INSERT INTO d (k, v) SELECT i * 10, 'b' FROM generate_series(0, 19999) i;
INSERT INTO d (k, v) SELECT NULL, 'bn' FROM generate_series(1, 20);
CREATE INDEX d_k ON d USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000 :dyn_opts);
ANALYZE d;
SELECT dstate('d_k');
SELECT learned_index_merge('d_k');  -- nothing pending: 0, no new generation
SELECT dstate('d_k');

-- Pending entries: between the keys, equal to static keys, beyond both
-- ends, NULLs, extremes, duplicates among themselves.
INSERT INTO d (k, v) SELECT i * 10 + 5, 'p1' FROM generate_series(0, 19999, 50) i;
INSERT INTO d (k, v) SELECT i * 10, 'p1' FROM generate_series(0, 19999, 70) i;
INSERT INTO d (k, v) VALUES (-5, 'p1'), (-9223372036854775808, 'p1'),
    (9223372036854775807, 'p1'), (250000, 'p1'), (NULL, 'p1'), (NULL, 'p1'),
    (77777, 'p1'), (77777, 'p1');
SELECT dstate('d_k');
SELECT dverify('d');
SELECT learned_index_check('d_k', true);

-- Ordered scans interleave the two stages.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT k, v FROM d WHERE k BETWEEN 90 AND 120 ORDER BY k, v;
SELECT k, v FROM d WHERE k BETWEEN 90 AND 120 ORDER BY k DESC, v;
SELECT k FROM d ORDER BY k LIMIT 4;
SELECT k FROM d ORDER BY k DESC LIMIT 4;
SELECT k FROM d ORDER BY k DESC NULLS LAST LIMIT 3;
SELECT count(*) FILTER (WHERE v = 'p1') AS pending, count(*) AS total FROM d WHERE k IS NULL;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- The merge folds every pending entry in.
SELECT learned_index_merge('d_k');
SELECT dstate('d_k');
SELECT dverify('d');
SELECT learned_index_check('d_k', true);

-- Inserts after the merge: a new pending list over the new generation.
INSERT INTO d (k, v) SELECT i * 10 + 7, 'p2' FROM generate_series(0, 19999, 40) i;
INSERT INTO d (k, v) VALUES (95, 'p2'), (100, 'p2'), (NULL, 'p2'), (-10, 'p2');
SELECT dstate('d_k');
SELECT dverify('d');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT k, v FROM d WHERE k BETWEEN 90 AND 120 ORDER BY k, v;
SELECT k, v FROM d WHERE k < 0 ORDER BY k;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT learned_index_check('d_k', true);

-- DELETE from both stages: the deleted rows are gone at once (heap
-- visibility), before any VACUUM.
DELETE FROM d WHERE v = 'p2' AND k % 3 = 0;
DELETE FROM d WHERE v = 'b' AND k % 70 = 0;
DELETE FROM d WHERE k IS NULL AND v = 'bn' AND id % 2 = 0;
SELECT dverify('d');
SELECT learned_index_check('d_k', true);

-- VACUUM merges the pending list first (a new generation), then marks the
-- deleted entries dead.
VACUUM d;
SELECT dstate('d_k');
SELECT dverify('d');
SELECT learned_index_check('d_k', true);

-- UPDATE: key changes (new entries in the pending list, the old ones die),
-- and a non-key update.
UPDATE d SET k = k + 1, v = 'u' WHERE k BETWEEN 1000 AND 1100;
UPDATE d SET k = NULL, v = 'u' WHERE k BETWEEN 2000 AND 2030;
UPDATE d SET k = 3333, v = 'u' WHERE k IS NULL AND v = 'p1';
UPDATE d SET v = v || '+' WHERE k BETWEEN 5000 AND 5100;
SELECT dverify('d');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT k, v FROM d WHERE k BETWEEN 1000 AND 1022 ORDER BY k, v;
SELECT k, v FROM d WHERE k = 3333 ORDER BY v;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT learned_index_check('d_k', true);
SELECT learned_index_merge('d_k');
SELECT dverify('d');
SELECT learned_index_check('d_k', true);

-- A third of the static entries deleted: VACUUM rewrites the mostly-dead
-- segments, so the dead entries leave the index.
DELETE FROM d WHERE id % 3 = 0;
VACUUM d;
SELECT dstate('d_k');
SELECT dverify('d');
SELECT learned_index_check('d_k', true);

-- Rolled-back inserts, merged: the entries point to dead tuples, the rows
-- never show; VACUUM removes them.
BEGIN;
INSERT INTO d (k, v) SELECT i * 10 + 3, 'rb' FROM generate_series(0, 19999, 10) i;
ROLLBACK;
SELECT learned_index_merge('d_k');
SELECT count(*) FROM d WHERE v = 'rb';
SELECT dverify('d');
VACUUM d;
SELECT dstate('d_k');
SELECT learned_index_check('d_k', true);

-- Inside a transaction: its own inserts, then a merge in the same
-- transaction, then a rollback.
BEGIN;
INSERT INTO d (k, v) SELECT i * 10 + 4, 'tx' FROM generate_series(0, 19999, 100) i;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) FROM d WHERE k BETWEEN 0 AND 1000000 AND v = 'tx';
SELECT learned_index_merge('d_k');
SELECT count(*) FROM d WHERE k BETWEEN 0 AND 1000000 AND v = 'tx';
SELECT k, v FROM d WHERE k BETWEEN 100 AND 110 ORDER BY k, v;
ROLLBACK;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM d WHERE k BETWEEN 0 AND 1000000 AND v = 'tx';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT dverify('d');

-- A cursor opened before inserts and a merge keeps its view: each row of
-- its snapshot exactly once, in order, none of the later rows.
CREATE TABLE cur_expect AS SELECT k FROM d WHERE k BETWEEN 40000 AND 40200;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
BEGIN;
DECLARE c CURSOR FOR SELECT k FROM d WHERE k BETWEEN 40000 AND 40200 ORDER BY k;
FETCH 3 FROM c;
INSERT INTO d (k, v) SELECT 40000 + i, 'cur' FROM generate_series(0, 200) i;
SELECT learned_index_merge('d_k');
FETCH 3 FROM c;
COMMIT;
-- the same, collected: a plpgsql loop merges twice in the middle
DELETE FROM d WHERE v = 'cur';
CREATE FUNCTION cursor_across_merges() RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    c refcursor;
    r record;
    n int := 0;
    got int8[] := '{}';
    expect int8[];
BEGIN
    expect := ARRAY(SELECT k FROM cur_expect ORDER BY k);
    OPEN c FOR SELECT k FROM d WHERE k BETWEEN 40000 AND 40200 ORDER BY k;
    LOOP
        FETCH c INTO r;
        EXIT WHEN NOT FOUND;
        got := got || r.k;
        n := n + 1;
        IF n IN (2, 7) THEN
            INSERT INTO d (k, v) SELECT 40000 + i, 'cur' FROM generate_series(0, 200, 3) i;
            PERFORM learned_index_merge('d_k');
        END IF;
    END LOOP;
    CLOSE c;
    RETURN CASE WHEN got = expect THEN format('ok: %s rows', n)
                ELSE format('WRONG: got %s expected %s', got, expect) END;
END $$;
SELECT cursor_across_merges();
RESET enable_seqscan;
RESET enable_bitmapscan;
DELETE FROM d WHERE v = 'cur';
SELECT learned_index_check('d_k', true);

-- Repeated merges and VACUUMs do not make the index grow: garbage
-- collection recycles what the merges replaced, once the horizon has passed
-- the merge (a transaction that started after it has completed; here the
-- txid_current() call), and the next merges reuse the pages.
CREATE TABLE sizes (round int, pages int8);
CREATE FUNCTION churn_round(r int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO d (k, v) SELECT i * 10 + 6, 'ch' FROM generate_series(0, 19999, 4) i;
    DELETE FROM d WHERE v = 'ch' AND id % 2 = r % 2;
    PERFORM learned_index_merge('d_k');
END $$;
SELECT churn_round(1);
SELECT txid_current() > 0 AS later_xact;
VACUUM d;
INSERT INTO sizes SELECT 1, pg_relation_size('d_k') / 8192;
SELECT churn_round(2);
SELECT txid_current() > 0 AS later_xact;
VACUUM d;
SELECT churn_round(3);
SELECT txid_current() > 0 AS later_xact;
VACUUM d;
SELECT churn_round(4);
SELECT txid_current() > 0 AS later_xact;
VACUUM d;
INSERT INTO sizes SELECT 4, pg_relation_size('d_k') / 8192;
SELECT (SELECT pages FROM sizes WHERE round = 4) <= 1.3 * (SELECT pages FROM sizes WHERE round = 1)
       AS bounded;
SELECT dverify('d');
SELECT learned_index_check('d_k', true);

-- Failed merges (ERROR at each fault point; superuser only): before the
-- flip nothing changes, after it the new generation stands.
INSERT INTO d (k, v) SELECT i * 10 + 8, 'f' FROM generate_series(0, 19999, 30) i;
SET learned_idx.fail_point = 'merge-start';
SELECT learned_index_merge('d_k');
SET learned_idx.fail_point = 'merge-after-segments';
SELECT learned_index_merge('d_k');
SET learned_idx.fail_point = 'merge-before-flip';
SELECT learned_index_merge('d_k');
SELECT dstate('d_k');
SELECT dverify('d');
SELECT learned_index_check('d_k', true);
SET learned_idx.fail_point = 'merge-after-flip';
SELECT learned_index_merge('d_k');
RESET learned_idx.fail_point;
SELECT dstate('d_k');
SELECT dverify('d');
SELECT learned_index_check('d_k', true);
SELECT learned_index_merge('d_k');
VACUUM d;
VACUUM d;
SELECT learned_index_check('d_k', true);

-- Reloptions of the dynamic stage change on the fly.
ALTER INDEX d_k SET (merge_ratio = 5, pending_limit = 64);
SELECT reloptions FROM pg_class WHERE relname = 'd_k';
ALTER INDEX d_k RESET (merge_ratio, pending_limit);
SELECT reloptions FROM pg_class WHERE relname = 'd_k';
ALTER INDEX d_k SET (merge_ratio = 1, pending_limit = 100000);

-- An index built on an empty table: the first merge creates the static
-- stage; deleting everything and vacuuming empties it again.  Inserts
-- start no merge here (learned_idx.auto_merge), so the merges are the
-- ones asked for (29_merge_trigger: the trigger of an empty index).
SET learned_idx.auto_merge = off;
CREATE TABLE e0 (id serial, k int8, v text);
CREATE INDEX e0_k ON e0 USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000 :dyn_opts);
SELECT dstate('e0_k');
INSERT INTO e0 (k, v) SELECT (i * 7919) % 200000, 'x' FROM generate_series(1, 3000) i;
INSERT INTO e0 (k, v) VALUES (NULL, 'x');
SELECT dstate('e0_k');
SELECT dverify('e0');
SELECT learned_index_merge('e0_k');
SELECT dstate('e0_k');
SELECT dverify('e0');
SELECT learned_index_check('e0_k', true);
DELETE FROM e0;
VACUUM e0;
SELECT dstate('e0_k');
SELECT dverify('e0');
SELECT learned_index_check('e0_k', true);
INSERT INTO e0 (k, v) SELECT i, 'y' FROM generate_series(1, 10) i;
SELECT learned_index_merge('e0_k');
SELECT dstate('e0_k');
SELECT dverify('e0');
SELECT learned_index_check('e0_k', true);

-- Only NULLs pending: the merge rewrites the NULL run alone.
INSERT INTO e0 (k, v) SELECT NULL, 'n' FROM generate_series(1, 700) i;
SELECT learned_index_merge('e0_k');
SELECT dstate('e0_k');
SELECT dverify('e0');
SELECT learned_index_check('e0_k', true);
RESET learned_idx.auto_merge;

-- A merge that makes one segment outgrow its 128-page cap splits it.
CREATE TABLE s (id serial, k int8, v text);
INSERT INTO s (k, v) SELECT i * 100, 'b' FROM generate_series(0, 999) i;
-- (plain pages: compressed ones hold ~10x more, 10_compression splits those)
CREATE INDEX s_k ON s USING learned (k) WITH (merge_ratio = 1, pending_limit = 2000000, compression = off);
SELECT segments FROM learned_index_info('s_k');
-- (past static / merge_ratio: a worker may merge part of it first)
INSERT INTO s (k, v) SELECT (i * 7) % 100000, 'i' FROM generate_series(1, 90000) i;
SELECT learned_index_merge('s_k') >= 0 AS merged;
SELECT segments > 1 AS split, entries FROM learned_index_info('s_k');
SELECT dverify('s');
SELECT learned_index_check('s_k', true);

-- Other key types and a DESC index, over both stages.
CREATE TABLE ty (id serial, i4 int4, f8 float8, ts timestamptz, k int8);
INSERT INTO ty (i4, f8, ts, k)
    SELECT i, i / 7.0, '2024-01-01'::timestamptz + i * interval '1 minute', i
    FROM generate_series(1, 5000) i;
CREATE INDEX ty_i4 ON ty USING learned (i4) WITH (merge_ratio = 1 :dyn_opts);
CREATE INDEX ty_f8 ON ty USING learned (f8) WITH (merge_ratio = 1 :dyn_opts);
CREATE INDEX ty_ts ON ty USING learned (ts) WITH (merge_ratio = 1 :dyn_opts);
CREATE INDEX ty_kd ON ty USING learned (k DESC) WITH (merge_ratio = 1 :dyn_opts);
INSERT INTO ty (i4, f8, ts, k)
    SELECT -i, -i / 3.0, '2023-12-31'::timestamptz - i * interval '1 hour', -i
    FROM generate_series(1, 300) i;
INSERT INTO ty (i4, f8, ts, k) VALUES (2500, 'NaN', 'infinity', 2500), (NULL, NULL, NULL, NULL);
SELECT lcheck('SELECT i4 FROM ty WHERE i4 BETWEEN -5 AND 5 ORDER BY i4', 'is,ios');
SELECT lcheck('SELECT f8 FROM ty WHERE f8 > 700 ORDER BY f8 DESC', 'is,ios');
SELECT lcheck('SELECT ts FROM ty WHERE ts < ''2024-01-01 00:05'' ORDER BY ts LIMIT 10', 'is,ios');
SELECT lcheck('SELECT k FROM ty ORDER BY k DESC LIMIT 10', 'is,ios');
SELECT lcheck('SELECT k FROM ty ORDER BY k LIMIT 10', 'is,ios');
SELECT lcheck('SELECT id FROM ty WHERE k BETWEEN -10 AND 10', 'is,bis');
SELECT learned_index_merge('ty_i4'), learned_index_merge('ty_f8'),
       learned_index_merge('ty_ts'), learned_index_merge('ty_kd');
SELECT lcheck('SELECT i4 FROM ty WHERE i4 BETWEEN -5 AND 5 ORDER BY i4', 'is,ios');
SELECT lcheck('SELECT f8 FROM ty WHERE f8 > 700 ORDER BY f8 DESC', 'is,ios');
SELECT lcheck('SELECT ts FROM ty WHERE ts < ''2024-01-01 00:05'' ORDER BY ts LIMIT 10', 'is,ios');
SELECT lcheck('SELECT k FROM ty ORDER BY k DESC LIMIT 10', 'is,ios');
SELECT lcheck('SELECT k FROM ty ORDER BY k LIMIT 10', 'is,ios');
SELECT lcheck('SELECT id FROM ty WHERE k BETWEEN -10 AND 10', 'is,bis');
SELECT learned_index_check('ty_i4', true), learned_index_check('ty_f8', true),
       learned_index_check('ty_ts', true), learned_index_check('ty_kd', true);

-- Errors.
CREATE INDEX d_btree ON d USING btree (k);
SELECT learned_index_merge('d_btree');
DROP INDEX d_btree;
SELECT learned_index_merge('d');
SELECT learned_index_merge('no_such_index');
SELECT learned_index_merge(NULL);
SELECT learned_index_merge(0);
ALTER INDEX d_k SET (pending_limit = 10);
ALTER INDEX d_k SET (pending_limit = 0);
ALTER INDEX d_k SET (pending_limit = -2);
ALTER INDEX d_k SET (merge_ratio = 0.5);
ALTER INDEX d_k SET (merge_ratio = 0);
ALTER INDEX d_k SET (merge_ratio = 'x');
ALTER INDEX d_k SET (vacuum_truncate = 'maybe');
\set VERBOSITY sqlstate
SET learned_idx.pending_limit = 10;
\set VERBOSITY default
SET learned_idx.pending_limit = '64kB';
SHOW learned_idx.pending_limit;
RESET learned_idx.pending_limit;
SET learned_idx.fail_point = 'no-such-point';
SELECT learned_index_merge('d_k');   -- an unknown point never fires
RESET learned_idx.fail_point;
-- not the owner; not a superuser for the fault points
CREATE ROLE learned_dyn_user;
GRANT SELECT, INSERT ON d TO learned_dyn_user;
GRANT USAGE ON SEQUENCE d_id_seq TO learned_dyn_user;
GRANT EXECUTE ON FUNCTION learned_index_merge(regclass),
    learned_index_check(regclass, boolean) TO learned_dyn_user;
SET ROLE learned_dyn_user;
SELECT learned_index_merge('d_k');
SET learned_idx.fail_point = 'merge-start';
INSERT INTO d (k, v) VALUES (1, 'user');
SELECT learned_index_check('d_k');
RESET ROLE;
REVOKE ALL ON d FROM learned_dyn_user;
REVOKE ALL ON SEQUENCE d_id_seq FROM learned_dyn_user;
REVOKE ALL ON FUNCTION learned_index_merge(regclass),
    learned_index_check(regclass, boolean) FROM learned_dyn_user;
DROP ROLE learned_dyn_user;
-- a merge is maintenance, not a write of the transaction's data: it also
-- runs in a read-only transaction
BEGIN READ ONLY;
SELECT learned_index_merge('d_k') >= 0 AS merged;
ROLLBACK;
SELECT learned_index_check('d_k', true);
SELECT dverify('d');

-- Point lookups against the backend's pending copy, one insert at a time:
-- each lookup refreshes the copy with the newest entry, so its membership
-- filter (exact keys) is extended entry by entry, rebuilt larger as it
-- fills, and main and recent fold; every lookup must still find exactly
-- what a sequential scan finds, for inserted, duplicate, static and absent
-- keys, with a bound of the key's own type and of other integer types, in
-- point lookups and ranges (the reference is a btree index).
CREATE TABLE pf (k int8);
CREATE TABLE pf_ref (k int8);
CREATE INDEX pf_ref_k ON pf_ref (k);
INSERT INTO pf SELECT 2 * i FROM generate_series(0, 4999) i;
INSERT INTO pf_ref SELECT k FROM pf;
CREATE INDEX pf_k ON pf USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000 :dyn_opts);
CREATE FUNCTION pf_round(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	bad int := 0;
	x int8;
	probe int8;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	FOR i IN 1 .. n LOOP
		x := 2 * ((i * 7919) % 4000) + 1;		-- odd: pending only; repeats after 4000
		INSERT INTO pf VALUES (x);
		INSERT INTO pf_ref VALUES (x);
		FOREACH probe IN ARRAY ARRAY[x, x + 2, 2 * (i % 5000), x + 8000] LOOP
			IF (SELECT count(*) FROM pf WHERE k = probe) <>
			   (SELECT count(*) FROM pf_ref WHERE k = probe) THEN
				bad := bad + 1;
			END IF;
			IF (SELECT count(*) FROM pf WHERE k = probe::int4) <>
			   (SELECT count(*) FROM pf_ref WHERE k = probe) THEN
				bad := bad + 1;
			END IF;
			-- integer bounds of other types search the copy by their images
			IF (SELECT count(*) FROM pf WHERE k > (probe - 3)::int2 AND k <= (probe + 1)::int4) <>
			   (SELECT count(*) FROM pf_ref WHERE k > probe - 3 AND k <= probe + 1) THEN
				bad := bad + 1;
			END IF;
		END LOOP;
	END LOOP;
	RETURN bad;
END $$;
SELECT pf_round(4500) AS wrong_lookups;
SELECT generation = 1 AS not_merged, pending_entries FROM learned_index_info('pf_k');
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pf WHERE k = 17;
RESET enable_bitmapscan;
SELECT learned_index_check('pf_k', true);
DROP FUNCTION pf_round(int);
DROP TABLE pf, pf_ref;

-- The insert trigger (last, on its own table: a merge worker it starts may
-- still run after the statement).  Past twice pending_limit (64 kB of
-- records, 16 bytes each for int8: 8192 entries) an INSERT merges inline,
-- whatever the workers do; a list that passes static / merge_ratio (and
-- 1024 entries) is merged by a worker or inline.  Either way the list
-- never grows past about twice the limit.
CREATE TABLE tr (id serial, k int8);
INSERT INTO tr (k) SELECT i FROM generate_series(1, 10000) i;
CREATE INDEX tr_k ON tr USING learned (k) WITH (merge_ratio = 1, pending_limit = 64 :dyn_opts);
INSERT INTO tr (k) SELECT (i * 7919) % 10000 FROM generate_series(1, 30000) i;
SELECT generation > 1 AS merged, pending_entries <= 2 * 64 * 1024 / 16 + 1 AS bounded FROM learned_index_info('tr_k');
SELECT learned_index_merge('tr_k') >= 0 AS merged_rest;
SELECT dverify('tr');
SELECT learned_index_check('tr_k', true);

DROP TABLE d, e0, s, ty, sizes, cur_expect, tr;
DROP FUNCTION cursor_across_merges(), churn_round(int), dverify(text), dstate(regclass);
