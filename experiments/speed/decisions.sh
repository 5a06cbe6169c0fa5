#!/usr/bin/env bash
# What the online scheduler decided, with every timing taken out, so that two builds can be
# compared with `diff` (a change meant to be faster must decide the same): the bench's lines
# for the first crawl, each of 3 windows, the steady state and the end (`Stats` with its
# re-keyings, requeued and withdrawn pages, each window's `λ_0`, the freshness).
#
# usage: experiments/speed/decisions.sh BINARY PAGES PAIRS
#   e.g. for b in before after; do experiments/speed/decisions.sh /tmp/online-$b 300000 1000000 > /tmp/$b.txt; done
#        diff /tmp/before.txt /tmp/after.txt       # at 3·10^5 and 10^6 pages in BENCHMARKS.md
set -euo pipefail
[[ $# -eq 3 && -x $1 ]] || { sed -n 6,8p "$0" >&2; exit 2; }
FRESHET_BENCH_PAGES=$2 FRESHET_BENCH_PAIRS=$3 FRESHET_BENCH_WINDOWS=3 "$1" --bench nomatch 2>&1 > /dev/null |
    grep -E '^(setup|window|steady state|at the end)' |
    sed -E 's/in [0-9.]+[mµn]?s//g; s/\([0-9]+ pairs\/s, [0-9]+ per CPU second; the first pair alone [0-9.]+[mµn]?s\)//;
        s/[0-9]+ per CPU second \([0-9]+ wall\)//; s/[0-9]+ pairs\/s, [0-9]+ per CPU second//;
        s/RSS grew [0-9]+ B \([0-9.]+ B\/page\)//'
