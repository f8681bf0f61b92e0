//! Non-determinism named, not hidden: `run --bless` (and `record`) make each call
//! twice, in two fresh fixtures, and where the two answers differ the value
//! written holds both, with the differing parts made placeholders: `{int}` for
//! integers that differ, `[..]` for the rest of a line that differs otherwise,
//! `...` for lines only one answer has. Each placeholder made is said, so a
//! person reviewing the change sees what was loosened and why.

use serde_json::Value;

use super::clock_readings::{loosen, Recorded};

/// Two answers that differ where no placeholder can stand: where (` at PATH`,
/// or nothing at the root) and the two values.
#[derive(Debug, thiserror::Error)]
#[error("the two runs answered differently{at} ({a} and {b}), where no placeholder can stand")]
pub(crate) struct Unmergeable {
    pub at: String,
    pub a: Value,
    pub b: Value,
}

/// One value made to hold for two answers, and what was loosened.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Merged {
    pub value: Value,
    /// A line per placeholder made: where, and the two values it stands for.
    pub loosened: Vec<String>,
}

/// The value that holds for both `first` and `second` (each already a value to
/// write, the root as `{root}`), read as an expectation of kind `template`
/// (`text`, a file's text, a `json` string: placeholders allowed) or exact
/// (`code`, `is_error`), or an error when they differ where no placeholder can
/// stand.
///
/// In a template, the clock readings of both answers are loosened first
/// (`clock_readings.rs`): two runs at once share most of a timestamp, which no
/// later run would.
pub(crate) fn merged(first: &Value, second: &Value, template: bool) -> Result<Merged, Unmergeable> {
    let mut loosened = Vec::new();
    let value = if template {
        let clock = Recorded::now();
        let first = loosen(first, clock, false, &mut loosened);
        let second = loosen(second, clock, false, &mut Vec::new());
        merge(&first, &second, template, "", &mut loosened)?
    } else {
        merge(first, second, template, "", &mut loosened)?
    };
    Ok(Merged { value, loosened })
}

fn merge(
    a: &Value,
    b: &Value,
    template: bool,
    path: &str,
    loosened: &mut Vec<String>,
) -> Result<Value, Unmergeable> {
    if a == b {
        return Ok(a.clone());
    }
    let at = if path.is_empty() {
        String::new()
    } else {
        format!(" at {path}")
    };
    match (a, b) {
        (Value::String(x), Value::String(y)) if template => {
            Ok(Value::String(merge_text(x, y, &at, loosened)))
        }
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() && x.keys().eq(y.keys()) => {
            let mut out = serde_json::Map::new();
            for (key, value) in x {
                let other = &y[key];
                out.insert(
                    key.clone(),
                    merge(value, other, template, &format!("{path}.{key}"), loosened)?,
                );
            }
            Ok(Value::Object(out))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .map(|(i, (v, w))| merge(v, w, template, &format!("{path}[{i}]"), loosened))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        // Inside a `json:` value a marker holds for any value of its type.
        _ if template && !path.is_empty() => {
            let marker = match (a, b) {
                (Value::Number(x), Value::Number(y))
                    if (x.is_i64() || x.is_u64()) && (y.is_i64() || y.is_u64()) =>
                {
                    "{integer}"
                }
                (Value::Number(_), Value::Number(_)) => "{number}",
                (Value::Bool(_), Value::Bool(_)) => "{bool}",
                _ => "{any}",
            };
            loosened.push(format!("`{marker}`{at} for {a} and {b}"));
            Ok(Value::String(marker.to_string()))
        }
        _ => Err(Unmergeable {
            at,
            a: a.clone(),
            b: b.clone(),
        }),
    }
}

/// Two texts as one template: equal lines as they are, lines that differ only
/// in integers with `{int}` there, other differing lines cut to their common
/// start and `[..]`; when the line counts differ, the lines both start and end
/// with around a `...`.
fn merge_text(a: &str, b: &str, at: &str, loosened: &mut Vec<String>) -> String {
    let x: Vec<&str> = a.split('\n').collect();
    let y: Vec<&str> = b.split('\n').collect();
    if x.len() != y.len() {
        let head = x.iter().zip(&y).take_while(|(p, q)| p == q).count();
        let tail = x[head..]
            .iter()
            .rev()
            .zip(y[head..].iter().rev())
            .take_while(|(p, q)| p == q)
            .count();
        loosened.push(format!(
            "`...`{at} for lines {}..{} ({} lines in one run, {} in the other)",
            head + 1,
            x.len().max(y.len()) - tail,
            x.len() - head - tail,
            y.len() - head - tail
        ));
        let mut lines: Vec<&str> = x[..head].to_vec();
        lines.push("...");
        lines.extend(&x[x.len() - tail..]);
        return lines.join("\n");
    }
    x.iter()
        .zip(&y)
        .enumerate()
        .map(|(n, (p, q))| {
            if p == q {
                return (*p).to_string();
            }
            let line = merge_line(p, q);
            // Shown from a little before where the two lines part, so a long
            // line's difference is in the note, not cut off after its start.
            let parted = p.chars().zip(q.chars()).take_while(|(c, d)| c == d).count();
            let from = parted.saturating_sub(20);
            loosened.push(format!(
                "`{}`{at} in line {}: {} and {}",
                if line.ends_with("[..]") {
                    "[..]"
                } else {
                    "{int}"
                },
                n + 1,
                crate::visible::excerpt_from(p, from, 80),
                crate::visible::excerpt_from(q, from, 80)
            ));
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One line for two that differ: `{int}` where only integers differ, else their
/// common start (never cut inside a `{name}` or `[..]`) and `[..]`.
fn merge_line(p: &str, q: &str) -> String {
    let (pp, qq) = (runs(p), runs(q));
    let same_shape = pp.len() == qq.len()
        && pp
            .iter()
            .zip(&qq)
            .all(|((d1, t1), (d2, t2))| d1 == d2 && (*d1 || t1 == t2));
    if same_shape {
        return pp
            .iter()
            .zip(&qq)
            .map(|((digits, t1), (_, t2))| {
                if *digits && t1 != t2 {
                    "{int}".to_string()
                } else {
                    (*t1).to_string()
                }
            })
            .collect();
    }
    let mut common = p
        .char_indices()
        .zip(q.chars())
        .take_while(|((_, c), d)| c == d)
        .last()
        .map_or(0, |((i, c), _)| i + c.len_utf8());
    // Not inside a placeholder: back to before an unclosed `{` or `[`, and not
    // inside a number (`-?[0-9]+` as the template reads it).
    if let Some(open) = p[..common].rfind(['{', '[']) {
        if !p[open..common].contains(['}', ']']) {
            common = open;
        }
    }
    while common > 0 && p[..common].ends_with(|c: char| c.is_ascii_digit() || c == '-') {
        common -= 1;
    }
    format!("{}[..]", &p[..common])
}

/// A line in runs of digits and of other characters: (is digits, text). A `-`
/// before digits goes with them, as `{int}` reads it.
fn runs(line: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let number_starts = bytes[i].is_ascii_digit()
            || (bytes[i] == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
        if number_starts {
            if start < i {
                out.push((false, &line[start..i]));
            }
            let begin = i;
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            out.push((true, &line[begin..i]));
            start = i;
        } else {
            i += 1;
        }
    }
    if start < line.len() {
        out.push((false, &line[start..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::template::difference;
    use crate::scenario::Bindings;
    use serde_json::json;

    fn text(a: &str, b: &str) -> Merged {
        let made = merged(&json!(a), &json!(b), true).expect("merged");
        let template = made.value.as_str().expect("a text");
        for answer in [a, b] {
            assert_eq!(
                difference(template, answer, &Bindings::new("/r")),
                None,
                "{template}"
            );
        }
        made
    }

    #[test]
    fn differing_parts_become_placeholders_and_are_named() {
        let made = text("pid 12 of 3\nsame\n", "pid 40 of 3\nsame\n");
        assert_eq!(made.value, json!("pid {int} of 3\nsame\n"));
        assert_eq!(made.loosened.len(), 1);
        assert!(made.loosened[0].contains("line 1"), "{:?}", made.loosened);
        let made = text("took 1.5s at {root}/a\nend", "took 2s at {root}/b\nend");
        assert_eq!(made.value, json!("took [..]\nend"));
        let made = text("a\nb\nz", "a\nz");
        assert_eq!(made.value, json!("a\n...\nz"));
        assert_eq!(text("same", "same").loosened, Vec::<String>::new());
        // A long line that differs late is shown where it differs.
        let head = "x".repeat(120);
        let made = text(&format!("{head} took 17 ms"), &format!("{head} took 9 ms"));
        assert!(
            made.loosened[0].contains("took 17 ms") && made.loosened[0].contains("took 9 ms"),
            "{:?}",
            made.loosened
        );
    }

    #[test]
    fn exact_values_that_differ_are_refused_and_json_values_get_markers() {
        assert!(merged(&json!("A"), &json!("B"), false).is_err());
        assert!(merged(&json!(true), &json!(false), false).is_err());
        let made = merged(
            &json!({"n": 1, "s": "x 1"}),
            &json!({"n": 2, "s": "x 2"}),
            true,
        )
        .expect("merged");
        assert_eq!(made.value, json!({"n": "{integer}", "s": "x {int}"}));
        assert_eq!(made.loosened.len(), 2);
    }
}
