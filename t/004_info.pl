# learned_index_info() stays coherent with the table through build,
# inserts, deletes, vacuum, restart and crash.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $node = PostgreSQL::Test::Cluster->new('info');
$node->init;
$node->append_conf('postgresql.conf', 'autovacuum = off');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');

sub info
{
	my ($cols) = @_;
	return $node->safe_psql('postgres', "SELECT $cols FROM learned_index_info('t_k')");
}

# The figures that must hold at any time.
sub coherent
{
	my ($name) = @_;
	is( $node->safe_psql(
			'postgres', q{
SELECT i.entries + i.null_entries + i.pending_entries - i.dead_entries = (SELECT count(*) FROM t),
       i.total_pages = pg_relation_size('t_k') / current_setting('block_size')::int,
       i.total_pages >= 1 + i.directory_pages + i.leaf_pages + i.null_pages + i.pending_pages,
       (SELECT coalesce(bool_and(s.pages = ceil(s.entries::numeric / s.items_per_page)), true)
               AND coalesce(sum(s.pages), 0) = i.leaf_pages
        FROM learned_index_segments('t_k') s WHERE s.kind IS DISTINCT FROM 'nulls'),
       i.max_error <= i.error_bound AND i.mean_error <= i.max_error,
       (SELECT coalesce(sum(s.entries), 0) FROM learned_index_segments('t_k') s
        WHERE s.kind IS DISTINCT FROM 'nulls') = i.entries,
       (SELECT count(*) FROM learned_index_segments('t_k') s
        WHERE s.kind IS DISTINCT FROM 'nulls') = i.segments
FROM learned_index_info('t_k') i}),
		't|t|t|t|t|t|t',
		"$name: figures coherent");
	return;
}

$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8);
INSERT INTO t (k) SELECT i * 2 FROM generate_series(1, 40000) i;
INSERT INTO t (k) SELECT NULL FROM generate_series(1, 77);
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 1, error_bound = 16);
});
is(info('entries, null_entries, pending_entries, dead_entries, error_bound'),
	'40000|77|0|0|16', 'after build');
coherent('after build');
my $gen0 = info('generation');

# Inserts: below the merge ratio, they stay pending.
$node->safe_psql('postgres', q{
INSERT INTO t (k) SELECT i * 2 + 1 FROM generate_series(1, 1000) i;
INSERT INTO t (k) VALUES (NULL), (NULL), (NULL);
});
is(info('entries, null_entries, pending_entries'), '40000|77|1003', 'after inserts: 1003 pending');
coherent('after inserts');
ok(info('generation') >= $gen0, 'generation never goes back');
index_vs_seq($node, 't', 'after inserts');

# The pending entries survive a clean restart and a crash.
$node->restart;
is(info('entries, null_entries, pending_entries'), '40000|77|1003', 'after restart');
crash_restart($node);
is(info('entries, null_entries, pending_entries'), '40000|77|1003', 'after crash');
coherent('after crash');

# Deletes, then VACUUM.
$node->safe_psql('postgres', 'DELETE FROM t WHERE id % 4 = 0');
$node->safe_psql('postgres', 'VACUUM t');
coherent('after vacuum');
index_vs_seq($node, 't', 'after vacuum');
ok(info('dead_entries') > 0 || info('generation') > $gen0,
	'vacuum marked static entries dead (or rewrote the index)');
my $gen1 = info('generation');

# More inserts after the vacuum, another vacuum, a crash.
$node->safe_psql('postgres', q{INSERT INTO t (k) SELECT i * 5 FROM generate_series(1, 2000) i});
coherent('inserts after vacuum');
$node->safe_psql('postgres', 'DELETE FROM t WHERE k % 5 = 0 AND k % 2 = 1');
$node->safe_psql('postgres', 'VACUUM t');
coherent('second vacuum');
ok(info('generation') >= $gen1, 'generation never goes back');
flush_wal($node);
crash_restart($node);
coherent('crash after second vacuum');
index_vs_seq($node, 't', 'crash after second vacuum');

# REINDEX folds everything into the static stage.
$node->safe_psql('postgres', 'REINDEX INDEX t_k');
is( info('entries = (SELECT count(k) FROM t), null_entries = (SELECT count(*) - count(k) FROM t), pending_entries, dead_entries'),
	't|t|0|0', 'after REINDEX');
coherent('after REINDEX');

# A high merge ratio (merge once pending > 0.1% of static) loses nothing.
$node->safe_psql('postgres', q{
ALTER INDEX t_k SET (merge_ratio = 1000);
INSERT INTO t (k) SELECT i * 3 FROM generate_series(1, 5000) i;
});
$node->safe_psql('postgres', 'VACUUM t');
coherent('with merge_ratio 1000');
index_vs_seq($node, 't', 'with merge_ratio 1000');
all_rows_found($node, 't', 'with merge_ratio 1000');

$node->stop;
done_testing();
