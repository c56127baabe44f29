# A merge that flips between a reader's metapage read and its directory
# load.  The reader is stopped with gdb at LearnedGetDirectory (right after
# it read the metapage), another session merges, the reader goes on.
#  - An index scan must not return the merged pending entries twice (once
#    from the new generation's directory, once from its pending view).
#  - learned_index_check must not report corruption.
# Needs gdb and permission to attach to a backend; skipped otherwise.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);

my $gdb_path = `command -v gdb 2>/dev/null`;
chomp $gdb_path;
plan skip_all => 'gdb not available' unless $gdb_path;

my $node = PostgreSQL::Test::Cluster->new('race');
$node->init;
$node->append_conf('postgresql.conf', qq{
autovacuum = off
log_statement = none
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');

my $connstr = $node->connstr('postgres');

# Can gdb attach to a backend here (ptrace permissions)?
{
	my ($in, $out, $err) = ('', '', '');
	my $psql = IPC::Run::start([ 'psql', '-XAtq', '-d', $connstr ], \$in, \$out, \$err,
		IPC::Run::timeout(60));
	$in .= "SELECT pg_backend_pid();\n";
	$psql->pump until $out =~ /^(\d+)$/m;
	my $pid = $1;
	my $probe = `$gdb_path -q -nx -batch -p $pid -ex detach 2>&1`;
	$in .= "\\q\n";
	$psql->finish;
	if ($? != 0 || $probe =~ /ptrace|not permitted|Could not attach/i)
	{
		$node->stop;
		plan skip_all => "gdb cannot attach to a backend: $probe";
	}
}

# Runs $query in a new session stopped at LearnedGetDirectory while
# $interleave runs in another; returns the query's output.
sub race
{
	my ($query, $interleave, $name) = @_;
	my ($in, $out, $err) = ('', '', '');
	my $psql = IPC::Run::start([ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=0', '-d', $connstr ],
		\$in, \$out, \$err, IPC::Run::timeout(180));
	$in .= "LOAD 'learned_idx';\nSET enable_seqscan = off; SET enable_bitmapscan = off;\nSELECT pg_backend_pid();\n";
	$psql->pump until $out =~ /^(\d+)$/m;
	my ($pid) = $out =~ /^(\d+)$/m;
	$out = '';

	my ($gin, $gout, $gerr) = ('', '', '');
	my $gdb = IPC::Run::start(
		[
			$gdb_path, '-q', '-nx', '-p', $pid,
			'-ex', 'set pagination off', '-ex', 'set confirm off',
			'-ex', 'break LearnedGetDirectory', '-ex', 'continue'
		],
		\$gin, \$gout, \$gerr, IPC::Run::timeout(180));
	$gdb->pump until $gout =~ /Continuing\./ || $gerr =~ /ptrace|Operation not permitted|No symbol/;
	if ($gout !~ /Continuing\./)
	{
		$gdb->kill_kill;
		$psql->kill_kill;
		return (undef, "gdb could not attach: $gerr");
	}
	$in .= "$query\n";
	for (my $i = 0; $gout !~ /Breakpoint 1, LearnedGetDirectory/; $i++)
	{
		die "the reader never reached LearnedGetDirectory: $gout $gerr $out $err" if $i > 18000;
		$psql->pump_nb;
		$gdb->pump_nb;
		usleep(10_000);
	}
	pass("$name: the reader stopped after reading the metapage");

	$interleave->();

	$gin .= "delete\ndetach\nquit\n";
	$gdb->finish;
	$in .= "\\q\n";
	$psql->finish;
	s/\s+$// for ($out, $err);
	return ($out, $err);
}

$node->safe_psql('postgres', q{
CREATE TABLE d (id serial, k int8);
INSERT INTO d (k) SELECT i * 10 FROM generate_series(1, 10000) i;
CREATE INDEX d_k ON d USING learned (k) WITH (merge_ratio = 1);
});

# 1. An index scan.
$node->safe_psql('postgres', 'INSERT INTO d (k) SELECT i * 10 + 5 FROM generate_series(1, 3000) i');
my ($out, $err) = race(
	'SELECT count(*), count(DISTINCT id) FROM d WHERE k >= 0;',
	sub {
		is($node->safe_psql('postgres', "SELECT learned_index_merge('d_k')"), '3000',
			'index scan: another session merged the 3000 pending entries meanwhile');
	},
	'index scan');
die $err unless defined $out;
is($out, '13000|13000', 'index scan: every row once, none twice');
is($err, '', 'index scan: no error');

# 2. An index-only scan, and a backward one.
foreach my $q (
	[ 'index-only scan', 'SELECT count(*) FROM d WHERE k >= 0;', '14500' ],
	[ 'backward scan', 'SELECT count(*) - count(DISTINCT id) FROM (SELECT id FROM d ORDER BY k DESC) s;', '0' ])
{
	my ($name, $sql, $expect) = @$q;
	$node->safe_psql('postgres', 'INSERT INTO d (k) SELECT i * 10 + 7 FROM generate_series(1, 1500) i');
	($out, $err) = race(
		$sql,
		sub { $node->safe_psql('postgres', "SELECT learned_index_merge('d_k')"); },
		$name);
	is($out, $expect, "$name: every row once");
	is($err, '', "$name: no error");
}

# 3. learned_index_check: the directory it loads must match its metapage.
$node->safe_psql('postgres', 'INSERT INTO d (k) SELECT i * 10 + 8 FROM generate_series(1, 2000) i');
($out, $err) = race(
	"SELECT learned_index_check('d_k', true);",
	sub { $node->safe_psql('postgres', "SELECT learned_index_merge('d_k')"); },
	'learned_index_check');
is("$out$err", 't', 'learned_index_check: no false corruption report');

# 4. learned_index_info.
$node->safe_psql('postgres', 'INSERT INTO d (k) SELECT i * 10 + 9 FROM generate_series(1, 2000) i');
($out, $err) = race(
	"SELECT entries + pending_entries FROM learned_index_info('d_k');",
	sub { $node->safe_psql('postgres', "SELECT learned_index_merge('d_k')"); },
	'learned_index_info');
is("$out$err", '20000', 'learned_index_info: entries and pending entries of one view');

$node->stop;
done_testing();
