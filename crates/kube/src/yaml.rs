//! A small YAML document model that remembers where every node and key came from.
//!
//! Built on the events of `saphyr-parser`. JSON is YAML flow syntax, so JSON input goes through
//! the same parser. Plain scalars are typed by the YAML 1.2 core schema (`10` is an integer,
//! `true` a boolean, `null`, `~` and nothing at all are null); quoted and block scalars are
//! always strings. Duplicate keys are errors. Merge keys (`<<: *defaults`, YAML 1.1, which
//! kubectl's reader applies) are applied. Aliases are expanded, with hard limits on the
//! size of the input, the number of nodes produced and the nesting depth, so hostile input
//! ("billion laughs", deeply nested brackets, a gigabyte of text) fails quickly instead of
//! exhausting memory or the stack.
//!
//! [`parse`] reads a file that holds one document (a scenario). [`Stream`] reads a stream of
//! documents (a manifest file: `---`-separated documents, `kind: List`) one document at a
//! time, handing out each entry of a document's top-level `items` list as soon as it is
//! complete, so a caller that keeps only what it needs reads any number of documents with
//! memory bounded by the largest one.

mod build;
pub mod locate;
mod stream;
mod surrogates;

use core::fmt;

pub use self::build::{parse, parse_in};
pub use self::stream::{first_document_keys, Stream, Unit};

/// The most nodes one document may produce, aliases expanded.
pub const MAX_NODES: usize = 100_000;

/// The deepest nesting of mappings and sequences one document may have, aliases expanded.
pub const MAX_DEPTH: usize = 128;

/// The largest input accepted, in bytes (64 MiB): far beyond any real manifest, small enough
/// that reading it cannot exhaust memory.
pub const MAX_INPUT_BYTES: usize = 64 << 20;

/// Which text a [`Mark`] points into: the main input (a scenario or a manifest file) or
/// another one that a load brought in (a manifest a scenario references, a command-line
/// argument). The loader that assigns the ids also names the texts
/// ([`crate::error::Source`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceId(pub u32);

impl SourceId {
    /// The main input.
    pub const MAIN: SourceId = SourceId(0);
}

/// A position in a source text: 1-based line and 1-based column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mark {
    /// The text the position is in (first, so that marks sort by text, then position).
    pub source: SourceId,
    /// Line, counted from 1.
    pub line: usize,
    /// Column in characters, counted from 1.
    pub col: usize,
}

impl Mark {
    /// A mark at `line`:`col` (both 1-based) of the main input.
    #[must_use]
    pub const fn new(line: usize, col: usize) -> Mark {
        Mark {
            source: SourceId::MAIN,
            line,
            col,
        }
    }

    /// The same position, in another source.
    #[must_use]
    pub const fn in_source(self, source: SourceId) -> Mark {
        Mark {
            source,
            line: self.line,
            col: self.col,
        }
    }
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// How a scalar was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Without quotes: typed by the core schema.
    Plain,
    /// In single or double quotes: always a string.
    Quoted,
    /// A literal (`|`) or folded (`>`) block: always a string.
    Block,
}

/// A mapping key, with its own position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// The key's text.
    pub text: String,
    /// Where the key starts.
    pub mark: Mark,
}

/// What a node holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A mapping, in document order (keys are unique).
    Map(Vec<(Key, Node)>),
    /// A sequence.
    Seq(Vec<Node>),
    /// A scalar that is not null.
    Scalar {
        /// The scalar's text (escapes and folding already applied).
        text: String,
        /// How it was written.
        style: Style,
    },
    /// `null`, `~`, or no value at all.
    Null,
}

/// One node of the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The content.
    pub kind: NodeKind,
    /// Where the node starts.
    pub mark: Mark,
}

/// A scalar or collection seen through the core schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// Null.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer (decimal, `0x…` or `0o…`), saturated to the `i128` range.
    Int(i128),
    /// A floating-point number, kept as text (nothing here computes with floats).
    Float(&'a str),
    /// A string.
    Str(&'a str),
    /// A mapping.
    Map(&'a [(Key, Node)]),
    /// A sequence.
    Seq(&'a [Node]),
}

impl Node {
    /// The node seen through the core schema.
    #[must_use]
    pub fn value(&self) -> Value<'_> {
        match &self.kind {
            NodeKind::Null => Value::Null,
            NodeKind::Map(entries) => Value::Map(entries),
            NodeKind::Seq(items) => Value::Seq(items),
            NodeKind::Scalar { text, style } => match style {
                Style::Quoted | Style::Block => Value::Str(text),
                Style::Plain => resolve_plain(text),
            },
        }
    }

    /// Is this node null?
    #[must_use]
    pub fn is_null(&self) -> bool {
        matches!(self.kind, NodeKind::Null)
    }

    /// The entries of a mapping.
    #[must_use]
    pub fn as_map(&self) -> Option<&[(Key, Node)]> {
        match &self.kind {
            NodeKind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items of a sequence.
    #[must_use]
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The text of a string: a quoted or block scalar, or a plain scalar that the core schema
    /// does not read as null, a boolean or a number.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self.value() {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A boolean (plain `true`/`false` in any of the core schema's spellings).
    #[must_use]
    pub fn as_bool(&self) -> Option<bool> {
        match self.value() {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// An integer, saturated to the `i128` range.
    #[must_use]
    pub fn as_int(&self) -> Option<i128> {
        match self.value() {
            Value::Int(n) => Some(n),
            _ => None,
        }
    }

    /// The text of any scalar, whatever its type (`1.20` stays `1.20`).
    #[must_use]
    pub fn scalar_text(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The scalar's style, if this is a scalar.
    #[must_use]
    pub fn style(&self) -> Option<Style> {
        match &self.kind {
            NodeKind::Scalar { style, .. } => Some(*style),
            _ => None,
        }
    }

    /// The value of `key` in a mapping.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.text == key)
            .map(|(_, v)| v)
    }

    /// Describes the node for a type error: `a mapping`, `the string "10"`, `1.5`, `true`.
    #[must_use]
    pub fn describe(&self) -> String {
        match self.value() {
            Value::Null => "null".to_owned(),
            Value::Map(_) => "a mapping".to_owned(),
            Value::Seq(_) => "a sequence".to_owned(),
            Value::Bool(b) => b.to_string(),
            Value::Int(_) | Value::Float(_) => self.scalar_text().unwrap_or_default().to_owned(),
            Value::Str(s) => {
                if s.chars().count() > 40 {
                    let short: String = s.chars().take(40).collect();
                    format!("the string {:?}", format!("{short}…"))
                } else {
                    format!("the string {s:?}")
                }
            }
        }
    }
}

/// Types a plain scalar by the YAML 1.2 core schema.
pub fn resolve_plain(text: &str) -> Value<'_> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => return Value::Float(text),
        _ => {}
    }
    if let Some(n) = parse_core_int(text) {
        return Value::Int(n);
    }
    if is_core_float(text) {
        return Value::Float(text);
    }
    Value::Str(text)
}

/// `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`, saturating.
fn parse_core_int(text: &str) -> Option<i128> {
    let (radix, digits, negative) = if let Some(d) = text.strip_prefix("0x") {
        (16, d, false)
    } else if let Some(d) = text.strip_prefix("0o") {
        (8, d, false)
    } else if let Some(d) = text.strip_prefix('-') {
        (10, d, true)
    } else {
        (10, text.strip_prefix('+').unwrap_or(text), false)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let mut n: i128 = 0;
    for c in digits.chars() {
        let d = i128::from(c.to_digit(radix).unwrap_or(0));
        n = n.saturating_mul(i128::from(radix)).saturating_add(d);
    }
    Some(if negative { n.saturating_neg() } else { n })
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
fn is_core_float(text: &str) -> bool {
    let t = text
        .strip_prefix('-')
        .or_else(|| text.strip_prefix('+'))
        .unwrap_or(text);
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match frac {
        Some(f) => digits(int) && digits(f) && !(int.is_empty() && f.is_empty()),
        None => !int.is_empty() && digits(int),
    };
    let exponent_ok = match exponent {
        None => true,
        Some(e) => {
            let e = e
                .strip_prefix('-')
                .or_else(|| e.strip_prefix('+'))
                .unwrap_or(e);
            !e.is_empty() && digits(e)
        }
    };
    mantissa_ok && exponent_ok
}

/// Why a document could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// Where, if known.
    pub mark: Option<Mark>,
    /// What went wrong (lower case, no trailing period).
    pub message: String,
}

impl YamlError {
    fn at(mark: Mark, message: impl Into<String>) -> YamlError {
        YamlError {
            mark: Some(mark),
            message: message.into(),
        }
    }
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mark {
            Some(m) => write!(f, "{m}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for YamlError {}

#[cfg(test)]
mod surrogate_tests;
#[cfg(test)]
mod tests;
