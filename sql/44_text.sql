-- 44_text
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Variable-width keys: text under the collations "C", "POSIX", "C.utf8"
-- (libc, compared through strcoll), "und-x-icu" and a nondeterministic ICU
-- collation (case-insensitive: 'Ré' = 'ré', NFC 'é' = NFD 'é'); varchar,
-- bpchar (trailing blanks are insignificant), name, bytea and numeric
-- (NaN above +Infinity, 1.0 = 1.00, extreme exponents).  The strings have
-- empty values, NULLs, duplicates, UTF-8, mixed case, long shared prefixes,
-- keys differing only after their 8th byte (the models' image is an 8-byte
-- prefix: equal images, different keys), and 2,000-byte keys (random ones,
-- stored as they are, and compressible ones, which may be stored
-- compressed).  Cross-type operators: name vs text, text vs name, varchar
-- vs text.  Every answer is compared with a sequential scan (lcheck): after
-- the build, with pending entries, after merges and after DELETE + VACUUM;
-- scroll cursors are compared fetch by fetch.  Ordered results under the
-- nondeterministic collation print normalize(lower(key), NFC), equal for
-- equal keys, since equal keys may come in any order.  Then the long-key
-- limit, next to btree on the same data.
--
SET client_min_messages = notice;
SELECT setseed(0.44);

-- pg_regress's database: whatever initdb picked (this file names a
-- collation for every text column, so its answers do not depend on it)
SELECT datcollate FROM pg_database WHERE datname = current_database();
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);

-- A random word of syllables that differ in case, accents (precomposed
-- and decomposed), script and byte length; no two syllable strings are
-- equal under "ci" unless their normalize(lower(), NFC) are equal.
CREATE FUNCTION tx_word() RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT string_agg((ARRAY['ka', 'Ka', 'KA', 'ré', 'Ré', 're', 'zo', 'ß', 'ä', 'Ä', 'a', 'A',
                             'ö', 'o', 'O', 'é', E'e\u0301', '日本', '😀', ' ', '-', 'b', 'B',
                             'ñ', 'N', '~'])[1 + floor(random() * 26)::int], '')
    FROM generate_series(1, 1 + floor(random() * 6)::int) $$;

-- The source strings (kept: queries read long keys from here).
CREATE TABLE tx_src (id int PRIMARY KEY, s text COLLATE "C", nu numeric);
CREATE FUNCTION tx_gen(lo int, hi int) RETURNS void LANGUAGE sql AS $$
INSERT INTO tx_src SELECT i,
    CASE WHEN i % 41 = 0 THEN NULL
         WHEN i % 43 = 0 THEN ''
         -- 2,000-byte keys: random hex, or a long shared prefix (compressible)
         WHEN i % 197 = 0 THEN (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 63 + 0 * i))
         WHEN i % 199 = 0 THEN repeat('long-prefix/', 150) ||
                               (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 6 + 0 * i))
         WHEN i % 5 = 0 THEN tx_word()
         WHEN i % 5 = 1 THEN 'https://example.com/catalog/products/category-' || i % 7 || '/item/' ||
                             floor(random() * 300)::int ||
                             CASE WHEN random() < 0.3 THEN '?ref=' || tx_word() ELSE '' END
         -- the same first 8 bytes
         WHEN i % 5 = 2 THEN 'abcdefgh' || (ARRAY['', ' ', '-', 'A', 'a', 'é', '0', '~'])[1 + floor(random() * 8)::int] ||
                             CASE WHEN random() < 0.8 THEN floor(random() * 100)::text ELSE '' END
         -- trailing blanks
         WHEN i % 5 = 3 THEN tx_word() || repeat(' ', floor(random() * 3)::int)
         ELSE lpad((i % 500)::text, 6, '0')
    END,
    CASE WHEN i % 47 = 0 THEN NULL
         WHEN i % 53 = 0 THEN 'NaN'
         WHEN i % 59 = 0 THEN 'Infinity'
         WHEN i % 61 = 0 THEN '-Infinity'
         -- equal values at scales 1, 2, 3
         WHEN i % 4 = 0 THEN round((i % 100)::numeric / 10, 1 + i % 3)
         -- exponents from -300 to 300
         WHEN i % 4 = 1 THEN (CASE WHEN random() < 0.5 THEN -1 ELSE 1 END) *
                             ('1e' || floor(random() * 600 - 300)::int)::numeric * (1 + floor(random() * 9))
         WHEN i % 4 = 2 THEN round(((random() * 2 - 1) * 1e20)::numeric, floor(random() * 10)::int)
         ELSE (i % 300 - 150)::numeric
    END
FROM generate_series(lo, hi) i $$;
SELECT tx_gen(1, 4000);
INSERT INTO tx_src VALUES (6001, 'abcdefgh', '1e1000'), (6002, 'abcdefgh ', '-1e1000'),
                          (6003, 'ABCDEFGH', '1e-1000'), (6004, 'abcdefgh' || repeat('z', 1000), 0),
                          (6005, E'abcdefgh\u00e9', 0.000), (6006, E'abcdefghe\u0301', -0.0);

-- One column per type and collation, all from the same strings.
CREATE TABLE tx (id int, tc text COLLATE "C", tp text COLLATE "POSIX", tl text COLLATE "C.utf8",
                 ti text COLLATE "und-x-icu", tn text COLLATE ci, vc varchar(40) COLLATE "C",
                 bp char(8) COLLATE "C", nm name, by bytea, nu numeric)
    WITH (autovacuum_enabled = off);	-- its VACUUM would merge the pending lists
CREATE FUNCTION tx_fill(lo int, hi int) RETURNS void LANGUAGE sql AS $$
INSERT INTO tx SELECT id, s, s, s, s, s, left(s, 40), left(s, 8)::char(8), left(s, 63)::name,
    CASE WHEN id % 11 = 0 THEN decode(md5(id::text), 'hex') ELSE convert_to(s, 'UTF8') END, nu
FROM tx_src WHERE id BETWEEN lo AND hi $$;
SELECT tx_fill(1, 9999);
ANALYZE tx;
SELECT count(*) AS rows, count(DISTINCT tc) AS distinct_c, count(DISTINCT tn) AS distinct_ci,
       count(DISTINCT bp) AS distinct_bp, max(octet_length(tc)) AS longest,
       count(*) FILTER (WHERE octet_length(tc) >= 2000) AS long_keys FROM tx;

CREATE INDEX tx_tc ON tx USING learned (tc);
CREATE INDEX tx_tp ON tx USING learned (tp DESC);
CREATE INDEX tx_tl ON tx USING learned (tl);
CREATE INDEX tx_ti ON tx USING learned (ti NULLS FIRST);
CREATE INDEX tx_tn ON tx USING learned (tn);
CREATE INDEX tx_vc ON tx USING learned (vc);
CREATE INDEX tx_bp ON tx USING learned (bp);
CREATE INDEX tx_nm ON tx USING learned (nm);
CREATE INDEX tx_by ON tx USING learned (by DESC NULLS LAST);
CREATE INDEX tx_nu ON tx USING learned (nu NULLS FIRST);
-- each index: its column, the key as ordered queries print it, its order
-- and the reverse order (a backward scan)
CREATE TABLE txi (idx text, col text, outx text, ord text, rev text);
INSERT INTO txi VALUES ('tx_tc', 'tc', 'tc', 'tc', 'tc DESC'),
    ('tx_tp', 'tp', 'tp', 'tp DESC', 'tp'),
    ('tx_tl', 'tl', 'tl', 'tl', 'tl DESC'),
    ('tx_ti', 'ti', 'ti', 'ti NULLS FIRST', 'ti DESC NULLS LAST'),
    ('tx_tn', 'tn', 'normalize(lower(tn), NFC)', 'tn', 'tn DESC'),
    ('tx_vc', 'vc', 'vc', 'vc', 'vc DESC'), ('tx_bp', 'bp', 'bp', 'bp', 'bp DESC'),
    ('tx_nm', 'nm', 'nm', 'nm', 'nm DESC'), ('tx_by', 'by', 'by', 'by DESC NULLS LAST', 'by NULLS FIRST'),
    ('tx_nu', 'nu', 'trim_scale(nu)', 'nu NULLS FIRST', 'nu DESC NULLS LAST');
SELECT idx, learned_index_check(idx::regclass, true) FROM txi ORDER BY idx;

-- The queries: text templates (%1$I the column, %2$s the printed key, %3$s
-- and %4$s the index order and its reverse) for
-- the five text columns, LIKE for those the planner can match a prefix on
-- ("C" and "POSIX"), then queries of each type.
CREATE TABLE txq (n serial, idx text, q text);
INSERT INTO txq (idx, q)
SELECT idx, format(t, col, outx, ord, rev) FROM txi,
    unnest(ARRAY[
        'SELECT id FROM tx WHERE %1$I = ''abcdefgh''',
        'SELECT id FROM tx WHERE %1$I = ''abcdefgh-47''',
        'SELECT id FROM tx WHERE %1$I = ''''',
        'SELECT id FROM tx WHERE %1$I IS NULL',
        'SELECT id FROM tx WHERE %1$I = ''ré''',
        'SELECT id FROM tx WHERE %1$I IN ('''', ''KA'', ''ré'', ''abcdefghé7'', ''zzz'', ''000042'')',
        'SELECT id FROM tx WHERE %1$I > ''abcdefgh'' AND %1$I < ''abcdefgi''',
        'SELECT id FROM tx WHERE %1$I BETWEEN ''a'' AND ''b''',
        'SELECT id FROM tx WHERE %1$I >= ''https://example.com/catalog/products/category-3/item/1'' AND %1$I < ''https://example.com/catalog/products/category-3/item/2''',
        'SELECT id FROM tx WHERE %1$I < ''B''',
        'SELECT id FROM tx WHERE %1$I >= ''ö''',
        'SELECT id FROM tx WHERE %1$I = (SELECT %1$I FROM tx WHERE id = 197)',
        'SELECT id FROM tx WHERE %1$I = (SELECT %1$I FROM tx WHERE id = 199)',
        'SELECT id FROM tx WHERE %1$I > (SELECT %1$I FROM tx WHERE id = 398) AND %1$I < ''long-prefix/long-prefix/zz''',
        'SELECT id FROM tx WHERE %1$I < ANY (''{a, Ré}'')',
        'SELECT %1$I FROM tx WHERE %1$I BETWEEN ''Ka'' AND ''ré''',
        'SELECT %2$s FROM tx WHERE %1$I > ''https://'' ORDER BY %3$s',
        'SELECT %2$s FROM tx WHERE %1$I < ''abcdefgh~'' ORDER BY %4$s',
        'SELECT %2$s FROM tx WHERE %1$I IN (''a'', ''A'', ''ä'', ''Ä'', ''é'', E''e\u0301'') ORDER BY %3$s',
        'SELECT %2$s FROM tx WHERE %1$I IN (''a'', ''A'', ''ä'', ''Ä'', ''é'', E''e\u0301'') ORDER BY %4$s',
        'SELECT %2$s FROM tx ORDER BY %3$s',
        'SELECT %2$s FROM tx ORDER BY %4$s']) t
WHERE col IN ('tc', 'tp', 'tl', 'ti', 'tn');
INSERT INTO txq (idx, q)
SELECT idx, format(t, col) FROM txi,
    unnest(ARRAY[
        'SELECT id FROM tx WHERE %1$I LIKE ''abcdefgh-%%''',
        'SELECT %1$I FROM tx WHERE %1$I LIKE ''https://example.com/catalog/products/category-1/%%'''
    ]) t
WHERE col IN ('tc', 'tp');
INSERT INTO txq (idx, q) VALUES
  -- text vs name
  ('tx_tc', 'SELECT id FROM tx WHERE tc = ''abcdefgh-47''::name'),
  ('tx_tc', 'SELECT id FROM tx WHERE tc < ''B''::name'),
  -- varchar (its operators are text's)
  ('tx_vc', 'SELECT id FROM tx WHERE vc = ''abcdefgh-47'''),
  ('tx_vc', 'SELECT id FROM tx WHERE vc = ''abcdefgh-47''::text'),
  ('tx_vc', 'SELECT id FROM tx WHERE vc = ''https://example.com/catalog/products/cat'''),
  ('tx_vc', 'SELECT id FROM tx WHERE vc > ''abcdefgh''::varchar(3) AND vc <= ''abcdefgh5''::text'),
  ('tx_vc', 'SELECT id FROM tx WHERE vc LIKE ''abcdefgh-%'''),
  ('tx_vc', 'SELECT id FROM tx WHERE vc IS NULL'),
  ('tx_vc', 'SELECT id FROM tx WHERE vc = '''''),
  ('tx_vc', 'SELECT vc FROM tx WHERE vc >= ''long-prefix/'' ORDER BY vc'),
  ('tx_vc', 'SELECT vc FROM tx WHERE vc < ''Z'' ORDER BY vc DESC'),
  -- bpchar: 'Ka' = 'Ka  ' = 'Ka      '
  ('tx_bp', 'SELECT id FROM tx WHERE bp = ''Ka'''),
  ('tx_bp', 'SELECT id FROM tx WHERE bp = ''Ka     '''),
  ('tx_bp', 'SELECT id FROM tx WHERE bp = '''''),
  ('tx_bp', 'SELECT id FROM tx WHERE bp IN ('''', ''a'', ''A  '', ''abcdefgh'', ''000042'')'),
  ('tx_bp', 'SELECT id FROM tx WHERE bp < ''Ka '''),
  ('tx_bp', 'SELECT id FROM tx WHERE bp > ''abcdefgh'''),
  ('tx_bp', 'SELECT id FROM tx WHERE bp LIKE ''abcd%'''),
  ('tx_bp', 'SELECT bp FROM tx WHERE bp BETWEEN ''a'' AND ''b'''),
  ('tx_bp', 'SELECT bp FROM tx WHERE bp >= ''https'' ORDER BY bp'),
  ('tx_bp', 'SELECT bp FROM tx ORDER BY bp DESC'),
  -- name, and name vs text
  ('tx_nm', 'SELECT id FROM tx WHERE nm = ''abcdefgh-47'''),
  ('tx_nm', 'SELECT id FROM tx WHERE nm = ''abcdefgh-47''::text'),
  ('tx_nm', 'SELECT id FROM tx WHERE nm = ''abcdefgh'''),
  ('tx_nm', 'SELECT id FROM tx WHERE nm < ''B''::text'),
  ('tx_nm', 'SELECT id FROM tx WHERE nm >= ''https://example.com/catalog/products/category-5''::text AND nm < ''i'''),
  ('tx_nm', 'SELECT id FROM tx WHERE nm = ANY (ARRAY[''KA''::text, ''ré'', ''''])'),
  ('tx_nm', 'SELECT id FROM tx WHERE nm = (SELECT nm FROM tx WHERE id = 199)'),
  ('tx_nm', 'SELECT id FROM tx WHERE nm LIKE ''abcdefgh%'''),
  ('tx_nm', 'SELECT nm FROM tx WHERE nm > ''long'' ORDER BY nm'),
  ('tx_nm', 'SELECT nm FROM tx WHERE nm < ''abcdefgh '' ORDER BY nm DESC'),
  -- bytea
  ('tx_by', 'SELECT id FROM tx WHERE by = ''\x'''),
  ('tx_by', 'SELECT id FROM tx WHERE by = convert_to(''Ré'', ''UTF8'')'),
  ('tx_by', 'SELECT id FROM tx WHERE by = decode(md5(''2200''), ''hex'')'),
  ('tx_by', 'SELECT id FROM tx WHERE by < ''\x10'''),
  ('tx_by', 'SELECT id FROM tx WHERE by >= ''\xc3'''),
  ('tx_by', 'SELECT id FROM tx WHERE by > ''abcdefgh'' AND by < ''abcdefgi'''),
  ('tx_by', 'SELECT id FROM tx WHERE by = (SELECT by FROM tx WHERE id = 197)'),
  ('tx_by', 'SELECT id FROM tx WHERE by LIKE ''abcdefgh-%'''),
  ('tx_by', 'SELECT by FROM tx WHERE by BETWEEN ''\x80'' AND ''\xd0'''),
  ('tx_by', 'SELECT by FROM tx WHERE by > ''https'' ORDER BY by DESC NULLS LAST'),
  ('tx_by', 'SELECT by FROM tx WHERE by < ''\xc3'' ORDER BY by NULLS FIRST'),
  ('tx_by', 'SELECT by FROM tx ORDER BY by NULLS FIRST'),
  -- numeric
  ('tx_nu', 'SELECT id FROM tx WHERE nu = 1'),
  ('tx_nu', 'SELECT id FROM tx WHERE nu = 1.000'),
  ('tx_nu', 'SELECT id FROM tx WHERE nu = 0'),
  ('tx_nu', 'SELECT id FROM tx WHERE nu = ''NaN'''),
  ('tx_nu', 'SELECT id FROM tx WHERE nu > ''Infinity'''),
  ('tx_nu', 'SELECT id FROM tx WHERE nu >= ''Infinity'''),
  ('tx_nu', 'SELECT id FROM tx WHERE nu <= ''-Infinity'''),
  ('tx_nu', 'SELECT id FROM tx WHERE nu < ''-Infinity'''),
  ('tx_nu', 'SELECT id FROM tx WHERE nu BETWEEN -1e-200 AND 1e-200'),
  ('tx_nu', 'SELECT id FROM tx WHERE nu > 1e300 AND nu < ''Infinity'''),
  ('tx_nu', 'SELECT id FROM tx WHERE nu IN (0, 1.000, 2.5, ''NaN'', ''1e1000'')'),
  ('tx_nu', 'SELECT id FROM tx WHERE nu = 5::int8'),
  ('tx_nu', 'SELECT id FROM tx WHERE nu IS NULL'),
  ('tx_nu', 'SELECT trim_scale(nu) FROM tx WHERE nu >= -10 AND nu < 10 ORDER BY nu NULLS FIRST'),
  ('tx_nu', 'SELECT trim_scale(nu) FROM tx WHERE nu > 1e100 OR nu IS NULL ORDER BY nu DESC NULLS LAST'),
  ('tx_nu', 'SELECT trim_scale(nu) FROM tx ORDER BY nu NULLS FIRST');

CREATE FUNCTION tx_round(show_all bool) RETURNS TABLE (n int, q text, result text)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT * FROM txq ORDER BY txq.n LOOP
        n := r.n;
        q := r.q;
        result := lcheck(r.q, CASE WHEN r.q ~ 'ORDER BY' THEN 'is,ios'
                                   WHEN r.q ~ '^SELECT id' THEN 'is,bis'
                                   ELSE 'is,ios,bis' END);
        IF show_all OR result ~ 'WRONG|noidx' THEN
            RETURN NEXT;
        END IF;
    END LOOP;
END $$;

-- A scroll cursor on an ordered query: its fetches in both directions
-- (NEXT, PRIOR, LAST, ABSOLUTE, RELATIVE, FIRST, BACKWARD past the start)
-- through the index equal those on the sorted sequential scan.
CREATE FUNCTION tx_cursor(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    c refcursor;
    r record;
    res text[];
    ref text[];
    pass int;
BEGIN
    FOR pass IN 1..2 LOOP
        PERFORM lcheck_set(CASE pass WHEN 1 THEN 'on' ELSE 'off' END,
                           CASE pass WHEN 1 THEN 'off' ELSE 'on' END, 'off', 'off');
        res := '{}';
        OPEN c SCROLL FOR EXECUTE q;
        FETCH NEXT FROM c INTO r; res := res || r::text;
        FETCH NEXT FROM c INTO r; res := res || r::text;
        FETCH NEXT FROM c INTO r; res := res || r::text;
        FETCH PRIOR FROM c INTO r; res := res || r::text;
        FETCH LAST FROM c INTO r; res := res || r::text;
        FETCH PRIOR FROM c INTO r; res := res || r::text;
        FETCH PRIOR FROM c INTO r; res := res || r::text;
        FETCH ABSOLUTE 20 FROM c INTO r; res := res || r::text;
        FETCH RELATIVE -7 FROM c INTO r; res := res || r::text;
        FETCH RELATIVE 3 FROM c INTO r; res := res || r::text;
        FETCH FIRST FROM c INTO r; res := res || r::text;
        FETCH PRIOR FROM c INTO r; res := res || coalesce(r::text, 'none');
        FETCH NEXT FROM c INTO r; res := res || r::text;
        FETCH NEXT FROM c INTO r; res := res || r::text;
        CLOSE c;
        IF pass = 1 THEN
            ref := res;
        END IF;
    END LOOP;
    PERFORM lcheck_set('on', 'on', 'on', 'on');
    IF res IS DISTINCT FROM ref THEN
        RAISE NOTICE 'WRONG cursor: % got % expected %', q, res, ref;
        RETURN 'WRONG';
    END IF;
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_bitmapscan = off;
    RETURN CASE WHEN lcheck_uses(q, 'Index Scan') OR lcheck_uses(q, 'Index Only Scan')
                THEN 'ok' ELSE 'noidx' END;
END $$;
CREATE FUNCTION tx_cursors() RETURNS TABLE (q text, result text) LANGUAGE plpgsql AS $$
BEGIN
    FOREACH q IN ARRAY ARRAY[
        'SELECT tc FROM tx WHERE tc > ''abcdefgh'' ORDER BY tc',
        'SELECT tl FROM tx WHERE tl < ''abcdefgi'' ORDER BY tl DESC',
        'SELECT ti FROM tx WHERE ti >= ''a'' ORDER BY ti NULLS FIRST',
        'SELECT normalize(lower(tn), NFC) FROM tx WHERE tn < ''b'' ORDER BY tn DESC',
        'SELECT bp FROM tx WHERE bp >= ''Ka'' ORDER BY bp',
        'SELECT by FROM tx WHERE by < ''abcdefgh~'' ORDER BY by NULLS FIRST',
        'SELECT trim_scale(nu) FROM tx WHERE nu > -1000 ORDER BY nu DESC NULLS LAST'] LOOP
        result := tx_cursor(q);
        RETURN NEXT;
    END LOOP;
END $$;

-- Round 1: after the build.
VACUUM tx;
SELECT n, result, q FROM tx_round(true);
SELECT q, result FROM tx_cursors();

-- Round 2: pending entries (new strings, keys outside the build's range at
-- both ends, long keys, updates), no merge (merge_ratio = 1: only once
-- the pending list outgrows the static entries).
SET learned_idx.pending_limit = '100MB';
DO $$ DECLARE i text; BEGIN
    FOR i IN SELECT idx FROM txi LOOP EXECUTE format('ALTER INDEX %I SET (merge_ratio = 1)', i); END LOOP;
END $$;
SELECT tx_gen(10001, 11000);
INSERT INTO tx_src VALUES (11501, '', 'NaN'), (11502, ' ', '-Infinity'), (11503, '~~~~', '1e-1000'),
    (11504, 'abcdefgh', 1.00000), (11505, 'ABCDEFGH', -1e300), (11506, E'\u00ff\u00ff', 1e300),
    (11507, '!', NULL), (11508, NULL, 7), (11509, 'abcdefgh' || repeat('z', 999), 0),
    (11510, repeat('long-prefix/', 160), 'Infinity');
SELECT tx_fill(10001, 19999);
UPDATE tx SET tc = tc || 'x', ti = ti || 'x', tn = upper(tn), nu = nu * 2 WHERE id % 100 = 7;
SELECT idx, pending_entries > 0 AS has_pending FROM txi, learned_index_info(idx::regclass) ORDER BY idx;
SELECT n, result, q FROM tx_round(false);
SELECT q, result FROM tx_cursors();

-- (the entries were still pending)
SELECT idx, pending_entries > 0 AS has_pending FROM txi, learned_index_info(idx::regclass) ORDER BY idx;

-- Round 3: more pending entries, then merges.
SELECT tx_gen(12001, 12300);
SELECT tx_fill(12001, 12999);
SELECT idx, learned_index_merge(idx::regclass) > 0
           AND (SELECT pending_entries FROM learned_index_info(idx::regclass)) = 0 AS merged
FROM txi ORDER BY idx;
SELECT idx, learned_index_check(idx::regclass, true) FROM txi ORDER BY idx;
SELECT n, result, q FROM tx_round(false);
SELECT q, result FROM tx_cursors();

-- Round 4: DELETE + VACUUM, inserts, VACUUM.
DELETE FROM tx WHERE id % 3 = 0 OR tc LIKE 'abcdefgh-%';
VACUUM tx;
SELECT tx_gen(20001, 20600);
SELECT tx_fill(20001, 29999);
VACUUM tx;
SELECT idx, learned_index_check(idx::regclass, true) FROM txi ORDER BY idx;
SELECT n, result, q FROM tx_round(false);
SELECT q, result FROM tx_cursors();
RESET learned_idx.pending_limit;

-- Long keys: 2,000 bytes are stored; a random 3,000-byte key exceeds the
-- limit (the same kind of error as btree's, at the build and on insert);
-- a 10 kB key that compresses to a few hundred bytes is stored, by both.
CREATE TABLE lk_b (k text COLLATE "C", b bytea);
CREATE TABLE lk_l (k text COLLATE "C", b bytea);
CREATE FUNCTION lk_hex(n int, seed int) RETURNS text LANGUAGE sql AS $$
    SELECT left(string_agg(md5(seed || '/' || j), ''), n) FROM generate_series(1, n / 32 + 1) j $$;
INSERT INTO lk_b SELECT lk_hex(2000, i), decode(lk_hex(2000, i), 'hex') FROM generate_series(1, 20) i;
INSERT INTO lk_l SELECT * FROM lk_b;
INSERT INTO lk_b VALUES (lk_hex(3000, 99), NULL);
INSERT INTO lk_l VALUES (lk_hex(3000, 99), NULL);
\set VERBOSITY sqlstate
CREATE INDEX lk_b_k ON lk_b USING btree (k);
CREATE INDEX lk_l_k ON lk_l USING learned (k);
\set VERBOSITY default
-- the error names the sizes and the index
CREATE INDEX lk_l_k ON lk_l USING learned (k);
DELETE FROM lk_b WHERE octet_length(k) > 2000;
DELETE FROM lk_l WHERE octet_length(k) > 2000;
CREATE INDEX lk_b_k ON lk_b USING btree (k);
CREATE INDEX lk_l_k ON lk_l USING learned (k);
CREATE INDEX lk_b_b ON lk_b USING btree (b);
CREATE INDEX lk_l_b ON lk_l USING learned (b);
\set VERBOSITY sqlstate
INSERT INTO lk_b VALUES (lk_hex(3000, 98), NULL);
INSERT INTO lk_l VALUES (lk_hex(3000, 98), NULL);
INSERT INTO lk_b VALUES (NULL, decode(lk_hex(6000, 97), 'hex'));
INSERT INTO lk_l VALUES (NULL, decode(lk_hex(6000, 97), 'hex'));
INSERT INTO lk_b VALUES (lk_hex(12000, 96), NULL);
INSERT INTO lk_l VALUES (lk_hex(12000, 96), NULL);
\set VERBOSITY default
INSERT INTO lk_b VALUES (repeat('0123456789', 1000), convert_to(repeat('0123456789', 1000), 'UTF8')),
                        (repeat('0123456789', 1000) || 'x', NULL), (lk_hex(2000, 95), NULL);
INSERT INTO lk_l VALUES (repeat('0123456789', 1000), convert_to(repeat('0123456789', 1000), 'UTF8')),
                        (repeat('0123456789', 1000) || 'x', NULL), (lk_hex(2000, 95), NULL);
SELECT (SELECT count(*) FROM lk_b) AS btree_rows, (SELECT count(*) FROM lk_l) AS learned_rows;
SELECT lcheck('SELECT md5(k) FROM lk_l WHERE k = repeat(''0123456789'', 1000)', 'is,ios,bis');
SELECT lcheck('SELECT md5(k) FROM lk_l WHERE k >= repeat(''0123456789'', 999)', 'is,ios,bis');
SELECT lcheck('SELECT md5(k) FROM lk_l WHERE k = $x$' || lk_hex(2000, 95) || '$x$', 'is,ios,bis');
SELECT lcheck('SELECT md5(k), octet_length(k) FROM lk_l ORDER BY k', 'is,ios');
SELECT lcheck('SELECT md5(b) FROM lk_l WHERE b > ''\x80'' ORDER BY b DESC', 'is,ios');
SELECT lcheck('SELECT md5(b) FROM lk_l WHERE b = convert_to(repeat(''0123456789'', 1000), ''UTF8'')', 'is,ios,bis');
SELECT learned_index_merge('lk_l_k') >= 0 AS merged, learned_index_merge('lk_l_b') >= 0 AS merged;
SELECT lcheck('SELECT md5(k) FROM lk_l WHERE k = repeat(''0123456789'', 1000)', 'is,ios,bis');
SELECT lcheck('SELECT md5(k), octet_length(k) FROM lk_l ORDER BY k DESC', 'is,ios');
SELECT lcheck('SELECT md5(b) FROM lk_l WHERE b = convert_to(repeat(''0123456789'', 1000), ''UTF8'')', 'is,ios,bis');
SELECT learned_index_check('lk_l_k', true), learned_index_check('lk_l_b', true);

-- Leaf pages that store their keys' common prefix once: a scan rebuilds
-- more key bytes than the page holds (long URLs, each twice; bytea and
-- bpchar alike): index-only scans both ways, a merge join (mark and
-- restore on the inner side), with pending entries and after a merge.
CREATE TABLE px (k text COLLATE "C", b bytea, c char(70) COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO px SELECT u, convert_to(u, 'UTF8'), u
FROM (SELECT 'https://example.com/catalog/products/category-3/item/' || lpad((i % 3000)::text, 5, '0') AS u
      FROM generate_series(1, 6000) i) s;
CREATE INDEX px_k ON px USING learned (k);
CREATE INDEX px_b ON px USING learned (b);
CREATE INDEX px_c ON px USING learned (c);
VACUUM px;
CREATE FUNCTION px_checks() RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
    RETURN NEXT lcheck('SELECT k FROM px WHERE k > ''https://'' ORDER BY k', 'is,ios');
    RETURN NEXT lcheck('SELECT k FROM px WHERE k < ''https://example.com/catalog/products/category-3/item/02000'' ORDER BY k DESC', 'is,ios');
    RETURN NEXT lcheck('SELECT b FROM px WHERE b >= ''https://example.com/catalog/products/category-3/item/01234'' ORDER BY b', 'is,ios');
    RETURN NEXT lcheck('SELECT c FROM px WHERE c BETWEEN ''https://example.com/catalog/products/category-3/item/00500'' AND ''https://example.com/catalog/products/category-3/item/02500'' ORDER BY c DESC', 'is,ios');
    PERFORM set_config('enable_hashjoin', 'off', true);
    PERFORM set_config('enable_nestloop', 'off', true);
    PERFORM set_config('enable_sort', 'off', true);
    RETURN NEXT lcheck('SELECT x.k FROM px x JOIN px y ON x.k = y.k WHERE x.k < ''https://example.com/catalog/products/category-3/item/01500'' ORDER BY x.k', 'is,ios');
    RETURN NEXT lcheck('SELECT x.b FROM px x JOIN px y ON x.b = y.b ORDER BY x.b', 'is,ios');
END $$;
SELECT * FROM px_checks();
SET learned_idx.pending_limit = '100MB';
ALTER INDEX px_k SET (merge_ratio = 1);
ALTER INDEX px_b SET (merge_ratio = 1);
ALTER INDEX px_c SET (merge_ratio = 1);
INSERT INTO px SELECT u, convert_to(u, 'UTF8'), u
FROM (SELECT 'https://example.com/catalog/products/category-3/item/' || lpad((i * 7)::text, 5, '0') || 'x' AS u
      FROM generate_series(1, 800) i) s;
SELECT * FROM px_checks();
SELECT learned_index_merge(i) > 0 AND (SELECT pending_entries FROM learned_index_info(i)) = 0 AS merged,
       learned_index_check(i, true) FROM unnest(ARRAY['px_k', 'px_b', 'px_c']::regclass[]) i;
SELECT * FROM px_checks();
RESET learned_idx.pending_limit;
DROP TABLE px;
DROP FUNCTION px_checks();

-- The operator classes pass amvalidate.
SELECT opc.opcname, amvalidate(opc.oid)
FROM pg_opclass opc JOIN pg_am am ON am.oid = opc.opcmethod
WHERE am.amname = 'learned' AND opc.opcname IN ('text_ops', 'bpchar_ops', 'name_ops', 'bytea_ops', 'numeric_ops')
ORDER BY 1;

DROP TABLE tx, tx_src, txi, txq, lk_b, lk_l;
DROP FUNCTION tx_round(bool), tx_cursor(text), tx_cursors(), tx_fill(int, int), tx_gen(int, int),
              tx_word(), lk_hex(int, int);
DROP COLLATION ci;
