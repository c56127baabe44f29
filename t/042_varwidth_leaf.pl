# Damaged variable-width leaf pages (text keys with a page prefix, a
# composite key, and stride pages: packed uuid segments, md5 strings) are
# reported as index corruption with a REINDEX hint, by
# scans and by learned_index_check, never a crash or a wrong answer: an entry
# count over the page's limit, pd_lower inside the arrays, a key offset
# outside the key area, a prefix longer than the page.  The relation file is
# edited while the server is stopped (no pageinspect needed).
#
# A variable-width leaf page (docs/architecture.md, "Variable-width leaf
# pages"): page header (24 bytes; pd_lower at 12), dead bitmap (n bits,
# rounded to 8 bytes), TIDs (6 bytes each), offsets (uint16 each), then, if
# the page stores a prefix, its length (uint16) and bytes, then the keys.
# The entry count n is the uint16 at 2 bytes into the 16-byte special space.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $node = PostgreSQL::Test::Cluster->new('vwleaf');
init_unchecksummed($node);
$node->append_conf('postgresql.conf', 'autovacuum = off');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE t (a int, k text COLLATE "C");
INSERT INTO t SELECT i % 7, 'https://example.org/page/' || md5(i::text) || repeat('x', i % 3) FROM generate_series(1, 50000) i;
CREATE INDEX t_k ON t USING learned (k);
CREATE INDEX t_ak ON t USING learned (a, k);
CREATE TABLE s (u uuid, m text COLLATE "C");
INSERT INTO s SELECT (lpad(to_hex(1767225600000 + i), 12, '0') || '7' || substr(md5(i::text), 1, 3) ||
	'8' || substr(md5(i::text), 4, 15))::uuid, md5(i::text) FROM generate_series(1, 50000) i;
CREATE INDEX s_u ON s USING learned (u);
CREATE INDEX s_m ON s USING learned (m);
CHECKPOINT;
});

my $bs = $node->safe_psql('postgres', q{SELECT current_setting('block_size')});

my %queries = (
	t_k => q{SELECT count(*) FROM t WHERE k <= 'https://example.org/page/3'},
	t_ak => q{SELECT count(*) FROM t WHERE a = 0 AND k <= 'https://example.org/page/3'},
	s_u => q{SELECT count(*) FROM s WHERE u <= '019b76da-ab00-0000-0000-000000000000'},
	s_m => q{SELECT count(*) FROM s WHERE m <= '03'});
my %other = (t_k => 't_ak', t_ak => 't_k', s_u => 's_m', s_m => 's_u');


# the first leaf page holds the smallest keys (the queries read it)
sub leafblk
{
	my ($idx) = @_;
	return $node->safe_psql('postgres',
		"SELECT start_block FROM learned_index_segments('$idx') WHERE segment = 0");
}



sub query
{
	my ($idx) = @_;
	my $other = $other{$idx};
	my ($ret, $out, $err) = $node->psql('postgres', qq{
SET enable_seqscan = off; SET enable_bitmapscan = off;
BEGIN; DROP INDEX $other; $queries{$idx}; ROLLBACK;});
	return ($ret, $out, $err);
}

# s_u (packed uuid segments) and s_m (md5 strings, all of one size) are on
# stride pages: after the TIDs, the prefix length and the suffix width
# (uint16 each), the prefix, then the suffixes
my $stride_head = sub {
	my ($n) = @_;
	return 24 + int(($n + 63) / 64) * 8 + 6 * $n;
};
is($node->safe_psql('postgres', q{SELECT bool_and(s.items_per_page > i.items_per_page)
	FROM learned_index_segments('s_u') s, learned_index_info('s_u') i WHERE s.first_key IS NOT NULL}),
	't', 's_u: its segments are packed');

foreach my $idx ('t_k', 't_ak', 's_u', 's_m')
{
	my $expect = $node->safe_psql('postgres', $queries{$idx});
	my ($ret, $out, $err) = query($idx);
	is($ret, 0, "$idx: the index answers");
	is($out, $expect, "$idx: and right");
	is($node->safe_psql('postgres', "SELECT learned_index_check('$idx', true)"), 't',
		"$idx: the check passes");

	# damage: [name, offset in the page (a sub of the page's entry count), bytes]
	my $keys_off = sub {
		my ($n) = @_;
		return 24 + int(($n + 63) / 64) * 8 + 6 * $n + 2 * $n;
	};
	my @cases = (
		[ 'entry count over the limit', sub { $bs - 16 + 2 }, pack('S', 2000) ],
		[ 'pd_lower inside the arrays', sub { 12 }, pack('S', 32) ],
	);
	if ($idx =~ /^t_/)
	{
		push @cases,
		  [ 'key offset past the keys', sub { $keys_off->($_[0]) - 2 * $_[0] }, pack('S', $bs - 20) ],
		  [ 'prefix longer than the page', sub { $keys_off->($_[0]) }, pack('S', 9000) ];
	}
	else
	{
		push @cases,
		  [ 'stride prefix longer than the page', sub { $stride_head->($_[0]) }, pack('S', 9000) ],
		  [ 'stride suffixes past pd_lower', sub { $stride_head->($_[0]) + 2 }, pack('S', 40) ];
	}

	foreach my $c (@cases)
	{
		my ($name, $where, $bytes) = @$c;
		my $file = relfile_path($node, $idx);
		my $blk = leafblk($idx);
		$node->stop;
		my $n = unpack('S', relfile_read($file, $blk * $bs + $bs - 16 + 2, 2));
		relfile_patch($file, $blk * $bs + $where->($n), $bytes);
		$node->start;
		($ret, $out, $err) = query($idx);
		isnt($ret, 0, "$idx, $name: the scan is refused");
		like($err, qr/learned index "$idx" is corrupted/, "$idx, $name: reported as corruption");
		like($err, qr/HINT:\s+REINDEX the index/, "$idx, $name: with a REINDEX hint");
		($ret, $out, $err) = $node->psql('postgres', "SELECT learned_index_check('$idx')");
		isnt($ret, 0, "$idx, $name: learned_index_check fails");
		like($err, qr/corrupted|failed check/, "$idx, $name: learned_index_check reports it");
		is($node->safe_psql('postgres', 'SELECT 1'), '1', "$idx, $name: the server is still up");
		$node->safe_psql('postgres', "REINDEX INDEX $idx; CHECKPOINT");
		($ret, $out, $err) = query($idx);
		is($out, $expect, "$idx, $name: REINDEX repairs it");
	}
}

$node->stop;
done_testing();
