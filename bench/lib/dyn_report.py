"""Report + plots for the learned_idx dynamic-stage benchmark.

    python bench/lib/dyn_report.py bench/results/<stamp>_dynamic [--copy-to bench/RESULTS_DYNAMIC.md]

re-creates report.md and the PNGs from runs.csv, pending.csv, merge1.csv, meta.json and
latency_samples.npz.
"""

import csv
import json
import os
import shutil
import statistics
import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pgdb  # noqa: E402
from pgdb import reloptions_text  # noqa: E402

COLORS = {"btree": "#4C72B0", "learned": "#DD8452"}
WL_DESC = {"insert": "insert-only", "mix50": "50/50 insert/lookup", "mix90": "90/10 lookup/insert",
           "batch": "insert-only, 100-row INSERTs"}
# issue 30's throughput targets (learned / btree): single-row statements, and rows/s of 100-row INSERTs
TPS_TARGETS = {"insert": 1.0, "mix50": 1.05, "mix90": 1.0, "batch": {"random": 1.6, "append": 1.1}}
# issue 30's targets for memory, the first lookup and space
MEM_ABOVE_BTREE_MB = 1.0      # a backend's memory after one lookup, above a btree backend's
FIRST_LOOKUP_RATIO = 2.0      # a new connection's first point lookup, learned / btree
SPACE_END_FRESH = 1.5         # after +50% random inserts: size / fresh build of the same rows
SPACE_PEAK_FRESH = 2.0        # ... never above this during the run
SPACE_VS_BTREE = 0.5          # ... and at most this fraction of btree's size at the end
CHURN_FRESH = 1.5             # after 10 delete/insert/VACUUM rounds: size / fresh build
CHURN_STABLE = 0.05           # stable after round 3: rounds 4..10 within 5% of round 3
# how a merge's replaced pages are recycled (docs/architecture.md, "VACUUM and garbage collection")
RECYCLING = ("the pages a merge replaces are recycled only once no snapshot older than the merge remains "
             "(by VACUUM, or by the collection a later merge runs first)")


def num(x):
    if x is None or x == "":
        return None
    if x in ("True", "False"):
        return x == "True"
    try:
        f = float(x)
        return int(f) if f.is_integer() and "." not in x and "e" not in x.lower() else f
    except ValueError:
        return x


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [{k: num(v) for k, v in r.items()} for r in csv.DictReader(f)]


def preloaded(row):
    """A conns row measured with learned_idx in shared_preload_libraries (older runs have no column)."""
    return str(row.get("preload")) in ("True", "true", "1")


def med(xs):
    xs = [x for x in xs if isinstance(x, (int, float)) and not isinstance(x, bool)]
    return statistics.median(xs) if xs else None


def ratio(a, b):
    if a is None or b in (None, 0):
        return None
    return a / b


def f(x, fmt="%.2f"):
    if x is None or x == "":
        return "–"
    try:
        return fmt % x
    except TypeError:
        return str(x)


def verdict(v, limit, ge):
    if v is None:
        return "n/a"
    ok = v >= limit if ge else v <= limit
    return "pass" if ok else "**miss**"


def sel(runs, keys, wl, side):
    return [r for r in runs if r["keys"] == keys and r["workload"] == wl and r["side"] == side]


def agg(runs, keys, wl, side, col):
    return med([r.get(col) for r in sel(runs, keys, wl, side)])


def tps_plot(out, runs, keys_list, wls):
    fig, axes = plt.subplots(1, len(keys_list), figsize=(5.5 * len(keys_list), 4.2), squeeze=False)
    for ax, keys in zip(axes[0], keys_list):
        for i, side in enumerate(("learned", "btree")):
            xs, ys = [], []
            for j, wl in enumerate(wls):
                x = j + (i - 0.5) * 0.38
                m = agg(runs, keys, wl, side, "tps")
                b = ax.bar(x, m or 0, 0.38, color=COLORS[side], label=side if j == 0 else None)
                if m:
                    ax.annotate("%.0f" % m, (x, m), ha="center", va="bottom", fontsize=7)
                for r in sel(runs, keys, wl, side):
                    if isinstance(r.get("tps"), (int, float)):
                        xs.append(x)
                        ys.append(r["tps"])
            ax.scatter(xs, ys, s=10, color="black", zorder=3)
        ax.set_xticks(range(len(wls)))
        ax.set_xticklabels([WL_DESC.get(w, w) for w in wls], fontsize=8)
        ax.set_title("%s keys: tps (median bar, dots = repetitions)" % keys, fontsize=9)
        ax.set_ylabel("transactions / s")
        ax.grid(axis="y", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tps.png"), dpi=110)
    plt.close(fig)
    return "tps.png"


def cdf_plot(out, lat, keys_list, wls):
    if not lat:
        return None
    fig, axes = plt.subplots(1, len(keys_list), figsize=(5.5 * len(keys_list), 4.2), squeeze=False)
    styles = {"insert": "-", "mix50": "--", "mix90": ":", "batch": "-."}
    for ax, keys in zip(axes[0], keys_list):
        for wl in wls:
            for side in ("learned", "btree"):
                k = "%s|%s|%s" % (keys, wl, side)
                if k not in lat.files:
                    continue
                x = np.sort(lat[k])
                if not len(x):
                    continue
                y = np.arange(1, len(x) + 1) / len(x)
                ax.plot(x, y, styles.get(wl, "-"), color=COLORS[side], lw=1.2,
                        label="%s, %s" % (side, WL_DESC.get(wl, wl)))
        ax.set_xscale("log")
        ax.set_xlabel("insert latency (us, pgbench -l, client side)")
        ax.set_ylabel("fraction of inserts")
        ax.set_title("%s keys: insert latency CDF" % keys, fontsize=9)
        ax.axhline(0.99, color="grey", lw=0.6, ls=":")
        ax.axhline(0.5, color="grey", lw=0.6, ls=":")
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "latency_cdf.png"), dpi=110)
    plt.close(fig)
    return "latency_cdf.png"


def wal_plot(out, runs, keys_list):
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    labels = []
    for j, keys in enumerate(keys_list):
        labels.append("%s keys" % keys)
        for i, side in enumerate(("learned", "btree")):
            x = j + (i - 0.5) * 0.38
            tot = agg(runs, keys, "insert", side, "wal_per_insert")
            ix = agg(runs, keys, "insert", side, "wal_index_per_insert")
            ax.bar(x, tot or 0, 0.38, color=COLORS[side], alpha=0.45, label=("%s total" % side) if j == 0 else None)
            if ix is not None:
                ax.bar(x, ix, 0.38 * 0.6, color=COLORS[side], label=("%s index only" % side) if j == 0 else None)
            if tot:
                ax.annotate("%.0f" % tot, (x, tot), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(keys_list)))
    ax.set_xticklabels(labels)
    ax.set_ylabel("WAL bytes per insert (insert-only runs, merges included)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "wal.png"), dpi=110)
    plt.close(fig)
    return "wal.png"


def space_plot(out, space):
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for sd in ("learned", "btree"):
        pts = [r for r in space if r["side"] == sd and r.get("what") == "sample"]
        summ = [r for r in space if r["side"] == sd and r.get("what") == "summary"]
        if not pts or not summ:
            continue
        fresh = summ[0]["pages_fresh"]
        ax.plot([r["t_s"] for r in pts], [r["pages"] / fresh for r in pts], color=COLORS[sd], label=sd)
    ax.axhline(SPACE_PEAK_FRESH, color="grey", ls=":", lw=1)
    ax.axhline(SPACE_END_FRESH, color="grey", ls="--", lw=1)
    ax.set_xlabel("seconds into the +50% random-insert run")
    ax.set_ylabel("index size / fresh build of the final rows")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "space.png"), dpi=110)
    plt.close(fig)


def write_report(out, copy_to=""):
    runs = read_csv(os.path.join(out, "runs.csv"))
    pend = read_csv(os.path.join(out, "pending.csv"))
    for p in pend:
        def tmin(col):
            v = p.get(col)
            try:
                return min(float(x) for x in str(v).split(";")) if v not in (None, "") else None
            except ValueError:
                return None
        tp, tm, b1, b2 = tmin("times_pending"), tmin("times_merged"), tmin("times_btree"), tmin("times_btree2")
        if p.get("ratio_min") is None and tp and tm:
            p["ratio_min"] = tp / tm
            if b1 and b2:
                p["ratio_min_normalized"] = (tp / b1) / (tm / b2)
    conns = read_csv(os.path.join(out, "conns.csv"))
    space = read_csv(os.path.join(out, "space.csv"))
    churn = read_csv(os.path.join(out, "churn.csv"))
    m1 = read_csv(os.path.join(out, "merge1.csv"))
    for m in m1:
        tb = m.get("total_pages_before")
        if tb:
            # denominator: the index as the merge found it (N-row static stage + pending pages); after the
            # merge, total_pages also counts the old generation's pages, not yet recycled
            m["frac_wal"] = m["wal_pages"] / tb if m.get("wal_pages") is not None else None
            m["frac_segments"] = (m["pages_written_segments"] / tb if m.get("pages_written_segments") is not None
                                  else None)
    with open(os.path.join(out, "meta.json")) as fh:
        meta = json.load(fh)
    lat_path = os.path.join(out, "latency_samples.npz")
    lat = np.load(lat_path) if os.path.exists(lat_path) else None
    keys_list = [k for k in meta["keys"] if any(r["keys"] == k for r in runs)] or meta["keys"]
    wls = [w for w in meta["workloads"] if any(r["workload"] == w for r in runs)] or meta["workloads"]
    L = []
    w = L.append
    mach = meta.get("machine", {})
    st = meta.get("settings", {})
    lw = meta.get("learned_with") or {}
    lw_text = reloptions_text(lw)
    # runs before meta.json recorded the defaults had merge_ratio 100 and plain pages
    defaults = meta.get("learned_defaults") or {"merge_ratio": 100, "compression": "off"}
    mr_text = str(lw.get("merge_ratio", defaults["merge_ratio"]))
    w("# learned_idx dynamic-stage benchmark: learned vs btree under inserts\n")
    w("Finished %s; %s mode, N = %s starting rows; %d s pgbench runs, %d repetitions (median reported); "
      "wall time %s.%s\n" % (meta.get("finished"), meta.get("size_mode"), "{:,}".format(meta["n"]),
                             meta["duration_s"], meta["reps"],
                             ("%.1f min" % (meta["elapsed_s"] / 60)) if meta.get("elapsed_s") else "n/a",
                             "" if meta.get("complete") else " **PARTIAL: the run did not finish; numbers so far.**"))
    w("Command: `%s`\n" % meta.get("command"))
    if meta.get("assertions") == "on":
        w(pgdb.ASSERTIONS_WARNING + "\n")
    w("> **Noise warning.** This 2-vCPU VM is shared with other engineers running tests while the benchmark "
      "runs; pgbench runs use both vCPUs (2 clients, 2 backends, the merge worker). Single runs can differ by "
      "tens of percent; read the per-repetition values, not only the medians. Load average at the end: %s.\n"
      % mach.get("loadavg_at_end", "?"))
    w("## Setup\n")
    w("- Machine: %s vCPU, %s, %s, kernel %s, %s; %s. Repo HEAD %s (%s uncommitted files in src/, sql/, "
      "Makefile)." % (mach.get("nproc"), mach.get("memory"), mach.get("cpu"), mach.get("kernel"), mach.get("os"),
                      meta.get("pg_version", "").split(" on ")[0], mach.get("git_head"), mach.get("git_dirty_files")))
    w("- Server settings (identical for both indexes): " + ", ".join("%s=%s" % kv for kv in sorted(st.items())) + ".")
    w("- Server pinning: %s; driver/pgbench pinning: %s." % (meta.get("server_pin"), meta.get("client_pin")))
    w("- Tables `d_l` (learned index) and `d_b` (btree) hold the same N rows `k = 10*i, v = i` (heap in random "
      "order). Random keys insert `k = 10*random(1,N) + random(1,9)` (between existing keys); append keys insert "
      "`k = nextval(seq)` above every existing key. Lookups: `SELECT v FROM t WHERE k = 10*random(1,N)`.")
    w("- pgbench `-n -M prepared -c 2 -j 2 -T %d`, `PGOPTIONS=-c synchronous_commit=off`, `-l --sampling-rate=%g`; "
      "mixes via `-f insert.sql@W -f lookup.sql@W`. Repetitions alternate learned / btree (order flipped each "
      "repetition)." % (meta["duration_s"], meta.get("sampling_rate", 1)))
    w("- Before every run: inserted rows deleted, VACUUM, REINDEX, setval, CHECKPOINT, pg_prewarm of table and "
      "index, so every run starts from the same N-row state with a fresh index. Learned uses %s "
      "in the pgbench runs, so merges happen during the runs (by the background worker)."
      % (("the reloptions `WITH (%s)` (others default)" % lw_text) if lw_text else
         "its default reloptions (%s, pending_limit = learned_idx.pending_limit = %s)"
         % (reloptions_text(defaults), st.get("learned_idx.pending_limit", "its default"))))
    w("- After every run: learned_index_info (generation = merges), `learned_index_merge` for the rest of the "
      "pending list (its WAL counted), `learned_index_check(idx, true)`, and count/sum/inserted rows through "
      "the index vs a seqscan and vs pgbench's insert count.")
    w("- WAL = `pg_current_wal_insert_lsn()` difference over the run (plus the final merge for learned), divided "
      "by the inserts pgbench committed; it includes heap, sequence (append) and merge WAL. 'Index WAL' is the "
      "`pg_waldump --stats` share of the Btree rmgr (btree) or Generic + XLOG rmgrs (learned: GenericXLog "
      "records and log_newpage_range FPIs; XLOG also holds a few checkpoint/other records). full_page_writes=%s, "
      "a CHECKPOINT right before each run, no checkpoint during a run (checkpoint_timeout=%s, max_wal_size=%s).\n"
      % (st.get("full_page_writes"), st.get("checkpoint_timeout"), st.get("max_wal_size")))

    # ------------------------------------------------------------- summary: issue 30's targets
    tgt = []
    for c_keys in sorted({r["keys"] for r in conns}):
        per = {sd: [r for r in conns if r["keys"] == c_keys and r["side"] == sd and not preloaded(r)]
               for sd in ("learned", "btree")}
        pre = {sd: [r for r in conns if r["keys"] == c_keys and r["side"] == sd and preloaded(r)]
               for sd in ("learned", "btree")}
        ml, mb = med([r.get("backend_bytes") for r in per["learned"]]), med([r.get("backend_bytes") for r in per["btree"]])
        d = (ml - mb) / 2 ** 20 if ml is not None and mb is not None else None
        tgt.append(("1. backend memory after one lookup, learned minus btree, MB (%d connections each, %s "
                    "pending entries, %s keys)" % (len(per["learned"]), f(med([r.get("pending_entries")
                                                                              for r in per["learned"]]), "%.0f"),
                                                   c_keys), d, "<= %.0f MB" % MEM_ABOVE_BTREE_MB,
                    verdict(d, MEM_ABOVE_BTREE_MB, False)))
        r = ratio(med([x.get("first_lookup_ms") for x in per["learned"]]),
                  med([x.get("first_lookup_ms") for x in per["btree"]]))
        tgt.append(("2. first point lookup of a new connection, %s keys (medians)" % c_keys, r,
                    "<= %.0fx" % FIRST_LOOKUP_RATIO, verdict(r, FIRST_LOOKUP_RATIO, False)))
        if pre["learned"] and pre["btree"]:
            r = ratio(med([x.get("first_lookup_ms") for x in pre["learned"]]),
                      med([x.get("first_lookup_ms") for x in pre["btree"]]))
            tgt.append(("2. first point lookup of a new connection, %s keys, learned_idx in "
                        "shared_preload_libraries (medians)" % c_keys, r,
                        "<= %.0fx" % FIRST_LOOKUP_RATIO, verdict(r, FIRST_LOOKUP_RATIO, False)))
    for p in pend:
        r = p.get("ratio_normalized")
        how = "normalised by the ref index" if p.get("lookup_us_ref1") is not None else "normalised by btree"
        if r is None:
            r, how = p.get("ratio_pending_merged"), "raw"
        tgt.append(("3. lookup with pending list just under the trigger / after merge, %s keys (%s; raw median %s)"
                    % (p["keys"], how, f(p.get("ratio_pending_merged"), "%.2f")), r, "<= 1.1x",
                    verdict(r, 1.1, False)))
    sp = {r["side"]: r for r in space if r.get("what") == "summary"}
    if "learned" in sp:
        L_ = sp["learned"]
        tgt.append(("4. size after +50%% random inserts / fresh build (after VACUUM: %s)"
                    % f(L_.get("vacuumed_over_fresh")), L_.get("end_over_fresh"), "<= %.1fx" % SPACE_END_FRESH,
                    verdict(L_.get("end_over_fresh"), SPACE_END_FRESH, False)))
        tgt.append(("4. peak size during the run / fresh build", L_.get("peak_over_fresh"),
                    "<= %.1fx" % SPACE_PEAK_FRESH, verdict(L_.get("peak_over_fresh"), SPACE_PEAK_FRESH, False)))
        if "btree" in sp:
            r = ratio(L_.get("pages_end"), sp["btree"].get("pages_end"))
            tgt.append(("4. size at the end, learned / btree (btree: %sx its fresh build)"
                        % f(sp["btree"].get("end_over_fresh")), r, "<= %.1fx" % SPACE_VS_BTREE,
                        verdict(r, SPACE_VS_BTREE, False)))
    lch = sorted([r for r in churn if r["side"] == "learned"], key=lambda r: r["round"])
    if lch:
        last = lch[-1]
        tgt.append(("5. size after %d delete/insert/VACUUM rounds / fresh build" % last["round"],
                    last.get("over_fresh"), "<= %.1fx" % CHURN_FRESH, verdict(last.get("over_fresh"), CHURN_FRESH,
                                                                              False)))
        r3 = [r for r in lch if r["round"] == 3]
        if r3 and len(lch) > 3:
            drift = max(abs(r["pages"] / r3[0]["pages"] - 1) for r in lch if r["round"] > 3)
            tgt.append(("5. largest change of the size after round 3, relative to round 3", drift,
                        "<= %.0f%%" % (100 * CHURN_STABLE), verdict(drift, CHURN_STABLE, False)))
    for wl in ("insert", "batch"):
        if wl in wls and "random" in keys_list:
            r = ratio(agg(runs, "random", wl, "learned", "wal_per_insert"),
                      agg(runs, "random", wl, "btree", "wal_per_insert"))
            tgt.append(("6. WAL bytes/insert (merges incl.), %s, random keys" % WL_DESC[wl], r, "<= 1.0x",
                        verdict(r, 1.0, False)))
    for keys in keys_list:
        for wl in wls:
            if wl not in TPS_TARGETS:
                continue
            lim = TPS_TARGETS[wl]
            lim = lim[keys] if isinstance(lim, dict) else lim
            col = "rows_per_s" if wl == "batch" else "tps"
            r = ratio(agg(runs, keys, wl, "learned", col), agg(runs, keys, wl, "btree", col))
            tgt.append(("%s. %s %s, %s keys" % ("7" if wl == "batch" else "8", "rows/s" if wl == "batch" else "tps",
                                                 WL_DESC[wl], keys), r, ">= %.2fx" % lim, verdict(r, lim, True)))
    tgt.sort(key=lambda t: t[0].split(".")[0].zfill(3))
    w("## Targets (issue 30)\n")
    w("Targets 9 and 10 (TPC-C, cached and disk-resident) are measured by `bench/run.sh` (main mode, "
      "TPC-C section), not by this driver.\n")
    w("| metric | measured (learned / btree unless the metric names a unit) | target | verdict |")
    w("|---|---|---|---|")
    for name, v, lim, vd in tgt:
        w("| %s | %s | %s | %s |" % (name, f(v, "%.3f"), lim, vd))
    npass = sum(1 for t in tgt if t[3] == "pass")
    w("\nTargets met: **%d / %d** (a miss never fails the run).\n" % (npass, len(tgt)))

    probs = meta.get("problems") or []
    w("## Correctness\n")
    if probs:
        w("**PROBLEMS (%d):**\n" % len(probs))
        for p in probs:
            w("- **%s**" % p)
        w("")
    nl = [r for r in runs if r["side"] == "learned"]
    okc = sum(1 for r in nl if r.get("check_check") is True)
    okn = sum(1 for r in runs if r.get("check_count_ok") is True)
    w("- learned_index_check(idx, true) true after %d / %d learned runs; count/sum/inserted rows through the "
      "index equal the seqscan and pgbench's insert count after %d / %d runs (both indexes)."
      % (okc, len(nl), okn, len(runs)))
    for p in pend:
        w("- pending-lookup probe loop (%s keys): results of learned-with-pending, learned-merged and btree "
          "equal: %s; learned_index_check after the merge: %s." % (p["keys"], p.get("results_equal"), p.get("check")))
    for m in m1:
        w("- 1%%-append merge (%s keys): learned_index_check after the merge: %s." % (m["keys"], m.get("check")))
    w("")

    # ------------------------------------------------------------- automatic observations
    obs = []
    # the insert-time trigger (LearnedMaybeMerge): entries > static / merge_ratio, or the records' bytes
    # (16 per int8 entry: TID, flags, key) > pending_limit kB
    try:
        mratio = float(mr_text)
    except ValueError:
        mratio = 10.0
    limit_kb = lw.get("pending_limit") or str(st.get("learned_idx.pending_limit", "12288")).replace("kB", "")
    try:
        limit_entries = float(limit_kb) * 1024 / 16
    except ValueError:
        limit_entries = float("inf")
    for r in nl:
        # the trigger when pgbench stopped: the static stage's size then, not at the start (a 12 s
        # run of 100-row appends takes 1M rows to about 10M, and the trigger with them; measured
        # against the start's, the list looked 6-9x over a trigger it was just under)
        trig = min((r.get("li_entries_after") or r.get("li_entries_before") or meta["n"]) / mratio,
                   limit_entries)
        pend_end = r.get("li_pending_entries_after")
        if isinstance(pend_end, (int, float)) and pend_end > 2 * trig:
            obs.append("%s/%s rep %s: %d pending entries when pgbench stopped = %.1fx the merge trigger "
                       "(%d merges during the run, each step of a swept merge counted)%s" % (r["keys"], r["workload"], r["rep"], pend_end,
                                                          pend_end / trig, r.get("merges_during_run") or 0,
                                                          " -- **no merge at all**" if not r.get("merges_during_run")
                                                          else ""))
    for keys in keys_list:
        for wl in wls:
            g = [(r.get("pages_end_run") or 0) / r["pages_before"] for r in sel(runs, keys, wl, "learned")
                 if r.get("pages_before")]
            gb = [(r.get("pages_end_run") or 0) / r["pages_before"] for r in sel(runs, keys, wl, "btree")
                  if r.get("pages_before")]
            merged = any(r.get("merges_during_run") for r in sel(runs, keys, wl, "learned"))
            why = (RECYCLING + ", so after a merge the old and the new generation are both on disk"
                   if merged else "no merge ran: the growth is the pending list's pages")
            if g:
                obs.append("%s/%s: learned relation grew %.1fx during a %d s run at most (btree %.2fx); %s"
                           % (keys, wl, max(g), meta["duration_s"], max(gb) if gb else float("nan"), why))
    if obs:
        w("## Automatic observations\n")
        for o in obs:
            w("- " + o)
        w("")

    # ------------------------------------------------------------- tps
    w("## Throughput (tps)\n")
    w("![tps](tps.png)\n")
    w("| keys | workload | learned tps (median) | btree tps (median) | ratio | learned insert tps | btree insert tps "
      "| learned runs | btree runs |")
    w("|---|---|---|---|---|---|---|---|---|")
    for keys in keys_list:
        for wl in wls:
            lt, bt = agg(runs, keys, wl, "learned", "tps"), agg(runs, keys, wl, "btree", "tps")
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                keys, WL_DESC[wl], f(lt, "%.0f"), f(bt, "%.0f"), f(ratio(lt, bt), "%.3f"),
                f(agg(runs, keys, wl, "learned", "tps_insert"), "%.0f"),
                f(agg(runs, keys, wl, "btree", "tps_insert"), "%.0f"),
                " / ".join(f(r.get("tps"), "%.0f") for r in sel(runs, keys, wl, "learned")),
                " / ".join(f(r.get("tps"), "%.0f") for r in sel(runs, keys, wl, "btree"))))
    w("")
    if "batch" in wls:
        w("**Batched inserts.** The `insert-only, 100-row INSERTs` workload runs `INSERT ... SELECT ... FROM "
          "generate_series(1, 100)` (random or appended keys, as above): a transaction is 100 rows, so its tps "
          "times 100 is rows a second, and the statement and commit overhead that bounds the single-row "
          "workloads (a table with no index inserts single rows only 1.13x to 1.27x as fast as one with a "
          "btree, `bench/insert_ceiling.sh`) is spread over 100 rows, leaving more of the time to the index. "
          "Issue 30's target 7 is this workload's rows/s.\n")
        w("| keys | learned rows/s (median) | btree rows/s (median) | learned / btree |")
        w("|---|---|---|---|")
        for keys in keys_list:
            lr, br = agg(runs, keys, "batch", "learned", "rows_per_s"), agg(runs, keys, "batch", "btree", "rows_per_s")
            w("| %s | %s | %s | %s |" % (keys, f(lr, "%.0f"), f(br, "%.0f"), f(ratio(lr, br), "%.3f")))
        w("")

    # ------------------------------------------------------------- latency
    w("## Insert latency (pgbench -l, client-side, µs)\n")
    cdf = cdf_plot(out, lat, keys_list, wls) if lat is not None else None
    if cdf:
        w("![latency CDF](%s)\n" % cdf)
    w("| keys | workload | learned p50 | btree p50 | learned p99 | btree p99 | p99 ratio | learned p99.9 | "
      "btree p99.9 | learned max | btree max |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for keys in keys_list:
        for wl in wls:
            g = lambda side, c: agg(runs, keys, wl, side, c)  # noqa: E731
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                keys, WL_DESC[wl], f(g("learned", "lat_ins_p50_us"), "%.0f"), f(g("btree", "lat_ins_p50_us"), "%.0f"),
                f(g("learned", "lat_ins_p99_us"), "%.0f"), f(g("btree", "lat_ins_p99_us"), "%.0f"),
                f(ratio(g("learned", "lat_ins_p99_us"), g("btree", "lat_ins_p99_us")), "%.2f"),
                f(g("learned", "lat_ins_p999_us"), "%.0f"), f(g("btree", "lat_ins_p999_us"), "%.0f"),
                f(max([r.get("lat_ins_max_us") or 0 for r in sel(runs, keys, wl, "learned")] or [0]), "%.0f"),
                f(max([r.get("lat_ins_max_us") or 0 for r in sel(runs, keys, wl, "btree")] or [0]), "%.0f")))
    w("\nPercentiles are medians over the repetitions of each run's percentile; max is the maximum over runs.\n")

    # ------------------------------------------------------------- WAL
    w("## WAL per insert\n")
    w("![WAL](%s)\n" % wal_plot(out, runs, keys_list))
    w("| keys | workload | learned WAL B/insert | btree WAL B/insert | ratio | learned index WAL B/insert | "
      "btree index WAL B/insert | index ratio | learned final-merge WAL (MB) |")
    w("|---|---|---|---|---|---|---|---|---|")
    for keys in keys_list:
        for wl in wls:
            g = lambda side, c: agg(runs, keys, wl, side, c)  # noqa: E731
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                keys, WL_DESC[wl], f(g("learned", "wal_per_insert"), "%.0f"), f(g("btree", "wal_per_insert"), "%.0f"),
                f(ratio(g("learned", "wal_per_insert"), g("btree", "wal_per_insert")), "%.3f"),
                f(g("learned", "wal_index_per_insert"), "%.0f"), f(g("btree", "wal_index_per_insert"), "%.0f"),
                f(ratio(g("learned", "wal_index_per_insert"), g("btree", "wal_index_per_insert")), "%.3f"),
                f((g("learned", "wal_final_merge_bytes") or 0) / 1e6, "%.2f")))
    w("")

    # ------------------------------------------------------------- wait events
    w("## Wait events of the pgbench backends\n")
    w("pg_stat_activity sampled every 50 ms during each run (active pgbench backends only; CPU = no wait "
      "event), summed over all runs of a key mode. LWLock:BufferContent is a buffer content lock wait (for "
      "learned inserts: the pending tail page / metapage all inserts go through).\n")
    w("| keys | side | samples | top wait events (share of samples) |")
    w("|---|---|---|---|")
    for keys in keys_list:
        for side in ("learned", "btree"):
            tot = {}
            for r in runs:
                if r["keys"] != keys or r["side"] != side:
                    continue
                try:
                    for k, v in json.loads(r.get("waits") or "{}").items():
                        tot[k] = tot.get(k, 0) + v
                except ValueError:
                    pass
            n = sum(tot.values())
            top = sorted(tot.items(), key=lambda kv: -kv[1])[:6]
            w("| %s | %s | %d | %s |" % (keys, side, n, ", ".join("%s %.1f%%" % (k, 100.0 * v / n) for k, v in top)
                                         if n else "–"))
    w("")

    # ------------------------------------------------------------- learned state
    w("## Learned index state per run\n")
    w("merges = generation after the run - before (merges done during the run, by the background worker or "
      "inline); pending = pending entries left when pgbench stopped (then merged by learned_index_merge); pages "
      "= pg_relation_size/8192 before the run -> when pgbench stopped -> after the final merge (a merge "
      "writes new pages for every segment it rewrites; " + RECYCLING + ", so the final merge's old generation "
      "is still allocated here).\n")
    w("| keys | workload | rep | side | tps | inserts | merges | pending at end | segments | total_pages (info) "
      "| rel pages before -> end -> merged | final merge s | top wait events (samples) | merge-worker samples |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        try:
            waits = json.loads(r.get("waits") or "{}")
        except ValueError:
            waits = {}
        tw = ", ".join("%s %d" % kv for kv in list(waits.items())[:4])
        w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s -> %s -> %s | %s | %s | %s |" % (
            r["keys"], r["workload"], r["rep"], r["side"], f(r.get("tps"), "%.0f"), r.get("inserted_rows"),
            r.get("merges_during_run", "–"), r.get("li_pending_entries_after", "–"),
            r.get("li_segments_merged", "–"), r.get("li_total_pages_merged", "–"), r.get("pages_before"),
            r.get("pages_end_run"), r.get("pages_after"), f(r.get("final_merge_s"), "%.2f"), tw, r.get("merge_worker_samples", "–")))
    w("")

    # ------------------------------------------------------------- pending lookups
    w("## Lookups with a pending list just under the merge trigger\n")
    w("Learned index with merge_ratio = %s and pending_limit = 1000000 kB (trigger: pending > entries/%s); "
      "0.9 N / merge_ratio entries inserted with one INSERT ... SELECT (no merge), then a server-side probe loop "
      "(nested loop over `d_probe` random existing keys, index scan per probe, warm-up first, then repetitions "
      "interleaved with the references) before and after `learned_index_merge` on the same index. References "
      "measured interleaved in both phases: a freshly built learned index on a copy of the same rows (`ref`, "
      "empty pending list; older runs without it used btree) and btree on the same rows. 'normalised' = "
      "(learned/ref while pending) / (learned/ref after the merge), which cancels machine-load drift between "
      "the two phases; 'min' uses the fastest repetition instead of the median.\n" % (mr_text, mr_text))
    w("| keys | probes | pending entries (pages) | trigger at | learned µs/lookup pending / merged | raw ratio | "
      "ref µs/lookup (pending phase / merged phase) | btree µs/lookup (pending phase / merged phase) | "
      "normalised ratio (median) | raw ratio (min) | normalised ratio (min) | merge s | merge WAL MB |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p in pend:
        w("| %s | %s | %s (%s) | %s | %s / %s | %s | %s / %s | %s / %s | %s | %s | %s | %s | %s |" % (
            p["keys"], p.get("probes"), p.get("pending_entries"), p.get("pending_pages"),
            f(p.get("trigger_entries"), "%.0f"), f(p.get("lookup_us_pending"), "%.3f"),
            f(p.get("lookup_us_merged"), "%.3f"), f(p.get("ratio_pending_merged"), "%.3f"),
            f(p.get("lookup_us_ref1"), "%.3f"), f(p.get("lookup_us_ref2"), "%.3f"),
            f(p.get("lookup_us_btree"), "%.3f"), f(p.get("lookup_us_btree2"), "%.3f"),
            f(p.get("ratio_normalized"), "%.3f"), f(p.get("ratio_min"), "%.3f"),
            f(p.get("ratio_min_normalized"), "%.3f"), f(p.get("merge_s"), "%.2f"),
            f((p.get("merge_wal_bytes") or 0) / 1e6, "%.2f")))
    w("\nPer-repetition seconds (pending phase: learned | ref | btree; merged phase: learned | ref | btree):\n")
    for p in pend:
        w("- %s: %s | %s | %s ; %s | %s | %s" % (p["keys"], p.get("times_pending"), p.get("times_ref1", "–"),
                                                 p.get("times_btree"), p.get("times_merged"),
                                                 p.get("times_ref2", "–"), p.get("times_btree2")))
    w("")

    # ------------------------------------------------------------- merge rewrite
    w("## Pages written by a merge after adding 1% of N\n")
    w("Fresh index (REINDEX), merge_ratio = 50 (so no automatic merge), 1% of N inserted with one INSERT ... "
      "SELECT, CHECKPOINT, then `learned_index_merge`. 'WAL pages' = WAL bytes of the merge / 8192; "
      "'segment pages' = pages of segments whose (start block, pages) changed (learned_index_segments before/"
      "after) + directory pages + metapage. Fractions are over the index's pages before the merge (learned_index_info."
      "total_pages: N-row static stage + pending pages); the pages after the merge also count the old "
      "generation's pages, not yet recycled (no collection ran since). Random keys shown for contrast (every segment receives "
      "entries).\n")
    w("| keys | inserted | merge s | WAL bytes | WAL pages | segments before -> after | rewritten segments | "
      "segment pages written | index pages before -> after merge | WAL pages / pages before | segment pages / "
      "pages before |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for m in m1:
        w("| %s | %s | %s | %s | %s | %s -> %s | %s | %s | %s | %s | %s |" % (
            m["keys"], m.get("inserted"), f(m.get("merge_s"), "%.2f"), m.get("wal_bytes"), f(m.get("wal_pages"), "%.0f"),
            m.get("segments_before"), m.get("segments_after"), m.get("segments_rewritten"),
            m.get("pages_written_segments"), "%s -> %s" % (m.get("total_pages_before"), m.get("total_pages_after")),
            f(100 * m["frac_wal"] if m.get("frac_wal") is not None else None, "%.2f%%"),
            f(100 * m["frac_segments"] if m.get("frac_segments") is not None else None, "%.2f%%")))
    w("")
    # ------------------------------------------------------------- connections
    if conns:
        w("## Memory and first lookup per connection\n")
        w("The pending list just under the learned index's own merge trigger (the same rows inserted into both "
          "tables), then new connections to each index, all kept open: the first point lookup's wall time "
          "(client side; for learned it includes loading the shared library), a second lookup, and the sum of "
          "`pg_backend_memory_contexts` after them (the `learned pending copy` context separately). Then the "
          "same again after a restart with `shared_preload_libraries = learned_idx` (library: preloaded), so "
          "that the postmaster has loaded the library and no backend does.\n")
        w("| keys | library | side | connections | pending entries | first lookup ms (median, max) | "
          "second lookup ms | backend MB (median, max) | pending copy MB (median) |")
        w("|---|---|---|---|---|---|---|---|---|")
        for c_keys in sorted({r["keys"] for r in conns}):
            for pl, sd in ((pl, sd) for pl in (False, True) for sd in ("learned", "btree")):
                rs = [r for r in conns if r["keys"] == c_keys and r["side"] == sd and preloaded(r) == pl]
                if not rs:
                    continue
                w("| %s | %s | %s | %d | %s | %s, %s | %s | %s, %s | %s |" % (
                    c_keys, "preloaded" if pl else "loaded by the lookup", sd, len(rs),
                    rs[0].get("pending_entries"),
                    f(med([r["first_lookup_ms"] for r in rs])), f(max(r["first_lookup_ms"] for r in rs)),
                    f(med([r["second_lookup_ms"] for r in rs]), "%.3f"),
                    f(med([r["backend_bytes"] for r in rs]) / 2 ** 20), f(max(r["backend_bytes"] for r in rs) / 2 ** 20),
                    f(med([r["pending_copy_bytes"] for r in rs]) / 2 ** 20)))
        w("")
    # ------------------------------------------------------------- space and churn
    if sp:
        w("## Space under +50% random inserts\n")
        w("+N/2 random keys in 100-row INSERTs by 2 pgbench writers while 1 pgbench reader looks keys up; the "
          "index's size sampled every second; then a VACUUM, and a fresh build of the same rows (REINDEX).\n")
        w("![space](space.png)\n")
        w("| side | pages before | peak | at the end | after VACUUM | fresh build | end / fresh | peak / fresh | "
          "wall s |")
        w("|---|---|---|---|---|---|---|---|---|")
        for sd in ("learned", "btree"):
            r = sp.get(sd)
            if r:
                w("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    sd, r.get("pages_base"), r.get("pages_peak"), r.get("pages_end"), r.get("pages_vacuumed"),
                    r.get("pages_fresh"), f(r.get("end_over_fresh")), f(r.get("peak_over_fresh")),
                    f(r.get("wall_s"), "%.0f")))
        w("")
        space_plot(out, space)
    if churn:
        w("## Space under delete/insert/VACUUM rounds\n")
        w("Each round deletes about 10% of the rows (by a hash of the key), inserts 10% of N new random keys in "
          "INSERT ... SELECT statements and runs VACUUM; pages after each round, and a fresh build at the end.\n")
        sides = [sd for sd in ("learned", "btree") if any(r["side"] == sd for r in churn)]
        w("| round | " + " | ".join("%s pages (/ fresh)" % sd for sd in sides) + " |")
        w("|---|" + "---|" * len(sides))
        for rnd in sorted({r["round"] for r in churn}):
            cells = []
            for sd in sides:
                rr = [r for r in churn if r["side"] == sd and r["round"] == rnd]
                cells.append("%s (%s)" % (rr[0]["pages"], f(rr[0].get("over_fresh"))) if rr else "–")
            w("| %s | %s |" % (rnd, " | ".join(cells)))
        w("")
    notes = meta.get("notes") or []
    if notes:
        w("## Notes\n")
        for n in notes:
            w("- %s" % n)
        w("")
    w("Raw data: runs.csv (one row per pgbench run, incl. WAL by rmgr and wait-event samples), pending.csv, "
      "merge1.csv, conns.csv, space.csv, churn.csv, meta.json, latency_samples.npz; pgbench logs and outputs in "
      "raw/ (not committed).\n")
    w("## Plots\n")
    w("- tps.png, latency_cdf.png, wal.png%s\n" % (", space.png" if sp else ""))
    tps_plot(out, runs, keys_list, wls)
    text = "\n".join(L)
    with open(os.path.join(out, "report.md"), "w") as fh:
        fh.write(text)
    if copy_to:
        rel = os.path.relpath(out, os.path.dirname(os.path.abspath(copy_to)))
        fixed = text
        for png in ("tps.png", "latency_cdf.png", "wal.png", "space.png"):
            fixed = fixed.replace("](%s)" % png, "](%s/%s)" % (rel, png))
        with open(copy_to, "w") as fh:
            fh.write(fixed)


if __name__ == "__main__":
    out = sys.argv[1]
    cp = ""
    if "--copy-to" in sys.argv:
        cp = sys.argv[sys.argv.index("--copy-to") + 1]
    write_report(out, copy_to=cp)
