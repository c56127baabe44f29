# LearnedCheck.pm: shared checks for the TAP tests of learned_idx.
#
# Every check answers the same queries once through the learned index and
# once with every index path disabled (a sequential scan), and compares.
package LearnedCheck;

use strict;
use warnings;

use Exporter 'import';
use Test::More;
use PostgreSQL::Test::Cluster;
use Time::HiRes qw(usleep);

our @EXPORT = qw(index_queries index_vs_seq all_rows_found uses_learned_index crash_restart flush_wal
				 init_unchecksummed
				 relfile_path relfile_read relfile_patch
				 held_start held_end quiet_node);

# Settings that force each kind of scan.
my %MODES = (
	index => 'SET enable_seqscan = off; SET enable_indexscan = on; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;',
	indexonly => 'SET enable_seqscan = off; SET enable_indexscan = on; SET enable_indexonlyscan = on; SET enable_bitmapscan = off;',
	bitmap => 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = on;',
	seq => 'SET enable_seqscan = on; SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;',
);

# A battery of queries on column k (int8) of $table.  Ordered queries select
# k only, so that ties are indistinguishable; the others return a count and
# a sum of hashes of the rows (id included).
sub index_queries
{
	my ($table) = @_;
	my @q = (
		"SELECT count(*), sum(hashint8(k)), sum(hashint4(id)) FROM $table WHERE k IS NOT NULL",
		"SELECT count(*), sum(hashint4(id)) FROM $table WHERE k IS NULL",
		"SELECT count(*), sum(hashint4(id)) FROM $table WHERE k < 1000",
		"SELECT count(*), sum(hashint4(id)) FROM $table WHERE k >= 500000",
		"SELECT count(*), sum(hashint4(id)) FROM $table WHERE k BETWEEN 250000 AND 260000",
		"SELECT count(*), sum(hashint4(id)) FROM $table WHERE k = ANY ('{0,7,70,700,7000,70000,700000,-1}')",
		"SELECT id, k FROM $table WHERE k = 4242",
		"SELECT id, k FROM $table WHERE k = 1000001",
		"SELECT k FROM $table WHERE k > 123456 ORDER BY k LIMIT 200",
		"SELECT k FROM $table WHERE k < 654321 ORDER BY k DESC LIMIT 200",
		"SELECT k FROM $table ORDER BY k LIMIT 100",
		"SELECT k FROM $table ORDER BY k DESC LIMIT 100",
		"SELECT k FROM $table WHERE k IS NOT NULL ORDER BY k DESC LIMIT 100",
		"SELECT k FROM $table WHERE k BETWEEN 300000 AND 310000 ORDER BY k");
	return @q;
}

# Runs the queries in every mode on $node (database $db) and checks that the
# index modes agree with the sequential scan.  Returns the reference output.
sub index_vs_seq
{
	my ($node, $table, $name, $db) = @_;
	$db //= 'postgres';
	my $queries = join(";\n", index_queries($table)) . ";\n";
	my $ref = $node->safe_psql($db, $MODES{seq} . $queries);
	foreach my $mode ('index', 'indexonly', 'bitmap')
	{
		my $got = $node->safe_psql($db, $MODES{$mode} . $queries);
		is($got, $ref, "$name: $mode scans agree with a sequential scan");
	}
	return $ref;
}

# Every row of $table is found by a point lookup through the index (an anti
# join from a sequential scan of the same table), and the NULLs by IS NULL.
# No temporary table, so that it works on a standby too.
sub all_rows_found
{
	my ($node, $table, $name, $db) = @_;
	$db //= 'postgres';
	my $query = qq{
WITH probe AS MATERIALIZED (SELECT id, k FROM $table WHERE id + 0 IS NOT NULL)
SELECT count(*) FROM probe p WHERE p.k IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM $table t WHERE t.k = p.k AND t.id = p.id)};
	my $settings = qq{$MODES{index}
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off;};
	my $res = $node->safe_psql(
		$db, qq{$settings
$query;
SELECT (SELECT count(*) FROM $table WHERE k + 0 IS NULL) = (SELECT count(*) FROM $table WHERE k IS NULL);
});
	is($res, "0\nt", "$name: every row found through the index");
	my $plan = $node->safe_psql($db, "$settings\nEXPLAIN (COSTS OFF) $query");
	like($plan, qr/Seq Scan on $table\b.*Index Scan using \S+ on $table( t)?\n\s+Index Cond: \(k = p\.k\)/s,
		"$name: a sequential scan probes the index");
	return;
}

# Does a plain query on $table use a learned index?
sub uses_learned_index
{
	my ($node, $table, $db) = @_;
	$db //= 'postgres';
	my $plan = $node->safe_psql($db,
		"SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) SELECT * FROM $table WHERE k = 5");
	my ($idx) = $plan =~ /Index Scan using (\S+)/;
	return 0 unless defined $idx;
	return $node->safe_psql($db,
		"SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = '$idx'"
	) eq 'learned';
}

# kill -9 the postmaster, wait until it and its children are gone, start again.
# Initialize a node whose index pages the test damages by hand: without data
# checksums, so that the AM's validation meets the damage, not core's checksum
# check ("invalid page in block N").  initdb turns checksums on by default
# from 18, and has --no-data-checksums from 18 only.
sub init_unchecksummed
{
	my ($node, %params) = @_;
	my @extra = @{ $params{extra} // [] };
	push @extra, '--no-data-checksums' if $node->pg_version >= 18;
	$node->init(%params, extra => \@extra);
	return;
}

# Make everything written so far durable.  VACUUM (and a merge it runs)
# writes WAL but commits without flushing it (no transaction id, so no
# synchronous commit), and a kill -9 before the WAL writer gets to it loses
# the vacuum, which is correct: the state before it is consistent.  A test
# that means to crash *after* a vacuum flushes first (the switch record is
# flushed with everything before it).
sub flush_wal
{
	my ($node) = @_;
	$node->safe_psql('postgres', 'SELECT pg_switch_wal()');
	return;
}

sub crash_restart
{
	my ($node) = @_;
	my $pid = $node->{_pid};
	$node->kill9;
	for (my $i = 0; $i < 600 && defined $pid && kill(0, $pid); $i++)
	{
		usleep(100_000);
	}
	# the backends notice the postmaster's death on their own; retry until
	# the old shared memory is released
	for (my $i = 0; $i < 60; $i++)
	{
		return if $node->start(fail_ok => 1);
		usleep(500_000);
	}
	BAIL_OUT('the server did not restart after kill -9');
}

# The relation file of an index (segment 0), for tests that damage pages of
# a stopped server by hand.
sub relfile_path
{
	my ($node, $index) = @_;
	return $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$index')");
}

# $len bytes of $file at $offset
sub relfile_read
{
	my ($file, $offset, $len) = @_;
	open(my $fh, '<', $file) or die "open $file: $!";
	binmode $fh;
	seek($fh, $offset, 0) or die;
	read($fh, my $buf, $len) == $len or die;
	close $fh;
	return $buf;
}

# overwrite $file at $offset with $bytes
sub relfile_patch
{
	my ($file, $offset, $bytes) = @_;
	open(my $fh, '+<', $file) or die "open $file: $!";
	binmode $fh;
	seek($fh, $offset, 0) or die;
	print $fh $bytes;
	close $fh;
	return;
}

# A started node with the extension created, autovacuum and the merge
# worker off (the race tests start each merge or collection themselves).
sub quiet_node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', "autovacuum = off\nlearned_idx.auto_merge = off\n");
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
	return $node;
}

# The race tests: start $sql in a background session held at the fault
# point $point (learned_idx.fail_point = '$point:sleep', three seconds with
# wait event PgSleep, each time the statement reaches it), after the
# settings in @set.  Returns the session and its pid once it waits there.
sub held_start
{
	my ($node, $point, $sql, @set) = @_;
	my $s = $node->background_psql('postgres', on_error_stop => 0);
	$s->query_safe("SET learned_idx.fail_point = '$point:sleep'");
	$s->query_safe($_) foreach @set;
	my $pid = $s->query_safe('SELECT pg_backend_pid()');
	$s->query_until(qr/held/, "\\echo held\n$sql;\n");
	$node->poll_query_until('postgres',
		"SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $pid")
	  or die "the statement did not reach its fault point $point";
	return ($s, $pid);
}

# Wait for a held session's statement to end; returns its stderr.
sub held_end
{
	my ($s) = @_;
	# the held statement ends before this one runs
	$s->query("SELECT 'done'");
	my $err = $s->{stderr};
	$s->quit;
	return $err;
}

1;
