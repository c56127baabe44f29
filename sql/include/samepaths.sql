-- paths_same(q), shared by the pg_regress files that compare access paths
-- (included with \i sql/include/samepaths.sql; CREATE OR REPLACE, so every
-- file may include it).
--
-- q's rows, as text, through an index scan, an index-only scan, a bitmap
-- scan and a sequential scan: true if all agree (a NOTICE names q if not).
CREATE OR REPLACE FUNCTION paths_same(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	idx text;
	ios text;
	bmp text;
	seq text;
	sql text := 'SELECT string_agg(x::text, '','') FROM (' || q || ') x';
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	EXECUTE sql INTO idx;
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	EXECUTE sql INTO ios;
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	EXECUTE sql INTO bmp;
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_seqscan', 'on', true);
	EXECUTE sql INTO seq;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	IF idx IS DISTINCT FROM seq OR ios IS DISTINCT FROM seq OR bmp IS DISTINCT FROM seq THEN
		RAISE NOTICE 'differs: %', q;
		RETURN false;
	END IF;
	RETURN true;
END $$;
