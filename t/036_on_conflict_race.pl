# INSERT ... ON CONFLICT racing on the same keys, with a unique learned index
# as the arbiter (PostgreSQL 18 and later: core finds the index's "=" through
# amtranslatecmptype; 15-17 refuse it, see 32_on_conflict).  4 pgbench clients
# upsert keys from a range of 300, insert-or-ignore the next key, and upsert
# by the table's btree primary key, while merges move the keys between the
# pending list and the static stage.  Afterwards: no client saw an error, no
# key appears twice, every upsert was counted exactly once (sum of v equals
# the number of upserts), and the index agrees with a sequential scan.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $node = PostgreSQL::Test::Cluster->new('on_conflict_race');
if ($node->pg_version < 18)
{
	plan skip_all => 'PostgreSQL ' . $node->pg_version
	  . ' refuses ON CONFLICT on a table with a non-btree unique index (18 and later allow it)';
}

$node->init;
$node->append_conf('postgresql.conf', 'autovacuum = off');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION learned_idx');
$node->safe_psql('postgres', q{
-- p: a btree primary key of its own (id stays free for LearnedCheck's probes)
CREATE SEQUENCE pseq START 1000000;
CREATE TABLE t (id serial, k int8, v int, p int8 PRIMARY KEY DEFAULT nextval('pseq'));
INSERT INTO t (k, v) SELECT i * 2, 1 FROM generate_series(1, 100) i;
CREATE UNIQUE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 100, pending_limit = 64);
CREATE SEQUENCE upserts;
-- the 100 keys already there count as upserts
SELECT setval('upserts', 100);
});

my $clients = 4;
my $per_client = 1000;
$node->pgbench(
	"--no-vacuum --client=$clients --jobs=2 --transactions=$per_client",
	0,
	[
		qr{number of failed transactions: 0 },
		qr{number of transactions actually processed: @{[ $clients * $per_client ]}/}
	],
	[],
	"pgbench: $clients clients, ON CONFLICT DO UPDATE / DO NOTHING on 300 keys, merges",
	{
		'001_race' => q{
\set k random(1, 300)
\set n random(1, 40)
INSERT INTO t (k, v) VALUES (:k, 1) ON CONFLICT (k) DO UPDATE SET v = t.v + EXCLUDED.v;
SELECT nextval('upserts');
INSERT INTO t (k, v) VALUES (:k + 1, 0) ON CONFLICT (k) DO NOTHING;
INSERT INTO t (p, k, v) VALUES (:n, NULL, 1) ON CONFLICT (p) DO UPDATE SET v = t.v + 1;
SELECT CASE WHEN :k % 50 = 0 THEN learned_index_merge('t_k') END;
}
	});

my $ntx = $clients * $per_client;
is($node->safe_psql('postgres',
	'SELECT count(*) FROM (SELECT k FROM t WHERE k IS NOT NULL GROUP BY k HAVING count(*) > 1) d'),
	'0', 'no key appears twice in the table');
is($node->safe_psql('postgres',
	q{SELECT sum(v) = (SELECT last_value FROM upserts) FROM t WHERE k IS NOT NULL}),
	't', 'every upsert by the learned index counted once');
is($node->safe_psql('postgres', q{SELECT sum(v) FROM t WHERE p < 1000000}),
	$ntx, 'every upsert by the btree primary key counted once');
cmp_ok($node->safe_psql('postgres', q{SELECT count(*) FROM t WHERE k IS NOT NULL}),
	'<', $ntx, 'keys did collide');
cmp_ok($node->safe_psql('postgres', q{SELECT generation FROM learned_index_info('t_k')}),
	'>', 1, 'the index was merged');
is($node->safe_psql('postgres', q{SELECT learned_index_check('t_k', true)}),
	't', 'learned_index_check passes');
index_vs_seq($node, 't', 'after the race');
all_rows_found($node, 't', 'after the race');

# Every key still refuses a second row, from whichever stage it is in.
is($node->safe_psql('postgres', q{
WITH ins AS (
  INSERT INTO t (k, v) SELECT k, 0 FROM t WHERE k IS NOT NULL
  ON CONFLICT (k) DO NOTHING RETURNING 1)
SELECT count(*) FROM ins}),
	'0', 'ON CONFLICT DO NOTHING inserts no duplicate of any present key');

$node->stop;
done_testing();
