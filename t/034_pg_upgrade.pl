# pg_upgrade from an older major to this one (18 or later), copy mode: the
# learned indexes' files are copied as they are, so every page kind written
# by the old major must read the same on the new one.
#
# The old cluster (PostgreSQL 15 from /usr/lib/postgresql/15, and 17 from
# /var/cache/learned_idx/pg17 when it is there; LEARNED_UPGRADE_FROM lists
# other installation directories) gets learned indexes of every page kind:
# plain int8 pages (compression = off), compressed int8 pages, variable-width
# text (libc and ICU collations), a composite (int4, int4) key, a unique
# index, an index with only pending entries on top of its build, and one
# after several merges, deletes and VACUUM, with pending entries again.  The
# same queries (point, = ANY, range, ordered both ways, IS NULL) are answered
# by a sequential scan on the old cluster, and after pg_upgrade by index,
# index-only, bitmap and sequential scans on the new one: all must agree,
# and learned_index_check(idx, true) must pass.  Then the upgraded indexes
# take inserts and merges, and are checked again.
#
# Needs learned_idx installed in the old installation as well (scripts/test.sh
# installs it into 15); an old installation without it is skipped.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my %MODES = (
	seq => 'SET enable_seqscan = on; SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;',
	index => 'SET enable_seqscan = off; SET enable_indexscan = on; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;',
	indexonly => 'SET enable_seqscan = off; SET enable_indexscan = on; SET enable_indexonlyscan = on; SET enable_bitmapscan = off;',
	bitmap => 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = on;',
);

my $probe = PostgreSQL::Test::Cluster->new('probe');
if ($probe->pg_version < 18)
{
	plan skip_all => 'the pg_upgrade test upgrades to PostgreSQL 18 or later; this is '
	  . $probe->pg_version;
}

# An old installation is usable if it has pg_upgrade's counterpart binaries
# and learned_idx installed.
sub usable_old
{
	my ($dir) = @_;
	my $pg_config = "$dir/bin/pg_config";
	return "no $pg_config" unless -x $pg_config;
	my $libdir = `$pg_config --pkglibdir`;
	my $sharedir = `$pg_config --sharedir`;
	chomp($libdir, $sharedir);
	return "learned_idx is not installed in $dir (no $libdir/learned_idx.so)"
	  unless -e "$libdir/learned_idx.so";
	return "learned_idx is not installed in $dir (no $sharedir/extension/learned_idx.control)"
	  unless -e "$sharedir/extension/learned_idx.control";
	return '';
}

my @candidates = defined $ENV{LEARNED_UPGRADE_FROM}
  ? split(/\s+/, $ENV{LEARNED_UPGRADE_FROM})
  : ('/usr/lib/postgresql/15', '/var/cache/learned_idx/pg17');
my @olds;
foreach my $dir (@candidates)
{
	my $why = usable_old($dir);
	if ($why eq '') { push @olds, $dir; }
	else { note "not upgrading from $dir: $why"; }
}
if (!@olds)
{
	plan skip_all => 'no old PostgreSQL installation with learned_idx installed ('
	  . join(', ', @candidates) . ')';
}

# Deterministic data: the queries below know some of its keys.
sub text_key
{
	my ($i) = @_;
	return sprintf("%d-%s", ($i * 7919) % 20011, 'z' x ($i % 5));
}

my $setup = q{
CREATE EXTENSION learned_idx;

-- plain int8 pages, some NULLs
CREATE TABLE tplain (id int, k int8);
INSERT INTO tplain SELECT i, CASE WHEN i % 1000 = 0 THEN NULL ELSE i * 3 END FROM generate_series(1, 20000) i;
CREATE INDEX tplain_k ON tplain USING learned (k) WITH (compression = off);

-- compressed int8 pages
CREATE TABLE tcomp (id int, k int8);
INSERT INTO tcomp SELECT i, CASE WHEN i % 997 = 0 THEN NULL ELSE i * 3 END FROM generate_series(1, 20000) i;
CREATE INDEX tcomp_k ON tcomp USING learned (k) WITH (compression = on);

-- variable-width text, the database's libc collation and ICU's root one;
-- a few entries left pending
CREATE TABLE ttext (id int, k text);
INSERT INTO ttext SELECT i, ((i * 7919) % 20011)::text || '-' || repeat('z', i % 5) FROM generate_series(1, 20000) i;
CREATE INDEX ttext_k ON ttext USING learned (k);
INSERT INTO ttext SELECT i, ((i * 7919) % 20011)::text || '-' || repeat('y', i % 5) FROM generate_series(20001, 20300) i;
CREATE TABLE ticu (id int, k text COLLATE "und-x-icu");
INSERT INTO ticu SELECT * FROM ttext;
CREATE INDEX ticu_k ON ticu USING learned (k);
INSERT INTO ticu VALUES (30000, 'Zürich'), (30001, 'zurich'), (30002, 'ZURICH');

-- composite (int4, int4), a few entries left pending
CREATE TABLE tmulti (id int, a int4, b int4);
INSERT INTO tmulti SELECT i, i / 50, (i * 37) % 50 FROM generate_series(1, 20000) i;
CREATE INDEX tmulti_ab ON tmulti USING learned (a, b);
INSERT INTO tmulti SELECT i, i / 50, (i * 37) % 50 + 100 FROM generate_series(20001, 20200) i;

-- unique
CREATE TABLE tuniq (id int, k int8);
INSERT INTO tuniq SELECT i, i * 3 FROM generate_series(1, 20000) i;
CREATE UNIQUE INDEX tuniq_k ON tuniq USING learned (k);
INSERT INTO tuniq SELECT 20000 + i, i * 3 + 1 FROM generate_series(1, 500) i;

-- pending entries only (below the 1024 entries that trigger a merge)
CREATE TABLE tpend (id int, k int8);
INSERT INTO tpend SELECT i, i * 3 FROM generate_series(1, 20000) i;
CREATE INDEX tpend_k ON tpend USING learned (k) WITH (merge_ratio = 100000, pending_limit = 2097151);
INSERT INTO tpend SELECT 20000 + i, i * 3 + 1 FROM generate_series(1, 1000) i;
INSERT INTO tpend SELECT 30000 + i, NULL FROM generate_series(1, 20) i;

-- merged several times, deletes and VACUUM, then pending entries again;
-- the merges are the ones asked for: a merge worker the inserts started
-- could run at any point after them (the postmaster starts it when it
-- gets to it, and it merges whatever it finds), and take the entries
-- meant to stay pending
SET learned_idx.auto_merge = off;
CREATE TABLE tmerged (id int, k int8);
INSERT INTO tmerged SELECT i, i * 3 FROM generate_series(1, 20000) i;
CREATE INDEX tmerged_k ON tmerged USING learned (k) WITH (merge_ratio = 100000, pending_limit = 2097151);
INSERT INTO tmerged SELECT i, i * 3 FROM generate_series(20001, 24000) i;
INSERT INTO tmerged SELECT 100000 + i, i * 3 + 1 FROM generate_series(1, 2000) i;
SELECT learned_index_merge('tmerged_k');
INSERT INTO tmerged SELECT 200000 + i, i * 3 + 2 FROM generate_series(1, 1000) i;
SELECT learned_index_merge('tmerged_k');
DELETE FROM tmerged WHERE k % 7 = 0;
VACUUM tmerged;
INSERT INTO tmerged SELECT 300000 + i, i * 3 + 2 FROM generate_series(1001, 1500) i;
-- no VACUUM from here on: it would merge the pending lists
ANALYZE;
};

my @int8_queries = (
	"SELECT count(*), sum(id) FROM TAB WHERE k IS NOT NULL",
	"SELECT count(*), sum(id) FROM TAB WHERE k IS NULL",
	"SELECT count(*), sum(id) FROM TAB WHERE k = 300",
	"SELECT count(*), sum(id) FROM TAB WHERE k = 301",
	"SELECT count(*), sum(id) FROM TAB WHERE k = 3002",
	"SELECT count(*), sum(id) FROM TAB WHERE k = ANY ('{3,4,5,6,7,3000,3001,3002,59997,60000,60001,71999,-1}')",
	"SELECT count(*), sum(id) FROM TAB WHERE k BETWEEN 1000 AND 5000",
	"SELECT count(*), sum(id) FROM TAB WHERE k >= 59000",
	"SELECT k FROM TAB WHERE k > 59000 ORDER BY k LIMIT 50",
	"SELECT k FROM TAB WHERE k < 10000 ORDER BY k DESC LIMIT 50",
	"SELECT k FROM TAB ORDER BY k LIMIT 20",
	"SELECT k FROM TAB ORDER BY k DESC LIMIT 20");
my @points = map { "'" . text_key($_) . "'" } (1, 2, 777, 15000, 19999);
my @text_queries = (
	"SELECT count(*), sum(id) FROM TAB WHERE k IS NOT NULL",
	(map { "SELECT count(*), sum(id) FROM TAB WHERE k = $_" } @points),
	"SELECT count(*), sum(id) FROM TAB WHERE k = ANY (ARRAY[" . join(',', @points) . ", 'none'])",
	"SELECT count(*), sum(id) FROM TAB WHERE k BETWEEN '200' AND '3'",
	"SELECT k FROM TAB WHERE k > '9' ORDER BY k LIMIT 50",
	"SELECT k FROM TAB WHERE k < '15' ORDER BY k DESC LIMIT 50",
	"SELECT k FROM TAB ORDER BY k LIMIT 20",
	"SELECT k FROM TAB ORDER BY k DESC LIMIT 20");
my @multi_queries = (
	"SELECT count(*), sum(id) FROM TAB WHERE a IS NOT NULL",
	"SELECT count(*), sum(id) FROM TAB WHERE a = 10 AND b = 5",
	"SELECT count(*), sum(id) FROM TAB WHERE a = 401 AND b = 137",
	"SELECT count(*), sum(id) FROM TAB WHERE a = 10",
	"SELECT count(*), sum(id) FROM TAB WHERE a BETWEEN 100 AND 120 AND b < 10",
	"SELECT count(*), sum(id) FROM TAB WHERE a = ANY ('{1,50,399,402}') AND b >= 7",
	"SELECT a, b FROM TAB WHERE a > 390 ORDER BY a, b LIMIT 30",
	"SELECT a, b FROM TAB ORDER BY a DESC, b DESC LIMIT 30");

# table => [index, queries, the query whose plan must use the index]
my %tables = (
	tplain => [ 'tplain_k', \@int8_queries ],
	tcomp => [ 'tcomp_k', \@int8_queries ],
	ttext => [ 'ttext_k', \@text_queries ],
	ticu => [ 'ticu_k', \@text_queries ],
	tmulti => [ 'tmulti_ab', \@multi_queries ],
	tuniq => [ 'tuniq_k', \@int8_queries ],
	tpend => [ 'tpend_k', \@int8_queries ],
	tmerged => [ 'tmerged_k', \@int8_queries ]);

sub answers
{
	my ($node, $table, $mode) = @_;
	my $q = join(";\n", map { (my $s = $_) =~ s/\bTAB\b/$table/g; $s } @{ $tables{$table}[1] });
	return $node->safe_psql('postgres', "$MODES{$mode}\n$q;");
}

# the index modes agree with the reference, and the plans use the index
sub check_all
{
	my ($node, $ref, $what) = @_;
	foreach my $table (sort keys %tables)
	{
		my $index = $tables{$table}[0];
		my $seq = answers($node, $table, 'seq');
		is($seq, $ref->{$table}, "$what: $table: sequential scan as before the upgrade")
		  if defined $ref;
		foreach my $mode ('index', 'indexonly', 'bitmap')
		{
			is(answers($node, $table, $mode), $seq,
				"$what: $table: $mode scans agree with a sequential scan");
		}
		(my $q = $tables{$table}[1][2]) =~ s/\bTAB\b/$table/g;
		like($node->safe_psql('postgres', "$MODES{index}\nEXPLAIN (COSTS OFF) $q"),
			qr/using $index\b/, "$what: $table: the plan uses $index");
		is($node->safe_psql('postgres', "SELECT learned_index_check('$index', true)"),
			't', "$what: learned_index_check($index, true)");
	}
}

foreach my $olddir (@olds)
{
	my $old = PostgreSQL::Test::Cluster->new('old', install_path => $olddir);
	my $from = $old->pg_version->major;
	my $new = PostgreSQL::Test::Cluster->new("new_from_$from");
	my $to = $new->pg_version->major;
	my $t0 = time();

	# data checksums on both sides (18's initdb default), one encoding and
	# locale for both
	my @initdb = ('--encoding=UTF8', '--locale=en_US.UTF-8');
	$old->init(extra => [ @initdb, '--data-checksums' ]);
	$old->append_conf('postgresql.conf', 'autovacuum = off');
	$old->start;
	$old->safe_psql('postgres', $setup);

	my $info = $old->safe_psql('postgres', q{
SELECT string_agg(format('%s:%s:%s', i.indexrelid::regclass, l.generation, l.pending_entries), ' '
                  ORDER BY i.indexrelid::regclass::text)
  FROM pg_index i CROSS JOIN LATERAL learned_index_info(i.indexrelid::regclass) l
 WHERE i.indexrelid::regclass::text IN ('tpend_k', 'tmerged_k')});
	like($info, qr/tmerged_k:[3-9]:[1-9]\d* tpend_k:1:[1-9]\d*/,
		"$from: pending entries in tpend_k, merges and pending entries in tmerged_k ($info)");
	like($old->safe_psql('postgres', q{SELECT string_agg(compression, ' ' ORDER BY indexrelid::regclass::text)
  FROM pg_index CROSS JOIN LATERAL learned_index_info(indexrelid::regclass)
 WHERE indexrelid::regclass::text IN ('tcomp_k', 'tplain_k')}),
		qr/^on off$/, "$from: tcomp_k compressed, tplain_k plain");

	my %ref;
	$ref{$_} = answers($old, $_, 'seq') foreach keys %tables;
	foreach my $table (sort keys %tables)
	{
		is(answers($old, $table, 'index'), $ref{$table},
			"$from: $table: index scans agree with a sequential scan before the upgrade");
	}

	# Not learned_idx's: Debian's PostgreSQL 15.20 writes a "pg_attver"
	# attribute option on every column it creates, which 18.6's server does
	# not know ('unrecognized parameter "pg_attver"' when pg_upgrade restores
	# the schema), so pg_upgrade fails on any table.  Drop it from the user
	# tables' columns, only where it is there.
	my $attver = $old->safe_psql('postgres', q{
SELECT count(*) FROM pg_attribute
 WHERE attrelid >= 16384 AND array_to_string(attoptions, ',') LIKE '%pg_attver=%'});
	if ($attver > 0)
	{
		note "$from: removing the pg_attver attribute option of $attver user columns";
		$old->safe_psql('postgres', q{
UPDATE pg_attribute
   SET attoptions = (SELECT CASE WHEN count(*) > 0 THEN array_agg(o) END
                       FROM unnest(attoptions) o WHERE o NOT LIKE 'pg_attver=%')
 WHERE attrelid >= 16384 AND array_to_string(attoptions, ',') LIKE '%pg_attver=%'});
	}
	$old->stop;

	$new->init(extra => [ @initdb ]);
	$new->append_conf('postgresql.conf', 'autovacuum = off');

	my $cwd = PostgreSQL::Test::Utils::tempdir;
	chdir $cwd;
	command_ok(
		[
			'pg_upgrade', '--no-sync', '--copy',
			'--old-datadir' => $old->data_dir,
			'--new-datadir' => $new->data_dir,
			'--old-bindir' => $old->config_data('--bindir'),
			'--new-bindir' => $new->config_data('--bindir'),
			'--socketdir' => $new->host,
			'--old-port' => $old->port,
			'--new-port' => $new->port,
		],
		"pg_upgrade --copy from $from to $to");
	$new->start;
	note sprintf("%d -> %d: setup and pg_upgrade took %d s", $from, $to, time() - $t0);

	check_all($new, \%ref, "$from -> $to");

	# the unique index still refuses duplicates, from both stages; on the
	# new major ON CONFLICT can use it
	my ($rc, $stdout, $stderr) = $new->psql('postgres',
		'INSERT INTO tuniq VALUES (0, 300), (0, 301)');
	like($stderr, qr/duplicate key value violates unique constraint "tuniq_k"/,
		"$from -> $to: tuniq_k refuses a duplicate");
	is($new->safe_psql('postgres', q{
WITH ins AS (INSERT INTO tuniq VALUES (0, 300), (0, 304), (0, 99999) ON CONFLICT (k) DO NOTHING RETURNING k)
SELECT string_agg(k::text, ',') FROM ins}),
		'99999', "$from -> $to: ON CONFLICT (k) DO NOTHING with tuniq_k");

	# the upgraded indexes take inserts and merges (by the 1024th pending
	# entry or by learned_index_merge)
	my %gen;
	$gen{$_} = $new->safe_psql('postgres',
		"SELECT generation FROM learned_index_info('$tables{$_}[0]')")
	  foreach keys %tables;
	$new->safe_psql('postgres', q{
INSERT INTO tplain SELECT 40000 + i, i * 3 + 2 FROM generate_series(1, 2000) i;
INSERT INTO tcomp SELECT 40000 + i, i * 3 + 2 FROM generate_series(1, 2000) i;
INSERT INTO ttext SELECT 40000 + i, i::text || '-x' FROM generate_series(1, 2000) i;
INSERT INTO ticu SELECT 40000 + i, i::text || '-X' FROM generate_series(1, 2000) i;
INSERT INTO tmulti SELECT 40000 + i, i / 50, (i * 37) % 50 + 200 FROM generate_series(1, 2000) i;
INSERT INTO tuniq SELECT 40000 + i, i * 3 + 2 FROM generate_series(1, 2000) i;
INSERT INTO tpend SELECT 40000 + i, i * 3 + 2 FROM generate_series(1, 2000) i;
INSERT INTO tmerged SELECT 40000 + i, i * 3 FROM generate_series(1, 2000) i;
});
	foreach my $table (sort keys %tables)
	{
		my $index = $tables{$table}[0];
		$new->safe_psql('postgres', "SELECT learned_index_merge('$index')");
		is($new->safe_psql('postgres',
			"SELECT generation > $gen{$table} AND pending_entries = 0 FROM learned_index_info('$index')"),
			't', "$from -> $to: $index merged its inserts");
	}
	$new->safe_psql('postgres', 'VACUUM ANALYZE');
	check_all($new, undef, "$from -> $to, after inserts and merges");

	$new->stop;
	note sprintf("%d -> %d: %d s in all", $from, $to, time() - $t0);
}

done_testing();
