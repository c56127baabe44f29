"""Account a backend's `perf record -e cpu-clock --call-graph dwarf` samples per function group.

    perf script -i perf.data | python3 bench/lib/perf_groups.py [--tx N] [--label T]

Each sample's stack (leaf first, as perf script prints it) goes to the first group below
whose rule matches, the index AM's own groups first (learned_idx's and btree's functions,
named by the symbols of learned_idx.so and of the postgres binary's exported functions;
static functions of a stripped postgres show as [unknown] and fall to the group of their
nearest named caller).  Prints each group's share of the samples and, with --tx (the
transactions the backend ran while recorded), microseconds a transaction.
"""
import argparse
import collections
import sys

AM = ("learnedgettuple", "btgettuple", "learnedrescan", "btrescan", "learnedbeginscan", "btbeginscan",
      "learnedendscan", "btendscan")


def group(names):
    s = set(names)
    if s & {"learnedbeginscan", "btbeginscan"}:
        return "AM: beginscan"
    if s & {"learnedendscan", "btendscan"}:
        return "AM: endscan"
    if s & {"learnedrescan", "btrescan"}:
        return "AM: rescan (key preprocessing)"
    if "learnedgettuple" in s:
        if "start_scan" in s:
            return "AM: scan start (metapage, directory, pending view)"
        if "find_boundary" in s:
            if s & {"read_vpage", "reopen_vpage", "open_vpage", "LearnedReadBufferRecent"}:
                return "AM: positioning, leaf page read and check"
            return "AM: positioning, search"
        if "fill_batch" in s or "fill_batch.isra.0" in s:
            return "AM: batch (page decode, key tests)"
        if "static_advance" in s:
            return "AM: next page"
        return "AM: per-tuple return"
    if "btgettuple" in s:
        if "_bt_first" in s:
            if "_bt_readpage" in s:
                return "AM: batch (page decode, key tests)"
            if s & {"_bt_relandgetbuf", "_bt_getbuf", "ReadBufferExtended", "_bt_checkpage", "_bt_getroot"}:
                return "AM: positioning, leaf page read and check"
            return "AM: positioning, search"
        if s & {"_bt_next", "_bt_steppage", "_bt_readnextpage", "_bt_readpage"}:
            return "AM: next page"
        return "AM: per-tuple return"
    if "index_fetch_heap" in s or "heap_hot_search_buffer" in s:
        return "heap fetch"
    if s & {"planner", "standard_planner", "pg_plan_query", "GetCachedPlan", "BuildCachedPlan", "pg_plan_queries"}:
        return "planning (custom plan per execution)"
    if s & {"standard_ExecutorStart", "ExecInitNode", "PortalStart"}:
        return "executor start"
    if s & {"standard_ExecutorEnd", "ExecEndNode", "PortalDrop", "ExecutorEnd"}:
        return "executor end"
    if s & {"WaitEventSetWait", "secure_read", "secure_write", "pq_getbyte", "pq_flush", "pq_getmessage",
            "socket_flush", "pq_putmessage"}:
        return "protocol (socket reads and writes)"
    if s & {"standard_ExecutorRun", "PortalRun"}:
        return "executor run (nodes, Tid Scan of pk, aggregates)"
    if s & {"CommitTransactionCommand", "StartTransactionCommand", "finish_xact_command",
            "start_xact_command"}:
        return "transaction start/commit"
    return "other backend (parse/bind, bookkeeping)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tx", type=float, default=0)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    cnt = collections.Counter()
    fn = collections.Counter()   # AM-internal: self time of learned_idx.so / btree functions
    total = 0       # samples
    names = []
    leaf = None

    period = [1e6]   # ns a sample stands for: the header line's cpu-clock period

    def flush():
        nonlocal total
        if not names:
            return
        total += 1
        cnt[group(names)] += period[0] / 1e6
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line.strip():
            flush()
            names = []
            leaf = None
            continue
        if not line.startswith((" ", "\t")):
            flush()
            names = []
            leaf = None
            f = line.split()
            if "cpu-clock:" in f and f.index("cpu-clock:") > 0:
                period[0] = float(f[f.index("cpu-clock:") - 1])
            continue
        f = line.split()
        if len(f) < 2:
            continue
        sym = f[1].split("+")[0]
        names.append(sym)
        if leaf is None:
            leaf = sym
            if "learned_idx.so" in line or sym.startswith("_bt") or sym.startswith("bt"):
                fn[sym] += period[0] / 1e6
    flush()
    ms = sum(cnt.values())   # CPU milliseconds the samples stand for
    print("### %s: %d samples, %.0f ms of CPU%s" % (a.label, total, ms, (", %.0f transactions" % a.tx) if a.tx else ""))
    print()
    print("| group | share | µs / transaction |" if a.tx else "| group | share |")
    print("|---|---|---|" if a.tx else "|---|---|")
    for g, n in sorted(cnt.items(), key=lambda x: -x[1]):
        if a.tx:
            print("| %s | %.1f%% | %.2f |" % (g, 100.0 * n / ms, n * 1000.0 / a.tx))
        else:
            print("| %s | %.1f%% |" % (g, 100.0 * n / ms))
    am = sum(n for g, n in cnt.items() if g.startswith("AM"))
    print("| **index AM, total** | **%.1f%%** | %s |" % (100.0 * am / ms, "%.2f" % (am * 1000.0 / a.tx) if a.tx else ""))
    print()
    print("Top AM leaf functions (self): " + ", ".join("%s %.1f%%" % (k, 100.0 * v / ms)
                                                       for k, v in fn.most_common(12)))


main()
