#!/usr/bin/env bash
# bench/queue.sh: a queue read from its head, as TPC-C's Delivery reads
# new_order: each transaction deletes the oldest row of a random district
# (the first entry of (d, o) that is still alive) and appends a new one.
# The readers walk over the entries of the rows deleted before, until
# VACUUM: btree marks them LP_DEAD as it finds them (kill_prior_tuple), the
# learned index sets its hint bits (learned.h, LEARNED_LEAF_HINTS); an index
# without either visits every dead heap tuple again on each read.
#
# Two tables with the same rows, (d int4, o int8, pad) with an index on
# (d, o), one btree and one learned; pgbench -M prepared -c 2 -j 2 runs the
# same script on each in turn, REPS rounds, each from the same state
# (rebuilt, VACUUMed, CHECKPOINTed).  Autovacuum is off, so the dead
# entries pile up for the whole run, as in the TPC-C runs of bench/run.sh.
#
#   bash bench/queue.sh [ROWS_PER_DISTRICT] [SECONDS] [REPS] [DISTRICTS]
#   (defaults: 30000 30 2 10)
#
# Prints tps per run, the median of each and their ratio, and each index's
# size and learned_index_info's hinted_entries after its last run.
# Run as root or postgres on Debian 12 + PostgreSQL 15 with the extension
# installed (make install); throwaway cluster on port QBENCH_PORT (default 5517).
set -euo pipefail
ROWS="${1:-30000}"
SECS="${2:-30}"
REPS="${3:-2}"
DIST="${4:-10}"
. "$(dirname "$0")/../scripts/common.sh"
li_bench_pg   # PG_MAJOR (default 15): its build without assertions
li_throwaway_cluster qbench "${QBENCH_PORT:-5517}" "shared_buffers = 1GB" "fsync = off" \
	"synchronous_commit = off" "max_wal_size = 32GB" "checkpoint_timeout = 1h" "autovacuum = off" \
	"jit = off" "max_parallel_workers_per_gather = 0"
W="$LI_THROWAWAY_DIR"
P() { li_as_pg psql -qAtX -v ON_ERROR_STOP=1 postgres "$@"; }
P -c "CREATE EXTENSION learned_idx" >/dev/null
for s in btree learned; do
	P -c "CREATE TABLE q_$s (d int4 NOT NULL, o int8 NOT NULL, pad text)" \
	  -c "CREATE SEQUENCE s_$s" >/dev/null
	printf '\\set d random(1, %d)\nBEGIN;\nDELETE FROM q_%s WHERE d = :d AND o = (SELECT o FROM q_%s WHERE d = :d ORDER BY o LIMIT 1);\nINSERT INTO q_%s VALUES (:d, %d + nextval(%s), repeat(%s, 40));\nCOMMIT;\n' \
		"$DIST" "$s" "$s" "$s" "$ROWS" "'s_$s'" "'x'" | li_as_pg tee "$W/q_$s.sql" >/dev/null
done
declare -A TPS
for r in $(seq 1 "$REPS"); do
	for s in btree learned; do
		P -c "DROP INDEX IF EXISTS q_${s}_do" -c "TRUNCATE q_$s" -c "ALTER SEQUENCE s_$s RESTART" \
		  -c "INSERT INTO q_$s SELECT d, o, repeat('x', 40) FROM generate_series(1, $DIST) d, generate_series(1, $ROWS) o" \
		  -c "CREATE INDEX q_${s}_do ON q_$s USING $s (d, o)" -c "VACUUM ANALYZE q_$s" -c "CHECKPOINT" >/dev/null
		tps=$(li_as_pg "$LI_PGBIN/pgbench" -n -M prepared -c 2 -j 2 -T "$SECS" -f "$W/q_$s.sql" postgres 2>&1 |
			awk '/^tps/ {printf "%.0f", $3}')
		echo "round $r: $s tps $tps"
		TPS[$s]="${TPS[$s]:-} $tps"
	done
done
med() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
mb=$(echo "${TPS[btree]}" | med); ml=$(echo "${TPS[learned]}" | med)
echo "queue of $DIST x $ROWS rows, ${SECS} s runs; median tps: btree $mb, learned $ml"
awk -v b="$mb" -v l="$ml" 'BEGIN {printf "learned / btree %.3f\n", l / b}'
# (to_jsonb: a build from before hinted_entries existed prints "none")
P -c "SELECT 'btree ' || pg_relation_size('q_btree_do') || ' bytes; learned ' || pg_relation_size('q_learned_do') ||
	' bytes, hinted_entries ' || coalesce(to_jsonb(i) ->> 'hinted_entries', 'none') ||
	', pending_entries ' || pending_entries FROM learned_index_info('q_learned_do') i"
