"""Compressed leaf pages (reloption compression): index size of learned(compression=on),
learned(compression=off) and btree, entries per leaf page, expected pages per lookup, build
time, and per-lookup time of on vs off (and btree), interleaved, on the bench datasets.

    PGHOST=... PGPORT=... python bench/lib/compress_bench.py --n 1000000 \
        [--datasets seq_gaps,books,wiki,fb,osm,corr] [--probes 100000] [--reps 7]

corr is the int4 column of a correlated table: seq_gaps keys (they fit in int4) with heap
order = key order.  The other datasets are int8 keys in random heap order.

All three indexes live on one table; each timed query runs in a transaction that drops the
other two indexes and rolls back, so the planner can only use the one measured (no table
copies: the heap and its cache are the same for all three).  Lookups are a server-side
nested loop over a probe table of random existing keys: "is" fetches the heap row (sum of
v), "ios" is an index-only count.  Repetitions alternate the order of the variants.
Prints one markdown table to stdout.  Needs numpy and psycopg.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import datasets as D  # noqa: E402
from pgdb import DB  # noqa: E402

GUCS = {"enable_hashjoin": "off", "enable_mergejoin": "off", "enable_bitmapscan": "off",
        "enable_memoize": "off", "enable_material": "off", "enable_seqscan": "on",
        "max_parallel_workers_per_gather": "0", "jit": "off"}
VARIANTS = [("btree", "USING btree (k)"),
            ("off", "USING learned (k) WITH (compression = off)"),
            ("on", "USING learned (k) WITH (compression = on)")]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def load(db, name, n, probes):
    base = "seq_gaps" if name == "corr" else name
    keys = D.generate(base, n)
    rng = np.random.default_rng(D.SEEDS[base] + 7)
    ranks = np.arange(n, dtype=np.int64)
    order = ranks if name == "corr" else rng.permutation(n)
    db.q("DROP TABLE IF EXISTS cb, cb_stage, cb_probe")
    ktype = "int4" if name == "corr" else "int8"
    db.q("CREATE TABLE cb_stage (k int8, v int8)")
    with db.conn.cursor() as cur:
        with cur.copy("COPY cb_stage FROM STDIN (FORMAT binary)") as cp:
            for chunk in D.copy_binary_chunks([keys[order], ranks[order]]):
                cp.write(chunk)
    db.q("CREATE TABLE cb (k %s, v int8) WITH (autovacuum_enabled = false)" % ktype)
    db.q("INSERT INTO cb SELECT k, v FROM cb_stage")  # heap order kept (one insert, one backend)
    db.q("DROP TABLE cb_stage")
    pidx = rng.integers(0, n, probes)
    db.q("CREATE TABLE cb_probe (k int8) WITH (autovacuum_enabled = false)")
    with db.conn.cursor() as cur:
        with cur.copy("COPY cb_probe FROM STDIN (FORMAT binary)") as cp:
            for chunk in D.copy_binary_chunks([keys[pidx]]):
                cp.write(chunk)
    if name == "corr":
        db.q("ALTER TABLE cb_probe ALTER k TYPE int4")
    db.vacuum_frozen("cb", "cb_probe")
    lo = np.searchsorted(keys, keys[pidx], "left")
    hi = np.searchsorted(keys, keys[pidx], "right")
    return int((hi - lo).sum()), int(((lo + hi - 1) * (hi - lo) // 2).sum())


def timed_with_only(db, keep, sql):
    others = ", ".join("cb_" + v for v, _ in VARIANTS if v != keep)
    db.q("BEGIN")
    try:
        db.q("DROP INDEX %s" % others)
        plan = "\n".join(r[0] for r in db.q("EXPLAIN (COSTS OFF) " + sql))
        t0 = time.perf_counter()
        rows = db.q(sql)
        dt = time.perf_counter() - t0
    finally:
        db.q("ROLLBACK")
    return dt, rows, plan


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--datasets", default="seq_gaps,books,wiki,fb,osm,corr")
    ap.add_argument("--probes", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--loops", default="is,ios", help="which lookup loops to time: is, ios")
    a = ap.parse_args()
    db = DB()
    db.q("CREATE EXTENSION IF NOT EXISTS learned_idx")
    db.q("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
    db.q("SET maintenance_work_mem = '1GB'")
    print("| dataset | n | btree MB | off MB | on MB | on/btree | off/btree | on/off | entries/page off | "
          "entries/page on | exp. pages/lookup off | exp. pages/lookup on | build s off / on | "
          "lookup us btree / off / on (median, min-max) | on vs off | ios us btree / off / on | ios on vs off |")
    print("|" + "---|" * 17)
    for name in a.datasets.split(","):
        t0 = time.time()
        exp = load(db, name, a.n, a.probes)
        log("%s: loaded in %.1fs" % (name, time.time() - t0))
        size, build, info = {}, {}, {}
        for v, using in VARIANTS:
            t0 = time.perf_counter()
            db.q("CREATE INDEX cb_%s ON cb %s" % (v, using))
            build[v] = time.perf_counter() - t0
            size[v] = db.q1("SELECT pg_relation_size('cb_%s')" % v)[0]
            if v != "btree":
                info[v] = db.dict1("SELECT * FROM learned_index_info('cb_%s')" % v)
                info[v]["exp_pages"] = float(db.q1(
                    """SELECT sum(entries * (1 + 2.0 * coalesce(max_error, 0) / items_per_page)) / sum(entries)
                       FROM learned_index_segments('cb_%s') WHERE kind <> 'nulls'""" % v)[0])
        for rel in ["cb", "cb_probe"] + ["cb_" + v for v, _ in VARIANTS]:
            db.q("SELECT pg_prewarm('%s')" % rel)
        for k, val in GUCS.items():
            db.q("SET %s = '%s'" % (k, val))
        sqls = {"is": "SELECT count(*), sum(t.v) FROM cb_probe p JOIN cb t ON t.k = p.k",
                "ios": "SELECT count(*) FROM cb_probe p JOIN cb t ON t.k = p.k"}
        times = {(w, v): [] for w in sqls for v, _ in VARIANTS}
        for w, sql in sqls.items():
            if w not in a.loops.split(","):
                continue
            for v, _ in VARIANTS:      # warm-up, plan and answer check
                _, rows, plan = timed_with_only(db, v, sql)
                want = "Index Only Scan" if w == "ios" else "Index Scan"
                if "Nested Loop" not in plan or ("%s using cb_%s" % (want, v)) not in plan:
                    log("PLAN PROBLEM %s %s %s:\n%s" % (name, w, v, plan))
                got = int(rows[0][0]) if w == "ios" else (int(rows[0][0]), int(rows[0][1]))
                if got != (exp[0] if w == "ios" else exp):
                    log("WRONG ANSWER %s %s %s: %s, expected %s" % (name, w, v, got, exp))
            for rep in range(a.reps):
                order = VARIANTS if rep % 2 == 0 else VARIANTS[::-1]
                for v, _ in order:
                    dt, _, _ = timed_with_only(db, v, sql)
                    times[(w, v)].append(dt / a.probes * 1e6)
        for k in GUCS:
            db.q("RESET %s" % k)

        def med(w, v):
            return statistics.median(times[(w, v)]) if times[(w, v)] else float("nan")

        def fmt(w, v):
            t = times[(w, v)]
            return "%.2f (%.2f-%.2f)" % (med(w, v), min(t), max(t)) if t else "-"
        mb = {v: size[v] / 1e6 for v in size}
        print("| %s | %d | %.1f | %.1f | %.1f | %.3f | %.3f | %.3f | %.0f | %.0f | %.2f | %.2f | %.1f / %.1f | "
              "%s / %s / %s | %+.1f%% | %s / %s / %s | %+.1f%% |" % (
                  name, a.n, mb["btree"], mb["off"], mb["on"], size["on"] / size["btree"],
                  size["off"] / size["btree"], size["on"] / size["off"],
                  info["off"]["mean_items_per_page"], info["on"]["mean_items_per_page"],
                  info["off"]["exp_pages"], info["on"]["exp_pages"], build["off"], build["on"],
                  fmt("is", "btree"), fmt("is", "off"), fmt("is", "on"),
                  (med("is", "on") / med("is", "off") - 1) * 100,
                  fmt("ios", "btree"), fmt("ios", "off"), fmt("ios", "on"),
                  (med("ios", "on") / med("ios", "off") - 1) * 100), flush=True)
        db.q("DROP TABLE cb, cb_probe")


if __name__ == "__main__":
    main()
