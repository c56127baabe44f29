"""Variable-width and composite keys (issue #6): learned vs btree on text, uuid, numeric and a
3-column TPC-C-shaped key (run through `bash bench/run.sh --keys`, which sets PGHOST/PGPORT).

For every dataset: load t_<ds> (btree side) and its identical copy t_<ds>_l (learned side),
build both indexes (interleaved, median of --builds), and measure with the suite's own
machinery (bench.Bench.measure_group: server-side nested-loop probe loops, interleaved timed
runs, median of --reps, index buffers per lookup from pg_statio, plan and answer checks):

  lookup  existing keys, heap fetch (count and sum of v)
  ios     the same probes, index-only (count only)
  range   100-row ranges (tpcc3: 100 consecutive orders of one district)

Keys are distinct and v is the key's rank in the index order, computed by the server
(row_number() OVER (ORDER BY key columns), so under the column's own collation); probes,
range ends and their expected answers are derived from ranks, so the ground truth holds for
any collation.  Absent keys (made from existing ones, checked absent with an anti-join) must
return no row.

A dataset whose learned index cannot be created because the type has no learned operator
class (SQLSTATE 42704) or the AM refuses it (0A000) is reported as "unsupported" (btree is
still measured); the run goes on, so the harness gives full numbers once text keys land.
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench as B             # noqa: E402
import report as R            # noqa: E402
import report_keys            # noqa: E402
import pgdb                   # noqa: E402

UNSUPPORTED_SQLSTATES = ("42704", "0A000")
RANGE_SPAN = 100

# ---------------------------------------------------------------------------- generators
# Each returns (columns, raw_distinct): columns is a list of per-column lists of COPY text
# values, all rows distinct, in generation order; raw_distinct is the distinct fraction of
# the generator's raw output before duplicates were dropped (1.0 when distinct by design).

_ONSETS = ("", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
           "bl", "br", "ch", "cl", "cr", "dr", "fl", "fr", "gr", "pl", "pr", "sh", "sl", "st", "str", "th", "tr")
_NUCLEI = ("a", "e", "i", "o", "u", "a", "e", "i", "o", "ea", "ee", "ai", "ou", "oo", "y")
_CODAS = ("", "", "", "n", "r", "s", "t", "l", "m", "d", "ng", "st", "nd", "ck", "x")


def _syllables():
    return [o + n + c for o in _ONSETS for n in _NUCLEI for c in _CODAS]


def _oversample(make, rng, n):
    """The first n distinct values (generation order kept) of make(rng, m), with m growing
    until there are n; and the distinct fraction of that last raw sample."""
    m = int(n * 1.1) + 1000
    while True:
        cands = make(rng, m)
        u = dict.fromkeys(cands)            # ordered, one copy of the distinct values
        raw = len(u) / len(cands)
        if len(u) >= n:
            del cands
            return list(u)[:n], raw
        m = int(m * 1.5)


def _words_raw(rng, m, lo=4, hi=12):
    """m English-like lowercase words of lo..hi letters: 2-4 syllables (onset, vowel, coda)."""
    syl = _syllables()
    out = []
    while len(out) < m:
        k = rng.choice([2, 3, 4], size=m, p=[0.35, 0.45, 0.20]).tolist()
        idx = rng.integers(0, len(syl), (m, 4)).tolist()
        words = ["".join([syl[j] for j in row[:ki]]) for row, ki in zip(idx, k)]
        out += [w for w in words if lo <= len(w) <= hi]
    return out[:m]


def gen_words(rng, n):
    words, raw = _oversample(_words_raw, rng, n)
    return [words], raw


_ACCENT = {"a": "á", "e": "é", "i": "í", "o": "ö", "u": "ü"}


def gen_words_mixed(rng, n):
    """The words generator's output with 30% of the words Capitalised and 10% with their first
    vowel accented (á é í ö ü): under an ICU collation case and accents are minor differences,
    so the index order is not the byte order (it is for plain lowercase ASCII words)."""
    (words,), raw = gen_words(rng, n)
    cap = (rng.random(n) < 0.3).tolist()
    acc = (rng.random(n) < 0.1).tolist()
    out = []
    for w, c, a in zip(words, cap, acc):
        if a:
            i = next((j for j, ch in enumerate(w) if ch in _ACCENT), None)
            if i is not None:
                w = w[:i] + _ACCENT[w[i]] + w[i + 1:]
        out.append(w.capitalize() if c else w)
    return [out], raw                      # distinct: both changes are one-to-one


_HOSTS = ("https://www.shop-example.com", "https://en.wiki-example.org", "https://api.cloud-example.io",
          "http://blog.example.net", "https://cdn.static-example.com/assets", "https://docs.example.dev")
_HOST_P = (0.35, 0.25, 0.15, 0.1, 0.1, 0.05)


def _urls_raw(rng, m):
    """host / section / category / item-name / numeric id[.html]: a few hosts, long shared
    prefixes (30 sections, 300 categories, 3000 item names), 40..100 characters."""
    vocab = _words_raw(np.random.default_rng(4242), 3300, 3, 10)
    l1, l2, l3 = vocab[:30], vocab[30:330], vocab[330:3330]
    out = []
    while len(out) < m:
        h = rng.choice(len(_HOSTS), size=m, p=_HOST_P)
        a = rng.integers(0, len(l1), m)
        b = rng.integers(0, len(l2), m)
        c = rng.integers(0, len(l3), m)
        ids = rng.integers(1, 10_000_000, m)
        html = rng.random(m) < 0.5
        urls = ["%s/%s/%s/%s-%d%s" % (_HOSTS[h[i]], l1[a[i]], l2[b[i]], l3[c[i]], ids[i],
                                      ".html" if html[i] else "") for i in range(m)]
        out += [u for u in urls if 40 <= len(u) <= 100]
    return out[:m]


def gen_urls(rng, n):
    urls, raw = _oversample(_urls_raw, rng, n)
    return [urls], raw


def _uuid_text(hi, lo):
    return ["%08x-%04x-%04x-%04x-%012x" % (h >> 32, (h >> 16) & 0xFFFF, h & 0xFFFF, lw >> 48, lw & 0xFFFFFFFFFFFF)
            for h, lw in zip(hi.tolist(), lo.tolist())]


def _uuid_v4_raw(rng, m):
    hi = rng.integers(0, 1 << 64, m, dtype=np.uint64, endpoint=False)
    lo = rng.integers(0, 1 << 64, m, dtype=np.uint64, endpoint=False)
    hi = (hi & np.uint64(0xFFFFFFFFFFFF0FFF)) | np.uint64(0x4000)          # version 4
    lo = (lo & np.uint64(0x3FFFFFFFFFFFFFFF)) | np.uint64(0x8000000000000000)  # variant 10
    return _uuid_text(hi, lo)


def _uuid_v7_raw(rng, m):
    """RFC 9562 v7: 48-bit Unix ms timestamp (from 2026-01-01, about one key per ms,
    exponential gaps), version 7, 12 random bits, variant 10, 62 random bits."""
    ts = np.uint64(1767225600000) + np.floor(np.cumsum(rng.exponential(1.0, m))).astype(np.uint64)
    ra = rng.integers(0, 1 << 12, m, dtype=np.uint64)
    lo = rng.integers(0, 1 << 64, m, dtype=np.uint64, endpoint=False)
    hi = (ts << np.uint64(16)) | np.uint64(0x7000) | ra
    lo = (lo & np.uint64(0x3FFFFFFFFFFFFFFF)) | np.uint64(0x8000000000000000)
    return _uuid_text(hi, lo)


def gen_uuid_v4(rng, n):
    u, raw = _oversample(_uuid_v4_raw, rng, n)
    return [u], raw


def gen_uuid_v7(rng, n):
    u, raw = _oversample(_uuid_v7_raw, rng, n)
    return [u], raw


def tpcc3_shape(n):
    """(warehouses, districts, orders per district): 100 x 10 x 3000 from n >= 3M, fewer
    warehouses (then fewer orders) below."""
    w = max(1, min(100, n // 30000))
    return w, 10, max(RANGE_SPAN, min(3000, n // (10 * w)))


def gen_tpcc3(rng, n):
    w, d, o = tpcc3_shape(n)
    g = np.stack(np.meshgrid(np.arange(1, w + 1), np.arange(1, d + 1), np.arange(1, o + 1), indexing="ij"),
                 axis=-1).reshape(-1, 3)
    return [g[:, 0].tolist(), g[:, 1].tolist(), g[:, 2].tolist()], 1.0


def gen_numeric(rng, n):
    """Prices with 2 decimals, distinct by construction: cumulative sum of lognormal gaps in
    cents, gap = 1 + floor(10*exp(1.5*N(0,1))) (0.01 .. about 3 * 10^4 * n / 10^6 in units)."""
    gaps = 1 + np.floor(10.0 * np.exp(1.5 * rng.standard_normal(n))).astype(np.int64)
    cents = np.cumsum(gaps)
    return [["%d.%02d" % (c // 100, c % 100) for c in cents.tolist()]], 1.0


# ---------------------------------------------------------------------------- datasets

def _single(name, typ, gen, seed, desc, target, miss):
    return {"name": name, "cols": [("k", typ)], "gen": gen, "seed": seed, "description": desc,
            "size_target": target, "miss": miss, "range_cond": "t.k >= r.lo_k AND t.k <= r.hi_k"}


DATASETS = {
    "words": _single("words", 'text COLLATE "C"', gen_words, 601,
                     "English-like words, 2-4 syllables (onset + vowel + coda), 4..12 lowercase letters, "
                     "distinct (first n distinct of the generator)", 0.8, ["k || '#'", "'#' || k"]),
    "urls": _single("urls", 'text COLLATE "C"', gen_urls, 602,
                    "URLs, 40..100 chars: 6 hosts (skewed), /section(30)/category(300)/item(3000)-id[.html], "
                    "long shared prefixes", 0.8, ["k || '#'", "substr(k, 1, 30) || '#'"]),
    "uuid_v4": _single("uuid_v4", "uuid", gen_uuid_v4, 603, "random uuid v4 (seeded numpy generator)", None,
                       ["md5(k::text)::uuid"]),
    "uuid_v7": _single("uuid_v7", "uuid", gen_uuid_v7, 604,
                       "uuid v7: 48-bit ms timestamp increasing (~1 key/ms) + 74 random bits", 0.6,
                       ["md5(k::text)::uuid"]),
    "tpcc3": {"name": "tpcc3", "cols": [("w_id", "int4"), ("d_id", "int4"), ("o_id", "int4")], "gen": gen_tpcc3,
              "seed": 605, "description": "TPC-C orders key (w_id, d_id, o_id): W x 10 x O grid",
              "size_target": 0.6, "miss": ["w_id, d_id, o_id + {o}", "w_id, d_id, 0", "w_id + {w}, d_id, o_id"],
              "range_cond": "t.w_id = r.lo_w_id AND t.d_id = r.lo_d_id AND t.o_id >= r.lo_o_id "
                            "AND t.o_id <= r.hi_o_id"},
    "words_icu": _single("words_icu", 'text COLLATE "und-x-icu"', gen_words_mixed, 601,
                         "the words, 30% Capitalised and 10% with an accented vowel, under the ICU root "
                         "collation und-x-icu (index order is not byte order)", 0.8, ["k || '#'", "'#' || k"]),
    "numeric": _single("numeric", "numeric", gen_numeric, 607,
                       "prices with 2 decimals: cumulative sum of lognormal gaps in cents, "
                       "gap = 1 + floor(10*exp(1.5*N(0,1)))", None,
                       ["k + 0.001", "-k"]),
}
QUICK_DATASETS = ("words", "urls", "uuid_v4", "uuid_v7", "tpcc3", "words_icu", "numeric")
LOOKUP_TARGET = 1.0


def log(msg):
    print("[keys %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


class KeysBench(B.Bench):
    def __init__(self, args):
        super().__init__(args)
        self.specs = {}

    def index_columns(self, name):
        return ", ".join(c for c, _ in DATASETS[name]["cols"])

    def coldefs(self, name, prefix=""):
        return ", ".join("%s%s %s" % (prefix, c, t) for c, t in DATASETS[name]["cols"])

    def rank_cols(self, name, alias, prefix=""):
        return ", ".join("%s.%s AS %s%s" % (alias, c, prefix, c) for c, _ in DATASETS[name]["cols"])

    def join_cond(self, name, a="t", b="p"):
        return " AND ".join("%s.%s = %s.%s" % (a, c, b, c) for c, _ in DATASETS[name]["cols"])

    # ------------------------------------------------------------- load
    def load(self, name):
        """t_<name>(key columns, v = rank) and its copy t_<name>_l, probe_/range_/miss_ tables.
        Returns the expected (count, sum(v)) of the lookup, index-only and range loops."""
        a, db, spec = self.a, self.db, DATASETS[name]
        cols = self.index_columns(name)
        t0 = time.time()
        rng = np.random.default_rng(spec["seed"])
        columns, raw_distinct = spec["gen"](rng, a.n)
        n = len(columns[0])
        tgen = time.time() - t0
        self.drop_tables(name)
        db.q("DROP TABLE IF EXISTS stage_%s, pr_%s, rr_%s" % (name, name, name))
        t0 = time.time()
        db.q("CREATE TABLE stage_%s (%s) WITH (autovacuum_enabled = false)" % (name, self.coldefs(name)))
        with db.conn.cursor() as cur:
            with cur.copy("COPY stage_%s FROM STDIN" % name) as cp:
                step = 200_000
                for s in range(0, n, step):
                    cp.write("".join("\t".join(map(str, row)) + "\n"
                                     for row in zip(*(c[s:s + step] for c in columns))))
        del columns
        heap_order = "hashint8(v), v" if a.heap_order == "random" else "v"
        for t in ("t_" + name, "t_%s_l" % name):
            db.q("CREATE TABLE %s (%s, v int8) WITH (autovacuum_enabled = false)" % (t, self.coldefs(name)))
        # v = rank in the index order under the columns' collation; heap order from a hash of v
        db.q("INSERT INTO t_%s SELECT * FROM (SELECT %s, row_number() OVER (ORDER BY %s) - 1 AS v "
             "FROM stage_%s) s ORDER BY %s" % (name, cols, cols, name, heap_order))
        db.q("INSERT INTO t_%s_l SELECT * FROM t_%s" % (name, name))     # same physical order
        db.q("DROP TABLE stage_%s" % name)
        self.visibility[name] = db.vacuum_frozen("t_" + name, "t_%s_l" % name)
        tload = time.time() - t0

        # probes: random ranks with replacement, in random order
        prng = np.random.default_rng(spec["seed"] + 1000)
        pidx = prng.integers(0, n, a.probes)
        db.q("CREATE TABLE pr_%s (i int8, r int8)" % name)
        db.copy_in("pr_" + name, [np.arange(a.probes, dtype=np.int64), pidx.astype(np.int64)])
        db.q("CREATE TABLE probe_%s (%s) WITH (autovacuum_enabled = false)" % (name, self.coldefs(name)))
        db.q("INSERT INTO probe_%s SELECT %s FROM pr_%s p JOIN t_%s t ON t.v = p.r ORDER BY p.i"
             % (name, self.rank_cols(name, "t"), name, name))
        exp_lookup = (int(a.probes), int(pidx.sum()))
        exp_ios = (int(a.probes), int(a.probes))
        # ranges: RANGE_SPAN consecutive ranks (tpcc3: inside one district)
        if name == "tpcc3":
            w, d, o = tpcc3_shape(a.n)
            ridx = (prng.integers(0, w * d, a.ranges) * o + prng.integers(0, o - RANGE_SPAN + 1, a.ranges))
        else:
            ridx = prng.integers(0, n - RANGE_SPAN + 1, a.ranges)
        db.q("CREATE TABLE rr_%s (i int8, r int8)" % name)
        db.copy_in("rr_" + name, [np.arange(a.ranges, dtype=np.int64), ridx.astype(np.int64)])
        db.q("CREATE TABLE range_%s (%s, %s) WITH (autovacuum_enabled = false)"
             % (name, self.coldefs(name, "lo_"), self.coldefs(name, "hi_")))
        db.q("INSERT INTO range_%s SELECT %s, %s FROM rr_%s r JOIN t_%s a ON a.v = r.r JOIN t_%s b "
             "ON b.v = r.r + %d ORDER BY r.i" % (name, self.rank_cols(name, "a", "lo_"),
                                                  self.rank_cols(name, "b", "hi_"), name, name, name,
                                                  RANGE_SPAN - 1))
        exp_range = (RANGE_SPAN * a.ranges, int((RANGE_SPAN * ridx + RANGE_SPAN * (RANGE_SPAN - 1) // 2).sum()))
        # absent keys: made from existing ones, then anything present is removed
        db.q("CREATE TABLE miss_%s (%s) WITH (autovacuum_enabled = false)" % (name, self.coldefs(name)))
        w, d, o = tpcc3_shape(a.n)
        step = max(1, n // max(1, a.misses))
        for expr in spec["miss"]:
            db.q("INSERT INTO miss_%s SELECT %s FROM t_%s WHERE v %% %d = 0"
                 % (name, expr.format(w=w, d=d, o=o), name, step))
        db.q("DELETE FROM miss_%s p WHERE EXISTS (SELECT 1 FROM t_%s t WHERE %s)"
             % (name, name, self.join_cond(name)))
        db.q("DROP TABLE pr_%s, rr_%s" % (name, name))
        db.vacuum_frozen("probe_" + name, "range_" + name, "miss_" + name)
        db.q("CHECKPOINT")

        heap_bytes = db.q1("SELECT pg_relation_size(%s)", ("t_" + name,))[0]
        # smallest and largest key in index order = ranks 0 and n - 1
        st = db.dict1("SELECT (SELECT (%s)::text FROM t_%s WHERE v = 0) AS min, "
                      "(SELECT (%s)::text FROM t_%s WHERE v = %d) AS max, avg(%s)::float8 AS key_bytes, "
                      "count(DISTINCT (%s)) AS distinct FROM t_%s"
                      % (cols, name, cols, name, n - 1, " + ".join("pg_column_size(%s)" % c for c, _ in spec["cols"]),
                         cols, name))
        nmiss = db.q1("SELECT count(*) FROM miss_%s" % name)[0]
        self.datasets_meta[name] = {
            "n": n, "gen_s": tgen, "load_s": tload, "heap_bytes": heap_bytes, "probes": int(a.probes),
            "ranges": int(a.ranges), "misses": int(nmiss), "description": spec["description"],
            "columns": self.coldefs(name), "raw_distinct": raw_distinct, "distinct": int(st["distinct"]),
            "min": st["min"], "max": st["max"], "key_bytes": st["key_bytes"],
            "size_target": spec["size_target"], "loadavg": "%.2f %.2f %.2f" % os.getloadavg(),
            "all_visible": {t: "%d/%d" % v for t, v in self.visibility[name].items()},
        }
        for t, (vis, pages) in self.visibility[name].items():
            if vis < pages:
                self.problem_simple(name, "data", "%s: only %d of %d heap pages all-visible after VACUUM "
                                    "(index-only scans fetch the heap there)" % (t, vis, pages))
        if name == "tpcc3":
            self.datasets_meta[name]["description"] += " = %d x %d x %d" % (w, d, o)
        if st["distinct"] != n:
            self.problem_simple(name, "data", "keys are not distinct (%d of %d)" % (st["distinct"], n))
        log("%s: %d rows generated in %.1fs (raw distinct %.4f), 2 tables loaded in %.1fs (heap %.1f MB each)"
            % (name, n, tgen, raw_distinct, tload, heap_bytes / 1e6))
        return exp_lookup, exp_ios, exp_range

    def drop_tables(self, name):
        super().drop_tables(name)
        self.db.q("DROP TABLE IF EXISTS stage_%s, pr_%s, rr_%s" % (name, name, name))

    def baseline(self, name):
        """Cost of scanning the probe table alone (the loop's outer side)."""
        db = self.db
        db.q("SELECT pg_prewarm(%s)", ("probe_" + name,))
        times = [db.timed("SELECT count(*) FROM probe_%s" % name)[0] for _ in range(self.a.reps)]
        return statistics.median(times) / self.a.probes * 1e6

    def unsupported(self, name, var):
        """The error message if the AM cannot index this key type at all (checked on a
        20-row copy in a rolled-back transaction), else None."""
        db = self.db
        with_ = ""
        if var.get("reloptions"):
            with_ = " WITH (%s)" % ", ".join("%s = %s" % kv for kv in var["reloptions"].items())
        db.q("BEGIN")
        try:
            db.q("CREATE TABLE kb_support (%s)" % self.coldefs(name))
            db.q("INSERT INTO kb_support SELECT %s FROM t_%s LIMIT 20" % (self.index_columns(name), name))
            db.q("CREATE INDEX ON kb_support USING %s (%s)%s" % (var["am"], self.index_columns(name), with_))
            return None
        except psycopg.Error as e:
            if e.sqlstate in UNSUPPORTED_SQLSTATES:
                return "%s (SQLSTATE %s)" % (" ".join(str(e).split()), e.sqlstate)
            return None        # anything else shows up (as an error) in the real build
        finally:
            db.q("ROLLBACK")

    # ------------------------------------------------------------- main loop
    def run(self):
        a, db = self.a, self.db
        db.q("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        db.q("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        if a.learned_am == "learned":
            db.q("CREATE EXTENSION IF NOT EXISTS learned_idx")
        self.machine = B.machine_info(db)
        bt, lvars = self.variants()
        t_start = time.time()
        for name in a.datasets:
            exp_lookup, exp_ios, exp_range = self.load(name)
            base_us = self.baseline(name)
            build_times, errors, unsup = {}, {}, {}
            for v in lvars:
                msg = self.unsupported(name, v)
                if msg:
                    unsup[v["label"]] = msg
                    log("%s/%s: unsupported: %s" % (name, v["label"], msg))
            built = [v for v in [bt] + lvars if v["label"] not in unsup]
            self.build_n(name, built, a.builds, build_times, errors)
            members = [(v, self.idx_for(name, v), self.table_for(name, v)) for v in built
                       if v["label"] not in errors]
            jc = self.join_cond(name)
            loops = [
                ("lookup", a.probes, exp_lookup,
                 "SELECT count(*), coalesce(sum(t.v), 0) FROM probe_%s p JOIN {t} t ON %s" % (name, jc)),
                ("ios", a.probes, exp_ios, "SELECT count(*), count(*) FROM probe_%s p JOIN {t} t ON %s" % (name, jc)),
                ("range", a.ranges, exp_range, "SELECT count(*), coalesce(sum(t.v), 0) FROM range_%s r JOIN {t} t "
                 "ON %s" % (name, DATASETS[name]["range_cond"])),
            ]
            miss_sql = "SELECT count(*) FROM miss_%s p JOIN {t} t ON %s" % (name, jc)
            res = self.measure_group(name, members, exp_lookup, exp_range, loops, miss_sql) if members else {}
            for v in [bt] + lvars:
                row = self.make_row(name, v, base_us, build_times, errors, res.get(v["label"]))
                row["unsupported"] = unsup.get(v["label"], "")
                row["ios_is_index_only"] = ("Index Only Scan" in (row.get("ios_plan") or "")) \
                    if row.get("ios_plan") else ""
                self.db.q("DROP INDEX IF EXISTS %s" % self.idx_for(name, v))
            self.drop_tables(name)
            self.write()                              # partial results after every dataset
        self.elapsed = time.time() - t_start
        self.write()

    def write(self):
        out = self.a.out
        B.write_csv(os.path.join(out, "results.csv"), self.rows)
        meta = {
            "command": self.a.cmd, "mode": "keys", "size_mode": self.a.size_mode, "n": self.a.n,
            "probes": self.a.probes, "ranges": self.a.ranges, "reps": self.a.reps, "builds": self.a.builds,
            "heap_order": self.a.heap_order, "learned_am": self.a.learned_am,
            "learned_with": self.a.learned_with_opts, "datasets": self.datasets_meta, "machine": self.machine,
            "problems": self.problems, "elapsed_s": getattr(self, "elapsed", None),
            "server_pin": self.a.server_pin, "client_pin": self.a.client_pin,
            "finished": time.strftime("%Y-%m-%d %H:%M:%S"), "lookup_target": LOOKUP_TARGET,
            "range_span": RANGE_SPAN, "loadavg_end": "%.2f %.2f %.2f" % os.getloadavg(),
        }
        with open(os.path.join(out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1, default=str)
        R.write_report(out, copy_to=self.a.copy_to, body=report_keys.write_keys)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", dest="size_mode", action="store_const", const="quick")
    g.add_argument("--full", dest="size_mode", action="store_const", const="full")
    g.add_argument("--smoke", dest="size_mode", action="store_const", const="smoke")
    p.set_defaults(size_mode="quick")
    p.add_argument("--n", type=int, help="rows per dataset (tpcc3: at most 100 x 10 x 3000)")
    p.add_argument("--datasets", default=",".join(QUICK_DATASETS))
    p.add_argument("--probes", type=int)
    p.add_argument("--ranges", type=int)
    p.add_argument("--misses", type=int, default=2000, help="absent keys made per recipe")
    p.add_argument("--reps", type=int)
    p.add_argument("--builds", type=int)
    p.add_argument("--heap-order", choices=("random", "sorted"), default="random")
    p.add_argument("--learned-am", default="learned")
    p.add_argument("--learned-with", default="", help="reloptions of the learned indexes, e.g. 'error_bound=64'")
    p.add_argument("--out", required=True)
    p.add_argument("--cmd", default="")
    p.add_argument("--copy-to", default="")
    p.add_argument("--server-pin", default="none")
    p.add_argument("--client-pin", default="none")
    a = p.parse_args()
    smoke, full = a.size_mode == "smoke", a.size_mode == "full"
    a.n = a.n or (10_000_000 if full else 20_000 if smoke else 1_000_000)
    a.probes = a.probes or (300_000 if full else 2_000 if smoke else 100_000)
    a.ranges = a.ranges or (10_000 if full else 200 if smoke else 10_000)
    a.reps = a.reps or (1 if smoke else 3 if full else 5)
    a.builds = a.builds or (1 if smoke else 2 if full else 3)
    if a.n < 2 * RANGE_SPAN * 10:
        p.error("--n must be >= %d" % (2 * RANGE_SPAN * 10))
    a.datasets = [d for d in a.datasets.split(",") if d]
    for d in a.datasets:
        if d not in DATASETS:
            p.error("unknown dataset %s (known: %s)" % (d, ", ".join(DATASETS)))
    try:
        a.learned_with_opts = pgdb.parse_with(a.learned_with)
    except ValueError as e:
        p.error("--learned-with: %s" % e)
    a.sweep_eps = False                    # Bench.variants: one btree, one learned variant
    log("mode=%s n=%d probes=%d ranges=%d reps=%d builds=%d heap=%s learned_am=%s datasets=%s"
        % (a.size_mode, a.n, a.probes, a.ranges, a.reps, a.builds, a.heap_order, a.learned_am,
           ",".join(a.datasets)))
    b = KeysBench(a)
    b.run()
    if smoke and b.problems:
        log("smoke: %d problem(s)" % len(b.problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
