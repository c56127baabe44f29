"""Report + plots for the learned_idx benchmark.

    python bench/lib/report.py bench/results/<stamp> [--copy-to bench/RESULTS.md]

re-creates report.md and the PNGs from results.csv and meta.json.
"""

import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pgdb  # noqa: E402

TARGETS = [
    # key, label, limit, description
    ("size_ratio", "size <= 0.70x btree", 0.70),
    ("build_ratio", "build <= 1.2x btree", 1.2),
    ("lookup_ratio", "lookup <= 0.95x btree", 0.95),
    ("bufs_per_lookup", "<= 2.2 index buffers/lookup", 2.2),
    ("dir_ratio", "directory <= 25% of btree inner", 0.25),
]
COLORS = {"btree": "#4C72B0", "learned": "#DD8452"}


def num(x):
    if x is None or x == "":
        return None
    if isinstance(x, (int, float)):
        return x
    try:
        f = float(x)
        return int(f) if f.is_integer() and "." not in str(x) and "e" not in str(x).lower() else f
    except ValueError:
        return x


def load(out):
    with open(os.path.join(out, "results.csv")) as f:
        rows = [{k: num(v) for k, v in r.items()} for r in csv.DictReader(f)]
    with open(os.path.join(out, "meta.json")) as f:
        meta = json.load(f)
    return rows, meta


def short_summary(r):
    if r.get("error"):
        return "ERROR " + str(r["error"])[:200]
    parts = []
    if r.get("index_bytes") is not None:
        parts.append("size %.2f MB" % (r["index_bytes"] / 1e6))
    if r.get("build_s") is not None:
        parts.append("build %.2fs" % r["build_s"])
    if r.get("lookup_us") is not None:
        parts.append("lookup %.2f us" % r["lookup_us"])
    if r.get("lookup_bufs_idx") is not None:
        parts.append("idx bufs %.2f" % r["lookup_bufs_idx"])
    if r.get("range_us") is not None:
        parts.append("range100 %.1f us" % r["range_us"])
    if r.get("li_segments") is not None:
        parts.append("segments %s pieces %s eps %s" % (r.get("li_segments"), r.get("li_pieces"),
                                                       r.get("li_error_bound")))
    return ", ".join(parts)


def f(x, fmt="%.2f", none="–"):
    if x is None or x == "":
        return none
    try:
        return fmt % x
    except TypeError:
        return str(x)


def ratio(a, b):
    if a is None or b in (None, 0, ""):
        return None
    return a / b


def pair_metrics(bt, le):
    """Learned-vs-btree numbers for one dataset."""
    m = {}
    m["size_ratio"] = ratio(le.get("index_bytes"), bt.get("index_bytes"))
    m["build_ratio"] = ratio(le.get("build_s"), bt.get("build_s"))
    m["lookup_ratio"] = ratio(le.get("lookup_us"), bt.get("lookup_us"))
    m["range_ratio"] = ratio(le.get("range_us"), bt.get("range_us"))
    m["bufs_per_lookup"] = le.get("lookup_bufs_idx")
    m["dir_ratio"] = ratio(le.get("inner_bytes"), bt.get("inner_bytes"))
    return m


def verdict(v, limit):
    if v is None:
        return "n/a"
    return "pass" if v <= limit else "**miss**"


# ---------------------------------------------------------------------------- plots

def bar_plot(out, fname, title, ylabel, datasets, series, logy=False, hlines=()):
    """series: list of (label, [values per dataset]); a string value is written in place of
    its (empty) bar, e.g. "unsupported"; hlines: [(y, label)] drawn as dashed lines."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for y, label in hlines:
        ax.axhline(y, ls="--", lw=0.8, color="gray")
        ax.annotate(label, (len(datasets) - 0.5, y), ha="right", va="bottom", fontsize=7, color="gray")
    w = 0.8 / max(1, len(series))
    for i, (label, vals) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * w for j in range(len(datasets))]
        ys = [v if isinstance(v, (int, float)) else 0 for v in vals]
        bars = ax.bar(xs, ys, w, label=label, color=COLORS.get(label))
        for b, v in zip(bars, vals):
            if isinstance(v, (int, float)):
                ax.annotate(("%.3g" % v), (b.get_x() + b.get_width() / 2, b.get_height()),
                            ha="center", va="bottom", fontsize=7)
            elif isinstance(v, str):
                ax.annotate(v, (b.get_x() + b.get_width() / 2, 0), ha="center", va="bottom", fontsize=7,
                            rotation=90)
    ax.set_xticks(range(len(datasets)))
    ax.set_xticklabels(datasets)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if logy:
        ax.set_yscale("log")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, fname), dpi=110)
    plt.close(fig)
    return fname


def line_plot(out, fname, title, ylabel, by_ds, ref=None, logy=False):
    """by_ds: {dataset: [(eps, value)]}, ref: {dataset: btree value} drawn dashed."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for i, (ds, pts) in enumerate(by_ds.items()):
        pts = [(e, v) for e, v in pts if isinstance(v, (int, float))]
        if not pts:
            continue
        line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=ds)
        if ref and isinstance(ref.get(ds), (int, float)):
            ax.axhline(ref[ds], ls="--", lw=0.8, color=line.get_color())
    ax.set_xscale("log", base=2)
    ax.set_xlabel("error_bound (dashed: btree)" if ref else "error_bound")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if logy:
        ax.set_yscale("log")
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, fname), dpi=110)
    plt.close(fig)
    return fname


# ---------------------------------------------------------------------------- markdown

def header(meta, title):
    m = meta["machine"]
    L = ["# %s" % title, ""]
    L.append("Finished %s; %s mode, n = %s rows per dataset%s." % (
        meta.get("finished"), meta.get("size_mode"), "{:,}".format(meta["n"]),
        "; wall time %.1f min" % (meta["elapsed_s"] / 60) if meta.get("elapsed_s") else " (partial)"))
    L.append("")
    L.append("Command: `%s`" % meta.get("command", ""))
    L.append("")
    if m.get("assertions") == "on":
        L.append(pgdb.ASSERTIONS_WARNING)
        L.append("")
    if meta.get("learned_am") != "learned":
        L.append("> **HARNESS TEST RUN: the \"learned\" column is access method `%s`, not the learned index.**"
                 % meta.get("learned_am"))
        L.append("")
    lw = meta.get("learned_with") or {}
    L.append("Learned indexes built `WITH (%s)`; every other reloption at its default (see README)."
             % ", ".join("%s = %s" % kv for kv in sorted(lw.items())) if lw else
             "Learned indexes built with every reloption at its default (see README).")
    L.append("")
    L.append("## Machine")
    L.append("")
    L.append("| nproc | memory | CPU | kernel | OS | PostgreSQL | Python / numpy | repo HEAD |")
    L.append("|---|---|---|---|---|---|---|---|")
    L.append("| %s | %s | %s | %s | %s | %s | %s / %s | %s (%s uncommitted files in src/, sql/, Makefile) |" % (
        m["nproc"], m["memory"], m["cpu"], m["kernel"], m["os"], m["pg_version"].split(" on ")[0],
        m["python"], m["numpy"], m["git_head"], m["git_dirty_files"]))
    L.append("")
    s = m.get("settings", {})
    L.append("Throwaway cluster (initdb in a temp dir, unix socket only): " + ", ".join(
        "%s=%s" % (k, s[k]) for k in sorted(s)) + ". Server pinned with `%s`, driver with `%s`."
        % (meta.get("server_pin"), meta.get("client_pin")))
    L.append("")
    loads = [d.get("loadavg") for d in meta.get("datasets", {}).values() if d.get("loadavg")]
    L.append("**Load caveat:** this 2-vCPU machine is shared with other jobs, so absolute numbers and single "
             "runs are noisy; compare learned with btree within a run (they are interleaved), and look at the "
             "min–max spreads. Load average (1/5/15 min)%s%s%s." % (
                 " at start: %s" % m["loadavg_start"] if m.get("loadavg_start") else "",
                 "; at each dataset: " + ", ".join(loads) if loads else "",
                 "; at the end: %s" % meta["loadavg_end"] if meta.get("loadavg_end") else " (not recorded)"))
    L.append("")
    return L


def method(meta):
    return [
        "## Method",
        "",
        "* Table `t_<dist>(k int8, v int8)`, v = rank of k, rows in **%s heap order**, `VACUUM (FREEZE, ANALYZE)` (after a CHECKPOINT, repeated until every heap page is all-visible, so index-only scans of both sides skip the heap) "
        "after loading (binary COPY from a seeded numpy generator). Keys are distinct except in wiki (~22%% "
        "duplicates); expected counts and sums account for them." % meta["heap_order"],
        "* Two identical tables per dataset, loaded from the same COPY stream: `t_<dist>` carries only the btree, "
        "`t_<dist>_l` only the learned index, so each table has exactly one index and the timed runs of the two "
        "can be interleaved (the order alternates every repetition) to cancel drifts in background load.",
        "* CREATE INDEX time is the median of %d build(s) (btree and learned interleaved, CHECKPOINT before "
        "each, max_parallel_maintenance_workers = 0, maintenance_work_mem = 1GB)." % meta["builds"],
        "* Lookups: %s random existing keys (with replacement, random order) in a probe table, joined with "
        "`enable_hashjoin/mergejoin/bitmapscan/memoize/material = off`, so the plan is Nested Loop -> "
        "Index Scan (plan checked). Table, index and probe table prewarmed with pg_prewarm; the loop is run "
        "once as warm-up, then %d timed runs; µs/lookup = median wall time / probes (includes the heap fetch "
        "and executor overhead; the bare probe-table scan is reported as \"loop overhead\")." % (
            "{:,}".format(meta["probes"]), meta["reps"]),
        "* Index buffers per lookup: `pg_statio_user_indexes` (idx_blks_hit + idx_blks_read) delta over one "
        "run / probes. \"node bufs\" = shared hits+reads of the inner Index Scan node in EXPLAIN (ANALYZE, "
        "BUFFERS) / loops, i.e. index + heap.",
        "* Range: %s scans of exactly 100 rows (`k BETWEEN lo AND hi` with lo/hi the 1st/100th key of a random "
        "run), same nested-loop form; µs per scan (heap order matters here: ~100 heap pages per scan with a "
        "random heap)." % "{:,}".format(meta["ranges"]),
        "* Correctness: count and sum(v) of the lookup and range loops are compared with the generator's "
        "ground truth (hence also learned vs btree), and joins against absent keys must return 0 rows.",
        "* btree inner bytes = `pgstatindex().internal_pages` * 8192 (root included); learned directory bytes = "
        "`learned_index_info().directory_pages` * 8192 (model_bytes + zonemap_bytes also shown, as model_bytes).",
        "",
    ]


def datasets_table(meta):
    L = ["## Datasets", "", "| dataset | rows | distinct keys | min key | max key | heap MB | recipe |",
         "|---|---|---|---|---|---|---|"]
    for ds, d in meta["datasets"].items():
        L.append("| %s | %s | %s | %d | %d | %.1f | %s |" % (ds, "{:,}".format(d["n"]), "{:,}".format(
            d["distinct"]) if d.get("distinct") else "–", d["min"], d["max"], d["heap_bytes"] / 1e6,
            d["description"]))
    L.append("")
    return L


def correctness(meta, rows):
    L = ["## Correctness", ""]
    probs = meta.get("problems") or []
    if probs:
        L.append("**!!! %d PROBLEM(S) — RESULTS BELOW ARE NOT TRUSTWORTHY WHERE FLAGGED !!!**" % len(probs))
        L.append("")
        for p in probs:
            L.append("* **%s**" % " ".join(str(p).split()))
    else:
        L.append("All checks passed: lookup and range counts/sums equal the ground truth for every index "
                 "(so learned == btree), absent keys return 0 rows, every plan was Nested Loop -> Index Scan.")
    L.append("")
    L.append("| dataset | variant | lookup rows | range rows | absent-key rows | error |")
    L.append("|---|---|---|---|---|---|")
    for r in rows:
        L.append("| %s | %s | %s | %s | %s | %s |" % (r["dataset"], r["variant"], f(r.get("lookup_count"), "%d"),
                                                   f(r.get("range_count"), "%d"), f(r.get("miss_count"), "%d"),
                                                   " ".join(str(r.get("error") or "").split())[:200].replace("|", "/")))
    L.append("")
    return L


def metric_table(by, dss, title, unit, key, fmt, extra=None):
    """One markdown table of a measure: btree, learned and their ratio per dataset; extra =
    (column title, fn(btree row, learned row) -> cell) adds a column."""
    T = ["### %s" % title, "", "| dataset | btree %s | learned %s | learned / btree |%s" % (
        unit, unit, (" " + extra[0] + " |") if extra else ""),
         "|---|---|---|---|" + ("---|" if extra else "")]
    for ds in dss:
        bt, le = by[ds].get("btree", {}), by[ds].get("learned", {})
        T.append("| %s | %s | %s | %s |%s" % (ds, f(bt.get(key), fmt), f(le.get(key), fmt),
                                              f(ratio(le.get(key), bt.get(key)), "%.3f"),
                                              (" " + extra[1](bt, le) + " |") if extra else ""))
    T.append("")
    return T


def write_main(out, rows, meta):
    L = header(meta, "learned_idx benchmark: learned vs btree")
    by = {}
    for r in rows:
        by.setdefault(r["dataset"], {})[r["kind"]] = r
    dss = [d for d in meta["datasets"] if d in by]
    pm = {ds: pair_metrics(by[ds].get("btree", {}), by[ds].get("learned", {})) for ds in dss}

    import report_suite as RS
    H, SL = RS.suite_sections(out, rows, meta, by, dss)
    L += H
    # ---- summary first
    L.append("## Static-stage summary (issue #2): learned / btree and targets")
    L.append("")
    L.append("| dataset | size ratio | build ratio | lookup ratio | idx buffers/lookup (learned / btree) | "
             "directory / btree inner bytes | model_bytes / btree inner | range ratio |")
    L.append("|---|---|---|---|---|---|---|---|")
    for ds in dss:
        bt, le, m = by[ds].get("btree", {}), by[ds].get("learned", {}), pm[ds]
        L.append("| %s | %s | %s | %s | %s / %s | %s / %s = %s | %s / %s = %s | %s |" % (
            ds + (" **(ERROR, see Correctness)**" if le.get("error") or bt.get("error") else ""), f(m["size_ratio"], "%.3f"), f(m["build_ratio"], "%.2f"), f(m["lookup_ratio"], "%.3f"),
            f(le.get("lookup_bufs_idx")), f(bt.get("lookup_bufs_idx")),
            f(le.get("inner_bytes"), "%d"), f(bt.get("inner_bytes"), "%d"), f(m["dir_ratio"], "%.3f"),
            f(le.get("model_bytes"), "%d"), f(bt.get("inner_bytes"), "%d"),
            f(ratio(le.get("model_bytes"), bt.get("inner_bytes")), "%.3f"), f(m["range_ratio"], "%.3f")))
    L.append("")
    L.append("| dataset | " + " | ".join(t[1] for t in TARGETS) + " |")
    L.append("|---|" + "---|" * len(TARGETS))
    npass = ntot = 0
    for ds in dss:
        cells = []
        for key, _, lim in TARGETS:
            v = verdict(pm[ds][key], lim)
            npass += v == "pass"
            ntot += v != "n/a"
            cells.append("%s (%s)" % (v, f(pm[ds][key], "%.3g")))
        L.append("| %s | %s |" % (ds, " | ".join(cells)))
    L.append("")
    L.append("Targets met: **%d / %d** (a miss never fails the run)." % (npass, ntot))
    L.append("")
    L += correctness(meta, rows)

    L.append("## Results per metric")
    L.append("")
    for r in rows:
        if r.get("index_bytes") is not None:
            r["index_mb"] = r["index_bytes"] / 1048576
    L += metric_table(by, dss, "Index size (pg_relation_size)", "MiB", "index_mb", "%.2f",
                      ("bytes (btree / learned)", lambda b, l: "%s / %s" % (f(b.get("index_bytes"), "%d"),
                                                                            f(l.get("index_bytes"), "%d"))))
    L += metric_table(by, dss, "CREATE INDEX time (median)", "s", "build_s", "%.3f",
                      ("all builds s (btree ; learned)", lambda b, l: "%s ; %s" % (b.get("build_s_all", ""),
                                                                                  l.get("build_s_all", ""))))
    L += metric_table(by, dss, "Point lookup, µs per lookup (median of %d runs)" % meta["reps"], "µs", "lookup_us", "%.3f",
                      ("loop overhead µs / runs s (btree ; learned)",
                       lambda b, l: "%s / %s ; %s" % (f(b.get("loop_overhead_us"), "%.3f"), b.get("lookup_s_all", ""),
                                                      l.get("lookup_s_all", ""))))
    L += metric_table(by, dss, "Index buffers per lookup (pg_statio)", "bufs", "lookup_bufs_idx", "%.3f",
                      ("node bufs incl. heap (btree / learned)",
                       lambda b, l: "%s / %s" % (f(b.get("lookup_bufs_node"), "%.3f"),
                                                 f(l.get("lookup_bufs_node"), "%.3f"))))
    L += metric_table(by, dss, "100-row range scan, µs per scan", "µs", "range_us", "%.2f",
                      ("index bufs/scan (btree / learned)",
                       lambda b, l: "%s / %s" % (f(b.get("range_bufs_idx"), "%.2f"), f(l.get("range_bufs_idx"), "%.2f"))))
    L += metric_table(by, dss, "Inner bytes: btree internal pages vs learned directory pages", "bytes", "inner_bytes", "%d",
                      ("learned model_bytes / zonemap_bytes", lambda b, l: "%s / %s" % (
                          f(l.get("model_bytes"), "%d"), f(l.get("li_zonemap_bytes"), "%d"))))

    # learned structure
    L.append("### Learned index structure (`learned_index_info`)")
    L.append("")
    cols = ["error_bound", "segments", "pieces", "model_bytes", "zonemap_bytes", "directory_pages", "leaf_pages",
            "total_pages", "entries", "items_per_page", "mean_error", "max_error", "mode"]
    L.append("| dataset | " + " | ".join(cols) + " | btree levels / internal / leaf pages |")
    L.append("|---|" + "---|" * (len(cols) + 1))
    for ds in dss:
        le, bt = by[ds].get("learned", {}), by[ds].get("btree", {})
        L.append("| %s | %s | %s / %s / %s |" % (ds, " | ".join(f(le.get("li_" + c), "%.3g" if c.endswith("error")
                                                                  else "%s") for c in cols),
                                               f(bt.get("bt_tree_level"), "%d"), f(bt.get("bt_internal_pages"), "%d"),
                                               f(bt.get("bt_leaf_pages"), "%d")))
    L.append("")
    L.append("Plans: " + "; ".join(sorted(set("`%s`" % r.get("lookup_plan") for r in rows if r.get("lookup_plan")))))
    L.append("")
    L += SL
    L += datasets_table(meta)
    L += method(meta)

    # ---- plots
    def series(key, scale=1.0):
        return [(k, [(by[ds].get(k, {}).get(key) * scale) if isinstance(by[ds].get(k, {}).get(key), (int, float))
                     else None for ds in dss]) for k in ("btree", "learned")]
    pngs = [
        bar_plot(out, "size.png", "Index size", "MiB", dss, series("index_bytes", 1 / 1048576)),
        bar_plot(out, "build.png", "CREATE INDEX time (median)", "seconds", dss, series("build_s")),
        bar_plot(out, "lookup.png", "Point lookup (nested-loop probe)", "µs per lookup", dss, series("lookup_us")),
        bar_plot(out, "buffers.png", "Index buffers per lookup", "buffers", dss, series("lookup_bufs_idx")),
        bar_plot(out, "range.png", "100-row range scan", "µs per scan", dss, series("range_us")),
    ]
    return L + plots_section(pngs)


def plots_section(pngs):
    """The report's "## Plots" section: each PNG file embedded under its name."""
    return ["## Plots", ""] + ["![%s](%s)" % (p[:-4], p) for p in pngs] + [""]


def write_sweep(out, rows, meta):
    L = header(meta, "learned_idx benchmark: error_bound sweep")
    L += correctness(meta, rows)
    dss = [d for d in meta["datasets"]]
    L.append("## Sweep results")
    L.append("")
    L.append("Ratios are learned / btree. The btree is re-timed together with every learned variant (interleaved "
             "runs) and the lookup ratio uses that paired btree time; the btree row shows its first pairing. "
             "Directory bytes = directory_pages * 8192, compared with btree internal_pages * 8192.")
    L.append("")
    by_ds = {}
    for r in rows:
        by_ds.setdefault(r["dataset"], []).append(r)
    plots = {"size": {}, "lookup": {}, "bufs": {}, "pieces": {}}
    refs = {"size": {}, "lookup": {}, "bufs": {}}
    for ds in dss:
        rs = by_ds.get(ds, [])
        bt = next((r for r in rs if r["kind"] == "btree"), {})
        L.append("### %s" % ds)
        L.append("")
        L.append("| variant | error_bound | size MiB | size ratio | segments | pieces | directory bytes (vs btree "
                 "inner) | model bytes | build s | lookup µs | lookup ratio | idx bufs/lookup | range µs | "
                 "mean / max error |")
        L.append("|---|" + "---|" * 13)
        for r in rs:
            sz = r.get("index_bytes")
            L.append("| %s | %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s / %s |" % (
                r["variant"], f(r.get("li_error_bound"), "%s", str(r.get("eps_requested") or "")),
                f(sz / 1048576 if sz else None, "%.2f"), f(ratio(sz, bt.get("index_bytes")), "%.3f"),
                f(r.get("li_segments"), "%s"), f(r.get("li_pieces"), "%s"), f(r.get("inner_bytes"), "%d"),
                f(ratio(r.get("inner_bytes"), bt.get("inner_bytes")), "%.3f"), f(r.get("model_bytes"), "%s"),
                f(r.get("build_s"), "%.3f"), f(r.get("lookup_us"), "%.3f"),
                f(ratio(r.get("lookup_us"), r.get("ref_btree_lookup_us") or bt.get("lookup_us")), "%.3f"), f(r.get("lookup_bufs_idx"), "%.3f"),
                f(r.get("range_us"), "%.2f"), f(r.get("li_mean_error"), "%.3g"), f(r.get("li_max_error"), "%s")))
            if r["kind"] == "learned" and r.get("eps_requested"):
                e = r["eps_requested"]
                plots["size"].setdefault(ds, []).append((e, (sz or 0) / 1048576 if sz else None))
                plots["lookup"].setdefault(ds, []).append((e, r.get("lookup_us")))
                plots["bufs"].setdefault(ds, []).append((e, r.get("lookup_bufs_idx")))
                plots["pieces"].setdefault(ds, []).append((e, r.get("li_pieces") or r.get("li_segments")))
        if bt.get("index_bytes"):
            refs["size"][ds] = bt["index_bytes"] / 1048576
        refs["lookup"][ds] = bt.get("lookup_us")
        refs["bufs"][ds] = bt.get("lookup_bufs_idx")
        L.append("")
    pngs = [
        line_plot(out, "sweep_size.png", "Index size vs error_bound", "MiB", plots["size"], refs["size"]),
        line_plot(out, "sweep_lookup.png", "Lookup µs vs error_bound", "µs per lookup", plots["lookup"],
                  refs["lookup"]),
        line_plot(out, "sweep_buffers.png", "Index buffers per lookup vs error_bound", "buffers", plots["bufs"],
                  refs["bufs"]),
        line_plot(out, "sweep_pieces.png", "Pieces vs error_bound", "pieces", plots["pieces"], None, logy=True),
    ]
    L.append("## Plots")
    L.append("")
    for p in pngs:
        L.append("![%s](%s)" % (p[:-4], p))
    L.append("")
    L += datasets_table(meta)
    L += method(meta)
    return L


def write_report(out, copy_to="", body=None):
    """Write out/report.md (and a copy); body(out, rows, meta) writes the
    lines of a mode this module does not know (report_keys.write_keys)."""
    rows, meta = load(out)
    if body is not None:
        L = body(out, rows, meta)
    elif meta["mode"] == "keys":
        sys.exit("a keys run: python3 bench/lib/report_keys.py %s" % out)
    else:
        L = write_sweep(out, rows, meta) if meta["mode"] == "sweep-eps" else write_main(out, rows, meta)
    text = "\n".join(L) + "\n"
    with open(os.path.join(out, "report.md"), "w") as fh:
        fh.write(text)
    if copy_to:
        rel = os.path.relpath(os.path.abspath(out), os.path.dirname(os.path.abspath(copy_to)))
        import re
        text2 = re.sub(r"\]\(([A-Za-z0-9_]+\.png)\)", lambda m: "](%s/%s)" % (rel, m.group(1)), text)
        with open(copy_to, "w") as fh:
            fh.write(text2)


if __name__ == "__main__":
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--copy-to", default="")
    a = p.parse_args()
    write_report(a.out, a.copy_to)
    print(os.path.join(a.out, "report.md"))
