//! Every property of `freshet_hostile` on its seed inputs (the files of its `Target::seeds`
//! directories under `seeds/`: every file one input, but a `.lines` file, each of whose lines
//! is one) and on inputs `Mutator` makes from
//! them: 2,000 a target by default, `FRESHET_HOSTILE_INPUTS` for more. The generator is seeded
//! by the target's name, so every run tries the same inputs. An input that breaks a property
//! is written to `target/tmp/hostile-TARGET-N` and named in the failure, for the fuzz target
//! of the same name to replay (`cargo +nightly fuzz run TARGET FILE`, see fuzz/README.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use freshet_hostile::{Mutator, TARGETS, Target};

/// The largest input made (bytes): the seeds are small, and the parsers' limits (a robots.txt
/// of 500 KiB, sitemaps of 50 MiB) are tested in their crates.
const MAX_LEN: usize = 16 << 10;

fn seeds(target: &Target) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in target.seeds {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds").join(dir);
        let mut in_dir: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .collect();
        in_dir.sort();
        files.extend(in_dir);
    }
    let mut seeds = Vec::new();
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        if file.extension().is_some_and(|extension| extension == "lines") {
            seeds.extend(
                bytes.split(|&byte| byte == b'\n').filter(|line| !line.is_empty()).map(<[u8]>::to_vec),
            );
        } else {
            seeds.push(bytes);
        }
    }
    assert!(!seeds.is_empty(), "no seed for {} in seeds/{:?}", target.name, target.seeds);
    seeds
}

fn inputs() -> usize {
    std::env::var("FRESHET_HOSTILE_INPUTS").ok().and_then(|value| value.parse().ok()).unwrap_or(2_000)
}

/// The generator's seed for a target: its name's bytes (FNV-1a), so that targets differ.
fn generator_seed(name: &str) -> u64 {
    name.bytes()
        .fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3))
}

fn run(target: &Target) {
    let seeds = seeds(target);
    for (index, seed) in seeds.iter().enumerate() {
        check(target, seed, &format!("seed {index}"));
    }
    let mut mutator = Mutator::new(generator_seed(target.name), MAX_LEN);
    for number in 0..inputs() {
        let input = mutator.mutate(&seeds, target.tokens);
        check(target, &input, &format!("mutated input {number}"));
    }
}

/// Runs the property on `input`; if it panics, saves the input and fails naming the file.
fn check(target: &Target, input: &[u8], what: &str) {
    let outcome = std::panic::catch_unwind(|| (target.check)(input));
    if outcome.is_err() {
        let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "hostile-{}-{}",
            target.name,
            what.replace(' ', "-")
        ));
        std::fs::write(&file, input).unwrap();
        panic!("{}: {what} breaks the property (the panic above); saved to {}", target.name, file.display());
    }
}

fn target(name: &str) -> &'static Target {
    TARGETS.iter().find(|target| target.name == name).unwrap()
}

#[test]
fn robots() {
    run(target("robots"));
}

#[test]
fn url() {
    run(target("url"));
}

#[test]
fn links() {
    run(target("links"));
}

#[test]
fn main_text() {
    run(target("main_text"));
}

#[test]
fn sitemap() {
    run(target("sitemap"));
}

#[test]
fn warc_reader() {
    run(target("warc_reader"));
}

/// A property that fails is caught, and the input that broke it saved: the harness above can
/// fail (a property that panics on a marker, as a parser's bug would).
#[test]
fn a_broken_property_is_reported_with_its_input() {
    fn breaks_on_marker(data: &[u8]) {
        assert!(!data.windows(6).any(|window| window == b"MARKER"), "the marker");
    }
    let broken = Target { name: "robots", check: breaks_on_marker, tokens: &[b"MARKER"], seeds: &["robots"] };
    let failure = std::panic::catch_unwind(|| run(&broken)).unwrap_err();
    let message = failure.downcast_ref::<String>().unwrap();
    assert!(message.contains("robots: mutated input"), "{message}");
    let saved = message.rsplit("saved to ").next().unwrap();
    assert!(std::fs::read(saved).unwrap().windows(6).any(|window| window == b"MARKER"));
}
