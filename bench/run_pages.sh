#!/bin/bash
# The bytes of sorted runs and the index WAL of random inserts, short:
#  A. N int8 rows (k = 10 * i, in random order), a learned index, then 300k
#     random keys in 100-row INSERTs with merges off: the runs' data pages
#     per entry (learned_index_runs) and the index's size;
#  B. a fresh table of N rows, a CHECKPOINT, then 2 x NB single-row random
#     INSERTs from 2 pgbench clients (merges on, as configured by default),
#     the merge workers waited for: pg_waldump --stats=record over them,
#     and the index's WAL (generic records, log_newpage images, btree's
#     records) an insert.  full_page_writes on, no checkpoint in the run.
# AM=btree runs B for a btree instead (A is skipped).
# A throwaway cluster of the given binaries (whose pkglibdir holds the
# learned_idx build to measure) on the given port.  Hold the bench lock:
#   flock /tmp/learned_idx_bench.lock bash bench/run_pages.sh PGBIN PORT LABEL [N]
# (NB: default 50000 inserts a client.)
set -u
B=$1; PORT=$2; LABEL=$3; N=${4:-1000000}
D=/tmp/run_pages_$LABEL; rm -rf $D; mkdir -p $D; chown postgres $D
trap 'su postgres -c "$B/pg_ctl -D $D/data -m immediate stop" >/dev/null 2>&1; rm -rf $D' EXIT
su postgres -c "$B/initdb -D $D/data -A trust >/dev/null" || exit 1
su postgres -c "$B/pg_ctl -D $D/data -o '-p $PORT -k /tmp -c shared_buffers=1GB -c fsync=off -c synchronous_commit=off -c autovacuum=off -c max_wal_size=20GB -c checkpoint_timeout=1h -c full_page_writes=on' -l $D/log -w start >/dev/null" || exit 1
P="$B/psql -h /tmp -p $PORT -U postgres -X -q -At"
$P -c "create extension learned_idx"
if [ "${AM:-learned}" = learned ]; then
# A: runs after 300k random keys in 100-row INSERTs, no merges
$P -c "create table a (k int8, v int8)" -c "insert into a select 10*i, i from generate_series(1,$N) i order by random()" \
   -c "create index a_k on a using learned (k)" -c "vacuum analyze a"
cat > $D/wa.sql <<EOS
INSERT INTO a (k, v) SELECT 10 * (1 + (random() * ($N - 1))::int8) + 1 + g % 9, -1 FROM generate_series(1, 100) g;
EOS
PGOPTIONS="-c learned_idx.auto_merge=off" su postgres -c "$B/pgbench -h /tmp -p $PORT -U postgres -n -c 1 -t 3000 -f $D/wa.sql postgres" > $D/pa.log 2>&1
echo "$LABEL runs: $($P -c "select count(*), sum(pages), sum(entries), round(sum(pages)::numeric / sum(entries) * 1000, 3), round(8192.0 * sum(pages) / sum(entries), 2) from learned_index_runs('a_k') where run is not null")  (runs, data pages, entries, pages per 1000 entries, bytes per entry)"
echo "$LABEL runs detail: $($P -c "select string_agg(tier || ':' || pages || '/' || entries, ' ' order by run) from learned_index_runs('a_k') where run is not null")"
echo "$LABEL index a_k: $($P -c "select pg_relation_size('a_k')/8192") pages"
$P -c "drop table a" -c "checkpoint"
fi
# B: WAL of 100k single-row random inserts, 2 clients, merges included
$P -c "create table b (k int8, v int8)" -c "insert into b select 10*i, i from generate_series(1,$N) i order by random()" \
   -c "create index b_k on b using ${AM:-learned} (k)" -c "vacuum analyze b" -c "checkpoint"
cat > $D/wb.sql <<EOS
\set k 10 * random(1, $N) + random(1, 9)
INSERT INTO b (k, v) VALUES (:k, -1);
EOS
L0=$($P -c "select pg_current_wal_insert_lsn()")
su postgres -c "$B/pgbench -h /tmp -p $PORT -U postgres -n -M prepared -c 2 -j 2 -t ${NB:-50000} -f $D/wb.sql postgres" > $D/pb.log 2>&1
for i in $(seq 1 120); do
  w=$($P -c "select count(*) from pg_stat_activity where backend_type = 'learned_idx merge'")
  [ "$w" = 0 ] && break; sleep 0.5
done
L1=$($P -c "select pg_current_wal_insert_lsn()")
n=$($P -c "select count(*) - $N from b")
su postgres -c "$B/pg_waldump -p $D/data/pg_wal --stats=record -s $L0 -e $L1" > $D/stats.txt 2>&1
echo "$LABEL inserts: $n, WAL total $($P -c "select pg_wal_lsn_diff('$L1', '$L0')") bytes"
python3 - "$D/stats.txt" "$n" "$LABEL" <<'PYE'
import re,sys
f,n,L=sys.argv[1],int(sys.argv[2]),sys.argv[3]
idx=0
for line in open(f):
    m=re.match(r'^(\S+)\s+(\d+)\s+\(\s*[\d.]+\)\s+(\d+)\s+\(\s*[\d.]+\)\s+(\d+)\s+\(\s*[\d.]+\)\s+(\d+)', line)
    if not m: continue
    name,cnt,rec,fpi,comb=m.group(1),int(m.group(2)),int(m.group(3)),int(m.group(4)),int(m.group(5))
    if name.startswith('Generic') or name.startswith('XLOG/FPI') or name.startswith('Btree'):
        idx+=comb
    if comb/n >= 0.5:
        print("%s %-28s %9d records %12d bytes %8.1f bytes/insert" % (L,name,cnt,comb,comb/n))
print("%s index WAL (Generic + XLOG/FPI* + Btree): %.1f bytes/insert" % (L, idx/n))
PYE
grep -E "^Total" $D/stats.txt
[ "${AM:-learned}" = learned ] && echo "$LABEL merges: $($P -c "select merges from learned_index_info('b_k')")" 
grep -E "tps|latency average" $D/pb.log
