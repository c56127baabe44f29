# Variable-width keys through WAL: text (under "C" and ICU), numeric, a
# composite (text, numeric) key and a uuid (v7-like: packed segments on
# stride pages), built, filled into the pending list,
# merged, vacuumed, on a primary streaming to a standby that replays with
# wal_consistency_checking (each generic WAL record is checked against a
# full-page image), then through a crash of the primary (immediate stop,
# recovery from WAL alone).  Each step compares index answers with a
# sequential scan, on both nodes, and the standby's with the primary's.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
wal_consistency_checking = 'generic'
autovacuum = off
});
$primary->start;
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;

my $index_mode = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = on;';
my $bitmap_mode = 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;';
my $seq_mode = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';

# Ordered queries print the key only (ties are then indistinguishable);
# the others a count and sums of hashes of the rows.
my @queries = (
	"SELECT count(*), sum(hashtext(k)), sum(hashint4(id)) FROM t WHERE k >= 'https://example.com/a/long/shared/path/3'",
	"SELECT count(*), sum(hashint4(id)) FROM t WHERE k = 'abcdefgh'",
	"SELECT count(*), sum(hashint4(id)) FROM t WHERE k > 'abcdefgh' AND k < 'abcdefgi'",
	"SELECT count(*), sum(hashint4(id)) FROM t WHERE k IS NULL OR k = ''",
	"SELECT count(*), sum(hashint4(id)) FROM t WHERE k = ANY ('{abcdefgh0, abcdefghé7, zz, Ré}')",
	"SELECT md5(string_agg(k, ',' ORDER BY k)) FROM t WHERE k < 'b'",
	"SELECT k FROM t WHERE k > 'https://' ORDER BY k LIMIT 300",
	"SELECT k FROM t WHERE k < 'abcdefgh~' ORDER BY k DESC LIMIT 300",
	"SELECT count(*), sum(hashint4(id)) FROM t WHERE u BETWEEN 'a' AND 'b'",
	"SELECT count(*), sum(hashint4(id)) FROM t WHERE u = 'Ka1' AND n > 10",
	"SELECT count(*), sum(hashint4(id)) FROM t WHERE u IN ('ré2', 'RÉ2', 'a0') AND n IN (1.5, 2, 'NaN')",
	"SELECT u, trim_scale(n) FROM t WHERE u >= 'Ré' ORDER BY u, n DESC LIMIT 300",
	"SELECT u, trim_scale(n) FROM t WHERE u < 'b' ORDER BY u DESC, n LIMIT 300",
	"SELECT count(*), sum(hashint4(id)) FROM t WHERE u IS NULL AND n IS NULL",
	"SELECT count(*), sum(hashint4(id)) FROM t WHERE g >= '019b76da-e000-0000-0000-000000000000'",
	"SELECT g FROM t WHERE g > '019b76da-c000-0000-0000-000000000000' ORDER BY g LIMIT 300",
	"SELECT count(*), sum(hashint4(id)) FROM t WHERE g IS NULL OR g = ANY (ARRAY(SELECT g FROM t WHERE id % 101 = 0))");

sub answers
{
	my ($node, $mode) = @_;
	return join("\n", map { $node->safe_psql('postgres', "$mode $_") } @queries);
}

sub check_node
{
	my ($node, $name) = @_;
	my $seq = answers($node, $seq_mode);
	is(answers($node, $index_mode), $seq, "$name: index and index-only scans answer like a sequential scan");
	is(answers($node, $bitmap_mode), $seq, "$name: bitmap scans answer like a sequential scan");
	my $plan = $node->safe_psql('postgres', "$index_mode EXPLAIN (COSTS OFF) $queries[6]");
	like($plan, qr/Index (Only )?Scan using t_k/, "$name: the learned index is used");
	return $seq;
}

sub step
{
	my ($name) = @_;
	$primary->wait_for_catchup($standby, 'replay');
	my $p = check_node($primary, "$name (primary)");
	my $s = check_node($standby, "$name (standby)");
	is($s, $p, "$name: the standby answers like the primary");
	return;
}

# Rows: URLs with a long shared prefix, keys differing after byte 8,
# empty strings, NULLs, UTF-8; an ICU column with case variants; numeric
# with equal values at different scales and NaN.
my $fill_sql = q{
INSERT INTO t (k, u, n, g)
SELECT CASE WHEN i % 41 = 0 THEN NULL WHEN i % 43 = 0 THEN ''
            WHEN i % 3 = 0 THEN 'https://example.com/a/long/shared/path/' || (i * 7919) % 5000
            WHEN i % 3 = 1 THEN 'abcdefgh' || (ARRAY['', ' ', 'é', 'A', '0'])[1 + i % 5] || (i % 97)
            ELSE (ARRAY['Ré', 'ré', 'zz', '日本', 'ka'])[1 + i % 5] || (i % 13) END,
       CASE WHEN i % 37 = 0 THEN NULL
            ELSE (ARRAY['a', 'A', 'Ka', 'KA', 'ré', 'RÉ', 'b'])[1 + (i / 7) % 7] || (i % 4) END,
       CASE WHEN i % 31 = 0 THEN NULL WHEN i % 53 = 0 THEN 'NaN'
            ELSE round((i % 40)::numeric / 2, 1 + i % 2) END,
       CASE WHEN i % 29 = 0 THEN NULL
            ELSE (lpad(to_hex(1767225600000 + i * 2), 12, '0') || '7' || substr(md5(i::text), 1, 3) ||
                  '8' || substr(md5(i::text), 4, 15))::uuid END
FROM generate_series(LO, HI) i;
};
sub fill
{
	my ($lo, $hi) = @_;
	(my $s = $fill_sql) =~ s/LO, HI/$lo, $hi/;
	return $s;
}

$primary->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$primary->safe_psql('postgres', q{
CREATE TABLE t (id serial, k text COLLATE "C", u text COLLATE "und-x-icu", n numeric, g uuid);
} . fill(1, 20000) . q{
CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 1);
CREATE INDEX t_un ON t USING learned (u, n DESC) WITH (merge_ratio = 1);
CREATE INDEX t_g ON t USING learned (g) WITH (merge_ratio = 1);
});
is($primary->safe_psql('postgres', q{SELECT bool_and(s.items_per_page > i.items_per_page)
	FROM learned_index_segments('t_g') s, learned_index_info('t_g') i WHERE s.first_key IS NOT NULL}),
	't', 'the uuid index has packed segments');
step('build');

# pending entries (merge_ratio = 1: no merge until the list outgrows the
# static entries), and updates
$primary->safe_psql('postgres', fill(20001, 26000)
	  . "UPDATE t SET k = k || '!', u = upper(u) WHERE id % 50 = 0;");
is($primary->safe_psql('postgres',
		"SELECT pending_entries > 0 FROM learned_index_info('t_k')"),
	't', 'entries are pending');
step('pending');

$primary->safe_psql('postgres', "SELECT learned_index_merge('t_k'), learned_index_merge('t_un'), learned_index_merge('t_g')");
is($primary->safe_psql('postgres',
		"SELECT pending_entries FROM learned_index_info('t_k')"),
	'0', 'merged');
step('merged');

$primary->safe_psql('postgres', "DELETE FROM t WHERE id % 3 = 0 OR k LIKE 'abcdefgh %'");
$primary->safe_psql('postgres', 'VACUUM t');
step('vacuum');

# A crash with pending entries and a merge in the WAL since the last
# checkpoint: recovery replays them.
$primary->safe_psql('postgres', 'CHECKPOINT');
$primary->safe_psql('postgres', fill(30001, 33000));
$primary->safe_psql('postgres', "SELECT learned_index_merge('t_un'), learned_index_merge('t_g')");
$primary->safe_psql('postgres', fill(40001, 41000));
$primary->wait_for_catchup($standby, 'replay');
my $before = answers($primary, $seq_mode);
$primary->stop('immediate');
$primary->start;
is(answers($primary, $seq_mode), $before, 'the crash lost no committed row');
step('after the crash');
foreach my $node ($primary, $standby)
{
	is($node->safe_psql('postgres',
			"SELECT learned_index_check('t_k', true) AND learned_index_check('t_un', true) AND learned_index_check('t_g', true)"),
		't', 'learned_index_check after the crash (' . $node->name . ')');
}

# the recovered primary keeps inserting and merging
$primary->safe_psql('postgres', fill(50001, 52000)
	  . "SELECT learned_index_merge('t_k'), learned_index_merge('t_un'), learned_index_merge('t_g');");
step('after the crash, more inserts and merges');

$standby->stop;
$primary->stop;
done_testing();
