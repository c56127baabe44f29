# Composite keys and INCLUDE columns through WAL: a multi-column learned
# index (with its key map in the metapage) built, grown through the pending
# list, merged, vacuumed; a streaming standby replays it all, then the
# primary is killed (immediate stop) and restarted.  Every query must agree
# with a sequential scan, on the primary before and after the crash and on
# the standby, and learned_index_check must pass.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
checkpoint_timeout = 1h
autovacuum = off
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$primary->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
$standby->start;

my @queries = (
	q{SELECT a, b, c FROM t WHERE a = 3 AND b = 4 ORDER BY a, b, c},
	q{SELECT a, b, c FROM t WHERE a = 7 AND c > '2020-06-01' ORDER BY a DESC, b NULLS LAST, c DESC},
	q{SELECT a, b, c FROM t WHERE b = 2},
	q{SELECT a, b, c FROM t WHERE a IN (1, 5, 9) AND b IS NULL},
	q{SELECT a, b, c FROM t WHERE a IS NULL},
	q{SELECT a, b, c FROM t WHERE a > 8 AND b BETWEEN 3 AND 5 AND c < '2021-01-01'},
	q{SELECT a, p, c FROM t WHERE a = 4 AND b = 1},
);

# the answers of every query, through the learned index (index and
# index-only scans forced) and through a sequential scan
sub answers
{
	my ($node, $label) = @_;
	my $out = '';
	foreach my $q (@queries)
	{
		my $ordered = $q =~ /ORDER BY/ ? '' : ' ORDER BY 1, 2, 3';
		my $qq = $q =~ /ORDER BY/ ? $q : "SELECT * FROM ($q) s$ordered";
		my $idx = $node->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; $qq");
		my $seq = $node->safe_psql('postgres',
			"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $qq");
		is($idx, $seq, "$label: $q");
		my $plan = $node->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) $qq");
		like($plan, qr/Index (Only )?Scan (Backward )?using t_(abc|ap)/, "$label: the learned index answers $q");
		$out .= $idx . "\n--\n";
	}
	return $out;
}

$primary->safe_psql('postgres', q{
CREATE TABLE t (id serial, a int4, b int8, c date, p float8);
INSERT INTO t (a, b, c, p)
SELECT CASE WHEN i % 53 = 0 THEN NULL ELSE i % 12 END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE (i * 7) % 9 END,
       date '2020-01-01' + (i * 13) % 900, i / 3.0
FROM generate_series(1, 20000) i;
CREATE INDEX t_abc ON t USING learned (a, b DESC NULLS FIRST, c) WITH (merge_ratio = 1000);
CREATE INDEX t_ap ON t USING learned (a, b) INCLUDE (p, c) WITH (merge_ratio = 1000);
});
# queries use t_abc except the INCLUDE one; the planner picks per query.
# No merge worker (auto_merge off: the VACUUM merges): one the postmaster
# started late would merge whatever it found, up to the 3,300 entries
# whose merge the key map check below reads from its own merge's message.
$primary->safe_psql('postgres', q{
SET learned_idx.pending_limit = '100MB';
SET learned_idx.auto_merge = off;
INSERT INTO t (a, b, c, p) SELECT i % 15, i % 11, date '2019-06-01' + i % 1500, -i FROM generate_series(1, 3000) i;
INSERT INTO t (a, b, c, p) VALUES (NULL, NULL, NULL, NULL), (100, 100, 'infinity', 'NaN');
VACUUM t;
});
$primary->safe_psql('postgres', q{
INSERT INTO t (a, b, c, p) SELECT 3, 4, date '2021-01-01' + i, i FROM generate_series(1, 200) i;
SELECT learned_index_merge('t_abc'), learned_index_merge('t_ap');
DELETE FROM t WHERE id % 5 = 0;
VACUUM t;
INSERT INTO t (a, b, c, p) SELECT 7, i % 3, date '2020-06-01' + i, i FROM generate_series(1, 300) i;
});
# Keys past the key map's ranges (a = 20..29; the build saw 0..11): the
# merge plans the map anew and rewrites every segment under it; the
# standby replays the new map in the flip record.  No worker meanwhile
# (merge_ratio = 1), so the merge brings all 3,000 at once.
$primary->safe_psql('postgres', q{
ALTER INDEX t_abc SET (merge_ratio = 1);
ALTER INDEX t_ap SET (merge_ratio = 1);
INSERT INTO t (a, b, c, p) SELECT 20 + i % 10, i % 7, date '2022-01-01' + i % 400, i FROM generate_series(1, 3000) i;
});
my ($out, $err) = ('', '');
$primary->psql('postgres',
	q{SET client_min_messages = debug1; SELECT learned_index_merge('t_abc'), learned_index_merge('t_ap')},
	stdout => \$out, stderr => \$err);
like($err, qr/"t_abc": key map planned anew, 3000 of 3[0-9]{3} merged entries/, 't_abc: the merge re-planned its key map');
like($err, qr/"t_ap": key map planned anew/, 't_ap: the merge re-planned its key map');
push @queries, q{SELECT a, b, c FROM t WHERE a = 25 AND b = 4},
	q{SELECT a, b, c FROM t WHERE a BETWEEN 11 AND 21 AND b = 3 ORDER BY a, b DESC NULLS FIRST, c};
$primary->wait_for_catchup($standby);

my $before = answers($primary, 'primary');
is(answers($standby, 'standby'), $before, 'the standby answers as the primary');
is($standby->safe_psql('postgres', q{SELECT learned_index_check('t_abc') AND learned_index_check('t_ap')}),
	't', 'learned_index_check passes on the standby');

$primary->stop('immediate');
$primary->start;
is(answers($primary, 'after crash'), $before, 'after the crash: same answers as before');
is($primary->safe_psql('postgres', q{SELECT learned_index_check('t_abc', true) AND learned_index_check('t_ap', true)}),
	't', 'learned_index_check passes after the crash');

done_testing();
