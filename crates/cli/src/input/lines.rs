//! Page index to line number, without a number per page.
//!
//! Records usually sit on consecutive lines, so the map stores only the breakpoints where the
//! line is not the previous record's line + 1 (the first record, a blank line skipped, a quoted
//! CSV field spanning lines). A typical file has one breakpoint.

/// Maps page indices (pushed in order) to their 1-based line numbers.
#[derive(Debug, Default)]
pub(crate) struct LineMap {
    /// `(index, line)` at every page whose line is not the previous page's + 1.
    breaks: Vec<(usize, u64)>,
}

impl LineMap {
    /// Records that page `index` (the next in order) starts on `line`.
    pub(crate) fn record(&mut self, index: usize, line: u64) {
        if self.breaks.is_empty() || self.line(index) != line {
            self.breaks.push((index, line));
        }
    }

    /// The line of page `index` (0 if nothing was recorded).
    pub(crate) fn line(&self, index: usize) -> u64 {
        let after = self.breaks.partition_point(|&(start, _)| start <= index);
        match after.checked_sub(1).and_then(|at| self.breaks.get(at)) {
            Some(&(start, line)) => line + (index - start) as u64,
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LineMap;

    #[test]
    fn consecutive_lines_need_one_breakpoint() {
        let mut map = LineMap::default();
        for index in 0..1000 {
            map.record(index, index as u64 + 2);
        }
        assert_eq!(map.breaks.len(), 1);
        assert_eq!(map.line(0), 2);
        assert_eq!(map.line(999), 1001);
    }

    #[test]
    fn gaps_are_remembered() {
        let mut map = LineMap::default();
        let lines = [2, 3, 5, 6, 7, 10, 11];
        for (index, &line) in lines.iter().enumerate() {
            map.record(index, line);
        }
        assert_eq!(map.breaks.len(), 3);
        for (index, &line) in lines.iter().enumerate() {
            assert_eq!(map.line(index), line);
        }
    }
}
