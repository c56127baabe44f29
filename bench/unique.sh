#!/usr/bin/env bash
# bench/unique.sh: unique insert throughput, learned vs btree.
#
#   bash bench/unique.sh [N] [SECONDS] [REPS]      (defaults: 1000000 20 2)
#
# UBENCH_OUT=DIR: write results.csv (every run), report.md (the medians and
# ratios, the command, the library's build) and unique.png there (default
# bench/results/<date>_unique).
# Run as root or postgres on Debian 12 + PostgreSQL 15 with the extension
# installed (make install).  Starts a throwaway cluster (port UBENCH_PORT,
# default 5512, in a temp dir), loads N rows k = 10*i (heap in random order)
# into one table per index kind:
#   learned_unique   CREATE UNIQUE INDEX ... USING learned (k)
#   learned_plain    CREATE INDEX ... USING learned (k)      (cost of the check)
#   btree_unique     CREATE UNIQUE INDEX ... USING btree (k)
# then, for random keys (new keys between existing ones, never colliding:
# 10*perm(n) + 1 + n/N % 9 over a sequence n) and append keys (above every
# existing key), runs pgbench -n -M prepared -c 2 -j 2 -T SECONDS with
# synchronous_commit=off, REPS times per kind (kinds alternate), and prints
# the median TPS.  Each run starts from the N-row table with a fresh index;
# after each run the uniqueness of k and learned_index_check are verified.
# Learned indexes keep their default reloptions: merges run during the runs.
set -euo pipefail
N="${1:-1000000}"
DUR="${2:-20}"
REPS="${3:-2}"
PORT="${UBENCH_PORT:-5512}"
. "$(dirname "$0")/../scripts/common.sh"
OUT="${UBENCH_OUT:-$(cd "$(dirname "$0")" && pwd)/results/$(date +%Y-%m-%d_%H%M)_unique}"
mkdir -p "$OUT"
CSV="$OUT/results.csv"
echo "keys,rep,kind,tps,failed,duplicate_keys,check,generation" >"$CSV"
li_bench_pg   # PG_MAJOR (default 15): its build without assertions
PGBIN="$LI_PGBIN"
W="$(mktemp -d /tmp/ubench.XXXXXX)"
asuser() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" -eq 0 ] && chown postgres "$W"
cleanup() { asuser "$PGBIN/pg_ctl" -D "$W/db" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$W"; }
trap cleanup EXIT
asuser "$PGBIN/initdb" -D "$W/db" -A trust >/dev/null
cat >> "$W/db/postgresql.conf" <<CONF
port = $PORT
listen_addresses = ''
unix_socket_directories = '$W'
shared_buffers = 1GB
fsync = off
full_page_writes = off
synchronous_commit = off
autovacuum = off
checkpoint_timeout = 3600
max_wal_size = 32GB
max_worker_processes = 8
jit = off
CONF
asuser "$PGBIN/pg_ctl" -D "$W/db" -l "$W/log" -w start >/dev/null
PSQL=("$PGBIN/psql" -h "$W" -p "$PORT" -U postgres -X -q -v ON_ERROR_STOP=1 -At)
sql() { asuser "${PSQL[@]}" -c "$1"; }

sql "CREATE EXTENSION learned_idx"
sql "CREATE TABLE src AS SELECT i * 10 AS k, i AS v FROM generate_series(1, $N) i ORDER BY random()"
KINDS=(learned_unique btree_unique learned_plain)
for kind in "${KINDS[@]}"; do
    sql "CREATE TABLE t_$kind (k int8, v int8); INSERT INTO t_$kind SELECT * FROM src"
done
sql "CREATE SEQUENCE s"; sql "VACUUM ANALYZE"

create_index() {
    case "$1" in
        learned_unique) sql "CREATE UNIQUE INDEX t_${1}_k ON t_$1 USING learned (k)";;
        learned_plain)  sql "CREATE INDEX t_${1}_k ON t_$1 USING learned (k)";;
        btree_unique)   sql "CREATE UNIQUE INDEX t_${1}_k ON t_$1 USING btree (k)";;
    esac
}

# pgbench scripts: the same statements for every kind (the table name differs)
script() {   # script KIND KEYS
    local f="$W/$1_$2.sql"
    if [ "$2" = random ]; then
        echo "INSERT INTO t_$1 SELECT 10 * ((n * 2654435761) % $N + 1) + 1 + (n / $N) % 9, n FROM (SELECT nextval('s') AS n) x;" > "$f"
    else
        echo "INSERT INTO t_$1 SELECT 10 * $N + 10 + n, n FROM (SELECT nextval('s') AS n) x;" > "$f"
    fi
    echo "$f"
}

declare -A TPS
for keys in random append; do
    for rep in $(seq 1 "$REPS"); do
        for kind in "${KINDS[@]}"; do
            sql "DROP INDEX IF EXISTS t_${kind}_k; DELETE FROM t_$kind WHERE v < 0 OR k % 10 <> 0 OR k > 10 * $N"
            sql "VACUUM t_$kind"
            create_index "$kind"
            sql "SELECT setval('s', 1, false)" >/dev/null; sql "CHECKPOINT"
            f="$(script "$kind" "$keys")"
            [ "$(id -u)" -eq 0 ] && chown postgres "$f"
            out="$(asuser "$PGBIN/pgbench" -h "$W" -p "$PORT" -U postgres -n -M prepared -c 2 -j 2 -T "$DUR" -f "$f" postgres 2>&1)"
            tps="$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p')"
            fails="$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')"
            dups="$(sql "SELECT count(*) FROM (SELECT k FROM t_$kind GROUP BY k HAVING count(*) > 1) d")"
            chk=""
            [ "$kind" != btree_unique ] && chk="$(sql "SELECT learned_index_check('t_${kind}_k', true)")"
            gen=""
            [ "$kind" != btree_unique ] && gen="$(sql "SELECT generation FROM learned_index_info('t_${kind}_k')")"
            printf '%-7s rep %d %-15s tps %10s  failed %s  duplicate keys %s  check %s  generation %s\n' \
                "$keys" "$rep" "$kind" "$tps" "${fails:-?}" "$dups" "${chk:--}" "${gen:--}"
            echo "$keys,$rep,$kind,$tps,${fails:-},$dups,${chk:-},${gen:-}" >>"$CSV"
            TPS[$keys,$kind]="${TPS[$keys,$kind]:-} $tps"
        done
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }
echo
echo "N = $N rows, pgbench -c 2 -j 2 -T $DUR, $REPS reps, median tps:"
printf '%-8s %16s %16s %16s %22s\n' keys learned_unique btree_unique learned_plain "learned_u/btree_u"
for keys in random append; do
    lu="$(echo "${TPS[$keys,learned_unique]}" | median)"
    bu="$(echo "${TPS[$keys,btree_unique]}" | median)"
    lp="$(echo "${TPS[$keys,learned_plain]}" | median)"
    printf '%-8s %16s %16s %16s %22s\n' "$keys" "$lu" "$bu" "$lp" "$(awk -v a="$lu" -v b="$bu" 'BEGIN {printf "%.3f", a / b}')"
done

LIB="$("$PG_CONFIG" --pkglibdir)/learned_idx.so"
"$(li_bench_python)" - "$OUT" "$N" "$DUR" "$REPS" "$LI_PG_MAJOR" "$(sha1sum "$LIB" | cut -c1-12)" <<'PYEOF'
import csv, os, statistics, sys
out, n, dur, reps, major, libsum = sys.argv[1:7]
rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
med = {}
for keys in ("random", "append"):
    for kind in ("learned_unique", "btree_unique", "learned_plain"):
        v = [float(r["tps"]) for r in rows if r["keys"] == keys and r["kind"] == kind and r["tps"]]
        med[keys, kind] = statistics.median(v) if v else float("nan")
bad = [r for r in rows if r["duplicate_keys"] not in ("0", "") or r["check"] not in ("t", "") or r["failed"] not in ("0", "")]
lines = ["# Unique insert throughput: learned vs btree (PostgreSQL %s)" % major, "",
         "`bash bench/unique.sh %s %s %s`: N rows `k = 10*i`, pgbench `-n -M prepared -c 2 -j 2 -T %s`, "
         "single-row INSERTs, synchronous_commit=off; learned_idx.so sha1 %s." % (n, dur, reps, dur, libsum), "",
         "Median tps of %s runs; higher is better:" % reps, "",
         "| keys | learned unique | btree unique | learned non-unique | learned unique / btree unique | unique check cost (learned unique / non-unique) |",
         "|---|---:|---:|---:|---:|---:|"]
for keys in ("random", "append"):
    lu, bu, lp = med[keys, "learned_unique"], med[keys, "btree_unique"], med[keys, "learned_plain"]
    lines.append("| %s | %.0f | %.0f | %.0f | %.3f | %.3f |" % (keys, lu, bu, lp, lu / bu, lu / lp))
lines += ["", "Every run: 0 failed transactions, 0 duplicate keys, learned_index_check true." if not bad
          else "**Runs with failures, duplicates or a failed check: %d** (results.csv)." % len(bad),
          "", "![tps](unique.png)", ""]
open(os.path.join(out, "report.md"), "w").write("\n".join(lines))
print("\n".join(lines))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    kinds = ("learned_unique", "btree_unique", "learned_plain")
    w = 0.25
    for i, kind in enumerate(kinds):
        ax.bar([x + i * w for x in range(2)], [med[k, kind] for k in ("random", "append")], w, label=kind)
    ax.set_xticks([x + w for x in range(2)])
    ax.set_xticklabels(["random keys", "append keys"])
    ax.set_ylabel("tps (median)")
    ax.set_title("Single-row INSERTs, 2 clients")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "unique.png"), dpi=110)
except ImportError:
    print("(matplotlib missing: no plot)")
PYEOF
