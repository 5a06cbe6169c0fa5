//! The CSV pages reader, and the CSV helpers the hosts reader shares.
//!
//! One reused [`csv::ByteRecord`]; fields are trimmed of ASCII whitespace; a page's fields are validated and
//! stored in the [`PageTableBuilder`] before the next record is read.

use std::io::Read;

use csv::{ByteRecord, Reader, ReaderBuilder, Trim};
use freshet_policy::Page;

use super::{PageTableBuilder, input_error, parse_positive};

/// A CSV reader over `input`: header row (trimmed), records of equal length. Record fields
/// are trimmed by [`field`] (the reader's own trimming would copy every record).
pub(super) fn reader<R: Read>(input: R) -> Reader<R> {
    ReaderBuilder::new().trim(Trim::Headers).buffer_capacity(1 << 16).from_reader(input)
}

/// Field `index` of `record`, without surrounding ASCII whitespace (empty if absent; every
/// record has as many fields as the header because the reader is not flexible).
pub(super) fn field(record: &ByteRecord, index: usize) -> &[u8] {
    record.get(index).unwrap_or_default().trim_ascii()
}

/// The header row, or an error naming `file`.
pub(super) fn headers<R: Read>(reader: &mut Reader<R>, file: &str) -> anyhow::Result<ByteRecord> {
    reader.byte_headers().cloned().map_err(|error| csv_error(file, &error))
}

/// The index of column `name` in `headers` (`None` if absent); a column named twice is an error.
pub(super) fn column(headers: &ByteRecord, name: &str, file: &str) -> anyhow::Result<Option<usize>> {
    let mut found = headers.iter().enumerate().filter(|(_, header)| *header == name.as_bytes());
    let first = found.next().map(|(index, _)| index);
    if found.next().is_some() {
        return Err(input_error(file, 1, Some(name), "the column appears twice in the header"));
    }
    Ok(first)
}

/// The index of a column that must be present.
pub(super) fn required_column(
    headers: &ByteRecord,
    name: &str,
    file: &str,
    why: &str,
) -> anyhow::Result<usize> {
    column(headers, name, file)?.ok_or_else(|| {
        let found: Vec<_> = headers.iter().map(String::from_utf8_lossy).collect();
        let message = format!("missing column{why}; the header has: {}", found.join(","));
        input_error(file, 1, Some(name), message)
    })
}

/// Reads the next record into `record`; `Ok(None)` at the end, else its 1-based line.
pub(super) fn next_record<R: Read>(
    reader: &mut Reader<R>,
    record: &mut ByteRecord,
    file: &str,
) -> anyhow::Result<Option<u64>> {
    match reader.read_byte_record(record) {
        Ok(false) => Ok(None),
        Ok(true) => Ok(Some(record.position().map_or(0, csv::Position::line))),
        Err(error) => Err(csv_error(file, &error)),
    }
}

/// A CSV error as an input error naming the file and, where known, the line.
pub(super) fn csv_error(file: &str, error: &csv::Error) -> anyhow::Error {
    match error.kind() {
        csv::ErrorKind::UnequalLengths { pos, expected_len, len } => {
            let line = pos.as_ref().map_or(0, csv::Position::line);
            let message = format!("malformed CSV: {len} fields, but the header has {expected_len}");
            input_error(file, line, None, message)
        }
        csv::ErrorKind::Io(io) => input_error(file, 0, None, format!("cannot read: {io}")),
        _ => {
            let line = error.position().map_or(0, csv::Position::line);
            input_error(file, line, None, format!("malformed CSV: {error}"))
        }
    }
}

/// Reads CSV pages from `input` into `builder`.
pub(super) fn read<R: Read>(input: R, builder: &mut PageTableBuilder<'_>) -> anyhow::Result<()> {
    let file = builder.file().to_owned();
    let mut reader = reader(input);
    let headers = headers(&mut reader, &file)?;
    let id_column = required_column(&headers, "id", &file, "")?;
    let weight_column = required_column(&headers, "weight", &file, "")?;
    let rate_column = required_column(&headers, "change_rate", &file, "")?;
    let host_column = match builder.hosts {
        Some(_) => Some(required_column(&headers, "host", &file, " (needed with --hosts)")?),
        None => None,
    };
    let mut record = ByteRecord::new();
    while let Some(line) = next_record(&mut reader, &mut record, &file)? {
        let field = |index: usize| field(&record, index);
        let id = builder.check_id(line, field(id_column))?;
        let weight = parse_positive(&file, line, "weight", field(weight_column))?;
        let change_rate = parse_positive(&file, line, "change_rate", field(rate_column))?;
        let host = match host_column {
            Some(column) => Some(builder.host_index(line, field(column))?),
            None => None,
        };
        builder.push(line, id, Page::new(weight, change_rate), host)?;
    }
    Ok(())
}
