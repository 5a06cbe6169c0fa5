#!/usr/bin/env bash
# The online scheduler's speed targets of issue 3 (10^7 pages on 10^5 hosts: at least 10^6
# `next`/`fetched` pairs per CPU second on one core, at most 64 bytes a page): the bench
# `crates/schedule/benches/online.rs` of each build named, the builds taking turns in every
# round (see sim.sh for why). By default the first crawl alone (every page fetched once, the
# first `next` included); with --full, 4·10^7 pairs more in 8 windows of 5·10^6 (windows 1–3:
# the transient after the first crawl; 4–7: the steady state). Prints a row per run: pairs
# per CPU second of the first crawl, the first pair's time, bytes allocated a page, and with
# --full each window's pairs per CPU second and the expected freshness against the solver's
# (the same for builds that make the same decisions: decisions.sh compares them line by line).
#
# usage: experiments/speed/sched.sh [--pages N] [--rounds K] [--full] NAME=BINARY...
#   BINARY: the bench executable (`cargo bench -p freshet-schedule --bench online --no-run`
#   prints its path; copy it aside); defaults: 10^7 pages, 3 rounds. About 15 s a first crawl
#   and 70 s a full run on this project's 2-core VM, with ~750 MB of memory each.
set -euo pipefail
pages=10000000 rounds=3 full=
while [[ $# -gt 0 && $1 == --* ]]; do
    case $1 in
        --pages) pages=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --full) full=1; shift ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[[ $# -ge 1 ]] || { sed -n 12,15p "$0" >&2; exit 2; }
for entry in "$@"; do
    [[ $entry == *=* && -x ${entry#*=} ]] || { echo "not NAME=BINARY (an executable): $entry" >&2; exit 2; }
done
if [[ -n $full ]]; then pairs=40000000 windows=8; else pairs=1 windows=1; fi
header="| build | round | start (UTC, load) | first crawl, pairs per CPU s | first pair | B a page"
[[ -z $full ]] || header="$header | windows 0–7, k pairs per CPU s | after the first crawl | freshness / solver's"
echo "$header |"
echo "$header |" | sed -E 's/[^|]+/---/g'
for round in $(seq "$rounds"); do
    for entry in "$@"; do
        start="$(date -u +%H:%M:%S), $(cut -d' ' -f1 /proc/loadavg)"
        log=$(FRESHET_BENCH_PAGES=$pages FRESHET_BENCH_PAIRS=$pairs FRESHET_BENCH_WINDOWS=$windows \
            "${entry#*=}" --bench nomatch 2>&1 > /dev/null)
        setup=$(grep '^setup:' <<< "$log") || { echo "${entry%%=*}: no setup line" >&2; exit 1; }
        rate=$(grep -oE '[0-9]+ per CPU second' <<< "$setup" | head -1 | cut -d' ' -f1)
        first_pair=$(grep -oE 'the first pair alone [0-9.]+[mµn]?s' <<< "$setup" | cut -d' ' -f5)
        per_page=$(grep -oE '\(([0-9.]+) B/page\)' <<< "$setup" | head -1 | tr -d '()' | cut -d' ' -f1)
        row="| ${entry%%=*} | $round | $start | $rate | $first_pair | $per_page"
        if [[ -n $full ]]; then
            windows_k=$(grep -E '^window [0-9]+:' <<< "$log" | grep -oE '[0-9]+ per CPU second' |
                awk '{printf "%s%.0f", (NR > 1 ? ", " : ""), $1 / 1000}')
            steady=$(grep '^steady state:' <<< "$log" | grep -oE '[0-9]+ per CPU second' | cut -d' ' -f1)
            ratio=$(grep '^at the end:' <<< "$log" | grep -oE '= [0-9.]+ of' | cut -d' ' -f2)
            row="$row | $windows_k | $steady | $ratio"
        fi
        echo "$row |"
    done
done
