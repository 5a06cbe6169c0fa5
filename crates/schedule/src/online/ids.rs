//! The caller's names for pages and hosts: dense `u32` indices chosen by the caller.

/// A page, named by a dense index that the caller chooses (a URL table's row, say).
///
/// The scheduler keeps one 24-byte slot per index up to the largest one added, so indices should
/// be dense. A removed page's index may be added again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PageId(pub u32);

/// A host (politeness unit: a site, an IP, a URLFrontier queue), named by a dense index that the
/// caller chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostId(pub u32);

impl std::fmt::Display for PageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "page {}", self.0)
    }
}

impl std::fmt::Display for HostId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "host {}", self.0)
    }
}
