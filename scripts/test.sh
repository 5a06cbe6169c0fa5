#!/usr/bin/env bash
# The whole test suite, as README.md names it and .ci/run calls it: on a fresh machine with only
# the Rust toolchain it installs the rest itself (scripts/install-test-deps.sh). Formatting, lints
# (warnings are errors), the docs' links (private items too), every test and doctest of every crate.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --document-private-items --locked

# Test dependencies outside Rust: warcio for crates/warc/tests/warcio.rs and grpcio for
# crates/urlfrontier/tests/python.rs (a venv in .venv-test/), redis-server for the Redis
# frontier engine's tests (Debian's, through apt).
bash scripts/install-test-deps.sh
export FRESHET_WARCIO="$PWD/.venv-test/bin/warcio"
export FRESHET_PYTHON="$PWD/.venv-test/bin/python"

cargo test --workspace --locked
