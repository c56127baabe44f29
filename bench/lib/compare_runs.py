"""Compare learned/btree ratios between groups of bench/run.sh result folders (e.g. two
PostgreSQL majors, each run twice), as Markdown tables on stdout.

    python bench/lib/compare_runs.py [--datasets a,b,...] 15=bench/results/A 15=bench/results/B 18=...

Each argument is LABEL=DIR (a result folder of the main mode: results.csv + meta.json).  Runs of
the same label are repetitions: their spread (max - min of the ratio over the label's runs) is the
run-to-run noise, and a ratio whose group means differ by more than the larger of the two groups'
spreads (and by more than 0.02) is marked as moved: with two runs a label, a coarse screen.  With one run per label there is no spread, and nothing is marked.
--datasets keeps only those datasets of every run (e.g. the ones a partial run has).  TPC-C and
pgbench -S results (meta.json) are tabulated when present.
"""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as R            # noqa: E402
import report_suite as RS     # noqa: E402

# a difference of ratios below this is never called a move (deterministic metrics have no spread)
MIN_MOVE = 0.02
# (label, results.csv key, True if higher is better for learned)
METRICS = [("size", "index_bytes", False), ("build time", "build_s", False),
           ("probe-loop µs (point)", "lookup_us", False), ("probe-loop µs (100-row range)", "range_us", False),
           ("index buffers per lookup", "lookup_bufs_idx", False)] + \
    [(RS.WL_LABEL[w] + " tps", "pgb_%s_tps" % w, True) for w in RS.READS + RS.WRITES] + \
    [("WAL/insert, random keys", "pgb_ins_rand_wal_per_tx", False),
     ("WAL/insert, append keys", "pgb_ins_app_wal_per_tx", False),
     ("cold lookups/s (1st shared_buffers)", "cold_lookups_s", True),
     ("cold idx reads/lookup (1st shared_buffers)", "cold_idx_reads", False),
     ("cold lookups/s (2nd shared_buffers)", "cold2_lookups_s", True),
     ("cold idx reads/lookup (2nd shared_buffers)", "cold2_idx_reads", False)]


def geo(xs):
    xs = [x for x in xs if isinstance(x, (int, float)) and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def f(x, fmt="%.2f"):
    return "–" if x is None else fmt % x


def num(x):
    return "{:,.0f}".format(x) if abs(x) >= 1000 else "%.3g" % x


def load_run(d, only=None):
    rows, meta = R.load(d)
    by = {}
    for r in rows:
        if not only or r["dataset"] in only:
            by.setdefault(r["dataset"], {})[r["kind"]] = r
    return by, meta


def ratios(by, key):
    """{dataset: learned / btree} for one metric."""
    out = {}
    for ds, kinds in by.items():
        v = RS.rt(kinds.get("learned", {}), kinds.get("btree", {}), key)
        if v is not None:
            out[ds] = v
    return out


def absolute(by, key, kind):
    return geo([kinds.get(kind, {}).get(key) for kinds in by.values()])


def main(args):
    groups = {}
    only = None
    if args and args[0].startswith("--datasets"):
        spec = args[0].partition("=")[2] or args[1]
        only = set(spec.split(","))
        args = args[1:] if "=" in args[0] else args[2:]
        print("Datasets: %s only." % ", ".join(sorted(only)))
        print("")
    for a in args:
        label, _, d = a.partition("=")
        if not d:
            sys.exit("usage: compare_runs.py LABEL=DIR [LABEL=DIR ...]")
        groups.setdefault(label, []).append((d, ) + load_run(d, only))
    labels = list(groups)
    P = print
    P("Runs: " + "; ".join("**%s**: %s" % (lb, ", ".join("`%s` (%s)" % (
        os.path.relpath(d), m.get("machine", {}).get("pg_version", "?").split(" on ")[0]) for d, _, m in groups[lb]))
        for lb in labels))
    P("")
    # ---- geometric means of the ratios
    P("### Geometric mean over the datasets of learned / btree")
    P("")
    hdr = ["metric"]
    for lb in labels:
        hdr += ["%s run %d" % (lb, i + 1) for i in range(len(groups[lb]))] + ["%s spread" % lb]
    hdr += ["%s − %s" % (labels[-1], labels[0]), "moved?"] if len(labels) > 1 else []
    P("| " + " | ".join(hdr) + " |")
    P("|---" * len(hdr) + "|")
    moved_cells = []
    for name, key, up in METRICS:
        cells, means, spreads = [name], {}, {}
        for lb in labels:
            vals = [geo(ratios(by, key).values()) for _, by, _ in groups[lb]]
            cells += [f(v) for v in vals]
            ok = [v for v in vals if v is not None]
            means[lb] = statistics.mean(ok) if ok else None
            spreads[lb] = (max(ok) - min(ok)) if len(ok) > 1 else None
            cells.append(f(spreads[lb]))
        if all(v is None for v in means.values()):
            continue
        if len(labels) > 1:
            a, b = means[labels[0]], means[labels[-1]]
            diff = (b - a) if a is not None and b is not None else None
            sp = [s for s in spreads.values() if s is not None]
            moved = diff is not None and sp and abs(diff) > max(max(sp), MIN_MOVE)
            cells += [f(diff, "%+.2f"), ("**yes** (%s for learned)" % (
                "better" if (diff > 0) == up else "worse")) if moved else ("no" if sp else "n/a")]
        P("| " + " | ".join(cells) + " |")
    P("")
    P("Ratios: learned / btree; for tps and lookups/s **> 1 means learned is faster**, for the others "
      "**< 1 means learned is smaller / faster / reads less**. Spread: max − min of the run ratios of a "
      "label (its run-to-run noise); moved: the difference of the labels' means exceeds the larger spread "
      "(and 0.02).")
    P("")
    # ---- per dataset, per metric: where a ratio moved by more than the spread
    if len(labels) > 1:
        P("### Per dataset: ratios that moved by more than the run-to-run spread")
        P("")
        P("| metric | dataset | " + " | ".join("%s runs" % lb for lb in labels) + " | difference of means |")
        P("|---|---|" + "---|" * len(labels) + "---|")
        n = 0
        for name, key, up in METRICS:
            per = {lb: [ratios(by, key) for _, by, _ in groups[lb]] for lb in labels}
            dss = sorted(set().union(*[set(r) for lb in labels for r in per[lb]]))
            for ds in dss:
                vals = {lb: [r.get(ds) for r in per[lb] if r.get(ds) is not None] for lb in labels}
                if not all(len(v) > 1 for v in vals.values()):
                    continue
                sp = max(max(v) - min(v) for v in vals.values())
                diff = statistics.mean(vals[labels[-1]]) - statistics.mean(vals[labels[0]])
                if abs(diff) > max(sp, MIN_MOVE):
                    n += 1
                    P("| %s | %s | %s | %+.2f (spread %.2f; %s for learned) |" % (
                        name, ds, " | ".join(" / ".join("%.2f" % x for x in vals[lb]) for lb in labels),
                        diff, sp, "better" if (diff > 0) == up else "worse"))
        if not n:
            P("| (none) | | " + " | " * len(labels) + " |")
        P("")
    # ---- absolute values: which side moved
    P("### Absolute values (geometric mean over the datasets, mean of a label's runs)")
    P("")
    P("| metric | " + " | ".join("btree %s | learned %s" % (lb, lb) for lb in labels) + " |")
    P("|---|" + "---|---|" * len(labels))
    for name, key, up in METRICS:
        cells = [name]
        for lb in labels:
            for kind in ("btree", "learned"):
                vals = [absolute(by, key, kind) for _, by, _ in groups[lb]]
                vals = [v for v in vals if v is not None]
                cells.append(num(statistics.mean(vals)) if vals else "–")
        if all(c == "–" for c in cells[1:]):
            continue
        P("| " + " | ".join(cells) + " |")
    P("")
    # ---- TPC-C and pgbench -S
    rows = []
    for lb in labels:
        for d, _, m in groups[lb]:
            tp = m.get("tpcc") or {}
            if tp.get("btree_tpmC"):
                rows.append((lb, d, tp))
    if rows:
        P("### TPC-C (go-tpc): tpmC, median of the repetitions (each repetition in brackets)")
        P("")
        P("| major | folder | warehouses × seconds × reps | btree | learned | learned_all | learned / btree "
          "| learned_all / btree | NEW_ORDER p99 ms btree / learned / learned_all |")
        P("|---|---|---|---|---|---|---|---|---|")
        for lb, d, tp in rows:
            def side(s):
                return "%s (%s)" % (f(tp.get(s + "_tpmC"), "%.0f"),
                                    ", ".join("%.0f" % x for x in tp.get(s + "_tpmC_all") or []))
            P("| %s | `%s` | %s × %s × %s | %s | %s | %s | %s | %s | %s / %s / %s |" % (
                lb, os.path.relpath(d), tp.get("warehouses", "?"), tp.get("secs", "?"), tp.get("reps", "?"),
                side("btree"), side("learned"), side("learned_all"),
                f(ratio(tp, "learned_tpmC", "btree_tpmC")),
                f(ratio(tp, "learned_all_tpmC", "btree_tpmC")),
                f(tp.get("btree_neworder_p99_ms"), "%.1f"), f(tp.get("learned_neworder_p99_ms"), "%.1f"),
                f(tp.get("learned_all_neworder_p99_ms"), "%.1f")))
        P("")
    rows = []
    for lb in labels:
        for d, _, m in groups[lb]:
            ps = m.get("pgbench_s") or {}
            if ps.get("runs"):
                rows.append((lb, d, ps))
    if rows:
        P("### pgbench -S (select-only, pgbench_accounts by its primary-key btree or by a learned index): tps")
        P("")
        P("| major | folder | scale × seconds × reps | 1 client btree / learned (ratio) | 2 clients btree / learned (ratio) |")
        P("|---|---|---|---|---|")
        for lb, d, ps in rows:
            P("| %s | `%s` | %s × %s × %s | %s | %s |" % (lb, os.path.relpath(d), ps.get("scale"), ps.get("secs"),
                                                      ps.get("reps"), pgbs(ps, 1), pgbs(ps, 2)))
        P("")


def ratio(d, a, b):
    x, y = d.get(a), d.get(b)
    return x / y if isinstance(x, (int, float)) and isinstance(y, (int, float)) and y else None


def pgbs(ps, c):
    b, l = ps.get("btree_c%d_tps" % c), ps.get("learned_c%d_tps" % c)
    return "%s / %s (%s)" % (f(b, "%.0f"), f(l, "%.0f"), f(ratio(ps, "learned_c%d_tps" % c, "btree_c%d_tps" % c)))


if __name__ == "__main__":
    main(sys.argv[1:])
