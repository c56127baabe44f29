-- A segment's model errors are stored in 16 bits (err_below, err_above), so
-- the fit's bound is clipped to LEARNED_FIT_MAX_EPS (writer.c) when
-- error_bound asks for more.  Dense runs of 135,000 consecutive keys, a
-- billion apart, fit compressed pages of about 8,000 keys each: one piece
-- spans a jump and misses its keys by almost the whole bound, close to the
-- 16-bit limit.  Every key must still lie inside its model's window (the
-- check), and every answer is a sequential scan's, after the build and after
-- a merge that adds keys in the gaps and duplicates at the runs' edges.
SET learned_idx.auto_merge = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;

\set ECHO none
\i sql/include/lcheck.sql
\set ECHO all

CREATE TABLE we (k int8) WITH (autovacuum_enabled = off);
INSERT INTO we SELECT (i / 135000) * 1000000000 + i % 135000 FROM generate_series(0::int8, 999999) i;
CREATE INDEX we_k ON we USING learned (k) WITH (error_bound = 65536);
VACUUM ANALYZE we;

-- the bound stays what was asked; the errors come within a few hundred of
-- the 16-bit limit (65,529 here) and do not pass it
SELECT error_bound, max_error >= 65000 AS near_limit, max_error <= 65535 AS fits_16_bits
  FROM learned_index_info('we_k');
SELECT bool_and(max_error <= 65535) AS every_segment_fits, max(max_error) >= 65000 AS one_near_limit
  FROM learned_index_segments('we_k');
SELECT learned_index_check('we_k', true);

-- each run's first and last key, the absent keys just outside them, and
-- ranges across the jumps
SELECT lcheck($$SELECT k FROM we WHERE k = ANY (ARRAY(
    SELECT s * 1000000000 + d FROM generate_series(0::int8, 7) s,
      unnest(ARRAY[-1, 0, 1, 67499, 67500, 134998, 134999, 135000]) d))$$, 'is,ios,bis');
SELECT lcheck($$SELECT count(*) FROM we WHERE k BETWEEN 134000 AND 1000001000$$, 'is,ios,bis');
SELECT lcheck($$SELECT count(*) FROM we WHERE k >= 3000134990 AND k < 5000000007$$, 'is,ios,bis');
SELECT lcheck($$SELECT k FROM we WHERE k > 6999999990 ORDER BY k LIMIT 20$$, 'is,ios');
SELECT lcheck($$SELECT k FROM we WHERE k < 2000000005 ORDER BY k DESC LIMIT 20$$, 'is,ios');

-- keys in the gaps (a new run of 2,000 past each jump's run) and three
-- copies of each run's first and last key, merged into the static stage
INSERT INTO we SELECT s * 1000000000 + 500000000 + j FROM generate_series(0::int8, 7) s,
  generate_series(0, 1999) j;
INSERT INTO we SELECT s * 1000000000 + d FROM generate_series(0::int8, 7) s,
  unnest(ARRAY[0, 134999]) d, generate_series(1, 3) c
  WHERE s * 1000000000 + d <= 7000000000 + 55000;
SELECT learned_index_merge('we_k') > 0 AS merged;
SELECT pending_entries, max_error <= 65535 AS fits_16_bits FROM learned_index_info('we_k');
SELECT learned_index_check('we_k', true);
SELECT lcheck($$SELECT k, count(*) FROM we WHERE k = ANY (ARRAY(
    SELECT s * 1000000000 + d FROM generate_series(0::int8, 7) s,
      unnest(ARRAY[-1, 0, 1, 134999, 135000, 499999999, 500000000, 500001999, 500002000]) d))
    GROUP BY k$$, 'is,ios,bis');
SELECT lcheck($$SELECT count(*) FROM we WHERE k BETWEEN 134999 AND 1500000000$$, 'is,ios,bis');
SELECT lcheck($$SELECT k FROM we WHERE k >= 4500001990 ORDER BY k LIMIT 30$$, 'is,ios');

DROP TABLE we;
