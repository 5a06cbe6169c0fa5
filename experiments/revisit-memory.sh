#!/usr/bin/env bash
# The memory of a long revisiting crawl (a measurement, not part of CI): a freshness-loop crawl
# (`--revisit freshet`) of a test web of 5,000 pages on 200 hosts whose pages change (time scale
# 0.02), from h0's root, --scope domain, --delay 0.05, at most 300 requests a second, WARC gzip
# level 1, for SECONDS; every INTERVAL seconds the crawler's resident set (VmRSS) and open
# descriptors from /proc, and its page requests and boilerplate tables' bytes from /status.
#
# usage: experiments/revisit-memory.sh FRESHET_BINARY SECONDS [INTERVAL] [EXTRA CRAWL FLAGS...]
#   e.g. experiments/revisit-memory.sh target/release/freshet 600 60
#        experiments/revisit-memory.sh target/release/freshet 600 60 --config small-cache.toml
# Prints one line per sample: seconds, page requests, RSS MB, descriptors, boilerplate MB, and
# the store file's size.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 2 ]] || { sed -n 8,10p "$0" >&2; exit 2; }
freshet=$1 seconds=$2 interval=${3:-60}
shift $(( $# >= 3 ? 3 : 2 ))
work=$(mktemp -d /tmp/revisit-memory.XXXXXX)
source "$root/experiments/testweb-common.sh"
TESTWEB_TIME_SCALE=0.02 start_testweb "$freshet" "$work" 200 5000
listen=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$freshet" crawl "http://h0.web.test:$port/" --data "$work/data" --allow-private "${resolve[@]}" \
    --scope domain --delay 0.05 --rate 300 --warc-gzip-level 1 --duration "$seconds" \
    --listen "127.0.0.1:$listen" "$@" > "$work/crawl.out" 2>&1 &
crawler=$!
echo "seconds page_requests rss_mb descriptors boilerplate_mb store_mb"
elapsed=0
while sleep "$interval" && kill -0 "$crawler" 2> /dev/null; do
    elapsed=$((elapsed + interval))
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$crawler/status" 2> /dev/null || echo 0)
    open=$(ls "/proc/$crawler/fd" 2> /dev/null | wc -l)
    status=$(curl -sf "http://127.0.0.1:$listen/status" || echo '{}')
    python3 -c 'import json, sys
s = json.loads(sys.argv[1] or "{}")
print(sys.argv[2], s.get("page_requests", "-"), "%.1f" % (int(sys.argv[3] or 0) / 1000), sys.argv[4],
      "%.2f" % (s.get("boilerplate_bytes", 0) / 1e6), "%.1f" % (int(sys.argv[5]) / 1e6))' \
        "$status" "$elapsed" "$rss" "$open" "$(stat -c %s "$work/data/frontier.redb")"
done
wait "$crawler" || { cat "$work/crawl.out" >&2; exit 1; }
tail -1 "$work/crawl.out"
