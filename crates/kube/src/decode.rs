//! Reading typed values out of [`Node`]s, reporting every problem as a [`Diagnostic`].
//!
//! Shared by the manifest reader and the scenario reader: mapping fields with unknown-key
//! detection (and "did you mean" suggestions), strings, integers in a range, booleans, lists.

use crate::error::Diagnostic;
use crate::field_path::FieldPath;
use crate::yaml::{Key, Mark, Node, Value};

/// Collected problems.
pub type Diags = Vec<Diagnostic>;

/// Records a problem.
pub fn report(d: &mut Diags, path: &FieldPath, mark: Option<Mark>, message: impl Into<String>) {
    d.push(Diagnostic::new(path.clone(), mark, message));
}

/// The fields of one mapping, after unknown-key checks.
pub struct Fields<'a> {
    entries: &'a [(Key, Node)],
    /// Where the mapping starts.
    pub mark: Mark,
}

impl<'a> Fields<'a> {
    /// The value of `name`, unless absent or null (null means "not set", as in Kubernetes).
    pub fn get(&self, name: &str) -> Option<&'a Node> {
        self.entries
            .iter()
            .find(|(k, _)| k.text == name)
            .map(|(_, v)| v)
            .filter(|v| !v.is_null())
    }

    /// Every entry, in document order (null values included).
    pub fn entries(&self) -> &'a [(Key, Node)] {
        self.entries
    }
}

/// Reads a mapping at `path`. Keys outside `known` and `ignored` are reported as unknown fields
/// with a suggestion from both lists. A null node reads as an empty mapping.
pub fn fields<'a>(
    d: &mut Diags,
    node: &'a Node,
    path: &FieldPath,
    known: &[&str],
    ignored: &[&str],
) -> Option<Fields<'a>> {
    let entries: &'a [(Key, Node)] = match node.value() {
        Value::Map(entries) => entries,
        Value::Null => &[],
        _ => {
            type_error(d, node, path, "a mapping");
            return None;
        }
    };
    for (key, _) in entries {
        let name = key.text.as_str();
        if !known.contains(&name) && !ignored.contains(&name) {
            let candidates = known.iter().chain(ignored.iter()).copied();
            report(d, path, Some(key.mark), unknown_field(name, candidates));
        }
    }
    Some(Fields {
        entries,
        mark: node.mark,
    })
}

/// `unknown field "x", did you mean "y"?`
pub fn unknown_field<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> String {
    match suggest(name, candidates) {
        Some(s) => format!("unknown field {name:?}, did you mean {s:?}?"),
        None => format!("unknown field {name:?}"),
    }
}

/// The candidate closest to `name`, if it is close enough to be a likely typo: an edit
/// distance (ignoring case) of at most a third of the name's length, and at least 1. Failing
/// that, the one candidate that `name` (four characters or more) begins, ignoring case: the
/// field written short (`grace` for `gracePeriod`).
pub fn suggest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let lower = name.to_lowercase();
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &'c str)> = None;
    let (mut prefixed, mut starts) = (None, 0);
    for c in candidates {
        let c_lower = c.to_lowercase();
        let dist = edit_distance(&lower, &c_lower);
        if dist <= limit && best.is_none_or(|(b, _)| dist < b) {
            best = Some((dist, c));
        }
        if lower.chars().count() >= 4 && c_lower.starts_with(&lower) && c_lower != lower {
            prefixed = Some(c);
            starts += 1;
        }
    }
    // Two candidates with the same start make the short name ambiguous.
    best.map(|(_, c)| c)
        .or(if starts == 1 { prefixed } else { None })
}

/// Edit distance over characters, counting a swap of two neighbours as one edit (optimal
/// string alignment), so `kubai` is one edit from `kubia`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// `expected <what>, found <node>`.
pub fn type_error(d: &mut Diags, node: &Node, path: &FieldPath, what: &str) {
    report(
        d,
        path,
        Some(node.mark),
        format!("expected {what}, found {}", node.describe()),
    );
}

/// A string.
pub fn string(d: &mut Diags, node: &Node, path: &FieldPath) -> Option<String> {
    match node.as_str() {
        Some(s) => Some(s.to_owned()),
        None => {
            type_error(d, node, path, "a string");
            None
        }
    }
}

/// An integer in `min..=max`; `what` names the type in errors (`a 32-bit integer`).
pub fn integer(
    d: &mut Diags,
    node: &Node,
    path: &FieldPath,
    min: i128,
    max: i128,
    what: &str,
) -> Option<i128> {
    match node.value() {
        Value::Int(n) if (min..=max).contains(&n) => Some(n),
        Value::Int(_) => {
            type_error(d, node, path, what);
            None
        }
        _ => {
            type_error(d, node, path, "an integer");
            None
        }
    }
}

/// A 32-bit signed integer (Kubernetes `int32`).
pub fn int32(d: &mut Diags, node: &Node, path: &FieldPath) -> Option<i64> {
    integer(
        d,
        node,
        path,
        i128::from(i32::MIN),
        i128::from(i32::MAX),
        "a 32-bit integer",
    )
    .and_then(|n| i64::try_from(n).ok())
}

/// A 64-bit signed integer (Kubernetes `int64`).
pub fn int64(d: &mut Diags, node: &Node, path: &FieldPath) -> Option<i64> {
    integer(
        d,
        node,
        path,
        i128::from(i64::MIN),
        i128::from(i64::MAX),
        "a 64-bit integer",
    )
    .and_then(|n| i64::try_from(n).ok())
}

/// A boolean.
pub fn boolean(d: &mut Diags, node: &Node, path: &FieldPath) -> Option<bool> {
    match node.as_bool() {
        Some(b) => Some(b),
        None => {
            type_error(d, node, path, "a boolean (true or false)");
            None
        }
    }
}

/// A sequence (null reads as empty).
pub fn list<'a>(d: &mut Diags, node: &'a Node, path: &FieldPath) -> Option<&'a [Node]> {
    match node.value() {
        Value::Seq(items) => Some(items),
        Value::Null => Some(&[]),
        _ => {
            type_error(d, node, path, "a list");
            None
        }
    }
}

/// Quotes a string the way Go's `%q` does for the text the apiserver prints.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml;

    #[test]
    fn a_short_form_suggests_the_one_field_it_begins() {
        assert_eq!(suggest("grace", ["at", "gracePeriod"]), Some("gracePeriod"));
        assert_eq!(
            suggest("initialDelay", ["initialDelaySeconds", "periodSeconds"]),
            Some("initialDelaySeconds")
        );
        // Ambiguous, or too short to mean anything: no suggestion.
        assert_eq!(suggest("peri", ["periodSeconds", "periodMinutes"]), None);
        assert_eq!(suggest("gr", ["gracePeriod"]), None);
    }

    #[test]
    fn suggestions_catch_typos_but_not_strangers() {
        let known = ["initialDelaySeconds", "periodSeconds", "timeoutSeconds"];
        assert_eq!(
            suggest("initialDelaySecond", known),
            Some("initialDelaySeconds")
        );
        assert_eq!(suggest("PeriodSeconds", known), Some("periodSeconds"));
        assert_eq!(suggest("resources", known), None);
        assert_eq!(edit_distance("kubai", "kubia"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            suggest("livenesProbe", ["livenessProbe", "readinessProbe"]),
            Some("livenessProbe")
        );
    }

    #[test]
    fn unknown_keys_are_reported_at_the_key() {
        let doc = yaml::parse("a: 1\nbee: 2\nignored: 3\n").unwrap();
        let mut d = Diags::new();
        let f = fields(
            &mut d,
            &doc,
            &FieldPath::new("x"),
            &["a", "be"],
            &["ignored"],
        )
        .unwrap();
        assert_eq!(f.get("a").and_then(|n| n.as_int()), Some(1));
        assert_eq!(d.len(), 1);
        assert_eq!(
            d[0].to_string(),
            "x: unknown field \"bee\", did you mean \"be\"?"
        );
        assert_eq!(d[0].mark, Some(Mark::new(2, 1)));
    }

    #[test]
    fn integers_are_range_checked() {
        let doc = yaml::parse("a: 3000000000\nb: \"10\"\nc: 1.5\n").unwrap();
        let mut d = Diags::new();
        let p = FieldPath::new("p");
        assert_eq!(int32(&mut d, doc.get("a").unwrap(), &p), None);
        assert_eq!(int32(&mut d, doc.get("b").unwrap(), &p), None);
        assert_eq!(int32(&mut d, doc.get("c").unwrap(), &p), None);
        let messages: Vec<_> = d.iter().map(|x| x.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "expected a 32-bit integer, found 3000000000",
                "expected an integer, found the string \"10\"",
                "expected an integer, found 1.5",
            ]
        );
    }

    #[test]
    fn go_quoting_escapes_like_go() {
        assert_eq!(go_quote("FTP"), "\"FTP\"");
        assert_eq!(go_quote("a\"b\\c\u{1}"), "\"a\\\"b\\\\c\\x01\"");
    }
}
