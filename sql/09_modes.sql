-- 09_modes
--
-- Segment kinds (reloption mode = auto | model | zonemap): every mode must
-- answer like a sequential scan, report its kind in learned_index_segments,
-- and the LeCo-compressed directory must be smaller than the format-1 one
-- on a large index.
SELECT setseed(0.0909);

-- lprobe(table, n): n random lookups, ranges and ORDER BY/LIMIT queries,
-- each run with the index (bitmap and index scans) and with a seq scan;
-- returns the number of queries whose answers differ.
CREATE FUNCTION lprobe(tab text, n int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
    lo int8;
    hi int8;
    q text;
    a text;
    b text;
    wrong int := 0;
    mn int8;
    mx int8;
BEGIN
    EXECUTE format('SELECT min(k), max(k) FROM %I', tab) INTO mn, mx;
    FOR i IN 1 .. n LOOP
        IF random() < 0.5 THEN
            EXECUTE format('SELECT k FROM %I OFFSET floor(random() * (SELECT count(*) FROM %I)) LIMIT 1', tab, tab) INTO lo;
        ELSE
            lo := greatest(least(mn::numeric - 1 + floor(random() * (mx::numeric - mn::numeric + 3)),
                                 9223372036854775807), -9223372036854775808)::int8;
        END IF;
        hi := least(lo::numeric + floor(random() * 1000) * (CASE WHEN random() < 0.5 THEN 1 ELSE 1000000 END),
                    9223372036854775807)::int8;
        q := (ARRAY[
            format('SELECT count(*), sum(hashint8(k)) FROM %I WHERE k = %s', tab, lo),
            format('SELECT count(*), sum(hashint8(k)) FROM %I WHERE k >= %s AND k < %s', tab, lo, hi),
            format('SELECT count(*), sum(hashint8(k)) FROM %I WHERE k > %s AND k <= %s', tab, lo, hi),
            format('SELECT array_agg(k) FROM (SELECT k FROM %I WHERE k >= %s ORDER BY k LIMIT 5) s', tab, lo),
            format('SELECT array_agg(k) FROM (SELECT k FROM %I WHERE k < %s ORDER BY k DESC LIMIT 5) s', tab, lo)
            ])[1 + (i % 5)];
        SET LOCAL enable_seqscan = on;
        SET LOCAL enable_indexscan = off;
        SET LOCAL enable_bitmapscan = off;
        SET LOCAL enable_indexonlyscan = off;
        EXECUTE q INTO a;
        SET LOCAL enable_seqscan = off;
        SET LOCAL enable_indexscan = on;
        PERFORM set_config('enable_bitmapscan', CASE WHEN i % 2 = 0 THEN 'on' ELSE 'off' END, true);
        PERFORM set_config('enable_indexonlyscan', CASE WHEN i % 3 = 0 THEN 'on' ELSE 'off' END, true);
        EXECUTE q INTO b;
        IF a IS DISTINCT FROM b THEN
            wrong := wrong + 1;
            RAISE NOTICE 'wrong answer: % (seq scan %, index %)', q, a, b;
        END IF;
    END LOOP;
    RESET enable_seqscan;
    RESET enable_indexscan;
    RESET enable_bitmapscan;
    RESET enable_indexonlyscan;
    RETURN wrong;
END $$;

-- Data sets: easy (sequential with gaps), hard (uniform 64-bit), duplicate
-- runs longer than a page, and extremes.
CREATE TABLE m_seq (k int8) WITH (autovacuum_enabled = off);
INSERT INTO m_seq SELECT i * 3 + (i / 1000) * 77 FROM generate_series(1, 200000) i;
CREATE TABLE m_uni (k int8) WITH (autovacuum_enabled = off);
INSERT INTO m_uni SELECT (floor(random() * 4294967296)::int8 << 31) + floor(random() * 2147483648)::int8
FROM generate_series(1, 100000);
CREATE TABLE m_log (k int8) WITH (autovacuum_enabled = off);
INSERT INTO m_log SELECT (sum(floor(exp(3 * sqrt(-2 * ln(random())) * cos(2 * pi() * random()))))
                          OVER (ORDER BY g))::int8
FROM generate_series(1, 100000) g;
CREATE TABLE m_dup (k int8) WITH (autovacuum_enabled = off);
INSERT INTO m_dup SELECT (i / 1500) * 10 FROM generate_series(1, 60000) i;
INSERT INTO m_dup VALUES (-9223372036854775808), (9223372036854775807), (NULL);
CREATE TABLE m_one (k int8);
INSERT INTO m_one VALUES (42);

-- one copy of each data set per mode (the planner must use that index)
DO $$
DECLARE
    t text;
    m text;
    opts text;
BEGIN
    FOREACH t IN ARRAY ARRAY['m_seq', 'm_uni', 'm_log', 'm_dup', 'm_one'] LOOP
        FOREACH m IN ARRAY ARRAY['a', 'm', 'z'] LOOP
            -- plain pages: the directory figures below are about the modes
            -- (compressed pages make far fewer segments and zones)
            opts := CASE m WHEN 'a' THEN 'mode = auto' WHEN 'm' THEN 'mode = model'
                           ELSE 'mode = zonemap' END || ', compression = off';
            IF t IN ('m_uni', 'm_log') AND m <> 'z' THEN
                opts := opts || ', error_bound = 1';
            END IF;
            EXECUTE format('CREATE TABLE %I WITH (autovacuum_enabled = off) AS SELECT k FROM %I',
                           t || '_' || m, t);
            EXECUTE format('CREATE INDEX %I ON %I USING learned (k) WITH (%s)',
                           t || '_' || m || '_k', t || '_' || m, opts);
            EXECUTE format('ANALYZE %I', t || '_' || m);
        END LOOP;
    END LOOP;
END $$;

-- kinds: model and zonemap modes build only their kind; auto picks the
-- model on the easy data and the zone map on the hard data with a tight
-- error bound (the model needs many pieces there).
SELECT c.relname, i.mode,
       string_agg(DISTINCT s.kind, ',' ORDER BY s.kind) AS kinds,
       i.pieces > 0 AS has_pieces,
       i.zonemap_bytes_uncompressed > 0 AS has_zones
FROM pg_class c, learned_index_info(c.oid) i, learned_index_segments(c.oid) s
WHERE c.relname LIKE 'm\____\___k' AND s.kind <> 'nulls'
GROUP BY c.relname, i.mode, i.pieces, i.zonemap_bytes_uncompressed ORDER BY c.relname;

-- the index check verifies model windows and zone-map groups
SELECT c.relname, learned_index_check(c.oid, true)
FROM pg_class c WHERE c.relname LIKE 'm\____\___k' ORDER BY c.relname;

-- answers equal a sequential scan, for every mode
SELECT c.relname, lprobe(c.relname, CASE WHEN c.relname LIKE 'm_one%' THEN 10 ELSE 50 END) AS wrong
FROM pg_class c WHERE c.relname LIKE 'm\____\__' ORDER BY c.relname;
SET enable_seqscan = off;
SELECT count(*) FROM m_dup_z WHERE k IS NULL;
SELECT k FROM m_dup_z WHERE k <= -9223372036854775808 OR k >= 9223372036854775807 ORDER BY k;
RESET enable_seqscan;

-- the compressed directory is smaller than format 1 where there is much
-- to compress (it has a fixed cost of about 1 kB: 13 LeCo column headers);
-- zone maps are stored in less than 8 bytes a separator
SELECT c.relname,
       i.model_bytes + i.zonemap_bytes < i.model_bytes_uncompressed + i.zonemap_bytes_uncompressed AS smaller,
       i.zonemap_bytes_uncompressed = 0 OR i.zonemap_bytes < i.zonemap_bytes_uncompressed AS zones_smaller
FROM pg_class c, learned_index_info(c.oid) i
WHERE c.relname IN ('m_log_m_k', 'm_log_z_k', 'm_uni_a_k', 'm_uni_z_k', 'm_seq_z_k') ORDER BY c.relname;

-- a merge builds the kind the reloption says now; old segments keep theirs
ALTER INDEX m_seq_m_k SET (mode = zonemap);
INSERT INTO m_seq_m SELECT 10000000 + i FROM generate_series(1, 3000) i;
INSERT INTO m_seq_m SELECT 333 + i * 3 FROM generate_series(1, 1000) i;
-- (the merge worker may have merged first: this waits for it, merges the rest)
SELECT learned_index_merge('m_seq_m_k') >= 0 AS merged;
SELECT string_agg(DISTINCT kind, ',' ORDER BY kind) AS kinds FROM learned_index_segments('m_seq_m_k');
SELECT learned_index_check('m_seq_m_k', true);
SELECT lprobe('m_seq_m', 40) AS wrong;
ALTER INDEX m_seq_m_k SET (mode = bogus);

DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT relname FROM pg_class WHERE (relname LIKE 'm\____' OR relname LIKE 'm\____\__') AND relkind = 'r' LOOP
        EXECUTE format('DROP TABLE %I', t);
    END LOOP;
END $$;
DROP FUNCTION lprobe(text, int);
