//! A YAML file's nodes with the bytes each was written at, so that `run --bless`
//! and `record` can change one value of a hand-written file by editing those
//! bytes alone: the file is parsed a second time (the typed model keeps no
//! places) with granit-parser, the event parser serde-saphyr itself reads with,
//! whose events carry byte spans.

use std::ops::Range;

use granit_parser::{Event, Parser, ScalarStyle, ScanError, StructureStyle};

/// Why a file's nodes could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum YamlError {
    #[error("the YAML does not parse: {0}")]
    Parse(#[source] ScanError),
    #[error("the YAML parser gave no byte offsets")]
    NoOffsets,
    #[error("the file holds more than one YAML document")]
    ManyDocuments,
    #[error("the file holds no YAML value")]
    NoValue,
    /// The events stop inside a collection: `a list`, `a mapping`, `a mapping entry`.
    #[error("the YAML ends inside {0}")]
    EndsInside(&'static str),
    /// An event no node starts with, as the parser writes it.
    #[error("unexpected YAML event {0}")]
    UnexpectedEvent(String),
}

/// One node and where it was written.
#[derive(Debug)]
pub(crate) struct Node {
    pub shape: Shape,
    /// The bytes of a scalar (quotes included; a block scalar's content lines,
    /// without its `|` header, up to the next line's indentation), or of a flow
    /// collection from its bracket to its closing one; empty for a block
    /// collection, whose extent the parser does not give.
    pub span: Range<usize>,
    /// It defines an anchor (`&name`) or has a tag (`!!str`): what it says is
    /// said elsewhere too, or in another way, so it is not edited.
    pub marked: Option<&'static str>,
}

/// What a node is.
#[derive(Debug)]
pub(crate) enum Shape {
    Scalar {
        value: String,
        style: ScalarStyle,
    },
    Sequence {
        items: Vec<Node>,
        flow: bool,
    },
    Mapping {
        entries: Vec<(Node, Node)>,
        flow: bool,
    },
    /// `*name`: a copy of a node written elsewhere.
    Alias,
}

impl Node {
    /// The value of the entry `key` of a mapping.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        let Shape::Mapping { entries, .. } = &self.shape else {
            return None;
        };
        entries
            .iter()
            .find(|(k, _)| matches!(&k.shape, Shape::Scalar { value, .. } if value == key))
            .map(|(_, v)| v)
    }

    /// The entry `key` of a mapping, key node and value node.
    pub(crate) fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        let Shape::Mapping { entries, .. } = &self.shape else {
            return None;
        };
        entries
            .iter()
            .find(|(k, _)| matches!(&k.shape, Shape::Scalar { value, .. } if value == key))
            .map(|(k, v)| (k, v))
    }

    /// The item at `index` of a sequence.
    pub(crate) fn item(&self, index: usize) -> Option<&Node> {
        match &self.shape {
            Shape::Sequence { items, .. } => items.get(index),
            _ => None,
        }
    }

    /// Whether it is written in flow style (`{..}`, `[..]`).
    pub(crate) fn is_flow(&self) -> bool {
        matches!(
            self.shape,
            Shape::Sequence { flow: true, .. } | Shape::Mapping { flow: true, .. }
        )
    }
}

/// The root node of `source`'s one document.
pub(crate) fn parse(source: &str) -> Result<Node, YamlError> {
    let mut events = Parser::new_from_str(source);
    // Comments are no nodes: they stay where they are, between the bytes edited.
    let mut next = || -> Result<Option<(Event<'_>, Range<usize>)>, YamlError> {
        loop {
            return match events.next() {
                None => Ok(None),
                Some(Err(e)) => Err(YamlError::Parse(e)),
                Some(Ok((Event::Comment(..), _))) => continue,
                Some(Ok((event, span))) => {
                    let range = span.byte_range().ok_or(YamlError::NoOffsets)?;
                    Ok(Some((event, range)))
                }
            };
        }
    };
    let mut root = None;
    let mut documents = 0;
    while let Some((event, range)) = next()? {
        match event {
            Event::StreamStart | Event::DocumentEnd | Event::StreamEnd => {}
            Event::DocumentStart(..) => {
                documents += 1;
                if documents > 1 {
                    return Err(YamlError::ManyDocuments);
                }
            }
            other => root = Some(node(other, range, &mut next)?),
        }
    }
    root.ok_or(YamlError::NoValue)
}

type NextEvent<'a, 's> = dyn FnMut() -> Result<Option<(Event<'s>, Range<usize>)>, YamlError> + 'a;

/// The node that starts with `event`, reading its children from `next`.
fn node<'s>(
    event: Event<'s>,
    range: Range<usize>,
    next: &mut NextEvent<'_, 's>,
) -> Result<Node, YamlError> {
    let marked = |anchor: usize, tagged: bool| {
        if anchor != 0 {
            Some("an anchor (`&name`)")
        } else if tagged {
            Some("a tag (`!name`)")
        } else {
            None
        }
    };
    match event {
        Event::Scalar(value, style, anchor, tag) => Ok(Node {
            shape: Shape::Scalar {
                value: value.into_owned(),
                style,
            },
            span: range,
            marked: marked(anchor, tag.is_some()),
        }),
        Event::Alias(_) => Ok(Node {
            shape: Shape::Alias,
            span: range,
            marked: Some("an alias (`*name`)"),
        }),
        Event::SequenceStart(style, anchor, tag) => {
            let mut items = Vec::new();
            loop {
                let (child, child_range) = next()?.ok_or(YamlError::EndsInside("a list"))?;
                if let Event::SequenceEnd = child {
                    let flow = style == StructureStyle::Flow;
                    let end = if flow { child_range.end } else { range.start };
                    return Ok(Node {
                        shape: Shape::Sequence { items, flow },
                        span: range.start..end,
                        marked: marked(anchor, tag.is_some()),
                    });
                }
                items.push(node(child, child_range, next)?);
            }
        }
        Event::MappingStart(style, anchor, tag) => {
            let mut entries = Vec::new();
            loop {
                let (child, child_range) = next()?.ok_or(YamlError::EndsInside("a mapping"))?;
                if let Event::MappingEnd = child {
                    let flow = style == StructureStyle::Flow;
                    let end = if flow { child_range.end } else { range.start };
                    return Ok(Node {
                        shape: Shape::Mapping { entries, flow },
                        span: range.start..end,
                        marked: marked(anchor, tag.is_some()),
                    });
                }
                let key = node(child, child_range, next)?;
                let (value, value_range) =
                    next()?.ok_or(YamlError::EndsInside("a mapping entry"))?;
                let value = node(value, value_range, next)?;
                entries.push((key, value));
            }
        }
        other => Err(YamlError::UnexpectedEvent(format!("{other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_carry_the_bytes_they_were_written_at() {
        let source =
            "a: 'x'\nb: { c: \"y\", d: [1, 2] }\ne:\n  f: |\n    one\n    two\n\ng: &h 3\n";
        let root = parse(source).expect("parses");
        let at = |n: &Node| &source[n.span.clone()];
        assert_eq!(at(root.get("a").expect("a")), "'x'");
        let b = root.get("b").expect("b");
        assert!(b.is_flow());
        assert_eq!(at(b), "{ c: \"y\", d: [1, 2] }");
        assert_eq!(at(b.get("c").expect("c")), "\"y\"");
        let f = root.get("e").and_then(|e| e.get("f")).expect("f");
        assert!(
            matches!(&f.shape, Shape::Scalar { value, style: ScalarStyle::Literal } if value == "one\ntwo\n")
        );
        assert!(root.get("g").expect("g").marked.is_some());
        assert!(parse("a: [1\n").is_err());
        assert!(parse("a: 1\n---\nb: 2\n").is_err());
    }
}
