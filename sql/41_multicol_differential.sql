-- 41_multicol_differential
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Differential test of multi-column indexes: random conditions on random
-- subsets of the columns (none, =, <, <=, >, >=, BETWEEN, IN, IS NULL,
-- IS NOT NULL, near misses of existing values), ordered both ways or not,
-- through index, index-only and bitmap scans, each compared with a
-- sequential scan.  Four distributions (the last with v7-like and v4 uuids), each with its own mix of column
-- directions and NULL placements; rounds after the build, with pending
-- entries, after merges, and after DELETE + VACUUM + inserts.  The output
-- is counts only; a wrong answer also prints a NOTICE with the query.
-- Deterministic through setseed().
--
SET client_min_messages = notice;
SELECT setseed(0.3141);

-- dense TPC-C-shaped keys, few NULLs
CREATE TABLE md_tpcc (a int4, b int4, c int8);
INSERT INTO md_tpcc SELECT w, d, o FROM generate_series(1, 6) w, generate_series(1, 10) d,
    generate_series(1, 120) o;
INSERT INTO md_tpcc VALUES (NULL, 1, 1), (3, NULL, 5), (4, 4, NULL);
CREATE INDEX md_tpcc_i ON md_tpcc USING learned (a, b, c) WITH (error_bound = 4);

-- skewed, many duplicates and NULLs, mixed directions
CREATE TABLE md_skew (a int4, b int8, c date);
INSERT INTO md_skew SELECT
    CASE WHEN random() < 0.1 THEN NULL ELSE floor(exp(random() * 4))::int END,
    CASE WHEN random() < 0.15 THEN NULL ELSE floor(random() * 30)::int8 - 10 END,
    CASE WHEN random() < 0.1 THEN NULL ELSE date '2021-06-01' + floor(random() * 40)::int END
FROM generate_series(1, 6000);
CREATE INDEX md_skew_i ON md_skew USING learned (a DESC, b NULLS FIRST, c DESC NULLS LAST);

-- wide ranges, floats and timestamps with extremes
CREATE TABLE md_wide (a int8, b float8, c timestamp);
INSERT INTO md_wide SELECT
    (floor(random() * 2000)::int8 - 1000) * 1000000007,
    CASE WHEN random() < 0.05 THEN NULL WHEN random() < 0.02 THEN 'NaN'
         ELSE round((random() * 100 - 50)::numeric, 1)::float8 END,
    CASE WHEN random() < 0.05 THEN NULL
         ELSE timestamp '2000-01-01' + floor(random() * 500) * interval '1 day' END
FROM generate_series(1, 6000);
INSERT INTO md_wide VALUES (-9223372036854775808, '-Infinity', '-infinity'),
                           (9223372036854775807, 'Infinity', 'infinity');
CREATE INDEX md_wide_i ON md_wide USING learned (a, b DESC, c NULLS FIRST) WITH (error_bound = 16);

-- uuids: v7-like (48-bit milliseconds first; runs share their first bytes,
-- so their images tie), v4 (random), and a time of day
CREATE TABLE md_uuid (a uuid, b uuid, c time);
INSERT INTO md_uuid SELECT
    CASE WHEN random() < 0.05 THEN NULL ELSE
        (lpad(to_hex(1700000000000 + (i / 4) * 1000), 12, '0') || '7' || substr(md5(random()::text), 1, 3) ||
         '8' || substr(md5(random()::text), 1, 15))::uuid END,
    CASE WHEN random() < 0.05 THEN NULL ELSE md5(random()::text)::uuid END,
    CASE WHEN random() < 0.05 THEN NULL ELSE time '00:00' + floor(random() * 100) * interval '1 minute' END
FROM generate_series(1, 6000) i;
CREATE INDEX md_uuid_i ON md_uuid USING learned (a, b DESC, c);
ANALYZE md_tpcc, md_skew, md_wide, md_uuid;

-- a literal for column col of a random existing row, sometimes nudged
CREATE FUNCTION md_value(tab text, col text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v text;
    typ text;
BEGIN
    EXECUTE format('SELECT %I::text, pg_typeof(%I)::text FROM %I WHERE %I IS NOT NULL OFFSET floor(random() * 200) LIMIT 1',
                   col, col, tab, col) INTO v, typ;
    IF v IS NULL THEN
        RETURN 'NULL';
    END IF;
    IF random() < 0.25 AND typ IN ('integer', 'bigint') AND v !~ '^-?9223372036854775808$|^9223372036854775807$' THEN
        v := (v::numeric + CASE WHEN random() < 0.5 THEN 1 ELSE -1 END)::text;
    ELSIF random() < 0.25 AND typ = 'date' THEN
        v := (v::date + 1)::text;
    END IF;
    RETURN quote_literal(v) || '::' || typ;
END $$;

CREATE FUNCTION md_round(tab text, nq int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    cols text[] := ARRAY['a', 'b', 'c'];
    conds text[];
    w text;
    q text;
    r text;
    mode text;
    i int;
    k int;
    p float8;
    nok int := 0;
    nnoidx int := 0;
    nwrong int := 0;
    ordered bool;
BEGIN
    FOR i IN 1..nq LOOP
        conds := '{}';
        FOR k IN 1..3 LOOP
            p := random();
            IF p < 0.35 THEN
                CONTINUE;
            ELSIF p < 0.55 THEN
                conds := conds || format('%I = %s', cols[k], md_value(tab, cols[k]));
            ELSIF p < 0.65 THEN
                conds := conds || format('%I %s %s', cols[k],
                                         (ARRAY['<', '<=', '>', '>='])[1 + floor(random() * 4)::int],
                                         md_value(tab, cols[k]));
            ELSIF p < 0.75 THEN
                conds := conds || format('%I BETWEEN %s AND %s', cols[k],
                                         md_value(tab, cols[k]), md_value(tab, cols[k]));
            ELSIF p < 0.87 THEN
                conds := conds || format('%I IN (%s, %s, %s)', cols[k], md_value(tab, cols[k]),
                                         md_value(tab, cols[k]), md_value(tab, cols[k]));
            ELSIF p < 0.94 THEN
                conds := conds || format('%I IS NULL', cols[k]);
            ELSE
                conds := conds || format('%I IS NOT NULL', cols[k]);
            END IF;
        END LOOP;
        IF cardinality(conds) = 0 THEN
            conds := ARRAY[format('a = %s', md_value(tab, 'a'))];
        END IF;
        w := array_to_string(conds, ' AND ');
        ordered := random() < 0.4;
        IF ordered THEN
            -- the index order, forward or backward
            q := format('SELECT a, b, c FROM %I WHERE %s ORDER BY %s', tab, w,
                        CASE WHEN random() < 0.5 THEN
                            CASE tab WHEN 'md_tpcc' THEN 'a, b, c'
                                     WHEN 'md_skew' THEN 'a DESC, b NULLS FIRST, c DESC NULLS LAST'
                                     WHEN 'md_uuid' THEN 'a, b DESC, c'
                                     ELSE 'a, b DESC, c NULLS FIRST' END
                        ELSE
                            CASE tab WHEN 'md_tpcc' THEN 'a DESC, b DESC, c DESC'
                                     WHEN 'md_skew' THEN 'a, b DESC NULLS LAST, c NULLS FIRST'
                                     WHEN 'md_uuid' THEN 'a DESC, b, c DESC'
                                     ELSE 'a DESC, b, c DESC NULLS LAST' END
                        END);
            mode := (ARRAY['is', 'ios'])[1 + floor(random() * 2)::int];
        ELSE
            q := format('SELECT a, b, c FROM %I WHERE %s', tab, w);
            mode := (ARRAY['is', 'ios', 'bis'])[1 + floor(random() * 3)::int];
        END IF;
        r := lcheck(q, mode);
        IF r ~ ':WRONG' THEN
            nwrong := nwrong + 1;
        ELSIF r ~ ':noidx' THEN
            nnoidx := nnoidx + 1;
        ELSE
            nok := nok + 1;
        END IF;
    END LOOP;
    RETURN format('%s: %s queries, %s wrong', tab, nq, nwrong) ||
           CASE WHEN nok + nnoidx = nq AND nok >= nq * 0.8 THEN ', index used' ELSE format(' (%s ok, %s noidx)', nok, nnoidx) END;
END $$;

-- Round 1: after the build.
VACUUM md_tpcc, md_skew, md_wide, md_uuid;
SELECT md_round(t, 150) FROM unnest(ARRAY['md_tpcc', 'md_skew', 'md_wide', 'md_uuid']) t;

-- Round 2: pending entries (also outside the build's ranges).
SET learned_idx.pending_limit = '100MB';
INSERT INTO md_tpcc SELECT w, d, o FROM generate_series(5, 8) w, generate_series(1, 11) d,
    generate_series(100, 140) o;
INSERT INTO md_skew SELECT
    CASE WHEN random() < 0.1 THEN NULL ELSE floor(exp(random() * 5))::int END,
    CASE WHEN random() < 0.15 THEN NULL ELSE floor(random() * 40)::int8 - 20 END,
    CASE WHEN random() < 0.1 THEN NULL ELSE date '2021-05-20' + floor(random() * 60)::int END
FROM generate_series(1, 1500);
INSERT INTO md_wide SELECT
    (floor(random() * 3000)::int8 - 1500) * 1000000007,
    CASE WHEN random() < 0.05 THEN NULL ELSE round((random() * 120 - 60)::numeric, 1)::float8 END,
    timestamp '1999-12-01' + floor(random() * 600) * interval '1 day'
FROM generate_series(1, 1500);
INSERT INTO md_uuid SELECT
    (lpad(to_hex(1700000000000 + (i / 4) * 1000 + 500), 12, '0') || '7000' || '8' || lpad(to_hex(i), 15, '0'))::uuid,
    md5(random()::text)::uuid, time '12:00' FROM generate_series(1, 1500) i;
VACUUM md_tpcc, md_skew, md_wide, md_uuid;
SELECT md_round(t, 150) FROM unnest(ARRAY['md_tpcc', 'md_skew', 'md_wide', 'md_uuid']) t;

-- Round 3: more pending entries, then merges.
INSERT INTO md_tpcc SELECT w, d, 200 FROM generate_series(0, 9) w, generate_series(1, 10) d;
INSERT INTO md_skew SELECT a, b + 1, c FROM md_skew WHERE a = 2;
INSERT INTO md_wide SELECT a + 1, b, c FROM md_wide WHERE b > 45 AND a < 9000000000000000000;
INSERT INTO md_uuid SELECT a, md5(random()::text)::uuid, c FROM md_uuid WHERE c < '00:10';
-- (a merge worker the inserts started may have merged some lists already:
-- what matters is that none is left pending)
SELECT learned_index_merge(i) >= 0 AND (SELECT pending_entries FROM learned_index_info(i)) = 0 AS merged
FROM unnest(ARRAY['md_tpcc_i', 'md_skew_i', 'md_wide_i', 'md_uuid_i']::regclass[]) i;
SELECT md_round(t, 150) FROM unnest(ARRAY['md_tpcc', 'md_skew', 'md_wide', 'md_uuid']) t;

-- Round 4: DELETE + VACUUM, inserts.
DELETE FROM md_tpcc WHERE c % 3 = 0;
DELETE FROM md_skew WHERE random() < 0.4;
DELETE FROM md_wide WHERE b < 0;
DELETE FROM md_uuid WHERE c > '01:00';
VACUUM md_tpcc, md_skew, md_wide, md_uuid;
INSERT INTO md_tpcc SELECT 2, d, 1000 + d FROM generate_series(1, 10) d;
INSERT INTO md_skew SELECT NULL, NULL, NULL FROM generate_series(1, 30);
INSERT INTO md_wide SELECT 0, 0, NULL FROM generate_series(1, 30);
INSERT INTO md_uuid SELECT NULL, NULL, NULL FROM generate_series(1, 30);
VACUUM md_tpcc, md_skew, md_wide, md_uuid;
SELECT md_round(t, 150) FROM unnest(ARRAY['md_tpcc', 'md_skew', 'md_wide', 'md_uuid']) t;
SELECT learned_index_check(i, true) FROM unnest(ARRAY['md_tpcc_i', 'md_skew_i', 'md_wide_i', 'md_uuid_i']::regclass[]) i;
RESET learned_idx.pending_limit;

DROP TABLE md_tpcc, md_skew, md_wide, md_uuid;
DROP FUNCTION md_round(text, int), md_value(text, text);
