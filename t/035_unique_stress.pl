# Unique learned index under concurrency: pgbench clients insert keys drawn
# from a small range (most inserts collide), "insert or ignore" and upsert
# through plpgsql handlers of unique_violation (PostgreSQL 15 refuses
# INSERT ... ON CONFLICT on a table with a non-btree unique index, see
# docs/architecture.md), some inserts held open for a while or rolled back
# (others wait for them), key updates, deletes, VACUUM and explicit merges
# on top of the automatic ones.  Afterwards: no key appears twice (sequential
# scan), the index agrees with a sequential scan, learned_index_check passes,
# and collisions did happen.
#
# UNIQUE_STRESS_SECONDS sets the pgbench duration (default 15; 30 or more
# for a longer run).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $seconds = $ENV{UNIQUE_STRESS_SECONDS} || 15;

my $node = PostgreSQL::Test::Cluster->new('unique_stress');
$node->init;
$node->append_conf('postgresql.conf', qq{
max_connections = 30
autovacuum = off
max_worker_processes = 8
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v int);
INSERT INTO t (k, v) SELECT i * 2, 0 FROM generate_series(1, 1500) i;
INSERT INTO t (k, v) SELECT NULL, 0 FROM generate_series(1, 10);
-- merges are frequent: at 1024 pending entries (merge_ratio 1 would wait
-- for as many as the static stage holds), or at 64 kB of pending pages
CREATE UNIQUE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 100, pending_limit = 64);
CREATE INDEX t_v ON t (v);   -- updates of v are not HOT: they insert into t_k
CREATE SEQUENCE collisions;

-- INSERT ... ON CONFLICT DO NOTHING, by hand
CREATE FUNCTION ins(key int8) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO t (k, v) VALUES (key, 1);
EXCEPTION WHEN unique_violation THEN
    PERFORM nextval('collisions');
END $$;

-- INSERT ... ON CONFLICT (k) DO UPDATE SET v = v + 1, by hand
CREATE FUNCTION upsert(key int8) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    LOOP
        UPDATE t SET v = v + 1 WHERE k = key;
        IF found THEN
            RETURN;
        END IF;
        BEGIN
            INSERT INTO t (k, v) VALUES (key, 1);
            RETURN;
        EXCEPTION WHEN unique_violation THEN
            PERFORM nextval('collisions');
        END;
    END LOOP;
END $$;

-- move a key; a collision leaves it
CREATE FUNCTION move(key int8, to_key int8) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE t SET k = to_key WHERE k = key;
EXCEPTION WHEN unique_violation THEN
    PERFORM nextval('collisions');
END $$;
});

my %scripts = (
	'001_ins@20' => q{
\set k random(1, 4000)
SELECT ins(:k);
},
	'002_upsert@10' => q{
\set k random(1, 4000)
SELECT upsert(:k);
},
	'003_held@4' => q{
\set k random(1, 4000)
BEGIN;
SELECT ins(:k);
SELECT pg_sleep(0.005);
COMMIT;
},
	'004_rolled_back@4' => q{
\set k random(1, 4000)
BEGIN;
SELECT ins(:k);
SELECT ins(:k + 1);
SELECT pg_sleep(0.002);
ROLLBACK;
},
	'005_move@4' => q{
\set k random(1, 4000)
\set k2 random(1, 4000)
SELECT move(:k, :k2);
},
	'006_delete@6' => q{
\set k random(1, 4000)
DELETE FROM t WHERE k BETWEEN :k AND :k + 2;
},
	'007_null@1' => q{
INSERT INTO t (k, v) VALUES (NULL, 2);
},
	'008_vacuum@1' => q{
VACUUM t;
},
	'009_merge@1' => q{
SELECT learned_index_merge('t_k');
});

# The run is timed, so how many inserts collide and how often the index
# merges follow how many transactions the machine gets through (94
# collisions in a loaded CI run, tens of thousands on an idle machine): it
# is repeated, up to three times, until both happened, which the checks
# below need.
# (a sequence nextval never moved shows last_value 1: is_called tells)
my $collisions = 'SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM collisions';
for my $round (1 .. 3)
{
	$node->pgbench(
		"--no-vacuum --client=6 --jobs=2 --time=$seconds --max-tries=20",
		0,
		[ qr{number of failed transactions: 0 } ],
		[],
		"round $round: pgbench: colliding inserts, upserts, key moves, deletes, vacuum, merges for ${seconds}s",
		\%scripts);
	last if $node->safe_psql('postgres', qq{
SELECT ($collisions) > 0 AND generation > 1 FROM learned_index_info('t_k')}) eq 't';
}

diag($node->safe_psql('postgres', qq{SELECT format('rows %s, distinct keys %s, collisions caught %s, generation %s, pending %s',
	(SELECT count(*) FROM t), (SELECT count(DISTINCT k) FROM t), ($collisions),
	i.generation, i.pending_entries) FROM learned_index_info('t_k') i}));
is($node->safe_psql('postgres',
	'SELECT count(*) FROM (SELECT k FROM t WHERE k IS NOT NULL GROUP BY k HAVING count(*) > 1) d'),
	'0', 'no key appears twice in the table');
cmp_ok($node->safe_psql('postgres', $collisions), '>', 0, 'inserts did collide');
cmp_ok($node->safe_psql('postgres', q{SELECT generation FROM learned_index_info('t_k')}),
	'>', 1, 'the index was merged');
is($node->safe_psql('postgres', q{SELECT learned_index_check('t_k', true)}),
	't', 'learned_index_check passes');
index_vs_seq($node, 't', 'after the stress');
all_rows_found($node, 't', 'after the stress');

# Every key still refuses a duplicate, in whichever stage it is.
$node->safe_psql('postgres', q{
CREATE FUNCTION refused() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    n int := 0;
    key int8;
BEGIN
    FOR key IN SELECT k FROM t WHERE k IS NOT NULL LOOP
        BEGIN
            INSERT INTO t (k, v) VALUES (key, 3);
        EXCEPTION WHEN unique_violation THEN
            n := n + 1;
        END;
    END LOOP;
    RETURN n;
END $$;
});
is($node->safe_psql('postgres', q{SELECT refused() = (SELECT count(*) FROM t WHERE k IS NOT NULL)}),
	't', 'a duplicate of every present key is refused');

$node->safe_psql('postgres', 'VACUUM t');
is($node->safe_psql('postgres', q{SELECT learned_index_check('t_k', true)}),
	't', 'learned_index_check passes after VACUUM');
$node->safe_psql('postgres', 'REINDEX INDEX t_k');
is($node->safe_psql('postgres', q{SELECT learned_index_check('t_k', true)}),
	't', 'REINDEX succeeds (no live duplicate)');

$node->stop;
done_testing();
