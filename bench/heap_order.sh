#!/usr/bin/env bash
# bench/heap_order.sh: learned vs btree on int8 keys whose heap order follows
# the key order (a serial or time column: the TIDs are a sawtooth of
# offsets over consecutive blocks) and on the same keys in random heap order.
#
#   bash bench/heap_order.sh [ROWS] [PROBES]      (defaults: 10000000 500000)
#
# Run as root or postgres on Debian 12 + PostgreSQL 15 with the extension
# installed (make install).  Starts a throwaway cluster (port HBENCH_PORT,
# default 5515), prints per table and index: build time (3 learned builds,
# 1 btree), index size, the distinct entries-per-page of the learned
# segments, and the time of PROBES nested-loop lookups (3 runs each,
# learned and btree alternating).
set -euo pipefail
ROWS="${1:-10000000}"
PROBES="${2:-500000}"
. "$(dirname "$0")/../scripts/common.sh"
li_bench_pg   # PG_MAJOR (default 15): its build without assertions
li_throwaway_cluster hbench "${HBENCH_PORT:-5515}" "shared_buffers = 2GB" "fsync = off" \
	"maintenance_work_mem = 1GB" "autovacuum = off" "max_parallel_maintenance_workers = 0" \
	"max_parallel_workers_per_gather = 0" "jit = off"
P() { li_as_pg psql -qAtX -v ON_ERROR_STOP=1 postgres "$@"; }
P -c "CREATE EXTENSION learned_idx" -c "CREATE EXTENSION pg_prewarm" >/dev/null
P -c "CREATE TABLE probe AS SELECT 1 + (hashint8(i) & 2147483647) % $ROWS AS k FROM generate_series(1, $PROBES) i" >/dev/null
for order in heap random; do
	sort=""
	[ "$order" = random ] && sort="ORDER BY hashint8(i)"
	for am in learned btree; do
		P -c "CREATE TABLE t_${order}_$am (k int8 NOT NULL, v int8)" \
		  -c "INSERT INTO t_${order}_$am SELECT i, i FROM generate_series(1, $ROWS) i $sort" \
		  -c "VACUUM ANALYZE t_${order}_$am" >/dev/null
	done
	for rep in 1 2 3; do
		P -c "SET client_min_messages = warning" -c "DROP INDEX IF EXISTS i_${order}_learned" -c '\timing on' \
		  -c "CREATE INDEX i_${order}_learned ON t_${order}_learned USING learned (k)" |
			awk -v o="$order" '/^Time/ {print o " keys: learned build " $2 " ms"}'
	done
	P -c '\timing on' -c "CREATE INDEX i_${order}_btree ON t_${order}_btree (k)" |
		awk -v o="$order" '/^Time/ {print o " keys: btree build " $2 " ms"}'
	P -c "SELECT '$order keys: size learned ' || pg_relation_size('i_${order}_learned') ||
	             ' B, btree ' || pg_relation_size('i_${order}_btree') || ' B; learned entries per page ' ||
	             (SELECT string_agg(DISTINCT items_per_page::text, ',') FROM learned_index_segments('i_${order}_learned'))"
	for am in learned btree; do
		P -c "SELECT pg_prewarm('t_${order}_$am'), pg_prewarm('i_${order}_$am')" >/dev/null
	done
	for rep in 1 2 3; do
		for am in learned btree; do
			P -c "SET enable_hashjoin = off" -c "SET enable_mergejoin = off" -c "SET enable_material = off" \
			  -c "SET enable_memoize = off" -c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off" \
			  -c '\timing on' -c "SELECT sum(v) FROM probe JOIN t_${order}_$am USING (k)" |
				awk -v o="$order" -v a="$am" -v n="$PROBES" '/^Time/ {printf "%s keys: %s %d lookups %s ms (%.2f us each)\n", o, a, n, $2, $2 * 1000 / n}'
		done
	done
done
