-- A composite index whose keys outgrow its key map.  The map packs the
-- columns into one image over the ranges seen at build, with half a range
-- of room above each.  A key past a range clamps: every order appended
-- past the room of a district shares one image, and lookups of those
-- orders must search with the comparator.  A merge that brings many such
-- keys plans the map anew over all keys (merge.c, replan_due) and rewrites
-- every segment under it.  Every answer is checked against a sequential
-- scan; the merges are explicit (no worker: the pending list stays below
-- the static stage's size, merge_ratio = 1).
-- the helpers of sql/include/lcheck.sql (query_blocks)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE TABLE rp (w int4, d int4, o int4);
INSERT INTO rp SELECT w, d, o FROM generate_series(1, 2) w,
    generate_series(1, 10) d, generate_series(1, 1000) o;
-- (its ON CONFLICT warning, given before PostgreSQL 18, is 61_traps')
SET client_min_messages = error;
CREATE UNIQUE INDEX rp_k ON rp USING learned (w, d, o)
    WITH (merge_ratio = 1, pending_limit = 1000000);
RESET client_min_messages;
-- every seventh (w, d, o) of the table found exactly once, absent keys
-- not at all, every district's count
CREATE FUNCTION rp_verify() RETURNS text
LANGUAGE sql AS $$
    SELECT format('%s rows, %s wrong lookups, %s wrong absent, %s wrong prefixes',
        (SELECT count(*) FROM rp),
        (SELECT count(*) FROM rp r WHERE r.o % 7 = 0 AND (SELECT count(*) FROM rp x
            WHERE x.w = r.w AND x.d = r.d AND x.o = r.o) <> 1),
        (SELECT count(*) FROM generate_series(1, 2) w, generate_series(1, 10) d,
            (VALUES (0), (99999)) v(o)
         WHERE EXISTS (SELECT 1 FROM rp x WHERE x.w = w AND x.d = d AND x.o = v.o)),
        (SELECT count(*) FROM generate_series(1, 2) w, generate_series(1, 10) d
         WHERE (SELECT count(*) FROM rp x WHERE x.w = w AND x.d = d) <>
               (SELECT count(*) FROM rp x WHERE x.w + 0 = w AND x.d + 0 = d)))
$$;
-- the same keys with a DESC column: growth lies before its range in index order
CREATE TABLE rq (w int4, o int4);
INSERT INTO rq SELECT w, o FROM generate_series(1, 20) w, generate_series(1, 1000) o;
CREATE INDEX rq_k ON rq USING learned (w, o DESC)
    WITH (merge_ratio = 1, pending_limit = 1000000);
ANALYZE rp, rq;
-- rounds of 300 orders per district: o up to 1500 lies inside the room the
-- build left; the round that crosses it re-plans (2,000 of its 6,000
-- entries lie past the range), as does the one that crosses the new room
CREATE TEMP TABLE rp_blocks (round int, blocks int);
DO $$
DECLARE
    r int;
BEGIN
    FOR r IN 0..5 LOOP
        INSERT INTO rp SELECT w, d, o FROM generate_series(1, 2) w,
            generate_series(1, 10) d, generate_series(1001 + r * 300, 1300 + r * 300) o;
        INSERT INTO rq SELECT w, o FROM generate_series(1, 20) w,
            generate_series(1001 + r * 300, 1300 + r * 300) o;
        PERFORM learned_index_merge('rp_k');
        PERFORM learned_index_merge('rq_k');
        -- twice: the first lookup after a merge also reads the new directory
        PERFORM query_blocks(format(
            'SELECT o FROM rp WHERE w = 2 AND d = 7 AND o = %s', 1300 + r * 300 - 17));
        INSERT INTO rp_blocks SELECT r, query_blocks(format(
            'SELECT o FROM rp WHERE w = 2 AND d = 7 AND o = %s', 1300 + r * 300 - 17));
    END LOOP;
END $$;
SELECT rp_verify();
SELECT count(*) FROM rq r WHERE (SELECT count(*) FROM rq x WHERE x.w = r.w AND x.o = r.o) <> 1;
SELECT count(*) FROM generate_series(1, 20) g(w)
WHERE (SELECT array_agg(o) FROM (SELECT o FROM rq WHERE rq.w = g.w ORDER BY w, o DESC) s)
   <> (SELECT array_agg(o ORDER BY o DESC) FROM rq WHERE rq.w + 0 = g.w);
SELECT learned_index_check('rp_k', true), learned_index_check('rq_k', true);
-- ordered scans in both directions across the re-planned stage
SELECT array_agg(o ORDER BY w, d, o) = (SELECT array_agg(o ORDER BY o) FROM rp WHERE w + 0 = 1 AND d + 0 = 3)
FROM rp WHERE w = 1 AND d = 3;
SELECT array_agg(o ORDER BY w DESC, d DESC, o DESC) =
       (SELECT array_agg(o ORDER BY o DESC) FROM rp WHERE w + 0 = 2 AND d + 0 = 10 AND o + 0 > 1200)
FROM rp WHERE w = 2 AND d = 10 AND o > 1200;
-- The newest order of a district is read through a map that knows it: as
-- few buffers as an order inside the build's range.  (Without re-planning,
-- 1,000 orders of each district past o = 1500 would share one image and a
-- lookup would search them.)
SELECT round, blocks <= (SELECT query_blocks('SELECT o FROM rp WHERE w = 2 AND d = 7 AND o = 500'))
    AS as_cheap_as_an_old_order
FROM rp_blocks ORDER BY round;

-- A backend that cached the old map keeps it inside its transaction while
-- another backend (dblink) re-plans: its lookups and its pending copy stay
-- right under the old map and the new directory, and after COMMIT.
CREATE EXTENSION dblink;
SELECT dblink_connect('other', format('dbname=%s port=%s host=%s', current_database(),
                      current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
SELECT n FROM dblink('other', 'SELECT 0::int8') AS t(n int8);
-- (the last re-plan left room up to o = 3750: 13,000 of these lie past it)
INSERT INTO rp SELECT w, d, o FROM generate_series(1, 2) w,
    generate_series(1, 10) d, generate_series(2801, 4400) o;
BEGIN;
SELECT count(*) FROM rp WHERE w = 1 AND d = 2 AND o = 3333;
SELECT n FROM dblink('other', 'SELECT learned_index_merge(''rp_k'')') AS t(n int8);
INSERT INTO rp SELECT w, d, o FROM generate_series(1, 2) w,
    generate_series(1, 10) d, generate_series(4401, 4500) o;
SELECT rp_verify();
COMMIT;
SELECT rp_verify();
SELECT learned_index_check('rp_k', true);
SELECT dblink_disconnect('other');
DROP EXTENSION dblink;

-- A re-planning merge that fails before its flip leaves the old map and
-- the old stage; the next merge re-plans.
INSERT INTO rp SELECT w, d, o FROM generate_series(1, 2) w,
    generate_series(1, 10) d, generate_series(4501, 8000) o;
SET learned_idx.fail_point = 'merge-before-flip';
SELECT learned_index_merge('rp_k');
RESET learned_idx.fail_point;
SELECT rp_verify();
SELECT learned_index_check('rp_k', true);
SELECT learned_index_merge('rp_k');
SELECT rp_verify();
SELECT learned_index_check('rp_k', true);
SELECT query_blocks('SELECT o FROM rp WHERE w = 1 AND d = 9 AND o = 7990') <=
       query_blocks('SELECT o FROM rp WHERE w = 1 AND d = 9 AND o = 500') AS newest_as_cheap;
-- orders below the ranges, too few to re-plan: clamped, and found
INSERT INTO rp SELECT w, d, -o FROM generate_series(1, 2) w,
    generate_series(1, 10) d, generate_series(1, 10) o;
SELECT learned_index_merge('rp_k');
SELECT rp_verify();

DROP TABLE rp, rq;
DROP FUNCTION rp_verify();
RESET enable_seqscan;
RESET enable_bitmapscan;
