# Pages a writer claimed and never wrote: an empty LEAF page of generation 0
# (LearnedClaimBlock's mark), left by a flush that failed between claiming
# its pages and writing them, or by a run of blocks LearnedAllocRun gave up
# half claimed because an insert took one of them.  Garbage collection frees
# them, but waits while a snapshot older than the last flip exists, and
# until then VACUUM's walk over retired pages meets them.  For indexes whose
# leaf pages have a variable-width or stride layout (INCLUDE, text, a
# composite key) such a page must not be taken for a damaged one: the
# VACUUM used to fail with "bad variable-width leaf page header", under
# concurrent inserts and merges.  The fault point flush-after-claim makes
# the pages deterministically; a snapshot held in another database keeps
# garbage collection (whose horizon spans every database) from freeing them
# without holding back the table's own VACUUM.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('claimed');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
learned_idx.auto_merge = off
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION learned_idx;
CREATE EXTENSION pageinspect;
CREATE DATABASE other;
});

# Claimed, unwritten pages: LEAF (type 2), no entries, generation 0, no flags.
sub claimed_pages
{
	my ($idx) = @_;
	return $node->safe_psql('postgres', qq{
SELECT count(*)
FROM (SELECT get_raw_page('$idx', b::int) p
      FROM generate_series(1, pg_relation_size('$idx') / 8192 - 1) b) s
WHERE get_byte(p, 8190) = 154 AND get_byte(p, 8191) = 255
  AND get_byte(p, 8176) = 2 AND get_byte(p, 8177) = 0
  AND substr(p, 8179, 6) = '\\x000000000000'::bytea
  AND substr(p, 8189, 2) = '\\x0000'::bytea});
}

# Each case: a table, its learned index, the key columns (the index's
# order) and a key expression of the generate_series value g for inserts.
my @cases = (
	[ 'ti', 'k int8, v int4', 'ti_k', '(k) INCLUDE (v)', 'k',
	  'k, v', '(g::int8 * 7919 + %d) % 1000000, g % 97' ],
	[ 'tt', 's text', 'tt_s', '(s)', 's',
	  's', "'key' || ((g * 104729 + %d) % 1000000)::text" ],
	[ 'tc', 'a int4, b int4', 'tc_ab', '(a, b)', 'a, b',
	  'a, b', '(g * 31 + %d) % 1000, g % 53' ],
);

my $batch = 0;

sub insert_sql
{
	my ($t, $cols, $expr, $n) = @_;
	$batch++;
	my $e = sprintf($expr, $batch * 7);
	return "INSERT INTO $t ($cols) SELECT $e FROM generate_series(1, $n) g";
}

sub same_as_seqscan
{
	my ($t, $keys, $name) = @_;
	my $q = qq{SELECT count(*), md5(string_agg(x, ',')) FROM
  (SELECT ($keys)::text x FROM $t ORDER BY $keys) s};
	my $set = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;';
	my $idx = $node->safe_psql('postgres', "$set $q");
	like($node->safe_psql('postgres', "$set EXPLAIN (COSTS OFF) $q"),
		qr/Index (Only )?Scan using ${t}_/, "$name: the query uses the learned index");
	my $seq = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q");
	is($idx, $seq, "$name: an index scan returns what a sequential scan does");
	return;
}

foreach my $c (@cases)
{
	my ($t, $coldefs, $idx, $idxdef, $keys, $cols, $expr) = @$c;

	$node->safe_psql('postgres',
		"CREATE TABLE $t (id serial, $coldefs) WITH (autovacuum_enabled = off)");
	$node->safe_psql('postgres', insert_sql($t, $cols, $expr, 20000));
	$node->safe_psql('postgres', "CREATE INDEX $idx ON $t USING learned $idxdef");

	# free pages: a merge replaces the static stage, VACUUM recycles it
	$node->safe_psql('postgres', insert_sql($t, $cols, $expr, 3000));
	$node->safe_psql('postgres', "SELECT learned_index_merge('$idx')");
	$node->safe_psql('postgres', "VACUUM $t");

	# a snapshot elsewhere, then a flush that flips after it
	my $old = $node->background_psql('other');
	$old->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$old->query_safe('SELECT 1');
	$node->safe_psql('postgres',
		"SET learned_idx.tail_limit = 100; " . insert_sql($t, $cols, $expr, 2000));

	# a flush that fails between claiming its pages and writing them
	dyn_fail_with($node, 'flush-after-claim',
		"SET learned_idx.tail_limit = 100;\n" . insert_sql($t, $cols, $expr, 2000),
		"$idx: flush");
	my $claimed = claimed_pages($idx);
	cmp_ok($claimed, '>', 0, "$idx: the failed flush left $claimed claimed pages");

	# VACUUM with dead rows: its walk over retired pages meets them
	$node->safe_psql('postgres', "DELETE FROM $t WHERE id % 5 = 0");
	my ($ret, $out, $err) = $node->psql('postgres', "VACUUM $t");
	is($ret, 0, "$idx: VACUUM succeeds") or diag($err);
	is(claimed_pages($idx), $claimed,
		"$idx: garbage collection kept them for the older snapshot");
	same_as_seqscan($t, $keys, "$idx: after VACUUM");
	is($node->safe_psql('postgres', "SELECT learned_index_check('$idx', true)"),
		't', "$idx: learned_index_check passes");

	# once the snapshot is gone, garbage collection frees them
	$old->quit;
	$node->safe_psql('postgres', "VACUUM $t");
	$node->safe_psql('postgres', "VACUUM $t");
	is(claimed_pages($idx), '0', "$idx: garbage collection freed them");
	same_as_seqscan($t, $keys, "$idx: at the end");
}

$node->stop;
done_testing();
