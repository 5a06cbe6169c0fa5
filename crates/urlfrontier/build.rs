//! Generates the URLFrontier messages, server and client from `proto/urlfrontier.proto` with the
//! `protoc` that `protoc-bin-vendored` ships, so that a machine with only the Rust toolchain
//! builds the crate (no system `protoc`).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/urlfrontier.proto");
    let mut config = tonic_prost_build::Config::new();
    config.protoc_executable(protoc_bin_vendored::protoc_bin_path()?);
    tonic_prost_build::configure().compile_with_config(config, &["proto/urlfrontier.proto"], &["proto"])?;
    Ok(())
}
