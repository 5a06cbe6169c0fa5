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
# With --cluster, Redis is a Redis Cluster of three masters (redis-cli --cluster create), every
# crawler given the first node's URL; the Redis CPU is then the three nodes' sum, and
# `busiest` the share of it on the busiest node.
#
# usage: experiments/shards.sh [--hosts H] [--pages P] [--rounds R] [--binary FRESHET] [--cluster] N...
#   (default: 100 hosts, 20000 pages, 3 rounds, one server, N = 1 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
hosts=100 pages=20000 rounds=3 freshet=$root/target/release/freshet cluster=0
while [[ $# -gt 0 && $1 == --* ]]; do
    case $1 in
        --cluster) cluster=1; shift; continue ;;
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
redis_pids=()
cleanup() {
    for pid in "${redis_pids[@]}"; do kill "$pid" 2> /dev/null && wait "$pid" 2> /dev/null || true; done
    cleanup_testweb
}
trap cleanup EXIT
start_testweb "$freshet" "$work" "$hosts" "$pages"
for i in $(seq 0 $((hosts - 1))); do
    echo "http://h$i.web.test:$port/" >> "$work/seeds.txt"
done
# Sets `free` to a free port of 127.0.0.1 not yet given out here (the test web listens on all
# addresses, where the kernel may hand its port out again for 127.0.0.1 alone).
given=" $port "
next_port() {
    while :; do
        free=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        [[ $given == *" $free "* ]] || break
    done
    given+="$free "
}
redis_ports=()
nodes=1
[[ $cluster == 1 ]] && nodes=3
for node in $(seq "$nodes"); do
    next_port
    redis_port=$free
    mkdir -p "$work/redis-$node"
    cluster_flags=()
    # A bus port of its own (the default, port + 10000, may be taken or past 65535).
    if [[ $cluster == 1 ]]; then
        next_port
        cluster_flags=(--cluster-enabled yes --cluster-config-file "$work/redis-$node/nodes.conf" --cluster-port "$free")
    fi
    redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly yes --appendfsync always \
        --dir "$work/redis-$node" "${cluster_flags[@]}" > "$work/redis-$node.out" 2>&1 &
    redis_pids+=($!)
    redis_ports+=("$redis_port")
    for _ in $(seq 100); do redis-cli -p "$redis_port" ping > /dev/null 2>&1 && break; sleep 0.1; done
    redis-cli -p "$redis_port" ping > /dev/null || { echo "redis-server on $redis_port did not start:" >&2; cat "$work/redis-$node.out" >&2; exit 1; }
done
redis_port=${redis_ports[0]}
if [[ $cluster == 1 ]]; then
    redis-cli --cluster create $(printf '127.0.0.1:%s ' "${redis_ports[@]}") --cluster-replicas 0 --cluster-yes > "$work/cluster.out"
    for _ in $(seq 100); do
        ok=0
        for node_port in "${redis_ports[@]}"; do
            redis-cli -p "$node_port" cluster info | grep -q 'cluster_state:ok' && ok=$((ok + 1))
        done
        [[ $ok == "$nodes" ]] && break
        sleep 0.2
    done
fi
# The CPU seconds of each Redis node so far, one line each.
redis_cpus() {
    for node_port in "${redis_ports[@]}"; do
        redis-cli -p "$node_port" info cpu | tr -d '\r' |
            awk -F: '/^used_cpu_sys:/ { s = $2 } /^used_cpu_user:/ { u = $2 } END { printf "%.3f\n", s + u }'
    done
}
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "test web: $hosts hosts, $pages pages on 127.0.0.1:$port; Redis: $nodes node(s) on ports ${redis_ports[*]} (appendfsync always$([[ $cluster == 1 ]] && echo ', a cluster'))"
printf '%-7s %-5s %8s %8s %10s %10s %10s %8s %12s %10s\n' shards round pages wall_s pages_per_s crawl_cpu_s redis_cpu_s busiest cpu_ms_a_page handed
for round in $(seq "$rounds"); do
    for n in "${counts[@]}"; do
        run=$work/run-$n-$round
        mkdir -p "$run"
        redis_before=$(redis_cpus)
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
        redis_after=$(redis_cpus)
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
        read -r redis busiest < <(paste <(echo "$redis_before") <(echo "$redis_after") |
            awk '{ d = $2 - $1; t += d; if (d > m) m = d } END { printf "%.3f %.2f\n", t, (t > 0 ? m / t : 0) }')
        printf '%-7s %-5s %8d %8.2f %10.0f %10.2f %10.2f %8.2f %12.3f %10d\n' "$n" "$round" "$fetched" "$wall" \
            "$(echo "$fetched / $wall" | bc -l)" "$cpu" "$redis" "$busiest" "$(echo "($cpu + $redis) * 1000 / $fetched" | bc -l)" "$handed"
        rm -rf "$run"
    done
done
