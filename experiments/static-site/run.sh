#!/usr/bin/env bash
# The static-site crawl bench of issue 4, section 3 (a benchmark, not part of CI).
#
# A deterministic 20,000-page site of ~10 KB pages (gen_site.py: every page reachable from the
# index, a robots.txt disallowing /private/, which 200 pages link to) served by nginx on a free
# 127.0.0.1 port with its own config in a temporary directory (not the system nginx), crawled in
# turn by:
#   - freshet crawl (release build): robots.txt obeyed, politeness explicitly off (--delay 0,
#     --rate 1e6, --max-in-flight-per-ip 0: the figures in BENCHMARKS.md were taken before the
#     per-IP limit, default 8, existed; FRESHET_FLAGS may add --max-in-flight-per-host N, default one request at a
#     time per host), one pass (--revisit once), WARC (per-record gzip), crawl log and frontier
#     store on, sitemaps on;
#   - wget --recursive (robots.txt obeyed by default), files deleted after parsing; and again with
#     --warc-file (wget's own WARC writer), the closer match to freshet;
#   - the `spider` crate's CLI (spider_cli 2.53.9 from crates.io with spider-cli.patch, which
#     stops it quitting mid-crawl; installed into .bench-tools/ under the worktree, gitignored):
#     `spider --url BASE --respect-robots-txt crawl --output-links` (same host only, no delay,
#     its default concurrency, 30 requests on this machine, unless SPIDER_FLAGS says
#     --concurrency-limit N), with its visited set kept in memory (LINKS_VISITED_MEMORY_LIMIT
#     10^9; the library's default, 15,000, moves it to SQLite past 15,000 URLs: set
#     LINKS_VISITED_MEMORY_LIMIT=15000 for that); no WARC; and, as spider-warc, the same with
#     --warc (its own writer: one uncompressed file, response records only, no digests; the
#     number of response records it wrote is printed: fewer than the pages, as it drops
#     records when it falls behind);
#   - Scrapy (PyPI, in .venv-bench under the worktree, gitignored), a minimal spider
#     (spider.py), its default concurrency (16, 8 per domain), ROBOTSTXT_OBEY.
# For each: wall time, pages fetched (200 answers in nginx's access log; all N must be found,
# none under /private/), pages per second and peak RSS (/usr/bin/time -v). Prints a table.
# The crawlers run in the order above, whatever the order of the --only flags; with no --only,
# freshet, wget, wget-warc and scrapy (spider and spider-warc only when named).
#
# usage: experiments/static-site/run.sh [--only freshet|spider|spider-warc|wget|wget-warc|scrapy]... [N_PAGES]
# Environment: FRESHET=BINARY (default: target/release/freshet, built first); FRESHET_FLAGS,
# extra flags for freshet crawl (e.g. "--max-in-flight-per-host 8"); NAME, its row's name;
# SPIDER_FLAGS, extra flags for spider (e.g. "--concurrency-limit 64"), SPIDER_NAME its row's
# name; SITE=DIR keeps the generated site there for the next run (default: a temporary
# directory). Installs nginx (apt-get), scrapy (pip, into .venv-bench) and spider (cargo
# install, ~15 minutes of build on 2 cores; CARGO_TARGET_DIR is honoured) if they are missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
only=()
while [[ $# -gt 0 && $1 == --only ]]; do only+=("$2"); shift 2; done
pages=${1:-20000}
[[ ${#only[@]} -gt 0 ]] || only=(freshet wget wget-warc scrapy)
wants() { local c; for c in "${only[@]}"; do [[ $c == "$1" ]] && return 0; done; return 1; }

if wants scrapy && [[ ! -x $root/.venv-bench/bin/scrapy ]]; then
    python3 -m venv "$root/.venv-bench"
    "$root/.venv-bench/bin/pip" install -q scrapy
fi
# spider_cli from crates.io (checked against the registry's checksum), patched, built with its
# own Cargo.lock; the install directory is named by the patch's hash, so a changed patch rebuilds.
spider_version=2.53.9
spider_crate_sha256=bc25ae89df2472723dd93fe5b941a05c423c4b3741cfe7f2b7d4301b8f45e4b0
spider_root=$root/.bench-tools/spider_cli-$spider_version-$(sha256sum "$here/spider-cli.patch" | cut -c1-12)
spider=$spider_root/bin/spider
if { wants spider || wants spider-warc; } && [[ ! -x $spider ]]; then
    echo "building spider_cli $spider_version with spider-cli.patch into $spider_root (~15 minutes)"
    spider_src=$(mktemp -d /tmp/spider-cli-src.XXXXXX)
    curl -sfL -o "$spider_src/spider_cli.crate" \
        "https://static.crates.io/crates/spider_cli/spider_cli-$spider_version.crate"
    echo "$spider_crate_sha256  $spider_src/spider_cli.crate" | sha256sum -c --quiet
    tar xzf "$spider_src/spider_cli.crate" -C "$spider_src"
    patch -s -d "$spider_src/spider_cli-$spider_version" -p1 < "$here/spider-cli.patch"
    nice -n 10 cargo install -q --locked --path "$spider_src/spider_cli-$spider_version" \
        --root "$spider_root"
    rm -rf "$spider_src"
fi
freshet=${FRESHET:-$root/target/release/freshet}
if wants freshet && [[ -z ${FRESHET:-} ]]; then
    (cd "$root" && cargo build --release -q -p freshet)
fi

work=$(mktemp -d /tmp/static-site.XXXXXX)
source "$here/../nginx-common.sh"
cleanup() {
    stop_nginx
    rm -rf "$work"
}
trap cleanup EXIT
site=${SITE:-$work/site}
[[ -f $site/robots.txt && -f $site/p/$(printf %05d $((pages - 1))).html ]] || python3 "$here/gen_site.py" "$site" "$pages"
start_nginx "$site" "$work"
echo "site: $pages pages ($(du -sh --apparent-size "$site" | cut -f1)), nginx on $base; load: $(uptime)"

rows=()
# run NAME COMMAND...: times one crawler, counts its requests in nginx's log.
run() {
    local name=${1// /_}; shift
    # The site into the page cache first, so that no crawler's time includes nginx reading it
    # from disk (a build or a test run in between evicts it: the first round after a build ran
    # at ~5,000 pages/s where the next ran at ~7,300, BENCHMARKS.md "Crawl throughput").
    find "$site" -type f -exec cat {} + > /dev/null
    local before; before=$(wc -l < "$work/nginx/access.log")
    local start end; start=$(date +%s.%N)
    /usr/bin/time -v -o "$work/$name.time" "$@" > "$work/$name.out" 2>&1 || {
        echo "$name failed:"; tail -20 "$work/$name.out"; }
    end=$(date +%s.%N)
    tail -n +"$((before + 1))" "$work/nginx/access.log" > "$work/$name.log"
    local ok private distinct rss wall rate
    ok=$(awk '$1 == 200 && $2 !~ /robots.txt$/' "$work/$name.log" | wc -l)
    distinct=$(awk '$1 == 200 && $2 !~ /robots.txt$/ { print $2 }' "$work/$name.log" | sort -u | wc -l)
    private=$(grep -c ' /private/' "$work/$name.log" || true)
    rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/$name.time")
    cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.1f", u + s }' "$work/$name.time")
    wall=$(echo "$end - $start" | bc -l)
    rate=$(echo "$ok / $wall" | bc -l)
    printf '%-10s %6d pages (%d distinct, %d of /private/) in %7.2f s: %8.1f pages/s, peak RSS %6s MiB, CPU %s s\n' \
        "$name" "$ok" "$distinct" "$private" "$wall" "$rate" "$rss" "$cpu"
    [[ $distinct -eq $pages ]] || echo "  $name: found $distinct of $pages pages"
    rows+=("$name $ok $wall $rate $rss $cpu")
}

if wants freshet; then
    # shellcheck disable=SC2086 # FRESHET_FLAGS is a list of flags
    run "${NAME:-freshet}" "$freshet" crawl "$base" --data "$work/freshet" --allow-private \
        --delay 0 --rate 1000000 --max-in-flight-per-ip 0 --revisit once --scope host ${FRESHET_FLAGS:-}
    tail -2 "$work/${NAME:-freshet}.out"
    echo "freshet WARC: $(du -sh --apparent-size "$work/freshet/warc" | cut -f1)"
    rm -rf "$work/freshet"
fi
if wants spider; then
    # spider leaves an empty spool directory (and past its memory limit a SQLite file) in TMPDIR.
    mkdir -p "$work/spider-tmp"
    # shellcheck disable=SC2086 # SPIDER_FLAGS is a list of flags
    run "${SPIDER_NAME:-spider}" env TMPDIR="$work/spider-tmp" \
        LINKS_VISITED_MEMORY_LIMIT="${LINKS_VISITED_MEMORY_LIMIT:-1000000000}" \
        "$spider" --url "$base" --respect-robots-txt ${SPIDER_FLAGS:-} crawl --output-links
    grep -v '^http' "$work/${SPIDER_NAME:-spider}.out" | tail -3 || true
    rm -rf "$work/spider-tmp"
fi
if wants spider-warc; then
    mkdir -p "$work/spider-tmp"
    # shellcheck disable=SC2086 # SPIDER_FLAGS is a list of flags
    run "${SPIDER_NAME:-spider}-warc" env TMPDIR="$work/spider-tmp" \
        LINKS_VISITED_MEMORY_LIMIT="${LINKS_VISITED_MEMORY_LIMIT:-1000000000}" \
        "$spider" --url "$base" --respect-robots-txt --warc "$work/spider-tmp/crawl.warc" \
        ${SPIDER_FLAGS:-} crawl --output-links
    echo "spider WARC: $(du -sh --apparent-size "$work/spider-tmp/crawl.warc" | cut -f1)," \
        "$(grep -ac '^WARC-Type: response' "$work/spider-tmp/crawl.warc") response records"
    rm -rf "$work/spider-tmp"
fi
if wants wget; then
    run wget wget --recursive --level=inf --no-parent --delete-after --no-verbose \
        --directory-prefix="$work/wget" "$base"
fi
if wants wget-warc; then
    mkdir -p "$work/wget-warc"
    run wget-warc wget --recursive --level=inf --no-parent --delete-after --no-verbose \
        --directory-prefix="$work/wget-warc" --warc-file="$work/wget-warc/crawl" "$base"
    rm -rf "$work/wget-warc"
fi
if wants scrapy; then
    run scrapy "$root/.venv-bench/bin/scrapy" runspider "$here/spider.py" -a "start=$base"
fi

echo
echo "| crawler | pages | wall s | pages/s | peak RSS MiB | CPU s (user+sys) | pages/s ratio to the first freshet row |"
echo "|---|---|---|---|---|---|---|"
ref=
for row in "${rows[@]}"; do
    read -r name ok wall rate rss cpu <<< "$row"
    [[ -z $ref && $name == freshet* ]] && ref=$rate
done
for row in "${rows[@]}"; do
    read -r name ok wall rate rss cpu <<< "$row"
    ratio=-
    [[ -n $ref ]] && ratio=$(printf '%.2f' "$(echo "$rate / $ref" | bc -l)")
    printf '| %s | %d | %.2f | %.0f | %s | %s | %s |\n' "$name" "$ok" "$wall" "$rate" "$rss" "$cpu" "$ratio"
done
