# kill_prior_tuple hints and standbys.  Hint bits are not WAL-logged, but
# with wal_log_hints (or data checksums) the first hint on a page after a
# checkpoint logs the page's full image, so the hints reach the standby.
# They were set for the primary's horizon, which (with hot_standby_feedback
# off) does not know the standby's snapshots: a standby transaction whose
# snapshot still sees the deleted rows must keep reading them through the
# index.  Scans started in recovery therefore ignore the hints, as btree
# ignores LP_DEAD there.  Then: a standby scan started afresh, the
# primary's VACUUM (its dead marks clear the hints in the logged image,
# which wal_consistency_checking compares), and a promotion: the promoted
# node's new transactions use the hints again.
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
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
# Wide rows, two a heap page (fillfactor 50): the primary's index scans
# below do not prune those pages (a page is pruned when less than its
# fillfactor's free space is left), so no prune record waits for the
# standby transaction before the hint images replay.
$primary->safe_psql('postgres', q{
CREATE TABLE h (k int8, pad text) WITH (fillfactor = 50, autovacuum_enabled = off);
ALTER TABLE h ALTER pad SET STORAGE PLAIN;
INSERT INTO h SELECT g, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 45) i)
FROM generate_series(1, 3000) g;
CREATE INDEX h_k ON h USING learned (k);
VACUUM ANALYZE h;
});
my $per_page = $primary->safe_psql('postgres',
	"SELECT round(3000.0 / pg_relation_size('h') * 8192)");
note "heap rows per page: $per_page";

my $standby = dyn_standby($primary, 'standby');
$primary->wait_for_catchup($standby);

my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off; ';
my $q = 'SELECT count(*), min(k) FROM h WHERE k <= 1000';

# a standby transaction whose snapshot sees rows 1..1000
my $s = $standby->background_psql('postgres', on_error_stop => 0);
$s->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$s->query_safe('SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off');
is($s->query_safe($q), '1000|1', 'standby snapshot: 1000 rows before the delete');

# the primary deletes 300 of them; after a checkpoint, its scan's hints log
# the leaf page's image (wal_log_hints)
$primary->safe_psql('postgres', 'DELETE FROM h WHERE k <= 300');
$primary->safe_psql('postgres', 'CHECKPOINT');
is($primary->safe_psql('postgres', $idx . $q), '700|301', 'primary: 700 rows after the delete');
my $hinted = $primary->safe_psql('postgres', "SELECT hinted_entries FROM learned_index_info('h_k')");
is($hinted, '300', 'primary: its scan hinted the 300 deleted entries');
$primary->wait_for_catchup($standby);
# (the image is of the page at its first hint since the checkpoint: the
# scan's later hints on it, from its next slices, are not logged)
my $shinted = $standby->safe_psql('postgres', "SELECT hinted_entries FROM learned_index_info('h_k')");
cmp_ok($shinted, '>', 0, "standby: hint bits arrived in a full-page image ($shinted)");

# the old snapshot still sees the deleted rows, through the index
is($s->query_safe($q), '1000|1', 'standby snapshot: still 1000 rows, hints ignored');
like($s->query_safe("EXPLAIN (COSTS OFF) $q"), qr/Index (Only )?Scan using h_k/, 'standby: the plan uses the index');
$s->query_safe('COMMIT');
$s->quit;
is($standby->safe_psql('postgres', $idx . $q), '700|301', 'standby: a new snapshot sees 700 rows');

# VACUUM marks the entries dead and logs the page with its hints cleared:
# the standby's consistency check compares the replayed page with it
$primary->safe_psql('postgres', 'VACUUM h');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', "SELECT hinted_entries FROM learned_index_info('h_k')"),
	'0', 'standby: VACUUM cleared the hints');
dyn_check($standby, 'h_k', 'standby after VACUUM');
is($standby->safe_psql('postgres', $idx . $q), '700|301', 'standby: 700 rows after VACUUM');

# promotion: new transactions on the promoted node set and use hints
$primary->stop;
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
$standby->safe_psql('postgres', 'DELETE FROM h WHERE k BETWEEN 301 AND 400');
is($standby->safe_psql('postgres', $idx . $q), '600|401', 'promoted: 600 rows after its delete');
is($standby->safe_psql('postgres', "SELECT hinted_entries FROM learned_index_info('h_k')"),
	'100', 'promoted: its scan hinted the 100 entries it found dead');
is($standby->safe_psql('postgres', $idx . $q), '600|401', 'promoted: the same rows with the hints');
dyn_check($standby, 'h_k', 'promoted');

done_testing();
