# Sorted runs of the pending list (run.c): an ERROR and a PANIC at every
# step of a flush (the tail into a run) and of a compaction (four runs into
# one), injected with learned_idx.fail_point in the INSERT that crosses
# learned_idx.tail_limit.  After each failure (and the crash recovery a
# PANIC causes): index, index-only and bitmap scans agree with a sequential
# scan, every row is found through the index, learned_index_check passes,
# and the next flush and merge succeed.  A streaming standby with
# wal_consistency_checking = all replays every flush, compaction and merge
# (it compares each replayed page with the primary's image) and answers as
# the primary's sequential scan does.  A compaction that needs filter pages
# fails after writing them, too.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('runs');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
restart_after_crash = on
autovacuum = off
checkpoint_timeout = 1h
max_wal_size = 2GB
shared_buffers = 16MB
wal_consistency_checking = all
wal_keep_size = 2GB
log_statement = none
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
# merge_ratio 1 and a huge pending_limit: no merge unless asked
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v text) WITH (autovacuum_enabled = off);
INSERT INTO t (k, v) SELECT (i::int8 * 7919) % 1000000, 'b' FROM generate_series(1, 30000) i;
INSERT INTO t (k, v) SELECT NULL, 'n' FROM generate_series(1, 20);
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 1, pending_limit = 2000000);
ANALYZE t;
});

my $standby = dyn_standby($node, 'runs_standby');

my $batch = 0;

# one batch: $n keys (520 by default) over the whole range and a NULL;
# with tail_limit 300 each completed page of 509 entries can be flushed
# into a run: 1100 keys complete at least one page past the tail's start,
# so they flush at least once
sub insert_sql
{
	my ($n) = @_;
	$n //= 520;
	$batch++;
	my $seed = $batch * 104729;
	return qq{SET learned_idx.tail_limit = 300;
INSERT INTO t (k, v) SELECT (i::int8 * 15485863 + $seed) % 1000000, 'c$batch' FROM generate_series(1, $n) i;
INSERT INTO t (k, v) VALUES (NULL, 'c$batch');};
}

sub runs
{
	return $node->safe_psql('postgres',
		q{SELECT count(*) FROM learned_index_runs('t_k') WHERE run IS NOT NULL});
}

sub tier0
{
	return $node->safe_psql('postgres',
		q{SELECT count(*) FROM learned_index_runs('t_k') WHERE tier = 0});
}

sub verify
{
	my ($name) = @_;
	dyn_compare($node, 't', $name);
	dyn_all_found($node, 't', $name, step => 5);
	dyn_check($node, 't_k', $name);
	return;
}


# baseline: flushes, then a compaction of four tier-0 runs
$node->safe_psql('postgres', insert_sql()) for 1 .. 4;
is($node->safe_psql('postgres',
	q{SELECT string_agg(tier::text, ',' ORDER BY run) FROM learned_index_runs('t_k') WHERE run IS NOT NULL}),
	'1', 'four flushes compacted into one run of tier 1');
verify('baseline runs');
$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
is(runs(), '0', 'a merge folds the runs');
verify('baseline merged');

foreach my $fp ('run-start', 'flush-after-claim', 'flush-after-write',
	'flush-after-flip', 'compact-after-claim', 'compact-after-write',
	'compact-after-flip')
{
	foreach my $kind ('', ':panic')
	{
		my $name = "$fp$kind";

		# a compaction needs three tier-0 runs before the failing flush
		if ($fp =~ /^compact/)
		{
			my $n = 0;

			while (tier0() != 3 && $n++ < 30)
			{
				$node->safe_psql('postgres', insert_sql());
			}
			is(tier0(), '3', "$name: three tier-0 runs before the failing INSERT");
		}
		dyn_fail_with($node, "$fp$kind", insert_sql(1100), $name);
		verify("$name: after the failure");
		# the next flush and a merge work
		$node->safe_psql('postgres', insert_sql(1100));
		ok(runs() > 0, "$name: a later INSERT flushes");
		verify("$name: after a later flush");
		$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
		is(runs(), '0', "$name: the merge folds every run");
		verify("$name: after a merge");
	}
}

# A compaction of four runs of 4,072 entries writes a run whose filter
# needs pages of its own: a failure after they are written (before the
# flip) leaves them unreachable, for garbage collection; the next
# compaction writes new ones, and lookups through them find every row.
sub insert_big
{
	$batch++;
	my $seed = $batch * 104729;
	return qq{SET learned_idx.tail_limit = 4096;
INSERT INTO t (k, v) SELECT (i::int8 * 15485863 + $seed) % 1000000, 'c$batch' FROM generate_series(1, 4600) i;};
}

sub filter_pages
{
	return $node->safe_psql('postgres',
		q{SELECT coalesce(sum(filter_pages), 0) FROM learned_index_runs('t_k')});
}

foreach my $kind ('', ':panic')
{
	my $name = "compact-after-write$kind, filter pages";
	my $n = 0;

	$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
	while (tier0() != 3 && $n++ < 10)
	{
		$node->safe_psql('postgres', insert_big());
	}
	is(tier0(), '3', "$name: three tier-0 runs of 4,072 entries before the failing INSERT");
	is(filter_pages(), '0', "$name: their filters fit their headers");
	dyn_fail_with($node, "compact-after-write$kind", insert_big(), $name);
	verify("$name: after the failure");
	$node->safe_psql('postgres', insert_big());
	ok(filter_pages() > 0, "$name: the next compaction writes filter pages");
	verify("$name: lookups through filter pages");
}

# VACUUM recycles what the failures left
$node->safe_psql('postgres', 'VACUUM t');
verify('after VACUUM');

# the standby replayed all of it, checking every page
$node->safe_psql('postgres', insert_sql()) for 1 .. 5;
ok(runs() > 0, 'runs on the primary for the standby');
$node->wait_for_catchup($standby);
dyn_compare_nodes($node, $standby, 't', 'standby with runs');
dyn_check($standby, 't_k', 'standby with runs');
$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
$node->wait_for_catchup($standby);
dyn_compare_nodes($node, $standby, 't', 'standby after a merge');
dyn_check($standby, 't_k', 'standby after a merge');
ok(!$standby->log_contains(qr/inconsistent page found/), 'wal_consistency_checking found no difference');

$standby->stop;
$node->stop;
done_testing();
