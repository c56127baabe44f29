set -e
B=${PGBIN:-/usr/lib/postgresql/15/bin}
rm -rf /tmp/dyndb
runuser -u postgres -- $B/initdb -D /tmp/dyndb >/dev/null
cat >> /tmp/dyndb/postgresql.conf <<C
port=5550
unix_socket_directories='/tmp'
shared_buffers=1GB
fsync=off
full_page_writes=off
synchronous_commit=off
autovacuum=off
checkpoint_timeout=3600
max_wal_size=16GB
jit=off
max_worker_processes=8
C
runuser -u postgres -- $B/pg_ctl -D /tmp/dyndb -l /tmp/dyndb.log start >/dev/null
