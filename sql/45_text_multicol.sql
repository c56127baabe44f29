-- 45_text_multicol
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- Composite keys with variable-width columns: (int, text), (text, int),
-- (text DESC NULLS FIRST, text) under two collations, (text, int DESC,
-- varchar NULLS FIRST), (numeric, bytea), and INCLUDE (text, ...) with
-- index-only scans.  Every combination of conditions the issue names: a
-- prefix of the columns, all of them, a suffix only, a skipped column, IN
-- on the second column, ranges on the last column, NULL tests, cross-type
-- values (int8 and int2 vs int4, name and text vs varchar); ordered scans
-- both ways with mixed ASC/DESC and NULLS FIRST.  Each answer is compared
-- with a sequential scan (lcheck) after the build, with pending entries,
-- after merges and after DELETE + VACUUM.
--
SET client_min_messages = notice;
SELECT setseed(0.45);

CREATE TABLE tm (id int, a int4, t text COLLATE "C", u text COLLATE "und-x-icu",
                 v varchar(20) COLLATE "C", n numeric, b bytea, w text COLLATE "C")
    WITH (autovacuum_enabled = off);	-- its VACUUM would merge the pending lists
CREATE FUNCTION tm_fill(lo int, hi int) RETURNS void LANGUAGE sql AS $$
INSERT INTO tm SELECT i,
    CASE WHEN random() < 0.02 THEN NULL ELSE floor(random() * 40)::int END,
    -- few distinct values sharing a long prefix, some differing after byte 8
    CASE WHEN random() < 0.02 THEN NULL WHEN random() < 0.02 THEN ''
         WHEN i % 3 = 0 THEN 'https://example.org/a/very/long/shared/path/' || floor(random() * 13)
         WHEN i % 3 = 1 THEN 'abcdefgh' || (ARRAY['', ' ', 'A', 'a', 'é', '~'])[1 + floor(random() * 6)::int]
         ELSE (ARRAY['Ré', 'ré', 'Z', 'zz', 'ä', '日本'])[1 + floor(random() * 6)::int] END,
    CASE WHEN random() < 0.02 THEN NULL
         ELSE (ARRAY['a', 'A', 'b', 'B', 'é', 'E', 'ka', 'KA', 'Ka', ''])[1 + floor(random() * 10)::int] ||
              floor(random() * 4) END,
    CASE WHEN random() < 0.02 THEN NULL ELSE 'v' || lpad(floor(random() * 90)::text, 3, '0') END,
    CASE WHEN random() < 0.02 THEN NULL WHEN random() < 0.02 THEN 'NaN'
         ELSE round(floor(random() * 20 - 10)::numeric / 4, 1 + i % 2) END,
    CASE WHEN random() < 0.02 THEN NULL ELSE decode(lpad(to_hex(floor(random() * 300)::int), 4, '0'), 'hex') END,
    CASE WHEN random() < 0.2 THEN NULL ELSE 'payload ' || repeat(md5(i::text), 1 + i % 3) END
FROM generate_series(lo, hi) i $$;
SELECT tm_fill(1, 5000);
ANALYZE tm;

CREATE INDEX tm_at ON tm USING learned (a, t);
CREATE INDEX tm_ta ON tm USING learned (t, a);
CREATE INDEX tm_tu ON tm USING learned (t DESC NULLS FIRST, u);
CREATE INDEX tm_uav ON tm USING learned (u, a DESC, v NULLS FIRST);
CREATE INDEX tm_nb ON tm USING learned (n DESC, b);
CREATE INDEX tm_inc ON tm USING learned (a, v) INCLUDE (t, w, n);
CREATE TABLE tmi (idx text);
INSERT INTO tmi VALUES ('tm_at'), ('tm_ta'), ('tm_tu'), ('tm_uav'), ('tm_nb'), ('tm_inc');
SELECT idx, learned_index_check(idx::regclass, true) FROM tmi ORDER BY idx;

CREATE TABLE tmq (n serial, idx text, q text);
INSERT INTO tmq (idx, q) VALUES
  -- (a, t)
  ('tm_at', 'SELECT id FROM tm WHERE a = 7'),
  ('tm_at', 'SELECT id FROM tm WHERE a = 7 AND t = ''abcdefgh'''),
  ('tm_at', 'SELECT id FROM tm WHERE a = 7 AND t = ''abcdefgh '''),
  ('tm_at', 'SELECT id FROM tm WHERE a = 14::int8 AND t = ''https://example.org/a/very/long/shared/path/3''::name'),
  ('tm_at', 'SELECT id FROM tm WHERE t = ''zz'''),
  ('tm_at', 'SELECT id FROM tm WHERE a IN (3, 7, 39) AND t > ''abcdefgh'' AND t < ''abcdefgi'''),
  ('tm_at', 'SELECT id FROM tm WHERE a = 21 AND t IN ('''', ''Ré'', ''abcdefghé'', ''https://example.org/a/very/long/shared/path/12'')'),
  ('tm_at', 'SELECT id FROM tm WHERE a BETWEEN 10 AND 12 AND t >= ''https://example.org/a/very/long/shared/path/1'''),
  ('tm_at', 'SELECT id FROM tm WHERE a = 7 AND t IS NULL'),
  ('tm_at', 'SELECT id FROM tm WHERE a IS NULL AND t = '''''),
  ('tm_at', 'SELECT a, t FROM tm WHERE a = 7 ORDER BY a, t'),
  ('tm_at', 'SELECT a, t FROM tm WHERE a IN (5, 6) ORDER BY a DESC, t DESC'),
  ('tm_at', 'SELECT a, t FROM tm WHERE a > 35 OR a IS NULL ORDER BY a, t'),
  ('tm_at', 'SELECT a, t FROM tm WHERE a = 9 AND t < ''abcdefgh~'' ORDER BY a DESC, t DESC'),
  -- (t, a)
  ('tm_ta', 'SELECT id FROM tm WHERE t = ''abcdefgh'''),
  ('tm_ta', 'SELECT id FROM tm WHERE t = ''abcdefgh'' AND a = 7'),
  ('tm_ta', 'SELECT id FROM tm WHERE t = ''abcdefgh'' AND a IN (1, 7, 8, 100)'),
  ('tm_ta', 'SELECT id FROM tm WHERE t = ''abcdefgha'' AND a > 30'),
  ('tm_ta', 'SELECT id FROM tm WHERE t = ''https://example.org/a/very/long/shared/path/7'' AND a BETWEEN 5 AND 25'),
  ('tm_ta', 'SELECT id FROM tm WHERE t IN (''Ré'', ''ré'', ''ä'') AND a IN (2, 4, 6, 8)'),
  ('tm_ta', 'SELECT id FROM tm WHERE t > ''abcdefgh'' AND t < ''abcdefgi'' AND a < 5'),
  ('tm_ta', 'SELECT id FROM tm WHERE a = 7'),
  ('tm_ta', 'SELECT id FROM tm WHERE t = ''zz'' AND a = 3::int2'),
  ('tm_ta', 'SELECT id FROM tm WHERE t = '''' AND a IS NOT NULL'),
  ('tm_ta', 'SELECT id FROM tm WHERE t IS NULL AND a IS NULL'),
  ('tm_ta', 'SELECT id FROM tm WHERE t LIKE ''https://example.org/a/very/long/shared/path/1%'' AND a = 9'),
  ('tm_ta', 'SELECT t, a FROM tm WHERE t = ''abcdefgh '' ORDER BY t, a'),
  ('tm_ta', 'SELECT t, a FROM tm WHERE t >= ''https://'' ORDER BY t DESC, a DESC'),
  ('tm_ta', 'SELECT t, a FROM tm WHERE t IN (''Z'', ''zz'', ''日本'') AND a > 10 ORDER BY t, a'),
  ('tm_ta', 'SELECT t, a FROM tm ORDER BY t DESC, a DESC'),
  -- (t DESC NULLS FIRST, u): two collations
  ('tm_tu', 'SELECT id FROM tm WHERE t = ''ré'''),
  ('tm_tu', 'SELECT id FROM tm WHERE t = ''ré'' AND u = ''A1'''),
  ('tm_tu', 'SELECT id FROM tm WHERE t = ''ré'' AND u BETWEEN ''a'' AND ''b'''),
  ('tm_tu', 'SELECT id FROM tm WHERE t = ''Ré'' AND u IN (''a1'', ''A1'', ''é2'', ''E2'', ''0'')'),
  ('tm_tu', 'SELECT id FROM tm WHERE t IS NULL AND u < ''b'''),
  ('tm_tu', 'SELECT id FROM tm WHERE u = ''KA3'''),
  ('tm_tu', 'SELECT id FROM tm WHERE t < ''abcdefgh~'' AND t > ''abcdefgh'' AND u >= ''Ka'''),
  ('tm_tu', 'SELECT t, u FROM tm WHERE t = ''abcdefgha'' ORDER BY t DESC NULLS FIRST, u'),
  ('tm_tu', 'SELECT t, u FROM tm WHERE t > ''abcdefgh'' OR t IS NULL ORDER BY t DESC NULLS FIRST, u'),
  ('tm_tu', 'SELECT t, u FROM tm WHERE t > ''abcdefgh'' OR t IS NULL ORDER BY t NULLS LAST, u DESC'),
  ('tm_tu', 'SELECT t, u FROM tm ORDER BY t NULLS LAST, u DESC'),
  -- (u, a DESC, v NULLS FIRST): skipping a column, suffixes, IN in the middle
  ('tm_uav', 'SELECT id FROM tm WHERE u = ''ka1'''),
  ('tm_uav', 'SELECT id FROM tm WHERE u = ''ka1'' AND v >= ''v013'' AND v < ''v030'''),
  ('tm_uav', 'SELECT id FROM tm WHERE u = ''ka1'' AND a = 7 AND v >= ''v050'''),
  ('tm_uav', 'SELECT id FROM tm WHERE u = ''é2'' AND a IN (2, 9, 16, 23) AND v < ''v040'''),
  ('tm_uav', 'SELECT id FROM tm WHERE u IN (''a0'', ''A0'', ''b2'') AND a > 20 AND v BETWEEN ''v010'' AND ''v060'''),
  ('tm_uav', 'SELECT id FROM tm WHERE a = 7 AND v = ''v013'''),
  ('tm_uav', 'SELECT id FROM tm WHERE v IS NULL'),
  ('tm_uav', 'SELECT id FROM tm WHERE u = ''3'' AND a IS NULL'),
  ('tm_uav', 'SELECT id FROM tm WHERE u = ''B1'' AND a = 7 AND v > ''v013''::text'),
  ('tm_uav', 'SELECT id FROM tm WHERE u > ''A'' AND u < ''Ka'' AND v IS NOT NULL'),
  ('tm_uav', 'SELECT u, a, v FROM tm WHERE u = ''a1'' ORDER BY u, a DESC, v NULLS FIRST'),
  ('tm_uav', 'SELECT u, a, v FROM tm WHERE u = ''a1'' ORDER BY u DESC, a, v DESC NULLS LAST'),
  ('tm_uav', 'SELECT u, a, v FROM tm WHERE u IN (''B2'', ''b2'') AND a < 10 ORDER BY u, a DESC, v NULLS FIRST'),
  ('tm_uav', 'SELECT u, a, v FROM tm WHERE u >= ''KA'' ORDER BY u DESC, a, v DESC NULLS LAST'),
  -- (n DESC, b): numeric and bytea
  ('tm_nb', 'SELECT id FROM tm WHERE n = 1.5'),
  ('tm_nb', 'SELECT id FROM tm WHERE n = 1.50 AND b = ''\x0021'''),
  ('tm_nb', 'SELECT id FROM tm WHERE n = ''NaN'' AND b > ''\x0100'''),
  ('tm_nb', 'SELECT id FROM tm WHERE n IN (-2.5, 0, ''NaN'') AND b IN (''\x0000'', ''\x001f'', ''\x0112'')'),
  ('tm_nb', 'SELECT id FROM tm WHERE n < 0 AND b IS NULL'),
  ('tm_nb', 'SELECT id FROM tm WHERE b = ''\x0021'''),
  ('tm_nb', 'SELECT trim_scale(n), b FROM tm WHERE n > 1 ORDER BY n DESC, b'),
  ('tm_nb', 'SELECT trim_scale(n), b FROM tm WHERE n > 1 ORDER BY n, b DESC'),
  -- (a, v) INCLUDE (t, w, n): index-only scans return the included text
  ('tm_inc', 'SELECT a, v, t, w FROM tm WHERE a = 7'),
  ('tm_inc', 'SELECT a, v, t, w, trim_scale(n) FROM tm WHERE a = 7 AND v = ''v013'''),
  ('tm_inc', 'SELECT t, w FROM tm WHERE a IN (1, 2, 3) AND v > ''v080'''),
  ('tm_inc', 'SELECT v, t FROM tm WHERE a IS NULL'),
  ('tm_inc', 'SELECT a, v, t FROM tm WHERE a = 7 AND t = ''abcdefgh'''),
  -- (the included columns of equal keys may come in any order: aggregated)
  ('tm_inc', 'SELECT a, v, string_agg(w, '','' ORDER BY w) FROM tm WHERE a BETWEEN 30 AND 33 GROUP BY a, v ORDER BY a, v'),
  ('tm_inc', 'SELECT a, v, string_agg(t, '','' ORDER BY t) FROM tm WHERE a BETWEEN 30 AND 33 GROUP BY a, v ORDER BY a DESC, v DESC');

-- Each query with only its index (the others dropped in a subtransaction
-- that rolls back).
CREATE FUNCTION tm_round(show_all bool) RETURNS TABLE (n int, q text, result text)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    other text;
BEGIN
    FOR r IN SELECT * FROM tmq ORDER BY tmq.n LOOP
        BEGIN
            FOR other IN SELECT idx FROM tmi WHERE idx <> r.idx LOOP
                EXECUTE format('DROP INDEX %I', other);
            END LOOP;
            n := r.n;
            q := r.q;
            result := lcheck(r.q, CASE WHEN r.q ~ 'ORDER BY' THEN 'is,ios'
                                       WHEN r.q ~ '^SELECT id' THEN 'is,bis'
                                       ELSE 'is,ios,bis' END);
            RAISE EXCEPTION 'tm_round_rollback';
        EXCEPTION WHEN raise_exception THEN
            IF SQLERRM <> 'tm_round_rollback' THEN
                RAISE;
            END IF;
        END;
        IF show_all OR result ~ 'WRONG|noidx' THEN
            RETURN NEXT;
        END IF;
    END LOOP;
END $$;

-- Round 1: after the build.
VACUUM tm;
SELECT n, result, q FROM tm_round(true);

-- Round 2: pending entries (no merge: merge_ratio = 1 waits until the list
-- outgrows the static entries), updates of text
-- columns, NULLs, values outside the build's ranges.
SET learned_idx.pending_limit = '100MB';
DO $$ DECLARE i text; BEGIN
    FOR i IN SELECT idx FROM tmi LOOP EXECUTE format('ALTER INDEX %I SET (merge_ratio = 1)', i); END LOOP;
END $$;
SELECT tm_fill(10001, 11500);
INSERT INTO tm VALUES (11501, -5, '', '', '', '-Infinity', '\x', ''), (11502, 99, '~~~', 'zzz', 'zzz', 'Infinity', '\xffff', NULL),
                      (11503, NULL, NULL, NULL, NULL, NULL, NULL, NULL), (11504, 7, 'abcdefgh', 'A1', 'v013', 1.500, '\x0021', 'x');
UPDATE tm SET t = t || '!', u = upper(u), w = w || 'updated' WHERE id % 100 = 3;
SELECT idx, pending_entries > 0 AS has_pending FROM tmi, learned_index_info(idx::regclass) ORDER BY idx;
SELECT n, result, q FROM tm_round(false);

-- (the entries were still pending)
SELECT idx, pending_entries > 0 AS has_pending FROM tmi, learned_index_info(idx::regclass) ORDER BY idx;

-- Round 3: more pending entries, then merges.
SELECT tm_fill(12001, 12300);
SELECT idx, learned_index_merge(idx::regclass) > 0
           AND (SELECT pending_entries FROM learned_index_info(idx::regclass)) = 0 AS merged
FROM tmi ORDER BY idx;
SELECT idx, learned_index_check(idx::regclass, true) FROM tmi ORDER BY idx;
SELECT n, result, q FROM tm_round(false);

-- Round 4: DELETE + VACUUM, inserts.
DELETE FROM tm WHERE id % 3 = 0 OR t = 'abcdefgha';
VACUUM tm;
SELECT tm_fill(20001, 20500);
VACUUM tm;
SELECT idx, learned_index_check(idx::regclass, true) FROM tmi ORDER BY idx;
SELECT n, result, q FROM tm_round(false);
RESET learned_idx.pending_limit;

DROP TABLE tm, tmi, tmq;
DROP FUNCTION tm_round(bool), tm_fill(int, int);
