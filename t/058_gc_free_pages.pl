# A flush collects garbage only when there is garbage to collect
# (merge.c, collect_garbage_if_due): the unreachable pages it counts leave
# out those the free space map records as FREE.  Counted, a file holding
# many FREE pages (a merge's old generation, recycled by VACUUM and not
# truncated) made every flush read them all again and free nothing new;
# and within a statement it leaves out the pages this backend's last pass
# found waiting (the INSERT's own snapshot keeps what its flushes replace).
# Here: after such a VACUUM, a dozen INSERTs that each flush the tail
# into a sorted run; their collection passes (logged with
# learned_idx.log_merge_min_duration = 0) are counted against their
# flushes.  Then the index answers as a sequential scan does and passes
# learned_index_check.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('gc_free_pages');
$node->init;
$node->append_conf('postgresql.conf', q{
autovacuum = off
learned_idx.log_merge_min_duration = 0
log_statement = none
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
# merge_ratio 1 and a huge pending_limit: no merge unless asked
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8) WITH (autovacuum_enabled = off);
INSERT INTO t (k) SELECT i * 10 FROM generate_series(1, 300000) i;
CREATE INDEX t_k ON t USING learned (k)
	WITH (merge_ratio = 1, pending_limit = 2000000, vacuum_truncate = off);
INSERT INTO t (k) SELECT (random() * 300000)::int8 * 10 + 5 FROM generate_series(1, 30000);
SELECT learned_index_merge('t_k');
VACUUM t;
});

my $free = $node->safe_psql('postgres', q{
SELECT i.total_pages - (SELECT sum(pages) FROM learned_index_segments('t_k'))
	- i.directory_pages - i.null_pages - i.pending_pages - 1
FROM learned_index_info('t_k') i});
cmp_ok($free, '>', 100, "the file holds FREE pages after the merge and VACUUM ($free)");

sub passes
{
	my @n = (slurp_file($node->logfile) =~ /collected garbage/g);
	return scalar @n;
}

sub runs
{
	return $node->safe_psql('postgres',
		q{SELECT count(*) FROM learned_index_runs('t_k') WHERE run IS NOT NULL});
}

# each INSERT completes at least two tail pages past tail_limit: a flush
my $before = passes();
my $flushes = 0;
for my $i (1 .. 12)
{
	my $runs = runs();
	$node->safe_psql('postgres', qq{
SET learned_idx.tail_limit = 300;
INSERT INTO t (k) SELECT (i::int8 * 15485863 + $i * 104729) % 3000000 * 10 + 3
FROM generate_series(1, 1100) i;});
	# a flush adds a run; a compaction after it takes four away
	$flushes++ if runs() != $runs;
}
my $passes = passes() - $before;
cmp_ok($flushes, '>=', 10, "the INSERTs flushed ($flushes of 12 changed the run table)");
cmp_ok($passes, '<=', 4, "their flushes ran $passes collection passes");

dyn_compare($node, 't', 'after the flushes');
dyn_check($node, 't_k', 'after the flushes');

$node->stop;
done_testing();
