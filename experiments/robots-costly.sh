#!/usr/bin/env bash
# What a hostile robots.txt costs the rest of a crawl (a benchmark, not part of CI): a test web of
# well-behaved hosts beside testweb's `robots-costly` host (10,000 wildcard rules; each of its
# pages links 1,000 paths of 2,000 octets, every check of which reaches freshet-robots'
# MATCH_WORK_LIMIT). Each round crawls for DURATION seconds, politeness off as in
# testweb-100k.sh, every host's root a seed (--scope host), in three ways, alternated:
#   alone      the well-behaved hosts only (the costly host not seeded);
#   allowance  the costly host seeded too, the default robots-scan-rate (4 MiB/s a host);
#   unbounded  the same with robots-scan-rate = 10^15 (each check still stops at 1 MiB).
# It prints, per run, the well-behaved hosts' page requests and pages/s, the costly host's
# lines in crawl.jsonl (requests and skips), the waits the summary counted, and the crawl's CPU.
#
# usage: experiments/robots-costly.sh [FRESHET_BINARY] [ROUNDS] [DURATION]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
freshet=${1:-$root/target/release/freshet}
rounds=${2:-3}
duration=${3:-20}
[[ -x $freshet ]] || (cd "$root" && cargo build --release -q -p freshet)
hosts=10
pages=50000
work=$(mktemp -d /tmp/robots-costly.XXXXXX)
source "$root/experiments/testweb-common.sh"
start_testweb "$freshet" "$work" "$hosts" "$pages" --misbehave robots-costly
for i in $(seq 0 $((hosts - 1))); do
    echo "http://h$i.web.test:$port/" >> "$work/seeds-alone.txt"
done
cp "$work/seeds-alone.txt" "$work/seeds-costly.txt"
echo "http://robots-costly.web.test:$port/" >> "$work/seeds-costly.txt"
echo 'robots-scan-rate = 1000000000000000' > "$work/unbounded.toml"
echo "test web: $hosts hosts, $pages pages and robots-costly on 127.0.0.1:$port; $duration s a run; load: $(uptime)"

run() {
    local name=$1 seeds=$2
    shift 2
    local data="$work/data-$name"
    rm -rf "$data"
    /usr/bin/time -o "$work/time" -f '%U %S' "$freshet" crawl --seeds "$seeds" --data "$data" \
        --allow-private --delay 0 --rate 1000000 --max-in-flight-per-ip 0 --revisit once --scope host \
        --duration "$duration" "${resolve[@]}" "$@" > "$work/crawl.out" 2>&1
    local good costly_requests costly_skipped waits cpu
    good=$(grep '"kind":"page"' "$data/crawl.jsonl" | grep -vc 'robots-costly' || true)
    costly_requests=$(grep '"kind":"page"' "$data/crawl.jsonl" | grep -c 'robots-costly' || true)
    costly_skipped=$(grep '"kind":"skipped"' "$data/crawl.jsonl" | grep -c 'robots-costly' || true)
    waits=$(grep -o '^[0-9]* page fetches waited' "$work/crawl.out" | cut -d' ' -f1 || true)
    cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$work/time")
    printf '%-10s well-behaved pages %6d (%7.1f/s)  robots-costly: %4d requests, %4d skipped, %4s waits  CPU %5s s\n' \
        "$name" "$good" "$(echo "$good / $duration" | bc -l)" "$costly_requests" "$costly_skipped" \
        "${waits:-0}" "$cpu"
}

for round in $(seq "$rounds"); do
    echo "round $round"
    run alone "$work/seeds-alone.txt"
    run allowance "$work/seeds-costly.txt"
    run unbounded "$work/seeds-costly.txt" --config "$work/unbounded.toml"
done
