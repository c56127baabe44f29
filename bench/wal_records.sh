#!/usr/bin/env bash
# bench/wal_records.sh: what one insert writes to WAL, learned vs btree,
# record by record (pg_waldump --stats=record).
#
#   bash bench/wal_records.sh [ROWS] [NEW] [TYPE]   (defaults: 100000 10000 int8)
#
# TYPE int8 appends keys ROWS+1.. ; TYPE timestamptz appends one key a
# millisecond from 2026-01-01 on (a time-series table: its keys have 7
# significant bytes, which an int8 key below 2^32 does not).
#
# Run as root or postgres on Debian 12 + PostgreSQL 15 with the extension
# installed (make install).  Starts a throwaway cluster (port WBENCH_PORT,
# default 5513, full_page_writes = off, no merges: merge_ratio = 1 and the
# default pending_limit hold NEW entries), loads ROWS keys 1..ROWS into one
# table per index, then appends NEW keys above them in one INSERT, and
# prints the WAL bytes per row and pg_waldump's per-record statistics of
# that INSERT, plus a few sample records.  WAL records are 8-byte aligned:
# the LSN difference counts a 74-byte record as 80.
set -euo pipefail
ROWS="${1:-100000}"
NEW="${2:-10000}"
TYPE="${3:-int8}"
case "$TYPE" in
	int8) KEY() { echo "generate_series($1, $2)"; } ;;
	timestamptz) KEY() { echo "timestamptz '2026-01-01 00:00:00+00' + generate_series($1, $2) * interval '1 ms'"; } ;;
	*) echo "wal_records.sh: TYPE must be int8 or timestamptz" >&2; exit 2 ;;
esac
. "$(dirname "$0")/../scripts/common.sh"
li_bench_pg   # PG_MAJOR (default 15): its build without assertions
li_throwaway_cluster wbench "${WBENCH_PORT:-5513}" "shared_buffers = 256MB" \
	"full_page_writes = off" "autovacuum = off"
W="$LI_THROWAWAY_DIR"
P() { li_as_pg psql -qAtX postgres "$@"; }
P -c "CREATE EXTENSION learned_idx" >/dev/null
for am in learned btree; do
	P -c "CREATE TABLE t_$am (k $TYPE)" \
	  -c "INSERT INTO t_$am SELECT $(KEY 1 "$ROWS")" \
	  -c "CREATE INDEX i_$am ON t_$am USING $am (k)" >/dev/null
	[ "$am" = learned ] && P -c "ALTER INDEX i_$am SET (merge_ratio = 1)" >/dev/null
	P -c "CHECKPOINT" >/dev/null
	s=$(P -c "SELECT pg_current_wal_insert_lsn()")
	P -c "INSERT INTO t_$am SELECT $(KEY "$ROWS + 1" "$ROWS + $NEW")" >/dev/null
	e=$(P -c "SELECT pg_current_wal_insert_lsn()")
	echo "== $am: $(P -c "SELECT round(pg_wal_lsn_diff('$e', '$s') / $NEW, 1)") WAL bytes per row (heap + index)"
	li_as_pg "$LI_PGBIN/pg_waldump" -p "$W/data/pg_wal" -s "$s" -e "$e" --stats=record 2>/dev/null | sed -n '2,12p'
	li_as_pg "$LI_PGBIN/pg_waldump" -p "$W/data/pg_wal" -s "$s" -e "$e" 2>/dev/null | grep -m2 -E "Generic|INSERT_LEAF" || true
done
