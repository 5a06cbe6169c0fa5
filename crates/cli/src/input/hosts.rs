//! The hosts file: one capacity (fetches per unit time) per host name, and optionally a minimum
//! delay between fetches (`freshet simulate`).

use std::collections::HashMap;

use csv::ByteRecord;

use super::csv_pages::{column, field, headers, next_record, reader, required_column};
use super::{Source, check_positive, input_error};

/// Host names interned to indices, with each host's capacity.
#[derive(Debug)]
pub(crate) struct HostTable {
    file: String,
    index: HashMap<Vec<u8>, u32>,
    /// `capacity[i]`: host `i`'s cap `k_i` (`f64::INFINITY` for no cap).
    pub(crate) capacity: Vec<f64>,
    /// `min_delay[i]`: the least time between two fetch starts on host `i` (0 when the file has
    /// no `min_delay` column).
    pub(crate) min_delay: Vec<f64>,
    /// The line of each host, for messages.
    lines: Vec<u64>,
}

impl HostTable {
    /// Reads `host,capacity[,min_delay]` CSV. A capacity must be positive; `inf` means no cap.
    /// A minimum delay must be finite and not negative.
    pub(crate) fn read(source: &Source) -> anyhow::Result<Self> {
        let file = source.name();
        let mut reader = reader(source.open()?);
        let headers = headers(&mut reader, &file)?;
        let host_column = required_column(&headers, "host", &file, "")?;
        let capacity_column = required_column(&headers, "capacity", &file, "")?;
        let delay_column = column(&headers, "min_delay", &file)?;
        let mut table = Self {
            file,
            index: HashMap::new(),
            capacity: Vec::new(),
            min_delay: Vec::new(),
            lines: Vec::new(),
        };
        let file = table.file.as_str();
        let mut record = ByteRecord::new();
        while let Some(line) = next_record(&mut reader, &mut record, file)? {
            let name = field(&record, host_column);
            if name.is_empty() {
                return Err(input_error(file, line, Some("host"), "the host name is empty"));
            }
            let capacity = parse_capacity(file, line, field(&record, capacity_column))?;
            let next = u32::try_from(table.capacity.len())
                .map_err(|_| input_error(file, line, None, "more than 2^32 hosts"))?;
            if let Some(&previous) = table.index.get(name) {
                let first = table.lines.get(previous as usize).copied().unwrap_or(0);
                let shown = String::from_utf8_lossy(name);
                let message = format!("duplicate host {shown:?}, already on line {first}");
                return Err(input_error(file, line, Some("host"), message));
            }
            table.index.insert(name.to_vec(), next);
            let min_delay = match delay_column {
                Some(index) => parse_delay(file, line, field(&record, index))?,
                None => 0.0,
            };
            table.capacity.push(capacity);
            table.min_delay.push(min_delay);
            table.lines.push(line);
        }
        Ok(table)
    }

    /// The file the hosts came from.
    pub(crate) fn file(&self) -> &str {
        &self.file
    }

    /// The index of host `name`, if listed.
    pub(crate) fn index_of(&self, name: &[u8]) -> Option<u32> {
        self.index.get(name).copied()
    }

    /// The 1-based line of host `host`.
    pub(crate) fn line(&self, host: usize) -> u64 {
        self.lines.get(host).copied().unwrap_or(0)
    }

    /// Number of hosts.
    pub(crate) fn len(&self) -> usize {
        self.capacity.len()
    }
}

/// A minimum delay: a finite number ≥ 0 (an empty field means 0).
fn parse_delay(file: &str, line: u64, raw: &[u8]) -> anyhow::Result<f64> {
    let text = String::from_utf8_lossy(raw);
    if text.is_empty() {
        return Ok(0.0);
    }
    match text.parse::<f64>() {
        Ok(delay) if delay.is_finite() && delay >= 0.0 => Ok(delay),
        _ => Err(input_error(file, line, Some("min_delay"), format!("{text:?} is not a finite number ≥ 0"))),
    }
}

/// A capacity: a positive finite number, or `inf` / `infinity` for no cap.
fn parse_capacity(file: &str, line: u64, raw: &[u8]) -> anyhow::Result<f64> {
    let fail = |message: String| input_error(file, line, Some("capacity"), message);
    let text = String::from_utf8_lossy(raw);
    if text.is_empty() {
        return Err(fail("the value is empty (write inf for no cap)".to_owned()));
    }
    let value: f64 = text.parse().map_err(|_| fail(format!("{text:?} is not a number")))?;
    if value == f64::INFINITY {
        return Ok(value);
    }
    check_positive(value, &text).map_err(fail)
}
