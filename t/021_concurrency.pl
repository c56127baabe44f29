# Concurrency: pgbench clients insert (small and large batches), delete and
# update key ranges, scan through the index, merge and vacuum, all at once,
# on an index whose pending list is merged every ~1000 entries (background
# workers, inline merges, learned_index_merge, VACUUM's merge).  The read
# scripts check themselves while the merges run:
#  - index scans of a range never return a row twice;
#  - ordered scans come back sorted;
#  - in a REPEATABLE READ transaction, index, index-only and bitmap scans of
#    a range agree with a sequential scan in the same snapshot.
# A failed check divides by zero, which aborts the client and fails pgbench.
# Afterwards the whole table is compared through the index and without it,
# and learned_index_check(heapallindexed) passes.
#
# LEARNED_STRESS_SECONDS sets the pgbench duration (default 20) for longer,
# opt-in runs.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use LearnedDynamic;

my $duration = $ENV{LEARNED_STRESS_SECONDS} || 20;

my $node = PostgreSQL::Test::Cluster->new('concurrency');
$node->init;
# log_min_messages = debug1 logs each background worker start.
$node->append_conf('postgresql.conf', qq{
autovacuum = off
shared_buffers = 32MB
max_connections = 30
max_worker_processes = 8
log_statement = none
log_min_messages = debug1
deadlock_timeout = 100ms
});
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx; CREATE EXTENSION pg_freespacemap');
$node->safe_psql('postgres', q{
CREATE TABLE t (id bigserial, k int8, v int) WITH (autovacuum_enabled = off);
INSERT INTO t (k, v) SELECT (i::int8 * 7919) % 1000000, 0 FROM generate_series(1, 100000) i;
INSERT INTO t (k, v) SELECT NULL, 0 FROM generate_series(1, 20);
-- merge at 1024 pending entries (the ratio trigger's floor) and at 64 kB;
-- inline past 128 kB or when no worker slot is free
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 100000, pending_limit = 64);
ANALYZE t;
});
my $gen0 = dyn_info($node, 't_k')->{generation};
my $log_offset = -s $node->logfile;

my $scan_settings =
  'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;';

my %scripts = (
	# inserts (some NULLs), deletes and updates of key ranges
	dyn_dml_scripts('021'),
	# one statement past twice the pending limit: an inline merge
	'021_biginsert@1' => q{
\set k random(0, 999999)
INSERT INTO t (k, v) SELECT (:k + i * 104729) % 1000000, 2 FROM generate_series(1, 6000) i;
},
	# index scans: no row twice, sorted output, point lookups
	'021_select@6' => qq{
$scan_settings
\\set lo random(0, 990000)
\\set k random(0, 999999)
SELECT 1 / (count(*) = count(DISTINCT id))::int FROM t WHERE k BETWEEN :lo AND :lo + 5000;
SELECT 1 / coalesce(bool_and(k >= prev), true)::int
  FROM (SELECT k, lag(k) OVER () AS prev FROM (SELECT k FROM t WHERE k >= :lo ORDER BY k LIMIT 300) s) s2;
SELECT 1 / coalesce(bool_and(k <= prev), true)::int
  FROM (SELECT k, lag(k) OVER () AS prev FROM (SELECT k FROM t WHERE k <= :lo ORDER BY k DESC LIMIT 300) s) s2;
SELECT 1 / (count(*) = count(DISTINCT id))::int FROM t WHERE k = ANY (ARRAY[:k, :k + 1, :k + 7919, :lo]::int8[]);
SELECT count(*) FROM t WHERE k IS NULL;
},
	# the same snapshot through every scan type and without the index
	'021_snapshot@2' => q{
\set lo random(0, 990000)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
SELECT count(*) AS a, coalesce(sum(id), 0) AS sa FROM t WHERE k BETWEEN :lo AND :lo + 10000 \gset
SET LOCAL enable_indexonlyscan = on;
SELECT count(*) AS b FROM t WHERE k BETWEEN :lo AND :lo + 10000 \gset
SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off; SET LOCAL enable_bitmapscan = on;
SELECT count(*) AS c, coalesce(sum(id), 0) AS sc FROM t WHERE k BETWEEN :lo AND :lo + 10000 \gset
SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = on;
SELECT count(*) AS d, coalesce(sum(id), 0) AS sd FROM t WHERE k + 0 BETWEEN :lo AND :lo + 10000 \gset
SELECT 1 / (:a = :d AND :b = :d AND :c = :d AND :sa = :sd AND :sc = :sd)::int;
COMMIT;
},
	'021_merge@1' => q{
SELECT learned_index_merge('t_k');
},
	'021_vacuum@1' => q{
VACUUM t;
},);

# The run is timed, so how many merges it sees follows how many
# transactions the machine gets through (a loaded one, far fewer): it is
# repeated, up to three times, until the many merges checked below have
# happened under the load.
for my $round (1 .. 3)
{
	$node->pgbench(
		"--no-vacuum --client=4 --jobs=2 --time=$duration --max-tries=20",
		0,
		[ qr{processed: [1-9]\d*}, qr{number of failed transactions: 0 } ],
		[qr{}],
		"round $round: concurrent inserts, deletes, updates, scans, merges and VACUUM",
		\%scripts);
	last if dyn_info($node, 't_k')->{generation} > $gen0 + 10;
}

# let the last merge workers finish
for (my $i = 0; $i < 600; $i++)
{
	last
	  if $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'learned_idx merge'") eq '0';
	usleep(100_000);
}

my $info = dyn_info($node, 't_k');
note 'after pgbench: ' . join(', ', map { "$_=$info->{$_}" } sort keys %$info);
cmp_ok($info->{generation}, '>', $gen0 + 10, 'many merges happened');
my $workers = () = slurp_file($node->logfile, $log_offset) =~
  /starting background worker process "learned_idx merge/g;
note "merge workers started: $workers";
cmp_ok($workers, '>', 0, 'background merge workers ran');

# Where the pages are (a note for longer runs, not a check): reachable
# segment pages (learned_index_segments lists the NULL run too), the
# directory and pending pages, pages free in the FSM (and their contiguous
# runs, as length x count), and the rest, which wait for the snapshot
# horizon (docs/architecture.md, "VACUUM and garbage collection").
sub page_layout
{
	my ($label) = @_;
	note "$label: " . $node->safe_psql('postgres', q{
WITH f AS (SELECT blkno FROM pg_freespace('t_k') WHERE avail >= 4096),
nf AS (SELECT count(*) AS n FROM f),
runs AS (SELECT count(*) AS len FROM (SELECT blkno - row_number() OVER (ORDER BY blkno) AS grp FROM f) g GROUP BY grp),
i AS (SELECT * FROM learned_index_info('t_k')),
s AS (SELECT coalesce(sum(pages), 0) AS pages, coalesce(max(pages), 0) AS longest FROM learned_index_segments('t_k'))
SELECT format('pages %s: segments %s (longest %s), directory %s, pending %s, free %s, waiting %s; free runs %s',
  i.total_pages, s.pages, s.longest, i.directory_pages, i.pending_pages, nf.n,
  i.total_pages - 1 - s.pages - i.directory_pages - i.pending_pages - nf.n,
  (SELECT string_agg(len || 'x' || c, ' ' ORDER BY len) FROM (SELECT len, count(*) AS c FROM runs GROUP BY len) q))
FROM i, s, nf});
	return;
}
page_layout('page layout after pgbench');

dyn_compare($node, 't', 'after pgbench');
dyn_all_found($node, 't', 'after pgbench');
dyn_check($node, 't_k', 'after pgbench');

# The same after a final merge and VACUUM (dead entries dropped, GC).
$node->safe_psql('postgres', "SELECT learned_index_merge('t_k')");
for (1 .. 2)
{
	$node->safe_psql('postgres', 'SELECT txid_current()');
	$node->safe_psql('postgres', 'VACUUM t');
}
page_layout('page layout after merge and vacuum');
dyn_compare($node, 't', 'after merge and vacuum');
dyn_all_found($node, 't', 'after merge and vacuum', step => 3);
dyn_check($node, 't_k', 'after merge and vacuum');

$node->stop;
done_testing();
