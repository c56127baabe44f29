#!/usr/bin/env bash
# bench/fresh_scans.sh: OLTP statements on a TPC-C-shaped composite key,
# each one a fresh index scan (its own beginscan, positioning, endscan), with
# the learned index's pending entries held in sorted runs, as a TPC-C run
# leaves them, against a btree on the same rows.
#
#   bash bench/fresh_scans.sh [WAREHOUSES] [NEW_ORDERS] [SECS] [REPS]
#                             (defaults: 4 30000 10 3)
#
# order_line (w, d, o, n): WAREHOUSES x 10 districts x 3000 orders x 10
# lines, indexed by learned (merges held off: merge_ratio 1, a large
# pending_limit) and, in a copy, by btree; then NEW_ORDERS more orders of 10
# lines in 10-row INSERTs (the pending list's flushes turn them into runs).
# Three statements, each a pgbench script run with -M prepared by one
# client for SECS seconds, on learned then btree, REPS times:
#   point   one line: every key column equal;
#   order   one order's 10 lines (w, d, o equal), as order-status and
#           delivery read them;
#   stock   the 20 orders before a random one (w, d equal, o in a range),
#           about 200 lines, as stock-level reads them.
# Prints tps for each and learned / btree (medians); FSCAN_STATEMENTS="order"
# runs only the statements it names.  Run as root or as
# the server user with the extension installed; a throwaway cluster on
# FSCAN_PORT (default 5517).  FSCAN_LIB=FILE takes the extension's code from
# FILE (a learned_idx.so built elsewhere, e.g. of another commit) instead of
# the installed one, as bench/runs_probe.sh's RPROBE_LIB.
set -euo pipefail
WH="${1:-4}"
NEWO="${2:-30000}"
SECS="${3:-10}"
REPS="${4:-3}"
. "$(dirname "$0")/../scripts/common.sh"
li_throwaway_cluster fscan "${FSCAN_PORT:-5517}" "shared_buffers = 1GB" \
	"fsync = off" "synchronous_commit = off" "autovacuum = off" "jit = off" \
	"max_parallel_workers_per_gather = 0"
P() { li_as_pg psql -qAtX -v ON_ERROR_STOP=1 postgres "$@"; }
li_create_extension "$( [ -n "${FSCAN_LIB:-}" ] && realpath "$FSCAN_LIB" )"
P -c "CREATE EXTENSION pg_prewarm" >/dev/null
ORDERS=3000
P -c "CREATE TABLE ol (w int, d int, o int, n int, amount numeric)" \
  -c "INSERT INTO ol SELECT w, d, o, n, n FROM generate_series(1, $WH) w, generate_series(1, 10) d,
        generate_series(1, $ORDERS) o, generate_series(1, 10) n" \
  -c "CREATE INDEX ol_l ON ol USING learned (w, d, o, n) WITH (merge_ratio = 1, pending_limit = 2000000)" \
  -c "CREATE TABLE olb (LIKE ol)" -c "INSERT INTO olb SELECT * FROM ol" \
  -c "CREATE INDEX ol_b ON olb (w, d, o, n)" >/dev/null
# the new orders: each district's next orders, round robin, 10 lines a statement
P -c "CREATE TABLE neworders AS SELECT i, 1 + (i % $WH) AS w, 1 + (i / $WH) % 10 AS d,
        $ORDERS + 1 + i / ($WH * 10) AS o FROM generate_series(0, $NEWO - 1) i" >/dev/null
P -c "DO \$\$ DECLARE r record; BEGIN
        FOR r IN SELECT * FROM neworders ORDER BY i LOOP
          INSERT INTO ol SELECT r.w, r.d, r.o, n, n FROM generate_series(1, 10) n;
          INSERT INTO olb SELECT r.w, r.d, r.o, n, n FROM generate_series(1, 10) n;
        END LOOP; END \$\$" >/dev/null
P -c "ANALYZE ol" -c "ANALYZE olb" -c "SELECT pg_prewarm('ol')" -c "SELECT pg_prewarm('olb')" \
  -c "SELECT pg_prewarm('ol_l')" -c "SELECT pg_prewarm('ol_b')" >/dev/null
MAXO=$((ORDERS + NEWO / (WH * 10)))
echo "== order_line: $WH warehouses, $(P -c "SELECT count(*) FROM ol") rows;" \
	"learned: $(P -c "SELECT pending_entries FROM learned_index_info('ol_l')") pending," \
	"$(P -c "SELECT count(*) FROM learned_index_runs('ol_l') WHERE run IS NOT NULL") runs," \
	"tail $(P -c "SELECT entries FROM learned_index_runs('ol_l') WHERE run IS NULL");" \
	"$(P -c "SELECT pg_relation_size('ol_l') / 8192") pages, btree $(P -c "SELECT pg_relation_size('ol_b') / 8192")"
D="$LI_THROWAWAY_DIR"
for t in ol olb; do
	cat > "$D/point_$t.sql" <<EOF
\set w random(1, $WH)
\set d random(1, 10)
\set o random(1, $MAXO)
\set n random(1, 10)
SELECT amount FROM $t WHERE w = :w AND d = :d AND o = :o AND n = :n;
EOF
	cat > "$D/order_$t.sql" <<EOF
\set w random(1, $WH)
\set d random(1, 10)
\set o random(1, $MAXO)
SELECT sum(amount) FROM $t WHERE w = :w AND d = :d AND o = :o;
EOF
	cat > "$D/stock_$t.sql" <<EOF
\set w random(1, $WH)
\set d random(1, 10)
\set o random(21, $MAXO)
SELECT count(DISTINCT n) FROM $t WHERE w = :w AND d = :d AND o >= :o - 20 AND o < :o;
EOF
done
chmod 644 "$D"/*.sql
tps() {
	li_as_pg pgbench -n -M prepared -c 1 -T "$SECS" -f "$1" postgres 2>/dev/null |
		awk '/^tps/ { printf "%.0f", $3 }'
}
# the plans: an index scan of each index (no seqscan, no bitmap)
for t in ol olb; do
	plan=$(P -c "SET enable_bitmapscan = off" -c "EXPLAIN (COSTS OFF) SELECT sum(amount) FROM $t WHERE w = 1 AND d = 1 AND o = 5" | tr '\n' ' ')
	case "$plan" in *"Index Scan"*) ;; *) li_die "no index scan on $t: $plan" ;; esac
done
P -c "ALTER SYSTEM SET enable_bitmapscan = off" -c "SELECT pg_reload_conf()" >/dev/null
printf '%-8s %-28s %-28s %s\n' statement "learned tps (each rep)" "btree tps (each rep)" "learned / btree (medians)"
for s in ${FSCAN_STATEMENTS:-point order stock}; do
	l=(); b=()
	for r in $(seq 1 "$REPS"); do
		l+=("$(tps "$D/${s}_ol.sql")")
		b+=("$(tps "$D/${s}_olb.sql")")
	done
	ml=$(printf '%s\n' "${l[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	mb=$(printf '%s\n' "${b[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	printf '%-8s %-28s %-28s %s\n' "$s" "${l[*]}" "${b[*]}" "$(awk -v a="$ml" -v b="$mb" 'BEGIN { printf "%.3f", a / b }')"
done
echo "== check: $(P -c "SELECT learned_index_check('ol_l', true)")," \
	"$(P -c "SELECT (SELECT count(*) FROM ol WHERE w = 1 AND d = 2 AND o BETWEEN 100 AND $MAXO) =
	               (SELECT count(*) FROM olb WHERE w = 1 AND d = 2 AND o BETWEEN 100 AND $MAXO)") (learned = btree)"
