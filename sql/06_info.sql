-- 06_info
--
-- learned_index_info() and learned_index_segments(): the figures must agree
-- with the table and with each other.  Only stable columns or boolean
-- checks are printed.
--

-- linfo(index): the coherence checks that hold for any learned index.
CREATE FUNCTION linfo(idx regclass) RETURNS TABLE(check_name text, ok bool)
LANGUAGE plpgsql AS $$
DECLARE
    i record;
    nsegrows int;
    keytype text;
BEGIN
    SELECT * INTO i FROM learned_index_info(idx);
    keytype := (SELECT format_type(a.atttypid, NULL) FROM pg_index x
                JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
                WHERE x.indexrelid = idx);
    check_name := 'no NULL figures';
    ok := i.segments IS NOT NULL AND i.pieces IS NOT NULL AND i.entries IS NOT NULL
          AND i.null_entries IS NOT NULL AND i.pending_entries IS NOT NULL
          AND i.dead_entries IS NOT NULL AND i.leaf_pages IS NOT NULL
          AND i.total_pages IS NOT NULL AND i.error_bound IS NOT NULL
          AND i.items_per_page IS NOT NULL AND i.mode IS NOT NULL
          AND i.generation IS NOT NULL;
    RETURN NEXT;
    check_name := 'no negative figures';
    ok := LEAST(i.segments, i.pieces, i.model_bytes, i.zonemap_bytes, i.directory_pages,
                i.leaf_pages, i.null_pages, i.entries, i.dead_entries, i.null_entries,
                i.pending_entries, i.pending_pages, i.total_pages, i.max_error) >= 0
          AND i.mean_error >= 0;
    RETURN NEXT;
    check_name := 'total_pages = relation size';
    ok := i.total_pages = pg_relation_size(idx) / current_setting('block_size')::int;
    RETURN NEXT;
    check_name := 'total_pages covers meta, directory, leaf, null and pending pages';
    ok := i.total_pages >= 1 + i.directory_pages + i.leaf_pages + i.null_pages + i.pending_pages;
    RETURN NEXT;
    check_name := 'leaf pages dense (all full but the last of each segment)';
    ok := i.items_per_page > 0
          AND (SELECT coalesce(bool_and(s.items_per_page > 0
                                        AND s.pages = ceil(s.entries::numeric / s.items_per_page)
                                        AND (s.compressed OR s.items_per_page = i.items_per_page)), true)
               FROM learned_index_segments(idx) s WHERE s.kind IS DISTINCT FROM 'nulls');
    RETURN NEXT;
    check_name := 'compressed pages are those of compressed segments';
    ok := i.compression IN ('on', 'off')
          AND i.compressed_pages = (SELECT coalesce(sum(s.pages) FILTER (WHERE s.compressed), 0)
                                    FROM learned_index_segments(idx) s)
          AND (i.leaf_pages = 0) = (i.mean_items_per_page IS NULL)
          AND (i.leaf_pages = 0 OR i.mean_items_per_page = i.entries::float8 / i.leaf_pages);
    RETURN NEXT;
    check_name := 'null pages hold the NULL entries';
    ok := (i.null_entries = 0) = (i.null_pages = 0);
    RETURN NEXT;
    check_name := 'pending pages hold the pending entries';
    ok := (i.pending_entries = 0 OR i.pending_pages > 0);
    RETURN NEXT;
    check_name := 'segments and pieces';
    ok := (i.entries = 0 AND i.segments = 0 AND i.pieces = 0 AND i.leaf_pages = 0)
          OR (i.entries > 0 AND i.segments >= 1 AND i.directory_pages >= 1
              AND i.pieces >= (SELECT count(*) FROM learned_index_segments(idx) s
                               WHERE s.kind = 'model')
              AND NOT EXISTS (SELECT FROM learned_index_segments(idx) s
                              WHERE s.kind = 'zonemap' AND s.pieces <> 0));
    RETURN NEXT;
    check_name := 'mean_error <= max_error <= error_bound';
    ok := i.mean_error <= i.max_error AND i.max_error <= i.error_bound;
    RETURN NEXT;
    check_name := 'dead entries are static entries';
    ok := i.dead_entries <= i.entries + i.null_entries;
    RETURN NEXT;
    check_name := 'error_bound within 1..65536';
    ok := i.error_bound BETWEEN 1 AND 65536;
    RETURN NEXT;
    check_name := 'learned_index_check passes (heapallindexed)';
    ok := learned_index_check(idx, true);
    RETURN NEXT;
    -- learned_index_segments agrees with learned_index_info
    SELECT count(*) INTO nsegrows FROM learned_index_segments(idx) s
    WHERE s.kind IS DISTINCT FROM 'nulls';
    check_name := 'one segments row per key segment';
    ok := nsegrows = i.segments;
    RETURN NEXT;
    check_name := 'segment entries, pages and pieces add up';
    ok := (SELECT coalesce(sum(s.entries), 0) = i.entries
                  AND coalesce(sum(s.pages), 0) = i.leaf_pages
                  AND coalesce(sum(s.pieces), 0) = i.pieces
                  AND coalesce(max(s.max_error), 0) <= i.max_error
           FROM learned_index_segments(idx) s WHERE s.kind IS DISTINCT FROM 'nulls');
    RETURN NEXT;
    check_name := 'segments numbered 0.. in key order, keys ordered';
    EXECUTE format($q$
        SELECT coalesce(bool_and(seg = rn - 1
                                 AND fk <= lk
                                 AND (plk IS NULL OR plk <= fk)
                                 AND start_block >= 1
                                 AND start_block + pages <= %s), true)
        FROM (SELECT s.segment AS seg, s.first_key::%s AS fk, s.last_key::%s AS lk,
                     lag(s.last_key::%s) OVER (ORDER BY s.segment) AS plk,
                     s.start_block, s.pages,
                     row_number() OVER (ORDER BY s.segment) AS rn
              FROM learned_index_segments(%L) s
              WHERE s.kind IS DISTINCT FROM 'nulls') x$q$,
        i.total_pages, keytype, keytype, keytype, idx) INTO ok;
    RETURN NEXT;
END $$;

-- lcoherent(index): "coherent", or the names of the failed checks.
CREATE FUNCTION lcoherent(idx regclass) RETURNS text
LANGUAGE sql AS $$
    SELECT coalesce('FAILED: ' || string_agg(check_name, '; ') FILTER (WHERE ok IS NOT TRUE),
                    'coherent')
    FROM linfo(idx)
$$;

-- lfig(index): the counts of entries, and the frozen error bound.
CREATE FUNCTION lfig(idx regclass,
    OUT entries int8, OUT null_entries int8, OUT pending_entries int8,
    OUT dead_entries int8, OUT error_bound int4)
LANGUAGE sql AS $$
    SELECT entries, null_entries, pending_entries, dead_entries, error_bound
    FROM learned_index_info(idx)
$$;

-- A freshly built index.
CREATE TABLE i8 (id serial, k int8);
INSERT INTO i8 (k) SELECT i * 3 FROM generate_series(1, 30000) i;
INSERT INTO i8 (k) SELECT 42 FROM generate_series(1, 1000);
INSERT INTO i8 (k) SELECT NULL FROM generate_series(1, 123);
CREATE INDEX i8_k ON i8 USING learned (k) WITH (merge_ratio = 1);
SELECT * FROM lfig('i8_k');
SELECT (SELECT entries FROM lfig('i8_k')) = (SELECT count(k) FROM i8) AS entries_match,
       (SELECT null_entries FROM lfig('i8_k')) = (SELECT count(*) - count(k) FROM i8) AS nulls_match;
SELECT * FROM linfo('i8_k');
SELECT pending_pages, dead_entries, error_bound, mode IS NOT NULL AS has_mode
FROM learned_index_info('i8_k');
SELECT min(first_key::int8) = 3 AS first_ok, max(last_key::int8) = 90000 AS last_ok
FROM learned_index_segments('i8_k') WHERE kind IS DISTINCT FROM 'nulls';

-- Inserts go to the pending area (merge_ratio = 1: no merge below 100%).
SELECT generation AS gen0 FROM learned_index_info('i8_k') \gset
INSERT INTO i8 (k) SELECT i * 3 + 1 FROM generate_series(1, 500) i;
INSERT INTO i8 (k) VALUES (NULL), (NULL), (42), (-1), (9223372036854775807);
SELECT * FROM lfig('i8_k');
SELECT lcoherent('i8_k');
SELECT entries + null_entries + pending_entries = (SELECT count(*) FROM i8) AS all_rows_indexed,
       generation >= :gen0 AS generation_monotone
FROM learned_index_info('i8_k');

-- DELETE and VACUUM: dead entries leave the live count right.
DELETE FROM i8 WHERE id % 10 = 0;
VACUUM i8;
SELECT lcoherent('i8_k');
SELECT entries + null_entries + pending_entries - dead_entries = (SELECT count(*) FROM i8)
       AS live_rows_indexed,
       generation >= :gen0 AS generation_monotone
FROM learned_index_info('i8_k');
SELECT generation AS gen1 FROM learned_index_info('i8_k') \gset

-- More inserts after the vacuum.
INSERT INTO i8 (k) SELECT i * 3 + 2 FROM generate_series(1, 300) i;
SELECT lcoherent('i8_k');
SELECT entries + null_entries + pending_entries - dead_entries = (SELECT count(*) FROM i8)
       AS live_rows_indexed,
       generation >= :gen1 AS generation_monotone
FROM learned_index_info('i8_k');

-- REINDEX rebuilds everything into the static stage.
REINDEX INDEX i8_k;
SELECT (SELECT entries FROM lfig('i8_k')) = (SELECT count(k) FROM i8) AS entries_match,
       (SELECT null_entries FROM lfig('i8_k')) = (SELECT count(*) - count(k) FROM i8) AS nulls_match,
       pending_entries, dead_entries
FROM lfig('i8_k');
SELECT lcoherent('i8_k');

-- error_bound is frozen at build: ALTER INDEX alone does not change it.
ALTER INDEX i8_k SET (error_bound = 4);
SELECT error_bound FROM learned_index_info('i8_k');
REINDEX INDEX i8_k;
SELECT error_bound FROM learned_index_info('i8_k');
SELECT lcoherent('i8_k');
-- A smaller bound never needs fewer pieces.
CREATE INDEX i8_k64 ON i8 USING learned (k) WITH (error_bound = 64);
CREATE INDEX i8_k1 ON i8 USING learned (k) WITH (error_bound = 1);
SELECT a.pieces <= b.pieces AS eb64_le_eb4, b.pieces <= c.pieces AS eb4_le_eb1,
       a.error_bound, b.error_bound, c.error_bound,
       a.entries = b.entries AND b.entries = c.entries AS same_entries
FROM learned_index_info('i8_k64') a, learned_index_info('i8_k') b,
     learned_index_info('i8_k1') c;
SELECT lcoherent('i8_k1');
SELECT lcoherent('i8_k64');
DROP INDEX i8_k1, i8_k64;

-- Every key type, key width and items per page.
CREATE TABLE alltypes (a int2, b int4, c int8, d float4, e float8, f date,
                       g timestamp, h timestamptz, i oid);
INSERT INTO alltypes
SELECT x, x * 1000, x::int8 * 1000000000, x / 7.0, x / 7.0,
       '2000-01-01'::date + x, '2000-01-01'::timestamp + x * interval '1 min',
       '2000-01-01'::timestamptz + x * interval '1 s', x
FROM generate_series(-5000, 5000) x;
INSERT INTO alltypes SELECT NULL FROM generate_series(1, 10);
CREATE INDEX at_a ON alltypes USING learned (a);
CREATE INDEX at_b ON alltypes USING learned (b);
CREATE INDEX at_c ON alltypes USING learned (c);
CREATE INDEX at_d ON alltypes USING learned (d);
CREATE INDEX at_e ON alltypes USING learned (e);
CREATE INDEX at_f ON alltypes USING learned (f);
CREATE INDEX at_g ON alltypes USING learned (g);
CREATE INDEX at_h ON alltypes USING learned (h);
CREATE INDEX at_i ON alltypes USING learned (i);
SELECT c.relname, l.entries, l.null_entries, l.pending_entries, l.dead_entries,
       lcoherent(c.oid) AS coherent
FROM pg_class c, learned_index_info(c.oid) l
WHERE c.relname LIKE 'at\__' ORDER BY c.relname;
SELECT a.items_per_page > b.items_per_page AS int2_gt_int4,
       b.items_per_page > c.items_per_page AS int4_gt_int8,
       b.items_per_page = d.items_per_page AND b.items_per_page = f.items_per_page
           AND b.items_per_page = i.items_per_page AS four_byte_keys_alike,
       c.items_per_page = e.items_per_page AND c.items_per_page = g.items_per_page
           AND c.items_per_page = h.items_per_page AS eight_byte_keys_alike
FROM learned_index_info('at_a') a, learned_index_info('at_b') b,
     learned_index_info('at_c') c, learned_index_info('at_d') d,
     learned_index_info('at_e') e, learned_index_info('at_f') f,
     learned_index_info('at_g') g, learned_index_info('at_h') h,
     learned_index_info('at_i') i;
-- first_key/last_key print in the key type's own text form.
SELECT c.relname, s.first_key, x.last_key
FROM pg_class c,
     LATERAL (SELECT first_key FROM learned_index_segments(c.oid)
              WHERE kind IS DISTINCT FROM 'nulls' ORDER BY segment LIMIT 1) s,
     LATERAL (SELECT last_key FROM learned_index_segments(c.oid)
              WHERE kind IS DISTINCT FROM 'nulls' ORDER BY segment DESC LIMIT 1) x
WHERE c.relname LIKE 'at\__' ORDER BY c.relname;

-- Empty, all-NULL, and one-row indexes.
CREATE TABLE small (k int4);
CREATE INDEX small_k ON small USING learned (k);
SELECT * FROM lfig('small_k');
SELECT lcoherent('small_k');
SELECT count(*) FROM learned_index_segments('small_k') WHERE kind IS DISTINCT FROM 'nulls';
INSERT INTO small VALUES (7);
SELECT * FROM lfig('small_k');
REINDEX INDEX small_k;
SELECT * FROM lfig('small_k');
SELECT segment, first_key, last_key, entries FROM learned_index_segments('small_k')
WHERE kind IS DISTINCT FROM 'nulls';
SELECT lcoherent('small_k');
TRUNCATE small;
INSERT INTO small SELECT NULL FROM generate_series(1, 5000);
REINDEX INDEX small_k;
SELECT * FROM lfig('small_k');
SELECT lcoherent('small_k');
TRUNCATE small;
SELECT * FROM lfig('small_k');
SELECT lcoherent('small_k');

DROP TABLE i8, alltypes, small;
DROP FUNCTION lcoherent(regclass);
DROP FUNCTION linfo(regclass);
DROP FUNCTION lfig(regclass);
