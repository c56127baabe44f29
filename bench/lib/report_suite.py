"""Report sections for the suite parts of the main mode (bench/lib/workloads.py, tpcc.py):
headline ratios, targets of the other issues, pgbench workloads with p50/p99 and WAL,
cold cache, error_bound sweep, TPC-C and pgbench -S, and their figures."""

import csv
import os
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

COLORS = {"btree": "#4C72B0", "learned": "#DD8452"}
READS = ("point1", "point2", "ios", "range10", "range100", "range10000", "orderby10")
WRITES = ("mix90", "mix50", "ins_rand", "ins_app")
WL_LABEL = {
    "point1": "point, 1 client pinned", "point2": "point, 2 clients", "ios": "index-only point",
    "range10": "range 10 rows", "range100": "range 100 rows", "range10000": "range 10,000 rows",
    "orderby10": "ORDER BY k LIMIT 10", "mix90": "90/10 lookup/insert", "mix50": "50/50 lookup/insert",
    "ins_rand": "insert, random keys", "ins_app": "insert, append keys",
}
# (issue, description, dataset filter or None, function(bt, le) -> value, limit, "le" or "ge")
OTHER_TARGETS = [
    ("#3", "insert random tps >= 1.3x btree", None, lambda b, l: rt(l, b, "pgb_ins_rand_tps"), 1.3, "ge"),
    ("#3", "insert append tps >= 1.1x btree", None, lambda b, l: rt(l, b, "pgb_ins_app_tps"), 1.1, "ge"),
    ("#3", "50/50 tps >= 1.1x btree", None, lambda b, l: rt(l, b, "pgb_mix50_tps"), 1.1, "ge"),
    ("#3", "90/10 tps >= 1.0x btree", None, lambda b, l: rt(l, b, "pgb_mix90_tps"), 1.0, "ge"),
    ("#3", "WAL/insert random <= 1.5x btree", None, lambda b, l: rt(l, b, "pgb_ins_rand_wal_per_tx"), 1.5, "le"),
    ("#3", "WAL/insert append <= 1.0x btree", None, lambda b, l: rt(l, b, "pgb_ins_app_wal_per_tx"), 1.0, "le"),
    ("#4", "size <= 0.40x btree (books, seq, wiki)", ("books", "seq_gaps", "wiki"),
     lambda b, l: rt(l, b, "index_bytes"), 0.40, "le"),
    ("#4", "size <= 0.60x btree (fb, osm)", ("fb", "osm"), lambda b, l: rt(l, b, "index_bytes"), 0.60, "le"),
    ("#4", "model+zonemap <= 20% of btree inner", None,
     lambda b, l: (((l.get("model_bytes") or 0) + (l.get("li_zonemap_bytes") or 0)) / b["inner_bytes"])
     if isinstance(b.get("inner_bytes"), (int, float)) and b.get("inner_bytes") and
     isinstance(l.get("model_bytes"), (int, float)) else None, 0.20, "le"),
]


def rt(le, bt, key):
    a, b = le.get(key), bt.get(key)
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or not b:
        return None
    return a / b


def f(x, fmt="%.2f"):
    if x is None or x == "":
        return "–"
    try:
        return fmt % x
    except TypeError:
        return str(x)


def mm(r, key, fmt="%.0f"):
    """median (min–max) of pgbench tps"""
    if r.get(key) in (None, ""):
        return "–"
    lo, hi = r.get(key + "_min"), r.get(key + "_max")
    if lo not in (None, "") and hi not in (None, "") and lo != hi:
        return "%s (%s–%s)" % (fmt % r[key], fmt % lo, fmt % hi)
    return fmt % r[key]


def spread(r, key):
    lo, hi, m = r.get(key + "_min"), r.get(key + "_max"), r.get(key)
    if not all(isinstance(x, (int, float)) for x in (lo, hi, m)) or not m:
        return None
    return (hi - lo) / m


def geomean(xs):
    xs = [x for x in xs if isinstance(x, (int, float)) and x > 0]
    return float(np.exp(np.mean(np.log(xs)))) if xs else None


def aa_reps(r, wl):
    """The per-repetition A/A ratios btree_b / btree of workload wl (bench/lib/workloads.py)."""
    v = r.get("pgb_%s_aa_reps" % wl)
    if v in (None, ""):
        return []
    return [float(x) for x in str(v).split(";") if x]


def aa_spread(bt, dss, wl):
    """A workload's A/A spread: the largest |1 - A/A| over the datasets, or None."""
    d = [abs(1 - bt[ds]["pgb_%s_aa_ratio" % wl]) for ds in dss
         if isinstance(bt[ds].get("pgb_%s_aa_ratio" % wl), (int, float))]
    return max(d) if d else None


def read_reps(meta, wl):
    pg = meta.get("pgb", {})
    return pg.get("reps_point") if wl == "point1" else pg.get("reps")


PGB_POINT_TARGET = 1.15     # issue 31: point lookups, geometric mean over datasets


def aa_sections(meta, bt, le, dss):
    """The A/A table (btree against itself, per read workload and dataset) and issue 31's
    verdict table for the read workloads (learned / btree against 1.0 and the A/A spread)."""
    H = []
    reads = [w for w in READS if any(le[ds].get("pgb_%s_tps" % w) for ds in dss)]
    have_aa = any(bt[ds].get("pgb_%s_aa_ratio" % w) for ds in dss for w in reads)
    reps = {w: read_reps(meta, w) for w in reads}
    H.append("### A/A: btree against itself (the run's noise)")
    H.append("")
    if not have_aa:
        H.append("No A/A side in this run (`--no-aa`, or a run of an older harness): a learned / btree "
                 "ratio near 1 cannot be told from noise here.")
        H.append("")
    else:
        H.append("Every read workload measures the btree index a second time, in slots of its own in the "
                 "same interleaved schedule (btree, learned, btree again; the order reversed every other "
                 "repetition). **A/A** = median tps of those second slots / median tps of the first: the "
                 "statistic learned / btree is, for two sides that are the same index, so it strays from 1 "
                 "by the noise alone. In brackets the min–max of the per-repetition ratios. The **spread** "
                 "of a workload is the largest |1 − A/A| over the datasets.")
        H.append("")
        H.append("| dataset | " + " | ".join(WL_LABEL[w] for w in reads) + " |")
        H.append("|---|" + "---|" * len(reads))
        for ds in dss:
            cells = []
            for w in reads:
                per = aa_reps(bt[ds], w)
                cells.append(f(bt[ds].get("pgb_%s_aa_ratio" % w), "%.3f") + (
                    " (%.2f–%.2f)" % (min(per), max(per)) if len(per) > 1 else ""))
            H.append("| %s | %s |" % (ds, " | ".join(cells)))
        H.append("| **geo. mean** | %s |" % " | ".join(
            f(geomean([bt[ds].get("pgb_%s_aa_ratio" % w) for ds in dss]), "%.3f") for w in reads))
        H.append("| **spread** max \|1 − A/A\| | %s |" % " | ".join(
            f(aa_spread(bt, dss, w), "%.3f") for w in reads))
        H.append("| medians of (runs per side) | %s |" % " | ".join(f(reps[w], "%s") for w in reads))
        H.append("")

    H.append("### Issue 31's read targets")
    H.append("")
    H.append("Target: every read workload, on every dataset, at least 1.0x btree, none below the A/A spread; "
             "point lookups at least %.2fx btree in geometric mean over the datasets; medians of at least 5 "
             "runs. A ratio at or above 1.00 is a pass; below 1.00 but at or above 1 − spread is *within "
             "noise* (not a pass of \"at least 1.0x\", not a measured loss); below 1 − spread is a "
             "**miss**." % PGB_POINT_TARGET)
    H.append("")
    H.append("| workload | runs per side | " + " | ".join(dss) + " | lowest | A/A spread | verdict |")
    H.append("|---|---|" + "---|" * len(dss) + "---|---|---|")
    for w in reads:
        sp = aa_spread(bt, dss, w)
        cells, vals, below, miss = [], [], 0, 0
        for ds in dss:
            v = rt(le[ds], bt[ds], "pgb_%s_tps" % w)
            if v is None:
                cells.append("–")
                continue
            vals.append(v)
            if v >= 1.0:
                cells.append("%.3f" % v)
            elif sp is None:
                miss += 1
                cells.append("**%.3f** (no A/A)" % v)
            elif v >= 1 - sp:
                below += 1
                # a ratio just under 1 that rounds to 1.000 shows five digits: it is below 1.0
                cells.append(("%.3f" if "%.3f" % v != "1.000" else "%.5f") % v + " *(noise)*")
            else:
                miss += 1
                cells.append("**%.3f miss**" % v)
        if not vals:
            verdict = "n/a"
        elif miss and sp is None:
            verdict = "**not met**: %d dataset(s) below 1.0, and no A/A to tell noise from a loss" % miss
        elif miss:
            verdict = "**miss**: %d dataset(s) below 1 − spread" % miss
        elif below:
            verdict = "within noise: %d dataset(s) below 1.0, none below 1 − spread" % below
        else:
            verdict = "pass"
        n = reps.get(w)
        if isinstance(n, int) and n < 5:
            verdict += " (medians of %d run%s: the target asks 5)" % (n, "" if n == 1 else "s")
        H.append("| %s | %s | %s | %s | %s | %s |" % (WL_LABEL[w], f(n, "%s"), " | ".join(cells),
                                                     f(min(vals) if vals else None, "%.3f"), f(sp, "%.3f"), verdict))
    H.append("")
    H.append("| point lookups, geometric mean over the datasets | learned / btree | A/A | target | verdict |")
    H.append("|---|---|---|---|---|")
    for w in ("point1", "point2", "ios"):
        if w not in reads:
            continue
        g = geomean([rt(le[ds], bt[ds], "pgb_%s_tps" % w) for ds in dss])
        ga = geomean([bt[ds].get("pgb_%s_aa_ratio" % w) for ds in dss])
        H.append("| %s | %s | %s | >= %.2f | %s |" % (
            WL_LABEL[w], f(g, "%.3f"), f(ga, "%.3f"), PGB_POINT_TARGET,
            "n/a" if g is None else "met" if g >= PGB_POINT_TARGET else "**missed**"))
    H.append("")
    return H


def savefig(fig, out, name):
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=110)
    plt.close(fig)
    return name


def ratio_bars(out, fname, title, dss, series, ref=1.0, ylabel="learned / btree"):
    """series: [(label, [ratio per dataset])] grouped per dataset."""
    fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(dss) + 2), 4.6))
    w = 0.85 / max(1, len(series))
    cmap = plt.get_cmap("tab20")
    for i, (label, vals) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * w for j in range(len(dss))]
        ax.bar(xs, [v if isinstance(v, (int, float)) else 0 for v in vals], w, label=label, color=cmap(i))
    ax.axhline(ref, color="k", lw=0.8, ls="--")
    ax.set_xticks(range(len(dss)))
    ax.set_xticklabels(dss)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=3)
    return savefig(fig, out, fname)


def cdf_plot(out, fname, lat, dss, wl, title):
    if not lat:
        return None
    n = len(dss)
    cols = min(4, n)
    rows = (n + cols - 1) // cols
    fig, axs = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.9 * rows), squeeze=False)
    for i, ds in enumerate(dss):
        ax = axs[i // cols][i % cols]
        for side in ("btree", "learned"):
            q = lat.get("%s|%s|%s" % (ds, side, wl))
            if q is None:
                continue
            ax.plot(q, np.linspace(0, 1, len(q)), label=side, color=COLORS[side])
        ax.set_xscale("log")
        ax.set_title(ds, fontsize=9)
        ax.set_xlabel("latency µs", fontsize=8)
        ax.grid(alpha=0.3)
        if i == 0:
            ax.legend(fontsize=7)
    for j in range(n, rows * cols):
        axs[j // cols][j % cols].axis("off")
    fig.suptitle(title, fontsize=10)
    return savefig(fig, out, fname)


def read_sweep(out):
    p = os.path.join(out, "sweep.csv")
    if not os.path.exists(p):
        return []
    rows = []
    with open(p) as fh:
        for r in csv.DictReader(fh):
            rr = {}
            for k, v in r.items():
                try:
                    rr[k] = float(v) if v not in ("", None) else None
                except ValueError:
                    rr[k] = v
            rows.append(rr)
    return rows


def sweep_plots(out, sw, dss):
    if not sw:
        return []
    pngs = []
    fig, axs = plt.subplots(1, 2, figsize=(11, 4.2))
    cmap = plt.get_cmap("tab10")
    for i, ds in enumerate(dss):
        pts = sorted((r["eps"], r) for r in sw if r["dataset"] == ds and r.get("index_bytes"))
        if not pts:
            continue
        e = [p[0] for p in pts]
        axs[0].plot(e, [p[1]["index_bytes"] / p[1]["btree_index_bytes"] for p in pts], marker="o", color=cmap(i),
                    label=ds)
        axs[1].plot(e, [p[1]["lookup_us"] / p[1]["btree_lookup_us"] for p in pts], marker="o", color=cmap(i),
                    label=ds)
    for ax, yl in zip(axs, ("index size / btree", "µs per lookup / btree (same loop)")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("error_bound")
        ax.set_ylabel(yl)
        ax.axhline(1.0, color="k", lw=0.8, ls="--")
        ax.grid(alpha=0.3)
    axs[0].legend(fontsize=7)
    fig.suptitle("error_bound sweep (ratios to btree)", fontsize=10)
    pngs.append(savefig(fig, out, "sweep_ratios.png"))
    # paper Fig. 11 shape: memory (index bytes; and inner/directory bytes) vs lookups/s
    fig, axs = plt.subplots(1, 2, figsize=(11, 4.2))
    for i, ds in enumerate(dss):
        pts = sorted((r["eps"], r) for r in sw if r["dataset"] == ds and r.get("lookup_us"))
        if not pts:
            continue
        b = pts[0][1]
        axs[0].plot([p[1]["index_bytes"] / 2**20 for p in pts], [1e6 / p[1]["lookup_us"] for p in pts], marker="o",
                    color=cmap(i), label=ds + " learned")
        axs[0].scatter([b["btree_index_bytes"] / 2**20], [1e6 / statistics.median(
            [p[1]["btree_lookup_us"] for p in pts])], marker="s", color=cmap(i), edgecolor="k")
        if b.get("btree_inner_bytes"):
            axs[1].plot([max(p[1].get("li_model_bytes") or p[1].get("inner_bytes") or 1, 1) / 1024 for p in pts],
                        [1e6 / p[1]["lookup_us"] for p in pts], marker="o", color=cmap(i), label=ds)
            axs[1].scatter([b["btree_inner_bytes"] / 1024], [1e6 / statistics.median(
                [p[1]["btree_lookup_us"] for p in pts])], marker="s", color=cmap(i), edgecolor="k")
    axs[0].set_xlabel("index size MiB")
    axs[1].set_xlabel("model memory KiB (learned model_bytes / btree internal pages)")
    axs[1].set_xscale("log")
    for ax in axs:
        ax.set_ylabel("lookups/s (probe loop, 1 backend)")
        ax.grid(alpha=0.3)
    axs[0].legend(fontsize=7)
    fig.suptitle("Memory vs throughput (circles: learned at each error_bound; squares: btree)", fontsize=10)
    pngs.append(savefig(fig, out, "memory_throughput.png"))
    return pngs


def suite_sections(out, rows, meta, by, dss):
    """Returns (headline lines, detail lines)."""
    H, L = [], []
    bt = {ds: by[ds].get("btree", {}) for ds in dss}
    le = {ds: by[ds].get("learned", {}) for ds in dss}
    have_pgb = any(le[ds].get("pgb_point1_tps") for ds in dss)
    have_cold = any(le[ds].get("cold_us") for ds in dss)
    cold_cfgs = list(meta.get("cold", {}).get("configs") or [meta.get("cold", {}).get("shared_buffers")])
    # (label, key prefix) of each cold-cache configuration that has results
    colds = [(sb, "cold_" if i == 0 else "cold%d_" % (i + 1)) for i, sb in enumerate(cold_cfgs)]
    colds = [(sb, px) for sb, px in colds if any(le[ds].get(px + "us") for ds in dss)]

    # ---------------- headline ratios
    H.append("## Headline: learned / btree per dataset and workload")
    H.append("")
    H.append("Throughput ratios are learned tps / btree tps (**> 1 means learned is faster**); size and "
             "cold reads are learned / btree (**< 1 means learned is smaller / reads less**). Medians; spreads "
             "are in the detailed tables below, and the A/A table after this one is the reads' noise.")
    H.append("")
    cols = [("size", lambda b, l: rt(l, b, "index_bytes")),
            ("build time", lambda b, l: rt(l, b, "build_s")),
            ("probe-loop µs", lambda b, l: rt(l, b, "lookup_us"))]
    if have_pgb:
        cols += [(WL_LABEL[w], (lambda w: lambda b, l: rt(l, b, "pgb_%s_tps" % w))(w)) for w in READS + WRITES]
    for sb, px in colds:
        cols += [("cold lookups/s (sb %s)" % sb, (lambda px: lambda b, l: rt(l, b, px + "lookups_s"))(px)),
                 ("cold idx reads/lookup (sb %s)" % sb, (lambda px: lambda b, l: rt(l, b, px + "idx_reads"))(px))]
    H.append("| dataset | " + " | ".join(c[0] for c in cols) + " |")
    H.append("|---|" + "---|" * len(cols))
    geo = {c[0]: [] for c in cols}
    for ds in dss:
        cells = []
        for name, fn in cols:
            v = fn(bt[ds], le[ds])
            if isinstance(v, (int, float)) and v > 0:
                geo[name].append(v)
            cells.append(f(v, "%.2f"))
        H.append("| %s | %s |" % (ds, " | ".join(cells)))
    H.append("| **geo. mean** | %s |" % " | ".join(
        f(float(np.exp(np.mean(np.log(geo[c[0]])))) if geo[c[0]] else None, "%.2f") for c in cols))
    H.append("")

    if have_pgb:
        H += aa_sections(meta, bt, le, dss)

    # ---------------- other issues' targets
    H.append("### Targets of the other issues (measured here)")
    H.append("")
    H.append("| issue | target | " + " | ".join(dss) + " |")
    H.append("|---|---|" + "---|" * len(dss))
    for iss, desc, only, fn, lim, kind in OTHER_TARGETS:
        cells = []
        for ds in dss:
            if only and ds not in only:
                cells.append("")
                continue
            v = fn(bt[ds], le[ds])
            if v is None:
                cells.append("n/a")
            else:
                ok = v <= lim if kind == "le" else v >= lim
                cells.append("%s (%.2f)" % ("met" if ok else "**missed**", v))
        H.append("| %s | %s | %s |" % (iss, desc, " | ".join(cells)))
    H.append("")
    H.append("Issue #3's write targets are measured here by short pgbench runs on each dataset (2 clients, "
             "synchronous_commit=off). Every write run starts with the learned index's pending list merged "
             "(not counted), and its WAL per insert counts the run plus a final `learned_index_merge` of what "
             "the run left pending (counted), as bench/run.sh --dynamic does. Issue #4's size targets apply "
             "once compressed leaves exist.")
    H.append("")

    # ---------------- pgbench details
    if have_pgb:
        pg = meta.get("pgb", {})
        L.append("## pgbench workloads")
        L.append("")
        L.append("pgbench -M prepared, %s per run; reads: point lookup with 1 client pinned to the server's CPU "
                 "(median of %s runs), everything else median of %s run(s)%s; writes: %s per run, 2 clients "
                 "unpinned, synchronous_commit=off. Every statement picks a random row of `pk_<ds>` by ctid "
                 "(Tid Scan) and joins the indexed table on it; session GUCs `%s`. p50/p99 from the `-l` "
                 "logs (all transactions, µs). WAL = pg_current_wal_insert_lsn delta / transactions."
                 % ("%d s" % pg.get("secs") if (pg.get("secs") or 0) > 0 else "%d transactions" % -(pg.get("secs") or 0),
                    pg.get("reps_point"), pg.get("reps"),
                    ", each read also run on the btree a second time in slots of its own (the A/A side: "
                    "btree, learned, btree again, the order reversed every other repetition)" if pg.get("aa") else "",
                    "%d s" % pg.get("write_secs") if (pg.get("write_secs") or 0) > 0 else
                    "%d transactions" % -(pg.get("write_secs") or 0), pg.get("gucs")))
        L.append("")
        for wl in READS + WRITES:
            if not any(le[ds].get("pgb_%s_tps" % wl) for ds in dss):
                continue
            L.append("### %s" % WL_LABEL[wl])
            L.append("")
            extra = wl in WRITES
            aa = any(bt[ds].get("pgb_%s_aa_tps" % wl) for ds in dss)
            L.append("| dataset | btree tps (min–max) | learned tps (min–max) | learned / btree | p50 / p99 µs btree "
                     "| p50 / p99 µs learned |" + (" WAL B/tx btree / learned |" if extra else "")
                     + (" A/A: btree again, tps (min–max) | A/A |" if aa else ""))
            L.append("|---|---|---|---|---|---|" + ("---|" if extra else "") + ("---|---|" if aa else ""))
            for ds in dss:
                b, l = bt[ds], le[ds]
                k = "pgb_%s" % wl
                L.append("| %s | %s | %s | %s | %s / %s | %s / %s |%s%s" % (
                    ds, mm(b, k + "_tps"), mm(l, k + "_tps"), f(rt(l, b, k + "_tps"), "%.2f"),
                    f(b.get(k + "_p50_us"), "%.0f"), f(b.get(k + "_p99_us"), "%.0f"),
                    f(l.get(k + "_p50_us"), "%.0f"), f(l.get(k + "_p99_us"), "%.0f"),
                    (" %s / %s |" % (f(b.get(k + "_wal_per_tx"), "%.0f"), f(l.get(k + "_wal_per_tx"), "%.0f")))
                    if extra else "",
                    (" %s | %s |" % (mm(b, k + "_aa_tps"), f(b.get(k + "_aa_ratio"), "%.3f"))) if aa else ""))
            L.append("")
        sp = [spread(r, "pgb_point1_tps") for ds in dss for r in (bt[ds], le[ds])]
        sp = [x for x in sp if x is not None]
        if sp:
            L.append("**Noise:** the spread (max − min) / median of the pinned point-lookup tps across its "
                     "repetitions is median %.0f%%, worst %.0f%% over all datasets and both indexes."
                     % (100 * statistics.median(sp), 100 * max(sp)))
            L.append("")

    # ---------------- cold cache
    if have_cold:
        c = meta.get("cold", {})
        L.append("## Cold cache")
        L.append("")
        bsz = [bt[ds].get("index_bytes") for ds in dss if bt[ds].get("index_bytes")]
        L.append("Per index and per shared_buffers size: server stopped, `sync; echo 3 > "
                 "/proc/sys/vm/drop_caches`, restarted with that shared_buffers (the btree indexes here are "
                 "%s MiB), then the first %s probes of the probe table through the nested-loop probe loop. "
                 "Reads = shared-buffer misses (pg_statio) per lookup; most are real disk reads right after "
                 "the drop, later ones may be served by the refilled OS cache. Where shared_buffers holds "
                 "btree's inner pages, both indexes read about one leaf page per lookup; with 128kB "
                 "(16 buffers) they do not fit, which is the disk-resident case of the papers: btree misses "
                 "on its inner levels again and again, while learned keeps its directory in backend memory."
                 % ("%.1f–%.1f" % (min(bsz) / 2**20, max(bsz) / 2**20) if bsz else "?", c.get("probes")))
        if c.get("disk_resident"):
            L.append("")
            L.append("Disk-resident mode (`--disk-resident`): while the cold runs last, the OS page cache is "
                     "kept out of the way (`direct`: `debug_io_direct = data`, PostgreSQL 16+; `cgroup`: the "
                     "server in a memory cgroup of %s MB, so its page cache stays far below the index and heap "
                     "files), so every shared-buffer miss is a read from the disk. I/O ms is "
                     "`blk_read_time` (`track_io_timing = on`)." % c.get("disk_resident_mb"))
        L.append("")
        for sb, px in colds:
            L.append("### shared_buffers = %s" % sb)
            L.append("")
            L.append("| dataset | btree µs/lookup | learned µs/lookup | lookups/s ratio | idx reads/lookup "
                     "btree / learned | heap reads/lookup btree / learned | I/O ms btree / learned | "
                     "OS cache dropped / kept out |")
            L.append("|---|---|---|---|---|---|---|---|")
            for ds in dss:
                b, l = bt[ds], le[ds]
                L.append("| %s | %s | %s | %s | %s / %s | %s / %s | %s / %s | %s |" % (
                    ds, f(b.get(px + "us"), "%.1f"), f(l.get(px + "us"), "%.1f"),
                    f(rt(l, b, px + "lookups_s")),
                    f(b.get(px + "idx_reads"), "%.3f"), f(l.get(px + "idx_reads"), "%.3f"),
                    f(b.get(px + "heap_reads"), "%.3f"), f(l.get(px + "heap_reads"), "%.3f"),
                    f(b.get(px + "read_ms"), "%.0f"), f(l.get(px + "read_ms"), "%.0f"),
                    "%s / %s" % (l.get(px + "os_cache_dropped"), l.get(px + "os_cache_kept_out", "no"))))
            L.append("")

    # ---------------- sweep
    sw = read_sweep(out)
    if sw:
        s = meta.get("sweep", {})
        L.append("## error_bound sweep")
        L.append("")
        L.append("The learned index rebuilt at each error_bound; µs per lookup from the probe loop over the "
                 "first %s probes (median of %s, interleaved with the btree in the same loop)."
                 % (s.get("probes"), s.get("reps")))
        L.append("")
        L.append("| dataset | error_bound | size MiB | size / btree | segments | pieces | directory pages | "
                 "mean / max error | µs/lookup (min–max) | btree µs | ratio |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in sw:
            L.append("| %s | %d | %s | %s | %s | %s | %s | %s / %s | %s (%s–%s) | %s | %s |" % (
                r["dataset"], r["eps"], f((r.get("index_bytes") or 0) / 2**20), f(
                    (r.get("index_bytes") or 0) / r["btree_index_bytes"] if r.get("btree_index_bytes") else None,
                    "%.3f"),
                f(r.get("li_segments"), "%.0f"), f(r.get("li_pieces"), "%.0f"), f(r.get("li_directory_pages"), "%.0f"),
                f(r.get("li_mean_error"), "%.1f"), f(r.get("li_max_error"), "%.0f"), f(r.get("lookup_us"), "%.3f"),
                f(r.get("lookup_us_min"), "%.3f"), f(r.get("lookup_us_max"), "%.3f"),
                f(r.get("btree_lookup_us"), "%.3f"),
                f(r["lookup_us"] / r["btree_lookup_us"] if r.get("lookup_us") and r.get("btree_lookup_us") else None,
                  "%.2f")))
        L.append("")

    # ---------------- TPC-C and pgbench -S
    ps = meta.get("pgbench_s")
    if ps:
        L.append("## pgbench -S (select-only) on pgbench_accounts")
        L.append("")
        L.append("Scale %s; `pgbench_accounts(aid)` by its primary-key btree vs by a `learned` index (table "
                 "initialised without the p step); -M prepared, %s s per run, median of %s; 1 client pinned "
                 "to the server's CPU, 2 clients unpinned." % (ps.get("scale"), ps.get("secs"), ps.get("reps")))
        L.append("")
        L.append("| clients | btree tps | learned tps | learned / btree | all runs (btree ; learned) | index bytes "
                 "btree / learned |")
        L.append("|---|---|---|---|---|---|")
        for c in (1, 2):
            b, l = ps.get("btree_c%d_tps" % c), ps.get("learned_c%d_tps" % c)
            L.append("| %d | %s | %s | %s | %s ; %s | %s / %s |" % (
                c, f(b, "%.0f"), f(l, "%.0f"), f(l / b if b and l else None), ",".join(
                    "%.0f" % x for x in ps.get("btree_c%d_tps_all" % c, [])),
                ",".join("%.0f" % x for x in ps.get("learned_c%d_tps_all" % c, [])),
                ps.get("btree_index_bytes"), ps.get("learned_index_bytes")))
        L.append("")
    tp = meta.get("tpcc")
    if tp:
        L.append("## TPC-C (go-tpc v1.0.12)")
        L.append("")
        if tp.get("skipped"):
            L.append("Skipped: %s." % tp["skipped"])
        else:
            sides = tp.get("sides", ["btree", "learned"])
            L.append("%s warehouse(s), %s threads, %s s per run, %s repetition(s), the schemas in rotating order; "
                     "data from `go-tpc tpcc prepare --output-type csv` loaded into a key-less copy of go-tpc's "
                     "schema (bench/tpcc/schema.sql), then the indexes below. Schemas: **btree** (every index "
                     "btree); **learned** (every secondary index `learned` where the AM takes its key types, "
                     "primary keys unique btree: the comparison of issue 5)%s."
                     % (tp["warehouses"], tp["threads"], tp["secs"], tp["reps"],
                        "; **learned_all** (the primary keys too, as UNIQUE `learned` indexes)"
                        if "learned_all" in sides else " (learned_all, with learned primary keys, skipped: "
                        "--tpcc-keep-pk)"))
            dr = tp.get("disk_resident")
            if dr:
                L.append("")
                L.append("**Disk-resident runs:** shared_buffers = %d kB, a quarter of btree's index set after "
                         "the load (%d bytes), %s, the OS page cache dropped before the runs: every "
                         "shared-buffer miss reads the disk." % (int(dr["shared_buffers_kB"]), int(dr["btree_index_bytes"]),
                                                                 dr["io"]))
            L.append("")
            L.append("| schema | tpmC median (all runs) | tpmC / btree | NEW_ORDER p99 ms | total index bytes before / "
                     "after the runs |")
            L.append("|---|---|---|---|---|")
            b = tp.get("btree_tpmC")
            for side in sides:
                l = tp.get(side + "_tpmC")
                L.append("| %s | %s (%s) | %s | %s | %s / %s |" % (
                    side, f(l, "%.0f"), ", ".join("%.0f" % x for x in tp.get(side + "_tpmC_all", [])),
                    f(l / b if b and l else None), f(tp.get(side + "_neworder_p99_ms"), "%.1f"),
                    tp.get(side + "_total_index_bytes"), tp.get(side + "_total_index_bytes_after")))
            L.append("")
            lsides = [x for x in sides if x != "btree"]
            L.append("| index | table | columns | %s | bytes after load: %s | index == seq scan after the runs |"
                     % (" | ".join("AM in %s" % x for x in lsides), " / ".join(sides)))
            L.append("|---|---|---|%s---|---|" % ("---|" * len(lsides)))
            for ix in tp.get("indexes", []):
                ams = []
                for x in lsides:
                    am = ix.get("am_" + x, "")
                    why = ix.get("why_btree_" + x, "")
                    ams.append(am + (" (%s)" % why if am == "btree" and why else ""))
                checks = ", ".join("%s: %s" % (x, ix["check_" + x]) for x in lsides if ix.get("check_" + x))
                L.append("| %s | %s | %s | %s | %s | %s |" % (
                    ix["name"], ix["table"], ix["columns"], " | ".join(ams),
                    " / ".join(str(ix.get("bytes_" + x, "")) for x in sides), checks))
        L.append("")

    # ---------------- figures
    pngs = []
    if have_pgb:
        pngs.append(ratio_bars(out, "ratio_throughput.png", "Throughput, learned / btree (> 1: learned faster)",
                               dss, [(WL_LABEL[w], [rt(le[ds], bt[ds], "pgb_%s_tps" % w) for ds in dss])
                                     for w in READS + WRITES]))
    series = [("index size", [rt(le[ds], bt[ds], "index_bytes") for ds in dss]),
              ("probe-loop µs/lookup", [rt(le[ds], bt[ds], "lookup_us") for ds in dss]),
              ("build time", [rt(le[ds], bt[ds], "build_s") for ds in dss])]
    for sb, px in colds:
        series += [("cold idx reads/lookup, sb %s" % sb, [rt(le[ds], bt[ds], px + "idx_reads") for ds in dss]),
                   ("cold µs/lookup, sb %s" % sb, [rt(le[ds], bt[ds], px + "us") for ds in dss])]
    pngs.append(ratio_bars(out, "ratio_size.png", "Size and per-lookup cost, learned / btree (< 1: learned better)",
                           dss, series))
    latp = os.path.join(out, "latency_quantiles.npz")
    if os.path.exists(latp):
        lat = dict(np.load(latp))
        for wl, t in (("point1", "Point lookup latency CDF (1 client pinned)"),
                      ("range100", "100-row range latency CDF"), ("mix50", "50/50 mix latency CDF (2 clients)"),
                      ("ins_rand", "Random insert latency CDF (2 clients)")):
            p = cdf_plot(out, "cdf_%s.png" % wl, lat, dss, wl, t)
            if p:
                pngs.append(p)
    pngs += sweep_plots(out, sw, dss)
    L.append("## Figures")
    L.append("")
    for p in pngs:
        L.append("![%s](%s)" % (p[:-4], p))
    L.append("")
    return H, L
