//! A file's own line ends and byte-order mark, kept through an edit.
//!
//! v0.1.0 edits a file as text with every line end made `\n` and the BOM
//! dropped (`decodeText`, src/lib/text.ts:22-59), then writes the result back
//! with `reencode` (src/lib/text.ts:113-155): each line the edit left as it
//! was keeps its own end, every other line gets the end the file uses most,
//! a last line without an end stays without one, and the BOM comes back. So
//! a CRLF file stays CRLF, a `\r\n` typed into an LF file becomes `\n`, and a
//! file without a final newline does not gain one. Which lines were left as
//! they were is a line diff of the old text and the new.

/// A file's text as the edits see it, with what writing it back needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// The text with `\r\n` and lone `\r` made `\n`, the BOM dropped.
    pub(crate) content: String,
    /// The text as it was, line ends untouched, the BOM dropped.
    raw: String,
    /// Whether it began with a UTF-8 byte-order mark.
    bom: bool,
}

const BOM: char = '\u{feff}';

impl Decoded {
    /// Decodes a file's bytes (invalid UTF-8 replaced, as Node's
    /// `toString("utf8")` does).
    pub(crate) fn new(bytes: &[u8]) -> Decoded {
        let text = String::from_utf8_lossy(bytes);
        let (raw, bom) = match text.strip_prefix(BOM) {
            Some(rest) => (rest.to_string(), true),
            None => (text.into_owned(), false),
        };
        Decoded {
            content: raw.replace("\r\n", "\n").replace('\r', "\n"),
            raw,
            bom,
        }
    }

    /// `new_content`, an edit of [`Decoded::content`], as bytes with this
    /// file's line ends and BOM.
    pub(crate) fn reencode(&self, new_content: &str) -> Vec<u8> {
        let old = tokenize(&self.raw);
        let new = tokenize(new_content);
        let dominant = dominant_end(&old);
        let kept = unchanged_pairs(&old, &new);
        let mut out = String::with_capacity(new_content.len() + new.len());
        if self.bom {
            out.push(BOM);
        }
        for (i, line) in new.iter().enumerate() {
            out.push_str(line.text);
            if line.end.is_empty() {
                continue;
            }
            match kept[i].map(|o| old[o].end) {
                Some(end) if !end.is_empty() => out.push_str(end),
                _ => out.push_str(dominant),
            }
        }
        out.into_bytes()
    }
}

/// One line and the end that closed it (`""` for a last line without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Line<'a> {
    text: &'a str,
    end: &'a str,
}

/// The lines of `text`, split at `\r\n`, `\r` or `\n`. A text that ends with
/// a line end has no empty line after it; an empty text is one empty line.
fn tokenize(text: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        let width = match bytes[at] {
            b'\r' if bytes.get(at + 1) == Some(&b'\n') => 2,
            b'\r' | b'\n' => 1,
            _ => {
                at += 1;
                continue;
            }
        };
        lines.push(Line {
            text: &text[start..at],
            end: &text[at..at + width],
        });
        at += width;
        start = at;
    }
    if start < text.len() || lines.is_empty() {
        lines.push(Line {
            text: &text[start..],
            end: "",
        });
    }
    lines
}

/// The line end used most, the first met winning a tie; `\n` for none.
fn dominant_end<'a>(lines: &[Line<'a>]) -> &'a str {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for line in lines.iter().filter(|l| !l.end.is_empty()) {
        match counts.iter_mut().find(|(end, _)| *end == line.end) {
            Some((_, n)) => *n += 1,
            None => counts.push((line.end, 1)),
        }
    }
    let mut best = ("\n", 0);
    for (end, n) in counts {
        if n > best.1 {
            best = (end, n);
        }
    }
    best.0
}

/// Most cells of the table [`unchanged_pairs`] fills for the lines between
/// the common start and end; past it those lines count as all changed.
const MAX_TABLE: usize = 4_000_000;

/// For each new line, the old line it is an unchanged copy of: the common
/// first and last lines, and between them a longest common subsequence of
/// the texts.
fn unchanged_pairs(old: &[Line<'_>], new: &[Line<'_>]) -> Vec<Option<usize>> {
    let mut kept = vec![None; new.len()];
    let same = |o: usize, n: usize| old[o].text == new[n].text;
    let mut head = 0;
    while head < old.len() && head < new.len() && same(head, head) {
        kept[head] = Some(head);
        head += 1;
    }
    let mut tail = 0;
    while tail < old.len() - head
        && tail < new.len() - head
        && same(old.len() - 1 - tail, new.len() - 1 - tail)
    {
        kept[new.len() - 1 - tail] = Some(old.len() - 1 - tail);
        tail += 1;
    }
    let (olds, news) = (head..old.len() - tail, head..new.len() - tail);
    if olds.is_empty() || news.is_empty() || olds.len() * news.len() > MAX_TABLE {
        return kept;
    }
    // lcs[i][j]: the longest common run of old[olds][i..] and new[news][j..].
    let width = news.len() + 1;
    let mut lcs = vec![0u32; (olds.len() + 1) * width];
    for i in (0..olds.len()).rev() {
        for j in (0..news.len()).rev() {
            lcs[i * width + j] = if same(olds.start + i, news.start + j) {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < olds.len() && j < news.len() {
        if same(olds.start + i, news.start + j) {
            kept[news.start + j] = Some(olds.start + i);
            i += 1;
            j += 1;
        } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edited(original: &[u8], edit: impl Fn(&str) -> String) -> Vec<u8> {
        let decoded = Decoded::new(original);
        decoded.reencode(&edit(&decoded.content))
    }

    #[test]
    fn a_crlf_file_stays_crlf() {
        let out = edited(b"one\r\ntwo\r\nthree\r\n", |t| t.replace("two", "2\nand more"));
        assert_eq!(out, b"one\r\n2\r\nand more\r\nthree\r\n");
    }

    #[test]
    fn a_typed_crlf_takes_the_files_own_end() {
        let out = edited(b"a\nb\n", |t| t.replace("b\n", "x\r\ny\r\n"));
        assert_eq!(out, b"a\nx\ny\n");
    }

    #[test]
    fn no_final_newline_is_kept_and_the_bom_comes_back() {
        assert_eq!(edited(b"alpha beta", |t| t.replace("beta", "gamma")), b"alpha gamma");
        assert_eq!(
            edited(b"\xef\xbb\xbfa\r\nb", |t| t.replace('b', "c")),
            b"\xef\xbb\xbfa\r\nc"
        );
        assert_eq!(edited(b"a", |t| format!("{t}\nb")), b"a\nb");
    }

    #[test]
    fn unchanged_lines_keep_their_own_ends() {
        let out = edited(b"a\r\nb\nc\r\nd\r\n", |t| t.replace("c", "C"));
        assert_eq!(out, b"a\r\nb\nC\r\nd\r\n");
        assert_eq!(edited(b"x\ry\n", |t| t.to_string()), b"x\ry\n");
    }

    #[test]
    fn lines_split_as_upstream_tokenizes_them() {
        let ends: Vec<(&str, &str)> = tokenize("a\r\nb\rc\n\nd")
            .iter()
            .map(|l| (l.text, l.end))
            .collect();
        assert_eq!(
            ends,
            vec![("a", "\r\n"), ("b", "\r"), ("c", "\n"), ("", "\n"), ("d", "")]
        );
        assert_eq!(tokenize("").len(), 1);
        assert_eq!(tokenize("a\n").len(), 1);
        assert_eq!(dominant_end(&tokenize("a\r\nb\nc\r\n")), "\r\n");
        assert_eq!(dominant_end(&tokenize("a")), "\n");
    }
}
