//! One gzip member (RFC 1952) per record, with one deflate state kept for the writer's life.
//!
//! `flate2::write::GzEncoder` allocates and initialises a fresh compressor for every member; for
//! a small request record that set-up is most of the cost (BENCHMARKS.md, `parts/gzip-*`). Here a
//! raw `flate2::Compress` is reset between members, and the 10-byte header and the 8-byte
//! CRC-32/length trailer of RFC 1952 §2.3 are written around its output.

use std::cell::RefCell;

use flate2::{Compress, Compression, Crc, FlushCompress, Status};

/// ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL=0 OS=255 (unknown), as flate2's `GzEncoder` writes it.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff];

/// Encodes gzip members, reusing one deflate state.
pub(crate) struct MemberEncoder {
    compress: Compress,
    level: u32,
}

thread_local! {
    /// The encoder of [`with_thread_encoder`]: one per thread (a fetch task encodes its capture
    /// on whichever runtime worker it runs on), made at the first use and again when the level
    /// asked for changes.
    static THREAD_ENCODER: RefCell<Option<MemberEncoder>> = const { RefCell::new(None) };
}

/// Runs `encode` with this thread's encoder at `level`: a deflate state costs hundreds of KiB
/// and its set-up is most of the cost of a small member, so it is made once per thread.
pub(crate) fn with_thread_encoder<R>(level: u32, encode: impl FnOnce(&mut MemberEncoder) -> R) -> R {
    THREAD_ENCODER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            let encoder = match slot.take() {
                Some(encoder) if encoder.level == level => slot.insert(encoder),
                _ => slot.insert(MemberEncoder::new(level)),
            };
            encode(encoder)
        }
        // Only re-entrance (an `encode` that encodes) finds it borrowed: a fresh one then.
        Err(_) => encode(&mut MemberEncoder::new(level)),
    })
}

impl MemberEncoder {
    /// A raw-deflate compressor at `level` (0..=9).
    pub(crate) fn new(level: u32) -> Self {
        Self { compress: Compress::new(Compression::new(level), false), level }
    }

    /// Appends to `out` one complete gzip member whose content is `parts` concatenated.
    pub(crate) fn encode(&mut self, parts: &[&[u8]], out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(&GZIP_HEADER);
        self.compress.reset();
        let mut crc = Crc::new();
        for part in parts {
            crc.update(part);
            self.deflate(part, out, FlushCompress::None)?;
        }
        self.deflate(&[], out, FlushCompress::Finish)?;
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&crc.amount().to_le_bytes());
        Ok(())
    }

    fn deflate(&mut self, mut input: &[u8], out: &mut Vec<u8>, flush: FlushCompress) -> Result<(), String> {
        loop {
            if out.capacity() - out.len() < 1024 {
                out.reserve(input.len() / 2 + 4096);
            }
            let consumed_before = self.compress.total_in();
            let status = self.compress.compress_vec(input, out, flush).map_err(|error| error.to_string())?;
            // At most `input.len()`, so it fits in usize.
            let consumed = (self.compress.total_in() - consumed_before) as usize;
            input = &input[consumed..];
            match status {
                Status::StreamEnd => return Ok(()),
                _ if flush == FlushCompress::None && input.is_empty() => return Ok(()),
                // More input to take, or the end of the stream still to write: room was made.
                Status::Ok | Status::BufError => {}
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn members_decode_to_their_parts_one_after_another() {
        let mut encoder = MemberEncoder::new(6);
        let big: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let contents: [&[&[u8]]; 4] = [&[b"hello ", b"world"], &[], &[&big, b"tail"], &[b"x"]];
        let mut file = Vec::new();
        for parts in contents {
            encoder.encode(parts, &mut file).unwrap();
        }
        let mut rest = &file[..];
        for parts in contents {
            let mut decoder = flate2::bufread::GzDecoder::new(rest);
            let mut decoded = Vec::new();
            decoder.read_to_end(&mut decoded).unwrap();
            assert_eq!(decoded, parts.concat());
            rest = decoder.into_inner();
        }
        assert!(rest.is_empty());
    }

    #[test]
    fn every_level_round_trips() {
        for level in 0..=9 {
            let mut member = Vec::new();
            MemberEncoder::new(level).encode(&[b"abcabcabc"], &mut member).unwrap();
            let mut decoded = Vec::new();
            flate2::read::GzDecoder::new(&member[..]).read_to_end(&mut decoded).unwrap();
            assert_eq!(decoded, b"abcabcabc", "level {level}");
        }
    }
}
