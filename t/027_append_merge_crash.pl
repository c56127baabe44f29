# The append path of a merge (merge.c: new keys past the last segment's last
# key become new segments after it; the last segment keeps its pages),
# failing at each step: an ERROR or a PANIC after the new segment is written
# (merge-after-append-segment), before the flip and after it.  After each
# failure and the crash recovery: every row is found through the index, index
# scans (both directions) agree with a sequential scan, learned_index_check
# (heapallindexed) passes; the next merge takes the append path, keeping the
# old last segment's blocks.  Every batch holds rows equal to the current
# last key, so runs of equal keys span the kept/new segment boundaries.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('append_crash');
$node->init;
$node->append_conf('postgresql.conf', qq{
restart_after_crash = on
autovacuum = off
checkpoint_timeout = 1h
max_wal_size = 2GB
shared_buffers = 16MB
log_statement = none
});
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
# 100000 keys 0, 5, ..., 499995 (heap in scattered order); merge_ratio 1 and
# a huge pending_limit: no merge unless asked.
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v text) WITH (autovacuum_enabled = off);
INSERT INTO t (k, v) SELECT ((i::int8 * 7919) % 100000) * 5, 'b' FROM generate_series(0, 99999) i;
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 1, pending_limit = 2000000, compression = off);
ANALYZE t;
});

# The last segment as "start_block|pages|entries".
sub last_segment
{
	return $node->safe_psql('postgres', q{
SELECT start_block || '|' || pages || '|' || entries FROM learned_index_segments('t_k')
ORDER BY segment DESC LIMIT 1});
}

sub has_segment
{
	my ($seg) = @_;
	return $node->safe_psql('postgres', qq{
SELECT count(*) FROM learned_index_segments('t_k')
WHERE start_block || '|' || pages || '|' || entries = '$seg'});
}

# 40000 appended keys (a new segment of about 70 pages, large enough to be
# kept by the next append merge), 3 of them equal to the current last key.
my $batch = 0;
sub append_batch
{
	$batch++;
	$node->safe_psql('postgres', qq{
INSERT INTO t (k, v) SELECT max(k), 'd$batch' FROM t, generate_series(1, 3);
INSERT INTO t (k, v) SELECT m + 1 + i * 2, 'a$batch'
FROM (SELECT max(k) AS m FROM t) s, generate_series(0, 39999) i;
});
	return;
}

sub verify
{
	my ($name) = @_;
	dyn_compare($node, 't', $name);
	dyn_all_found($node, 't', $name, step => 3);
	dyn_check($node, 't_k', $name);
	return;
}

# A first append merge: the built last segment is large, so it is kept.
my $seg = last_segment();
append_batch();
$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
is(has_segment($seg), '1', "a clean append merge keeps the last segment's blocks ($seg)");
verify('after a clean append merge');

my @cycles = (
	[ 'merge-after-append-segment:panic', 0 ],
	[ 'merge-after-append-segment',       0 ],
	[ 'merge-before-flip:panic',          0 ],
	[ 'merge-after-flip:panic',           undef ],);

foreach my $c (@cycles)
{
	my ($fp, $gen_moves) = @$c;
	my $name = "append merge failing at $fp";
	$seg = last_segment();
	append_batch();
	my $gen0 = dyn_info($node, 't_k')->{generation};
	dyn_fail_with($node, $fp, "SELECT learned_index_merge('t_k');", $name);
	my $gen1 = dyn_info($node, 't_k')->{generation};
	if (defined $gen_moves)
	{
		is($gen1, $gen0 + $gen_moves, "$name: generation unchanged");
	}
	else
	{
		ok($gen1 == $gen0 || $gen1 == $gen0 + 1, "$name: generation is the old one or the next");
	}
	is(has_segment($seg), '1', "$name: the old last segment is still there with its blocks");
	verify("after $name");

	# the next merge (if the pending list is not merged yet) keeps it too,
	# if it is large enough (LEARNED_APPEND_KEEP_MIN_PAGES, 64 pages): a
	# merge that found no hole of 70 pages cut the batch before into a
	# segment for the largest hole and a small rest, which the append path
	# rewrites with the new keys (where the holes are depends on the pages
	# the runs took, so the cut may or may not happen)
	my $segpages = (split /\|/, $seg)[1];
	my $pending = dyn_info($node, 't_k')->{pending_entries};
	$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
	is(dyn_info($node, 't_k')->{pending_entries}, '0', "$name: nothing pending after the next merge");
	is(has_segment($seg), ($segpages >= 64 || $pending == 0) ? '1' : '0',
		"$name: the next merge kept the old last segment's blocks (rewrote it if small, $segpages pages)");
	verify("after $name and a clean merge");
	$node->safe_psql('postgres', 'SELECT txid_current()');
	$node->safe_psql('postgres', 'VACUUM t');
	dyn_check($node, 't_k', "after $name, merge and VACUUM");
}

# Every appended batch became its own segment(s) after the kept ones.
my $nseg = $node->safe_psql('postgres', "SELECT count(*) FROM learned_index_segments('t_k')");
cmp_ok($nseg, '>=', 2 + 5, "segments: $nseg (the built ones plus one per batch at least)");

$node->stop;
done_testing();
