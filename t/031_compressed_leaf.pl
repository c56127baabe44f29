# Damaged compressed leaf pages (reloption compression = on) are reported as
# index corruption with a REINDEX hint, by scans and by learned_index_check,
# never a crash or a wrong answer: a bad page header, counts over the page,
# runs past the page, residual widths out of bounds.  The relation file is
# edited while the server is stopped (no pageinspect needed).
#
# A compressed leaf page: page header (24 bytes), then the area of
# src/leafcodec.h: LcpHeader (magic, n, key_off, blk_off, off_off, end_off:
# six uint32, offsets from the area's start), the dead bitmap, then three
# LeCo runs (keys, block numbers, offsets).  A LeCo run: a 32-byte header,
# then 40-byte partition headers whose residual width b is at +25.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $node = PostgreSQL::Test::Cluster->new('cleaf');
init_unchecksummed($node);
$node->append_conf('postgresql.conf', 'autovacuum = off');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE f (k int8);
INSERT INTO f SELECT (i * 7919) % 1000003 FROM generate_series(1, 100000) i;
CREATE INDEX f_c ON f USING learned (k) WITH (compression = on);
CHECKPOINT;
});

my $bs = $node->safe_psql('postgres', q{SELECT current_setting('block_size')});
my $expect = $node->safe_psql('postgres', q{SELECT count(*) FROM f WHERE k BETWEEN 1000 AND 2000});

is($node->safe_psql('postgres', q{SELECT compressed_pages = leaf_pages AND leaf_pages > 0
	FROM learned_index_info('f_c')}), 't', 'every leaf page is compressed');


# the first leaf page holds the smallest keys (the query below reads it)
sub leafblk
{
	return $node->safe_psql('postgres',
		"SELECT start_block FROM learned_index_segments('f_c') WHERE segment = 0");
}



sub query
{
	my ($ret, $out, $err) = $node->psql('postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = on;
SELECT count(*) FROM f WHERE k BETWEEN 1000 AND 2000;});
	return ($ret, $out, $err);
}

my ($ret, $out, $err) = query();
is($ret, 0, 'the index answers');
is($out, $expect, 'and right');

# damage: [name, offset in the page (a sub of the page's bytes), bytes]
my @cases = (
	[ 'bad magic', sub { 24 }, pack('L', 0xdeadbeef) ],
	[ 'entry count over the bitmap', sub { 24 + 4 }, pack('L', 60000) ],
	[ 'runs past the page', sub { 24 + 20 }, pack('L', $bs + 64) ],
	[ 'overlapping runs', sub { 24 + 12 }, pack('L', $_[0]->{key_off}) ],
	[ 'key residual width 99', sub { 24 + $_[0]->{key_off} + 32 + 25 }, pack('C', 99) ],
	[ 'block residual width 40', sub { 24 + $_[0]->{blk_off} + 32 + 25 }, pack('C', 40) ],
	[ 'offset run element count', sub { 24 + $_[0]->{off_off} + 4 }, pack('L', 3) ],
	[ 'page entry count', sub { $bs - 16 + 2 }, pack('S', 7) ],
);

foreach my $c (@cases)
{
	my ($name, $where, $bytes) = @$c;
	my $file = relfile_path($node, 'f_c');
	my $blk = leafblk();
	$node->stop;
	my %h = (
		key_off => unpack('L', relfile_read($file, $blk * $bs + 24 + 8, 4)),
		blk_off => unpack('L', relfile_read($file, $blk * $bs + 24 + 12, 4)),
		off_off => unpack('L', relfile_read($file, $blk * $bs + 24 + 16, 4)));
	relfile_patch($file, $blk * $bs + $where->(\%h), $bytes);
	$node->start;
	($ret, $out, $err) = query();
	isnt($ret, 0, "$name: the scan is refused");
	like($err, qr/learned index "f_c" is corrupted|learned index "f_c" failed check/,
		"$name: reported as corruption");
	like($err, qr/HINT:\s+REINDEX the index/, "$name: with a REINDEX hint");
	($ret, $out, $err) = $node->psql('postgres', q{SELECT learned_index_check('f_c')});
	isnt($ret, 0, "$name: learned_index_check fails");
	like($err, qr/corrupted|failed check/, "$name: learned_index_check reports it");
	is($node->safe_psql('postgres', 'SELECT 1'), '1', "$name: the server is still up");
	$node->safe_psql('postgres', 'REINDEX INDEX f_c; CHECKPOINT');
	($ret, $out, $err) = query();
	is($out, $expect, "$name: REINDEX repairs it");
}

# The hint bitmap (kill_prior_tuple) at the end of the page: a page whose
# pd_upper is not where its entry count puts the bitmap is read as having
# none (the hints only save heap visits), and learned_index_check reports
# it; hint bits set on live entries (which scans then skip, as btree skips
# a corrupt LP_DEAD) are reported by the heapallindexed check.
# patch the first leaf page: $edit gets its pd_upper, returns (offset, bytes)
sub patch_leaf
{
	my ($edit) = @_;
	my $file = relfile_path($node, 'f_c');
	my $blk = leafblk();
	$node->stop;
	my $upper = unpack('S', relfile_read($file, $blk * $bs + 14, 2));
	my ($off, $bytes) = $edit->($upper);
	relfile_patch($file, $blk * $bs + $off, $bytes);
	$node->start;
	return;
}

is($node->safe_psql('postgres', q{SELECT hinted_entries FROM learned_index_info('f_c')}),
	'0', 'hints: none before the damage');
patch_leaf(sub { return (14, pack('S', $_[0] - 8)) });
($ret, $out, $err) = query();
is($out, $expect, 'hint bitmap out of place: the scan answers right (no hints read)');
($ret, $out, $err) = $node->psql('postgres', q{SELECT learned_index_check('f_c')});
like($err, qr/hint bitmap is out of place/, 'hint bitmap out of place: learned_index_check reports it');
like($err, qr/HINT:\s+REINDEX the index/, 'hint bitmap out of place: with a REINDEX hint');
$node->safe_psql('postgres', 'REINDEX INDEX f_c; CHECKPOINT');

patch_leaf(sub { return ($_[0], pack('C8', (0xff) x 8)) });
is($node->safe_psql('postgres', q{SELECT hinted_entries FROM learned_index_info('f_c')}),
	'64', 'hints on live entries: 64 entries read as hinted');
($ret, $out, $err) = $node->psql('postgres', q{SELECT learned_index_check('f_c')});
is($ret, 0, 'hints on live entries: the structural check cannot tell');
($ret, $out, $err) = $node->psql('postgres', q{SELECT learned_index_check('f_c', true)});
like($err, qr/live heap tuples are not indexed/,
	'hints on live entries: the heapallindexed check reports them');
$node->safe_psql('postgres', 'REINDEX INDEX f_c; CHECKPOINT');
is($node->safe_psql('postgres', q{SELECT learned_index_check('f_c', true)}), 't',
	'hints on live entries: REINDEX repairs it');

$node->stop;
done_testing();
