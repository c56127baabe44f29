-- Self-checking helpers shared by the pg_regress files (included with
-- \i sql/include/lcheck.sql; CREATE OR REPLACE, so every file may include it).
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
CREATE OR REPLACE FUNCTION lcheck_set(seq text, idx text, ios text, bmp text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('enable_seqscan', seq, true);
    PERFORM set_config('enable_indexscan', idx, true);
    PERFORM set_config('enable_indexonlyscan', ios, true);
    PERFORM set_config('enable_bitmapscan', bmp, true);
END $$;

CREATE OR REPLACE FUNCTION lcheck_run(q text, ordered bool) RETURNS text[]
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
CREATE OR REPLACE FUNCTION lcheck_uses(q text, node text) RETURNS bool
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

CREATE OR REPLACE FUNCTION lcheck(q text, modes text DEFAULT 'is,bis') RETURNS text
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

-- lcheck_many(tab, queries): lcheck() on each query, a format() template
-- whose %I is the table, with the modes its shape allows (a query fetching
-- id or hashing it: is,bis; ORDER BY: is,ios; else is,ios,bis).  Returns
-- 'checks=N rows=M all ok', or the failing queries.
CREATE OR REPLACE FUNCTION lcheck_many(tab text, qs text[]) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    q text;
    res text;
    checks int := 0;
    nrows bigint := 0;
    bad text[] := '{}';
BEGIN
    FOREACH q IN ARRAY qs LOOP
        q := format(q, tab);
        res := lcheck(q, CASE WHEN q ~ '^SELECT id' THEN 'is,bis'
                              WHEN q ~ 'ORDER BY' THEN 'is,ios'
                              WHEN q ~ 'hashint8' THEN 'is,bis'
                              ELSE 'is,ios,bis' END);
        checks := checks + 1;
        nrows := nrows + substring(res from 'rows=(\d+)')::int;
        IF res ~ ':(WRONG|noidx)' THEN
            bad := bad || (q || ' => ' || res);
        END IF;
    END LOOP;
    RETURN format('checks=%s rows=%s', checks, nrows) ||
           CASE WHEN cardinality(bad) = 0 THEN ' all ok'
                ELSE ' FAILED: ' || array_to_string(bad, '; ') END;
END $$;

-- query_blocks(query): the shared buffers (hits and reads, index and heap)
-- the query's top plan node reads, from EXPLAIN (ANALYZE, BUFFERS): what a
-- test compares to show that a lookup reads no more than another.
CREATE OR REPLACE FUNCTION query_blocks(q text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO plan;
    RETURN (plan->0->'Plan'->>'Shared Hit Blocks')::bigint +
           (plan->0->'Plan'->>'Shared Read Blocks')::bigint;
END $$;

-- lexplain(query, options): the lines of EXPLAIN (COSTS OFF, options) query,
-- without what only some PostgreSQL majors print, so that one expected file
-- serves 15 to 19: 18's "Disabled: true" on a node the planner had to use
-- although disabled, its "Index Searches: N" (counted by the AM only from
-- 18 on), and its fractional row counts ("rows=6.00").  With ANALYZE and
-- no BUFFERS, BUFFERS OFF (18 turns it on with ANALYZE).
CREATE OR REPLACE FUNCTION lexplain(q text, options text DEFAULT '') RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    line text;
    opts text := 'COSTS OFF';
BEGIN
    IF options <> '' THEN
        opts := opts || ', ' || options;
    END IF;
    IF opts ~* 'analyze' AND opts !~* 'buffers' THEN
        opts := opts || ', BUFFERS OFF';
    END IF;
    FOR line IN EXECUTE 'EXPLAIN (' || opts || ') ' || q LOOP
        CONTINUE WHEN line ~ '^\s*(Disabled: true|Index Searches: \d+)$';
        RETURN NEXT regexp_replace(line, '(rows=\d+)\.00 ', '\1 ', 'g');
    END LOOP;
END $$;
