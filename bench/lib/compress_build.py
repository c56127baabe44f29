"""Build and merge time of btree, learned compression = off and on (bench/RESULTS_COMPRESSION.md).

    PGHOST=... python bench/lib/compress_build.py N REPS DATASETS

For each dataset (compress_bench.py's tables), REPS repetitions of the three builds in alternating
order, a CHECKPOINT before each; after each learned build, a 2% sample of existing keys + 1 is
inserted and learned_index_merge times one merge (which rewrites every segment), then the rows are
deleted again.  Prints a markdown table: medians (min-max) and ratios.
"""
import os
import statistics
import sys
import time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compress_bench as C
from pgdb import DB
db = DB()
n = int(sys.argv[1]); reps = int(sys.argv[2])
db.q("CREATE EXTENSION IF NOT EXISTS learned_idx"); db.q("SET maintenance_work_mem = '1GB'")
V = [("btree", "USING btree (k)"), ("off", "USING learned (k) WITH (compression = off)"), ("on", "USING learned (k) WITH (compression = on)")]
print("| dataset | build s btree / off / on (median, min-max) | off/btree | on/btree | on/off | merge s off / on (median, min-max) | merge on/off |")
print("|---|---|---|---|---|---|---|")
for name in sys.argv[3].split(","):
    C.load(db, name, n, 1000)
    bt = {v: [] for v, _ in V}; mt = {"off": [], "on": []}
    for r in range(reps):
        for v, using in (V if r % 2 == 0 else V[::-1]):
            db.q("DROP INDEX IF EXISTS cbb")
            db.q("CHECKPOINT")
            t0 = time.perf_counter(); db.q("CREATE INDEX cbb ON cb %s" % using); bt[v].append(time.perf_counter() - t0)
            if v != "btree":
                # 2% random inserts (keys between existing ones), then one merge
                db.q("INSERT INTO cb SELECT k + 1, -1 FROM cb TABLESAMPLE SYSTEM (2) REPEATABLE (%d)" % r)
                t0 = time.perf_counter(); db.q("SELECT learned_index_merge('cbb')"); mt[v].append(time.perf_counter() - t0)
                db.q("DELETE FROM cb WHERE v = -1")
            db.q("DROP INDEX cbb")
        db.q("VACUUM cb")
    m = {v: statistics.median(bt[v]) for v in bt}; mm = {v: statistics.median(mt[v]) for v in mt}
    f = lambda t: "%.3f (%.3f-%.3f)" % (statistics.median(t), min(t), max(t))
    print("| %s | %s / %s / %s | %.2f | %.2f | %.2f | %s / %s | %.2f |" % (name, f(bt["btree"]), f(bt["off"]), f(bt["on"]), m["off"] / m["btree"], m["on"] / m["btree"], m["on"] / m["off"], f(mt["off"]), f(mt["on"]), mm["on"] / mm["off"]), flush=True)
    db.q("DROP TABLE cb, cb_probe")
