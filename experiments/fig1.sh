#!/usr/bin/env bash
# Reproduces seed 001's Fig. 1 (Azar et al., PNAS 2018): 1,000 pages with change rates U[0,1]
# and utilities Zipf(2, 1..10^4) or U[0,1], bandwidth 1..10, every policy, known rates.
# Page sets: shared/vectors/azar-fig1-{zipf,uniform}.csv, copied into crates/sim/tests/data/.
# Results: docs/fig1/{zipf,uniform}/summary.csv, series.csv and plots; docs/reproductions.md
# discusses them. Runs in about a minute on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p freshet
policies=uniform,change-proportional,weight-proportional,greedy,periodic-optimal,poisson-optimal,poisson-optimal-carousel,nutch-adaptive,changes-optimal
if target/release/freshet simulate --help | grep -q threshold; then policies="$policies,threshold"; fi
for set in zipf uniform; do
    target/release/freshet simulate \
        --pages "crates/sim/tests/data/azar-fig1-$set.csv" \
        --budget 1,2,3,4,5,6,7,8,9,10 --horizon 20000 --seed 1 \
        --policy "$policies" --out "docs/fig1/$set"
done
