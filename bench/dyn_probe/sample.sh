# sample pg_stat_activity every 0.1 s for S seconds
S=${1:-15}; P="psql -h /tmp -p 5550 -U postgres -qAtX"
end=$(( $(date +%s) + S ))
while [ $(date +%s) -lt $end ]; do
 $P -c "select coalesce(backend_type,'')||':'||coalesce(wait_event_type,'CPU')||':'||coalesce(wait_event,'') from pg_stat_activity where state='active' and pid<>pg_backend_pid() and (backend_type like 'learned%' or application_name='pgbench')"
 sleep 0.1
done | sort | uniq -c | sort -rn
