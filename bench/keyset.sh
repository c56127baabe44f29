#!/usr/bin/env bash
# bench/keyset.sh: keyset pagination on a two-column index, learned vs btree.
#
#   bash bench/keyset.sh [ROWS] [REPS]      (defaults: 100000 5)
#
# PostgreSQL turns a row comparison (a, b) > (x, y) into an index condition
# only for btree; on any other index it is a filter.  This script prints,
# for each of the three ways to write "the rows after (500, 50)":
#   row:    WHERE (a, b) > (500, 50)
#   or:     WHERE a > 500 OR (a = 500 AND b > 50)
#   bound:  WHERE a >= 500 AND (a > 500 OR b > 50)
# each with ORDER BY a, b LIMIT 3 and SELECT * (heap rows, not index-only),
# on a learned (a, b) index and on a btree (a, b) index of the same table:
# the plan's index condition and filter, the buffers, the rows the filter
# removed, and the median execution time of REPS runs (EXPLAIN ANALYZE).
# The table: ROWS rows, a = i / 100, b = i % 100 (so a = 500 holds 100 rows).
#
# Run as root or postgres on Debian 12 + PostgreSQL 15 with the extension
# installed.  Starts a throwaway cluster (port KEYSET_PORT, default 5516).
set -euo pipefail
ROWS="${1:-100000}"
REPS="${2:-5}"
. "$(dirname "$0")/../scripts/common.sh"
li_bench_pg   # PG_MAJOR (default 15): its build without assertions
li_throwaway_cluster keyset "${KEYSET_PORT:-5516}" "shared_buffers = 128MB" "autovacuum = off" \
	"max_parallel_workers_per_gather = 0" "jit = off"
P() { li_as_pg psql -qAtX -v ON_ERROR_STOP=1 postgres "$@"; }
P -c "CREATE EXTENSION learned_idx" >/dev/null
for am in learned btree; do
	P -c "CREATE TABLE ks_$am (a int4, b int4, pad text)" \
	  -c "INSERT INTO ks_$am SELECT i / 100, i % 100, md5(i::text) FROM generate_series(0, $ROWS - 1) i" \
	  -c "CREATE INDEX ks_${am}_ab ON ks_$am USING $am (a, b)" \
	  -c "VACUUM ANALYZE ks_$am" >/dev/null
done

declare -A WHERE=(
	[row]="(a, b) > (500, 50)"
	[or]="a > 500 OR (a = 500 AND b > 50)"
	[bound]="a >= 500 AND (a > 500 OR b > 50)"
)
printf '%-6s %-8s %-28s %-40s %8s %8s %10s %s\n' form index "index cond" filter buffers removed "median ms" rows
for form in row or bound; do
	for am in learned btree; do
		q="SELECT * FROM ks_$am WHERE ${WHERE[$form]} ORDER BY a, b LIMIT 3"
		rows=$(P -c "SELECT string_agg(a || ':' || b, ' ') FROM ($q) s")
		plan=$(P -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, FORMAT JSON) $q")
		times=()
		for ((r = 0; r < REPS; r++)); do
			times+=("$(P -c "EXPLAIN (ANALYZE, FORMAT JSON) $q" |
				python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Execution Time"])')")
		done
		median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
		python3 - "$form" "$am" "$median" "$rows" "$plan" <<'EOF'
import json, sys
form, am, median, rows, plan = sys.argv[1:6]
top = json.loads(plan)[0]["Plan"]
def scan(n):
    if "Index Name" in n or n["Node Type"].endswith("Scan"):
        return n
    for c in n.get("Plans", []):
        s = scan(c)
        if s:
            return s
s = scan(top)
cond = s.get("Index Cond", "-")
filt = s.get("Filter", "-")
bufs = top.get("Shared Hit Blocks", 0) + top.get("Shared Read Blocks", 0)
removed = s.get("Rows Removed by Filter", 0)
print(f"{form:<6} {am:<8} {cond:<28} {filt[:40]:<40} {bufs:>8} {removed:>8} {float(median):>10.3f} {rows}")
EOF
	done
done
