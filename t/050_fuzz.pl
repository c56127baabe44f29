# Random page damage never crashes or hangs the server.
#
# The targeted tests (030, 031, 042) damage the fields we know about.  This
# one damages bytes we did not choose: each round stops the server, writes
# random bytes at random places of every index (the metapage, directory,
# leaf and pending pages alike, with a bias towards page headers and special
# spaces, where the structure lives), starts the server, and runs reads,
# writes, learned_index_check, a merge and a VACUUM on each index.  Any of
# them may fail with an ERROR (most damage is caught as corruption), or may
# even answer from a damaged key without noticing (a btree does the same
# without data checksums); what must never happen is a backend dying on a
# signal, a PANIC, or a statement running into the timeout.  A REINDEX then
# repairs the index for the next round, and must succeed.
#
# Opt-in longer runs: LEARNED_FUZZ_ROUNDS (default 12) and LEARNED_FUZZ_SEED
# (default 20261124; the seed is printed, so a failure can be replayed).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $rounds = $ENV{LEARNED_FUZZ_ROUNDS} // 12;
my $seed = $ENV{LEARNED_FUZZ_SEED} // 20261124;
note "fuzz seed $seed, $rounds rounds";
srand($seed);

my $node = PostgreSQL::Test::Cluster->new('fuzz');
init_unchecksummed($node);
$node->append_conf('postgresql.conf', qq{
autovacuum = off
statement_timeout = '60s'
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');

# [table, key type, key expression of i, UNIQUE or not, index definition]
my @targets = (
	[ 'f_plain', 'int8', '(i * 7919) % 100003', '',
	  'USING learned (k) WITH (compression = off)' ],
	[ 'f_comp', 'int8', '(i * 7919) % 100003', '',
	  'USING learned (k) WITH (compression = on)' ],
	[ 'f_text', 'text', q{'key' || lpad(((i * 7919) % 100003)::text, 6, '0')}, '',
	  'USING learned (k)' ],
	[ 'f_float', 'float8',
	  q{CASE WHEN i % 997 = 0 THEN 'NaN' WHEN i % 991 = 0 THEN '-Infinity' ELSE ((i * 7919) % 100003) / 7.0 END}, '',
	  'USING learned (k)' ],
	[ 'f_uniq', 'int8', 'i * 3', 'UNIQUE', 'USING learned (k)' ],
	[ 'f_multi', 'int8', '(i * 7919) % 100003', '',
	  'USING learned (g, k)' ],
);

# each table: id, g (a small group number), k; 20,000 rows built into the
# static stage, 3,000 more in the pending list, 1 in 50 NULL keys
sub setup
{
	my ($t) = @_;
	my ($tab, $type, $expr, $uniq, $def) = @$t;
	my $null = $tab eq 'f_uniq' ? 'false' : 'i % 50 = 0';
	$node->safe_psql('postgres', qq{
CREATE TABLE $tab (id int, g int4, k $type);
INSERT INTO $tab SELECT i, i % 7, CASE WHEN $null THEN NULL ELSE $expr END
  FROM generate_series(1, 20000) i;
CREATE $uniq INDEX ${tab}_idx ON $tab $def;
INSERT INTO $tab SELECT i, i % 7, CASE WHEN $null THEN NULL ELSE $expr END
  FROM generate_series(20001, 23000) i;
});
	return;
}

setup($_) foreach @targets;
# The 3,000 inserts pass the merge trigger (static entries / 10): wait for
# the merge workers they start, so that none is still merging when the
# first stop below ends it (a list left over the trigger would start
# another with the next insert, just before a stop).
$node->poll_query_until('postgres', q{
SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE backend_type = 'learned_idx merge')
   AND bool_and(i.pending_entries < 1024 OR i.pending_entries <= i.entries / 10.0)
  FROM pg_index x CROSS JOIN LATERAL learned_index_info(x.indexrelid::regclass) i
 WHERE x.indexrelid::regclass::text LIKE 'f\\_%\\_idx'})
  or die 'the merges of the setup did not finish';

# the statements of a round on one index; each may fail with an ERROR
sub statements
{
	my ($tab, $type, $round) = @_;
	my $lo = $type eq 'text' ? q{'key001000'} : '1000';
	my $hi = $type eq 'text' ? q{'key005000'} : '5000';
	my $pt = $type eq 'text' ? q{'key004242'} : '4242';
	my $new = $type eq 'text' ? q{'key' || (200000 + n)} : '200000 + n';
	my $ins = $tab eq 'f_uniq'
	  ? "INSERT INTO $tab SELECT n, 0, 1000000 + 100 * $round + n FROM generate_series(1, 50) n"
	  : "INSERT INTO $tab SELECT n, n % 7, $new FROM generate_series(1, 50) n";
	my $g = $tab eq 'f_multi' ? 'g = 3 AND ' : '';
	return (
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM $tab WHERE ${g}k BETWEEN $lo AND $hi",
		"SET enable_seqscan = off; SET enable_indexscan = off; SELECT count(*) FROM $tab WHERE ${g}k BETWEEN $lo AND $hi",
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT id FROM $tab WHERE ${g}k = $pt",
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM $tab WHERE k IS NULL",
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT k FROM $tab WHERE ${g}k > $lo ORDER BY "
		  . ($tab eq 'f_multi' ? 'g, k' : 'k') . ' LIMIT 300',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT k FROM $tab ORDER BY "
		  . ($tab eq 'f_multi' ? 'g DESC, k DESC' : 'k DESC') . ' LIMIT 300',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM (SELECT k FROM $tab ORDER BY "
		  . ($tab eq 'f_multi' ? 'g, k' : 'k') . ') s',
		"SELECT learned_index_check('${tab}_idx', true)",
		$ins,
		"DELETE FROM $tab WHERE id % 97 = 5",
		"SELECT learned_index_merge('${tab}_idx')",
		"VACUUM $tab",
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM $tab WHERE ${g}k BETWEEN $lo AND $hi");
}

# random damage to one index file: 1 to 3 places, each one of a random byte,
# a random 4-byte word, 16 zero bytes or 8 0xff bytes; half of the places in
# the first 64 or last 16 bytes of a page, one in five on the metapage
sub damage
{
	my ($file, $bs) = @_;
	my $nblocks = int((-s $file) / $bs);
	my @done;
	foreach (1 .. 1 + int(rand(3)))
	{
		my $blk = rand() < 0.2 ? 0 : int(rand($nblocks));
		my $off;
		my $r = rand();
		if ($r < 0.35) { $off = int(rand(64)); }
		elsif ($r < 0.5) { $off = $bs - 16 + int(rand(16)); }
		else { $off = int(rand($bs)); }
		my $kind = int(rand(4));
		my $bytes =
			$kind == 0 ? pack('C', int(rand(256)))
		  : $kind == 1 ? pack('L', int(rand(4294967296)))
		  : $kind == 2 ? "\0" x 16
		  : "\xff" x 8;
		$bytes = substr($bytes, 0, $bs - $off);
		relfile_patch($file, $blk * $bs + $off, $bytes);
		push @done, sprintf('block %d +%d kind %d', $blk, $off, $kind);
	}
	return join(', ', @done);
}

my $bs = $node->safe_psql('postgres', q{SELECT current_setting('block_size')});

# Run one statement.  statement_timeout ends a loop that checks for
# interrupts; one that does not (a walk holding a buffer lock, which holds
# off interrupts) would hang psql, and with it the test: a client-side
# timeout makes that a failure, and the server, whose backend no longer
# answers a fast shutdown, is stopped in immediate mode.
sub run_sql
{
	my ($sql, $what) = @_;
	my $hung;
	my ($ret, $out, $err) = $node->psql('postgres', $sql,
		timeout => 180, timed_out => \$hung);
	if ($hung)
	{
		fail("$what: a statement hung past statement_timeout: $sql");
		$node->stop('immediate');
		done_testing();
		exit 1;
	}
	return ($ret, $out, $err);
}

# First the damage earlier random rounds found mishandled, placed by hand
# (LearnedMetaPageData at byte 24 of block 0: keylen at +12, an int16;
# dir_npages at +36 and nulls_start at +48, uint32s), and a block number
# past the end, which reached ReadBuffer and failed there without a REINDEX
# hint.  Then two damaged pending chain links (the head page's next, the
# BlockNumber 8 bytes before the end of its page; the head is the metapage's
# pending_head, at +64): one past the end of the file, which md.c reported
# without the hint, and one back to its own page, a loop that a merge,
# VACUUM and the garbage collector followed forever (the collector holds
# the metapage's buffer lock, which holds off even statement_timeout; a
# merge in a background worker has no statement_timeout at all).
# [name, index, offset (or a sub of the file giving it), bytes,
#  [statement, expected error] ...]
my $head_next = sub {
	my ($file) = @_;
	my $head = unpack('L', relfile_read($file, 24 + 64, 4));
	die "no pending list" if $head == 0xFFFFFFFF;
	return ($head * $bs + $bs - 8, pack('L', $head));
};
my $scan_sql = sub {
	my ($tab, $lo, $hi) = @_;
	return "SET enable_seqscan = off; SET enable_bitmapscan = off; "
	  . "SELECT count(*) FROM $tab WHERE k BETWEEN $lo AND $hi";
};
my @found = (
	[ 'metapage key width 187', 'f_plain', 24 + 12, pack('s', 187),
	  [ [ 'INSERT INTO f_plain VALUES (1, 1, 1)',
		  qr/learned index "f_plain_idx" is corrupted: key type or width does not match the index/ ] ] ],
	[ 'directory page count 2^31', 'f_comp', 24 + 36, pack('L', 2**31),
	  [ [ $scan_sql->('f_comp', 0, 100),
		  qr/learned index "f_comp_idx" is corrupted: directory pages past the end of the index/ ] ] ],
	[ 'first NULL page 2^24', 'f_plain', 24 + 48, pack('L', 2**24),
	  [ [ 'SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM f_plain WHERE k IS NULL',
		  qr/learned index "f_plain_idx" is corrupted: NULL pages past the end of the index/ ] ] ],
	[ 'pending link 2^30', 'f_text', sub { ($head_next->(@_))[0] }, pack('L', 2**30),
	  [ map { [ $_, qr/learned index "f_text_idx" is corrupted: pending chain link past the end of the index/ ] }
		  ($scan_sql->('f_text', q{'key001000'}, q{'key005000'}),
		   "SELECT learned_index_merge('f_text_idx')",
		   'VACUUM f_text',
		   "SELECT pending_entries FROM learned_index_info('f_text_idx')") ] ],
	[ 'pending link to its own page', 'f_float', $head_next, undef,
	  [ [ $scan_sql->('f_float', 1000, 5000),
		  qr/learned index "f_float_idx" is corrupted: pending page out of sequence/ ],
		map { [ $_, qr/learned index "f_float_idx" is corrupted: the pending chain loops/ ] }
		  ("SELECT learned_index_merge('f_float_idx')",
		   'VACUUM f_float',
		   "SELECT pending_entries FROM learned_index_info('f_float_idx')") ] ],
);
foreach my $f (@found)
{
	my ($name, $tab, $off, $bytes, $checks) = @$f;
	my $file = relfile_path($node, "${tab}_idx");
	my $logpos = -s $node->logfile;
	# entries for a merge to read (a background merge may have taken the
	# ones set up above), with no merge of their own: added to what the
	# worker left under the trigger they could pass it, and the worker
	# they started would race with the stop below
	$node->safe_psql('postgres',
		"SET learned_idx.auto_merge = off; INSERT INTO $tab SELECT id + 2000000, g, k FROM $tab WHERE id % 100 = 7 AND k IS NOT NULL")
	  if ref $off;
	$node->stop;
	if (ref $off)
	{
		my ($o, $b) = $off->($file);
		$off = $o;
		$bytes //= $b;
	}
	relfile_patch($file, $off, $bytes);
	$node->start;
	foreach my $c (@$checks)
	{
		my ($sql, $want) = @$c;
		my ($ret, $out, $err) = run_sql($sql, $name);
		like($err, $want, "$name: reported as corruption by: $sql");
	}
	unlike(slurp_file($node->logfile, $logpos), qr/PANIC|terminated by signal/,
		"$name: no backend died");
	$node->safe_psql('postgres', "REINDEX INDEX ${tab}_idx");
}

my $errors = 0;
my $bad = 0;
foreach my $round (1 .. $rounds)
{
	my %files = map { $_->[0] => relfile_path($node, "$_->[0]_idx") } @targets;
	my $logpos = -s $node->logfile;
	$node->stop;
	my %what;
	$what{$_->[0]} = damage($files{$_->[0]}, $bs) foreach @targets;
	$node->start;
	foreach my $t (@targets)
	{
		my ($tab, $type) = @$t;
		foreach my $sql (statements($tab, $type, $round))
		{
			my ($ret, $out, $err) = run_sql($sql, "round $round, $tab ($what{$tab})");
			$errors++ if $ret != 0;
			if ($ret != 0 && $err =~ /statement timeout|server closed the connection|PANIC|terminat/)
			{
				$bad++;
				diag "round $round, $tab ($what{$tab}): $sql\n$err";
			}
		}
	}
	my $log = slurp_file($node->logfile, $logpos);
	my @died = $log =~ /^.*(?:terminated by signal|PANIC|was terminated by exception).*$/mg;
	ok(!@died, "round $round: no backend died")
	  or diag join("\n", @died, map { "$_: $what{$_}" } sort keys %what);
	# REINDEX repairs every index, as the corruption errors' hint says
	foreach my $t (@targets)
	{
		my ($ret, $out, $err) = $node->psql('postgres', "REINDEX INDEX $t->[0]_idx");
		is($ret, 0, "round $round: REINDEX $t->[0]_idx repairs it") or diag $err;
		# new pending entries for the next round (not into the unique
		# index: its keys are taken), with no merge started: a merge
		# worker still running at the next round's stop would leave a
		# layout that depends on timing, and the seed would not replay it
		$node->safe_psql('postgres',
			"SET learned_idx.auto_merge = off; INSERT INTO $t->[0] SELECT id + 1000000, g, k FROM $t->[0] WHERE id % 9 = 1 AND k IS NOT NULL"
			  . ($t->[0] eq 'f_uniq' ? ' AND false' : ''));
	}
}
is($bad, 0, 'no statement hung or lost its server');
note "$errors statements failed with an ERROR";

# after the last REINDEX every index agrees with a sequential scan again
foreach my $t (@targets)
{
	my ($tab) = @$t;
	is($node->safe_psql('postgres', "SELECT learned_index_check('${tab}_idx', true)"), 't',
		"$tab: learned_index_check passes after the REINDEX");
}

$node->stop;
done_testing();
