# usage: [APPEND=1] [SAMPLE=1] [N=rows] run.sh TABLE SECONDS  (insert-only, 2 clients; random keys, or APPEND=1: keys above every existing one)
T=$1; S=${2:-15}; N=${N:-1000000}; I=${T}_k
P="psql -h /tmp -p 5550 -U postgres -qAtX"
$P -c "DELETE FROM $T WHERE v < 0" -c "VACUUM $T" >/dev/null
[ ${T#*_} = l ] && $P -c "REINDEX INDEX $I" >/dev/null
$P -c "CHECKPOINT"
if [ -n "$APPEND" ]; then
$P -c "DROP SEQUENCE IF EXISTS s_$T" -c "CREATE SEQUENCE s_$T START $((10 * N + 10))"
cat > /tmp/ins_$T.sql <<Q
INSERT INTO $T VALUES (nextval('s_$T'), -1);
Q
else
cat > /tmp/ins_$T.sql <<Q
\set r random(1, $N)
\set d random(1, 9)
INSERT INTO $T VALUES (10 * :r + :d, -1);
Q
fi
chmod 644 /tmp/ins_$T.sql
G0=""; [ ${T#*_} = l ] && G0=$($P -c "select generation from learned_index_info('$I')")
L0=$($P -c "select pg_current_wal_insert_lsn()")
( [ -n "$SAMPLE" ] && bash "$(dirname "$0")/sample.sh" $S > /tmp/sample_$T.txt & ) ; cd /tmp && runuser -u postgres -- env PGOPTIONS='-c synchronous_commit=off' ${PGBIN:-/usr/lib/postgresql/15/bin}/pgbench -h /tmp -p 5550 -U postgres -n -M prepared -c 2 -j 2 -T $S -f /tmp/ins_$T.sql -l --log-prefix=/tmp/lat_$T postgres 2>&1 | grep -E "tps|failed"
L1=$($P -c "select pg_current_wal_insert_lsn()")
NI=$($P -c "select count(*) from $T where v < 0")
if [ ${T#*_} = l ]; then
  $P -c "select 'info', * from learned_index_info('$I')"
  G1=$($P -c "select generation from learned_index_info('$I')")
  echo "merges during run: $((G1-G0))"
  TM0=$(date +%s.%N); L1=$($P -c "select learned_index_merge('$I'); select pg_current_wal_insert_lsn()" | tail -1)
  echo "final merge s: $(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" $TM0 $(date +%s.%N))"
fi
$P -c "select 'wal/insert', (pg_wal_lsn_diff('$L1','$L0')/$NI)::int, 'inserts', $NI"
[ -n "$SAMPLE" ] && sleep 1 && cat /tmp/sample_$T.txt
cat /tmp/lat_$T.* | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END{print "p50",a[int(NR*0.5)],"p99",a[int(NR*0.99)],"max",a[NR]}'
rm -f /tmp/lat_$T.*
