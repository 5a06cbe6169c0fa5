#!/usr/bin/env bash
# What a revisiting crawl writes to WARC (a measurement, not part of CI): a freshness-loop crawl
# (`--revisit freshet`) of a test web of 5,000 pages on 200 hosts whose pages change (time scale
# 0.02), from h0's root, --scope domain, --delay 0.05, at most 300 requests a second, WARC gzip
# level 1, for SECONDS, by each FRESHET binary in turn on a test web of its own started with
# TESTWEB FLAGS (e.g. --no-validators: no ETag or Last-Modified, so an unchanged page is a 200
# with the same body, never a 304; --noise: a rotating ad, a timestamp and session tokens in
# every body, so no two fetches of a page are the same bytes).
#
# usage: experiments/revisit-storage.sh SECONDS "TESTWEB FLAGS" NAME=FRESHET_BINARY...
#   e.g. experiments/revisit-storage.sh 120 --no-validators before=/tmp/freshet-before after=target/release/freshet
# Prints one row per binary: page requests, 200s, 304s, WARC response and revisit records (by
# profile), the WARC files' bytes, and bytes a page request.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 3 ]] || { sed -n 10,11p "$0" >&2; exit 2; }
seconds=$1
read -r -a testweb_flags <<< "$2"
shift 2
echo "name requests ok_200 not_modified_304 response_records revisit_identical revisit_not_modified warc_bytes bytes_per_request"
for entry in "$@"; do
    name=${entry%%=*} freshet=${entry#*=}
    work=$(mktemp -d /tmp/revisit-storage.XXXXXX)
    (
        source "$root/experiments/testweb-common.sh"
        TESTWEB_TIME_SCALE=0.02 start_testweb "$freshet" "$work" 200 5000 "${testweb_flags[@]}"
        "$freshet" crawl "http://h0.web.test:$port/" --data "$work/data" --allow-private "${resolve[@]}" \
            --scope domain --delay 0.05 --rate 300 --warc-gzip-level 1 --duration "$seconds" \
            > "$work/crawl.out" 2>&1 || { cat "$work/crawl.out" >&2; exit 1; }
        python3 - "$name" "$work/data" << 'EOF'
import glob, gzip, json, os, sys
name, data = sys.argv[1], sys.argv[2]
statuses = {}
requests = 0
for line in open(os.path.join(data, "crawl.jsonl")):
    entry = json.loads(line)
    if entry.get("kind") != "page":
        continue
    requests += 1
    statuses[entry.get("status")] = statuses.get(entry.get("status"), 0) + 1
counts = {"response": 0, "identical": 0, "not-modified": 0}
size = 0
for path in glob.glob(os.path.join(data, "warc", "*.warc.gz*")):
    size += os.path.getsize(path)
    with gzip.open(path, "rb") as warc:
        for raw in warc:
            if raw.startswith(b"WARC-Type: response"):
                counts["response"] += 1
            elif raw.startswith(b"WARC-Profile: ") and b"identical-payload-digest" in raw:
                counts["identical"] += 1
            elif raw.startswith(b"WARC-Profile: ") and b"server-not-modified" in raw:
                counts["not-modified"] += 1
print(name, requests, statuses.get(200, 0), statuses.get(304, 0), counts["response"], counts["identical"],
      counts["not-modified"], size, round(size / max(requests, 1)))
EOF
    )
    rm -rf "$work"
done
