//! `<lastmod>` values: the W3C Datetime profile of ISO 8601 (<https://www.w3.org/TR/NOTE-datetime>),
//! which the sitemap protocol names for `lastmod`, turned into Unix seconds.
//!
//! The six forms of the note are accepted: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`,
//! `YYYY-MM-DDThh:mmTZD`, `YYYY-MM-DDThh:mm:ssTZD`, `YYYY-MM-DDThh:mm:ss.sTZD`, with `TZD` one of
//! `Z`, `+hh:mm`, `-hh:mm`. Two deviations seen in real sitemaps are tolerated: a time without a
//! zone designator is read as UTC, and `+hhmm` without the colon. Dates without a time mean the
//! start of the period (midnight UTC of the first day), which [`LastModified::precision`] says.
//!
//! The calendar arithmetic is written here (Howard Hinnant's `days_from_civil`, proleptic
//! Gregorian) rather than taken from `chrono` or `time`: it is ten lines, and the fetch crate
//! needs no other date handling.

/// How much of a date-time a `lastmod` value gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DatePrecision {
    /// `YYYY`.
    Year,
    /// `YYYY-MM`.
    Month,
    /// `YYYY-MM-DD`.
    Day,
    /// `YYYY-MM-DDThh:mmTZD`.
    Minute,
    /// `YYYY-MM-DDThh:mm:ss[.s]TZD`.
    Second,
}

/// A parsed `<lastmod>`: the instant it names and how precisely it named it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LastModified {
    /// Seconds since 1970-01-01T00:00:00Z (fractional seconds kept); the start of the period
    /// for dates without a time.
    pub unix_seconds: f64,
    /// Which of the W3C forms was given.
    pub precision: DatePrecision,
}

/// Why a `lastmod` value was refused (the message of an entry problem).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{value:?} is not a W3C Datetime ({reason})")]
pub struct BadDatetime {
    /// The value as written (trimmed, at most 64 characters kept).
    pub value: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// Parses a W3C Datetime (see the module docs for the accepted forms).
///
/// ```
/// use freshet_fetch::sitemap::{DatePrecision, parse_w3c_datetime};
/// let day = parse_w3c_datetime("2005-01-01").unwrap();
/// assert_eq!((day.unix_seconds, day.precision), (1_104_537_600.0, DatePrecision::Day));
/// let instant = parse_w3c_datetime("2004-12-23T18:00:15+01:00").unwrap();
/// assert_eq!(instant.unix_seconds, 1_103_821_215.0);
/// assert!(parse_w3c_datetime("2005-02-30").is_err());
/// ```
///
/// # Errors
/// [`BadDatetime`] naming the value and what is wrong with it.
pub fn parse_w3c_datetime(value: &str) -> Result<LastModified, BadDatetime> {
    let value = value.trim();
    let bad = |reason| BadDatetime { value: value.chars().take(64).collect(), reason };
    let bytes = value.as_bytes();
    let year = digits(bytes, 0, 4).ok_or_else(|| bad("no four-digit year"))?;
    let mut precision = DatePrecision::Year;
    let (mut month, mut day) = (1, 1);
    let mut at = 4;
    if bytes.len() > at {
        expect(bytes, at, b'-').ok_or_else(|| bad("expected '-' after the year"))?;
        month = digits(bytes, at + 1, 2).ok_or_else(|| bad("no two-digit month"))?;
        precision = DatePrecision::Month;
        at += 3;
    }
    if bytes.len() > at {
        expect(bytes, at, b'-').ok_or_else(|| bad("expected '-' after the month"))?;
        day = digits(bytes, at + 1, 2).ok_or_else(|| bad("no two-digit day"))?;
        precision = DatePrecision::Day;
        at += 3;
    }
    if !(1..=12).contains(&month) {
        return Err(bad("month out of range"));
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(bad("day out of range"));
    }
    let mut seconds_of_day = 0.0;
    let mut offset_seconds = 0i64;
    if bytes.len() > at {
        if !matches!(bytes[at], b'T' | b't') {
            return Err(bad("expected 'T' before the time"));
        }
        let hour = digits(bytes, at + 1, 2).ok_or_else(|| bad("no two-digit hour"))?;
        expect(bytes, at + 3, b':').ok_or_else(|| bad("expected ':' after the hour"))?;
        let minute = digits(bytes, at + 4, 2).ok_or_else(|| bad("no two-digit minute"))?;
        at += 6;
        precision = DatePrecision::Minute;
        let mut second = 0.0;
        if bytes.get(at) == Some(&b':') {
            let whole = digits(bytes, at + 1, 2).ok_or_else(|| bad("no two-digit second"))?;
            at += 3;
            let fraction_end = if bytes.get(at) == Some(&b'.') {
                let end = at + 1 + bytes[at + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
                if end == at + 1 {
                    return Err(bad("no digits after the decimal point"));
                }
                end
            } else {
                at
            };
            // Digits with at most one '.', so this parse cannot fail; `bad` is for form's sake.
            let fraction: f64 = if fraction_end > at {
                value[at..fraction_end].parse().map_err(|_| bad("bad fraction"))?
            } else {
                0.0
            };
            second = f64::from(whole) + fraction;
            at = fraction_end;
            precision = DatePrecision::Second;
            if whole > 60 {
                return Err(bad("second out of range"));
            }
        }
        if hour > 23 || minute > 59 {
            return Err(bad("hour or minute out of range"));
        }
        seconds_of_day = f64::from(hour * 3600 + minute * 60) + second;
        offset_seconds = zone_offset(&bytes[at..]).ok_or_else(|| bad("bad time zone designator"))?;
    }
    let days = days_from_civil(i64::from(year), month, day);
    Ok(LastModified { unix_seconds: (days * 86_400 - offset_seconds) as f64 + seconds_of_day, precision })
}

/// The zone designator's offset east of UTC in seconds: `Z`, `+hh:mm`, `-hh:mm`, `+hhmm`, or
/// nothing (read as UTC).
fn zone_offset(zone: &[u8]) -> Option<i64> {
    let sign = match zone {
        [] | [b'Z' | b'z'] => return Some(0),
        [b'+', ..] => 1,
        [b'-', ..] => -1,
        _ => return None,
    };
    let hours = digits(zone, 1, 2)?;
    let minutes = match zone.len() {
        6 if zone[3] == b':' => digits(zone, 4, 2)?,
        5 => digits(zone, 3, 2)?,
        _ => return None,
    };
    (hours <= 23 && minutes <= 59).then(|| sign * i64::from(hours * 3600 + minutes * 60))
}

/// The number written by exactly `count` ASCII digits at `at`.
fn digits(bytes: &[u8], at: usize, count: usize) -> Option<u32> {
    let slice = bytes.get(at..at + count)?;
    slice.iter().try_fold(0u32, |n, &b| b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0')))
}

/// `Some(())` when `bytes[at]` is `byte`.
fn expect(bytes: &[u8], at: usize, byte: u8) -> Option<()> {
    (bytes.get(at) == Some(&byte)).then_some(())
}

/// Days in `month` of `year`, proleptic Gregorian.
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant, "chrono-Compatible Low-Level
/// Date Algorithms", `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = i64::from((month + 9) % 12);
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn seconds(value: &str) -> f64 {
        parse_w3c_datetime(value).unwrap().unix_seconds
    }

    #[test]
    fn every_w3c_form_with_its_precision() {
        // Reference values: `date -u -d ... +%s`.
        let cases = [
            ("1997", 852_076_800.0, DatePrecision::Year),
            ("1997-07", 867_715_200.0, DatePrecision::Month),
            ("1997-07-16", 869_011_200.0, DatePrecision::Day),
            ("1997-07-16T19:20+01:00", 869_077_200.0, DatePrecision::Minute),
            ("1997-07-16T19:20:30+01:00", 869_077_230.0, DatePrecision::Second),
            ("1997-07-16T19:20:30.45+01:00", 869_077_230.45, DatePrecision::Second),
            ("1970-01-01T00:00:00Z", 0.0, DatePrecision::Second),
        ];
        for (value, unix, precision) in cases {
            let parsed = parse_w3c_datetime(value).unwrap();
            assert!((parsed.unix_seconds - unix).abs() < 1e-6, "{value}: {}", parsed.unix_seconds);
            assert_eq!(parsed.precision, precision, "{value}");
        }
    }

    #[test]
    fn zones_shift_the_instant() {
        assert_eq!(seconds("2005-01-01T00:00:00Z"), 1_104_537_600.0);
        assert_eq!(seconds("2005-01-01T00:00:00-05:00"), 1_104_537_600.0 + 5.0 * 3600.0);
        assert_eq!(seconds("2005-01-01T00:00:00+0530"), 1_104_537_600.0 - 5.5 * 3600.0);
        assert_eq!(seconds("2005-01-01T00:00:00"), 1_104_537_600.0, "no zone is UTC");
        assert_eq!(seconds("  2005-01-01  "), 1_104_537_600.0, "whitespace trimmed");
    }

    #[test]
    fn leap_years_and_dates_before_1970() {
        assert_eq!(seconds("2000-02-29"), 951_782_400.0);
        assert_eq!(seconds("2024-03-01"), 1_709_251_200.0);
        assert_eq!(seconds("1969-12-31"), -86_400.0);
        assert!(parse_w3c_datetime("1900-02-29").is_err(), "1900 is not a leap year");
        assert!(parse_w3c_datetime("2023-02-29").is_err());
    }

    #[test]
    fn malformed_values_are_refused_with_a_reason() {
        for value in [
            "",
            "97",
            "yesterday",
            "2005-13",
            "2005-00-10",
            "2005-01-32",
            "2005/01/01",
            "2005-1-1",
            "2005-01-01T",
            "2005-01-01T25:00Z",
            "2005-01-01T12:60Z",
            "2005-01-01T12:00:61Z",
            "2005-01-01T12:00:00.Z",
            "2005-01-01T12:00+1",
            "2005-01-01T12:00:00 GMT",
            "2005-01-01x",
            "٢٠٠٥-01-01",
        ] {
            let error = parse_w3c_datetime(value).unwrap_err();
            assert!(!error.reason.is_empty(), "{value}");
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(value in "\\PC{0,40}") {
            let _ = parse_w3c_datetime(&value);
        }

        #[test]
        fn days_agree_with_a_day_by_day_count(days in -700_000i64..800_000) {
            // Walk from the epoch by whole months, then days: a brute-force twin of days_from_civil.
            let (mut year, mut month, mut rest) = (1970i64, 1u32, days);
            while rest < 0 {
                month = if month == 1 { year -= 1; 12 } else { month - 1 };
                rest += i64::from(days_in_month(year as u32, month));
            }
            while rest >= i64::from(days_in_month(year as u32, month)) {
                rest -= i64::from(days_in_month(year as u32, month));
                month = if month == 12 { year += 1; 1 } else { month + 1 };
            }
            proptest::prop_assert_eq!(days_from_civil(year, month, rest as u32 + 1), days);
        }
    }
}
