#!/usr/bin/env bash
# bench/insert_ceiling.sh: how much faster than btree any index can make a
# single-row INSERT on this machine.  Three tables with the same N rows
# (random heap order): no index, btree (k), learned (k); pgbench -M prepared
# -c 2 -j 2 inserts random keys between the existing ones (as the dynamic
# benchmark's insert-only workload), REPS rounds of the three in turn, each
# from the same state (inserted rows deleted, VACUUM, REINDEX, CHECKPOINT,
# prewarm).  The no-index tps over btree's bounds what an index that cost
# nothing could reach.  KEYS = append inserts keys past the largest from a
# sequence (one per table), as the append workload does.
#
#   bash bench/insert_ceiling.sh [ROWS] [SECONDS] [REPS] [KEYS]
#   (defaults: 1000000 12 3 random; KEYS is random or append)
#   CBENCH_CLIENTS sets pgbench's clients and threads (default 2)
#   CBENCH_BATCH rows per INSERT statement (default 1); tps is then statements
#   a second, and the rows a second are BATCH times as many
#
# Run as root or postgres on Debian 12 + PostgreSQL 15 with the extension
# installed (make install); throwaway cluster on port CBENCH_PORT (default 5516).
set -euo pipefail
ROWS="${1:-1000000}"
SECS="${2:-12}"
REPS="${3:-3}"
KEYS="${4:-random}"
CLIENTS="${CBENCH_CLIENTS:-2}"
BATCH="${CBENCH_BATCH:-1}"
case "$KEYS" in random|append) ;; *) echo "KEYS must be random or append" >&2; exit 2;; esac
. "$(dirname "$0")/../scripts/common.sh"
li_bench_pg   # PG_MAJOR (default 15): its build without assertions
li_throwaway_cluster cbench "${CBENCH_PORT:-5516}" "shared_buffers = 2GB" "fsync = off" \
	"synchronous_commit = off" "max_wal_size = 32GB" "checkpoint_timeout = 1h" "autovacuum = off" \
	"jit = off" "max_parallel_workers_per_gather = 0" "maintenance_work_mem = 1GB"
W="$LI_THROWAWAY_DIR"
P() { li_as_pg psql -qAtX -v ON_ERROR_STOP=1 postgres "$@"; }
P -c "CREATE EXTENSION learned_idx" -c "CREATE EXTENSION pg_prewarm" >/dev/null
for s in none btree learned; do
	P -c "CREATE TABLE d_$s (k int8 NOT NULL, v int8 NOT NULL) WITH (autovacuum_enabled = false)" \
	  -c "INSERT INTO d_$s SELECT 10 * i, i FROM generate_series(1, $ROWS) i ORDER BY hashint8(i)" >/dev/null
	[ "$s" != none ] && P -c "CREATE INDEX ON d_$s USING $s (k)" >/dev/null
	P -c "VACUUM FREEZE d_$s" >/dev/null
	[ "$KEYS" = append ] && P -c "CREATE SEQUENCE s_$s START $((10 * ROWS + 10))" >/dev/null
	if [ "$BATCH" -gt 1 ] && [ "$KEYS" = random ]; then
		printf 'INSERT INTO d_%s (k, v) SELECT 10 * (1 + (random() * %d)::int8) + 1 + g %% 9, -1 FROM generate_series(1, %d) g;\n' \
			"$s" "$((ROWS - 1))" "$BATCH"
	elif [ "$BATCH" -gt 1 ]; then
		printf 'INSERT INTO d_%s (k, v) SELECT nextval(%s), -1 FROM generate_series(1, %d);\n' "$s" "'s_$s'" "$BATCH"
	elif [ "$KEYS" = random ]; then
		printf '\\set k 10 * random(1, %d) + random(1, 9)\nINSERT INTO d_%s (k, v) VALUES (:k, -1);\n' \
			"$ROWS" "$s"
	else
		printf 'INSERT INTO d_%s (k, v) VALUES (nextval(%s), -1);\n' "$s" "'s_$s'"
	fi | li_as_pg tee "$W/ins_$s.sql" >/dev/null
done
declare -A TPS
for r in $(seq 1 "$REPS"); do
	for s in none btree learned; do
		P -c "DELETE FROM d_$s WHERE v < 0" -c "VACUUM d_$s" >/dev/null
		[ "$s" != none ] && P -c "REINDEX TABLE d_$s" >/dev/null
		P -c "CHECKPOINT" -c "SELECT pg_prewarm(c.oid) FROM pg_class c WHERE c.oid = 'd_$s'::regclass
		     OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'd_$s'::regclass)" >/dev/null
		w0=$(P -c "SELECT pg_current_wal_lsn()")
		out=$(li_as_pg "$LI_PGBIN/pgbench" -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" -f "$W/ins_$s.sql" postgres 2>&1) ||
			{ echo "$out" | tail -n 5 >&2; li_die "pgbench on d_$s failed"; }
		tps=$(echo "$out" | awk '/^tps/ {printf "%.0f", $3}')
		wal=$(P -c "SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$w0') / greatest(1, (SELECT count(*) FROM d_$s WHERE v < 0)))")
		echo "round $r: $s tps $tps, WAL $wal B/row"
		TPS[$s]="${TPS[$s]:-} $tps"
	done
done
med() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
mn=$(echo "${TPS[none]}" | med); mb=$(echo "${TPS[btree]}" | med); ml=$(echo "${TPS[learned]}" | med)
echo "keys $KEYS, $ROWS rows, $BATCH rows per INSERT; median tps: none $mn, btree $mb, learned $ml"
awk -v n="$mn" -v b="$mb" -v l="$ml" 'BEGIN {printf "ceiling (no index / btree) %.3f, learned / btree %.3f\n", n / b, l / b}'
