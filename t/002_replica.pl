# Streaming replication: every change to a learned index is WAL-logged, and
# a standby replaying it (with wal_consistency_checking, so that each
# generic WAL record is checked against a full-page image) returns the same
# answers through the index as the primary.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
wal_consistency_checking = 'generic'
autovacuum = off
});
$primary->start;
my $backup_name = 'my_backup';
$primary->backup($backup_name);

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, $backup_name, has_streaming => 1);
$standby->start;

# Compare the primary's and the standby's answers, after the standby caught up.
sub test_replay
{
	my ($name) = @_;
	$primary->wait_for_catchup($standby, 'replay');
	my $p = index_vs_seq($primary, 't', "$name (primary)");
	my $s = index_vs_seq($standby, 't', "$name (standby)");
	is($s, $p, "$name: the standby answers like the primary");
	ok(uses_learned_index($standby, 't'), "$name: the standby uses the learned index");
	return;
}

$primary->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$primary->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8, v text);
INSERT INTO t (k, v) SELECT (i * 7919) % 1000000, 'b' FROM generate_series(1, 30000) i;
INSERT INTO t (k, v) SELECT NULL, 'n' FROM generate_series(1, 50);
CREATE INDEX t_k ON t USING learned (k) WITH (error_bound = 8, merge_ratio = 10, compression = on);
});
# compressed leaf pages here (plain ones replay in t/022 and t/040)
is($primary->safe_psql('postgres',
		"SELECT compressed_pages > 0 FROM learned_index_info('t_k')"),
	't', 'the build wrote compressed leaf pages');
test_replay('initial');
all_rows_found($standby, 't', 'standby after build');

# Cycles of delete, vacuum, insert (the pending area grows, dead entries are
# marked, merges happen if the ratio is crossed).
for my $i (1 .. 6)
{
	$primary->safe_psql('postgres', "DELETE FROM t WHERE id % 7 = $i OR k % 11 = $i;");
	test_replay("delete $i");
	$primary->safe_psql('postgres', 'VACUUM t;');
	test_replay("vacuum $i");
	my ($start, $end) = (100000 * $i, 100000 * $i + 2999);
	$primary->safe_psql('postgres', qq{
INSERT INTO t (k, v) SELECT (g::int8 * 104729) % 1000000, 'i$i' FROM generate_series($start, $end) g;
INSERT INTO t (k, v) VALUES (NULL, 'i$i'), (4242, 'i$i'), (1000001, 'i$i');
});
	test_replay("insert $i");
}
all_rows_found($standby, 't', 'standby after the cycles');

# REINDEX, TRUNCATE and a fresh build on the primary.
$primary->safe_psql('postgres', 'REINDEX INDEX t_k');
test_replay('reindex');
$primary->safe_psql('postgres', q{
TRUNCATE t;
INSERT INTO t (k, v) SELECT g, 't' FROM generate_series(1, 5000) g;
});
test_replay('truncate and insert');
$primary->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY t_k');
test_replay('reindex concurrently');
all_rows_found($standby, 't', 'standby at the end');
is($primary->safe_psql('postgres',
		"SELECT compressed_pages > 0 FROM learned_index_info('t_k')"),
	't', 'merges and REINDEX kept the leaf pages compressed');

# The standby can be promoted and keeps using (and updating) the index.
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'timed out waiting for the promotion';
$standby->safe_psql('postgres', q{
INSERT INTO t (k, v) SELECT g * 3, 'promoted' FROM generate_series(1, 3000) g;
DELETE FROM t WHERE id % 4 = 0;
});
$standby->safe_psql('postgres', 'VACUUM t');
index_vs_seq($standby, 't', 'promoted standby');
all_rows_found($standby, 't', 'promoted standby');

$standby->stop;
$primary->stop;
done_testing();
