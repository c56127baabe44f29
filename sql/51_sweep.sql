-- The swept main merge: a main merge started by a trigger (here
-- learned_index_merge_step, one trigger's worth) merges the sorted runs into
-- the static stage one group of segments at a time (merge_step_segments =
-- 1: one segment a step).  Mid-sweep, part of each swept run is in the
-- static stage and the rest in the run: every query form must answer as a
-- sequential scan does, and learned_index_check must pass.
SET learned_idx.auto_merge = off;
SET learned_idx.tail_limit = 200;
SET learned_idx.merge_step_segments = 1;
SET extra_float_digits = 0;

-- paths_same(): q through each access path against a sequential scan (sql/include/samepaths.sql)
\set ECHO none
\i sql/include/samepaths.sql
\set ECHO all

-- every query form on table t, column c, around the values a < b
CREATE FUNCTION sweep_check_all(t text, c text, a text, b text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
	q text;
	ok boolean := true;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		format('SELECT %s FROM %s WHERE %s = %s ORDER BY 1', c, t, c, a),
		format('SELECT %s FROM %s WHERE %s = %s ORDER BY 1', c, t, c, b),
		format('SELECT %s FROM %s WHERE %s BETWEEN %s AND %s ORDER BY 1', c, t, c, a, b),
		format('SELECT %s FROM %s WHERE %s BETWEEN %s AND %s ORDER BY 1 DESC', c, t, c, a, b),
		format('SELECT %s FROM %s WHERE %s > %s ORDER BY 1 DESC LIMIT 7', c, t, c, a),
		format('SELECT %s FROM %s WHERE %s < %s ORDER BY 1 LIMIT 9', c, t, c, b),
		format('SELECT %s FROM %s WHERE %s IN (%s, %s) ORDER BY 1', c, t, c, a, b),
		format('SELECT count(*) FROM %s WHERE %s IS NULL', t, c),
		format('SELECT %s FROM %s ORDER BY 1 NULLS FIRST LIMIT 20', c, t),
		format('SELECT %s FROM %s ORDER BY 1 DESC LIMIT 20', c, t),
		format('SELECT count(*), count(DISTINCT %s) FROM %s WHERE %s >= %s', c, t, c, a)]
	LOOP
		IF NOT paths_same(q) THEN
			ok := false;
		END IF;
	END LOOP;
	RETURN ok;
END $$;

-- int8: three segments of plain leaves; runs of random keys, NULLs, and
-- copies of segment 1's first key (duplicates across a segment boundary,
-- which is also where the first step's cursor stops)
CREATE TABLE sw (k int8, v int);
INSERT INTO sw SELECT i * 10, i FROM generate_series(1, 160000) i;
CREATE INDEX sw_k ON sw USING learned (k) WITH (compression = off);
SELECT segments FROM learned_index_info('sw_k');
SELECT first_key AS b1 FROM learned_index_segments('sw_k') WHERE segment = 1 \gset
INSERT INTO sw SELECT (hashint4(i) & 2147483647) % 1600000, -1 FROM generate_series(1, 3000) i;
INSERT INTO sw SELECT NULL, -2 FROM generate_series(1, 5);
INSERT INTO sw SELECT :b1, -3 FROM generate_series(1, 300);
INSERT INTO sw SELECT (hashint4(i) & 2147483647) % 1600000, -4 FROM generate_series(3001, 3600) i;
SELECT count(*) AS runs FROM learned_index_runs('sw_k') WHERE run IS NOT NULL;
SELECT * FROM learned_index_sweep('sw_k');
SELECT learned_index_merge_step('sw_k') > 0 AS merged;
SELECT runs, next_segment, merged_entries > 0 AS some_merged, left_entries > 0 AS some_left
FROM learned_index_sweep('sw_k');
SELECT learned_index_check('sw_k', true);
SELECT sweep_check_all('sw', 'k', (:b1 - 10)::text, (:b1 + 10)::text);
SELECT sweep_check_all('sw', 'k', '5', :'b1');
-- entries arriving mid-sweep go to the tail and new runs, which the sweep
-- leaves to the next main merge
INSERT INTO sw SELECT (hashint4(i) & 2147483647) % 1600000, -5 FROM generate_series(5001, 5500) i;
INSERT INTO sw SELECT :b1, -6 FROM generate_series(1, 50);
SELECT learned_index_check('sw_k', true);
SELECT sweep_check_all('sw', 'k', (:b1 - 10)::text, (:b1 + 10)::text);
SELECT learned_index_merge_step('sw_k') > 0 AS merged;
SELECT runs, next_segment FROM learned_index_sweep('sw_k');
SELECT learned_index_check('sw_k', true);
SELECT sweep_check_all('sw', 'k', '100', '1200000');
-- the last step merges the swept runs' NULLs and drops them
SELECT learned_index_merge_step('sw_k') > 0 AS merged;
SELECT count(*) AS sweeps FROM learned_index_sweep('sw_k');
SELECT learned_index_check('sw_k', true);
SELECT sweep_check_all('sw', 'k', (:b1 - 10)::text, (:b1 + 10)::text);
SELECT entries + null_entries + pending_entries = (SELECT count(*) FROM sw) AS counts_agree
FROM learned_index_info('sw_k');
-- learned_index_merge finishes a sweep in progress, then merges the rest
SELECT learned_index_merge_step('sw_k') > 0 AS merged;
SELECT count(*) AS sweeps FROM learned_index_sweep('sw_k');
SELECT learned_index_merge('sw_k') > 0 AS merged;
SELECT count(*) AS sweeps FROM learned_index_sweep('sw_k');
SELECT pending_entries FROM learned_index_info('sw_k');
SELECT learned_index_check('sw_k', true);
SELECT sweep_check_all('sw', 'k', (:b1 - 10)::text, (:b1 + 10)::text);

-- a unique index: a duplicate is found below the cursor (in the static
-- stage) and above it (in the run)
CREATE TABLE swu (k int8);
INSERT INTO swu SELECT i * 10 FROM generate_series(1, 160000) i;
-- (before 18, a WARNING about ON CONFLICT, which does not matter here)
SET client_min_messages = error;
CREATE UNIQUE INDEX swu_k ON swu USING learned (k) WITH (compression = off);
RESET client_min_messages;
INSERT INTO swu SELECT i * 10 + 3 FROM generate_series(1, 160000, 53) i;
SELECT learned_index_merge_step('swu_k') > 0 AS merged;
SELECT runs, next_segment FROM learned_index_sweep('swu_k');
INSERT INTO swu VALUES (13);		-- merged: in the static stage
INSERT INTO swu VALUES (1590013);	-- not yet: in a run
INSERT INTO swu VALUES (14), (1590014);
SELECT learned_index_check('swu_k', true);
SELECT count(*) FROM swu WHERE k IN (13, 14, 1590013, 1590014);

-- text keys (mapped keys inexact): two segments or more
CREATE TABLE swt (s text);
INSERT INTO swt SELECT md5(i::text) FROM generate_series(1, 60000) i;
CREATE INDEX swt_s ON swt USING learned (s) WITH (compression = off);
SELECT segments >= 2 AS several FROM learned_index_info('swt_s');
SELECT first_key AS t1 FROM learned_index_segments('swt_s') WHERE segment = 1 \gset
INSERT INTO swt SELECT md5((i * 7)::text) || 'x' FROM generate_series(1, 2000) i;
INSERT INTO swt SELECT :'t1' FROM generate_series(1, 100);
INSERT INTO swt SELECT NULL FROM generate_series(1, 3);
SELECT learned_index_merge_step('swt_s') > 0 AS merged;
SELECT runs, next_segment FROM learned_index_sweep('swt_s');
SELECT learned_index_check('swt_s', true);
SELECT sweep_check_all('swt', 's', quote_literal(:'t1'), quote_literal('c'));
SELECT sweep_check_all('swt', 's', quote_literal('1'), quote_literal(:'t1'));
SELECT learned_index_merge('swt_s') > 0 AS merged;
SELECT learned_index_check('swt_s', true);

-- composite keys
CREATE TABLE swc (a int4, b int4);
INSERT INTO swc SELECT i / 100, i % 100 FROM generate_series(1, 160000) i;
CREATE INDEX swc_ab ON swc USING learned (a, b) WITH (compression = off);
SELECT segments >= 2 AS several FROM learned_index_info('swc_ab');
INSERT INTO swc SELECT (hashint4(i) & 2147483647) % 1600, i % 7 FROM generate_series(1, 3000) i;
INSERT INTO swc SELECT 800, 50 FROM generate_series(1, 40);
SELECT learned_index_merge_step('swc_ab') > 0 AS merged;
SELECT runs, next_segment FROM learned_index_sweep('swc_ab');
SELECT learned_index_check('swc_ab', true);
SELECT paths_same('SELECT a, b FROM swc WHERE a = 800 ORDER BY a, b');
SELECT paths_same('SELECT a, b FROM swc WHERE a = 3 AND b = 3 ORDER BY a, b');
SELECT paths_same('SELECT a, b FROM swc WHERE a BETWEEN 1 AND 900 ORDER BY a DESC, b DESC LIMIT 30');
SELECT paths_same('SELECT a, b FROM swc WHERE (a, b) > (400, 3) ORDER BY a, b LIMIT 30');
SELECT paths_same('SELECT count(*) FROM swc WHERE a >= 0');
SELECT learned_index_merge('swc_ab') > 0 AS merged;
SELECT learned_index_check('swc_ab', true);

-- merge_step_segments = -1: no sweep, a step is the whole merge
SET learned_idx.merge_step_segments = -1;
INSERT INTO sw SELECT (hashint4(i) & 2147483647) % 1600000, -7 FROM generate_series(9001, 9900) i;
SELECT learned_index_merge_step('sw_k') > 0 AS merged;
SELECT count(*) AS sweeps FROM learned_index_sweep('sw_k');
SELECT pending_entries FROM learned_index_info('sw_k');
RESET learned_idx.merge_step_segments;

-- a step flushes a tail past tail_limit (inserts skip their flush while a
-- sweep's steps hold the merge lock)
SET learned_idx.tail_limit = 500;
INSERT INTO sw SELECT (hashint4(i) & 2147483647) % 1600000, -8 FROM generate_series(20001, 24000) i;
SELECT count(*) > 0 AS runs_to_sweep FROM learned_index_runs('sw_k') WHERE run IS NOT NULL;
SET learned_idx.tail_limit = 0;
INSERT INTO sw SELECT (hashint4(i) & 2147483647) % 1600000, -8 FROM generate_series(24001, 27000) i;
SELECT entries AS tail_before FROM learned_index_runs('sw_k') WHERE run IS NULL;
SET learned_idx.tail_limit = 1000;
SELECT learned_index_merge_step('sw_k') > 0 AS merged;
SELECT count(*) AS sweeps FROM learned_index_sweep('sw_k');
SELECT entries < 1000 AS tail_flushed FROM learned_index_runs('sw_k') WHERE run IS NULL;
SELECT learned_index_check('sw_k', true);
SELECT paths_same('SELECT k, v FROM sw WHERE v = -8 ORDER BY k, v LIMIT 20');
RESET learned_idx.tail_limit;

-- keys appended past the last one: every group but the last receives no
-- entry, and a step takes them in instead of writing each out as it is
-- (one flip, one generation, for the whole sweep)
SET learned_idx.merge_step_segments = 1;
SET learned_idx.tail_limit = 200;
CREATE TABLE swa (k int8);
INSERT INTO swa SELECT i * 10 FROM generate_series(1, 160000) i;
CREATE INDEX swa_k ON swa USING learned (k) WITH (compression = off);
SELECT segments >= 3 AS several FROM learned_index_info('swa_k');
SELECT generation AS gen0 FROM learned_index_info('swa_k') \gset
INSERT INTO swa SELECT 1600000 + i FROM generate_series(1, 3000) i;
SELECT count(*) > 0 AS runs_to_sweep FROM learned_index_runs('swa_k') WHERE run IS NOT NULL;
SELECT learned_index_merge_step('swa_k') > 0 AS merged;
SELECT count(*) AS sweeps FROM learned_index_sweep('swa_k');
SELECT generation - :gen0 AS flips FROM learned_index_info('swa_k');
SELECT count(*) AS runs_left FROM learned_index_runs('swa_k') WHERE run IS NOT NULL;
SELECT learned_index_check('swa_k', true);
SELECT paths_same('SELECT k FROM swa WHERE k > 1599990 ORDER BY k');
RESET learned_idx.tail_limit;
RESET learned_idx.merge_step_segments;

DROP TABLE sw, swu, swt, swc, swa;
DROP FUNCTION paths_same(text), sweep_check_all(text, text, text, text);
