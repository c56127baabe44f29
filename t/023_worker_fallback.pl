# No background worker slot: max_worker_processes = 1, and the logical
# replication launcher holds that slot, so the merge worker can never start.
# Inserts past the merge trigger still succeed and the inserting backends
# merge inline (at most once a second per backend, and whenever the list
# passes twice the limit).  The answers stay right, including for a cursor
# of the inserting transaction itself that spans its inline merges, and for
# concurrent inserters competing for the merge.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('fallback');
$node->init;
$node->append_conf('postgresql.conf', qq{
max_worker_processes = 1
max_parallel_workers = 0
max_parallel_workers_per_gather = 0
autovacuum = off
log_statement = none
log_min_messages = debug1
});
$node->start;

is($node->safe_psql('postgres',
	"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'logical replication launcher'"),
	'1', 'the only worker slot is taken by the logical replication launcher');

$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v text) WITH (autovacuum_enabled = off);
INSERT INTO t (k, v) SELECT (i::int8 * 7919) % 1000000, 'b' FROM generate_series(1, 50000) i;
INSERT INTO t (k, v) SELECT NULL, 'n' FROM generate_series(1, 10);
-- trigger: more than 50000 / 100 pending entries (and at least 1024), or 64 kB
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 100, pending_limit = 64);
ANALYZE t;
});
my $log_offset = -s $node->logfile;
my $gen = dyn_info($node, 't_k')->{generation};

# 1. Small insert statements, each from a new session (so the one-second
# throttle of a backend's worker requests does not apply): every statement
# that passes the trigger merges inline.
for my $i (1 .. 12)
{
	$node->safe_psql('postgres',
		"INSERT INTO t (k, v) SELECT (i::int8 * 104729 + $i) % 1000000, 's$i' FROM generate_series(1, 700) i");
}
my $info = dyn_info($node, 't_k');
note "after small inserts: generation $info->{generation}, pending $info->{pending_entries}";
cmp_ok($info->{generation}, '>=', $gen + 5, 'inline merges happened');
cmp_ok($info->{pending_entries}, '<', 2048, 'the pending list stays short');
dyn_compare($node, 't', 'after small inserts');
dyn_all_found($node, 't', 'after small inserts', step => 3);
dyn_check($node, 't_k', 'after small inserts');

# 2. One statement far past twice the limit: it merges inline again and
# again (no throttle past twice the limit).
$gen = dyn_info($node, 't_k')->{generation};
$node->safe_psql('postgres',
	"INSERT INTO t (k, v) SELECT (i::int8 * 15485863) % 1000000, 'big' FROM generate_series(1, 40000) i");
$info = dyn_info($node, 't_k');
note "after a big insert: generation $info->{generation}, pending $info->{pending_entries}, pending pages $info->{pending_pages}";
cmp_ok($info->{generation}, '>=', $gen + 3, 'a big insert merges inline several times');
# pending_limit counts record bytes (16 per int8 entry): twice 64 kB is 8192
cmp_ok($info->{pending_entries}, '<=', 2 * 64 * 1024 / 16 + 1,
	'the pending list never passed twice the limit (8192 int8 records)');
dyn_compare($node, 't', 'after a big insert');
dyn_check($node, 't_k', 'after a big insert');

# 3. A cursor of the inserting transaction spans its own inline merges: it
# keeps its view (generation and pending copy) and returns the rows of its
# snapshot exactly once; the transaction's later rows appear after it.
my ($expect_n, $expect_md5) = split /\|/, $node->safe_psql('postgres',
	"SELECT count(*), md5(string_agg(k::text, ',' ORDER BY k)) FROM t WHERE k + 0 >= 0");
$gen = dyn_info($node, 't_k')->{generation};
my ($ret, $stdout, $notice) = $node->psql('postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
DO $$
DECLARE
    c refcursor;
    r record;
    n int := 0;
    acc text[] := '{}';
BEGIN
    OPEN c FOR SELECT k FROM t WHERE k >= 0 ORDER BY k;
    LOOP
        FETCH c INTO r;
        EXIT WHEN NOT FOUND;
        acc := acc || r.k::text;
        n := n + 1;
        IF n % 10000 = 0 THEN
            -- enough to pass twice the pending limit: inline merges
            INSERT INTO t (k, v) SELECT (i::int8 * 13 + n) % 1000000, 'tx2' FROM generate_series(1, 10000) i;
        END IF;
    END LOOP;
    CLOSE c;
    RAISE NOTICE 'cursor %|%', n, md5(array_to_string(acc, ','));
END $$;
});
is($ret, 0, 'the cursor loop ran');
my ($got) = $notice =~ /cursor (\d+\|[0-9a-f]+)/;
is($got, "$expect_n|$expect_md5",
	'a cursor spanning its own transaction\'s inline merges returns its snapshot\'s rows once, in order');
cmp_ok(dyn_info($node, 't_k')->{generation}, '>=', $gen + 3, 'the cursor\'s transaction merged inline');
dyn_compare($node, 't', 'after the cursor');
dyn_check($node, 't_k', 'after the cursor');

# 4. A rolled-back transaction that merged inline: its entries went to the
# static stage; its rows stay invisible.
$gen = dyn_info($node, 't_k')->{generation};
$node->safe_psql('postgres', q{
BEGIN;
INSERT INTO t (k, v) SELECT (i::int8 * 17) % 1000000, 'rb' FROM generate_series(1, 20000) i;
ROLLBACK;
});
cmp_ok(dyn_info($node, 't_k')->{generation}, '>', $gen, 'the rolled-back transaction merged inline');
is($node->safe_psql('postgres',
	"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE k >= 0 AND v = 'rb'"),
	'0', 'rolled-back rows are not visible through the index');
dyn_compare($node, 't', 'after a rollback');

# 5. Concurrent inserters: they compete for the merge lock (inline merges
# are skipped while another runs), none fails.  A fixed number of
# statements, not a duration: 60,000 entries are more than seven times
# twice the limit, past which an inserter merges whatever the timing, so
# the merges counted below come from the volume, not the machine's speed.
$gen = dyn_info($node, 't_k')->{generation};
$node->pgbench(
	'--no-vacuum --client=3 --jobs=2 --transactions=100',
	0,
	[qr{processed: 300/300}],
	[qr{}],
	'concurrent inserters without merge workers',
	{
		'023_ins' => q{
\set k random(0, 999999)
INSERT INTO t (k, v) SELECT (:k + i * 7919) % 1000000, 'pb' FROM generate_series(1, 200) i;
}
	});
my $gen5 = dyn_info($node, 't_k')->{generation};
note "concurrent inserters: generation $gen to $gen5";
cmp_ok($gen5, '>', $gen + 2, 'concurrent inserters merged inline');
$node->safe_psql('postgres', 'VACUUM t');
dyn_compare($node, 't', 'after concurrent inserters');
dyn_all_found($node, 't', 'after concurrent inserters', step => 5);
dyn_check($node, 't_k', 'after concurrent inserters');

my $log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/starting background worker process "learned_idx merge/,
	'no merge worker ever started');

$node->stop;
done_testing();
