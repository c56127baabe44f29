#!/usr/bin/env bash
# bench/tpcc_long.sh: issue 30's target 9 at its length: go-tpc with every
# index learned (learned_all) against btree, W warehouses, 2 threads, S
# seconds a run, P pairs in rotating order (btree first, then learned_all
# first, ...), each run on a fresh copy of the loaded schema
# (bench/tpcc_profile.py's templates), on a throwaway cluster with
# bench/run.sh's settings (shared_buffers 2GB, fsync off, synchronous_commit
# off, full_page_writes off, autovacuum off, jit off; the server pinned to
# the last CPU, go-tpc on all of them).
#
#   flock /tmp/learned_idx_bench.lock bash bench/tpcc_long.sh \
#       [--wh W] [--secs S] [--pairs P] [--port PORT] [--out DIR]
#
# Defaults: 4 warehouses, 600 s, 3 pairs (the issue's setting: about 65
# minutes with the load).  Prints and writes report.md (tpmC of every run,
# learned_all / btree per pair, the indexes' total size at the end of each
# run and its ratio), results.csv, tpcc_long.png and each run's raw output
# (index sizes, learned_index_info of every learned index) into DIR.
# Needs bench/.tools/go-tpc (bench/run.sh builds it) and the bench venv's
# psycopg (bench/run.sh creates it); the extension installed.
set -euo pipefail
BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
. "$BENCH_DIR/../scripts/common.sh"
WH=4
SECS=600
PAIRS=3
PORT=55702
OUT=""
while [ $# -gt 0 ]; do
	case "$1" in
		--wh) WH="$2"; shift 2 ;;
		--secs) SECS="$2"; shift 2 ;;
		--pairs) PAIRS="$2"; shift 2 ;;
		--port) PORT="$2"; shift 2 ;;
		--out) OUT="$2"; shift 2 ;;
		*) li_die "unknown option $1 (see the header of $0)" ;;
	esac
done
GOTPC="${BENCH_TOOLS:-$BENCH_DIR/.tools}/go-tpc"
[ -x "$GOTPC" ] || li_die "no go-tpc at $GOTPC (bench/run.sh builds it)"
PY="$(li_bench_python)"
"$PY" -c "import psycopg" 2>/dev/null ||
	li_die "no Python with psycopg (bench/run.sh creates the bench venv)"
OUT="${OUT:-$BENCH_DIR/results/$(date +%Y-%m-%d_%H%M)_tpcc_long}"
mkdir -p "$OUT"

li_throwaway_cluster tpcclong "$PORT" "listen_addresses = '127.0.0.1'" "shared_buffers = 2GB" \
	"fsync = off" "synchronous_commit = off" "full_page_writes = off" "autovacuum = off" \
	"jit = off" "max_wal_size = 32GB" "checkpoint_timeout = 3600" "max_connections = 100"
# the server and every backend it forks on the last CPU, as bench/run.sh does
taskset -p -c "$(($(nproc) - 1))" "$(li_as_pg head -1 "$LI_THROWAWAY_DIR/data/postmaster.pid")" >/dev/null
export PGHOST=127.0.0.1 PGPORT="$PORT" PGUSER="$LI_PGUSER"
PROFILE=("$PY" "$BENCH_DIR/tpcc_profile.py" --port "$PORT" --wh "$WH" --gotpc "$GOTPC")
"${PROFILE[@]}" setup >"$OUT/setup.log" 2>&1 || { tail -n 20 "$OUT/setup.log" >&2; li_die "loading TPC-C failed"; }

CSV="$OUT/results.csv"
echo "pair,schema,tpmC,new_order_p99_ms,index_kB" >"$CSV"
for p in $(seq 1 "$PAIRS"); do
	if [ $((p % 2)) -eq 1 ]; then order="btree learned_all"; else order="learned_all btree"; fi
	for s in $order; do
		log="$OUT/run_${p}_$s.txt"
		"${PROFILE[@]}" run "$s" "$SECS" >"$log" 2>&1 || { cat "$log" >&2; li_die "the $s run failed"; }
		"$PY" - "$log" "$p" "$s" >>"$CSV" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"tpmC ([\d.]+), NEW_ORDER p99 ([\d.]+) ms", t)
if not m:
    sys.exit("no tpmC in " + sys.argv[1])
kb = sum(int(k) for k in re.findall(r"^  \S+\s+(\d+) kB$", t, flags=re.M))
print("%s,%s,%s,%s,%d" % (sys.argv[2], sys.argv[3], m.group(1), m.group(2), kb))
EOF
		tail -n 1 "$CSV"
	done
done

"$PY" - "$OUT" "$WH" "$SECS" "$PAIRS" "$LI_PG_MAJOR" <<'EOF'
import csv, os, statistics, sys
out, wh, secs, pairs, major = sys.argv[1:6]
rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
by = {(r["pair"], r["schema"]): r for r in rows}
lines = ["# TPC-C at length: learned_all against btree (PostgreSQL %s)" % major, "",
         "`bash bench/tpcc_long.sh --wh %s --secs %s --pairs %s`: go-tpc, %s warehouses, 2 threads, "
         "%s s a run, rotating order, each run on a fresh copy of the loaded schema." % (wh, secs, pairs, wh, secs), "",
         "| pair | btree tpmC | learned_all tpmC | tpmC ratio | btree indexes | learned_all indexes | space ratio |",
         "|---|---:|---:|---:|---:|---:|---:|"]
ratios, spaces = [], []
for p in sorted({r["pair"] for r in rows}, key=int):
    b, l = by[(p, "btree")], by[(p, "learned_all")]
    tr = float(l["tpmC"]) / float(b["tpmC"])
    sr = float(l["index_kB"]) / float(b["index_kB"])
    ratios.append(tr)
    spaces.append(sr)
    lines.append("| %s | %.0f | %.0f | %.2fx | %.1f MB | %.1f MB | %.2fx |" % (
        p, float(b["tpmC"]), float(l["tpmC"]), tr, int(b["index_kB"]) / 1024, int(l["index_kB"]) / 1024, sr))
lines += ["", "Median tpmC ratio %.2fx (target 9: at least 1.0x); space at the end of the runs %.2f-%.2fx btree's "
          "(target: at most 0.7x)." % (statistics.median(ratios), min(spaces), max(spaces)), "",
          "![tpmC and space](tpcc_long.png)"]
open(os.path.join(out, "report.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.5))
    xs = range(1, len(ratios) + 1)
    ax.bar([x - 0.2 for x in xs], ratios, 0.4, label="tpmC, learned_all / btree")
    ax.bar([x + 0.2 for x in xs], spaces, 0.4, label="index space, learned_all / btree")
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.axhline(0.7, color="gray", lw=0.8, ls="--")
    ax.set_xticks(list(xs))
    ax.set_xlabel("pair")
    ax.set_ylabel("ratio")
    ax.set_title("TPC-C, %s warehouses, %s s a run" % (wh, secs))
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tpcc_long.png"), dpi=100)
except ImportError:
    print("(no matplotlib: no plot)")
EOF
