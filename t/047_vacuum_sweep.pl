# VACUUM's merge of random keys, in steps.
#
# A whole merge of random keys rewrites every segment beside the old ones,
# which wait for the snapshot horizon: the file doubled.  VACUUM now flushes
# the whole tail into a sorted run and sweeps it into the static stage one
# segment group at a time (learned_idx.merge_step_segments), and its garbage
# collection frees a step's replaced pages as soon as no other snapshot
# predates the flip (it does not wait for a transaction to end after it, as
# the snapshot horizon does).  Segments that keep the end of the file from
# being cut move down before the truncation.  Segments that deletes left
# mostly dead are rewritten in groups too.
#
# Checked: the merge proceeds in steps (one generation each); a cursor whose
# snapshot predates the VACUUM still reads every row of it from the pages
# the steps replaced (so they were not freed under it); with no other
# snapshot, VACUUM leaves no replaced page waiting and the index within 1.5x
# a fresh build; scans agree with a sequential scan; learned_index_check;
# a standby replays it all (wal_consistency_checking).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;
use LearnedDynamic;

my $node = PostgreSQL::Test::Cluster->new('vacuum_sweep');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
autovacuum = off
wal_consistency_checking = 'generic'
wal_keep_size = '1GB'
learned_idx.merge_step_segments = 1
});
$node->start;
$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('vacuum_sweep_standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->start;

$node->safe_psql('postgres',
	'CREATE EXTENSION learned_idx; CREATE EXTENSION pg_freespacemap; CREATE EXTENSION pageinspect');
$node->safe_psql('postgres', q{
CREATE TABLE v (id int, k int8) WITH (autovacuum_enabled = off);
INSERT INTO v SELECT i, 10 * i FROM generate_series(1, 200000) i;
CREATE INDEX v_k ON v USING learned (k) WITH (compression = off);
});
my $segments = $node->safe_psql('postgres', "SELECT segments FROM learned_index_info('v_k')");
cmp_ok($segments, '>=', 3, "the static stage has $segments segments");

# 40,000 keys spread over the whole range, left in the pending list (no
# merge, no flush: auto_merge off)
sub load
{
	my ($round) = @_;
	$node->safe_psql('postgres', qq{
SET learned_idx.auto_merge = off;
INSERT INTO v SELECT 1000000 * $round + i, ((i * 7919) % 200000) * 10 + $round
  FROM generate_series(1, 40000) i;
});
	return;
}

sub info
{
	my ($col) = @_;
	return $node->safe_psql('postgres', "SELECT $col FROM learned_index_info('v_k')");
}

# pages neither reachable nor free: replaced pages waiting for the horizon
sub waiting { return dyn_waiting_pages($node, 'v_k'); }

# 1. a cursor whose snapshot predates VACUUM's steps
load(1);
is(info('pending_entries'), '40000', 'the inserts are pending');
my ($s1, $first) = dyn_old_cursor($node, 'v');
my $expect = $node->safe_psql('postgres', 'SELECT count(*) FROM v');
my $gen0 = info('generation');
$node->safe_psql('postgres', 'VACUUM v');
my $gen1 = info('generation');
cmp_ok($gen1 - $gen0, '>=', $segments,
	"VACUUM merged in steps: generation $gen0 -> $gen1 for $segments segments");
is(info('pending_entries'), '0', 'VACUUM merged every pending entry');
cmp_ok(waiting(), '>', 0, 'pages the cursor may read were not freed under it');
my $rows = $s1->query_safe('FETCH ALL FROM c');
my @keys = split /\n/, $rows;
is(scalar(@keys) + 1, $expect, 'the cursor reads every row of its snapshot');
my @sorted = sort { $a <=> $b } ($first, @keys);
is_deeply([ $first, @keys ], \@sorted, 'in order');
$s1->query_safe('COMMIT');
$s1->quit;

# 2. with no other snapshot: nothing waits after VACUUM, and the file is cut
load(2);
$node->safe_psql('postgres', 'VACUUM v');
is(waiting(), '0', 'no replaced page waits after VACUUM');
load(3);
$node->safe_psql('postgres', 'VACUUM v');
is(waiting(), '0', 'nor after a second round');
is(info('pending_entries'), '0', 'every entry merged');
my $pages = info('total_pages');
$node->safe_psql('postgres', 'CREATE INDEX v_fresh ON v USING learned (k) WITH (compression = off)');
my $fresh = $node->safe_psql('postgres', "SELECT pg_relation_size('v_fresh') / 8192");
$node->safe_psql('postgres', 'DROP INDEX v_fresh');
cmp_ok($pages, '<=', 1.5 * $fresh,
	"after VACUUM the index has $pages pages, a fresh build $fresh");

# 3. deletes spread over every segment: VACUUM rewrites the mostly dead
# segments one group (here one segment) at a time, each group reusing the
# pages the one before replaced, instead of all of them beside the old
# ones in one merge
my $segs3 = info('segments');
my $pages3 = info('total_pages');
$node->safe_psql('postgres', 'DELETE FROM v WHERE id % 3 = 0');
my $gen2 = info('generation');
$node->safe_psql('postgres', 'VACUUM v');
my $gen3 = info('generation');
cmp_ok($gen3 - $gen2, '>=', $segs3,
	"the $segs3 mostly dead segments were rewritten one flip each (generation $gen2 -> $gen3)");
is(waiting(), '0', 'no replaced page waits after the rewrites');
my $pages4 = info('total_pages');
cmp_ok($pages4, '<=', $pages3,
	"a third of the rows deleted: $pages3 pages before VACUUM, $pages4 after");

# 4. the pending list's page does not stay in a hole.  A long pending
# chain goes at the end of the file; a merge (not VACUUM's) leaves its last
# page as the whole list and writes the new static stage by first fit; the
# VACUUM after it frees the old one below that page.  The VACUUM then puts
# the list's page on the lowest free block, so no free page lies below it.
sub tail_block
{
	return $node->safe_psql('postgres', q{
SELECT string_agg(b::text, ',') FROM generate_series(1, pg_relation_size('v_k') / 8192 - 1) b
 WHERE get_byte(get_raw_page('v_k', b::int), 8190) = 154
   AND get_byte(get_raw_page('v_k', b::int), 8191) = 255
   AND get_byte(get_raw_page('v_k', b::int), 8176) = 5});
}
load(4);
$node->safe_psql('postgres', "SELECT learned_index_merge('v_k')");
my ($before) = tail_block() =~ /(\d+)$/;
# an ERROR before the move's flip leaves the list where it was
dyn_fail_with($node, 'tail-move-before-flip', 'VACUUM v;', 'moving the pending page');
like(tail_block(), qr/(^|,)$before$/, 'the failed move left the pending page where it was');
is($node->safe_psql('postgres', "SELECT learned_index_check('v_k', true)"), 't',
	'learned_index_check passes after the failed move');
$node->safe_psql('postgres', 'VACUUM v');
is(info('pending_entries'), '0', 'nothing is pending after VACUUM');
my $tail = tail_block();
like($tail, qr/^\d+$/, "one pending page, block $before before VACUUM, $tail after");
is($node->safe_psql('postgres',
	"SELECT count(*) FROM pg_freespace('v_k') WHERE avail > 0 AND blkno < $tail"),
	'0', 'no free page below the pending list\'s page');

# 4b. a session that appends before the move and again after it.  Its
# later appends skip the metapage: they go to the page it last found the
# tail if that page is still a pending page without a next link.  A cursor
# opened before the VACUUM keeps the old page from being freed, so it is
# still a pending page when the appends come: only the link the move gives
# it sends them to the new page instead of a page out of the list.  A small
# index of one segment: VACUUM has nothing to merge or flush, and reads
# too little to evict the appender's buffer of the old page (the fast
# append only goes to a page still in the buffer it last used).
$node->safe_psql('postgres', q{
CREATE TABLE u (id int, k int8) WITH (autovacuum_enabled = off);
INSERT INTO u SELECT i, 10 * i FROM generate_series(1, 20000) i;
CREATE INDEX u_k ON u USING learned (k) WITH (compression = off);
});
sub list_tail
{
	return $node->safe_psql('postgres',
		"SELECT start_block FROM learned_index_runs('u_k') WHERE run IS NULL");
}
sub pending_kind
{
	my ($blk) = @_;
	return $node->safe_psql('postgres', qq{
SELECT get_byte(get_raw_page('u_k', $blk), 8190) = 154
   AND get_byte(get_raw_page('u_k', $blk), 8191) = 255
   AND get_byte(get_raw_page('u_k', $blk), 8176) = 5});
}
my $appender = $node->background_psql('postgres');
$appender->query_safe('INSERT INTO u SELECT -1, -1000 - g FROM generate_series(1, 5) g');
# a merge that rewrites the segment and keeps the list's page, above the
# segment's old pages, which it frees
$node->safe_psql('postgres', "SELECT learned_index_merge('u_k')");
my $old_tail = list_tail();
is(pending_kind($old_tail), 't', "the list's page $old_tail is a pending page");
# an xid after the merge's flip: the cursor's snapshot then does not hold
# the pages the merge replaced, which VACUUM frees below the list's page
$node->safe_psql('postgres', 'SELECT txid_current()');
my ($reader, $first_row) = dyn_old_cursor($node, 'u');
$node->safe_psql('postgres', 'VACUUM u');
my $new_tail = list_tail();
cmp_ok($new_tail, '<', $old_tail, "VACUUM moved the list down, from page $old_tail to $new_tail");
is(pending_kind($old_tail), 't',
	"the old page $old_tail is still a pending page under the cursor");
$appender->query_safe('INSERT INTO u SELECT -2, -2000 - g FROM generate_series(1, 5) g');
$appender->quit;
is($node->safe_psql('postgres', q{
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FILTER (WHERE k < -1999), count(*) FILTER (WHERE k > -1999)
  FROM u WHERE k < -999}),
	'5|5', 'the rows appended after the move, as before it, are found through the index');
$reader->query_safe('COMMIT');
$reader->quit;
is($node->safe_psql('postgres', "SELECT learned_index_check('u_k', true)"), 't',
	'learned_index_check passes after appends across the move');

# 5. a merge cuts a segment to fit a hole rather than extend the file past
# the hole.  Segment 0 grows by half: its merge writes it past the end,
# and VACUUM frees its old pages, a hole (vacuum_truncate off: no segment
# moves, no truncation).  Segment 1 grows by 60%: its rewrite, two even
# parts, takes the hole with the first and would leave the hole's rest
# free while extending the file for the second; cut to fit, it fills it.
$node->safe_psql('postgres', q{
CREATE TABLE w (id int, k int8) WITH (autovacuum_enabled = off);
INSERT INTO w SELECT i, 10 * i FROM generate_series(1, 150000) i;
CREATE INDEX w_k ON w USING learned (k) WITH (compression = off, vacuum_truncate = off);
});
sub grow_segment
{
	my ($seg, $frac) = @_;
	$node->safe_psql('postgres', qq{
SET learned_idx.auto_merge = off;
INSERT INTO w SELECT -1, s.lo + 1 + (g * 7) % (s.hi - s.lo - 1)
  FROM (SELECT first_key::int8 AS lo, last_key::int8 AS hi, entries
          FROM learned_index_segments('w_k') WHERE segment = $seg) s,
       generate_series(1, (s.entries * $frac)::int) g;
SELECT learned_index_merge('w_k');
});
	return;
}
sub free_pages
{
	my ($idx) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_freespace('$idx') WHERE avail > 0");
}
# grow one segment and VACUUM (a hole of its old pages), then grow another
# whose rewrite fits no hole: the hole must be filled before the file grows
sub hole_filled
{
	my ($idx, $table, $grow, $first, $second, $what) = @_;
	$grow->(@$first);
	$node->safe_psql('postgres', "VACUUM $table");
	my $hole = free_pages($idx);
	cmp_ok($hole, '>=', 16, "$idx: the grown segment's old pages are a hole of $hole pages");
	my $p0 = $node->safe_psql('postgres', "SELECT pg_relation_size('$idx') / 8192");
	$grow->(@$second);
	my $p1 = $node->safe_psql('postgres', "SELECT pg_relation_size('$idx') / 8192");
	cmp_ok(free_pages($idx), '<', 16,
		"$what ($p0 -> $p1 pages) filled the hole of $hole pages first (" . free_pages($idx) . ' left)');
	is($node->safe_psql('postgres', "SELECT learned_index_check('$idx', true)"), 't',
		"learned_index_check passes on $idx");
	return $hole;
}
cmp_ok($node->safe_psql('postgres', "SELECT segments FROM learned_index_info('w_k')"), '>=', 3,
	'w_k has at least three segments');
hole_filled('w_k', 'w', \&grow_segment, [ 0, 0.5 ], [ 1, 0.6 ], 'the merge that extended the file');
index_vs_seq($node, 'w', 'after the cut segments');

# 6. the same cut for a composite key, whose segments live on
# variable-width pages (as every composite or string key's do).  A build
# cuts them at 128 pages, so (a, b) over 73,088 + 60 * 571 rows makes a
# segment of 128 pages and one of 60.  Segment 1 grows by a fifth, spread
# over all its pages: its rewrite goes past the end and VACUUM frees its
# old pages, a hole smaller than 128 pages.  Segment 0 then grows by 5%:
# its rewrite (134 pages: 128 and 7) used to find no hole for its first
# part and extend the file beside the hole; cut to fit, it fills it.
$node->safe_psql('postgres', q{
CREATE TABLE c (a int, b int8, id int) WITH (autovacuum_enabled = off);
INSERT INTO c SELECT 1, 10 * i, i FROM generate_series(1, 107348) i;
CREATE INDEX c_ab ON c USING learned (a, b) WITH (vacuum_truncate = off);
});
is($node->safe_psql('postgres',
	"SELECT string_agg(pages::text, ',' ORDER BY segment) FROM learned_index_segments('c_ab')"),
	'128,60', 'c_ab has a segment of 128 pages and one of 60');
# the keys are b = 10 * rank (a = 1): spread the new ones evenly over a
# segment's ranks
sub grow_composite
{
	my ($seg, $frac) = @_;
	$node->safe_psql('postgres', qq{
SET learned_idx.auto_merge = off;
INSERT INTO c SELECT 1, s.lo + 1 + (g::int8 * (s.hi - s.lo - 2)) / (s.entries * $frac)::int8, -1
  FROM (SELECT segment, entries,
               10 * (1 + coalesce(sum(entries) OVER (ORDER BY segment ROWS BETWEEN
                                  UNBOUNDED PRECEDING AND 1 PRECEDING), 0))::int8 AS lo,
               10 * (sum(entries) OVER (ORDER BY segment))::int8 AS hi
          FROM learned_index_segments('c_ab')) s,
       generate_series(1, (s.entries * $frac)::int) g
 WHERE s.segment = $seg;
SELECT learned_index_merge('c_ab');
});
	return;
}
cmp_ok(hole_filled('c_ab', 'c', \&grow_composite, [ 1, 0.2 ], [ 0, 0.05 ],
		'the composite merge that extended the file'),
	'<', 128, 'that hole was smaller than segment 0');
my $cq = join(";\n",
	'SELECT count(*), sum(hashint8(b)), sum(hashint4(id)) FROM c WHERE a = 1',
	'SELECT count(*), sum(hashint4(id)) FROM c WHERE a = 1 AND b BETWEEN 700000 AND 760000',
	'SELECT count(*), sum(hashint4(id)) FROM c WHERE a = 1 AND b = ANY (\'{10,730880,730881,1073480,5}\')',
	'SELECT b FROM c WHERE a = 1 AND b > 725000 ORDER BY a, b LIMIT 300',
	'SELECT b FROM c WHERE a = 1 AND b < 740000 ORDER BY a DESC, b DESC LIMIT 300') . ";\n";
my $cref = $node->safe_psql('postgres',
	"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;\n$cq");
foreach my $m ('SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;',
	'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;')
{
	is($node->safe_psql('postgres', "$m\n$cq"), $cref,
		"c_ab after the cut segments agrees with a sequential scan ($m)");
}

is($node->safe_psql('postgres', "SELECT learned_index_check('v_k', true)"), 't',
	'learned_index_check passes');
index_vs_seq($node, 'v', 'after the swept VACUUMs');

$node->wait_for_catchup($standby);
is(index_vs_seq($standby, 'v', 'on the standby'), index_vs_seq($node, 'v', 'on the primary'),
	'the standby has the primary\'s rows');
is($standby->safe_psql('postgres', "SELECT learned_index_check('v_k')"), 't',
	'learned_index_check passes on the standby');
$standby->stop;
$node->stop;
done_testing();
