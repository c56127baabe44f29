# A unique insert's check and its append are not under one lock: the append
# verifies, under the tail page's lock, the entries appended since the
# check read the pending list (docs/architecture.md, section 6b).  Each
# case holds an insert between its check and its append
# (learned_idx.fail_point = 'unique-before-append:sleep'), lets another
# session insert an equal key meanwhile, and then checks what btree would
# do: a committed equal key is a violation, an aborted one is not, an
# in-progress one is waited for.  Without the verification the first
# insert would append a duplicate.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use LearnedCheck;

my $node = quiet_node('unique_race');
$node->safe_psql('postgres', q{
CREATE TABLE t (k int8, id serial);
INSERT INTO t (k) SELECT i * 10 FROM generate_series(1, 5000) i;
CREATE UNIQUE INDEX t_k ON t USING learned (k);
CREATE TABLE c (a int, b text);
INSERT INTO c SELECT i % 50, 'b' || (i / 50) FROM generate_series(1, 5000) i;
CREATE UNIQUE INDEX c_ab ON c USING learned (a, b);
CREATE TABLE n (k int4);
INSERT INTO n SELECT i FROM generate_series(1, 1000) i;
CREATE UNIQUE INDEX n_k ON n USING learned (k) NULLS NOT DISTINCT;
});

# Start $insert in a session held between its check and its append; run
# $meanwhile (a code ref) while it waits; return the held session's stderr
# once its statement ended.
sub held_insert
{
	my ($insert, $meanwhile) = @_;
	my ($a, $pid) = held_start($node, 'unique-before-append', $insert);
	$meanwhile->($pid);
	return held_end($a);
}

my $dup = qr/duplicate key value violates unique constraint/;

# 1. an equal key committed on the tail page the check read
my $err = held_insert('INSERT INTO t VALUES (5)',
	sub { $node->safe_psql('postgres', 'INSERT INTO t VALUES (5)') });
like($err, $dup, 'committed meanwhile, same tail page: a violation');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE k = 5'), '1',
	'committed meanwhile, same tail page: one row');

# 2. the same, and the tail moves on to new pages past the equal key
$err = held_insert('INSERT INTO t VALUES (15)',
	sub {
		$node->safe_psql('postgres',
			'INSERT INTO t (k) SELECT 15 UNION ALL SELECT 100000 + i FROM generate_series(1, 3000) i');
	});
like($err, $dup, 'committed meanwhile, the tail moved on: a violation');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE k = 15'), '1',
	'committed meanwhile, the tail moved on: one row');

# 3. an equal key inserted and rolled back meanwhile: no violation
$err = held_insert('INSERT INTO t VALUES (25)',
	sub { $node->safe_psql('postgres', 'BEGIN; INSERT INTO t VALUES (25); ROLLBACK') });
unlike($err, $dup, 'rolled back meanwhile: no violation');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE k = 25'), '1',
	'rolled back meanwhile: the held insert went in');

# 4. an equal key of a transaction still open when the held insert wakes:
# it waits for that transaction, then reports the violation
my $b = $node->background_psql('postgres', on_error_stop => 0);
$err = held_insert('INSERT INTO t VALUES (35)',
	sub {
		my ($pid) = @_;
		$b->query_safe('BEGIN');
		$b->query_safe('INSERT INTO t VALUES (35)');
		$node->poll_query_until('postgres',
			"SELECT wait_event_type = 'Lock' AND wait_event = 'transactionid' FROM pg_stat_activity WHERE pid = $pid")
		  or die "the held insert did not wait for the open transaction";
		$b->query_safe('COMMIT');
	});
$b->quit;
like($err, $dup, 'in progress meanwhile, then committed: waited, then a violation');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE k = 35'), '1',
	'in progress meanwhile: one row');

# 5. a composite key (a text column: keys compared by the comparator)
$err = held_insert(q{INSERT INTO c VALUES (7, 'new')},
	sub { $node->safe_psql('postgres', q{INSERT INTO c VALUES (7, 'new')}) });
like($err, $dup, 'composite key committed meanwhile: a violation');
is($node->safe_psql('postgres', q{SELECT count(*) FROM c WHERE a = 7 AND b = 'new'}), '1',
	'composite key: one row');

# 6. NULLS NOT DISTINCT: two NULLs conflict
$err = held_insert('INSERT INTO n VALUES (NULL)',
	sub { $node->safe_psql('postgres', 'INSERT INTO n VALUES (NULL)') });
like($err, $dup, 'NULL under NULLS NOT DISTINCT committed meanwhile: a violation');
is($node->safe_psql('postgres', 'SELECT count(*) FROM n WHERE k IS NULL'), '1',
	'NULLS NOT DISTINCT: one NULL');

# 7. a different key meanwhile is no conflict
$err = held_insert('INSERT INTO t VALUES (45)',
	sub { $node->safe_psql('postgres', 'INSERT INTO t VALUES (46)') });
unlike($err, $dup, 'a different key meanwhile: no violation');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE k IN (45, 46)'), '2',
	'a different key meanwhile: both rows');

# no key twice (a sequential scan), the index agrees with the heap, and
# each index passes its check
is($node->safe_psql('postgres', q{SET enable_indexscan = off; SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
SELECT (SELECT count(*) - count(DISTINCT k) FROM t) + (SELECT count(*) - count(DISTINCT (a, b)) FROM c)
     + (SELECT count(*) FILTER (WHERE k IS NULL) - 1 FROM n)}), '0', 'no key twice');
index_vs_seq($node, 't', 'after the races');
foreach my $i ('t_k', 'c_ab', 'n_k')
{
	is($node->safe_psql('postgres', "SELECT learned_index_check('$i', true)"), 't',
		"learned_index_check($i)");
}

$node->stop;
done_testing();
