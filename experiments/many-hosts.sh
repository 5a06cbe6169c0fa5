#!/usr/bin/env bash
# A crawl of many small hosts (a benchmark, not part of CI): what the crawler holds per host and
# per kept connection. A one-pass crawl of a test web of PAGES pages on HOSTS hosts (one port
# on 127.0.0.1, every name under web.test), from h0's root, --scope domain with no limit on
# hosts per domain, politeness off (--delay 0) but at most RATE requests a second; samples the
# crawler's open file descriptors and peak RSS (VmHWM) every 0.1 s from /proc.
#
# usage: experiments/many-hosts.sh FRESHET_BINARY HOSTS PAGES RATE [EXTRA CRAWL FLAGS...]
#   e.g. experiments/many-hosts.sh target/release/freshet 5000 10000 300
#        experiments/many-hosts.sh target/release/freshet 5000 10000 1000000 --config ka0.toml
# Prints one line: wall seconds, pages requested, peak open descriptors, peak RSS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 4 ]] || { sed -n 8,10p "$0" >&2; exit 2; }
freshet=$1 hosts=$2 pages=$3 rate=$4
shift 4
work=$(mktemp -d /tmp/many-hosts.XXXXXX)
source "$root/experiments/testweb-common.sh"
start_testweb "$freshet" "$work" "$hosts" "$pages"
start=$(date +%s.%N)
"$freshet" crawl "http://h0.web.test:$port/" --data "$work/data" --allow-private "${resolve[@]}" \
    --scope domain --max-hosts-per-domain 0 --delay 0 --rate "$rate" --max-in-flight 256 \
    --revisit once --warc-gzip-level 1 "$@" > "$work/crawl.out" 2>&1 &
crawler=$!
descriptors=0 rss=0
while kill -0 "$crawler" 2> /dev/null; do
    open=$(ls "/proc/$crawler/fd" 2> /dev/null | wc -l)
    (( open > descriptors )) && descriptors=$open
    peak=$(awk '/^VmHWM/ {print $2}' "/proc/$crawler/status" 2> /dev/null || echo 0)
    [[ -n $peak ]] && (( peak > rss )) && rss=$peak
    sleep 0.1
done
wait "$crawler" || { cat "$work/crawl.out" >&2; exit 1; }
end=$(date +%s.%N)
requested=$(grep -c '"kind":"page"' "$work/data/crawl.jsonl" || true)
printf '%s: %s hosts, rate %s: %.1f s, %s pages requested, %s open descriptors at most, peak RSS %.1f MB\n' \
    "$(basename "$freshet")" "$hosts" "$rate" "$(echo "$end - $start" | bc -l)" "$requested" \
    "$descriptors" "$(echo "$rss / 1000" | bc -l)"
