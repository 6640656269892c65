//! Seeded random outcomes: `(99% 200 | 1% timeout)`.

use core::fmt;

use probesim_core::Answer;

/// The most alternatives one random outcome may list.
pub const MAX_ALTERNATIVES: usize = 8;

/// Shares are counted in hundredths of a percent: 10,000 is the whole.
pub const WHOLE: u16 = 10_000;

/// What a step answers: one outcome, or a random pick among weighted alternatives
/// (`(99% 200 | 1% timeout)`) drawn from the simulation's seeded generator. Fixed size, so a
/// [`Step`](crate::Step) stays `Copy` and playing it allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Choice {
    /// Each alternative's share in hundredths of a percent; they add up to [`WHOLE`].
    shares: [u16; MAX_ALTERNATIVES],
    answers: [Answer; MAX_ALTERNATIVES],
    len: u8,
}

impl Choice {
    /// Always `answer`.
    #[must_use]
    pub const fn one(answer: Answer) -> Choice {
        let mut shares = [0; MAX_ALTERNATIVES];
        shares[0] = WHOLE;
        Choice {
            shares,
            answers: [answer; MAX_ALTERNATIVES],
            len: 1,
        }
    }

    /// Weighted alternatives: `(share in hundredths of a percent, answer)`. `None` unless
    /// there are 1 to [`MAX_ALTERNATIVES`] of them, every share is above zero and the shares add
    /// up to [`WHOLE`].
    #[must_use]
    pub fn weighted(alternatives: &[(u16, Answer)]) -> Option<Choice> {
        let first = alternatives.first()?;
        if alternatives.len() > MAX_ALTERNATIVES
            || alternatives.iter().any(|&(share, _)| share == 0)
            || alternatives.iter().map(|&(s, _)| u32::from(s)).sum::<u32>() != u32::from(WHOLE)
        {
            return None;
        }
        let mut choice = Choice::one(first.1);
        for (i, &(share, answer)) in alternatives.iter().enumerate() {
            choice.shares[i] = share;
            choice.answers[i] = answer;
        }
        choice.len = u8::try_from(alternatives.len()).ok()?;
        Some(choice)
    }

    /// Is there more than one alternative to draw from?
    #[must_use]
    pub const fn is_random(&self) -> bool {
        self.len > 1
    }

    /// The first alternative (the only one when not random).
    #[must_use]
    pub const fn first(&self) -> Answer {
        self.answers[0]
    }

    /// The alternatives with their shares (in hundredths of a percent), in written order.
    pub fn alternatives(&self) -> impl Iterator<Item = (u16, Answer)> + '_ {
        let len = usize::from(self.len);
        self.shares[..len]
            .iter()
            .copied()
            .zip(self.answers[..len].iter().copied())
    }

    /// The alternative that a draw in `[0, WHOLE)` picks: the alternatives cover consecutive
    /// ranges of draws in written order, each as wide as its share.
    #[must_use]
    pub fn pick(&self, draw: u64) -> Answer {
        let mut below = 0_u64;
        for (share, answer) in self.alternatives() {
            below += u64::from(share);
            if draw < below {
                return answer;
            }
        }
        self.answers[usize::from(self.len) - 1]
    }
}

/// Writes a share in hundredths of a percent as a percentage: `99%`, `99.5%`, `0.01%`.
pub(crate) fn write_share(share: u16, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let (whole, hundredths) = (share / 100, share % 100);
    match hundredths {
        0 => write!(f, "{whole}%"),
        h if h % 10 == 0 => write!(f, "{whole}.{}%", h / 10),
        h => write!(f, "{whole}.{h:02}%"),
    }
}

/// Reads `99%`, `99.5%` or `0.01%` as hundredths of a percent; `None` for anything else
/// (more than two decimals, above 100%).
pub(crate) fn parse_share(word: &str) -> Option<u16> {
    let number = word.strip_suffix('%')?;
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || fraction.len() > 2
        || !fraction.bytes().all(|b| b.is_ascii_digit())
        || (number.contains('.') && fraction.is_empty())
    {
        return None;
    }
    let whole: u32 = whole.parse().ok().filter(|w| *w <= 100)?;
    let fraction: u32 = match fraction.len() {
        0 => 0,
        1 => fraction.parse::<u32>().ok()? * 10,
        _ => fraction.parse().ok()?,
    };
    u16::try_from(whole * 100 + fraction)
        .ok()
        .filter(|s| *s <= WHOLE)
}

impl fmt::Display for Choice {
    /// `200`, or `(99% 200 | 1% timeout)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.is_random() {
            return write!(f, "{}", self.first());
        }
        f.write_str("(")?;
        for (i, (share, answer)) in self.alternatives().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            write_share(share, f)?;
            write!(f, " {answer}")?;
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Share(u16);
    impl fmt::Display for Share {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_share(self.0, f)
        }
    }

    #[test]
    fn shares_read_and_write_in_hundredths_of_a_percent() {
        for (text, share) in [
            ("99%", 9900),
            ("99.5%", 9950),
            ("0.01%", 1),
            ("100%", 10_000),
        ] {
            assert_eq!(parse_share(text), Some(share), "{text}");
            assert_eq!(Share(share).to_string(), text);
        }
        for bad in ["99", "%", "101%", "1.234%", "1.%", ".5%", "-1%", "1e2%"] {
            assert_eq!(parse_share(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_draw_picks_the_alternative_whose_range_holds_it() {
        let c = Choice::weighted(&[(9900, Answer::Status(200)), (100, Answer::Timeout)]).unwrap();
        assert_eq!(c.pick(0), Answer::Status(200));
        assert_eq!(c.pick(9899), Answer::Status(200));
        assert_eq!(c.pick(9900), Answer::Timeout);
        assert_eq!(c.pick(9999), Answer::Timeout);
        assert!(Choice::weighted(&[(9000, Answer::Ok)]).is_none());
        assert!(Choice::weighted(&[(10_000, Answer::Ok), (0, Answer::Fail)]).is_none());
    }
}
