//! One gzip member (RFC 1952) per record, with one deflate state kept for the writer's life.
//!
//! `flate2::write::GzEncoder` allocates and initialises a fresh compressor for every member; for
//! a small request record that set-up is most of the cost (BENCHMARKS.md, `parts/gzip-*`). Here a
//! raw `flate2::Compress` is reset between members, and the 10-byte header and the 8-byte
//! CRC-32/length trailer of RFC 1952 §2.3 are written around its output.
//!
//! Even a reset clears the deflater's 128 KiB hash table, so records of at most
//! [`STORED_UP_TO`] bytes (requests, revisits) are not deflated but written as one stored block
//! (RFC 1951 §3.2.4), framed by hand here: a block header, the bytes, the trailer. A capture's
//! encoding took 0.76–0.86× the time (criterion), for WARC files 2.85% larger on the static-site
//! bench; in the whole crawl the gain is a few per cent, below what one timed sitting on the
//! bench machine resolves (BENCHMARKS.md, "Crawl throughput").
//!
//! Other encoders were measured against this one (`benches/member.rs`, BENCHMARKS.md "Other
//! deflate encoders"): libdeflate is 1.0–1.5× its time at level 1 and about even at level 6, a
//! smaller window leaves the hash table as it is, and the reset itself is ~6% of a deflated
//! 10 KB page at level 1 (1.4% of a whole crawl's CPU, `perf`); none was worth switching to.

use std::cell::RefCell;

use flate2::{Compress, Compression, Crc, FlushCompress, Status};

/// ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL=0 OS=255 (unknown), as flate2's `GzEncoder` writes it.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff];

/// Contents up to this many bytes are written as one stored deflate block (see
/// [`MemberEncoder::encode`]); a stored block holds up to 65,535.
const STORED_UP_TO: usize = 1024;

/// Writes `parts` (`total` bytes, at most [`STORED_UP_TO`]) as one final stored deflate block
/// (`BFINAL` 1, `BTYPE` 00, then `LEN` and its one's complement `NLEN`, little-endian, RFC 1951
/// §3.2.4) and the gzip trailer: what a deflater at level 0 writes, without its state.
fn encode_stored(parts: &[&[u8]], total: usize, out: &mut Vec<u8>) {
    // `total <= STORED_UP_TO < 65,536`: it fits in `LEN`.
    let length = u16::try_from(total).unwrap_or(u16::MAX);
    out.push(0b001);
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&(!length).to_le_bytes());
    let mut crc = Crc::new();
    for part in parts {
        crc.update(part);
        out.extend_from_slice(part);
    }
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&crc.amount().to_le_bytes());
}

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
    ///
    /// A content of at most [`STORED_UP_TO`] bytes (a request record, a revisit) is stored, not
    /// compressed (RFC 1951 §3.2.4, one block of `BTYPE` 00): resetting the deflate state
    /// clears its 128 KiB hash table (`zlib-rs`, as zlib), several microseconds and a good part
    /// of the L2 cache, for a record deflate would shrink by about 140 bytes.
    pub(crate) fn encode(&mut self, parts: &[&[u8]], out: &mut Vec<u8>) -> Result<(), String> {
        let total: usize = parts.iter().map(|part| part.len()).sum();
        out.extend_from_slice(&GZIP_HEADER);
        if total <= STORED_UP_TO {
            encode_stored(parts, total, out);
            return Ok(());
        }
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

    use proptest::prelude::*;

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
    fn contents_around_the_stored_size_decode_at_every_level() {
        let text: Vec<u8> =
            (0..3 * STORED_UP_TO as u32).map(|i| b"GET /a HTTP/1.1\r\n"[i as usize % 17]).collect();
        for level in [0, 1, 6] {
            let mut encoder = MemberEncoder::new(level);
            for size in [0, 1, STORED_UP_TO - 1, STORED_UP_TO, STORED_UP_TO + 1, 3 * STORED_UP_TO] {
                let (head, tail) = text[..size].split_at(size / 3);
                let mut member = Vec::new();
                encoder.encode(&[head, tail], &mut member).unwrap();
                let mut decoded = Vec::new();
                flate2::read::GzDecoder::new(&member[..]).read_to_end(&mut decoded).unwrap();
                assert_eq!(decoded, &text[..size], "level {level}, {size} bytes");
                // Stored up to the threshold (header, 5 bytes of block header, the bytes,
                // trailer); compressed above it (level 0 stores everything, its own way).
                let stored_length = member.len() == 10 + 5 + size + 8;
                if size <= STORED_UP_TO {
                    assert!(stored_length, "level {level}, {size} bytes: {} bytes", member.len());
                } else if level > 0 {
                    assert!(member.len() < size, "level {level}, {size} bytes: {} bytes", member.len());
                }
            }
        }
    }

    /// Records of a few bytes to a few KB (stored and deflated alike), each from a few parts,
    /// of text that deflate shrinks (a small alphabet) or does not (any byte).
    fn records() -> impl Strategy<Value = Vec<Vec<Vec<u8>>>> {
        let part = prop_oneof![
            proptest::collection::vec(
                proptest::sample::select(b"<a href=\"/p\">x</a>\r\n".to_vec()),
                0..2500
            ),
            proptest::collection::vec(any::<u8>(), 0..1500),
        ];
        proptest::collection::vec(proptest::collection::vec(part, 0..4), 1..6)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A file of members reads back whole with `MultiGzDecoder` (as a gzip reader of a
        /// WARC file does) and member by member with `GzDecoder` (as `warcio` and the
        /// recovery do), each to its parts joined, at every level.
        #[test]
        fn a_file_of_members_decodes_whole_and_member_by_member(
            records in records(),
            level in 0u32..=9,
        ) {
            let mut encoder = MemberEncoder::new(level);
            let mut file = Vec::new();
            for parts in &records {
                let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
                encoder.encode(&parts, &mut file).unwrap();
            }
            let mut whole = Vec::new();
            flate2::read::MultiGzDecoder::new(&file[..]).read_to_end(&mut whole).unwrap();
            prop_assert_eq!(whole, records.concat().concat());
            let mut rest = &file[..];
            for parts in &records {
                let mut decoder = flate2::bufread::GzDecoder::new(rest);
                let mut decoded = Vec::new();
                decoder.read_to_end(&mut decoded).unwrap();
                prop_assert_eq!(decoded, parts.concat());
                rest = decoder.into_inner();
            }
            prop_assert!(rest.is_empty());
        }
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
