//! The freshet command line.
fn main() {}
