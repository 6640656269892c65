//! Reading a multi-document stream one [`Unit`] at a time (a document, or one entry of a
//! `List`'s `items`), so that memory stays bounded by the largest object.

use saphyr_parser::{Event, ScalarStyle};

use super::build::{check_size, next_event, Builder};
use super::surrogates::{Events, Fixups};
use super::{
    resolve_plain, Mark, Node, NodeKind, SourceId, Value, YamlError, MAX_INPUT_BYTES, MAX_NODES,
};

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
    pub(super) text: &'t str,
    pub(super) source: SourceId,
    pub(super) events: Events<'t>,
    pub(super) fixups: Fixups,
    pub(super) builder: Builder,
    pub(super) document: usize,
    pub(super) document_mark: Option<Mark>,
    pub(super) failed: bool,
}

impl<'t> Stream<'t> {
    /// A stream over `text`; every mark points into `source`.
    #[must_use]
    pub fn new(text: &'t str, source: SourceId) -> Stream<'t> {
        // Any number of documents: the first pass reads as far as the stream goes.
        // (Nothing for a text too large to read, which the first step refuses.)
        let budget = if text.len() > MAX_INPUT_BYTES {
            0
        } else {
            usize::MAX
        };
        let (events, fixups) = Events::new(text, budget);
        Stream {
            text,
            source,
            events,
            fixups,
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
            let Some(item) = next_event(&mut self.events, &self.fixups, self.text, self.source)
            else {
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
///
/// It reads at most [`MAX_NODES`] events: a document with more nodes is refused by the
/// loader anyway, so the keys after that point never matter, and a 20 M-item sequence costs
/// no more to sniff than a 100 k-item one.
#[must_use]
pub fn first_document_keys(text: &str) -> Vec<String> {
    if check_size(text, SourceId::MAIN).is_err() {
        return Vec::new();
    }
    let (mut events, _) = Events::new(text, MAX_NODES);
    let mut keys = Vec::new();
    // Depth of collections; at depth 1 inside the root mapping, nodes alternate key, value.
    let mut depth = 0usize;
    let mut root_is_map = false;
    let mut expect_key = true;
    let events = core::iter::from_fn(|| events.next_event()).take(MAX_NODES);
    for (event, _) in events.map_while(Result::ok) {
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
