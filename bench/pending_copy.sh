#!/usr/bin/env bash
# bench/pending_copy.sh: what a backend's sorted copy of the pending list's
# unsorted tail costs: its memory, the backend's whole memory after its
# lookups, and the first index scan of a new backend (which loads the
# copy), against the same scan once the copy is loaded, and against a
# btree index on the same rows.  PENDING entries are inserted since the
# last merge; with learned_idx.tail_limit (TAIL_LIMIT, default the GUC's
# 4096) inserts flush them into sorted runs, which cost a backend no copy.
#
#   bash bench/pending_copy.sh [ROWS] [PENDING] [BACKENDS]
#                                       (defaults: 1000000 786000 5)
#
# Run as root or postgres on Debian 12 + PostgreSQL 15 with the extension
# installed (make install).  Starts a throwaway cluster (port PBENCH_PORT,
# default 5514), builds a learned index on ROWS int8 keys (random heap
# order), appends PENDING random keys with merges held off (merge_ratio = 1,
# pending_limit = 1000000 kB), prewarms the index, then in each of BACKENDS
# new connections times a first point lookup (the full load) and a second
# one, and prints the copy's context size and the sum of every context
# (pg_backend_memory_contexts), then the same for a btree index on a copy
# of the table.  786,000 int8 entries fill the default 12 MB pending_limit.
set -euo pipefail
ROWS="${1:-1000000}"
PENDING="${2:-786000}"
BACKENDS="${3:-5}"
. "$(dirname "$0")/../scripts/common.sh"
li_bench_pg   # PG_MAJOR (default 15): its build without assertions
li_throwaway_cluster pbench "${PBENCH_PORT:-5514}" "shared_buffers = 1GB" \
	"fsync = off" "autovacuum = off" "jit = off"
P() { li_as_pg psql -qAtX postgres "$@"; }
P -c "CREATE EXTENSION learned_idx" -c "CREATE EXTENSION pg_prewarm" >/dev/null
P -c "CREATE TABLE t AS SELECT (i * 10)::int8 AS k FROM generate_series(1, $ROWS) i ORDER BY random()" \
  -c "CREATE INDEX t_k ON t USING learned (k) WITH (merge_ratio = 1, pending_limit = 1000000)" \
  -c "VACUUM ANALYZE t" >/dev/null
TL=""
[ -n "${TAIL_LIMIT:-}" ] && TL="SET learned_idx.tail_limit = $TAIL_LIMIT;"
P -c "$TL INSERT INTO t SELECT (random() * $ROWS)::int8 * 10 + 1 FROM generate_series(1, $PENDING)" >/dev/null
P -c "CREATE TABLE tb AS SELECT * FROM t" -c "CREATE INDEX tb_k ON tb (k)" -c "VACUUM ANALYZE tb" >/dev/null
P -c "SELECT pg_prewarm('t_k')" -c "SELECT pg_prewarm('tb_k')" >/dev/null
echo "== $ROWS static, $(P -c "SELECT pending_entries FROM learned_index_info('t_k')") pending entries," \
	"$(P -c "SELECT count(*) FROM learned_index_runs('t_k') WHERE run IS NOT NULL") sorted runs," \
	"tail $(P -c "SELECT entries FROM learned_index_runs('t_k') WHERE run IS NULL")"
echo "backend | first lookup (full load) | second lookup | copy bytes | backend bytes"
lookups() {
	local tab="$1" b="$2"
	P -c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off" -c '\timing on' \
	  -c "SELECT count(*) FROM $tab WHERE k = 5000" -c "SELECT count(*) FROM $tab WHERE k = 5010" \
	  -c "SELECT coalesce((SELECT sum(total_bytes) FROM pg_backend_memory_contexts
	      WHERE name = 'learned pending copy' AND ident = 't_k'), 0), (SELECT sum(total_bytes) FROM pg_backend_memory_contexts)" |
	awk -v b="$b" '/^Time:/ { t[++n] = $2 " ms" } /\|/ { m = $0 }
		END { split(m, f, "|"); printf "%7s | %24s | %13s | %10s | %s\n", b, t[1], t[2], f[1], f[2] }'
}
for i in $(seq 1 "$BACKENDS"); do
	lookups t "$i"
done
for i in $(seq 1 "$BACKENDS"); do
	lookups tb "btree $i"
done
