//! The closed sets an expectation's filter values come from (issue: expectations that cannot
//! pass by mistake): a value outside its set, or a field the counted kind of event does not
//! have, is an error when the file is read, never a filter that silently matches nothing.

use probesim_core::{ExitReason, KillCause, KillReason, KubeEvent, WaitingReason};

use probesim_kube::decode;
use probesim_kube::field_path::FieldPath;
use probesim_kube::yaml::{Mark, Node};

use super::Loader;

/// The fields a `timeline:` filter may set for each kind of event (besides `kind`): what the
/// event has in the JSON timeline (docs/cli.md#--format-json).
pub(super) fn timeline_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "probe" => &["container", "probe", "outcome"],
        "result" => &["container", "probe", "result"],
        "kill" => &["container", "reason", "cause"],
        "exit" => &["container", "reason", "exitCode"],
        "event" => &["container", "type", "reason", "message"],
        "status" => &["container", "state"],
        "phase" => &["phase"],
        "start" | "backoff" | "ready" | "started" => &["container"],
        _ => &[],
    }
}

/// The values a `reason` takes on events of `kind` (`None`: the kind has no reason), and what
/// to call them in a message.
pub(super) fn reasons(kind: &str) -> Option<(&'static [&'static str], &'static str)> {
    match kind {
        "kill" => Some((&KillReason::NAMES, "kill reason")),
        "exit" => Some((&ExitReason::NAMES, "exit reason")),
        "event" => Some((&KubeEvent::REASONS, "Event reason")),
        _ => None,
    }
}

/// The reasons a container's state shows (`at` expectations): a waiting state's, then a
/// terminated state's.
pub(super) fn state_reasons() -> impl Iterator<Item = &'static str> + Clone {
    WaitingReason::NAMES.into_iter().chain(ExitReason::NAMES)
}

/// Kill causes.
pub(super) const CAUSES: &[&str] = &KillCause::NAMES;

/// The likely value meant by `value`: a close spelling, else the one value that begins with it
/// or that it begins with, ignoring case (`Liveness` for `LivenessProbe`).
pub(super) fn closest<'a>(
    value: &str,
    allowed: impl Iterator<Item = &'a str> + Clone,
) -> Option<&'a str> {
    if let Some(s) = decode::suggest(value, allowed.clone()) {
        return Some(s);
    }
    let lower = value.to_lowercase();
    if lower.is_empty() {
        return None;
    }
    let mut prefixed = allowed.filter(|a| {
        let a = a.to_lowercase();
        a.starts_with(&lower) || lower.starts_with(&a)
    });
    match (prefixed.next(), prefixed.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

impl Loader<'_> {
    /// A string from a closed set: anything else is an error naming the set (`what`, e.g.
    /// `kill reason`) with the likely value meant, or every value when none is close.
    pub(super) fn one_of_set<'a>(
        &mut self,
        node: &Node,
        path: &FieldPath,
        allowed: impl Iterator<Item = &'a str> + Clone,
        what: &str,
    ) -> Option<String> {
        let s = decode::string(&mut self.d, node, path)?;
        if allowed.clone().any(|a| a == s) {
            return Some(s);
        }
        let hint = match closest(&s, allowed.clone()) {
            Some(x) => format!(", did you mean {x:?}?"),
            None => {
                let list: Vec<String> = allowed.map(|a| format!("{a:?}")).collect();
                format!(" (expected one of {})", list.join(", "))
            }
        };
        self.report(path, Some(node.mark), format!("unknown {what} {s:?}{hint}"));
        None
    }

    /// Reports a `timeline:` filter field that events of `kind` do not have.
    pub(super) fn field_not_of_kind(
        &mut self,
        mark: Mark,
        path: &FieldPath,
        field: &str,
        kind: &str,
    ) {
        let has = timeline_fields(kind);
        let what = if has.is_empty() {
            format!("`{kind}` events have no field to filter on but `kind`")
        } else {
            format!("`{kind}` events have {}", has.join(", "))
        };
        self.report(
            path,
            Some(mark),
            format!(
                "`{field}` is not a field of `{kind}` events, so it would match nothing ({what})"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_finds_typos_and_prefixes() {
        let kill = KillReason::NAMES.into_iter();
        assert_eq!(closest("Liveness", kill.clone()), Some("LivenessProbe"));
        assert_eq!(closest("StartupPorbe", kill.clone()), Some("StartupProbe"));
        assert_eq!(closest("Evicted", kill), None);
        // Two values begin with `Pull`: no guess.
        assert_eq!(closest("Pull", KubeEvent::REASONS.into_iter()), None);
        assert_eq!(closest("", KubeEvent::REASONS.into_iter()), None);
    }

    #[test]
    fn every_kind_is_known() {
        for kind in probesim_core::EventKind::NAMES {
            for field in timeline_fields(kind) {
                assert!(
                    super::super::expectations::TIMELINE_FIELDS.contains(field),
                    "{kind}: {field}"
                );
            }
        }
        assert_eq!(timeline_fields("kill"), ["container", "reason", "cause"]);
        assert!(reasons("probe").is_none());
    }
}
