# Sourced by the experiments that crawl a test web (testweb-100k.sh, robots-costly.sh): starts
# `freshet testweb` on a free port of 127.0.0.1 and stops it, with the work directory, on exit.
#
# usage: source experiments/testweb-common.sh; start_testweb FRESHET WORK HOSTS PAGES [TESTWEB FLAGS...]
# (the test web's clock runs at TESTWEB_TIME_SCALE, default 0.001, its --time-scale)
# It sets `port` (the server's), `server` (its process id) and `resolve` (the crawl flags that
# send every name under web.test, misbehaving hosts included, to 127.0.0.1).
server=
testweb_work=
cleanup_testweb() {
    [[ -n $server ]] && kill "$server" 2> /dev/null && wait "$server" 2> /dev/null || true
    [[ -n $testweb_work ]] && rm -rf "$testweb_work"
}
trap cleanup_testweb EXIT

start_testweb() {
    local freshet=$1 hosts=$3 pages=$4
    testweb_work=$2
    shift 4
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$freshet" testweb --port "$port" --hosts "$hosts" --pages "$pages" --time-scale "${TESTWEB_TIME_SCALE:-0.001}" "$@" \
        > "$testweb_work/testweb.out" 2>&1 &
    server=$!
    for _ in $(seq 100); do
        curl -sf -o /dev/null -H "Host: h0.web.test" "http://127.0.0.1:$port/robots.txt" && break
        sleep 0.2
    done
    resolve=(--resolve "*.web.test=127.0.0.1")
}
