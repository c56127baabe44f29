# Merges that fail: an ERROR or a PANIC injected at every step of the merge
# protocol (learned_idx.fail_point), through learned_index_merge(), through
# the merge VACUUM starts, through an INSERT's inline merge and in the
# background worker.  After each failure (and the crash recovery a PANIC
# causes): every row is found through the index, index scans agree with a
# sequential scan, learned_index_check(heapallindexed) passes, the next merge
# succeeds, and VACUUM recycles the orphaned pages, so that the relation
# stops growing over repeated crash cycles.  Last, VACUUM's truncation of
# a free tail fails (ERROR, PANIC) right after the cut.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('merge_crash');
$node->init;
# restart_after_crash: a PANIC restarts the server, which then runs crash
# recovery.  No checkpoints unless asked, so that recovery replays the merges.
# The merges here are whole (merge_step_segments = -1): a worker's swept
# merge would move the generation by a step each, and t/046 crashes sweeps.
$node->append_conf('postgresql.conf', qq{
restart_after_crash = on
autovacuum = off
checkpoint_timeout = 1h
max_wal_size = 2GB
shared_buffers = 16MB
log_statement = none
learned_idx.merge_step_segments = -1
});
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', 'CREATE EXTENSION pageinspect');
# merge_ratio 1 and a huge pending_limit: no merge unless asked (the trigger
# needs as many pending entries as static ones).
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v text) WITH (autovacuum_enabled = off);
INSERT INTO t (k, v) SELECT (i::int8 * 7919) % 1000000, 'b' FROM generate_series(1, 100000) i;
INSERT INTO t (k, v) SELECT NULL, 'n' FROM generate_series(1, 50);
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 1, pending_limit = 2000000, compression = off);
ANALYZE t;
});

my $batch = 0;

# A batch of changes that every merge has to fold in: 4000 new keys spread
# over the whole key range (every segment is rewritten), a few NULLs, and the
# deletion of 4000 old rows, so that the live size stays about constant.
sub churn
{
	$batch++;
	my $seed = $batch * 104729;
	$node->safe_psql('postgres', qq{
INSERT INTO t (k, v) SELECT (i::int8 * 15485863 + $seed) % 1000000, 'c$batch' FROM generate_series(1, 4000) i;
INSERT INTO t (k, v) SELECT NULL, 'c$batch' FROM generate_series(1, 5);
DELETE FROM t WHERE id IN (SELECT id FROM t ORDER BY id LIMIT 4000);
});
	return;
}

sub verify
{
	my ($name) = @_;
	dyn_compare($node, 't', $name);
	dyn_all_found($node, 't', $name, step => 7);
	dyn_check($node, 't_k', $name);
	return;
}


# When garbage collection did not run: the metapage's last_flip_xid (a u64
# at byte 136 of block 0), the next xid, and who holds back the horizon.
sub diag_horizon
{
	diag 'last_flip_xid, txid_current: ' . $node->safe_psql('postgres', q{
SELECT ('x' || string_agg(lpad(to_hex(get_byte(p, 136 + 7 - i)), 2, '0'), '' ORDER BY i))::bit(64)::int8
       || ', ' || txid_current()
FROM (SELECT get_raw_page('t_k', 0) p) s, generate_series(0, 7) i});
	diag "pg_stat_activity:\n" . $node->safe_psql('postgres',
		'SELECT pid, backend_type, backend_xid, backend_xmin, state, query FROM pg_stat_activity');
	diag "pg_prepared_xacts, slots:\n" . $node->safe_psql('postgres',
		'SELECT gid, transaction FROM pg_prepared_xacts UNION ALL SELECT slot_name, xmin::text FROM pg_replication_slots');
	return;
}

# Baseline: a clean merge and VACUUM.
churn();
my $merged = $node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
ok($merged >= 4000, "clean merge merged $merged entries");
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'VACUUM t');
verify('baseline');
my $baseline = dyn_info($node, 't_k')->{total_pages};
note "baseline total_pages $baseline";
my @sizes;

# The cycles: each churns, fails a merge in some way, checks, merges
# cleanly, vacuums, checks.  'gen' says whether the failed merge's flip must
# (1), must not (0) or may (undef) have happened.
my @cycles = (
	[ 'merge-start:panic',            'merge', 0 ],
	[ 'merge-after-segments:panic',   'merge', 0 ],
	[ 'merge-before-flip:panic',      'merge', 0 ],
	[ 'merge-after-flip:panic',       'merge', undef ],
	[ 'merge-before-flip',            'merge', 0 ],
	[ 'merge-after-flip',             'merge', 1 ],
	[ 'merge-after-segments',         'vacuum', 0 ],
	[ 'merge-before-flip:panic',      'vacuum', 0 ],
	[ 'merge-before-flip:panic',      'rewrite', 0 ],
	[ 'merge-after-segments:panic',   'insert', undef ],
	[ 'merge-start',                  'merge', 0 ],
	[ 'merge-after-segments:panic',   'merge', 0 ],
	[ 'merge-before-flip:panic',      'merge', 0 ],
	[ 'merge-after-flip:panic',       'merge', undef ],);

foreach my $c (@cycles)
{
	my ($fp, $how, $gen_moves) = @$c;
	my $name = "$fp via $how";
	churn();
	my $before = dyn_info($node, 't_k');
	my $sql;
	if ($how eq 'merge')
	{
		$sql = "SELECT learned_index_merge('t_k');";
	}
	elsif ($how eq 'vacuum')
	{
		# VACUUM merges the pending list first
		$sql = 'VACUUM t;';
	}
	elsif ($how eq 'rewrite')
	{
		# no pending entries left, but a third of the rows deleted: VACUUM
		# marks them dead, then rewrites the mostly-dead segments (a merge)
		$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
		$node->safe_psql('postgres', 'DELETE FROM t WHERE id % 3 = 0');
		$before = dyn_info($node, 't_k');
		$sql = 'VACUUM t;';
	}
	elsif ($how eq 'insert')
	{
		# an INSERT far past the pending limit merges inline (no worker is
		# asked for when the list is over twice the limit; the workers it
		# asked for before may merge some of it: the generation may move)
		$node->safe_psql('postgres', 'ALTER INDEX t_k SET (pending_limit = 64)');
		$before = dyn_info($node, 't_k');
		$sql = "INSERT INTO t (k, v) SELECT i * 3, 'lost' FROM generate_series(1, 50000) i;";
	}
	dyn_fail_with($node, $fp, $sql, $name);
	if ($how eq 'insert')
	{
		$node->safe_psql('postgres', 'ALTER INDEX t_k RESET (pending_limit)');
		is($node->safe_psql('postgres',
			"SET enable_seqscan = off; SELECT count(*) FROM t WHERE v = 'lost'"),
			'0', "$name: the failed INSERT's rows are gone");
	}
	my $after = dyn_info($node, 't_k');
	if (defined $gen_moves)
	{
		is($after->{generation}, $before->{generation} + $gen_moves,
			"$name: generation " . ($gen_moves ? 'advanced' : 'unchanged'));
	}
	else
	{
		note "$name: generation $before->{generation} -> $after->{generation}";
		ok( $after->{generation} == $before->{generation}
			  || $after->{generation} == $before->{generation} + 1,
			"$name: generation is the old one or the next");
	}
	verify("after $name");

	# a merge without the fail point succeeds and empties the pending list
	my ($ret, $n, $err) = $node->psql('postgres', "SELECT learned_index_merge('t_k')");
	is($ret, 0, "$name: the next merge succeeds") or diag($err);
	my $m = dyn_info($node, 't_k');
	is($m->{pending_entries}, 0, "$name: nothing pending after the merge");
	# Garbage collection needs the horizon past the last merge: a
	# transaction that started after it must have completed (txid_current).
	# The second round is for a VACUUM that merged (rewrote) itself.
	for (1 .. 2)
	{
		$node->safe_psql('postgres', 'SELECT txid_current()');
		$node->safe_psql('postgres', 'VACUUM t');
	}
	# The FSM is not WAL-logged: what GC recorded in it survives a crash
	# only once a checkpoint wrote it (as checkpoint_timeout bounds in
	# production).  Without this, see the crash cycles at the end.
	$node->safe_psql('postgres', 'CHECKPOINT');
	verify("after $name, merge and vacuum");
	my $info = dyn_info($node, 't_k');
	my $types = dyn_page_types($node, 't_k');
	my $reachable = 1 + $info->{directory_pages} + $info->{leaf_pages} +
	  $info->{null_pages} + $info->{pending_pages};
	is(($types->{6} // 0) + $reachable, $info->{total_pages},
		"$name: every page is reachable or FREE after VACUUM")
	  or diag_horizon();
	push @sizes, $info->{total_pages};
	note "$name: total_pages $info->{total_pages}, free " . ($types->{6} // 0)
	  . ", live $reachable";
}

note 'total_pages after each cycle: ' . join(' ', @sizes);
my $max = 0;
$max = $_ > $max ? $_ : $max for @sizes;
cmp_ok($max, '<', 3 * $baseline,
	"total_pages stays below 3x the baseline ($baseline) over " . scalar(@sizes) . ' crash cycles');
# the second half of the cycles should not need much more room than the first
my $half = int(@sizes / 2);
my $first_max = 0;
$first_max = $_ > $first_max ? $_ : $first_max for @sizes[ 0 .. $half - 1 ];
cmp_ok($max, '<=', int(1.3 * $first_max) + 1,
	'the relation stops growing: the later cycles need at most 1.3x the room of the earlier ones');

# Without a checkpoint between a VACUUM and a crash, what GC recorded in
# the FSM (not WAL-logged) is lost with the crash.  The FREE pages are still
# there (their type is WAL-logged), and the next garbage collection, which
# a merge runs first once the unreachable pages pass an eighth of the
# reachable ones, records every unreachable page in the FSM again, FREE ones
# included: so the merges after a crash reuse them instead of extending the
# relation.  (A collection that skipped FREE pages would let each cycle
# grow the relation by a merge's worth: 377, 500, 623 pages, measured with
# that change.)  A REINDEX starts from an index whose FSM on disk is empty.
{
	$node->safe_psql('postgres', 'REINDEX INDEX t_k');
	$node->safe_psql('postgres', 'CHECKPOINT');
	my @nock;
	for my $i (1 .. 3)
	{
		churn();
		$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
		$node->safe_psql('postgres', 'SELECT txid_current()');
		$node->safe_psql('postgres', 'VACUUM t');
		churn();
		dyn_fail_with($node, 'merge-before-flip:panic', "SELECT learned_index_merge('t_k');",
			"no checkpoint $i");
		$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
		$node->safe_psql('postgres', 'SELECT txid_current()');
		$node->safe_psql('postgres', 'VACUUM t');
		push @nock, dyn_info($node, 't_k')->{total_pages};
	}
	note 'total_pages over crash cycles without checkpoints: ' . join(' ', @nock);
	verify('after the crash cycles without checkpoints');
	# A merge's worth a cycle is the failure; a few pages are not: a
	# segment cut to fit a hole (LearnedFitPages) may leave its last pages
	# at the end of the file, and VACUUM cuts a free end only from a
	# sixteenth of the relation on (9 cycles measured 259 to 268 pages).
	cmp_ok($nock[2], '<=', $nock[0] + int($nock[0] / 16),
		'no growth over crash cycles without checkpoints beyond what VACUUM would not cut');
	$node->safe_psql('postgres', 'CHECKPOINT');
}

# VACUUM's truncation of a free tail, failed right after the cut: with an
# ERROR (the cut is not transactional: it stays, and so does everything the
# index can reach) and with a PANIC (recovery replays the cut).  The layout
# is dyn_truncation_layout's: the second VACUUM after it cuts.
foreach my $fp ('vacuum-after-truncate', 'vacuum-after-truncate:panic')
{
	my $before = dyn_truncation_layout($node, 't4');
	# a snapshot older than the first VACUUM's rewrite keeps the pages it
	# replaced (VACUUM frees them at once when no other snapshot predates
	# them) for the second VACUUM to free and cut
	my $snap = $node->background_psql('postgres');
	$snap->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$snap->query_safe('SELECT count(*) FROM t4');
	$node->safe_psql('postgres', 'VACUUM t4');
	$snap->query_safe('COMMIT');
	$snap->quit;
	$node->safe_psql('postgres', 'SELECT txid_current()');
	dyn_fail_with($node, $fp, 'VACUUM t4;', "truncation, $fp");
	my $after = dyn_info($node, 't4_k')->{total_pages};
	cmp_ok($after, '<', $before, "truncation, $fp: the index was cut ($before to $after pages)");
	dyn_compare($node, 't4', "truncation, $fp");
	dyn_all_found($node, 't4', "truncation, $fp");
	dyn_check($node, 't4_k', "truncation, $fp");
	# inserts and a merge after it
	$node->safe_psql('postgres', q{
INSERT INTO t4 (k) SELECT (i::int8 * 15485863) % 1000000 FROM generate_series(1, 20000) i;
SELECT learned_index_merge('t4_k');
});
	$node->safe_psql('postgres', 'VACUUM t4');
	dyn_compare($node, 't4', "truncation, $fp, then a merge");
	dyn_check($node, 't4_k', "truncation, $fp, then a merge");
}
$node->safe_psql('postgres', 'DROP TABLE t4');

# The worker: an ERROR in the background merge worker leaves the inserts
# alone; the index stays right, and a later merge works.
$node->safe_psql('postgres', q{LOAD 'learned_idx'; ALTER SYSTEM SET learned_idx.fail_point = 'merge-before-flip'});
$node->reload;
$node->safe_psql('postgres', 'ALTER INDEX t_k SET (merge_ratio = 100000, pending_limit = 1000000)');
my $log_offset = -s $node->logfile;
my $gen0 = dyn_info($node, 't_k')->{generation};
# the trigger: > nstatic / 100000 and >= 1024 pending entries
$node->safe_psql('postgres', q{
SET learned_idx.fail_point = '';
INSERT INTO t (k, v) SELECT (i::int8 * 7) % 1000000, 'w' FROM generate_series(1, 3000) i;
});
my $seen = 0;
for (my $i = 0; $i < 10 * $PostgreSQL::Test::Utils::timeout_default && !$seen; $i++)
{
	$seen = $node->log_contains(
		qr/background worker "learned_idx merge" \(PID \d+\) exited with exit code 1/, $log_offset);
	usleep(100_000) unless $seen;
}
ok($seen && $node->log_contains(qr/ERROR:  learned_idx fault injected at "merge-before-flip"/, $log_offset),
	'the merge worker ran and failed at the fail point');
is(dyn_info($node, 't_k')->{generation}, $gen0, 'the failed worker merge did not flip');
verify('after the failed worker merge');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET learned_idx.fail_point');
$node->reload;
$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
cmp_ok(dyn_info($node, 't_k')->{generation}, '>', $gen0, 'a later merge works');
$node->safe_psql('postgres', 'VACUUM t');
verify('the end');

$node->stop;
done_testing();
