//! Reading the pages and hosts files into compact, validated tables.
//!
//! **Formats.** PAGES is CSV with a header holding at least `id`, `weight` and `change_rate`
//! and optionally `host` (columns in any order, other columns ignored), or JSON lines when the
//! file name ends in `.jsonl` or `.ndjson` (one object per line with the same fields; `id` and
//! `host` may be strings or numbers). `-` reads CSV from standard input. HOSTS is CSV with
//! `host,capacity`.
//!
//! **Errors** name the file, the 1-based line (the CSV header is line 1) and the field, e.g.
//! `pages.csv line 7, field weight: "abc" is not a number`. Everything is validated while
//! reading, before anything is solved or written.
//!
//! **Memory per page**, so that 10^7 pages fit in well under 64 bytes each plus their ids:
//!
//! | what | bytes/page | when |
//! |---|---|---|
//! | `Page` (weight, change rate) | 16 | always |
//! | id end offset (`u32`) into one byte arena | 4 (+ the id's bytes) | always |
//! | host index (`u32`; names interned once per distinct host) | 4 | with `--hosts` |
//! | id hash (`u64`) for duplicate detection | 8 | while reading only, freed before solving |
//! | the solver's `rates` (`f64`) | 8 | solving and writing |
//! | the solver's page-by-host index (`u32`) | 4 | while solving, when some cap binds |
//!
//! That is at most 36 bytes per page plus the ids at the peak. Line numbers are not stored per
//! page: [`lines::LineMap`] keeps only the places where the line stops being "previous + 1".
//! No `String` or CSV record is kept per page; the output is streamed.

mod csv_pages;
mod hosts;
mod ids;
mod jsonl;
mod lines;

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use freshet_policy::Page;

pub(crate) use hosts::HostTable;
pub(crate) use ids::IdArena;
use lines::LineMap;

/// An error located in an input file: file, 1-based line, and the field when there is one.
#[derive(Debug)]
pub(crate) struct InputError {
    /// The file as the user named it (`<stdin>` for standard input).
    pub(crate) file: String,
    /// 1-based line (the CSV header is line 1); 0 when the error concerns the whole file.
    pub(crate) line: u64,
    /// The column or JSON field, if the error is about one.
    pub(crate) field: Option<String>,
    /// What is wrong.
    pub(crate) message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, " line {}", self.line)?;
        }
        if let Some(field) = &self.field {
            write!(f, ", field {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for InputError {}

/// An [`InputError`] at `file` line `line`, field `field` (if any), as an `anyhow::Error`.
pub(crate) fn input_error(
    file: &str,
    line: u64,
    field: Option<&str>,
    message: impl Into<String>,
) -> anyhow::Error {
    InputError { file: file.to_owned(), line, field: field.map(str::to_owned), message: message.into() }
        .into()
}

/// Where an input comes from.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    /// Standard input (always CSV).
    Stdin,
    /// A file; JSON lines if its name ends in `.jsonl` or `.ndjson`, else CSV.
    File(PathBuf),
}

impl Source {
    /// `-` is standard input; anything else a file.
    pub(crate) fn from_arg(path: &Path) -> Self {
        if path.as_os_str() == "-" { Self::Stdin } else { Self::File(path.to_owned()) }
    }

    /// The name used in error messages.
    pub(crate) fn name(&self) -> String {
        match self {
            Self::Stdin => "<stdin>".to_owned(),
            Self::File(path) => path.display().to_string(),
        }
    }

    /// True for JSON lines input.
    fn is_jsonl(&self) -> bool {
        match self {
            Self::Stdin => false,
            Self::File(path) => path
                .extension()
                .and_then(|ext| ext.to_str())
                .is_some_and(|ext| ext.eq_ignore_ascii_case("jsonl") || ext.eq_ignore_ascii_case("ndjson")),
        }
    }

    /// Opens the input for reading.
    fn open(&self) -> anyhow::Result<Box<dyn Read>> {
        Ok(match self {
            Self::Stdin => Box::new(io::stdin().lock()),
            Self::File(path) => {
                Box::new(File::open(path).with_context(|| format!("{}: cannot open", self.name()))?)
            }
        })
    }
}

/// The pages of a problem, in input order, with their ids and (with `--hosts`) host indices.
#[derive(Debug)]
pub(crate) struct PageTable {
    /// The file the pages came from, for messages.
    pub(crate) file: String,
    /// Weight and change rate of every page.
    pub(crate) pages: Vec<Page>,
    /// Index into the [`HostTable`] of every page's host; empty without `--hosts`.
    pub(crate) host_of_page: Vec<u32>,
    /// Every page's id.
    pub(crate) ids: IdArena,
    /// Page index to line number.
    lines: LineMap,
}

impl PageTable {
    /// The 1-based line on which page `index` starts.
    pub(crate) fn line(&self, index: usize) -> u64 {
        self.lines.line(index)
    }

    /// Number of pages.
    pub(crate) fn len(&self) -> usize {
        self.pages.len()
    }
}

/// Reads and validates the pages; with `hosts`, every page must name one of its hosts.
pub(crate) fn read_pages(source: &Source, hosts: Option<&HostTable>) -> anyhow::Result<PageTable> {
    let reader = source.open()?;
    let mut builder = PageTableBuilder::new(source.name(), hosts);
    if source.is_jsonl() {
        jsonl::read(reader, &mut builder)?;
    } else {
        csv_pages::read(reader, &mut builder)?;
    }
    builder.finish()
}

/// Accumulates validated pages in their compact form.
struct PageTableBuilder<'h> {
    table: PageTable,
    hosts: Option<&'h HostTable>,
}

impl<'h> PageTableBuilder<'h> {
    fn new(file: String, hosts: Option<&'h HostTable>) -> Self {
        let table = PageTable {
            file,
            pages: Vec::new(),
            host_of_page: Vec::new(),
            ids: IdArena::default(),
            lines: LineMap::default(),
        };
        Self { table, hosts }
    }

    fn file(&self) -> &str {
        &self.table.file
    }

    /// Checks a raw id (non-empty).
    fn check_id<'a>(&self, line: u64, raw: &'a [u8]) -> anyhow::Result<&'a [u8]> {
        if raw.is_empty() {
            return Err(input_error(self.file(), line, Some("id"), "the id is empty"));
        }
        Ok(raw)
    }

    /// The host index of a raw host name (only called with `--hosts`).
    fn host_index(&self, line: u64, raw: &[u8]) -> anyhow::Result<u32> {
        let Some(hosts) = self.hosts else { return Ok(0) };
        hosts.index_of(raw).ok_or_else(|| {
            let name = String::from_utf8_lossy(raw);
            input_error(self.file(), line, Some("host"), format!("host {name:?} is not in {}", hosts.file()))
        })
    }

    /// Adds one validated page.
    fn push(&mut self, line: u64, id: &[u8], page: Page, host: Option<u32>) -> anyhow::Result<()> {
        let index = self.table.pages.len();
        self.table.ids.push(id).map_err(|message| input_error(self.file(), line, Some("id"), message))?;
        self.table.pages.push(page);
        if let Some(host) = host {
            self.table.host_of_page.push(host);
        }
        self.table.lines.record(index, line);
        Ok(())
    }

    /// Rejects duplicate ids and returns the table.
    fn finish(self) -> anyhow::Result<PageTable> {
        let table = self.table;
        if let Some((first, second)) = table.ids.first_duplicate() {
            let id = String::from_utf8_lossy(table.ids.get(second));
            let message = format!("duplicate id {id:?}, already on line {}", table.line(first));
            return Err(input_error(&table.file, table.line(second), Some("id"), message));
        }
        Ok(table)
    }
}

/// Parses a field that must be a positive finite number (a weight, a change rate, a capacity).
fn parse_positive(file: &str, line: u64, field: &str, raw: &[u8]) -> anyhow::Result<f64> {
    let fail = |message: String| input_error(file, line, Some(field), message);
    let Ok(text) = std::str::from_utf8(raw) else {
        return Err(fail(format!("{:?} is not a number", String::from_utf8_lossy(raw))));
    };
    if text.is_empty() {
        return Err(fail("the value is empty".to_owned()));
    }
    let value: f64 = text.parse().map_err(|_| fail(format!("{text:?} is not a number")))?;
    check_positive(value, text).map_err(fail)
}

/// `value` if it is positive and finite, else a message quoting `text`.
fn check_positive(value: f64, text: &str) -> Result<f64, String> {
    if !value.is_finite() {
        return Err(format!("{text:?} is not a finite number"));
    }
    if value <= 0.0 {
        return Err(format!("must be positive, got {text}"));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(raw: &str) -> String {
        match parse_positive("p.csv", 7, "weight", raw.as_bytes()) {
            Ok(value) => format!("ok {value}"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn numbers_are_positive_and_finite() {
        assert_eq!(message("2.5"), "ok 2.5");
        assert_eq!(message("1e-3"), "ok 0.001");
        assert_eq!(message("abc"), r#"p.csv line 7, field weight: "abc" is not a number"#);
        assert_eq!(message(""), "p.csv line 7, field weight: the value is empty");
        assert_eq!(message("NaN"), r#"p.csv line 7, field weight: "NaN" is not a finite number"#);
        assert_eq!(message("inf"), r#"p.csv line 7, field weight: "inf" is not a finite number"#);
        assert_eq!(message("0"), "p.csv line 7, field weight: must be positive, got 0");
        assert_eq!(message("-1"), "p.csv line 7, field weight: must be positive, got -1");
    }
}
