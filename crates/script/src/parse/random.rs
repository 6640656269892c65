//! The seeded random forms of a step: `(99% 200 | 1% timeout)` and `after 100ms..2s`.

use probesim_core::SimDuration;

use super::{describe, Kind, ParseError, Parser, Span};
use crate::choice::{parse_share, Choice, MAX_ALTERNATIVES};
use crate::duration::parse_duration;

impl Parser<'_> {
    /// `choice := outcome | "(" SHARE outcome ("|" SHARE outcome)* ")"`, with the span of
    /// each outcome.
    pub(super) fn choice(&mut self) -> Result<(Choice, Vec<Span>), ParseError> {
        let Some(open) = self.peek().filter(|t| t.kind == Kind::Open) else {
            let (answer, span) = self.outcome()?;
            return Ok((Choice::one(answer), vec![span]));
        };
        self.pos += 1;
        let (mut alternatives, mut spans) = (Vec::new(), Vec::new());
        loop {
            let token = self.bump();
            let share = match token.map(|t| t.kind) {
                Some(Kind::Word(w)) => match parse_share(w) {
                    Some(0) => {
                        return Err(self.error_at(token, "a share must be above 0%".to_owned()))
                    }
                    Some(share) => share,
                    None if w.ends_with('%') => {
                        return Err(self.error_at(
                            token,
                            format!(
                                "invalid share {w:?} (a percentage up to 100%, at most two decimals, like 99.5%)"
                            ),
                        ))
                    }
                    None => {
                        return Err(self.error_at(
                            token,
                            format!(
                                "expected a share like 99% before the outcome, found {}",
                                describe(token)
                            ),
                        ))
                    }
                },
                _ => {
                    return Err(self.error_at(
                        token,
                        format!(
                            "expected a share like 99% before the outcome, found {}",
                            describe(token)
                        ),
                    ))
                }
            };
            if alternatives.len() == MAX_ALTERNATIVES {
                return Err(self.error_at(
                    token,
                    format!("a random outcome takes at most {MAX_ALTERNATIVES} alternatives"),
                ));
            }
            let (answer, span) = self.outcome()?;
            alternatives.push((share, answer));
            spans.push(span);
            let token = self.bump();
            match token.map(|t| t.kind) {
                Some(Kind::Bar) => {}
                Some(Kind::Close) => {
                    let total: u32 = alternatives.iter().map(|&(s, _)| u32::from(s)).sum();
                    return match Choice::weighted(&alternatives) {
                        Some(choice) => Ok((choice, spans)),
                        None => {
                            let close = token.map_or(open.range(), |t| t.range());
                            let message =
                                format!("the shares add up to {}, not 100%", ShareText(total));
                            Err(self.error(open.start..close.end, message))
                        }
                    };
                }
                _ => {
                    let message = format!(
                        "expected \"|\" and another alternative, or \")\", found {}",
                        describe(token)
                    );
                    return Err(self.error_at(token, message));
                }
            }
        }
    }

    /// The latency after `after`: `D` or a range `MIN..MAX`, as `(MIN, MAX)`.
    pub(super) fn latency_after(&mut self) -> Result<(SimDuration, SimDuration), ParseError> {
        let token = self.bump();
        let Some(Kind::Word(word)) = token.map(|t| t.kind) else {
            let message = format!(
                "expected a duration after \"after\", found {}",
                describe(token)
            );
            return Err(self.error_at(token, message));
        };
        let duration =
            |text: &str| parse_duration(text).map_err(|e| self.error_at(token, e.to_string()));
        match word.split_once("..") {
            None => duration(word).map(|d| (d, d)),
            Some((low, high)) => {
                let (low, high) = (duration(low)?, duration(high)?);
                if high < low {
                    return Err(self.error_at(
                        token,
                        format!(
                            "latency range {word:?} runs backwards (write the shorter time first)"
                        ),
                    ));
                }
                Ok((low, high))
            }
        }
    }
}

/// A total of shares (hundredths of a percent) for messages: `90%`, `100.5%`.
struct ShareText(u32);

impl core::fmt::Display for ShareText {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (whole, hundredths) = (self.0 / 100, self.0 % 100);
        match hundredths {
            0 => write!(f, "{whole}%"),
            h if h % 10 == 0 => write!(f, "{whole}.{}%", h / 10),
            h => write!(f, "{whole}.{h:02}%"),
        }
    }
}

#[cfg(test)]
mod tests {
    use probesim_core::Answer;

    use crate::parse::parse;

    fn canonical(text: &str) -> String {
        match parse(text) {
            Ok(script) => script.to_string(),
            Err(e) => panic!("{text}: {e}"),
        }
    }

    fn error(text: &str) -> String {
        match parse(text) {
            Ok(script) => panic!("{text:?} parsed as {script}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn random_outcomes_are_read_with_their_shares() {
        let script = parse("(99% 200 | 1% timeout)").unwrap();
        let alternatives: Vec<_> = script.steps()[0].choice().alternatives().collect();
        assert_eq!(
            alternatives,
            [(9900, Answer::Status(200)), (100, Answer::Timeout)]
        );
        assert!(script.draws());
        assert_eq!(
            canonical("3x(99.5% ok|0.5% exit 1) for 10s then ok"),
            "3x (99.5% ok | 0.5% exit 1) for 10s then ok"
        );
        assert_eq!(canonical("(100% 200)"), "200");
        assert!(!parse("(100% 200)").unwrap().draws());
    }

    #[test]
    fn latency_ranges_are_read() {
        let script = parse("200 after 100ms..2s").unwrap();
        assert_eq!(
            script.steps()[0].latency_range(),
            (
                probesim_core::SimDuration::from_millis(100),
                probesim_core::SimDuration::from_secs(2)
            )
        );
        assert!(script.draws());
        assert_eq!(canonical("200 after 1000ms..1m"), "200 after 1s..1m");
        assert_eq!(canonical("200 after 2s..2s"), "200 after 2s");
        assert_eq!(canonical("200 after 0s..2s"), "200 after 0s..2s");
        assert!(!parse("200 after 2s").unwrap().draws());
    }

    #[test]
    fn bad_random_forms_say_what_is_wrong() {
        assert_eq!(
            error("(90% 200 | 5% 500)"),
            "1:1: the shares add up to 95%, not 100%"
        );
        assert_eq!(
            error("(50% 200 | 60% 500)"),
            "1:1: the shares add up to 110%, not 100%"
        );
        assert_eq!(
            error("(200 | 500)"),
            r#"1:2: expected a share like 99% before the outcome, found "200""#
        );
        assert_eq!(
            error("(0% 200 | 100% 500)"),
            "1:2: a share must be above 0%"
        );
        assert_eq!(
            error("(50.555% 200 | 50% 500)"),
            r#"1:2: invalid share "50.555%" (a percentage up to 100%, at most two decimals, like 99.5%)"#
        );
        assert_eq!(
            error("(50% 200 , 50% 500)"),
            r#"1:10: expected "|" and another alternative, or ")", found ",""#
        );
        assert_eq!(
            error("(50% 200 | 50% 500"),
            r#"1:19: expected "|" and another alternative, or ")", found the end of the text"#
        );
        assert_eq!(
            error("(50% 200 | 50% refsued)"),
            r#"1:16: unknown outcome "refsued", did you mean "refused"?"#
        );
        let nine = "(20% 200 | 10% 200 | 10% 200 | 10% 200 | 10% 200 | 10% 200 | 10% 200 | 10% 200 | 10% 200)";
        assert_eq!(
            error(nine),
            "1:82: a random outcome takes at most 8 alternatives"
        );
        assert_eq!(
            error("200 after 2s..1s"),
            r#"1:11: latency range "2s..1s" runs backwards (write the shorter time first)"#
        );
        assert_eq!(
            error("200 after 1s..2d"),
            r#"1:11: invalid duration "2d": unknown unit "d" (use ms, s, m or h)"#
        );
        assert_eq!(
            error("200 )"),
            r#"1:5: unexpected ")", expected "after", "for", "until", "then", "," or "repeat""#
        );
    }

    #[test]
    fn handler_misfits_point_at_the_alternative() {
        let script = parse("(50% 200 | 50% exit 1)").unwrap();
        let e = script
            .check_handler(probesim_core::HandlerFamily::Http)
            .unwrap_err();
        assert_eq!((e.line(), e.column()), (1, 16));
        assert!(e
            .message()
            .starts_with(r#"outcome "exit 1" cannot answer an httpGet probe"#));
    }
}
