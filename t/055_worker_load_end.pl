# The end of a load leaves no list past the merge trigger.
#
# An insert past the ratio trigger asks for a merge worker unless one will
# look at the list again; a probe that found the worker running holds for
# the same backend's later inserts while the pending epoch stays where it
# was, for up to 64 appends (merge.c, worker_seen_memo; docs/architecture.md,
# "No list left over the trigger").  These loads end while workers merge:
# two pgbench clients of 100-row INSERTs of random keys, three rounds, and
# one session that loads, truncates the table (the epoch and the sequence
# numbers start again, the OID stays) and loads again.  After each, the
# workers must exit with the list under its trigger, and every answer must
# equal a sequential scan's.  A probe held whatever the epoch and the
# appends since (probe_memo_holds reduced to the index's identity) leaves the
# session's second load past the trigger: the last case fails.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('load_end');
$node->init;
$node->append_conf('postgresql.conf', q{
autovacuum = off
max_worker_processes = 8
learned_idx.log_merge_min_duration = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v int4) WITH (autovacuum_enabled = off);
INSERT INTO t (k, v) SELECT (i::int8 * 7919) % 1000000, i FROM generate_series(1, 200000) i;
-- the ratio trigger at 4,000 pending entries: several merges a round
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 50);
});

# the workers have exited and left the list under the ratio trigger (the
# static stage's entries over merge_ratio, or the trigger's floor of 1,024)
sub wait_load_merged
{
	my ($name) = @_;
	ok( $node->poll_query_until('postgres', q{
SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE backend_type = 'learned_idx merge')
   AND (pending_entries < 1024 OR pending_entries <= entries / 50.0)
FROM learned_index_info('t_k')}),
		"$name: the workers merged and left the list under its trigger")
	  or diag($node->safe_psql('postgres',
		"SELECT entries, pending_entries, merges FROM learned_index_info('t_k')"));
	return;
}

my $dir = PostgreSQL::Test::Utils::tempdir;
open(my $fh, '>', "$dir/batch.sql") or die;
print $fh q{
\set k random(0, 999999)
INSERT INTO t (k, v) SELECT (:k + i * 7) % 1000000, i FROM generate_series(1, 100) i;
};
close $fh;

my $merges0 = dyn_info($node, 't_k')->{generation};
my $log_offset = -s $node->logfile;
foreach my $round (1 .. 3)
{
	$node->command_ok(
		[
			'pgbench', '-n', '-h', $node->host, '-p', $node->port,
			'-c', 2, '-j', 2, '-t', 150, '-f', "$dir/batch.sql", 'postgres'
		],
		"round $round: 2 clients, 300 INSERTs of 100 random keys");
	wait_load_merged("round $round");
}
cmp_ok(dyn_info($node, 't_k')->{generation}, '>', $merges0 + 3,
	'the loads were merged while they ran');
my @by_worker = slurp_file($node->logfile, $log_offset) =~
  /learned index "postgres\.public\.t_k" merged by worker: /g;
cmp_ok(scalar(@by_worker), '>', 0, 'merge workers merged the loads');
dyn_compare($node, 't', 'after the pgbench rounds');
dyn_check($node, 't_k', 'after the pgbench rounds');

# one backend: a load past the trigger, TRUNCATE, the same load again
$node->safe_psql('postgres', q{
INSERT INTO t (k, v) SELECT (i::int8 * 104729) % 1000000, i FROM generate_series(1, 30000) i;
TRUNCATE t;
INSERT INTO t (k, v) SELECT (i::int8 * 104729) % 1000000, i FROM generate_series(1, 30000) i;
});
wait_load_merged('a load, TRUNCATE and the load again in one session');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '30000', 'the table holds the second load');
dyn_compare($node, 't', 'after the TRUNCATE');
dyn_check($node, 't_k', 'after the TRUNCATE');

$node->stop;
done_testing();
