//! The virtual clock's types.
//!
//! One integer unit for the whole workspace: the **millisecond**. No floats take part in time
//! arithmetic; overflow is always a `checked_*` call whose caller decides what it means.

use core::fmt;

/// A point on the virtual clock, in milliseconds since the timeline origin (`t = 0`, the pod's
/// first sync on the node).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(u64);

/// A span of virtual time, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(u64);

impl SimTime {
    /// The timeline origin.
    pub const ZERO: SimTime = SimTime(0);
    /// The latest representable instant.
    pub const MAX: SimTime = SimTime(u64::MAX);
    /// The latest instant a simulation can run to: the engine orders its agenda by instant
    /// and a 3-bit class packed into 64 bits, so instants stay below 2^61 ms (about 73
    /// million years). [`Simulation::run_until`](crate::Simulation::run_until) stops here.
    pub const HORIZON_LIMIT: SimTime = SimTime((1 << 61) - 1);

    /// An instant `ms` milliseconds after the origin.
    #[must_use]
    pub const fn from_millis(ms: u64) -> SimTime {
        SimTime(ms)
    }

    /// An instant `s` whole seconds after the origin.
    ///
    /// # Panics
    /// Never for `s` below 18,446,744,073,709,551 (about 584 million years); larger values
    /// saturate at [`SimTime::MAX`].
    #[must_use]
    pub const fn from_secs(s: u64) -> SimTime {
        SimTime(s.saturating_mul(1000))
    }

    /// Milliseconds since the origin.
    #[must_use]
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// Whole seconds since the origin, rounded down (the kubelet's RFC 3339 normalisation, P29).
    #[must_use]
    pub const fn whole_secs(self) -> u64 {
        self.0 / 1000
    }

    /// This instant rounded down to a whole second.
    #[must_use]
    pub const fn floor_secs(self) -> SimTime {
        SimTime(self.0 - self.0 % 1000)
    }

    /// `self + d`, or `None` past [`SimTime::MAX`].
    #[must_use]
    pub const fn checked_add(self, d: SimDuration) -> Option<SimTime> {
        match self.0.checked_add(d.0) {
            Some(v) => Some(SimTime(v)),
            None => None,
        }
    }

    /// `self + d`, clamped at [`SimTime::MAX`] (used for "never" deadlines).
    #[must_use]
    pub const fn saturating_add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }

    /// The span from `earlier` to `self`, or zero when `earlier` is later.
    #[must_use]
    pub const fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }

    /// The first multiple of `period` strictly after `self` (a PLEG relist tick, R5).
    /// A zero period is treated as one millisecond.
    #[must_use]
    pub const fn next_multiple_after(self, period: SimDuration) -> SimTime {
        let p = if period.0 == 0 { 1 } else { period.0 };
        SimTime((self.0 / p).saturating_add(1).saturating_mul(p))
    }
}

impl SimDuration {
    /// No time at all.
    pub const ZERO: SimDuration = SimDuration(0);
    /// The longest representable span.
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    /// `ms` milliseconds.
    #[must_use]
    pub const fn from_millis(ms: u64) -> SimDuration {
        SimDuration(ms)
    }

    /// `s` whole seconds (saturating).
    #[must_use]
    pub const fn from_secs(s: u64) -> SimDuration {
        SimDuration(s.saturating_mul(1000))
    }

    /// Milliseconds in this span.
    #[must_use]
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// Whole seconds in this span, rounded down (Go's `int32(d.Seconds())` truncation, P29).
    #[must_use]
    pub const fn whole_secs(self) -> u64 {
        self.0 / 1000
    }

    /// Is this span zero?
    #[must_use]
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// `self + d`, or `None` on overflow.
    #[must_use]
    pub const fn checked_add(self, d: SimDuration) -> Option<SimDuration> {
        match self.0.checked_add(d.0) {
            Some(v) => Some(SimDuration(v)),
            None => None,
        }
    }

    /// `self + d`, clamped at [`SimDuration::MAX`].
    #[must_use]
    pub const fn saturating_add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }

    /// `self - d`, clamped at zero.
    #[must_use]
    pub const fn saturating_sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(d.0))
    }

    /// `self * n`, clamped at [`SimDuration::MAX`].
    #[must_use]
    pub const fn saturating_mul(self, n: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(n))
    }

    /// Writes this span as a Go `time.Duration` string (`0s`, `500ms`, `10s`, `1m20s`, `2m40s`,
    /// `5m0s`, `1h0m0s`), the form the kubelet prints in back-off messages (R30).
    pub fn fmt_go(self, f: &mut impl fmt::Write) -> fmt::Result {
        let ms = self.0;
        if ms == 0 {
            return f.write_str("0s");
        }
        if ms < 1000 {
            return write!(f, "{ms}ms");
        }
        let (h, m) = (ms / 3_600_000, (ms / 60_000) % 60);
        let (s, frac) = ((ms / 1000) % 60, ms % 1000);
        if h > 0 {
            write!(f, "{h}h{m}m")?;
        } else if m > 0 {
            write!(f, "{m}m")?;
        }
        write!(f, "{s}")?;
        if frac > 0 {
            let (mut digits, mut width) = (frac, 3);
            while digits % 10 == 0 {
                digits /= 10;
                width -= 1;
            }
            write!(f, ".{digits:0width$}")?;
        }
        f.write_str("s")
    }

    /// A [`Display`](fmt::Display) adapter printing the Go form (see [`SimDuration::fmt_go`]).
    #[must_use]
    pub const fn go(self) -> GoDuration {
        GoDuration(self)
    }
}

/// Prints a [`SimDuration`] the way Go prints a `time.Duration`.
#[derive(Clone, Copy, Debug)]
pub struct GoDuration(SimDuration);

impl fmt::Display for GoDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_go(f)
    }
}

/// Seconds with up to millisecond precision and no trailing zeros (`80`, `0.5`, `12.25`): the
/// one rendering of instants and spans used by every report.
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_secs(self.0, f)
    }
}

impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_secs(self.0, f)
    }
}

fn fmt_secs(ms: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let (s, frac) = (ms / 1000, ms % 1000);
    if frac == 0 {
        write!(f, "{s}")
    } else if frac % 100 == 0 {
        write!(f, "{s}.{}", frac / 100)
    } else if frac % 10 == 0 {
        write!(f, "{s}.{:02}", frac / 10)
    } else {
        write!(f, "{s}.{frac:03}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_render_without_trailing_zeros() {
        assert_eq!(SimTime::from_millis(80_000).to_string(), "80");
        assert_eq!(SimTime::from_millis(500).to_string(), "0.5");
        assert_eq!(SimTime::from_millis(12_250).to_string(), "12.25");
        assert_eq!(SimTime::from_millis(1_001).to_string(), "1.001");
    }

    #[test]
    fn go_durations_match_the_back_off_messages() {
        // R30: `<Get(key)>` is printed as a Go duration.
        let cases = [
            (0, "0s"),
            (10, "10s"),
            (20, "20s"),
            (80, "1m20s"),
            (160, "2m40s"),
            (300, "5m0s"),
            (3600, "1h0m0s"),
        ];
        for (secs, text) in cases {
            assert_eq!(SimDuration::from_secs(secs).go().to_string(), text);
        }
        assert_eq!(SimDuration::from_millis(1500).go().to_string(), "1.5s");
        assert_eq!(SimDuration::from_millis(250).go().to_string(), "250ms");
    }

    #[test]
    fn relist_ticks_are_strictly_after() {
        let p = SimDuration::from_secs(1);
        assert_eq!(
            SimTime::from_secs(110).next_multiple_after(p),
            SimTime::from_secs(111)
        );
        assert_eq!(
            SimTime::from_millis(110_400).next_multiple_after(p),
            SimTime::from_secs(111)
        );
    }
}
