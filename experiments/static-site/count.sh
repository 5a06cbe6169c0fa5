#!/usr/bin/env bash
# Instructions, not seconds: each freshet build named crawls the first PAGES pages of the static
# site (run.sh, its own nginx) under `valgrind --tool=callgrind`, and the user-space
# instructions of the whole process (every thread; the kernel not counted) are printed with
# their ratio to the first entry's. On a shared VM whose speed moves by a fifth between
# sittings, a change of a few per cent in the crawl's CPU is below what timed rounds can tell
# (BENCHMARKS.md, "Crawl throughput"). These counts move much less, but they move: work paced by
# the clock (group commits, the progress line) runs ~50 times longer under valgrind, and five
# runs of one build spread over 5% (most within 0.2%). Run each build more than once and
# compare medians.
#
# What they overstate (BENCHMARKS.md): under valgrind the `sha1` crate finds no SHA extensions
# and runs its portable code, and a `memset` counts far more instructions than its time. Read
# the ratios with the per-function listing (`callgrind_annotate FILE`) of the files it keeps.
#
# usage: experiments/static-site/count.sh [--pages N] NAME=BINARY...
# Environment: FRESHET_FLAGS, as for alternate.sh (default "--max-in-flight-per-host 64
# --warc-gzip-level 1"); SITE (default /tmp/bench-site/site); OUT, where the callgrind files go
# (default a new directory under /tmp, printed). Installs valgrind (apt-get) if it is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pages=2000
if [[ ${1:-} == --pages ]]; then
    pages=$2
    shift 2
fi
[[ $# -ge 1 ]] || { sed -n 12,15p "$0" >&2; exit 2; }
command -v valgrind > /dev/null || apt-get install -y valgrind > /dev/null
export SITE=${SITE:-/tmp/bench-site/site}
flags=${FRESHET_FLAGS:---max-in-flight-per-host 64 --warc-gzip-level 1}
out=${OUT:-$(mktemp -d /tmp/freshet-count.XXXXXX)}
mkdir -p "$out"
echo "callgrind files in $out"

first=
for entry in "$@"; do
    [[ $entry == *=* ]] || { echo "not NAME=BINARY: $entry" >&2; exit 2; }
    name=${entry%%=*}
    binary=$(realpath "${entry#*=}")
    [[ -x $binary ]] || { echo "$name: $binary is not an executable" >&2; exit 2; }
    wrapper=$out/$name.sh
    cat > "$wrapper" << WRAPPER
#!/usr/bin/env bash
exec valgrind --tool=callgrind --callgrind-out-file="$out/$name.callgrind" "$binary" "\$@" --max-pages $pages
WRAPPER
    chmod +x "$wrapper"
    FRESHET=$wrapper FRESHET_FLAGS=$flags NAME=$name bash "$here/run.sh" --only freshet > "$out/$name.log" 2>&1
    fetched=$(grep "^| $name |" "$out/$name.log" | tail -1 | cut -d'|' -f3 | tr -d ' ')
    total=$(callgrind_annotate "$out/$name.callgrind" 2> /dev/null | awk '/PROGRAM TOTALS/ { gsub(/,/, "", $1); print $1 }')
    [[ -n $first ]] || first=$total
    printf '%-12s %6s pages  %15s instructions  %10.0f a page  %.3f of the first\n' \
        "$name" "$fetched" "$total" "$(echo "$total / $fetched" | bc -l)" "$(echo "$total / $first" | bc -l)"
done
