#!/usr/bin/env bash
# The simulator's speed target of issue 3 (at least 10^7 simulated fetches per CPU second, one
# core, 10^5 Poisson pages under `periodic-optimal`, the solver's setup included): the `speed`
# example (crates/sim/examples/speed.rs) of each build named, the builds taking turns in every
# round, so that a change in the machine's speed during a sitting falls on all of them alike
# (this VM's speed moves by a fifth between sittings and ±10% between runs: BENCHMARKS.md,
# "The simulator"). Prints per build the M fetches per CPU second of its rounds (min, median,
# max), its median's ratio to the first build's, and the freshness it printed, which is the
# same for builds that make the same decisions.
#
# usage: experiments/speed/sim.sh [--pages N] [--runs R] [--rounds K] NAME=BINARY...
#   BINARY: a build of the example (`cargo build --release -p freshet-sim --example speed`,
#   then copy target/release/examples/speed aside); defaults: 100000 pages, 3 runs of about
#   2·10^6 fetches each per measurement, 10 rounds.
set -euo pipefail
pages=100000 runs=3 rounds=10
while [[ $# -gt 0 && $1 == --* ]]; do
    case $1 in
        --pages) pages=$2 ;;
        --runs) runs=$2 ;;
        --rounds) rounds=$2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
[[ $# -ge 1 ]] || { sed -n 11,14p "$0" >&2; exit 2; }
for entry in "$@"; do
    [[ $entry == *=* && -x ${entry#*=} ]] || { echo "not NAME=BINARY (an executable): $entry" >&2; exit 2; }
done
results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "start: $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg); $pages pages, $runs runs, $rounds rounds"
for round in $(seq "$rounds"); do
    for entry in "$@"; do
        out=$("${entry#*=}" "$pages" "$runs")
        rate=$(tail -1 <<< "$out" | grep -oE '[0-9.]+ M per CPU second' | cut -d' ' -f1 || true)
        freshness=$(head -1 <<< "$out" | grep -oE 'weighted freshness [0-9.eE+-]+' | cut -d' ' -f3 || true)
        [[ -n $rate ]] || { echo "${entry%%=*}: no CPU rate in its output (a build older than this script?)" >&2; exit 1; }
        echo "${entry%%=*} $round $rate $freshness" >> "$results"
    done
done
echo "end: $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| build | M fetches per CPU s: min | median | max | median / first's | freshness |"
echo "|---|---|---|---|---|---|"
first=
for entry in "$@"; do
    name=${entry%%=*}
    read -r min median max freshness < <(awk -v n="$name" '$1 == n {print $3, $4}' "$results" | sort -g |
        awk '{r[NR] = $1; f = $2} END {printf "%.3f %.3f %.3f %s\n", r[1], (NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2), r[NR], f}')
    first=${first:-$median}
    echo "| $name | $min | $median | $max | $(awk -v a="$median" -v b="$first" 'BEGIN {printf "%.3f", a / b}') | $freshness |"
done
