# Crash recovery: a learned index built, grown through the pending area,
# vacuumed, then the server killed (kill -9) at several points.  After each
# restart every row must still be found through the index, and every query
# must agree with a sequential scan.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
# Checkpoints only when asked, so that recovery has work to do.
$node->append_conf('postgresql.conf', qq{
checkpoint_timeout = 1h
max_wal_size = 4GB
autovacuum = off
});
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v text);
INSERT INTO t (k, v) SELECT (i * 7919) % 1000000, 'b' FROM generate_series(1, 50000) i;
INSERT INTO t (k, v) SELECT NULL, 'n' FROM generate_series(1, 100);
});

# 1. The build itself is WAL-logged: crash right after CREATE INDEX, with no
# checkpoint in between.
$node->safe_psql('postgres', 'CHECKPOINT');
# compressed leaf pages (plain ones are crash-tested by t/020 and t/027)
$node->safe_psql('postgres', 'CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 1, compression = on)');
ok(uses_learned_index($node, 't'), 'the learned index is used');
is($node->safe_psql('postgres',
		"SELECT compressed_pages > 0 AND compressed_pages = leaf_pages FROM learned_index_info('t_k')"),
	't', 'the build wrote compressed leaf pages');
my $before = index_vs_seq($node, 't', 'after build');
crash_restart($node);
is(index_vs_seq($node, 't', 'crash after build'), $before, 'crash after build: same answers as before the crash');
all_rows_found($node, 't', 'crash after build');

# 2. Inserts after the build (pending area), committed but not checkpointed,
# plus an uncommitted transaction that is in progress at the crash.
$node->safe_psql('postgres', 'CHECKPOINT');
$node->safe_psql('postgres', q{
INSERT INTO t (k, v) SELECT (i * 104729) % 1000000 + 1, 'p' FROM generate_series(1, 3000) i;
INSERT INTO t (k, v) VALUES (NULL, 'p'), (4242, 'p'), (-1, 'p'), (9223372036854775807, 'p');
});
my $inflight = $node->background_psql('postgres');
$inflight->query_safe(q{BEGIN; INSERT INTO t (k, v) SELECT 777777, 'inflight' FROM generate_series(1, 500);});
$before = index_vs_seq($node, 't', 'after inserts');
crash_restart($node);
# the session died with the server
eval { $inflight->quit; };
is(index_vs_seq($node, 't', 'crash after inserts'), $before, 'crash after inserts: same answers as before the crash');
all_rows_found($node, 't', 'crash after inserts');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM t WHERE k = 777777}), '0', 'the uncommitted rows are not visible');

# 3. DELETE + VACUUM (dead entries marked), then more inserts, then a crash.
$node->safe_psql('postgres', 'CHECKPOINT');
$node->safe_psql('postgres', q{DELETE FROM t WHERE id % 5 = 0 OR k = 777777});
$node->safe_psql('postgres', 'VACUUM t');
$node->safe_psql('postgres', q{
INSERT INTO t (k, v) SELECT (i::int8 * 15485863) % 1000000, 'q' FROM generate_series(1, 2000) i;
});
$before = index_vs_seq($node, 't', 'after delete and vacuum');
crash_restart($node);
is(index_vs_seq($node, 't', 'crash after vacuum'), $before, 'crash after vacuum: same answers as before the crash');
all_rows_found($node, 't', 'crash after vacuum');

# 4. Many more inserts than the build had (with merge_ratio 100, so that
# merges, if any, happen), a crash in the middle of the activity.
$node->safe_psql('postgres', 'ALTER INDEX t_k SET (merge_ratio = 100)');
$node->safe_psql('postgres', q{
INSERT INTO t (k, v) SELECT (i * 7) % 1000000, 'm' FROM generate_series(1, 60000) i;
});
$node->safe_psql('postgres', 'VACUUM t');
$node->safe_psql('postgres', q{
INSERT INTO t (k, v) SELECT (i * 13) % 1000000, 'm2' FROM generate_series(1, 20000) i;
});
$before = index_vs_seq($node, 't', 'after growth');
crash_restart($node);
is(index_vs_seq($node, 't', 'crash after growth'), $before, 'crash after growth: same answers as before the crash');
all_rows_found($node, 't', 'crash after growth');

# 5. The index keeps working after recovery: inserts, deletes, vacuum, REINDEX.
$node->safe_psql('postgres', q{
INSERT INTO t (k, v) SELECT i, 'after' FROM generate_series(1, 1000) i;
DELETE FROM t WHERE v = 'm' AND id % 2 = 0;
});
$node->safe_psql('postgres', 'VACUUM t');
index_vs_seq($node, 't', 'after recovery');
all_rows_found($node, 't', 'after recovery');
$node->safe_psql('postgres', 'REINDEX INDEX t_k');
crash_restart($node);
index_vs_seq($node, 't', 'crash after REINDEX');
all_rows_found($node, 't', 'crash after REINDEX');

# A clean shutdown and restart changes nothing either.
$before = index_vs_seq($node, 't', 'before restart');
$node->restart;
is(index_vs_seq($node, 't', 'clean restart'), $before, 'clean restart: same answers');

$node->stop;
done_testing();
