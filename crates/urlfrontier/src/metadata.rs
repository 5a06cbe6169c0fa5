//! A URL's metadata (URLFrontier's `map<string, StringList>`) as the bytes the store keeps:
//! `postcard` of the pairs sorted by key, so that equal maps give equal bytes.

use std::collections::HashMap;

use crate::proto::StringList;

/// The bytes of `metadata` (empty for an empty map, as the store keeps pages without any).
#[must_use]
pub fn encode(metadata: &HashMap<String, StringList>) -> Vec<u8> {
    if metadata.is_empty() {
        return Vec::new();
    }
    let mut pairs: Vec<(&str, &[String])> =
        metadata.iter().map(|(key, values)| (key.as_str(), values.values.as_slice())).collect();
    pairs.sort_unstable_by_key(|(key, _)| *key);
    // Strings and sequences of strings always serialise into a growable vector.
    postcard::to_stdvec(&pairs).unwrap_or_default()
}

/// The map `bytes` hold; `None` if they are not metadata this module wrote.
#[must_use]
pub fn decode(bytes: &[u8]) -> Option<HashMap<String, StringList>> {
    if bytes.is_empty() {
        return Some(HashMap::new());
    }
    let pairs: Vec<(String, Vec<String>)> = postcard::from_bytes(bytes).ok()?;
    Some(pairs.into_iter().map(|(key, values)| (key, StringList { values })).collect())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Any map reads back as written, and equal maps give equal bytes whatever their
        /// iteration order.
        #[test]
        fn metadata_round_trips(pairs in proptest::collection::hash_map("[a-z.]{0,8}", proptest::collection::vec(".{0,6}", 0..4), 0..6)) {
            let map: HashMap<String, StringList> =
                pairs.into_iter().map(|(key, values)| (key, StringList { values })).collect();
            let bytes = encode(&map);
            prop_assert_eq!(decode(&bytes), Some(map.clone()));
            let mut reversed: Vec<_> = map.into_iter().collect();
            reversed.reverse();
            prop_assert_eq!(encode(&reversed.into_iter().collect()), bytes);
        }
    }

    #[test]
    fn bytes_not_written_here_are_refused() {
        assert_eq!(decode(&[5, 1]), None);
    }
}
