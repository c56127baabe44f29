# Garbage collection reads the whole file (every page no generation
# reaches), which takes milliseconds for a few hundred pages.  It holds the
# metapage in share mode only (docs/architecture.md, "VACUUM and garbage
# collection"): appends to the tail page and scans, which share-lock the
# metapage too, go on while it runs; an insert that links a new tail page
# waits for it.  Each case holds a collection at its fault point
# (learned_idx.fail_point = 'gc-pass:sleep', three seconds, the metapage
# locked) and checks that another session's statements finish while it is
# still held.  Then the index against a sequential scan, and its check.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $node = quiet_node('gc_concurrent');
$node->safe_psql('postgres', q{
CREATE TABLE t (k int8, id serial);
INSERT INTO t (k) SELECT i * 10 FROM generate_series(1, 100000) i;
CREATE INDEX t_k ON t USING learned (k);
});

# Pages for the collection: a merge of random keys rewrites every segment
# and leaves the old generation unreachable.  The random keys end in 5, so
# that they never equal a key the cases below count (those end in 0, or are
# negative).
sub make_garbage
{
	$node->safe_psql('postgres', q{
INSERT INTO t (k) SELECT (random() * 100000)::int8 * 10 + 5 FROM generate_series(1, 20000);
SELECT learned_index_merge('t_k');
});
}

# Passes logged so far (learned_idx.log_merge_min_duration = 0 in the
# held session: a pass logs its line before it releases the metapage).
sub passes
{
	my @n = (slurp_file($node->logfile) =~ /collected garbage/g);
	return scalar @n;
}

# Start VACUUM in a session held at the collection's fault point, run
# $meanwhile (a code ref) and return the passes that ended meanwhile.
sub held_gc
{
	my ($meanwhile) = @_;
	my ($a) = held_start($node, 'gc-pass', 'VACUUM t',
		'SET learned_idx.log_merge_min_duration = 0');
	my $before = passes();
	$meanwhile->();
	my $ended = passes() - $before;
	# VACUUM may collect more than once; each pass waits at the point
	is(held_end($a), '', 'the held VACUUM ended without an error');
	return $ended;
}

# 1. an insert that appends to the tail page, and an index scan, finish
# within the held pass: no pass ended meanwhile
make_garbage();
my ($ins, $sel);
my $ended = held_gc(sub {
	$ins = $node->safe_psql('postgres',
		'INSERT INTO t (k) VALUES (-5), (-6) RETURNING 1');
	$sel = $node->safe_psql('postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM t WHERE k IN (-5, -6, 4240)});
});
is($ended, 0, 'an append and an index scan did not wait for the collection');
is($sel, '3', 'the index scan during the collection found its rows');

# 2. inserts that link new tail pages wait for the collection, then go on
make_garbage();
$ended = held_gc(sub {
	$node->safe_psql('postgres',
		'INSERT INTO t (k) SELECT -100 - i FROM generate_series(1, 3000) i');
});
cmp_ok($ended, '>=', 1, 'inserts that link new tail pages waited for the collection');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE k <= -100'), '3000',
	'inserts that linked new tail pages: every row');

index_vs_seq($node, 't', 'after collections with concurrent writes');
is($node->safe_psql('postgres', "SELECT learned_index_check('t_k', true)"), 't',
	'learned_index_check');

$node->stop;
done_testing();
