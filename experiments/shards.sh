#!/usr/bin/env bash
# A crawl shared by N processes (`freshet crawl --shard K/N`) against the same crawl in one
# process, both with their frontier in one Redis server (a benchmark, not part of CI): a test
# web of HOSTS hosts and PAGES pages on 127.0.0.1, politeness explicitly off as in
# testweb-100k.sh (--delay 0 --rate 1e6 --max-in-flight-per-ip 0), one pass, robots.txt and
# sitemaps obeyed, WARC on; every host's root a seed, given to every shard. The Redis server
# is the test's own, syncing every write (appendonly yes, appendfsync always: what the crawl
# requires). For each N in the list, ROUNDS rounds alternated: the wall time from the first
# shard's start to the last one's end, the pages fetched (all shards), the CPU seconds of the
# crawlers (user + system, all shards) and of the Redis server, the URLs handed over, and a
# check that no page was fetched twice and every shard ended with "nothing left to fetch".
#
# On one machine the shards share its cores with the test web and Redis: this measures what
# the handover costs per page, not a scale-out (which needs more machines).
#
# usage: experiments/shards.sh [--hosts H] [--pages P] [--rounds R] [--binary FRESHET] N...
#   (default: 100 hosts, 20000 pages, 3 rounds, N = 1 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
hosts=100 pages=20000 rounds=3 freshet=$root/target/release/freshet
while [[ $# -gt 0 && $1 == --* ]]; do
    case $1 in
        --hosts) hosts=$2 ;;
        --pages) pages=$2 ;;
        --rounds) rounds=$2 ;;
        --binary) freshet=$2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
counts=("$@")
[[ ${#counts[@]} -gt 0 ]] || counts=(1 2)
[[ -x $freshet ]] || (cd "$root" && cargo build --release -q -p freshet)
work=$(mktemp -d /tmp/shards-bench.XXXXXX)
source "$root/experiments/testweb-common.sh"
redis_pid=
cleanup() {
    [[ -n $redis_pid ]] && kill "$redis_pid" 2> /dev/null && wait "$redis_pid" 2> /dev/null || true
    cleanup_testweb
}
trap cleanup EXIT
start_testweb "$freshet" "$work" "$hosts" "$pages"
for i in $(seq 0 $((hosts - 1))); do
    echo "http://h$i.web.test:$port/" >> "$work/seeds.txt"
done
redis_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/redis"
redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly yes --appendfsync always \
    --dir "$work/redis" > "$work/redis.out" 2>&1 &
redis_pid=$!
for _ in $(seq 100); do redis-cli -p "$redis_port" ping > /dev/null 2>&1 && break; sleep 0.1; done
redis_cpu() {
    redis-cli -p "$redis_port" info cpu | tr -d '\r' |
        awk -F: '/^used_cpu_sys:/ { s = $2 } /^used_cpu_user:/ { u = $2 } END { printf "%.3f", s + u }'
}
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "test web: $hosts hosts, $pages pages on 127.0.0.1:$port; Redis on 127.0.0.1:$redis_port (appendfsync always)"
printf '%-7s %-5s %8s %8s %10s %10s %10s %12s %10s\n' shards round pages wall_s pages_per_s crawl_cpu_s redis_cpu_s cpu_ms_a_page handed
for round in $(seq "$rounds"); do
    for n in "${counts[@]}"; do
        run=$work/run-$n-$round
        mkdir -p "$run"
        redis_before=$(redis_cpu)
        start=$(date +%s.%N)
        pids=()
        for k in $(seq 0 $((n - 1))); do
            shard=()
            [[ $n -gt 1 ]] && shard=(--shard "$k/$n")
            /usr/bin/time -f '%U %S' -o "$run/time-$k" "$freshet" crawl --seeds "$work/seeds.txt" \
                --data "$run/data-$k" --allow-private --delay 0 --rate 1000000 --max-in-flight-per-ip 0 \
                --revisit once --scope domain "${resolve[@]}" --store "redis://127.0.0.1:$redis_port/" \
                --store-prefix "run-$n-$round" "${shard[@]}" > "$run/out-$k" 2>&1 &
            pids+=($!)
        done
        for pid in "${pids[@]}"; do wait "$pid"; done
        end=$(date +%s.%N)
        redis_after=$(redis_cpu)
        fetched=0 cpu=0 handed=0
        for k in $(seq 0 $((n - 1))); do
            grep -q '^nothing left to fetch' "$run/out-$k" || { echo "shard $k/$n did not end its crawl:" >&2; cat "$run/out-$k" >&2; exit 1; }
            fetched=$((fetched + $(grep -c '"kind":"page"' "$run/data-$k/crawl.jsonl" || true)))
            cpu=$(echo "$cpu + $(awk '{ print $1 + $2 }' "$run/time-$k")" | bc -l)
            over=$(grep -oE '^[0-9]+ URLs handed to other shards' "$run/out-$k" | cut -d' ' -f1 || true)
            handed=$((handed + ${over:-0}))
        done
        unique=$(cat "$run"/data-*/crawl.jsonl | grep '"kind":"page"' | grep -oE '"url":"[^"]*"' | sort -u | wc -l)
        [[ $unique -eq $fetched ]] || { echo "$n shards: $fetched page requests for $unique URLs" >&2; exit 1; }
        wall=$(echo "$end - $start" | bc -l)
        redis=$(echo "$redis_after - $redis_before" | bc -l)
        printf '%-7s %-5s %8d %8.2f %10.0f %10.2f %10.2f %12.3f %10d\n' "$n" "$round" "$fetched" "$wall" \
            "$(echo "$fetched / $wall" | bc -l)" "$cpu" "$redis" "$(echo "($cpu + $redis) * 1000 / $fetched" | bc -l)" "$handed"
        rm -rf "$run"
    done
done
