# An index created on an empty table merges by itself.  The merge trigger
# is one rule at every size (at least 1024 pending entries and more than
# static entries / merge_ratio), so an empty static stage no longer leaves
# only pending_limit to fire; and a VACUUM that finds nothing to delete
# merges the pending list (amvacuumcleanup, as GIN's cleans its own).
#
# 500k rows loaded into an empty table by 1,000-row INSERTs, then (after
# TRUNCATE, which makes a new empty index) by one COPY: the background
# worker merges while the load runs, with no explicit call, and keeps the
# list under its trigger; a plain VACUUM then merges the rest.  With
# learned_idx.auto_merge = off in the loading session no worker runs, and
# autovacuum merges the list: its insert-driven VACUUM, and an
# autovacuum ANALYZE alone (which calls only amvacuumcleanup), as for GIN.
# learned_idx.log_merge_min_duration = 0 names who merged in the log.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use File::Spec;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('empty_merge');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
autovacuum_naptime = 1s
learned_idx.log_merge_min_duration = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v int4) WITH (autovacuum_enabled = off);
CREATE INDEX t_k ON t USING learned (k);
});

# count the log lines of merges of an index by one kind of merger since
# an offset of the log
sub merge_lines
{
	my ($offset, $idx, $by) = @_;
	my $log = slurp_file($node->logfile, $offset);
	my @l = $log =~ /learned index "postgres\.public\.\Q$idx\E" merged by \Q$by\E: /g;
	return scalar @l;
}

# the worker has exited and left the list under the trigger
sub wait_worker_done
{
	my ($idx, $name) = @_;
	ok( $node->poll_query_until('postgres', qq{
SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE backend_type = 'learned_idx merge')
   AND entries > 0 AND (pending_entries < 1024 OR pending_entries <= entries / 10.0)
FROM learned_index_info('$idx')}),
		"$name: the worker merged, and left the list under its trigger")
	  or diag($node->safe_psql('postgres',
		"SELECT entries, pending_entries, merges FROM learned_index_info('$idx')"));
	return;
}

sub info_row
{
	my ($idx) = @_;
	return $node->safe_psql('postgres',
		"SELECT entries, pending_entries, merges, merged_entries FROM learned_index_info('$idx')");
}

# the index after a load of 500k rows: merged, and answering as a sequential
# scan does; then a VACUUM with nothing to delete merges the rest
sub check_loaded
{
	my ($offset, $name) = @_;
	wait_worker_done('t_k', $name);
	cmp_ok(merge_lines($offset, 't_k', 'worker'), '>=', 1, "$name: the worker's merges are logged");
	is(merge_lines($offset, 't_k', 'learned_index_merge') + merge_lines($offset, 't_k', 'VACUUM'),
		0, "$name: no merge was asked for");
	my ($entries, $pending, $merges, $merged) = split /\|/, info_row('t_k');
	note "$name: after the load: $entries static, $pending pending, $merges merges, $merged merged";
	is($entries + $pending, 500000, "$name: every row is in the index");
	is($merged, $entries, "$name: merged_entries counts every merged entry");

	my $vac_offset = -s $node->logfile;
	$node->safe_psql('postgres', 'VACUUM t');
	my ($entries2, $pending2) = split /\|/, info_row('t_k');
	is("$entries2|$pending2", '500000|0', "$name: a VACUUM with nothing to delete merged the rest");
	# one line per step of VACUUM's swept merge; a segment moved down for
	# the truncation logs a line of 0 entries
	my $vac_lines = () = slurp_file($node->logfile, $vac_offset) =~
	  /learned index "postgres\.public\.t_k" merged by VACUUM: [1-9]\d* entries/g;
	if ($pending > 0)
	{
		cmp_ok($vac_lines, '>=', 1, "$name: VACUUM's merge is logged");
	}
	else
	{
		is($vac_lines, 0, "$name: VACUUM merged nothing, as nothing was pending");
	}
	dyn_compare($node, 't', $name);
	dyn_all_found($node, 't', $name, step => 50);
	dyn_check($node, 't_k', $name);
	return;
}

# 1. 500 INSERTs of 1,000 rows, each its own transaction
my $offset = -s $node->logfile;
my $script = '';
$script .= "INSERT INTO t (k, v) SELECT (random() * 1e6)::int8, g FROM generate_series(1, 1000) g;\n"
  for 1 .. 500;
$node->safe_psql('postgres', $script);
check_loaded($offset, '1,000-row INSERTs');

# 2. TRUNCATE (a new, empty index), then one COPY of 500k rows
my $file = File::Spec->rel2abs($node->basedir . '/rows.copy');
$node->safe_psql('postgres', qq{
COPY (SELECT g, (random() * 1e6)::int8, g FROM generate_series(1, 500000) g) TO '$file';
TRUNCATE t;
});
is(info_row('t_k'), '0|0|0|0', 'TRUNCATE: an empty index, its counters at zero');
$offset = -s $node->logfile;
$node->safe_psql('postgres', "COPY t FROM '$file'");
check_loaded($offset, 'COPY after TRUNCATE');

# 3. No worker (learned_idx.auto_merge = off in the loading session):
# autovacuum merges.  av_v: its insert-driven VACUUM; av_a: only ANALYZE
# (insert-driven VACUUM off), whose amvacuumcleanup (analyze_only) merges
# under autovacuum.
$node->safe_psql('postgres', q{
CREATE TABLE av_v (id int, k int8) WITH (autovacuum_enabled = off);
CREATE INDEX av_v_k ON av_v USING learned (k);
CREATE TABLE av_a (id int, k int8)
  WITH (autovacuum_enabled = off, autovacuum_vacuum_insert_threshold = -1);
CREATE INDEX av_a_k ON av_a USING learned (k);
});
$offset = -s $node->logfile;
$node->safe_psql('postgres', q{
SET learned_idx.auto_merge = off;
INSERT INTO av_v SELECT g, (random() * 1e6)::int8 FROM generate_series(1, 100000) g;
INSERT INTO av_a SELECT g, (random() * 1e6)::int8 FROM generate_series(1, 100000) g;
});
is(info_row('av_v_k') . ' ' . info_row('av_a_k'), '0|100000|0|0 0|100000|0|0',
	'auto_merge = off: the loads started no merge');
$node->safe_psql('postgres', q{
ALTER TABLE av_v SET (autovacuum_enabled = on);
ALTER TABLE av_a SET (autovacuum_enabled = on);
ALTER SYSTEM SET autovacuum = on;
SELECT pg_reload_conf();
});
ok( $node->poll_query_until('postgres', q{
SELECT (SELECT pending_entries FROM learned_index_info('av_v_k')) = 0
   AND (SELECT pending_entries FROM learned_index_info('av_a_k')) = 0}),
	'autovacuum merged both lists');
# The flip that empties a list comes before the merge's LOG line: a worker
# descheduled in between left its line unwritten when the poll above
# returned.  Wait for both lines (the checks below count them).
for (my $i = 0; $i < 10 * $PostgreSQL::Test::Utils::timeout_default; $i++)
{
	last if merge_lines($offset, 'av_v_k', 'autovacuum') > 0
	  && merge_lines($offset, 'av_a_k', 'autovacuum') > 0;
	usleep(100_000);
}
$node->safe_psql('postgres', q{ALTER SYSTEM SET autovacuum = off; SELECT pg_reload_conf();});
is(merge_lines($offset, 'av_v_k', 'autovacuum'), 1, 'av_v: merged by autovacuum, once');
is(merge_lines($offset, 'av_a_k', 'autovacuum'), 1, 'av_a: merged by autovacuum, once');
is($node->safe_psql('postgres', q{
SELECT count(*) FROM pg_stat_user_tables WHERE relname = 'av_a' AND autovacuum_count = 0 AND autoanalyze_count > 0}),
	'1', 'av_a: autovacuum only analyzed it');
is(info_row('av_v_k') . ' ' . info_row('av_a_k'), '100000|0|1|100000 100000|0|1|100000',
	'every entry merged');
dyn_check($node, 'av_v_k', 'av_v');
dyn_check($node, 'av_a_k', 'av_a');

$node->stop;
done_testing();
