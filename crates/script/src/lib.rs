//! probesim-script: the behaviour language of probesim (`5x200 then 500`), which says how an
//! application answers successive probe requests. It reads scripts into a [`Script`], prints
//! them back in a canonical form, checks them against a probe's handler, and plays them as a
//! [`probesim_core::Behaviour`] with [`ScriptPlayer`]. It is pure: no I/O, no clock, no
//! environment; time is whatever the simulation hands in with each attempt.
//!
//! # Grammar
//!
//! ```text
//! script   := ["pod:"] step (("then" | ",") step)* ["repeat"]
//! step     := [COUNT ("x" | "×")] choice [TEXT] ["after" LATENCY] [("for" | "until") DURATION]
//! choice   := outcome | "(" SHARE outcome ("|" SHARE outcome)* ")"
//! outcome  := STATUS | "ok" | "fail" | "open" | "refused" | "timeout"
//!           | "exit" INT | "serving" | "not-serving" | "unknown" | "error"
//! LATENCY  := DURATION [".." DURATION]
//! TEXT     := '"' (any character but '"' and '\\' | '\\' ('"' | '\\' | 'n' | 't' | 'r'))* '"'
//! ```
//!
//! - `COUNT` is a positive integer; `5x200`, `5 x 200` and `5×200` are the same step.
//! - `STATUS` is an HTTP status from 100 to 599; `exit` takes a code from 0 to 255.
//! - `DURATION` is Go-style (`500ms`, `10s`, `1m30s`, `2h`, `1.5s`) or plain seconds (`30`),
//!   see [`parse_duration`].
//! - Words are separated by white space, which may include line breaks.
//! - `SHARE` is a percentage with at most two decimals (`99%`, `0.5%`); a choice's shares add
//!   up to 100%. A choice and a latency range `MIN..MAX` are drawn afresh for every request,
//!   from the simulation's seeded generator ([`probesim_core::Behaviour::respond_drawing`]):
//!   the outcome first, then the latency.
//! - `TEXT` is what the answer prints (P63): an exec command's output or an HTTP body, which
//!   the kubelet shows in its `Unhealthy` and `ProbeWarning` messages as it shows real output
//!   (see docs/script-language.md#printed-text).
//!
//! # Meaning
//!
//! Steps are consumed in order. `N x o` answers the next `N` requests; `o for D` answers every
//! request in `[begin, begin + D)`; `o until T` answers while the clock is below `T`; a step
//! without count or time answers one request, unless it is the last. A count step ends at its
//! last answer, a timed step at its end time, a step with both at whichever comes first, and
//! the next step begins there. A timed step that no request fell in is passed over. The last
//! step holds forever, unless the script ends in `repeat`, which starts it over from where the
//! last round ended. `after D` is the answer's latency.
//!
//! The clock is the container instance's uptime, and each new instance starts afresh; a
//! script that begins with `pod:` reads pod time and keeps one counter for the pod's life.
//!
//! ```
//! use probesim_script::{parse, Script};
//!
//! let script: Script = "5 x 200, 500".parse()?;
//! assert_eq!(script.to_string(), "5x200 then 500");
//! assert_eq!(parse(&script.to_string())?, script);
//!
//! let script = parse("pod: ok for 60s then fail")?;
//! assert!(script.is_pod_scoped());
//! assert_eq!(script.to_string(), "pod: ok for 1m then fail");
//!
//! let script = parse("2x200 after 1500ms, 503 repeat")?;
//! assert_eq!(script.to_string(), "2x200 after 1.5s then 503 repeat");
//! # Ok::<(), probesim_script::ParseError>(())
//! ```
//!
//! # Errors
//!
//! Errors carry the byte offset, line and column of the offending word and a lowercase
//! message; [`ParseError::render`] draws it under the source line.
//!
//! ```
//! use probesim_script::parse;
//!
//! let error = parse("5x200 then refsued").unwrap_err();
//! assert_eq!(error.to_string(), r#"1:12: unknown outcome "refsued", did you mean "refused"?"#);
//!
//! let error = parse("ok for 0s repeat").unwrap_err();
//! assert!(error.message().starts_with("script can loop forever without time passing"));
//! ```
//!
//! # Playing a script
//!
//! ```
//! use probesim_core::{Answer, Attempt, Behaviour, ProbeKind, SimDuration, SimTime};
//! use probesim_script::ScriptPlayer;
//!
//! let mut player = ScriptPlayer::new("refused for 20s then open".parse()?);
//! let at = |secs| Attempt {
//!     container: 0,
//!     probe: ProbeKind::Readiness,
//!     instance: 0,
//!     uptime: SimDuration::from_secs(secs),
//!     now: SimTime::from_secs(secs),
//! };
//! assert_eq!(player.respond(&at(10)).answer, Answer::Refused);
//! assert_eq!(player.respond(&at(20)).answer, Answer::Open);
//! # Ok::<(), probesim_script::ParseError>(())
//! ```

#![warn(missing_docs)]

mod choice;
mod duration;
mod parse;
mod player;
#[cfg(any(test, feature = "proptest"))]
pub mod proptest;
mod script;

pub use choice::{Choice, MAX_ALTERNATIVES, WHOLE};
pub use duration::{
    format_duration, parse_duration, write_duration, DurationError, DurationErrorKind,
};
pub use parse::{parse, parse_exit, parse_sigterm, ParseError, MAX_TEXT};
pub use player::ScriptPlayer;
pub use script::{Limit, Script, Step};
