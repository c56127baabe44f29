#!/bin/bash
# Merges that reach only part of a segment (merge.c, partial_rewrite).
# TPC-C-like order lines: a composite key (d, o, n) over D districts of O
# orders of 10 lines, then ROUNDS rounds, each adding, per district, NEW new
# orders at the district's end (keys that grow at D places) and NEW orders'
# worth of copies of old keys at a moving delivery frontier (TPC-C's
# deliveries update the oldest undelivered orders' lines: each non-HOT
# update is a new index entry with the same key).  Measured for a learned
# index (a learned_index_merge after each round, its WAL counted apart) and
# for a btree on a copy of the table, one after the other: WAL bytes per
# new entry (the round's INSERTs plus, for learned, the merge), the
# learned index's merge WAL per round and segments, the index's pages at
# the end against a fresh build, and learned_index_check.  A throwaway
# cluster of the given binaries (whose pkglibdir holds the learned_idx build
# to measure) on the given port.  Hold the bench lock:
#   flock /tmp/learned_idx_bench.lock bash bench/partial_rewrite.sh PGBIN PORT LABEL [D] [O] [NEW] [ROUNDS]
set -u
B=$1; PORT=$2; LABEL=$3; D=${4:-20}; O=${5:-3000}; NEW=${6:-300}; ROUNDS=${7:-5}
DIR=/tmp/partial_rewrite_$LABEL; rm -rf $DIR; mkdir -p $DIR; chown postgres $DIR
trap 'su postgres -c "$B/pg_ctl -D $DIR/data -m immediate stop" >/dev/null 2>&1; rm -rf "$DIR"' EXIT
su postgres -c "$B/initdb -D $DIR/data -A trust >/dev/null" || exit 1
su postgres -c "$B/pg_ctl -D $DIR/data -o '-p $PORT -k /tmp -c shared_buffers=512MB -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_wal_size=32GB -c checkpoint_timeout=3600 -c autovacuum=off' -l $DIR/log -w start >/dev/null" || exit 1
P="$B/psql -h /tmp -p $PORT -U postgres -X -q -At"
$P -c "create extension learned_idx"
for side in learned btree; do
  opts=""; [ $side = learned ] && opts="with (merge_ratio = 50)"
  $P -c "create table t_$side (d int, o int, n int, v int)" \
     -c "insert into t_$side select d, o, n, 0 from generate_series(1, $D) d, generate_series(1, $O) o, generate_series(1, 10) n" \
     -c "create index i_$side on t_$side using $side (d, o, n) $opts" -c "vacuum analyze t_$side" -c "checkpoint"
  pages0=$($P -c "select pg_relation_size('i_$side') / 8192")
  wal=0; mwal=0; merges=""
  for r in $(seq 1 $ROUNDS); do
    b=$($P -c "select pg_current_wal_insert_lsn()")
    $P -c "set learned_idx.auto_merge = off" \
       -c "insert into t_$side select d, $O + ($r - 1) * $NEW + o, n, $r from generate_series(1, $D) d, generate_series(1, $NEW) o, generate_series(1, 10) n" \
       -c "insert into t_$side select d, ($O * 2 / 3) + ($r - 1) * $NEW + o, n, -$r from generate_series(1, $D) d, generate_series(1, $NEW) o, generate_series(1, 10) n"
    if [ $side = learned ]; then
      m=$($P -c "select pg_current_wal_insert_lsn()")
      $P -c "select learned_index_merge('i_$side')" >/dev/null
      mw=$($P -c "select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$m')")
      mwal=$((mwal + mw)); merges="$merges $((mw / 1024))"
    fi
    wal=$((wal + $($P -c "select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$b')")))
  done
  new=$((D * NEW * 20 * ROUNDS))
  pages=$($P -c "select pg_relation_size('i_$side') / 8192")
  $P -c "create index f_$side on t_$side using $side (d, o, n)"
  fresh=$($P -c "select pg_relation_size('f_$side') / 8192")
  extra=""
  [ $side = learned ] && extra="merge WAL kB per round:$merges (total $((mwal / new)) B/entry) segments $($P -c "select segments from learned_index_info('i_$side')") check $($P -c "select learned_index_check('i_$side', true)")"
  echo "$LABEL $side: WAL/new entry $((wal / new)) pages $pages0 -> $pages fresh $fresh ($(echo "scale=2; $pages / $fresh" | bc)x) $extra"
done
