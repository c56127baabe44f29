# The swept main merge (merge.c, sweep_step): an ERROR and a PANIC at each
# step boundary (learned_idx.fail_point: sweep-start, before any write;
# sweep-before-flip, after the step's pages are written; sweep-after-flip,
# after its flip), injected mid-sweep (one step already flipped).  After
# each failure (and the crash recovery a PANIC causes): index, index-only
# and bitmap scans agree with a sequential scan, every row is found through
# the index, learned_index_check passes, the sweep continues step by step
# to its end, and learned_index_merge then folds what is left.  A streaming
# standby with wal_consistency_checking = all replays every step and
# answers as the primary's sequential scan does, also mid-sweep.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('sweep');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
restart_after_crash = on
autovacuum = off
checkpoint_timeout = 1h
max_wal_size = 2GB
shared_buffers = 32MB
wal_consistency_checking = all
wal_keep_size = 2GB
log_statement = none
learned_idx.merge_step_segments = 1
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
# plain leaves: 160k keys make three segments; merge_ratio 1 and a huge
# pending_limit: no merge unless asked
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v text) WITH (autovacuum_enabled = off);
INSERT INTO t (k, v) SELECT (i::int8 * 7919) % 1000000, 'b' FROM generate_series(1, 160000) i;
INSERT INTO t (k, v) SELECT NULL, 'n' FROM generate_series(1, 20);
CREATE INDEX t_k ON t USING learned (k)
  WITH (merge_ratio = 1, pending_limit = 2000000, compression = off);
ANALYZE t;
});
ok($node->safe_psql('postgres', q{SELECT segments FROM learned_index_info('t_k')}) >= 3,
	'three segments or more');

my $standby = dyn_standby($node, 'sweep_standby');

my $batch = 0;

# one batch of keys over the whole range and a NULL; tail_limit 300 flushes
# them into runs
sub insert_sql
{
	my ($n) = @_;
	$n //= 1100;
	$batch++;
	my $seed = $batch * 104729;
	return qq{SET learned_idx.tail_limit = 300;
INSERT INTO t (k, v) SELECT (i::int8 * 15485863 + $seed) % 1000000, 'c$batch' FROM generate_series(1, $n) i;
INSERT INTO t (k, v) VALUES (NULL, 'c$batch');};
}

sub sweeping
{
	return $node->safe_psql('postgres',
		q{SELECT count(*) FROM learned_index_sweep('t_k')});
}

sub step
{
	return $node->safe_psql('postgres', q{SELECT learned_index_merge_step('t_k')});
}

sub verify
{
	my ($name) = @_;
	dyn_compare($node, 't', $name);
	dyn_all_found($node, 't', $name, step => 7);
	dyn_check($node, 't_k', $name);
	return;
}


# baseline: a sweep, step by step, to its end
$node->safe_psql('postgres', insert_sql()) for 1 .. 3;
step();
is(sweeping(), '1', 'a step leaves a sweep in progress');
verify('baseline mid-sweep');
my $steps = 1;
while (sweeping() ne '0' && $steps < 50)
{
	step();
	$steps++;
}
is(sweeping(), '0', 'the sweep ends');
ok($steps >= 3, "the sweep took $steps steps");
verify('baseline swept');

foreach my $fp ('sweep-start', 'sweep-before-flip', 'sweep-after-flip')
{
	foreach my $kind ('', ':panic')
	{
		my $name = "$fp$kind";

		$node->safe_psql('postgres', insert_sql()) for 1 .. 2;
		step();
		is(sweeping(), '1', "$name: a sweep in progress");
		dyn_fail_with($node, "$fp$kind", q{SELECT learned_index_merge_step('t_k')}, $name);
		verify("$name: after the failure");
		# inserts go on, the sweep continues to its end
		$node->safe_psql('postgres', insert_sql());
		my $n = 0;
		while (sweeping() ne '0' && $n++ < 50)
		{
			step();
		}
		is(sweeping(), '0', "$name: the sweep ends");
		verify("$name: after the sweep");
		$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
		is($node->safe_psql('postgres', q{SELECT pending_entries FROM learned_index_info('t_k')}),
			'0', "$name: the merge folds the rest");
		verify("$name: after a merge");
	}
}

# VACUUM (which finishes a sweep in progress) recycles what the failures left
$node->safe_psql('postgres', insert_sql()) for 1 .. 2;
step();
is(sweeping(), '1', 'a sweep in progress before VACUUM');
$node->safe_psql('postgres', 'DELETE FROM t WHERE id % 10 = 0');
$node->safe_psql('postgres', 'VACUUM t');
is(sweeping(), '0', 'VACUUM finished the sweep');
verify('after VACUUM');

# the standby replayed all of it, checking every page; and mid-sweep
$node->safe_psql('postgres', insert_sql()) for 1 .. 3;
step();
is(sweeping(), '1', 'a sweep in progress for the standby');
$node->wait_for_catchup($standby);
dyn_compare_nodes($node, $standby, 't', 'standby mid-sweep');
dyn_check($standby, 't_k', 'standby mid-sweep');
$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
$node->wait_for_catchup($standby);
dyn_compare_nodes($node, $standby, 't', 'standby after the merge');
dyn_check($standby, 't_k', 'standby after the merge');
ok(!$standby->log_contains(qr/inconsistent page found/), 'wal_consistency_checking found no difference');

$standby->stop;
$node->stop;
done_testing();
