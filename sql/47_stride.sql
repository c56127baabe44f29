-- 47_stride
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Stride pages (format 5): keys of one size are stored after the page's
-- common prefix, without offsets.  A fixed-width by-reference key (uuid,
-- interval, name) gets "packed" segments on stride pages when that holds
-- more entries a page than plain pages (uuid v7: the timestamp is shared);
-- a variable-width index uses a stride page wherever a page's keys have
-- one size (md5 strings, composite keys of fixed-width columns).  Every
-- answer is compared with a sequential scan (lcheck).
--
SET client_min_messages = notice;

-- uuid v7-like keys: a millisecond timestamp, then random-looking bits;
-- NULLs, and a run of 1,500 copies of one key (a page whose keys are all
-- equal has empty suffixes)
CREATE TABLE su (u uuid, v int);
INSERT INTO su SELECT (lpad(to_hex(1767225600000 + i * 3), 12, '0') || '7' ||
        substr(md5(i::text), 1, 3) || '8' || substr(md5(i::text), 4, 15))::uuid, i
    FROM generate_series(1, 60000) i;
INSERT INTO su SELECT NULL, -i FROM generate_series(1, 50) i;
INSERT INTO su SELECT '01930000-0000-7000-8000-000000000001', 100000 + i FROM generate_series(1, 1500) i;
INSERT INTO su VALUES ('00000000-0000-0000-0000-000000000000', -1000),
    ('ffffffff-ffff-ffff-ffff-ffffffffffff', -1001);
-- merge_ratio = 1: no background merge races learned_index_merge below
CREATE INDEX su_l ON su USING learned (u) WITH (merge_ratio = 1);
VACUUM ANALYZE su;
SELECT learned_index_check('su_l', true);
-- packed segments hold more entries a page than the plain capacity (the
-- first, whose one page mixes the all-zero key with the run of copies, too:
-- it holds fewer entries than its P); after the merge below, plain and
-- packed segments serve one index
SELECT count(*) FILTER (WHERE s.items_per_page > i.items_per_page) AS packed,
       count(*) AS segments
FROM learned_index_segments('su_l') s, learned_index_info('su_l') i
WHERE s.first_key IS NOT NULL;
SELECT lcheck('SELECT u, v FROM su WHERE u = ''01930000-0000-7000-8000-000000000001''', 'is,bis');
SELECT lcheck('SELECT count(*) FROM su WHERE u = ''01930000-0000-7000-8000-000000000001''', 'is,ios,bis');
SELECT lcheck('SELECT u FROM su WHERE u > ''019b76dc-0000-0000-0000-000000000000'' ORDER BY u LIMIT 20', 'is,ios');
SELECT lcheck('SELECT u FROM su WHERE u < ''019b76dc-0000-0000-0000-000000000000'' ORDER BY u DESC LIMIT 20', 'is,ios');
SELECT lcheck('SELECT u, v FROM su WHERE u BETWEEN ''019b76dc-b000-0000-0000-000000000000'' AND ''019b76dd-0000-0000-0000-000000000000''', 'is,bis');
SELECT lcheck('SELECT u FROM su WHERE u IS NULL OR u <= ''00000000-0000-0000-0000-000000000000''', 'is,ios,bis');
SELECT lcheck('SELECT u FROM su WHERE u >= ''ffffffff-ffff-ffff-ffff-ffffffffffff'' ORDER BY u DESC', 'is,ios');
SELECT lcheck('SELECT u, v FROM su WHERE u = ANY(ARRAY(SELECT u FROM su WHERE v % 997 = 0))', 'is,bis');
-- every key, both directions
SELECT lcheck('SELECT u, v FROM su ORDER BY u, v', 'is');
SELECT lcheck('SELECT u FROM su ORDER BY u DESC NULLS LAST', 'is,ios');
-- absent keys next to present ones
SELECT lcheck('SELECT v FROM su WHERE u = ''019b76dc-0003-7000-8000-000000000000''', 'is,bis');

-- pending entries, a merge (rewrites packed segments), deletes and VACUUM
-- (dead bits on stride pages), then the same checks
INSERT INTO su SELECT (lpad(to_hex(1767225600000 + i * 3 + 1), 12, '0') || '7' ||
        substr(md5(i::text), 1, 3) || '9' || substr(md5(i::text), 4, 15))::uuid, i
    FROM generate_series(1, 3000) i;
SELECT lcheck('SELECT u, v FROM su WHERE u BETWEEN ''019b76dc-b000-0000-0000-000000000000'' AND ''019b76dd-0000-0000-0000-000000000000''', 'is,bis');
SELECT learned_index_merge('su_l');
DELETE FROM su WHERE v % 5 = 0;
VACUUM su;
SELECT learned_index_check('su_l', true);
SELECT count(*) FILTER (WHERE s.items_per_page > i.items_per_page) AS packed,
       count(*) AS segments
FROM learned_index_segments('su_l') s, learned_index_info('su_l') i
WHERE s.first_key IS NOT NULL;
SELECT lcheck('SELECT u, v FROM su ORDER BY u, v', 'is');
SELECT lcheck('SELECT u FROM su WHERE u > ''019b76dc-0000-0000-0000-000000000000'' ORDER BY u DESC', 'is,ios');
SELECT lcheck('SELECT count(*) FROM su WHERE u = ''01930000-0000-7000-8000-000000000001''', 'is,ios,bis');

-- random uuids share about one byte a page: still packed (15 of 16 bytes)
CREATE TABLE su4 AS SELECT md5(i::text)::uuid AS u, i AS v FROM generate_series(1, 20000) i;
CREATE INDEX su4_l ON su4 USING learned (u);
VACUUM ANALYZE su4;
SELECT learned_index_check('su4_l', true);
SELECT bool_and(s.items_per_page > i.items_per_page) AS all_packed
FROM learned_index_segments('su4_l') s, learned_index_info('su4_l') i
WHERE s.first_key IS NOT NULL;
SELECT lcheck('SELECT u, v FROM su4 WHERE u < ''10000000-0000-0000-0000-000000000000'' ORDER BY u', 'is');
SELECT lcheck('SELECT v FROM su4 WHERE u = ANY(ARRAY(SELECT u FROM su4 WHERE v % 101 = 0))', 'is,bis');

-- interval and name: packed only where it pays; answers either way
CREATE TABLE sin (i interval, n name);
INSERT INTO sin SELECT CASE WHEN g % 50 = 0 THEN NULL ELSE make_interval(0, g % 7, 0, g % 3, 0, 0, g) END,
    'relation_' || lpad((g % 3000)::text, 6, '0')
FROM generate_series(1, 8000) g;
CREATE INDEX sin_i ON sin USING learned (i);
CREATE INDEX sin_n ON sin USING learned (n);
VACUUM ANALYZE sin;
SELECT learned_index_check(x, true) FROM unnest(ARRAY['sin_i', 'sin_n']::regclass[]) x;
SELECT bool_and(s.items_per_page > i.items_per_page) AS name_packed
FROM learned_index_segments('sin_n') s, learned_index_info('sin_n') i;
SELECT lcheck('SELECT i FROM sin WHERE i BETWEEN ''1 day'' AND ''1 mon 2 days'' ORDER BY i', 'is,ios');
SELECT lcheck('SELECT n FROM sin WHERE n >= ''relation_002990'' ORDER BY n DESC', 'is,ios');
SELECT lcheck('SELECT count(*) FROM sin WHERE n = ''relation_000042''', 'is,ios,bis');

-- md5 strings: all keys of one size, so a text index's pages are stride
-- pages (about 226 entries a page, against 209 with offsets); then 33-byte
-- keys (stride pages too), then keys of mixed sizes (offset pages)
CREATE TABLE st (s text COLLATE "C", v int);
INSERT INTO st SELECT CASE WHEN i <= 10000 THEN md5(i::text)
    WHEN i <= 15000 THEN 'y' || md5(i::text)
    ELSE 'z' || substr(md5(i::text), 1, i % 20) END, i
FROM generate_series(1, 20000) i;
INSERT INTO st SELECT '', -1 UNION ALL SELECT NULL, -2;
CREATE INDEX st_l ON st USING learned (s);
VACUUM ANALYZE st;
SELECT learned_index_check('st_l', true);
SELECT segment, items_per_page, entries FROM learned_index_segments('st_l') ORDER BY segment;
SELECT lcheck('SELECT s, v FROM st WHERE s = ANY(ARRAY(SELECT s FROM st WHERE v % 211 = 0))', 'is,bis');
SELECT lcheck('SELECT s FROM st WHERE s > ''f'' ORDER BY s', 'is,ios');
SELECT lcheck('SELECT s FROM st WHERE s < ''1'' ORDER BY s DESC', 'is,ios');
SELECT lcheck('SELECT s, v FROM st WHERE s BETWEEN ''y0'' AND ''y1'' OR s >= ''z'' ORDER BY s, v', 'is');

-- Scans compare keys as bytes where the type does (text under "C", bytea,
-- packed uuid): the bound against a page's prefix first, then against the
-- suffixes.  Bounds that stop inside the prefix, equal it, run past it, are
-- empty, or sort before and after every key; strict and non-strict sides;
-- compressed keys and bounds (compared the usual way); a join's outer
-- values as bounds.
CREATE TABLE sb (s text COLLATE "C", b bytea, v int);
INSERT INTO sb SELECT 'https://example.org/' || (i % 50) || '/item/' || lpad(i::text, 6, '0'),
    decode(lpad(to_hex(i % 300), 4, '0') || '00' || md5(i::text), 'hex'), i
FROM generate_series(1, 12000) i;
INSERT INTO sb VALUES ('', '\x', -1), ('https://example.org/', '\x00', -2),
    (repeat('https://example.org/long/', 400), decode(repeat('ab', 3000), 'hex'), -3), (NULL, NULL, -4);
CREATE INDEX sb_s ON sb USING learned (s);
CREATE INDEX sb_b ON sb USING learned (b);
VACUUM ANALYZE sb;
SELECT learned_index_check(x, true) FROM unnest(ARRAY['sb_s', 'sb_b']::regclass[]) x;
CREATE TABLE sb_probe (s text COLLATE "C", b bytea);
INSERT INTO sb_probe SELECT s, b FROM sb WHERE v % 97 = 0 OR v < 0;
INSERT INTO sb_probe VALUES ('https://example.org/1', '\x0001'), ('https://exa', '\x01'),
    ('https://example.org/1/item/', '\x012b'), ('z', '\xff'), ('', '\x');
ANALYZE sb_probe;
SELECT x AS bound, lcheck(format('SELECT s FROM sb WHERE s %s %L ORDER BY s', op, x), 'is,ios')
FROM unnest(ARRAY['', 'h', 'https://exa', 'https://example.org/', 'https://example.org/1',
                  'https://example.org/1/item/', 'https://example.org/1/item/000051',
                  'https://example.org/1/item/0000510', 'https://example.org/49/item/011999z', 'z']) x,
     unnest(ARRAY['<', '<=', '=', '>=', '>']) op
WHERE lcheck(format('SELECT s FROM sb WHERE s %s %L ORDER BY s', op, x), 'is,ios') !~ 'is:ok ios:ok'
   OR x = 'https://example.org/1' AND op = '>=';
SELECT lcheck('SELECT s FROM sb WHERE s > ''https://example.org/2'' ORDER BY s DESC LIMIT 30', 'is,ios');
SELECT lcheck('SELECT s FROM sb WHERE s = repeat(''https://example.org/long/'', 400)', 'is,ios,bis');
SELECT lcheck('SELECT b FROM sb WHERE b >= ''\x0001'' AND b < ''\x0002'' ORDER BY b', 'is,ios');
SELECT lcheck('SELECT b FROM sb WHERE b <= ''\x00'' ORDER BY b DESC', 'is,ios');
SELECT lcheck('SELECT b FROM sb WHERE b = decode(repeat(''ab'', 3000), ''hex'')', 'is,bis');
SELECT lcheck('SELECT count(*) FROM sb_probe p JOIN sb ON sb.s = p.s', 'is');
SELECT lcheck('SELECT count(*) FROM sb_probe p JOIN sb ON sb.b = p.b', 'is');
SELECT lcheck('SELECT count(*) FROM su4 p JOIN su4 q ON q.u = p.u WHERE p.v % 7 = 0', 'is');

DROP TABLE su, su4, sin, st, sb, sb_probe;
