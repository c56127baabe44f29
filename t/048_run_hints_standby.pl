# kill_prior_tuple hints on sorted runs' entries (LEARNED_PENDING_HINT) and
# standbys.  The hint changes a record's flags on a run data page, under a
# share lock, without WAL of its own; with wal_log_hints the first hint on a
# page after a checkpoint logs the page's image, so hints reach the standby,
# whose scans started in recovery must ignore them (a standby snapshot may
# still see the rows).  Every later WAL-logged change of a hinted run page
# (a flush's link to the next run, garbage collection's stamp and FREE
# mark after a merge) logs the page whole, hints included:
# wal_consistency_checking = 'generic' compares each replayed page with the
# primary's, and fails the standby's replay if a hint were left behind.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedDynamic;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
wal_log_hints = on
wal_consistency_checking = 'generic'
autovacuum = off
learned_idx.tail_limit = 200
learned_idx.auto_merge = off
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
# wide rows, two a heap page (fillfactor 50), as in t/032: the primary's
# scans do not prune those pages, so no prune record waits for the standby
# transaction below before the hint images replay
$primary->safe_psql('postgres', q{
CREATE TABLE h (k int8, pad text) WITH (fillfactor = 50, autovacuum_enabled = off);
ALTER TABLE h ALTER pad SET STORAGE PLAIN;
INSERT INTO h SELECT g, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 45) i)
FROM generate_series(1, 1000) g;
CREATE INDEX h_k ON h USING learned (k);
INSERT INTO h SELECT 1000 + (g * 7919) % 3000 + 1,
  (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 45) i)
FROM generate_series(0, 2999) g;
});
my $runs = $primary->safe_psql('postgres',
	"SELECT count(*) FROM learned_index_runs('h_k') WHERE run IS NOT NULL");
cmp_ok($runs, '>', 0, "primary: the pending entries are in $runs runs");

my $standby = dyn_standby($primary, 'standby');
$primary->wait_for_catchup($standby);

my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off; ';
my $q = 'SELECT count(*), min(k) FROM h WHERE k > 1000';

# a standby transaction whose snapshot sees every pending row
my $s = $standby->background_psql('postgres', on_error_stop => 0);
$s->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$s->query_safe('SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off');
is($s->query_safe($q), '3000|1001', 'standby snapshot: 3000 pending rows before the delete');

# the primary deletes 2000 of them; after a checkpoint, its scan hints the
# run entries, and each run page's first hint logs its image
$primary->safe_psql('postgres', 'DELETE FROM h WHERE k BETWEEN 1001 AND 3000');
$primary->safe_psql('postgres', 'CHECKPOINT');
is($primary->safe_psql('postgres', $idx . $q), '1000|3001', 'primary: 1000 rows after the delete');
my $hinted = $primary->safe_psql('postgres', "SELECT hinted_entries FROM learned_index_info('h_k')");
cmp_ok($hinted, '>', 0, "primary: its scan hinted $hinted run entries");
is($primary->safe_psql('postgres', $idx . $q), '1000|3001', 'primary: the same rows with the hints');
$primary->wait_for_catchup($standby);
my $shinted = $standby->safe_psql('postgres', "SELECT hinted_entries FROM learned_index_info('h_k')");
cmp_ok($shinted, '>', 0, "standby: run hints arrived in full-page images ($shinted)");

# the old snapshot still sees the deleted rows through the index
is($s->query_safe($q), '3000|1001', 'standby snapshot: still 3000 rows, run hints ignored');
like($s->query_safe("EXPLAIN (COSTS OFF) $q"), qr/Index (Only )?Scan using h_k/, 'standby: the plan uses the index');
$s->query_safe('COMMIT');
$s->quit;
is($standby->safe_psql('postgres', $idx . $q), '1000|3001', 'standby: a new snapshot sees 1000 rows');
dyn_check($standby, 'h_k', 'standby with hinted runs');

# more inserts: flushes link new runs after hinted ones (the link changes a
# hinted page), compactions replace hinted runs
$primary->safe_psql('postgres', q{
INSERT INTO h SELECT g, 'new' FROM generate_series(5001, 7000) g;
});
$primary->safe_psql('postgres', $idx . 'SELECT count(*) FROM h WHERE k > 0');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $idx . 'SELECT count(*) FROM h WHERE k > 1000'), '3000',
	'standby: 3000 rows after the flushes');
dyn_check($standby, 'h_k', 'standby after flushes');

# a merge folds the runs into the static stage; the next merge's garbage
# collection stamps and frees the replaced (hinted) run pages
$primary->safe_psql('postgres', "SELECT learned_index_merge('h_k')");
$primary->safe_psql('postgres', 'INSERT INTO h SELECT g, \'more\' FROM generate_series(7001, 7500) g');
$primary->safe_psql('postgres', "SELECT learned_index_merge('h_k')");
$primary->safe_psql('postgres', 'INSERT INTO h SELECT g, \'more\' FROM generate_series(7501, 8000) g');
$primary->safe_psql('postgres', "SELECT learned_index_merge('h_k')");
$primary->safe_psql('postgres', 'VACUUM h');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $idx . 'SELECT count(*) FROM h WHERE k > 1000'), '4000',
	'standby: 4000 rows after the merges and VACUUM');
is($primary->safe_psql('postgres', $idx . 'SELECT count(*) FROM h WHERE k > 1000'), '4000',
	'primary: 4000 rows after the merges and VACUUM');
dyn_check($primary, 'h_k', 'primary after merges');
dyn_check($standby, 'h_k', 'standby after merges');
# the standby replayed every record (a failed consistency check stops it)
ok($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()') eq 't', 'standby: still replaying');

done_testing();
