# Concurrency: several clients insert, delete and vacuum while others
# compare, inside one transaction (one snapshot), the answer through the
# learned index with the answer of a sequential scan.  Mismatches are
# recorded and must not occur.  Then concurrent CREATE INDEX CONCURRENTLY
# and REINDEX CONCURRENTLY under a writer.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $node = PostgreSQL::Test::Cluster->new('concurrent');
$node->init;
$node->append_conf('postgresql.conf', qq{
max_connections = 20
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
CREATE TABLE t (id serial, k int8);
INSERT INTO t (k) SELECT (i * 7919) % 1000000 FROM generate_series(1, 20000) i;
INSERT INTO t (k) SELECT NULL FROM generate_series(1, 20);
CREATE INDEX t_k ON t USING learned (k);
ANALYZE t;
});

my $index_mode = 'index';
my $bitmap_mode = 'bitmap';

# Each check runs in one REPEATABLE READ transaction (one snapshot): the
# query through the learned index (index or index-only scans, or bitmap
# scans), then the reference query as a real sequential scan, and records
# any difference in table mismatch, with the parameters.  The reference must
# not use the index at all: with enable_seqscan off, "k + 0" would still be
# answered by a full index-only scan of the learned index, which is not a
# reference.
$node->safe_psql('postgres', q{
CREATE TABLE mismatch (check_name text, param int8, via_index text, via_seq text);
CREATE FUNCTION lcheck(name text, p int8, w int8, mode text, idx_sql text, seq_sql text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE a text; b text;
BEGIN
    PERFORM set_config('enable_seqscan', 'off', true);
    PERFORM set_config('enable_indexscan', (mode = 'index')::text, true);
    PERFORM set_config('enable_indexonlyscan', (mode = 'index')::text, true);
    PERFORM set_config('enable_bitmapscan', (mode = 'bitmap')::text, true);
    EXECUTE idx_sql INTO a USING p, w;
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'off', true);
    PERFORM set_config('enable_indexonlyscan', 'off', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    EXECUTE seq_sql INTO b USING p, w;
    IF a IS DISTINCT FROM b THEN
        INSERT INTO mismatch VALUES (name, p, a, b);
    END IF;
END $$;
});
sub check_script
{
	my ($name, $mode, $index_expr, $seq_expr) = @_;
	return qq{
\\set p random(0, 1000000)
\\set w random(0, 30000)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT lcheck('$name', :p, :w, '$mode', \$q\$SELECT ($index_expr)::text\$q\$, \$q\$SELECT ($seq_expr)::text\$q\$);
COMMIT;
};
}

my %scripts = (
	'001_insert@8' => q{
\set k random(0, 1000000)
INSERT INTO t (k) VALUES (:k), (:k + 1), (:k), (NULL);
},
	'002_delete@2' => q{
\set id random(1, 30000)
DELETE FROM t WHERE id BETWEEN :id AND :id + 3;
},
	'003_vacuum@1' => q{
VACUUM t;
},
	'004_count_index@3' => check_script('count_index', $index_mode,
		'SELECT count(*) FROM t WHERE k BETWEEN $1 AND $1 + $2',
		'SELECT count(*) FROM t WHERE k BETWEEN $1 AND $1 + $2'),
	'005_count_bitmap@3' => check_script('count_bitmap', $bitmap_mode,
		'SELECT row(count(*), sum(id)) FROM t WHERE k BETWEEN $1 AND $1 + $2',
		'SELECT row(count(*), sum(id)) FROM t WHERE k BETWEEN $1 AND $1 + $2'),
	'006_order_asc@3' => check_script('order_asc', $index_mode,
		'array(SELECT k FROM t WHERE k >= $1 ORDER BY k LIMIT 100)',
		'array(SELECT k FROM t WHERE k >= $1 ORDER BY k LIMIT 100)'),
	'007_order_desc@3' => check_script('order_desc', $index_mode,
		'array(SELECT k FROM t WHERE k <= $1 ORDER BY k DESC LIMIT 100)',
		'array(SELECT k FROM t WHERE k <= $1 ORDER BY k DESC LIMIT 100)'),
	'008_point@3' => check_script('point', $index_mode,
		'SELECT count(*) FROM t WHERE k = ANY (ARRAY[$1, $1 + 1, $1 - 1]::int8[])',
		'SELECT count(*) FROM t WHERE k = ANY (ARRAY[$1, $1 + 1, $1 - 1]::int8[])'),
	'009_nulls@1' => check_script('nulls', $index_mode,
		'SELECT count(*) FROM t WHERE k IS NULL',
		'SELECT count(*) FROM t WHERE k IS NULL'),
	# a full index-only scan of the learned index (it cannot use k + 0 as a
	# qual): long scans are the ones that see merges and VACUUM pass by
	'010_full_scan@2' => check_script('full_scan', $index_mode,
		'array(SELECT k FROM t WHERE k + 0 <= $1 ORDER BY k + 0 DESC LIMIT 100)',
		'array(SELECT k FROM t WHERE k <= $1 ORDER BY k DESC LIMIT 100)'));

# No mismatch recorded; print the first ones if any.
sub no_mismatch
{
	my ($name) = @_;
	my $n = $node->safe_psql('postgres', 'SELECT count(*) FROM mismatch');
	is($n, '0', "$name: the index agreed with the sequential scan in every check");
	diag($node->safe_psql('postgres',
		'SELECT check_name, param, left(via_index, 300), left(via_seq, 300) FROM mismatch LIMIT 5'))
	  if $n ne '0';
	$node->safe_psql('postgres', 'TRUNCATE mismatch');
	return;
}

# Round 1: inserts, deletes, vacuum and checks.
$node->pgbench(
	'--no-vacuum --client=5 --jobs=2 --transactions=400',
	0,
	[ qr{processed: 2000/2000}, qr{number of failed transactions: 0 } ],
	[],
	'round 1: concurrent inserts, deletes, vacuum and checks',
	\%scripts);
no_mismatch('round 1');
index_vs_seq($node, 't', 'after round 1');
all_rows_found($node, 't', 'after round 1');

# Round 2: the same with merges made likely (merge_ratio 1000: a merge is
# due once the pending area holds 0.1% of the static entries).
$node->safe_psql('postgres', 'ALTER INDEX t_k SET (merge_ratio = 1000)');
my %scripts2 = map { ("r2_$_" => $scripts{$_}) } keys %scripts;
$node->pgbench(
	'--no-vacuum --client=5 --jobs=2 --transactions=400',
	0,
	[ qr{processed: 2000/2000}, qr{number of failed transactions: 0 } ],
	[],
	'round 2: with frequent merges',
	\%scripts2);
no_mismatch('round 2');
index_vs_seq($node, 't', 'after round 2');
all_rows_found($node, 't', 'after round 2');

# Round 3: CREATE INDEX CONCURRENTLY and REINDEX CONCURRENTLY while
# another session inserts and deletes, committing each row.
$node->safe_psql('postgres', 'DROP INDEX t_k');
$node->safe_psql('postgres', q{
CREATE PROCEDURE writer(n int) LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. n LOOP
        INSERT INTO t (k) VALUES ((i * 15485863::int8) % 1000000), (NULL);
        IF i % 10 = 0 THEN
            DELETE FROM t WHERE id = (SELECT max(id) - 5 FROM t);
        END IF;
        COMMIT;
    END LOOP;
END $$;
});
my $writer = $node->background_psql('postgres');
$writer->query_until(qr/writer started/, "\\echo writer started\nCALL writer(6000);\n");
$node->safe_psql('postgres', 'CREATE INDEX CONCURRENTLY t_k2 ON t USING learned (k)');
$node->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY t_k2');
$node->safe_psql('postgres', 'CREATE INDEX CONCURRENTLY t_k3 ON t USING learned (k) WITH (merge_ratio = 1)');
$writer->quit;
is($node->safe_psql('postgres', q{SELECT bool_and(indisvalid) FROM pg_index
	WHERE indexrelid IN ('t_k2'::regclass, 't_k3'::regclass)}),
	't', 'the concurrently built indexes are valid');
$node->safe_psql('postgres', 'DROP INDEX t_k3');
index_vs_seq($node, 't', 'CREATE INDEX CONCURRENTLY (t_k2)');
all_rows_found($node, 't', 'CREATE INDEX CONCURRENTLY (t_k2)');
$node->safe_psql('postgres', 'DROP INDEX t_k2');

$node->stop;
done_testing();
