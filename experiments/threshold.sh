#!/usr/bin/env bash
# `threshold` (seed 003's online scheduler) against the fluid optimum and against Apache
# Nutch's AdaptiveFetchSchedule, known rates:
#  1. a host-capped set of 10^5 pages on 1,000 hosts (crates/cli/examples/gen_pages.rs: Zipf
#     weights, change rates log-uniform in [1e-3, 10], even hosts capped at 0.05 x their pages),
#     budget 10^4: threshold vs periodic-optimal, ratio to the host-capped fluid optimum;
#  2. the uniform Fig. 1 set at bandwidth 5, with Poisson, periodic (jittered) and bursty
#     changes: threshold vs nutch-adaptive at equal budget.
# The Fig. 1 sets themselves are in experiments/fig1.sh. Results: docs/threshold/; numbers
# quoted in docs/reproductions.md. Takes a few minutes on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p freshet --example gen_pages
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/gen_pages 100000 1000 7 --hosts-out "$work/hosts.csv" > "$work/pages.csv"
target/release/freshet simulate --pages "$work/pages.csv" --hosts "$work/hosts.csv" \
    --budget 10000 --horizon 500 --seed 1 \
    --policy threshold,periodic-optimal --out docs/threshold/capped-1e5
for changes in poisson periodic bursty; do
    target/release/freshet simulate --pages crates/sim/tests/data/azar-fig1-uniform.csv \
        --budget 5 --horizon 20000 --seed 1 --changes "$changes" \
        --policy threshold,nutch-adaptive,periodic-optimal --out "docs/threshold/nutch-$changes"
done
