//! Reading the goal expectations (`readyWithin`, `neverNotReadyLongerThan`, `maxRestarts`,
//! `firstKill`, `noKill`; docs/scenario-format.md#goals-what-users-mean); checking them is
//! [`crate::expect::Goal`]'s.

use probesim_core::SimTime;

use crate::expect::{Expectation, Goal};
use probesim_kube::decode::{self, Fields};
use probesim_kube::field_path::FieldPath;
use probesim_kube::validate::ValidatedPod;
use probesim_kube::yaml::Value;

use super::Loader;

/// The goal forms, each with the fields that may go with it.
pub(super) const GOALS: &[(&str, &[&str])] = &[
    ("readyWithin", &["container"]),
    ("neverNotReadyLongerThan", &["container"]),
    ("maxRestarts", &["container", "between", "within"]),
    ("firstKill", &["container"]),
    ("noKill", &["container"]),
];

impl Loader<'_> {
    /// A goal expectation of form `form` (one of [`GOALS`]).
    pub(super) fn goal_expectation(
        &mut self,
        f: &Fields<'_>,
        path: &FieldPath,
        form: &str,
        pod: Option<&ValidatedPod>,
    ) -> Option<Expectation> {
        let companions = GOALS
            .iter()
            .find(|(g, _)| *g == form)
            .map_or(&[][..], |(_, c)| *c);
        let mut ok = true;
        for (key, node) in f.entries() {
            let field = key.text.as_str();
            if node.is_null() || field == form || field == "timings" || companions.contains(&field)
            {
                continue;
            }
            let with: Vec<String> = companions.iter().map(|c| format!("`{c}`")).collect();
            self.report(
                &path.child(field),
                Some(key.mark),
                format!(
                    "does not go with `{form}` (it takes {})",
                    with.join(" and ")
                ),
            );
            ok = false;
        }
        let container = match f.get("container") {
            Some(n) if !n.is_null() => {
                let name = self.container_name(n, &path.child("container"), pod);
                ok &= name.is_some();
                name
            }
            _ => None,
        };
        let node = f.get(form)?;
        let p = path.child(form);
        let goal = match form {
            "readyWithin" => self
                .instant(node, &p)
                .map(|within| Goal::ReadyWithin { within, container }),
            "neverNotReadyLongerThan" => self
                .duration(node, &p)
                .map(|limit| Goal::NeverNotReadyLongerThan { limit, container }),
            "maxRestarts" => {
                let max = decode::integer(
                    &mut self.d,
                    node,
                    &p,
                    0,
                    i128::from(u32::MAX),
                    "a number of restarts from 0 to 4294967295",
                )
                .and_then(|n| u64::try_from(n).ok());
                let between = match f.get("between") {
                    None => Some((SimTime::ZERO, SimTime::MAX)),
                    Some(n) => self.between(n, &path.child("between")),
                };
                let within = match f.get("within") {
                    None => Some(None),
                    Some(n) => match self.duration(n, &path.child("within")) {
                        Some(d) if d.is_zero() => {
                            self.report(
                                &path.child("within"),
                                Some(n.mark),
                                "a span of 0s holds only the restarts of one instant: give a longer one",
                            );
                            None
                        }
                        d => d.map(Some),
                    },
                };
                match (max, between, within) {
                    (Some(max), Some(between), Some(within)) => Some(Goal::MaxRestarts {
                        max,
                        container,
                        between,
                        within,
                    }),
                    _ => None,
                }
            }
            "firstKill" => self.first_kill(node, &p, container),
            _ => match decode::boolean(&mut self.d, node, &p) {
                Some(true) => Some(Goal::NoKill { container }),
                Some(false) => {
                    self.report(
                        &p,
                        Some(node.mark),
                        "`noKill: false` checks nothing: write `noKill: true`, or count kills with `timeline: {kind: kill}`",
                    );
                    None
                }
                None => None,
            },
        };
        let goal = goal?;
        ok.then_some(Expectation::Goal(goal))
    }

    /// `firstKill: {min: 5m, max: 20m}` (either or both).
    fn first_kill(
        &mut self,
        node: &probesim_kube::yaml::Node,
        path: &FieldPath,
        container: Option<String>,
    ) -> Option<Goal> {
        if !matches!(node.value(), Value::Map(_)) {
            decode::type_error(
                &mut self.d,
                node,
                path,
                "a window {min, max} of durations (the first kill no earlier than min, no later than max)",
            );
            return None;
        }
        let (min, max) = self.min_max(
            node,
            path,
            |l, n, p| l.instant(n, p),
            |a, b| format!("max ({b}s) is before min ({a}s)"),
        )?;
        Some(Goal::FirstKill {
            min,
            max,
            container,
        })
    }
}

#[cfg(test)]
mod tests {
    use probesim_core::SimDuration;

    use super::*;
    use crate::scenario::tests::{load, with_pod};

    #[test]
    fn goals_are_read() {
        let s = load(&with_pod(
            "expect:\n\
             - readyWithin: 2m\n\
             - neverNotReadyLongerThan: 10s\n  container: kubia\n\
             - maxRestarts: 3\n  between: [1m, 30m]\n\
             - firstKill: {min: 5m}\n\
             - noKill: true\n  container: kubia\n\
             - timeline: {kind: kill, reason: Unknown, cause: liveness}\n",
        ))
        .unwrap();
        let goals: Vec<&Expectation> = s.expect.iter().map(|e| &e.expectation).collect();
        let kubia = Some("kubia".to_owned());
        assert_eq!(
            goals[..5],
            [
                &Expectation::Goal(Goal::ReadyWithin {
                    within: SimTime::from_secs(120),
                    container: None
                }),
                &Expectation::Goal(Goal::NeverNotReadyLongerThan {
                    limit: SimDuration::from_secs(10),
                    container: kubia.clone()
                }),
                &Expectation::Goal(Goal::MaxRestarts {
                    max: 3,
                    container: None,
                    between: (SimTime::from_secs(60), SimTime::from_secs(1800)),
                    within: None
                }),
                &Expectation::Goal(Goal::FirstKill {
                    min: Some(SimTime::from_secs(300)),
                    max: None,
                    container: None
                }),
                &Expectation::Goal(Goal::NoKill { container: kubia }),
            ]
        );
        let Expectation::Count { filter, .. } = goals[5] else {
            panic!("a count: {:?}", goals[5]);
        };
        assert_eq!(
            (filter.reason.as_deref(), filter.cause.as_deref()),
            (Some("Unknown"), Some("liveness"))
        );
    }
}
