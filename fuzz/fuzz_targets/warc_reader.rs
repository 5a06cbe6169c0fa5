//! A WARC file from the input: reading it never panics, whatever is torn or wrong. The input is
//! read as it is (gzip members, mostly not) and, so that the record parser behind the gzip layer
//! is reached too, cut at its `\0` octets into parts, each compressed into a gzip member, with
//! the last member cut short by the input's first octet (a torn tail, as a crash leaves).
#![no_main]

use std::io::Write as _;

use flate2::Compression;
use flate2::write::GzEncoder;
use freshet_warc::WarcReader;
use libfuzzer_sys::fuzz_target;

fn read_all(file: &[u8]) {
    for record in WarcReader::new(file).take(1_000) {
        let Ok(record) = record else { break };
        let _ = record.http_head();
        let _ = record.http_payload();
    }
}

fuzz_target!(|data: &[u8]| {
    read_all(data);
    let mut file = Vec::new();
    for part in data.split(|&octet| octet == 0) {
        let mut member = GzEncoder::new(Vec::new(), Compression::fast());
        if member.write_all(part).is_err() {
            return;
        }
        let Ok(member) = member.finish() else { return };
        file.extend_from_slice(&member);
    }
    let torn = usize::from(data.first().copied().unwrap_or(0));
    read_all(&file);
    read_all(&file[..file.len().saturating_sub(torn)]);
});
