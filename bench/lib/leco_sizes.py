"""Directory size per segment mode (G4/G5): learned_index_info for mode =
model, zonemap and auto, against btree's inner pages, on the bench datasets.

    PGHOST=... PGPORT=... python bench/lib/leco_sizes.py --n 10000000 [--datasets seq_gaps,books]
                                                         [--eps 32]

Prints one markdown table (to stdout).  Needs numpy and psycopg (bench/.venv).
"""
import argparse
import os
import sys
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import datasets as D  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--datasets", default="seq_gaps,books,fb,osm")
    ap.add_argument("--eps", default="32")
    args = ap.parse_args()
    conn = psycopg.connect("", autocommit=True)
    conn.execute("CREATE EXTENSION IF NOT EXISTS learned_idx")
    conn.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
    conn.execute("SET maintenance_work_mem = '1GB'")
    print("| dataset | eps | mode | segments (model/zonemap) | pieces | model bytes compressed / uncompressed | "
          "zone-map bytes compressed / uncompressed | directory pages | dir bytes / btree inner bytes | "
          "expected pages per lookup | build s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.datasets.split(","):
        keys = D.generate(name, args.n)
        conn.execute("DROP TABLE IF EXISTS ls")
        conn.execute("CREATE TABLE ls (k int8) WITH (autovacuum_enabled = off)")
        with conn.cursor() as cur:
            with cur.copy("COPY ls FROM STDIN (FORMAT binary)") as cp:
                for chunk in D.copy_binary_chunks([keys]):
                    cp.write(chunk)
        conn.execute("CREATE INDEX ls_bt ON ls USING btree (k)")
        inner = conn.execute("SELECT internal_pages FROM pgstatindex('ls_bt')").fetchone()[0] * 8192
        conn.execute("DROP INDEX ls_bt")
        for eps in args.eps.split(","):
            for mode in ("model", "zonemap", "auto"):
                t0 = time.perf_counter()
                conn.execute("CREATE INDEX ls_l ON ls USING learned (k) WITH (mode = %s, error_bound = %s)"
                             % (mode, int(eps)))
                bt = time.perf_counter() - t0
                i = conn.execute("""SELECT segments, pieces, model_bytes, model_bytes_uncompressed,
                    zonemap_bytes, zonemap_bytes_uncompressed, directory_pages, items_per_page
                    FROM learned_index_info('ls_l')""").fetchone()
                kinds = conn.execute("""SELECT count(*) FILTER (WHERE kind = 'model'),
                    count(*) FILTER (WHERE kind = 'zonemap') FROM learned_index_segments('ls_l')""").fetchone()
                # expected window in pages: model pieces (1 + (below + above) / P)
                # weighted by entries, zone-map groups by their stride
                ep = conn.execute("""SELECT sum(CASE WHEN kind = 'model' THEN entries * (1 + coalesce(max_error, 0) * 2.0 / %s)
                                                  ELSE entries::numeric END) / sum(entries)
                    FROM learned_index_segments('ls_l') WHERE kind <> 'nulls'""" % i[7]).fetchone()[0]
                print("| %s | %s | %s | %d/%d | %d | %d / %d | %d / %d | %d | %.3f | <= %.2f | %.1f |" % (
                    name, eps, mode, kinds[0], kinds[1], i[1], i[2], i[3], i[4], i[5], i[6],
                    i[6] * 8192 / inner if inner else 0, float(ep), bt))
                sys.stdout.flush()
                conn.execute("DROP INDEX ls_l")
        conn.execute("DROP TABLE ls")


if __name__ == "__main__":
    main()
