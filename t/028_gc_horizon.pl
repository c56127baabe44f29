# Garbage collection while merges follow each other faster than the
# longest snapshot.
#
# A scan whose view predates a merge's flip reads the pages the flip
# replaced, so they are freed only once no snapshot that old remains.  The
# collector used to wait until the *last* flip was that old: on a busy
# index, where another merge has nearly always flipped since, little was
# freed.  Each replaced page now carries the transaction id of the pass
# that first found it unreachable, and is freed once that id is older than
# every snapshot, whatever flipped since.
#
# Here a merge runs under an open snapshot (its replaced pages are stamped,
# not freed); then, under a newer snapshot whose cursor stands on the pages
# of the next merge's old generation, VACUUM must free the first merge's
# pages, keep the second's, and the cursor must still read its rows.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

# A streaming standby replays the stamps (generic WAL records) and checks
# every replayed page against the primary's image.
my $node = PostgreSQL::Test::Cluster->new('gc_horizon');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
autovacuum = off
wal_consistency_checking = 'generic'
});
$node->start;
$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('gc_standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->start;
$node->safe_psql('postgres',
	'CREATE EXTENSION learned_idx; CREATE EXTENSION pg_freespacemap');
# merge_ratio = 1: 2,000 inserts into 20,000 entries start no merge of their
# own; compression = off: 35 leaf pages rather than 8, between the bounds below
$node->safe_psql('postgres', q{
CREATE TABLE g (id int, k int8) WITH (autovacuum_enabled = off);
INSERT INTO g SELECT i, (i * 7919) % 1000003 FROM generate_series(1, 20000) i;
CREATE INDEX g_k ON g USING learned (k) WITH (merge_ratio = 1, compression = off);
});

my $round = 0;

# 2,000 keys spread over the whole key range, then a merge: it rewrites
# every segment, so it replaces (nearly) every leaf page
sub insert_and_merge
{
	$round++;
	$node->safe_psql('postgres', qq{
INSERT INTO g SELECT 1000000 * $round + i, (i * 499 + $round) % 1000003
  FROM generate_series(1, 2000) i;
SELECT learned_index_merge('g_k');
});
	return;
}

sub free_pages
{
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_freespace('g_k') WHERE avail > 0");
}

my $leaf_pages = $node->safe_psql('postgres',
	"SELECT leaf_pages FROM learned_index_info('g_k')");
# A merge collects garbage itself only past 64 unreachable pages
# (collect_garbage_if_due); below that, VACUUM is the only collector, and
# what it may free is what this test watches.
cmp_ok($leaf_pages, '>=', 10, "the index has $leaf_pages leaf pages");
cmp_ok($leaf_pages, '<=', 50, 'too few for a merge to collect garbage itself');
is(free_pages(), '0', 'no free page after the build');

# 1. a merge under an open snapshot: VACUUM may not free what it replaced
my $s0 = $node->background_psql('postgres');
$s0->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$s0->query_safe('SELECT count(*) FROM g');
insert_and_merge();
$node->safe_psql('postgres', 'VACUUM g');
is(free_pages(), '0', 'pages replaced after the oldest snapshot began are not freed');

# 2. that snapshot ends, a newer one begins, and a cursor of it takes its
# view (the current generation) before the next merge
$s0->query_safe('COMMIT');
$s0->quit;
$node->safe_psql('postgres', 'SELECT txid_current()');
my $s1 = $node->background_psql('postgres');
$s1->query_safe(q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
BEGIN ISOLATION LEVEL REPEATABLE READ;
DECLARE c CURSOR FOR SELECT k FROM g WHERE k >= 0 ORDER BY k;
});
my $first = $s1->query_safe('FETCH 1 FROM c');
my $expect = $node->safe_psql('postgres', 'SELECT count(*) FROM g');
insert_and_merge();
$node->safe_psql('postgres', 'VACUUM g');

# the first merge's pages are older than every snapshot: freed, although
# the last flip (the second merge's) is not
my $freed = free_pages();
cmp_ok($freed, '>=', int($leaf_pages / 2),
	"VACUUM frees the pages replaced before the oldest snapshot ($freed free)");

# the second merge's pages are still the cursor's: none was freed
my $rows = $s1->query_safe('FETCH ALL FROM c');
my @keys = split /\n/, $rows;
is(scalar(@keys) + 1, $expect, 'the cursor reads every row of its snapshot from the replaced pages');
my @sorted = sort { $a <=> $b } ($first, @keys);
is_deeply([ $first, @keys ], \@sorted, 'in order');
$s1->query_safe('COMMIT');
$s1->quit;

# 3. with no snapshot left, the rest goes too
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'VACUUM g');
cmp_ok(free_pages(), '>', $freed, 'the second merge\'s pages are freed once the cursor is gone');

# the freed pages are used again: the next merge does not grow the index
my $pages = $node->safe_psql('postgres', "SELECT pg_relation_size('g_k') / 8192");
insert_and_merge();
is($node->safe_psql('postgres', "SELECT pg_relation_size('g_k') / 8192"), $pages,
	'the next merge reuses freed pages');

is($node->safe_psql('postgres', "SELECT learned_index_check('g_k', true)"), 't',
	'learned_index_check passes');
index_vs_seq($node, 'g', 'after the merges');

# the standby replayed the stamps and the frees, page for page
$node->wait_for_catchup($standby);
is(index_vs_seq($standby, 'g', 'on the standby'), index_vs_seq($node, 'g', 'on the primary'),
	'the standby has the primary\'s rows');
is($standby->safe_psql('postgres', "SELECT learned_index_check('g_k')"), 't',
	'learned_index_check passes on the standby');
$standby->stop;
$node->stop;
done_testing();
