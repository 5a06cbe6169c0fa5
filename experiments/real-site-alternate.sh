#!/usr/bin/env bash
# freshet builds side by side on the real site of real-site.sh (the Rust toolchain's
# documentation served by nginx on 127.0.0.1), with the same crawl flags, alternated round by
# round so that a change in the machine's speed falls on all of them alike: wall time, CPU and
# peak RSS of each run, and the store file's size. A comparison of builds, not a check of what
# they find (real-site.sh does that against wget). About 15 s a run on 2 cores.
#
# usage: experiments/real-site-alternate.sh ROUNDS NAME=FRESHET_BINARY...
# Environment: DOCS=DIR another directory of HTML to serve.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[[ $# -ge 2 && $1 =~ ^[0-9]+$ ]] || { sed -n 8,9p "$0" >&2; exit 2; }
rounds=$1
shift
docs=${DOCS:-$(rustc --print sysroot)/share/doc/rust/html}
[[ -f $docs/index.html ]] || { echo "no $docs/index.html: rustup component add rust-docs" >&2; exit 1; }
work=$(mktemp -d /tmp/real-site-alternate.XXXXXX)
source "$here/nginx-common.sh"
trap 'stop_nginx; rm -rf "$work"' EXIT
start_nginx "$docs" "$work"
echo "round name wall_s cpu_s peak_rss_mib store_bytes"
for round in $(seq "$rounds"); do
    for entry in "$@"; do
        name=${entry%%=*} freshet=${entry#*=}
        rm -rf "$work/data"
        /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$freshet" crawl "$base" --data "$work/data" \
            --allow-private --delay 0 --rate 1000000 --max-in-flight-per-ip 0 --max-in-flight-per-host 16 \
            --revisit once --scope host > "$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
        read -r wall user sys rss < "$work/time"
        echo "$round $name $wall $(echo "$user + $sys" | bc) $(echo "scale=1; $rss / 1024" | bc)" \
            "$(stat -c %s "$work/data/frontier.redb")"
    done
done
