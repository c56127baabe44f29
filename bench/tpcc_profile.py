#!/usr/bin/env python3
"""TPC-C profile of one schema at a time (issue 30, target 9), on a cluster you started.

The schemas of bench/lib/tpcc.py (btree, learned, learned_all) are built once as template
databases t_<schema>; each `run` copies one into r_<schema>, runs go-tpc on it, and prints
tpmC, every index's size after the run and, for learned indexes, learned_index_info /
learned_index_runs (leaf, pending, run pages).  With --perf, `perf record -a -g` (cpu-clock)
runs alongside; with --dwarf, `perf record --call-graph dwarf` on the go-tpc backends only
(needed for call chains: the bench builds have no frame pointers).  `account` turns a
--perf file into backend CPU per new order and per function (self time).  Hold the bench lock:

  flock /tmp/learned_idx_bench.lock python3 bench/tpcc_profile.py --port P setup [--wh 2]
  flock /tmp/learned_idx_bench.lock python3 bench/tpcc_profile.py --port P run learned_all 30 --perf la.data
  python3 bench/tpcc_profile.py account la.data --binary-dir DIR --tpmc T --secs 30

The cluster: bench/run.sh's settings (shared_buffers 2GB, fsync off, synchronous_commit off,
full_page_writes off, autovacuum off, jit off), the server pinned to the last CPU
(taskset -c 1 pg_ctl start), listen_addresses 127.0.0.1 (go-tpc connects over TCP), the
connection to it through PGHOST/PGPORT/PGUSER=postgres.
"""
import argparse
import collections
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import tpcc as T  # noqa: E402

BENCH = os.path.dirname(os.path.abspath(__file__))


def common(a):
    return ["-d", "postgres", "-H", "127.0.0.1", "-P", str(a.port), "-U", "postgres", "--conn-params",
            "sslmode=disable"]


def setup(a):
    err = T.load_base(a.gotpc, common(a), a.wh, "/tmp/tpcc_profile_csv", os.path.join(BENCH, "tpcc", "schema.sql"))
    if err:
        sys.exit(err)
    admin = T.connect("postgres")
    for side in ("btree", "learned", "learned_all"):
        admin.execute("DROP DATABASE IF EXISTS t_%s" % side)
        admin.execute("CREATE DATABASE t_%s TEMPLATE tpcc_base" % side)
        c = T.connect("t_" + side)
        for _ in T.create_indexes(c, "learned", side):
            pass
        c.execute("VACUUM (ANALYZE)")
        c.execute("CHECKPOINT")
        c.close()
    admin.execute("DROP DATABASE tpcc_base")


def info(db):
    c = T.connect(db)
    for name, size in c.execute(
            "SELECT c2.relname, pg_relation_size(i.indexrelid) FROM pg_index i JOIN pg_class c2 ON c2.oid = "
            "i.indexrelid JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' ORDER BY 1").fetchall():
        print("  %-17s %8d kB" % (name, size // 1024))
    if c.execute("SELECT 1 FROM pg_extension WHERE extname = 'learned_idx'").fetchone():
        for r in c.execute(
                "SELECT c2.relname, i.total_pages, i.leaf_pages, i.segments, i.entries, i.pending_entries, "
                "i.pending_pages, i.merges, (SELECT count(run) FROM learned_index_runs(c2.oid)), "
                "(SELECT sum(pages) FROM learned_index_runs(c2.oid)), "
                "(SELECT sum(filter_pages) FROM learned_index_runs(c2.oid)) "
                "FROM pg_class c2 JOIN pg_am a ON a.oid = c2.relam, LATERAL learned_index_info(c2.oid) i "
                "WHERE a.amname = 'learned' ORDER BY 1").fetchall():
            print("  %-17s pages %5d leaf %5d segments %3d entries %7d pending %6d pending pages %4d merges %3d "
                  "runs %s run pages %s filter pages %s" % r)
    c.close()


def run(a):
    side = a.schema
    admin = T.connect("postgres")
    admin.execute("DROP DATABASE IF EXISTS r_%s" % side)
    admin.execute("CREATE DATABASE r_%s TEMPLATE t_%s" % (side, side))
    c = T.connect("r_" + side)
    if a.set:
        # e.g. --set merge_ratio=40: every learned index of the copy
        for (name,) in c.execute("SELECT c.relname FROM pg_class c JOIN pg_am m ON m.oid = c.relam "
                                 "WHERE m.amname = 'learned'").fetchall():
            c.execute("ALTER INDEX %s SET (%s)" % (name, a.set))
    c.execute("CHECKPOINT")
    c.close()
    cmd = ["taskset", "-c", "0-%d" % ((os.cpu_count() or 1) - 1), a.gotpc, "tpcc", "run"] + common(a) + [
        "-D", "r_" + side, "--warehouses", str(a.wh), "-T", "2", "--time", "%ds" % a.secs]
    th = p = None
    if a.perf:
        p = subprocess.Popen(["perf", "record", "-g", "-a", "-o", a.perf, "--", "sleep", str(a.secs + 2)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elif a.dwarf:
        def later():
            time.sleep(4)
            c2 = T.connect("postgres")
            pids = [str(r[0]) for r in c2.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND backend_type = 'client backend'",
                ("r_" + side,)).fetchall()]
            c2.close()
            subprocess.run(["perf", "record", "-F", "499", "--call-graph", "dwarf,16384", "-o", a.dwarf, "-p",
                            ",".join(pids), "--", "sleep", str(max(1, a.secs - 8))],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        th = threading.Thread(target=later)
        th.start()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if p:
        p.wait()
    if th:
        th.join()
    res = T.parse_run(r.stdout)
    print("%s tpmC %s, NEW_ORDER p99 %s ms" % (side, res.get("tpmC"), res.get("NEW_ORDER_p99_ms")))
    if r.returncode != 0:
        print(r.stdout[-2000:], r.stderr[-2000:])
    info("r_" + side)


def account(a):
    """Self time per function of the two busiest processes whose stacks touch --binary-dir (the
    go-tpc backends), in us per new order."""
    out = subprocess.run(["perf", "script", "-i", a.file], capture_output=True, text=True).stdout
    leaf = collections.defaultdict(collections.Counter)
    period = 250000.0
    for block in out.split("\n\n"):
        lines = [x for x in block.split("\n") if x.strip()]
        if not lines or a.binary_dir not in block:
            continue
        head = lines[0].split()
        if "cpu-clock:" in " ".join(head) or len(head) > 1:
            pid = head[1]
        for i, f in enumerate(head):
            if f.startswith("cpu-clock") and i > 0:
                try:
                    period = float(head[i - 1])
                except ValueError:
                    pass
        if len(lines) > 1:
            f = lines[1].split()
            leaf[pid][f[1].split("+")[0] if len(f) > 1 else "?"] += 1
    pids = sorted(leaf, key=lambda p: -sum(leaf[p].values()))[:2]
    tot = collections.Counter()
    for p in pids:
        tot.update(leaf[p])
    tx = a.tpmc * a.secs / 60.0
    us = period / 1000.0 / tx
    print("backends %s: %.0f us of CPU per new order" % (",".join(pids), sum(tot.values()) * us))
    for sym, n in tot.most_common(a.top):
        print("%8.1f  %s" % (n * us, sym))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=5432)
    ap.add_argument("--wh", type=int, default=2)
    ap.add_argument("--gotpc", default=os.path.join(BENCH, ".tools", "go-tpc"))
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("setup")
    r = sub.add_parser("run")
    r.add_argument("schema", choices=("btree", "learned", "learned_all"))
    r.add_argument("secs", type=int)
    r.add_argument("--perf")
    r.add_argument("--dwarf")
    r.add_argument("--set", help="reloptions for every learned index of the run's copy, e.g. merge_ratio=40")
    i = sub.add_parser("info")
    i.add_argument("db")
    c = sub.add_parser("account")
    c.add_argument("file")
    c.add_argument("--binary-dir", required=True)
    c.add_argument("--tpmc", type=float, required=True)
    c.add_argument("--secs", type=float, required=True)
    c.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    {"setup": setup, "run": run, "info": lambda a: info(a.db), "account": account}[a.cmd](a)


if __name__ == "__main__":
    main()
