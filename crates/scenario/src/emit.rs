//! Writing a [`Node`] tree back as block-style YAML, for `probesim run --emit-scenario`.
//!
//! The output reads back to the same tree (keys, values and their core-schema types), not to
//! the same text: comments, anchors and the original layout are not kept. Strings are written
//! plain when that is unambiguous, double-quoted otherwise (a string that reads as a number, a
//! boolean or null, or that holds YAML indicators, is quoted).

use probesim_kube::yaml::{resolve_plain, Key, Node, NodeKind, Style, Value};

/// Writes the entries of a mapping at `indent` spaces, one per line.
pub(crate) fn map_entries(out: &mut String, entries: &[(Key, Node)], indent: usize) {
    for (key, value) in entries {
        pad(out, indent);
        out.push_str(&string(&key.text));
        out.push(':');
        node_value(out, value, indent + 2);
    }
}

/// Writes `node` as the value that follows a `key:` or `-` already written.
pub(crate) fn node_value(out: &mut String, node: &Node, indent: usize) {
    match &node.kind {
        NodeKind::Map(entries) if !entries.is_empty() => {
            out.push('\n');
            map_entries(out, entries, indent);
        }
        NodeKind::Seq(items) if !items.is_empty() => {
            out.push('\n');
            seq_items(out, items, indent);
        }
        NodeKind::Map(_) => out.push_str(" {}\n"),
        NodeKind::Seq(_) => out.push_str(" []\n"),
        NodeKind::Null | NodeKind::Scalar { .. } => {
            out.push(' ');
            out.push_str(&scalar(node));
            out.push('\n');
        }
    }
}

fn seq_items(out: &mut String, items: &[Node], indent: usize) {
    for item in items {
        pad(out, indent);
        out.push('-');
        match &item.kind {
            NodeKind::Map(entries) if !entries.is_empty() => {
                // `- key: value`, the other entries aligned under the first.
                let (key, value) = &entries[0];
                out.push(' ');
                out.push_str(&string(&key.text));
                out.push(':');
                node_value(out, value, indent + 4);
                map_entries(out, &entries[1..], indent + 2);
            }
            _ => node_value(out, item, indent + 2),
        }
    }
}

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// A scalar: numbers, booleans and null written plain keep their type; strings are written so
/// that they read back as the same strings.
fn scalar(node: &Node) -> String {
    match &node.kind {
        NodeKind::Scalar {
            text,
            style: Style::Plain,
        } if !matches!(resolve_plain(text), Value::Str(_)) => text.clone(),
        NodeKind::Scalar { text, .. } => string(text),
        NodeKind::Null | NodeKind::Map(_) | NodeKind::Seq(_) => "null".to_owned(),
    }
}

/// A string, plain when that reads back as the same string in YAML 1.2 (and 1.1, for the
/// sake of other tools), double-quoted otherwise.
#[must_use]
pub fn string(s: &str) -> String {
    if is_plain_safe(s) {
        s.to_owned()
    } else {
        // JSON's escapes are YAML's too; the unprintable ones come out as `\uXXXX`.
        let mut out = String::with_capacity(s.len() + 2);
        probesim_kube::printable::json_string(&mut out, s);
        out
    }
}

fn is_plain_safe(s: &str) -> bool {
    const YAML_1_1_WORDS: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off",
        "OFF",
    ];
    let Some(first) = s.chars().next() else {
        return false;
    };
    let last = s.chars().next_back().unwrap_or(first);
    // YAML 1.1 reads more plain scalars as numbers (`0b101`, `1_000`, `0x1F`, `1:30`) or
    // timestamps (`2024-01-01`): such strings are quoted too.
    let unsigned = s.trim_start_matches(['+', '-']);
    let numberish = unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && unsigned.chars().all(|c| {
            c.is_ascii_hexdigit()
                || matches!(
                    c,
                    '_' | '.' | ':' | 'x' | 'X' | 'o' | 'O' | 'b' | 'B' | '+' | '-'
                )
        });
    let timestamp =
        s.len() >= 8 && s.as_bytes()[..4].iter().all(u8::is_ascii_digit) && s.as_bytes()[4] == b'-';
    matches!(resolve_plain(s), Value::Str(_))
        && !numberish
        && !timestamp
        && !YAML_1_1_WORDS.contains(&s)
        && !first.is_whitespace()
        && !last.is_whitespace()
        && (first.is_alphanumeric() || matches!(first, '/' | '.' | '_' | '$' | '(' | '~'))
        && s.chars().all(|c| {
            c.is_alphanumeric()
                || matches!(
                    c,
                    ' ' | '-'
                        | '_'
                        | '.'
                        | '/'
                        | '+'
                        | '='
                        | '('
                        | ')'
                        | '$'
                        | '~'
                        | ','
                        | ';'
                        | '<'
                        | '>'
                        | '^'
                        | '@'
                        | '&'
                        | '*'
                        | '!'
                        | '%'
                        | '?'
                )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use probesim_kube::yaml;

    fn round_trip(text: &str) -> String {
        let node = yaml::parse(text).unwrap();
        let mut out = String::new();
        map_entries(&mut out, node.as_map().unwrap(), 0);
        let again = yaml::parse(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
        assert_eq!(strip(&again), strip(&node), "{out}");
        out
    }

    /// The tree without positions.
    fn strip(node: &Node) -> String {
        match node.value() {
            Value::Map(entries) => {
                let inner: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{}={}", k.text, strip(v)))
                    .collect();
                format!("{{{}}}", inner.join(","))
            }
            Value::Seq(items) => {
                let inner: Vec<String> = items.iter().map(strip).collect();
                format!("[{}]", inner.join(","))
            }
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn trees_read_back_the_same() {
        let out = round_trip(
            "a: {b: [1, \"2\", true, 'true', null, ~, 1.5, 0x1f, -3]}\nc:\n- name: x\n  ports: [{containerPort: 80}]\n- [1, [2, 3]]\n- {}\n- []\nd: \"line\\nbreak\"\ne: |\n  block\n  text\nf: 'yes'\ng: \"a: b # c\"\nh: ''\n\"i j\": -x\nk: http :8080/=ok\n",
        );
        assert!(out.starts_with("a:\n  b:\n    - 1\n    - \"2\"\n"), "{out}");
        assert!(
            out.contains("c:\n  - name: x\n    ports:\n      - containerPort: 80\n"),
            "{out}"
        );
        assert!(out.contains("f: \"yes\"\n"), "{out}");
    }

    #[test]
    fn strings_are_quoted_only_when_needed() {
        assert_eq!(string("luksa/kubia:1.0"), "\"luksa/kubia:1.0\"");
        assert_eq!(string("5x200 then 500"), "5x200 then 500");
        assert_eq!(string("10"), "\"10\"");
        assert_eq!(string("http :8080/"), "\"http :8080/\"");
        assert_eq!(string("web"), "web");
        assert_eq!(string(""), "\"\"");
        // What YAML 1.1 (kubectl's reader) would take for a number or a timestamp.
        for s in ["0b101", "1_000", "0x1F", "1:30", "2024-01-01", "1.2.3"] {
            assert_eq!(string(s), format!("{s:?}"), "{s}");
        }
        assert_eq!(string("3x ok"), "3x ok");
    }
}
