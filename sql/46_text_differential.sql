-- 46_text_differential
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Differential test of variable-width keys: random conditions (=, <, <=,
-- >, >=, BETWEEN, IN, IS NULL, IS NOT NULL, LIKE on "C", probes that are
-- existing keys or near misses of them: one character more or less, other
-- case, a blank appended) on random words (under "C" and ICU), URLs that
-- share long prefixes, UUID v7 and v4 strings (v7: keys of the same
-- millisecond share their first 12 characters), the uuid type (v7: packed
-- segments on stride pages, compared as bytes), numeric and a composite
-- (text, text, numeric) key with mixed directions; ordered both ways or
-- not, through index, index-only and bitmap scans, each compared with a
-- sequential scan.  Rounds after the build, with pending entries, after
-- merges, and after DELETE + VACUUM + inserts.  The output is counts only;
-- a wrong answer also prints a NOTICE with the query.  Deterministic
-- through setseed().
--
SET client_min_messages = notice;
SELECT setseed(0.4646);

CREATE FUNCTION td_word() RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT string_agg((ARRAY['ka', 'Ka', 'ré', 'Ré', 'zo', 'ß', 'ä', 'Ä', 'a', 'A', 'ö', 'o',
                             'é', 'E', '日本', ' ', '-', 'b', 'B', 'ñ', 'tion', 'str', 'x'])[1 + floor(random() * 23)::int], '')
    FROM generate_series(1, 1 + floor(random() * 5)::int) $$;
CREATE FUNCTION td_url() RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT 'https://' || (ARRAY['example.com', 'example.org', 'shop.example.com'])[1 + floor(random() * 3)::int] ||
           '/catalog/v2/products/' || (ARRAY['books', 'music', 'tools', 'toys'])[1 + floor(random() * 4)::int] ||
           '/item-' || floor(random() * 2000)::int ||
           CASE WHEN random() < 0.3 THEN '?utm_source=newsletter&utm_medium=email&id=' || floor(random() * 50)::int
                ELSE '' END $$;
CREATE FUNCTION td_uuid7(ms bigint) RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT (lpad(to_hex(ms), 12, '0') || '7' || substr(md5(random()::text), 1, 3) || '8' ||
            substr(md5(random()::text), 1, 15))::uuid::text $$;

-- The distributions: table td_<name> (a[, b, c]), the index, its order and
-- the reverse (a backward scan).
CREATE TABLE tdd (name text, cols text[], ord text, rev text);
INSERT INTO tdd VALUES
  ('words_c', '{a}', 'a', 'a DESC'),
  ('words_icu', '{a}', 'a', 'a DESC'),
  ('urls', '{a}', 'a', 'a DESC'),
  ('uuid7', '{a}', 'a', 'a DESC'),
  ('uuid4', '{a}', 'a', 'a DESC'),
  ('uuidt', '{a}', 'a', 'a DESC'),
  ('num', '{a}', 'a', 'a DESC'),
  ('multi', '{a,b,c}', 'a, b DESC NULLS FIRST, c', 'a DESC, b NULLS LAST, c DESC');

CREATE TABLE td_words_c (a text COLLATE "C");
CREATE TABLE td_words_icu (a text COLLATE "und-x-icu");
CREATE TABLE td_urls (a text COLLATE "C");
CREATE TABLE td_uuid7 (a text COLLATE "C");
CREATE TABLE td_uuid4 (a text COLLATE "und-x-icu");
CREATE TABLE td_uuidt (a uuid);
CREATE TABLE td_num (a numeric);
CREATE TABLE td_multi (a text COLLATE "C", b text COLLATE "und-x-icu", c numeric);
CREATE FUNCTION td_load(n int, base int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO td_words_c SELECT CASE WHEN random() < 0.03 THEN NULL ELSE td_word() END FROM generate_series(1, n);
    INSERT INTO td_words_icu SELECT CASE WHEN random() < 0.03 THEN NULL ELSE td_word() END FROM generate_series(1, n);
    INSERT INTO td_urls SELECT CASE WHEN random() < 0.01 THEN NULL ELSE td_url() END FROM generate_series(1, n);
    INSERT INTO td_uuid7 SELECT td_uuid7(1700000000000 + (base + i) / 3) FROM generate_series(1, n) i;
    INSERT INTO td_uuid4 SELECT CASE WHEN random() < 0.02 THEN NULL ELSE md5(random()::text)::uuid::text END
        FROM generate_series(1, n);
    -- (from the row number alone: the other tables keep their random draws)
    INSERT INTO td_uuidt SELECT CASE WHEN (base + i) % 53 = 0 THEN NULL
                                     ELSE (lpad(to_hex(1700000000000 + (base + i) / 3), 12, '0') || '7' ||
                                           substr(md5((base + i)::text), 1, 3) || '8' ||
                                           substr(md5((base + i)::text || 'x'), 1, 15))::uuid END
        FROM generate_series(1, n) i;
    INSERT INTO td_num SELECT CASE WHEN random() < 0.02 THEN NULL WHEN random() < 0.01 THEN 'NaN'
                                   WHEN random() < 0.01 THEN 'Infinity' WHEN random() < 0.01 THEN '-Infinity'
                                   WHEN random() < 0.5 THEN round((random() * 2000 - 1000)::numeric, floor(random() * 4)::int)
                                   ELSE (CASE WHEN random() < 0.5 THEN -1 ELSE 1 END) *
                                        ('1e' || floor(random() * 80 - 40)::int)::numeric END
        FROM generate_series(1, n);
    INSERT INTO td_multi SELECT CASE WHEN random() < 0.03 THEN NULL ELSE 'category/' || (ARRAY['a', 'b', 'B', 'é'])[1 + floor(random() * 4)::int] END,
                                CASE WHEN random() < 0.05 THEN NULL ELSE td_word() END,
                                CASE WHEN random() < 0.05 THEN NULL ELSE round((random() * 100)::numeric, floor(random() * 3)::int) END
        FROM generate_series(1, n);
END $$;
-- (no autovacuum: its VACUUM would merge the pending lists)
DO $$ DECLARE t text; BEGIN
    FOR t IN SELECT 'td_' || name FROM tdd LOOP
        EXECUTE format('ALTER TABLE %I SET (autovacuum_enabled = off)', t);
    END LOOP;
END $$;
SELECT td_load(4000, 0);
-- NaN and infinities
INSERT INTO td_num VALUES ('NaN'), ('Infinity'), ('-Infinity'), (0), (0.000), ('1e1000'), ('-1e1000');
ANALYZE td_words_c, td_words_icu, td_urls, td_uuid7, td_uuid4, td_uuidt, td_num, td_multi;
CREATE INDEX td_words_c_i ON td_words_c USING learned (a);
CREATE INDEX td_words_icu_i ON td_words_icu USING learned (a);
CREATE INDEX td_urls_i ON td_urls USING learned (a) WITH (error_bound = 4);
CREATE INDEX td_uuid7_i ON td_uuid7 USING learned (a);
CREATE INDEX td_uuid4_i ON td_uuid4 USING learned (a) WITH (error_bound = 64);
CREATE INDEX td_uuidt_i ON td_uuidt USING learned (a);
CREATE INDEX td_num_i ON td_num USING learned (a);
CREATE INDEX td_multi_i ON td_multi USING learned (a, b DESC NULLS FIRST, c);

-- a literal for column col of a random existing row, sometimes a near miss
CREATE FUNCTION td_value(tab text, col text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v text;
    typ text;
    p float8 := random();
BEGIN
    EXECUTE format('SELECT %I::text, pg_typeof(%I)::text FROM %I WHERE %I IS NOT NULL OFFSET floor(random() * 300) LIMIT 1',
                   col, col, tab, col) INTO v, typ;
    IF v IS NULL THEN
        RETURN 'NULL';
    END IF;
    IF typ = 'numeric' THEN
        IF p < 0.2 AND v NOT IN ('NaN', 'Infinity', '-Infinity') THEN
            v := (v::numeric + CASE WHEN random() < 0.5 THEN 0.001 ELSE -1 END)::text;
        END IF;
    ELSIF typ = 'uuid' THEN
        IF p < 0.3 THEN
            v := left(v, -1 - floor(random() * 20)::int);
            v := v || substr(repeat('0123456789abcdef', 3), 1 + floor(random() * 16)::int, 36 - length(v));
            v := overlay(overlay(overlay(overlay(v placing '-' from 9) placing '-' from 14)
                                 placing '-' from 19) placing '-' from 24);
        END IF;
    ELSIF p < 0.1 THEN
        v := v || (ARRAY['a', ' ', '~', 'é', '0'])[1 + floor(random() * 5)::int];
    ELSIF p < 0.2 AND length(v) > 0 THEN
        v := left(v, -1);
    ELSIF p < 0.25 THEN
        v := upper(v);
    ELSIF p < 0.3 THEN
        v := left(v, floor(random() * 12)::int);
    END IF;
    RETURN quote_literal(v) || '::' || typ;
END $$;

CREATE FUNCTION td_round(dname text, nq int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    d tdd;
    tab text := 'td_' || dname;
    conds text[];
    w text;
    q text;
    r text;
    mode text;
    col text;
    i int;
    p float8;
    nok int := 0;
    nnoidx int := 0;
    nwrong int := 0;
    ordered bool;
BEGIN
    SELECT * INTO d FROM tdd WHERE name = dname;
    FOR i IN 1..nq LOOP
        conds := '{}';
        FOREACH col IN ARRAY d.cols LOOP
            p := random();
            IF p < 0.3 AND cardinality(d.cols) > 1 THEN
                CONTINUE;
            ELSIF p < 0.5 THEN
                conds := conds || format('%I = %s', col, td_value(tab, col));
            ELSIF p < 0.62 THEN
                conds := conds || format('%I %s %s', col,
                                         (ARRAY['<', '<=', '>', '>='])[1 + floor(random() * 4)::int],
                                         td_value(tab, col));
            ELSIF p < 0.74 THEN
                conds := conds || format('%I BETWEEN %s AND %s', col,
                                         td_value(tab, col), td_value(tab, col));
            ELSIF p < 0.86 THEN
                conds := conds || format('%I IN (%s, %s, %s)', col, td_value(tab, col),
                                         td_value(tab, col), td_value(tab, col));
            ELSIF p < 0.9 AND (tab IN ('td_words_c', 'td_urls', 'td_uuid7') OR (tab = 'td_multi' AND col = 'a')) THEN
                conds := conds || format('%I LIKE %s', col,
                                         quote_literal(replace(replace(left(trim(both '''' from split_part(td_value(tab, col), '::', 1)),
                                                                            1 + floor(random() * 20)::int), '%', ''), '_', '') || '%'));
            ELSIF p < 0.94 THEN
                conds := conds || format('%I IS NULL', col);
            ELSE
                conds := conds || format('%I IS NOT NULL', col);
            END IF;
        END LOOP;
        IF cardinality(conds) = 0 THEN
            conds := ARRAY[format('a = %s', td_value(tab, 'a'))];
        END IF;
        w := array_to_string(conds, ' AND ');
        ordered := random() < 0.4;
        -- equal numerics print differently (1.0, 1.00): trim_scale
        IF ordered THEN
            q := format('SELECT %s FROM %I WHERE %s ORDER BY %s',
                        CASE WHEN tab = 'td_num' THEN 'trim_scale(a)'
                             WHEN tab = 'td_multi' THEN 'a, b, trim_scale(c)' ELSE 'a' END,
                        tab, w, CASE WHEN random() < 0.5 THEN d.ord ELSE d.rev END);
            mode := (ARRAY['is', 'ios'])[1 + floor(random() * 2)::int];
        ELSE
            q := format('SELECT %s FROM %I WHERE %s', array_to_string(d.cols, ', '), tab, w);
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
    RETURN format('%s: %s queries, %s wrong', dname, nq, nwrong) ||
           CASE WHEN nok + nnoidx = nq AND nok >= nq * 0.8 THEN ', index used' ELSE format(' (%s ok, %s noidx)', nok, nnoidx) END;
END $$;

-- Round 1: after the build.
VACUUM td_words_c, td_words_icu, td_urls, td_uuid7, td_uuid4, td_uuidt, td_num, td_multi;
SELECT td_round(name, 100) FROM tdd ORDER BY name;

-- Round 2: pending entries (no merge: merge_ratio = 1 waits until the list
-- outgrows the static entries), new keys inside
-- and outside the build's ranges.
SET learned_idx.pending_limit = '100MB';
DO $$ DECLARE t text; BEGIN
    FOR t IN SELECT 'td_' || name || '_i' FROM tdd LOOP
        EXECUTE format('ALTER INDEX %I SET (merge_ratio = 1)', t);
    END LOOP;
END $$;
SELECT td_load(1200, 100000);
INSERT INTO td_words_c VALUES (''), ('~~~'), (' ');
INSERT INTO td_urls VALUES ('https://example.com/'), ('https://example.com/catalog/v2/products/books/item-'), ('zzz');
INSERT INTO td_uuid7 VALUES ('00000000-0000-7000-8000-000000000000'), ('ffffffff-ffff-7fff-bfff-ffffffffffff');
INSERT INTO td_uuidt VALUES ('00000000-0000-7000-8000-000000000000'), ('ffffffff-ffff-7fff-bfff-ffffffffffff');
SELECT name, pending_entries > 0 AS has_pending FROM tdd, learned_index_info(('td_' || name || '_i')::regclass) ORDER BY name;
SELECT td_round(name, 100) FROM tdd ORDER BY name;

-- Round 3: more pending entries, then merges.
SELECT td_load(300, 200000);
SELECT name, learned_index_merge(('td_' || name || '_i')::regclass) > 0
             AND (SELECT pending_entries FROM learned_index_info(('td_' || name || '_i')::regclass)) = 0 AS merged
FROM tdd ORDER BY name;
SELECT td_round(name, 100) FROM tdd ORDER BY name;

-- Round 4: DELETE + VACUUM, inserts.
DELETE FROM td_words_c WHERE a < 'b';
DELETE FROM td_words_icu WHERE a > 'b';
DELETE FROM td_urls WHERE a LIKE 'https://example.org/%';
DELETE FROM td_uuid7 WHERE a < '018bcfe5';
DELETE FROM td_uuid4 WHERE random() < 0.4;
DELETE FROM td_uuidt WHERE a < '018bcfe5-8000-0000-0000-000000000000';
DELETE FROM td_num WHERE a < 0;
DELETE FROM td_multi WHERE b IS NULL OR c < 30;
VACUUM td_words_c, td_words_icu, td_urls, td_uuid7, td_uuid4, td_uuidt, td_num, td_multi;
SELECT td_load(200, 300000);
VACUUM td_words_c, td_words_icu, td_urls, td_uuid7, td_uuid4, td_uuidt, td_num, td_multi;
SELECT td_round(name, 100) FROM tdd ORDER BY name;
SELECT name, learned_index_check(('td_' || name || '_i')::regclass, true) FROM tdd ORDER BY name;
RESET learned_idx.pending_limit;

DROP TABLE td_words_c, td_words_icu, td_urls, td_uuid7, td_uuid4, td_uuidt, td_num, td_multi, tdd;
DROP FUNCTION td_round(text, int), td_value(text, text), td_load(int, int), td_word(), td_url(), td_uuid7(bigint);
