//! Out-link lists as a set: distinct targets, without the page itself, without allocating
//! in steady state.
//!
//! Both estimators treat a page's out-links as a set (as testweb and PageRank do): a page that
//! links twice to `j` gives `j` one share, and a link to itself is dropped. A crawler's link
//! extractor returns links in document order with repeats, so this is done here, once.

/// The distinct out-links of `page` other than `page` itself, in ascending order.
///
/// When `links` is already strictly increasing and does not hold `page` (testweb's lists, a
/// store's sorted sets) it is returned as is: one O(k) scan. Otherwise it is copied into
/// `scratch`, sorted and deduplicated: O(k log k), and no allocation once `scratch` has grown
/// to the longest list seen.
pub(crate) fn distinct_out_links<'a>(scratch: &'a mut Vec<u32>, page: u32, links: &'a [u32]) -> &'a [u32] {
    let already_a_set = links.windows(2).all(|pair| pair[0] < pair[1]) && links.binary_search(&page).is_err();
    if already_a_set {
        return links;
    }
    scratch.clear();
    scratch.extend(links.iter().copied().filter(|&to| to != page));
    scratch.sort_unstable();
    scratch.dedup();
    scratch
}

#[cfg(test)]
mod tests {
    use super::distinct_out_links;

    #[test]
    fn sorted_sets_pass_through_and_others_are_cleaned() {
        let mut scratch = Vec::new();
        assert_eq!(distinct_out_links(&mut scratch, 9, &[1, 4, 7]), &[1, 4, 7]);
        assert!(scratch.is_empty(), "a set needs no copy");
        assert_eq!(distinct_out_links(&mut scratch, 4, &[7, 4, 1, 7, 1]), &[1, 7]);
        assert_eq!(distinct_out_links(&mut scratch, 4, &[1, 4, 7]), &[1, 7]);
        assert_eq!(distinct_out_links(&mut scratch, 3, &[3, 3]), &[] as &[u32]);
        assert_eq!(distinct_out_links(&mut scratch, 3, &[]), &[] as &[u32]);
    }
}
