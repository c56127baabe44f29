#!/usr/bin/env bash
# bench/nestloop.sh: index nested-loop joins, learned vs btree, outer keys in
# key order (the monotone probes of issue 31) and, for reference, in random
# order.
#
#   bash bench/nestloop.sh [--rows N] [--probes P] [--reps R] [--port P] [--out DIR]
#                          [--label TEXT] [--heap-order random|sorted] [--lib FILE]
#
#   --rows N     rows of the inner table (default 1000000; 10000000 for the 10M run)
#   --probes P   outer keys per join (default 100000)
#   --reps R     timed runs per join and side, the median reported (default 5)
#   --port P     the throwaway cluster's port (default 5520)
#   --out DIR    result directory (default bench/results/<YYYY-MM-DD_HHMM>_nestloop)
#   --label T    a word for the report's title (e.g. the branch measured)
#   --heap-order O  random (default) or sorted: the tables' rows in random
#                order or in key order (then a probe's heap page is usually
#                the last one's, and the index's share of a probe is larger)
#   --lib FILE   take the extension's code from FILE (a learned_idx.so built
#                elsewhere, e.g. of another commit) instead of the installed
#                one: the objects come from this tree's sql/learned_idx--0.1.sql,
#                their functions point at FILE.  Other branches' `make install`
#                then cannot change what is measured.
#
# Run as root (or postgres) on Debian 12 + PostgreSQL 15 (PG_MAJOR=18: the
# bench build of 18, and --lib built against it) with the extension
# installed (make install) or --lib, under the bench lock:
#   flock /tmp/learned_idx_bench.lock bash bench/nestloop.sh
#
# Data: k int8 = cumulative sum of gaps 2..17 (hashint8 of the row number;
# every gap is at least 2, so k + 1 is never a key), v = row number, rows in
# random heap order (or key order; the same order in every table).  Three identical tables:
# t_l with a learned index, t_b and t_b2 with a btree each; t_b2 is the A/A
# side (btree against btree), whose ratio is the run's noise.  Outer tables
# (one column k, read by a sequential scan in the order they were written):
#   sorted_hit   P distinct existing keys, ascending
#   sorted_half  P/2 existing and P/2 absent keys (an existing key + 1), ascending
#   sorted_desc  sorted_hit descending
#   random_hit   sorted_hit in random order (no monotone reuse possible)
# Each join is SELECT count(*), sum(t.v) FROM outer o JOIN t ON t.k = o.k
# with hash and merge joins, memoize, materialize and bitmap scans off:
# Nested Loop -> Seq Scan (outer), Index Scan (inner), checked with EXPLAIN.
# Index builds, checks and timed runs go through one backend (psql reading
# a generated script), which loads the extension's library once.  Timed
# runs interleave the three sides (order rotating each repetition), each
# timed by psql (wall) and by the backend's CPU time (/proc/self/schedstat,
# less disturbed by other processes on a shared machine); every side's
# (count, sum) must equal the hash join's.  Writes report.md (ratios
# learned / btree of the median times, A/A btree2 / btree beside them),
# results.csv, session.out and nestloop.png into the result directory.
set -euo pipefail
ROWS=1000000
PROBES=100000
REPS=5
PORT=5520
OUT=""
LABEL=""
LIB=""
HEAP=random
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS="$2"; shift ;;
		--probes) PROBES="$2"; shift ;;
		--reps) REPS="$2"; shift ;;
		--port) PORT="$2"; shift ;;
		--out) OUT="$2"; shift ;;
		--label) LABEL="$2"; shift ;;
		--heap-order) HEAP="$2"; shift ;;
		--lib) LIB="$(realpath "$2")"; shift ;;
		-h|--help) sed -n '2,35p' "$0"; exit 0 ;;
		*) echo "nestloop.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$BENCH_DIR/../scripts/common.sh"
li_bench_pg   # PG_MAJOR (default 15): its build without assertions
[ -n "$OUT" ] || OUT="$BENCH_DIR/results/$(date +%Y-%m-%d_%H%M)_nestloop"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
HEAD="$(git -C "$BENCH_DIR/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"

li_throwaway_cluster nestloop "$PORT" "shared_buffers = 2GB" "fsync = off" \
	"synchronous_commit = off" "maintenance_work_mem = 1GB" "work_mem = 256MB" \
	"autovacuum = off" "max_parallel_maintenance_workers = 0" \
	"max_parallel_workers_per_gather = 0" "jit = off" "max_wal_size = 32GB" \
	"checkpoint_timeout = 1h"
P() { li_as_pg psql -qAtX -v ON_ERROR_STOP=1 postgres "$@"; }
log() { echo "[nestloop $(date +%H:%M:%S)] $*" >&2; }

log "loading $ROWS rows x 3 tables, $PROBES outer keys"
li_create_extension "$LIB"
SOFILE="$LI_SOFILE"
P -c "CREATE EXTENSION pg_prewarm" >/dev/null
P -c "CREATE TABLE src AS SELECT i, sum(2 + (hashint8(i) & 15)) OVER (ORDER BY i)::int8 AS k
        FROM generate_series(1, $ROWS) i" >/dev/null
for t in t_l t_b t_b2; do
	P -c "CREATE TABLE $t (k int8 NOT NULL, v int8) WITH (autovacuum_enabled = false)" \
	  -c "INSERT INTO $t SELECT k, i FROM src ORDER BY $([ "$HEAP" = sorted ] && echo i || echo 'hashint8(i + 7)')" >/dev/null
done
# P distinct rows of src, by a hash order
P -c "CREATE TABLE pick AS SELECT i, k FROM src ORDER BY hashint8(i * 31 + 5) LIMIT $PROBES" \
  -c "CREATE TABLE sorted_hit (k int8)" -c "INSERT INTO sorted_hit SELECT k FROM pick ORDER BY k" \
  -c "CREATE TABLE sorted_half (k int8)" \
  -c "INSERT INTO sorted_half SELECT CASE WHEN i % 2 = 0 THEN k ELSE k + 1 END FROM pick ORDER BY k" \
  -c "CREATE TABLE sorted_desc (k int8)" -c "INSERT INTO sorted_desc SELECT k FROM pick ORDER BY k DESC" \
  -c "CREATE TABLE random_hit (k int8)" -c "INSERT INTO random_hit SELECT k FROM pick ORDER BY hashint8(k)" \
  -c "DROP TABLE src, pick" >/dev/null
# Everything that runs the extension's code runs in ONE backend (psql reading
# a generated script): the library is loaded once, so a concurrent `make
# install` by another branch cannot swap it in the middle of the run.
WORKLOADS="sorted_hit sorted_half sorted_desc random_hit"
SIDES="t_l t_b t_b2"
q() { echo "SELECT count(*), sum(t.v) FROM $1 o JOIN $2 t ON t.k = o.k;"; }
SQL="$LI_THROWAWAY_DIR/session.sql"
{
	echo "SELECT md5(pg_read_binary_file('$SOFILE')) AS so_md5 \\gset"
	echo "LOAD '$SOFILE';"
	echo "\\echo @@ so :so_md5"
	echo "CREATE INDEX t_l_k ON t_l USING learned (k);"
	echo "CREATE INDEX t_b_k ON t_b (k);"
	echo "CREATE INDEX t_b2_k ON t_b2 (k);"
	echo "VACUUM (FREEZE, ANALYZE);"
	echo "CHECKPOINT;"
	echo "\\echo @@ sizes"
	echo "SELECT pg_relation_size('t_l_k') || ' ' || pg_relation_size('t_b_k');"
	for t in t_l t_b t_b2 sorted_hit sorted_half sorted_desc random_hit t_l_k t_b_k t_b2_k; do
		echo "SELECT pg_prewarm('$t') \\g /dev/null"
	done
	echo "SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off;"
	echo "SET enable_material = off; SET enable_bitmapscan = off;"
	for w in $WORKLOADS; do
		echo "SET enable_nestloop = off; SET enable_hashjoin = on;"
		echo "\\echo @@ want $w"
		q "$w" t_b
		echo "SET enable_nestloop = on; SET enable_hashjoin = off;"
		for s in $SIDES; do
			echo "\\echo @@ plan $w $s"
			echo "EXPLAIN (COSTS OFF) $(q "$w" "$s")" | tr -d ';'
			echo ";"
			echo "\\echo @@ got $w $s"
			q "$w" "$s"
		done
	done
	echo "\\timing on"
	for w in $WORKLOADS; do
		for s in $SIDES; do q "$w" "$s" | sed 's/;$/ \\g \/dev\/null/'; done	# warm-up
		for rep in $(seq 1 "$REPS"); do
			case $((rep % 3)) in
				0) order="t_l t_b t_b2" ;;
				1) order="t_b t_b2 t_l" ;;
				2) order="t_b2 t_l t_b" ;;
			esac
			for s in $order; do
				echo "SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::int8 AS c0 \\gset"
				echo "\\echo @@ time $w $s $rep"
				q "$w" "$s" | sed 's/;$/ \\g \/dev\/null/'
				echo "\\echo @@ cpu"
				echo "SELECT (split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::int8 - :c0) / 1e6;"
			done
		done
	done
} > "$SQL"
chmod 644 "$SQL"
log "building indexes, checking answers and plans, timing (one session)"
P -f "$SQL" > "$OUT/session.out"

PY="$(li_bench_python)"
"$PY" - "$OUT" "$ROWS" "$PROBES" "$REPS" "$HEAD" "$LABEL" "$HEAP" "$LI_PG_MAJOR" <<'EOF'
import csv, os, re, statistics, sys
out, rows, probes, reps, head, label, heap, major = sys.argv[1:9]
sides = ["t_l", "t_b", "t_b2"]
lines = open(os.path.join(out, "session.out")).read().split("\n")
want, got, plans, t, c, so_md5, order = {}, {}, {}, {}, {}, "?", []
i = 0
while i < len(lines):
    f = lines[i].split()
    if not f or f[0] != "@@":
        i += 1
        continue
    body = []
    j = i + 1
    while j < len(lines) and not lines[j].startswith("@@"):
        body.append(lines[j])
        j += 1
    if f[1] == "so":
        so_md5 = f[2]
    elif f[1] == "sizes":
        lsize, bsize = (int(x) for x in body[0].split())
    elif f[1] == "want":
        want[f[2]] = body[0]
    elif f[1] == "got":
        got[(f[2], f[3])] = body[0]
    elif f[1] == "plan":
        plans[(f[2], f[3])] = " ".join(x.strip() for x in body)
    elif f[1] == "time":
        ms = next(float(x.split()[1]) for x in body if x.startswith("Time:"))
        t.setdefault((f[2], f[3]), []).append(ms)
        order.append([f[2], f[3], f[4], ms, None])
    elif f[1] == "cpu":
        ms = float(body[0])
        c.setdefault((order[-1][0], order[-1][1]), []).append(ms)
        order[-1][4] = ms
    i = j
bad = []
for (w, s_), g in got.items():
    if g != want[w]:
        bad.append("WRONG result on %s for %s: %s, the hash join says %s" % (s_, w, g, want[w]))
for (w, s_), p in plans.items():
    if not re.search(r"Nested Loop.*Index Scan using %s_k" % s_, p):
        bad.append("%s on %s is not an index nested loop: %s" % (w, s_, p))
with open(os.path.join(out, "results.csv"), "w") as fh:
    fh.write("workload,side,rep,ms,cpu_ms\n")
    for r in order:
        fh.write("%s,%s,%s,%.3f,%.3f\n" % tuple(r))
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
wls = ["sorted_hit", "sorted_half", "sorted_desc", "random_hit"]
med = {k: statistics.median(v) for k, v in t.items()}
cmed = {k: statistics.median(v) for k, v in c.items()}
L = ["# Nested-loop join, learned vs btree%s" % (" (%s)" % label if label else ""), "",
     "`bash bench/nestloop.sh --rows %s --probes %s --reps %s --heap-order %s` (script at commit %s; the library measured: the title's label, md5 below): %s-row inner "
     "table (int8 keys, random gaps 2..17, %s heap order), %s outer keys, hash/merge join, memoize, "
     "materialize and bitmap scans off (Nested Loop -> Index Scan, checked), all relations prewarmed in "
     "2GB shared buffers, PostgreSQL %s, one backend for every run. Median of %s interleaved runs per "
     "side; A/A = a second btree on an identical table against the first (the run's noise). Wall: "
     "psql's \\timing; CPU: the backend's time on a CPU over the query (/proc/self/schedstat), which "
     "other processes on the machine disturb less. Index sizes: learned %.1f MB, btree %.1f MB. "
     "Every side's (count, sum) equals the hash join's; learned_idx.so md5 %s." % (
         rows, probes, reps, heap, head, rows, heap, probes, major, reps, lsize / 1e6, bsize / 1e6, so_md5), "",
     "| outer keys | learned ms | btree ms | btree2 ms | **learned / btree** | A/A btree2 / btree | "
     "learned CPU ms | btree CPU ms | btree2 CPU ms | **learned / btree CPU** | A/A CPU | "
     "btree / learned (CPU speed-up) |",
     "|---|---|---|---|---|---|---|---|---|---|---|---|"]
ratios, aas, cratios, caas = [], [], [], []
for w in wls:
    l, b, b2 = med[(w, "t_l")], med[(w, "t_b")], med[(w, "t_b2")]
    cl, cb, cb2 = cmed[(w, "t_l")], cmed[(w, "t_b")], cmed[(w, "t_b2")]
    ratios.append(l / b); aas.append(b2 / b); cratios.append(cl / cb); caas.append(cb2 / cb)
    L.append("| %s | %.1f | %.1f | %.1f | **%.3f** | %.3f | %.1f | %.1f | %.1f | **%.3f** | %.3f | %.2fx |" % (
        w, l, b, b2, l / b, b2 / b, cl, cb, cb2, cl / cb, cb2 / cb, cb / cl))
L += ["", "Raw times (ms, in run order) are in results.csv.", "",
      "- sorted_hit: %s distinct existing keys ascending; sorted_half: half of them replaced by an absent "
      "key (key + 1), ascending; sorted_desc: sorted_hit descending; random_hit: sorted_hit shuffled." % probes,
      "", "![ratios](nestloop.png)", ""]
open(os.path.join(out, "report.md"), "w").write("\n".join(L))
print("\n".join(L))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8.5, 4.4))
    xs = range(len(wls))
    series = [("learned / btree (wall)", ratios, "#DD8452"), ("learned / btree (CPU)", cratios, "#C44E52"),
              ("A/A btree2 / btree (wall)", aas, "#4C72B0"), ("A/A (CPU)", caas, "#64B5CD")]
    wd = 0.2
    for j, (lab, vals, col) in enumerate(series):
        pos = [x + (j - 1.5) * wd for x in xs]
        ax.bar(pos, vals, wd, label=lab, color=col)
        for x, v in zip(pos, vals):
            ax.annotate("%.2f" % v, (x, v), ha="center", va="bottom", fontsize=7)
    ax.axhline(1.0, ls="--", lw=0.8, color="gray")
    ax.axhline(1 / 1.3, ls=":", lw=0.8, color="gray")
    ax.annotate("target 1.3x btree", (len(wls) - 0.5, 1 / 1.3), ha="right", va="bottom", fontsize=7,
                color="gray")
    ax.set_xticks(list(xs)); ax.set_xticklabels(wls)
    ax.set_ylabel("join time / btree's (lower is faster)")
    ax.set_title("Nested-loop join, %s rows, %s probes, %s heap%s" % (rows, probes, heap,
                                                                     (" (%s)" % label) if label else ""))
    ax.legend(); ax.grid(axis="y", alpha=0.3)
    fig.tight_layout(); fig.savefig(os.path.join(out, "nestloop.png"), dpi=110)
except ImportError:
    print("(no matplotlib: no plot)", file=sys.stderr)
EOF
log "done: $OUT/report.md"
