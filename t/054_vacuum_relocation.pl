# VACUUM's relocation moves the segments at the end of the file into the
# file's holes, so that the file can be cut to the pages in use.  Cut to
# the longest hole (often just below the pages being emptied) and accepted
# if each piece only landed lower than its segment was, a moved segment
# could still end the file: in these churn rounds (a million rows; each
# round deletes a tenth and inserts a tenth of new random keys, then
# VACUUM) the file ended 1.04-1.43x the pages in use, 1.26x on average.
# Cut to the lowest holes, and moved only while the end of the pages in
# use goes down, it ends 1.01-1.21x, 1.07x on average (docs/architecture.md,
# "VACUUM and garbage collection").  What remains is mostly one segment of
# up to 128 pages that the holes below cannot take yet.  The rounds are
# deterministic: inserts do not merge (auto_merge off), VACUUM does.  Each
# round's file must be at most 1.3x the pages in use, and their mean at
# most 1.12x; then answers and the check.  Last, the truncation's lock
# (below).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use LearnedCheck;
use LearnedDynamic;

my $n = 1000000;
my $rounds = 8;
my $sum = 0;

my $node = quiet_node('relocation');
$node->safe_psql('postgres', qq{
CREATE TABLE c (k int8 NOT NULL, id int4 NOT NULL) WITH (autovacuum_enabled = off);
INSERT INTO c SELECT 10 * i, i FROM generate_series(1, $n) i ORDER BY hashint8(i);
CREATE INDEX c_k ON c USING learned (k);
VACUUM FREEZE c;
});
for my $r (1 .. $rounds)
{
	my $seed = $r * 7919 * $n;
	$node->safe_psql('postgres', qq{
SET learned_idx.auto_merge = off;
DELETE FROM c WHERE hashint8(k # $r) % 10 = 0;
INSERT INTO c (k, id) SELECT 10 * (1 + (hashint8(g + $seed) & 2147483647) % $n) + 1 + g % 9, -$r
  FROM generate_series(1, $n / 10) g;
});
	$node->safe_psql('postgres', 'VACUUM c');
	my $info = dyn_info($node, 'c_k');
	my $used = 1 + $info->{directory_pages} + $info->{leaf_pages} + $info->{null_pages}
	  + $info->{pending_pages};
	note "round $r: $info->{total_pages} pages, $used in use, $info->{segments} segments";
	is($info->{pending_entries}, 0, "round $r: VACUUM merged the pending list");
	cmp_ok($info->{total_pages}, '<=', 1.3 * $used,
		"round $r: the file is at most 1.3x the pages in use");
	$sum += $info->{total_pages} / $used;
}
cmp_ok($sum / $rounds, '<=', 1.12,
	'over the rounds, the file is at most 1.12x the pages in use on average');
index_vs_seq($node, 'c', 'after the churn rounds');

# The truncation's lock.  A transaction that scanned the index holds its
# lock until it ends, as a statement in flight or a merge worker waiting
# for VACUUM's merge lock does.  VACUUM asks for the lock without queueing
# again and again for up to two seconds, as it does for a heap's, so a
# transaction that ends meanwhile no longer keeps the file from being cut
# (asked once, the truncation was skipped).  The layout is
# dyn_truncation_layout's, whose next VACUUM cuts the file.
{
	my $before = dyn_truncation_layout($node, 'tl');
	my $s = $node->background_psql('postgres', on_error_stop => 0);
	$s->query_safe('BEGIN');
	like($s->query_safe('SET enable_seqscan = off; SET enable_bitmapscan = off; '
		  . 'EXPLAIN (COSTS OFF) SELECT count(*) FROM tl WHERE k = 7919'),
		qr/tl_k/, 'truncation lock: the transaction scans the index');
	$s->query_safe('SELECT count(*) FROM tl WHERE k = 7919');
	my $v = $node->background_psql('postgres', on_error_stop => 0);
	$v->query_until(qr/started/, "\\echo started\nVACUUM tl;\n");
	# VACUUM reaches the truncation within milliseconds, then asks again
	usleep(500_000);
	$s->query_safe('COMMIT');
	$s->quit;
	$v->query("SELECT 'done'");
	is($v->{stderr}, '', 'truncation lock: VACUUM ended without an error');
	$v->quit;
	my $after = dyn_info($node, 'tl_k')->{total_pages};
	cmp_ok($after, '<', $before,
		"truncation lock: VACUUM cut the index once the transaction ended ($before to $after pages)");
	dyn_compare($node, 'tl', 'truncation lock');
	dyn_check($node, 'tl_k', 'truncation lock');
}
is($node->safe_psql('postgres', "SELECT learned_index_check('c_k', true)"), 't',
	'learned_index_check');

$node->stop;
done_testing();
