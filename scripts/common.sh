# scripts/common.sh: helpers shared by scripts/demo.sh, scripts/test.sh and
# scripts/pg_build.sh.  Sourced, not executed.  Targets Debian 12.
#
# PG_MAJOR (default 15) chooses the PostgreSQL major: 15 comes from Debian 12's
# packages; 17, 18 and 19 are built from Debian's source packages (trixie, sid,
# experimental) into $LI_PG_CACHE/pgMAJOR by li_pg_build, the first time they
# are needed.  li_pg_select MAJOR switches a script to another major.
#
# A source-built major comes in two flavors: "test" (the default, in pgMAJOR:
# assertions and debug symbols, what the test suites want) and "bench" (in
# pgMAJOR-bench: the same source and contrib modules without --enable-cassert,
# whose checks would be measured, nor --enable-debug), for bench/run.sh.  15's
# flavors are both Debian's packages (built without assertions).

LI_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LI_PG_CACHE="${LI_PG_CACHE:-/var/cache/learned_idx}"
# majors this tree supports, and which of them can be had on this machine
LI_PG_SUPPORTED="15 16 17 18 19"
LI_PG_BUILDABLE="17 18 19"
# a libc locale besides C for the libc-collation test (sql/48_libc_collation.sql)
LI_TEST_LOCALE=en_US.UTF-8
export DEBIAN_FRONTEND=noninteractive
# PG_CONFIG from the environment counts only when PG_MAJOR does not choose.
LI_PG_CONFIG_ENV="${PG_CONFIG:-}"
[ -n "${PG_MAJOR:-}" ] && LI_PG_CONFIG_ENV=""

# Debian suite whose source package has each buildable major.
li_pg_suite() {
    case "$1" in
        17) echo trixie ;;
        18) echo sid ;;
        19) echo experimental ;;
        *) return 1 ;;
    esac
}

# li_pg_prefix MAJOR [FLAVOR]: the install prefix of a source-built MAJOR.
li_pg_prefix() {
    case "${2:-test}" in
        test) echo "$LI_PG_CACHE/pg$1" ;;
        bench) echo "$LI_PG_CACHE/pg$1-bench" ;;
        *) li_die "unknown PostgreSQL build flavor '$2' (test or bench)" ;;
    esac
}

# li_pg_select MAJOR [FLAVOR]: set LI_PG_MAJOR, LI_PG_FLAVOR, LI_PGBIN,
# PG_CONFIG, LI_PACKAGES for MAJOR (FLAVOR: test, the default, or bench).
li_pg_select() {
    LI_PG_MAJOR="$1"
    LI_PG_FLAVOR="${2:-test}"
    LI_PG_PREFIX=""
    case "$LI_PG_FLAVOR" in test|bench) ;; *) printf '==> ERROR: unknown PostgreSQL build flavor %s (test or bench)\n' "$LI_PG_FLAVOR" >&2; exit 1 ;; esac
    LI_PACKAGES=(libipc-run-perl build-essential locales)
    if [ "$LI_PG_MAJOR" = 15 ]; then
        LI_PGBIN=/usr/lib/postgresql/15/bin
        LI_PACKAGES+=(postgresql-15 postgresql-server-dev-15 postgresql-contrib-15)
        PG_CONFIG="${LI_PG_CONFIG_ENV:-$LI_PGBIN/pg_config}"
    elif li_pg_suite "$LI_PG_MAJOR" >/dev/null; then
        LI_PG_PREFIX="$(li_pg_prefix "$LI_PG_MAJOR" "$LI_PG_FLAVOR")"
        LI_PGBIN="$LI_PG_PREFIX/bin"
        # what configure and the build need, all from bookworm
        LI_PACKAGES+=(bison flex libicu-dev libreadline-dev zlib1g-dev pkg-config
                      bzip2 xz-utils perl)
        PG_CONFIG="$LI_PGBIN/pg_config"
    else
        printf '==> ERROR: PostgreSQL %s cannot be had here (PG_MAJOR is one of 15 %s; 16 is supported but no Debian suite carries it)\n' \
            "$LI_PG_MAJOR" "$LI_PG_BUILDABLE" >&2
        exit 1
    fi
    export PG_CONFIG
}
li_pg_select "${PG_MAJOR:-15}"

# li_bench_pg: switch a benchmark script to the bench flavor of PG_MAJOR (default
# 15, Debian's package), building it first if it is a source-built major that
# is not built yet: benchmarks never run on the test flavor's assertions.
li_bench_pg() {
    li_pg_select "${PG_MAJOR:-15}" bench
    if [ -n "$LI_PG_PREFIX" ]; then
        li_pg_build "$LI_PG_MAJOR" bench >&2
    fi
}

li_log()  { printf '==> %s\n' "$*"; }
li_warn() { printf '==> WARNING: %s\n' "$*" >&2; }
li_die()  { printf '==> ERROR: %s\n' "$*" >&2; exit 1; }

li_is_root() { [ "$(id -u)" -eq 0 ]; }

# True if a package, or a package providing it (postgresql-contrib-15 is a
# virtual package provided by postgresql-15 on Debian 12), is installed.
li_pkg_installed() {
    dpkg-query -W -f='${db:Status-Abbrev}\n' "$1" 2>/dev/null | grep -q '^ii' && return 0
    dpkg-query -W -f='${db:Status-Abbrev}|${Provides}\n' 2>/dev/null |
        grep '^ii' | cut -d'|' -f2 | tr ',' '\n' | sed 's/(.*//; s/ //g' | grep -qxF "$1"
}

# Install whatever of LI_PACKAGES is missing, and the PostgreSQL of LI_PG_MAJOR.
li_install_deps() {
    li_install_pkgs "${LI_PACKAGES[@]}"
    li_ensure_locale "$LI_TEST_LOCALE"
    if [ -n "$LI_PG_PREFIX" ]; then
        li_pg_build "$LI_PG_MAJOR" "$LI_PG_FLAVOR"
        return
    fi
    [ -x "$PG_CONFIG" ] || li_die "$PG_CONFIG not found (postgresql-server-dev-$LI_PG_MAJOR missing?)"
    [ -x "$LI_PGBIN/initdb" ] || li_die "$LI_PGBIN/initdb not found (postgresql-$LI_PG_MAJOR missing?)"
}

# li_install_pkgs PKG...: apt-get install those not installed (apt-get update at most once).
li_install_pkgs() {
    local missing=() p
    for p in "$@"; do
        li_pkg_installed "$p" || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        li_log "Debian packages: all present"
    elif ! li_is_root; then
        li_warn "not root: cannot install missing packages: ${missing[*]} (install them, or run as root)"
    else
        li_log "Installing Debian packages (a few minutes on a fresh machine): ${missing[*]}"
        local log
        log="$(mktemp /tmp/learned_idx_apt.XXXXXX)"
        if ! apt-get update -q -o DPkg::Lock::Timeout=600 >"$log" 2>&1; then
            tail -n 20 "$log" >&2; li_die "apt-get update failed (log: $log)"
        fi
        if ! apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
                -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
                "${missing[@]}" >"$log" 2>&1 </dev/null; then
            tail -n 30 "$log" >&2; li_die "apt-get install ${missing[*]} failed (log: $log)"
        fi
        rm -f "$log"
    fi
}

# ---------- PostgreSQL from Debian's source packages ----------
# Configure options of the source builds: ICU (the text keys' collations), the
# TAP tests' perl modules, assertions and debug symbols (the test flavor runs
# tests); the bench flavor drops the assertions (their checks, and the memory
# context checking and clobbering they turn on, would be measured) and the
# debug symbols.  configure's default optimization (-O2) is the same in both.
LI_PG_CONFIGURE_OPTS="--with-icu --enable-tap-tests --enable-cassert --enable-debug"
LI_PG_BENCH_CONFIGURE_OPTS="--with-icu --enable-tap-tests"
# contrib modules that the tests and benchmarks create (grep sql/ t/ bench/)
LI_PG_CONTRIB="${LI_PG_CONTRIB:-amcheck citext dblink pageinspect pg_freespacemap pg_prewarm pgstattuple postgres_fdw pg_stat_statements}"

# li_pg_build's exit status when the source package cannot be downloaded
LI_PG_UNAVAILABLE=3

# li_pg_configure_opts FLAVOR: the configure options of a flavor.
li_pg_configure_opts() {
    case "${1:-test}" in
        bench) echo "$LI_PG_BENCH_CONFIGURE_OPTS" ;;
        *) echo "$LI_PG_CONFIGURE_OPTS" ;;
    esac
}

li_pg_stamp() { echo "$(li_pg_prefix "$1" "${2:-test}")/.learned_idx_build"; }

# li_pg_built MAJOR [FLAVOR]: true if the cached prefix of MAJOR (FLAVOR) is
# complete and was configured with today's options.
li_pg_built() {
    local stamp
    stamp="$(li_pg_stamp "$1" "${2:-test}")"
    [ -f "$stamp" ] && grep -qxF "configure: $(li_pg_configure_opts "${2:-test}")" "$stamp" &&
        grep -qxF "contrib: $LI_PG_CONTRIB" "$stamp" &&
        [ -x "$(li_pg_prefix "$1" "${2:-test}")/bin/pg_config" ]
}

# li_pg_build MAJOR [FLAVOR]: build PostgreSQL MAJOR into its prefix
# (li_pg_prefix) unless the stamp file says it is there.  Only root can: it
# adds a deb-src line and installs build dependencies.  Concurrent callers wait
# on a lock per major (both flavors: they share the downloaded source, so the
# bench flavor is the same version as the test flavor built before it).
li_pg_build() {
    local major="$1" flavor="${2:-test}" suite prefix src log t0 dsc tarball ver lockfd opts f
    suite="$(li_pg_suite "$major")" || li_die "no Debian source package for PostgreSQL $major (buildable: $LI_PG_BUILDABLE)"
    prefix="$(li_pg_prefix "$major" "$flavor")"
    opts="$(li_pg_configure_opts "$flavor")"
    if li_pg_built "$major" "$flavor"; then
        li_log "PostgreSQL $major: $(sed -n 's/^version: //p' "$(li_pg_stamp "$major" "$flavor")") in $prefix (cached)"
        return 0
    fi
    li_is_root || li_die "PostgreSQL $major ($flavor build) is not built in $prefix, and only root can build it (bash scripts/pg_build.sh $major $flavor)"
    mkdir -p "$LI_PG_CACHE"
    exec {lockfd}>"$LI_PG_CACHE/pg$major.lock"
    if ! flock -n "$lockfd"; then
        li_log "Another run is building PostgreSQL $major: waiting for it"
        flock "$lockfd"
    fi
    if li_pg_built "$major" "$flavor"; then   # built while we waited
        exec {lockfd}>&-
        li_log "PostgreSQL $major: built by the other run"
        return 0
    fi
    t0=$(date +%s)
    li_pg_select "$major" "$flavor"
    li_install_pkgs "${LI_PACKAGES[@]}"
    src="$LI_PG_CACHE/src/pg$major"
    log="$prefix-build.log"
    li_log "Building PostgreSQL $major ($flavor build) from Debian $suite's source package (several minutes; log: $log)"
    : >"$log"
    # deb-src only, in a file of its own: no binary package of that suite
    # becomes installable, and bookworm's pinning is untouched.
    local list=/etc/apt/sources.list.d/learned_idx-src-$suite.sources
    if [ ! -f "$list" ]; then
        cat >"$list" <<SRC
# Added by learned_idx's scripts/pg_build.sh: the source package of PostgreSQL $major
# (Debian $suite), built on bookworm into $prefix.  Source only (deb-src).
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    fi
    # Only the upstream tarball is used: Debian's patches (socket directory,
    # paths of a multi-major install) are for its packaging, not for a prefix.
    # A source package downloaded by an earlier build of this major is reused.
    # (a glob, not ls: under pipefail a missing directory would end the script)
    dsc=""
    for f in "$src"/postgresql-"$major"_*.dsc; do [ -f "$f" ] && { dsc="$f"; break; }; done
    if [ -z "$dsc" ] || ! ls "$src"/postgresql-"$major"_*.orig.tar.* >/dev/null 2>&1; then
        apt-get update -q -o DPkg::Lock::Timeout=600 >>"$log" 2>&1 ||
            { tail -n 20 "$log" >&2; li_die "apt-get update failed (log: $log)"; }
        rm -rf "$src"; mkdir -p "$src"
        if ! ( cd "$src" && apt-get source -q --download-only -t "$suite" "postgresql-$major" ) >>"$log" 2>&1; then
            grep -E '^(E|W):' "$log" | tail -n 5 >&2
            li_warn "apt-get source postgresql-$major failed (log: $log): the archive this machine reaches does not serve it"
            exit "$LI_PG_UNAVAILABLE"
        fi
        dsc="$(ls "$src"/postgresql-"$major"_*.dsc | head -n 1)"
    fi
    tarball="$(ls "$src"/postgresql-"$major"_*.orig.tar.* | grep -v '\.asc$' | head -n 1)"
    [ -f "$tarball" ] || li_die "no upstream tarball in $src (log: $log)"
    ver="$(sed -n 's/^Version: //p' "$dsc")"
    local tree="$src/tree-$flavor"
    rm -rf "$tree"; mkdir -p "$tree"
    tar -C "$tree" -xf "$tarball" || li_die "could not unpack $tarball"
    tree="$(find "$tree" -mindepth 1 -maxdepth 1 -type d -name 'postgresql-*' | head -n 1)"
    [ -x "$tree/configure" ] || li_die "no configure script in $tree"
    rm -rf "$prefix"
    li_log "  PostgreSQL $ver: configure $opts"
    local jobs="${PG_BUILD_JOBS:-$(nproc)}"
    (
        ( cd "$tree" && ./configure --prefix="$prefix" $opts ) &&
        make -C "$tree" -j"$jobs" &&
        make -C "$tree" install &&
        for m in $LI_PG_CONTRIB; do make -C "$tree/contrib/$m" -j"$jobs" install || exit 1; done &&
        # the PGXS test drivers: pg_regress comes with 'make install';
        # pg_isolation_regress + isolationtester and the TAP modules do not
        make -C "$tree/src/test/isolation" -j"$jobs" install &&
        make -C "$tree/src/test/perl" install
    ) >>"$log" 2>&1 || { tail -n 40 "$log" >&2; li_die "building PostgreSQL $major ($flavor build) failed (log: $log)"; }
    {
        echo "version: $ver"
        echo "suite: $suite"
        echo "flavor: $flavor"
        echo "configure: $opts"
        echo "contrib: $LI_PG_CONTRIB"
        echo "built: $(date -u +%FT%TZ) in $(( $(date +%s) - t0 ))s"
    } >"$(li_pg_stamp "$major" "$flavor")"
    rm -rf "$src/tree-$flavor"   # the source package stays in $src
    exec {lockfd}>&-
    li_log "PostgreSQL $major ($ver, $flavor build) built in $(( $(date +%s) - t0 ))s into $prefix"
}

# li_ensure_locale NAME: compile the libc locale NAME (e.g. en_US.UTF-8) if
# the system lacks it (a Debian base image has only C and C.UTF-8); a server
# sees it without a restart (CREATE COLLATION ... locale = 'en_US.utf8').
li_ensure_locale() {
    local want norm
    want="$1"
    norm="$(printf '%s' "$want" | tr 'A-Z' 'a-z' | sed 's/utf-8$/utf8/')"
    if locale -a 2>/dev/null | tr 'A-Z' 'a-z' | grep -qxF "$norm"; then
        return 0
    fi
    if ! li_is_root || ! command -v localedef >/dev/null; then
        li_warn "locale $want missing and cannot be generated here: sql/48_libc_collation will fail"
        return 0
    fi
    li_log "Generating the libc locale $want"
    localedef -i "${want%%.*}" -c -f UTF-8 "$want" >/dev/null 2>&1 ||
        li_warn "localedef $want failed: sql/48_libc_collation will fail"
}

# The user that runs the server and the tests: PostgreSQL refuses to run as root.
if li_is_root; then LI_PGUSER=postgres; else LI_PGUSER="$(id -un)"; fi

# li_as_pg CMD...: run CMD as the server user (with a sane HOME and PATH, and
# without fd 9, the test lock, so a server it starts cannot hold the lock), from
# /tmp: the caller's directory (say a clone under /root) may be unreadable to
# postgres, and initdb/pg_ctl fail when they cannot getcwd().  Use absolute paths.
li_as_pg() {
    if li_is_root; then
        local home
        home="$(getent passwd "$LI_PGUSER" | cut -d: -f6)"
        ( cd /tmp && runuser -u "$LI_PGUSER" -- env HOME="${home:-/tmp}" USER="$LI_PGUSER" \
            LOGNAME="$LI_PGUSER" PATH="$LI_PGBIN:$PATH" "$@" 9>&- )
    else
        env PATH="$LI_PGBIN:$PATH" "$@" 9>&-
    fi
}

# li_make_install DIR: install the extension built in DIR (needs write access
# to the PostgreSQL installation, i.e. root on Debian).
li_make_install() {
    local dir="$1" pkglib
    pkglib="$("$PG_CONFIG" --pkglibdir)"
    if li_is_root || [ -w "$pkglib" ]; then
        make -C "$dir" -s install PG_CONFIG="$PG_CONFIG" >/dev/null
    else
        li_warn "not root: skipping 'make install' into $pkglib; the tests use whatever copy is installed there"
    fi
}

# ---------- throwaway cluster ----------
# li_cluster_start DIR PORT [postgresql.conf lines...]
#   initdb into DIR/data (DIR must be owned by LI_PGUSER), unix socket in DIR,
#   no TCP listener, then start.  Sets PGHOST/PGPORT/PGUSER/PGDATABASE.
LI_CLUSTER_DIR=""
li_cluster_start() {
    local dir="$1" port="$2"; shift 2
    li_as_pg "$LI_PGBIN/initdb" -D "$dir/data" -U "$LI_PGUSER" -A trust -E UTF8 \
        --locale=C >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; li_die "initdb failed"; }
    {
        echo "port = $port"
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$dir'"
        echo "logging_collector = off"
        local line
        for line in "$@"; do echo "$line"; done
    } | li_as_pg tee -a "$dir/data/postgresql.auto.conf" >/dev/null
    LI_CLUSTER_DIR="$dir"
    li_as_pg "$LI_PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 start >/dev/null \
        || { tail -n 30 "$dir/server.log" >&2; li_die "could not start the server (log above)"; }
    export PGHOST="$dir" PGPORT="$port" PGUSER="$LI_PGUSER" PGDATABASE=postgres
}

li_cluster_stop() {
    [ -n "$LI_CLUSTER_DIR" ] && [ -f "$LI_CLUSTER_DIR/data/postmaster.pid" ] &&
        li_as_pg "$LI_PGBIN/pg_ctl" -D "$LI_CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1
    LI_CLUSTER_DIR=""
    return 0
}

# li_throwaway_cluster PREFIX PORT [postgresql.conf lines...]
#   li_cluster_start in a fresh temp dir (LI_THROWAWAY_DIR), stopped and
#   removed when the script exits: the setup of the one-off bench scripts.
LI_THROWAWAY_DIR=""
li_throwaway_cluster() {
    local prefix="$1"; shift
    LI_THROWAWAY_DIR="$(li_mktemp_pg "$prefix")"
    trap 'li_cluster_stop; rm -rf "$LI_THROWAWAY_DIR"' EXIT
    li_cluster_start "$LI_THROWAWAY_DIR" "$@"
}

# li_create_extension LIB: the extension's objects in the throwaway cluster's
#   postgres database: from this tree's sql/learned_idx--0.1.sql with their
#   functions in LIB (a learned_idx.so built elsewhere, e.g. of another commit:
#   another checkout's `make install` then cannot change what is measured), or
#   CREATE EXTENSION of the installed one when LIB is empty.  Sets LI_SOFILE to
#   the library measured.
LI_SOFILE=""
li_create_extension() {
    if [ -n "$1" ]; then
        sed -e '/^\\echo Use/d' -e "s|MODULE_PATHNAME|$1|g" "$LI_REPO/sql/learned_idx--0.1.sql" |
            li_as_pg psql -qAtX -v ON_ERROR_STOP=1 postgres >/dev/null
        LI_SOFILE="$1"
    else
        li_as_pg psql -qAtX -v ON_ERROR_STOP=1 postgres -c "CREATE EXTENSION learned_idx" >/dev/null
        LI_SOFILE="$("$PG_CONFIG" --pkglibdir)/learned_idx.so"
    fi
}

# li_bench_python: the Python of the bench venv (BENCH_VENV, bench/.venv or
#   the CI cache's), else python3, for the bench scripts' reports
li_bench_python() {
    local c
    for c in "${BENCH_VENV:-$LI_REPO/bench/.venv}/bin/python" /var/tmp/learned_bench_venv/bin/python; do
        if [ -x "$c" ]; then echo "$c"; return; fi
    done
    echo python3
}

# li_mktemp_pg PREFIX: a fresh temp dir owned by the server user.
li_mktemp_pg() {
    local d
    d="$(mktemp -d "/tmp/$1.XXXXXX")" || li_die "mktemp failed"
    chmod 755 "$d"
    li_is_root && chown "$LI_PGUSER:" "$d"
    echo "$d"
}

# li_copy_tree DEST: copy the working tree (no build products, no .git) to DEST.
li_copy_tree() {
    tar -C "$LI_REPO" -cf - \
        --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
        --exclude=./results --exclude=./output_iso --exclude=./tmp_check --exclude=./tmp_check_iso \
        --exclude=./log --exclude=regression.diffs --exclude=regression.out \
        --exclude=./test/unit/test_pla --exclude=./test/unit/test_leco --exclude="./test/unit/*.log" --exclude=./bench/.venv --exclude=./bench/results \
        --exclude=./.pg_config_used --exclude=__pycache__ . | tar -C "$1" -xf -
}

# li_build_in_place DIR: make in DIR against PG_CONFIG; objects built
# against another major are cleaned first (DIR/.pg_config_used says which).
li_build_in_place() {
    local dir="$1" used
    used="$(cat "$dir/.pg_config_used" 2>/dev/null || true)"
    if [ "$used" != "$PG_CONFIG" ]; then
        make -C "$dir" -s clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1 || true
    fi
    make -C "$dir" -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" || return 1
    echo "$PG_CONFIG" >"$dir/.pg_config_used"
}

# ---------- compile-only check against a major's headers ----------
# li_pg_headers MAJOR: print the server include dir of MAJOR, from Debian's
# postgresql-server-dev-MAJOR package of its suite, downloaded with a private
# apt state (the system's sources, lists and pinning are untouched) and
# unpacked with dpkg -x into $LI_PG_CACHE/headers-pgMAJOR: never installed.
li_pg_headers() {
    local major="$1" suite dir apt deb
    suite="$(li_pg_suite "$major")" || return 1
    dir="$LI_PG_CACHE/headers-pg$major"
    if [ ! -f "$dir/usr/include/postgresql/$major/server/pg_config.h" ]; then
        li_is_root || return 1
        apt="$LI_PG_CACHE/apt-$suite"
        mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/deb"
        echo "deb http://deb.debian.org/debian $suite main" >"$apt/sources.list"
        local o=(-o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent
                 -o Dir::State::Lists="$apt/lists" -o Dir::Cache::archives="$apt/archives"
                 -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o APT::Default-Release="$suite")
        apt-get "${o[@]}" update -q >&2 || return 1
        ( cd "$apt/deb" && apt-get "${o[@]}" download "postgresql-server-dev-$major/$suite" ) >&2 || return 1
        deb="$(ls "$apt/deb"/postgresql-server-dev-"$major"_*.deb | head -n 1)"
        rm -rf "$dir"; mkdir -p "$dir"
        dpkg -x "$deb" "$dir" || return 1
    fi
    echo "$dir/usr/include/postgresql/$major/server"
}

# li_compile_check INCLUDEDIR: compile src/*.c (to /dev/null) against those
# headers with PostgreSQL's and the Makefile's warning flags.
li_compile_check() {
    local inc="$1" f rc=0 cflags
    cflags="$(make -s --no-print-directory -C "$LI_REPO" -f - print <<'MK' 2>/dev/null
include Makefile
print:
	@echo '$(PG_CFLAGS)'
MK
)"
    [ -n "$cflags" ] || cflags="-Wall -Wextra"
    for f in "$LI_REPO"/src/*.c; do
        # PostgreSQL's own warning flags (what its pg_config --cflags gives)
        gcc -std=gnu11 -O2 -c -o /dev/null -Wall -Wmissing-prototypes -Wpointer-arith \
            -Wdeclaration-after-statement -Werror=vla -Wendif-labels -Wmissing-format-attribute \
            -Wimplicit-fallthrough=3 -Wcast-function-type -Wshadow=compatible-local -Wformat-security \
            -fno-strict-aliasing -fwrapv -fexcess-precision=standard -Wno-format-truncation \
            -Wno-stringop-truncation -fPIC -D_GNU_SOURCE $cflags -I"$LI_REPO" -I"$inc" "$f" || rc=1
    done
    return $rc
}
