-- 48_libc_collation
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

--
-- A libc collation other than C (glibc's en_US.UTF-8, which the test
-- command generates: scripts/common.sh, li_ensure_locale).  Its model
-- images come from strxfrm(), which PostgreSQL does not trust to agree
-- with strcoll(): the build and every merge check each pair of
-- neighbours they write with the comparator (LearnedCheckOrder).  en_US
-- orders case and accents after the letters and skips punctuation and
-- blanks at the first level, so its order differs from C's everywhere.
-- Every answer is compared with a sequential scan (lcheck).
--
SET client_min_messages = notice;
CREATE COLLATION lc_en (provider = libc, locale = 'en_US.utf8');
-- the collation really is not C
SELECT 'a' < 'B' COLLATE lc_en AS en_a_before_b, 'a' < 'B' COLLATE "C" AS c_a_before_b,
       'co-op' < 'coop' COLLATE lc_en AS en_hyphen, 'resume' < 'résumé' COLLATE lc_en AS en_accent;

CREATE TABLE lt (k text COLLATE lc_en, v int);
INSERT INTO lt SELECT CASE WHEN i % 53 = 0 THEN NULL
    ELSE (ARRAY['co-op', 'coop', 'Coop', 'co op', 'résumé', 'resume', 'Resume', 'RÉSUMÉ', 'a', 'A', 'á',
                '', ' ', '-', '10', '9', 'zz', 'Zz', 'straße', 'strasse'])[1 + i % 20] ||
         CASE WHEN i % 3 = 0 THEN '' ELSE ' ' || substr(md5(i::text), 1, 1 + i % 7) END END, i
FROM generate_series(1, 20000) i;
CREATE INDEX lt_k ON lt USING learned (k);
CREATE INDEX lt_kv ON lt USING learned (k, v DESC);
VACUUM ANALYZE lt;
SELECT learned_index_check(x, true) FROM unnest(ARRAY['lt_k', 'lt_kv']::regclass[]) x;
SELECT lcheck('SELECT k FROM lt WHERE k = ''coop''', 'is,ios,bis');
SELECT lcheck('SELECT count(*) FROM lt WHERE k = ''Resume''', 'is,ios,bis');
SELECT lcheck('SELECT k FROM lt WHERE k >= ''co-op'' AND k < ''resume 2'' ORDER BY k', 'is,ios');
SELECT lcheck('SELECT k FROM lt WHERE k > ''STRASSE'' ORDER BY k DESC', 'is,ios');
SELECT lcheck('SELECT k FROM lt WHERE k < ''1'' OR k IS NULL', 'is,ios,bis');
SELECT lcheck('SELECT k, v FROM lt WHERE k IN (''a'', ''á 3'', ''zz'', ''Zz 0'') ORDER BY k, v DESC', 'is,ios');
SELECT lcheck('SELECT k, v FROM lt WHERE k = ''straße'' AND v > 100 ORDER BY k, v DESC', 'is,ios');
SELECT lcheck('SELECT k FROM lt ORDER BY k', 'is,ios');

-- pending entries (merge_ratio = 1: no background merge), then merges:
-- the merge places them by the comparator and checks the order it writes
ALTER INDEX lt_k SET (merge_ratio = 1);
ALTER INDEX lt_kv SET (merge_ratio = 1);
INSERT INTO lt SELECT (ARRAY['Co-Op', 'cOOp', 'résume', 'a-', 'Á', '9 ', '  x'])[1 + i % 7] ||
    substr(md5(i::text), 1, i % 5), -i
FROM generate_series(1, 3000) i;
SELECT lcheck('SELECT k, v FROM lt WHERE k BETWEEN ''co'' AND ''cp'' ORDER BY k, v DESC', 'is,ios');
SELECT learned_index_merge('lt_k') > 0 AS merged_k, learned_index_merge('lt_kv') > 0 AS merged_kv;
DELETE FROM lt WHERE v % 4 = 0;
VACUUM lt;
SELECT learned_index_check(x, true) FROM unnest(ARRAY['lt_k', 'lt_kv']::regclass[]) x;
SELECT lcheck('SELECT k FROM lt ORDER BY k DESC', 'is,ios');
SELECT lcheck('SELECT k, v FROM lt WHERE k BETWEEN ''co'' AND ''cp'' ORDER BY k, v DESC', 'is,ios');
SELECT lcheck('SELECT count(*) FROM lt WHERE k >= ''Á'' AND k <= ''b''', 'is,ios,bis');

DROP TABLE lt;
DROP COLLATION lc_en;
