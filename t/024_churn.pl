# Churn: a table whose live size stays constant (each round inserts N rows
# and deletes N old ones) must not make its learned index grow forever: the
# merges rewrite segments copy-on-write, and VACUUM's garbage collection has
# to recycle the pages they replaced.  The index size (pg_relation_size)
# must stop growing: the last rounds are no larger than 1.3x the largest
# size of the first three rounds.
#
# Two VACUUM patterns:
#  A. two VACUUMs per round, the second after the first one's merge is past
#     every snapshot horizon (the first VACUUM merges the pending list, so
#     its own garbage collection has to wait for its own xid);
#  B. one VACUUM per round, as autovacuum would run it: each VACUUM finds a
#     pending list to merge first.
# Every round checks the answers and learned_index_check.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use List::Util qw(max);
use LearnedDynamic;

my $rounds = 10;
my $n = 10000;

my $node = PostgreSQL::Test::Cluster->new('churn');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
shared_buffers = 16MB
log_statement = none
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', 'CREATE EXTENSION pageinspect');

sub churn_test
{
	my ($t, $vacuums) = @_;
	$node->safe_psql('postgres', qq{
CREATE TABLE $t (id serial, k int8, v int) WITH (autovacuum_enabled = off);
INSERT INTO $t (k, v) SELECT (i::int8 * 7919) % 1000000, 0 FROM generate_series(1, 50000) i;
-- no merge but the ones VACUUM starts
CREATE INDEX ${t}_k ON $t USING learned (k) WITH (merge_ratio = 1, pending_limit = 1000000);
});
	my @sizes;
	for my $r (1 .. $rounds)
	{
		$node->safe_psql('postgres', qq{
INSERT INTO $t (k, v) SELECT (i::int8 * 15485863 + $r * 7) % 1000000, $r FROM generate_series(1, $n) i;
DELETE FROM $t WHERE id IN (SELECT id FROM $t ORDER BY id LIMIT $n);
});
		for my $v (1 .. $vacuums)
		{
			# advance the xid counter between the VACUUMs
			$node->safe_psql('postgres', 'SELECT txid_current()') if $v > 1;
			$node->safe_psql('postgres', "VACUUM $t");
		}
		my $size = $node->safe_psql('postgres', "SELECT pg_relation_size('${t}_k') / 8192");
		my $types = dyn_page_types($node, "${t}_k");
		my $info = dyn_info($node, "${t}_k");
		push @sizes, $size;
		note "$t round $r: $size pages, free " . ($types->{6} // 0)
		  . ", leaf $info->{leaf_pages}, generation $info->{generation}";
		if ($r % 3 == 0 || $r == $rounds)
		{
			dyn_compare($node, $t, "$t round $r");
			dyn_check($node, "${t}_k", "$t round $r");
		}
	}
	note "$t: index size per round (pages): @sizes";
	# the largest of the first three rounds: VACUUM may truncate a free
	# tail, so the size need not grow monotonically
	my $first = max(@sizes[ 0 .. 2 ]);
	my $bound = 1.3 * $first;
	for my $r (($rounds - 2) .. $rounds)
	{
		cmp_ok($sizes[ $r - 1 ], '<=', $bound,
			"$t ($vacuums VACUUM per round): round $r size is at most 1.3x the largest of rounds 1-3 ($first)");
	}
	return;
}

churn_test('a', 2);
churn_test('b', 1);

$node->stop;
done_testing();
