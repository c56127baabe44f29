# On-disk format checks: an index written in format 1 (the plain directory)
# or 2 (before compressed leaf pages)
# is refused with a REINDEX hint, and damaged bytes in the LeCo-compressed
# directory are reported as index corruption (never a crash).  The relation
# file is edited while the server is stopped (no pageinspect needed).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $node = PostgreSQL::Test::Cluster->new('format');
init_unchecksummed($node);
$node->append_conf('postgresql.conf', 'autovacuum = off');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE f (k int8);
INSERT INTO f SELECT (i * 7919) % 1000003 FROM generate_series(1, 100000) i;
CREATE INDEX f_model ON f USING learned (k) WITH (mode = model);
CHECKPOINT;
});

my $bs = $node->safe_psql('postgres', q{SELECT current_setting('block_size')});


sub query
{
	my ($idx) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', qq{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM f WHERE k BETWEEN 1000 AND 2000;});
	return ($ret, $err);
}

# The directory is the last run of pages after a build: check that guess.
is($node->safe_psql('postgres', q{SELECT total_pages = 1 + directory_pages + leaf_pages
	FROM learned_index_info('f_model')}), 't', 'build layout: meta, leaves, directory');
my ($ret0) = query('f_model');
is($ret0, 0, 'the index answers');

sub dirblk
{
	my ($i) = @_;
	return $node->safe_psql('postgres',
		"SELECT total_pages - directory_pages FROM learned_index_info('$i')");
}


# 1. an older format version in the metapage (magic at 24, version at 28):
#    1 (plain directory arrays), 2 (no page capacity in the directory, no
#    compressed leaf pages), 4 (no stride pages, no packed segments)
my ($p, $ret, $out, $err);
foreach my $v (1, 2, 4)
{
	$p = relfile_path($node, 'f_model');
	$node->stop;
	relfile_patch($p, 28, pack('L', $v));
	$node->start;
	($ret, $err) = query('f_model');
	isnt($ret, 0, "a format-$v index is refused");
	like($err, qr/on-disk format version $v, but this build reads versions 5 to 8/,
		'the error names the versions');
	like($err, qr/HINT:\s+REINDEX the index/, 'with a REINDEX hint');
	$node->safe_psql('postgres', 'REINDEX INDEX f_model; CHECKPOINT');
	($ret, $err) = query('f_model');
	is($ret, 0, 'REINDEX repairs it');
}
$node->safe_psql('postgres', 'DROP INDEX f_model');

# 1b. format 5 (the last before uncounted pending pages) is still read and
#     written.  Its pending appends keep counting in nitems (the special
#     space's second uint16), for older builds; format-6 appends leave it 0.
#     Both count their records by their used slots.
$node->safe_psql('postgres', q{
CREATE TABLE f5 (k int8);
INSERT INTO f5 SELECT i FROM generate_series(1, 20000) i;
CREATE INDEX f5_k ON f5 USING learned (k) WITH (merge_ratio = 1);
INSERT INTO f5 SELECT i FROM generate_series(20001, 20040) i;
CHECKPOINT;
});
sub pending_nitems
{
	my ($idx) = @_;
	my $tail = $node->safe_psql('postgres', qq{SELECT total_pages - 1 FROM learned_index_info('$idx')});
	my $file = relfile_path($node, $idx);
	$node->stop;
	my $n = unpack('S', relfile_read($file, $tail * $bs + $bs - 16 + 2, 2));
	$node->start;
	return $n;
}
is(pending_nitems('f5_k'), 0, 'format 6: pending appends leave nitems at 0');
$p = relfile_path($node, 'f5_k');
$node->stop;
relfile_patch($p, 28, pack('L', 5));
$node->start;
$node->safe_psql('postgres', q{INSERT INTO f5 SELECT i FROM generate_series(20041, 20090) i; CHECKPOINT});
is(pending_nitems('f5_k'), 90, 'format 5: appends count in nitems (all 90 records of the page, 40 of them format-6 appends)');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(k) FROM f5 WHERE k > 19990}), '100|2004050', 'format 5: every pending entry found');
is($node->safe_psql('postgres', q{SELECT learned_index_check('f5_k', true)}), 't', 'format 5: check passes');
$node->safe_psql('postgres', q{SELECT learned_index_merge('f5_k')});
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(k) FROM f5 WHERE k > 19990}), '100|2004050', 'format 5: merged');
$node->safe_psql('postgres', 'DROP TABLE f5');

# 1c. format 6 (pending records TID, flags, key) is still read and written;
#     format 7 writes flags, TID, key on new pending pages, and says so in
#     the page's opaque flags (the special space's uint16 at 12).  A format-6
#     index keeps writing the old order, and one pending chain then holds
#     both: every reader follows each page's flag.
sub pending_flags
{
	my ($idx, $blk) = @_;
	my $file = relfile_path($node, $idx);
	$node->stop;
	my $f = unpack('S', relfile_read($file, $blk * $bs + $bs - 16 + 12, 2));
	$node->start;
	return $f;
}
$node->safe_psql('postgres', q{
CREATE TABLE f6 (k int8);
INSERT INTO f6 SELECT i FROM generate_series(1, 20000) i;
CREATE INDEX f6_k ON f6 USING learned (k) WITH (merge_ratio = 1);
INSERT INTO f6 SELECT i FROM generate_series(20001, 20040) i;
INSERT INTO f6 VALUES (NULL);
CHECKPOINT;
});
my $first = $node->safe_psql('postgres', q{SELECT total_pages - 1 FROM learned_index_info('f6_k')});
is(pending_flags('f6_k', $first), 3, 'format 8: a new pending page puts the flags first and XORs its keys');
$p = relfile_path($node, 'f6_k');
$node->stop;
relfile_patch($p, 28, pack('L', 6));
$node->start;
# a page holds 509 int8 records: this starts a second one, written by format 6
$node->safe_psql('postgres', q{INSERT INTO f6 SELECT i FROM generate_series(20041, 20800) i; INSERT INTO f6 VALUES (NULL); CHECKPOINT});
my $second = $node->safe_psql('postgres', q{SELECT total_pages - 1 FROM learned_index_info('f6_k')});
isnt($second, $first, 'the appends started a second pending page');
is(pending_flags('f6_k', $second), 0, 'format 6: a new pending page keeps the TID first');
is(pending_flags('f6_k', $first), 3, 'the first page keeps its format');
# each page starts with the sequence number of its first entry (uint64)
{
	my $file = relfile_path($node, 'f6_k');
	$node->stop;
	my $seq1 = unpack('Q', relfile_read($file, $first * $bs + 24, 8));
	my $seq2 = unpack('Q', relfile_read($file, $second * $bs + 24, 8));
	$node->start;
	is($seq2 - $seq1, 509, 'the first page is full at 509 records');
}
my $f6q = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(k), count(*) FILTER (WHERE k IS NULL) FROM f6 WHERE k > 19990 OR k IS NULL};
is($node->safe_psql('postgres', $f6q), '812|16520355|2', 'formats 6 and 8 mixed: every pending entry found, NULLs too');
# the first page holds 20001-20508 and a NULL, the second 20509 on
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT string_agg(k::text, ',') FROM (SELECT k FROM f6 WHERE k BETWEEN 20502 AND 20511 ORDER BY k DESC) s}),
	'20511,20510,20509,20508,20507,20506,20505,20504,20503,20502', 'an ordered scan across the two orders');
is($node->safe_psql('postgres', q{SELECT learned_index_check('f6_k', true)}), 't', 'format 6 and 8 pages: check passes');
# a pending page flag no format has is refused
$p = relfile_path($node, 'f6_k');
$node->stop;
relfile_patch($p, $second * $bs + $bs - 16 + 12, pack('S', 4));
$node->start;
($ret, $out, $err) = $node->psql('postgres', q{INSERT INTO f6 VALUES (30001)});
isnt($ret, 0, 'an unknown pending page flag is refused');
like($err, qr/learned index "f6_k" is corrupted.*bad pending page flags/s, 'reported as corruption');
$node->stop;
relfile_patch($p, $second * $bs + $bs - 16 + 12, pack('S', 0));
# the second page holds 293 records (slots 0-292), and pd_lower, which
# appends move 64 slots at a time, covers slot 294: a stray byte there
# (the records start at 32 and take 16 bytes) is reported by the check
relfile_patch($p, $second * $bs + 32 + 294 * 16 + 10, pack('C', 1));
$node->start;
($ret, $out, $err) = $node->psql('postgres', q{SELECT learned_index_check('f6_k')});
isnt($ret, 0, 'a byte past the last pending record fails the check');
like($err, qr/a pending page has bytes past its last record/, 'the check names it');
is($node->safe_psql('postgres', $f6q), '812|16520355|2', 'the readers still count 293 records on that page');
$node->stop;
relfile_patch($p, $second * $bs + 32 + 294 * 16 + 10, pack('C', 0));
$node->start;
# the merge reads both orders (VACUUM merges first)
$node->safe_psql('postgres', q{DELETE FROM f6 WHERE k % 2 = 0 AND k > 20000; VACUUM f6});
is($node->safe_psql('postgres', $f6q), '412|8359955|2', 'after DELETE and VACUUM: the dead entries are gone from both');
is($node->safe_psql('postgres', q{SELECT pending_entries FROM learned_index_info('f6_k')}), '0', 'VACUUM merged both pages');
is($node->safe_psql('postgres', q{SELECT learned_index_check('f6_k', true)}), 't', 'check passes after the merge');
$node->safe_psql('postgres', 'DROP TABLE f6');

# 1d. format 8 stores each pending key but the page's first XORed with the
#     first (flag 2), for keys of 1 to 8 bytes; a format-7 index keeps
#     writing plain keys.  Records start at byte 32 of the page and take 16
#     bytes for int8: flags (2), TID (6), key (8).
$node->safe_psql('postgres', q{
CREATE TABLE f7 (k timestamptz, j int4);
INSERT INTO f7 SELECT '2026-01-01 00:00:00+00'::timestamptz + i * interval '1 ms', 0 FROM generate_series(1, 20000) i;
CREATE INDEX f7_k ON f7 USING learned (k) WITH (merge_ratio = 1);
CREATE INDEX f7_j ON f7 USING learned (j) WITH (merge_ratio = 1);
INSERT INTO f7 SELECT '2026-01-01 00:00:00+00'::timestamptz + i * interval '1 ms', i FROM generate_series(20001, 20040) i;
INSERT INTO f7 VALUES (NULL, NULL), ('2026-01-01 00:00:00+00'::timestamptz + interval '20041 ms', -7);
CHECKPOINT;
});
my $f7first = $node->safe_psql('postgres', q{SELECT total_pages - 1 FROM learned_index_info('f7_k')});
is(pending_flags('f7_k', $f7first), 3, 'format 8: a timestamptz pending page XORs its keys');
{
	my $file = relfile_path($node, 'f7_k');
	$node->stop;
	my $k0 = unpack('q', relfile_read($file, $f7first * $bs + 32 + 8, 8));
	my $x1 = unpack('q', relfile_read($file, $f7first * $bs + 32 + 16 + 8, 8));
	my $x40 = unpack('q', relfile_read($file, $f7first * $bs + 32 + 40 * 16 + 8, 8));
	$node->start;
	# 2026-01-01 00:00:20.001 UTC in microseconds since 2000-01-01
	is($k0, 820540800000000 + 20001000, 'slot 0 stores its key as it is');
	is($x1, (820540800000000 + 20002000) ^ $k0, 'slot 1 stores its key XORed with slot 0\'s');
	is($x40, 0, 'a NULL record keeps zero key bytes');
}
my $f7q = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(extract(epoch FROM k)::numeric), count(*) FILTER (WHERE k IS NULL)
	FROM f7 WHERE k > '2026-01-01 00:00:19.990+00' OR k IS NULL};
my $f7seq = $node->safe_psql('postgres', $f7q =~ s/enable_seqscan = off/enable_indexscan = off/r);
is($node->safe_psql('postgres', $f7q), $f7seq, 'format 8: pending timestamps found, as a sequential scan finds them');
# int4 keys: the XOR takes 4 bytes; negative keys flip every high bit
is(pending_flags('f7_j', $node->safe_psql('postgres', q{SELECT total_pages - 1 FROM learned_index_info('f7_j')})),
	3, 'format 8: an int4 pending page XORs its keys');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(j) FROM f7 WHERE j <> 0}), '41|800813', 'format 8: every int4 pending key found, a negative one too');
# a format-7 index: the next page writes plain keys; one chain holds both
$p = relfile_path($node, 'f7_k');
$node->stop;
relfile_patch($p, 28, pack('L', 7));
$node->start;
$node->safe_psql('postgres', q{INSERT INTO f7 SELECT '2026-01-01 00:00:00+00'::timestamptz + i * interval '1 ms', 1 FROM generate_series(20042, 20800) i; CHECKPOINT});
my $f7second = $node->safe_psql('postgres', q{SELECT total_pages - 1 FROM learned_index_info('f7_k')});
isnt($f7second, $f7first, 'the appends started a second pending page');
is(pending_flags('f7_k', $f7second), 1, 'format 7: a new pending page keeps plain keys');
is(pending_flags('f7_k', $f7first), 3, 'the first page keeps its XORed keys');
$f7seq = $node->safe_psql('postgres', $f7q =~ s/enable_seqscan = off/enable_indexscan = off/r);
is($node->safe_psql('postgres', $f7q), $f7seq, 'formats 7 and 8 mixed: every pending entry found, NULLs too');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT string_agg(to_char(k AT TIME ZONE 'UTC', 'SS.MS'), ',') FROM (SELECT k FROM f7
	WHERE k BETWEEN '2026-01-01 00:00:20.506+00' AND '2026-01-01 00:00:20.513+00' ORDER BY k DESC) s}),
	'20.513,20.512,20.511,20.510,20.509,20.508,20.507,20.506', 'an ordered scan across the two pages');
is($node->safe_psql('postgres', q{SELECT learned_index_check('f7_k', true)}), 't', 'format 7 and 8 pages: check passes');
$node->safe_psql('postgres', q{DELETE FROM f7 WHERE j % 2 = 1; VACUUM f7});
is($node->safe_psql('postgres', q{SELECT pending_entries FROM learned_index_info('f7_k')}), '0', 'VACUUM merged both pages');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM f7 WHERE k > '2026-01-01 00:00:19.990+00'}), '31', 'the merge kept every live entry of both pages');
is($node->safe_psql('postgres', q{SELECT learned_index_check('f7_k', true)}), 't', 'check passes after the merge');
$node->safe_psql('postgres', 'DROP TABLE f7');
$node->safe_psql('postgres', 'CREATE INDEX f_zone ON f USING learned (k) WITH (mode = zonemap); CHECKPOINT');

# 2. a damaged LeCo run header in the directory: the first run starts after
#    the 24-byte directory header, i.e. 24 + 24 bytes into the page; its
#    partition count is at +8
$p = relfile_path($node, 'f_zone');
my $blk = dirblk('f_zone');
$node->stop;
relfile_patch($p, $blk * $bs + 24 + 24 + 8, pack('L', 0x7fffffff));
$node->start;
($ret, $err) = query('f_zone');
isnt($ret, 0, 'a damaged directory is refused');
like($err, qr/learned index "f_zone" is corrupted/, 'reported as corruption');
like($err, qr/HINT:\s+REINDEX the index/, 'with a REINDEX hint');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');
$node->safe_psql('postgres', 'REINDEX INDEX f_zone; CHECKPOINT');

# 3. a residual width past 64 bits in the first partition header: after the
#    run header (32), base and slope (16), start and bitoff (8), sh (1)
$p = relfile_path($node, 'f_zone');
$blk = dirblk('f_zone');
$node->stop;
relfile_patch($p, $blk * $bs + 24 + 24 + 32 + 16 + 8 + 1, pack('C', 99));
$node->start;
($ret, $err) = query('f_zone');
isnt($ret, 0, 'a bad residual width is refused');
like($err, qr/learned index "f_zone" is corrupted/, 'reported as corruption');
$node->safe_psql('postgres', 'REINDEX INDEX f_zone');
($ret, $err) = query('f_zone');
is($ret, 0, 'REINDEX repairs it');

# 4. the merge statistics follow the key map, covered by pd_lower (the page
#    header's uint16 at 12), with no format version of their own: a
#    metapage written before them ends pd_lower short of them.  It reads as
#    having none (merged_entries and last_merge_ms NULL, the merge count
#    still there); its next merge zeroes them, raises pd_lower over them
#    and counts from there.
$node->safe_psql('postgres', q{
CREATE TABLE fs (k int8);
INSERT INTO fs SELECT g FROM generate_series(1, 10000) g;
CREATE INDEX fs_k ON fs USING learned (k);
INSERT INTO fs SELECT g FROM generate_series(10001, 10300) g;
SELECT learned_index_merge('fs_k');
});
sub merge_stats
{
	return $node->safe_psql('postgres', q{
SELECT merges, merged_entries, last_merge_ms IS NOT NULL FROM learned_index_info('fs_k')});
}
is(merge_stats(), '1|300|t', 'a merge counted');
$p = relfile_path($node, 'fs_k');
$node->stop;
my $lower = unpack('S', relfile_read($p, 12, 2));
relfile_patch($p, 12, pack('S', $lower - 16));
$node->start;
is(merge_stats(), '1||f', 'a metapage without the statistics: only the merge count');
is($node->safe_psql('postgres', q{SELECT learned_index_check('fs_k', true)}), 't', 'check passes');
$node->safe_psql('postgres', q{
INSERT INTO fs SELECT g FROM generate_series(10301, 10500) g;
SELECT learned_index_merge('fs_k');
});
is(merge_stats(), '2|200|t', 'its next merge adds them, counting from there');
$node->stop;
is(unpack('S', relfile_read($p, 12, 2)), $lower, 'pd_lower covers them again');
$node->start;
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(k) FROM fs WHERE k > 0}), '10500|55130250', 'every entry found');

$node->stop;
done_testing();
