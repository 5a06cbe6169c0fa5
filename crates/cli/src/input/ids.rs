//! Page ids in one byte arena, and duplicate detection without a set of strings.
//!
//! Every id lives in one `Vec<u8>`; a page keeps only the `u32` end of its id (4 bytes per page
//! plus the id's bytes, with no per-string header or allocation). Duplicates are found by
//! sorting one 64-bit hash per page (8 bytes per page, freed on return); only pages whose
//! hashes collide are compared byte for byte, so a hash collision between different ids is
//! never reported as a duplicate.

use std::hash::{DefaultHasher, Hash as _, Hasher as _};

/// The ids of all pages, in page order.
#[derive(Debug, Default)]
pub(crate) struct IdArena {
    bytes: Vec<u8>,
    ends: Vec<u32>,
}

impl IdArena {
    /// Appends the next page's id; fails if the ids together exceed 4 GiB.
    pub(crate) fn push(&mut self, id: &[u8]) -> Result<(), String> {
        let end = u32::try_from(self.bytes.len() + id.len())
            .map_err(|_| "the ids together exceed 4 GiB, the most freshet can hold".to_owned())?;
        self.bytes.extend_from_slice(id);
        self.ends.push(end);
        Ok(())
    }

    /// The id of page `index` (empty if out of range).
    pub(crate) fn get(&self, index: usize) -> &[u8] {
        let start = match index.checked_sub(1) {
            Some(previous) => self.ends.get(previous).copied().unwrap_or(0),
            None => 0,
        };
        let end = self.ends.get(index).copied().unwrap_or(start);
        self.bytes.get(start as usize..end as usize).unwrap_or_default()
    }

    /// Number of ids.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Total bytes of all ids (without the offsets).
    pub(crate) fn id_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// The first duplicate in page order: `(first, second)` with `second` the smallest index
    /// whose id already appeared, at `first`.
    pub(crate) fn first_duplicate(&self) -> Option<(usize, usize)> {
        let mut hashes: Vec<u64> = (0..self.len()).map(|index| hash_id(self.get(index))).collect();
        hashes.sort_unstable();
        let mut colliding: Vec<u64> =
            hashes.windows(2).filter(|pair| pair[0] == pair[1]).map(|pair| pair[0]).collect();
        drop(hashes);
        if colliding.is_empty() {
            return None;
        }
        colliding.dedup();
        // Only the pages whose hash collides, grouped by hash and in page order within a group.
        let mut suspects: Vec<(u64, usize)> = (0..self.len())
            .filter_map(|index| {
                let hash = hash_id(self.get(index));
                colliding.binary_search(&hash).is_ok().then_some((hash, index))
            })
            .collect();
        suspects.sort_unstable();
        let mut best: Option<(usize, usize)> = None;
        for group in suspects.chunk_by(|a, b| a.0 == b.0) {
            for (position, &(_, second)) in group.iter().enumerate() {
                let earlier =
                    group[..position].iter().find(|&&(_, first)| self.get(first) == self.get(second));
                if let Some(&(_, first)) = earlier {
                    if best.is_none_or(|(_, best_second)| second < best_second) {
                        best = Some((first, second));
                    }
                    break;
                }
            }
        }
        best
    }
}

/// A 64-bit hash of an id (SipHash with fixed keys: deterministic across runs).
fn hash_id(id: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    id.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::IdArena;

    fn arena(ids: &[&str]) -> IdArena {
        let mut arena = IdArena::default();
        for id in ids {
            assert!(arena.push(id.as_bytes()).is_ok());
        }
        arena
    }

    #[test]
    fn ids_round_trip() {
        let ids = arena(&["a", "bc", "", "def"]);
        assert_eq!(ids.get(0), b"a");
        assert_eq!(ids.get(1), b"bc");
        assert_eq!(ids.get(2), b"");
        assert_eq!(ids.get(3), b"def");
        assert_eq!(ids.get(4), b"");
    }

    #[test]
    fn no_duplicates() {
        assert_eq!(arena(&["a", "b", "c"]).first_duplicate(), None);
        assert_eq!(arena(&[]).first_duplicate(), None);
    }

    #[test]
    fn first_duplicate_in_page_order() {
        let ids = arena(&["x", "y", "z", "y", "x"]);
        assert_eq!(ids.first_duplicate(), Some((1, 3)));
        let ids = arena(&["a", "b", "a", "b", "a"]);
        assert_eq!(ids.first_duplicate(), Some((0, 2)));
    }
}
