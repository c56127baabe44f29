#!/bin/bash
# Keys that grow at several places at once (one counter per tenant, district
# or device; TPC-C's order lines grow at one place per district): N int8 rows
# over PLACES places (k = place * 10^12 + i), then NEW more rows in 100-row
# INSERTs from 2 pgbench clients, each INSERT at a random place, past that
# place's keys so far.  Measured for a learned index and for a btree on a
# copy of the table, one after the other: rows/s, WAL bytes per new row
# (the learned side's merges included, and a final learned_index_merge),
# the index's pages at the end against a fresh build of the same rows, and
# the learned index's segments, merges and learned_index_check.  A
# throwaway cluster of the given binaries (whose pkglibdir holds the
# learned_idx build to measure) on the given port.  Hold the bench lock:
#   flock /tmp/learned_idx_bench.lock bash bench/append_points.sh PGBIN PORT LABEL [N] [NEW] [PLACES]
set -u
B=$1; PORT=$2; LABEL=$3; N=${4:-1000000}; NEW=${5:-500000}; PLACES=${6:-20}
D=/tmp/append_points_$LABEL; rm -rf $D; mkdir -p $D; chown postgres $D
trap 'su postgres -c "$B/pg_ctl -D $D/data -m immediate stop" >/dev/null 2>&1; rm -rf "$D"' EXIT
su postgres -c "$B/initdb -D $D/data -A trust >/dev/null" || exit 1
su postgres -c "$B/pg_ctl -D $D/data -o '-p $PORT -k /tmp -c shared_buffers=512MB -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_wal_size=32GB -c checkpoint_timeout=3600 -c max_worker_processes=16 -c autovacuum=off' -l $D/log -w start >/dev/null" || exit 1
P="$B/psql -h /tmp -p $PORT -U postgres -X -q -At"
$P -c "create extension learned_idx" -c "create sequence g"
for side in learned btree; do
  $P -c "create table t_$side (k int8, v int8)" \
     -c "insert into t_$side select (i % $PLACES) * 1000000000000 + i, i from generate_series(1, $N) i order by random()" \
     -c "create index i_$side on t_$side using $side (k)" -c "vacuum analyze t_$side"
done
for side in learned btree; do
  echo "\\set p random(0, $((PLACES - 1)))
INSERT INTO t_$side SELECT :p * 1000000000000 + $N + nextval('g'), 0 FROM generate_series(1, 100);" > $D/w.sql
  $P -c "checkpoint"
  before=$($P -c "select pg_current_wal_insert_lsn()")
  pages0=$($P -c "select pg_relation_size('i_$side') / 8192")
  $B/pgbench -h /tmp -p $PORT -U postgres -n -M prepared -c 2 -j 2 -t $((NEW / 200)) -f $D/w.sql postgres > $D/pgb.log 2>&1
  tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' $D/pgb.log | head -1)
  if [ $side = learned ]; then
    for i in $(seq 1 120); do
      w=$($P -c "select count(*) from pg_stat_activity where backend_type = 'learned_idx merge'")
      [ "$w" = 0 ] && break; sleep 0.5
    done
    $P -c "select learned_index_merge('i_$side')" >/dev/null
  fi
  wal=$($P -c "select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$before')")
  rows=$($P -c "select count(*) from t_$side")
  pages=$($P -c "select pg_relation_size('i_$side') / 8192")
  $P -c "create index f_$side on t_$side using $side (k)"
  fresh=$($P -c "select pg_relation_size('f_$side') / 8192")
  extra=""
  [ $side = learned ] && extra="$($P -c "select 'segments ' || segments || ' merges ' || merges from learned_index_info('i_$side')") check $($P -c "select learned_index_check('i_$side', true)")"
  echo "$LABEL $side: rows/s $(echo "$tps * 100" | bc) WAL/row $((wal / (rows - N))) pages $pages0 -> $pages fresh $fresh ($(echo "scale=2; $pages / $fresh" | bc)x) $extra"
done
