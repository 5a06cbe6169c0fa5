#!/usr/bin/env bash
# Seed 003's scenario: a new host with many alike pages has just been crawled and is now capped
# (1,000 pages changing once per 10 time units, cap 20 per unit), next to an established host
# of 2,000 pages; global budget 100. Compares `threshold` with the solver's intervals executed
# from the first crawl (`solver-then-schedule`) and with the solver's rates on the carousel.
# Results: docs/new-host/ (CSV and plots); docs/reproductions.md discusses them. Seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p freshet
target/release/freshet scenario new-host --out docs/new-host
