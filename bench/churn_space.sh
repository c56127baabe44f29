#!/bin/bash
# Space over rounds of delete/insert/VACUUM, the shape of issue 30's target 5
# at a small scale: N int8 rows (k = 10 * i, default 300k) and a learned
# index, then ROUNDS rounds (default 10) of: delete 10% of the rows at
# random, insert 10% random keys in 100-row INSERTs from 2 pgbench writers,
# wait for the merge workers, VACUUM.  Prints the index's pages after each
# round and a fresh build's at the end, and learned_index_check; CENSUS=1
# also prints where the pages are after each round (lib/space_breakdown.sh).  A
# throwaway cluster of the given binaries (whose pkglibdir holds the
# learned_idx build to measure) on the given port.  COLS="k, v" indexes two
# columns (a composite key, on variable-width pages) instead of k alone.
# Hold the bench lock:
#   flock /tmp/learned_idx_bench.lock bash bench/churn_space.sh PGBIN PORT LABEL [N] [ROUNDS]
set -u
B=$1; PORT=$2; LABEL=$3; N=${4:-300000}; R=${5:-10}; COLS=${COLS:-k}
D=/tmp/churn_space_$LABEL; rm -rf $D; mkdir -p $D; chown postgres $D
# the cluster (gigabytes at 10M rows) is stopped and removed at exit; KEEP=1 keeps it
trap 'su postgres -c "$B/pg_ctl -D $D/data -m immediate stop" >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$D"' EXIT
su postgres -c "$B/initdb -D $D/data -A trust >/dev/null" || exit 1
su postgres -c "$B/pg_ctl -D $D/data -o '-p $PORT -k /tmp -c shared_buffers=512MB -c fsync=off -c synchronous_commit=off -c max_worker_processes=16 -c autovacuum=off' -l $D/log -w start >/dev/null" || exit 1
P="$B/psql -h /tmp -p $PORT -U postgres -X -q -At"
$P -c "create extension learned_idx" -c "create extension pg_freespacemap"
. "$(dirname "$0")/lib/space_breakdown.sh"
$P -c "create table t (k int8, v int8)" -c "insert into t select 10*i, i from generate_series(1,$N) i order by random()" -c "create index i on t using learned ($COLS)" -c "vacuum analyze t"
echo "INSERT INTO t (k, v) SELECT 10 * (1 + (random() * (:nrows - 1))::int8) + 1 + g % 9, -1 FROM generate_series(1, 100) g;" > $D/w.sql
line="$LABEL pages after each round:"
for r in $(seq 1 $R); do
  $P -c "delete from t where ctid in (select ctid from t tablesample bernoulli (10))"
  $B/pgbench -h /tmp -p $PORT -U postgres -n -M prepared -c 2 -j 2 -t $((N / 10 / 200)) -D nrows=$N -f $D/w.sql postgres > $D/pgb.log 2>&1
  for i in $(seq 1 60); do
    w=$($P -c "select count(*) from pg_stat_activity where backend_type = 'learned_idx merge'")
    [ "$w" = 0 ] && break; sleep 0.5
  done
  $P -c "vacuum t"
  line="$line $($P -c "select pg_relation_size('i')/8192")"
  # CENSUS=1: where the pages are after each round's VACUUM
  [ -n "${CENSUS:-}" ] && echo "$LABEL round $r: $(breakdown i)"
done
$P -c "create index f on t using learned ($COLS)"
fresh=$($P -c "select pg_relation_size('f')/8192")
echo "$line fresh=$fresh rows=$($P -c 'select count(*) from t') check=$($P -c "select learned_index_check('i', true)")"
su postgres -c "$B/pg_ctl -D $D/data -m fast stop >/dev/null"
