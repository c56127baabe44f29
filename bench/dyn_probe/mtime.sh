P="psql -h /tmp -p 5550 -U postgres -qAtX"
$P -c "ALTER INDEX e_l_k SET (merge_ratio=1, pending_limit=1000000)"
$P -c "INSERT INTO e_l SELECT 10*(random()*9999999+1)::int8 + 1 + (random()*8)::int, -2 FROM generate_series(1,${M:-100000})"
$P -c "select pending_entries, pending_pages from learned_index_info('e_l_k')"
$P -c "CHECKPOINT"
L0=$($P -c "select pg_current_wal_insert_lsn()")
$P -c "select pg_backend_pid(), clock_timestamp()" 
( sleep ${GDB_DELAY:-3}; for i in $(seq ${GDB_N:-6}); do pid=$($P -c "select pid from pg_stat_activity where query like 'select learned_index_merge%'"); [ -n "$pid" ] && gdb -p $pid -batch -ex bt 2>/dev/null | grep '^#' | head -${GDB_DEPTH:-8} | awk '{print $2, $4}' | tr '\n' ' '; echo; sleep ${GDB_GAP:-2}; done ) > /tmp/gdbs.txt &
time $P -c "select learned_index_merge('e_l_k')"
L1=$($P -c "select pg_current_wal_insert_lsn()")
$P -c "select 'merge wal MB', pg_wal_lsn_diff('$L1','$L0')/1e6"
wait
cat /tmp/gdbs.txt
$P -c "ALTER INDEX e_l_k RESET (merge_ratio, pending_limit)"
