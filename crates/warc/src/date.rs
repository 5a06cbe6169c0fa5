//! `WarcDate`: the instant a capture began, passed in by the caller (this crate never reads the
//! clock), written as WARC 1.1 §5.4 asks: W3C-ISO8601 in UTC, `YYYY-MM-DDThh:mm:ssZ`, with a
//! fraction of a second (microseconds) only when the instant has one.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{Result, WarcError};

/// First second of the year 10000: W3C-ISO8601 has four-digit years.
const END_OF_YEAR_9999: u64 = 253_402_300_800;

/// An instant between 1970-01-01 and the end of 9999, to the microsecond.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WarcDate {
    unix_seconds: u64,
    micros: u32,
}

impl WarcDate {
    /// The instant `unix_seconds` seconds and `micros` microseconds after 1970-01-01T00:00:00Z.
    pub fn from_unix(unix_seconds: u64, micros: u32) -> Result<Self> {
        if unix_seconds >= END_OF_YEAR_9999 || micros >= 1_000_000 {
            return Err(WarcError::InvalidDate {
                value: format!("{unix_seconds}.{micros:06} seconds after the Unix epoch"),
                reason: "outside 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z".into(),
            });
        }
        Ok(Self { unix_seconds, micros })
    }

    /// The same instant as a `SystemTime` (truncated to the microsecond).
    pub fn from_system_time(time: SystemTime) -> Result<Self> {
        let since_epoch = time.duration_since(UNIX_EPOCH).map_err(|_| WarcError::InvalidDate {
            value: format!("{time:?}"),
            reason: "before 1970-01-01T00:00:00Z".into(),
        })?;
        Self::from_unix(since_epoch.as_secs(), since_epoch.subsec_micros())
    }

    /// Parses a WARC-Date (`2026-11-22T10:00:00Z`, optionally with a fraction of a second).
    pub fn parse(text: &str) -> Result<Self> {
        let time = humantime::parse_rfc3339(text)
            .map_err(|error| WarcError::InvalidDate { value: text.into(), reason: error.to_string() })?;
        Self::from_system_time(time)
    }

    /// Seconds since the Unix epoch.
    pub fn unix_seconds(self) -> u64 {
        self.unix_seconds
    }

    /// Microseconds past the second.
    pub fn micros(self) -> u32 {
        self.micros
    }

    fn system_time(self) -> SystemTime {
        UNIX_EPOCH + Duration::new(self.unix_seconds, self.micros * 1000)
    }
}

impl fmt::Display for WarcDate {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The range check in `from_unix` keeps humantime within its four-digit years.
        if self.micros == 0 {
            write!(formatter, "{}", humantime::format_rfc3339_seconds(self.system_time()))
        } else {
            write!(formatter, "{}", humantime::format_rfc3339_micros(self.system_time()))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn formats_whole_seconds_without_a_fraction() {
        let date = WarcDate::from_unix(1_700_000_000, 0).unwrap();
        assert_eq!(date.to_string(), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn formats_microseconds_when_present() {
        let date = WarcDate::from_unix(0, 42).unwrap();
        assert_eq!(date.to_string(), "1970-01-01T00:00:00.000042Z");
    }

    #[test]
    fn parses_what_it_writes() {
        for date in [WarcDate::from_unix(1_700_000_000, 0).unwrap(), WarcDate::from_unix(5, 123_456).unwrap()]
        {
            assert_eq!(WarcDate::parse(&date.to_string()).unwrap(), date);
        }
    }

    #[test]
    fn refuses_years_past_9999_and_bad_text() {
        assert!(WarcDate::from_unix(END_OF_YEAR_9999 - 1, 999_999).is_ok());
        assert!(matches!(WarcDate::from_unix(END_OF_YEAR_9999, 0), Err(WarcError::InvalidDate { .. })));
        assert!(matches!(WarcDate::from_unix(0, 1_000_000), Err(WarcError::InvalidDate { .. })));
        assert!(matches!(WarcDate::parse("yesterday"), Err(WarcError::InvalidDate { .. })));
    }
}
