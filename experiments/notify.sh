#!/usr/bin/env bash
# Change notifications (`freshet simulate --notify-interval S`, crates/sim/src/notify.rs):
# every host's pages are read every S time units (an honest sitemap's `<lastmod>`s) and
# `threshold` is told which pages changed since its last fetch (due at once) and which did not
# (fresh as of the read), as the crawler takes a proved sitemap's word. Known rates, Poisson
# changes. Three sets, each with mean refresh interval n/R = 10:
#  1. seed 001's Fig. 1 uniform set (crates/sim/tests/data/azar-fig1-uniform.csv, 1,000 pages),
#     budget 100, horizon 2,000;
#  2. a host-capped set of 10^4 pages on 100 hosts (crates/cli/examples/gen_pages.rs, seed 7:
#     Zipf weights, rates log-uniform in [1e-3, 10], even hosts capped at 0.05 x their pages),
#     budget 1,000, horizon 200;
#  3. the Fig. 1 set spread over 50 uncapped hosts (page i on host i mod 50), as set 1 otherwise:
#     the reads of one host come at one instant, of 50 hosts staggered over the period.
# Per set and seed: threshold, uniform and periodic-optimal without reads (the blind baseline),
# then threshold with reads every S = 0.1, 0.3, 1, 3, 10 x n/R; on the Fig. 1 set also
# threshold with learned rates, without reads and with reads every 0.1, 1, 10 x n/R (it learns
# from the reads, not from the fetches they cause). The fluid optimum is the solver's value for
# the true rates, which assumes no notifications. Seeds: SEEDS (default "1 2 3"). Then a finer
# sweep of S, seed 1 (docs/notify/fine.csv). Runs go to target/notify/; rows to
# docs/notify/summary.csv and fine.csv, read in docs/notify/README.md. About five minutes on one
# core.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p freshet
cargo build --release -q -p freshet --example gen_pages
bin=${CARGO_TARGET_DIR:-target}/release/freshet
gen=${CARGO_TARGET_DIR:-target}/release/examples/gen_pages
runs=target/notify
mkdir -p docs/notify "$runs"
"$gen" 10000 100 7 --hosts-out "$runs/capped-hosts.csv" > "$runs/capped-pages.csv"
awk -F, 'NR == 1 { print $0 ",host"; next } { print $0 ",h" (NR - 2) % 50 }' \
    crates/sim/tests/data/azar-fig1-uniform.csv > "$runs/fig1-50-pages.csv"
{ echo "host,capacity"; for host in $(seq 0 49); do echo "h$host,inf"; done; } > "$runs/fig1-50-hosts.csv"
summary=docs/notify/summary.csv
echo "set,seed,budget,refresh_interval,notify_over_refresh,notify_interval,policy,rates,weighted_freshness,freshness_std_error,fluid_optimum,ratio_to_optimum,changes_found_per_fetch,fetches,budgeted_fetches,politeness_violations" > "$summary"
# rows SET SEED N BUDGET HORIZON MULTIPLE DIR: the runs of DIR/summary.csv as rows of $summary.
rows() {
    awk -F, -v set="$1" -v seed="$2" -v n="$3" -v budget="$4" -v horizon="$5" -v multiple="$6" '
        FNR == 1 { next }
        { printf "%s,%s,%s,%s,%s,%s,%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%s,%d,%s\n", set, seed, budget, n / budget,
            ($14 == "" ? "" : multiple), $14, $2, $3, $4, $5, $6, $7, $10, $11, budget * horizon, $13 }' "$7/summary.csv" >> "$summary"
}
# one_set SET PAGES HOSTS|"" N BUDGET HORIZON LEARNED (1: learned runs too)
one_set() {
    local set=$1 pages=$2 hosts=$3 n=$4 budget=$5 horizon=$6 learned=$7
    for seed in ${SEEDS:-1 2 3}; do
        local out="$runs/$set-$seed-blind"
        "$bin" simulate --pages "$pages" ${hosts:+--hosts "$hosts"} --budget "$budget" --horizon "$horizon" \
            --seed "$seed" --policy threshold,uniform,periodic-optimal --out "$out" >/dev/null 2>&1
        rows "$set" "$seed" "$n" "$budget" "$horizon" "" "$out"
        for multiple in 0.1 0.3 1 3 10; do
            local interval
            interval=$(awk -v m="$multiple" -v n="$n" -v r="$budget" 'BEGIN { print m * n / r }')
            out="$runs/$set-$seed-s$multiple"
            "$bin" simulate --pages "$pages" ${hosts:+--hosts "$hosts"} --budget "$budget" --horizon "$horizon" \
                --seed "$seed" --policy threshold --notify-interval "$interval" --out "$out" >/dev/null 2>&1
            rows "$set" "$seed" "$n" "$budget" "$horizon" "$multiple" "$out"
        done
        [ "$learned" = 1 ] || continue
        out="$runs/$set-$seed-learned-blind"
        "$bin" simulate --pages "$pages" ${hosts:+--hosts "$hosts"} --budget "$budget" --horizon "$horizon" \
            --seed "$seed" --policy threshold --rates learned --out "$out" >/dev/null 2>&1
        rows "$set" "$seed" "$n" "$budget" "$horizon" "" "$out"
        for multiple in 0.1 1 10; do
            interval=$(awk -v m="$multiple" -v n="$n" -v r="$budget" 'BEGIN { print m * n / r }')
            out="$runs/$set-$seed-learned-s$multiple"
            "$bin" simulate --pages "$pages" ${hosts:+--hosts "$hosts"} --budget "$budget" --horizon "$horizon" \
                --seed "$seed" --policy threshold --rates learned --notify-interval "$interval" --out "$out" >/dev/null 2>&1
            rows "$set" "$seed" "$n" "$budget" "$horizon" "$multiple" "$out"
        done
    done
}
one_set fig1-uniform crates/sim/tests/data/azar-fig1-uniform.csv "" 1000 100 2000 1
one_set capped-1e4 "$runs/capped-pages.csv" "$runs/capped-hosts.csv" 10000 1000 200 0
one_set fig1-uniform-50-hosts "$runs/fig1-50-pages.csv" "$runs/fig1-50-hosts.csv" 1000 100 2000 0
# Where the budget went unspent with the default bucket (it is spent now): threshold, known
# rates, Fig. 1 set, seed 1, reads every S = 0.05 to 0.7 refresh intervals, to
# docs/notify/fine.csv.
fine=docs/notify/fine.csv
echo "notify_interval,notify_over_refresh,weighted_freshness,changes_found_per_fetch,fetches,budgeted_fetches" > "$fine"
for interval in 0.5 1 1.5 2 2.5 3 3.5 4 4.5 5 6 7; do
    out="$runs/fine-s$interval"
    "$bin" simulate --pages crates/sim/tests/data/azar-fig1-uniform.csv --budget 100 --horizon 2000 \
        --seed 1 --policy threshold --notify-interval "$interval" --out "$out" >/dev/null 2>&1
    awk -F, -v s="$interval" 'FNR == 2 { printf "%s,%s,%.4f,%.4f,%s,200000\n", s, s / 10, $4, $10, $11 }' \
        "$out/summary.csv" >> "$fine"
done
column -s, -t "$summary"
column -s, -t "$fine"
