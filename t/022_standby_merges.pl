# Streaming replication of the dynamic stage: many cycles of inserts,
# merges (explicit, background worker, VACUUM's), deletes, updates, VACUUM
# with segment rewrites and garbage collection on the primary, with
# wal_consistency_checking = 'generic' (the standby compares every page it
# replays with the primary's full image).  After each cycle the standby's
# index answers what the primary's does, agrees with its own sequential
# scans, and passes learned_index_check.  Then a standby cursor (index scan
# and index-only scan) stays open while the primary merges, recycles and
# reuses the pages it was reading: it must return its snapshot's rows
# exactly, or be canceled with a recovery conflict, never a wrong answer.
# Last, VACUUM truncates a free tail of an index while a standby
# transaction holds it: the standby replays the truncation only after it.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
wal_consistency_checking = 'generic'
autovacuum = off
shared_buffers = 8MB
max_wal_size = 1GB
log_statement = none
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$primary->safe_psql('postgres', 'CREATE EXTENSION pageinspect');
$primary->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v text) WITH (autovacuum_enabled = off);
INSERT INTO t (k, v) SELECT (i::int8 * 7919) % 1000000, 'b' FROM generate_series(1, 60000) i;
INSERT INTO t (k, v) SELECT NULL, 'n' FROM generate_series(1, 30);
-- merges at 1024 pending entries (a background worker on the primary)
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 100000, pending_limit = 256);
ANALYZE t;
});

my $standby = dyn_standby($primary, 'standby');

sub wait_idle
{
	# No merge worker still running on the primary, and none about to: a
	# worker an insert registered shows in pg_stat_activity only once the
	# postmaster has started it, so wait until the generation holds still
	# for a second with no worker running.
	my $prev = '';
	for (1 .. 120)
	{
		$primary->poll_query_until('postgres',
			"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'learned_idx merge'");
		my $gen = $primary->safe_psql('postgres',
			"SELECT generation FROM learned_index_info('t_k')");
		return if $gen eq $prev;
		$prev = $gen;
		sleep(1);
	}
	return;
}

sub compare_nodes
{
	my ($name) = @_;
	wait_idle();
	$primary->wait_for_catchup($standby);
	dyn_compare_nodes($primary, $standby, 't', $name);
	dyn_check($standby, 't_k', "$name (standby)");
	# The standby's learned_index_info once it replayed what the primary's
	# showed (a transaction with an xid flushes the WAL written before it,
	# which the catch-up then covers).  wait_idle cannot see a merge worker
	# the postmaster has yet to start, and such a worker merges what it
	# finds; a merge meanwhile shows as a change between two reads of the
	# primary's, and the pair is read again.
	my ($p, $s);
	for (1 .. 10)
	{
		$p = dyn_info($primary, 't_k');
		$primary->safe_psql('postgres', 'SELECT txid_current()');
		$primary->wait_for_catchup($standby);
		$s = dyn_info($standby, 't_k');
		my $p2 = dyn_info($primary, 't_k');
		last if join('|', map { "$_=$p->{$_}" } sort keys %$p) eq join('|', map { "$_=$p2->{$_}" } sort keys %$p2);
		note "$name: the primary merged meanwhile, again";
	}
	is_deeply($s, $p, "$name: learned_index_info is the same on both nodes");
	return;
}

compare_nodes('after the build');
{
	my ($ret, $o, $e) = $standby->psql('postgres', "SELECT learned_index_merge('t_k')");
	like($e, qr/recovery is in progress/, 'learned_index_merge refuses to run on a standby');
}

my $gen0 = dyn_info($primary, 't_k')->{generation};
my $truncations = 0;
my $hinted = 0;
my $free_seen = 0;
for my $cycle (1 .. 6)
{
	my $seed = $cycle * 104729;
	# inserts past the merge trigger: the worker merges on the primary
	$primary->safe_psql('postgres', qq{
INSERT INTO t (k, v) SELECT (i::int8 * 15485863 + $seed) % 1000000, 'c$cycle' FROM generate_series(1, 3000) i;
INSERT INTO t (k, v) SELECT NULL, 'c$cycle' FROM generate_series(1, 3);
});
	if ($cycle % 2)
	{
		$primary->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
	}
	# fewer than the trigger: they stay pending and replicate as pending
	$primary->safe_psql('postgres', qq{
INSERT INTO t (k, v) SELECT (i::int8 * 7 + $seed) % 1000000, 'p$cycle' FROM generate_series(1, 500) i;
DELETE FROM t WHERE k BETWEEN $seed % 900000 AND $seed % 900000 + 20000;
UPDATE t SET k = (k * 3 + 1) % 1000000 WHERE id % 97 = $cycle;
});
	compare_nodes("cycle $cycle before VACUUM") if $cycle % 2 == 0;
	# every third cycle deletes a third of the rows: VACUUM rewrites segments
	if ($cycle % 3 == 0)
	{
		$primary->safe_psql('postgres', "DELETE FROM t WHERE id % 3 = 0 AND v <> 'keep'");
	}
	# the primary's scans above hinted entries of deleted rows dead
	# (kill_prior_tuple); VACUUM's dead marks must log those pages with the
	# hints cleared, or the standby's consistency check stops replay
	$primary->safe_psql('postgres', qq{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM t WHERE k >= 0});
	$hinted += $primary->safe_psql('postgres',
		"SELECT hinted_entries FROM learned_index_info('t_k')");
	# the second VACUUM collects garbage once the horizon passed the merges
	# (txid_current: a transaction after them)
	my $before = dyn_info($primary, 't_k')->{total_pages};
	$primary->safe_psql('postgres', 'VACUUM t');
	$primary->safe_psql('postgres', 'SELECT txid_current()');
	$primary->safe_psql('postgres', 'VACUUM t');
	my $after = dyn_info($primary, 't_k')->{total_pages};
	note "cycle $cycle: the VACUUMs took the index from $before to $after pages";
	$truncations++ if $after < $before;
	# FREE pages left between live ones (a truncation removes only those
	# at the end, so one cycle's layout may leave none)
	$free_seen++ if (dyn_page_types($primary, 't_k')->{6} // 0) > 0;
	# learned_index_info, total_pages included, is the same on the standby
	compare_nodes("cycle $cycle after VACUUM");
}
# VACUUM's truncation of a free tail replays on the standby (the
# comparisons above ran after it)
cmp_ok($truncations, '>', 0, "VACUUM truncated the index (in $truncations of 6 cycles)");
cmp_ok($hinted, '>', 0, "the primary's scans hinted $hinted entries before its VACUUMs");
my $p = dyn_info($primary, 't_k');
cmp_ok($p->{generation}, '>', $gen0 + 6, "merges happened (generation $p->{generation})");
cmp_ok($free_seen, '>', 0,
	"garbage collection freed pages on the primary (FREE pages after $free_seen of 6 cycles' VACUUMs)");

# A standby cursor across a merge, garbage collection and page reuse on the
# primary.  Nothing the standby replays conflicts with the cursor's
# snapshot (the rows it reads were committed and made all-visible before
# it; afterwards the primary only merges, collects garbage and inserts), so
# replay goes on and recycles the index pages under the cursor: the cursor
# must still return its snapshot's rows, or be canceled by a recovery
# conflict, never return other rows or report corruption.
#
# The layout is made deterministic with a small fresh index: 20000 static
# keys (one segment, blocks 1-35) and 3000 pending keys (6 pending pages):
# 2800 above all of them and 200 copies of keys spread over the segment, so
# that every page of it receives some (a merge keeps the pages no new key
# reaches: partial_rewrite).  The cursor reads backward, so its first rows
# come from the pending list.  The merge rewrites the segment elsewhere; GC frees the
# old segment, the old directory and the merged pending pages (all but the
# tail); 21000 new inserts then take every free page as pending pages.
$primary->safe_psql('postgres', q{
CREATE TABLE t2 (id serial, k int8) WITH (autovacuum_enabled = off);
INSERT INTO t2 (k) SELECT i FROM generate_series(1, 20000) i;
});
foreach my $mode ('indexonly', 'index')
{
	my $cols = $mode eq 'index' ? 'k, id' : 'k';
	$primary->safe_psql('postgres', q{
DROP INDEX IF EXISTS t2_k;
DELETE FROM t2 WHERE k < 1 OR k > 20000 OR id > 20000;
VACUUM t2;
-- plain pages: the page counts below (>= 40 freed by GC) are sized for them
CREATE INDEX t2_k ON t2 USING learned (k) WITH (merge_ratio = 1, pending_limit = 1000000, compression = off);
INSERT INTO t2 (k) SELECT 2000000 + i FROM generate_series(1, 2800) i;
INSERT INTO t2 (k) SELECT i * 100 FROM generate_series(1, 200) i;
-- all-visible heap pages, and the pending list kept: with INDEX_CLEANUP
-- on, the VACUUM's amvacuumcleanup would merge it
VACUUM (INDEX_CLEANUP off) t2;
});
	$primary->wait_for_catchup($standby);
	my $i0 = dyn_info($standby, 't2_k');
	is("$i0->{pending_entries} $i0->{segments}", '3000 1',
		"standby cursor ($mode): 3000 pending entries, one segment");

	my $s = $standby->background_psql('postgres', on_error_stop => 0);
	$s->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	# the snapshot's truth, without the index
	my $expect = $s->query_safe(q{
SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off;
SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = on;
SELECT string_agg(k::text, ',' ORDER BY k DESC) FROM t2;
});
	my @expect = split /,/, $expect;
	$s->query_safe('SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = on; SET LOCAL enable_indexonlyscan = '
		  . ($mode eq 'index' ? 'off' : 'on'));
	my $q = "SELECT $cols FROM t2 ORDER BY k DESC";
	my $plan = $s->query_safe("EXPLAIN (COSTS OFF) $q");
	like($plan, $mode eq 'index' ? qr/^Index Scan Backward using t2_k/ : qr/^Index Only Scan Backward using t2_k/,
		"standby cursor ($mode): plan");
	$s->query_safe("DECLARE c CURSOR FOR $q");
	my @got = map { (split /\|/)[0] } split /\n/, $s->query_safe('FETCH 1000 FROM c');
	is_deeply(\@got, [ @expect[ 0 .. 999 ] ], "standby cursor ($mode): first 1000 rows");

	$primary->safe_psql('postgres', "SELECT learned_index_merge('t2_k')");
	$primary->safe_psql('postgres', 'SELECT txid_current()');
	$primary->safe_psql('postgres', 'VACUUM t2');
	my $free = dyn_page_types($primary, 't2_k')->{6} // 0;
	# no merge nor flush: their garbage collection would free the pages they
	# replace at once (gc_horizon), and the count of FREE pages would not show
	# the reuse
	$primary->safe_psql('postgres',
		'SET learned_idx.auto_merge = off; SET learned_idx.tail_limit = 0; INSERT INTO t2 (k) SELECT -i FROM generate_series(1, 21000) i');
	my $free2 = dyn_page_types($primary, 't2_k')->{6} // 0;
	note "standby cursor ($mode): $free pages freed by GC, $free2 left after the inserts";
	ok($free >= 40 && $free2 == 0, "standby cursor ($mode): the primary freed and reused the pages");
	$primary->wait_for_catchup($standby);

	# the rest of the pending entries, then the static part
	my ($out, $ret) = $s->query('FETCH 300 FROM c');
	my ($out2, $ret2) = $ret ? ('', 1) : $s->query('FETCH ALL FROM c');
	my $err = $s->{stderr};
	push @got, map { (split /\|/)[0] } split /\n/, $out;
	my $n = scalar(@got);
	is_deeply(\@got, [ @expect[ 0 .. $n - 1 ] ],
		"standby cursor ($mode): the rows after the reuse are the snapshot's ($n so far)");
	if ($err eq '')
	{
		push @got, map { (split /\|/)[0] } split /\n/, $out2;
		is(join(',', @got), $expect, "standby cursor ($mode): all the snapshot's rows, each once, in order");
	}
	else
	{
		like($err, qr/canceling statement due to conflict with recovery/,
			"standby cursor ($mode): an error can only be a recovery conflict");
	}
	$s->quit;
}
$primary->safe_psql('postgres', 'DROP TABLE t2');

# VACUUM's truncation of a free tail, replayed while a standby transaction
# holds the index.  The heap keeps its pages (vacuum_truncate = off), so the
# only ACCESS EXCLUSIVE lock the standby replays is the index's; with
# max_standby_streaming_delay = -1 the replay waits for that transaction, so
# pages are never cut from under a scan.  The transaction (READ COMMITTED,
# idle between statements) holds only the lock, no snapshot and no pin, so
# nothing else holds up the replay first; its next query, while the
# truncation waits, reads what was replayed before it.
# The layout is dyn_truncation_layout's: the VACUUMs after it cut.
my $t3_before = dyn_truncation_layout($primary, 't3');
$primary->wait_for_catchup($standby);
{
	my $s = $standby->background_psql('postgres', on_error_stop => 0);
	my $q = 'SELECT count(*), sum(id), md5(string_agg(k::text, \',\' ORDER BY k, id)) FROM t3 WHERE k < 500000';
	my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;';
	my $seq = 'SET enable_seqscan = on; SET enable_indexscan = off;';
	$s->query_safe('BEGIN');
	like($s->query_safe("$idx EXPLAIN (COSTS OFF) $q"), qr/Index Scan using t3_k/, 'truncation: plan');
	my $first = $s->query_safe("$idx $q");

	$primary->safe_psql('postgres', 'VACUUM t3');
	$primary->safe_psql('postgres', 'SELECT txid_current()');
	$primary->safe_psql('postgres', 'VACUUM t3');
	my $after = dyn_info($primary, 't3_k')->{total_pages};
	cmp_ok($after, '<', $t3_before, "truncation: VACUUM truncated the index ($t3_before to $after pages)");

	# the standby's startup process waits for the transaction's lock
	$standby->poll_query_until('postgres',
		"SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE backend_type = 'startup'")
	  or die 'the standby did not wait for the lock';
	pass('truncation: the standby waits for the transaction before it truncates');
	# (from the transaction: a new session's lock request would queue
	# behind the startup process's)
	is($s->query_safe("SELECT total_pages FROM learned_index_info('t3_k')"),
		$t3_before, 'truncation: not replayed yet');
	my $now = $s->query_safe("$idx $q");
	is($now, $s->query_safe("$seq $q"), 'truncation: meanwhile the index answers as a sequential scan');
	is($now, $first, 'truncation: the same rows as before the VACUUMs');
	$s->query_safe('COMMIT');
	$s->quit;
	$primary->wait_for_catchup($standby);
	is(dyn_info($standby, 't3_k')->{total_pages}, $after, 'truncation: the standby truncated too');
	dyn_compare_nodes($primary, $standby, 't3', 'after the truncation');
	dyn_check($standby, 't3_k', 'after the truncation (standby)');
}
$primary->safe_psql('postgres', 'DROP TABLE t3');

compare_nodes('the end');
ok(!$standby->log_contains(qr/inconsistent page|FATAL|PANIC/),
	'no inconsistent page, FATAL or PANIC in the standby log');
ok(!$primary->log_contains(qr/PANIC|server process .* was terminated/),
	'no crash on the primary');

$standby->stop;
$primary->stop;
done_testing();
