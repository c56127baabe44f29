-- 60_privileges
--
-- Who may call the extension's functions (amcheck's model).  EXECUTE is
-- revoked from PUBLIC on every function; beyond that, each function wants
-- SELECT on the indexed table (or its ownership) and shows nothing of the
-- table before it has checked, and learned_index_merge wants ownership.
--
CREATE TABLE priv_t (k int8, s text);
INSERT INTO priv_t SELECT i, 'secret' || i FROM generate_series(1, 2000) i;
CREATE INDEX priv_s ON priv_t USING learned (s);
CREATE INDEX priv_b ON priv_t (k);
INSERT INTO priv_t VALUES (0, 'pending');
CREATE ROLE regress_learned_reader;

-- No function of the extension is executable by a role that was not
-- granted it (PUBLIC has none).
SELECT p.proname, p.proargtypes::regtype[],
       has_function_privilege('regress_learned_reader', p.oid, 'EXECUTE') AS reader_may
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
WHERE e.extname = 'learned_idx' ORDER BY 1;

-- priv_calls(): each function on priv_s, called by the current role: what
-- it returned, or its error's SQLSTATE and message.
CREATE FUNCTION priv_calls() RETURNS TABLE (call text, result text)
LANGUAGE plpgsql AS $$
DECLARE
    q text;
BEGIN
    FOREACH q IN ARRAY ARRAY[
        'SELECT first_key || '' .. '' || last_key FROM learned_index_segments(''priv_s'')',
        'SELECT entries || '' + '' || pending_entries FROM learned_index_info(''priv_s'')',
        'SELECT string_agg(entries::text, '','') FROM learned_index_runs(''priv_s'')',
        'SELECT count(*)::text FROM learned_index_sweep(''priv_s'')',
        'SELECT learned_index_check(''priv_s'')::text',
        'SELECT learned_index_check(''priv_s'', true)::text',
        'SELECT learned_index_merge(''priv_s'')::text',
        'SELECT learned_index_merge_step(''priv_s'')::text'] LOOP
        call := substring(q from 'learned_index_\w+\([^)]*\)');
        BEGIN
            EXECUTE q INTO result;
        EXCEPTION WHEN OTHERS THEN
            result := 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
        END;
        RETURN NEXT;
    END LOOP;
END $$;

-- Without EXECUTE: core refuses every call.
SET ROLE regress_learned_reader;
SELECT * FROM priv_calls();
RESET ROLE;

-- EXECUTE alone is not enough: the table is not readable by the role, so
-- no key, count or check result comes back.
GRANT EXECUTE ON FUNCTION learned_index_info(regclass), learned_index_segments(regclass),
    learned_index_check(regclass, boolean), learned_index_merge(regclass),
    learned_index_runs(regclass), learned_index_sweep(regclass),
    learned_index_merge_step(regclass) TO regress_learned_reader;
SET ROLE regress_learned_reader;
SELECT * FROM priv_calls();
-- the messages in full
SELECT entries FROM learned_index_info('priv_s');
SELECT learned_index_merge('priv_s');
-- what the catalogs show every role is said first: a btree index is not a
-- learned index, whatever the caller's privileges
SELECT entries FROM learned_index_info('priv_b');
-- nor SELECT on some columns only
RESET ROLE;
GRANT SELECT (k) ON priv_t TO regress_learned_reader;
SET ROLE regress_learned_reader;
SELECT entries FROM learned_index_info('priv_s');
RESET ROLE;
REVOKE SELECT (k) ON priv_t FROM regress_learned_reader;

-- EXECUTE and SELECT on the table: the inspection functions work; the
-- merge stays the owner's.
GRANT SELECT ON priv_t TO regress_learned_reader;
SET ROLE regress_learned_reader;
SELECT * FROM priv_calls();
RESET ROLE;

-- The owner (here a member of the owning role) may merge.
CREATE ROLE regress_learned_owner;
ALTER TABLE priv_t OWNER TO regress_learned_owner;
GRANT regress_learned_owner TO regress_learned_reader;
SET ROLE regress_learned_reader;
SELECT learned_index_merge('priv_s');
SELECT entries, pending_entries FROM learned_index_info('priv_s');
RESET ROLE;
REVOKE regress_learned_owner FROM regress_learned_reader;
ALTER TABLE priv_t OWNER TO CURRENT_USER;
REVOKE ALL ON priv_t FROM regress_learned_reader;
REVOKE ALL ON FUNCTION learned_index_info(regclass), learned_index_segments(regclass),
    learned_index_check(regclass, boolean), learned_index_merge(regclass),
    learned_index_runs(regclass), learned_index_sweep(regclass),
    learned_index_merge_step(regclass) FROM regress_learned_reader;

-- What README tells a DBA: EXECUTE to pg_monitor; a monitoring role that is
-- a member of pg_monitor and may read the tables (pg_read_all_data here)
-- inspects every learned index; pg_monitor alone reads none.
CREATE ROLE regress_learned_monitor;
GRANT EXECUTE ON FUNCTION learned_index_info(regclass), learned_index_segments(regclass),
    learned_index_check(regclass, boolean) TO pg_monitor;
GRANT pg_monitor TO regress_learned_monitor;
SET ROLE regress_learned_monitor;
SELECT entries FROM learned_index_info('priv_s');
RESET ROLE;
GRANT pg_read_all_data TO regress_learned_monitor;
SET ROLE regress_learned_monitor;
SELECT entries FROM learned_index_info('priv_s');
SELECT learned_index_check('priv_s', true);
RESET ROLE;
REVOKE ALL ON FUNCTION learned_index_info(regclass), learned_index_segments(regclass),
    learned_index_check(regclass, boolean) FROM pg_monitor;

-- heapallindexed evaluates the index's expressions as the table's owner,
-- in a security-restricted operation (as CREATE INDEX and amcheck do), not
-- with the rights of the role that runs the check.
CREATE FUNCTION priv_who(int8) RETURNS int8 LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RAISE NOTICE 'priv_who runs as %', current_user;
    RETURN $1;
END $$;
CREATE TABLE priv_e (k int8);
ALTER TABLE priv_e OWNER TO regress_learned_owner;
INSERT INTO priv_e VALUES (1), (2);
CREATE INDEX priv_e_k ON priv_e USING learned (priv_who(k));
SELECT learned_index_check('priv_e_k', true);
SELECT current_user = session_user AS back_to_the_caller;

DROP TABLE priv_t, priv_e;
DROP FUNCTION priv_who(int8), priv_calls();
DROP ROLE regress_learned_reader, regress_learned_owner, regress_learned_monitor;
