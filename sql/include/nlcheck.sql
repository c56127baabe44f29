-- nl_check(outer, inner, idx, cond [, ref_from, ref_cond, col]), shared by
-- the pg_regress files on nested loops (included with
-- \i sql/include/nlcheck.sql; CREATE OR REPLACE, so every file may include
-- it).
--
-- The join of outer o and inner t on cond, once as a nested loop into idx
-- (the LATERAL subquery with OFFSET 0 keeps o outside), once over
-- sequential scans (a hash join, or a nested loop for a condition a hash
-- join cannot take), rows as (o.n, t.col), compared as multisets.  Prints
-- rows=N and ok, or WRONG with the rows each side lacks; "plan!" when the
-- nested loop did not scan idx.  A range condition can have its reference
-- join on ref_cond instead, with the offsets d of ref_from (t.k = o.k + d).
CREATE OR REPLACE FUNCTION nl_check(outer_tab text, inner_tab text, idx text, cond text,
                                    ref_from text DEFAULT NULL, ref_cond text DEFAULT NULL,
                                    col text DEFAULT 'id')
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    nl text := format('SELECT o.n, x.id FROM %I o CROSS JOIN LATERAL '
                      '(SELECT t.%I AS id FROM %I t WHERE %s OFFSET 0) x',
                      outer_tab, col, inner_tab, cond);
    ref text := format('SELECT o.n, t.%I FROM %I o %s JOIN %I t ON %s', col, outer_tab,
                       coalesce('CROSS JOIN ' || ref_from, ''), inner_tab, coalesce(ref_cond, cond));
    plan text := '';
    ln text;
    got text[];
    want text[];
    missing int;
    extra int;
BEGIN
    PERFORM set_config('enable_seqscan', 'off', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    PERFORM set_config('enable_indexonlyscan', 'off', true);
    PERFORM set_config('enable_memoize', 'off', true);
    PERFORM set_config('enable_material', 'off', true);
    PERFORM set_config('enable_hashjoin', 'off', true);
    PERFORM set_config('enable_mergejoin', 'off', true);
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || nl LOOP
        plan := plan || ln || ' ';
    END LOOP;
    EXECUTE format('SELECT array_agg(r::text) FROM (%s) r', nl) INTO got;
    -- the reference: no index at all
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'off', true);
    PERFORM set_config('enable_hashjoin', 'on', true);
    EXECUTE format('SELECT array_agg(r::text) FROM (%s) r', ref) INTO want;
    PERFORM set_config('enable_indexscan', 'on', true);
    SELECT count(*) INTO missing FROM (SELECT unnest(want) EXCEPT ALL SELECT unnest(got)) s;
    SELECT count(*) INTO extra FROM (SELECT unnest(got) EXCEPT ALL SELECT unnest(want)) s;
    RETURN 'rows=' || coalesce(cardinality(want), 0) ||
        CASE WHEN missing = 0 AND extra = 0 THEN ' ok'
             ELSE format(' WRONG: %s missing, %s extra', missing, extra) END ||
        CASE WHEN plan ~ ('Nested Loop.*Index Scan using ' || idx || ' ') THEN '' ELSE ' plan!' END;
END $$;
