-- 03_scans
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Scan directions, declared orderings, NULL placement, LIMIT, cursors,
-- merge joins (mark/restore), IN lists, redundant and contradictory keys,
-- NULL keys, index-only scans.
--

-- lcursor(query, ops): opens the query as a SCROLL cursor twice, once with
-- an index scan and once with a sequential scan (plus sort), applies the
-- same fetch/move operations to both and compares every row fetched.
-- Returns the rows fetched from the index cursor ('-' = no row), then
-- "same" or "DIFFERENT", then whether the learned index was used.
CREATE FUNCTION lcursor(q text, ops text[]) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    ci refcursor;
    cs refcursor;
    ri record;
    rs record;
    fi bool;
    fs bool;
    op text;
    n int;
    moved bool;
    vi text;
    vs text;
    outs text[] := '{}';
    same bool := true;
    saved text[] := ARRAY[current_setting('enable_seqscan'),
                          current_setting('enable_indexscan'),
                          current_setting('enable_indexonlyscan'),
                          current_setting('enable_bitmapscan')];
BEGIN
    PERFORM lcheck_set('off', 'on', 'off', 'off');
    OPEN ci SCROLL FOR EXECUTE q;
    PERFORM lcheck_set('on', 'off', 'off', 'off');
    OPEN cs SCROLL FOR EXECUTE q;
    FOREACH op IN ARRAY ops LOOP
        n := coalesce(substring(op from '-?\d+')::int, 0);
        moved := false;
        CASE split_part(op, ' ', 1)
            WHEN 'next' THEN
                FETCH NEXT FROM ci INTO ri; fi := FOUND;
                FETCH NEXT FROM cs INTO rs; fs := FOUND;
            WHEN 'prior' THEN
                FETCH PRIOR FROM ci INTO ri; fi := FOUND;
                FETCH PRIOR FROM cs INTO rs; fs := FOUND;
            WHEN 'first' THEN
                FETCH FIRST FROM ci INTO ri; fi := FOUND;
                FETCH FIRST FROM cs INTO rs; fs := FOUND;
            WHEN 'last' THEN
                FETCH LAST FROM ci INTO ri; fi := FOUND;
                FETCH LAST FROM cs INTO rs; fs := FOUND;
            WHEN 'absolute' THEN
                FETCH ABSOLUTE n FROM ci INTO ri; fi := FOUND;
                FETCH ABSOLUTE n FROM cs INTO rs; fs := FOUND;
            WHEN 'relative' THEN
                FETCH RELATIVE n FROM ci INTO ri; fi := FOUND;
                FETCH RELATIVE n FROM cs INTO rs; fs := FOUND;
            WHEN 'forward' THEN
                MOVE FORWARD n FROM ci; fi := FOUND;
                MOVE FORWARD n FROM cs; fs := FOUND;
                moved := true;
            WHEN 'backward' THEN
                MOVE BACKWARD n FROM ci; fi := FOUND;
                MOVE BACKWARD n FROM cs; fs := FOUND;
                moved := true;
            ELSE
                RAISE EXCEPTION 'unknown cursor op %', op;
        END CASE;
        vi := CASE WHEN NOT fi THEN '-' WHEN moved THEN 'moved' ELSE ri::text END;
        vs := CASE WHEN NOT fs THEN '-' WHEN moved THEN 'moved' ELSE rs::text END;
        IF vi IS DISTINCT FROM vs THEN
            same := false;
            RAISE NOTICE 'cursor % of %: got %, expected %', op, q, vi, vs;
        END IF;
        outs := outs || vi;
    END LOOP;
    CLOSE ci;
    CLOSE cs;
    PERFORM lcheck_set('off', 'on', 'off', 'off');
    vi := CASE WHEN lcheck_uses(q, 'Index Scan') THEN 'index' ELSE 'noidx' END;
    PERFORM lcheck_set(saved[1], saved[2], saved[3], saved[4]);
    RETURN array_to_string(outs, ' ') || CASE WHEN same THEN ' | same' ELSE ' | DIFFERENT' END
           || ' | ' || vi;
END $$;

-- Keys 1..3000 twice each (shuffled into the heap), and 100 NULLs; the
-- same rows in four tables whose indexes declare the four orderings.
CREATE TABLE s_asc (id int4, k int4, pad text);
INSERT INTO s_asc SELECT i, (i + 1) / 2, repeat('x', i % 20)
    FROM generate_series(1, 6000) i ORDER BY (i * 7919) % 6007;
INSERT INTO s_asc SELECT 6000 + i, NULL, 'null' FROM generate_series(1, 100) i;
CREATE TABLE s_desc (LIKE s_asc);
CREATE TABLE s_desc_nl (LIKE s_asc);
CREATE TABLE s_asc_nf (LIKE s_asc);
INSERT INTO s_desc SELECT * FROM s_asc;
INSERT INTO s_desc_nl SELECT * FROM s_asc;
INSERT INTO s_asc_nf SELECT * FROM s_asc;
CREATE INDEX s_asc_k ON s_asc USING learned (k);
CREATE INDEX s_desc_k ON s_desc USING learned (k DESC);
CREATE INDEX s_desc_nl_k ON s_desc_nl USING learned (k DESC NULLS LAST);
CREATE INDEX s_asc_nf_k ON s_asc_nf USING learned (k NULLS FIRST);
VACUUM ANALYZE s_asc, s_desc, s_desc_nl, s_asc_nf;
SELECT c.relname, pg_get_indexdef(c.oid)
FROM pg_class c WHERE c.relname ~ '^s_.*_k$' ORDER BY 1;

-- Which direction each declared ordering is read in.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM s_asc ORDER BY k;
EXPLAIN (COSTS OFF) SELECT k FROM s_asc ORDER BY k DESC;
EXPLAIN (COSTS OFF) SELECT k FROM s_desc ORDER BY k DESC;
EXPLAIN (COSTS OFF) SELECT k FROM s_desc ORDER BY k;
EXPLAIN (COSTS OFF) SELECT k FROM s_desc_nl ORDER BY k DESC NULLS LAST;
EXPLAIN (COSTS OFF) SELECT k FROM s_desc_nl ORDER BY k NULLS FIRST;
EXPLAIN (COSTS OFF) SELECT k FROM s_asc_nf ORDER BY k NULLS FIRST LIMIT 5;
EXPLAIN (COSTS OFF) SELECT k FROM s_asc_nf ORDER BY k DESC NULLS LAST LIMIT 5;
EXPLAIN (COSTS OFF) SELECT k FROM s_desc WHERE k < 10 ORDER BY k DESC LIMIT 3;
-- Plain answers around the NULLs and the ends.
SELECT k FROM s_asc ORDER BY k LIMIT 3;
SELECT k FROM s_asc ORDER BY k DESC LIMIT 3;
SELECT k FROM s_desc ORDER BY k DESC LIMIT 3;
SELECT k FROM s_desc ORDER BY k LIMIT 3;
SELECT k FROM s_desc_nl ORDER BY k DESC NULLS LAST LIMIT 3;
SELECT k FROM s_desc_nl ORDER BY k NULLS FIRST LIMIT 3;
SELECT k FROM s_asc_nf ORDER BY k NULLS FIRST LIMIT 3;
SELECT k FROM s_asc_nf ORDER BY k DESC NULLS LAST LIMIT 3;
SELECT k FROM s_desc WHERE k < 10 ORDER BY k DESC LIMIT 3;
SELECT k FROM s_desc WHERE k > 2990 ORDER BY k LIMIT 3;
SELECT k FROM s_desc_nl WHERE k >= 2999 ORDER BY k DESC;
SELECT k FROM s_asc_nf WHERE k <= 2 ORDER BY k DESC;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;

-- Every ordering on every declared ordering, whole and bounded, each way.
-- (Without a WHERE clause only the two orderings the index provides.)
CREATE FUNCTION lorders(tab text, native text[]) RETURNS TABLE(query text, result text)
LANGUAGE plpgsql AS $$
DECLARE
    ord text;
    w text;
    lim text;
BEGIN
    FOREACH ord IN ARRAY ARRAY['k', 'k DESC', 'k NULLS FIRST', 'k DESC NULLS LAST'] LOOP
        FOREACH w IN ARRAY ARRAY['', ' WHERE k > 2500', ' WHERE k <= 17',
                                 ' WHERE k BETWEEN 1000 AND 1010',
                                 ' WHERE k IS NOT NULL', ' WHERE k IS NULL'] LOOP
            CONTINUE WHEN w = '' AND NOT ord = ANY (native);
            FOREACH lim IN ARRAY ARRAY['', ' LIMIT 4'] LOOP
                query := format('SELECT k FROM %I%s ORDER BY %s%s', tab, w, ord, lim);
                result := lcheck(query, 'is,ios');
                RETURN NEXT;
            END LOOP;
        END LOOP;
    END LOOP;
END $$;
SELECT * FROM lorders('s_asc', '{k,k DESC}');
SELECT * FROM lorders('s_desc', '{k,k DESC}');
SELECT * FROM lorders('s_desc_nl', '{k NULLS FIRST,k DESC NULLS LAST}');
SELECT * FROM lorders('s_asc_nf', '{k NULLS FIRST,k DESC NULLS LAST}');
DROP FUNCTION lorders(text, text[]);

-- Bitmap scans (and plain/index-only scans) of every declared ordering.
SELECT t, q, lcheck(format(q, t), 'is,ios,bis')
FROM unnest(ARRAY['s_asc', 's_desc', 's_desc_nl', 's_asc_nf']) t,
     unnest(ARRAY['SELECT k FROM %I WHERE k < 7',
                  'SELECT k FROM %I WHERE k >= 2995',
                  'SELECT k FROM %I WHERE k BETWEEN 1000 AND 1003',
                  'SELECT k FROM %I WHERE k = 1500',
                  'SELECT k FROM %I WHERE k IS NULL',
                  'SELECT k FROM %I WHERE k IN (7, 2, 2999)',
                  'SELECT k FROM %I WHERE k = ANY (''{2999,7,2}'')',
                  'SELECT k FROM %I WHERE k = ANY (''{5}'')',
                  'SELECT k FROM %I WHERE k = ANY (''{1,3000,NULL,-1,3001}'')',
                  'SELECT k FROM %I WHERE k = ANY (''{2,4,6}'') AND k > 3']) q
ORDER BY 1, 2;

-- Cursors: the index cursor moves both ways from any position.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT k FROM s_asc WHERE k > 2990 ORDER BY k;
RESET enable_seqscan;
RESET enable_bitmapscan;
BEGIN;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
DECLARE c SCROLL CURSOR FOR SELECT k FROM s_asc WHERE k > 2996 ORDER BY k;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH PRIOR FROM c;
FETCH PRIOR FROM c;
FETCH ABSOLUTE 6 FROM c;
FETCH NEXT FROM c;
FETCH NEXT FROM c;
FETCH BACKWARD ALL FROM c;
FETCH LAST FROM c;
FETCH RELATIVE -3 FROM c;
FETCH FORWARD ALL FROM c;
FETCH PRIOR FROM c;
CLOSE c;
DECLARE d SCROLL CURSOR FOR SELECT k FROM s_desc WHERE k <= 3 ORDER BY k DESC;
FETCH ALL FROM d;
FETCH BACKWARD 4 FROM d;
FETCH ABSOLUTE -1 FROM d;
FETCH FIRST FROM d;
CLOSE d;
COMMIT;
SELECT lcursor('SELECT k FROM s_asc WHERE k > 2990 ORDER BY k',
    ARRAY['next', 'next', 'next', 'prior', 'prior', 'prior', 'prior', 'next',
          'absolute 10', 'relative -4', 'last', 'next', 'prior', 'prior',
          'first', 'prior', 'next', 'absolute -2', 'forward 100', 'prior',
          'backward 100', 'next']);
SELECT lcursor('SELECT k FROM s_asc WHERE k < 5 ORDER BY k DESC',
    ARRAY['next', 'next', 'next', 'prior', 'prior', 'prior', 'next',
          'last', 'next', 'prior', 'first', 'prior', 'relative 3',
          'forward 2', 'next', 'backward 3', 'next']);
SELECT lcursor('SELECT k FROM s_asc WHERE k IS NULL OR k < 0 ORDER BY k',
    ARRAY['next', 'prior', 'next']);
SELECT lcursor('SELECT k FROM s_asc ORDER BY k',
    ARRAY['last', 'prior', 'prior', 'next', 'next', 'next', 'absolute 6001',
          'next', 'prior', 'absolute 5999', 'next', 'next', 'next',
          'first', 'absolute 3000', 'relative 1', 'prior']);
SELECT lcursor('SELECT k FROM s_desc ORDER BY k DESC',
    ARRAY['next', 'next', 'absolute 101', 'prior', 'next', 'last', 'prior',
          'backward 5', 'next']);
SELECT lcursor('SELECT k FROM s_desc_nl WHERE k >= 1500 ORDER BY k DESC NULLS LAST',
    ARRAY['last', 'next', 'prior', 'prior', 'first', 'prior', 'next', 'next']);
SELECT lcursor('SELECT k FROM s_asc_nf WHERE k = ANY(''{7,5,3000,1}'') ORDER BY k NULLS FIRST',
    ARRAY['next', 'next', 'next', 'prior', 'prior', 'last', 'prior', 'next',
          'next', 'prior', 'prior', 'prior', 'prior', 'prior', 'prior', 'next']);
SELECT lcursor('SELECT k FROM s_asc WHERE k = 1500 ORDER BY k',
    ARRAY['next', 'next', 'next', 'prior', 'prior', 'prior', 'next', 'last',
          'prior']);
SELECT lcursor('SELECT k FROM s_asc WHERE k > 10 AND k < 5 ORDER BY k',
    ARRAY['next', 'prior', 'last', 'first']);

-- Merge joins: the inner learned index scan is marked and restored on
-- every run of equal outer keys.  m_outer has each key 3 times, m_inner 2
-- (int8, so the join is cross-type).
CREATE TABLE m_outer (a int4, pad text);
CREATE TABLE m_inner (b int8, pad text);
INSERT INTO m_outer SELECT i / 3, 'o' || i FROM generate_series(0, 8999) i ORDER BY random();
INSERT INTO m_outer SELECT NULL, 'onull' FROM generate_series(1, 5);
INSERT INTO m_inner SELECT i / 2, 'i' || i FROM generate_series(0, 7999) i WHERE i % 7 <> 3 ORDER BY random();
INSERT INTO m_inner SELECT NULL, 'inull' FROM generate_series(1, 5);
CREATE INDEX m_outer_a ON m_outer USING learned (a);
CREATE INDEX m_inner_b ON m_inner USING learned (b);
VACUUM ANALYZE m_outer, m_inner;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_material = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT a, b, m_inner.pad FROM m_outer JOIN m_inner ON a = b;
EXPLAIN (COSTS OFF) SELECT a, b, m_inner.pad FROM m_outer JOIN m_inner ON a = b ORDER BY a DESC;
SET enable_indexonlyscan = on;
EXPLAIN (COSTS OFF) SELECT a, b FROM m_outer JOIN m_inner ON a = b;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;
SELECT q, lcheck(q, m) FROM (VALUES
  ('SELECT a, b, m_outer.pad, m_inner.pad FROM m_outer JOIN m_inner ON a = b', 'is'),
  ('SELECT a, b, m_inner.pad FROM m_outer JOIN m_inner ON a = b ORDER BY a, m_inner.pad', 'is'),
  ('SELECT a, b, m_inner.pad FROM m_outer JOIN m_inner ON a = b ORDER BY a DESC, m_inner.pad', 'is'),
  ('SELECT a, b FROM m_outer JOIN m_inner ON a = b ORDER BY a', 'is,ios'),
  ('SELECT a, b FROM m_outer JOIN m_inner ON a = b ORDER BY a DESC', 'is,ios'),
  ('SELECT a, b FROM m_outer JOIN m_inner ON a = b WHERE a BETWEEN 1000 AND 1100 AND b > 1050', 'is,ios'),
  ('SELECT a, b FROM m_outer LEFT JOIN m_inner ON a = b', 'is,ios'),
  ('SELECT a, b FROM m_outer FULL JOIN m_inner ON a = b', 'is,ios'),
  ('SELECT count(*) FROM m_outer x JOIN m_outer y ON x.a = y.a', 'is,ios')
) v(q, m);
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_material;

-- IN lists and = ANY(array): unsorted, duplicated, absent and NULL
-- elements, empty arrays, arrays next to other keys, in both directions.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM s_asc WHERE k IN (5, 3, 4000, 3, NULL) ORDER BY k DESC;
SELECT k FROM s_asc WHERE k IN (5, 3, 4000, 3, NULL) ORDER BY k DESC;
SELECT id, k FROM s_asc WHERE k = ANY ('{2999,1,3000}') ORDER BY k, id;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT q, lcheck(q, m) FROM (VALUES
  ('SELECT k FROM s_asc WHERE k IN (5, 3, 4000, 3, NULL) ORDER BY k', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k IN (5, 3, 4000, 3, NULL) ORDER BY k DESC', 'is,ios,bis'),
  ('SELECT id FROM s_asc WHERE k IN (3000, 2999, 1, 0, -1)', 'is,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY (''{}''::int4[])', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY (''{NULL}''::int4[])', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY (NULL::int4[])', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY (ARRAY[1, 1, 1, 2]) ORDER BY k', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY (ARRAY[10, 20, 30]::int8[]) ORDER BY k DESC', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY (ARRAY[10, 20, 30]::int2[]) ORDER BY k', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY (ARRAY[10, 20, 30, 40]) AND k > 15 ORDER BY k', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY (ARRAY[10, 20, 30, 40]) AND k < 35 ORDER BY k DESC', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY (ARRAY[10, 20, 30, 40]) AND k = ANY (ARRAY[40, 30, 5]) ORDER BY k', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY (ARRAY[10, 20]) AND k = ANY (ARRAY[30, 40])', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY (ARRAY[10, 20, 30]) ORDER BY k LIMIT 3', 'is,ios'),
  ('SELECT k FROM s_asc WHERE k = ANY (ARRAY[10, 20, 30]) ORDER BY k DESC LIMIT 3', 'is,ios'),
  ('SELECT k FROM s_asc WHERE k = ANY (ARRAY(SELECT generate_series(1, 3000, 3))) ORDER BY k', 'is,ios,bis'),
  ('SELECT k FROM s_desc WHERE k IN (7, 2, 2999) ORDER BY k DESC', 'is,ios,bis'),
  ('SELECT k FROM s_desc WHERE k IN (7, 2, 2999) ORDER BY k', 'is,ios,bis'),
  ('SELECT k FROM s_desc_nl WHERE k IN (7, 2, 2999) ORDER BY k DESC NULLS LAST', 'is,ios,bis'),
  ('SELECT k FROM s_asc_nf WHERE k IN (7, 2, 2999) ORDER BY k NULLS FIRST', 'is,ios,bis')
) v(q, m);

-- Redundant and contradictory keys, NULL comparison values.
SELECT q, lcheck(q, m) FROM (VALUES
  ('SELECT k FROM s_asc WHERE k > 4 AND k > 14 ORDER BY k LIMIT 3', 'is,ios'),
  ('SELECT k FROM s_asc WHERE k > 14 AND k > 4 ORDER BY k DESC LIMIT 3', 'is,ios'),
  ('SELECT k FROM s_asc WHERE k < 10 AND k < 5 ORDER BY k DESC', 'is,ios'),
  ('SELECT k FROM s_asc WHERE k < 5 AND k <= 5 ORDER BY k', 'is,ios'),
  ('SELECT k FROM s_asc WHERE k >= 5 AND k > 5 AND k < 8', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k > 10 AND k < 5', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k >= 10 AND k <= 10', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k > 10 AND k < 10', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = 5 AND k = (SELECT 6)', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = 5 AND k = 5', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = 5 AND k > 3', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = 5 AND k < 3', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = 5 AND k >= 5 AND k <= 5', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = 5 AND k = 5::int8', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k > 4::int8 AND k > 14::int2 ORDER BY k LIMIT 2', 'is,ios'),
  ('SELECT k FROM s_asc WHERE k < 3000000000::int8 AND k > 2998::int2 ORDER BY k DESC', 'is,ios'),
  ('SELECT k FROM s_asc WHERE k > 2999::int8 AND k < 4::int2', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k < -3000000000::int8', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k > 3000000000::int8', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = 3000000000::int8', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = 5 AND k IS NULL', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k IS NULL AND k IS NOT NULL', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k > 5 AND k IS NOT NULL AND k < 9 ORDER BY k', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k IS NULL ORDER BY k', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = (SELECT NULL::int4)', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k > (SELECT NULL::int4)', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k < 10 AND k > (SELECT NULL::int4)', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k = ANY ((SELECT ''{3,NULL,4}''::int4[])::int4[]) ORDER BY k', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k >= (SELECT 2990) ORDER BY k DESC', 'is,ios,bis'),
  ('SELECT k FROM s_asc WHERE k BETWEEN (SELECT 10) AND (SELECT 5)', 'is,ios,bis')
) v(q, m);

-- Rescans with ordered LIMITs (LATERAL), in both directions.
CREATE TABLE probe (v int4);
INSERT INTO probe VALUES (-5), (1), (2), (1500), (2999), (3000), (3001), (NULL);
ANALYZE probe;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_memoize = off;
SELECT q, lcheck(q, m) FROM (VALUES
  ('SELECT v, x.k FROM probe, LATERAL (SELECT k FROM s_asc WHERE k >= v ORDER BY k LIMIT 3) x', 'is,ios'),
  ('SELECT v, x.k FROM probe, LATERAL (SELECT k FROM s_asc WHERE k <= v ORDER BY k DESC LIMIT 3) x', 'is,ios'),
  ('SELECT v, x.k FROM probe, LATERAL (SELECT k FROM s_desc WHERE k > v ORDER BY k LIMIT 2) x', 'is,ios'),
  ('SELECT v, x.k FROM probe, LATERAL (SELECT k FROM s_desc_nl WHERE k < v ORDER BY k DESC NULLS LAST LIMIT 2) x', 'is,ios'),
  ('SELECT v, s_asc.id FROM probe JOIN s_asc ON k = v', 'is,bis')
) v(q, m);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_memoize;

-- Index-only scans need no heap fetch once the table is all-visible.
VACUUM s_asc;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT lexplain('SELECT k FROM s_asc WHERE k BETWEEN 100 AND 199', 'ANALYZE, TIMING OFF, SUMMARY OFF');
SELECT lexplain('SELECT count(*) FROM s_asc WHERE k IS NULL', 'ANALYZE, TIMING OFF, SUMMARY OFF');
SELECT lexplain('SELECT k FROM s_asc ORDER BY k DESC LIMIT 10', 'ANALYZE, TIMING OFF, SUMMARY OFF');
SELECT sum(k), count(*), count(k) FROM s_asc WHERE k > 0 OR k IS NULL;
RESET enable_seqscan;
RESET enable_bitmapscan;
-- An index-only scan after updates: the updated pages need heap fetches.
UPDATE s_asc SET pad = 'upd' WHERE k BETWEEN 150 AND 160;
SELECT lcheck('SELECT k FROM s_asc WHERE k BETWEEN 100 AND 199 ORDER BY k', 'is,ios');

DROP TABLE s_asc, s_desc, s_desc_nl, s_asc_nf, m_outer, m_inner, probe;
DROP FUNCTION lcursor(text, text[]);
