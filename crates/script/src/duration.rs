//! Go-style durations (`500ms`, `10s`, `1m30s`, `2h`, `1.5s`) and plain seconds (`30`, `2.5`).
//!
//! Everything is integer arithmetic on milliseconds, the workspace's time unit: a fraction is
//! accepted only when it comes to a whole number of milliseconds, and a value that does not fit
//! is an error, never a wrap.

use core::fmt;

use probesim_core::SimDuration;

const MS_PER_SECOND: u64 = 1_000;
const MS_PER_MINUTE: u64 = 60 * MS_PER_SECOND;
const MS_PER_HOUR: u64 = 60 * MS_PER_MINUTE;

/// Why a duration could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DurationErrorKind {
    /// Nothing to read.
    Empty,
    /// A leading minus sign.
    Negative,
    /// Not a number followed by a unit.
    Invalid,
    /// A number without a unit in a duration with several parts (`1m30`).
    MissingUnit {
        /// The number left without a unit.
        number: String,
    },
    /// A unit other than `ms`, `s`, `m` or `h`.
    UnknownUnit {
        /// The unit as written.
        unit: String,
    },
    /// A value that is not a whole number of milliseconds (`1.0005s`).
    FinerThanMillisecond,
    /// More milliseconds than a [`SimDuration`] holds.
    TooLarge,
}

/// A duration that could not be read, with the text it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DurationError {
    text: String,
    kind: DurationErrorKind,
}

impl DurationError {
    fn new(text: &str, kind: DurationErrorKind) -> DurationError {
        DurationError {
            text: text.to_owned(),
            kind,
        }
    }

    /// What went wrong.
    #[must_use]
    pub fn kind(&self) -> &DurationErrorKind {
        &self.kind
    }

    /// The text that was read.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = &self.text;
        match &self.kind {
            DurationErrorKind::Empty => f.write_str("empty duration"),
            DurationErrorKind::Negative => {
                write!(f, "invalid duration {text:?}: durations cannot be negative")
            }
            DurationErrorKind::Invalid => write!(
                f,
                "invalid duration {text:?}: expected a number and a unit, like 500ms, 10s or 1m30s"
            ),
            DurationErrorKind::MissingUnit { number } => {
                write!(f, "invalid duration {text:?}: missing unit after {number}")
            }
            DurationErrorKind::UnknownUnit { unit } if is_sub_millisecond(unit) => write!(
                f,
                "invalid duration {text:?}: unit {unit:?} is finer than a millisecond (use ms, s, m or h)"
            ),
            DurationErrorKind::UnknownUnit { unit } => write!(
                f,
                "invalid duration {text:?}: unknown unit {unit:?} (use ms, s, m or h)"
            ),
            DurationErrorKind::FinerThanMillisecond => {
                write!(f, "invalid duration {text:?}: finer than a millisecond")
            }
            DurationErrorKind::TooLarge => write!(f, "duration too large: {text:?}"),
        }
    }
}

impl std::error::Error for DurationError {}

fn is_sub_millisecond(unit: &str) -> bool {
    matches!(unit, "ns" | "us" | "µs" | "μs")
}

/// Reads a duration: Go-style (`500ms`, `10s`, `1m30s`, `2h`, `1.5s`, `0`) or a plain
/// non-negative number of seconds (`30`, `2.5`).
///
/// Units are `ms`, `s`, `m` and `h`; parts add up in any order, as in Go. Fractions are allowed
/// as long as the value is a whole number of milliseconds.
///
/// # Errors
/// Empty text, a sign, a missing or unknown unit, a value finer than a millisecond, or more
/// than [`SimDuration::MAX`] (`duration too large`).
///
/// # Examples
/// ```
/// use probesim_core::SimDuration;
/// use probesim_script::parse_duration;
///
/// assert_eq!(parse_duration("1m30s")?, SimDuration::from_secs(90));
/// assert_eq!(parse_duration("1.5s")?, SimDuration::from_millis(1500));
/// assert_eq!(parse_duration("30")?, SimDuration::from_secs(30));
/// assert!(parse_duration("1.0005s").is_err());
/// # Ok::<(), probesim_script::DurationError>(())
/// ```
pub fn parse_duration(text: &str) -> Result<SimDuration, DurationError> {
    let fail = |kind| DurationError::new(text, kind);
    if text.is_empty() {
        return Err(fail(DurationErrorKind::Empty));
    }
    if text.starts_with('-') {
        return Err(fail(DurationErrorKind::Negative));
    }
    let mut rest = text;
    let mut total: u64 = 0;
    let mut parts = 0_usize;
    while !rest.is_empty() {
        let (whole, fraction, after_number) = split_number(rest);
        if whole.is_empty() && fraction.is_empty() {
            return Err(fail(DurationErrorKind::Invalid));
        }
        let unit_len = after_number
            .char_indices()
            .find(|&(_, c)| !c.is_alphabetic())
            .map_or(after_number.len(), |(i, _)| i);
        let (unit, after_unit) = after_number.split_at(unit_len);
        parts += 1;
        let unit_ms = match unit {
            "" if parts == 1 && after_unit.is_empty() => MS_PER_SECOND,
            "" => {
                let number = &rest[..rest.len() - after_number.len()];
                let kind = if after_unit.is_empty() {
                    DurationErrorKind::MissingUnit {
                        number: number.to_owned(),
                    }
                } else {
                    DurationErrorKind::Invalid
                };
                return Err(fail(kind));
            }
            "ms" => 1,
            "s" => MS_PER_SECOND,
            "m" => MS_PER_MINUTE,
            "h" => MS_PER_HOUR,
            other => {
                return Err(fail(DurationErrorKind::UnknownUnit {
                    unit: other.to_owned(),
                }))
            }
        };
        let ms = part_millis(whole, fraction, unit_ms).map_err(fail)?;
        total = total
            .checked_add(ms)
            .ok_or_else(|| fail(DurationErrorKind::TooLarge))?;
        rest = after_unit;
    }
    Ok(SimDuration::from_millis(total))
}

/// Splits `12.5ms` into (`12`, `5`, `ms`): the whole digits, the fraction digits and the rest.
fn split_number(text: &str) -> (&str, &str, &str) {
    let whole_len = text.bytes().take_while(u8::is_ascii_digit).count();
    let (whole, rest) = text.split_at(whole_len);
    match rest.strip_prefix('.') {
        Some(after_dot) => {
            let fraction_len = after_dot.bytes().take_while(u8::is_ascii_digit).count();
            let (fraction, rest) = after_dot.split_at(fraction_len);
            // `1.` reads as `1`, as in Go; a lone `.` is no number at all.
            if whole.is_empty() && fraction.is_empty() {
                ("", "", text)
            } else {
                (whole, fraction, rest)
            }
        }
        None => (whole, "", rest),
    }
}

/// The milliseconds in `<whole>.<fraction>` units of `unit_ms` milliseconds.
fn part_millis(whole: &str, fraction: &str, unit_ms: u64) -> Result<u64, DurationErrorKind> {
    let whole = digits_value(whole).ok_or(DurationErrorKind::TooLarge)?;
    let whole_ms = whole
        .checked_mul(unit_ms)
        .ok_or(DurationErrorKind::TooLarge)?;
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        return Ok(whole_ms);
    }
    // An hour has 3,600,000 ms = 2^7 · 3^2 · 5^5 ms, so an exact fraction of any unit has at
    // most 7 significant decimals; 18 keeps the arithmetic below inside u128 with room to spare.
    if fraction.len() > 18 {
        return Err(DurationErrorKind::FinerThanMillisecond);
    }
    let numerator = digits_value(fraction).ok_or(DurationErrorKind::FinerThanMillisecond)?;
    let scale = 10_u128.pow(u32::try_from(fraction.len()).unwrap_or(u32::MAX));
    let scaled = u128::from(numerator) * u128::from(unit_ms);
    if scaled % scale != 0 {
        return Err(DurationErrorKind::FinerThanMillisecond);
    }
    // Below one unit, so it fits whenever `unit_ms` does.
    let fraction_ms = u64::try_from(scaled / scale).map_err(|_| DurationErrorKind::TooLarge)?;
    whole_ms
        .checked_add(fraction_ms)
        .ok_or(DurationErrorKind::TooLarge)
}

/// The value of a run of ASCII digits (zero when empty), or `None` on overflow or a byte that
/// is not a digit.
pub(crate) fn digits_value(digits: &str) -> Option<u64> {
    digits.bytes().try_fold(0_u64, |acc, byte| {
        let digit = char::from(byte).to_digit(10)?;
        acc.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

/// The canonical short form of a duration, which [`parse_duration`] reads back: `0s`, `500ms`,
/// `1.5s`, `1m30s`, `2h`, `1h0.5s`. Zero parts are left out; below one second it is `ms`.
///
/// # Examples
/// ```
/// use probesim_core::SimDuration;
/// use probesim_script::format_duration;
///
/// assert_eq!(format_duration(SimDuration::from_secs(90)), "1m30s");
/// assert_eq!(format_duration(SimDuration::from_millis(500)), "500ms");
/// assert_eq!(format_duration(SimDuration::from_secs(7200)), "2h");
/// ```
#[must_use]
pub fn format_duration(d: SimDuration) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = write_duration(d, &mut out);
    out
}

/// Writes the canonical short form of [`format_duration`] without allocating.
///
/// # Errors
/// Only the writer's own errors.
pub fn write_duration(d: SimDuration, f: &mut impl fmt::Write) -> fmt::Result {
    let ms = d.as_millis();
    if ms == 0 {
        return f.write_str("0s");
    }
    if ms < MS_PER_SECOND {
        return write!(f, "{ms}ms");
    }
    let hours = ms / MS_PER_HOUR;
    let minutes = ms % MS_PER_HOUR / MS_PER_MINUTE;
    let seconds = ms % MS_PER_MINUTE / MS_PER_SECOND;
    let millis = ms % MS_PER_SECOND;
    if hours > 0 {
        write!(f, "{hours}h")?;
    }
    if minutes > 0 {
        write!(f, "{minutes}m")?;
    }
    if seconds > 0 || millis > 0 {
        write!(f, "{seconds}")?;
        if millis > 0 {
            let (mut digits, mut width) = (millis, 3);
            while digits % 10 == 0 {
                digits /= 10;
                width -= 1;
            }
            write!(f, ".{digits:0width$}")?;
        }
        f.write_str("s")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(text: &str) -> u64 {
        match parse_duration(text) {
            Ok(d) => d.as_millis(),
            Err(e) => panic!("{text}: {e}"),
        }
    }

    fn error(text: &str) -> String {
        match parse_duration(text) {
            Ok(d) => panic!("{text} parsed as {d:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn go_style_durations_are_read() {
        assert_eq!(ms("500ms"), 500);
        assert_eq!(ms("10s"), 10_000);
        assert_eq!(ms("1m30s"), 90_000);
        assert_eq!(ms("2h"), 7_200_000);
        assert_eq!(ms("1.5s"), 1_500);
        assert_eq!(ms("0"), 0);
        assert_eq!(ms("0s"), 0);
        assert_eq!(ms("1h2m3s4ms"), 3_723_004);
        assert_eq!(ms(".5s"), 500);
        assert_eq!(ms("1.s"), 1_000);
        assert_eq!(ms("0.25h"), 900_000);
        assert_eq!(ms("1.00001h"), 3_600_036);
        assert!(parse_duration("1.0000001h").is_err());
        assert_eq!(ms("1.500000000000000000000000s"), 1_500);
        // Parts add up in any order, as in Go.
        assert_eq!(ms("30s1m"), 90_000);
    }

    #[test]
    fn plain_numbers_are_seconds() {
        assert_eq!(ms("30"), 30_000);
        assert_eq!(ms("2.5"), 2_500);
        assert_eq!(ms("0.001"), 1);
        assert_eq!(ms("007"), 7_000);
    }

    #[test]
    fn bad_durations_say_why() {
        assert_eq!(error(""), "empty duration");
        assert_eq!(
            error("-1s"),
            r#"invalid duration "-1s": durations cannot be negative"#
        );
        assert_eq!(
            error("abc"),
            r#"invalid duration "abc": expected a number and a unit, like 500ms, 10s or 1m30s"#
        );
        assert_eq!(
            error("."),
            r#"invalid duration ".": expected a number and a unit, like 500ms, 10s or 1m30s"#
        );
        assert_eq!(
            error("1m 30s"),
            r#"invalid duration "1m 30s": expected a number and a unit, like 500ms, 10s or 1m30s"#
        );
        assert_eq!(
            error("1m30"),
            r#"invalid duration "1m30": missing unit after 30"#
        );
        assert_eq!(
            error("2d"),
            r#"invalid duration "2d": unknown unit "d" (use ms, s, m or h)"#
        );
        assert_eq!(
            error("10us"),
            r#"invalid duration "10us": unit "us" is finer than a millisecond (use ms, s, m or h)"#
        );
        assert_eq!(
            error("1.0005s"),
            r#"invalid duration "1.0005s": finer than a millisecond"#
        );
        assert_eq!(
            error("0.5ms"),
            r#"invalid duration "0.5ms": finer than a millisecond"#
        );
        assert_eq!(
            error("0.0000000000000000000000001s"),
            r#"invalid duration "0.0000000000000000000000001s": finer than a millisecond"#
        );
        assert_eq!(
            error("+1s"),
            r#"invalid duration "+1s": expected a number and a unit, like 500ms, 10s or 1m30s"#
        );
    }

    #[test]
    fn overflow_is_an_error_not_a_wrap() {
        let max = u64::MAX;
        assert_eq!(ms(&format!("{max}ms")), max);
        assert_eq!(
            error("18446744073709551616ms"),
            r#"duration too large: "18446744073709551616ms""#
        );
        assert_eq!(
            error("99999999999999999999999999h"),
            r#"duration too large: "99999999999999999999999999h""#
        );
        assert_eq!(
            error("5124095576030432h"),
            r#"duration too large: "5124095576030432h""#
        );
        assert_eq!(
            error(&format!("{max}ms1ms")),
            format!(r#"duration too large: "{max}ms1ms""#)
        );
        assert_eq!(
            error("18446744073709551.616s"),
            r#"duration too large: "18446744073709551.616s""#
        );
    }

    #[test]
    fn canonical_forms_are_short() {
        let cases = [
            (0, "0s"),
            (1, "1ms"),
            (500, "500ms"),
            (1_000, "1s"),
            (1_500, "1.5s"),
            (1_001, "1.001s"),
            (1_010, "1.01s"),
            (60_000, "1m"),
            (90_000, "1m30s"),
            (60_500, "1m0.5s"),
            (3_600_000, "1h"),
            (7_200_000, "2h"),
            (5_400_000, "1h30m"),
            (3_601_000, "1h1s"),
        ];
        for (millis, text) in cases {
            let d = SimDuration::from_millis(millis);
            assert_eq!(format_duration(d), text);
            assert_eq!(parse_duration(text), Ok(d), "{text}");
        }
        let max = SimDuration::MAX;
        assert_eq!(parse_duration(&format_duration(max)), Ok(max));
    }
}
