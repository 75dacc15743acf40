#!/usr/bin/env python3
"""Check the links between README.md and docs/*.md: every relative link
names a file that exists, and every #anchor a heading of the file it
points into (GitHub's anchors: the heading in lower case, punctuation
but hyphens dropped, spaces as hyphens, -1, -2 after repeats).  TAP,
one result per file, appended to make check's log like the man pages'.
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def anchors(path, cache={}):
    if path not in cache:
        with open(path) as f:
            text = FENCE.sub("", f.read())
        seen, found = {}, set()
        for h in HEADING.findall(text):
            slug = re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else f"{slug}-{n}")
        cache[path] = found
    return cache[path]


def broken(rel):
    """The broken links of one file, as messages."""
    path = os.path.join(TOP, rel)
    with open(path) as f:
        text = FENCE.sub("", f.read())
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        name, _, frag = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), name)) \
            if name else path
        if not os.path.exists(dest):
            yield f"{target}: no such file"
        elif frag and (not dest.endswith(".md") or
                       frag not in anchors(dest)):
            yield f"{target}: no such heading"


def main():
    docs = sorted(os.path.join("docs", f)
                  for f in os.listdir(os.path.join(TOP, "docs"))
                  if f.endswith(".md"))
    files = ["README.md"] + docs
    print("==> suite doc_links")
    print(f"1..{len(files)}")
    for n, rel in enumerate(files, 1):
        bad = list(broken(rel))
        print(f"{'not ok' if bad else 'ok'} {n} {rel}")
        for msg in bad:
            print(f"# {msg}")
    print("<== suite doc_links rc=0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
