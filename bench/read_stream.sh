#!/usr/bin/env bash
# Read streams for range scans (issue 29): learned with learned_idx.read_stream off and on,
# pgbench statements on one table, shared buffers holding everything ("cached") and then
# debug_io_direct = data with tiny shared buffers ("disk": every page a scan misses is read
# from the disk, not from the OS page cache).
#
#   PG_MAJOR=18 flock /tmp/learned_idx_bench.lock bash bench/read_stream.sh [N] [SECS] [REPS]
#
# N rows (default 1,000,000), int8 keys 2, 4, 6 ... in heap order; a learned index on k.
# Statements, one client, -M prepared, random start keys: point (k = a), range100 and
# range10000 (k >= a AND k < a + 2 * rows: heap fetches, sum(v)), ios10000 (count(*) of the
# same range, index-only).  Each statement runs SECS seconds (default 3) per setting, the two
# settings interleaved, REPS times (default 3); the median tps of each is reported, with the
# index blocks read (pg_statio_user_indexes.idx_blks_read) per statement in the disk mode.
# Needs a major with read streams (17+) and debug_io_direct (16+): PG_MAJOR=18.
set -euo pipefail
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$BENCH_DIR/.." && pwd)"
. "$REPO_DIR/scripts/common.sh"
li_bench_pg
N="${1:-1000000}"
SECS="${2:-3}"
REPS="${3:-3}"
PORT="${PORT:-55530}"
DISK_SB="${DISK_SB:-128kB}"
SERVER_OPTS="${SERVER_OPTS:-}"          # e.g. "-c io_method=sync"
MODES="${MODES:-cached disk}"
STMTS="${STMTS:-point range100 range10000 ios10000}"
WORK="$(mktemp -d /tmp/learned_read_stream.XXXXXX)"
chown postgres "$WORK"
DATA="$WORK/data"
LOG="$WORK/server.log"
PSQL=("$LI_PGBIN/psql" -X -q -At -h "$WORK" -p "$PORT" -d postgres)

pgq() { runuser -u postgres -- "${PSQL[@]}" -c "$1"; }
start() {
    runuser -u postgres -- "$LI_PGBIN/pg_ctl" -D "$DATA" -l "$LOG" -w \
        -o "-p $PORT -k $WORK -c listen_addresses='' $SERVER_OPTS $1" start >/dev/null
}
stop() { runuser -u postgres -- "$LI_PGBIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null; }
cleanup() { stop 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

# a private copy of the server's installation, for this tree's extension: the shared one
# holds whatever another benchmark installed (and may install again) there
if [ -n "$LI_PG_PREFIX" ]; then
    cp -a "$LI_PG_PREFIX" "$WORK/pg"
    LI_PGBIN="$WORK/pg/bin"
    PG_CONFIG="$LI_PGBIN/pg_config"
    PSQL[0]="$LI_PGBIN/psql"
fi
(cd "$REPO_DIR" && make -s PG_CONFIG="$PG_CONFIG" && make -s install PG_CONFIG="$PG_CONFIG") >/dev/null
runuser -u postgres -- "$LI_PGBIN/initdb" -D "$DATA" -A trust >/dev/null
start "-c shared_buffers=1GB"
pgq "CREATE EXTENSION learned_idx"
pgq "CREATE TABLE t (k int8, v int8) WITH (fillfactor = 100)"
pgq "INSERT INTO t SELECT 2 * g, g FROM generate_series(1, $N) g"
pgq "CREATE INDEX t_k ON t USING learned (k)${WITH:+ WITH ($WITH)}"
pgq "VACUUM (ANALYZE) t"
echo "PostgreSQL: $(pgq 'SHOW server_version'), io_method $(pgq 'SHOW io_method' 2>/dev/null || echo -), $N rows"
echo "index: $(pgq "SELECT pg_size_pretty(pg_relation_size('t_k'))"), table: $(pgq "SELECT pg_size_pretty(pg_relation_size('t'))")"

mkscript() {  # name sql
    printf '\\set a random(1, %d)\n%s\n' "$((2 * N))" "$2" >"$WORK/$1.sql"
}
mkscript point "SELECT v FROM t WHERE k = :a;"
mkscript range100 "SELECT count(*), sum(v) FROM t WHERE k >= :a AND k < :a + 200;"
mkscript range10000 "SELECT count(*), sum(v) FROM t WHERE k >= :a AND k < :a + 20000;"
mkscript ios10000 "SELECT count(*) FROM t WHERE k >= :a AND k < :a + 20000;"
chown postgres "$WORK"/*.sql

run() {  # mode stmt setting -> "tps idx_blks_read_per_stmt"
    local out tx r0 r1
    r0="$(pgq "SELECT idx_blks_read FROM pg_statio_user_indexes WHERE indexrelname = 't_k'")"
    out="$(PGOPTIONS="-c learned_idx.read_stream=$3 -c enable_bitmapscan=off -c enable_seqscan=off" \
        runuser -u postgres -- "$LI_PGBIN/pgbench" -n -M prepared -h "$WORK" -p "$PORT" \
        -T "$SECS" -f "$WORK/$2.sql" postgres 2>&1)" || { echo "$out" | tail -5 >&2; tail -5 "$LOG" >&2; exit 1; }
    sleep 0.6   # the statistics of the run reach the cumulative counters
    r1="$(pgq "SELECT idx_blks_read FROM pg_statio_user_indexes WHERE indexrelname = 't_k'")"
    tx="$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")"
    awk -v t="$tx" -v s="$SECS" -v a="$r0" -v b="$r1" 'BEGIN { printf "%.1f %.2f\n", t / s, (b - a) / (t > 0 ? t : 1) }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for mode in $MODES; do
    if [ "$mode" = disk ]; then
        stop
        start "-c shared_buffers=$DISK_SB -c debug_io_direct=data"
    else
        for s in $STMTS; do run cached "$s" on >/dev/null; done  # warm
    fi
    echo
    echo "## $mode$([ "$mode" = disk ] && echo " (shared_buffers $DISK_SB, debug_io_direct = data)")"
    echo "| statement | stream off, tps | stream on, tps | on / off | index blocks read per statement, off / on |"
    echo "|---|---|---|---|---|"
    for s in $STMTS; do
        : >"$WORK/off"; : >"$WORK/on"
        for ((i = 0; i < REPS; i++)); do
            run "$mode" "$s" off >>"$WORK/off"
            run "$mode" "$s" on >>"$WORK/on"
        done
        off="$(cut -d' ' -f1 "$WORK/off" | median)"; on="$(cut -d' ' -f1 "$WORK/on" | median)"
        roff="$(cut -d' ' -f2 "$WORK/off" | median)"; ron="$(cut -d' ' -f2 "$WORK/on" | median)"
        awk -v s="$s" -v a="$off" -v b="$on" -v ra="$roff" -v rb="$ron" -v all="$(tr '\n' ' ' <"$WORK/off") / $(tr '\n' ' ' <"$WORK/on")" \
            'BEGIN { printf "| %s | %s | %s | %.3f | %s / %s |\n", s, a, b, b / a, ra, rb }'
        echo "<!-- $s runs (tps blocks): off $(tr '\n' ',' <"$WORK/off") on $(tr '\n' ',' <"$WORK/on") -->"
    done
done
