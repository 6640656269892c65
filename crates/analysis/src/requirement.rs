//! Requirements: `--require 'web.startupBudget.min>=90s'` over the figures.
//!
//! An expression is `CONTAINER.FIGURE.min|max OP DURATION`, where FIGURE is one of
//! [`FIGURES`] and OP one of `>=`, `<=`, `>`, `<`, `==`. A value that never happens (a hang
//! never detected, a budget nothing can exhaust) counts as larger than every duration.

use core::fmt;

use probesim_core::SimDuration;

use crate::figure::{ContainerFigures, Extreme, Figure, GridPhase};

/// The figure paths a requirement can name.
pub const FIGURES: &[&str] = &[
    "startupBudget",
    "hangDetection.kill",
    "hangDetection.exit",
    "hangDetection.restarted",
    "readiness.toReady",
    "readiness.toNotReady",
    "crashLoop.backOff",
    "crashLoop.cycle",
];

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `>=`
    Ge,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `<`
    Lt,
    /// `==`
    Eq,
}

impl Op {
    const ALL: [(&'static str, Op); 5] = [
        (">=", Op::Ge),
        ("<=", Op::Le),
        ("==", Op::Eq),
        (">", Op::Gt),
        ("<", Op::Lt),
    ];

    fn as_str(self) -> &'static str {
        match self {
            Op::Ge => ">=",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Lt => "<",
            Op::Eq => "==",
        }
    }

    /// Whether `value op bound` holds (`None` is larger than every duration).
    #[must_use]
    pub fn holds(self, value: Option<SimDuration>, bound: SimDuration) -> bool {
        match value {
            None => matches!(self, Op::Ge | Op::Gt),
            Some(v) => match self {
                Op::Ge => v >= bound,
                Op::Le => v <= bound,
                Op::Gt => v > bound,
                Op::Lt => v < bound,
                Op::Eq => v == bound,
            },
        }
    }
}

/// Which extreme of the figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// `min`.
    Min,
    /// `max`.
    Max,
}

/// One parsed `--require` expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The expression as written.
    pub text: String,
    /// The container name.
    pub container: String,
    /// The figure path (one of [`FIGURES`]).
    pub figure: &'static str,
    /// `min` or `max`.
    pub bound: Bound,
    /// The comparison.
    pub op: Op,
    /// The duration compared with.
    pub limit: SimDuration,
}

/// A malformed expression: what is wrong and where (a character offset).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequirementError {
    /// The expression.
    pub text: String,
    /// The offset of the problem, in characters.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RequirementError {
    /// `--require 'x': message at column N`, then the expression and a caret under the spot.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "--require {:?}: {} (column {})",
            self.text,
            self.message,
            self.offset + 1
        )?;
        writeln!(f, "  {}", self.text)?;
        write!(f, "  {}^", " ".repeat(self.offset))
    }
}

impl std::error::Error for RequirementError {}

impl Requirement {
    /// Reads an expression.
    ///
    /// # Errors
    /// A missing part, an unknown figure, a missing `min`/`max`, an unknown comparison or a bad
    /// duration, with its position.
    ///
    /// # Examples
    /// ```
    /// use probesim_analysis::requirement::{Bound, Requirement};
    ///
    /// let g = Requirement::parse("web.hangDetection.kill.max<=45s")?;
    /// assert_eq!((g.container.as_str(), g.figure, g.bound), ("web", "hangDetection.kill", Bound::Max));
    /// assert!(Requirement::parse("web.startupBudget>=90s").is_err());
    /// # Ok::<(), probesim_analysis::requirement::RequirementError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Requirement, RequirementError> {
        let err = |offset: usize, message: String| RequirementError {
            text: text.to_owned(),
            offset,
            message,
        };
        let chars = |bytes: usize| text[..bytes].chars().count();
        let op_at = text.find(['<', '>', '=']).ok_or_else(|| {
            err(
                text.chars().count(),
                "expected a comparison (>=, <=, >, <, ==) and a duration".to_owned(),
            )
        })?;
        let (lhs, rest) = text.split_at(op_at);
        let (op_text, op) = Op::ALL
            .iter()
            .find(|(t, _)| rest.starts_with(t))
            .copied()
            .ok_or_else(|| err(chars(op_at), "expected >=, <=, >, < or ==".to_owned()))?;
        let lhs_trim = lhs.trim_end();
        let lead = lhs_trim.len() - lhs_trim.trim_start().len();
        let lhs_trim = lhs_trim.trim_start();
        let Some(dot) = lhs_trim.find('.') else {
            return Err(err(
                chars(lead + lhs_trim.len()),
                "expected CONTAINER.FIGURE.min or CONTAINER.FIGURE.max before the comparison"
                    .to_owned(),
            ));
        };
        let container = &lhs_trim[..dot];
        if container.is_empty() {
            return Err(err(chars(lead), "expected a container name".to_owned()));
        }
        let path = &lhs_trim[dot + 1..];
        let path_at = lead + dot + 1;
        let (figure_text, bound_text, bound_at) = match path.rfind('.') {
            Some(i) => (&path[..i], &path[i + 1..], path_at + i + 1),
            None => (path, "", path_at + path.len()),
        };
        let bound = match bound_text {
            "min" => Bound::Min,
            "max" => Bound::Max,
            _ if FIGURES.contains(&path) => {
                return Err(err(
                    chars(path_at + path.len()),
                    format!("expected .min or .max after {path}"),
                ))
            }
            other => {
                if FIGURES.contains(&figure_text) {
                    return Err(err(
                        chars(bound_at),
                        format!("expected min or max, found {other:?}"),
                    ));
                }
                return Err(err(
                    chars(path_at),
                    format!(
                        "unknown figure {path:?}; expected one of {} followed by .min or .max",
                        FIGURES.join(", ")
                    ),
                ));
            }
        };
        let Some(figure) = FIGURES.iter().copied().find(|f| *f == figure_text) else {
            return Err(err(
                chars(path_at),
                format!(
                    "unknown figure {figure_text:?}; expected one of {}",
                    FIGURES.join(", ")
                ),
            ));
        };
        let value_at = op_at + op_text.len();
        let value = rest[op_text.len()..].trim();
        let value_at =
            value_at + (rest[op_text.len()..].len() - rest[op_text.len()..].trim_start().len());
        if value.is_empty() {
            return Err(err(
                chars(value_at),
                "expected a duration (90s, 1m30s, 45)".to_owned(),
            ));
        }
        let limit = probesim_script::parse_duration(value)
            .map_err(|e| err(chars(value_at), format!("invalid duration: {e}")))?;
        Ok(Requirement {
            text: text.to_owned(),
            container: container.to_owned(),
            figure,
            bound,
            op,
            limit,
        })
    }

    /// The extreme this requirement reads from a container's figures; `None` when the figure does not
    /// apply (nothing can kill the app, the pod is never Ready, it never restarts), which
    /// counts as never.
    #[must_use]
    pub fn extreme(&self, f: &ContainerFigures) -> Option<Extreme> {
        let figure: Option<&Figure> = match self.figure {
            "startupBudget" => f.startup_budget.as_ref(),
            "hangDetection.kill" => Some(&f.hang.kill),
            "hangDetection.exit" => Some(&f.hang.exit),
            "hangDetection.restarted" => Some(&f.hang.restarted),
            "readiness.toReady" => Some(&f.readiness.to_ready),
            "readiness.toNotReady" => f.readiness.to_not_ready.as_ref(),
            "crashLoop.backOff" => f.crash_loop.as_ref().map(|c| &c.back_off),
            "crashLoop.cycle" => f.crash_loop.as_ref().map(|c| &c.cycle),
            _ => None,
        };
        figure.map(|fig| match self.bound {
            Bound::Min => fig.min,
            Bound::Max => fig.max,
        })
    }

    /// Checks the requirement against one container's figures.
    #[must_use]
    pub fn check(&self, workload: &str, f: &ContainerFigures) -> Verdict {
        let extreme = self.extreme(f);
        let value = extreme.and_then(|e| e.value);
        Verdict {
            requirement: self.clone(),
            workload: workload.to_owned(),
            value,
            phase: extreme.map(|e| e.phase),
            holds: self.op.holds(value, self.limit),
        }
    }
}

/// The outcome of one requirement on one container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The requirement.
    pub requirement: Requirement,
    /// The workload of the container.
    pub workload: String,
    /// The figure's value (`None`: never).
    pub value: Option<SimDuration>,
    /// The phase that produced it.
    pub phase: Option<GridPhase>,
    /// Whether the requirement holds.
    pub holds: bool,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = &self.requirement;
        let bound = match g.bound {
            Bound::Min => "min",
            Bound::Max => "max",
        };
        let value = self
            .value
            .map_or_else(|| "never".to_owned(), |v| format!("{v}s"));
        write!(
            f,
            "{}: {}.{}.{bound} is {value}, required {} {}s",
            self.workload,
            g.container,
            g.figure,
            g.op.as_str(),
            g.limit
        )?;
        if let Some(p) = self.phase {
            write!(f, " ({p})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_read_every_part() {
        let g = Requirement::parse("web.startupBudget.min >= 1m30s").unwrap();
        assert_eq!(g.container, "web");
        assert_eq!(g.figure, "startupBudget");
        assert_eq!(g.bound, Bound::Min);
        assert_eq!(g.op, Op::Ge);
        assert_eq!(g.limit, SimDuration::from_secs(90));
        let g = Requirement::parse("api.readiness.toNotReady.max<10").unwrap();
        assert_eq!((g.figure, g.op), ("readiness.toNotReady", Op::Lt));
    }

    #[test]
    fn malformed_expressions_point_at_the_problem() {
        let cases = [
            ("web.startupBudget.mn>=90s", 18, "expected min or max"),
            ("web.startupBudget>=90s", 17, "expected .min or .max"),
            ("web.hang.kill.max<=45s", 4, "unknown figure"),
            (
                "web.startupBudget.min=>90s",
                21,
                "expected >=, <=, >, < or ==",
            ),
            ("web.startupBudget.min>=ninety", 23, "invalid duration"),
            ("web.startupBudget.min", 21, "expected a comparison"),
            (".startupBudget.min>=1s", 0, "expected a container name"),
        ];
        for (text, offset, message) in cases {
            let e = Requirement::parse(text).unwrap_err();
            assert_eq!(e.offset, offset, "{text}: {e}");
            assert!(e.message.starts_with(message), "{text}: {e}");
        }
    }

    #[test]
    fn never_is_larger_than_every_duration() {
        let d = SimDuration::from_secs(5);
        assert!(Op::Ge.holds(None, d));
        assert!(!Op::Le.holds(None, d));
        assert!(Op::Le.holds(Some(d), d));
        assert!(!Op::Lt.holds(Some(d), d));
    }
}
