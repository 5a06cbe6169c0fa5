#!/usr/bin/env bash
# Reproduces Cho & Garcia-Molina's five-element comparison (SIGMOD 2000; vector
# shared/vectors/cho-5-elements.json): λ = 1..5 changes/day, 5 fetches/day, fixed-order visits.
# Published mean freshness: optimal 0.3739, uniform 0.3651, proportional 0.3167.
# Results: docs/cho/summary.csv; discussed in docs/reproductions.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p freshet
target/release/freshet simulate --pages examples/cho-5-elements.csv --budget 5 --horizon 200000 --seed 1 \
    --policy uniform,change-proportional,periodic-optimal --out docs/cho
