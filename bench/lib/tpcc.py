"""TPC-C (go-tpc) and pgbench -S: the schema with btree indexes vs with learned indexes.

go-tpc (bench/.tools/go-tpc, built from bench/tpcc/gotpc by run.sh) generates the data as
CSV (`tpcc prepare --output-type csv`); we load it into our own key-less copy of its
PostgreSQL schema (bench/tpcc/schema.sql), clone that database once per schema, and create
the indexes of INDEXES below:

  btree        every index btree (primary keys as unique btree indexes);
  learned      the secondary (non-unique) indexes `learned` wherever the AM can take them
               (every key column has a default `learned` operator class, and one column or
               can_multi_col), the primary keys unique btree: the comparison issue 5 asks for;
  learned_all  also the primary keys as UNIQUE `learned` indexes (skipped with --tpcc-keep-pk).

Then `go-tpc tpcc run` rotates over the schemas with the same warehouses, threads and duration.
"""

import glob
import os
import re
import shutil
import statistics
import subprocess
import time

import psycopg

import pgdb

# name, table, key columns, kind: "pk" (a primary key in go-tpc's DDL) or "sec" (secondary)
INDEXES = [
    ("warehouse_pkey", "warehouse", ("w_id",), "pk"),
    ("district_pkey", "district", ("d_w_id", "d_id"), "pk"),
    ("customer_pkey", "customer", ("c_w_id", "c_d_id", "c_id"), "pk"),
    ("idx_customer", "customer", ("c_w_id", "c_d_id", "c_last", "c_first"), "sec"),
    ("idx_h_w_id", "history", ("h_w_id",), "sec"),
    ("idx_h_c_w_id", "history", ("h_c_w_id",), "sec"),
    ("new_order_pkey", "new_order", ("no_w_id", "no_d_id", "no_o_id"), "pk"),
    ("orders_pkey", "orders", ("o_w_id", "o_d_id", "o_id"), "pk"),
    ("idx_order", "orders", ("o_w_id", "o_d_id", "o_c_id", "o_id"), "sec"),
    ("order_line_pkey", "order_line", ("ol_w_id", "ol_d_id", "ol_o_id", "ol_number"), "pk"),
    ("stock_pkey", "stock", ("s_w_id", "s_i_id"), "pk"),
    ("item_pkey", "item", ("i_id",), "pk"),
]
TABLES = ("warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "stock", "item")


def log(msg):
    print("[tpcc %s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True, file=__import__("sys").stderr)


def connect(db):
    c = psycopg.connect("dbname=%s" % db, autocommit=True)
    c.execute("SET client_min_messages = warning")
    return c


def learned_ok(conn, am, table, cols, kind, side):
    """Is index (table, cols) learned in schema side, and if not, why?"""
    if side == "btree":
        return False, ""
    if kind == "pk" and side != "learned_all":
        return False, "primary key: btree in this schema"
    r = conn.execute("SELECT pg_indexam_has_property(oid, 'can_multi_col') FROM pg_am WHERE amname = %s",
                     (am,)).fetchone()
    if r is None:
        return False, "no access method %s" % am
    if len(cols) > 1 and not r[0]:
        return False, "%d columns: %s is single-column" % (len(cols), am)
    for c in cols:
        ok = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_opclass o ON o.opcintype = a.atttypid "
            "JOIN pg_am m ON m.oid = o.opcmethod WHERE a.attrelid = %s::regclass AND a.attname = %s "
            "AND m.amname = %s AND o.opcdefault)", (table, c, am)).fetchone()[0]
        if not ok:
            return False, "no %s operator class for %s.%s" % (am, table, c)
    return True, ""


def parse_run(out):
    res = {}
    m = re.search(r"tpmC: ([0-9.]+)", out)
    res["tpmC"] = float(m.group(1)) if m else None
    m = re.search(r"tpmTotal: ([0-9.]+)", out)
    res["tpmTotal"] = float(m.group(1)) if m else None
    for line in out.splitlines():
        m = re.match(r"\[Summary\] (\w+) - .*?Count: (\d+).*?99th\(ms\): ([0-9.]+)", line)
        if m:
            res["%s_count" % m.group(1)] = int(m.group(2))
            res["%s_p99_ms" % m.group(1)] = float(m.group(3))
        m = re.match(r"\[Summary\] (\w+) - .*?50th\(ms\): ([0-9.]+)", line)
        if m:
            res["%s_p50_ms" % m.group(1)] = float(m.group(2))
    return res


INDEX_TABLE = {n: t for n, t, _, _ in INDEXES}
INDEX_COLS = {n: c for n, _, c, _ in INDEXES}
INDEX_KIND = {n: k for n, _, _, k in INDEXES}


def load_base(gotpc, common, warehouses, csvdir, schema):
    """Generate go-tpc's data as CSV into csvdir and load it into a new database tpcc_base
    (the key-less schema); returns an error message or None."""
    shutil.rmtree(csvdir, ignore_errors=True)
    os.makedirs(csvdir)
    cmd = [gotpc, "tpcc", "prepare"] + common + ["-D", "tpcc_csvgen", "--warehouses", str(warehouses), "-T", "2",
                                               "--output-type", "csv", "--output-dir", csvdir, "--no-check"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return "TPC-C: go-tpc prepare failed: %s" % (r.stderr or r.stdout)[-500:]
    admin = connect("postgres")
    for db in ("tpcc_base", "tpcc_csvgen"):
        admin.execute("DROP DATABASE IF EXISTS %s" % db)
    admin.execute("CREATE DATABASE tpcc_base")
    base = connect("tpcc_base")
    with open(schema) as fh:
        base.execute(fh.read())
    for t in TABLES:
        files = sorted(glob.glob(os.path.join(csvdir, "*.%s.*.csv" % t)) +
                       glob.glob(os.path.join(csvdir, "*.%s.csv" % t)))
        with base.cursor() as cur:
            for fn in files:
                with cur.copy("COPY %s FROM STDIN WITH (FORMAT csv, NULL 'NULL')" % t) as cp:
                    with open(fn, "rb") as fh:
                        while True:
                            chunk = fh.read(1 << 20)
                            if not chunk:
                                break
                            cp.write(chunk)
    base.close()
    admin.close()
    shutil.rmtree(csvdir, ignore_errors=True)
    return None


def create_indexes(c, am_name, side, with_opts=None):
    """Create INDEXES in the database of connection c for schema side, the learned ones WITH
    with_opts (a dict of reloptions, run.sh's --learned-with); yields (name, am, why btree)."""
    if side != "btree" and am_name == "learned":
        c.execute("CREATE EXTENSION IF NOT EXISTS learned_idx")
    for name, table, cols, kind in INDEXES:
        ok, why = learned_ok(c, am_name, table, cols, kind, side)
        am = am_name if ok else "btree"
        uniq = "UNIQUE " if kind == "pk" else ""
        rel = " WITH (%s)" % pgdb.reloptions_text(with_opts) if ok and with_opts and am == "learned" else ""
        c.execute("CREATE %sINDEX %s ON %s USING %s (%s)%s" % (uniq, name, table, am, ", ".join(cols), rel))
        yield name, am, why


def restart_server(a, opts=""):
    """Restart the throwaway server with -o opts (none: back to its postgresql.conf), the OS
    page cache dropped first when opts are given (--tpcc-disk-resident)."""
    pg_ctl = os.path.join(a.pgbin, "pg_ctl")
    subprocess.run(["runuser", "-u", "postgres", "--", pg_ctl, "-D", a.datadir, "-m", "fast", "-w", "stop"],
                   capture_output=True, check=True)
    if opts:
        subprocess.run(["sync"], check=False)
        with open("/proc/sys/vm/drop_caches", "w") as fh:
            fh.write("3\n")
    cmd = ["runuser", "-u", "postgres", "--", pg_ctl, "-D", a.datadir, "-l", a.serverlog, "-w", "start"]
    subprocess.run(cmd + (["-o", opts] if opts else []), capture_output=True, check=True)


def disk_resident_opts(a, btree_bytes, out, problems):
    """--tpcc-disk-resident: the -o options of the runs, shared_buffers a quarter of btree's
    index set after the load (target 10 of issue 30: btree's indexes at least 4x shared
    buffers) and debug_io_direct = data, so a shared-buffer miss reads the disk and not the
    OS page cache (PostgreSQL 16 and later); None when the major has no debug_io_direct."""
    vnum = int(connect("postgres").execute("SHOW server_version_num").fetchone()[0])
    if vnum < 160000:
        problems.append("TPC-C --tpcc-disk-resident needs debug_io_direct (PostgreSQL 16+): "
                        "the runs used the cached settings")
        return None
    kb = max(128, int(btree_bytes) // 4 // 8192 * 8)
    out["disk_resident"] = {"shared_buffers_kB": kb, "btree_index_bytes": int(btree_bytes),
                            "io": "debug_io_direct = data"}
    return "-c shared_buffers=%dkB -c debug_io_direct=data" % kb


def run_tpcc(a, raw, problems):
    """Returns a dict for meta.json (tpmC per side and rep, index table, sizes) or None."""
    gotpc = a.gotpc
    if not gotpc or not os.path.exists(gotpc):
        log("go-tpc not found (%s): TPC-C skipped" % gotpc)
        return {"skipped": "go-tpc binary not found at %s (run.sh builds it when `go` is available)" % gotpc}
    common = ["-d", "postgres", "-H", "127.0.0.1", "-P", str(a.port), "-U", "postgres",
              "--conn-params", "sslmode=disable"]
    sides = ["btree", "learned"] + (["learned_all"] if a.tpcc_replace_pk else [])
    out = {"warehouses": a.tpcc_wh, "threads": a.tpcc_threads, "secs": a.tpcc_secs, "reps": a.tpcc_reps,
           "replace_pk": a.tpcc_replace_pk, "sides": sides, "runs": [], "indexes": []}
    csvdir = os.path.join(raw, "tpcc_csv")
    t0 = time.time()
    admin = connect("postgres")
    for db in ["tpcc_" + x for x in sides]:
        admin.execute("DROP DATABASE IF EXISTS %s" % db)
    err = load_base(gotpc, common, a.tpcc_wh, csvdir, os.path.join(a.bench_dir, "tpcc", "schema.sql"))
    if err:
        problems.append(err)
        return out
    out["load_s"] = time.time() - t0
    log("TPC-C %d warehouse(s) generated and loaded in %.1fs" % (a.tpcc_wh, out["load_s"]))
    byname = {}
    for side in sides:
        db = "tpcc_" + side
        admin.execute("CREATE DATABASE %s TEMPLATE tpcc_base" % db)
        c = connect(db)
        for name, am, why in create_indexes(c, a.learned_am, side, getattr(a, "learned_with_opts", None)):
            ix = byname.setdefault(name, {"name": name, "table": INDEX_TABLE[name],
                                          "columns": ",".join(INDEX_COLS[name]), "kind": INDEX_KIND[name]})
            ix["am_" + side] = am
            ix["why_btree_" + side] = why
            ix["bytes_" + side] = c.execute("SELECT pg_relation_size(%s)", (name,)).fetchone()[0]
        c.execute("VACUUM (ANALYZE)")
        c.execute("CHECKPOINT")
        out["%s_total_index_bytes" % side] = c.execute(
            "SELECT sum(pg_relation_size(indexrelid)) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'").fetchone()[0]
        c.close()
    out["indexes"] = [byname[name] for name, _, _, _ in INDEXES]
    admin.execute("DROP DATABASE tpcc_base")
    admin.execute("DROP DATABASE IF EXISTS tpcc_csvgen")
    opts = None
    if getattr(a, "tpcc_disk_resident", False):
        opts = disk_resident_opts(a, out["btree_total_index_bytes"], out, problems)
        if opts:
            admin.close()
            restart_server(a, opts)
            admin = connect("postgres")
    for rep in range(a.tpcc_reps):
        # rotate the order, so no schema always runs first (warm-up) or last
        k = rep % len(sides)
        for side in sides[k:] + sides[:k]:
            cmd = [gotpc, "tpcc", "run"] + common + ["-D", "tpcc_" + side, "--warehouses", str(a.tpcc_wh),
                                                     "-T", str(a.tpcc_threads), "--time", "%ds" % a.tpcc_secs]
            if a.srv_cpus_all:
                cmd = ["taskset", "-c", a.srv_cpus_all] + cmd
            r = subprocess.run(cmd, capture_output=True, text=True)
            with open(os.path.join(raw, "tpcc_%s_%d.log" % (side, rep)), "w") as fh:
                fh.write(r.stdout + r.stderr)
            res = parse_run(r.stdout)
            res.update({"side": side, "rep": rep, "rc": r.returncode})
            if r.returncode != 0 or res.get("tpmC") is None:
                problems.append("TPC-C run on %s failed (rc %d): %s" % (side, r.returncode,
                                                                      (r.stderr or r.stdout)[-400:]))
            errs = re.findall(r"(?im)^.*(?:error|panic).*$", r.stdout + r.stderr)
            if errs:
                res["errors"] = len(errs)
                res["first_error"] = errs[0][:300]
            out["runs"].append(res)
            log("TPC-C %s rep %d: tpmC %s, NEW_ORDER p99 %s ms" % (side, rep, res.get("tpmC"),
                                                                 res.get("NEW_ORDER_p99_ms")))
    if opts:
        admin.close()
        restart_server(a)
        admin = connect("postgres")
    for side in sides:
        c = connect("tpcc_" + side)
        out["%s_total_index_bytes_after" % side] = c.execute(
            "SELECT sum(pg_relation_size(indexrelid)) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'").fetchone()[0]
        # the learned indexes must answer like a seq scan after the run's inserts and deletes
        for ix in out["indexes"]:
            if ix.get("am_" + side, "btree") == "btree":
                continue
            col = ix["columns"].split(",")[0]
            got = {}
            for mode in ("idx", "seq"):
                c.execute("SET enable_seqscan = %s" % ("off" if mode == "idx" else "on"))
                c.execute("SET enable_indexscan = %s" % ("on" if mode == "idx" else "off"))
                c.execute("SET enable_indexonlyscan = %s" % ("on" if mode == "idx" else "off"))
                c.execute("SET enable_bitmapscan = %s" % ("on" if mode == "idx" else "off"))
                got[mode] = c.execute("SELECT count(*), sum(%s::numeric) FROM %s WHERE %s >= -2147483648"
                                      % (col, ix["table"], col)).fetchone()
            c.execute("RESET ALL")
            ix["check_" + side] = "ok" if got["idx"] == got["seq"] else "MISMATCH %s vs %s" % (got["idx"],
                                                                                             got["seq"])
            if got["idx"] != got["seq"]:
                problems.append("TPC-C %s: %s after the run: index %s != seq scan %s" % (
                    side, ix["name"], got["idx"], got["seq"]))
        c.close()
    for side in sides:
        tp = [x["tpmC"] for x in out["runs"] if x["side"] == side and x.get("tpmC")]
        p99 = [x.get("NEW_ORDER_p99_ms") for x in out["runs"] if x["side"] == side and x.get("NEW_ORDER_p99_ms")]
        out[side + "_tpmC"] = statistics.median(tp) if tp else None
        out[side + "_tpmC_all"] = tp
        out[side + "_neworder_p99_ms"] = statistics.median(p99) if p99 else None
    for side in sides:
        admin.execute("DROP DATABASE IF EXISTS tpcc_%s" % side)
    admin.close()
    return out


def run_pgbench_s(a, raw, problems):
    """pgbench's own -S (select-only): pgbench_accounts(aid) by its primary-key btree vs by a
    learned index (the table initialised without the 'p' step)."""
    pgbench = os.path.join(a.pgbin, "pgbench")
    out = {"scale": a.pgbs_scale, "secs": a.pgb_secs_s, "reps": a.pgbs_reps, "runs": []}
    admin = connect("postgres")
    for side in ("btree", "learned"):
        db = "pgb_" + side
        admin.execute("DROP DATABASE IF EXISTS %s" % db)
        admin.execute("CREATE DATABASE %s" % db)
        steps = "dtgvp" if side == "btree" else "dtgv"
        r = subprocess.run([pgbench, "-i", "-q", "-s", str(a.pgbs_scale), "-I", steps, db], capture_output=True,
                           text=True)
        if r.returncode != 0:
            problems.append("pgbench -i (%s) failed: %s" % (side, r.stderr[-300:]))
            return out
        c = connect(db)
        if side == "learned":
            if a.learned_am == "learned":
                c.execute("CREATE EXTENSION IF NOT EXISTS learned_idx")
            c.execute("CREATE INDEX pgbench_accounts_aid_learned ON pgbench_accounts USING %s (aid)" % a.learned_am)
        out[side + "_index_bytes"] = c.execute(
            "SELECT pg_relation_size(indexrelid) FROM pg_index WHERE indrelid = 'pgbench_accounts'::regclass"
        ).fetchone()[0]
        c.execute("VACUUM ANALYZE pgbench_accounts")
        c.execute("SELECT pg_prewarm(i.indexrelid::regclass) FROM pg_index i WHERE indrelid = "
                  "'pgbench_accounts'::regclass") if c.execute(
            "SELECT 1 FROM pg_extension WHERE extname = 'pg_prewarm'").fetchone() else None
        c.close()
    for rep in range(a.pgbs_reps):
        for side in (("btree", "learned") if rep % 2 == 0 else ("learned", "btree")):
            for clients, pin in ((1, a.srv_cpu), (2, a.srv_cpus_all)):
                cmd = ([] if not pin else ["taskset", "-c", pin]) + [
                    pgbench, "-n", "-S", "-M", "prepared", "-c", str(clients), "-j", str(clients), "-T",
                    str(a.pgb_secs_s), "pgb_" + side]
                if clients == 2 and a.srv_cpus_all:
                    a.set_affinity(a.srv_cpus_all)
                r = subprocess.run(cmd, capture_output=True, text=True)
                if clients == 2 and a.srv_cpus_all:
                    a.set_affinity(a.srv_cpu)
                m = re.search(r"tps = ([0-9.]+) \(without", r.stdout)
                out["runs"].append({"side": side, "clients": clients, "rep": rep,
                                    "tps": float(m.group(1)) if m else None})
                if not m:
                    problems.append("pgbench -S on %s failed: %s" % (side, (r.stderr or r.stdout)[-300:]))
    for side in ("btree", "learned"):
        for clients in (1, 2):
            t = [x["tps"] for x in out["runs"] if x["side"] == side and x["clients"] == clients and x["tps"]]
            out["%s_c%d_tps" % (side, clients)] = statistics.median(t) if t else None
            out["%s_c%d_tps_all" % (side, clients)] = t
    # correctness: sum over a range of aids through the learned index == through the btree
    sums = {}
    for side in ("btree", "learned"):
        c = connect("pgb_" + side)
        c.execute("SET enable_seqscan = off")
        c.execute("SET enable_bitmapscan = off")
        sums[side] = c.execute("SELECT count(*), sum(abalance) FROM pgbench_accounts WHERE aid BETWEEN 1000 AND "
                               "50000").fetchone()
        c.close()
        admin.execute("DROP DATABASE IF EXISTS pgb_%s" % side)
    if sums["btree"] != sums["learned"]:
        problems.append("pgbench -S: learned range %s != btree %s" % (sums["learned"], sums["btree"]))
    admin.close()
    log("pgbench -S: c1 btree %s / learned %s; c2 btree %s / learned %s" % (
        out.get("btree_c1_tps"), out.get("learned_c1_tps"), out.get("btree_c2_tps"), out.get("learned_c2_tps")))
    return out
