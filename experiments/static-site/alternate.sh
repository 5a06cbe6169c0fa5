#!/usr/bin/env bash
# Alternated rounds of the static-site bench (run.sh), for comparisons on a shared machine: the
# crawlers named run one after another in every round, so that a change in the machine's speed
# during a sitting falls on all of them alike (BENCHMARKS.md quotes ratios of such rounds).
#
# usage: experiments/static-site/alternate.sh ROUNDS ENTRY...
#   ENTRY: NAME=BINARY, a freshet build under a name of its own (e.g. main=target/release/freshet
#          before=/tmp/freshet-before), or one of spider, spider-warc, wget, wget-warc, scrapy.
# Environment: FRESHET_FLAGS, for every freshet entry (default "--max-in-flight-per-host 64
# --warc-gzip-level 1", the setting of the figures in BENCHMARKS.md); SITE, as for run.sh
# (default /tmp/bench-site/site, generated on the first run); the rest as run.sh reads it.
#
# Prints every run's row as run.sh prints it, then per entry: pages/s of each round, the mean,
# the mean without round 1 (the first round often runs on a machine still settling; run.sh now
# reads the site into the page cache before every crawler, which explained most of it), CPU seconds
# and CPU per page, peak RSS, and each mean's ratio to the first entry's. A run that did not
# find every page is reported and left out of the means.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[[ $# -ge 2 && $1 =~ ^[0-9]+$ ]] || { sed -n 6,9p "$0" >&2; exit 2; }
rounds=$1
shift
entries=("$@")
export SITE=${SITE:-/tmp/bench-site/site}
flags=${FRESHET_FLAGS:---max-in-flight-per-host 64 --warc-gzip-level 1}
pages=20000
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT

echo "start: $(uptime)"
for round in $(seq "$rounds"); do
    for entry in "${entries[@]}"; do
        case $entry in
            *=*)
                name=${entry%%=*}
                binary=${entry#*=}
                [[ -x $binary ]] || { echo "$name: $binary is not an executable" >&2; exit 2; }
                output=$(FRESHET=$binary FRESHET_FLAGS=$flags NAME=$name bash "$here/run.sh" --only freshet "$pages")
                ;;
            spider | spider-warc | wget | wget-warc | scrapy)
                name=$entry
                output=$(bash "$here/run.sh" --only "$entry" "$pages")
                ;;
            *)
                echo "unknown entry: $entry (NAME=BINARY, spider, spider-warc, wget, wget-warc, scrapy)" >&2
                exit 2
                ;;
        esac
        row=$(grep "^| $name |" <<< "$output" | tail -1)
        echo "round $round: $row"
        grep -q "found .* of $pages pages" <<< "$output" && echo "  $name did not find every page: left out"
        grep -q "found .* of $pages pages" <<< "$output" || echo "$round $row" >> "$rows"
    done
done
echo "end: $(uptime)"
echo
echo "| entry | pages/s by round | mean | mean of rounds 2+ | CPU s, mean | CPU a page | peak RSS MiB | mean / first entry's |"
echo "|---|---|---|---|---|---|---|---|"
# Row fields (run.sh's table, split on '|'): 2 name, 3 pages, 4 wall, 5 pages/s, 6 RSS, 7 CPU.
for entry in "${entries[@]}"; do
    echo "${entry%%=*}"
done | awk -F'|' -v rows="$rows" '
    BEGIN {
        while ((getline line < rows) > 0) {
            split(line, head, " "); round = head[1]
            n = split(line, field, "|")
            name = field[2]; gsub(/ /, "", name)
            count[name]++; rate[name] = rate[name] (count[name] > 1 ? ", " : "") sprintf("%.0f", field[5])
            sum[name] += field[5]; cpu[name] += field[7]; pages[name] += field[3]
            if (round > 1) { later[name] += field[5]; laters[name]++ }
            rss = field[6] + 0
            if (!(name in low) || rss < low[name]) low[name] = rss
            if (!(name in high) || rss > high[name]) high[name] = rss
        }
    }
    {
        name = $0
        if (!count[name]) { printf "| %s | no complete run | | | | | | |\n", name; next }
        mean = sum[name] / count[name]
        if (first == "") first = mean
        printf "| %s | %s | %.0f | %s | %.2f | %.0f µs | %.1f–%.1f | %.2f |\n", name, rate[name], mean,
            laters[name] ? sprintf("%.0f", later[name] / laters[name]) : "-", cpu[name] / count[name],
            1e6 * cpu[name] / pages[name], low[name], high[name], mean / first
    }'
