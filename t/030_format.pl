# On-disk format checks: an index written in any format but 13 is refused
# with a REINDEX hint, the pending record layout is the documented one,
# and damaged bytes in the LeCo-compressed directory are reported as index
# corruption (never a crash).  The relation
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
#    compressed leaf pages), 4 (no stride pages), 5 to 8 (other pending
#    record layouts, record counts in nitems, metapages without the merge
#    statistics), 9 (a run's filter only in its header page), 10 (run data
#    pages in the record layout): each is refused with a REINDEX hint, never
#    read
my ($p, $ret, $out, $err);
foreach my $v (1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12)
{
	$p = relfile_path($node, 'f_model');
	$node->stop;
	relfile_patch($p, 28, pack('L', $v));
	$node->start;
	($ret, $err) = query('f_model');
	isnt($ret, 0, "a format-$v index is refused");
	like($err, qr/on-disk format version $v, but this build reads version 13/,
		'the error names the versions');
	like($err, qr/HINT:\s+REINDEX the index/, 'with a REINDEX hint');
	($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO f VALUES (5)');
	isnt($ret, 0, "an insert into a format-$v index is refused too");
	$node->safe_psql('postgres', 'REINDEX INDEX f_model; CHECKPOINT');
	($ret, $err) = query('f_model');
	is($ret, 0, 'REINDEX repairs it');
}
$node->safe_psql('postgres', 'DROP INDEX f_model');

# 1b. the pending record layout: records start at byte 32 of the page (after
#     the 24-byte header and the first sequence number) and take 16 bytes
#     for int8: flags (2), TID (6), key (8); every key but slot 0's is
#     stored XORed with slot 0's, for keys of 1 to 8 bytes.  A pending page
#     has no opaque flags (the special space's uint16 at 12) but a run page's
#     LEARNED_PENDING_PAGE_HINTED (1).
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
CREATE TABLE f7 (k timestamptz, j int4);
INSERT INTO f7 SELECT '2026-01-01 00:00:00+00'::timestamptz + i * interval '1 ms', 0 FROM generate_series(1, 20000) i;
CREATE INDEX f7_k ON f7 USING learned (k) WITH (merge_ratio = 1);
CREATE INDEX f7_j ON f7 USING learned (j) WITH (merge_ratio = 1);
INSERT INTO f7 SELECT '2026-01-01 00:00:00+00'::timestamptz + i * interval '1 ms', i FROM generate_series(20001, 20040) i;
INSERT INTO f7 VALUES (NULL, NULL), ('2026-01-01 00:00:00+00'::timestamptz + interval '20041 ms', -7);
CHECKPOINT;
});
my $f7first = $node->safe_psql('postgres', q{SELECT total_pages - 1 FROM learned_index_info('f7_k')});
is(pending_flags('f7_k', $f7first), 0, 'a pending page has no opaque flags');
{
	my $file = relfile_path($node, 'f7_k');
	$node->stop;
	my $k0 = unpack('q', relfile_read($file, $f7first * $bs + 32 + 8, 8));
	my $x1 = unpack('q', relfile_read($file, $f7first * $bs + 32 + 16 + 8, 8));
	my $x40 = unpack('q', relfile_read($file, $f7first * $bs + 32 + 40 * 16 + 8, 8));
	my $f40 = unpack('S', relfile_read($file, $f7first * $bs + 32 + 40 * 16, 2));
	$node->start;
	# 2026-01-01 00:00:20.001 UTC in microseconds since 2000-01-01
	is($k0, 820540800000000 + 20001000, 'slot 0 stores its key as it is');
	is($x1, (820540800000000 + 20002000) ^ $k0, 'slot 1 stores its key XORed with slot 0\'s');
	is($x40, 0, 'a NULL record keeps zero key bytes');
	is($f40, 1, 'a NULL record starts with its flags (LEARNED_PENDING_NULL)');
}
my $f7q = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(extract(epoch FROM k)::numeric), count(*) FILTER (WHERE k IS NULL)
	FROM f7 WHERE k > '2026-01-01 00:00:19.990+00' OR k IS NULL};
my $f7seq = $node->safe_psql('postgres', $f7q =~ s/enable_seqscan = off/enable_indexscan = off/r);
is($node->safe_psql('postgres', $f7q), $f7seq, 'pending timestamps found, as a sequential scan finds them');
# int4 keys: the XOR takes 4 bytes; negative keys flip every high bit
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(j) FROM f7 WHERE j <> 0}), '41|800813', 'every int4 pending key found, a negative one too');
# a page holds 509 int8-sized records: this starts a second one
$node->safe_psql('postgres', q{INSERT INTO f7 SELECT '2026-01-01 00:00:00+00'::timestamptz + i * interval '1 ms', 1 FROM generate_series(20042, 20800) i; CHECKPOINT});
my $f7second = $node->safe_psql('postgres', q{SELECT total_pages - 1 FROM learned_index_info('f7_k')});
isnt($f7second, $f7first, 'the appends started a second pending page');
{
	my $file = relfile_path($node, 'f7_k');
	$node->stop;
	my $seq1 = unpack('Q', relfile_read($file, $f7first * $bs + 24, 8));
	my $seq2 = unpack('Q', relfile_read($file, $f7second * $bs + 24, 8));
	$node->start;
	is($seq2 - $seq1, 509, 'the first page is full at 509 records');
}
$f7seq = $node->safe_psql('postgres', $f7q =~ s/enable_seqscan = off/enable_indexscan = off/r);
is($node->safe_psql('postgres', $f7q), $f7seq, 'two pending pages: every entry found, NULLs too');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT string_agg(to_char(k AT TIME ZONE 'UTC', 'SS.MS'), ',') FROM (SELECT k FROM f7
	WHERE k BETWEEN '2026-01-01 00:00:20.506+00' AND '2026-01-01 00:00:20.513+00' ORDER BY k DESC) s}),
	'20.513,20.512,20.511,20.510,20.509,20.508,20.507,20.506', 'an ordered scan across the two pages');
is($node->safe_psql('postgres', q{SELECT learned_index_check('f7_k', true)}), 't', 'check passes');
# a pending page flag is refused
$p = relfile_path($node, 'f7_k');
$node->stop;
relfile_patch($p, $f7second * $bs + $bs - 16 + 12, pack('S', 4));
$node->start;
($ret, $out, $err) = $node->psql('postgres', q{INSERT INTO f7 VALUES (now(), 2)});
isnt($ret, 0, 'a pending page with opaque flags is refused');
like($err, qr/learned index "f7_k" is corrupted.*bad pending page flags/s, 'reported as corruption');
# the hint flag belongs on run pages: the tail page (appends log deltas)
# never has it
$node->stop;
relfile_patch($p, $f7second * $bs + $bs - 16 + 12, pack('S', 1));
$node->start;
($ret, $out, $err) = $node->psql('postgres', q{INSERT INTO f7 VALUES (now(), 2)});
isnt($ret, 0, 'a tail page flagged hinted is refused');
like($err, qr/learned index "f7_k" is corrupted.*tail page is flagged hinted/s, 'reported as corruption');
$node->stop;
relfile_patch($p, $f7second * $bs + $bs - 16 + 12, pack('S', 0));
# the second page holds 292 records (slots 0-291), and pd_lower, which
# appends move 64 slots at a time, covers slot 293: a stray byte there
# is reported by the check
relfile_patch($p, $f7second * $bs + 32 + 293 * 16 + 10, pack('C', 1));
$node->start;
($ret, $out, $err) = $node->psql('postgres', q{SELECT learned_index_check('f7_k')});
isnt($ret, 0, 'a byte past the last pending record fails the check');
like($err, qr/a pending page has bytes past its last record/, 'the check names it');
is($node->safe_psql('postgres', $f7q), $f7seq, 'the readers still count 292 records on that page');
$node->stop;
relfile_patch($p, $f7second * $bs + 32 + 293 * 16 + 10, pack('C', 0));
$node->start;
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


# 4. a packed run data page (learned.h, LearnedPackedHeader): the opaque
#    flag LEARNED_PENDING_PAGE_PACKED (2); after the page header (24) and
#    first_seq (8): key_base (8), blk_base (4), count (2), nkeys (2), keylen
#    (1), key_bits (1), blk_bits (1), off_bits (1), pad (4); then the dead
#    and hint bitmaps and the fields.  Damaged, it is an ERROR for every
#    reader and for the check, never a crash or a wrong answer.
$node->safe_psql('postgres', q{
CREATE TABLE fp (k int8);
INSERT INTO fp SELECT i * 3 FROM generate_series(1, 3000) i;
CREATE INDEX fp_k ON fp USING learned (k);
SET learned_idx.auto_merge = off;
SET learned_idx.tail_limit = 200;
INSERT INTO fp SELECT CASE WHEN i % 100 = 0 THEN -9223372036854775808
	WHEN i % 100 = 1 THEN 9223372036854775807 WHEN i % 100 = 2 THEN NULL
	ELSE (i * 7919) % 10007 END
	FROM generate_series(1, 600) i;
CHECKPOINT;
});
my ($fpblk, $fpentries) = split /\|/, $node->safe_psql('postgres',
	q{SELECT start_block, entries FROM learned_index_runs('fp_k') WHERE run = 0 AND pages = 1});
ok(defined $fpentries && $fpentries > 0, 'a run of one data page');
my $fpq = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(k::numeric) FROM fp WHERE k < 20000};
my $fpseq = $node->safe_psql('postgres', $fpq =~ s/enable_seqscan = off/enable_indexscan = off/r);
is($node->safe_psql('postgres', $fpq), $fpseq, 'the packed run answers as a sequential scan');
is(pending_flags('fp_k', $fpblk) & 2, 2, 'a run data page of int8 keys is packed');
$p = relfile_path($node, 'fp_k');
{
	$node->stop;
	my $hdr = relfile_read($p, $fpblk * $bs + 32, 24);
	$node->start;
	my ($base, $bbase, $count, $nkeys, $keylen, $kbits, $bbits, $obits) = unpack('q L S S C C C C', $hdr);
	is($count, $fpentries, 'the packed header counts the run\'s entries');
	is($keylen, 8, 'and stores the key width');
	# keys as the unsigned integers of their bytes: the non-negative ones
	# from 0, INT8_MIN at 2^63
	ok($base >= 0 && $base < 10007, 'the key base is the smallest non-negative key');
	is($kbits, 63, 'INT8_MIN and small keys on one page: 63-bit key fields');
	ok($nkeys < $count, 'its NULL is counted apart (slots from nkeys on)');
}
# each damage: (offset in the page, bytes, what the error says)
foreach my $d ([49, pack('C', 99), qr/bad packed run page header/],
			   [44, pack('S', 2000), qr/bad packed run page header/],
			   [48, pack('C', 4), qr/packed run page|bad packed run page header/],
			   [52, pack('L', 1), qr/bad packed run page header/])
{
	my ($off, $bytes, $re) = @$d;
	$node->stop;
	my $saved = relfile_read($p, $fpblk * $bs + $off, length($bytes));
	relfile_patch($p, $fpblk * $bs + $off, $bytes);
	$node->start;
	($ret, $out, $err) = $node->psql('postgres', $fpq);
	isnt($ret, 0, "a packed header damaged at byte $off is refused by a scan");
	like($err, qr/learned index "fp_k" is corrupted.*$re/s, 'reported as corruption');
	($ret, $out, $err) = $node->psql('postgres', q{SELECT learned_index_check('fp_k')});
	isnt($ret, 0, 'and by the check');
	is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');
	$node->stop;
	relfile_patch($p, $fpblk * $bs + $off, $saved);
	$node->start;
}
# a stray byte past the fields (in the hole, 16 bytes before the special
# space): readers never look there, the check reports it
$node->stop;
relfile_patch($p, $fpblk * $bs + $bs - 32, pack('C', 1));
$node->start;
($ret, $out, $err) = $node->psql('postgres', q{SELECT learned_index_check('fp_k')});
isnt($ret, 0, 'a byte past the packed fields fails the check');
like($err, qr/a packed run page has bytes past its last field/, 'the check names it');
is($node->safe_psql('postgres', $fpq), $fpseq, 'the readers still answer right');
$node->stop;
relfile_patch($p, $fpblk * $bs + $bs - 32, pack('C', 0));
$node->start;
is($node->safe_psql('postgres', q{SELECT learned_index_check('fp_k', true)}), 't', 'check passes once repaired');
is($node->safe_psql('postgres', $fpq), $fpseq, 'and the answers are right');

$node->stop;
done_testing();
