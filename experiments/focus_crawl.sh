#!/usr/bin/env bash
# Focused crawling in the crawler (seed 002; `freshet crawl --focus`), measured against the
# truth: a test web with a topic (`freshet testweb --topic-fraction`), one crawl per estimator,
# one with an ε-greedy bandit over fl_n, fl_e and lr_fl, and one without a topic, each
# stopped after BUDGET pages; for each, how many of the pages it fetched are on the topic
# (the truth's `topic_score` > 0) after 100, 300, 1,000, 3,000… pages.
# Writes docs/focus/crawl.csv (estimator, pages, on_topic, share) and prints a table.
#
# usage: experiments/focus_crawl.sh [HOSTS PAGES FRACTION BUDGET SEED]   (default 30 20000 0.05 10000 3)
# About 90 seconds on this project's 2-core VM, after the release build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
hosts=${1:-30} pages=${2:-20000} fraction=${3:-0.05} budget=${4:-10000} seed=${5:-3}
cd "$root"
cargo build --release --locked -q -p freshet
freshet=$root/target/release/freshet
work=$(mktemp -d /tmp/focus-crawl.XXXXXX)
source "$here/testweb-common.sh"
start_testweb "$freshet" "$work" "$hosts" "$pages" --seed "$seed" --topic-fraction "$fraction"
curl -sf -H "Host: h0.web.test" "http://127.0.0.1:$port/_truth/pages" > "$work/truth.json"
echo "test web: $hosts hosts, $pages pages, topic fraction $fraction, seed $seed; budget $budget pages; $(date -u +%H:%M) UTC"
for estimator in none bfs fl_deg fl_n fl_e fl_ne lr_fl bandit; do
    case $estimator in
        none) focus=() ;;
        # seed 002's mab_ε over the three estimators that lead somewhere in the tables
        bandit) focus=(--focus glacier --focus-estimator fl_n,fl_e,lr_fl --focus-bandit epsilon-greedy --focus-epsilon 0.1) ;;
        *) focus=(--focus glacier --focus-estimator "$estimator") ;;
    esac
    start=$(date +%s.%N)
    "$freshet" crawl "http://h0.web.test:$port/" --data "$work/$estimator" --allow-private "${resolve[@]}" \
        --scope domain --revisit once --delay 0 --max-depth 1000 --no-sitemaps --max-pages "$budget" \
        "${focus[@]}" > "$work/$estimator.out" 2>&1
    echo "$estimator: $(echo "$(date +%s.%N) - $start" | bc -l | cut -c1-5) s"
done
grep "bandit" "$work/bandit.out" || true
python3 - "$work" "$root/docs/focus/crawl.csv" "$budget" <<'PY'
import json, sys
work, out, budget = sys.argv[1], sys.argv[2], int(sys.argv[3])
truth = json.load(open(f"{work}/truth.json"))["pages"]
on_topic = {page["url"]: page["topic_score"] > 0 for page in truth}
share = sum(on_topic.values()) / len(on_topic)
marks = [m for m in (100, 300, 1000, 3000, 10000, 30000, 100000) if m <= budget]
rows, table = [], {}
for estimator in ["none", "bfs", "fl_deg", "fl_n", "fl_e", "fl_ne", "lr_fl", "bandit"]:
    fetched = []
    for line in open(f"{work}/{estimator}/crawl.jsonl"):
        record = json.loads(line)
        if record["kind"] == "page" and record.get("status") == 200:
            fetched.append(on_topic.get(record["url"], False))
    found = 0
    for count, topical in enumerate(fetched, 1):
        found += topical
        if count in marks:
            rows.append((estimator, count, found, found / count))
            table.setdefault(estimator, {})[count] = found
with open(out, "w") as csv:
    csv.write("estimator,pages,on_topic,share\n")
    for estimator, count, found, fraction in rows:
        csv.write(f"{estimator},{count},{found},{fraction:.4f}\n")
print(f"\non-topic share of the web's pages: {share:.4f}")
print("| estimator | " + " | ".join(f"{m:,} pages" for m in marks) + " |")
print("|---" * (len(marks) + 1) + "|")
for estimator, found in table.items():
    cells = [f"{found[m]} ({found[m] / m:.3f})" if m in found else "" for m in marks]
    print(f"| {estimator} | " + " | ".join(cells) + " |")
PY
