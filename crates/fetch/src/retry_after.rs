//! `Retry-After` (RFC 9110 §10.2.3): a delay in seconds or an HTTP-date. Pure: `now` is a
//! parameter.

use std::time::{Duration, SystemTime};

/// The delay a `Retry-After` value asks for, counted from `now` (the response's `Date` header
/// when it has one, so that a server whose clock is off still gets the delay it meant).
/// A date in the past is a zero delay; an unparsable value is `None`.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use freshet_fetch::parse_retry_after;
/// let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
/// assert_eq!(parse_retry_after("120", now), Some(Duration::from_secs(120)));
/// assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:51:37 GMT", now), Some(Duration::from_secs(120)));
/// assert_eq!(parse_retry_after("soon", now), None);
/// ```
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Absurdly long digit strings saturate rather than fail: the server meant "a long time".
        return Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777)
    }

    #[test]
    fn seconds() {
        assert_eq!(parse_retry_after(" 0 ", now()), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("8", now()), Some(Duration::from_secs(8)));
        assert_eq!(parse_retry_after("99999999999999999999999", now()), Some(Duration::from_secs(u64::MAX)));
        assert_eq!(parse_retry_after("-1", now()), None);
        assert_eq!(parse_retry_after("1.5", now()), None);
        assert_eq!(parse_retry_after("", now()), None);
    }

    #[test]
    fn http_dates_in_all_three_formats() {
        let two_minutes = Some(Duration::from_secs(120));
        assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:51:37 GMT", now()), two_minutes);
        assert_eq!(parse_retry_after("Sunday, 06-Nov-94 08:51:37 GMT", now()), two_minutes);
        assert_eq!(parse_retry_after("Sun Nov  6 08:51:37 1994", now()), two_minutes);
    }

    #[test]
    fn a_past_date_is_no_delay() {
        assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now()), Some(Duration::ZERO));
    }
}
