//! Reading `expect:` (docs/scenario-format.md#expect): state checks at an instant, event counts
//! over a window, timeline filters; checking them is [`crate::expect`]'s.

use probesim_core::{EventKind, SimTime};

use crate::expect::{CountRange, EventFilter, Expect, Expectation, StateChecks};
use probesim_kube::decode::{self, Fields};
use probesim_kube::field_path::FieldPath;
use probesim_kube::validate::ValidatedPod;
use probesim_kube::yaml::{Node, Value};

use super::apps::PROBE_TYPES;
use super::closed_sets::{reasons, state_reasons, timeline_fields, CAUSES};
use super::goals::GOALS;
use super::Loader;

pub(super) const EXPECT_FIELDS: &[&str] = &[
    "at",
    "container",
    "restartCount",
    "ready",
    "started",
    "state",
    "reason",
    "exitCode",
    "lastExitCode",
    "phase",
    "podReady",
    "events",
    "timeline",
    "between",
    "count",
    "readyWithin",
    "neverNotReadyLongerThan",
    "maxRestarts",
    "firstKill",
    "noKill",
    "within",
    "timings",
];

pub(super) const CONTAINER_CHECKS: &[&str] = &[
    "restartCount",
    "ready",
    "started",
    "state",
    "reason",
    "exitCode",
    "lastExitCode",
];

pub(super) const POD_CHECKS: &[&str] = &["phase", "podReady"];

pub(super) const EVENTS_FIELDS: &[&str] = &["reason", "message", "type", "container"];

pub(super) const TIMELINE_FIELDS: &[&str] = &[
    "kind",
    "container",
    "probe",
    "outcome",
    "result",
    "reason",
    "exitCode",
    "type",
    "message",
    "cause",
    "state",
    "phase",
];

const RANGE_FIELDS: &[&str] = &["min", "max"];

impl Loader<'_> {
    pub(super) fn expectations(&mut self, node: &Node, pod: Option<&ValidatedPod>) -> Vec<Expect> {
        let path = FieldPath::new("expect");
        let Some(items) = decode::list(&mut self.d, node, &path) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let timings = item.get("timings").and_then(|n| {
                decode::integer(
                    &mut self.d,
                    n,
                    &path.index(i).child("timings"),
                    1,
                    10_000,
                    "an integer from 1 to 10000",
                )
                .and_then(|t| u32::try_from(t).ok())
            });
            if let Some(expectation) = self.expectation(item, &path.index(i), pod) {
                out.push(Expect {
                    index: i,
                    line: Some(item.mark.line),
                    expectation,
                    timings,
                });
            }
        }
        out
    }

    pub(super) fn container_name(
        &mut self,
        node: &Node,
        path: &FieldPath,
        pod: Option<&ValidatedPod>,
    ) -> Option<String> {
        let name = decode::string(&mut self.d, node, path)?;
        if let Some(v) = pod {
            let names = v
                .pod
                .containers
                .iter()
                .chain(&v.init_containers)
                .map(|c| c.name.as_str());
            if !names.clone().any(|n| n == name) {
                let hint = match decode::suggest(&name, names) {
                    Some(s) => format!(", did you mean {s:?}?"),
                    None => String::new(),
                };
                self.report(
                    path,
                    Some(node.mark),
                    format!("no container named {name:?} in the pod{hint}"),
                );
                return None;
            }
        }
        Some(name)
    }

    pub(super) fn one_of(
        &mut self,
        node: &Node,
        path: &FieldPath,
        allowed: &[&str],
    ) -> Option<String> {
        let s = decode::string(&mut self.d, node, path)?;
        if allowed.contains(&s.as_str()) {
            return Some(s);
        }
        let list: Vec<String> = allowed.iter().map(|a| format!("{a:?}")).collect();
        let hint = match decode::suggest(&s, allowed.iter().copied()) {
            Some(x) => format!(", did you mean {x:?}?"),
            None => format!(" (expected one of {})", list.join(", ")),
        };
        self.report(path, Some(node.mark), format!("unknown value {s:?}{hint}"));
        None
    }

    pub(super) fn count_range(&mut self, node: &Node, path: &FieldPath) -> Option<CountRange> {
        const COUNT: &str = "a count (a number, or {min, max})";
        let count = |l: &mut Loader<'_>, n: &Node, p: &FieldPath| {
            decode::integer(
                &mut l.d,
                n,
                p,
                0,
                i128::from(u64::MAX),
                "a count from 0 to 18446744073709551615",
            )
            .and_then(|x| u64::try_from(x).ok())
        };
        match node.value() {
            Value::Int(_) => count(self, node, path).map(CountRange::exactly),
            Value::Map(_) => {
                let (min, max) = self.min_max(node, path, count, |a, b| {
                    format!("max {b} is below min {a}")
                })?;
                Some(CountRange { min, max })
            }
            _ => {
                decode::type_error(&mut self.d, node, path, COUNT);
                None
            }
        }
    }

    /// `{min, max}`, either or both, each decoded by `one`. `None`, reported, when neither is
    /// set, when one does not decode, or when max lies below min (`below` words it).
    pub(super) fn min_max<T: PartialOrd + Copy>(
        &mut self,
        node: &Node,
        path: &FieldPath,
        one: impl Fn(&mut Self, &Node, &FieldPath) -> Option<T>,
        below: impl FnOnce(T, T) -> String,
    ) -> Option<(Option<T>, Option<T>)> {
        let f = decode::fields(&mut self.d, node, path, RANGE_FIELDS, &[])?;
        let (min_node, max_node) = (f.get("min"), f.get("max"));
        let min = min_node.map(|n| one(self, n, &path.child("min")));
        let max = max_node.map(|n| one(self, n, &path.child("max")));
        if matches!(min, Some(None)) || matches!(max, Some(None)) {
            return None;
        }
        let (min, max) = (min.flatten(), max.flatten());
        match (min, max, max_node) {
            (None, None, _) => {
                self.report(path, Some(node.mark), "expected min, max or both");
                None
            }
            (Some(a), Some(b), Some(n)) if a > b => {
                self.report(&path.child("max"), Some(n.mark), below(a, b));
                None
            }
            _ => Some((min, max)),
        }
    }

    pub(super) fn expectation(
        &mut self,
        item: &Node,
        path: &FieldPath,
        pod: Option<&ValidatedPod>,
    ) -> Option<Expectation> {
        let f = decode::fields(&mut self.d, item, path, EXPECT_FIELDS, &[])?;
        let forms: Vec<&str> = ["at", "events", "timeline"]
            .into_iter()
            .chain(GOALS.iter().map(|(g, _)| *g))
            .filter(|k| f.get(k).is_some())
            .collect();
        if let (Some(n), false) = (f.get("within"), forms.as_slice() == ["maxRestarts"]) {
            if forms.len() == 1 {
                self.report(
                    &path.child("within"),
                    Some(n.mark),
                    format!("goes with `maxRestarts`, not with `{}`", forms[0]),
                );
                return None;
            }
        }
        match forms.as_slice() {
            ["at"] => self.state_expectation(&f, path, pod),
            ["events"] | ["timeline"] => self.count_expectation(&f, path, forms[0], pod),
            [goal] => self.goal_expectation(&f, path, goal, pod),
            [] => {
                self.report(
                    path,
                    Some(f.mark),
                    "expected `at` (state checks), `events`, `timeline`, `readyWithin`, `neverNotReadyLongerThan`, `maxRestarts`, `firstKill` or `noKill`",
                );
                None
            }
            _ => {
                self.report(
                    path,
                    Some(f.mark),
                    format!(
                        "`{}` and `{}` cannot be combined: write separate expectations",
                        forms[0], forms[1]
                    ),
                );
                None
            }
        }
    }

    pub(super) fn state_expectation(
        &mut self,
        f: &Fields<'_>,
        path: &FieldPath,
        pod: Option<&ValidatedPod>,
    ) -> Option<Expectation> {
        let mut ok = true;
        for field in ["between", "count"] {
            if let Some(n) = f.get(field) {
                self.report(
                    &path.child(field),
                    Some(n.mark),
                    "goes with `events` or `timeline`, not with `at`",
                );
                ok = false;
            }
        }
        let at = f.get("at").and_then(|n| self.instant(n, &path.child("at")));
        let container = match f.get("container") {
            Some(n) => {
                let name = self.container_name(n, &path.child("container"), pod);
                ok &= name.is_some();
                name
            }
            None => {
                for (key, node) in f.entries() {
                    if !node.is_null() && CONTAINER_CHECKS.contains(&key.text.as_str()) {
                        self.report(
                            &path.child(&key.text),
                            Some(key.mark),
                            "a container check needs `container`",
                        );
                        ok = false;
                    }
                }
                None
            }
        };
        let mut checks = StateChecks::default();
        let mut any = false;
        for (field, node) in f.entries() {
            let field = field.text.as_str();
            if node.is_null() || !(CONTAINER_CHECKS.contains(&field) || POD_CHECKS.contains(&field))
            {
                continue;
            }
            any = true;
            let p = path.child(field);
            let good = match field {
                "restartCount" => self
                    .count_range(node, &p)
                    .map(|r| checks.restart_count = Some(r)),
                "ready" => decode::boolean(&mut self.d, node, &p).map(|b| checks.ready = Some(b)),
                "started" => {
                    decode::boolean(&mut self.d, node, &p).map(|b| checks.started = Some(b))
                }
                "podReady" => {
                    decode::boolean(&mut self.d, node, &p).map(|b| checks.pod_ready = Some(b))
                }
                "state" => self
                    .one_of(node, &p, &["running", "waiting", "terminated"])
                    .map(|s| checks.state = Some(s)),
                "reason" => self
                    .one_of_set(node, &p, state_reasons(), "container state reason")
                    .map(|s| checks.reason = Some(s)),
                "exitCode" => decode::int32(&mut self.d, node, &p)
                    .map(|n| checks.exit_code = i32::try_from(n).ok()),
                "lastExitCode" => decode::int32(&mut self.d, node, &p)
                    .map(|n| checks.last_exit_code = i32::try_from(n).ok()),
                "phase" => self
                    .one_of(node, &p, &["Pending", "Running", "Succeeded", "Failed"])
                    .map(|s| checks.phase = Some(s)),
                _ => Some(()),
            };
            ok &= good.is_some();
        }
        if !any {
            self.report(
                path,
                Some(f.mark),
                "nothing to check: add restartCount, ready, started, state, reason, exitCode, lastExitCode, phase or podReady",
            );
            return None;
        }
        let at = at?;
        ok.then_some(Expectation::At {
            at,
            container,
            checks,
        })
    }

    pub(super) fn count_expectation(
        &mut self,
        f: &Fields<'_>,
        path: &FieldPath,
        form: &str,
        pod: Option<&ValidatedPod>,
    ) -> Option<Expectation> {
        let mut ok = true;
        for (key, node) in f.entries() {
            let field = key.text.as_str();
            if !node.is_null()
                && (CONTAINER_CHECKS.contains(&field)
                    || POD_CHECKS.contains(&field)
                    || field == "container")
            {
                self.report(
                    &path.child(field),
                    Some(key.mark),
                    format!("goes with `at`, not with `{form}`"),
                );
                ok = false;
            }
        }
        let fp = path.child(form);
        let filter_node = f.get(form)?;
        let filter = self.event_filter(filter_node, &fp, form, pod);
        let between = match f.get("between") {
            None => Some((SimTime::ZERO, SimTime::MAX)),
            Some(n) => self.between(n, &path.child("between")),
        };
        let count = match f.get("count") {
            None => Some(CountRange {
                min: Some(1),
                max: None,
            }),
            Some(n) => self.count_range(n, &path.child("count")),
        };
        let (filter, between, count) = (filter?, between?, count?);
        ok.then_some(Expectation::Count {
            filter,
            between,
            count,
        })
    }

    pub(super) fn between(&mut self, node: &Node, path: &FieldPath) -> Option<(SimTime, SimTime)> {
        let items = match node.as_seq() {
            Some(items) if items.len() == 2 => items,
            Some(items) => {
                self.report(
                    path,
                    Some(node.mark),
                    format!(
                        "expected a window [from, to] of two durations, found {} items",
                        items.len()
                    ),
                );
                return None;
            }
            _ => {
                decode::type_error(
                    &mut self.d,
                    node,
                    path,
                    "a window [from, to] of two durations",
                );
                return None;
            }
        };
        let from = self.instant(&items[0], &path.index(0));
        let to = self.instant(&items[1], &path.index(1));
        let (from, to) = (from?, to?);
        if from > to {
            self.report(
                &path.index(1),
                Some(items[1].mark),
                format!("the window ends ({to}s) before it begins ({from}s)"),
            );
            return None;
        }
        Some((from, to))
    }

    pub(super) fn event_filter(
        &mut self,
        node: &Node,
        path: &FieldPath,
        form: &str,
        pod: Option<&ValidatedPod>,
    ) -> Option<EventFilter> {
        let known = if form == "events" {
            EVENTS_FIELDS
        } else {
            TIMELINE_FIELDS
        };
        let f = decode::fields(&mut self.d, node, path, known, &[])?;
        let mut filter = EventFilter::default();
        let mut ok = true;
        if form == "events" {
            filter.kind = "event".to_owned();
        } else {
            match f.get("kind") {
                None => {
                    self.report(
                        &path.child("kind"),
                        Some(f.mark),
                        "missing field: the timeline event kind to count (probe, result, kill, exit, start, …)",
                    );
                    ok = false;
                }
                Some(n) => match self.one_of(n, &path.child("kind"), &EventKind::NAMES) {
                    Some(k) => filter.kind = k,
                    None => ok = false,
                },
            }
        }
        for (key, node) in f.entries() {
            if node.is_null() || key.text == "kind" {
                continue;
            }
            let p = path.child(&key.text);
            // A field the counted kind of event lacks would match nothing.
            if form == "timeline"
                && !filter.kind.is_empty()
                && !timeline_fields(&filter.kind).contains(&key.text.as_str())
            {
                self.field_not_of_kind(key.mark, &p, &key.text, &filter.kind);
                ok = false;
                continue;
            }
            let good = match key.text.as_str() {
                "container" => self
                    .container_name(node, &p, pod)
                    .map(|c| filter.container = Some(c)),
                "probe" => self
                    .one_of(node, &p, PROBE_TYPES)
                    .map(|s| filter.probe = Some(s)),
                "outcome" => self
                    .one_of(node, &p, &["success", "failure", "warning", "error"])
                    .map(|s| filter.outcome = Some(s)),
                "result" => self
                    .one_of(node, &p, &["Success", "Failure", "Unknown"])
                    .map(|s| filter.result = Some(s)),
                "type" => self
                    .one_of(node, &p, &["Normal", "Warning"])
                    .map(|s| filter.event_type = Some(s)),
                "reason" => match reasons(&filter.kind) {
                    Some((set, what)) => self
                        .one_of_set(node, &p, set.iter().copied(), what)
                        .map(|s| filter.reason = Some(s)),
                    None => decode::string(&mut self.d, node, &p).map(|_| ()),
                },
                "cause" => self
                    .one_of_set(node, &p, CAUSES.iter().copied(), "kill cause")
                    .map(|s| filter.cause = Some(s)),
                "state" => self
                    .one_of(node, &p, &["running", "waiting", "terminated"])
                    .map(|s| filter.state = Some(s)),
                "phase" => self
                    .one_of(node, &p, &["Pending", "Running", "Succeeded", "Failed"])
                    .map(|s| filter.phase = Some(s)),
                "message" => {
                    decode::string(&mut self.d, node, &p).map(|s| filter.message = Some(s))
                }
                "exitCode" => decode::int32(&mut self.d, node, &p)
                    .map(|n| filter.exit_code = i32::try_from(n).ok()),
                _ => Some(()),
            };
            ok &= good.is_some();
        }
        ok.then_some(filter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expect::{CountRange, EventFilter, Expectation, StateChecks};
    use crate::scenario::tests::{errors, load, with_pod};

    #[test]
    fn expectations_are_read() {
        let s = load(&with_pod(
            "expect:\n\
             - at: 30m\n  container: kubia\n  restartCount: 9\n  ready: false\n  state: waiting\n  reason: CrashLoopBackOff\n  lastExitCode: 137\n\
             - at: 2m\n  phase: Running\n  podReady: true\n\
             - events: {reason: BackOff, message: kubia, type: Warning, container: kubia}\n  between: [0, 30m]\n  count: {min: 1, max: 3}\n\
             - timeline: {kind: probe, probe: liveness, outcome: failure}\n  count: 3\n\
             - events: {reason: Killing}\n",
        ))
        .unwrap();
        assert_eq!(s.expect.len(), 5);
        assert_eq!(s.expect[0].line, Some(16));
        assert_eq!(
            s.expect[0].expectation,
            Expectation::At {
                at: SimTime::from_secs(1800),
                container: Some("kubia".into()),
                checks: StateChecks {
                    restart_count: Some(CountRange::exactly(9)),
                    ready: Some(false),
                    state: Some("waiting".into()),
                    reason: Some("CrashLoopBackOff".into()),
                    last_exit_code: Some(137),
                    ..StateChecks::default()
                }
            }
        );
        assert_eq!(
            s.expect[2].expectation,
            Expectation::Count {
                filter: EventFilter {
                    kind: "event".into(),
                    reason: Some("BackOff".into()),
                    message: Some("kubia".into()),
                    event_type: Some("Warning".into()),
                    container: Some("kubia".into()),
                    ..EventFilter::default()
                },
                between: (SimTime::ZERO, SimTime::from_secs(1800)),
                count: CountRange {
                    min: Some(1),
                    max: Some(3)
                },
            }
        );
        assert_eq!(
            s.expect[3].expectation,
            Expectation::Count {
                filter: EventFilter {
                    kind: "probe".into(),
                    probe: Some("liveness".into()),
                    outcome: Some("failure".into()),
                    ..EventFilter::default()
                },
                between: (SimTime::ZERO, SimTime::MAX),
                count: CountRange::exactly(3),
            }
        );
        assert!(matches!(
            &s.expect[4].expectation,
            Expectation::Count {
                count: CountRange {
                    min: Some(1),
                    max: None
                },
                ..
            }
        ));
    }

    #[test]
    fn expectation_errors() {
        let e = errors(&with_pod(
            "expect:\n\
             - at: 1m\n  restartCount: 1\n\
             - at: 1m\n  container: kubai\n  state: crashing\n\
             - events: {reason: BackOff}\n  between: [5m, 1m]\n  count: {min: 3, max: 1}\n\
             - timeline: {probe: liveness}\n\
             - at: 1m\n  events: {reason: X}\n\
             - count: 1\n\
             - at: 1m\n",
        ));
        assert_eq!(
            e,
            [
                "17:3: expect[0].restartCount: a container check needs `container`",
                "19:14: expect[1].container: no container named \"kubai\" in the pod, did you mean \"kubia\"?",
                "20:10: expect[1].state: unknown value \"crashing\" (expected one of \"running\", \"waiting\", \"terminated\")",
                "22:17: expect[2].between[1]: the window ends (60s) before it begins (300s)",
                "23:24: expect[2].count.max: max 1 is below min 3",
                "24:13: expect[3].timeline.kind: missing field: the timeline event kind to count (probe, result, kill, exit, start, …)",
                "25:3: expect[4]: `at` and `events` cannot be combined: write separate expectations",
                "27:3: expect[5]: expected `at` (state checks), `events`, `timeline`, `readyWithin`, `neverNotReadyLongerThan`, `maxRestarts`, `firstKill` or `noKill`",
                "28:3: expect[6]: nothing to check: add restartCount, ready, started, state, reason, exitCode, lastExitCode, phase or podReady",
            ]
        );
    }
}
