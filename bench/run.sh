#!/usr/bin/env bash
# learned_idx benchmark suite: learned vs btree on seven synthetic int8 datasets.
#
#   bash bench/run.sh [--quick|--full|--smoke] [--n N] [--sweep-eps] [--no-build] [options]
#   PG_MAJOR=18 bash bench/run.sh [options]
#
# PG_MAJOR (default 15) chooses the PostgreSQL major, as for scripts/demo.sh and scripts/test.sh
# (scripts/common.sh): 15 is Debian's package; 17, 18 and 19 are the "bench" builds of
# scripts/common.sh (Debian's source package, configured without --enable-cassert and
# --enable-debug, in /var/cache/learned_idx/pgMAJOR-bench), built the first time they are needed
# (a few minutes; bash scripts/pg_build.sh MAJOR bench builds one ahead). The report names the
# server version and whether assertions are on; run.sh refuses a server with assertions on
# (except --smoke, which only checks that the scripts run), BENCH_ALLOW_CASSERT=1 overrides.
#
# Main mode, per dataset (seq_gaps uniform books fb osm wiki lognormal): build time, size,
# structure; server-side probe loop (us and index buffers per lookup, 100-row ranges);
# pgbench -M prepared (point 1 client pinned to the server's CPU x5, point 2 clients unpinned,
# index-only point, ranges of 10/100/10000 rows, ORDER BY k LIMIT 10; p50/p99 from -l logs);
# cold cache (OS page cache dropped, tiny shared_buffers); an error_bound sweep; writes with
# synchronous_commit=off (90/10 and 50/50 mixes, random and append inserts, WAL per tx);
# then pgbench -S on pgbench_accounts and TPC-C (go-tpc) with btree vs learned indexes.
#
#   --quick          n = 1M rows per dataset, 100k probes, 10k ranges, 1 s pgbench runs (default)
#   --full           n = 10M rows per dataset, 1M probes, 50k ranges, 5 s runs (<= 60 min on 2 vCPU)
#   --smoke          n = 20k, 2 datasets, pgbench -t 100: checks that every script still runs
#   --no-pgbench --no-writes --no-cold --no-sweep --no-tpcc   skip a part of the main mode
#   --pgb-secs S --pgb-write-secs S --pgb-reps R --pgb-reps-point R   pgbench run length / repetitions
#                    (reads: --pgb-reps-point for the pinned point lookup, 5; --pgb-reps for the other
#                    reads, 5 quick, 2 full; --reps is the probe loop's, not pgbench's)
#   --no-aa          no A/A side in the pgbench reads: by default every read workload also measures
#                    the btree a second time, in slots of its own in the same interleaved schedule
#                    (btree, learned, btree again; reversed every other repetition); btree_b / btree
#                    is the run's noise, printed beside learned / btree (a third of the reads' time)
#   --cold-probes P --cold-sb L        cold-cache probes and comma-separated shared_buffers sizes
#                    (default 5000 / 2MB,128kB quick; 20000 / 16MB,128kB full: 128kB = 16 buffers
#                    leaves btree's inner pages out of shared buffers, the disk-resident case)
#   --disk-resident  the cold-cache runs also keep the OS page cache out of the way while they run:
#                    debug_io_direct = data on PostgreSQL 16+, else the server in a memory cgroup
#                    of --disk-resident-mb MB (default 96), so a shared-buffer miss reads the disk
#   --learned-with O reloptions of the learned indexes, e.g. mode=zonemap,error_bound=64
#   --sweep-list L   error_bound values of the in-suite sweep (default 8,32,128 quick)
#   --tpcc-wh W --tpcc-secs S --tpcc-reps R --pgbs-scale S
#   --tpcc-keep-pk   TPC-C without the learned_all schema (primary keys as UNIQUE learned indexes)
#   --tpcc-disk-resident  TPC-C runs with shared_buffers a quarter of btree's index set after the
#                    load and debug_io_direct = data (16+), the OS page cache dropped: every
#                    shared-buffer miss reads the disk (issue 30's target 10)
#   --n N            override the number of rows per dataset
#   --sweep-eps      instead of the main comparison, build learned with error_bound in
#                    {8,16,32,64,128} (plus one btree reference) on every dataset
#   --eps-list L     comma-separated error_bound values for --sweep-eps
#   --no-build       do not run `make && make install` of the extension
#   --learned-am AM  use access method AM in place of "learned" (e.g. btree, to test the
#                    harness without the extension)
#   --datasets L     comma-separated subset of seq_gaps,books,fb,osm
#   --probes P       random existing-key probes per lookup run (default 100k quick / 1M full)
#   --ranges R       100-row range scans per run (default 10k quick / 50k full)
#   --reps R         timed repetitions per measurement, median reported (default 5)
#   --builds B       CREATE INDEX repetitions, median reported (default 3)
#   --heap-order O   random (default) or sorted: physical order of rows in the heap
#   --port P         server port (unix socket only; default 5498)
#   --keep           leave the cluster running and its directory in place at the end
#   --out DIR        result directory (default bench/results/<YYYY-MM-DD_HHMM>[_sweep|_dynamic]);
#                    with --out, bench/RESULTS*.md is not updated
#
#   --dynamic        run the dynamic-stage (insert) benchmark instead (bench/lib/dynamic.py):
#                    pgbench -c 2 -j 2, synchronous_commit=off, random and append keys,
#                    insert-only / 50-50 / 90-10 mixes, pending-list lookups, WAL per insert,
#                    merge rewrite size, insert latency percentiles.  --quick: n = 1M, 12 s
#                    runs; --full: n = 10M, 30 s runs.  Writes bench/RESULTS_DYNAMIC.md.
#   --smoke          (dynamic) n = 20k, 2 s runs, one repetition: checks that the driver still runs
#   --duration S     (dynamic) seconds per pgbench run
#   --keys L         (dynamic) comma-separated subset of random,append
#   --workloads L    (dynamic) comma-separated subset of insert,mix50,mix90
#   --pin            (dynamic) pin server/driver as the static bench does (default: unpinned,
#                    because 2 clients + 2 backends + the merge worker share 2 vCPUs)
#   --fpw on|off     full_page_writes of the throwaway cluster (default off, as the static bench)
#   --shared-buffers S  shared_buffers of the throwaway cluster (default 2GB: every relation of a
#                    10M-row run stays in shared buffers; PostgreSQL's own default, 128MB, makes a
#                    10M-row index larger than shared buffers, the disk-resident case)
#   --extras L       (dynamic) comma-separated subset of pending,merge1,conns,space,churn (default
#                    all; none): conns = memory per backend and a new connection's first lookup
#                    with the pending list just under its trigger; space = size under +50% random
#                    100-row INSERTs; churn = size over delete/insert/VACUUM rounds (both indexes)
#   --conns C --churn-rounds R   (dynamic) connections per index (20), churn rounds (10)
#
#   --keys           run the variable-width / composite keys benchmark instead (issue #6,
#                    bench/lib/keys_bench.py): words, urls, words_icu (text), uuid_v4, uuid_v7,
#                    numeric, tpcc3 (w_id, d_id, o_id); size, build time, lookups (heap fetch and
#                    index-only), index buffers per lookup, 100-row ranges, learned vs btree
#                    interleaved; a type the learned AM cannot index yet is reported "unsupported".
#                    --quick: n = 1M (tpcc3 33 x 10 x 3000); --full: n = 10M (tpcc3 100 x 10 x 3000);
#                    --smoke: n = 20k.  Writes bench/RESULTS_KEYS.md.  Takes --n --datasets --probes
#                    --ranges --reps --builds --heap-order --learned-am --learned-with.
#                    (`--keys` followed by a value, e.g. `--keys random`, is the --dynamic option.)
#
# Installs its own dependencies (Debian packages + a Python venv in bench/.venv), starts a
# throwaway cluster as user postgres in a temp dir, runs everything, writes
# bench/results/<stamp>/{report.md,results.csv,*.png} and copies report.md to
# bench/RESULTS.md (bench/RESULTS_SWEEP.md for --sweep-eps, RESULTS_DYNAMIC.md, RESULTS_KEYS.md).
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$BENCH_DIR/.." && pwd)"
. "$REPO_DIR/scripts/common.sh"
li_pg_select "${PG_MAJOR:-15}" bench
PORT=5498
SMOKE=0
BUILD=1
KEEP=0
SWEEP=0
DYNAMIC=0
KEYS=0
PIN=""
FPW=off
SB=2GB
OUT=""
PYARGS=()
ORIG_CMD="${PG_MAJOR:+PG_MAJOR=$PG_MAJOR }bash bench/run.sh $*"

while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) BUILD=0 ;;
    --keep) KEEP=1 ;;
    --port) PORT="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    --sweep-eps) SWEEP=1; PYARGS+=("$1") ;;
    --dynamic) DYNAMIC=1 ;;
    --pin) PIN=1 ;;
    --fpw) FPW="$2"; shift ;;
    --shared-buffers) SB="$2"; shift ;;
    --keys)
      # alone (or before another option): the keys benchmark; with a value: --dynamic's key kinds
      if [ $# -ge 2 ] && [[ "$2" != --* ]]; then PYARGS+=("$1" "$2"); shift; else KEYS=1; fi ;;
    --duration|--workloads|--extras|--conns|--churn-rounds) PYARGS+=("$1" "$2"); shift ;;
    --quick|--full) PYARGS+=("$1") ;;
    --smoke) PYARGS+=("$1"); SMOKE=1 ;;
    --no-pgbench|--no-writes|--no-cold|--no-sweep|--no-tpcc|--no-aa|--tpcc-keep-pk|--tpcc-disk-resident|--disk-resident)
      PYARGS+=("$1") ;;
    --pgb-secs|--pgb-write-secs|--pgb-reps|--pgb-reps-point|--pgb-keys|--cold-probes|--cold-sb|--sweep-list|\
    --disk-resident-mb|\
    --sweep-probes|--sweep-reps|--tpcc-wh|--tpcc-secs|--tpcc-reps|--tpcc-threads|--pgbs-scale|--pgbs-reps)
      PYARGS+=("$1" "$2"); shift ;;
    --n|--eps-list|--learned-am|--learned-with|--datasets|--probes|--ranges|--reps|--builds|--heap-order)
      PYARGS+=("$1" "$2"); shift ;;
    -h|--help) sed -n "2,/^set -euo/p" "$0" | sed "\$d"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

log() { echo "[bench $(date +%H:%M:%S)] $*" >&2; }
if [ "$KEYS" = 1 ] && { [ "$DYNAMIC" = 1 ] || [ "$SWEEP" = 1 ]; }; then
  echo "run.sh: --keys cannot be combined with --dynamic or --sweep-eps" >&2; exit 2
fi

# ---------------------------------------------------------------- dependencies
need_pkgs=()
if [ -z "$LI_PG_PREFIX" ]; then   # Debian's packages (15)
  [ -x "$LI_PGBIN/initdb" ] || need_pkgs+=(postgresql-$LI_PG_MAJOR)
  [ -x "$(command -v pg_config || true)" ] && [ -d /usr/include/postgresql/$LI_PG_MAJOR/server ] || need_pkgs+=(postgresql-server-dev-$LI_PG_MAJOR)
  [ -f /usr/share/postgresql/$LI_PG_MAJOR/extension/pg_prewarm.control ] || need_pkgs+=(postgresql-contrib)
fi
command -v make >/dev/null && command -v gcc >/dev/null || need_pkgs+=(build-essential)
/usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null || need_pkgs+=(python3-venv)
command -v runuser >/dev/null || need_pkgs+=(util-linux)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  log "installing Debian packages: ${need_pkgs[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi
# The Debian package may have created and started a default cluster; we never use it.
# PG_MAJOR's bench build (a source-built major: built the first time, then cached)
li_bench_pg
MAJOR="$LI_PG_MAJOR"
PGBIN="$LI_PGBIN"

VENV="${BENCH_VENV:-$BENCH_DIR/.venv}"   # BENCH_VENV: e.g. a cache outside a throwaway tree
PY="$VENV/bin/python"
if ! "$PY" -c 'import numpy, matplotlib, psycopg' 2>/dev/null; then
  log "creating Python venv in $VENV"
  SYSPY=/usr/bin/python3; [ -x "$SYSPY" ] || SYSPY=python3
  rm -rf "$VENV"
  if "$SYSPY" -c 'import numpy, matplotlib, psycopg' 2>/dev/null; then
    # Debian's packages are already there: no network needed
    "$SYSPY" -m venv --system-site-packages "$VENV"
  else
  "$SYSPY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip >/dev/null 2>&1 || true
  if ! "$VENV/bin/pip" install -q numpy matplotlib 'psycopg[binary]'; then
    # No usable PyPI (offline, or a TLS proxy whose CA this system lacks): fall back to
    # Debian's packages, seen through a venv with system site packages.
    log "pip failed; using Debian python3-numpy/matplotlib/psycopg in a --system-site-packages venv"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq python3-numpy python3-matplotlib python3-psycopg >/dev/null
    rm -rf "$VENV"
    "$SYSPY" -m venv --system-site-packages "$VENV"
  fi
  fi
  "$PY" -c 'import numpy, matplotlib, psycopg'
fi

# ---------------------------------------------------------------- go-tpc (TPC-C driver)
# Built from the pinned wrapper module bench/tpcc/gotpc (see its README) when `go` exists;
# without Go and without a prebuilt bench/.tools/go-tpc, the TPC-C part is skipped and says so.
TOOLS="${BENCH_TOOLS:-$BENCH_DIR/.tools}"   # BENCH_TOOLS: e.g. a cache outside a throwaway tree
GOTPC="$TOOLS/go-tpc"
if [ ! -x "$GOTPC" ] && [ "$DYNAMIC" = 0 ] && [ "$SWEEP" = 0 ] && [ "$KEYS" = 0 ]; then
  GO=$(command -v go || true); [ -z "$GO" ] && [ -x /usr/local/go/bin/go ] && GO=/usr/local/go/bin/go
  if [ -n "$GO" ]; then
    log "building go-tpc with $GO"
    mkdir -p "$TOOLS"
    (cd "$BENCH_DIR/tpcc/gotpc" && CGO_ENABLED=0 GOFLAGS=-modcacherw "$GO" build -o "$GOTPC" \
       github.com/pingcap/go-tpc/cmd/go-tpc) >&2 || log "go-tpc build failed: TPC-C will be skipped"
  else
    log "no Go toolchain and no $GOTPC: TPC-C will be skipped"
  fi
fi

# ---------------------------------------------------------------- extension build
PG_CONFIG="$PGBIN/pg_config"
# 15's installation is shared with every checkout's scripts/test.sh, which installs its own build
# and holds /tmp/learned_idx_test.lock while its suites use it.  A benchmark uses the installed
# library the same way (every new backend loads it), so it holds that lock for the whole run: no
# other checkout's `make install` can swap the library under it.  scripts/test.sh's bench smoke
# runs inside its own hold (BENCH_INSTALL_LOCKED=1).  A source-built major's bench build has a
# lock of its own.
# Does a process above this one (flock(1) running us) hold the flock on file $1?  /proc/locks
# names the holder's pid and the file's inode.
bench_lock_held_above() {
  local ino pid holders p
  ino=$(stat -c %i "$1" 2>/dev/null) || return 1
  holders=$(awk -v ino="$ino" '$2 == "FLOCK" { n = split($6, f, ":"); if (f[n] == ino) print $5 }' /proc/locks)
  [ -n "$holders" ] || return 1
  pid=$$
  while [ -n "$pid" ] && [ "$pid" -gt 1 ]; do
    for p in $holders; do [ "$p" = "$pid" ] && return 0; done
    pid=$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null)
  done
  return 1
}
INSTALL_LOCK=/tmp/learned_idx_test.lock
[ -n "$LI_PG_PREFIX" ] && INSTALL_LOCK="$LI_PG_PREFIX.install.lock"
if [ "${BENCH_INSTALL_LOCKED:-0}" != 1 ]; then
  exec 8>"$INSTALL_LOCK"
  if ! flock -n 8; then
    log "waiting for $INSTALL_LOCK (another checkout's test run or benchmark uses this installation)"
    flock 8
  fi
  # The benchmarks' lock too, which the scripts on binaries of their own (append_points.sh,
  # churn_space.sh, nestloop.sh, tpcc_profile.py ...) take: two benchmarks on two cores measure
  # each other.  Unless a caller already holds it (`flock /tmp/learned_idx_bench.lock bash
  # bench/run.sh ...`): taking it again on a new descriptor would wait for ourselves.
  BENCH_LOCK=/tmp/learned_idx_bench.lock
  exec 7>"$BENCH_LOCK"
  if ! flock -n 7 && ! bench_lock_held_above "$BENCH_LOCK"; then
    log "waiting for $BENCH_LOCK (another benchmark is running)"
    flock 7
  fi
fi
if [ "$BUILD" = 1 ]; then
  log "building and installing the extension for PostgreSQL $MAJOR (make && make install, $PG_CONFIG)"
  # li_build_in_place cleans objects built against another major first
  if ! (li_build_in_place "$REPO_DIR" >/tmp/learned_bench_build.log 2>&1 \
        && make -C "$REPO_DIR" -s PG_CONFIG="$PG_CONFIG" install >>/tmp/learned_bench_build.log 2>&1); then
    tail -30 /tmp/learned_bench_build.log >&2
    log "extension build FAILED (see /tmp/learned_bench_build.log); use --no-build --learned-am btree to test the harness"
    exit 1
  fi
fi
# Remember which library is installed, and check at the end that it was not swapped (a run
# with BENCH_INSTALL_LOCKED=1 from outside scripts/test.sh, or a checkout that ignores the lock).
SO_FILE="$("$PG_CONFIG" --pkglibdir)/learned_idx.so"
so_sum() { md5sum "$SO_FILE" 2>/dev/null | cut -d' ' -f1; }
SO_SUM0="$(so_sum)"

# ---------------------------------------------------------------- throwaway cluster
TMP="$(mktemp -d /tmp/learned_bench.XXXXXX)"
chown postgres:postgres "$TMP"
DATA="$TMP/data"
cleanup() {
  if [ "$KEEP" = 1 ]; then
    log "cluster left running: PGHOST=$TMP PGPORT=$PORT (stop: runuser -u postgres -- $PGBIN/pg_ctl -D $DATA stop)"
    return
  fi
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT

log "initdb in $DATA"
runuser -u postgres -- "$PGBIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
cat >> "$DATA/postgresql.conf" <<EOF
# learned_idx benchmark settings
port = $PORT
listen_addresses = '127.0.0.1'   # go-tpc connects over TCP (lib/pq); port is private
unix_socket_directories = '$TMP'
shared_buffers = $SB
work_mem = 256MB
maintenance_work_mem = 1GB
max_parallel_maintenance_workers = 0
max_parallel_workers_per_gather = 0
jit = off
autovacuum = off
fsync = off
synchronous_commit = off
full_page_writes = $FPW
max_wal_size = 32GB
checkpoint_timeout = 1h
track_io_timing = on
logging_collector = off
EOF

# Pin the server to the last CPU and the driver to the first one (benchmarking.md §2.4).
NCPU=$(nproc)
SRV_PIN=(); CLI_PIN=()
[ -z "$PIN" ] && { [ "$DYNAMIC" = 1 ] && PIN=0 || PIN=1; }
if [ "$PIN" = 1 ] && [ "$NCPU" -ge 2 ] && command -v taskset >/dev/null; then
  SRV_PIN=(taskset -c $((NCPU - 1))); CLI_PIN=(taskset -c 0)
fi
# (8>&- 7>&-: the server must not inherit the locks, or a --keep cluster would hold them)
runuser -u postgres -- "${SRV_PIN[@]}" "$PGBIN/pg_ctl" -D "$DATA" -l "$TMP/server.log" -w start >/dev/null 8>&- 7>&-
log "cluster up (socket $TMP, port $PORT, server pinned: ${SRV_PIN[*]:-no})"
SERVER_VERSION="$(runuser -u postgres -- "$PGBIN/psql" -h "$TMP" -p "$PORT" -X -At -c 'SHOW server_version' postgres)"
ASSERTS="$(runuser -u postgres -- "$PGBIN/psql" -h "$TMP" -p "$PORT" -X -At -c 'SHOW debug_assertions' postgres)"
log "PostgreSQL $SERVER_VERSION ($PGBIN), assertions $ASSERTS"
if [ "$ASSERTS" = on ]; then
  if [ "$SMOKE" = 1 ] || [ "${BENCH_ALLOW_CASSERT:-0}" = 1 ]; then
    log "WARNING: WARNING: this server has assertions on (--enable-cassert): its timings are not representative"
  else
    log "ERROR: this server ($PGBIN) has assertions on (--enable-cassert build): timings would measure"
    log "       the assertions. Use a build without them (PG_MAJOR=N picks the bench build), or set"
    log "       BENCH_ALLOW_CASSERT=1 to run anyway (the report says so)."
    exit 3
  fi
fi

STAMP="$(date +%Y-%m-%d_%H%M)"
COPY_TO=""
if [ -z "$OUT" ]; then
  # only default-location runs update bench/RESULTS.md (RESULTS_SWEEP.md)
  COPY_TO="$BENCH_DIR/RESULTS.md"; [ "$SWEEP" = 1 ] && COPY_TO="$BENCH_DIR/RESULTS_SWEEP.md"
  [ "$DYNAMIC" = 1 ] && COPY_TO="$BENCH_DIR/RESULTS_DYNAMIC.md"
  [ "$KEYS" = 1 ] && COPY_TO="$BENCH_DIR/RESULTS_KEYS.md"
  OUT="$BENCH_DIR/results/$STAMP"
  [ "$SMOKE" = 1 ] && { OUT="$TMP/smoke_out"; COPY_TO=""; }
  [ "$SWEEP" = 1 ] && OUT="${OUT}_sweep"
  [ "$DYNAMIC" = 1 ] && OUT="${OUT}_dynamic"
  [ "$KEYS" = 1 ] && OUT="${OUT}_keys"
fi
mkdir -p "$OUT/raw"
# absolute: the drivers hand paths under it to pgbench and to the server user
OUT=$(cd "$OUT" && pwd)

DRIVER="$BENCH_DIR/lib/bench.py"
if [ "$KEYS" = 1 ]; then
  DRIVER="$BENCH_DIR/lib/keys_bench.py"
elif [ "$DYNAMIC" = 1 ]; then
  DRIVER="$BENCH_DIR/lib/dynamic.py"
  PYARGS+=(--pgbin "$PGBIN" --datadir "$DATA")
else
  PYARGS+=(--pgbin "$PGBIN" --datadir "$DATA" --serverlog "$TMP/server.log" --port "$PORT" --gotpc "$GOTPC")
fi
set +e
PGHOST="$TMP" PGPORT="$PORT" PGUSER=postgres PGDATABASE=postgres \
  "${CLI_PIN[@]}" "$PY" "$DRIVER" --out "$OUT" --cmd "$ORIG_CMD" \
  --copy-to "$COPY_TO" \
  --server-pin "${SRV_PIN[*]:-none}" --client-pin "${CLI_PIN[*]:-none}" "${PYARGS[@]}"
rc=$?
set -e
cp "$TMP/server.log" "$OUT/raw/server.log" 2>/dev/null || true
if [ "$(so_sum)" != "$SO_SUM0" ]; then
  msg="**WARNING: $SO_FILE was replaced while this benchmark ran** (another checkout's make install): some measurements may be of another build of the extension."
  log "$msg"
  for f in "$OUT/report.md" ${COPY_TO:+"$COPY_TO"}; do
    [ -f "$f" ] && printf '\n> %s\n' "$msg" >>"$f"
  done
fi
if [ $rc -ne 0 ]; then
  log "benchmark driver failed (rc=$rc); server log tail:"
  tail -20 "$TMP/server.log" >&2 || true
  exit $rc
fi
log "done: $OUT/report.md"
