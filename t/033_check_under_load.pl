# learned_index_check under load: the check judges one view of the index
# (docs/architecture.md, "learned_index_check"), so it reports nothing on a
# healthy index while rows arrive, merges flip generations and VACUUM runs,
# and still reports a damaged page under the same load.
#
# Load (pgbench, in the background): 2 clients insert single rows, 1 inserts
# 100-row batches (a few NULL keys among them), 1 runs VACUUM; the index
# merges every ~1,000 pending entries (background workers, inline merges,
# VACUUM's).  Meanwhile one session calls learned_index_check, alternately
# with and without heapallindexed, in autocommit statements:
#  - phase 1, the healthy index: every call passes, and merges happened;
#  - then the server is stopped, the first leaf page of segment 0 is damaged
#    (its entry count, as t/031 does), and the load starts again;
#  - phase 2: every call fails, with the REINDEX hint.
# Last, an index left invalid by a failed CREATE INDEX CONCURRENTLY is
# refused (not valid), not reported as corrupt.
# Inserted keys lie above the built ones, so every merge keeps segment 0 as
# it is (it gets no entries): the damaged page stays in every later view.
#
# Without the one-view rule the check failed 60 times in 60 calls under a
# single inserting client ("a reachable block is past the end of the
# relation", "the pending chain does not end at the tail").
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;
use LearnedDynamic;

my $calls = 120;    # per phase and mode: 240 calls on the healthy index

my $node = PostgreSQL::Test::Cluster->new('check_load');
# the damaged phase writes a page by hand: no data checksums (18 turns them on)
init_unchecksummed($node);
$node->append_conf('postgresql.conf', qq{
autovacuum = off
log_statement = none
max_connections = 30
max_worker_processes = 8
});
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE t (id bigserial, k int8) WITH (autovacuum_enabled = off);
INSERT INTO t (k) SELECT (i::int8 * 7919) % 1000000 FROM generate_series(1, 150000) i;
-- merge at 1,024 pending entries (the ratio trigger's floor) or 64 kB
-- (plain leaf pages: three segments)
CREATE INDEX t_k ON t USING learned (k)
  WITH (merge_ratio = 100000, pending_limit = 64, compression = off);
CHECKPOINT;
});
my $segments = dyn_info($node, 't_k')->{segments};
cmp_ok($segments, '>=', 2, 'the build wrote at least two segments');

my $dir = PostgreSQL::Test::Utils::tempdir;
my %scripts = (
	single => q{
\set k random(1000000, 999999999)
INSERT INTO t (k) VALUES (:k);
},
	batch => q{
\set k random(1000000, 999999999)
INSERT INTO t (k) SELECT CASE WHEN i % 50 = 0 THEN NULL ELSE :k + i END FROM generate_series(1, 100) i;
},
	vacuum => q{
VACUUM t;
},);
foreach my $s (keys %scripts)
{
	open(my $fh, '>', "$dir/$s.sql") or die;
	print $fh $scripts{$s};
	close $fh;
}

# the load, until stop_load
my @load;

sub start_load
{
	# [script, clients, transactions per second]: rates that keep the
	# table small enough for 240 checks (with heapallindexed) in seconds
	foreach my $c ([ 'single', 2, 1000 ], [ 'batch', 1, 20 ], [ 'vacuum', 1, 5 ])
	{
		my ($out, $err) = ('', '');
		push @load,
		  IPC::Run::start(
			[
				'pgbench', '-n', '-h', $node->host, '-p', $node->port,
				'-c', $c->[1], '-R', $c->[2], '-T', 600, '-f', "$dir/$c->[0].sql", 'postgres'
			],
			'>', \$out, '2>', \$err);
	}
	return;
}

sub stop_load
{
	$_->kill_kill foreach @load;
	@load = ();
	return;
}

# $n calls of learned_index_check in each mode, one autocommit statement
# each; returns (calls that returned true, errors, the errors' lines)
sub check_loop
{
	my ($n) = @_;
	my $sql = '';
	$sql .= "SELECT learned_index_check('t_k', " . ($_ % 2 ? 'true' : 'false') . ");\n"
	  foreach (1 .. 2 * $n);
	my ($out, $err);
	$node->psql('postgres', $sql, stdout => \$out, stderr => \$err, on_error_stop => 0);
	my $ok = () = $out =~ /^t$/mg;
	my @errors = $err =~ /^.*ERROR:.*$/mg;
	return ($ok, scalar(@errors), $err);
}

# Phase 1: the healthy index under load.  The calls go on in rounds until
# there were $calls in each mode and the merges flipped three generations
# meanwhile: how many merges a fixed number of calls sees depends on how
# fast the machine runs the load and the checks.
my $gen0 = dyn_info($node, 't_k')->{generation};
start_load();
# let the load start and a first merge run
$node->poll_query_until('postgres',
	"SELECT generation > $gen0 FROM learned_index_info('t_k')")
  or die 'no merge started';
my ($ok, $nerr, $err, $ncalls) = (0, 0, '', 0);
my $gen1 = $gen0;
my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
while ($ncalls < $calls || ($gen1 - $gen0 < 3 && time() < $deadline))
{
	my ($o, $n, $e) = check_loop(20);
	($ok, $nerr, $err, $ncalls) = ($ok + $o, $nerr + $n, $err . $e, $ncalls + 20);
	$gen1 = dyn_info($node, 't_k')->{generation};
}
stop_load();
is($nerr, 0, "healthy index under load: no call of learned_index_check fails")
  or diag($err);
is($ok, 2 * $ncalls, "healthy index under load: all " . 2 * $ncalls . " calls pass");
cmp_ok($gen1 - $gen0, '>=', 3, 'merges flipped generations during the loop');
note "generations $gen0 to $gen1 over " . 2 * $ncalls . ' calls';

# Damage the first leaf page of segment 0 (which no merge rewrites here):
# its entry count, in the special space (t/031's "page entry count").
my $blk = $node->safe_psql('postgres',
	"SELECT start_block FROM learned_index_segments('t_k') WHERE segment = 0");
my $bs = $node->safe_psql('postgres', q{SELECT current_setting('block_size')});
my $file = relfile_path($node, 't_k');
$node->stop;
relfile_patch($file, $blk * $bs + $bs - 16 + 2, pack('S', 7));
$node->start;

# Phase 2: the same loop on the damaged index, under the same load
# (learned_index_info reads the damaged page too: wait on the table)
my $rows = $node->safe_psql('postgres', 'SELECT count(*) FROM t');
start_load();
$node->poll_query_until('postgres', "SELECT count(*) > $rows + 2000 FROM t")
  or die 'the load did not start';
($ok, $nerr, $err) = check_loop($calls / 2);
stop_load();
is($ok, 0, 'damaged index under load: no call passes');
is($nerr, $calls, "damaged index under load: all $calls calls fail");
my $reported = () = $err =~ /ERROR:  learned index "t_k" (?:failed check|is corrupted)/g;
is($reported, $calls, 'every failure reports the index as corrupted');
like($err, qr/HINT:  REINDEX the index/, 'with a REINDEX hint');

$node->safe_psql('postgres', 'REINDEX INDEX t_k');
is($node->safe_psql('postgres', "SELECT learned_index_check('t_k', true)"),
	't', 'REINDEX repairs it');

# An index that is not valid (here what a failed CREATE INDEX CONCURRENTLY
# leaves; while one runs, its pages are half written and it lacks rows) is
# refused, as amcheck refuses one, not reported as corrupt.
$node->safe_psql('postgres', 'INSERT INTO t (k) VALUES (5), (5)');
my ($ret, $out);
($ret, $out, $err) = $node->psql('postgres',
	'CREATE UNIQUE INDEX CONCURRENTLY t_u ON t USING learned (k)');
isnt($ret, 0, 'CREATE UNIQUE INDEX CONCURRENTLY on duplicates fails');
is($node->safe_psql('postgres',
		q{SELECT indisvalid FROM pg_index WHERE indexrelid = 't_u'::regclass}),
	'f', 'and leaves an invalid index');
($ret, $out, $err) = $node->psql('postgres', q{SELECT learned_index_check('t_u')});
like($err, qr/ERROR:  cannot check index "t_u"\nDETAIL:  Index is not valid\./,
	'learned_index_check refuses an invalid index');

$node->stop;
done_testing();
