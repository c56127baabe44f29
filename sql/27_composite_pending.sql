-- 27_composite_pending
--
-- The pending copy of an index with an inexact key map (composite keys,
-- lossy types) is ordered by the keys' monotone images, and the comparator
-- only among equal images; its membership filter lets a lookup that names
-- every key column skip the copy's binary searches.  Both rest on every
-- image in the copy coming from the key map the lookup uses: a merge into
-- an empty index plans a new map, and a backend that still holds the old
-- one must not mix the two in one copy (nor keep the old one once the
-- merge's invalidation reaches it).
--
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET jit = off;

-- TPC-C-like keys: (warehouse, district, order).  The pending entries lie
-- inside the build's ranges, past them (new orders, new warehouses), and
-- before them.
CREATE TABLE co (w int4, d int4, o int8, v int);
INSERT INTO co SELECT 1 + g % 4, 1 + (g / 4) % 10, 1 + g / 40, 0 FROM generate_series(0, 11999) g;
CREATE INDEX co_wdo ON co USING learned (w, d, o) WITH (merge_ratio = 1, pending_limit = 100000);
INSERT INTO co SELECT 1 + g % 4, 1 + (g / 4) % 10, 301 + g / 40, 1 FROM generate_series(0, 3999) g;
INSERT INTO co SELECT 1 + g % 4, 1 + (g / 4) % 10, 1 + (g * 7) % 300, 2 FROM generate_series(0, 499) g;
INSERT INTO co SELECT 5 + g % 2, 1 + g % 12, g, 3 FROM generate_series(0, 299) g;
INSERT INTO co SELECT -(g % 3), g % 11, -g, 4 FROM generate_series(0, 99) g;
SELECT pending_entries FROM learned_index_info('co_wdo');
-- each probe's count through the index, against counts a sequential scan
-- made once (the + 0 keeps the index out)
CREATE TABLE co_n AS SELECT w + 0 AS w, d + 0 AS d, o + 0 AS o, count(*) AS n FROM co GROUP BY 1, 2, 3;
CREATE TABLE co_p AS
    SELECT (i % 9 - 2)::int4 AS x, ((i / 9) % 13)::int4 AS y, ((i * 31) % 450 - 20)::int8 AS z
    FROM generate_series(0, 3999) i;
SELECT count(*) FROM co_p p LEFT JOIN co_n ON co_n.w = p.x AND co_n.d = p.y AND co_n.o = p.z
WHERE (SELECT count(*) FROM co WHERE w = p.x AND d = p.y AND o = p.z) <> coalesce(n, 0);
-- an int8 bound on an int4 column, an int4 one on the int8 column
SELECT count(*) FROM co_p p LEFT JOIN co_n ON co_n.w = p.x AND co_n.d = p.y AND co_n.o = p.z
WHERE (SELECT count(*) FROM co WHERE w = p.x::int8 AND d = p.y AND o = p.z::int4) <> coalesce(n, 0);
-- a prefix of the key: no single image, no filter
SELECT count(*) FROM (SELECT DISTINCT x, y FROM co_p) p
    LEFT JOIN (SELECT w, d, sum(n) AS n FROM co_n GROUP BY 1, 2) s ON s.w = p.x AND s.d = p.y
WHERE (SELECT count(*) FROM co WHERE w = p.x AND d = p.y) <> coalesce(n, 0);
-- an ordered scan merges the static stream with the copy's two runs
SELECT array_agg(o ORDER BY o) = (SELECT array_agg(o ORDER BY o) FROM co WHERE w + 0 = 2 AND d + 0 = 3)
FROM (SELECT o FROM co WHERE w = 2 AND d = 3 ORDER BY w, d, o) s;
SELECT array_agg(o) = (SELECT array_agg(o ORDER BY o DESC) FROM co WHERE w + 0 = 3 AND d + 0 = 7)
FROM (SELECT o FROM co WHERE w = 3 AND d = 7 ORDER BY w DESC, d DESC, o DESC) s;
-- ANY() on the last column: one interval per value
SELECT count(*) FROM co WHERE w = 1 AND d = 1 AND o = ANY (ARRAY[1, 2, 301, 302, 999, -5]::int8[]);
SELECT count(*) FROM co WHERE w + 0 = 1 AND d + 0 = 1 AND o + 0 = ANY (ARRAY[1, 2, 301, 302, 999, -5]::int8[]);
SELECT learned_index_check('co_wdo');

-- a descending column and NULLs: lookups of NULL keys cannot use the filter
CREATE TABLE cn (a int4, b text, c int4);
INSERT INTO cn SELECT g % 50, 'k' || (g % 37), CASE WHEN g % 11 = 0 THEN NULL ELSE g END FROM generate_series(1, 5000) g;
CREATE INDEX cn_abc ON cn USING learned (a, b COLLATE "C" DESC, c NULLS FIRST) WITH (merge_ratio = 1, pending_limit = 100000);
INSERT INTO cn SELECT g % 60, 'k' || (g % 41), CASE WHEN g % 7 = 0 THEN NULL ELSE g END FROM generate_series(5001, 7000) g;
CREATE TABLE cn_n AS SELECT a + 0 AS a, b || '' AS b, c + 0 AS c, count(*) AS n FROM cn GROUP BY 1, 2, 3;
SELECT count(*) FROM (
    SELECT g % 60 AS a, 'k' || (g % 41) AS b, g AS c FROM generate_series(1, 7100) g
) p LEFT JOIN cn_n USING (a, b, c)
WHERE (SELECT count(*) FROM cn WHERE cn.a = p.a AND cn.b = p.b AND cn.c = p.c) <> coalesce(n, 0);
SELECT count(*) FROM (SELECT DISTINCT a, b FROM cn_n) p
    LEFT JOIN (SELECT a, b, n FROM cn_n WHERE c IS NULL) s USING (a, b)
WHERE (SELECT count(*) FROM cn WHERE cn.a = p.a AND cn.b = p.b AND cn.c IS NULL) <> coalesce(n, 0);
SELECT learned_index_check('cn_abc');

-- a lossy single column (uuid): its image is the first 8 bytes
CREATE TABLE cu (u uuid);
INSERT INTO cu SELECT md5(g::text)::uuid FROM generate_series(1, 4000) g;
CREATE INDEX cu_u ON cu USING learned (u) WITH (merge_ratio = 1, pending_limit = 100000);
-- same first 8 bytes as a static key, different rest
INSERT INTO cu SELECT overlay(md5(g::text) placing 'ffff' from 29)::uuid FROM generate_series(1, 4000, 3) g;
INSERT INTO cu SELECT md5((g + 100000)::text)::uuid FROM generate_series(1, 1000) g;
CREATE TABLE cu_n AS SELECT u::text AS t, count(*) AS n FROM cu GROUP BY 1;
SELECT count(*) FROM (
    SELECT md5(g::text)::uuid AS u FROM generate_series(1, 6000) g
    UNION ALL
    SELECT overlay(md5(g::text) placing 'ffff' from 29)::uuid FROM generate_series(1, 6000) g
) p
    LEFT JOIN cu_n ON cu_n.t = p.u::text
WHERE (SELECT count(*) FROM cu WHERE cu.u = p.u) <> coalesce(n, 0);

-- A single string column: its bounds get the key map's image for the
-- copy (pending_string_image), which narrows the copy's search and lets
-- the filter rule out a point lookup.  Under "C", the database's default,
-- a deterministic ICU collation, a case-insensitive one, and bpchar.  The
-- build's keys share a long prefix, which the map skips; pending keys lie
-- inside it, below it and above it.
CREATE COLLATION ci27 (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE ct (c text COLLATE "C", d text, u text COLLATE "und-x-icu", n text COLLATE ci27, b char(12));
INSERT INTO ct SELECT s, s, s, s, right(s, 6)
FROM (SELECT 'https://www.example.com/item/' || lpad(g::text, 6, '0') AS s FROM generate_series(0, 5999, 2) g) x;
CREATE INDEX ct_c ON ct USING learned (c) WITH (merge_ratio = 1, pending_limit = 100000);
CREATE INDEX ct_d ON ct USING learned (d) WITH (merge_ratio = 1, pending_limit = 100000);
CREATE INDEX ct_u ON ct USING learned (u) WITH (merge_ratio = 1, pending_limit = 100000);
CREATE INDEX ct_n ON ct USING learned (n) WITH (merge_ratio = 1, pending_limit = 100000);
CREATE INDEX ct_b ON ct USING learned (b) WITH (merge_ratio = 1, pending_limit = 100000);
INSERT INTO ct SELECT s, s, s, s, right(s, 6)
FROM (SELECT 'https://www.example.com/item/' || lpad(g::text, 6, '0') AS s FROM generate_series(1, 5999, 4) g) x;
INSERT INTO ct SELECT s, s, s, s, left(s, 6)
FROM (SELECT 'a' || g AS s FROM generate_series(1, 300) g
      UNION ALL SELECT 'zz' || g FROM generate_series(1, 300) g
      UNION ALL SELECT upper('https://www.example.com/item/' || lpad(g::text, 6, '0')) FROM generate_series(0, 5999, 7) g) x;
-- fewer pending entries than static ones: no merge (merge_ratio = 1)
SELECT pending_entries FROM learned_index_info('ct_c');
CREATE TABLE ct_p AS
    SELECT 'https://www.example.com/item/' || lpad(g::text, 6, '0') AS s FROM generate_series(0, 6100) g
    UNION ALL SELECT upper('https://www.example.com/item/' || lpad(g::text, 6, '0')) FROM generate_series(0, 6100, 5) g
    UNION ALL SELECT 'a' || g FROM generate_series(0, 310) g
    UNION ALL SELECT 'zz' || g FROM generate_series(0, 310) g
    UNION ALL SELECT x FROM unnest(ARRAY['', 'https://www.example.com/item/', 'https://www.example.com/item', '~']) x;
-- reference counts by a sequential scan: exact bytes, lower case (ci27
-- ignores case), and bpchar without its padding
CREATE TABLE ct_x AS SELECT c || '' AS s, count(*) AS n FROM ct GROUP BY 1;
CREATE TABLE ct_l AS SELECT lower(c || '') AS s, count(*) AS n FROM ct GROUP BY 1;
CREATE TABLE ct_r AS SELECT b::text || '' AS s, count(*) AS n FROM ct GROUP BY 1;
SELECT count(*) FROM ct_p p LEFT JOIN ct_x USING (s)
WHERE (SELECT count(*) FROM ct WHERE c = p.s) <> coalesce(n, 0)
   OR (SELECT count(*) FROM ct WHERE d = p.s) <> coalesce(n, 0)
   OR (SELECT count(*) FROM ct WHERE u = p.s) <> coalesce(n, 0);
SELECT count(*) FROM ct_p p LEFT JOIN ct_l ON ct_l.s = lower(p.s)
WHERE (SELECT count(*) FROM ct WHERE ct.n = p.s) <> coalesce(ct_l.n, 0);
SELECT count(*) FROM ct_p p LEFT JOIN ct_r ON ct_r.s = right(p.s, 6)
WHERE (SELECT count(*) FROM ct WHERE b = (right(p.s, 6) || '   ')::char(12)) <> coalesce(n, 0);
-- ranges: the image narrows the start of the copy's run
SELECT count(*) FROM (SELECT s FROM ct_p WHERE length(s) > 20 AND right(s, 2) = '37') p
WHERE (SELECT count(*) FROM ct WHERE c >= p.s AND c < p.s || '5') <>
      (SELECT count(*) FROM ct WHERE c || '' >= p.s AND c || '' < p.s || '5')
   OR (SELECT count(*) FROM ct WHERE u > p.s AND u <= p.s || '5') <>
      (SELECT count(*) FROM ct WHERE u || '' > p.s AND u || '' <= p.s || '5');
SELECT learned_index_check('ct_c'), learned_index_check('ct_u'), learned_index_check('ct_n');

-- A stale key map.  An index created empty has a first map that knows no
-- ranges and gives almost every key the same image.  A merge into the
-- empty index plans a real map and sends a relcache invalidation at its
-- commit; a backend processes it only when it next takes a lock it does
-- not hold yet.  Here another backend (dblink) merges while this one is
-- inside a transaction holding its locks: this backend reloads its copy
-- with the old map, then, after COMMIT, loads the new map.  Entries read
-- under the two maps must not share one copy.
CREATE EXTENSION dblink;
SELECT dblink_connect('other', format('dbname=%s port=%s host=%s', current_database(),
                      current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
-- the same call once before: nothing in the transaction below may take a
-- lock this backend does not hold yet, or look up a catalog it has not
-- cached (either would make it process the invalidation early)
SELECT n FROM dblink('other', 'SELECT 0::int8') AS t(n int8);
-- (inserts start no merge: the one merge is the other backend's)
SET learned_idx.auto_merge = off;
CREATE TABLE sm (a int4, b int4);
CREATE INDEX sm_ab ON sm USING learned (a, b) WITH (merge_ratio = 1, pending_limit = 100000);
CREATE TABLE st (k text COLLATE "C");
CREATE INDEX st_k ON st USING learned (k) WITH (merge_ratio = 1, pending_limit = 100000);
BEGIN;
INSERT INTO sm SELECT g % 100, g FROM generate_series(1, 2000) g;
INSERT INTO sm SELECT g % 100, g FROM generate_series(10001, 200000) g;
INSERT INTO st SELECT 'user-' || lpad(g::text, 5, '0') FROM generate_series(1, 2000) g;
SELECT count(*) FROM sm WHERE a = 5 AND b = 105;
SELECT count(*) FROM st WHERE k = 'user-00105';
COMMIT;
BEGIN;
SELECT count(*) FROM sm WHERE a = 5 AND b = 105;
SELECT count(*) FROM st WHERE k = 'user-00105';
INSERT INTO sm SELECT g % 100, g FROM generate_series(2001, 2010) g;
INSERT INTO st SELECT 'user-' || lpad(g::text, 5, '0') FROM generate_series(2001, 2010) g;
SELECT n FROM dblink('other', 'SELECT learned_index_merge(''sm_ab'') + learned_index_merge(''st_k'')') AS t(n int8);
INSERT INTO sm SELECT g % 100, g FROM generate_series(2011, 3000) g;
INSERT INTO st SELECT 'user-' || lpad(g::text, 5, '0') FROM generate_series(2011, 3000) g;
SELECT count(*) FROM sm WHERE a = 5 AND b = 2005;
SELECT count(*) FROM st WHERE k = 'user-02005';
COMMIT;
INSERT INTO sm SELECT g % 100, g FROM generate_series(3001, 4000) g;
INSERT INTO st SELECT 'user-' || lpad(g::text, 5, '0') FROM generate_series(3001, 4000) g;
SELECT count(*) FROM generate_series(1, 4100) g
WHERE (SELECT count(*) FROM sm WHERE a = g % 100 AND b = g) <> CASE WHEN g <= 4000 THEN 1 ELSE 0 END;
SELECT count(*) FROM generate_series(1, 200000, 97) g
WHERE (SELECT count(*) FROM sm WHERE a = g % 100 AND b = g) <> CASE WHEN g <= 4000 OR g > 10000 THEN 1 ELSE 0 END;
SELECT array_agg(b ORDER BY b) = (SELECT array_agg(b ORDER BY b) FROM sm WHERE a + 0 = 42)
FROM (SELECT b FROM sm WHERE a = 42 ORDER BY a, b) s;
SELECT count(*) FROM sm WHERE a >= 10 AND a < 20 AND b > 1500 AND b < 20000;
SELECT count(*) FROM sm WHERE a + 0 >= 10 AND a + 0 < 20 AND b + 0 > 1500 AND b + 0 < 20000;
SELECT count(*) FROM generate_series(1, 4100) g
WHERE (SELECT count(*) FROM st WHERE k = 'user-' || lpad(g::text, 5, '0')) <> CASE WHEN g <= 4000 THEN 1 ELSE 0 END;
SELECT learned_index_check('sm_ab'), learned_index_check('st_k');
-- the merging backend's map reached this one (merge.c invalidates the
-- relcache entry): a lookup reads a few buffers, where the empty index's
-- map would have it gallop over the segment (run once first: the first
-- execution also reads the new directory)
SELECT count(*) FROM sm WHERE a = 7 AND b = 150007;
-- (lexplain: sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all
SELECT lexplain('SELECT count(*) FROM sm WHERE a = 7 AND b = 150007',
                'ANALYZE, BUFFERS, TIMING OFF, SUMMARY OFF');

RESET learned_idx.auto_merge;
DROP TABLE co, co_n, co_p, cn, cn_n, cu, cu_n, ct, ct_p, ct_x, ct_l, ct_r, sm, st;
DROP COLLATION ci27;
SELECT dblink_disconnect('other');
DROP EXTENSION dblink;
