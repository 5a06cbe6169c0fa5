#!/usr/bin/env bash
# Does freshet find the pages of a real site? A check of link extraction on real HTML, not a
# benchmark (not part of CI).
#
# The site: the Rust toolchain's own documentation (`rustup component add rust-docs`, in
# rustup's default profile): about 48,000 HTML files written by rustdoc and mdBook, with a
# robots.txt, served by nginx on a free 127.0.0.1 port (nginx-common.sh, as static-site/run.sh). Crawled from its index by
#   - freshet crawl (release build): one pass, same host, robots.txt obeyed, politeness off
#     (--delay 0 --rate 10^6 --max-in-flight-per-ip 0 --max-in-flight-per-host 16), WARC on;
#   - wget --recursive --level=inf --no-parent (robots.txt obeyed), files deleted after parsing.
# Then the HTML pages each fetched with a 200 (nginx's access log, paths ending in `.html` or
# `/`) are compared: the pages only wget found are listed (wget also fetches what pages load,
# CSS, scripts, fonts, images, which freshet does not: counted apart), and so are the paths
# wget asked for that do not exist (it reads URL-like strings out of scripts).
#
# Also printed: freshet's summary, its WARC files' bytes and records (a body stored twice
# would be a `response` record repeating another's payload digest), and the near-duplicates
# its log names (how many, by SimHash distance, eight pairs to judge by eye).
#
# usage: experiments/real-site.sh [FRESHET_BINARY]   (default: target/release/freshet, built)
# Environment: DOCS=DIR another directory of HTML to serve. About 3 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
docs=${DOCS:-$(rustc --print sysroot)/share/doc/rust/html}
[[ -f $docs/index.html ]] || { echo "no $docs/index.html: rustup component add rust-docs" >&2; exit 1; }
freshet=${1:-$root/target/release/freshet}
[[ -n ${1:-} ]] || (cd "$root" && cargo build --release --locked -q -p freshet)
command -v wget > /dev/null || { echo "wget is needed (apt-get install wget)" >&2; exit 1; }

work=$(mktemp -d /tmp/real-site.XXXXXX)
source "$here/nginx-common.sh"
cleanup() {
    stop_nginx
    rm -rf "$work"
}
trap cleanup EXIT
start_nginx "$docs" "$work"
echo "site: $docs ($(find "$docs" -name '*.html' | wc -l) HTML files), nginx on $base"

# crawl NAME COMMAND...: runs one crawler, keeps its part of nginx's log as $work/NAME.log.
crawl() {
    local name=$1; shift
    local before; before=$(wc -l < "$work/nginx/access.log")
    /usr/bin/time -v -o "$work/$name.time" "$@" > "$work/$name.out" 2>&1 || true
    tail -n +"$((before + 1))" "$work/nginx/access.log" > "$work/$name.log"
    awk '$1 == 200 && ($2 ~ /\.html$/ || $2 ~ /\/$/) { print $2 }' "$work/$name.log" | sort -u > "$work/$name.pages"
    printf '%-8s %6d requests, %6d HTML pages, %s wall, %s CPU s (user + sys), peak RSS %s MiB\n' "$name" \
        "$(wc -l < "$work/$name.log")" "$(wc -l < "$work/$name.pages")" \
        "$(awk -F': ' '/Elapsed/ { print $2 }' "$work/$name.time")" \
        "$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.1f", u + s }' "$work/$name.time")" \
        "$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/$name.time")"
}
crawl freshet "$freshet" crawl "$base" --data "$work/freshet" --allow-private --delay 0 --rate 1000000 \
    --max-in-flight-per-ip 0 --max-in-flight-per-host 16 --revisit once --scope host
cat "$work/freshet.out"
# freshet's WARC files: records by type, and `response` records whose payload another one holds
# (a body stored twice: none since identical payloads are written as revisits).
python3 - "$work/freshet/warc" << 'EOF'
import collections, glob, gzip, os, sys
kinds, payloads, size, kind = collections.Counter(), collections.Counter(), 0, None
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.warc.gz*"))):
    size += os.path.getsize(path)
    with gzip.open(path, "rb") as warc:
        for line in warc:
            if line.startswith(b"WARC-Type: "):
                kind = line.split()[1].decode()
                kinds[kind] += 1
            elif line.startswith(b"WARC-Payload-Digest: ") and kind == "response":
                payloads[line.split()[1]] += 1
print("freshet's WARC files: %d bytes; records %s; response records repeating a payload: %d"
      % (size, dict(kinds), sum(count - 1 for count in payloads.values())))
EOF
# Near-duplicates freshet named (a page whose main text nearly repeats one fetched before):
# how many, by SimHash distance, and a few pairs spread over the crawl, to judge by eye.
python3 - "$work/freshet/crawl.jsonl" "$base" << 'EOF'
import collections, json, re, sys
pairs, by_distance = [], collections.Counter()
for line in open(sys.argv[1]):
    entry = json.loads(line)
    found = re.search(r"near-duplicate of (\S+) \(main text's SimHash (\d+) of 64 bits apart\)",
                      entry.get("detail") or "")
    if found:
        pairs.append((entry["url"], found.group(1)))
        by_distance[int(found.group(2))] += 1
print("near-duplicates named: %d; by SimHash distance: %s" % (len(pairs), dict(sorted(by_distance.items()))))
for url, original in pairs[:: max(1, len(pairs) // 8)][:8]:
    print("  %s  ~  %s" % (url.replace(sys.argv[2], "/"), original.replace(sys.argv[2], "/")))
EOF
crawl wget wget --recursive --level=inf --no-parent --delete-after --no-verbose \
    --directory-prefix="$work/wget" "$base"

comm -23 "$work/wget.pages" "$work/freshet.pages" > "$work/only-wget"
comm -13 "$work/wget.pages" "$work/freshet.pages" > "$work/only-freshet"
echo
echo "HTML pages only wget found: $(wc -l < "$work/only-wget")"
head -20 "$work/only-wget"
echo "HTML pages only freshet found: $(wc -l < "$work/only-freshet")"
head -20 "$work/only-freshet"
echo "wget's other 200s (what pages load): $(awk '$1 == 200 && $2 !~ /\.html$/ && $2 !~ /\/$/' "$work/wget.log" | wc -l)"
echo "answers other than 200: freshet $(awk '$1 != 200' "$work/freshet.log" | wc -l)," \
    "wget $(awk '$1 != 200' "$work/wget.log" | wc -l) (e.g. $(awk '$1 != 200 { print $1, $2; exit }' "$work/wget.log"))"
