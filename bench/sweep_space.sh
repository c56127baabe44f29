#!/bin/bash
# Space under random inserts, the shape of issue 30's target 4 at a small
# scale: N int8 rows (k = 10 * i, default 1M), an index, then +50% random keys
# in 100-row INSERTs from 2 pgbench writers with 1 point-lookup reader; the
# index's size sampled every 0.3 s, at the writers' end, once the merge
# workers have exited ("settled"), after a VACUUM, and a fresh build of the
# same rows.  learned, then btree (SIDES="learned" or "btree" for one).
# A throwaway cluster of the given binaries (whose pkglibdir holds the
# learned_idx build to measure) on the given port.  Hold the bench lock:
#   flock /tmp/learned_idx_bench.lock bash bench/sweep_space.sh PGBIN PORT LABEL [N]
set -u
B=$1; PORT=$2; LABEL=$3; N=${4:-1000000}
D=/tmp/sweep_space_$LABEL; rm -rf $D; mkdir -p $D; chown postgres $D
# the cluster (gigabytes at 10M rows) is stopped and removed at exit; KEEP=1 keeps it
trap 'su postgres -c "$B/pg_ctl -D $D/data -m immediate stop" >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$D"' EXIT
su postgres -c "$B/initdb -D $D/data -A trust >/dev/null" || exit 1
su postgres -c "$B/pg_ctl -D $D/data -o '-p $PORT -k /tmp -c shared_buffers=1GB -c fsync=off -c synchronous_commit=off -c max_worker_processes=16 -c autovacuum=off' -l $D/log -w start >/dev/null" || exit 1
P="$B/psql -h /tmp -p $PORT -U postgres -X -q -At"
$P -c "create extension learned_idx" -c "create extension pg_freespacemap"
. "$(dirname "$0")/lib/space_breakdown.sh"
STMTS=$((N / 2 / 100))
for side in ${SIDES:-learned btree}; do
  $P -c "create table t_$side (k int8, v int8)" -c "insert into t_$side select 10*i, i from generate_series(1,$N) i order by random()"
  if [ $side = learned ]; then $P -c "create index i_$side on t_$side using learned (k)"; else $P -c "create index i_$side on t_$side (k)"; fi
  $P -c "vacuum analyze t_$side"
  base=$($P -c "select pg_relation_size('i_$side')/8192")
  cat > $D/w_$side.sql <<EOS
INSERT INTO t_$side (k, v) SELECT 10 * (1 + (random() * (:nrows - 1))::int8) + 1 + g % 9, -1 FROM generate_series(1, 100) g;
EOS
  cat > $D/r_$side.sql <<EOS
\set k 10 * random(1, :nrows)
SELECT v FROM t_$side WHERE k = :k;
EOS
  t0=$(date +%s)
  PGOPTIONS="-c synchronous_commit=off" $B/pgbench -h /tmp -p $PORT -U postgres -n -M prepared -c 2 -j 2 -t $((STMTS / 2)) -D nrows=$N -f $D/w_$side.sql postgres > $D/pgb_w_$side.log 2>&1 &
  W=$!
  PGOPTIONS="-c synchronous_commit=off" $B/pgbench -h /tmp -p $PORT -U postgres -n -M prepared -c 1 -T 100000 -D nrows=$N -f $D/r_$side.sql postgres > $D/pgb_r_$side.log 2>&1 &
  R=$!
  peak=$base
  while kill -0 $W 2>/dev/null; do
    sleep 0.3
    pg=$($P -c "select pg_relation_size('i_$side')/8192")
    [ -n "$pg" ] && [ "$pg" -gt "$peak" ] && peak=$pg
    echo "$side $(( $(date +%s) - t0 )) $pg" >> $D/samples
  done
  wait $W; kill $R; wait $R 2>/dev/null
  wall=$(( $(date +%s) - t0 ))
  end=$($P -c "select pg_relation_size('i_$side')/8192")
  # settle: wait (at most 30 s) until no merge worker runs
  for i in $(seq 1 60); do
    w=$($P -c "select count(*) from pg_stat_activity where backend_type = 'learned_idx merge'")
    [ "$w" = 0 ] && break; sleep 0.5
  done
  settled=$($P -c "select pg_relation_size('i_$side')/8192")
  [ $side = learned ] && echo "$LABEL learned breakdown settled: $(breakdown i_learned)"
  [ "$settled" -gt "$peak" ] && peak=$settled
  rows=$($P -c "select count(*) from t_$side")
  $P -c "vacuum t_$side"
  vac=$($P -c "select pg_relation_size('i_$side')/8192")
  [ $side = learned ] && echo "$LABEL learned breakdown vacuumed: $(breakdown i_learned)"
  if [ $side = learned ]; then $P -c "create index f_$side on t_$side using learned (k)"; else $P -c "create index f_$side on t_$side (k)"; fi
  fresh=$($P -c "select pg_relation_size('f_$side')/8192")
  $P -c "drop index f_$side"
  echo "$LABEL $side rows=$rows wall=${wall}s pages: base=$base peak=$peak end=$end settled=$settled vacuumed=$vac fresh=$fresh end/fresh=$(echo "scale=2; $end/$fresh" | bc) settled/fresh=$(echo "scale=2; $settled/$fresh" | bc) peak/fresh=$(echo "scale=2; $peak/$fresh" | bc) vacuumed/fresh=$(echo "scale=2; $vac/$fresh" | bc)"
  grep -E "tps|latency average" $D/pgb_w_$side.log | head -2 | sed "s/^/  $side writers: /"
done
if [[ "${SIDES:-learned btree}" == *learned* ]]; then
  $P -c "select learned_index_check('i_learned', true)"
  $P -c "select * from learned_index_info('i_learned')" -x | grep -E "merges|segments|pending_entries|total_pages" | tr '\n' ' '; echo
fi
su postgres -c "$B/pg_ctl -D $D/data -m fast stop >/dev/null"
