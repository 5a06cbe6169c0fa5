//! The JSON lines pages reader: one object per line with `id`, `weight`, `change_rate` and
//! optionally `host`; other fields are ignored, blank lines skipped.
//!
//! Each field is read as a [`Scalar`] that accepts any JSON value, so that a wrong type is
//! reported with the field's name rather than as a parse error. Numbers may also be given as
//! strings (`"weight": "0.5"`); `id` and `host` may be strings or numbers.

use std::borrow::Cow;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::marker::PhantomData;

use freshet_policy::Page;
use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{PageTableBuilder, check_positive, input_error, parse_positive};

/// One line's object; borrowed from the line buffer where possible.
#[derive(Deserialize)]
struct JsonPage<'a> {
    #[serde(borrow, default)]
    id: Option<Scalar<'a>>,
    #[serde(borrow, default)]
    weight: Option<Scalar<'a>>,
    #[serde(borrow, default)]
    change_rate: Option<Scalar<'a>>,
    #[serde(borrow, default)]
    host: Option<Scalar<'a>>,
}

/// Any JSON value, kept only as far as freshet needs it.
enum Scalar<'a> {
    /// A string.
    Text(Cow<'a, str>),
    /// A non-negative integer (kept exact, for ids).
    Unsigned(u64),
    /// A negative integer.
    Signed(i64),
    /// Any other number.
    Float(f64),
    /// Something else: what it was, in words.
    Other(&'static str),
}

impl Scalar<'_> {
    /// The value as text (numbers in their shortest form), for ids and host names.
    fn text(&self) -> Result<Cow<'_, str>, String> {
        Ok(match self {
            Self::Text(text) => Cow::Borrowed(text.as_ref()),
            Self::Unsigned(value) => Cow::Owned(value.to_string()),
            Self::Signed(value) => Cow::Owned(value.to_string()),
            Self::Float(value) => Cow::Owned(value.to_string()),
            Self::Other(what) => return Err(format!("expected a string or a number, found {what}")),
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ScalarVisitor(PhantomData))
    }
}

/// Builds a [`Scalar`] from whatever JSON value comes.
struct ScalarVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ScalarVisitor<'a> {
    type Value = Scalar<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Text(Cow::Borrowed(value)))
    }
    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Text(Cow::Owned(value.to_owned())))
    }
    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        Ok(Scalar::Unsigned(value))
    }
    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        Ok(Scalar::Signed(value))
    }
    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
        Ok(Scalar::Float(value))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Other("a boolean"))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other("null"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other("an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other("an object"))
    }
}

/// Reads JSON lines pages from `input` into `builder`.
pub(super) fn read<R: Read>(input: R, builder: &mut PageTableBuilder<'_>) -> anyhow::Result<()> {
    let file = builder.file().to_owned();
    let with_hosts = builder.hosts.is_some();
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut buffer = Vec::new();
    let mut line = 0_u64;
    loop {
        buffer.clear();
        let read = reader
            .read_until(b'\n', &mut buffer)
            .map_err(|error| input_error(&file, 0, None, format!("cannot read: {error}")))?;
        if read == 0 {
            return Ok(());
        }
        line += 1;
        if buffer.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record: JsonPage<'_> = serde_json::from_slice(&buffer)
            .map_err(|error| input_error(&file, line, None, json_error(&error)))?;
        let field = |name, value| required(&file, line, name, value);
        let id_value = field("id", record.id)?;
        let id = id_value.text().map_err(|message| input_error(&file, line, Some("id"), message))?;
        let id = builder.check_id(line, id.as_bytes())?;
        let weight = number(&file, line, "weight", &field("weight", record.weight)?)?;
        let change_rate = number(&file, line, "change_rate", &field("change_rate", record.change_rate)?)?;
        let host = if with_hosts {
            let value = field("host", record.host)?;
            let name = value.text().map_err(|message| input_error(&file, line, Some("host"), message))?;
            Some(builder.host_index(line, name.as_bytes())?)
        } else {
            None
        };
        builder.push(line, id, Page::new(weight, change_rate), host)?;
    }
}

/// A JSON parse error in words, located by column within the line.
fn json_error(error: &serde_json::Error) -> String {
    if error.is_eof() {
        return "malformed JSON: the line ends inside the object".to_owned();
    }
    let full = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let reason = full.strip_suffix(&suffix).unwrap_or(&full);
    format!("malformed JSON at column {}: {reason}", error.column())
}

/// A field's value, which must be present and not null.
fn required<'a>(file: &str, line: u64, name: &str, value: Option<Scalar<'a>>) -> anyhow::Result<Scalar<'a>> {
    value.ok_or_else(|| input_error(file, line, Some(name), "missing (or null)"))
}

/// A positive finite number from a JSON number or a numeric string.
fn number(file: &str, line: u64, name: &str, value: &Scalar<'_>) -> anyhow::Result<f64> {
    let (value, text) = match value {
        Scalar::Text(text) => return parse_positive(file, line, name, text.as_bytes()),
        Scalar::Unsigned(value) => (*value as f64, value.to_string()),
        Scalar::Signed(value) => (*value as f64, value.to_string()),
        Scalar::Float(value) => (*value, value.to_string()),
        Scalar::Other(what) => {
            return Err(input_error(file, line, Some(name), format!("expected a number, found {what}")));
        }
    };
    check_positive(value, &text).map_err(|message| input_error(file, line, Some(name), message))
}
