#!/usr/bin/env bash
# Installs what the tests need beyond the Rust toolchain, when missing: Debian's redis-server
# (apt, as root), which the Redis frontier engine's tests start on 127.0.0.1
# (crates/frontier/tests/conformance.rs), and in a Python venv at .venv-test/ (gitignored),
# from PyPI, pinned: warcio, which crates/warc/tests/warcio.rs runs as $FRESHET_WARCIO, and
# grpcio with grpcio-tools, for the URLFrontier client on Python's gRPC stack
# (crates/urlfrontier/tests/python.rs, interpreter $FRESHET_PYTHON).
# scripts/test.sh calls this; run it by hand to use `cargo test` alone. Quiet and quick when
# everything is there already.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null 2>&1 && [ -z "${FRESHET_REDIS_SERVER:-}" ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "install-test-deps: installing redis-server with apt-get" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
        # The package's own service is not needed: the tests start servers of their own.
        service redis-server stop >/dev/null 2>&1 || true
    else
        echo "install-test-deps: need redis-server (Debian: apt-get install redis-server), or" \
            "FRESHET_REDIS_SERVER set to one" >&2
        exit 1
    fi
fi

WARCIO_VERSION=1.8.1
GRPCIO_VERSION=1.85.3
GRPCIO_TOOLS_VERSION=1.85.1
VENV=.venv-test
MARKER="$VENV/.installed-warcio-$WARCIO_VERSION-grpcio-$GRPCIO_VERSION-tools-$GRPCIO_TOOLS_VERSION"

if [ -f "$MARKER" ] && [ -x "$VENV/bin/warcio" ]; then
    exit 0
fi

# A fresh Debian has python3 but may lack venv/ensurepip (package python3-venv): install it as
# root through apt, as the README's set-up rule says the test command does.
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "install-test-deps: installing python3 and python3-venv with apt-get" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >/dev/null
    else
        echo "install-test-deps: need python3 with the venv module (Debian: apt-get install python3-venv)" >&2
        exit 1
    fi
fi

echo "install-test-deps: creating $VENV with warcio==$WARCIO_VERSION, grpcio==$GRPCIO_VERSION," \
    "grpcio-tools==$GRPCIO_TOOLS_VERSION" >&2
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "warcio==$WARCIO_VERSION" \
    "grpcio==$GRPCIO_VERSION" "grpcio-tools==$GRPCIO_TOOLS_VERSION"
"$VENV/bin/warcio" --version >/dev/null
"$VENV/bin/python" -c 'import grpc, grpc_tools.protoc'
touch "$MARKER"
