# VACUUM and scans whose view predates a merge (the interlock of the AM API
# extended to copy-on-write merges).
#
# A cursor's index-only scan takes its view (directory generation and
# pending entries) and stops on its first page.  Rows deleted before its
# snapshot are still in that view.  VACUUM then merges first (the pending
# list is not empty), which copies every entry into new pages, marks the
# deleted ones dead there, and would let the heap pass free their slots and
# set the heap pages all-visible.  The cursor, reading the old pages, would
# then return the deleted rows' keys without visiting the heap.
#
# VACUUM must mark the deleted entries dead on the replaced pages too, under
# a cleanup lock, so it waits for the cursor to leave the page it pins; the
# cursor must return exactly the rows of its snapshot.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use LearnedCheck;

my $node = PostgreSQL::Test::Cluster->new('retired');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE p (id int, k int8) WITH (autovacuum_enabled = off);
INSERT INTO p SELECT i, i FROM generate_series(1, 20000) i;
CREATE INDEX p_k ON p USING learned (k);
VACUUM p;
DELETE FROM p WHERE k BETWEEN 15001 AND 15200;
INSERT INTO p SELECT i, i FROM generate_series(30001, 30500) i;
});
my $info = $node->safe_psql('postgres',
	"SELECT pending_entries FROM learned_index_info('p_k')");
is($info, '500', 'the inserted rows are in the pending list');

my $reader = $node->background_psql('postgres');
$reader->query_safe(q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
BEGIN ISOLATION LEVEL REPEATABLE READ;
DECLARE c CURSOR FOR SELECT k FROM p WHERE k > 0 ORDER BY k;
});
like($node->safe_psql('postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM p WHERE k > 0 ORDER BY k}),
	qr/Index Only Scan using p_k/, 'the cursor uses an index-only scan');
is($reader->query_safe('FETCH 1 FROM c'), '1', 'the cursor stands on its first row');

# VACUUM in the background: it may wait for the cursor's pin.
my $vacuum = $node->background_psql('postgres');
$vacuum->query_until(qr/vacuum started/, "\\echo vacuum started\nVACUUM p;\n\\echo vacuum done\n");

# Let VACUUM get as far as it can: done, or waiting for the cursor's pin.
my $state = '';
for (my $i = 0; $i < 300; $i++)
{
	$state = $node->safe_psql('postgres', q{
SELECT coalesce((SELECT coalesce(max(wait_event), 'running') FROM pg_stat_activity
 WHERE query = 'VACUUM p;' AND state = 'active' HAVING count(*) > 0), 'finished')});
	last if $state eq 'BufferPin' || $state eq 'finished';
	usleep(100_000);
}
note("VACUUM state while the cursor is open: $state");

my $rows = $reader->query_safe('FETCH ALL FROM c');
my @keys = split /\n/, $rows;
my @deleted = grep { $_ >= 15001 && $_ <= 15200 } @keys;
is(scalar(@deleted), 0, 'the cursor returned no deleted row')
  or diag('deleted rows returned, e.g. ' . join(',', @deleted[ 0 .. ($#deleted < 4 ? $#deleted : 4) ]));
is(scalar(@keys) + 1, 20000 - 200 + 500, 'the cursor returned every row of its snapshot once');
$reader->query_safe('COMMIT');
$reader->quit;

$vacuum->query_until(qr/vacuum done/, '');
$vacuum->quit;

is($node->safe_psql('postgres', 'SELECT count(*) FROM p WHERE k BETWEEN 15001 AND 15200'),
	'0', 'the deleted rows stay deleted');
index_vs_seq($node, 'p', 'after VACUUM');
$node->stop;
done_testing();
