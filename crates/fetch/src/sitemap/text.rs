//! The plain-text sitemap format (sitemaps.org, "Text file"): one absolute URL per line,
//! UTF-8, nothing else. Blank lines are skipped; every other line is an entry.

use std::io::BufRead;

use super::collect::Collector;
use super::{ProblemKind, SitemapFormat};

/// Reads every line of `reader` (already capped) into `collector`.
pub(super) fn read(reader: &mut impl BufRead, collector: &mut Collector<'_>) {
    collector.format = SitemapFormat::Text;
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return,
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            // The capped reader reports failures itself; there is nothing more to read.
            Err(_) => return,
        }
        let bytes = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
        let bytes = bytes.trim_ascii();
        if bytes.is_empty() {
            continue;
        }
        let Some(entry) = collector.begin_entry() else { continue };
        match std::str::from_utf8(bytes) {
            Ok(text) => collector.text_line(entry, text),
            Err(error) => collector.problem(
                entry,
                ProblemKind::InvalidLoc { reason: format!("the line is not UTF-8: {error}") },
            ),
        }
    }
}
