-- 24_pending_refresh
--
-- A backend's sorted copy of the pending list, refreshed a few entries at a
-- time: each scan absorbs what was appended since the previous one into
-- the copy's small sorted run, which folds into the large run every few
-- hundred entries.  Thousands of small refreshes, no merge, every answer
-- compared with an unindexed shadow table; duplicates and runs of equal
-- keys included.  Exact keys (int8, the mapped key decides) and
-- comparator-ordered keys (text).
SET learned_idx.tail_limit = 0;	-- the copy of a long pending list (no sorted runs)
SELECT setseed(0.24);
CREATE TABLE pr (k int8, v int);
CREATE TABLE pr_sh (k int8, v int);
INSERT INTO pr SELECT i * 10, 0 FROM generate_series(1, 20000) i;
INSERT INTO pr_sh SELECT * FROM pr;
CREATE INDEX pr_k ON pr USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
CREATE TABLE prt (k text, v int);
CREATE TABLE prt_sh (k text, v int);
INSERT INTO prt SELECT lpad((i * 10)::text, 7, '0'), 0 FROM generate_series(1, 20000) i;
INSERT INTO prt_sh SELECT * FROM prt;
CREATE INDEX prt_k ON prt USING learned (k COLLATE "C") WITH (merge_ratio = 1, pending_limit = 100000);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- the shadow tables have no index: with enable_seqscan off their scans cost
-- more than jit_above_cost, and compiling each of thousands of queries is slow
SET jit = off;

-- refresh_round(tab, rounds): per round insert 1-3 rows (30% on an existing
-- key), then a range and a point query through the index, each compared with
-- the shadow table.  Returns the number of mismatching answers.
CREATE FUNCTION refresh_round(tab text, rounds int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
    i int; j int; lo int8; x int8; bad int := 0;
    c1 bigint; c2 bigint; s1 numeric; s2 numeric;
    txt bool := tab = 'prt';
    kx text; klo text; khi text;
BEGIN
    FOR i IN 1..rounds LOOP
        FOR j IN 1..(1 + (random() * 2)::int) LOOP
            x := (random() * 20000)::int8 * 10 + CASE WHEN random() < 0.3 THEN 0 ELSE 1 + (random() * 8)::int END;
            kx := CASE WHEN txt THEN lpad(x::text, 7, '0') ELSE x::text END;
            EXECUTE format('INSERT INTO %I VALUES (%L, %s)', tab, kx, i);
            EXECUTE format('INSERT INTO %I VALUES (%L, %s)', tab || '_sh', kx, i);
        END LOOP;
        lo := (random() * 200000)::int8;
        klo := CASE WHEN txt THEN lpad(lo::text, 7, '0') ELSE lo::text END;
        khi := CASE WHEN txt THEN lpad((lo + 500)::text, 7, '0') ELSE (lo + 500)::text END;
        EXECUTE format('SELECT count(*), coalesce(sum(v::numeric * length(k::text)), 0) FROM %I WHERE k BETWEEN %L AND %L', tab, klo, khi) INTO c1, s1;
        EXECUTE format('SELECT count(*), coalesce(sum(v::numeric * length(k::text)), 0) FROM %I WHERE k BETWEEN %L AND %L', tab || '_sh', klo, khi) INTO c2, s2;
        IF c1 <> c2 OR s1 <> s2 THEN bad := bad + 1; END IF;
        EXECUTE format('SELECT count(*), coalesce(sum(v), 0) FROM %I WHERE k = %L', tab, kx) INTO c1, s1;
        EXECUTE format('SELECT count(*), coalesce(sum(v), 0) FROM %I WHERE k = %L', tab || '_sh', kx) INTO c2, s2;
        IF c1 <> c2 OR s1 <> s2 THEN bad := bad + 1; END IF;
    END LOOP;
    RETURN bad;
END $$;

SELECT refresh_round('pr', 3000) AS mismatches;
SELECT refresh_round('prt', 1500) AS mismatches;
-- no merge ran: everything came through the refreshes
SELECT generation, pending_entries = (SELECT count(*) - 20000 FROM pr_sh) AS all_pending
  FROM learned_index_info('pr_k');
SELECT generation, pending_entries = (SELECT count(*) - 20000 FROM prt_sh) AS all_pending
  FROM learned_index_info('prt_k');
-- a whole ordered pass over both stages, both directions
SELECT (SELECT array_agg(k ORDER BY k) FROM pr) = (SELECT array_agg(k ORDER BY k) FROM pr_sh) AS asc_ok;
SELECT (SELECT array_agg(k ORDER BY k DESC) FROM pr) = (SELECT array_agg(k ORDER BY k DESC) FROM pr_sh) AS desc_ok;
SELECT learned_index_check('pr_k', true), learned_index_check('prt_k', true);

-- The copy's memory, which every backend that scans the index holds: about
-- 35 bytes an entry (24 for the entry, 8 for its mapped key, a few for the
-- filter), after a full load of 50,000 entries.  Its context is named after
-- the index.  (The copy used to pass the entries through its small run,
-- which kept that run as large as the list: about 99 bytes an entry.)
CREATE TABLE pm (k int8);
INSERT INTO pm SELECT i FROM generate_series(1, 60000) i;
CREATE INDEX pm_k ON pm USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
INSERT INTO pm SELECT (random() * 1e9)::int8 FROM generate_series(1, 50000);
SELECT count(*) FROM pm WHERE k = 7;
SELECT generation, pending_entries FROM learned_index_info('pm_k');
SELECT total_bytes / 50000 BETWEEN 24 AND 44 AS bytes_per_entry_ok
  FROM pg_backend_memory_contexts WHERE name = 'learned pending copy' AND ident = 'pm_k';
SELECT count(*) FROM pm WHERE k >= 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET jit;
DROP TABLE pr, pr_sh, prt, prt_sh, pm;
DROP FUNCTION refresh_round(text, int);
