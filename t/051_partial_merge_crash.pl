# Partial rewrites (merge.c, partial_rewrite: a merge whose new entries
# reach only some pages of a segment keeps the runs of pages they do not
# reach as segments of their own and rewrites the rest), failing at each
# step: an ERROR or a PANIC right after a kept part is added to the new
# directory (merge-after-keep-part), before the flip and after it.  After
# each failure and the crash recovery: every row is found through the index,
# index scans (all modes) agree with a sequential scan, learned_index_check
# (heapallindexed) passes; then a clean merge keeps parts of the segments
# and the same holds.  Each batch adds keys in one narrow stretch (between
# old keys) and copies of old keys there, so runs of equal keys span the
# boundaries between kept and rewritten parts.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('partial_crash');
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
# 100000 keys 0, 5, ..., 499995 (heap in scattered order), plain pages (a
# segment of about 70 pages); merge_ratio 1 and a huge pending_limit: no
# merge unless asked.
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v text) WITH (autovacuum_enabled = off);
INSERT INTO t (k, v) SELECT ((i::int8 * 7919) % 100000) * 5, 'b' FROM generate_series(0, 99999) i;
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 1, pending_limit = 2000000, compression = off);
ANALYZE t;
});

# The blocks of the static stage now: "start|pages" per segment.
sub static_blocks
{
	my %b;
	foreach my $row (split /\n/, $node->safe_psql('postgres',
		"SELECT start_block || '|' || pages FROM learned_index_segments('t_k')"))
	{
		my ($s, $p) = split /\|/, $row;
		$b{$_} = 1 for ($s .. $s + $p - 1);
	}
	return \%b;
}

# Segments of the static stage now whose first block was a static page in
# $before, and all segments.
sub kept_segments
{
	my ($before) = @_;
	my ($kept, $all) = (0, 0);
	foreach my $row (split /\n/, $node->safe_psql('postgres',
		"SELECT start_block FROM learned_index_segments('t_k')"))
	{
		$all++;
		$kept++ if $before->{$row};
	}
	return ($kept, $all);
}

my $batch = 0;
sub narrow_batch
{
	$batch++;
	my $lo = 100000 * $batch;
	$node->safe_psql('postgres', qq{
INSERT INTO t (k, v) SELECT $lo + 1 + i * 5, 'n$batch' FROM generate_series(0, 1999) i;
INSERT INTO t (k, v) SELECT $lo + i * 50, 'c$batch' FROM generate_series(0, 199) i;
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

my @cycles = (
	[ 'merge-after-keep-part',       0 ],
	[ 'merge-after-keep-part:panic', 0 ],
	[ 'merge-before-flip:panic',     0 ],
	[ 'merge-after-flip:panic',      undef ],);

foreach my $c (@cycles)
{
	my ($fp, $gen_moves) = @$c;
	my $name = "partial merge failing at $fp";
	narrow_batch();
	my $before = static_blocks();
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
	verify("after $name");

	# the next merge (if the failed one did not flip) keeps parts
	my $pending = dyn_info($node, 't_k')->{pending_entries};
	$before = static_blocks();
	$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
	is(dyn_info($node, 't_k')->{pending_entries}, '0', "$name: nothing pending after the next merge");
	my ($kept, $all) = kept_segments($before);
	if ($pending > 0)
	{
		cmp_ok($kept, '>=', 2, "$name: the next merge kept parts of the static stage ($kept of $all segments)");
		cmp_ok($kept, '<', $all, "$name: and wrote new segments ($kept of $all kept)");
	}
	verify("after $name and a clean merge");
	$node->safe_psql('postgres', 'SELECT txid_current()');
	$node->safe_psql('postgres', 'VACUUM t');
	dyn_check($node, 't_k', "after $name, merge and VACUUM");
}

$node->stop;
done_testing();
