#!/usr/bin/env bash
# bench/scan_instructions.sh: CPU instructions per statement, learned against
# btree on the same rows, counted by valgrind (callgrind) in a single-user
# backend: TPC-C's order-line statements as fresh index scans, and its
# 10-row INSERT into the primary key (a unique check per row).
#
#   bash bench/scan_instructions.sh [--wh W] [--new-orders N] [--execs E]
#        [--statements "point order stock insert"] [--lib FILE]... [--out DIR]
#
#   --wh W          warehouses (default 2): W x 10 districts x 3000 orders x
#                   10 lines of order_line (w, d, o, n), a UNIQUE learned
#                   index (merges held off: merge_ratio 1, a large
#                   pending_limit) and, in a copy, a UNIQUE btree
#   --new-orders N  orders of 10 lines inserted after the build, each in its
#                   own 10-row INSERT (default 10000): the learned index's
#                   pending entries, in sorted runs and a tail, as a TPC-C
#                   run leaves them
#   --execs E       executions counted per statement (default 1000)
#   --lib FILE      measure this learned_idx.so (repeatable: several builds
#                   side by side, each against the same btree figure);
#                   default the installed one
#   --out DIR       result directory (default bench/results/<date>_scan_instructions)
#   --profiles      keep each side's callgrind file of the larger count as
#                   DIR/callgrind.<statement>.<side>.out, for a per-function
#                   account (callgrind_annotate --inclusive=yes FILE)
#
# Statements, each run E times by a PL/pgSQL loop with keys drawn from a
# seeded random() (the same keys for every build and for btree):
#   point   one line: every key column equal (SELECT amount);
#   order   one order's 10 lines (w, d, o equal), as order-status and
#           delivery read them;
#   stock   the 20 orders before a random one (w, d equal, o in a range),
#           about 200 lines, as stock-level reads them;
#   insert  a new order's 10 lines in one INSERT (each row's unique check
#           is a scan of the index).
# Each count runs on a fresh copy of the loaded data directory, once with
# E / 5 and once with E executions; the difference divided by 4E / 5 is a
# statement's instructions, without the backend's start and the loop's
# setup.  The loop's own work (drawing keys, PL/pgSQL) is in both sides.
#
# Why instructions: on a shared 2-core VM the same build's tps moved by up
# to 50% from one run to the next, so time could not resolve changes of a
# few percent; an instruction count does not move with the host's load.  It
# is not time: valgrind counts a `rep movsb` copy or `rep stosb` memset as
# one instruction per byte (so a page copy or a zeroed allocation weighs
# more than it costs), and it ignores cache misses and locks.  Read the
# ratios with tps (bench/fresh_scans.sh, bench/tpcc_profile.py) beside them.
#
# Needs valgrind (apt-get install valgrind).  Run as root (or postgres)
# with the extension installed or --lib, under the bench lock:
#   flock /tmp/learned_idx_bench.lock bash bench/scan_instructions.sh
# Writes report.md, results.csv and scan_instructions.png into the result
# directory and prints the report.
set -euo pipefail
BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
. "$BENCH_DIR/../scripts/common.sh"
WH=2
NEWO=10000
EXECS=1000
STATEMENTS="point order stock insert"
LIBS=()
OUT=""
PROFILES=0
while [ $# -gt 0 ]; do
	case "$1" in
		--wh) WH="$2"; shift 2 ;;
		--new-orders) NEWO="$2"; shift 2 ;;
		--execs) EXECS="$2"; shift 2 ;;
		--statements) STATEMENTS="$2"; shift 2 ;;
		--lib) LIBS+=("$(realpath "$2")"); shift 2 ;;
		--out) OUT="$2"; shift 2 ;;
		--profiles) PROFILES=1; shift ;;
		*) li_die "unknown option $1 (see the header of $0)" ;;
	esac
done
command -v valgrind >/dev/null || li_die "valgrind is not installed (apt-get install valgrind)"
[ "$EXECS" -ge 5 ] || li_die "--execs must be at least 5"
[ ${#LIBS[@]} -gt 0 ] || LIBS=("$("$PG_CONFIG" --pkglibdir)/learned_idx.so")
for l in "${LIBS[@]}"; do [ -f "$l" ] || li_die "no such library: $l"; done
OUT="${OUT:-$BENCH_DIR/results/$(date +%Y-%m-%d_%H%M)_scan_instructions}"
mkdir -p "$OUT"

ORDERS=3000
li_throwaway_cluster scaninsn "${SCANINSN_PORT:-5521}" "shared_buffers = 256MB" \
	"fsync = off" "synchronous_commit = off" "autovacuum = off" "jit = off"
D="$LI_THROWAWAY_DIR"
# the functions point at a link, switched to the build being counted
LINK="$D/learned_idx.so"
ln -sf "${LIBS[0]}" "$LINK"
li_create_extension "$LINK"
P() { li_as_pg psql -qAtX -v ON_ERROR_STOP=1 postgres "$@"; }
P -c "SET client_min_messages = error" -c "CREATE TABLE ol (w int, d int, o int, n int, amount numeric)" \
  -c "INSERT INTO ol SELECT w, d, o, n, n FROM generate_series(1, $WH) w, generate_series(1, 10) d,
        generate_series(1, $ORDERS) o, generate_series(1, 10) n" \
  -c "CREATE UNIQUE INDEX ol_l ON ol USING learned (w, d, o, n) WITH (merge_ratio = 1, pending_limit = 2000000)" \
  -c "CREATE TABLE olb (LIKE ol)" -c "INSERT INTO olb SELECT * FROM ol" \
  -c "CREATE UNIQUE INDEX ol_b ON olb (w, d, o, n)" >/dev/null
P -c "DO \$\$ DECLARE i int; BEGIN
        FOR i IN 0 .. $NEWO - 1 LOOP
          INSERT INTO ol SELECT 1 + (i % $WH), 1 + (i / $WH) % 10, $ORDERS + 1 + i / ($WH * 10), n, n
            FROM generate_series(1, 10) n;
          INSERT INTO olb SELECT 1 + (i % $WH), 1 + (i / $WH) % 10, $ORDERS + 1 + i / ($WH * 10), n, n
            FROM generate_series(1, 10) n;
        END LOOP; END \$\$" -c "ANALYZE ol" -c "ANALYZE olb" -c "CHECKPOINT" >/dev/null
STATE="learned: $(P -c "SELECT pending_entries FROM learned_index_info('ol_l')") pending entries in
$(P -c "SELECT count(run) FROM learned_index_runs('ol_l')") runs and a tail of
$(P -c "SELECT entries FROM learned_index_runs('ol_l') WHERE run IS NULL"),
$(P -c "SELECT pg_relation_size('ol_l') / 8192") pages; btree $(P -c "SELECT pg_relation_size('ol_b') / 8192") pages"
li_cluster_stop
MAXO=$((ORDERS + NEWO / (WH * 10)))

# count T N [KEEP]: the instructions of one single-user backend running
# statement $S on table $T N times, on a fresh copy of the data directory;
# with KEEP, its callgrind file is kept under that name
count() {
	local t="$1" n="$2" keep="${3:-}" q work cg ir
	case "$S" in
		point) q="SELECT amount INTO s FROM $t WHERE w = vw AND d = vd AND o = vo AND n = vn" ;;
		order) q="SELECT sum(amount) INTO s FROM $t WHERE w = vw AND d = vd AND o = vo" ;;
		stock) q="SELECT count(DISTINCT n) INTO s FROM $t WHERE w = vw AND d = vd AND o >= vo - 20 AND o < vo" ;;
		insert) q="INSERT INTO $t SELECT vw, vd, $MAXO + i, g, g FROM generate_series(1, 10) g" ;;
		*) li_die "unknown statement $S" ;;
	esac
	work="$D/work"
	rm -rf "$work"
	cp -a "$D/data" "$work"
	cg="$D/cg.out"
	# a single-user backend ends a command at each newline: one line each
	{
		echo "SET enable_bitmapscan = off; SET enable_seqscan = off;"
		echo "DO \$\$ DECLARE i int; s numeric; vw int; vd int; vo int; vn int; BEGIN
  PERFORM setseed(0.25);
  FOR i IN 1 .. $n LOOP
    vw := 1 + floor(random() * $WH); vd := 1 + floor(random() * 10);
    vo := 21 + floor(random() * ($MAXO - 20)); vn := 1 + floor(random() * 10);
    $q;
  END LOOP; END \$\$;" | tr '\n' ' '
		echo
	} |
		li_as_pg valgrind --tool=callgrind --callgrind-out-file="$cg" \
			"$LI_PGBIN/postgres" --single -D "$work" postgres >"$D/backend.out" 2>"$D/valgrind.log" ||
		{ tail -n 20 "$D/valgrind.log" >&2; li_die "the single-user backend failed"; }
	# a statement that failed would count a loop cut short
	if grep -q "ERROR:" "$D/backend.out" "$D/valgrind.log"; then
		grep -h -m3 "ERROR:" "$D/backend.out" "$D/valgrind.log" >&2
		li_die "statement $S failed in the single-user backend"
	fi
	ir="$(awk '/^(summary|totals):/ { print $2; exit }' "$cg")"
	if [ -n "$keep" ]; then mv "$cg" "$keep"; else rm -f "$cg"; fi
	echo "$ir"
}
# per T SIDE: instructions per execution of $S on table T
per() {
	local lo hi n1=$((EXECS / 5)) keep=""
	[ "$PROFILES" = 1 ] && keep="$OUT/callgrind.$S.$2.out"
	lo="$(count "$1" "$n1")" || exit 1
	hi="$(count "$1" "$EXECS" "$keep")" || exit 1
	echo $(((hi - lo) / (EXECS - n1)))
}

CSV="$OUT/results.csv"
echo "statement,side,library,instructions" >"$CSV"
for S in $STATEMENTS; do
	v="$(per olb btree)" || li_die "counting $S on btree failed"
	echo "$S,btree,,$v" >>"$CSV"
	k=0
	for l in "${LIBS[@]}"; do
		k=$((k + 1))
		ln -sf "$l" "$LINK"
		v="$(per ol "learned$k")" || li_die "counting $S on learned ($l) failed"
		echo "$S,learned,$l,$v" >>"$CSV"
	done
done

"$(li_bench_python)" - "$OUT" "$WH" "$NEWO" "$EXECS" "$STATE" "$LI_PG_MAJOR" <<'EOF'
import csv, os, sys
out, wh, newo, execs, state, major = sys.argv[1:7]
rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
stmts = []
for r in rows:
    if r["statement"] not in stmts:
        stmts.append(r["statement"])
libs = []
for r in rows:
    if r["side"] == "learned" and r["library"] not in libs:
        libs.append(r["library"])
bt = {r["statement"]: int(r["instructions"]) for r in rows if r["side"] == "btree"}
le = {(r["statement"], r["library"]): int(r["instructions"]) for r in rows if r["side"] == "learned"}
names = [os.path.basename(l) for l in libs]
lines = ["# Instructions per statement, learned vs btree (PostgreSQL %s)" % major, "",
         "`bash bench/scan_instructions.sh --wh %s --new-orders %s --execs %s` (valgrind callgrind, one "
         "single-user backend per count). order_line (w, d, o, n), UNIQUE indexes; %s." % (wh, newo, execs, " ".join(state.split())),
         "", "Instructions per execution, and learned / btree (lower is better):", "",
         "| statement | btree | " + " | ".join("learned %s" % n for n in names) + " |",
         "|---|---:|" + "---:|" * len(libs)]
for s in stmts:
    cells = ["%d (%.2fx)" % (le[(s, l)], le[(s, l)] / bt[s]) for l in libs]
    lines.append("| %s | %d | %s |" % (s, bt[s], " | ".join(cells)))
lines += ["", "Libraries: " + ", ".join("`%s`" % l for l in libs), "", "![ratios](scan_instructions.png)", ""]
open(os.path.join(out, "report.md"), "w").write("\n".join(lines))
print("\n".join(lines))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3.6))
    w = 0.8 / max(1, len(libs))
    for i, l in enumerate(libs):
        ax.bar([x + i * w for x in range(len(stmts))], [le[(s, l)] / bt[s] for s in stmts], w,
               label=os.path.basename(l))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([x + w * (len(libs) - 1) / 2 for x in range(len(stmts))])
    ax.set_xticklabels(stmts)
    ax.set_ylabel("learned / btree instructions")
    ax.set_title("Instructions per statement (lower is better)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scan_instructions.png"), dpi=110)
except ImportError:
    print("(matplotlib missing: no plot)")
EOF
