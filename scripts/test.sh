#!/usr/bin/env bash
# scripts/test.sh: run every test suite of learned_idx, on several PostgreSQL majors.
#
#   bash scripts/test.sh                  # the matrix: 15 and 18 in full, 17 and 19 regress + isolation
#   PG_MAJORS="15 18" bash scripts/test.sh
#   PG_MAJORS=15 bash scripts/test.sh     # (or PG_MAJOR=15): one major
#
# PG_MAJORS lists majors, each as MAJOR (every suite) or MAJOR:ri (regress and
# isolation only).  15 comes from Debian's packages; 17, 18 and 19 are built
# from Debian's source packages into /var/cache/learned_idx/pgMAJOR the first
# time (scripts/pg_build.sh).  In the default matrix, a major whose source
# package cannot be downloaded is compiled against its server headers instead
# (warnings count as a failure) and reported as not run; a major named in
# PG_MAJORS that cannot be had is a failure.
#
# Per major: installs missing Debian packages (root only), copies the working
# tree to a temp dir owned by the "postgres" user (the checkout is not touched),
# builds it, installs the extension into that major (root only), then runs as "postgres":
#   unit       make unit-test                 (pure C, no server)
#   regress    make installcheck (pg_regress)  against a throwaway cluster
#   isolation  pg_isolation_regress            if specs/ exists and ISOLATION is set
#   tap        prove t/*.pl                     (PostgreSQL::Test::Cluster)
# The unit tests and the bench smoke do not depend on the major: they run with
# the first major of the list (bench smoke: only when that is 15).
# The last line is "N passed, M failed" over all majors (test files: the
# unit-test program, each regress/isolation test, each TAP script, each
# compile-only check); exit status is 0 only if M = 0.
#
# Every suite and every TAP script runs under a timeout (a hang is a failure).
#
# Environment: KEEP=1 keeps the temp dirs; TEST_PORT (default 5497);
#              PROVE_FLAGS (default "-I ./t"); PROVE_TESTS (default t/*.pl);
#              TEST_BUDGET (seconds for each major's suites, default 1800;
#              source builds are not counted);
#              TAP_FILE_TIMEOUT (seconds per TAP script, default 420);
#              REGRESS_TESTS / ISOLATION_TESTS (space-separated names: run only
#              these; "none" runs none), for a quick check of one change.
# Runs that install into the same PostgreSQL take a lock in turn (flock), so
# two checkouts cannot overwrite each other's install: /tmp/learned_idx_test.lock
# for 15, /tmp/learned_idx_test.pgMAJOR.lock for a source-built major.
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T0=$(date +%s)
TEST_PORT="${TEST_PORT:-5497}"
export PROVE_FLAGS="${PROVE_FLAGS:--I ./t}"
TEST_BUDGET="${TEST_BUDGET:-1800}"          # seconds for one major's suites
TAP_FILE_TIMEOUT="${TAP_FILE_TIMEOUT:-420}" # seconds per TAP script
N_PASS=0
N_FAIL=0
SUMMARY=()
WORKS=()
WORK=""
OK_ALL=1
REACHED_END=0
CUR_MAJOR=""
M_PASS=0
M_FAIL=0

note() {   # note SUITE STATUS PASSED FAILED DETAIL
    SUMMARY+=("$(printf '  %-3s %-10s %-8s %s' "$CUR_MAJOR" "$1" "$2" "$5")")
    N_PASS=$((N_PASS + $3))
    N_FAIL=$((N_FAIL + $4))
    M_PASS=$((M_PASS + $3))
    M_FAIL=$((M_FAIL + $4))
    [ "$4" -eq 0 ] || OK_ALL=0
}

# budget MAX: seconds a suite may take: MAX, or what is left of TEST_BUDGET (>= 30).
budget() {
    local left=$(( T0 + TEST_BUDGET - $(date +%s) ))
    [ "$left" -lt 30 ] && left=30
    echo $(( left < $1 ? left : $1 ))
}

# Stop servers that a killed TAP script left behind (they live under tmp_check).
stop_tap_nodes() {
    [ -n "${SRC:-}" ] && [ -d "$SRC/tmp_check" ] || return 0
    local pidf
    while IFS= read -r pidf; do
        li_as_pg "$LI_PGBIN/pg_ctl" -D "$(dirname "$pidf")" -m immediate -w stop >/dev/null 2>&1
    done < <(find "$SRC/tmp_check" -name postmaster.pid 2>/dev/null)
    return 0
}

T_START=$(date +%s)
finish() {
    local rc=$? w
    li_cluster_stop
    stop_tap_nodes
    local dt=$(( $(date +%s) - T_START ))
    echo
    echo "==================== learned_idx test summary ===================="
    printf '%s\n' "${SUMMARY[@]}"
    printf '  elapsed    %dm%02ds\n' $((dt / 60)) $((dt % 60))
    for w in "${WORKS[@]}"; do
        [ -d "$w" ] || continue
        if [ "$OK_ALL" = 1 ] && [ "$REACHED_END" = 1 ] && [ "${KEEP:-0}" != 1 ]; then
            rm -rf "$w"
        else
            echo "  work dir   $w (kept)"
        fi
    done
    if [ "$REACHED_END" != 1 ]; then
        N_FAIL=$((N_FAIL + 1))
        echo "  (aborted before all suites ran: counted as one failure)"
    fi
    echo "$N_PASS passed, $N_FAIL failed"
    [ "$N_FAIL" -eq 0 ] && exit 0
    exit 1
}
trap finish EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM

# ---------------------------------------------------------------- the matrix
if [ -n "${PG_MAJORS:-}" ]; then
    MATRIX="$PG_MAJORS"; MATRIX_CHOSEN=1
elif [ -n "${PG_MAJOR:-}" ]; then
    MATRIX="$PG_MAJOR"; MATRIX_CHOSEN=1
else
    MATRIX="15 18 17:ri 19:ri"; MATRIX_CHOSEN=0
fi
if ! li_is_root; then
    li_log "running as $(id -un), not root: skipping package installation and (unless writable) 'make install'"
fi

# Makefile variables, as PGXS sees them.
mkvar() { li_as_pg make -s --no-print-directory -C "$SRC" -f Makefile -f "$WORK/print.mk" "print-$1" 2>/dev/null; }
count() { echo $#; }

# Parse a pg_regress summary: sets P and F.
regress_counts() {   # LOG NTESTS RC
    local log="$1" n="$2" rc="$3" line a b
    HOW=""
    line="$(grep -E 'All [0-9]+ tests passed|[0-9]+ of [0-9]+ tests (failed|passed)' "$log" | tail -n 1)"
    if [[ "$line" =~ All\ ([0-9]+)\ tests\ passed ]]; then
        P=${BASH_REMATCH[1]}; F=0
    elif [[ "$line" =~ ([0-9]+)\ of\ ([0-9]+)\ tests\ failed ]]; then
        a=${BASH_REMATCH[1]}; b=${BASH_REMATCH[2]}; F=$a; P=$((b - a))
    else   # pg_regress stopped early (missing expected file, CREATE EXTENSION failed...)
        P=0; F=$(( n > 0 ? n : 1 )); HOW="pg_regress aborted (exit $rc$( [ "$rc" -eq 124 ] && echo ': timed out')), all $F counted as failed; see the output above"
    fi
    if [ "$rc" -ne 0 ] && [ "$F" -eq 0 ]; then F=1; fi
}

# run_major MAJOR KIND FIRST: every suite (KIND full) or regress + isolation
# (KIND ri) against PostgreSQL MAJOR; FIRST=1 also runs the unit tests and
# the bench smoke.
run_major() {
    local major="$1" kind="$2" first="$3" rc detail lockfile
    CUR_MAJOR="$major"
    T0=$(date +%s)
    li_pg_select "$major"
    li_log "======== PostgreSQL $major ($([ "$kind" = ri ] && echo 'regress + isolation' || echo 'every suite'))"
    ( li_install_deps )
    rc=$?
    if [ "$rc" -ne 0 ]; then
        if [ "$rc" -eq "$LI_PG_UNAVAILABLE" ] && [ "$MATRIX_CHOSEN" = 0 ]; then
            li_warn "PostgreSQL $major cannot be had on this machine (its source package is not downloadable): compile-only check against its server headers"
            compile_only "$major"
        else
            note deps FAIL 0 1 "could not install PostgreSQL $major or the Debian packages"
        fi
        return
    fi

    WORK="$(li_mktemp_pg "learned_idx_test_pg$major")" && [ -d "$WORK" ] || li_die "could not create a temp dir"
    WORKS+=("$WORK")
    SRC="$WORK/tree"
    LOGS="$WORK/logs"
    li_log "Copying the working tree to $SRC"
    mkdir -p "$SRC" "$LOGS"
    li_copy_tree "$SRC" || li_die "copying the tree failed"
    li_is_root && chown -R "$LI_PGUSER:" "$WORK"
    cat >"$WORK/print.mk" <<'EOF'
print-%:
	@echo '$($*)'
EOF
    REGRESS_LIST="${REGRESS_TESTS:-$(mkvar REGRESS)}"
    ISOLATION_LIST="${ISOLATION_TESTS:-$(mkvar ISOLATION)}"
    [ "$REGRESS_LIST" = none ] && REGRESS_LIST=""
    [ "$ISOLATION_LIST" = none ] && ISOLATION_LIST=""
    TAP_ENABLED="$(mkvar TAP_TESTS)"
    [ "$kind" = ri ] && TAP_ENABLED=""
    TAP_FILES=()
    for f in "$SRC"/t/*.pl; do [ -e "$f" ] && TAP_FILES+=("$f"); done

    # ------------------------------------------------------------ build + install
    # one lock per installation: 15's (Debian's) is shared by every checkout
    if [ "$major" = 15 ]; then lockfile=/tmp/learned_idx_test.lock
    else lockfile=/tmp/learned_idx_test.pg$major.lock; fi
    exec 9>"$lockfile"
    if ! flock -n 9; then
        local w0=$(date +%s)
        li_log "Another test run holds $lockfile: waiting for it"
        flock 9
        li_log "Waited $(( $(date +%s) - w0 ))s for $lockfile"
        T0=$(date +%s)   # the suites' budget starts now
    fi
    li_log "Building (make) as $LI_PGUSER against $PG_CONFIG"
    BUILD_OK=1
    if ! li_as_pg make -C "$SRC" -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >"$LOGS/build.log" 2>&1; then
        BUILD_OK=0
        tail -n 60 "$LOGS/build.log"
        note build FAIL 0 1 "make failed (see above; $LOGS/build.log)"
    else
        if grep -qE 'warning:' "$LOGS/build.log"; then
            grep -E 'warning:' "$LOGS/build.log" | sort -u | head -n 40
            note build FAIL 0 1 "compiler warnings (see above; $LOGS/build.log)"
        fi
        li_log "Installing (make install)"
        if ! li_make_install "$SRC" >"$LOGS/install.log" 2>&1; then
            BUILD_OK=0
            cat "$LOGS/install.log"
            note install FAIL 0 1 "make install failed"
        else
            grep -h 'WARNING' "$LOGS/install.log" >&2
        fi
        li_is_root && chown -R "$LI_PGUSER:" "$WORK"
    fi

    # ------------------------------------------------------------ (a) unit tests
    if [ "$first" = 1 ]; then
        li_log "Suite unit: make unit-test"
        li_as_pg timeout -k 20 "$(budget 600)" make -C "$SRC" --no-print-directory unit-test 2>&1 | tee "$LOGS/unit.log" | grep -v '^ok '
        rc=${PIPESTATUS[0]}   # (passing cases are not echoed; the full output is in $LOGS/unit.log)
        detail="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOGS/unit.log" | tail -n 1)"
        if [ "$rc" -eq 0 ]; then
            note unit PASS 1 0 "make unit-test: ${detail:-ok}"
        else
            note unit FAIL 0 1 "make unit-test exited $rc${detail:+: $detail}"
        fi
    fi

    if [ "$BUILD_OK" = 1 ]; then
        run_suites "$major" "$kind" "$first"
    else
        note regress "NOT RUN" 0 0 "build failed"
        note isolation "NOT RUN" 0 0 "build failed"
        [ "$kind" = ri ] || note tap "NOT RUN" 0 0 "build failed"
    fi
    exec 9>&-
}

# compile_only MAJOR: compile src/*.c against MAJOR's server headers (taken
# from Debian's postgresql-server-dev-MAJOR package, unpacked, not installed)
# with the Makefile's warning flags: a warning or an error is a failure.
compile_only() {
    local major="$1" hdr log
    log="$(mktemp /tmp/learned_idx_compile.XXXXXX)"
    if ! hdr="$(li_pg_headers "$major" 2>"$log")"; then
        cat "$log" >&2
        note compile "NOT RUN" 0 0 "PostgreSQL $major: neither its source nor its headers can be had here"
        rm -f "$log"; return
    fi
    if li_compile_check "$hdr" >"$log" 2>&1 && ! grep -qE 'warning:|error:' "$log"; then
        note compile PASS 1 0 "src/*.c compile warning-free against $major's headers (tests not run: no server)"
    else
        grep -E 'warning:|error:' "$log" | sort -u | head -n 40
        note compile FAIL 0 1 "src/*.c against $major's headers: warnings or errors (above)"
    fi
    rm -f "$log"
}

run_suites() {
    local major="$1" kind="$2" first="$3" rc f rel left lim t
    # ------------------------------------------------------------ (b) pg_regress
    NREG=$(count $REGRESS_LIST)
    NISO=$(count $ISOLATION_LIST)
    if [ "$NREG" -gt 0 ] || { [ "$NISO" -gt 0 ] && [ -d "$SRC/specs" ]; }; then
        CL="$WORK/cluster"
        li_as_pg mkdir -p "$CL"
        li_log "Starting a throwaway cluster in $CL (port $TEST_PORT)"
        # autovacuum off: several tests print what a VACUUM or a merge left
        # (generations, entry counts, page counts).  An autovacuum worker
        # that analyzes any table of the database holds a snapshot, so a
        # test's VACUUM then cannot remove the rows it just deleted, and an
        # autovacuum of a test's table merges its index at a moment the
        # test does not choose.  Both made 22_dynamic_plain fail once in CI.
        li_cluster_start "$CL" "$TEST_PORT" "fsync = off" "shared_buffers = 128MB" \
            "max_prepared_transactions = 10" "autovacuum = off"
    fi
    if [ "$NREG" -gt 0 ]; then
        li_log "Suite regress: make installcheck ($NREG tests)"
        li_as_pg timeout -k 20 "$(budget 900)" \
            make -C "$SRC" --no-print-directory installcheck TAP_TESTS= ISOLATION= \
            REGRESS="$REGRESS_LIST" 2>&1 |
            tee "$LOGS/regress.log"
        rc=${PIPESTATUS[0]}
        regress_counts "$LOGS/regress.log" "$NREG" "$rc"
        if [ "$F" -eq 0 ]; then
            note regress PASS "$P" 0 "$P of $NREG tests passed"
        else
            if [ -s "$SRC/regression.diffs" ]; then
                echo "---------------- regression.diffs (first 400 lines) ----------------"
                head -n 400 "$SRC/regression.diffs"
            fi
            echo "---------------- server log (last 30 lines) ----------------"
            tail -n 30 "$CL/server.log"
            note regress FAIL "$P" "$F" "${HOW:-$F of $NREG tests failed (diffs: $SRC/regression.diffs)}"
        fi
    else
        note regress SKIP 0 0 "no sql/*.sql tests"
    fi

    # ------------------------------------------------------------ (d) isolation
    if [ "$NISO" -gt 0 ] && [ -d "$SRC/specs" ]; then
        li_log "Suite isolation: pg_isolation_regress ($NISO specs)"
        li_as_pg timeout -k 20 "$(budget 600)" \
            make -C "$SRC" --no-print-directory installcheck TAP_TESTS= REGRESS= \
            ISOLATION="$ISOLATION_LIST" 2>&1 |
            tee "$LOGS/isolation.log"
        rc=${PIPESTATUS[0]}
        regress_counts "$LOGS/isolation.log" "$NISO" "$rc"
        if [ "$F" -eq 0 ]; then
            note isolation PASS "$P" 0 "$P of $NISO specs passed"
        else
            if [ -s "$SRC/output_iso/regression.diffs" ]; then
                echo "---------------- output_iso/regression.diffs (first 400 lines) ----------------"
                head -n 400 "$SRC/output_iso/regression.diffs"
            fi
            note isolation FAIL "$P" "$F" "${HOW:-$F of $NISO specs failed (diffs: $SRC/output_iso/regression.diffs)}"
        fi
    else
        note isolation SKIP 0 0 "no specs/ directory or ISOLATION not set in the Makefile"
    fi
    li_cluster_stop
    unset PGHOST PGPORT PGUSER PGDATABASE

    # ------------------------------------------------------------ (c) TAP
    # One prove run per script (the command PGXS's prove_installcheck runs), each
    # under a timeout, so that a hung script fails alone and CI stays in budget.
    if [ -n "${PROVE_TESTS:-}" ]; then
        TAP_FILES=()
        for f in $PROVE_TESTS; do [ "$f" = none ] || TAP_FILES+=("$SRC/$f"); done
    fi
    NTAP=${#TAP_FILES[@]}
    if [ -n "$TAP_ENABLED" ] && [ "$NTAP" -gt 0 ]; then
        li_log "Suite tap: prove, $NTAP scripts (each at most ${TAP_FILE_TIMEOUT}s)"
        PGXS_TOP="$(cd "$(dirname "$("$PG_CONFIG" --pgxs)")/../.." && pwd)"
        li_as_pg rm -rf "$SRC/tmp_check"
        li_as_pg mkdir -p "$SRC/tmp_check"
        P=0; F=0; TAP_FAILED=()
        for f in "${TAP_FILES[@]}"; do
            rel="t/${f##*/}"
            left=$(( T0 + TEST_BUDGET - $(date +%s) ))
            if [ "$left" -lt 60 ]; then
                echo "$rel .. NOT RUN: the time budget (TEST_BUDGET=${TEST_BUDGET}s) is spent"
                F=$((F + 1)); TAP_FAILED+=("$rel (not run: time budget)")
                continue
            fi
            lim=$(( left < TAP_FILE_TIMEOUT ? left : TAP_FILE_TIMEOUT ))
            li_as_pg bash -c 'cd "$1" && shift && exec "$@"' _ "$SRC" \
                timeout -k 20 "$lim" env TESTDIR="$SRC" TESTDATADIR="$SRC/tmp_check" TESTLOGDIR="$SRC/tmp_check/log" PATH="$LI_PGBIN:$SRC:$PATH" PGPORT=65432 \
                PG_REGRESS="$PGXS_TOP/src/test/regress/pg_regress" \
                prove -I "$PGXS_TOP/src/test/perl/" -I ./ $PROVE_FLAGS "$rel" 2>&1 |
                tee -a "$LOGS/tap.log"
            rc=${PIPESTATUS[0]}
            stop_tap_nodes
            if [ "$rc" -eq 0 ]; then
                P=$((P + 1))
            elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
                echo "$rel .. TIMED OUT after ${lim}s (killed)"
                F=$((F + 1)); TAP_FAILED+=("$rel (timed out after ${lim}s)")
            else
                F=$((F + 1)); TAP_FAILED+=("$rel")
            fi
        done
        if [ "$F" -eq 0 ]; then
            note tap PASS "$P" 0 "$P of $NTAP scripts passed"
        else
            for t in "${TAP_FAILED[@]}"; do   # the logs of the failed scripts only
                t="${t%% *}"; t="${t#t/}"; t="${t%.pl}"
                for f in "$SRC/tmp_check/log/regress_log_$t" "$SRC/tmp_check/log/${t}"_*.log; do
                    [ -f "$f" ] || continue
                    echo "---------------- tail of ${f#$SRC/} ----------------"
                    tail -n 40 "$f"
                done
            done
            note tap FAIL "$P" "$F" "$F of $NTAP scripts failed: ${TAP_FAILED[*]} (logs: $SRC/tmp_check/log/)"
        fi
    elif [ "$kind" = ri ]; then
        :
    elif [ -z "$TAP_ENABLED" ]; then
        note tap SKIP 0 0 "TAP_TESTS not set in the Makefile"
    else
        note tap SKIP 0 0 "no t/*.pl scripts"
    fi

    # ------------------------------------------------------------ (d) bench smoke
    # bench/run.sh --smoke: 20k-row datasets, every part of the benchmark suite (pgbench
    # workloads, cold cache, sweep, writes, pgbench -S; TPC-C when Go can build go-tpc), then
    # the dynamic-stage driver's smoke and the keys driver's (--keys --smoke, ~15 s: text,
    # uuid, numeric, composite keys; "unsupported" types do not fail it), a few minutes in
    # all, so the scripts cannot rot.  It
    # needs root (runuser, drop_caches) and a Python venv (numpy, matplotlib, psycopg; Debian's
    # packages when PyPI fails); the venv and go-tpc are cached under /var/tmp between runs.
    # BENCH_SMOKE=0 skips it.
    if [ "${BENCH_SMOKE:-1}" != 0 ] && [ "$first" = 1 ] && [ "$major" = 15 ] && li_is_root && [ -f "$SRC/bench/run.sh" ]; then
        li_log "Suite bench: bash bench/run.sh --smoke, then --dynamic --smoke, then --keys --smoke"
        export BENCH_VENV=/var/tmp/learned_bench_venv BENCH_TOOLS=/var/tmp/learned_bench_tools
        # Fixed limits, not what is left of TEST_BUDGET: the smoke runs after
        # the suites, and a slow machine that spent the suites' budget would
        # otherwise give it 30 s and fail it for the suites' slowness.
        lim=720   # the first run on a machine also builds the venv and go-tpc
        timeout -k 20 "$lim" env PG_MAJOR=15 BENCH_INSTALL_LOCKED=1 bash "$SRC/bench/run.sh" --smoke --no-build \
            --port $((TEST_PORT + 1)) >"$LOGS/bench_smoke.log" 2>&1
        rc=$?
        if [ "$rc" -eq 0 ]; then
            # the dynamic-stage (insert) benchmark is a second driver: smoke it too
            lim=300
            timeout -k 20 "$lim" env PG_MAJOR=15 BENCH_INSTALL_LOCKED=1 bash "$SRC/bench/run.sh" --dynamic --smoke \
                --no-build --port $((TEST_PORT + 1)) >>"$LOGS/bench_smoke.log" 2>&1
            rc=$?
        fi
        if [ "$rc" -eq 0 ]; then
            # the variable-width / composite keys benchmark (issue #6) is a third driver
            lim=180
            timeout -k 20 "$lim" env PG_MAJOR=15 BENCH_INSTALL_LOCKED=1 bash "$SRC/bench/run.sh" --keys --smoke \
                --no-build --port $((TEST_PORT + 1)) >>"$LOGS/bench_smoke.log" 2>&1
            rc=$?
        fi
        if [ "$rc" -eq 0 ]; then
            note bench PASS 1 0 "bench/run.sh --smoke, --dynamic --smoke and --keys --smoke passed"
        else
            tail -n 30 "$LOGS/bench_smoke.log"
            note bench FAIL 0 1 "bench/run.sh --smoke failed (exit $rc; $LOGS/bench_smoke.log)"
        fi
    else
        [ "$first" = 1 ] && note bench SKIP 0 0 "bench smoke skipped (BENCH_SMOKE=0, not root, or the first major is not 15)"
    fi
}

FIRST=1
for spec in $MATRIX; do
    major="${spec%%:*}"
    kind=full
    [ "$spec" != "$major" ] && kind="${spec#*:}"
    case "$kind" in full|ri) ;; *) li_die "PG_MAJORS: '$spec': the kind is 'ri' (regress + isolation) or nothing (every suite)" ;; esac
    case " $LI_PG_SUPPORTED " in *" $major "*) ;; *) li_die "PG_MAJORS: $major is not a supported major ($LI_PG_SUPPORTED)" ;; esac
    M_PASS=0; M_FAIL=0
    M_T0=$(date +%s)
    if [ "$major" = 16 ]; then   # supported, but no Debian suite carries it
        CUR_MAJOR=16
        note all FAIL 0 1 "PostgreSQL 16 cannot be had on Debian 12 (no suite carries it): it compiles through the guards it shares with 17, untested"
        continue
    fi
    run_major "$major" "$kind" "$FIRST"
    li_cluster_stop
    unset PGHOST PGPORT PGUSER PGDATABASE
    SUMMARY+=("$(printf '  %-3s %-10s %-8s %s' "$major" total "$([ "$M_FAIL" -eq 0 ] && echo PASS || echo FAIL)" "$M_PASS passed, $M_FAIL failed in $(( $(date +%s) - M_T0 ))s")")
    FIRST=0
done
REACHED_END=1
exit 0
