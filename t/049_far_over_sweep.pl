# The merge of a list far past pending_limit, swept.
#
# Past twice pending_limit an inserter merges the whole list inline.  As one
# merge of random keys, it wrote a whole new static stage beside the old
# one, and the old one waited for the snapshot horizon, which the
# inserter's own open transaction holds back: one INSERT far over the limit
# again and again left a whole generation waiting for each of its merges.
# Now, with no learned index scan of its own open, it flushes the tail and
# sweeps the runs in steps (merge.c, merge_far_over), and each step's
# garbage collection frees the pages the step before replaced once every
# backend that might still read them has moved on (the flip witness).
#
# Checked: one INSERT of 48,000 random keys (6 times twice the limit)
# merges in steps and ends below 2.5 times a fresh build (a whole merge
# per episode left about one static stage more per episode); a cursor of
# another session whose snapshot predates the INSERT keeps its pages (they
# wait) and reads every row of its snapshot in order; an ERROR and a PANIC
# between two steps and before a step's flip (fault points
# sweep-between-steps, sweep-before-flip) leave an index that answers as a
# sequential scan and passes learned_index_check; an INSERT that goes far
# over while a sweep is in progress finishes that sweep and sweeps the rest
# in steps, none of which rewrites half the static stage (a whole merge
# did); a standby with wal_consistency_checking replays it all.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('far_over');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
autovacuum = off
restart_after_crash = on
wal_consistency_checking = 'generic'
wal_keep_size = '1GB'
learned_idx.merge_step_segments = 1
learned_idx.log_merge_min_duration = 0
# no merge worker: the inserting session merges inline (one step at a
# trigger, every step far past the limit), so the pages are its alone
max_worker_processes = 0
});
$node->start;
$node->safe_psql('postgres',
	'CREATE EXTENSION learned_idx; CREATE EXTENSION pg_freespacemap');
$node->safe_psql('postgres', q{
CREATE TABLE v (id int, k int8) WITH (autovacuum_enabled = off);
INSERT INTO v SELECT i, 10 * i FROM generate_series(1, 200000) i;
CREATE INDEX v_k ON v USING learned (k) WITH (compression = off, pending_limit = 64);
});
my $segments = $node->safe_psql('postgres', "SELECT segments FROM learned_index_info('v_k')");
cmp_ok($segments, '>=', 3, "the static stage has $segments segments");
my $standby = dyn_standby($node, 'far_over_standby');

my $round = 0;

# one INSERT of $n keys spread over the whole range: past twice the limit
# (8192 int8 records) every 8192 rows
sub big_insert
{
	my ($n) = @_;
	$round++;
	return qq{INSERT INTO v SELECT -($round * 100000 + i), ((i::int8 * 7919 + $round) % 2000000) + 1
  FROM generate_series(1, $n) i;};
}

sub info
{
	my ($col) = @_;
	return $node->safe_psql('postgres', "SELECT $col FROM learned_index_info('v_k')");
}

# pages neither reachable nor free: replaced pages waiting for the horizon
sub waiting { return dyn_waiting_pages($node, 'v_k'); }

sub fresh_pages
{
	$node->safe_psql('postgres', 'CREATE INDEX v_fresh ON v USING learned (k) WITH (compression = off)');
	my $fresh = $node->safe_psql('postgres', "SELECT pg_relation_size('v_fresh') / 8192");
	$node->safe_psql('postgres', 'DROP INDEX v_fresh');
	return $fresh;
}

sub verify
{
	my ($name) = @_;
	dyn_compare($node, 'v', $name);
	dyn_all_found($node, 'v', $name, step => 13);
	dyn_check($node, 'v_k', $name);
	return;
}

# 1. one INSERT far past the limit, six times over: in steps, reusing pages
my $offset = -s $node->logfile;
$node->safe_psql('postgres', big_insert(48000));
my $steps = () = slurp_file($node->logfile, $offset) =~
  /learned index "postgres\.public\.v_k" merged by insert: /g;
cmp_ok($steps, '>=', 3 * $segments,
	"the INSERT merged inline in steps ($steps merges for $segments segments)");
cmp_ok(info('pending_entries'), '<=', 8193, 'the list is under twice the limit');
my $pages = info('total_pages');
my $fresh = fresh_pages();
# (whole merges: about 6.6x; swept: 1.7x, with room for the worker's
# merges, which the INSERT's own open transaction holds back)
cmp_ok($pages, '<', 2.5 * $fresh,
	"after the INSERT the index has $pages pages, under 2.5 times a fresh build ($fresh)");
verify('after a far-over INSERT');

# 2. a cursor whose snapshot predates the INSERT keeps the pages it reads
my ($s1, $first) = dyn_old_cursor($node, 'v');
my $expect = $node->safe_psql('postgres', 'SELECT count(*) FROM v');
my $gen0 = info('generation');
$node->safe_psql('postgres', big_insert(20000));
my $gen1 = info('generation');
cmp_ok($gen1 - $gen0, '>=', $segments, "the INSERT merged in steps (generation $gen0 -> $gen1)");
cmp_ok(waiting(), '>', 0, 'pages the cursor may read were not freed under it');
my $rows = $s1->query_safe('FETCH ALL FROM c');
my @keys = split /\n/, $rows;
is(scalar(@keys) + 1, $expect, 'the cursor reads every row of its snapshot');
my @sorted = sort { $a <=> $b } ($first, @keys);
is_deeply([ $first, @keys ], \@sorted, 'in order');
$s1->query_safe('COMMIT');
$s1->quit;
verify('after the cursor');

# 3. failures between steps and before a step's flip
foreach my $fp ('sweep-between-steps', 'sweep-before-flip')
{
	foreach my $kind ('', ':panic')
	{
		my $name = "$fp$kind";
		my $count = $node->safe_psql('postgres', 'SELECT count(*) FROM v');

		# 20,000 entries pending (no merge meanwhile), then one insert
		# far past the limit: its merge flushes them and sweeps in steps
		dyn_fail_with($node, "$fp$kind", 'BEGIN; SET LOCAL learned_idx.auto_merge = off; '
			  . big_insert(20000)
			  . ' SET LOCAL learned_idx.auto_merge = on; INSERT INTO v VALUES (-1, 5); COMMIT;',
			$name);
		is($node->safe_psql('postgres', 'SELECT count(*) FROM v'), $count,
			"$name: the failed INSERT's rows are gone");
		verify("$name: after the failure");
		$node->safe_psql('postgres', big_insert(20000));
		verify("$name: after the next far-over INSERT");
	}
}

# 4. a sweep in progress when the list goes far over: the far-over merge
# finishes it in steps and sweeps the rest, with no whole merge (it used to
# see no sweep it could start, and merged the whole list in one flip,
# writing the whole static stage beside the old one)
$node->safe_psql('postgres', "SELECT learned_index_merge('v_k')");
$node->safe_psql('postgres', 'SET learned_idx.auto_merge = off; SET learned_idx.tail_limit = 1000; ' . big_insert(3000)
	  . " SELECT learned_index_merge_step('v_k');");
my $sweeping = $node->safe_psql('postgres',
	"SELECT count(*) FROM learned_index_sweep('v_k')");
cmp_ok($sweeping, '>', 0, 'a sweep is in progress');
my $leaf = info('leaf_pages');
$offset = -s $node->logfile;
$node->safe_psql('postgres', big_insert(20000));
my @written = slurp_file($node->logfile, $offset) =~
  /learned index "postgres\.public\.v_k" merged by insert: \d+ entries, generation \d+, pages: (\d+) written/g;
cmp_ok(scalar(@written), '>=', 2 * $segments, 'the far-over INSERT merged in steps');
my @whole = grep { $_ > $leaf / 2 } @written;
is(scalar(@whole), 0,
	"no merge of that INSERT wrote half the static stage ($leaf leaf pages; written: @written)");
verify('after a far-over INSERT during a sweep');

# 5. the standby replayed all of it, checking every page
$node->wait_for_catchup($standby);
dyn_compare_nodes($node, $standby, 'v', 'standby');
dyn_check($standby, 'v_k', 'standby');
ok(!$standby->log_contains(qr/inconsistent page found/), 'wal_consistency_checking found no difference');

$standby->stop;
$node->stop;
done_testing();
