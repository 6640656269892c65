//! From the parser's events to a positioned [`Node`](super::Node) tree: aliases and merge keys
//! expanded, core-schema tags checked, and the limits on size, nodes and depth enforced.

use std::borrow::Cow;
use std::collections::BTreeMap;

use saphyr_parser::{Event, ScalarStyle, Tag};

use super::surrogates::{Events, Fixups};
use super::{
    resolve_plain, Key, Mark, Node, NodeKind, SourceId, Style, Value, YamlError, MAX_DEPTH,
    MAX_INPUT_BYTES, MAX_NODES,
};

/// A collection being built.
pub(super) enum Frame {
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
pub(super) struct Built {
    pub(super) node: Node,
    pub(super) count: usize,
    pub(super) height: usize,
}

pub(super) struct Builder {
    /// Hand out the entries of a top-level `items` list one by one ([`Stream`]).
    pub(super) stream_items: bool,
    pub(super) stack: Vec<Frame>,
    pub(super) anchors: BTreeMap<usize, Built>,
    /// Nodes produced in the current unit (the document, or one streamed `items` entry).
    pub(super) produced: usize,
    /// Nodes copied to remember anchored nodes, in the current document.
    pub(super) copied: usize,
    /// The highest anchor id of earlier documents (anchors do not reach across documents).
    pub(super) earlier_anchors: usize,
    pub(super) root: Option<Node>,
    /// A streamed `items` entry that is complete: its index and the node.
    pub(super) item: Option<(usize, Node)>,
}

impl Builder {
    pub(super) fn new(stream_items: bool) -> Builder {
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
    pub(super) fn start_document(&mut self) {
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
                        format!("unsupported tag {} on a scalar", tag_name(tag)),
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
    pub(super) fn event(&mut self, event: Event<'_>, mark: Mark) -> Result<(), YamlError> {
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
pub(super) fn merge_keys(entries: Vec<(Key, Node)>) -> Result<Vec<(Key, Node)>, YamlError> {
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

/// A tag as it is written: `!!binary` for the core schema's, `!Ref` for a local one, `!<URI>` for
/// a full one (the parser's own display glues the handle to a `!`: `tag:yaml.org,2002:!binary`).
pub(super) fn tag_name(tag: &Tag) -> String {
    match tag.handle.as_str() {
        "tag:yaml.org,2002:" => format!("!!{}", tag.suffix),
        "!" => format!("!{}", tag.suffix),
        "" => format!("!<{}>", tag.suffix),
        handle => format!("!<{handle}{}>", tag.suffix),
    }
}

pub(super) fn core_tag(tag: &Tag) -> Option<&str> {
    if tag.is_yaml_core_schema() {
        Some(tag.suffix.as_str())
    } else {
        None
    }
}

pub(super) fn check_collection_tag(
    tag: Option<&Tag>,
    expected: &str,
    mark: Mark,
) -> Result<(), YamlError> {
    match tag {
        None => Ok(()),
        Some(t) if core_tag(t) == Some(expected) => Ok(()),
        Some(t) => Err(YamlError::at(
            mark,
            format!("unsupported tag {}", tag_name(t)),
        )),
    }
}

/// A parser error, made easier to act on: an error at the end of the input points just after
/// the last line (the parser points past it), a tab in the indentation is pointed at (the
/// parser reports the content after it), and an unterminated quoted string says so.
pub(super) fn syntax_error(text: &str, mark: Mark, info: &str) -> YamlError {
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
    } else if info.contains("recursion limit exceeded") {
        // The parser's own limit on flow nesting (256) can come before the tree's: the same
        // documented message either way.
        format!("document nested too deeply: more than {MAX_DEPTH} levels")
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
pub(super) fn check_size(text: &str, source: SourceId) -> Result<(), YamlError> {
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

/// The next parser event with its mark (in the text as written: see
/// [`surrogates`](super::surrogates)), syntax errors made actionable.
pub(super) fn next_event<'t>(
    events: &mut Events<'t>,
    fixups: &Fixups,
    text: &str,
    source: SourceId,
) -> Option<Result<(Event<'t>, Mark), YamlError>> {
    let item = events.next_event()?;
    let mark =
        |line: usize, col: usize| Mark::new(line, fixups.column(line, col) + 1).in_source(source);
    Some(match item {
        Ok((event, span)) => Ok((event, mark(span.start.line(), span.start.col()))),
        Err(e) => {
            let at = mark(e.marker().line(), e.marker().col());
            if e.info().contains("invalid Unicode character escape code") {
                if let Some((line, col, message)) = fixups.lone_at(at.line, at.col) {
                    let at = Mark::new(line, col).in_source(source);
                    return Some(Err(syntax_error(text, at, &message)));
                }
            }
            Err(syntax_error(text, at, e.info()))
        }
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
    // One document: its events end soon after its nodes, which are limited.
    let (mut events, fixups) = Events::new(text, MAX_NODES.saturating_mul(4));
    let mut builder = Builder::new(false);
    let mut documents = 0usize;
    while let Some(item) = next_event(&mut events, &fixups, text, source) {
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
