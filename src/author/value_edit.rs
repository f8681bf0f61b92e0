//! One value of a YAML file replaced by editing only the bytes it was written
//! at ([`yaml_nodes`](super::yaml_nodes) gives them): the scalars that change
//! are rewritten in their own style ([`scalar_text`](super::scalar_text)), a
//! mapping or list whose keys or length stay the same is edited a value at a
//! time, a flow one whose shape changes is rewritten between its brackets, and
//! what cannot be edited in place (an anchor, an alias, a tag, a block mapping
//! or list that gains or loses entries) is refused with the reason.

use std::ops::Range;

use granit_parser::ScalarStyle;
use serde_json::Value;

use super::scalar_text::{inline, literal_block};
use super::scenario_text::yaml_value;
use super::yaml_nodes::{Node, Shape};

/// Bytes to replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

/// The edits that make `node` (the value of a mapping entry whose key ends at
/// `key_end`) read as `new`; none when it already does.
pub(crate) fn edits(
    source: &str,
    key_end: usize,
    node: &Node,
    new: &Value,
    in_flow: bool,
) -> Result<Vec<Edit>, String> {
    if let Some(mark) = node.marked {
        return Err(format!(
            "the value is {mark}, which other places may share; edit it by hand"
        ));
    }
    match (&node.shape, new) {
        (Shape::Scalar { value, style }, _) => {
            if scalar_means(value, *style, new) {
                return Ok(Vec::new());
            }
            match style {
                ScalarStyle::Literal | ScalarStyle::Folded => {
                    block_scalar_edit(source, key_end, node, new).map(|e| vec![e])
                }
                _ => Ok(vec![Edit {
                    range: node.span.clone(),
                    text: inline(new, *style, in_flow),
                }]),
            }
        }
        (Shape::Mapping { entries, .. }, Value::Object(want))
            if entries.len() == want.len()
                && entries
                    .iter()
                    .all(|(k, _)| scalar_text(k).is_some_and(|k| want.contains_key(k))) =>
        {
            let mut all = Vec::new();
            for (key, value) in entries {
                let name = scalar_text(key).unwrap_or_default();
                if let Some(wanted) = want.get(name) {
                    all.extend(edits(
                        source,
                        key.span.end,
                        value,
                        wanted,
                        in_flow || node.is_flow(),
                    )?);
                }
            }
            Ok(all)
        }
        (Shape::Sequence { items, .. }, Value::Array(want)) if items.len() == want.len() => {
            let mut all = Vec::new();
            for (item, wanted) in items.iter().zip(want) {
                let in_list = in_flow || node.is_flow();
                all.extend(edits(source, item.span.start, item, wanted, in_list)?);
            }
            Ok(all)
        }
        (Shape::Alias, _) => Err("the value is an alias (`*name`); edit it by hand".into()),
        _ if node.is_flow() => Ok(vec![Edit {
            range: node.span.clone(),
            text: yaml_value(new),
        }]),
        _ => Err(
            "the new value has another shape (entries added or removed) than the block \
             mapping or list written there, which cannot be rewritten in place; edit it by hand"
                .into(),
        ),
    }
}

/// A key's text, when the key is a scalar.
fn scalar_text(node: &Node) -> Option<&str> {
    match &node.shape {
        Shape::Scalar { value, .. } => Some(value),
        _ => None,
    }
}

/// Whether a scalar written `value` in `style` reads as `new` (a plain `true`
/// as the boolean, a plain `3` as the number).
fn scalar_means(value: &str, style: ScalarStyle, new: &Value) -> bool {
    if style != ScalarStyle::Plain {
        return new.as_str() == Some(value);
    }
    match new {
        Value::String(s) => s == value,
        Value::Bool(b) => value == if *b { "true" } else { "false" },
        Value::Null => matches!(value, "null" | "~" | ""),
        Value::Number(n) => value
            .parse::<f64>()
            .ok()
            .zip(n.as_f64())
            .is_some_and(|(a, b)| a == b),
        _ => false,
    }
}

/// A literal (or folded) block scalar rewritten: its header's indicators and its
/// content lines, at the indentation its first line had; the blank lines after
/// it (which belong to no value unless it keeps them, `|+`) stay. Written as a
/// literal block where one can hold the text (a folded block becomes a literal
/// one, whose lines are not joined), else double-quoted after the key.
fn block_scalar_edit(
    source: &str,
    key_end: usize,
    node: &Node,
    new: &Value,
) -> Result<Edit, String> {
    let between = source
        .get(key_end..node.span.start)
        .ok_or("the block scalar's place is not in the file")?;
    let header_at = between
        .find(['|', '>'])
        .map(|at| key_end + at)
        .ok_or("the block scalar's `|` header was not found")?;
    let header_len = source[header_at..]
        .find(|c: char| c.is_whitespace() || c == '#')
        .unwrap_or(source.len() - header_at);
    let header = &source[header_at..header_at + header_len];
    let keeps = header.contains('+');
    let line_end = source[header_at..]
        .find('\n')
        .map(|at| header_at + at + 1)
        .ok_or("the block scalar's header ends the file")?;
    let after_header = &source[header_at + header_len..line_end];
    // The content lines: from the line after the header to the end of its last
    // line holding text (or, when the block keeps its trailing newlines, to the
    // end of its last line).
    let raw = source
        .get(line_end..node.span.end)
        .ok_or("the block scalar's content is not in the file")?;
    let mut content_end = line_end;
    let mut offset = line_end;
    for line in raw.split_inclusive('\n') {
        offset += line.len();
        if keeps || !line.trim().is_empty() {
            if line.ends_with('\n') {
                content_end = offset;
            } else if keeps {
                content_end = offset - line.len();
            } else {
                content_end = offset;
            }
        }
    }
    let indent = raw
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .ok_or("the block scalar has no content line to take its indentation from")?;
    let text = new.as_str().ok_or("a block scalar can only hold a text")?;
    let written = match literal_block(text, indent) {
        Some((indicators, lines)) => format!("{indicators}{after_header}{lines}"),
        None => format!("{}{after_header}", yaml_value(new)),
    };
    Ok(Edit {
        range: header_at..content_end,
        text: written,
    })
}

/// Edits that would write over each other's bytes.
#[derive(Debug, thiserror::Error)]
#[error("two edits of the file overlap")]
pub(crate) struct EditsOverlap;

/// `source` with `edits` made (they do not overlap).
pub(crate) fn apply(source: &str, edits: &[Edit]) -> Result<String, EditsOverlap> {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| e.range.start);
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for edit in sorted {
        if edit.range.start < at || edit.range.end > source.len() {
            return Err(EditsOverlap);
        }
        out.push_str(&source[at..edit.range.start]);
        out.push_str(&edit.text);
        at = edit.range.end;
    }
    out.push_str(&source[at..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::author::yaml_nodes::parse;
    use serde_json::json;

    /// `source` with the value at `key` of the root mapping made `new`.
    fn edited(source: &str, key: &str, new: Value) -> Result<String, String> {
        let root = parse(source).map_err(|e| e.to_string())?;
        let (k, v) = root.entry(key).ok_or("no such key")?;
        let made = edits(source, k.span.end, v, &new, false)?;
        apply(source, &made).map_err(|e| e.to_string())
    }

    #[test]
    fn only_the_value_changes_whatever_its_style() {
        let cases = [
            (
                "a: 1 # keep\nt: old words  # note\nz: 2\n",
                "t",
                json!("new words"),
                "a: 1 # keep\nt: new words  # note\nz: 2\n",
            ),
            ("t: 'it''s'\n", "t", json!("it is"), "t: 'it is'\n"),
            ("t: \"x\\n\"\n", "t", json!("y\n"), "t: \"y\\n\"\n"),
            (
                "t: plain\n",
                "t",
                json!("two\nlines"),
                "t: \"two\\nlines\"\n",
            ),
            ("e: true\n", "e", json!(false), "e: false\n"),
            (
                "t: |\n  one\n  two\n\nz: 1\n",
                "t",
                json!("one\nthree\n"),
                "t: |\n  one\n  three\n\nz: 1\n",
            ),
            (
                "t: |- # c\n    a\nz: 1\n",
                "t",
                json!("b\n"),
                "t: | # c\n    b\nz: 1\n",
            ),
            (
                "t: >\n  folded\n  words\nz: 1\n",
                "t",
                json!("x\ny\n"),
                "t: |\n  x\n  y\nz: 1\n",
            ),
            (
                "t: |\n  a\nz: 1\n",
                "t",
                json!(" lead"),
                "t: \" lead\"\nz: 1\n",
            ),
            (
                "f: { a.txt: \"x\", b: {text: y} }\n",
                "f",
                json!({"a.txt": "x", "b": {"text": "y, z"}}),
                "f: { a.txt: \"x\", b: {text: \"y, z\"} }\n",
            ),
            (
                "j:\n  a: 1\n  b: [1, 2]\n",
                "j",
                json!({"a": 1, "b": [1, 2, 3]}),
                "j:\n  a: 1\n  b: [1,2,3]\n",
            ),
        ];
        for (source, key, new, want) in cases {
            assert_eq!(edited(source, key, new).as_deref(), Ok(want), "{source}");
        }
    }

    #[test]
    fn what_cannot_be_edited_in_place_is_refused_with_the_reason() {
        let why = edited("d: &x 1\nt: *x\n", "t", json!(2)).expect_err("an alias");
        assert!(why.contains("alias"), "{why}");
        let why = edited("t: &x 1\n", "t", json!(2)).expect_err("an anchor");
        assert!(why.contains("anchor"), "{why}");
        let why = edited("j:\n  a: 1\n", "j", json!({"b": 1})).expect_err("a block mapping");
        assert!(why.contains("block mapping"), "{why}");
        assert_eq!(
            edited("t: same\n", "t", json!("same")).as_deref(),
            Ok("t: same\n")
        );
    }
}
