#!/usr/bin/env bash
# scripts/unique_vs_btree.sh: run the unique isolation specs against btree.
#
#   PGHOST=/tmp PGPORT=5433 PGUSER=postgres bash scripts/unique_vs_btree.sh
#
# Rewrites specs/unique_*.spec to use a unique btree index (the learned-only
# steps become no-ops: the merge returns true, the index check true) and
# their expected files alike, then runs them with pg_isolation_regress
# against a running server.  Passing means btree produces exactly the
# outcomes recorded for the learned index.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"
ISO="$(dirname "$("$PG_CONFIG" --pgxs)")/../test/isolation/pg_isolation_regress"
W="$(mktemp -d /tmp/unique_vs_btree.XXXXXX)"
mkdir -p "$W/specs" "$W/expected"
rewrite() {
    sed -e 's/USING learned (k)\( WITH ([^)]*)\)\?/USING btree (k)/' \
        -e "s/learned_index_merge('t_k') > 0/true/" \
        -e "s/learned_index_check('t_k', true)/true/" "$1"
}
tests=()
for f in specs/unique_*.spec; do
    n="$(basename "$f" .spec)"
    rewrite "$f" > "$W/specs/${n}_bt.spec"
    rewrite "expected/$n.out" > "$W/expected/${n}_bt.out"
    tests+=("${n}_bt")
done
[ "$(id -u)" -eq 0 ] && chown -R postgres "$W"
run() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
run "$ISO" --inputdir="$W" --outputdir="$W/out" "${tests[@]}"
