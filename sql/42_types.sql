-- 42_types (the self-checking helpers come first; the tests follow them)
-- (dropped first, quietly, so that the output is the same whether this file
-- runs alone or after the others, which leave them behind)
SET client_min_messages = warning;
DROP FUNCTION IF EXISTS lcheck(text, text), lcheck_uses(text, text),
    lcheck_run(text, bool), lcheck_set(text, text, text, text);
RESET client_min_messages;
-- Self-checking helpers (identical in every test file).
--
-- lcheck(query, modes): runs the query once with every index path disabled
-- (the reference, a sequential scan) and once per requested mode, and reports
--   rows=N  is:..  ios:..  bis:..
-- where a mode shows "ok" when its result equals the reference AND its plan
-- contains that scan node on an index of access method "learned", "noidx"
-- when the result is right but the learned index was not used, and "WRONG"
-- (plus a NOTICE with the first difference) when the answer differs.
-- Queries with ORDER BY are compared in order, others as multisets.
-- Modes: is = Index Scan, ios = Index Only Scan, bis = Bitmap Index Scan.
CREATE FUNCTION lcheck_set(seq text, idx text, ios text, bmp text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('enable_seqscan', seq, true);
    PERFORM set_config('enable_indexscan', idx, true);
    PERFORM set_config('enable_indexonlyscan', ios, true);
    PERFORM set_config('enable_bitmapscan', bmp, true);
END $$;

CREATE FUNCTION lcheck_run(q text, ordered bool) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    res text[] := '{}';
BEGIN
    FOR r IN EXECUTE q LOOP
        res := res || r::text;
    END LOOP;
    IF NOT ordered THEN
        res := ARRAY(SELECT x FROM unnest(res) x ORDER BY x COLLATE "C");
    END IF;
    RETURN res;
END $$;

-- Does the plan of q contain node "node" (e.g. 'Index Scan') on a learned index?
CREATE FUNCTION lcheck_uses(q text, node text) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
    ln text;
    m text[];
BEGIN
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        m := regexp_match(ln, '(Bitmap Index Scan|Index Only Scan|Index Scan)(?: Backward)? (?:using|on) ("[^"]+"|\S+)');
        IF m IS NOT NULL AND m[1] = node AND EXISTS (
            SELECT 1 FROM pg_class c JOIN pg_am a ON a.oid = c.relam
            WHERE c.oid = to_regclass(m[2]) AND a.amname = 'learned') THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END $$;

CREATE FUNCTION lcheck(q text, modes text DEFAULT 'is,bis') RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    saved text[] := ARRAY[current_setting('enable_seqscan'),
                          current_setting('enable_indexscan'),
                          current_setting('enable_indexonlyscan'),
                          current_setting('enable_bitmapscan')];
    ordered bool := q ~* '\morder\s+by\M';
    ref text[];
    got text[];
    m text;
    node text;
    out text;
    i int;
BEGIN
    PERFORM lcheck_set('on', 'off', 'off', 'off');
    ref := lcheck_run(q, ordered);
    out := 'rows=' || cardinality(ref);
    FOREACH m IN ARRAY string_to_array(modes, ',') LOOP
        CASE m
            WHEN 'is' THEN
                PERFORM lcheck_set('off', 'on', 'off', 'off');
                node := 'Index Scan';
            WHEN 'ios' THEN
                PERFORM lcheck_set('off', 'on', 'on', 'off');
                node := 'Index Only Scan';
            WHEN 'bis' THEN
                PERFORM lcheck_set('off', 'off', 'off', 'on');
                node := 'Bitmap Index Scan';
            ELSE
                RAISE EXCEPTION 'unknown mode %', m;
        END CASE;
        got := lcheck_run(q, ordered);
        IF got IS DISTINCT FROM ref THEN
            i := 1;
            WHILE i <= greatest(cardinality(got), cardinality(ref))
                  AND got[i] IS NOT DISTINCT FROM ref[i] LOOP
                i := i + 1;
            END LOOP;
            RAISE NOTICE 'WRONG % answer for: %', m, q
                USING DETAIL = format('%s rows vs %s expected; first difference at row %s: got %s, expected %s',
                                      cardinality(got), cardinality(ref), i,
                                      coalesce(got[i], '(none)'), coalesce(ref[i], '(none)'));
            out := out || ' ' || m || ':WRONG';
        ELSIF lcheck_uses(q, node) THEN
            out := out || ' ' || m || ':ok';
        ELSE
            out := out || ' ' || m || ':noidx';
        END IF;
    END LOOP;
    PERFORM lcheck_set(saved[1], saved[2], saved[3], saved[4]);
    RETURN out;
END $$;

--
-- bool, time, uuid and interval keys, alone and in composite keys.  uuid
-- (the first 8 bytes) and interval (the span, clamped to 64 bits) map to
-- the models' 64-bit image lossily: equal images of different keys are
-- ordered by the comparator, which always decides.  interval compares as
-- btree's interval_cmp: '1 month' = '30 days', '1 day' = '24 hours'.
-- Each answer is compared with a sequential scan (lcheck); ordered results
-- print intervals justified, since equal intervals ('6 mons', '180 days')
-- may come in either order.  The planner turns "WHERE bo" and "bo = true"
-- into a boolean qual that only the core boolean opfamilies can index, so
-- those two use no index (noidx), while "bo < true" or "bo IS NULL" do.
--
SET client_min_messages = notice;
SELECT setseed(0.77);

CREATE TABLE ty2 (id int, bo bool, ti time, u uuid, u7 uuid, iv interval);
INSERT INTO ty2 SELECT i,
    CASE WHEN i % 13 = 0 THEN NULL ELSE i % 3 = 0 END,
    CASE WHEN i % 11 = 0 THEN NULL ELSE time '00:00' + (i * 37 % 86400) * interval '1 second' END,
    CASE WHEN i % 17 = 0 THEN NULL ELSE md5(i::text)::uuid END,
    -- UUID v7-like: 48-bit millisecond time first, so nearby keys share their first bytes
    CASE WHEN i % 19 = 0 THEN NULL ELSE
        (lpad(to_hex(1700000000000 + i * 250), 12, '0') || '7' || substr(md5('x' || i), 1, 3) ||
         '8' || substr(md5('y' || i), 1, 15))::uuid END,
    CASE WHEN i % 23 = 0 THEN NULL
         WHEN i % 5 = 0 THEN (i % 7) * interval '1 month'
         WHEN i % 5 = 1 THEN (i % 7) * 30 * interval '1 day'
         WHEN i % 5 = 2 THEN (i % 40) * interval '1 day'
         WHEN i % 5 = 3 THEN (i % 40) * 24 * interval '1 hour'
         ELSE (i % 1000) * interval '1 minute' - interval '3 days' END
FROM generate_series(1, 5000) i;
INSERT INTO ty2 VALUES (5001, false, '00:00', '00000000-0000-0000-0000-000000000000',
                        '00000000-0000-0000-0000-000000000000', '-178000000 years'),
                       (5002, true, '24:00', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
                        'ffffffff-ffff-ffff-ffff-ffffffffffff', '178000000 years'),
                       (5003, NULL, NULL, NULL, NULL, NULL);
-- many uuids sharing their first 8 bytes: equal images, different keys
INSERT INTO ty2 SELECT 6000 + i, NULL, NULL,
    ('12345678-9abc-def0-' || lpad(to_hex(i), 4, '0') || '-' || lpad(to_hex(i * 7919), 12, '0'))::uuid,
    NULL, NULL FROM generate_series(1, 1500) i;
ANALYZE ty2;

CREATE INDEX ty2_bo ON ty2 USING learned (bo);
CREATE INDEX ty2_ti ON ty2 USING learned (ti DESC);
CREATE INDEX ty2_u ON ty2 USING learned (u) WITH (error_bound = 8);
CREATE INDEX ty2_u7 ON ty2 USING learned (u7);
CREATE INDEX ty2_iv ON ty2 USING learned (iv NULLS FIRST);
CREATE INDEX ty2_mix ON ty2 USING learned (bo, iv DESC, u);
SELECT learned_index_check(i, true) FROM unnest(ARRAY['ty2_bo', 'ty2_ti', 'ty2_u', 'ty2_u7', 'ty2_iv', 'ty2_mix']::regclass[]) i;

CREATE TABLE ty2q (n serial, idx text, q text);
INSERT INTO ty2q (idx, q) VALUES
  ('ty2_bo', 'SELECT id FROM ty2 WHERE bo'),
  ('ty2_bo', 'SELECT id FROM ty2 WHERE bo = false'),
  ('ty2_bo', 'SELECT id FROM ty2 WHERE bo IS NULL'),
  ('ty2_bo', 'SELECT id FROM ty2 WHERE bo < true'),
  ('ty2_bo', 'SELECT bo FROM ty2 WHERE bo IS NOT NULL ORDER BY bo'),
  ('ty2_ti', 'SELECT id FROM ty2 WHERE ti = ''00:10:37'''),
  ('ty2_ti', 'SELECT id FROM ty2 WHERE ti BETWEEN ''10:00'' AND ''10:30'''),
  ('ty2_ti', 'SELECT id FROM ty2 WHERE ti >= ''23:59'''),
  ('ty2_ti', 'SELECT ti FROM ty2 WHERE ti < ''01:00'' ORDER BY ti DESC'),
  ('ty2_ti', 'SELECT ti FROM ty2 WHERE ti < ''01:00'' ORDER BY ti'),
  ('ty2_u', 'SELECT id FROM ty2 WHERE u = md5(''77'')::uuid'),
  ('ty2_u', 'SELECT id FROM ty2 WHERE u = ''12345678-9abc-def0-0100-00000007bb5c'''),
  ('ty2_u', 'SELECT id FROM ty2 WHERE u > ''12345678-9abc-def0-0200-000000000000'' AND u < ''12345678-9abc-def1-0000-000000000000'''),
  ('ty2_u', 'SELECT id FROM ty2 WHERE u IN (md5(''1'')::uuid, md5(''2'')::uuid, ''12345678-9abc-def0-0005-00000000992b'', ''00000000-0000-0000-0000-000000000001'')'),
  ('ty2_u', 'SELECT id FROM ty2 WHERE u < ''10000000-0000-0000-0000-000000000000'''),
  ('ty2_u', 'SELECT u FROM ty2 WHERE u >= ''12345678-9abc-def0-05dc-000000000000'' ORDER BY u'),
  ('ty2_u', 'SELECT u FROM ty2 WHERE u <= ''12345678-9abc-def0-0020-000000000000'' ORDER BY u DESC'),
  ('ty2_u7', 'SELECT id FROM ty2 WHERE u7 = (SELECT u7 FROM ty2 WHERE id = 777)'),
  ('ty2_u7', 'SELECT id FROM ty2 WHERE u7 BETWEEN ''018bcfe5-6800-0000-0000-000000000000'' AND ''018bcfe9-0000-0000-0000-000000000000'''),
  ('ty2_u7', 'SELECT u7 FROM ty2 WHERE u7 > ''018bcfe9-0000-0000-0000-000000000000'' ORDER BY u7'),
  ('ty2_iv', 'SELECT id FROM ty2 WHERE iv = ''1 month'''),
  ('ty2_iv', 'SELECT id FROM ty2 WHERE iv = ''30 days'''),
  ('ty2_iv', 'SELECT id FROM ty2 WHERE iv = ''1 day'''),
  ('ty2_iv', 'SELECT id FROM ty2 WHERE iv BETWEEN ''2 days'' AND ''3 months'''),
  ('ty2_iv', 'SELECT id FROM ty2 WHERE iv < ''-1 day'''),
  ('ty2_iv', 'SELECT id FROM ty2 WHERE iv IN (''60 days'', ''2 months'', ''48 hours'')'),
  ('ty2_iv', 'SELECT id FROM ty2 WHERE iv > ''100000 years'' OR iv < ''-100000 years'''),
  ('ty2_iv', 'SELECT justify_interval(iv) FROM ty2 WHERE iv > ''5 months'' OR iv IS NULL ORDER BY iv NULLS FIRST'),
  ('ty2_iv', 'SELECT justify_interval(iv) FROM ty2 WHERE iv > ''5 months'' OR iv IS NULL ORDER BY iv DESC NULLS LAST'),
  ('ty2_mix', 'SELECT id FROM ty2 WHERE bo = true AND iv = ''30 days'''),
  ('ty2_mix', 'SELECT id FROM ty2 WHERE bo = false AND iv > ''1 month'' AND u > ''80000000-0000-0000-0000-000000000000'''),
  ('ty2_mix', 'SELECT id FROM ty2 WHERE bo IS NULL AND iv IS NULL AND u > ''12345678-9abc-def0-0400-000000000000'''),
  ('ty2_mix', 'SELECT id FROM ty2 WHERE iv = ''2 months'''),
  ('ty2_mix', 'SELECT bo, justify_interval(iv), u FROM ty2 WHERE bo >= true ORDER BY bo, iv DESC, u'),
  ('ty2_mix', 'SELECT bo, justify_interval(iv), u FROM ty2 WHERE bo >= true ORDER BY bo DESC, iv, u DESC');

CREATE FUNCTION ty2_round() RETURNS TABLE (n int, q text, result text)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    other text;
BEGIN
    FOR r IN SELECT * FROM ty2q ORDER BY ty2q.n LOOP
        BEGIN
            FOR other IN SELECT x FROM unnest(ARRAY['ty2_bo', 'ty2_ti', 'ty2_u', 'ty2_u7', 'ty2_iv', 'ty2_mix']) x
                         WHERE x <> r.idx LOOP
                EXECUTE format('DROP INDEX %I', other);
            END LOOP;
            n := r.n;
            q := r.q;
            result := lcheck(r.q, CASE WHEN r.q ~ 'ORDER BY' THEN 'is,ios' ELSE 'is,bis' END);
            RAISE EXCEPTION 'ty2_round_rollback';
        EXCEPTION WHEN raise_exception THEN
            IF SQLERRM <> 'ty2_round_rollback' THEN
                RAISE;
            END IF;
        END;
        RETURN NEXT;
    END LOOP;
END $$;

-- Round 1: after the build.
VACUUM ty2;
SELECT n, result, q FROM ty2_round();

-- Round 2: pending entries, then after a merge, then after DELETE + VACUUM.
SET learned_idx.pending_limit = '100MB';
INSERT INTO ty2 SELECT 10000 + i, i % 2 = 0, time '12:00' + i * interval '7 seconds',
    ('12345678-9abc-def0-' || lpad(to_hex(i + 3), 4, '0') || '-000000000001')::uuid,
    (lpad(to_hex(1700000000000 + i * 333), 12, '0') || '7000' || '8000' || lpad(to_hex(i), 12, '0'))::uuid,
    (i % 9) * interval '10 days' FROM generate_series(1, 800) i;
VACUUM ty2;
SELECT n, result FROM ty2_round();
SELECT learned_index_merge(i) >= 0 AND (SELECT pending_entries FROM learned_index_info(i)) = 0 AS merged FROM unnest(ARRAY['ty2_bo', 'ty2_ti', 'ty2_u', 'ty2_u7', 'ty2_iv', 'ty2_mix']::regclass[]) i;
SELECT learned_index_check(i, true) FROM unnest(ARRAY['ty2_bo', 'ty2_ti', 'ty2_u', 'ty2_u7', 'ty2_iv', 'ty2_mix']::regclass[]) i;
SELECT n, result FROM ty2_round();
DELETE FROM ty2 WHERE id % 4 = 0;
VACUUM ty2;
SELECT learned_index_check(i, true) FROM unnest(ARRAY['ty2_bo', 'ty2_ti', 'ty2_u', 'ty2_u7', 'ty2_iv', 'ty2_mix']::regclass[]) i;
SELECT n, result FROM ty2_round();
RESET learned_idx.pending_limit;

-- The operator classes pass amvalidate.
SELECT opc.opcname, amvalidate(opc.oid)
FROM pg_opclass opc JOIN pg_am am ON am.oid = opc.opcmethod
WHERE am.amname = 'learned' AND opc.opcname IN ('bool_ops', 'time_ops', 'uuid_ops', 'interval_ops')
ORDER BY 1;

DROP TABLE ty2, ty2q;
DROP FUNCTION ty2_round();
