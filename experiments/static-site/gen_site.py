#!/usr/bin/env python3
"""Writes the static bench site (issue 4, section 3) into DIR: N pages of about 10 KB.

Deterministic (random.Random seeded by the page number). Page 0 is `/` (index.html), page i
is `/p/{i:05}.html`. Page i links to its children 20i+1 .. 20i+20 (so every page is reachable
from the index, at most 4 hops away), to 10 pseudo-random pages, and back to `/`; every 100th
page also links to `/private/{i}.html`, which robots.txt disallows (and which does not exist):
a crawler that requests one is not obeying robots.txt.

usage: gen_site.py DIR [N]
"""
import os
import random
import sys

WORDS = (
    "crawler frontier politeness robots sitemap archive record digest revisit change rate "
    "freshness importance host page link anchor scheduler budget queue fetch response header "
    "status content body charset encoding canonical fragment query path scheme port origin "
    "delay backoff retry timeout stream parser token element attribute value text block "
    "signature shingle hash estimate interval poisson periodic bursty model truth web test"
).split()
TARGET_BYTES = 10 * 1024
FANOUT = 20


def url_of(i: int) -> str:
    return "/" if i == 0 else f"/p/{i:05d}.html"


def page(i: int, n: int) -> str:
    rng = random.Random(i)
    links = [c for c in range(FANOUT * i + 1, FANOUT * i + FANOUT + 1) if c < n]
    links += [rng.randrange(n) for _ in range(10)]
    nav = "".join(f'<li><a href="{url_of(j)}">page {j}</a></li>\n' for j in links)
    if i % 100 == 0:
        nav += f'<li><a href="/private/{i}.html">private {i}</a></li>\n'
    head = (
        f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>Page {i}</title></head>\n<body>\n<header><a href=\"/\">home</a></header>\n"
        f"<nav><ul>\n{nav}</ul></nav>\n<main>\n<h1>Page {i}</h1>\n"
    )
    tail = "</main>\n<footer>static bench site</footer>\n</body></html>\n"
    body = []
    size = len(head) + len(tail)
    while size < TARGET_BYTES:
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(40, 90)))
        paragraph = f"<p>{words.capitalize()}.</p>\n"
        body.append(paragraph)
        size += len(paragraph)
    return head + "".join(body) + tail


def main() -> None:
    root = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    os.makedirs(os.path.join(root, "p"), exist_ok=True)
    with open(os.path.join(root, "robots.txt"), "w") as f:
        f.write("User-agent: *\nDisallow: /private/\n")
    for i in range(n):
        path = os.path.join(root, "index.html") if i == 0 else os.path.join(root, "p", f"{i:05d}.html")
        with open(path, "w") as f:
            f.write(page(i, n))


if __name__ == "__main__":
    main()
