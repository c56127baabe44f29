"""Interleaved loops on compress_bench.py's tables, kept between runs (bench/RESULTS_COMPRESSION.md,
"Cheaper page visits").

    PGHOST=... python bench/lib/compress_loops.py setup DATASET N
    PGHOST=... python bench/lib/compress_loops.py run REPS LOOPS [VARIANTS]

setup loads DATASET (N keys) as compress_bench.py does and builds its three indexes (btree,
learned off, learned on); run times the LOOPS (comma-separated: is, ios, ob10, r10, r100, r10000,
i100, i10000) REPS times, alternating the VARIANTS' order (default off,on), each query in a
rolled-back transaction that drops the other indexes.  Prints medians (min-max) per query or
lookup, in microseconds, and each variant against the first.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compress_bench as C  # noqa: E402
from pgdb import DB  # noqa: E402

def setup(db, name, n):
    db.q("CREATE EXTENSION IF NOT EXISTS learned_idx")
    db.q("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
    db.q("SET maintenance_work_mem = '1GB'")
    db.q("DROP TABLE IF EXISTS cb_rp")
    C.load(db, name, n, 100000)
    for v, using in C.VARIANTS:
        db.q("CREATE INDEX cb_%s ON cb %s" % (v, using))
    db.q("VACUUM cb")
    for rel in ["cb", "cb_probe"] + ["cb_" + v for v, _ in C.VARIANTS]:
        db.q("SELECT pg_prewarm('%s')" % rel)


def run(db, argv):
    reps = int(argv[0]); loops = (argv[1] if len(argv) > 1 else "is,ios").split(",")
    vs = (argv[2] if len(argv) > 2 else "off,on").split(",")
    for k, val in C.GUCS.items(): db.q("SET %s = '%s'" % (k, val))
    db.q("SET enable_sort = off")
    sqls = {"is": "SELECT count(*), sum(t.v) FROM cb_probe p JOIN cb t ON t.k = p.k",
            "ios": "SELECT count(*) FROM cb_probe p JOIN cb t ON t.k = p.k",
            "lim": "SELECT sum(k) FROM (SELECT k FROM cb ORDER BY k LIMIT 10) s",
            "limr": "SELECT sum(k) FROM (SELECT t.k FROM cb_probe p CROSS JOIN LATERAL (SELECT k FROM cb WHERE k >= p.k ORDER BY k LIMIT 10) t) s",
            "rng": "SELECT sum(c) FROM cb_probe p CROSS JOIN LATERAL (SELECT count(*) c FROM cb WHERE k BETWEEN p.k AND p.k + 1000000) t",
            "ob10": "SELECT sum(t.v) FROM cb_probe p CROSS JOIN LATERAL (SELECT k, v FROM cb WHERE k >= p.k ORDER BY k LIMIT 10) t",
            "r10": "SELECT count(*), sum(t.v) FROM cb_rp p JOIN cb t ON t.k >= p.lo AND t.k <= p.hi10",
            "r100": "SELECT count(*), sum(t.v) FROM cb_rp p JOIN cb t ON t.k >= p.lo AND t.k <= p.hi100",
            "i100": "SELECT count(*) FROM cb_rp p JOIN cb t ON t.k >= p.lo AND t.k <= p.hi100",
            "i10000": "SELECT count(*) FROM (SELECT * FROM cb_rp LIMIT 1000) p JOIN cb t ON t.k >= p.lo AND t.k <= p.hi10000",
            "r10000": "SELECT count(*), sum(t.v) FROM (SELECT * FROM cb_rp LIMIT 100) p JOIN cb t ON t.k >= p.lo AND t.k <= p.hi10000"}
    db.q("CREATE TABLE IF NOT EXISTS cb_rp AS SELECT lo, hi10, hi100, hi10000 FROM (SELECT k lo, lead(k, 9) OVER w hi10, lead(k, 99) OVER w hi100, lead(k, 9999) OVER w hi10000, random() r FROM cb WINDOW w AS (ORDER BY k)) s WHERE hi10000 IS NOT NULL ORDER BY r LIMIT 20000")
    db.q("VACUUM ANALYZE cb_rp")
    nq = {"is": 100000, "ios": 100000, "lim": 1, "limr": 100000, "rng": 100000, "ob10": 100000, "r10": 20000, "r100": 20000, "r10000": 100, "i100": 20000, "i10000": 1000}
    for w in loops:
        t = {v: [] for v in vs}
        res = {}
        for v in vs:
            _, rows, plan = C.timed_with_only(db, v, sqls[w]); res[v] = rows
        if len(set(str(r) for r in res.values())) != 1: print("ANSWERS DIFFER", res)
        for r in range(reps):
            for v in (vs if r % 2 == 0 else vs[::-1]):
                dt, _, _ = C.timed_with_only(db, v, sqls[w]); t[v].append(dt / nq[w] * 1e6)
        base = statistics.median(t[vs[0]])
        print(w, " | ".join("%s %.3f (%.3f-%.3f) %+.1f%%" % (v, statistics.median(t[v]), min(t[v]), max(t[v]), (statistics.median(t[v]) / base - 1) * 100) for v in vs), flush=True)

if __name__ == "__main__":
    db = DB()
    if sys.argv[1] == "setup":
        setup(db, sys.argv[2], int(sys.argv[3]))
    else:
        run(db, sys.argv[2:])
