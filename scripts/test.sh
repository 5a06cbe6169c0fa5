#!/usr/bin/env bash
# The whole test suite, as README.md names it and .ci/run calls it: on a fresh machine with only
# the Rust toolchain it needs nothing else. Formatting, lints (warnings are errors), every test
# and doctest of every crate.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
