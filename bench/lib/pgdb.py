"""One autocommit psycopg connection with the small query helpers every bench script uses.

The connection parameters come from the environment (PGHOST, PGPORT, PGUSER, PGDATABASE), which
bench/run.sh sets for its throwaway cluster.
"""
import csv
import time

import psycopg

import datasets as D

ASSERTIONS_WARNING = ("> **WARNING: this server was built with assertions (--enable-cassert, debug_assertions = on): "
                      "its timings measure the assertion checks too and are not representative.**")


def write_csv(path, rows):
    """Write a list of dicts as CSV: the columns are every key, in order of first appearance."""
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def parse_with(text):
    """'name=value[,name=value...]' (the --learned-with option) -> dict; ValueError if malformed.
    Names must be identifiers and values alphanumeric (with '_' or '.'): they go into SQL."""
    opts = {}
    for kv in filter(None, (x.strip() for x in text.split(","))):
        k, _, v = kv.partition("=")
        if not k.strip().isidentifier() or not v.strip().replace("_", "").replace(".", "").isalnum():
            raise ValueError("expected name=value[,name=value...], got %r" % kv)
        opts[k.strip()] = v.strip()
    return opts


def reloptions_text(opts):
    """'a = 1, b = on' for a dict of reloptions."""
    return ", ".join("%s = %s" % kv for kv in opts.items())


def with_clause(opts):
    """' WITH (a = 1, b = on)' for a dict of reloptions, '' for none."""
    return " WITH (%s)" % reloptions_text(opts) if opts else ""


class DB:
    def __init__(self):
        self.conn = psycopg.connect("", autocommit=True)
        self.conn.execute("SET client_min_messages = warning")

    def q(self, sql, params=None):
        cur = self.conn.execute(sql, params)
        return cur.fetchall() if cur.description else None

    def q1(self, sql, params=None):
        rows = self.q(sql, params)
        return rows[0] if rows else None

    def server_build(self):
        """The server's version and whether it was built with assertions (--enable-cassert):
        {"pg_version": "PostgreSQL 18.6 (assertions off)", "pg_version_full": version(),
        "assertions": "on"/"off"}.  A report prints pg_version, and a loud warning when on."""
        full = self.q1("SELECT version()")[0]
        asserts = self.q1("SHOW debug_assertions")[0]
        return {"pg_version": "%s (assertions %s)" % (full.split(" on ")[0], asserts),
                "pg_version_full": full, "assertions": asserts}

    def dict1(self, sql, params=None):
        cur = self.conn.execute(sql, params)
        cols = [d.name for d in cur.description]
        row = cur.fetchone()
        return dict(zip(cols, row)) if row else None

    def dicts(self, sql, params=None):
        cur = self.conn.execute(sql, params)
        cols = [d.name for d in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    def timed(self, sql, params=None):
        """(seconds, rows) of one statement, timed on the client."""
        t0 = time.perf_counter()
        cur = self.conn.execute(sql, params)
        rows = cur.fetchall() if cur.description else None
        return time.perf_counter() - t0, rows

    def lsn(self):
        """The WAL insert position, in bytes."""
        return int(self.q1("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn")[0])

    def lsn_text(self):
        return self.q1("SELECT pg_current_wal_insert_lsn()::text")[0]

    def vacuum_frozen(self, *tables):
        """VACUUM (FREEZE, ANALYZE) the tables so that every page is all-visible, and return
        {table: (all-visible pages, pages)}.  The benchmark server runs with
        synchronous_commit = off, and VACUUM cannot mark a page all-visible while the commit of
        the rows on it is not yet flushed (the last load before it, for example): index-only
        scans would then fetch every heap row.  So flush WAL first, and repeat while pages are
        left over."""
        res = {}
        for t in tables:
            for _ in range(3):
                self.q("CHECKPOINT")
                self.q("VACUUM (FREEZE, ANALYZE) %s" % t)
                vis, pages = self.q1("SELECT relallvisible, relpages FROM pg_class WHERE oid = %s::regclass",
                                     (t,))
                res[t] = (int(vis), int(pages))
                if vis >= pages:
                    break
        return res

    def copy_in(self, table, columns):
        """COPY the numpy columns into table, in binary format."""
        with self.conn.cursor() as cur:
            with cur.copy("COPY %s FROM STDIN (FORMAT binary)" % table) as cp:
                for chunk in D.copy_binary_chunks(columns):
                    cp.write(chunk)
