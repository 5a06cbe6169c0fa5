//! A gzip bomb (RFC 1952): a small body that inflates to `total` zero bytes.
//!
//! Compressing a gigabyte takes seconds even in release builds, so the deflate stream is built
//! from one compressed mebibyte of zeros repeated: after a full flush (`Z_FULL_FLUSH`) a
//! deflate compressor forgets its history and ends on a byte boundary, so compressing the
//! same input again yields the same bytes, and the concatenation is a valid stream. (Checked at
//! run time; if the compressor ever disagrees, the whole input is compressed instead.) The
//! trailer's CRC-32 is combined block by block (`crc32_combine`), never over a gigabyte.

use flate2::{Compress, Compression, Crc, FlushCompress, Status};

const BLOCK: usize = 1 << 20;

/// Deflates `input` into `out` with `flush`, growing `out` as needed: done when the stream
/// ended, or when all input is in and the compressor stopped with room to spare (the flush is
/// complete).
fn deflate(compressor: &mut Compress, input: &[u8], flush: FlushCompress, out: &mut Vec<u8>) {
    let start_in = compressor.total_in();
    loop {
        out.reserve(64 * 1024);
        let consumed = (compressor.total_in() - start_in) as usize;
        // An error would mean a bad flush sequence, which this file never makes.
        let Ok(status) = compressor.compress_vec(&input[consumed..], out, flush) else { return };
        let all_in = (compressor.total_in() - start_in) as usize == input.len();
        if status == Status::StreamEnd || (all_in && out.len() < out.capacity()) {
            return;
        }
    }
}

/// The gzip member of `total` zero bytes.
#[must_use]
pub fn gzip_bomb(total: u64) -> Vec<u8> {
    let zeros = vec![0u8; BLOCK];
    let level = Compression::best();
    let mut compressor = Compress::new(level, false);
    let mut first = Vec::new();
    let mut second = Vec::new();
    let mut third = Vec::new();
    deflate(&mut compressor, &zeros, FlushCompress::Full, &mut first);
    deflate(&mut compressor, &zeros, FlushCompress::Full, &mut second);
    deflate(&mut compressor, &zeros, FlushCompress::Full, &mut third);
    let repeatable = second == third;

    let blocks = total / BLOCK as u64;
    let rest = (total % BLOCK as u64) as usize;
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff];
    if repeatable {
        let mut tail_compressor = Compress::new(level, false);
        let mut tail = Vec::new();
        deflate(&mut tail_compressor, &zeros[..rest], FlushCompress::Finish, &mut tail);
        out.reserve(blocks as usize * second.len() + first.len() + tail.len() + 8);
        for _ in 0..blocks {
            out.extend_from_slice(&second);
        }
        out.extend_from_slice(&tail);
    } else {
        let mut compressor = Compress::new(level, false);
        for _ in 0..blocks {
            deflate(&mut compressor, &zeros, FlushCompress::None, &mut out);
        }
        deflate(&mut compressor, &zeros[..rest], FlushCompress::Finish, &mut out);
    }
    let mut block_crc = Crc::new();
    block_crc.update(&zeros);
    let mut crc = Crc::new();
    for _ in 0..blocks {
        crc.combine(&block_crc);
    }
    crc.update(&zeros[..rest]);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    // ISIZE: the length modulo 2^32 (RFC 1952 §2.3.1).
    out.extend_from_slice(&((total & 0xFFFF_FFFF) as u32).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::io::Read as _;

    use super::*;

    #[test]
    fn inflates_to_exactly_the_size_with_a_valid_trailer() {
        for total in [0, 1000, 3 * BLOCK as u64 + 17] {
            let bomb = gzip_bomb(total);
            let mut decoder = flate2::read::GzDecoder::new(&bomb[..]);
            let mut inflated = Vec::new();
            decoder.read_to_end(&mut inflated).unwrap();
            assert_eq!(inflated.len() as u64, total);
            assert!(inflated.iter().all(|&b| b == 0));
        }
        let bomb = gzip_bomb(8 * BLOCK as u64);
        assert!(bomb.len() < 8 * BLOCK / 500, "{} bytes", bomb.len());
    }
}
