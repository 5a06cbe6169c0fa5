#!/usr/bin/env bash
# The testweb crawl bench of issue 4, section 3 (a benchmark, not part of CI): crawl a
# 100,000-page test web (100 hosts, one port on 127.0.0.1) with politeness explicitly off
# (--delay 0, --rate 1e6, --max-in-flight-per-ip 0: every host is on 127.0.0.1; EXTRA adds e.g. --max-in-flight-per-host 4) and WARC on, one pass
# (--revisit once), robots.txt and sitemaps obeyed; report pages per second and peak RSS
# (/usr/bin/time -v). Every host's root is a seed.
#
# usage: experiments/testweb-100k.sh [FRESHET_BINARY] [EXTRA CRAWL FLAGS...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
freshet=${1:-$root/target/release/freshet}
shift || true
[[ -x $freshet ]] || (cd "$root" && cargo build --release -q -p freshet)
hosts=100
pages=100000
work=$(mktemp -d /tmp/testweb-100k.XXXXXX)
source "$root/experiments/testweb-common.sh"
start_testweb "$freshet" "$work" "$hosts" "$pages"
for i in $(seq 0 $((hosts - 1))); do
    echo "http://h$i.web.test:$port/" >> "$work/seeds.txt"
done
echo "test web: $hosts hosts, $pages pages on 127.0.0.1:$port; load: $(uptime)"
start=$(date +%s.%N)
/usr/bin/time -v -o "$work/time" "$freshet" crawl --seeds "$work/seeds.txt" --data "$work/data" \
    --allow-private --delay 0 --rate 1000000 --max-in-flight-per-ip 0 --revisit once --scope domain "${resolve[@]}" "$@" \
    > "$work/crawl.out" 2>&1
end=$(date +%s.%N)
cat "$work/crawl.out"
wall=$(echo "$end - $start" | bc -l)
fetched=$(grep -c '"kind":"page"' "$work/data/crawl.jsonl" || true)
ok=$(grep '"kind":"page"' "$work/data/crawl.jsonl" | grep -c '"status":200' || true)
rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/time")
cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.1f", u + s }' "$work/time")
printf 'page requests %d (%d answered 200) in %.2f s: %.1f pages/s; peak RSS %s MiB; CPU %s s; WARC %s\n' \
    "$fetched" "$ok" "$wall" "$(echo "$fetched / $wall" | bc -l)" "$rss" "$cpu" \
    "$(du -sh --apparent-size "$work/data/warc" | cut -f1)"
