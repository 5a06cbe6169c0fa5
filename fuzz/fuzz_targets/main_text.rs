//! An HTML body's main text and content signature from the input: see
//! `freshet_hostile::main_text`. The property is written once there, and also run on stable by
//! that crate's tests (seeded mutations, in CI).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| freshet_hostile::main_text(data));
