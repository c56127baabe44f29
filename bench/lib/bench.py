"""learned_idx benchmark driver (run through bench/run.sh, which sets PGHOST/PGPORT).

For every dataset: load t_<dist>(k int8, v int8) (v = rank of k), build btree and
learned indexes one at a time on the same table, and measure size, CREATE INDEX time,
per-lookup time in a server-side nested-loop probe loop, index buffers per lookup,
100-row range scans, and correctness (counts and sums against the generator's ground
truth, and learned against btree).
"""

import argparse
import csv
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import datasets as D          # noqa: E402
import report as R            # noqa: E402

PAGE = 8192
SWEEP_EPS = (8, 16, 32, 64, 128)

SESSION_GUCS = {
    "enable_hashjoin": "off",
    "enable_mergejoin": "off",
    "enable_bitmapscan": "off",
    "enable_memoize": "off",
    "enable_material": "off",
    "max_parallel_workers_per_gather": "0",
    "jit": "off",
    "statement_timeout": "1800s",
}


def log(msg):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


class DB:
    def __init__(self):
        self.conn = psycopg.connect("", autocommit=True)
        self.conn.execute("SET client_min_messages = warning")

    def q(self, sql, params=None):
        cur = self.conn.execute(sql, params)
        return cur.fetchall() if cur.description else None

    def q1(self, sql, params=None):
        rows = self.q(sql, params)
        return rows[0] if rows else None

    def dict1(self, sql, params=None):
        cur = self.conn.execute(sql, params)
        cols = [d.name for d in cur.description]
        row = cur.fetchone()
        return dict(zip(cols, row)) if row else None

    def timed(self, sql, params=None):
        t0 = time.perf_counter()
        cur = self.conn.execute(sql, params)
        rows = cur.fetchall() if cur.description else None
        return time.perf_counter() - t0, rows

    def copy_in(self, table, columns):
        with self.conn.cursor() as cur:
            with cur.copy("COPY %s FROM STDIN (FORMAT binary)" % table) as cp:
                for chunk in D.copy_binary_chunks(columns):
                    cp.write(chunk)


# ---------------------------------------------------------------------------- helpers

def machine_info(db):
    def sh(cmd):
        try:
            return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=20).stdout.strip()
        except Exception:
            return ""
    mem = sh("awk '/MemTotal/ {printf \"%.1f GiB\", $2/1048576}' /proc/meminfo")
    cpu = sh("awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo").strip()
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    head = sh("git -C %s rev-parse --short HEAD 2>/dev/null" % repo) or "(no commit)"
    dirty = sh("git -C %s status --porcelain -- src sql Makefile 2>/dev/null | wc -l" % repo)
    return {
        "nproc": os.cpu_count(),
        "memory": mem,
        "cpu": cpu,
        "kernel": platform.release(),
        "os": "Debian " + sh("cat /etc/debian_version"),
        "pg_version": db.q1("SELECT version()")[0],
        "python": platform.python_version(),
        "numpy": np.__version__,
        "git_head": head,
        "git_dirty_files": dirty,
        "settings": {r[0]: r[1] for r in db.q(
            "SELECT name, setting || coalesce(unit, '') FROM pg_settings WHERE name IN "
            "('shared_buffers','work_mem','maintenance_work_mem','max_parallel_maintenance_workers',"
            "'fsync','wal_level','autovacuum','jit','checkpoint_timeout','max_wal_size')")},
    }


def walk(plan):
    yield plan
    for p in plan.get("Plans", []) or []:
        yield from walk(p)


def find_index_node(plan, idxname):
    for node in walk(plan):
        if node.get("Index Name") == idxname and node.get("Node Type") in ("Index Scan", "Index Only Scan"):
            return node
    return None


def plan_shape(plan):
    def rec(n):
        s = n["Node Type"]
        if n.get("Index Name"):
            s += "(" + n["Index Name"] + ")"
        kids = n.get("Plans") or []
        return s + ("[" + ", ".join(rec(k) for k in kids) + "]" if kids else "")
    return rec(plan)


def check_plan(db, sql, idxname):
    plan = db.q1("EXPLAIN (FORMAT JSON) " + sql)[0][0]["Plan"]
    shape = plan_shape(plan)
    ok = find_index_node(plan, idxname) is not None and "Nested Loop" in shape and not any(
        x in shape for x in ("Memoize", "Materialize", "Hash Join", "Merge Join", "Bitmap"))
    return ok, shape


def statio(db, idxname):
    db.q("SELECT pg_stat_force_next_flush()")
    db.q("SELECT pg_stat_clear_snapshot()")
    r = db.q1("SELECT coalesce(idx_blks_hit,0) + coalesce(idx_blks_read,0), coalesce(idx_blks_read,0) "
              "FROM pg_statio_user_indexes WHERE indexrelname = %s", (idxname,))
    return (int(r[0]), int(r[1])) if r else (0, 0)


def fmt_s(x):
    return "%.3f" % x


# ---------------------------------------------------------------------------- the benchmark

class Bench:
    def __init__(self, args):
        self.a = args
        self.db = DB()
        self.rows = []          # one dict per (dataset, variant)
        self.datasets_meta = {}
        self.problems = []      # loud correctness / plan problems
        self.raw = os.path.join(args.out, "raw")
        os.makedirs(self.raw, exist_ok=True)

    # ------------------------------------------------------------- load
    def load(self, name):
        a, db, n = self.a, self.db, self.a.n
        t0 = time.time()
        keys = D.generate(name, n)
        tgen = time.time() - t0
        rng = np.random.default_rng(D.SEEDS[name] + 1000)
        ranks = np.arange(n, dtype=np.int64)
        order = rng.permutation(n) if a.heap_order == "random" else ranks
        t = "t_" + name
        db.q("DROP TABLE IF EXISTS %s, probe_%s, range_%s, miss_%s" % (t, name, name, name))
        db.q("CREATE TABLE %s (k int8, v int8) WITH (autovacuum_enabled = false)" % t)
        t0 = time.time()
        db.copy_in(t, [keys[order], ranks[order]])
        db.q("VACUUM (FREEZE, ANALYZE) %s" % t)
        tload = time.time() - t0

        # lookups: P random existing keys (with replacement), random order
        pidx = rng.integers(0, n, a.probes)
        db.q("CREATE TABLE probe_%s (k int8) WITH (autovacuum_enabled = false)" % name)
        db.copy_in("probe_" + name, [keys[pidx]])
        exp_lookup = (int(a.probes), int(pidx.sum()))
        # 100-row ranges: [keys[r], keys[r+99]]
        span = 100
        ridx = rng.integers(0, n - span + 1, a.ranges)
        db.q("CREATE TABLE range_%s (lo int8, hi int8) WITH (autovacuum_enabled = false)" % name)
        db.copy_in("range_" + name, [keys[ridx], keys[ridx + span - 1]])
        exp_range = (int(a.ranges) * span, int((ridx * span).sum() + a.ranges * (span * (span - 1) // 2)))
        # absent keys: k+1 / k-1 of random keys that are not present, plus both ends
        cand = np.concatenate([keys[rng.integers(0, n, a.misses)] + 1, keys[rng.integers(0, n, a.misses)] - 1,
                               [keys[0] - 1, keys[-1] + 1]])
        pos = np.minimum(np.searchsorted(keys, cand), n - 1)
        miss = cand[keys[pos] != cand]
        db.q("CREATE TABLE miss_%s (k int8) WITH (autovacuum_enabled = false)" % name)
        db.copy_in("miss_" + name, [miss])
        db.q("VACUUM (FREEZE, ANALYZE) probe_%s, range_%s, miss_%s" % (name, name, name))

        heap_bytes = db.q1("SELECT pg_relation_size(%s)", (t,))[0]
        self.datasets_meta[name] = {
            "n": n, "min": int(keys[0]), "max": int(keys[-1]), "gen_s": tgen, "load_s": tload,
            "heap_bytes": heap_bytes, "probes": int(a.probes), "ranges": int(a.ranges), "misses": int(len(miss)),
            "description": D.DESCRIPTIONS[name],
        }
        log("%s: generated in %.1fs, loaded in %.1fs (heap %.1f MB, keys %d..%d)"
            % (name, tgen, tload, heap_bytes / 1e6, keys[0], keys[-1]))
        del keys, order, ranks
        return exp_lookup, exp_range

    # ------------------------------------------------------------- build
    def create_index(self, name, var):
        idx = "%s_%s" % ("t_" + name, var["label"])
        with_ = ""
        if var.get("reloptions"):
            with_ = " WITH (%s)" % ", ".join("%s = %s" % kv for kv in var["reloptions"].items())
        self.db.q("DROP INDEX IF EXISTS %s" % idx)
        self.db.q("CHECKPOINT")
        sql = "CREATE INDEX %s ON t_%s USING %s (k)%s" % (idx, name, var["am"], with_)
        dt, _ = self.db.timed(sql)
        return idx, dt, sql

    # ------------------------------------------------------------- measure
    def timed_runs(self, sql):
        db = self.db
        times = []
        for _ in range(self.a.reps):
            dt, rows = db.timed(sql)
            times.append(dt)
        return times, rows

    def measure(self, name, var, idx, exp_lookup, exp_range):
        db, a = self.db, self.a
        t = "t_" + name
        res = {}
        res["index_bytes"] = db.q1("SELECT pg_relation_size(%s)", (idx,))[0]
        if var["kind"] == "btree" or var["am"] == "btree":
            st = db.dict1("SELECT * FROM pgstatindex(%s)", (idx,))
            res["bt_tree_level"] = st["tree_level"]
            res["bt_internal_pages"] = st["internal_pages"]
            res["bt_leaf_pages"] = st["leaf_pages"]
            res["inner_bytes"] = st["internal_pages"] * PAGE
        if var["kind"] == "learned" and var["am"] != "btree":
            info = db.dict1("SELECT * FROM learned_index_info(%s)", (idx,))
            for k, v in info.items():
                res["li_" + k] = v if not hasattr(v, "isoformat") else v.isoformat()
            res["inner_bytes"] = (info.get("directory_pages") or 0) * PAGE
            res["model_bytes"] = info.get("model_bytes")
        # prewarm everything the loops touch
        for rel in (t, idx, "probe_" + name, "range_" + name, "miss_" + name):
            db.q("SELECT pg_prewarm(%s)", (rel,))
        for k, v in SESSION_GUCS.items():
            db.q("SET %s = '%s'" % (k, v))

        # ---- point lookups
        sql = "SELECT count(*), coalesce(sum(t.v), 0) FROM probe_%s p JOIN %s t ON t.k = p.k" % (name, t)
        ok, shape = check_plan(db, sql, idx)
        res["lookup_plan"] = shape
        if not ok:
            self.problem(name, var, "lookup plan is not a nested loop over %s: %s" % (idx, shape))
        _, rows = db.timed(sql)                      # warm-up + correctness
        got = (int(rows[0][0]), int(rows[0][1]))
        res["lookup_count"], res["lookup_sum"] = got
        if got != exp_lookup:
            self.problem(name, var, "WRONG lookup result: count/sum %s, expected %s" % (got, exp_lookup))
        times, _ = self.timed_runs(sql)
        res["lookup_s_all"] = ";".join(fmt_s(x) for x in times)
        res["lookup_us"] = statistics.median(times) / a.probes * 1e6
        # buffers: EXPLAIN ANALYZE of the same loop, and pg_statio delta of the index
        b0 = statio(db, idx)
        plan = db.q1("EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) " + sql)[0][0]
        b1 = statio(db, idx)
        with open(os.path.join(self.raw, "explain_lookup_%s_%s.json" % (name, var["label"])), "w") as f:
            json.dump(plan, f, indent=1)
        node = find_index_node(plan["Plan"], idx)
        loops = (node or {}).get("Actual Loops") or a.probes
        res["lookup_bufs_idx"] = (b1[0] - b0[0]) / a.probes
        res["lookup_reads_idx"] = (b1[1] - b0[1]) / a.probes
        if node:
            res["lookup_bufs_node"] = (node["Shared Hit Blocks"] + node["Shared Read Blocks"]) / loops

        # ---- 100-row range scans
        sql = ("SELECT count(*), coalesce(sum(t.v), 0) FROM range_%s r JOIN %s t ON t.k >= r.lo AND t.k <= r.hi"
               % (name, t))
        ok, shape = check_plan(db, sql, idx)
        res["range_plan"] = shape
        if not ok:
            self.problem(name, var, "range plan is not a nested loop over %s: %s" % (idx, shape))
        _, rows = db.timed(sql)
        got = (int(rows[0][0]), int(rows[0][1]))
        res["range_count"], res["range_sum"] = got
        if got != exp_range:
            self.problem(name, var, "WRONG range result: count/sum %s, expected %s" % (got, exp_range))
        times, _ = self.timed_runs(sql)
        res["range_s_all"] = ";".join(fmt_s(x) for x in times)
        res["range_us"] = statistics.median(times) / a.ranges * 1e6
        b0 = statio(db, idx)
        plan = db.q1("EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) " + sql)[0][0]
        b1 = statio(db, idx)
        with open(os.path.join(self.raw, "explain_range_%s_%s.json" % (name, var["label"])), "w") as f:
            json.dump(plan, f, indent=1)
        res["range_bufs_idx"] = (b1[0] - b0[0]) / a.ranges
        node = find_index_node(plan["Plan"], idx)
        if node:
            res["range_bufs_node"] = (node["Shared Hit Blocks"] + node["Shared Read Blocks"]) / (
                node.get("Actual Loops") or a.ranges)

        # ---- absent keys (correctness only)
        sql = "SELECT count(*) FROM miss_%s p JOIN %s t ON t.k = p.k" % (name, t)
        res["miss_count"] = int(db.q1(sql)[0])
        if res["miss_count"] != 0:
            self.problem(name, var, "WRONG absent-key result: %d rows found for keys that do not exist"
                         % res["miss_count"])
        # ---- index-only count over everything (planner may choose any path; sanity only)
        for k in SESSION_GUCS:
            db.q("RESET %s" % k)
        return res

    def problem(self, name, var, msg):
        full = "%s / %s: %s" % (name, var["label"], msg)
        self.problems.append(full)
        log("!!! " + full)

    def baseline(self, name):
        """Cost of the probe loop without the index: scanning the probe table."""
        db = self.db
        db.q("SELECT pg_prewarm(%s)", ("probe_" + name,))
        times, _ = self.timed_runs("SELECT count(*), sum(k) FROM probe_%s" % name)
        return statistics.median(times) / self.a.probes * 1e6

    # ------------------------------------------------------------- main loop
    def variants(self):
        lam = self.a.learned_am
        vs = [{"label": "btree", "kind": "btree", "am": "btree", "reloptions": {}}]
        if self.a.sweep_eps:
            for e in self.a.eps_list:
                vs.append({"label": "learned_e%d" % e, "kind": "learned", "am": lam,
                           "reloptions": {"error_bound": e} if lam == "learned" else {}, "eps": e})
        else:
            vs.append({"label": "learned", "kind": "learned", "am": lam, "reloptions": {}})
        return vs

    def run(self):
        a, db = self.a, self.db
        db.q("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        db.q("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        if a.learned_am == "learned":
            db.q("CREATE EXTENSION IF NOT EXISTS learned_idx")
        self.machine = machine_info(db)
        variants = self.variants()
        builds = 1 if a.sweep_eps else a.builds
        t_start = time.time()
        for name in a.datasets:
            exp_lookup, exp_range = self.load(name)
            base_us = self.baseline(name)
            build_times = {v["label"]: [] for v in variants}
            errors = {}
            # interleaved extra builds (timed, then dropped)
            for rep in range(builds - 1):
                for var in variants:
                    if var["label"] in errors:
                        continue
                    try:
                        idx, dt, _ = self.create_index(name, var)
                        build_times[var["label"]].append(dt)
                        db.q("DROP INDEX %s" % idx)
                    except psycopg.Error as e:
                        errors[var["label"]] = str(e).strip()
                        self.problem(name, var, "CREATE INDEX failed: %s" % errors[var["label"]])
            # final build of each variant, measured while it is the only index on the table
            for var in variants:
                row = {"dataset": name, "n": a.n, "variant": var["label"], "kind": var["kind"], "am": var["am"],
                       "eps_requested": var.get("eps", ""), "loop_overhead_us": base_us}
                if var["label"] not in errors:
                    try:
                        idx, dt, sql = self.create_index(name, var)
                        build_times[var["label"]].append(dt)
                        row["create_sql"] = sql
                        row.update(self.measure(name, var, idx, exp_lookup, exp_range))
                        db.q("DROP INDEX %s" % idx)
                    except psycopg.Error as e:
                        errors[var["label"]] = str(e).strip()
                        self.problem(name, var, "failed: %s" % errors[var["label"]])
                        for k in SESSION_GUCS:
                            db.q("RESET %s" % k)
                        db.q("DROP INDEX IF EXISTS t_%s_%s" % (name, var["label"]))
                row["error"] = errors.get(var["label"], "")
                bt = build_times[var["label"]]
                row["build_s_all"] = ";".join(fmt_s(x) for x in bt)
                row["build_s"] = statistics.median(bt) if bt else None
                self.rows.append(row)
                log("%s/%s: %s" % (name, var["label"], R.short_summary(row)))
            db.q("DROP TABLE IF EXISTS t_%s, probe_%s, range_%s, miss_%s" % (name, name, name, name))
            self.write()                              # partial results after every dataset
        self.elapsed = time.time() - t_start
        self.write()

    def write(self):
        out = self.a.out
        keys = []
        for r in self.rows:
            for k in r:
                if k not in keys:
                    keys.append(k)
        with open(os.path.join(out, "results.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            for r in self.rows:
                w.writerow(r)
        meta = {
            "command": self.a.cmd, "mode": "sweep-eps" if self.a.sweep_eps else "main",
            "size_mode": self.a.size_mode, "n": self.a.n, "probes": self.a.probes, "ranges": self.a.ranges,
            "reps": self.a.reps, "builds": 1 if self.a.sweep_eps else self.a.builds,
            "heap_order": self.a.heap_order, "learned_am": self.a.learned_am,
            "datasets": self.datasets_meta, "machine": self.machine, "problems": self.problems,
            "elapsed_s": getattr(self, "elapsed", None), "server_pin": self.a.server_pin,
            "client_pin": self.a.client_pin, "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
            "eps_list": list(self.a.eps_list),
        }
        with open(os.path.join(out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1, default=str)
        R.write_report(out, copy_to=self.a.copy_to)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", dest="size_mode", action="store_const", const="quick")
    g.add_argument("--full", dest="size_mode", action="store_const", const="full")
    p.set_defaults(size_mode="quick")
    p.add_argument("--n", type=int)
    p.add_argument("--sweep-eps", action="store_true")
    p.add_argument("--eps-list", default=",".join(map(str, SWEEP_EPS)))
    p.add_argument("--learned-am", default="learned")
    p.add_argument("--datasets", default=",".join(D.DATASETS))
    p.add_argument("--probes", type=int)
    p.add_argument("--ranges", type=int)
    p.add_argument("--misses", type=int, default=5000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--builds", type=int)
    p.add_argument("--heap-order", choices=("random", "sorted"), default="random")
    p.add_argument("--out", required=True)
    p.add_argument("--cmd", default="")
    p.add_argument("--copy-to", default="")
    p.add_argument("--server-pin", default="none")
    p.add_argument("--client-pin", default="none")
    a = p.parse_args()
    full = a.size_mode == "full"
    a.n = a.n or (10_000_000 if full else 1_000_000)
    a.probes = a.probes or (1_000_000 if full else 100_000)
    a.ranges = a.ranges or (50_000 if full else 10_000)
    a.builds = a.builds or (3 if full else 2)
    a.reps = max(1, a.reps)
    a.eps_list = [int(x) for x in a.eps_list.split(",") if x]
    a.datasets = [d for d in a.datasets.split(",") if d]
    for d in a.datasets:
        if d not in D.DATASETS:
            p.error("unknown dataset %s" % d)
    if a.n < 1000:
        p.error("--n must be >= 1000")
    log("mode=%s n=%d probes=%d ranges=%d reps=%d builds=%d heap=%s learned_am=%s datasets=%s%s"
        % (a.size_mode, a.n, a.probes, a.ranges, a.reps, 1 if a.sweep_eps else a.builds, a.heap_order,
           a.learned_am, ",".join(a.datasets), " sweep eps=%s" % a.eps_list if a.sweep_eps else ""))
    Bench(a).run()


if __name__ == "__main__":
    main()
