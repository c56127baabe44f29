-- 42_types
-- expected/42_types_1.out: PostgreSQL 18 and later, whose planner serves more of
-- these queries with the index ("noidx" becomes "ok": OR of equalities as
-- = ANY, boolean columns); edit both files alike.
-- the self-checking helpers lcheck() etc. (sql/include/lcheck.sql)
\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

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
