# Autovacuum at work: every other TAP test and the pg_regress cluster run
# with autovacuum off, so that what they print does not depend on when a
# worker comes by.  Users run with it on.  Here autovacuum visits the table
# about every second (tiny thresholds) while pgbench clients insert,
# delete, update and scan it, and merges run in background workers,
# inline and on demand.  An autovacuum VACUUM merges the pending list first
# (ambulkdelete), marks dead entries and collects garbage; one client
# takes a lock that conflicts with autovacuum's, so the deadlock detector
# cancels autovacuum workers that hold it, at whatever point they reached
# (in the merge, in the dead marking, in the garbage collection).
#
# Checks: the self-checking scan scripts of t/021 never fail; afterwards
# the table answers the same through the index as without it, every row is
# found, learned_index_check(heapallindexed) passes, and autovacuum did
# vacuum the table.  How many autovacuum runs were cancelled is printed,
# not checked: it depends on timing.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $duration = $ENV{LEARNED_STRESS_SECONDS} || 20;

my $node = PostgreSQL::Test::Cluster->new('autovac');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = on
autovacuum_naptime = 1s
autovacuum_vacuum_threshold = 50
autovacuum_vacuum_scale_factor = 0.005
autovacuum_vacuum_insert_threshold = 200
autovacuum_vacuum_insert_scale_factor = 0.005
autovacuum_analyze_threshold = 50
autovacuum_analyze_scale_factor = 0.005
autovacuum_vacuum_cost_delay = 0
log_autovacuum_min_duration = 0
shared_buffers = 32MB
max_connections = 30
max_worker_processes = 8
deadlock_timeout = 50ms
});
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE t (id bigserial, k int8, v int);
INSERT INTO t (k, v) SELECT (i::int8 * 7919) % 1000000, 0 FROM generate_series(1, 50000) i;
INSERT INTO t (k, v) SELECT NULL, 0 FROM generate_series(1, 20);
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 100000, pending_limit = 64);
});
my $log_offset = -s $node->logfile;

my %scripts = (
	# inserts (some NULLs), deletes and updates of key ranges
	dyn_dml_scripts('029'),
	# no row twice, sorted output (a failed check divides by zero)
	'029_select@5' => q{
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
\set lo random(0, 990000)
SELECT 1 / (count(*) = count(DISTINCT id))::int FROM t WHERE k BETWEEN :lo AND :lo + 5000;
SELECT 1 / coalesce(bool_and(k >= prev), true)::int
  FROM (SELECT k, lag(k) OVER () AS prev FROM (SELECT k FROM t WHERE k >= :lo ORDER BY k LIMIT 300) s) s2;
},
	# the same snapshot through the index and without it
	'029_snapshot@2' => q{
\set lo random(0, 990000)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
SELECT count(*) AS a, coalesce(sum(id), 0) AS sa FROM t WHERE k BETWEEN :lo AND :lo + 10000 \gset
SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off; SET LOCAL enable_seqscan = on;
SELECT count(*) AS d, coalesce(sum(id), 0) AS sd FROM t WHERE k + 0 BETWEEN :lo AND :lo + 10000 \gset
SELECT 1 / (:a = :d AND :sa = :sd)::int;
COMMIT;
},
	# Conflicts with autovacuum's lock: a running autovacuum of t is
	# cancelled once this has waited deadlock_timeout.  Held for no time, so
	# that autovacuum, which skips a table it cannot lock at once, still
	# gets to start.
	'029_lock@1' => q{
BEGIN;
LOCK TABLE t IN SHARE UPDATE EXCLUSIVE MODE;
COMMIT;
},
	'029_merge@1' => q{
SELECT learned_index_merge('t_k');
},);

$node->pgbench(
	"--no-vacuum --client=4 --jobs=2 --time=$duration --max-tries=20",
	0,
	[ qr{processed: [1-9]\d*}, qr{number of failed transactions: 0 } ],
	[qr{}],
	'concurrent DML, scans and merges while autovacuum runs and is cancelled',
	\%scripts);

# Autovacuum has vacuumed t (its statistics are flushed at the worker's
# exit, so wait for them a little).
$node->poll_query_until('postgres',
	"SELECT autovacuum_count > 0 FROM pg_stat_user_tables WHERE relid = 't'::regclass");
my $vacuums = $node->safe_psql('postgres',
	"SELECT autovacuum_count FROM pg_stat_user_tables WHERE relid = 't'::regclass");
cmp_ok($vacuums, '>', 0, 'autovacuum vacuumed the table');

# Stop autovacuum, then let the last merge workers finish, so that the
# checks below see a quiet index.
$node->append_conf('postgresql.conf', 'autovacuum = off');
$node->reload;
$node->poll_query_until('postgres',
	"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN ('learned_idx merge', 'autovacuum worker')");

my $log = slurp_file($node->logfile, $log_offset);
my $autovac = () = $log =~ /LOG:  automatic vacuum of table "postgres\.public\.t"/g;
my %where;
$where{$1}++ while $log =~ /ERROR:  canceling autovacuum task\n\S+ \S+ \S+ \[\d+\] CONTEXT:  while (\w+ \w+)/g;
note "autovacuum of t: $vacuums by the statistics, $autovac in the log; cancelled: "
  . (join(', ', map { "$where{$_} while $_" } sort keys %where) || 'none');
unlike($log, qr/PANIC|server process .* was terminated/, 'no crash');

my $info = dyn_info($node, 't_k');
note 'after pgbench: ' . join(', ', map { "$_=$info->{$_}" } sort keys %$info);
dyn_compare($node, 't', 'after pgbench');
dyn_all_found($node, 't', 'after pgbench');
dyn_check($node, 't_k', 'after pgbench');

# A final merge and VACUUM: dead entries dropped, the same answers.
$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'VACUUM t');
dyn_compare($node, 't', 'after merge and vacuum');
dyn_all_found($node, 't', 'after merge and vacuum', step => 3);
dyn_check($node, 't_k', 'after merge and vacuum');

$node->stop;
done_testing();
