# scripts/common.sh: helpers shared by scripts/demo.sh and scripts/test.sh.
# Sourced, not executed.  Everything here targets Debian 12 + PostgreSQL 15.

LI_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LI_PG_MAJOR=15
LI_PGBIN=/usr/lib/postgresql/$LI_PG_MAJOR/bin
LI_PACKAGES=(postgresql-$LI_PG_MAJOR postgresql-server-dev-$LI_PG_MAJOR
             postgresql-contrib-$LI_PG_MAJOR libipc-run-perl build-essential locales)
# a libc locale besides C for the libc-collation test (sql/48_libc_collation.sql)
LI_TEST_LOCALE=en_US.UTF-8
export DEBIAN_FRONTEND=noninteractive
export PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/$LI_PG_MAJOR/bin/pg_config}"

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

# Install whatever of LI_PACKAGES is missing (apt-get update at most once).
li_install_deps() {
    local missing=() p
    for p in "${LI_PACKAGES[@]}"; do
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
        if ! apt-get update -q >"$log" 2>&1; then
            tail -n 20 "$log" >&2; li_die "apt-get update failed (log: $log)"
        fi
        if ! apt-get install -y -q --no-install-recommends \
                -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
                "${missing[@]}" >"$log" 2>&1 </dev/null; then
            tail -n 30 "$log" >&2; li_die "apt-get install ${missing[*]} failed (log: $log)"
        fi
        rm -f "$log"
    fi
    li_ensure_locale "$LI_TEST_LOCALE"
    [ -x "$PG_CONFIG" ] || li_die "$PG_CONFIG not found (postgresql-server-dev-$LI_PG_MAJOR missing?)"
    [ -x "$LI_PGBIN/initdb" ] || li_die "$LI_PGBIN/initdb not found (postgresql-$LI_PG_MAJOR missing?)"
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

# li_mktemp_pg PREFIX: a fresh temp dir owned by the server user.
li_mktemp_pg() {
    local d
    d="$(mktemp -d "/tmp/$1.XXXXXX")" || li_die "mktemp failed"
    chmod 755 "$d"
    li_is_root && chown "$LI_PGUSER:" "$d"
    echo "$d"
}
