#!/usr/bin/env python3
"""scripts/check_links.py: every relative link in the project's Markdown resolves.

    python3 scripts/check_links.py [FILE.md ...]

Default files: README.md, CHANGELOG.md, docs/*.md, bench/*.md, bench/**/README.md.  Checks
Markdown links and images, [text](path) and ![alt](path) (http(s)/mailto links and pure #anchors
are skipped; a #fragment is dropped), and the result paths that reports quote in backticks
(results/<run>/..., bench/results/<run>/..., quoted or not), resolved against the file's directory, then the
repository root.  In a git checkout a target must be tracked (a file, or a directory holding
tracked files): an untracked or ignored file resolves here but not in a clone.  Prints each one
that does not resolve; exit status 1 if any.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# a result path quoted anywhere in the text (in backticks, parentheses or plain)
QUOTED = re.compile(r"(?<![\w/.<-])((?:bench/)?results/[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*)")


def targets(text):
    for m in LINK.finditer(text):
        t = m.group(1)
        if re.match(r"^[a-z][a-z0-9+.-]*:", t) or t.startswith("#"):
            continue
        yield t.split("#")[0]
    for m in QUOTED.finditer(text):
        yield m.group(1).rstrip(".")


def tracked_paths():
    """Tracked files and their directories (relative to ROOT), or None outside a git checkout."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    paths = set()
    for f in out.decode().split("\0"):
        while f:
            paths.add(f)
            f = os.path.dirname(f)
    return paths


def main(files):
    tracked = tracked_paths()

    def resolves(c):
        c = os.path.normpath(c)
        if tracked is None:
            return os.path.exists(c)
        return os.path.relpath(c, ROOT) in tracked

    if not files:
        files = ["README.md", "CHANGELOG.md"] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) \
            + sorted(glob.glob(os.path.join(ROOT, "bench", "*.md"))) \
            + sorted(glob.glob(os.path.join(ROOT, "bench", "**", "README.md"), recursive=True))
    bad = n = 0
    for f in files:
        path = f if os.path.isabs(f) else os.path.join(ROOT, f)
        if not os.path.exists(path) or "/results/" in path:
            continue
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        for t in targets(text):
            n += 1
            cands = [os.path.join(os.path.dirname(path), t), os.path.join(ROOT, t)]
            if t.startswith("results/"):
                cands.append(os.path.join(ROOT, "bench", t))
            if not any(resolves(c) for c in cands):
                bad += 1
                print("%s: %s does not resolve" % (os.path.relpath(path, ROOT), t))
    print("%d links checked, %d broken" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
