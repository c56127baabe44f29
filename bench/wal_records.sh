#!/usr/bin/env bash
# bench/wal_records.sh: what one insert writes to WAL, learned vs btree,
# record by record (pg_waldump --stats=record).
#
#   bash bench/wal_records.sh [ROWS] [NEW]      (defaults: 100000 10000)
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
PORT="${WBENCH_PORT:-5513}"
PGBIN=/usr/lib/postgresql/15/bin
W="$(mktemp -d /tmp/wbench.XXXXXX)"
asuser() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" -eq 0 ] && chown postgres "$W"
cleanup() { asuser "$PGBIN/pg_ctl" -D "$W/db" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$W"; }
trap cleanup EXIT
asuser "$PGBIN/initdb" -D "$W/db" -A trust >/dev/null
cat >> "$W/db/postgresql.conf" <<CONF
port = $PORT
listen_addresses = ''
unix_socket_directories = '$W'
shared_buffers = 256MB
full_page_writes = off
autovacuum = off
CONF
asuser "$PGBIN/pg_ctl" -D "$W/db" -l "$W/server.log" -w start >/dev/null
P() { asuser psql -qAtX -h "$W" -p "$PORT" postgres "$@"; }
P -c "CREATE EXTENSION learned_idx" >/dev/null
for am in learned btree; do
	P -c "CREATE TABLE t_$am (k int8)" \
	  -c "INSERT INTO t_$am SELECT generate_series(1, $ROWS)" \
	  -c "CREATE INDEX i_$am ON t_$am USING $am (k)" >/dev/null
	[ "$am" = learned ] && P -c "ALTER INDEX i_$am SET (merge_ratio = 1)" >/dev/null
	P -c "CHECKPOINT" >/dev/null
	s=$(P -c "SELECT pg_current_wal_insert_lsn()")
	P -c "INSERT INTO t_$am SELECT generate_series($ROWS + 1, $ROWS + $NEW)" >/dev/null
	e=$(P -c "SELECT pg_current_wal_insert_lsn()")
	echo "== $am: $(P -c "SELECT round(pg_wal_lsn_diff('$e', '$s') / $NEW, 1)") WAL bytes per row (heap + index)"
	asuser "$PGBIN/pg_waldump" -p "$W/db/pg_wal" -s "$s" -e "$e" --stats=record 2>/dev/null | sed -n '2,12p'
	asuser "$PGBIN/pg_waldump" -p "$W/db/pg_wal" -s "$s" -e "$e" 2>/dev/null | grep -m2 -E "Generic|INSERT_LEAF" || true
done
