#!/usr/bin/env bash
# scripts/pg_build.sh MAJOR [FLAVOR]: build PostgreSQL MAJOR (17, 18 or 19) from
# Debian's source package into /var/cache/learned_idx/pgMAJOR, for the tests and
# the demo (FLAVOR test, the default), or into /var/cache/learned_idx/pgMAJOR-bench
# without assertions and debug symbols, for bench/run.sh (FLAVOR bench).
#
#   bash scripts/pg_build.sh 18
#   bash scripts/pg_build.sh 18 bench
#
# Debian 12 packages only PostgreSQL 15.  17 is in trixie, 18 in sid and 19 in
# experimental; their binary packages need those suites' libc, so installing them
# on bookworm would be a partial upgrade.  Their source packages build on
# bookworm's toolchain: this script adds a deb-src line for that one suite in its
# own sources file (binary sources and pinning are untouched), runs
# `apt-get source` into a cache dir, installs the build dependencies from
# bookworm, and builds with ICU, TAP support, assertions and debug symbols (the
# bench flavor: without the last two; both reuse the downloaded source), then
# installs the server, contrib, and the PGXS test drivers (pg_regress,
# pg_isolation_regress, isolationtester, the PostgreSQL::Test perl modules).
#
# A stamp file in the prefix records the version and the configure options; a
# second run that finds it does nothing.  Run as root.
#
# Environment: LI_PG_CACHE (default /var/cache/learned_idx), PG_BUILD_JOBS (default nproc).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -ge 1 ] && [ $# -le 2 ] || li_die "usage: $0 MAJOR [test|bench] (MAJOR: 17, 18 or 19)"
li_pg_select "$1" "${2:-test}"
li_pg_build "$1" "${2:-test}"
