"""learned_idx dynamic-stage benchmark (run through `bash bench/run.sh --dynamic`).

Two tables with identical contents, d_l (learned index on k) and d_b (btree on k), start
from N rows k = 10*i, v = i (i = 1..N, heap in random order).  pgbench (-M prepared,
-c 2 -j 2, synchronous_commit=off) then runs, for each key mode (random: k = 10*r + 1..9
between existing keys; append: k = nextval() above every existing key) and each workload
(insert-only, 50/50 insert/lookup, 90/10 lookup/insert, and insert-only with 100 rows per INSERT
statement), R repetitions alternating
learned / btree.  Every run starts from the same state: inserted rows (v = -1) are deleted,
the table vacuumed, the index REINDEXed, a CHECKPOINT taken and the relations prewarmed.

Per run: tps (total and per script), insert latency from the -l log, WAL bytes per insert
(for learned including the WAL of the remaining merge forced with learned_index_merge),
WAL split by resource manager (pg_waldump --stats), wait events sampled from
pg_stat_activity, learned_index_info before/after (generation = merges), and correctness
(learned_index_check(idx, true), count/sum through the index vs a seqscan, inserted rows
vs pgbench's count).

Plus two single-backend measurements on the learned index:
  pending  per-lookup time (server-side probe loop) with the pending list just under its
           merge trigger (0.9 N / merge_ratio entries; merge_ratio = 10, the default, unless --learned-with
           sets it; pending_limit = 1000000 kB)
           vs the same index after learned_index_merge;
  merge1   appending 1% of N and merging: pages written (WAL bytes / 8192, and segments
           whose start block changed) over total index pages.

And three that measure both indexes (issue 30's targets 1, 2, 4 and 5):
  conns    the pending list just under the index's own merge trigger (both tables get the same
           rows), then CONNS new connections per index, each kept open: its first point lookup
           (client-side wall time, the shared library's load included) and the memory its
           backend holds after it (sum of pg_backend_memory_contexts); then the same after a
           restart with learned_idx in shared_preload_libraries (no backend loads the library).
  space    +50% random keys by 100-row INSERTs from 2 writers while 1 reader looks keys up
           (pgbench), the index's size sampled every second; then its size after the run, after
           a VACUUM, and of a fresh build of the same rows (REINDEX).
  churn    10 rounds of: delete 10% of the rows (random), insert 10% new random keys (100-row
           INSERTs), VACUUM; the index's size after each round, and a fresh build at the end.
"""

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time

import numpy as np
import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import datasets as D          # noqa: E402
from pgdb import DB, write_csv, parse_with, with_clause, reloptions_text  # noqa: E402

PAGE = 8192
SIDES = ("learned", "btree")
WORKLOADS = {
    # name: [(script kind, weight)], first insert script index is found by kind
    "insert": [("insert", 1)],
    "mix50": [("insert", 50), ("lookup", 50)],
    "mix90": [("lookup", 90), ("insert", 10)],
    # BATCH_ROWS rows per INSERT statement: the per-statement costs (parse, executor start, commit, the
    # round trip) are paid once per BATCH_ROWS rows, so the index's own insert cost decides more of the
    # throughput than in the single-row workloads, whose ceiling (no index at all) is 1.13x to 1.27x btree
    "batch": [("batch", 1)],
}
BATCH_ROWS = 100
WORKLOAD_DESC = {
    "insert": "insert-only",
    "mix50": "50% insert / 50% lookup",
    "mix90": "90% lookup / 10% insert",
    "batch": "insert-only, %d rows per INSERT" % BATCH_ROWS,
}
PROBE_GUCS = {
    "enable_hashjoin": "off", "enable_mergejoin": "off", "enable_bitmapscan": "off",
    "enable_memoize": "off", "enable_material": "off", "enable_seqscan": "off",
    "max_parallel_workers_per_gather": "0", "jit": "off",
}
# LEARNED_DEFAULT_MERGE_RATIO and LEARNED_DEFAULT_COMPRESSION of src/learned.h (written to meta.json,
# so that a report regenerated later names the defaults its run had)
DEFAULT_MERGE_RATIO = 10
LEARNED_DEFAULTS = {"merge_ratio": DEFAULT_MERGE_RATIO, "compression": "on"}

SETTINGS = ("shared_buffers", "synchronous_commit", "fsync", "full_page_writes", "wal_level",
            "wal_compression", "checkpoint_timeout", "max_wal_size", "min_wal_size", "autovacuum",
            "max_worker_processes", "wal_buffers", "jit", "learned_idx.pending_limit",
            "data_checksums", "io_method")   # the last two differ between majors by default


def log(msg):
    print("[dyn %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


class WaitSampler(threading.Thread):
    """Samples wait events of active pgbench backends (and merge workers) every 50 ms."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop_ev = threading.Event()
        self.counts = {}
        self.merge_worker_samples = 0
        self.samples = 0

    def run(self):
        try:
            conn = psycopg.connect("", autocommit=True)
        except Exception:
            return
        while not self.stop_ev.wait(0.05):
            try:
                rows = conn.execute(
                    "SELECT application_name, backend_type, coalesce(wait_event_type || ':' || wait_event, 'CPU') "
                    "FROM pg_stat_activity WHERE (application_name = 'pgbench' AND state = 'active') "
                    "OR backend_type = 'learned_idx merge'").fetchall()
            except Exception:
                break
            self.samples += 1
            for app, btype, ev in rows:
                if btype == "learned_idx merge":
                    self.merge_worker_samples += 1
                    continue
                self.counts[ev] = self.counts.get(ev, 0) + 1
        conn.close()

    def stop(self):
        self.stop_ev.set()
        self.join(5)


def pctl(a, p):
    return float(np.percentile(a, p)) if len(a) else None


def med(xs):
    xs = [x for x in xs if isinstance(x, (int, float))]
    return statistics.median(xs) if xs else None


def ratio(a, b):
    if a is None or b in (None, 0):
        return None
    return a / b


class Dyn:
    def __init__(self, a):
        self.a = a
        self.db = DB()
        self.raw = os.path.join(a.out, "raw")
        self.logdir = os.path.join(self.raw, "pgbench")
        self.scriptdir = os.path.join(self.raw, "scripts")
        for d in (self.raw, self.logdir, self.scriptdir):
            os.makedirs(d, exist_ok=True)
        self.runs = []            # one dict per pgbench run
        self.pending = []         # pending-lookup measurements
        self.merge1 = []          # merge-rewrite measurements
        self.conns = []           # per-connection first lookup and memory
        self.space = []           # size under +50% random inserts (per side, one row per sample)
        self.churn = []           # size per delete/insert/VACUUM round
        self.problems = []
        self.notes = []
        self.lat = {}             # (keys, workload, side) -> list of insert-latency arrays (us)
        self.t0 = time.time()

    # ------------------------------------------------------------- helpers
    def problem(self, msg):
        msg = " ".join(str(msg).split())
        self.problems.append(msg)
        log("!!! " + msg)

    def t(self, side):
        return {"learned": "d_l", "btree": "d_b", "ref": "d_m"}[side]

    def idx(self, side):
        return self.t(side) + "_idx"

    def seq(self, side):
        return self.t(side) + "_seq"

    def info(self, side="learned"):
        if self.a.learned_am != "learned" or side != "learned":
            return None
        try:
            r = self.db.dict1("SELECT * FROM learned_index_info(%s)", (self.idx(side),))
        except psycopg.Error as e:
            self.problem("learned_index_info(%s) failed: %s" % (self.idx(side), e))
            return {}
        return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in r.items()}

    def idx_pages(self, side):
        return int(self.db.q1("SELECT pg_relation_size(%s)", (self.idx(side),))[0]) // PAGE

    # ------------------------------------------------------------- setup
    def load(self):
        db, n = self.db, self.a.n
        rng = np.random.default_rng(4242)
        i = np.arange(1, n + 1, dtype=np.int64)
        order = rng.permutation(n)
        for side in SIDES:
            t = self.t(side)
            db.q("DROP TABLE IF EXISTS %s" % t)
            db.q("DROP SEQUENCE IF EXISTS %s" % self.seq(side))
            db.q("CREATE TABLE %s (k int8 NOT NULL, v int8 NOT NULL) WITH (autovacuum_enabled = false)" % t)
            db.copy_in(t, [10 * i[order], i[order]])
            db.q("CREATE SEQUENCE %s" % self.seq(side))
            am = self.a.learned_am if side == "learned" else "btree"
            opts = with_clause(self.a.learned_with_opts) if side == "learned" and am == "learned" else ""
            db.q("CREATE INDEX %s ON %s USING %s (k)%s" % (self.idx(side), t, am, opts))
            db.vacuum_frozen(t)
        # probe table for the server-side probe loop: P random existing base keys
        db.q("DROP TABLE IF EXISTS d_probe")
        db.q("CREATE TABLE d_probe (k int8) WITH (autovacuum_enabled = false)")
        db.copy_in("d_probe", [10 * rng.integers(1, n + 1, self.a.probes)])
        db.vacuum_frozen("d_probe")

    def reset(self, side, keys):
        """Same starting state for every run: N base rows, freshly built index."""
        db, t = self.db, self.t(side)
        db.q("DELETE FROM %s WHERE v < 0" % t)
        try:
            db.q("VACUUM %s" % t)
        except psycopg.Error as e:
            self.problem("VACUUM %s failed (index rebuilt next): %s" % (t, e))
            db.q("REINDEX INDEX %s" % self.idx(side))
            db.q("VACUUM %s" % t)
        db.q("REINDEX INDEX %s" % self.idx(side))
        db.q("SELECT setval(%s, %s, false)", (self.seq(side), 10 * self.a.n + 10))
        db.q("CHECKPOINT")
        for rel in (t, self.idx(side)):
            db.q("SELECT pg_prewarm(%s)", (rel,))

    def write_scripts(self, keys):
        paths = {}
        for side in SIDES:
            t = self.t(side)
            ins = os.path.join(self.scriptdir, "insert_%s_%s.sql" % (keys, side))
            with open(ins, "w") as f:
                if keys == "random":
                    f.write("\\set k 10 * random(1, :nrows) + random(1, 9)\n"
                            "INSERT INTO %s (k, v) VALUES (:k, -1);\n" % t)
                else:
                    f.write("INSERT INTO %s (k, v) VALUES (nextval('%s'), -1);\n" % (t, self.seq(side)))
            bt = os.path.join(self.scriptdir, "batch_%s_%s.sql" % (keys, side))
            with open(bt, "w") as f:
                if keys == "random":
                    f.write("INSERT INTO %s (k, v) SELECT 10 * (1 + (random() * (:nrows - 1))::int8) + 1 + g %% 9, "
                            "-1 FROM generate_series(1, %d) g;\n" % (t, BATCH_ROWS))
                else:
                    f.write("INSERT INTO %s (k, v) SELECT nextval('%s'), -1 FROM generate_series(1, %d);\n"
                            % (t, self.seq(side), BATCH_ROWS))
            lk = os.path.join(self.scriptdir, "lookup_%s.sql" % side)
            with open(lk, "w") as f:
                f.write("\\set k 10 * random(1, :nrows)\nSELECT v FROM %s WHERE k = :k;\n" % t)
            paths[side] = {"insert": ins, "lookup": lk, "batch": bt}
        return paths

    def check_plans(self):
        for side in SIDES:
            plan = json.dumps(self.db.q1("EXPLAIN (FORMAT JSON) SELECT v FROM %s WHERE k = 12340" % self.t(side))[0])
            if self.idx(side) not in plan:
                self.problem("lookup plan on %s does not use %s: %s" % (self.t(side), self.idx(side), plan[:300]))

    # ------------------------------------------------------------- WAL by resource manager
    def waldump(self, start, end):
        """{rmgr: bytes (record + FPI)} between two LSNs (text), or None."""
        try:
            r = subprocess.run([os.path.join(self.a.pgbin, "pg_waldump"), "-p", os.path.join(self.a.datadir, "pg_wal"),
                                "-s", start, "-e", end, "--stats"], capture_output=True, text=True, timeout=300)
        except Exception as e:
            self.notes.append("pg_waldump failed: %s" % e)
            return None
        out = {}
        for line in r.stdout.splitlines():
            m = re.match(r"^(\w[\w/]*)\s+(\d+)\s+\(\s*[\d.]+\)\s+(\d+)\s+\(\s*[\d.]+\)\s+(\d+)\s+\(\s*[\d.]+\)\s+(\d+)",
                         line.strip())
            if m and m.group(1) != "Total":
                out[m.group(1)] = int(m.group(5))
        if not out:
            self.notes.append("pg_waldump gave no stats (rc %s): %s" % (r.returncode, r.stderr.strip()[:200]))
            return None
        return out

    # ------------------------------------------------------------- correctness
    def verify(self, side, keys, wl, rep, expected_rows, tolerance=20):
        try:
            return self._verify(side, keys, wl, rep, expected_rows, tolerance)
        except psycopg.Error as e:
            self.problem("%s/%s/%s/rep%d: verification query FAILED: %s" % (keys, wl, side, rep, e))
            return {"check": False if side == "learned" else None, "count_ok": False, "error": str(e)[:300]}

    def _verify(self, side, keys, wl, rep, expected_rows, tolerance):
        db, t, idx = self.db, self.t(side), self.idx(side)
        res = {"check": None, "count_ok": None}
        if side == "learned" and self.a.learned_am == "learned":
            try:
                ok = db.q1("SELECT learned_index_check(%s, true)", (idx,))[0]
                res["check"] = bool(ok)
                if not ok:
                    self.problem("%s/%s/rep%d: learned_index_check(%s, true) returned false" % (keys, wl, rep, idx))
            except psycopg.Error as e:
                res["check"] = False
                self.problem("%s/%s/rep%d: learned_index_check(%s, true) FAILED: %s" % (keys, wl, rep, idx, e))
        q = ("SELECT count(*), coalesce(sum(k), 0), count(*) FILTER (WHERE k %% 10 <> 0 OR k > %d) FROM %s"
             % (10 * self.a.n, t))
        seq = db.q1(q)
        with db.conn.transaction():
            for k, v in PROBE_GUCS.items():
                db.q("SET LOCAL %s = '%s'" % (k, v))
            qi = q + " WHERE k >= -9223372036854775808"
            plan = json.dumps(db.q1("EXPLAIN (FORMAT JSON) " + qi)[0])
            via = db.q1(qi)
        ins_seq = int(seq[2])
        res.update(rows_seq=int(seq[0]), rows_idx=int(via[0]), inserted=ins_seq)
        res["count_ok"] = tuple(seq) == tuple(via) and idx in plan
        if idx not in plan:
            self.problem("%s/%s/rep%d: count check did not use %s: %s" % (keys, wl, rep, idx, plan[:200]))
        if tuple(seq) != tuple(via):
            self.problem("%s/%s/%s/rep%d: MISMATCH: seqscan (count, sum, inserted) = %s, via %s = %s"
                         % (keys, wl, side, rep, tuple(seq), idx, tuple(via)))
        # pgbench's per-script counts can differ by a few from the rows committed (transactions in flight
        # when -T expires, per-script accounting); only a larger gap is a problem
        if expected_rows is not None and abs(ins_seq - expected_rows) > tolerance:
            self.problem("%s/%s/%s/rep%d: inserted rows %d != pgbench insert transactions %d"
                         % (keys, wl, side, rep, ins_seq, expected_rows))
            res["count_ok"] = False
        return res

    # ------------------------------------------------------------- one pgbench run
    def pgbench(self, keys, wl, rep, side, scripts):
        a, db = self.a, self.db
        prefix = "%s_%s_%s_r%d" % (keys, wl, side, rep)
        for old in glob.glob(os.path.join(self.logdir, prefix + ".*")):
            os.remove(old)
        spec = WORKLOADS[wl]
        cmd = [os.path.join(a.pgbin, "pgbench"), "-n", "-M", "prepared", "-c", "2", "-j", "2",
               "-T", str(a.duration), "-D", "nrows=%d" % a.n, "-l", "--log-prefix=" + prefix,
               "--sampling-rate=%g" % a.sampling_rate, "--random-seed=%d" % (1000 + rep)]
        for kind, w in spec:
            cmd += ["-f", "%s@%d" % (scripts[side][kind], w)]
        ins_no = [i for i, (kind, _) in enumerate(spec) if kind in ("insert", "batch")][0]
        rows_per_tx = BATCH_ROWS if spec[ins_no][0] == "batch" else 1
        env = dict(os.environ, PGOPTIONS="-c synchronous_commit=off")

        row = {"keys": keys, "workload": wl, "rep": rep, "side": side, "n": a.n, "duration_s": a.duration}
        info0 = self.info(side)
        row["pages_before"] = self.idx_pages(side)
        lsn0, lsn0t = db.lsn(), db.lsn_text()
        sampler = WaitSampler()
        sampler.start()
        t0 = time.time()
        r = subprocess.run(cmd, cwd=self.logdir, env=env, capture_output=True, text=True)
        row["wall_s"] = time.time() - t0
        sampler.stop()
        lsn1 = db.lsn()
        with open(os.path.join(self.logdir, prefix + ".out"), "w") as f:
            f.write(" ".join(cmd) + "\n" + r.stdout + "\n" + r.stderr)
        if r.returncode != 0:
            self.problem("%s: pgbench rc=%d: %s" % (prefix, r.returncode, r.stderr.strip()[-400:]))
        m = re.search(r"tps = ([\d.]+) \(without initial connection time\)", r.stdout)
        row["tps"] = float(m.group(1)) if m else None
        per = re.findall(r"SQL script (\d+): .*?\n\s*- weight: \d+ .*?\n\s*- (\d+) transactions .*?tps = ([\d.]+)\)",
                         r.stdout)
        ins_tx = None
        m = re.search(r"number of transactions actually processed: (\d+)", r.stdout)
        total_tx = int(m.group(1)) if m else None
        # pgbench's per-script transaction counts do not always add up to the total (a few dozen per
        # 30 s run); that gap widens the tolerance of the inserted-rows check below
        row["pgbench_script_count_gap"] = (abs(total_tx - sum(int(x[1]) for x in per))
                                           if per and total_tx is not None else 0)
        for no, ntx, tps in per:
            kind = spec[int(no) - 1][0]
            row["tps_" + kind] = float(tps)
            if kind in ("insert", "batch"):
                ins_tx = int(ntx)
        if len(spec) == 1:
            m = re.search(r"number of transactions actually processed: (\d+)", r.stdout)
            ins_tx = int(m.group(1)) if m else None
            row["tps_insert"] = row["tps"]
        m = re.search(r"number of failed transactions: (\d+)", r.stdout)
        row["failed_tx"] = int(m.group(1)) if m else None
        row["insert_tx"] = ins_tx
        row["rows_per_insert_tx"] = rows_per_tx
        row["pgbench_rc"] = r.returncode
        if r.returncode != 0:                    # aborted run: keep its numbers aside, out of the medians
            for k in [k for k in row if k.startswith("tps")]:
                row[k + "_aborted_run"] = row[k]
                row[k] = None
        if row.get("tps_insert") is not None:
            row["rows_per_s"] = row["tps_insert"] * rows_per_tx

        # after the run: state of the learned index, then the forced merge
        info1 = self.info(side)
        row["pages_end_run"] = self.idx_pages(side)
        if info1 is not None:
            t1 = time.time()
            try:
                db.q("SELECT learned_index_merge(%s)", (self.idx(side),))
            except psycopg.Error as e:
                self.problem("%s: learned_index_merge failed: %s" % (prefix, e))
            row["final_merge_s"] = time.time() - t1
            info2 = self.info(side)
            for k in ("generation", "pending_entries", "pending_pages", "total_pages", "segments", "entries",
                      "dead_entries"):
                row["li_%s_before" % k] = info0.get(k)
                row["li_%s_after" % k] = info1.get(k)
                row["li_%s_merged" % k] = info2.get(k)
            if info0.get("generation") is not None and info1.get("generation") is not None:
                row["merges_during_run"] = info1["generation"] - info0["generation"]
        lsn2, lsn2t = db.lsn(), db.lsn_text()
        row["wal_run_bytes"] = lsn1 - lsn0
        row["wal_total_bytes"] = lsn2 - lsn0
        row["wal_final_merge_bytes"] = lsn2 - lsn1
        row["pages_after"] = self.idx_pages(side)
        wd = self.waldump(lsn0t, lsn2t) if a.waldump else None
        if wd:
            row["wal_rmgr"] = json.dumps(wd, sort_keys=True)
            idxw = wd.get("Btree", 0) if side == "btree" else wd.get("Generic", 0) + wd.get("XLOG", 0)
            row["wal_index_bytes"] = idxw
            row["wal_heap_bytes"] = wd.get("Heap", 0) + wd.get("Heap2", 0)
        row["waits"] = json.dumps(dict(sorted(sampler.counts.items(), key=lambda kv: -kv[1])))
        row["wait_samples"] = sampler.samples
        row["merge_worker_samples"] = sampler.merge_worker_samples

        # latencies from the -l log
        lat = self.read_log(prefix, ins_no)
        if lat is not None and len(lat):
            row["lat_ins_n"] = int(len(lat))
            row["lat_ins_p50_us"] = pctl(lat, 50)
            row["lat_ins_p99_us"] = pctl(lat, 99)
            row["lat_ins_p999_us"] = pctl(lat, 99.9)
            row["lat_ins_max_us"] = float(lat.max())
            self.lat.setdefault((keys, wl, side), []).append(lat)

        v = self.verify(side, keys, wl, rep, ins_tx * rows_per_tx if ins_tx is not None else None,
                        (20 + row["pgbench_script_count_gap"]) * rows_per_tx)
        row.update({"check_" + k: x for k, x in v.items()})
        ins_rows = v.get("inserted") or (ins_tx * rows_per_tx if ins_tx is not None else None)
        row["inserted_rows"] = ins_rows
        if ins_rows:
            row["wal_per_insert"] = row["wal_total_bytes"] / ins_rows
            if row.get("wal_index_bytes") is not None:
                row["wal_index_per_insert"] = row["wal_index_bytes"] / ins_rows
        self.runs.append(row)
        log("%s: tps %s (insert %s), merges %s, pending %s, pages %s->%s, WAL/insert %s, p50/p99 %s/%s us, check %s/%s"
            % (prefix, f1(row.get("tps")), f1(row.get("tps_insert")), row.get("merges_during_run"),
               row.get("li_pending_entries_after"), row["pages_before"], row["pages_after"],
               f1(row.get("wal_per_insert")), f1(row.get("lat_ins_p50_us")), f1(row.get("lat_ins_p99_us")),
               v.get("check"), v.get("count_ok")))
        return row

    def read_log(self, prefix, script_no):
        arrs = []
        for p in glob.glob(os.path.join(self.logdir, prefix + ".*")):
            if p.endswith(".out"):
                continue
            rows = []
            with open(p) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) >= 4 and parts[2].isdigit():
                        rows.append((int(parts[2]), int(parts[3])))
            if rows:
                arrs.append(np.array(rows, dtype=np.int64))
        if not arrs:
            self.notes.append("no pgbench -l log for %s" % prefix)
            return None
        a = np.concatenate(arrs)
        return a[a[:, 1] == script_no, 0].astype(np.float64)

    # ------------------------------------------------------------- pending-list lookups
    def probe_loop(self, sides, reps):
        """Server-side probe loops, interleaved across sides; {side: (us/lookup median, times, result)}."""
        db = self.db
        qs = {s: "SELECT count(*), coalesce(sum(t.v), 0) FROM d_probe p JOIN %s t ON t.k = p.k" % self.t(s)
              for s in sides}
        times = {s: [] for s in sides}
        res = {}
        with db.conn.transaction():
            for k, v in PROBE_GUCS.items():
                if k != "enable_seqscan":
                    db.q("SET LOCAL %s = '%s'" % (k, v))
            for s in sides:
                plan = json.dumps(db.q1("EXPLAIN (FORMAT JSON) " + qs[s])[0])
                if self.idx(s) not in plan or "Nested Loop" not in plan:
                    self.problem("probe loop on %s is not a nested loop over %s: %s" % (self.t(s), self.idx(s),
                                                                                     plan[:300]))
                r = db.q1(qs[s])                     # warm-up (also loads the pending copy)
                res[s] = (int(r[0]), int(r[1]))
            for i in range(reps):
                for s in (sides if i % 2 == 0 else sides[::-1]):
                    t0 = time.perf_counter()
                    db.q1(qs[s])
                    times[s].append(time.perf_counter() - t0)
        return {s: (statistics.median(times[s]) / self.a.probes * 1e6, times[s], res[s]) for s in sides}

    def insert_bulk(self, side, keys, m):
        t = self.t(side)
        if keys == "append":
            sql = "INSERT INTO " + t + " (k, v) SELECT nextval(%s), -1 FROM generate_series(1, %s)"
            self.db.q(sql, (self.seq(side), m))
        else:
            sql = ("INSERT INTO " + t + " (k, v) SELECT 10 * (1 + (hashint8(g) & 2147483647) %% %s) + 1 + g %% 9, -1 "
                   "FROM generate_series(1, %s) g")
            self.db.q(sql, (self.a.n, m))

    def restore_reloptions(self, idx):
        """Back to the index's own merge_ratio / pending_limit after a measurement changed them."""
        self.db.q("ALTER INDEX %s RESET (merge_ratio, pending_limit)" % idx)
        keep = {k: v for k, v in self.a.learned_with_opts.items() if k in ("merge_ratio", "pending_limit")}
        if keep:
            self.db.q("ALTER INDEX %s SET (%s)" % (idx, reloptions_text(keep)))

    def measure_pending(self, keys):
        if self.a.learned_am != "learned":
            return
        db, a = self.db, self.a
        idx = self.idx("learned")
        # just under the trigger of the index's merge_ratio (the default unless --learned-with sets one)
        ratio = float(a.learned_with_opts.get("merge_ratio", DEFAULT_MERGE_RATIO))
        m = int(a.n * 0.9 / ratio)
        row = {"keys": keys, "n": a.n, "pending_inserted": m, "probes": a.probes, "merge_ratio": ratio}
        try:
            db.q("ALTER INDEX %s SET (merge_ratio = %s, pending_limit = 1000000)" % (idx, ratio))
            self.reset("learned", keys)
            self.reset("btree", keys)
            for side in SIDES:
                self.insert_bulk(side, keys, m)
            db.q("SELECT pg_prewarm('d_probe')")
            i0 = self.info()
            row["pending_entries"] = i0["pending_entries"]
            row["pending_pages"] = i0["pending_pages"]
            row["generation_pending"] = i0["generation"]
            row["trigger_entries"] = (i0["entries"] or 0) / ratio
            if i0["pending_entries"] != m:
                self.problem("pending: expected %d pending entries, info says %s (a merge ran?)"
                             % (m, i0["pending_entries"]))
            # reference: a freshly built learned index (empty pending list) on a copy of the same rows,
            # measured interleaved with the index under test in both phases, so that machine-load drift
            # between the phases cancels out
            db.q("DROP TABLE IF EXISTS d_m")
            db.q("CREATE TABLE d_m WITH (autovacuum_enabled = false) AS SELECT * FROM d_l")
            db.q("CREATE INDEX d_m_idx ON d_m USING learned (k)" + with_clause(self.a.learned_with_opts))
            db.vacuum_frozen("d_m")
            for rel in ("d_m", "d_m_idx"):
                db.q("SELECT pg_prewarm(%s)", (rel,))
            sides = ["learned", "ref", "btree"]
            pr = self.probe_loop(sides, a.reps_probe)
            us_p, tp, res_p = pr["learned"]
            us_r1, tr1, res_r1 = pr["ref"]
            us_b, tb, res_b = pr["btree"]
            i0b = self.info()
            if i0b["pending_entries"] != m:
                self.problem("pending: pending list changed during the measurement: %s" % i0b["pending_entries"])
            lsn0 = db.lsn()
            t0 = time.time()
            db.q("SELECT learned_index_merge(%s)", (idx,))
            row["merge_s"] = time.time() - t0
            row["merge_wal_bytes"] = db.lsn() - lsn0
            i1 = self.info()
            row["pending_after_merge"] = i1["pending_entries"]
            row["generation_merged"] = i1["generation"]
            pr = self.probe_loop(sides, a.reps_probe)
            us_m, tm, res_m = pr["learned"]
            us_r2, tr2, res_r2 = pr["ref"]
            us_b2, tb2, res_b2 = pr["btree"]
            mn = lambda ts: min(ts) / a.probes * 1e6  # noqa: E731
            row.update(lookup_us_pending=us_p, lookup_us_merged=us_m, lookup_us_btree=us_b, lookup_us_btree2=us_b2,
                       lookup_us_ref1=us_r1, lookup_us_ref2=us_r2,
                       ratio_pending_merged=us_p / us_m, ratio_pending_btree=us_p / us_b,
                       ratio_pending_ref=us_p / us_r1, ratio_merged_ref=us_m / us_r2,
                       ratio_normalized=(us_p / us_r1) / (us_m / us_r2),
                       ratio_min=mn(tp) / mn(tm), ratio_min_normalized=(mn(tp) / mn(tr1)) / (mn(tm) / mn(tr2)),
                       times_pending=";".join("%.4f" % x for x in tp), times_merged=";".join("%.4f" % x for x in tm),
                       times_ref1=";".join("%.4f" % x for x in tr1), times_ref2=";".join("%.4f" % x for x in tr2),
                       times_btree=";".join("%.4f" % x for x in tb), times_btree2=";".join("%.4f" % x for x in tb2))
            ok = res_p == res_m == res_b == res_b2 == res_r1 == res_r2 and res_p[0] == a.probes
            row["results_equal"] = ok
            if not ok:
                self.problem("pending: probe results differ: pending %s merged %s ref %s/%s btree %s/%s "
                             "(expected count %d)" % (res_p, res_m, res_r1, res_r2, res_b, res_b2, a.probes))
            db.q("DROP TABLE d_m")
            chk = db.q1("SELECT learned_index_check(%s, true)", (idx,))[0]
            row["check"] = bool(chk)
        except psycopg.Error as e:
            self.problem("pending (%s) failed: %s" % (keys, e))
        finally:
            self.restore_reloptions(idx)
        self.pending.append(row)
        log("pending %s: %s pending entries, lookup %.3f us (pending) vs %.3f us (merged) = %.3fx; btree %.3f us"
            % (keys, row.get("pending_entries"), row.get("lookup_us_pending", 0), row.get("lookup_us_merged", 0),
               row.get("ratio_pending_merged", 0), row.get("lookup_us_btree", 0)))

    # ------------------------------------------------------------- merge rewrite size
    def measure_merge1(self, keys):
        if self.a.learned_am != "learned":
            return
        db, a = self.db, self.a
        idx = self.idx("learned")
        m = a.n // 100
        row = {"keys": keys, "n": a.n, "inserted": m}
        try:
            db.q("ALTER INDEX %s SET (merge_ratio = 50, pending_limit = 1000000)" % idx)
            self.reset("learned", keys)
            self.insert_bulk("learned", keys, m)
            i0 = self.info()
            seg0 = db.dicts("SELECT * FROM learned_index_segments(%s)", (idx,))
            if i0["pending_entries"] != m:
                self.problem("merge1: expected %d pending entries before the merge, info says %s"
                             % (m, i0["pending_entries"]))
            db.q("CHECKPOINT")
            lsn0, lsn0t = db.lsn(), db.lsn_text()
            t0 = time.time()
            db.q("SELECT learned_index_merge(%s)", (idx,))
            row["merge_s"] = time.time() - t0
            lsn1, lsn1t = db.lsn(), db.lsn_text()
            i1 = self.info()
            seg1 = db.dicts("SELECT * FROM learned_index_segments(%s)", (idx,))
            before = {(s["kind"], s["start_block"], s["pages"]) for s in seg0}
            rewritten = [s for s in seg1 if (s["kind"], s["start_block"], s["pages"]) not in before]
            row["wal_bytes"] = lsn1 - lsn0
            row["wal_pages"] = (lsn1 - lsn0) / PAGE
            wd = self.waldump(lsn0t, lsn1t) if a.waldump else None
            if wd:
                row["wal_rmgr"] = json.dumps(wd, sort_keys=True)
            row["segments_before"] = len(seg0)
            row["segments_after"] = len(seg1)
            row["segments_rewritten"] = len(rewritten)
            row["segment_pages_rewritten"] = sum(s["pages"] for s in rewritten)
            row["directory_pages"] = i1["directory_pages"]
            row["pages_written_segments"] = row["segment_pages_rewritten"] + (i1["directory_pages"] or 0) + 1
            row["total_pages_before"] = i0["total_pages"]
            row["total_pages_after"] = i1["total_pages"]
            row["rel_pages_after"] = self.idx_pages("learned")
            row["frac_wal"] = row["wal_pages"] / i1["total_pages"]
            row["frac_segments"] = row["pages_written_segments"] / i1["total_pages"]
            row["generation"] = (i0["generation"], i1["generation"])
            row["check"] = bool(db.q1("SELECT learned_index_check(%s, true)", (idx,))[0])
            if not row["check"]:
                self.problem("merge1: learned_index_check false")
            with open(os.path.join(self.raw, "segments_%s.json" % keys), "w") as f:
                json.dump({"before": seg0, "after": seg1}, f, indent=0, default=str)
        except psycopg.Error as e:
            self.problem("merge1 (%s) failed: %s" % (keys, e))
        finally:
            self.restore_reloptions(idx)
        self.merge1.append(row)
        log("merge1 %s: WAL %s pages (%.2f%%), segments rewritten %s/%s = %s pages (%.2f%%) of %s"
            % (keys, f1(row.get("wal_pages")), 100 * (row.get("frac_wal") or 0), row.get("segments_rewritten"),
               row.get("segments_after"), row.get("pages_written_segments"), 100 * (row.get("frac_segments") or 0),
               row.get("total_pages_after")))


    # ------------------------------------------------------------- connections: memory, first lookup
    def pending_trigger(self):
        """Entries at which the learned index's own merge trigger fires: N / merge_ratio, or the
        pending_limit (records of 10 + 8 bytes for int8 keys), whichever comes first."""
        ratio = float(self.a.learned_with_opts.get("merge_ratio", DEFAULT_MERGE_RATIO))
        lim_kb = int(self.a.learned_with_opts.get("pending_limit", -1))
        if lim_kb < 0:
            lim_kb = int(self.db.q1("SELECT setting FROM pg_settings WHERE name = 'learned_idx.pending_limit'")[0])
        return max(1024, min(self.a.n / ratio, lim_kb * 1024 / 18.0))

    def restart_server(self, opts):
        """Restart the server with -o opts (empty: back to its postgresql.conf) and reconnect;
        False (and a problem noted) if it did not come back."""
        pg_ctl = os.path.join(self.a.pgbin, "pg_ctl")
        try:
            self.db.conn.close()
        except Exception:
            pass
        log_path = os.path.join(os.path.dirname(os.path.abspath(self.a.datadir)), "server.log")
        stop = ["runuser", "-u", "postgres", "--", pg_ctl, "-D", self.a.datadir, "-m", "fast", "-w", "stop"]
        pin = [] if self.a.server_pin in ("", "none") else self.a.server_pin.split()
        start = ["runuser", "-u", "postgres", "--"] + pin + [pg_ctl, "-D", self.a.datadir, "-l", log_path,
                                                              "-w", "start"]
        if opts:
            start += ["-o", opts]
        # a stop that fails (a server already down) does not keep the start from being tried
        subprocess.run(stop, capture_output=True, text=True)
        r = subprocess.run(start, capture_output=True, text=True)
        if r.returncode != 0:
            self.problem("restart (%s) failed: %s" % (opts or "defaults", (r.stderr or r.stdout).strip()))
            return False
        self.db = DB()
        return True

    def conn_round(self, keys, pend, preload):
        """a.conns new connections per side, all kept open: each one's first and second point
        lookup and its backend's memory (one row each in self.conns)."""
        a = self.a
        rng = np.random.default_rng(77)
        opts = "-c enable_seqscan=off -c enable_bitmapscan=off -c jit=off"
        held = []
        for side in SIDES:
            for c in range(a.conns):
                k = 10 * int(rng.integers(1, a.n + 1))
                t0 = time.perf_counter()
                conn = psycopg.connect("", autocommit=True, options=opts)
                t1 = time.perf_counter()
                v = conn.execute("SELECT v FROM %s WHERE k = %%s" % self.t(side), (k,)).fetchall()
                t2 = time.perf_counter()
                conn.execute("SELECT v FROM %s WHERE k = %%s" % self.t(side), (k + 10,)).fetchall()
                t3 = time.perf_counter()
                mem = conn.execute("SELECT sum(total_bytes), coalesce(sum(total_bytes) FILTER "
                                   "(WHERE name = 'learned pending copy'), 0) FROM pg_backend_memory_contexts"
                                   ).fetchone()
                held.append(conn)
                row = {"keys": keys, "side": side, "conn": c, "n": a.n, "pending_entries": pend,
                       "preload": preload,
                       "connect_ms": (t1 - t0) * 1e3, "first_lookup_ms": (t2 - t1) * 1e3,
                       "second_lookup_ms": (t3 - t2) * 1e3, "backend_bytes": int(mem[0]),
                       "pending_copy_bytes": int(mem[1]), "found": len(v)}
                if len(v) != 1:
                    self.problem("conns: %s lookup of k = %d found %d rows" % (side, k, len(v)))
                self.conns.append(row)
        for conn in held:
            conn.close()
        per = {s: [r for r in self.conns if r["keys"] == keys and r["side"] == s and r["preload"] == preload]
               for s in SIDES}
        log("conns %s%s: %s pending; first lookup %.2f ms learned, %.2f ms btree; backend memory %.1f MB "
            "learned, %.1f MB btree (medians of %d connections)"
            % (keys, " (library preloaded)" if preload else "", pend,
               med([r["first_lookup_ms"] for r in per["learned"]]),
               med([r["first_lookup_ms"] for r in per["btree"]]),
               med([r["backend_bytes"] for r in per["learned"]]) / 2 ** 20,
               med([r["backend_bytes"] for r in per["btree"]]) / 2 ** 20, a.conns))

    def measure_conns(self, keys):
        db, a = self.db, self.a
        m = int(0.9 * self.pending_trigger()) if a.learned_am == "learned" else a.n // 20
        try:
            # m entries stay under the index's own trigger, and the bulk insert starts no merge (the
            # lookups measured must see all of them pending)
            db.q("SET learned_idx.auto_merge = off")
            for side in SIDES:
                self.reset(side, keys)
                self.insert_bulk(side, keys, m)
            db.q("RESET learned_idx.auto_merge")
            pend = (self.info() or {}).get("pending_entries")
            if a.learned_am == "learned" and pend != m:
                self.problem("conns: expected %d pending entries, info says %s (a merge ran?)" % (m, pend))
            self.conn_round(keys, pend, False)
            # The same connections with the library loaded by the postmaster: what a DBA who opens
            # many short connections can configure (README, "Many short connections").
            if self.restart_server("-c shared_preload_libraries=learned_idx"):
                try:
                    self.conn_round(keys, pend, True)
                finally:
                    self.restart_server("")
        except psycopg.Error as e:
            self.problem("conns (%s) failed: %s" % (keys, e))

    # ------------------------------------------------------------- space under random inserts
    def fresh_pages(self, side):
        """Pages of a fresh build of the index on the table's current rows (REINDEX)."""
        self.db.q("REINDEX INDEX %s" % self.idx(side))
        return self.idx_pages(side)

    def measure_space(self, keys):
        if keys != "random":
            return
        db, a = self.db, self.a
        stmts = max(2, a.n // 2 // BATCH_ROWS)           # +50% rows in 100-row statements
        for side in SIDES:
            t = self.t(side)
            try:
                self.reset(side, keys)
                base = self.idx_pages(side)
                w = os.path.join(self.scriptdir, "space_batch_%s.sql" % side)
                with open(w, "w") as fh:
                    fh.write("INSERT INTO %s (k, v) SELECT 10 * (1 + (random() * (:nrows - 1))::int8) + 1 + "
                             "g %% 9, -1 FROM generate_series(1, %d) g;\n" % (t, BATCH_ROWS))
                rd = os.path.join(self.scriptdir, "space_lookup_%s.sql" % side)
                with open(rd, "w") as fh:
                    fh.write("\\set k 10 * random(1, :nrows)\nSELECT v FROM %s WHERE k = :k;\n" % t)
                env = dict(os.environ, PGOPTIONS="-c synchronous_commit=off")
                pgb = os.path.join(a.pgbin, "pgbench")
                writers = subprocess.Popen([pgb, "-n", "-M", "prepared", "-c", "2", "-j", "2",
                                            "-t", str(stmts // 2), "-D", "nrows=%d" % a.n, "-f", w],
                                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                reader = subprocess.Popen([pgb, "-n", "-M", "prepared", "-c", "1", "-T", "100000",
                                           "-D", "nrows=%d" % a.n, "-f", rd],
                                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                t0 = time.time()
                peak = base
                while writers.poll() is None:
                    time.sleep(1.0)
                    pages = self.idx_pages(side)
                    peak = max(peak, pages)
                    self.space.append({"side": side, "n": a.n, "t_s": time.time() - t0, "pages": pages,
                                       "what": "sample"})
                reader.terminate()
                reader.communicate(timeout=60)
                out = writers.communicate()[0]
                if writers.returncode != 0:
                    self.problem("space: pgbench writers (%s) failed: %s" % (side, out[-400:]))
                wall = time.time() - t0
                end = self.idx_pages(side)
                db.q("VACUUM %s" % t)
                vac = self.idx_pages(side)
                rows = int(db.q1("SELECT count(*) FROM %s" % t)[0])
                fresh = self.fresh_pages(side)
                self.space.append({"side": side, "n": a.n, "what": "summary", "rows": rows, "wall_s": wall,
                                   "pages_base": base, "pages_peak": max(peak, end), "pages_end": end,
                                   "pages_vacuumed": vac, "pages_fresh": fresh,
                                   "end_over_fresh": end / fresh, "vacuumed_over_fresh": vac / fresh,
                                   "peak_over_fresh": max(peak, end) / fresh})
                log("space %s: %d -> %d pages (peak %d, after VACUUM %d), fresh build %d: %.2fx"
                    % (side, base, end, max(peak, end), vac, fresh, end / fresh))
            except (psycopg.Error, subprocess.SubprocessError, OSError) as e:
                self.problem("space (%s) failed: %s" % (side, e))

    # ------------------------------------------------------------- churn: delete + insert + VACUUM rounds
    def measure_churn(self, keys):
        if keys != "random":
            return
        db, a = self.db, self.a
        rounds, m = a.churn_rounds, max(BATCH_ROWS, a.n // 10)
        for side in SIDES:
            t = self.t(side)
            try:
                self.reset(side, keys)
                base = self.idx_pages(side)
                for r in range(1, rounds + 1):
                    db.q("DELETE FROM %s WHERE hashint8(k # %d) %% 10 = 0" % (t, r))
                    for off in range(0, m, 100 * BATCH_ROWS):
                        db.q("INSERT INTO " + t + " (k, v) SELECT 10 * (1 + (hashint8(g + %s) & 2147483647) %% %s)"
                             " + 1 + g %% 9, -%s FROM generate_series(1, %s) g",
                             (r * 7919 * a.n + off, a.n, r, min(100 * BATCH_ROWS, m - off)))
                    db.q("VACUUM %s" % t)
                    pages = self.idx_pages(side)
                    self.churn.append({"side": side, "n": a.n, "round": r, "pages": pages, "pages_base": base,
                                       "over_base": pages / base})
                fresh = self.fresh_pages(side)
                for row in self.churn:
                    if row["side"] == side and row.get("pages_fresh") is None:
                        row["pages_fresh"] = fresh
                        row["over_fresh"] = row["pages"] / fresh
                log("churn %s: %s pages by round, fresh build %d"
                    % (side, [r["pages"] for r in self.churn if r["side"] == side], fresh))
                if a.learned_am == "learned" and side == "learned":
                    if not db.q1("SELECT learned_index_check(%s, true)", (self.idx(side),))[0]:
                        self.problem("churn: learned_index_check false")
            except psycopg.Error as e:
                self.problem("churn (%s) failed: %s" % (side, e))

    # ------------------------------------------------------------- main
    def run(self):
        a, db = self.a, self.db
        db.q("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        if a.learned_am == "learned":
            db.q("CREATE EXTENSION IF NOT EXISTS learned_idx")
            db.q("LOAD 'learned_idx'")  # its GUCs show in pg_settings once loaded
        self.settings = {r[0]: r[1] for r in db.q(
            "SELECT name, setting || coalesce(unit, '') FROM pg_settings WHERE name = ANY(%s)", (list(SETTINGS),))}
        self.server_build = db.server_build()
        self.pg_version = self.server_build["pg_version"]
        for keys in a.keys:
            log("=== %s keys: loading %d rows into d_l / d_b" % (keys, a.n))
            t0 = time.time()
            self.load()
            log("loaded in %.1fs" % (time.time() - t0))
            self.check_plans()
            scripts = self.write_scripts(keys)
            for wl in a.workloads:
                for rep in range(a.reps):
                    order = SIDES if rep % 2 == 0 else SIDES[::-1]
                    for side in order:
                        try:
                            self.reset(side, keys)
                            self.pgbench(keys, wl, rep, side, scripts)
                        except Exception as e:      # keep going: the next reset rebuilds the index
                            self.problem("%s/%s/%s/rep%d: run FAILED: %s" % (keys, wl, side, rep, e))
                self.write()
            extras = [e for e in a.extras.split(",") if e and e != "none"]
            for fn in [getattr(self, "measure_" + e) for e in extras]:
                try:
                    fn(keys)
                except Exception as e:
                    self.problem("%s (%s keys) FAILED: %s" % (fn.__name__, keys, e))
            self.write()
        self.elapsed = time.time() - self.t0
        self.write()

    def write(self):
        import dyn_report as R
        out = self.a.out
        for name, rows in (("runs.csv", self.runs), ("pending.csv", self.pending), ("merge1.csv", self.merge1),
                           ("conns.csv", self.conns), ("space.csv", self.space), ("churn.csv", self.churn)):
            write_csv(os.path.join(out, name), rows)
        lat = {}
        for (keys, wl, side), arrs in self.lat.items():
            x = np.concatenate(arrs)
            if len(x) > 50000:
                x = np.sort(np.random.default_rng(0).choice(x, 50000, replace=False))
            lat["%s|%s|%s" % (keys, wl, side)] = x.astype(np.float32)
        np.savez_compressed(os.path.join(out, "latency_samples.npz"), **lat)
        meta = {"command": self.a.cmd, "size_mode": self.a.size_mode, "n": self.a.n, "duration_s": self.a.duration,
                "reps": self.a.reps, "keys": self.a.keys, "workloads": self.a.workloads, "probes": self.a.probes,
                "reps_probe": self.a.reps_probe, "sampling_rate": self.a.sampling_rate,
                "learned_am": self.a.learned_am, "learned_with": self.a.learned_with_opts,
                "learned_defaults": LEARNED_DEFAULTS, "settings": getattr(self, "settings", {}),
                "pg_version": getattr(self, "pg_version", ""),
                "assertions": getattr(self, "server_build", {}).get("assertions"), "server_pin": self.a.server_pin,
                "client_pin": self.a.client_pin, "problems": self.problems, "notes": self.notes,
                "elapsed_s": getattr(self, "elapsed", None), "finished": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                "complete": hasattr(self, "elapsed"), "machine": machine()}
        with open(os.path.join(out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1, default=str)
        try:
            # bench/RESULTS_DYNAMIC.md only from a finished run (partial reports stay in the result dir)
            R.write_report(out, copy_to=self.a.copy_to if hasattr(self, "elapsed") else "")
        except Exception:
            import traceback
            log("!!! report generation failed (data files are written):\n" + traceback.format_exc())


def f1(x):
    return "–" if x is None else ("%.1f" % x)


def machine():
    def sh(cmd):
        try:
            return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=20).stdout.strip()
        except Exception:
            return ""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return {"nproc": os.cpu_count(),
            "memory": sh("awk '/MemTotal/ {printf \"%.1f GiB\", $2/1048576}' /proc/meminfo"),
            "cpu": sh("awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo").strip(),
            "kernel": sh("uname -r"), "os": "Debian " + sh("cat /etc/debian_version"),
            "loadavg_at_end": sh("cat /proc/loadavg"),
            "git_head": sh("git -C %s rev-parse --short HEAD 2>/dev/null" % repo),
            "git_dirty_files": sh("git -C %s status --porcelain -- src sql Makefile 2>/dev/null | wc -l" % repo)}


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", dest="size_mode", action="store_const", const="quick")
    g.add_argument("--full", dest="size_mode", action="store_const", const="full")
    g.add_argument("--smoke", dest="size_mode", action="store_const", const="smoke")
    p.set_defaults(size_mode="quick")
    p.add_argument("--n", type=int)
    p.add_argument("--duration", type=int)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--keys", default="random,append")
    p.add_argument("--workloads", default="insert,mix50,mix90,batch")
    p.add_argument("--extras", default="pending,merge1,conns,space,churn")
    p.add_argument("--conns", type=int, default=20, help="new connections per index in the conns measurement")
    p.add_argument("--churn-rounds", type=int, default=10)
    p.add_argument("--probes", type=int)
    p.add_argument("--reps-probe", type=int, default=7)
    p.add_argument("--sampling-rate", type=float, default=0.2)
    p.add_argument("--no-waldump", dest="waldump", action="store_false")
    p.add_argument("--learned-am", default="learned")
    p.add_argument("--learned-with", default="",
                   help="reloptions of the learned index, e.g. 'compression=on,merge_ratio=50'")
    p.add_argument("--pgbin", required=True, help="the server's bin directory (bench/run.sh passes PG_MAJOR's)")
    p.add_argument("--datadir", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--cmd", default="")
    p.add_argument("--copy-to", default="")
    p.add_argument("--server-pin", default="none")
    p.add_argument("--client-pin", default="none")
    a, unknown = p.parse_known_args()
    if unknown:
        log("ignoring options not used by the dynamic benchmark: %s" % " ".join(unknown))
    # smoke: tiny and short, only to prove that every step of the script still runs
    n, duration, probes = {"full": (10_000_000, 30, 500_000), "quick": (1_000_000, 12, 200_000),
                           "smoke": (20_000, 2, 2_000)}[a.size_mode]
    a.n = a.n or n
    a.duration = a.duration or duration
    a.probes = a.probes or probes
    if a.size_mode == "smoke":
        a.reps = 1
        a.reps_probe = 1
        a.conns = min(a.conns, 3)
        a.churn_rounds = min(a.churn_rounds, 2)
    try:
        a.learned_with_opts = parse_with(a.learned_with)
    except ValueError as e:
        p.error("--learned-with: %s" % e)
    a.keys = [k for k in a.keys.split(",") if k]
    a.workloads = [w for w in a.workloads.split(",") if w and w != "none"]
    for k in a.keys:
        if k not in ("random", "append"):
            p.error("unknown key mode %s" % k)
    for e in a.extras.split(","):
        if e not in ("pending", "merge1", "conns", "space", "churn", "none", ""):
            p.error("unknown extra measurement %s (pending, merge1, conns, space, churn or none)" % e)
    for w in a.workloads:
        if w not in WORKLOADS:
            p.error("unknown workload %s" % w)
    log("mode=%s n=%d duration=%ds reps=%d keys=%s workloads=%s probes=%d learned_am=%s learned_with=%s"
        % (a.size_mode, a.n, a.duration, a.reps, ",".join(a.keys), ",".join(a.workloads), a.probes, a.learned_am,
           a.learned_with_opts))
    Dyn(a).run()


if __name__ == "__main__":
    main()
