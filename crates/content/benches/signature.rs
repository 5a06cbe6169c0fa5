//! Placeholder; the real bench follows.
fn main() {}
