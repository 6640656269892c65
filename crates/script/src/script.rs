//! The script's syntax tree and its canonical text.

use core::fmt;
use core::fmt::Write as _;
use core::num::NonZeroU64;
use core::str::FromStr;

use probesim_core::{Answer, HandlerFamily, SimDuration};

use crate::choice::Choice;
use crate::duration::write_duration;
use crate::parse::{self, ParseError, Span};

/// How long a step lasts in time, besides its count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// `for D`: every request in `[begin, begin + D)`.
    For(SimDuration),
    /// `until T`: every request while the clock is below `T`.
    Until(SimDuration),
}

/// One step of a script: `[COUNT x] outcome [after D[..D]] [for D | until T]`, where the
/// outcome may be a random pick (`(99% 200 | 1% timeout)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    count: Option<NonZeroU64>,
    choice: Choice,
    latency: SimDuration,
    /// The top of `after MIN..MAX` (equal to `latency` for a fixed latency).
    latency_max: SimDuration,
    limit: Option<Limit>,
    /// What the answer prints (P63): an index into the script's texts.
    text: Option<u32>,
}

impl Step {
    /// A step from its parts. The caller keeps the answer in the language's ranges (status
    /// 100–599, exit code 0–255).
    pub(crate) const fn new(
        count: Option<NonZeroU64>,
        answer: Answer,
        latency: SimDuration,
        limit: Option<Limit>,
    ) -> Step {
        Step {
            count,
            choice: Choice::one(answer),
            latency,
            latency_max: latency,
            limit,
            text: None,
        }
    }

    /// The same step printing text number `text` of its script.
    pub(crate) const fn with_text(mut self, text: Option<u32>) -> Step {
        self.text = text;
        self
    }

    /// The index, among its script's [`Script::texts`], of what the step's answers print
    /// (`exit 1 "no such file"`), if it gives one (P63).
    #[must_use]
    pub const fn text(&self) -> Option<u32> {
        self.text
    }

    /// The same step answering with `choice`.
    pub(crate) const fn with_choice(mut self, choice: Choice) -> Step {
        self.choice = choice;
        self
    }

    /// The same step with a latency drawn from `[min, max]` (`max` at least `min`).
    pub(crate) fn with_latency_range(mut self, min: SimDuration, max: SimDuration) -> Step {
        self.latency = min;
        self.latency_max = max.max(min);
        self
    }

    /// `N` of `N x outcome`: how many requests the step answers at most.
    #[must_use]
    pub const fn count(&self) -> Option<NonZeroU64> {
        self.count
    }

    /// What the step answers; for a random outcome, its first alternative (see
    /// [`Step::choice`]).
    #[must_use]
    pub const fn answer(&self) -> Answer {
        self.choice.first()
    }

    /// What the step answers: one outcome or weighted alternatives.
    #[must_use]
    pub const fn choice(&self) -> &Choice {
        &self.choice
    }

    /// `after D`: how long each answer takes to arrive (zero without `after`); for a range
    /// `after MIN..MAX`, its bottom.
    #[must_use]
    pub const fn latency(&self) -> SimDuration {
        self.latency
    }

    /// `after MIN..MAX` as `(MIN, MAX)`; `(D, D)` for a fixed latency.
    #[must_use]
    pub const fn latency_range(&self) -> (SimDuration, SimDuration) {
        (self.latency, self.latency_max)
    }

    /// Does answering this step draw from the seeded generator (a random outcome or a latency
    /// range)?
    #[must_use]
    pub fn draws(&self) -> bool {
        self.choice.is_random() || self.latency_max > self.latency
    }

    /// `for D` or `until T`, if any.
    #[must_use]
    pub const fn limit(&self) -> Option<Limit> {
        self.limit
    }

    /// Does the step end at a time (`for` or `until`), whatever its count?
    #[must_use]
    pub const fn is_timed(&self) -> bool {
        self.limit.is_some()
    }

    /// The clock reading at which a timed step that began at `begin` ends. An `until` whose
    /// time has already passed ends where it began: time never runs backwards.
    pub(crate) fn end(&self, begin: SimDuration) -> Option<SimDuration> {
        match self.limit? {
            Limit::For(d) => Some(begin.saturating_add(d)),
            Limit::Until(t) => Some(begin.max(t)),
        }
    }
}

impl fmt::Display for Step {
    /// The canonical text: `5x200`, `3x ok`, `refused for 20s`, `200 after 2s until 1m`,
    /// `3x (99% 200 | 1% timeout) after 100ms..2s`. A step alone does not know its text, which
    /// its script holds: it is written `"…"` (the script writes it out).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, self.text.map(|_| "…"))
    }
}

impl Step {
    /// The canonical text with `text` in quotes after the outcome.
    fn write(&self, f: &mut fmt::Formatter<'_>, text: Option<&str>) -> fmt::Result {
        if let Some(n) = self.count {
            match self.choice.first() {
                Answer::Status(_) if !self.choice.is_random() => write!(f, "{n}x")?,
                _ => write!(f, "{n}x ")?,
            }
        }
        write!(f, "{}", self.choice)?;
        if let Some(text) = text {
            f.write_str(" \"")?;
            write_escaped(f, text)?;
            f.write_str("\"")?;
        }
        if !self.latency_max.is_zero() {
            f.write_str(" after ")?;
            write_duration(self.latency, f)?;
            if self.latency_max > self.latency {
                f.write_str("..")?;
                write_duration(self.latency_max, f)?;
            }
        }
        match self.limit {
            Some(Limit::For(d)) => {
                f.write_str(" for ")?;
                write_duration(d, f)?;
            }
            Some(Limit::Until(t)) => {
                f.write_str(" until ")?;
                write_duration(t, f)?;
            }
            None => {}
        }
        Ok(())
    }
}

/// A parsed behaviour script (docs/script-language.md): how an application answers successive probe
/// requests.
///
/// Build one with [`parse`](crate::parse()) or [`str::parse`]; play it with
/// [`ScriptPlayer`](crate::ScriptPlayer). It [`Display`](fmt::Display)s in a canonical form
/// that parses back to an equal script. Two scripts are equal when they say the same thing:
/// where their words sat in the source is not compared.
///
/// A script always has at least one step, and a `repeat` script always lets requests or time
/// pass in each round.
#[derive(Clone, Debug)]
pub struct Script {
    pod_scoped: bool,
    steps: Vec<Step>,
    repeat: bool,
    /// Where each step's outcomes sit in the source (one per alternative), for
    /// [`Script::check_handler`].
    outcomes: Vec<Vec<Span>>,
    /// What the steps print (P63), indexed by [`Step::text`].
    texts: Vec<Box<str>>,
    /// Per step, where its text sits in the source.
    text_spans: Vec<Option<Span>>,
}

/// Writes `text` as it is written between quotes in a script: `"` and `\` escaped, and line
/// breaks, tabs and carriage returns as `\n`, `\t` and `\r`.
fn write_escaped(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    for c in text.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            c => f.write_char(c)?,
        }
    }
    Ok(())
}

impl Script {
    /// The same script with the texts its steps print and where each step's text sits.
    pub(crate) fn with_texts(mut self, texts: Vec<Box<str>>, spans: Vec<Option<Span>>) -> Script {
        self.texts = texts;
        self.text_spans = spans;
        self
    }

    /// The texts the steps print (P63), indexed by [`Step::text`].
    #[must_use]
    pub fn texts(&self) -> &[Box<str>] {
        &self.texts
    }

    /// The text a step prints, by its [`Step::text`] index (empty for an unknown index).
    #[must_use]
    pub fn text(&self, index: u32) -> &str {
        self.texts.get(index as usize).map_or("", |t| t)
    }

    /// A script from parts that already hold its invariants: at least one step, one span per
    /// step, and [`Script::can_spin`] false.
    pub(crate) fn from_parts(
        pod_scoped: bool,
        steps: Vec<Step>,
        repeat: bool,
        outcomes: Vec<Vec<Span>>,
    ) -> Script {
        debug_assert!(!steps.is_empty() && steps.len() == outcomes.len());
        debug_assert!(!Script::can_spin(&steps, repeat));
        Script {
            pod_scoped,
            steps,
            repeat,
            outcomes,
            texts: Vec::new(),
            text_spans: Vec::new(),
        }
    }

    /// Could a round of a `repeat` script go by without a request answered or time passing?
    /// That happens when every step ends at a time and the `for` durations add up to zero:
    /// once the clock is past every `until`, each round is empty.
    pub(crate) fn can_spin(steps: &[Step], repeat: bool) -> bool {
        repeat
            && steps.iter().all(Step::is_timed)
            && steps.iter().all(|step| match step.limit {
                Some(Limit::For(d)) => d.is_zero(),
                Some(Limit::Until(_)) | None => true,
            })
    }

    /// The steps, in order.
    #[must_use]
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Does the script start with `pod:` (pod time and one counter for the pod's whole life,
    /// instead of each container instance's uptime and its own counter)?
    #[must_use]
    pub const fn is_pod_scoped(&self) -> bool {
        self.pod_scoped
    }

    /// Does playing the script draw from the seeded generator (a random outcome or a latency
    /// range in some step)?
    #[must_use]
    pub fn draws(&self) -> bool {
        self.steps.iter().any(Step::draws)
    }

    /// Does the script end in `repeat`?
    #[must_use]
    pub const fn is_repeating(&self) -> bool {
        self.repeat
    }

    /// Checks that every outcome can answer a probe with that handler (`exit 1` cannot answer
    /// an `httpGet` probe; any HTTP status can answer a `tcpSocket` probe: the port is open).
    ///
    /// # Errors
    /// A [`ParseError`] positioned at the first outcome that does not apply, in the source
    /// the script was parsed from.
    ///
    /// # Examples
    /// ```
    /// use probesim_core::HandlerFamily;
    /// use probesim_script::parse;
    ///
    /// let script = parse("exit 0 for 30s then exit 1")?;
    /// assert!(script.check_handler(HandlerFamily::Exec).is_ok());
    /// let error = script.check_handler(HandlerFamily::Http).unwrap_err();
    /// assert_eq!(error.column(), 1);
    /// assert!(error.message().starts_with(r#"outcome "exit 0" cannot answer an httpGet probe"#));
    /// # Ok::<(), probesim_script::ParseError>(())
    /// ```
    pub fn check_handler(&self, family: HandlerFamily) -> Result<(), ParseError> {
        // P63: only an exec command's output and an HTTP body reach the prober's output.
        if matches!(family, HandlerFamily::Tcp | HandlerFamily::Grpc) {
            let text = self
                .steps
                .iter()
                .enumerate()
                .find(|(_, step)| step.text.is_some());
            if let Some((i, _)) = text {
                let span = self
                    .text_spans
                    .get(i)
                    .copied()
                    .flatten()
                    .unwrap_or_default();
                return Err(ParseError::from_span(
                    span,
                    format!(
                        "a {} probe shows no output, so its answers cannot print a text (only \
                         exec and httpGet probes do)",
                        family.name()
                    ),
                ));
            }
        }
        let misfit = self
            .steps
            .iter()
            .zip(&self.outcomes)
            .flat_map(|(step, spans)| {
                step.choice
                    .alternatives()
                    .zip(
                        spans
                            .iter()
                            .copied()
                            .chain(core::iter::repeat(Span::default())),
                    )
                    .map(|((_, answer), span)| (answer, span))
            })
            .find(|(answer, _)| !answer.applies_to(family));
        match misfit {
            None => Ok(()),
            Some((answer, span)) => {
                let (article, choices) = match family {
                    HandlerFamily::Http => (
                        "an",
                        "a status like 200, ok, fail, refused, timeout or error",
                    ),
                    HandlerFamily::Tcp => (
                        "a",
                        "open, refused, timeout, a status like 200, ok, fail or error",
                    ),
                    HandlerFamily::Exec => ("an", "exit N, ok, fail, timeout or error"),
                    HandlerFamily::Grpc => (
                        "a",
                        "serving, not-serving, unknown, refused, timeout, ok, fail or error",
                    ),
                };
                Err(ParseError::from_span(
                    span,
                    format!(
                        "outcome \"{}\" cannot answer {article} {} probe (it can answer {choices})",
                        answer,
                        family.name()
                    ),
                ))
            }
        }
    }
}

impl PartialEq for Script {
    /// Compares what the scripts say, not where their words sat in the source.
    fn eq(&self, other: &Script) -> bool {
        self.pod_scoped == other.pod_scoped
            && self.repeat == other.repeat
            && self.steps.len() == other.steps.len()
            && self.steps.iter().zip(&other.steps).all(|(a, b)| {
                a.with_text(None) == b.with_text(None)
                    && a.text.map(|i| self.text(i)) == b.text.map(|i| other.text(i))
            })
    }
}

impl Eq for Script {}

impl fmt::Display for Script {
    /// The canonical text: `pod: ` when pod-scoped, the steps joined by ` then `, and
    /// ` repeat` at the end when it repeats.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pod_scoped {
            f.write_str("pod: ")?;
        }
        for (i, step) in self.steps.iter().enumerate() {
            if i > 0 {
                f.write_str(" then ")?;
            }
            step.write(f, step.text.map(|i| self.text(i)))?;
        }
        if self.repeat {
            f.write_str(" repeat")?;
        }
        Ok(())
    }
}

impl FromStr for Script {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Script, ParseError> {
        parse::parse(text)
    }
}

#[cfg(test)]
mod tests {

    // P63: only exec output and HTTP bodies are shown; a tcpSocket or grpc probe has none.
    #[test]
    fn texts_fit_exec_and_http_probes_only() {
        let script = crate::parse(r#"ok then fail "broken""#).unwrap();
        assert!(script.check_handler(HandlerFamily::Exec).is_ok());
        assert!(script.check_handler(HandlerFamily::Http).is_ok());
        for family in [HandlerFamily::Tcp, HandlerFamily::Grpc] {
            let error = script.check_handler(family).unwrap_err();
            assert_eq!((error.line(), error.column()), (1, 14), "{family:?}");
            assert_eq!(
                error.message(),
                format!(
                    "a {} probe shows no output, so its answers cannot print a text (only exec \
                     and httpGet probes do)",
                    family.name()
                )
            );
        }
    }
    use super::*;
    use crate::parse::parse;

    fn canonical(text: &str) -> String {
        match parse(text) {
            Ok(script) => script.to_string(),
            Err(e) => panic!("{text}: {e}"),
        }
    }

    #[test]
    fn canonical_forms_use_then_and_short_durations() {
        assert_eq!(canonical("5x200 then 500"), "5x200 then 500");
        assert_eq!(canonical("5 x 200, 500"), "5x200 then 500");
        assert_eq!(canonical("5×200,500"), "5x200 then 500");
        assert_eq!(
            canonical("refused for 20s then open"),
            "refused for 20s then open"
        );
        assert_eq!(
            canonical("pod:ok for 60s then fail"),
            "pod: ok for 1m then fail"
        );
        assert_eq!(canonical("200 after 2000ms repeat"), "200 after 2s repeat");
        assert_eq!(canonical("3 x ok, 2×exit 1"), "3x ok then 2x exit 1");
        assert_eq!(canonical("ok after 0s"), "ok");
        assert_eq!(
            canonical("  200  after 1.5   until 90  "),
            "200 after 1.5s until 1m30s"
        );
        assert_eq!(canonical("not-serving for 0"), "not-serving for 0s");
    }

    #[test]
    fn canonical_text_parses_back_to_an_equal_script() {
        for text in [
            "5x200, 500",
            "pod: 2×refused for 1m30s, 503 after 500ms until 2h, open repeat",
            "exit 0 for 30s then exit 1",
            "serving until 10s then 3x not-serving then unknown after 1s repeat",
        ] {
            let script = parse(text).unwrap();
            assert_eq!(parse(&script.to_string()), Ok(script), "{text}");
        }
    }

    #[test]
    fn scripts_compare_by_meaning_not_by_position() {
        assert_eq!(parse("5x200 then 500"), parse("  5 x 200 ,500"));
        assert_ne!(parse("5x200 then 500"), parse("5x200 then 500 repeat"));
        assert_ne!(parse("ok"), parse("pod: ok"));
    }

    #[test]
    fn outcomes_that_cannot_answer_the_handler_are_pinpointed() {
        let script = parse("5x200 then\n  exit 1").unwrap();
        let e = script.check_handler(HandlerFamily::Http).unwrap_err();
        assert_eq!((e.offset(), e.line(), e.column()), (13, 2, 3));
        assert_eq!(e.span(), 13..19);
        assert_eq!(
            e.message(),
            r#"outcome "exit 1" cannot answer an httpGet probe (it can answer a status like 200, ok, fail, refused, timeout or error)"#
        );
        let e = parse("open").unwrap().check_handler(HandlerFamily::Grpc);
        assert_eq!(
            e.unwrap_err().to_string(),
            r#"1:1: outcome "open" cannot answer a grpc probe (it can answer serving, not-serving, unknown, refused, timeout, ok, fail or error)"#
        );
        // docs/script-language.md#outcomes: `timeout` answers an exec probe too; `refused` does
        // not.
        assert!(parse("ok, timeout")
            .unwrap()
            .check_handler(HandlerFamily::Exec)
            .is_ok());
        let e = parse("ok, refused")
            .unwrap()
            .check_handler(HandlerFamily::Exec);
        assert_eq!(
            e.unwrap_err().to_string(),
            r#"1:5: outcome "refused" cannot answer an exec probe (it can answer exit N, ok, fail, timeout or error)"#
        );
        let e = parse("serving").unwrap().check_handler(HandlerFamily::Tcp);
        assert_eq!(
            e.unwrap_err().to_string(),
            r#"1:1: outcome "serving" cannot answer a tcpSocket probe (it can answer open, refused, timeout, a status like 200, ok, fail or error)"#
        );
    }

    #[test]
    fn handler_errors_render_under_the_outcome() {
        let source = "5x200 then exit 1";
        let e = parse(source).unwrap().check_handler(HandlerFamily::Http);
        assert_eq!(
            e.unwrap_err().render(source, "apps.kubia.probes.liveness"),
            "apps.kubia.probes.liveness:1:12\n\
             1 | 5x200 then exit 1\n  \
               |            ^~~~~~ outcome \"exit 1\" cannot answer an httpGet probe \
             (it can answer a status like 200, ok, fail, refused, timeout or error)"
        );
    }

    #[test]
    fn any_status_answers_a_tcp_probe() {
        let script =
            parse("200 then 503 then open then refused then timeout then ok then fail then error");
        assert_eq!(script.unwrap().check_handler(HandlerFamily::Tcp), Ok(()));
    }

    #[test]
    fn natural_outcomes_answer_every_handler() {
        let script = parse("ok then fail then error").unwrap();
        for family in [
            HandlerFamily::Exec,
            HandlerFamily::Http,
            HandlerFamily::Tcp,
            HandlerFamily::Grpc,
        ] {
            assert_eq!(script.check_handler(family), Ok(()));
        }
    }
}

#[cfg(test)]
mod properties {
    use ::proptest::prelude::*;

    use crate::duration::{format_duration, parse_duration};
    use crate::parse::parse;
    use crate::proptest::{duration, script};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn canonical_text_round_trips(script in script()) {
            let text = script.to_string();
            prop_assert_eq!(parse(&text), Ok(script), "{}", text);
        }

        #[test]
        fn canonical_text_is_a_fixed_point(script in script()) {
            let text = script.to_string();
            let again = parse(&text).map(|s| s.to_string());
            prop_assert_eq!(again, Ok(text));
        }

        #[test]
        fn durations_round_trip(d in duration()) {
            prop_assert_eq!(parse_duration(&format_duration(d)), Ok(d));
        }

        #[test]
        fn any_text_parses_or_fails_without_panicking(text in "[ -~×\n]{0,40}") {
            let _ = parse(&text);
            let _ = parse_duration(&text);
            let _ = crate::parse::parse_exit(&text);
            let _ = crate::parse::parse_sigterm(&text);
        }
    }
}
