-- 07_differential
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Differential test: thousands of random queries on six key distributions,
-- each answered through the learned index (index, index-only or bitmap
-- scan, chosen at random) and compared with a sequential scan.  Rounds:
-- after the build, after inserts (pending area), after DELETE + VACUUM and
-- more inserts.  The output is only counts; any wrong answer also prints a
-- NOTICE with the failing query.  Deterministic through setseed().
--
SET client_min_messages = notice;
SELECT setseed(0.4242);

-- The distributions: a generator expression for one key (NULL allowed;
-- NULL generator = built specially), the key type, "nudges" that turn an
-- existing key into a near miss, extreme probe values, index options.
CREATE TABLE ldist (name text PRIMARY KEY, typ text, gen text, nudge text[],
                    extremes text[], nrows int, opts text);
INSERT INTO ldist VALUES
  ('seq_gaps', 'int8', NULL,
   '{"+ 1","- 1","+ 2"}',
   '{-9223372036854775808,9223372036854775807,0,-1,1,-1000000}',
   25000, 'error_bound = 8'),
  ('uniform64', 'int8',
   '(floor(random() * 4294967296)::int8 << 32) | floor(random() * 4294967296)::int8',
   '{"+ 1","- 1"}',
   '{-9223372036854775808,9223372036854775807,0,-1,1,-9223372036854775807,9223372036854775806}',
   25000, 'error_bound = 32'),
  ('lognormal', 'int8',
   'floor(exp(2.0 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())) * 1000000)::int8',
   '{"+ 1","- 1"}',
   '{-9223372036854775808,9223372036854775807,0,1,-1,2147483647,2147483648}',
   25000, 'error_bound = 1, merge_ratio = 1'),
  ('clustered', 'int8',
   '(floor(random() * 40) - 20)::int8 * 200000000000000 + floor(1000 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))::int8',
   '{"+ 1","- 1"}',
   '{-9223372036854775808,9223372036854775807,0,-4000000000000000,3999999999999999}',
   25000, 'error_bound = 64'),
  ('heavy_dups', 'int8',
   'CASE WHEN random() < 0.05 THEN NULL ELSE floor(power(random(), 3) * 100)::int8 END',
   '{"+ 1","- 1"}',
   '{-9223372036854775808,9223372036854775807,0,99,100,-1}',
   25000, 'error_bound = 16, merge_ratio = 1'),
  ('float_lognormal', 'float8',
   'CASE WHEN random() < 0.02 THEN NULL WHEN random() < 0.01 THEN ''NaN''::float8 WHEN random() < 0.01 THEN ''-0''::float8 ELSE (CASE WHEN random() < 0.3 THEN -1 ELSE 1 END) * exp(6.0 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())) END',
   '{"* 1.0000000000001","* 0.9999999999999","+ 1e-300"}',
   '{-Infinity,Infinity,NaN,0,-0,1.7976931348623157e308,-1.7976931348623157e308,5e-324,-5e-324}',
   25000, 'error_bound = 32');

-- Append n generated rows to the table of a distribution.
CREATE FUNCTION ldiff_load(dname text, n int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    d ldist;
    tab text := 'd_' || dname;
BEGIN
    SELECT * INTO d FROM ldist WHERE name = dname;
    IF d.gen IS NULL THEN
        -- seq_gaps: a running sum of gaps 1..3, now and then a gap up to 1e9
        EXECUTE format($q$
            INSERT INTO %I (k)
            SELECT coalesce((SELECT max(k) FROM %I), -1000000) + sum(g) OVER (ORDER BY i)
            FROM (SELECT i, CASE WHEN random() < 0.002 THEN floor(random() * 1e9)::int8
                                 ELSE floor(random() * 3)::int8 + 1 END AS g
                  FROM generate_series(1, %s) i) s$q$, tab, tab, n);
        EXECUTE format('INSERT INTO %I (k) SELECT NULL FROM generate_series(1, %s)',
                       tab, n / 100);
    ELSE
        EXECUTE format('INSERT INTO %I (k) SELECT %s FROM generate_series(1, %s)',
                       tab, d.gen, n);
    END IF;
END $$;

-- A random probe value, as text: mostly existing keys, near misses,
-- fresh draws from the distribution, and extremes.
CREATE FUNCTION ldiff_value(d ldist, sample text[]) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    r float8 := random();
    v text;
BEGIN
    IF r < 0.5 THEN
        RETURN sample[1 + floor(random() * cardinality(sample))::int];
    ELSIF r < 0.7 THEN
        v := sample[1 + floor(random() * cardinality(sample))::int];
        BEGIN
            EXECUTE format('SELECT (%L::%s %s)::text', v, d.typ,
                           d.nudge[1 + floor(random() * cardinality(d.nudge))::int]) INTO v;
        EXCEPTION WHEN numeric_value_out_of_range THEN
            NULL;
        END;
        RETURN v;
    ELSIF r < 0.9 THEN
        IF d.gen IS NULL THEN
            RETURN (floor(random() * 200000000) - 1000000)::int8::text;
        END IF;
        EXECUTE format('SELECT (%s)::text', d.gen) INTO v;
        RETURN coalesce(v, d.extremes[1]);
    ELSE
        RETURN d.extremes[1 + floor(random() * cardinality(d.extremes))::int];
    END IF;
END $$;

-- The probe as an SQL literal; one time in five of a narrower type of the
-- same operator family, when the value survives that cast unchanged.
CREATE FUNCTION ldiff_lit(d ldist, v text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    t text := d.typ;
    same bool;
BEGIN
    IF random() < 0.2 THEN
        t := CASE d.typ WHEN 'int8' THEN (ARRAY['int4', 'int2'])[1 + floor(random() * 2)::int]
                        ELSE 'float4' END;
        BEGIN
            EXECUTE format('SELECT %L::%s::%s = %L::%s', v, t, d.typ, v, d.typ) INTO same;
        EXCEPTION WHEN OTHERS THEN
            same := false;
        END;
        IF NOT coalesce(same, false) THEN
            t := d.typ;
        END IF;
    END IF;
    RETURN format('%L::%s', v, t);
END $$;

-- One round of nq random queries on one distribution.
CREATE FUNCTION ldiff_round(dname text, nq int,
    OUT queries int, OUT wrong int, OUT noindex int)
LANGUAGE plpgsql AS $$
DECLARE
    d ldist;
    tab text := 'd_' || dname;
    sample text[];
    qn int;
    kind int;
    mode text;
    sel text;
    w text;
    ord text;
    lim text;
    q text;
    res text;
    a text;
    b text;
    ops1 text[] := '{>,>=}';
    ops2 text[] := '{<,<=}';
    ops text[] := '{<,<=,=,>=,>}';
    lst text[];
    i int;
    le bool;
BEGIN
    SELECT * INTO d FROM ldist WHERE name = dname;
    -- about 1000 existing keys, evenly spaced in key order
    EXECUTE format('SELECT array_agg(k::text) FROM (
                        SELECT k, row_number() OVER (ORDER BY k) AS rn, count(*) OVER () AS c
                        FROM %I WHERE k IS NOT NULL) s
                    WHERE rn %% greatest(c / 1000, 1) = 0', tab) INTO sample;
    queries := 0; wrong := 0; noindex := 0;
    FOR qn IN 1 .. nq LOOP
        kind := floor(random() * 10)::int;
        mode := (ARRAY['is', 'ios', 'bis'])[1 + floor(random() * 3)::int];
        ord := (ARRAY['', '', ' ORDER BY k', ' ORDER BY k DESC'])[1 + floor(random() * 4)::int];
        lim := ' LIMIT ' || (1 + floor(power(random(), 2) * 3000)::int);
        a := ldiff_value(d, sample);
        b := ldiff_value(d, sample);
        IF random() < 0.9 THEN
            -- mostly a <= b, so that ranges are not empty
            EXECUTE format('SELECT %L::%s <= %L::%s', a, d.typ, b, d.typ) INTO le;
            IF NOT le THEN
                SELECT b, a INTO a, b;
            END IF;
        END IF;
        CASE kind
            WHEN 0 THEN
                w := format('k = %s', ldiff_lit(d, a));
            WHEN 1 THEN
                w := format('k %s %s', ops[1 + floor(random() * 5)::int], ldiff_lit(d, a));
            WHEN 2 THEN
                w := format('k %s %s AND k %s %s',
                            ops1[1 + floor(random() * 2)::int], ldiff_lit(d, a),
                            ops2[1 + floor(random() * 2)::int], ldiff_lit(d, b));
            WHEN 3 THEN
                w := format('k BETWEEN %s AND %s', ldiff_lit(d, a), ldiff_lit(d, b));
            WHEN 4 THEN
                -- a whole-index ordered scan, NULLs included or not
                w := (ARRAY['true', 'k IS NOT NULL'])[1 + floor(random() * 2)::int];
                ord := (ARRAY[' ORDER BY k', ' ORDER BY k DESC'])[1 + floor(random() * 2)::int];
                lim := ' LIMIT ' || (1 + floor(random() * 200)::int);
                IF mode = 'bis' THEN
                    mode := 'is';
                END IF;
            WHEN 5 THEN
                lst := '{}';
                FOR i IN 1 .. 1 + floor(random() * 8)::int LOOP
                    lst := lst || ldiff_lit(d, ldiff_value(d, sample));
                END LOOP;
                IF random() < 0.2 THEN
                    lst := lst || 'NULL'::text;
                END IF;
                w := format('k IN (%s)', array_to_string(lst, ', '));
            WHEN 6 THEN
                lst := '{}';
                FOR i IN 1 .. floor(random() * 12)::int LOOP
                    lst := lst || ldiff_value(d, sample);
                END LOOP;
                w := format('k = ANY (%L::%s[])', lst, d.typ);
            WHEN 7 THEN
                w := (ARRAY['k IS NULL', 'k IS NOT NULL'])[1 + floor(random() * 2)::int];
                IF random() < 0.5 THEN
                    w := w || format(' AND k %s %s', ops[1 + floor(random() * 5)::int],
                                     ldiff_lit(d, a));
                END IF;
            WHEN 8 THEN
                -- redundant keys on both sides
                w := format('k > %s AND k >= %s AND k < %s AND k <= %s',
                            ldiff_lit(d, a), ldiff_lit(d, ldiff_value(d, sample)),
                            ldiff_lit(d, b), ldiff_lit(d, ldiff_value(d, sample)));
            ELSE
                w := format('k %s %s', ops2[1 + floor(random() * 2)::int], ldiff_lit(d, b));
                ord := ' ORDER BY k DESC';
                lim := ' LIMIT ' || (1 + floor(random() * 30)::int);
        END CASE;
        -- Ordered queries (never with a bitmap scan) return k only, so that
        -- ties are indistinguishable; the others return a count and sums
        -- of hashes of the rows (id too, unless index-only).
        IF mode = 'bis' THEN
            ord := '';
        END IF;
        IF ord <> '' THEN
            q := format('SELECT k FROM %I WHERE %s%s%s', tab, w, ord, lim);
        ELSE
            q := format('SELECT count(*), sum(hashtext(k::text))%s FROM %I WHERE %s',
                        CASE WHEN mode = 'ios' THEN '' ELSE ', sum(hashint4(id))' END, tab, w);
        END IF;
        res := lcheck(q, mode);
        queries := queries + 1;
        IF res ~ ':WRONG' THEN
            wrong := wrong + 1;
        ELSIF res ~ ':noidx' THEN
            noindex := noindex + 1;
            RAISE NOTICE 'learned index not used: %', q;
        END IF;
    END LOOP;
END $$;

-- Build every table and index.
DO $$
DECLARE
    d ldist;
BEGIN
    FOR d IN SELECT * FROM ldist ORDER BY name LOOP
        -- no autovacuum: plans must only depend on our own ANALYZE runs,
        -- which see every row (fewer than 30000)
        EXECUTE format('CREATE TABLE %I (id serial, k %s) WITH (autovacuum_enabled = off)',
                       'd_' || d.name, d.typ);
        PERFORM ldiff_load(d.name, d.nrows);
        -- 08_differential_zonemap and 11-14 run this file with ldiff.mode
        -- and/or ldiff.compression set
        EXECUTE format('CREATE INDEX %I ON %I USING learned (k) WITH (%s%s%s)',
                       'd_' || d.name || '_k', 'd_' || d.name, d.opts,
                       coalesce(', mode = ' || nullif(current_setting('ldiff.mode', true), ''), ''),
                       coalesce(', compression = ' || nullif(current_setting('ldiff.compression', true), ''), ''));
    END LOOP;
END $$;
VACUUM ANALYZE d_clustered, d_float_lognormal, d_heavy_dups, d_lognormal, d_seq_gaps, d_uniform64;
SELECT name, (SELECT count(*) FROM learned_index_info(('d_' || name || '_k')::regclass)) AS has_info
FROM ldist ORDER BY name;
-- with ldiff.mode = zonemap (or model), every key segment is of that kind
SELECT name, coalesce(nullif(current_setting('ldiff.mode', true), ''), 'auto') IN ('auto', 'model')
             OR bool_and(s.kind IN ('zonemap', 'nulls')) AS kinds_ok,
       coalesce(nullif(current_setting('ldiff.mode', true), ''), 'auto') IN ('auto', 'zonemap')
             OR bool_and(s.kind IN ('model', 'nulls')) AS kinds_ok_model
FROM ldist, learned_index_segments(('d_' || name || '_k')::regclass) s
GROUP BY name ORDER BY name;

-- Round 1: the freshly built indexes (300 queries each, or ldiff.nq).
SELECT name, r.* FROM ldist, ldiff_round(name, coalesce(nullif(current_setting('ldiff.nq', true), '')::int, 300)) r ORDER BY name;

SELECT name, learned_index_check(('d_' || name || '_k')::regclass, true) AS index_check
FROM ldist ORDER BY name;

-- Round 2: 10% more rows, inserted after the build.
DO $$
BEGIN
    PERFORM ldiff_load(name, nrows / 10) FROM ldist ORDER BY name;
END $$;
ANALYZE d_clustered, d_float_lognormal, d_heavy_dups, d_lognormal, d_seq_gaps, d_uniform64;
SELECT name, r.* FROM ldist, ldiff_round(name, coalesce(nullif(current_setting('ldiff.nq', true), '')::int, 300)) r ORDER BY name;

SELECT name, learned_index_check(('d_' || name || '_k')::regclass, true) AS index_check
FROM ldist ORDER BY name;

-- Round 3: a third of the rows deleted, VACUUM, 5% more rows.
DO $$
DECLARE
    d ldist;
BEGIN
    FOR d IN SELECT * FROM ldist ORDER BY name LOOP
        EXECUTE format('DELETE FROM %I WHERE id %% 3 = 1', 'd_' || d.name);
    END LOOP;
END $$;
VACUUM d_clustered, d_float_lognormal, d_heavy_dups, d_lognormal, d_seq_gaps, d_uniform64;
DO $$
BEGIN
    PERFORM ldiff_load(name, nrows / 20) FROM ldist ORDER BY name;
END $$;
ANALYZE d_clustered, d_float_lognormal, d_heavy_dups, d_lognormal, d_seq_gaps, d_uniform64;
SELECT name, r.* FROM ldist, ldiff_round(name, coalesce(nullif(current_setting('ldiff.nq', true), '')::int, 300)) r ORDER BY name;

SELECT name, learned_index_check(('d_' || name || '_k')::regclass, true) AS index_check
FROM ldist ORDER BY name;

DROP TABLE d_clustered, d_float_lognormal, d_heavy_dups, d_lognormal, d_seq_gaps, d_uniform64;
DROP FUNCTION ldiff_round(text, int);
DROP FUNCTION ldiff_lit(ldist, text);
DROP FUNCTION ldiff_value(ldist, text[]);
DROP FUNCTION ldiff_load(text, int);
DROP TABLE ldist;
