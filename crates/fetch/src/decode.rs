//! Content-coding removal (RFC 9110 §8.4.1) with a cap on the decoded size, fed chunk by chunk
//! as the body arrives. Pure: no I/O.
//!
//! reqwest can decompress by itself (its `gzip`, `deflate`, `brotli` features), but then the
//! bytes as sent are gone, and WARC stores the HTTP message as received; and its decoder has no
//! size cap, so a gzip bomb would inflate as far as the caller reads. Decoding here keeps the
//! transfer bytes verbatim for the archive and stops a bomb at [`crate::FetchConfig::max_body_bytes`]
//! of output, with memory bounded by the cap plus the decoders' fixed windows (32 KiB for
//! deflate, up to 16 MiB for a brotli stream that asks for it; brotli's window is allocated
//! only as the stream needs it).
//!
//! The decoders are `flate2` (gzip, several members allowed; `deflate` in its zlib wrapper, or
//! raw as some servers send it) and `brotli-decompressor`.

use std::io::{self, Write};

use flate2::write::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};

/// A content coding this module removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Coding {
    Identity,
    Gzip,
    Deflate,
    Brotli,
}

impl Coding {
    /// The coding named by a `Content-Encoding` value, or `Err(value)` when it is not one we
    /// remove (several codings stacked, `zstd`, `compress`, anything unknown).
    pub(crate) fn from_header(value: Option<&str>) -> Result<Self, String> {
        let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
            return Ok(Self::Identity);
        };
        match value.to_ascii_lowercase().as_str() {
            "identity" => Ok(Self::Identity),
            "gzip" | "x-gzip" => Ok(Self::Gzip),
            "deflate" => Ok(Self::Deflate),
            "br" => Ok(Self::Brotli),
            _ => Err(value.to_owned()),
        }
    }
}

/// Why decoding stopped.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DecodeStop {
    /// The decoded size would pass the cap; the output holds exactly the cap.
    TooLarge,
    /// The coded data is corrupt.
    Corrupt(String),
}

/// Collects decoded output up to a cap, then refuses.
#[derive(Debug)]
struct CappedSink {
    output: Vec<u8>,
    cap: usize,
    overflowed: bool,
}

impl Write for CappedSink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = self.cap - self.output.len();
        if data.len() > room {
            self.output.extend_from_slice(&data[..room]);
            self.overflowed = true;
            return Err(io::Error::other("decoded size cap reached"));
        }
        self.output.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The decoder state for one coded body.
enum State {
    Gzip(MultiGzDecoder<CappedSink>),
    /// `deflate` before its first two bytes have told zlib-wrapped from raw.
    DeflateUndecided(Vec<u8>, CappedSink),
    Zlib(ZlibDecoder<CappedSink>),
    RawDeflate(DeflateDecoder<CappedSink>),
    Brotli(Box<brotli_decompressor::DecompressorWriter<CappedSink>>),
    /// Stopped: the state is spent.
    Done,
}

/// A streaming decoder of one coded (non-identity) body.
pub(crate) struct Decoder {
    state: State,
}

impl Decoder {
    /// A decoder for `coding` (not identity) whose output may hold at most `cap` bytes.
    pub(crate) fn new(coding: Coding, cap: usize) -> Self {
        let sink = CappedSink { output: Vec::new(), cap, overflowed: false };
        let state = match coding {
            Coding::Gzip => State::Gzip(MultiGzDecoder::new(sink)),
            Coding::Deflate => State::DeflateUndecided(Vec::new(), sink),
            Coding::Brotli => {
                State::Brotli(Box::new(brotli_decompressor::DecompressorWriter::new(sink, 4096)))
            }
            Coding::Identity => State::Done,
        };
        Self { state }
    }

    /// Feeds one chunk of coded bytes.
    pub(crate) fn write(&mut self, chunk: &[u8]) -> Result<(), DecodeStop> {
        if let State::DeflateUndecided(pending, _) = &mut self.state {
            pending.extend_from_slice(chunk);
            if pending.len() < 2 {
                return Ok(());
            }
            let State::DeflateUndecided(pending, sink) = std::mem::replace(&mut self.state, State::Done)
            else {
                return Ok(());
            };
            // A zlib header: compression method 8 and a header checksum (RFC 1950 §2.2).
            let zlib =
                pending[0] & 0x0f == 8 && (u16::from(pending[0]) << 8 | u16::from(pending[1])) % 31 == 0;
            self.state = if zlib {
                State::Zlib(ZlibDecoder::new(sink))
            } else {
                State::RawDeflate(DeflateDecoder::new(sink))
            };
            return self.write(&pending);
        }
        let result = match &mut self.state {
            State::Gzip(decoder) => decoder.write_all(chunk),
            State::Zlib(decoder) => decoder.write_all(chunk),
            State::RawDeflate(decoder) => decoder.write_all(chunk),
            State::Brotli(decoder) => decoder.write_all(chunk),
            State::DeflateUndecided(..) | State::Done => Ok(()),
        };
        result.map_err(|error| self.stop_reason(error))
    }

    /// Ends the stream: checks that the coded data was complete and flushes what the decoder
    /// still held.
    pub(crate) fn finish(&mut self) -> Result<(), DecodeStop> {
        let result = match &mut self.state {
            State::Gzip(decoder) => decoder.try_finish(),
            State::Zlib(decoder) => decoder.try_finish(),
            State::RawDeflate(decoder) => decoder.try_finish(),
            State::Brotli(decoder) => decoder.close(),
            State::DeflateUndecided(pending, _) if !pending.is_empty() => {
                Err(io::Error::new(io::ErrorKind::UnexpectedEof, "truncated deflate stream"))
            }
            State::DeflateUndecided(..) | State::Done => Ok(()),
        };
        result.map_err(|error| self.stop_reason(error))
    }

    fn sink_mut(&mut self) -> Option<&mut CappedSink> {
        match &mut self.state {
            State::Gzip(decoder) => Some(decoder.get_mut()),
            State::Zlib(decoder) => Some(decoder.get_mut()),
            State::RawDeflate(decoder) => Some(decoder.get_mut()),
            State::Brotli(decoder) => Some(decoder.get_mut()),
            State::DeflateUndecided(_, sink) => Some(sink),
            State::Done => None,
        }
    }

    fn stop_reason(&mut self, error: io::Error) -> DecodeStop {
        if self.sink_mut().is_some_and(|sink| sink.overflowed) {
            DecodeStop::TooLarge
        } else {
            DecodeStop::Corrupt(error.to_string())
        }
    }

    /// The decoded output so far (all of it after [`Self::finish`]); the decoder is spent.
    pub(crate) fn take_output(&mut self) -> Vec<u8> {
        let output = self.sink_mut().map(|sink| std::mem::take(&mut sink.output)).unwrap_or_default();
        self.state = State::Done;
        output
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    fn brotli(data: &[u8]) -> Vec<u8> {
        // A brotli stream of one uncompressed meta-block (RFC 7932 §9.2), written by hand so the
        // test needs no encoder: WBITS=16, ISLAST=0, MNIBBLES=4, MLEN-1, ISUNCOMPRESSED=1, then
        // the bytes, then an empty last meta-block.
        assert!(!data.is_empty() && data.len() <= 1 << 16);
        let mlen = data.len() as u32 - 1;
        // Bits 0..4 are zero: WBITS=16, ISLAST=0, MNIBBLES=4 (encoded 0).
        let bits: u64 = u64::from(mlen) << 4 | 1 << 20;
        let mut out = bits.to_le_bytes()[..3].to_vec();
        out.extend_from_slice(data);
        out.push(0b11); // ISLAST=1, ISLASTEMPTY=1
        out
    }

    fn decode_all(coding: Coding, coded: &[u8], cap: usize, chunk: usize) -> (Vec<u8>, Option<DecodeStop>) {
        let mut decoder = Decoder::new(coding, cap);
        let mut stop = None;
        for piece in coded.chunks(chunk) {
            if let Err(error) = decoder.write(piece) {
                stop = Some(error);
                break;
            }
        }
        if stop.is_none() {
            stop = decoder.finish().err();
        }
        (decoder.take_output(), stop)
    }

    #[test]
    fn codings_from_the_header() {
        assert_eq!(Coding::from_header(None), Ok(Coding::Identity));
        assert_eq!(Coding::from_header(Some(" X-GZIP ")), Ok(Coding::Gzip));
        assert_eq!(Coding::from_header(Some("br")), Ok(Coding::Brotli));
        assert_eq!(Coding::from_header(Some("gzip, br")), Err("gzip, br".to_owned()));
        assert_eq!(Coding::from_header(Some("zstd")), Err("zstd".to_owned()));
    }

    #[test]
    fn gzip_in_small_chunks_and_several_members() {
        let text = b"hello, hello, hello world".repeat(100);
        let mut coded = gzip(&text);
        coded.extend(gzip(b"!"));
        let (output, stop) = decode_all(Coding::Gzip, &coded, 1 << 20, 7);
        assert_eq!(stop, None);
        assert_eq!(output.len(), text.len() + 1);
    }

    #[test]
    fn deflate_zlib_wrapped_and_raw() {
        let text = b"deflate me".repeat(50);
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        zlib.write_all(&text).unwrap();
        let (output, stop) = decode_all(Coding::Deflate, &zlib.finish().unwrap(), 1 << 20, 1);
        assert_eq!((output, stop), (text.clone(), None));
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        raw.write_all(&text).unwrap();
        let (output, stop) = decode_all(Coding::Deflate, &raw.finish().unwrap(), 1 << 20, 5);
        assert_eq!((output, stop), (text, None));
    }

    #[test]
    fn brotli_stream() {
        let text = b"brotli payload ".repeat(20);
        let (output, stop) = decode_all(Coding::Brotli, &brotli(&text), 1 << 20, 3);
        assert_eq!((output, stop), (text, None));
    }

    #[test]
    fn the_cap_stops_a_bomb_with_exactly_the_cap_kept() {
        let coded = gzip(&vec![0u8; 8 << 20]);
        assert!(coded.len() < 64 << 10);
        let (output, stop) = decode_all(Coding::Gzip, &coded, 100_000, 4096);
        assert_eq!(stop, Some(DecodeStop::TooLarge));
        assert_eq!(output.len(), 100_000);
    }

    #[test]
    fn corrupt_and_truncated_streams() {
        let (_, stop) = decode_all(Coding::Gzip, b"this is not gzip at all", 1 << 20, 64);
        assert!(matches!(stop, Some(DecodeStop::Corrupt(_))), "{stop:?}");
        let coded = gzip(&b"some text that is long enough".repeat(10));
        let (_, stop) = decode_all(Coding::Gzip, &coded[..coded.len() / 2], 1 << 20, 64);
        assert!(matches!(stop, Some(DecodeStop::Corrupt(_))), "{stop:?}");
        let coded = brotli(b"cut short");
        let (_, stop) = decode_all(Coding::Brotli, &coded[..6], 1 << 20, 64);
        assert!(matches!(stop, Some(DecodeStop::Corrupt(_))), "{stop:?}");
    }
}
