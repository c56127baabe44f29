"""Seeded, reproducible int8 key generators for the learned_idx benchmark.

Every generator returns a sorted numpy int64 array of exactly n keys, distinct
except for wiki (timestamps, about 22% duplicates).  Recipes follow
shared/research/learned-algorithms.md §4.3:

  seq_gaps  sequential keys with random small gaps (90% gap 1, 10% gap 2..20)
  books     cumulative sum of i.i.d. lognormal gaps, gap = 1 + floor(300*exp(1.41*N(0,1)))
  fb        multiplicative cascade over the 64-bit domain: 40 levels, left child
            with probability p(node) in [0.05, 0.95] taken from a hash of the node
            prefix, low 24 bits uniform
  osm       500 Gaussian "cities" (lognormal weights, sigma log-uniform in
            [0.0005, 0.01]) + 10% uniform background on [0,1)^2, Hilbert order 30,
            key = face<<61 | h<<1 | 1 (S2-leaf-like cell id)
  uniform   uniform random 64-bit keys (the whole int8 range)
  wiki      edit timestamps in seconds from 10^9: Poisson arrivals with a diurnal
            rate (1 + 0.8 sin) and 1% burst seconds at 50x, base rate calibrated
            so that about 22% of the keys repeat the previous one (duplicates kept)
  lognormal exp(2*N(0,1)) * 10^9 sampled (not the SOSD ppf grid), distinct

fb and osm live in the unsigned 64-bit domain; they are mapped to int8 with the
order-preserving map u -> u XOR 2^63 (reinterpreted as signed), so their keys
span the whole int8 range, negative keys included.
"""

import numpy as np

DATASETS = ("seq_gaps", "uniform", "books", "fb", "osm", "wiki", "lognormal")
# datasets whose keys may repeat
DUPLICATES = ("wiki",)

DESCRIPTIONS = {
    "seq_gaps": "sequential from 10^9 with random small gaps (gap 1 w.p. 0.9, else uniform 2..20)",
    "books": "cumulative sum of lognormal gaps, gap = 1 + floor(300*exp(1.41*N(0,1))), from 10^9",
    "fb": "multiplicative cascade over the 64-bit domain (40 levels, p(node) in [0.05,0.95] from a "
          "hash of the prefix, low 24 bits uniform), mapped to int8 by u XOR 2^63",
    "osm": "500 Gaussian clusters (lognormal weights, sigma log-uniform 0.0005..0.01) + 10% uniform "
           "background in [0,1)^2, Hilbert order 30, key = face<<61|h<<1|1, mapped to int8 by u XOR 2^63",
    "uniform": "uniform random 64-bit keys over the whole int8 range (distinct)",
    "wiki": "timestamps (s from 10^9): Poisson arrivals, diurnal rate 1+0.8sin(2pi t/86400), 1% burst seconds "
            "x50, base rate calibrated to ~22% duplicate keys (duplicates kept)",
    "lognormal": "exp(2*N(0,1))*10^9 sampled (not a ppf grid), distinct",
}

SEEDS = {"seq_gaps": 101, "books": 102, "fb": 103, "osm": 104, "uniform": 105, "wiki": 106, "lognormal": 107}

_U64 = np.uint64
_SIGN = _U64(1 << 63)


def _u64_to_i64(u):
    """Order-preserving map of uint64 onto int64."""
    return (u ^ _SIGN).view(np.int64)


def _splitmix64(x):
    x = x + _U64(0x9E3779B97F4A7C15)
    z = (x ^ (x >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))


def _gen_seq_gaps(rng, m):
    gaps = np.where(rng.random(m) < 0.9, 1, rng.integers(2, 21, m)).astype(np.int64)
    return np.int64(10**9) + np.cumsum(gaps)


def _gen_books(rng, m):
    gaps = 1 + np.floor(300.0 * np.exp(1.41 * rng.standard_normal(m))).astype(np.int64)
    return np.int64(10**9) + np.cumsum(gaps)


def _gen_fb(rng, m):
    prefix = np.zeros(m, dtype=_U64)
    salt = _U64(0x5EED0FB0)
    for lvl in range(40):
        h = _splitmix64(prefix ^ (_U64(lvl) << _U64(56)) ^ salt)
        p = 0.05 + 0.9 * ((h >> _U64(11)).astype(np.float64) * (1.0 / 9007199254740992.0))
        bit = (rng.random(m) >= p).astype(_U64)        # left child (0) with probability p
        prefix = (prefix << _U64(1)) | bit
    low = rng.integers(0, 1 << 24, m, dtype=np.uint64)
    return _u64_to_i64((prefix << _U64(24)) | low)


def _hilbert_d(x, y, order):
    """Vectorised Hilbert curve index of (x, y), both uint64 in [0, 2^order)."""
    nmask = _U64((1 << order) - 1)
    d = np.zeros(x.shape, dtype=_U64)
    s = 1 << (order - 1)
    while s > 0:
        su = _U64(s)
        rx = ((x & su) > 0)
        ry = ((y & su) > 0)
        d += (su * su) * ((3 * rx.astype(_U64)) ^ ry.astype(_U64))
        # rotate the quadrant
        flip = (~ry) & rx
        x = np.where(flip, x ^ nmask, x)
        y = np.where(flip, y ^ nmask, y)
        swap = ~ry
        x, y = np.where(swap, y, x), np.where(swap, x, y)
        s >>= 1
    return d


def _gen_osm(rng, m):
    ncity = 500
    w = np.exp(rng.standard_normal(ncity))
    w /= w.sum()
    cx, cy = rng.random(ncity), rng.random(ncity)
    sig = np.exp(rng.uniform(np.log(0.0005), np.log(0.01), ncity))
    cface = rng.integers(0, 6, ncity)
    nbg = m // 10
    ncl = m - nbg
    city = rng.choice(ncity, ncl, p=w)
    px = np.concatenate([cx[city] + sig[city] * rng.standard_normal(ncl), rng.random(nbg)])
    py = np.concatenate([cy[city] + sig[city] * rng.standard_normal(ncl), rng.random(nbg)])
    face = np.concatenate([cface[city], rng.integers(0, 6, nbg)]).astype(_U64)
    order = 30
    scale = float(1 << order)
    xi = np.clip(np.mod(px, 1.0) * scale, 0, scale - 1).astype(_U64)
    yi = np.clip(np.mod(py, 1.0) * scale, 0, scale - 1).astype(_U64)
    h = _hilbert_d(xi, yi, order)
    return _u64_to_i64((face << _U64(61)) | (h << _U64(1)) | _U64(1))


def _gen_uniform(rng, m):
    return rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, m, dtype=np.int64, endpoint=True)


def _gen_lognormal(rng, m):
    return np.floor(np.exp(2.0 * rng.standard_normal(m)) * 1e9).astype(np.int64)


def _wiki_rate_shape(rng, nsec):
    """Relative arrival rate per second: diurnal sine, 1% burst seconds at 50x."""
    t = np.arange(nsec, dtype=np.float64)
    shape = 1.0 + 0.8 * np.sin(2 * np.pi * t / 86400.0)
    shape[rng.random(nsec) < 0.01] *= 50.0
    return shape


def _gen_wiki(rng, n, dup_target=0.22):
    """n sorted timestamps with about dup_target of them equal to their predecessor."""
    # Calibrate the base rate on a sample of the rate shape: with Poisson(lam) arrivals in a
    # second, the expected number of distinct keys is 1 - exp(-lam), so the duplicate share is
    # 1 - sum(1 - exp(-lam)) / sum(lam); it grows monotonically with the base rate.
    sample = _wiki_rate_shape(np.random.default_rng(7), 1 << 20)
    lo, hi = 1e-4, 100.0
    for _ in range(60):
        mid = (lo * hi) ** 0.5
        lam = mid * sample
        dup = 1.0 - np.sum(-np.expm1(-lam)) / np.sum(lam)
        lo, hi = (mid, hi) if dup < dup_target else (lo, mid)
    base = (lo * hi) ** 0.5
    nsec = int(n / (base * sample.mean()) * 1.05) + 1000
    while True:
        counts = rng.poisson(base * _wiki_rate_shape(rng, nsec))
        if counts.sum() >= n:
            break
        nsec = int(nsec * 1.2)
    keys = np.int64(10**9) + np.repeat(np.arange(nsec, dtype=np.int64), counts)
    return keys[:n]


_GEN = {"seq_gaps": _gen_seq_gaps, "books": _gen_books, "fb": _gen_fb, "osm": _gen_osm,
        "uniform": _gen_uniform, "lognormal": _gen_lognormal, "wiki": _gen_wiki}


def generate(name, n):
    """Sorted int64 array of exactly n keys, distinct unless name is in DUPLICATES
    (reproducible for a given name and n)."""
    rng = np.random.default_rng(SEEDS[name])
    if name in ("seq_gaps", "books", "wiki"):
        return _GEN[name](rng, n)            # sorted already (wiki keeps its duplicates)
    m = int(n * 1.02) + 1000
    while True:
        u = np.unique(_GEN[name](rng, m))
        if len(u) >= n:
            break
        m = int(m * 1.2)
    if len(u) > n:
        drop = rng.choice(len(u), len(u) - n, replace=False)
        u = np.delete(u, drop)
    return u


# ---------------------------------------------------------------------------
# PostgreSQL binary COPY encoding for all-int8 tables

_HEADER = b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big")
_TRAILER = b"\xff\xff"


def copy_binary_chunks(columns, chunk=1 << 20):
    """Yield the PostgreSQL binary COPY stream of int8 columns (list of equal-length arrays)."""
    ncol = len(columns)
    fields = [("nf", ">i2")]
    for i in range(ncol):
        fields += [("l%d" % i, ">i4"), ("c%d" % i, ">i8")]
    dt = np.dtype(fields)                    # packed, no padding
    n = len(columns[0])
    yield _HEADER
    for s in range(0, n, chunk):
        e = min(n, s + chunk)
        rec = np.empty(e - s, dtype=dt)
        rec["nf"] = ncol
        for i, col in enumerate(columns):
            rec["l%d" % i] = 8
            rec["c%d" % i] = col[s:e]
        yield rec.tobytes()
    yield _TRAILER


if __name__ == "__main__":                   # quick self-check / stats
    import sys
    import time
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    for name in DATASETS:
        t = time.time()
        k = generate(name, n)
        assert len(k) == n and np.all(np.diff(k) >= 0)
        assert name in DUPLICATES or np.all(np.diff(k) > 0)
        print("%-9s n=%d min=%d max=%d dup=%.3f  %.2fs" % (name, n, k[0], k[-1], 1 - len(np.unique(k)) / n,
                                                          time.time() - t))
