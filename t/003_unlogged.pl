# Unlogged tables: the learned index has an init fork; after a crash the
# table and its index are empty and usable; after a clean restart they keep
# their contents.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $node = PostgreSQL::Test::Cluster->new('unlogged');
$node->init;
$node->append_conf('postgresql.conf', 'autovacuum = off');
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE UNLOGGED TABLE u (id serial, k int8, v text);
CREATE INDEX u_k_empty ON u USING learned (k);
INSERT INTO u (k, v) SELECT (i * 7919) % 1000000, 'b' FROM generate_series(1, 20000) i;
INSERT INTO u (k, v) SELECT NULL, 'n' FROM generate_series(1, 20);
CREATE INDEX u_k ON u USING learned (k);
INSERT INTO u (k, v) SELECT i, 'p' FROM generate_series(1, 500) i;
});
is($node->safe_psql('postgres', q{SELECT string_agg(relname || ':' || relpersistence::text, ',' ORDER BY relname)
	FROM pg_class WHERE relname IN ('u', 'u_k', 'u_k_empty')}),
	'u:u,u_k:u,u_k_empty:u', 'table and indexes are unlogged');
my $datadir = $node->data_dir;
my $relpath = $node->safe_psql('postgres', q{SELECT pg_relation_filepath('u_k')});
ok(-f "$datadir/${relpath}_init", 'the index has an init fork');
$relpath = $node->safe_psql('postgres', q{SELECT pg_relation_filepath('u_k_empty')});
ok(-f "$datadir/${relpath}_init", 'the index built on the empty table has an init fork');

$node->safe_psql('postgres', 'DROP INDEX u_k_empty');
my $before = index_vs_seq($node, 'u', 'before restart');
all_rows_found($node, 'u', 'before restart');

# A clean restart keeps unlogged data.
$node->restart;
is(index_vs_seq($node, 'u', 'after clean restart'), $before, 'clean restart keeps the contents');
is($node->safe_psql('postgres', 'SELECT count(*) FROM u'), '20520', 'all rows kept');

# A crash resets the table and its index to empty.
crash_restart($node);
is($node->safe_psql('postgres', 'SELECT count(*) FROM u'), '0', 'the table is empty after a crash');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM u WHERE k > -1; SELECT count(*) FROM u WHERE k IS NULL}), "0\n0",
	'an index scan finds nothing');
is($node->safe_psql('postgres', q{SELECT entries, null_entries, pending_entries, dead_entries
	FROM learned_index_info('u_k')}), '0|0|0|0', 'learned_index_info shows an empty index');
index_vs_seq($node, 'u', 'empty after crash');

# The reset index takes inserts, deletes, vacuum and a rebuild.
$node->safe_psql('postgres', q{
INSERT INTO u (k, v) SELECT (i * 104729) % 1000000, 'a' FROM generate_series(1, 10000) i;
INSERT INTO u (k, v) VALUES (NULL, 'a'), (4242, 'a');
});
ok(uses_learned_index($node, 'u'), 'the learned index is used');
index_vs_seq($node, 'u', 'inserts after crash');
all_rows_found($node, 'u', 'inserts after crash');
$node->safe_psql('postgres', 'DELETE FROM u WHERE id % 3 = 0');
$node->safe_psql('postgres', 'VACUUM u');
index_vs_seq($node, 'u', 'vacuum after crash');
$node->safe_psql('postgres', 'REINDEX INDEX u_k');
index_vs_seq($node, 'u', 'reindex after crash');
all_rows_found($node, 'u', 'reindex after crash');

# A second crash, right after the rebuild.
crash_restart($node);
is($node->safe_psql('postgres', 'SELECT count(*) FROM u'), '0', 'empty again after a second crash');
$node->safe_psql('postgres', q{INSERT INTO u (k, v) SELECT i, 'z' FROM generate_series(1, 3000) i});
index_vs_seq($node, 'u', 'after second crash');
all_rows_found($node, 'u', 'after second crash');

$node->stop;
done_testing();
