#!/usr/bin/env bash
# bench/runs_probe.sh: point lookups while the pending list is held in
# sorted runs (run.c), against the same index after a full merge, and a
# btree on the same rows.
#
#   bash bench/runs_probe.sh [ROWS] [PENDING] [PROBES] [REPS]
#                            (defaults: 1000000 262144 200000 3)
#
# Run as root or postgres with the extension installed.  Starts a throwaway
# cluster (port RPROBE_PORT, default 5516), builds a learned index on ROWS
# int8 keys, appends PENDING random keys with merges held off (the inserts
# flush them into runs: learned_idx.tail_limit, TAIL_LIMIT or the GUC's
# default), then times a server-side probe loop (a nested loop of PROBES
# point lookups, half hits) REPS times: with the runs, then after
# learned_index_merge, then through a btree.  Prints milliseconds a loop and
# microseconds a probe.  RPROBE_LIB=FILE takes the extension's code from FILE
# (a learned_idx.so built elsewhere, e.g. of another commit) instead of the
# installed one, as bench/nestloop.sh's --lib.
set -euo pipefail
ROWS="${1:-1000000}"
PENDING="${2:-262144}"
PROBES="${3:-200000}"
REPS="${4:-3}"
. "$(dirname "$0")/../scripts/common.sh"
li_throwaway_cluster rprobe "${RPROBE_PORT:-5516}" "shared_buffers = 1GB" \
	"fsync = off" "autovacuum = off" "jit = off"
P() { li_as_pg psql -qAtX postgres "$@"; }
li_create_extension "$( [ -n "${RPROBE_LIB:-}" ] && realpath "$RPROBE_LIB" )"
P -c "CREATE EXTENSION pg_prewarm" >/dev/null
P -c "CREATE TABLE t AS SELECT (i * 10)::int8 AS k FROM generate_series(1, $ROWS) i ORDER BY random()" \
  -c "CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 1, pending_limit = 1000000)" \
  -c "VACUUM ANALYZE t" >/dev/null
TL=""
[ -n "${TAIL_LIMIT:-}" ] && TL="SET learned_idx.tail_limit = $TAIL_LIMIT;"
P -c "$TL INSERT INTO t SELECT (random() * $ROWS)::int8 * 10 + 1 FROM generate_series(1, $PENDING)" >/dev/null
P -c "CREATE TABLE tb AS SELECT * FROM t" -c "CREATE INDEX tb_k ON tb (k)" -c "VACUUM ANALYZE tb" \
  -c "CREATE TABLE probes AS SELECT ((random() * $ROWS)::int8 * 10 + (i % 2)) AS p FROM generate_series(1, $PROBES) i" \
  -c "ANALYZE probes" >/dev/null
loop() {
	local tab="$1" label="$2"
	P -c "SELECT pg_prewarm('t_k')" -c "SELECT pg_prewarm('tb_k')" >/dev/null
	for r in $(seq 1 "$REPS"); do
		P -c "SET enable_hashjoin = off" -c "SET enable_mergejoin = off" -c "SET enable_seqscan = off" \
		  -c "SET enable_bitmapscan = off" -c "SET enable_memoize = off" -c '\timing on' \
		  -c "SELECT count(*) FROM probes JOIN $tab ON $tab.k = probes.p" |
		awk -v l="$label" -v n="$PROBES" '/^Time:/ { printf "%-28s %10.1f ms  %6.3f us a probe\n", l, $2, $2 * 1000 / n }'
	done
}
echo "== $ROWS static, $(P -c "SELECT pending_entries FROM learned_index_info('t_k')") pending," \
	"$(P -c "SELECT count(*) FROM learned_index_runs('t_k') WHERE run IS NOT NULL") runs," \
	"tail $(P -c "SELECT entries FROM learned_index_runs('t_k') WHERE run IS NULL")"
loop t "learned, with runs"
P -c "SELECT learned_index_merge('t_k')" >/dev/null
loop t "learned, merged"
loop tb "btree"
