# The library in shared_preload_libraries, README's advice for many short
# connections: the postmaster runs _PG_init once, and every backend and merge
# worker inherits the settings and the reloption kind it registered instead
# of loading the library at its first use of an index.  Everything must work
# as when each backend loads it: settings known to a fresh backend, the
# reserved prefix, reloptions, merges by the worker, and a crash of a
# backend, after which the postmaster resets shared memory without running
# _PG_init again.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('preload');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'learned_idx'
autovacuum = off
restart_after_crash = on
learned_idx.log_merge_min_duration = 0
});
$node->start;

# A fresh backend knows the settings before it touches the extension: without
# the preload, SHOW of an unloaded extension's setting is an error.
is($node->safe_psql('postgres', 'SHOW learned_idx.tail_limit'), '4096',
	'a new backend has the settings without loading the library');
my ($ret, $out, $err) = $node->psql('postgres', 'SET learned_idx.no_such_setting = 1');
like($err, qr/invalid configuration parameter name "learned_idx\.no_such_setting"/,
	'the prefix is reserved in every backend');

# 40,000 keys and a few NULLs; the merge trigger is 1,024 pending entries
# (40,000 / 100 is less) or 64 kB of them
$node->safe_psql('postgres', qq{
CREATE EXTENSION learned_idx;
CREATE TABLE t (id serial, k int8, v text) WITH (autovacuum_enabled = off);
INSERT INTO t (k, v)
  SELECT CASE WHEN i % 4000 = 0 THEN NULL ELSE (i::int8 * 48271) % 1000000 END, 'b'
  FROM generate_series(1, 40000) i;
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 100, pending_limit = 64);
ANALYZE t;});
($ret, $out, $err) = $node->psql('postgres', 'ALTER INDEX t_k SET (merge_ratio = 0)');
like($err, qr/value 0 out of bounds for option "merge_ratio"/,
	'reloptions are validated');
is($node->safe_psql('postgres',
	"SELECT reloptions FROM pg_class WHERE relname = 't_k'"),
	'{merge_ratio=100,pending_limit=64}', 'the reloptions are stored');

# Inserts past the trigger, each from a new session: the merge worker, whose
# process forks from the postmaster with the library in it, merges them.
sub wait_generation
{
	my ($above) = @_;
	for (my $i = 0; $i < 300; $i++)
	{
		return 1 if dyn_info($node, 't_k')->{generation} > $above;
		usleep(100_000);
	}
	return 0;
}

my $gen = dyn_info($node, 't_k')->{generation};
my $log_offset = -s $node->logfile;
for my $i (1 .. 4)
{
	$node->safe_psql('postgres',
		"INSERT INTO t (k, v) SELECT (i::int8 * 104729 + $i) % 1000000, 's$i' FROM generate_series(1, 1500) i");
}
ok(wait_generation($gen), 'merges happened');
ok($node->log_contains(qr/learned index "postgres\.public\.t_k" merged by worker/, $log_offset),
	'the merge worker merged');
dyn_compare($node, 't', 'after merges');
dyn_all_found($node, 't', 'after merges', step => 3);
dyn_check($node, 't_k', 'after merges');

# A backend killed by SIGKILL: the postmaster kills the others and resets
# shared memory, with the library still loaded in it.
my $victim = $node->background_psql('postgres');
my $pid = $victim->query_safe('SELECT pg_backend_pid()');
my $offset = -s $node->logfile;
kill 'KILL', $pid;
dyn_wait_ready($node, $offset);
eval { $victim->quit; };

is($node->safe_psql('postgres', 'SHOW learned_idx.tail_limit'), '4096',
	'after the reset a new backend has the settings');
$gen = dyn_info($node, 't_k')->{generation};
for my $i (5 .. 8)
{
	$node->safe_psql('postgres',
		"INSERT INTO t (k, v) SELECT (i::int8 * 15485863 + $i) % 1000000, 'r$i' FROM generate_series(1, 1500) i");
}
ok(wait_generation($gen), 'merges happen after the reset');
dyn_compare($node, 't', 'after the reset');
dyn_check($node, 't_k', 'after the reset');

$node->stop;
done_testing();
