-- 43_include (the self-checking helpers come first; the tests follow them)
-- (dropped first, quietly, so that the output is the same whether this file
-- runs alone or after the others, which leave them behind)
SET client_min_messages = warning;
DROP FUNCTION IF EXISTS lcheck(text, text), lcheck_uses(text, text),
    lcheck_run(text, bool), lcheck_set(text, text, text, text);
RESET client_min_messages;
-- Self-checking helpers (identical in every test file).
--
-- lcheck(query, modes): runs the query once with every index path disabled
-- (the reference, a sequential scan) and once per requested mode, and reports
--   rows=N  is:..  ios:..  bis:..
-- where a mode shows "ok" when its result equals the reference AND its plan
-- contains that scan node on an index of access method "learned", "noidx"
-- when the result is right but the learned index was not used, and "WRONG"
-- (plus a NOTICE with the first difference) when the answer differs.
-- Queries with ORDER BY are compared in order, others as multisets.
-- Modes: is = Index Scan, ios = Index Only Scan, bis = Bitmap Index Scan.
CREATE FUNCTION lcheck_set(seq text, idx text, ios text, bmp text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('enable_seqscan', seq, true);
    PERFORM set_config('enable_indexscan', idx, true);
    PERFORM set_config('enable_indexonlyscan', ios, true);
    PERFORM set_config('enable_bitmapscan', bmp, true);
END $$;

CREATE FUNCTION lcheck_run(q text, ordered bool) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    res text[] := '{}';
BEGIN
    FOR r IN EXECUTE q LOOP
        res := res || r::text;
    END LOOP;
    IF NOT ordered THEN
        res := ARRAY(SELECT x FROM unnest(res) x ORDER BY x COLLATE "C");
    END IF;
    RETURN res;
END $$;

-- Does the plan of q contain node "node" (e.g. 'Index Scan') on a learned index?
CREATE FUNCTION lcheck_uses(q text, node text) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
    ln text;
    m text[];
BEGIN
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        m := regexp_match(ln, '(Bitmap Index Scan|Index Only Scan|Index Scan)(?: Backward)? (?:using|on) ("[^"]+"|\S+)');
        IF m IS NOT NULL AND m[1] = node AND EXISTS (
            SELECT 1 FROM pg_class c JOIN pg_am a ON a.oid = c.relam
            WHERE c.oid = to_regclass(m[2]) AND a.amname = 'learned') THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END $$;

CREATE FUNCTION lcheck(q text, modes text DEFAULT 'is,bis') RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    saved text[] := ARRAY[current_setting('enable_seqscan'),
                          current_setting('enable_indexscan'),
                          current_setting('enable_indexonlyscan'),
                          current_setting('enable_bitmapscan')];
    ordered bool := q ~* '\morder\s+by\M';
    ref text[];
    got text[];
    m text;
    node text;
    out text;
    i int;
BEGIN
    PERFORM lcheck_set('on', 'off', 'off', 'off');
    ref := lcheck_run(q, ordered);
    out := 'rows=' || cardinality(ref);
    FOREACH m IN ARRAY string_to_array(modes, ',') LOOP
        CASE m
            WHEN 'is' THEN
                PERFORM lcheck_set('off', 'on', 'off', 'off');
                node := 'Index Scan';
            WHEN 'ios' THEN
                PERFORM lcheck_set('off', 'on', 'on', 'off');
                node := 'Index Only Scan';
            WHEN 'bis' THEN
                PERFORM lcheck_set('off', 'off', 'off', 'on');
                node := 'Bitmap Index Scan';
            ELSE
                RAISE EXCEPTION 'unknown mode %', m;
        END CASE;
        got := lcheck_run(q, ordered);
        IF got IS DISTINCT FROM ref THEN
            i := 1;
            WHILE i <= greatest(cardinality(got), cardinality(ref))
                  AND got[i] IS NOT DISTINCT FROM ref[i] LOOP
                i := i + 1;
            END LOOP;
            RAISE NOTICE 'WRONG % answer for: %', m, q
                USING DETAIL = format('%s rows vs %s expected; first difference at row %s: got %s, expected %s',
                                      cardinality(got), cardinality(ref), i,
                                      coalesce(got[i], '(none)'), coalesce(ref[i], '(none)'));
            out := out || ' ' || m || ':WRONG';
        ELSIF lcheck_uses(q, node) THEN
            out := out || ' ' || m || ':ok';
        ELSE
            out := out || ' ' || m || ':noidx';
        END IF;
    END LOOP;
    PERFORM lcheck_set(saved[1], saved[2], saved[3], saved[4]);
    RETURN out;
END $$;

--
-- INCLUDE columns: stored next to the key in leaf pages and pending
-- entries (fixed-width types), never compared, returned by index-only
-- scans.  A single key column with INCLUDE columns uses the composite
-- format (index order, NULLs inline).  Every answer is compared with a
-- sequential scan (lcheck).
--
SET client_min_messages = notice;

CREATE TABLE inc (k int4, d int8, f float8, ts timestamptz, u uuid, t text);
INSERT INTO inc SELECT CASE WHEN i % 41 = 0 THEN NULL ELSE i % 500 END,
    CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1000 END, i / 8.0,
    timestamptz '2024-01-01 00:00+00' + i * interval '1 minute',
    md5(i::text)::uuid, 'row ' || i
FROM generate_series(1, 5000) i;
CREATE INDEX inc_k ON inc USING learned (k) INCLUDE (d, f);
CREATE INDEX inc_kd ON inc USING learned (k DESC, d) INCLUDE (ts, u);
VACUUM ANALYZE inc;
SELECT learned_index_check(i, true) FROM unnest(ARRAY['inc_k', 'inc_kd']::regclass[]) i;
SELECT items_per_page FROM learned_index_info('inc_k');

-- index-only scans return the included columns
BEGIN;
DROP INDEX inc_kd;
EXPLAIN (COSTS OFF) SELECT k, d, f FROM inc WHERE k = 7;
SELECT lcheck('SELECT k, d, f FROM inc WHERE k = 7', 'is,ios,bis');
SELECT lcheck('SELECT d, f FROM inc WHERE k BETWEEN 10 AND 20', 'is,ios,bis');
SELECT lcheck('SELECT k, d, f FROM inc WHERE k > 490 ORDER BY k, f', 'is,ios');
SELECT lcheck('SELECT k, d, f FROM inc WHERE k < 3 OR k IS NULL ORDER BY k DESC, f', 'is,ios');
SELECT lcheck('SELECT k, d FROM inc WHERE k IS NULL', 'is,ios,bis');
SELECT lcheck('SELECT k, f FROM inc WHERE k = ANY(''{1, 250, 499, 600}'')', 'is,ios,bis');
-- a condition on an included column is a filter above the scan
SELECT lcheck('SELECT k, d FROM inc WHERE k = 8 AND d > 2000000', 'is,ios');
ROLLBACK;

BEGIN;
DROP INDEX inc_k;
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k = 7', 'is,ios,bis');
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k = 7 AND d < 3000000', 'is,ios,bis');
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k BETWEEN 5 AND 9 ORDER BY k DESC, d, ts', 'is,ios');
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k BETWEEN 5 AND 9 ORDER BY k, d DESC, ts', 'is,ios');
ROLLBACK;

-- pending entries, merges, VACUUM
SET learned_idx.pending_limit = '100MB';
INSERT INTO inc SELECT i % 600, i, -i, NULL, NULL, 'new' FROM generate_series(1, 900) i;
UPDATE inc SET d = d + 1 WHERE k = 7;
VACUUM inc;
BEGIN;
DROP INDEX inc_kd;
SELECT lcheck('SELECT k, d, f FROM inc WHERE k = 7', 'is,ios,bis');
SELECT lcheck('SELECT k, d, f FROM inc WHERE k > 590 ORDER BY k, f', 'is,ios');
ROLLBACK;
INSERT INTO inc SELECT i, i, i, NULL, NULL, 'more' FROM generate_series(1, 50) i;
SELECT learned_index_merge(i) >= 0 AND (SELECT pending_entries FROM learned_index_info(i)) = 0 AS merged FROM unnest(ARRAY['inc_k', 'inc_kd']::regclass[]) i;
DELETE FROM inc WHERE k % 3 = 0;
VACUUM inc;
SELECT learned_index_check(i, true) FROM unnest(ARRAY['inc_k', 'inc_kd']::regclass[]) i;
BEGIN;
DROP INDEX inc_kd;
SELECT lcheck('SELECT k, d, f FROM inc WHERE k = 7', 'is,ios,bis');
SELECT lcheck('SELECT k, d, f FROM inc WHERE k > 590 ORDER BY k, f', 'is,ios');
ROLLBACK;
BEGIN;
DROP INDEX inc_k;
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k = 7', 'is,ios,bis');
SELECT lcheck('SELECT k, d, ts, u FROM inc WHERE k BETWEEN 5 AND 9 ORDER BY k DESC, d, ts', 'is,ios');
ROLLBACK;
RESET learned_idx.pending_limit;

-- INCLUDE columns of a type the AM cannot store at fixed width
CREATE INDEX inc_bad ON inc USING learned (k) INCLUDE (t);

DROP TABLE inc;
