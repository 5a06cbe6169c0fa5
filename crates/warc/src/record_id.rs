//! `RecordId`: a WARC-Record-ID, `<urn:uuid:…>` (WARC 1.1 §5.2), and where the writer's ids come
//! from: random version-4 UUIDs by default, or derived from a seed for reproducible tests.

use std::fmt;

use sha1::{Digest as _, Sha1};

/// A record's globally unique id, a version-4 UUID written as `<urn:uuid:…>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordId(uuid::Uuid);

impl RecordId {
    /// Parses `<urn:uuid:…>` (as written in WARC-Record-ID and the fields that point at records).
    pub fn parse(text: &str) -> Option<Self> {
        let inner = text.strip_prefix("<urn:uuid:")?.strip_suffix('>')?;
        uuid::Uuid::parse_str(inner).ok().map(Self)
    }

    /// The UUID.
    pub fn uuid(&self) -> uuid::Uuid {
        self.0
    }
}

impl fmt::Display for RecordId {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "<urn:uuid:{}>", self.0.hyphenated())
    }
}

/// Where the writer's record ids come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RecordIds {
    /// Random version-4 UUIDs from the operating system's generator: unique across crawls and
    /// machines, what a crawler should use.
    #[default]
    Random,
    /// Ids derived from the seed, the file's number and the record's place in the file (SHA-1 of
    /// the three, shaped as a version-4 UUID): the same run gives the same bytes, for tests and
    /// examples. Unique within one directory of files (a place holds one record, even after a
    /// torn record is cut and rewritten), not across crawls that reuse a seed.
    Seeded(u64),
}

impl RecordIds {
    /// The id of the `index_in_write`-th record of a write that begins at byte `offset` of file
    /// number `file_number`.
    pub(crate) fn next(self, file_number: u32, offset: u64, index_in_write: u32) -> RecordId {
        match self {
            RecordIds::Random => RecordId(uuid::Uuid::new_v4()),
            RecordIds::Seeded(seed) => {
                let mut hasher = Sha1::new();
                hasher.update(seed.to_le_bytes());
                hasher.update(file_number.to_le_bytes());
                hasher.update(offset.to_le_bytes());
                hasher.update(index_in_write.to_le_bytes());
                let hash: [u8; 20] = hasher.finalize().into();
                let mut random_bytes = [0u8; 16];
                random_bytes.copy_from_slice(&hash[..16]);
                RecordId(uuid::Builder::from_random_bytes(random_bytes).into_uuid())
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_urn_uuids_that_parse_back() {
        for ids in [RecordIds::Random, RecordIds::Seeded(7)] {
            let id = ids.next(3, 1234, 1);
            let text = id.to_string();
            assert!(text.starts_with("<urn:uuid:") && text.ends_with('>') && text.len() == 47, "{text}");
            assert_eq!(id.uuid().get_version_num(), 4);
            assert_eq!(RecordId::parse(&text), Some(id));
        }
    }

    #[test]
    fn seeded_ids_repeat_for_the_same_place_and_differ_between_places() {
        let ids = RecordIds::Seeded(7);
        assert_eq!(ids.next(0, 10, 0), ids.next(0, 10, 0));
        assert_ne!(ids.next(0, 10, 0), ids.next(0, 10, 1));
        assert_ne!(ids.next(0, 10, 0), ids.next(1, 10, 0));
        assert_ne!(ids.next(0, 10, 0), RecordIds::Seeded(8).next(0, 10, 0));
    }
}
