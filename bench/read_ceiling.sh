#!/usr/bin/env bash
# bench/read_ceiling.sh: the read workloads of bench/run.sh (pgbench) and an
# index nested loop, each through a learned index, a btree, and a "floor":
# the same statement reaching the same heap rows by TID, with no index at all.
# The floor F is what the statement costs without index work, so with btree's
# time T_b and learned's T_l per transaction (1 / tps, or the join's CPU time):
#   (T_b - F) / (T_l - F)   the index part's speed-up, learned against btree
#   T_b / F                 the best any index could reach against btree
# (issue 31's "learned >= X x btree" targets are bounded by the second).
#
#   bash bench/read_ceiling.sh [--rows N] [--keys K] [--probes P] [--secs S]
#                              [--reps R] [--port P] [--out DIR] [--label T]
#                              [--lib FILE] [--only W1,W2,...]
#
#   --rows N     rows of the indexed table (default 1000000)
#   --keys K     rows of the pgbench key table (default 100000)
#   --probes P   outer keys of the nested-loop joins (default 100000)
#   --secs S     seconds per pgbench run (default 1)
#   --reps R     runs per workload and side, the median reported (default 5)
#   --port P     the throwaway cluster's port (default 5531)
#   --out DIR    result directory (default bench/results/<YYYY-MM-DD_HHMM>_ceiling)
#   --label T    a word for the report's title (e.g. the branch measured)
#   --lib FILE   take the extension's code from FILE (a learned_idx.so built
#                elsewhere) instead of the installed one, as bench/nestloop.sh
#   --only LIST  run only these workloads (point1 point2 ios range10 range100
#                range10000 orderby10 nestloop; default all)
#
# Run as root (or postgres) on Debian 12 + PostgreSQL 15 with the extension
# installed (make install) or --lib, under the bench lock:
#   flock /tmp/learned_idx_bench.lock bash bench/read_ceiling.sh
#
# Data: k int8 = cumulative sum of gaps 2..17 (hashint8 of the row number,
# as bench/nestloop.sh), v = row number, rows in KEY order (a range's rows
# are then one run of TIDs, which a Tid Range Scan reads), three identical
# tables: t_l (learned index), t_b (btree), t_f (no index: the floor's).
# Key table pk(i, k, tid, lo/hi/lt for 10, 100, 10,000-row ranges), row i at
# ctid (i / tpp, i % tpp + 1) as in bench/lib/workloads.py: tid is the ctid
# of k's row, lo..hi a range of existing keys and lt the ctid of lo's row.
# pgbench scripts (-M prepared, the GUCs of bench/run.sh) pick a random pk row
# by ctid and then, per side (index: t_l or t_b; floor: t_f):
#   point      index: SELECT t.v FROM pk p JOIN t ON t.k = p.k WHERE p.ctid = $tid
#              floor: ... JOIN t_f t ON t.ctid = p.tid ...      (Tid Scan)
#   ios        index: SELECT t.k ... (Index Only Scan; all pages all-visible)
#              floor: SELECT p.k FROM pk p WHERE p.ctid = $tid  (no heap row of t)
#   rangeS     index: SELECT count(*), sum(t.v) FROM pk p JOIN t ON t.k >= p.loS
#                     AND t.k <= p.hiS WHERE p.ctid = $tid
#              floor: SELECT count(*), sum(v) FROM (SELECT v FROM t_f WHERE ctid >=
#                     (SELECT lt FROM pk ...) LIMIT S) s          (Tid Range Scan)
#   orderby10  index: WHERE t.k >= (SELECT p.k ...) ORDER BY t.k LIMIT 10
#              floor: WHERE t.ctid >= (SELECT p.tid ...) LIMIT 10 (Tid Range Scan)
# point2 is point with 2 clients unpinned; every other workload runs 1 client
# with client and server pinned to one CPU (as bench/run.sh).  The three sides
# alternate within each repetition (order rotating).  Each run gives pgbench's
# tps and the server's CPU per transaction (the pgbench backends' CPU time,
# /proc/PID/schedstat, over the transactions pgbench's log counts in the
# interval): on a shared machine the tps move with other jobs' load, the CPU
# much less.  Answers: every query,
# summed over the first 500 pk rows, equals across the three sides; plans are
# checked (index sides use their index, the floor a Tid (Range) Scan).
# Nested loop: SELECT count(*), sum(t.v) FROM <outer> o JOIN t ON t.k = o.k
# (floor: ON t.ctid = o.tid), outer = P keys ascending (sorted_hit), half of
# them absent (sorted_half; an absent key has a NULL tid) and shuffled
# (random_hit); and range10: P 10-row ranges in random order, ON t.k >= o.lo
# AND t.k <= o.hi (floor: LATERAL (SELECT .. WHERE t.ctid >= o.lt LIMIT 10),
# a Tid Range Scan; its Limit node is the floor's own small extra), timed in
# one backend by its CPU time (/proc/self/schedstat) as bench/nestloop.sh:
# the per-query costs of pgbench (protocol, executor start, planning) are
# out, so the index part shows with far less noise.  stmt_point and
# stmt_range10: a PL/pgSQL loop over random_hit / range10 running one
# statement per row (WHERE t.k = r.k, or the range; floor: by ctid), so each
# is a fresh index scan (beginscan, rescan, endscan) as a pgbench
# transaction's is, without the protocol: CPU time as above.  Writes
# report.md, results.csv, ceiling.png.
set -euo pipefail
ROWS=1000000
KEYS=100000
PROBES=100000
SECS=1
REPS=5
PORT=5531
OUT=""
LABEL=""
LIB=""
ONLY="point1,point2,ios,range10,range100,range10000,orderby10,nestloop"
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS="$2"; shift ;;
		--keys) KEYS="$2"; shift ;;
		--probes) PROBES="$2"; shift ;;
		--secs) SECS="$2"; shift ;;
		--reps) REPS="$2"; shift ;;
		--port) PORT="$2"; shift ;;
		--out) OUT="$2"; shift ;;
		--label) LABEL="$2"; shift ;;
		--lib) LIB="$(realpath "$2")"; shift ;;
		--only) ONLY="$2"; shift ;;
		-h|--help) sed -n '2,70p' "$0"; exit 0 ;;
		*) echo "read_ceiling.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$BENCH_DIR/../scripts/common.sh"
[ -n "$OUT" ] || OUT="$BENCH_DIR/results/$(date +%Y-%m-%d_%H%M)_ceiling"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
HEAD="$(git -C "$BENCH_DIR/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
ONLY=",$ONLY,"
want() { case "$ONLY" in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

li_throwaway_cluster ceiling "$PORT" "shared_buffers = 2GB" "fsync = off" \
	"synchronous_commit = off" "maintenance_work_mem = 1GB" "work_mem = 256MB" \
	"autovacuum = off" "max_parallel_maintenance_workers = 0" \
	"max_parallel_workers_per_gather = 0" "jit = off" "max_wal_size = 32GB" \
	"checkpoint_timeout = 1h" "max_connections = 20"
P() { li_as_pg psql -qAtX -v ON_ERROR_STOP=1 postgres "$@"; }
log() { echo "[ceiling $(date +%H:%M:%S)] $*" >&2; }
WORK="$LI_THROWAWAY_DIR/work"
li_as_pg mkdir -p "$WORK"

log "loading $ROWS rows x 3 tables, $KEYS pgbench keys, $PROBES outer keys"
li_create_extension "$LIB"
SOFILE="$LI_SOFILE"
SO_MD5="$(md5sum "$SOFILE" | cut -d' ' -f1)"
P -c "CREATE EXTENSION pg_prewarm" >/dev/null
P -c "CREATE TABLE src AS SELECT i, sum(2 + (hashint8(i) & 15)) OVER (ORDER BY i)::int8 AS k
        FROM generate_series(1, $ROWS) i" >/dev/null
for t in t_l t_b t_f; do
	P -c "CREATE TABLE $t (k int8 NOT NULL, v int8) WITH (autovacuum_enabled = false, fillfactor = 100)" \
	  -c "INSERT INTO $t SELECT k, i FROM src ORDER BY i" >/dev/null
done
# rank -> (key, ctid); the three tables have the same layout, so t_f's ctid is
# the row's ctid in t_l and t_b too (checked below through the answers).
P -c "CREATE TABLE map AS SELECT v AS r, k, ctid AS tid FROM t_f" -c "CREATE UNIQUE INDEX ON map (r)" >/dev/null
span_sel() { # column expressions of one span's range: lo, hi, lt
	local s="$1" st="1 + (abs(hashint8(j * 7 + $1)) % ($ROWS - $1 + 1))"
	echo "(SELECT k FROM map WHERE r = $st) AS lo$s, (SELECT k FROM map WHERE r = $st + $s - 1) AS hi$s,
	      (SELECT tid FROM map WHERE r = $st) AS lt$s"
}
P -c "CREATE TABLE pk (i int8, k int8, tid tid, lo10 int8, hi10 int8, lt10 tid, lo100 int8, hi100 int8,
        lt100 tid, lo10000 int8, hi10000 int8, lt10000 tid) WITH (autovacuum_enabled = false, fillfactor = 100)" \
  -c "INSERT INTO pk SELECT j, m.k, m.tid, $(span_sel 10), $(span_sel 100), $(span_sel 10000)
        FROM generate_series(0, $KEYS - 1) j JOIN map m ON m.r = 1 + (abs(hashint8(j * 3 + 1)) % $ROWS) ORDER BY j" \
  >/dev/null
TPP="$(P -c "SELECT count(*) FROM pk WHERE ctid >= '(0,0)' AND ctid < '(1,0)'")"
BAD="$(P -c "SELECT count(*) FROM pk WHERE ctid <> format('(%s,%s)', i / $TPP, i % $TPP + 1)::tid")"
[ "$BAD" = 0 ] || li_die "pk: $BAD rows are not at their computed ctid"
P -c "CREATE TABLE sorted_hit (k int8, tid tid)" \
  -c "INSERT INTO sorted_hit SELECT k, tid FROM (SELECT k, tid FROM map ORDER BY hashint8(r * 31 + 5) LIMIT $PROBES) s ORDER BY k" \
  -c "CREATE TABLE sorted_half (k int8, tid tid)" \
  -c "INSERT INTO sorted_half SELECT CASE WHEN n % 2 = 0 THEN k ELSE k + 1 END, CASE WHEN n % 2 = 0 THEN tid END
        FROM (SELECT k, tid, row_number() OVER (ORDER BY k) n FROM sorted_hit) s ORDER BY k" \
  -c "CREATE TABLE random_hit (k int8, tid tid)" -c "INSERT INTO random_hit SELECT k, tid FROM sorted_hit ORDER BY hashint8(k)" \
  -c "CREATE TABLE range10 (st int8, lo int8, hi int8, lt tid)" \
  -c "INSERT INTO range10 SELECT a.r, a.k, b.k, a.tid FROM generate_series(1, $PROBES) j
        JOIN map a ON a.r = 1 + (abs(hashint8(j * 11 + 3)) % ($ROWS - 9)) JOIN map b ON b.r = a.r + 9 ORDER BY j" \
  -c "DROP TABLE src, map" >/dev/null
P -c "SET maintenance_work_mem = '1GB'" -c "CREATE INDEX t_l_k ON t_l USING learned (k)" \
  -c "CREATE INDEX t_b_k ON t_b (k)" -c "VACUUM (FREEZE, ANALYZE)" -c "CHECKPOINT" >/dev/null
SIZES="$(P -c "SELECT pg_relation_size('t_l_k') || ' ' || pg_relation_size('t_b_k')")"
# every page all-visible, or the index-only side would fetch heap pages
NV="$(P -c "CREATE EXTENSION pg_visibility" -c "SELECT count(*) FROM pg_visibility_map('t_l') WHERE NOT all_visible")"
[ "$NV" = 0 ] || li_die "t_l: $NV heap pages not all-visible after VACUUM"

# ---- the pgbench scripts
TID="('(' || :b || ',' || :o || ')')::tid"
PICK='\set i random(0, :np - 1)
\set b :i / :tpp
\set o :i % :tpp + 1'
sql_of() { # workload side [tid] -> the statement (side: t_l, t_b or t_f)
	local w="$1" s="$2" TID="${3:-$TID}"
	if [ "$s" != t_f ]; then
		case "$w" in
			point1|point2) echo "SELECT t.v FROM pk p JOIN $s t ON t.k = p.k WHERE p.ctid = $TID;" ;;
			ios) echo "SELECT t.k FROM pk p JOIN $s t ON t.k = p.k WHERE p.ctid = $TID;" ;;
			range*) local n="${w#range}"
				echo "SELECT count(*), sum(t.v) FROM pk p JOIN $s t ON t.k >= p.lo$n AND t.k <= p.hi$n WHERE p.ctid = $TID;" ;;
			orderby10) echo "SELECT t.k, t.v FROM $s t WHERE t.k >= (SELECT p.k FROM pk p WHERE p.ctid = $TID) ORDER BY t.k LIMIT 10;" ;;
		esac
	else
		case "$w" in
			point1|point2) echo "SELECT t.v FROM pk p JOIN t_f t ON t.ctid = p.tid WHERE p.ctid = $TID;" ;;
			ios) echo "SELECT p.k FROM pk p WHERE p.ctid = $TID;" ;;
			range*) local n="${w#range}"
				echo "SELECT count(*), sum(s.v) FROM (SELECT t.v FROM t_f t WHERE t.ctid >= (SELECT p.lt$n FROM pk p WHERE p.ctid = $TID) LIMIT $n) s;" ;;
			orderby10) echo "SELECT t.k, t.v FROM t_f t WHERE t.ctid >= (SELECT p.tid FROM pk p WHERE p.ctid = $TID) LIMIT 10;" ;;
		esac
	fi
}
PGB_WL=""
for w in point1 point2 ios range10 range100 range10000 orderby10; do want "$w" && PGB_WL="$PGB_WL $w"; done
SIDES="t_l t_b t_f"
GUCS="-c enable_bitmapscan=off -c enable_seqscan=off -c max_parallel_workers_per_gather=0 -c jit=off"
CHK="$LI_THROWAWAY_DIR/check.sql"
{
	for g in $GUCS; do [ "$g" = -c ] || echo "SET ${g%%=*} = '${g#*=}';"; done
	for w in $PGB_WL; do
		for s in $SIDES; do
			echo "\\echo @@ plan $w $s"
			echo "EXPLAIN (COSTS OFF) $(sql_of "$w" "$s" "'(0,1)'::tid")"
			# the answer over the first 500 pk rows: the statement as a LATERAL
			# subquery of pk, on p0's row instead of a random one
			echo "\\echo @@ got $w $s"
			echo "SELECT count(*), sum(hashtext(x::text)) FROM pk p0, LATERAL ($(sql_of "$w" "$s" p0.ctid |
				tr -d ';')) x WHERE p0.i < 500;"
		done
	done
} > "$CHK"
chmod 644 "$CHK"
P -v ON_ERROR_STOP=1 -f "$CHK" > "$OUT/check.out"

for w in $PGB_WL; do
	for s in $SIDES; do
		{ echo "$PICK"; sql_of "$w" "$s"; } > "$WORK/$w.$s.sql"
	done
done
chmod -R a+r "$WORK"
for rel in t_l t_b t_f t_l_k t_b_k pk sorted_hit sorted_half random_hit range10; do P -c "SELECT pg_prewarm('$rel')" >/dev/null; done

PM="$(li_as_pg head -n 1 "$LI_THROWAWAY_DIR/data/postmaster.pid")"
CPUS="$(nproc)"
SRV_CPU=$((CPUS - 1))
pin_server() { taskset -a -c -p "$1" "$PM" >/dev/null; }
cpu_ns() { # the CPU time (ns) of the backends $*, summed; fails if one has exited
	local p t=0 x
	for p in "$@"; do read -r x _ 2>/dev/null < "/proc/$p/schedstat" || return 1; t=$((t + x)); done
	echo "$t"
}
PREV_PIDS=0	# the last run's backends, which may still be exiting
# run_pgb CLIENTS SCRIPT: prints "tps server_cpu_us_per_transaction".  The
# server's CPU: the pgbench backends' CPU time (/proc/PID/schedstat, read
# every 10 ms while pgbench runs) between the first and the last reading,
# over the transactions pgbench's log (-l) says completed in between: the
# protocol's kernel time is in it, other processes on the machine are not.
run_pgb() {
	local c="$1" f="$2" pfx="$WORK/pgb" pids="" t0="" t1="" c0="" c1="" x bg
	rm -f "$pfx".* "$WORK/pgb.out"
	PGOPTIONS="$GUCS" li_as_pg "${pin[@]}" "$LI_PGBIN/pgbench" -n -M prepared -c "$c" -j "$c" -T "$SECS" \
		-D np="$KEYS" -D tpp="$TPP" -l --log-prefix "$pfx" -f "$f" postgres > "$WORK/pgb.out" 2>&1 &
	bg=$!
	while kill -0 "$bg" 2>/dev/null; do
		if [ -z "$pids" ]; then
			x="$(P -c "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity
			           WHERE application_name = 'pgbench' AND pid NOT IN (${PREV_PIDS// /,})
			           HAVING count(*) = $c" 2>/dev/null || true)"
			if [ -n "$x" ]; then
				pids="$x"
				# shellcheck disable=SC2086
				c0="$(cpu_ns $pids)" && t0="$(date +%s.%N)" || pids=""
			fi
		else
			# shellcheck disable=SC2086
			x="$(cpu_ns $pids 2>/dev/null)" && { c1="$x"; t1="$(date +%s.%N)"; }
		fi
		sleep 0.01
	done
	wait "$bg" || li_die "pgbench $w $s failed: $(cat "$WORK/pgb.out")"
	PREV_PIDS="${pids:-0}"
	x="$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$WORK/pgb.out")"
	if [ -n "$c1" ]; then
		cat "$pfx".* | awk -v t0="$t0" -v t1="$t1" -v c0="$c0" -v c1="$c1" -v tps="$x" '
			{ t = $5 + $6 / 1e6; if (t >= t0 && t <= t1) n++ }
			END { if (n > 0) printf "%s %.3f\n", tps, (c1 - c0) / 1e3 / n; else print tps, "" }'
	else
		echo "$x"
	fi
}
echo "workload,side,rep,tps,cpu_us" > "$OUT/results.csv"
for w in $PGB_WL; do
	log "pgbench $w: $REPS x ($SIDES), ${SECS}s each"
	clients=1
	if [ "$w" = point2 ]; then clients=2; pin_server "0-$SRV_CPU"; else pin_server "$SRV_CPU"; fi
	for rep in $(seq 1 "$REPS"); do
		case $((rep % 3)) in
			0) order="t_l t_b t_f" ;;
			1) order="t_b t_f t_l" ;;
			2) order="t_f t_l t_b" ;;
		esac
		for s in $order; do
			pin=(taskset -c "$SRV_CPU")
			[ "$clients" = 2 ] && pin=(taskset -c "0-$SRV_CPU")
			read -r tps cpu <<< "$(run_pgb "$clients" "$WORK/$w.$s.sql")"
			echo "$w,$s,$rep,$tps,${cpu:-}" >> "$OUT/results.csv"
		done
	done
done
pin_server "0-$SRV_CPU"

if want nestloop; then
	log "nested loops: $REPS x (sorted_hit sorted_half random_hit) x ($SIDES), CPU time of one backend"
	NLW="sorted_hit sorted_half random_hit range10 stmt_point stmt_range10"
	nq() {
		if [ "${1#stmt_}" != "$1" ]; then echo "SELECT * FROM $1_$2();"
		elif [ "$1" = range10 ]; then
			if [ "$2" = t_f ]; then
				echo "SELECT count(*), sum(x.v) FROM range10 o, LATERAL (SELECT t.v FROM t_f t WHERE t.ctid >= o.lt LIMIT 10) x;"
			else echo "SELECT count(*), sum(t.v) FROM range10 o JOIN $2 t ON t.k >= o.lo AND t.k <= o.hi;"; fi
		elif [ "$2" = t_f ]; then echo "SELECT count(*), sum(t.v) FROM $1 o JOIN t_f t ON t.ctid = o.tid;"
		else echo "SELECT count(*), sum(t.v) FROM $1 o JOIN $2 t ON t.k = o.k;"; fi
	}
	NSQL="$LI_THROWAWAY_DIR/nestloop.sql"
	stmt_fn() { # name side body: a PL/pgSQL loop running one statement per outer row
		echo "CREATE FUNCTION $1_$2(OUT n int8, OUT s numeric) LANGUAGE plpgsql
		      SET enable_seqscan = off SET enable_bitmapscan = off AS \$f\$
		      DECLARE r record; c int8; x numeric;
		      BEGIN n := 0; s := 0; $3 END \$f\$;"
	}
	{
		for s in $SIDES; do
			if [ "$s" = t_f ]; then
				pq="SELECT t.v INTO x FROM t_f t WHERE t.ctid = r.tid;"
				rq="SELECT count(*), sum(y.v) INTO c, x FROM (SELECT t.v FROM t_f t WHERE t.ctid >= r.lt LIMIT 10) y;"
			else
				pq="SELECT t.v INTO x FROM $s t WHERE t.k = r.k;"
				rq="SELECT count(*), sum(t.v) INTO c, x FROM $s t WHERE t.k >= r.lo AND t.k <= r.hi;"
			fi
			stmt_fn stmt_point "$s" "FOR r IN SELECT k, tid FROM random_hit LOOP $pq n := n + 1; s := s + x; END LOOP;"
			stmt_fn stmt_range10 "$s" "FOR r IN SELECT lo, hi, lt FROM range10 LOOP $rq n := n + c; s := s + x; END LOOP;"
		done
		echo "SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off;"
		echo "SET enable_material = off; SET enable_bitmapscan = off;"
		for w in $NLW; do
			echo "SET enable_nestloop = off; SET enable_hashjoin = on;"
			echo "\\echo @@ want $w"
			# range10: row st..st+9 of the ranks, whose v is the rank
			case "$w" in
				range10|stmt_range10) echo "SELECT count(*) * 10, sum(10 * st + 45) FROM range10;" ;;
				stmt_point) nq random_hit t_b ;;
				*) nq "$w" t_b ;;
			esac
			echo "SET enable_nestloop = on; SET enable_hashjoin = off;"
			for s in $SIDES; do
				echo "\\echo @@ nplan $w $s"; echo "EXPLAIN (COSTS OFF) $(nq "$w" "$s")"
				echo "\\echo @@ ngot $w $s"; nq "$w" "$s"
			done
		done
		for w in $NLW; do
			for s in $SIDES; do nq "$w" "$s" | sed 's/;$/ \\g \/dev\/null/'; done
			for rep in $(seq 1 "$REPS"); do
				case $((rep % 3)) in
					0) order="t_l t_b t_f" ;;
					1) order="t_b t_f t_l" ;;
					2) order="t_f t_l t_b" ;;
				esac
				for s in $order; do
					echo "SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::int8 AS c0 \\gset"
					nq "$w" "$s" | sed 's/;$/ \\g \/dev\/null/'
					echo "\\echo @@ cpu $w $s $rep"
					echo "SELECT (split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::int8 - :c0) / 1e6;"
				done
			done
		done
	} > "$NSQL"
	chmod 644 "$NSQL"
	P -f "$NSQL" > "$OUT/nestloop.out"
fi

PY="$(li_bench_python)"
"$PY" - "$OUT" "$ROWS" "$KEYS" "$PROBES" "$SECS" "$REPS" "$HEAD" "$LABEL" "$SO_MD5" "$SIZES" <<'EOF'
import csv, os, re, statistics, sys
out, rows, keys, probes, secs, reps, head, label, so_md5, sizes = sys.argv[1:11]
lsize, bsize = (int(x) for x in sizes.split())
sides = ["t_l", "t_b", "t_f"]

def blocks(fn):
    if not os.path.exists(fn):
        return []
    lines, res, i = open(fn).read().split("\n"), [], 0
    while i < len(lines):
        f = lines[i].split()
        if not f or f[0] != "@@":
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("@@"):
            j += 1
        res.append((f[1:], [x for x in lines[i + 1:j] if x.strip()]))
        i = j
    return res

bad, got, plans = [], {}, {}
for f, body in blocks(os.path.join(out, "check.out")):
    if f[0] == "plan":
        plans[(f[1], f[2])] = " ".join(x.strip() for x in body)
    elif f[0] == "got":
        got[(f[1], f[2])] = body[0]
for (w, s), p in plans.items():
    if s == "t_f":
        ok = "Tid" in p and "Index" not in p and "Seq Scan" not in p and "Sort" not in p
    else:
        node = "Index Only Scan using %s_k" % s if w == "ios" else "Index Scan using %s_k" % s
        ok = node in p and "Seq Scan" not in p and "Sort" not in p and "Bitmap" not in p
    if not ok:
        bad.append("plan of %s on %s is not the expected one: %s" % (w, s, p))
wls = sorted({w for w, _ in got}, key=["point1", "point2", "ios", "range10", "range100", "range10000",
                                        "orderby10"].index)
for w in wls:
    a = {s: got[(w, s)] for s in sides}
    if len(set(a.values())) != 1 or a["t_b"].startswith("0|"):
        bad.append("answers of %s differ (or are empty) over the first 500 key rows: %s" % (w, a))
tps, scpu = {}, {}
for r in csv.DictReader(open(os.path.join(out, "results.csv"))):
    tps.setdefault((r["workload"], r["side"]), []).append(float(r["tps"]))
    if r.get("cpu_us"):
        scpu.setdefault((r["workload"], r["side"]), []).append(float(r["cpu_us"]))
nl_want, nl_got, nl_plan, cpu = {}, {}, {}, {}
for f, body in blocks(os.path.join(out, "nestloop.out")):
    if f[0] == "want":
        nl_want[f[1]] = body[0]
    elif f[0] == "ngot":
        nl_got[(f[1], f[2])] = body[0]
    elif f[0] == "nplan":
        nl_plan[(f[1], f[2])] = " ".join(x.strip() for x in body)
    elif f[0] == "cpu":
        cpu.setdefault((f[1], f[2]), []).append(float(body[0]))
for (w, s), g in nl_got.items():
    if g != nl_want[w]:
        bad.append("WRONG nested-loop result on %s for %s: %s, the hash join says %s" % (s, w, g, nl_want[w]))
    p = nl_plan[(w, s)]
    if w.startswith("stmt_"):
        continue   # a function call: its statements' plans are not shown
    need = ("Tid Range Scan on t_f" if w == "range10" else "Tid Scan on t_f") if s == "t_f" else \
        "Index Scan using %s_k" % s
    if "Nested Loop" not in p or need not in p:
        bad.append("nested loop %s on %s: unexpected plan %s" % (w, s, p))
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)

rowsout = []  # (name, T_l, T_b, F, unit)
for w in wls:
    m = {s: statistics.median(tps[(w, s)]) for s in sides}
    rowsout.append((w, 1e6 / m["t_l"], 1e6 / m["t_b"], 1e6 / m["t_f"], "µs/tx", m,
                    {s: (min(tps[(w, s)]), max(tps[(w, s)])) for s in sides}))
for w in wls:
    if all((w, s) in scpu for s in sides):
        m = {s: statistics.median(scpu[(w, s)]) for s in sides}
        rowsout.append((w + " (server CPU)", m["t_l"], m["t_b"], m["t_f"], "µs/tx CPU", None,
                        {s: (min(scpu[(w, s)]), max(scpu[(w, s)])) for s in sides}))
for w in ["sorted_hit", "sorted_half", "random_hit", "range10", "stmt_point", "stmt_range10"]:
    if (w, "t_l") in cpu:
        m = {s: statistics.median(cpu[(w, s)]) for s in sides}
        rowsout.append((w if w.startswith("stmt_") else "nestloop " + w, m["t_l"] * 1000 / int(probes), m["t_b"] * 1000 / int(probes),
                        m["t_f"] * 1000 / int(probes), "µs/outer row (CPU)", None,
                        {s: (min(cpu[(w, s)]), max(cpu[(w, s)])) for s in sides}))
L = ["# Read ceilings: learned vs btree vs no index (the floor)%s" % (" (%s)" % label if label else ""), "",
     "`bash bench/read_ceiling.sh --rows %s --keys %s --probes %s --secs %s --reps %s` (script at commit %s; "
     "learned_idx.so md5 %s): %s-row int8 table in key order (gaps 2..17), three identical copies (learned, "
     "btree, none), PostgreSQL 15, everything prewarmed in 2GB shared buffers. pgbench -M prepared, %s s per "
     "run, the three sides interleaved, median of %s runs; 1 client with client and server pinned to one CPU "
     "(point2: 2 clients unpinned). Nested loops: the backend's CPU time over %s outer keys, median of %s. "
     "Index sizes: learned %.1f MB, btree %.1f MB. The floor reaches the same heap rows by TID "
     "(Tid Scan / Tid Range Scan) with no index; every side's answers (first 500 key rows, and each join's "
     "count and sum) are equal and every plan was checked." % (
         rows, keys, probes, secs, reps, head, so_md5, rows, secs, reps, probes, reps, lsize / 1e6, bsize / 1e6), "",
     "T = time per transaction (1 / median tps) or per outer key; F = the floor's. "
     "**index part** = (T_b - F) / (T_l - F): how much faster learned's index work is than btree's; "
     "**ceiling** = T_b / F: the learned / btree ratio an index costing nothing would reach.", "",
     "| workload | btree T | learned T | floor F | unit | **learned / btree** (T_b / T_l) | **index part** (T_b-F)/(T_l-F) | "
     "**ceiling** T_b / F | index share of btree's T (T_b-F)/T_b | runs min-max (btree; learned; floor) |",
     "|---|---|---|---|---|---|---|---|---|---|"]
plot = []
for name, tl, tb, f, unit, m, spread in rowsout:
    ip = (tb - f) / (tl - f) if tl - f > 0 else float("nan")
    L.append("| %s | %.2f | %.2f | %.2f | %s | **%.3f** | **%.2f** | **%.3f** | %.0f%% | %s |" % (
        name, tb, tl, f, unit, tb / tl, ip, tb / f, 100 * (tb - f) / tb,
        "; ".join("%.0f-%.0f" % spread[s] if m else "%.1f-%.1f" % spread[s] for s in ("t_b", "t_l", "t_f"))))
    plot.append((name, tb / tl, tb / f, m is None))
L += ["", "pgbench spreads are tps (server CPU rows: µs per transaction), nested-loop and statement-loop "
      "spreads CPU ms per loop. Server CPU: the pgbench backends' CPU time over the transactions completed "
      "while it was read (pgbench's own wall-clock tps count whatever else the machine runs). "
      "Raw: results.csv, check.out, nestloop.out.", "", "![ceilings](ceiling.png)", ""]
open(os.path.join(out, "report.md"), "w").write("\n".join(L))
print("\n".join(L))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # the CPU-timed rows (wall-clock tps move with the machine's other load)
    plot = [p for p in plot if p[3]] or plot
    fig, ax = plt.subplots(figsize=(10, 4.8))
    xs = range(len(plot))
    wd = 0.38
    for j, (lab, col) in enumerate([("learned's speed-up over btree (T_b / T_l)", "#DD8452"),
                                    ("no index's speed-up over btree, the ceiling (T_b / F)", "#4C72B0")]):
        pos = [x + (j - 0.5) * wd for x in xs]
        vals = [p[1 + j] for p in plot]
        ax.bar(pos, vals, wd, label=lab, color=col)
        for x, v in zip(pos, vals):
            ax.annotate("%.2f" % v, (x, v), ha="center", va="bottom", fontsize=7)
    ax.axhline(1.0, ls="--", lw=0.8, color="gray")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([p[0].replace("nestloop ", "nl ").replace(" (server CPU)", "") for p in plot],
                       fontsize=8, rotation=30, ha="right")
    ax.set_ylabel("btree's CPU time / learned's (or F's)")
    ax.set_title("Read workloads, %s rows: learned vs btree and the no-index ceiling%s" % (
        rows, (" (%s)" % label) if label else ""))
    ax.legend(fontsize=8); ax.grid(axis="y", alpha=0.3)
    fig.tight_layout(); fig.savefig(os.path.join(out, "ceiling.png"), dpi=110)
except ImportError:
    print("(no matplotlib: no plot)", file=sys.stderr)
EOF
log "done: $OUT/report.md"
