# lookup tps on e_l with the current pending list, 2 clients, S s
S=${1:-10}; N=10000000
cat > /tmp/look.sql <<Q
\set r random(1, $N)
SELECT v FROM e_l WHERE k = 10 * :r;
Q
chmod 644 /tmp/look.sql
psql -h /tmp -p 5550 -U postgres -qAtX -c "select 'pending', pending_entries from learned_index_info('e_l_k')"
cd /tmp && runuser -u postgres -- ${PGBIN:-/usr/lib/postgresql/15/bin}/pgbench -h /tmp -p 5550 -U postgres -n -M prepared -c 2 -j 2 -T $S -f /tmp/look.sql postgres 2>&1 | grep -E "^tps|latency average"
