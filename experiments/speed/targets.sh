#!/usr/bin/env bash
# Issue 3's speed targets measured on this machine for the working tree, in one command:
# builds the simulator's `speed` example and the online scheduler's bench, then runs
#   - sim.sh (10^5 Poisson pages, 5 rounds): target at least 10 M fetches per CPU second;
#   - sched.sh --full (10^7 pages on 10^5 hosts, 1 round): target at least 10^6 pairs per CPU
#     second in the first crawl, the transient (windows 1–3) and the steady state (4–7), at
#     most 64 bytes allocated a page.
# Figures depend on the machine (BENCHMARKS.md: the same code ran 1.6× faster on one VM than on
# another); quote them with the date and machine. Issue 4's crawl target has its own bench:
# experiments/static-site/alternate.sh. About 3 minutes on this project's 2-core VM, ~1 GB.
#
# usage: experiments/speed/targets.sh [--rounds K]   (K rounds of each; default 5 and 1)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sim_rounds=5 sched_rounds=1
if [[ ${1:-} == --rounds ]]; then sim_rounds=$2 sched_rounds=$2; fi
bin=$(mktemp -d /tmp/freshet-targets.XXXXXX)
trap 'rm -rf "$bin"' EXIT
cd "$root"
cargo build --release --locked -q -p freshet-sim --example speed
cp target/release/examples/speed "$bin/speed"
bench=$(cargo bench --locked -q -p freshet-schedule --bench online --no-run --message-format=json |
    grep -oE '"executable":"[^"]*/online-[0-9a-f]+"' | cut -d'"' -f4 | tail -1)
[[ -x $bench ]] || { echo "no online bench executable found" >&2; exit 1; }
cp "$bench" "$bin/online"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores;" \
    "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' with changes')"
echo
echo "## The simulator (target: at least 10 M fetches per CPU second at 10^5 pages)"
bash "$here/sim.sh" --rounds "$sim_rounds" tree="$bin/speed"
echo
echo "## The online scheduler (target: at least 1,000 k pairs per CPU second in every phase; 64 B a page)"
bash "$here/sched.sh" --full --rounds "$sched_rounds" tree="$bin/online"
