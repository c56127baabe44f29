"""pgbench workloads, cold-cache lookups and the error_bound sweep, per dataset.

Called by bench.py (main mode) for each dataset once the btree (on t_<ds>) and the
learned index (on the identical copy t_<ds>_l) exist.  Each function adds its numbers to
the per-variant result dicts (res["btree"], res["learned"]) that become rows of results.csv.

pgbench scripts pick a random row of the key table pk_<ds> by its ctid (a Tid Scan, one
heap buffer, the same cost on both sides): pk_<ds> holds existing keys and the bounds of
10 / 100 / 10,000-row ranges, in a fresh heap whose row i sits at (i / tpp, i % tpp + 1),
which is checked after loading.  So every statement is an exact point lookup or range of
existing keys, prepared once (-M prepared), with no index on the key table.
"""

import glob
import os
import re
import statistics
import subprocess
import time

import numpy as np
import psycopg

PGB_GUCS = "-c enable_bitmapscan=off -c enable_seqscan=off -c max_parallel_workers_per_gather=0 -c jit=off"
READ_WORKLOADS = ("point1", "point2", "ios", "range10", "range100", "range10000", "orderby10")
WRITE_WORKLOADS = ("mix90", "mix50", "ins_rand", "ins_app")
WORKLOAD_DESC = {
    "point1": "point lookup, 1 client, client and server pinned to one CPU",
    "point2": "point lookup, 2 clients (-j 2), unpinned",
    "ios": "index-only point lookup (SELECT k), 1 client pinned",
    "range10": "10-row range scan (count, sum(v)), 1 client pinned",
    "range100": "100-row range scan, 1 client pinned",
    "range10000": "10,000-row range scan, 1 client pinned",
    "orderby10": "WHERE k >= random existing key ORDER BY k LIMIT 10, 1 client pinned",
    "mix90": "90% point lookup / 10% random insert, 2 clients unpinned, synchronous_commit=off",
    "mix50": "50% point lookup / 50% random insert, 2 clients unpinned, synchronous_commit=off",
    "ins_rand": "random insert (existing key + 1, so inserts follow the key distribution), 2 clients",
    "ins_app": "append insert (max key + nextval), 2 clients unpinned, synchronous_commit=off",
}


def log(msg):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True, file=__import__("sys").stderr)


def plan_shape(plan):
    def rec(n):
        s = n["Node Type"]
        if n.get("Index Name"):
            s += "(" + n["Index Name"] + ")"
        kids = n.get("Plans") or []
        return s + ("[" + ", ".join(rec(k) for k in kids) + "]" if kids else "")
    return rec(plan)


def pctl(a, p):
    return float(np.percentile(a, p)) if len(a) else None



def merge_learned(db, table):
    """Merge the pending list of every learned index of table (no-op for btree tables)."""
    db.q("SELECT learned_index_merge(c.oid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
         "JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = %s::regclass AND a.amname = 'learned'", (table,))

class Workloads:
    def __init__(self, bench):
        self.b = bench
        self.a = bench.a
        self.raw = bench.raw
        self.cpus = os.cpu_count() or 1
        m = re.search(r"-c\s+(\S+)", self.a.server_pin or "")
        self.srv_cpu = m.group(1) if m else None
        self.latency = {}        # (ds, side, workload) -> np.array of µs (for CDFs)

    # ------------------------------------------------------------------ helpers
    @property
    def db(self):
        return self.b.db

    def tables(self, name):
        return {"btree": "t_" + name, "learned": "t_%s_l" % name}

    def postmaster_pid(self):
        with open(os.path.join(self.a.datadir, "postmaster.pid")) as fh:
            return int(fh.readline())

    def set_server_affinity(self, cpus):
        """New backends inherit the postmaster's CPU affinity; change it between runs."""
        if not self.srv_cpu:
            return
        subprocess.run(["taskset", "-a", "-p", "-c", cpus, str(self.postmaster_pid())],
                       capture_output=True, check=False)

    def pgbench(self, tag, scripts, clients, secs, pinned, gucs=PGB_GUCS, defines=None):
        """Run pgbench; returns dict(tps, n, lat array µs, per-script lat arrays)."""
        prefix = os.path.join(self.raw, "pgb_" + tag)
        for fn in glob.glob(prefix + ".*"):
            os.unlink(fn)
        cmd = []
        if pinned and self.srv_cpu:
            cmd += ["taskset", "-c", self.srv_cpu]
        elif self.srv_cpu:
            cmd += ["taskset", "-c", "0-%d" % (self.cpus - 1)]
        # secs <= 0: a fixed number of transactions per client instead (smoke mode)
        dur = ["-T", str(secs)] if secs > 0 else ["-t", str(-secs)]
        cmd += [os.path.join(self.a.pgbin, "pgbench"), "-n", "-M", "prepared", "-c", str(clients),
                "-j", str(clients)] + dur + ["-l", "--log-prefix", prefix]
        for k, v in (defines or {}).items():
            cmd += ["-D", "%s=%s" % (k, v)]
        for s in scripts:
            cmd += ["-f", s]
        env = dict(os.environ, PGOPTIONS=gucs)
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=self.raw)
        if r.returncode != 0:
            raise RuntimeError("pgbench %s failed: %s" % (tag, (r.stderr or r.stdout).strip()[-600:]))
        m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", r.stdout)
        tps = float(m.group(1)) if m else None
        m = re.search(r"number of transactions actually processed: (\d+)", r.stdout)
        n = int(m.group(1)) if m else None
        lat, per = [], {}
        for fn in glob.glob(prefix + ".*"):
            a = np.loadtxt(fn, dtype=np.int64, usecols=(2, 3), ndmin=2)
            if a.size:
                lat.append(a[:, 0])
                for s in np.unique(a[:, 1]):
                    per.setdefault(int(s), []).append(a[a[:, 1] == s, 0])
            os.unlink(fn)
        lat = np.concatenate(lat) if lat else np.zeros(0, dtype=np.int64)
        per = {k: np.concatenate(v) for k, v in per.items()}
        return {"tps": tps, "n": n, "lat": lat, "per": per}

    # ------------------------------------------------------------------ key table
    def load_keytable(self, name, keys):
        """pk_<name>(i, k, lo10, hi10, lo100, hi100, lo10000, hi10000) in ctid order."""
        db, n = self.db, len(keys)
        rng = np.random.default_rng(4242)
        m = min(self.a.pgb_keys, n)
        i = np.arange(m, dtype=np.int64)
        cols = [i, keys[rng.integers(0, n, m)]]
        for span in (10, 100, 10000):
            span = min(span, n)
            r = rng.integers(0, n - span + 1, m)
            cols += [keys[r], keys[r + span - 1]]
        db.q("DROP TABLE IF EXISTS pk_%s" % name)
        db.q("CREATE TABLE pk_%s (i int8, k int8, lo10 int8, hi10 int8, lo100 int8, hi100 int8, lo10000 int8, "
             "hi10000 int8) WITH (autovacuum_enabled = false, fillfactor = 100)" % name)
        db.copy_in("pk_" + name, cols)
        db.q("VACUUM (FREEZE, ANALYZE) pk_%s" % name)
        tpp = int(db.q1("SELECT count(*) FROM pk_%s WHERE ctid >= '(0,0)' AND ctid < '(1,0)'" % name)[0])
        bad = int(db.q1("SELECT count(*) FROM pk_%s WHERE ctid <> format('(%%s,%%s)', i / %d, i %% %d + 1)::tid"
                        % (name, tpp, tpp))[0])
        if bad:
            raise RuntimeError("pk_%s: %d rows are not at their computed ctid" % (name, bad))
        return m, tpp

    def write_scripts(self, name, side, table, kmax):
        d = os.path.join(self.raw, "scripts")
        os.makedirs(d, exist_ok=True)
        pick = ("\\set i random(0, :np - 1)\n\\set b :i / :tpp\n\\set o :i %% :tpp + 1\n")
        tid = "('(' || :b || ',' || :o || ')')::tid"
        sql = {
            "point": "SELECT t.v FROM pk_%s p JOIN %s t ON t.k = p.k WHERE p.ctid = %s;" % (name, table, tid),
            "ios": "SELECT t.k FROM pk_%s p JOIN %s t ON t.k = p.k WHERE p.ctid = %s;" % (name, table, tid),
            "ins_rand": "INSERT INTO %s (k, v) SELECT p.k + 1, -1 FROM pk_%s p WHERE p.ctid = %s;" % (
                table, name, tid),
            "orderby10": "SELECT t.k, t.v FROM %s t WHERE t.k >= (SELECT p.k FROM pk_%s p WHERE p.ctid = %s) "
                         "ORDER BY t.k LIMIT 10;" % (table, name, tid),
        }
        for span in (10, 100, 10000):
            sql["range%d" % span] = ("SELECT count(*), sum(t.v) FROM pk_%s p JOIN %s t ON t.k >= p.lo%d AND "
                                     "t.k <= p.hi%d WHERE p.ctid = %s;" % (name, table, span, span, tid))
        files = {}
        for k, q in sql.items():
            fn = os.path.join(d, "%s_%s_%s.sql" % (name, side, k))
            with open(fn, "w") as fh:
                fh.write((pick % ()) + q + "\n")
            files[k] = fn
        seq = "app_%s_%s" % (name, side)
        self.db.q("DROP SEQUENCE IF EXISTS %s" % seq)
        self.db.q("CREATE SEQUENCE %s" % seq)
        fn = os.path.join(d, "%s_%s_ins_app.sql" % (name, side))
        with open(fn, "w") as fh:
            fh.write("INSERT INTO %s (k, v) VALUES (%d + nextval('%s'), -1);\n" % (table, kmax, seq))
        files["ins_app"] = fn
        return files, sql

    def check_plan(self, name, side, idx, sql_tmpl):
        q = sql_tmpl.replace(":b", "0").replace(":o", "1")
        db = self.db
        for g in PGB_GUCS.replace("-c ", "").split():
            k, v = g.split("=")
            db.q("SET %s = '%s'" % (k, v))
        try:
            plan = db.q1("EXPLAIN (FORMAT JSON) " + q)[0][0]["Plan"]
        finally:
            db.q("RESET ALL")
        shape = plan_shape(plan)
        if idx not in shape or any(x in shape for x in ("Bitmap", "Sort", "Seq Scan")):
            self.b.problem_simple(name, side, "pgbench plan does not use %s as expected: %s" % (idx, shape))
        return shape

    # ------------------------------------------------------------------ read workloads
    def run_reads(self, name, keys, res, idxs):
        a = self.a
        np_, tpp = self.load_keytable(name, keys)
        defines = {"np": np_, "tpp": tpp}
        tabs = self.tables(name)
        files, sqls = {}, {}
        for side, t in tabs.items():
            files[side], sqls[side] = self.write_scripts(name, side, t, int(keys[-1]))
            for k in ("point", "ios", "range100", "orderby10"):
                res[side]["pgb_plan_" + k] = self.check_plan(name, side, idxs[side], sqls[side][k])
        for rel in list(tabs.values()) + list(idxs.values()) + ["pk_" + name]:
            self.db.q("SELECT pg_prewarm(%s)", (rel,))
        plan = [  # (workload, script key, clients, pinned, reps)
            ("point1", "point", 1, True, a.pgb_reps_point),
            ("point2", "point", 2, False, a.pgb_reps),
            ("ios", "ios", 1, True, a.pgb_reps),
            ("range10", "range10", 1, True, a.pgb_reps),
            ("range100", "range100", 1, True, a.pgb_reps),
            ("range10000", "range10000", 1, True, a.pgb_reps),
            ("orderby10", "orderby10", 1, True, a.pgb_reps),
        ]
        sides = list(tabs)
        # The A/A side (a.aa, on unless --no-aa): the same btree index on the same table measured
        # again in slots of its own, in the same interleaved schedule (btree, learned, btree_b;
        # reversed every other repetition, so btree and btree_b swap the first and last slots and
        # the learned side, in the middle, sees the average of their drift).  Its ratio
        # btree_b / btree has everything that moves learned / btree apart from the index (the
        # machine's load, frequency, the other processes, the order of the slots) and nothing of
        # the index: the run's noise.  A second btree on a third identical table (as
        # bench/nestloop.sh has) would add a table load and a build per dataset, and in full mode
        # its 443MB heap and 214MB btree would fill the 2GB of shared buffers to about 1.9GB, for
        # the one extra source of noise it covers, two copies of the heap placed differently in
        # memory; the btree and learned tables are loaded by the same COPY into the same page
        # layout, so it is the slots' noise that the A/A has to measure.  Cost: a third of the
        # read workloads' time.
        slots = sides + (["btree_b"] if a.aa else [])
        script_of = {s: s for s in sides}
        script_of["btree_b"] = "btree"
        for wl, key, clients, pinned, reps in plan:
            if not pinned:
                self.set_server_affinity("0-%d" % (self.cpus - 1))
            tps = {s: {} for s in slots}          # {slot: {rep: tps}}
            lats = {s: [] for s in slots}
            try:
                for rep in range(reps):
                    for slot in (slots if rep % 2 == 0 else slots[::-1]):
                        try:
                            r = self.pgbench("%s_%s_%s_%d" % (name, slot, wl, rep), [files[script_of[slot]][key]],
                                             clients, a.pgb_secs, pinned, defines=defines)
                        except RuntimeError as e:
                            self.b.problem_simple(name, slot, str(e))
                            continue
                        if r["tps"] is not None:
                            tps[slot][rep] = r["tps"]
                        lats[slot].append(r["lat"])
            finally:
                if not pinned:
                    self.set_server_affinity(self.srv_cpu)
            for side in sides:
                self.store(res[side], wl, list(tps[side].values()), lats[side])
                if len(lats[side]):
                    self.latency[(name, side, wl)] = np.concatenate(lats[side])
            if a.aa:
                self.store_aa(res["btree"], wl, tps["btree"], tps["btree_b"], lats["btree_b"])
            log("%s %s: tps btree %s / learned %s%s" % (
                name, wl, res["btree"].get("pgb_%s_tps" % wl), res["learned"].get("pgb_%s_tps" % wl),
                "; A/A btree_b / btree %.3f" % res["btree"]["pgb_%s_aa_ratio" % wl]
                if res["btree"].get("pgb_%s_aa_ratio" % wl) else ""))
        return files, defines

    def store_aa(self, r, wl, tps_a, tps_b, lats_b):
        """The A/A side's numbers, in the btree row: pgb_<wl>_aa_tps (median, min, max, all, as
        store() writes them), pgb_<wl>_aa_ratio = median btree_b / median btree (the statistic
        the headline's learned / btree is), pgb_<wl>_aa_reps = the per-repetition ratios
        btree_b / btree of the repetitions where both sides ran."""
        self.store(r, wl + "_aa", list(tps_b.values()), lats_b)
        a, b = r.get("pgb_%s_tps" % wl), r.get("pgb_%s_aa_tps" % wl)
        if a and b:
            r["pgb_%s_aa_ratio" % wl] = b / a
        per = [tps_b[i] / tps_a[i] for i in sorted(tps_a) if i in tps_b and tps_a[i]]
        if per:
            r["pgb_%s_aa_reps" % wl] = ";".join("%.4f" % x for x in per)

    @staticmethod
    def store(r, wl, tps, lats, extra=None):
        tps = [x for x in tps if x is not None]
        if not tps:
            return
        r["pgb_%s_tps" % wl] = statistics.median(tps)
        r["pgb_%s_tps_min" % wl] = min(tps)
        r["pgb_%s_tps_max" % wl] = max(tps)
        r["pgb_%s_tps_all" % wl] = ";".join("%.0f" % x for x in tps)
        lat = np.concatenate(lats) if lats else np.zeros(0)
        if lat.size:
            r["pgb_%s_p50_us" % wl] = pctl(lat, 50)
            r["pgb_%s_p99_us" % wl] = pctl(lat, 99)

    # ------------------------------------------------------------------ write workloads
    def run_writes(self, name, res, files, defines):
        a, db = self.a, self.db
        tabs = self.tables(name)
        sides = list(tabs)
        gucs = PGB_GUCS + " -c synchronous_commit=off"
        plan = {
            "mix90": lambda s: [files[s]["point"] + "@90", files[s]["ins_rand"] + "@10"],
            "mix50": lambda s: [files[s]["point"] + "@50", files[s]["ins_rand"] + "@50"],
            "ins_rand": lambda s: [files[s]["ins_rand"]],
            "ins_app": lambda s: [files[s]["ins_app"]],
        }
        self.set_server_affinity("0-%d" % (self.cpus - 1))
        try:
            for i, wl in enumerate(WRITE_WORKLOADS):
                for side in (sides if i % 2 == 0 else sides[::-1]):
                    # Each run starts with an empty pending list: otherwise the merges a run
                    # triggers also carry the entries earlier runs left (random keys left by
                    # ins_rand made every append-run merge rewrite the whole index).
                    if a.learned_am == "learned":
                        merge_learned(db, tabs[side])
                    db.q("CHECKPOINT")
                    l0 = int(db.q1("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn")[0])
                    try:
                        r = self.pgbench("%s_%s_%s" % (name, side, wl), plan[wl](side), 2, a.pgb_write_secs,
                                         False, gucs=gucs, defines=defines)
                    except RuntimeError as e:
                        self.b.problem_simple(name, side, str(e))
                        continue
                    # WAL per insert includes the merge of what the run left pending (as the
                    # dynamic benchmark counts it): deferred work is not free
                    if a.learned_am == "learned":
                        merge_learned(db, tabs[side])
                    l1 = int(db.q1("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn")[0])
                    rr = res[side]
                    self.store(rr, wl, [r["tps"]], [r["lat"]])
                    if r["n"]:
                        rr["pgb_%s_wal_per_tx" % wl] = (l1 - l0) / r["n"]
                    ins_no = 0 if wl.startswith("ins") else 1
                    if ins_no in r["per"] and wl.startswith("mix"):
                        rr["pgb_%s_ins_p99_us" % wl] = pctl(r["per"][ins_no], 99)
                        rr["pgb_%s_look_p99_us" % wl] = pctl(r["per"][0], 99) if 0 in r["per"] else None
                    self.latency[(name, side, wl)] = r["lat"]
                log("%s %s: tps btree %s / learned %s" % (name, wl, res["btree"].get("pgb_%s_tps" % wl),
                                                         res["learned"].get("pgb_%s_tps" % wl)))
        finally:
            self.set_server_affinity(self.srv_cpu)
        # correctness after the inserts: through each index == seq scan of the same table
        for side, t in tabs.items():
            try:
                got = {}
                for mode, g in (("index", "off"), ("seq", "on")):
                    db.q("SET enable_seqscan = %s" % g)
                    db.q("SET enable_bitmapscan = off")
                    db.q("SET enable_indexscan = %s" % ("on" if mode == "index" else "off"))
                    db.q("SET enable_indexonlyscan = %s" % ("on" if mode == "index" else "off"))
                    got[mode] = tuple(db.q1("SELECT count(*), sum(k::numeric) FROM %s WHERE k >= %d"
                                            % (t, -(1 << 63))))
                db.q("RESET ALL")
                res[side]["after_writes_rows"] = int(got["seq"][0])
                if got["index"] != got["seq"]:
                    self.b.problem_simple(name, side, "after inserts: index scan %s != seq scan %s"
                                          % (got["index"], got["seq"]))
            except psycopg.Error as e:
                db.q("RESET ALL")
                self.b.problem_simple(name, side, "after-insert check failed: %s" % str(e).strip())

    # ------------------------------------------------------------------ cold cache
    # A memory cgroup that holds the server during --disk-resident cold runs on majors without
    # debug_io_direct (15): the server's page cache is charged to it, so the limit keeps the OS
    # page cache of the index and heap files far smaller than them.
    CGROUP_DIRS = ("/sys/fs/cgroup/memory/learned_bench", "/sys/fs/cgroup/learned_bench")

    def cgroup_enter_cmd(self):
        """A command prefix that starts its command in a memory-limited cgroup, or None."""
        limit = int(self.a.disk_resident_mb) * 2 ** 20
        for d in self.CGROUP_DIRS:
            parent = os.path.dirname(d)
            v1 = os.path.exists(os.path.join(parent, "memory.limit_in_bytes"))
            v2 = os.path.exists(os.path.join(parent, "cgroup.controllers"))
            if not (v1 or v2):
                continue
            try:
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, "memory.limit_in_bytes" if v1 else "memory.max"), "w") as fh:
                    fh.write("%d\n" % limit)
            except OSError:
                continue
            procs = os.path.join(d, "cgroup.procs")
            return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', procs]
        return None

    def cgroup_leave(self):
        for d in self.CGROUP_DIRS:
            try:
                os.rmdir(d)
            except OSError:
                pass

    def restart(self, extra_opts="", disk_resident=False):
        """Restart the server (extra_opts: -o options, and then the OS page cache is dropped first).
        disk_resident: keep the OS page cache out of the way while it runs: debug_io_direct = data
        on 16 and later, else a memory cgroup (a.disk_resident_mb for the whole server).  Returns
        (dropped, how the OS cache is kept out: 'direct', 'cgroup', or '')."""
        a = self.a
        pg_ctl = os.path.join(a.pgbin, "pg_ctl")
        vnum = int(self.db.q1("SHOW server_version_num")[0])
        try:
            self.b.db.conn.close()
        except Exception:
            pass
        subprocess.run(["runuser", "-u", "postgres", "--", pg_ctl, "-D", a.datadir, "-m", "fast", "-w", "stop"],
                       capture_output=True, check=True)
        dropped = False
        if extra_opts:
            subprocess.run(["sync"], check=False)
            try:
                with open("/proc/sys/vm/drop_caches", "w") as fh:
                    fh.write("3\n")
                dropped = True
            except OSError:
                dropped = False
        how, cmd = "", []
        if disk_resident and vnum >= 160000:
            extra_opts = (extra_opts + " -c debug_io_direct=data").strip()
            how = "direct"
        elif disk_resident:
            pre = self.cgroup_enter_cmd()
            if pre:
                cmd, how = pre, "cgroup"
        cmd += ["runuser", "-u", "postgres", "--"]
        if self.srv_cpu:
            cmd += ["taskset", "-c", self.srv_cpu]
        cmd += [pg_ctl, "-D", a.datadir, "-l", a.serverlog, "-w", "start"]
        if extra_opts:
            cmd += ["-o", extra_opts]
        subprocess.run(cmd, capture_output=True, check=True)
        self.b.reconnect()
        return dropped, how

    @staticmethod
    def cold_prefix(i):
        """Result-key prefix of the i-th cold-cache configuration (--cold-sb list)."""
        return "cold_" if i == 0 else "cold%d_" % (i + 1)

    def run_cold(self, name, res, idxs, exp_count=None):
        """Per shared_buffers size of --cold-sb and per side: restart with that shared_buffers
        after dropping the OS page cache, then run the first M probes of the probe table through
        the nested-loop probe loop.  A size far below btree's inner pages (128kB = 16 buffers)
        is the disk-resident case: every level of btree misses shared buffers again and again."""
        a = self.a
        tabs = self.tables(name)
        m = a.cold_probes
        sql = ("SELECT count(*), coalesce(sum(t.v), 0) FROM (SELECT k FROM probe_%s LIMIT %d) p "
               "JOIN {t} t ON t.k = p.k" % (name, m))
        try:
            for i, sb in enumerate(a.cold_sbs):
                px = self.cold_prefix(i)
                for side in ("btree", "learned"):
                    t, idx = tabs[side], idxs[side]
                    dropped, how = self.restart("-c shared_buffers=%s -c track_io_timing=on" % sb,
                                                disk_resident=a.disk_resident)
                    if a.disk_resident and not how:
                        self.b.problem_simple(name, side, "--disk-resident: neither debug_io_direct (16+) nor "
                                              "a memory cgroup is available; the OS page cache serves reads")
                    db = self.db
                    for k, v in (("enable_hashjoin", "off"), ("enable_mergejoin", "off"),
                                 ("enable_bitmapscan", "off"), ("enable_memoize", "off"),
                                 ("enable_material", "off")):
                        db.q("SET %s = %s" % (k, v))
                    db.q("SELECT pg_stat_reset()")
                    s0 = self.io_counters(t, idx)
                    t0 = time.perf_counter()
                    rows = db.q1(sql.format(t=t))
                    dt = time.perf_counter() - t0
                    s1 = self.io_counters(t, idx)
                    r = res[side]
                    r[px + "probes"] = m
                    r[px + "us"] = dt / m * 1e6
                    r[px + "lookups_s"] = m / dt
                    r[px + "idx_reads"] = (s1["idx_read"] - s0["idx_read"]) / m
                    r[px + "idx_hits"] = (s1["idx_hit"] - s0["idx_hit"]) / m
                    r[px + "heap_reads"] = (s1["heap_read"] - s0["heap_read"]) / m
                    r[px + "read_ms"] = s1["read_ms"] - s0["read_ms"]
                    r[px + "os_cache_dropped"] = dropped
                    r[px + "os_cache_kept_out"] = how or "no"
                    r[px + "count"] = int(rows[0])
                    # Only physically possible figures: no negative reads, and every lookup
                    # pins at least one index page (read or hit).  A counter the AM forgets to
                    # bump (a hit without its fetch) shows up here, not as a "win".
                    bad = ["%s=%.3f" % (k, r[px + k]) for k in ("idx_reads", "idx_hits", "heap_reads")
                           if r[px + k] < 0]
                    if r[px + "idx_reads"] + r[px + "idx_hits"] < 1:
                        bad.append("fewer than one index page per lookup")
                    if bad:
                        self.b.problem_simple(name, side, "cold lookups (shared_buffers %s): impossible I/O "
                                              "counters: %s" % (sb, ", ".join(bad)))
                    log("%s cold (shared_buffers %s) %s: %.1f us/lookup, %.2f idx reads/lookup, "
                        "%.2f heap reads/lookup%s"
                        % (name, sb, side, r[px + "us"], r[px + "idx_reads"], r[px + "heap_reads"],
                           "" if dropped else " (OS cache NOT dropped)"))
                if res["btree"].get(px + "count") != res["learned"].get(px + "count"):
                    self.b.problem_simple(name, "learned", "cold lookups (shared_buffers %s): %s rows vs btree %s"
                                          % (sb, res["learned"].get(px + "count"),
                                             res["btree"].get(px + "count")))
        finally:
            self.restart("")
            self.cgroup_leave()

    def io_counters(self, table, idx):
        db = self.db
        db.q("SELECT pg_stat_force_next_flush()")
        db.q("SELECT pg_stat_clear_snapshot()")
        ri = db.q1("SELECT coalesce(idx_blks_read,0), coalesce(idx_blks_hit,0) FROM pg_statio_user_indexes "
                   "WHERE indexrelname = %s", (idx,))
        rt = db.q1("SELECT coalesce(heap_blks_read,0) FROM pg_statio_user_tables WHERE relname = %s", (table,))
        rd = db.q1("SELECT blk_read_time FROM pg_stat_database WHERE datname = current_database()")
        return {"idx_read": int(ri[0]), "idx_hit": int(ri[1]), "heap_read": int(rt[0]), "read_ms": float(rd[0])}

    # ------------------------------------------------------------------ error_bound sweep
    def run_sweep(self, name, res, idxs, exp_lookup):
        """Rebuild the learned index at each error_bound in a.sweep_list; record size, structure
        and probe-loop µs/lookup (median of a.sweep_reps) next to a btree re-timed in the same loop."""
        a, b = self.a, self.b
        tabs = self.tables(name)
        out = []
        db = self.db
        db.q("DROP INDEX IF EXISTS %s" % idxs["learned"])
        sqlt = ("SELECT count(*), coalesce(sum(t.v), 0) FROM (SELECT k FROM probe_%s LIMIT %d) p JOIN {t} t "
                "ON t.k = p.k" % (name, a.sweep_probes))
        try:
            for eps in a.sweep_list:
                idx = "t_%s_sw%d" % (name, eps)
                row = {"dataset": name, "eps": eps}
                try:
                    t0 = time.perf_counter()
                    db.q("CREATE INDEX %s ON %s USING %s (k)%s" % (
                        idx, tabs["learned"], a.learned_am,
                        " WITH (error_bound = %d)" % eps if a.learned_am == "learned" else ""))
                    row["build_s"] = time.perf_counter() - t0
                    row["index_bytes"] = db.q1("SELECT pg_relation_size(%s)", (idx,))[0]
                    if a.learned_am == "learned":
                        info = db.dict1("SELECT * FROM learned_index_info(%s)", (idx,))
                        row.update({"li_" + k: v for k, v in info.items() if not hasattr(v, "isoformat")})
                        row["inner_bytes"] = (info.get("directory_pages") or 0) * 8192
                    for rel in (idx, tabs["learned"], tabs["btree"], idxs["btree"], "probe_" + name):
                        db.q("SELECT pg_prewarm(%s)", (rel,))
                    for k, v in (("enable_hashjoin", "off"), ("enable_mergejoin", "off"),
                                 ("enable_bitmapscan", "off"), ("enable_memoize", "off"), ("enable_material", "off")):
                        db.q("SET %s = %s" % (k, v))
                    tl, tb = [], []
                    for rep in range(a.sweep_reps + 1):
                        order = (("l", tabs["learned"]), ("b", tabs["btree"]))
                        for which, t in (order if rep % 2 == 0 else order[::-1]):
                            dt, rows = db.timed(sqlt.format(t=t))
                            if rep == 0:
                                if which == "l":
                                    row["count"] = int(rows[0][0])
                                continue
                            (tl if which == "l" else tb).append(dt)
                    db.q("RESET ALL")
                    row["lookup_us"] = statistics.median(tl) / a.sweep_probes * 1e6
                    row["lookup_us_min"] = min(tl) / a.sweep_probes * 1e6
                    row["lookup_us_max"] = max(tl) / a.sweep_probes * 1e6
                    row["btree_lookup_us"] = statistics.median(tb) / a.sweep_probes * 1e6
                    row["btree_index_bytes"] = res["btree"].get("index_bytes")
                    row["btree_inner_bytes"] = res["btree"].get("inner_bytes")
                    log("%s sweep eps=%d: %.2f MB, %.3f us/lookup (btree %.3f)" % (
                        name, eps, row["index_bytes"] / 1e6, row["lookup_us"], row["btree_lookup_us"]))
                except psycopg.Error as e:
                    db.q("RESET ALL")
                    row["error"] = str(e).strip()
                    b.problem_simple(name, "learned_e%d" % eps, "sweep failed: %s" % row["error"])
                finally:
                    db.q("DROP INDEX IF EXISTS %s" % idx)
                out.append(row)
        finally:
            # the default learned index comes back for the write workloads
            db.q("CREATE INDEX %s ON %s USING %s (k)" % (idxs["learned"], tabs["learned"], a.learned_am))
        return out
