//! A small JSON value that keeps its keys in the order written (the reports put `probesim`
//! and names first), printed with two-space indentation. Strings are escaped by
//! [`json_string`](probesim_kube::printable::json_string): as serde_json escapes them, and
//! the characters that drive a terminal too.

use core::fmt::Write as _;

use probesim_core::SimDuration;

/// A JSON value with ordered keys.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, already rendered.
    Num(String),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<J>),
    /// An object, keys in order.
    Obj(Vec<(&'static str, J)>),
}

impl J {
    /// Seconds with millisecond precision (`80`, `79.999`).
    pub fn secs(d: SimDuration) -> J {
        J::Num(d.to_string())
    }

    /// An optional duration: `null` for `None`.
    pub fn opt_secs(d: Option<SimDuration>) -> J {
        d.map_or(J::Null, J::secs)
    }

    /// A string.
    pub fn str(s: impl Into<String>) -> J {
        J::Str(s.into())
    }

    /// An integer.
    pub fn int(n: impl Into<u64>) -> J {
        J::Num(n.into().to_string())
    }

    /// Renders the value, pretty-printed, with a final newline.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out.push('\n');
        out
    }

    /// Renders an object as YAML block mappings, indented by `indent` spaces (strings quoted
    /// when a YAML reader could take them for something else).
    pub fn yaml(&self, indent: usize) -> String {
        let mut out = String::new();
        self.write_yaml(&mut out, indent);
        out
    }

    fn write_yaml(&self, out: &mut String, indent: usize) {
        let pad = " ".repeat(indent);
        match self {
            J::Obj(fields) => {
                for (k, v) in fields {
                    match v {
                        J::Obj(f) if !f.is_empty() => {
                            let _ = writeln!(out, "{pad}{k}:");
                            v.write_yaml(out, indent + 2);
                        }
                        J::Arr(items) if !items.is_empty() => {
                            let _ = writeln!(out, "{pad}{k}:");
                            for item in items {
                                match item {
                                    J::Obj(f) if !f.is_empty() => {
                                        let inner = item.yaml(indent + 2);
                                        let _ = write!(out, "{pad}- {}", &inner[indent + 2..]);
                                    }
                                    other => {
                                        let _ = writeln!(out, "{pad}- {}", other.scalar());
                                    }
                                }
                            }
                        }
                        other => {
                            let _ = writeln!(out, "{pad}{k}: {}", other.scalar());
                        }
                    }
                }
            }
            other => {
                let _ = writeln!(out, "{pad}{}", other.scalar());
            }
        }
    }

    fn scalar(&self) -> String {
        match self {
            J::Null => "null".to_owned(),
            J::Bool(b) => b.to_string(),
            J::Num(n) => n.clone(),
            J::Str(s) => {
                let plain = !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"/_.-".contains(&b))
                    && s.bytes().any(|b| b.is_ascii_alphabetic())
                    && !matches!(
                        s.to_ascii_lowercase().as_str(),
                        "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
                    );
                if plain {
                    s.clone()
                } else {
                    json_string(s)
                }
            }
            J::Arr(_) => "[]".to_owned(),
            J::Obj(_) => "{}".to_owned(),
        }
    }

    fn write(&self, out: &mut String, depth: usize) {
        let pad = |out: &mut String, d: usize| {
            for _ in 0..d {
                out.push_str("  ");
            }
        };
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            J::Num(n) => out.push_str(n),
            J::Str(s) => out.push_str(&json_string(s)),
            J::Arr(items) if items.is_empty() => out.push_str("[]"),
            J::Arr(items) if items.iter().all(|i| matches!(i, J::Num(_))) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out, depth);
                }
                out.push(']');
            }
            J::Arr(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    pad(out, depth + 1);
                    item.write(out, depth + 1);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                pad(out, depth);
                out.push(']');
            }
            J::Obj(fields) if fields.is_empty() => out.push_str("{}"),
            J::Obj(fields) => {
                out.push_str("{\n");
                for (i, (k, v)) in fields.iter().enumerate() {
                    pad(out, depth + 1);
                    let _ = write!(out, "\"{k}\": ");
                    v.write(out, depth + 1);
                    out.push_str(if i + 1 < fields.len() { ",\n" } else { "\n" });
                }
                pad(out, depth);
                out.push('}');
            }
        }
    }
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    probesim_kube::printable::json_string(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_order_and_output_parses() {
        let v = J::Obj(vec![
            ("probesim", J::int(1u8)),
            ("name", J::str("a \"quoted\" name")),
            ("t", J::secs(SimDuration::from_millis(79_999))),
            ("list", J::Arr(vec![J::int(2u8), J::int(13u8)])),
            ("none", J::Null),
            ("empty", J::Obj(vec![])),
        ]);
        let text = v.render();
        assert!(
            text.starts_with(
                "{\n  \"probesim\": 1,\n  \"name\": \"a \\\"quoted\\\" name\",\n  \"t\": 79.999,"
            ),
            "{text}"
        );
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["list"][1], 13);
        assert!(parsed["none"].is_null());
    }

    #[test]
    fn yaml_quotes_what_a_reader_would_misread() {
        let v = J::Obj(vec![
            (
                "httpGet",
                J::Obj(vec![("path", J::str("/healthz")), ("port", J::str("8080"))]),
            ),
            (
                "exec",
                J::Obj(vec![("command", J::Arr(vec![J::str("cat"), J::str("on")]))]),
            ),
            ("periodSeconds", J::int(5u8)),
        ]);
        assert_eq!(
            v.yaml(2),
            "  httpGet:\n    path: /healthz\n    port: \"8080\"\n  exec:\n    command:\n    - cat\n    - \"on\"\n  periodSeconds: 5\n"
        );
    }
}
