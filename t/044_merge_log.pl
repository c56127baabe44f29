# learned_idx.log_merge_min_duration and the merge counters.
#
# At 0 every merge logs exactly one LOG line naming the index (database,
# schema, name), who merged (worker, insert, VACUUM, learned_index_merge),
# the entries merged, the new generation, the pages written, replaced and
# freed, and the time; at -1 (the default) or above the merge's duration,
# none.  Only a superuser may set it.  learned_index_info's merges,
# merged_entries and last_merge_ms move with each merge; the flip record
# carries them, so a standby and a crash-restarted primary show the same.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('merge_log');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
autovacuum = off
learned_idx.log_merge_min_duration = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE t (id int, k int8) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT g, (g::int8 * 7919) % 1000003 FROM generate_series(1, 50000) g;
CREATE INDEX t_k ON t USING learned (k);
});
my $standby = dyn_standby($node, 'merge_log_standby');

my $re = qr/LOG:  learned index "postgres\.(\w+)\.(\w+)" merged by ([\w ]+): (\d+) entries, generation (\d+), pages: (\d+) written, (\d+) replaced, (\d+) freed, elapsed: (\d+\.\d{3}) ms\n/;

# the merge lines logged since an offset: a list of hashes
sub merge_lines
{
	my ($offset) = @_;
	my $log = slurp_file($node->logfile, $offset);
	my @lines;
	my $all = () = $log =~ /merged by/g;
	while ($log =~ /$re/g)
	{
		push @lines, { schema => $1, index => $2, by => $3, entries => $4,
			generation => $5, written => $6, replaced => $7, freed => $8, ms => $9 };
	}
	# a line the pattern misses would be counted in $all only
	is(scalar(@lines), $all, 'every merge line has the expected fields');
	return @lines;
}

sub counters
{
	my ($n, $idx) = @_;
	return $n->safe_psql('postgres',
		"SELECT generation, merges, merged_entries, last_merge_ms FROM learned_index_info('$idx')");
}

sub one_line
{
	my ($offset, $idx, $by, $entries, $name) = @_;
	my @l = merge_lines($offset);
	is(scalar(@l), 1, "$name: exactly one merge line");
	return unless @l == 1;
	my ($gen) = split /\|/, counters($node, $idx);
	is("$l[0]{schema}.$l[0]{index}", "public.$idx", "$name: names the index");
	is($l[0]{by}, $by, "$name: says who merged");
	is($l[0]{entries}, $entries, "$name: the entries merged");
	is($l[0]{generation}, $gen, "$name: the new generation");
	cmp_ok($l[0]{written}, '>', 0, "$name: pages written");
	return $l[0];
}

# VACUUM's merge: one line per step where it is swept (a static stage of
# two segments or more), one where it is whole; a segment VACUUM moves down
# for its truncation adds a line of 0 entries
sub vacuum_lines
{
	my ($offset, $idx, $entries, $name) = @_;
	my @l = merge_lines($offset);
	cmp_ok(scalar(@l), '>=', 1, "$name: merge lines");
	is(scalar(grep { $_->{by} eq 'VACUUM' && "$_->{schema}.$_->{index}" eq "public.$idx" } @l),
		scalar(@l), "$name: every line names the index and says VACUUM");
	my $sum = 0;
	$sum += $_->{entries} for @l;
	is($sum, $entries, "$name: the lines count the entries merged");
	my ($gen) = split /\|/, counters($node, $idx);
	is($l[-1]{generation}, $gen, "$name: the last line has the new generation") if @l;
	return;
}

# 1. learned_index_merge
is(counters($node, 't_k'), '1|0|0|', 'a new index: no merge yet');
$node->safe_psql('postgres',
	'INSERT INTO t SELECT g, (g::int8 * 104729) % 1000003 FROM generate_series(50001, 50500) g');
my $offset = -s $node->logfile;
is($node->safe_psql('postgres', q{SELECT learned_index_merge('t_k')}), '500', 'merged 500');
my $l = one_line($offset, 't_k', 'learned_index_merge', 500, 'learned_index_merge');
my ($gen, $merges, $merged, $ms) = split /\|/, counters($node, 't_k');
is("$merges|$merged", '1|500', 'the counters moved');
ok($ms >= 0 && abs($ms - $l->{ms}) < 0.002, 'last_merge_ms is the logged duration')
  or diag("info $ms, log $l->{ms}");
# random keys reach every segment: the merge replaced the old ones
cmp_ok($l->{replaced}, '>', 0, 'pages replaced');

# 2. VACUUM with dead rows: ambulkdelete merges first
$node->safe_psql('postgres',
	'INSERT INTO t SELECT g, (g::int8 * 15485863) % 1000003 FROM generate_series(50501, 50800) g; DELETE FROM t WHERE id % 100 = 0');
$offset = -s $node->logfile;
$node->safe_psql('postgres', 'VACUUM t');
vacuum_lines($offset, 't_k', 300, 'VACUUM');
is((split /\|/, counters($node, 't_k'))[2], 800, 'merged_entries is cumulative');

# 3. a VACUUM with nothing to delete merges in its cleanup
$node->safe_psql('postgres',
	'INSERT INTO t SELECT g, g FROM generate_series(50801, 50900) g');
$offset = -s $node->logfile;
$node->safe_psql('postgres', 'VACUUM t');
vacuum_lines($offset, 't_k', 100, 'VACUUM with nothing to delete');

# 4. the worker: an insert past the trigger (5000 entries: static / 10)
($gen, $merges) = split /\|/, counters($node, 't_k');
$offset = -s $node->logfile;
$node->safe_psql('postgres',
	'INSERT INTO t SELECT g, (g::int8 * 7) % 1000003 FROM generate_series(100001, 106000) g');
# The worker merged, exited and left the list under the trigger: the
# INSERT may have asked for a second worker (past its one-second throttle on a slow machine) after
# the first one's last merge, which the postmaster starts when it gets to
# it; until then the list stays over the trigger.  (Its merge would come
# after the lines counted here, and log a line in section 6's window.)
ok( $node->poll_query_until('postgres', qq{
SELECT merges > $merges
   AND NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE backend_type = 'learned_idx merge')
   AND (pending_entries < 1024 OR pending_entries <= entries / 10.0)
FROM learned_index_info('t_k')}), 'the worker merged');
my @l = merge_lines($offset);
cmp_ok(scalar(@l), '>=', 1, 'worker: merge lines');
is(scalar(grep { $_->{by} eq 'worker' && $_->{index} eq 't_k' } @l), scalar(@l),
	'worker: every line says the worker merged');
my $sum = 0;
$sum += $_->{entries} for @l;
my ($pending) = $node->safe_psql('postgres', "SELECT pending_entries FROM learned_index_info('t_k')");
is($sum + $pending, 6000, 'worker: the lines count the entries it merged');

# 5. an inserting backend, inline: a temporary index (no worker sees it)
# merges at its 1024th entry
$offset = -s $node->logfile;
$node->safe_psql('postgres', q{
CREATE TEMP TABLE tt (k int8);
CREATE INDEX tt_k ON tt USING learned (k);
INSERT INTO tt SELECT g FROM generate_series(1, 1500) g;
});
my @t = grep { $_->{index} eq 'tt_k' } merge_lines($offset);
is(scalar(@t), 1, 'insert: one merge line');
is($t[0]{by} . ' ' . $t[0]{entries}, 'insert 1024', 'insert: by the inserting backend, 1024 entries')
  if @t;

# 6. off (-1), or a threshold above the merge's time: no line
$node->safe_psql('postgres', 'INSERT INTO t SELECT g, g FROM generate_series(200001, 200100) g');
$offset = -s $node->logfile;
$node->safe_psql('postgres', q{SET learned_idx.log_merge_min_duration = -1; SELECT learned_index_merge('t_k')});
is(scalar(merge_lines($offset)), 0, '-1: no line');
$node->safe_psql('postgres', 'INSERT INTO t SELECT g, g FROM generate_series(200101, 200200) g');
$node->safe_psql('postgres', q{SET learned_idx.log_merge_min_duration = '1h'; SELECT learned_index_merge('t_k')});
is(scalar(merge_lines($offset)), 0, '1h: no line');

# 7. only a superuser sets it (once the library is loaded: the query
# through the index loads it)
$node->safe_psql('postgres', 'CREATE ROLE mlog LOGIN; GRANT SELECT ON t TO mlog');
my ($ret, $out, $err) = $node->psql('postgres',
	'SET enable_seqscan = off; SELECT count(*) FROM t WHERE k = 5; SET learned_idx.log_merge_min_duration = 0',
	extra_params => [ '-U', 'mlog' ]);
like($err, qr/permission denied to set parameter "learned_idx\.log_merge_min_duration"/,
	'a plain role cannot set it');

# 8. the standby and a crash agree with the primary
my $primary_counters = counters($node, 't_k');
$node->wait_for_catchup($standby);
is(counters($standby, 't_k'), $primary_counters, 'the standby shows the same counters');
$node->stop('immediate');
$node->start;
is(counters($node, 't_k'), $primary_counters, 'so does the primary after a crash');
dyn_check($node, 't_k', 'after the crash');

$standby->stop;
$node->stop;
done_testing();
