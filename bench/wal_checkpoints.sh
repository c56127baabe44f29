#!/usr/bin/env bash
# bench/wal_checkpoints.sh: WAL per random insert, merges included, learned
# against btree, with and without checkpoints during the inserts.
#
#   bash bench/wal_checkpoints.sh [ROWS] [NEW] [BATCH] [LIB]
#   (defaults: 10000000 1000000 100, the installed learned_idx.so)
#
# Three tables get the same ROWS random int8 keys (hashint8 of 1..ROWS): one
# without an index (the heap's own WAL), one with a btree, one with a
# learned index.  Then each in turn, from a CHECKPOINT, gets NEW more random
# keys in BATCH-row INSERTs from 2 pgbench clients; for the learned index a
# final learned_index_merge merges what the run left pending, and its WAL is
# counted (the merge worker's WAL during the run is counted as well: the
# measure is the LSN difference over the whole cluster).  Each table is
# measured under two settings, in turn:
#
#   nockpt   full_page_writes = off, no checkpoint during the run: the cost of
#            the records alone (the setting of bench/run.sh's WAL figures);
#   default  full_page_writes = on, checkpoint_timeout = 5min and
#            max_wal_size = 1GB (PostgreSQL's defaults): a page's first
#            change after a checkpoint logs its full image, as on a
#            production server.
#
# NEW keys after one checkpoint is one checkpoint interval of a table that
# receives NEW / 300 inserts per second: the full-page images it pays are
# what such a server pays for every interval.  Prints, per setting, the
# WAL bytes per inserted row of each table, the index's share (the table's
# minus the no-index table's), and learned / btree for both.
#
# Run as root or postgres on Debian 12 with the extension installed (or LIB:
# a learned_idx.so built elsewhere); throwaway cluster on port WCKPT_PORT
# (default 5519).  Takes about 5 minutes at the defaults; hold the bench lock
# (flock /tmp/learned_idx_bench.lock) on a shared machine.
set -euo pipefail
ROWS="${1:-10000000}"
NEW="${2:-1000000}"
BATCH="${3:-100}"
LIB="${4:-}"
. "$(dirname "$0")/../scripts/common.sh"
li_bench_pg   # PG_MAJOR (default 15): its build without assertions
li_throwaway_cluster wckpt "${WCKPT_PORT:-5519}" "shared_buffers = 2GB" "synchronous_commit = off" \
	"autovacuum = off" "jit = off" "max_parallel_workers_per_gather = 0" \
	"max_parallel_maintenance_workers = 0" "maintenance_work_mem = 1GB"
W="$LI_THROWAWAY_DIR"
P() { li_as_pg psql -qAtX -v ON_ERROR_STOP=1 postgres "$@"; }
li_create_extension "$LIB"
P -c "CREATE SEQUENCE s"
if [ "$BATCH" -gt 1 ]; then
	printf 'SELECT nextval(%s) AS b \\gset\nINSERT INTO :tab SELECT hashint8(g) FROM generate_series(%d + (:b - 1) * %d + 1, %d + :b * %d) g;\n' \
		"'s'" "$ROWS" "$BATCH" "$ROWS" "$BATCH" | li_as_pg tee "$W/ins.sql" >/dev/null
else
	printf 'INSERT INTO :tab VALUES (hashint8(%d + nextval(%s)));\n' "$ROWS" "'s'" |
		li_as_pg tee "$W/ins.sql" >/dev/null
fi
TX=$((NEW / BATCH / 2))
lsn() { P -c "SELECT pg_current_wal_insert_lsn()"; }
# checkpoints so far (17 moved the counters to pg_stat_checkpointer)
if [ "$(P -c "SHOW server_version_num")" -ge 170000 ]; then
	ckpts() { P -c "SELECT num_timed + num_requested FROM pg_stat_checkpointer"; }
else
	ckpts() { P -c "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter"; }
fi
# settings NAME: the WAL settings of a measurement, reloaded
settings() {
	if [ "$1" = nockpt ]; then
		P -c "ALTER SYSTEM SET full_page_writes = off" -c "ALTER SYSTEM SET checkpoint_timeout = '1h'" \
		  -c "ALTER SYSTEM SET max_wal_size = '32GB'" >/dev/null
	else
		P -c "ALTER SYSTEM RESET full_page_writes" -c "ALTER SYSTEM RESET checkpoint_timeout" \
		  -c "ALTER SYSTEM RESET max_wal_size" >/dev/null
	fi
	P -c "SELECT pg_reload_conf()" >/dev/null
}
# measure SETTING TABLE: WAL bytes per row of NEW inserts into TABLE, from
# the same ROWS rows (TABLE is rebuilt first)
measure() {
	local set="$1" t="$2" s e c
	P -c "DROP TABLE IF EXISTS $t" -c "CREATE TABLE $t (k int8)" \
	  -c "INSERT INTO $t SELECT hashint8(g) FROM generate_series(1, $ROWS) g" >/dev/null
	case "$t" in
		t_btree) P -c "CREATE INDEX ON $t USING btree (k)" >/dev/null ;;
		t_learned) P -c "CREATE INDEX i_learned ON $t USING learned (k)" >/dev/null ;;
	esac
	P -c "VACUUM ANALYZE $t" -c "ALTER SEQUENCE s RESTART" -c "CHECKPOINT" >/dev/null
	s=$(lsn)
	c=$(ckpts)
	li_as_pg "$LI_PGBIN/pgbench" -n -c 2 -j 2 -t "$TX" -D tab="$t" -f "$W/ins.sql" postgres >/dev/null
	if [ "$t" = t_learned ]; then
		P -c "SELECT learned_index_merge('i_learned')" >/dev/null
	fi
	e=$(lsn)
	WAL[$set.$t]=$(P -c "SELECT pg_wal_lsn_diff('$e', '$s')")
	CKPT[$set.$t]=$(($(ckpts) - c))
}
declare -A WAL CKPT
for set in nockpt default; do
	settings "$set"
	for t in t_none t_btree t_learned; do
		measure "$set" "$t"
	done
done
echo "WAL per random insert: $ROWS rows, +$NEW random int8 keys in $BATCH-row INSERTs, 2 clients;"
echo "learned: final learned_index_merge counted; library ${LI_SOFILE}"
printf '%-8s %12s %12s %12s %14s %14s %10s %10s\n' setting none_B/row btree_B/row learned_B/row \
	btree_idx_B/row learned_idx_B/row total_l/b index_l/b
for set in nockpt default; do
	awk -v s="$set" -v n="${WAL[$set.t_none]}" -v b="${WAL[$set.t_btree]}" -v l="${WAL[$set.t_learned]}" \
		-v rows="$NEW" 'BEGIN {
		printf "%-8s %12.1f %12.1f %12.1f %14.1f %14.1f %10.3f %10.3f\n", s, n / rows, b / rows, l / rows,
			(b - n) / rows, (l - n) / rows, l / b, (l - n) / (b - n) }'
done
for set in nockpt default; do
	echo "$set: checkpoints during the run: none ${CKPT[$set.t_none]}, btree ${CKPT[$set.t_btree]}, learned ${CKPT[$set.t_learned]}"
done
