"""Report of the variable-width / composite keys benchmark (bench/lib/keys_bench.py, issue #6).

keys_bench.py hands write_keys to report.write_report; re-create with
    python bench/lib/report_keys.py bench/results/<stamp>_keys [--copy-to bench/RESULTS_KEYS.md]
"""

import report as R
from report import f, ratio


def spread(row, key, nq):
    """'min-max' of the timed runs of a loop, in µs per query."""
    runs = [float(x) for x in str(row.get(key + "_s_all") or "").split(";") if x]
    if not runs or not nq:
        return "–"
    return "%.2f-%.2f" % (min(runs) / nq * 1e6, max(runs) / nq * 1e6)


def status(le):
    if le.get("unsupported"):
        return "unsupported"
    if le.get("error"):
        return "ERROR"
    return "ok" if le.get("index_bytes") is not None else "–"


def write_keys(out, rows, meta):
    L = R.header(meta, "learned_idx benchmark: variable-width and composite keys (issue #6)")
    by = {}
    for r in rows:
        by.setdefault(r["dataset"], {})[r["kind"]] = r
        if r.get("index_bytes") is not None:
            r["index_mb"] = r["index_bytes"] / 1048576
    dss = [d for d in meta["datasets"] if d in by]
    P = meta["probes"]
    lt = meta.get("lookup_target", 1.0)

    L.append("## Summary: learned / btree against the issue's targets")
    L.append("")
    L.append("Targets (issue #6): size <= 0.8x btree for text keys, <= 0.6x for uuid v7 and the TPC-C-shaped "
             "key; per-lookup time <= %.1fx btree for every dataset. No size target is set for uuid v4 and "
             "numeric (n/a). \"unsupported\": the learned index cannot be built on this key type yet "
             "(btree still measured)." % lt)
    L.append("")
    L.append("| dataset | learned | size MiB btree / learned | size ratio | size target | lookup µs btree / learned "
             "| lookup ratio (<= %.1f) | index-only µs btree / learned | ios ratio | idx bufs/lookup btree / learned "
             "| build s btree / learned | build ratio |" % lt)
    L.append("|---|" + "---|" * 11)
    npass = ntot = 0
    for ds in dss:
        bt, le = by[ds].get("btree", {}), by[ds].get("learned", {})
        tgt = meta["datasets"][ds].get("size_target")
        sr = ratio(le.get("index_bytes"), bt.get("index_bytes"))
        lr = ratio(le.get("lookup_us"), bt.get("lookup_us"))
        sv = R.verdict(sr, tgt) if tgt else "n/a"
        lv = R.verdict(lr, lt)
        if le.get("unsupported"):
            sv = lv = "unsupported"
        for v in (sv, lv):
            npass += v == "pass"
            ntot += v in ("pass", "**miss**")
        L.append("| %s | %s | %s / %s | %s | %s | %s / %s | %s | %s / %s | %s | %s / %s | %s / %s | %s |" % (
            ds, status(le), f(bt.get("index_mb")), f(le.get("index_mb")), f(sr, "%.3f"),
            ("<= %.1f: %s" % (tgt, sv)) if tgt else "n/a", f(bt.get("lookup_us"), "%.2f"),
            f(le.get("lookup_us"), "%.2f"), "%s %s" % (f(lr, "%.3f"), lv if lr is not None or le.get("unsupported") else ""),
            f(bt.get("ios_us"), "%.2f"), f(le.get("ios_us"), "%.2f"), f(ratio(le.get("ios_us"), bt.get("ios_us")), "%.3f"),
            f(bt.get("lookup_bufs_idx")), f(le.get("lookup_bufs_idx")), f(bt.get("build_s")), f(le.get("build_s")),
            f(ratio(le.get("build_s"), bt.get("build_s")), "%.2f")))
    L.append("")
    L.append("Targets met: **%d / %d** over the datasets where learned was built (a miss never fails the run; "
             "unsupported datasets count as n/a)." % (npass, ntot))
    L.append("")
    unsup = [(ds, by[ds]["learned"]["unsupported"]) for ds in dss if by[ds].get("learned", {}).get("unsupported")]
    if unsup:
        L.append("Unsupported today:")
        L.append("")
        for ds, msg in unsup:
            L.append("* %s: `%s`" % (ds, msg))
        L.append("")
    L += R.correctness(meta, rows)

    L.append("## Results per metric")
    L.append("")
    L += R.metric_table(by, dss, "Index size (pg_relation_size)", "MiB", "index_mb", "%.2f",
                        ("bytes (btree / learned)", lambda b, l: "%s / %s" % (f(b.get("index_bytes"), "%d"),
                                                                              f(l.get("index_bytes"), "%d"))))
    L += R.metric_table(by, dss, "CREATE INDEX time (median of %d)" % meta["builds"], "s", "build_s", "%.3f",
                        ("all builds s (btree ; learned)",
                         lambda b, l: "%s ; %s" % (b.get("build_s_all") or "–", l.get("build_s_all") or "–")))
    L += R.metric_table(by, dss, "Point lookup with heap fetch, µs per lookup (median of %d runs)" % meta["reps"],
                        "µs", "lookup_us", "%.3f",
                        ("min-max µs (btree ; learned) / loop overhead µs",
                         lambda b, l: "%s ; %s / %s" % (spread(b, "lookup", P), spread(l, "lookup", P),
                                                        f(b.get("loop_overhead_us"), "%.3f"))))
    L += R.metric_table(by, dss, "Index-only lookup (count only), µs per lookup (median of %d runs)" % meta["reps"],
                        "µs", "ios_us", "%.3f",
                        ("min-max µs (btree ; learned) / plan is Index Only Scan (btree ; learned)",
                         lambda b, l: "%s ; %s / %s ; %s" % (spread(b, "ios", P), spread(l, "ios", P),
                                                             b.get("ios_is_index_only") or "–",
                                                             l.get("ios_is_index_only") or "–")))
    L += R.metric_table(by, dss, "Index buffers per lookup (pg_statio)", "bufs", "lookup_bufs_idx", "%.3f",
                        ("node bufs incl. heap (btree / learned)",
                         lambda b, l: "%s / %s" % (f(b.get("lookup_bufs_node"), "%.3f"),
                                                   f(l.get("lookup_bufs_node"), "%.3f"))))
    L += R.metric_table(by, dss, "%d-row range scan, µs per scan (median of %d runs)" % (
        meta.get("range_span", 100), meta["reps"]), "µs", "range_us", "%.2f",
        ("min-max µs (btree ; learned) / index bufs per scan (btree / learned)",
         lambda b, l: "%s ; %s / %s / %s" % (spread(b, "range", meta["ranges"]), spread(l, "range", meta["ranges"]),
                                             f(b.get("range_bufs_idx"), "%.2f"), f(l.get("range_bufs_idx"), "%.2f"))))

    L.append("### Learned index structure (`learned_index_info`) and btree shape (`pgstatindex`)")
    L.append("")
    cols = ["segments", "pieces", "mean_error", "max_error", "error_bound", "items_per_page", "leaf_pages",
            "directory_pages", "model_bytes", "zonemap_bytes", "compression"]
    L.append("| dataset | " + " | ".join(cols) + " | btree levels / internal / leaf pages |")
    L.append("|---|" + "---|" * (len(cols) + 1))
    for ds in dss:
        le, bt = by[ds].get("learned", {}), by[ds].get("btree", {})
        L.append("| %s | %s | %s / %s / %s |" % (
            ds, " | ".join(f(le.get("li_" + c), "%.3g" if c.endswith("error") else "%s") for c in cols),
            f(bt.get("bt_tree_level"), "%d"), f(bt.get("bt_internal_pages"), "%d"), f(bt.get("bt_leaf_pages"), "%d")))
    L.append("")
    L.append("Plans: " + "; ".join(sorted(set("`%s`" % r.get(k) for r in rows for k in
                                              ("lookup_plan", "ios_plan", "range_plan") if r.get(k)))))
    L.append("")

    L.append("## Datasets")
    L.append("")
    L.append("| dataset | key columns | rows | distinct keys | raw generator distinct fraction | avg key bytes "
             "| smallest key | largest key | heap MB | absent keys | recipe |")
    L.append("|---|" + "---|" * 10)
    for ds in dss:
        d = meta["datasets"][ds]
        L.append("| %s | `%s` | %s | %s | %s | %s | `%s` | `%s` | %.1f | %s | %s |" % (
            ds, d["columns"], "{:,}".format(d["n"]), "{:,}".format(d["distinct"]), f(d.get("raw_distinct"), "%.4f"),
            f(d.get("key_bytes"), "%.1f"), str(d["min"])[:60], str(d["max"])[:60], d["heap_bytes"] / 1e6,
            "{:,}".format(d["misses"]), d["description"]))
    L.append("")

    L += [
        "## Method",
        "",
        "* Per dataset, table `t_<ds>(<key columns>, v int8)` and an identical copy `t_<ds>_l`: btree on the first, "
        "learned on the second, one index per table, so the timed runs of the two interleave (the order "
        "alternates every repetition). Keys are distinct (the generators drop repeats: btree deduplication is "
        "not what is measured; the raw generator's distinct fraction is shown). v = the key's rank under the "
        "index order, computed by the server (`row_number() OVER (ORDER BY key columns)`, so in the column's "
        "collation). Rows in **%s heap order** (by `hashint8(v)` when random), `VACUUM (FREEZE, ANALYZE)` after a CHECKPOINT, repeated until "
        "every heap page is all-visible (with synchronous_commit = off, VACUUM cannot mark pages whose rows' commit is not "
        "flushed yet: before this, the learned side's table often stayed unmarked and its index-only scans fetched every heap row)." %
        meta["heap_order"],
        "* CREATE INDEX time: median of %d builds per index, btree and learned interleaved, CHECKPOINT before each."
        % meta["builds"],
        "* Lookups: %s random existing keys (ranks drawn with replacement, random order) in a probe table with the "
        "same column types and collation, joined on every key column with hash/merge join, bitmap scans, memoize "
        "and material off, so the plan is Nested Loop -> Index Scan (checked). Everything prewarmed; one warm-up "
        "run, then %d timed runs; µs per lookup = median wall time / probes, heap fetch and executor included "
        "(the bare probe-table scan is the \"loop overhead\"). Index-only: the same loop with `count(*)` only "
        "(Index Only Scan when the AM returns keys; shown per index)." % ("{:,}".format(meta["probes"]),
                                                                          meta["reps"]),
        "* Index buffers per lookup: `pg_statio_user_indexes` delta over one run / probes.",
        "* Range: %s scans of %d consecutive keys (`k >= lo AND k <= hi`; tpcc3: `w_id = w AND d_id = d AND o_id "
        "BETWEEN lo AND hi` inside one district)." % ("{:,}".format(meta["ranges"]), meta.get("range_span", 100)),
        "* Correctness: count and sum(v) of every loop equal the value computed from the drawn ranks (so learned "
        "== btree == ground truth); absent keys (built from existing keys, e.g. `k || '#'`, `o_id + O`, "
        "checked absent with an anti-join) return no row.",
        "* Unsupported: before building, the learned index is tried on a 20-row copy in a rolled-back transaction; "
        "SQLSTATE 42704 (no operator class for the type) or 0A000 (feature not supported) marks the dataset "
        "unsupported for learned, anything else goes to the real build and is reported as an error.",
        "",
    ]

    def series(key, scale=1.0):
        return [(k, [(by[ds].get(k, {}).get(key) * scale) if isinstance(by[ds].get(k, {}).get(key), (int, float))
                     else ("unsupported" if k == "learned" and by[ds].get(k, {}).get("unsupported") else None)
                     for ds in dss]) for k in ("btree", "learned")]

    def ratios(key, label="learned / btree"):
        vals = []
        for ds in dss:
            bt, le = by[ds].get("btree", {}), by[ds].get("learned", {})
            r = ratio(le.get(key), bt.get(key))
            vals.append(r if r is not None else ("unsupported" if le.get("unsupported") else None))
        return [(label, vals)]
    pngs = [
        R.bar_plot(out, "size_ratio.png", "Index size, learned / btree", "ratio", dss, ratios("index_bytes"),
                   hlines=[(0.6, "target uuid_v7, tpcc3"), (0.8, "target text"), (1.0, "btree")]),
        R.bar_plot(out, "lookup_ratio.png", "Per-lookup time, learned / btree", "ratio", dss,
                   ratios("lookup_us", "heap fetch") + ratios("ios_us", "index-only"), hlines=[(lt, "target")]),
        R.bar_plot(out, "size.png", "Index size", "MiB", dss, series("index_bytes", 1 / 1048576)),
        R.bar_plot(out, "lookup.png", "Point lookup (nested-loop probe, heap fetch)", "µs per lookup", dss,
                   series("lookup_us")),
        R.bar_plot(out, "ios.png", "Index-only lookup", "µs per lookup", dss, series("ios_us")),
        R.bar_plot(out, "buffers.png", "Index buffers per lookup", "buffers", dss, series("lookup_bufs_idx")),
    ]
    return L + R.plots_section(pngs)


if __name__ == "__main__":
    import argparse
    import os
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--copy-to", default="")
    a = p.parse_args()
    R.write_report(a.out, a.copy_to, body=write_keys)
    print(os.path.join(a.out, "report.md"))
