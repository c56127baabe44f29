# LearnedDynamic.pm: shared checks for the TAP tests of the dynamic stage
# (pending list, merges, garbage collection) of learned_idx (t/02x_*.pl).
#
# Tables are expected to look like  t (id int, k int8, ...)  with a learned
# index on k.  Every answer is computed once through the learned index and
# once without any index (sequential or TID range scans), and compared.
package LearnedDynamic;

use strict;
use warnings;

use Exporter 'import';
use Test::More;
use PostgreSQL::Test::Cluster;
use Time::HiRes qw(usleep);

our @EXPORT = qw(dyn_modes dyn_queries dyn_compare dyn_all_found dyn_check
  dyn_info dyn_wait_ready dyn_page_types dyn_compare_nodes dyn_dml_scripts
  dyn_truncation_layout dyn_standby dyn_fail_with dyn_waiting_pages
  dyn_old_cursor);

# Settings that force each kind of scan.
my %MODES = (
	seq =>
	  'SET enable_seqscan = on; SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SET enable_tidscan = off;',
	index =>
	  'SET enable_seqscan = off; SET enable_indexscan = on; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SET enable_tidscan = off;',
	indexonly =>
	  'SET enable_seqscan = off; SET enable_indexscan = on; SET enable_indexonlyscan = on; SET enable_bitmapscan = off; SET enable_tidscan = off;',
	bitmap =>
	  'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = on; SET enable_tidscan = off;',
);

sub dyn_modes { return %MODES; }

# The battery: whole-index ordered scans (both directions, hashed), counts
# and row hashes (duplicates or missing rows change them), ranges, point
# lookups and LIMITs.  Keys are expected in about [0, 1e6).
sub dyn_queries
{
	my ($t) = @_;
	return (
		"SELECT count(*), sum(hashint8(k)::int8), sum(hashint8(id::int8)::int8) FROM $t WHERE k IS NOT NULL",
		"SELECT count(*), sum(hashint8(id::int8)::int8) FROM $t WHERE k IS NULL",
		"SELECT count(*), md5(string_agg(k::text, ',')) FROM (SELECT k FROM $t WHERE k IS NOT NULL ORDER BY k) s",
		"SELECT count(*), md5(string_agg(k::text, ',')) FROM (SELECT k FROM $t WHERE k IS NOT NULL ORDER BY k DESC) s",
		"SELECT count(*), sum(hashint8(id::int8)::int8) FROM $t WHERE k < 1000",
		"SELECT count(*), sum(hashint8(id::int8)::int8) FROM $t WHERE k >= 900000",
		"SELECT count(*), sum(hashint8(id::int8)::int8) FROM $t WHERE k BETWEEN 250000 AND 260000",
		"SELECT count(*), sum(hashint8(id::int8)::int8) FROM $t WHERE k = ANY ('{0,7,70,700,7000,70000,700000,-1,999999}')",
		"SELECT k FROM $t WHERE k > 123456 ORDER BY k LIMIT 50",
		"SELECT k FROM $t WHERE k < 654321 ORDER BY k DESC LIMIT 50",
		"SELECT k FROM $t WHERE k BETWEEN 400000 AND 401000 ORDER BY k",
		"SELECT k FROM $t ORDER BY k DESC LIMIT 20");
}

# The pgbench scripts of the concurrency tests' writers, named with
# $prefix (for pgbench's file@weight), on t (id, k int8, v int) with keys in
# [0, 1e6): small insert transactions (keys spread over the whole range,
# some NULLs), deletes and updates (which move keys) of key ranges.
sub dyn_dml_scripts
{
	my ($prefix) = @_;
	return (
		"${prefix}_insert\@8" => q{
\set k random(0, 999999)
INSERT INTO t (k, v) SELECT CASE WHEN i = 20 AND :k % 7 = 0 THEN NULL ELSE (:k + i * 7919) % 1000000 END, 1
  FROM generate_series(1, 20) i;
},
		"${prefix}_delete\@3" => q{
\set lo random(0, 999000)
DELETE FROM t WHERE k BETWEEN :lo AND :lo + 400;
},
		"${prefix}_update\@2" => q{
\set lo random(0, 999000)
\set shift random(1, 999999)
UPDATE t SET k = (k + :shift) % 1000000, v = 3 WHERE k BETWEEN :lo AND :lo + 100;
},);
}

# A table $t (id, k) whose index's next VACUUM truncates a free tail: the
# build's segment and the pending pages at the start, a merge's generation
# after them, then three rows in four deleted.  VACUUM rewrites the segments
# into the freed start, frees the merge's generation at the end once the
# flip's witness has passed, and cuts it (246 to 29 pages on 8 kB pages).
# A snapshot older than its flips holds those pages: then the VACUUM after
# the snapshot's end cuts.  The heap keeps its pages (vacuum_truncate = off), so the
# index's is the only truncation.  Returns the index's pages before them.
sub dyn_truncation_layout
{
	my ($node, $t) = @_;
	$node->safe_psql('postgres', qq{
DROP TABLE IF EXISTS $t;
CREATE TABLE $t (id serial, k int8) WITH (autovacuum_enabled = off, vacuum_truncate = off);
INSERT INTO $t (k) SELECT (i::int8 * 7919) % 1000000 FROM generate_series(1, 40000) i;
CREATE INDEX ${t}_k ON $t USING learned (k) WITH (merge_ratio = 1, pending_limit = 1000000, compression = off);
INSERT INTO $t (k) SELECT (i::int8 * 104729) % 1000000 FROM generate_series(1, 20000) i;
SELECT learned_index_merge('${t}_k');
});
	$node->safe_psql('postgres', 'SELECT txid_current()');
	$node->safe_psql('postgres', "VACUUM $t");
	my $before = dyn_info($node, "${t}_k")->{total_pages};
	$node->safe_psql('postgres', "DELETE FROM $t WHERE id % 4 <> 0");
	return $before;
}

# Runs the battery in every index mode and compares with the sequential
# scan.  Returns the reference output.
sub dyn_compare
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($node, $t, $name, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my $q = join(";\n", dyn_queries($t)) . ";\n";
	my $ref = $node->safe_psql($db, $MODES{seq} . $q);
	foreach my $mode ('index', 'indexonly', 'bitmap')
	{
		my $got = $node->safe_psql($db, $MODES{$mode} . $q);
		is($got, $ref, "$name: $mode scans agree with a sequential scan");
	}
	# the index modes did use the learned index
	my $plan = $node->safe_psql($db,
		$MODES{index} . "EXPLAIN (COSTS OFF) SELECT k FROM $t WHERE k IS NOT NULL ORDER BY k");
	my $plan2 = $node->safe_psql($db,
		$MODES{bitmap} . "EXPLAIN (COSTS OFF) SELECT count(*) FROM $t WHERE k BETWEEN 250000 AND 260000");
	ok( uses_learned($node, $db, $plan) && uses_learned($node, $db, $plan2),
		"$name: the learned index is used")
	  or diag("$plan\n$plan2");
	return $ref;
}

# Primary and standby: the standby's index, index-only and bitmap scans and
# the primary's index scans all answer what the primary's sequential scan
# does.
sub dyn_compare_nodes
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($a, $b, $t, $name) = @_;
	my $q = join(";\n", dyn_queries($t)) . ";\n";
	my $ref = $a->safe_psql('postgres', $MODES{seq} . $q);
	is($a->safe_psql('postgres', $MODES{index} . $q), $ref,
		"$name: primary index scans agree with a sequential scan");
	foreach my $mode ('index', 'indexonly', 'bitmap')
	{
		is($b->safe_psql('postgres', $MODES{$mode} . $q), $ref,
			"$name: standby $mode scans agree with the primary's sequential scan");
	}
	my $plan = $b->safe_psql('postgres',
		$MODES{index} . "EXPLAIN (COSTS OFF) SELECT k FROM $t WHERE k IS NOT NULL ORDER BY k");
	ok(uses_learned($b, 'postgres', $plan), "$name: the standby uses the learned index")
	  or diag($plan);
	return;
}

sub uses_learned
{
	my ($node, $db, $plan) = @_;
	my @idx = $plan =~ /(?:Index Scan|Index Only Scan|Bitmap Index Scan)(?: Backward)? (?:using|on) (\S+)/g;
	return 0 unless @idx;
	foreach my $i (@idx)
	{
		return 0
		  unless $node->safe_psql($db,
			"SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = '$i'::regclass"
		  ) eq 'learned';
	}
	return 1;
}

# Every row (or every $step-th row by id) is found by a point lookup through
# the index: the rows come from a TID range scan of the heap (no index), each
# probes the index in a nested loop.  Also compares NULL counts.
sub dyn_all_found
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($node, $t, $name, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my $step = $opt{step} // 1;
	my $settings = q{SET enable_seqscan = off; SET enable_tidscan = on;
SET enable_bitmapscan = off; SET enable_indexonlyscan = off; SET enable_indexscan = on;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off;
SET enable_material = off;};
	my $query = qq{
SELECT count(*) FROM $t p WHERE p.ctid >= '(0,0)' AND p.k IS NOT NULL AND p.id % $step = 0
  AND NOT EXISTS (SELECT 1 FROM $t x WHERE x.k = p.k AND x.id = p.id)};
	my $res = $node->safe_psql($db, "$settings\n$query");
	is($res, '0', "$name: every row found through the index");
	my $plan = $node->safe_psql($db, "$settings\nEXPLAIN (COSTS OFF) $query");
	like(
		$plan,
		qr/Tid Range Scan on $t p.*Index Scan using \S+ on $t x\n\s+Index Cond: \(k = p\.k\)/s,
		"$name: the lookups go through the index");
	return;
}

# learned_index_check with heapallindexed; returns 1 on success.
sub dyn_check
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($node, $idx, $name, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my ($ret, $out, $err) =
	  $node->psql($db, "SELECT learned_index_check('$idx', true)");
	return is("$out$err", 't', "$name: learned_index_check passes");
}

# A streaming standby of $primary, from a fresh backup, started: replay
# waits for its queries instead of cancelling them
# (max_standby_streaming_delay = -1), and the primary does not know their
# snapshots (hot_standby_feedback = off), so each test chooses which
# conflicts happen.
sub dyn_standby
{
	my ($primary, $name) = @_;
	$primary->backup("${name}_backup");
	my $standby = PostgreSQL::Test::Cluster->new($name);
	$standby->init_from_backup($primary, "${name}_backup", has_streaming => 1);
	$standby->append_conf('postgresql.conf', qq{
max_standby_streaming_delay = -1
hot_standby_feedback = off
});
	$standby->start;
	return $standby;
}

# learned_index_info as a hash.
sub dyn_info
{
	my ($node, $idx, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my @cols = qw(segments leaf_pages entries dead_entries null_entries
	  pending_entries pending_pages total_pages generation directory_pages null_pages);
	my $row = $node->safe_psql($db,
		'SELECT ' . join(', ', @cols) . " FROM learned_index_info('$idx')");
	my %h;
	@h{@cols} = split /\|/, $row;
	return \%h;
}

# Pages neither reachable nor free (needs pg_freespacemap): pages replaced
# by a flip that wait for the horizon (or a witness) before GC frees them.
sub dyn_waiting_pages
{
	my ($node, $idx) = @_;
	return $node->safe_psql('postgres', qq{
SELECT i.total_pages - 1 - i.leaf_pages - i.null_pages - i.directory_pages - i.pending_pages
       - (SELECT count(*) FROM learned_index_runs('$idx') WHERE run IS NOT NULL)
       - (SELECT count(*) FROM pg_freespace('$idx') WHERE avail > 0)
  FROM learned_index_info('$idx') i});
}

# A session with a repeatable-read cursor over the table's index (k >= 0,
# in key order) that has fetched its first row: a snapshot older than what
# the caller does next.  Returns the session and that first row.
sub dyn_old_cursor
{
	my ($node, $tab) = @_;
	my $s = $node->background_psql('postgres');
	$s->query_safe(qq{
SET enable_seqscan = off; SET enable_bitmapscan = off;
BEGIN ISOLATION LEVEL REPEATABLE READ;
DECLARE c CURSOR FOR SELECT k FROM $tab WHERE k >= 0 ORDER BY k;
});
	return ($s, $s->query_safe('FETCH 1 FROM c'));
}

# Page types of the index (needs pageinspect): hash type => count.
# Types: 1 meta, 2 leaf, 3 nulls, 4 dir, 5 pending, 6 free, 0 new.
sub dyn_page_types
{
	my ($node, $idx, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my $out = $node->safe_psql(
		$db, qq{
SELECT CASE WHEN get_byte(p, 8190) = 154 AND get_byte(p, 8191) = 255
            THEN get_byte(p, 8176) ELSE 0 END AS type, count(*)
FROM (SELECT get_raw_page('$idx', b::int) p
      FROM generate_series(0, pg_relation_size('$idx') / 8192 - 1) b) s
GROUP BY 1 ORDER BY 1});
	my %h;
	foreach my $l (split /\n/, $out)
	{
		my ($k, $v) = split /\|/, $l;
		$h{$k} = $v;
	}
	return \%h;
}

# Wait until the server accepts queries again after a crash.  With the log
# offset taken before the crash, first wait for the end of crash recovery in
# the log: between the PANIC and the postmaster's restart a "SELECT 1" can
# still succeed, and the next statement would then meet recovery.
sub dyn_wait_ready
{
	my ($node, $offset) = @_;
	if (defined $offset)
	{
		my $i;
		for ($i = 0; $i < 1200; $i++)
		{
			last if $node->log_contains(
				qr/database system is ready to accept connections/, $offset);
			usleep(100_000);
		}
		BAIL_OUT('crash recovery did not finish') if $i == 1200;
	}
	for (my $i = 0; $i < 1200; $i++)
	{
		my ($ret, $out, $err) = $node->psql('postgres', 'SELECT 1');
		return 1 if $ret == 0 && $out eq '1';
		usleep(100_000);
	}
	BAIL_OUT('the server did not come back after the crash');
}

# Runs $sql on $node with learned_idx.fail_point set to $fp; expects the
# statement to fail: an ERROR naming the fault point, or (with a ":panic"
# suffix, restart_after_crash = on) a PANIC in the server log, after which
# it waits until crash recovery is over.  Returns the stderr.
sub dyn_fail_with
{
	my ($node, $fp, $sql, $name) = @_;
	my $offset = -s $node->logfile;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET learned_idx.fail_point = '$fp';\n$sql", on_error_stop => 1);
	my ($point) = $fp =~ /^([^:]+)/;
	isnt($ret, 0, "$name: the statement failed");
	if ($fp =~ /:panic$/)
	{
		dyn_wait_ready($node, $offset);
		ok($node->log_contains(qr/PANIC:  learned_idx fault injected at "$point"/, $offset),
			"$name: the server log shows the PANIC");
	}
	else
	{
		like($err, qr/ERROR:  learned_idx fault injected at "$point"/, "$name: ERROR at $point");
	}
	return $err;
}

1;
