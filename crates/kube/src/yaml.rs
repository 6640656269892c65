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

use core::fmt;
use std::borrow::Cow;
use std::collections::BTreeMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, StrInput, Tag};

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

    fn from_span(span: &Span, source: SourceId) -> Mark {
        Mark {
            source,
            line: span.start.line(),
            col: span.start.col() + 1,
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

/// A collection being built.
enum Frame {
    Map {
        mark: Mark,
        anchor: usize,
        entries: Vec<(Key, Node)>,
        key: Option<Key>,
        seen: BTreeMap<String, Mark>,
        count: usize,
        height: usize,
    },
    Seq {
        mark: Mark,
        anchor: usize,
        items: Vec<Node>,
        count: usize,
        height: usize,
        /// The document's top-level `items` list in stream mode: complete entries are handed
        /// out instead of kept; `len` counts them.
        stream: bool,
        len: usize,
    },
}

/// A finished node with its size (nodes in it) and height (nesting levels in it).
struct Built {
    node: Node,
    count: usize,
    height: usize,
}

struct Builder {
    /// Hand out the entries of a top-level `items` list one by one ([`Stream`]).
    stream_items: bool,
    stack: Vec<Frame>,
    anchors: BTreeMap<usize, Built>,
    /// Nodes produced in the current unit (the document, or one streamed `items` entry).
    produced: usize,
    /// Nodes copied to remember anchored nodes, in the current document.
    copied: usize,
    /// The highest anchor id of earlier documents (anchors do not reach across documents).
    earlier_anchors: usize,
    root: Option<Node>,
    /// A streamed `items` entry that is complete: its index and the node.
    item: Option<(usize, Node)>,
}

impl Builder {
    fn new(stream_items: bool) -> Builder {
        Builder {
            stream_items,
            stack: Vec::new(),
            anchors: BTreeMap::new(),
            produced: 0,
            copied: 0,
            earlier_anchors: 0,
            root: None,
            item: None,
        }
    }

    /// Forgets the previous document (its anchors included).
    fn start_document(&mut self) {
        if let Some(last) = self.anchors.keys().next_back() {
            self.earlier_anchors = self.earlier_anchors.max(*last);
        }
        self.stack.clear();
        self.anchors.clear();
        self.produced = 0;
        self.copied = 0;
        self.root = None;
        self.item = None;
    }

    fn produce(&mut self, n: usize, mark: Mark) -> Result<(), YamlError> {
        self.produced = self.produced.saturating_add(n);
        if self.produced > MAX_NODES {
            return Err(YamlError::at(
                mark,
                format!("document too large: more than {MAX_NODES} nodes after expanding aliases"),
            ));
        }
        Ok(())
    }

    fn check_depth(&self, extra: usize, mark: Mark) -> Result<(), YamlError> {
        if self.stack.len().saturating_add(extra) > MAX_DEPTH {
            return Err(YamlError::at(
                mark,
                format!("document nested too deeply: more than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    fn start(&mut self, frame: Frame, mark: Mark) -> Result<(), YamlError> {
        self.produce(1, mark)?;
        self.check_depth(1, mark)?;
        self.stack.push(frame);
        Ok(())
    }

    /// Whether a sequence starting now is the document's top-level `items` list, to be streamed.
    fn starts_item_list(&self) -> bool {
        self.stream_items
            && self.stack.len() == 1
            && matches!(&self.stack[0], Frame::Map { key: Some(k), .. } if k.text == "items")
    }

    fn end(&mut self) -> Result<(), YamlError> {
        let built = match self.stack.pop() {
            Some(Frame::Map {
                mark,
                anchor,
                entries,
                count,
                height,
                ..
            }) => (
                anchor,
                Built {
                    node: Node {
                        kind: NodeKind::Map(merge_keys(entries)?),
                        mark,
                    },
                    count: count + 1,
                    height: height + 1,
                },
            ),
            Some(Frame::Seq {
                mark,
                anchor,
                items,
                count,
                height,
                ..
            }) => (
                anchor,
                Built {
                    node: Node {
                        kind: NodeKind::Seq(items),
                        mark,
                    },
                    count: count + 1,
                    height: height + 1,
                },
            ),
            None => return Ok(()),
        };
        self.finish(built.0, built.1)
    }

    /// Places a finished node into its parent (or as the root), remembering it under its anchor.
    fn finish(&mut self, anchor: usize, built: Built) -> Result<(), YamlError> {
        if anchor != 0 {
            // Remembering an anchored node copies it: a chain of nested anchors would copy the
            // same nodes again and again, so the copies have a budget of their own.
            self.copied = self.copied.saturating_add(built.count);
            if self.copied > MAX_NODES {
                return Err(YamlError::at(
                    built.node.mark,
                    format!("document too large: anchors hold more than {MAX_NODES} nodes"),
                ));
            }
            let copy = Built {
                node: built.node.clone(),
                count: built.count,
                height: built.height,
            };
            self.anchors.insert(anchor, copy);
        }
        let Built {
            node,
            count,
            height,
        } = built;
        match self.stack.last_mut() {
            None => {
                self.root = Some(node);
            }
            Some(Frame::Seq {
                stream: true, len, ..
            }) => {
                // A complete `items` entry: hand it out, and give the next one a fresh budget.
                self.item = Some((*len, node));
                *len += 1;
                self.produced = self.produced.saturating_sub(count);
            }
            Some(Frame::Seq {
                items,
                count: c,
                height: h,
                ..
            }) => {
                items.push(node);
                *c = c.saturating_add(count);
                *h = (*h).max(height);
            }
            Some(Frame::Map {
                entries,
                key,
                seen,
                count: c,
                height: h,
                ..
            }) => {
                *c = c.saturating_add(count);
                *h = (*h).max(height);
                match key.take() {
                    Some(k) => entries.push((k, node)),
                    None => {
                        let text = match node.kind {
                            NodeKind::Scalar { text, .. } => text,
                            NodeKind::Null => String::new(),
                            NodeKind::Map(_) | NodeKind::Seq(_) => {
                                return Err(YamlError::at(
                                    node.mark,
                                    "mapping keys must be strings, not collections",
                                ));
                            }
                        };
                        if let Some(first) = seen.get(&text) {
                            return Err(YamlError::at(
                                node.mark,
                                format!(
                                    "duplicate key {text:?} (first defined at line {})",
                                    first.line
                                ),
                            ));
                        }
                        seen.insert(text.clone(), node.mark);
                        *key = Some(Key {
                            text,
                            mark: node.mark,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    fn scalar(
        &mut self,
        text: Cow<'_, str>,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        mark: Mark,
    ) -> Result<(), YamlError> {
        self.produce(1, mark)?;
        let mut style = match style {
            ScalarStyle::Plain => Style::Plain,
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => Style::Quoted,
            ScalarStyle::Literal | ScalarStyle::Folded => Style::Block,
        };
        if let Some(tag) = tag {
            match core_tag(tag) {
                Some("str") => style = Style::Quoted,
                Some("int" | "float" | "bool" | "null") => {}
                _ => {
                    return Err(YamlError::at(
                        mark,
                        format!("unsupported tag {tag} on a scalar"),
                    ))
                }
            }
        }
        let in_key_position = matches!(self.stack.last(), Some(Frame::Map { key: None, .. }));
        let kind = if style == Style::Plain
            && !in_key_position
            && matches!(resolve_plain(&text), Value::Null)
        {
            NodeKind::Null
        } else {
            NodeKind::Scalar {
                text: text.into_owned(),
                style,
            }
        };
        self.finish(
            anchor,
            Built {
                node: Node { kind, mark },
                count: 1,
                height: 0,
            },
        )
    }

    fn alias(&mut self, id: usize, mark: Mark) -> Result<(), YamlError> {
        let Some(target) = self.anchors.get(&id) else {
            let message = if id <= self.earlier_anchors {
                "alias refers to an anchor of an earlier document (anchors do not reach across documents)"
            } else {
                "alias refers to a node that contains it (recursive alias)"
            };
            return Err(YamlError::at(mark, message));
        };
        let (count, height) = (target.count, target.height);
        self.produce(count, mark)?;
        self.check_depth(height, mark)?;
        let Some(target) = self.anchors.get(&id) else {
            return Ok(());
        };
        let mut node = target.node.clone();
        // The copy is reported where the alias is written.
        node.mark = mark;
        self.finish(
            0,
            Built {
                node,
                count,
                height,
            },
        )
    }

    /// Feeds one parser event (other than the stream and document boundaries).
    fn event(&mut self, event: Event<'_>, mark: Mark) -> Result<(), YamlError> {
        match event {
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd => Ok(()),
            Event::Alias(id) => self.alias(id, mark),
            Event::Scalar(value, style, anchor, tag) => {
                self.scalar(value, style, anchor, tag.as_deref(), mark)
            }
            Event::SequenceStart(anchor, tag) => {
                check_collection_tag(tag.as_deref(), "seq", mark)?;
                let stream = self.starts_item_list();
                self.start(
                    Frame::Seq {
                        mark,
                        anchor,
                        items: Vec::new(),
                        count: 0,
                        height: 0,
                        stream,
                        len: 0,
                    },
                    mark,
                )
            }
            Event::MappingStart(anchor, tag) => {
                check_collection_tag(tag.as_deref(), "map", mark)?;
                self.start(
                    Frame::Map {
                        mark,
                        anchor,
                        entries: Vec::new(),
                        key: None,
                        seen: BTreeMap::new(),
                        count: 0,
                        height: 0,
                    },
                    mark,
                )
            }
            Event::SequenceEnd | Event::MappingEnd => self.end(),
        }
    }
}

/// YAML 1.1 merge keys, which kubectl's YAML reader applies: `<<: *defaults` (or a list of
/// aliases) adds the entries of those mappings that the mapping does not set itself, the
/// earlier mapping of a list winning over a later one.
fn merge_keys(entries: Vec<(Key, Node)>) -> Result<Vec<(Key, Node)>, YamlError> {
    if !entries.iter().any(|(k, _)| k.text == "<<") {
        return Ok(entries);
    }
    let (merges, mut merged): (Vec<_>, Vec<_>) =
        entries.into_iter().partition(|(k, _)| k.text == "<<");
    for (key, value) in merges {
        let sources = match value.kind {
            NodeKind::Map(m) => vec![m],
            NodeKind::Seq(items) => items
                .into_iter()
                .map(|item| match item.kind {
                    NodeKind::Map(m) => Ok(m),
                    _ => Err(YamlError::at(
                        item.mark,
                        "a merge key `<<` takes a mapping or a list of mappings",
                    )),
                })
                .collect::<Result<_, _>>()?,
            _ => {
                return Err(YamlError::at(
                    key.mark,
                    "a merge key `<<` takes a mapping or a list of mappings",
                ))
            }
        };
        for source in sources {
            for (k, v) in source {
                if !merged.iter().any(|(m, _)| m.text == k.text) {
                    merged.push((k, v));
                }
            }
        }
    }
    Ok(merged)
}

fn core_tag(tag: &Tag) -> Option<&str> {
    if tag.is_yaml_core_schema() {
        Some(tag.suffix.as_str())
    } else {
        None
    }
}

fn check_collection_tag(tag: Option<&Tag>, expected: &str, mark: Mark) -> Result<(), YamlError> {
    match tag {
        None => Ok(()),
        Some(t) if core_tag(t) == Some(expected) => Ok(()),
        Some(t) => Err(YamlError::at(mark, format!("unsupported tag {t}"))),
    }
}

/// A parser error, made easier to act on: an error at the end of the input points just after
/// the last line (the parser points past it), a tab in the indentation is pointed at (the
/// parser reports the content after it), and an unterminated quoted string says so.
fn syntax_error(text: &str, mark: Mark, info: &str) -> YamlError {
    let mut mark = mark;
    // At the end of the input the parser points past the last line: show the last line.
    let lines = text.lines().count();
    if mark.line > lines && lines > 0 {
        let last = text.lines().last().unwrap_or_default();
        mark = Mark::new(lines, last.chars().count() + 1).in_source(mark.source);
    }
    if info.contains("tab") {
        if let Some(line) = text.lines().nth(mark.line.saturating_sub(1)) {
            let indent: Vec<char> = line.chars().take(mark.col.saturating_sub(1)).collect();
            if indent.iter().all(|c| c.is_whitespace()) {
                if let Some(i) = indent.iter().position(|c| *c == '\t') {
                    mark.col = i + 1;
                }
            }
        }
    }
    let message = if info.contains("quoted scalar")
        && (info.contains("indentation") || info.contains("end of stream"))
    {
        format!("{info} (is its closing quote missing?)")
    } else if info == "simple key expect ':'" {
        // The scanner notices only here that a key started earlier never got its `:`.
        "expected the `:` of a `key: value` pair here: does a line above hold a bare word, or \
         lack its `:`?"
            .to_owned()
    } else {
        info.to_owned()
    };
    YamlError::at(mark, message)
}

/// Refuses an input larger than [`MAX_INPUT_BYTES`].
fn check_size(text: &str, source: SourceId) -> Result<(), YamlError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(YamlError {
            mark: Some(Mark::new(1, 1).in_source(source)),
            message: format!(
                "input too large: {} bytes (the limit is {} MiB)",
                text.len(),
                MAX_INPUT_BYTES >> 20
            ),
        });
    }
    Ok(())
}

/// The next parser event with its mark, syntax errors made actionable.
fn next_event<'t>(
    parser: &mut Parser<'t, StrInput<'t>>,
    text: &str,
    source: SourceId,
) -> Option<Result<(Event<'t>, Mark), YamlError>> {
    let item = parser.next_event()?;
    Some(match item {
        Ok((event, span)) => Ok((event, Mark::from_span(&span, source))),
        Err(e) => Err(syntax_error(
            text,
            Mark::new(e.marker().line(), e.marker().col() + 1).in_source(source),
            e.info(),
        )),
    })
}

/// Parses a stream that must hold at most one document. An empty stream is a null node at 1:1.
///
/// # Errors
/// Syntax errors, duplicate keys, collection keys, recursive aliases, unsupported tags, more
/// than one document, and inputs beyond [`MAX_INPUT_BYTES`], [`MAX_NODES`] or [`MAX_DEPTH`].
pub fn parse(text: &str) -> Result<Node, YamlError> {
    parse_in(text, SourceId::MAIN)
}

/// [`parse`], for a text other than the main input: every mark points into `source`.
///
/// # Errors
/// As [`parse`].
pub fn parse_in(text: &str, source: SourceId) -> Result<Node, YamlError> {
    check_size(text, source)?;
    let mut parser = Parser::new_from_str(text);
    let mut builder = Builder::new(false);
    let mut documents = 0usize;
    while let Some(item) = next_event(&mut parser, text, source) {
        let (event, mark) = item?;
        match event {
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(YamlError::at(
                        mark,
                        format!(
                            "expected one YAML document, but a second one starts at line {}",
                            mark.line
                        ),
                    ));
                }
            }
            event => builder.event(event, mark)?,
        }
    }
    Ok(builder.root.unwrap_or(Node {
        kind: NodeKind::Null,
        mark: Mark::new(1, 1).in_source(source),
    }))
}

/// One piece of a [`Stream`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unit {
    /// An entry of the top-level `items` list of a document (a `kind: List`), complete. It is
    /// handed out before the rest of its document, whose `items` is left as an empty list.
    Item {
        /// The document it belongs to, counted from 0.
        document: usize,
        /// Its index in `items`.
        index: usize,
        /// The entry.
        node: Node,
    },
    /// A complete document.
    Document {
        /// Counted from 0.
        index: usize,
        /// Where the document starts (its `---`, or its first node).
        mark: Mark,
        /// Its content; null for an empty document.
        root: Node,
    },
}

/// Reads a stream of YAML documents one document at a time (see the module documentation).
///
/// Each document has its own node and depth budget, and each entry of a top-level `items`
/// list its own node budget; only the input as a whole is limited in size.
pub struct Stream<'t> {
    text: &'t str,
    source: SourceId,
    parser: Parser<'t, StrInput<'t>>,
    builder: Builder,
    document: usize,
    document_mark: Option<Mark>,
    failed: bool,
}

impl<'t> Stream<'t> {
    /// A stream over `text`; every mark points into `source`.
    #[must_use]
    pub fn new(text: &'t str, source: SourceId) -> Stream<'t> {
        Stream {
            text,
            source,
            parser: Parser::new_from_str(text),
            builder: Builder::new(true),
            document: 0,
            document_mark: None,
            failed: false,
        }
    }

    fn step(&mut self) -> Result<Option<Unit>, YamlError> {
        check_size(self.text, self.source)?;
        loop {
            if let Some((index, node)) = self.builder.item.take() {
                return Ok(Some(Unit::Item {
                    document: self.document.saturating_sub(1),
                    index,
                    node,
                }));
            }
            let Some(item) = next_event(&mut self.parser, self.text, self.source) else {
                return Ok(None);
            };
            let (event, mark) = item?;
            match event {
                Event::StreamEnd => return Ok(None),
                Event::DocumentStart(_) => {
                    self.builder.start_document();
                    self.document += 1;
                    self.document_mark = Some(mark);
                }
                Event::DocumentEnd => {
                    let mark = self.document_mark.take().unwrap_or(mark);
                    let root = self.builder.root.take().unwrap_or(Node {
                        kind: NodeKind::Null,
                        mark,
                    });
                    return Ok(Some(Unit::Document {
                        index: self.document.saturating_sub(1),
                        mark,
                        root,
                    }));
                }
                event => self.builder.event(event, mark)?,
            }
        }
    }
}

impl Iterator for Stream<'_> {
    type Item = Result<Unit, YamlError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.step() {
            Ok(unit) => unit.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// The top-level keys of the first document that is not empty, if it is a mapping; syntax
/// errors and other shapes give an empty list. Reads no further than that document and
/// builds nothing, so it is cheap: it tells a manifest (`apiVersion`, `kind`) from a scenario.
#[must_use]
pub fn first_document_keys(text: &str) -> Vec<String> {
    if check_size(text, SourceId::MAIN).is_err() {
        return Vec::new();
    }
    let mut parser = Parser::new_from_str(text);
    let mut keys = Vec::new();
    // Depth of collections; at depth 1 inside the root mapping, nodes alternate key, value.
    let mut depth = 0usize;
    let mut root_is_map = false;
    let mut expect_key = true;
    while let Some(Ok((event, _))) = parser.next_event() {
        match event {
            Event::StreamEnd => break,
            Event::DocumentEnd if root_is_map => break,
            Event::Scalar(value, ..) if depth == 1 && root_is_map => {
                if expect_key {
                    keys.push(value.into_owned());
                }
                expect_key = !expect_key;
            }
            Event::Alias(_) if depth == 1 && root_is_map => expect_key = !expect_key,
            // An empty document: look at the next one.
            Event::Scalar(value, ScalarStyle::Plain, ..)
                if depth == 0 && matches!(resolve_plain(&value), Value::Null) => {}
            Event::Scalar(..) | Event::Alias(_) if depth == 0 => return Vec::new(),
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                if depth == 0 {
                    if !matches!(event, Event::MappingStart(..)) {
                        return Vec::new();
                    }
                    root_is_map = true;
                }
                depth += 1;
            }
            Event::MappingEnd | Event::SequenceEnd => {
                depth = depth.saturating_sub(1);
                if depth == 1 {
                    expect_key = !expect_key;
                }
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    keys
}

#[cfg(test)]
mod tests;
