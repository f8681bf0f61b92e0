//! Boris compiles grep's pattern with Go's `regexp` (RE2 syntax, grep.go:256),
//! and the seed names RE2 as the judge of a valid pattern (000, "fails RE2
//! compilation"). Two things read otherwise in the Rust `regex` crate the
//! engine compiles with: a `{` that does not open a counted repetition is a
//! literal brace in Go (`a{2` finds the text `a{2`) where Rust refuses it,
//! and Go words its errors its own way (`error parsing regexp: missing
//! closing ]: `[``). [`to_rust`] rewrites the first and reports the second
//! for the unclosed brackets and parentheses Go finds before anything else.

/// The pattern in Rust's syntax with RE2's reading, or Go's error text for
/// a bracket or parenthesis left open or closed without opening.
pub(super) fn to_rust(pattern: &str) -> Result<String, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                out.push('\\');
                if let Some(&next) = chars.get(i + 1) {
                    out.push(next);
                }
                i += 2;
            }
            '[' => {
                let Some(end) = class_end(&chars, i) else {
                    let rest: String = chars[i..].iter().collect();
                    return Err(go_error("missing closing ]", &rest));
                };
                out.extend(&chars[i..=end]);
                i = end + 1;
            }
            '(' => {
                depth += 1;
                out.push('(');
                i += 1;
            }
            ')' => {
                if depth == 0 {
                    return Err(go_error("unexpected )", pattern));
                }
                depth -= 1;
                out.push(')');
                i += 1;
            }
            '{' if !opens_repetition(&chars[i..]) => {
                out.push_str("\\{");
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    if depth > 0 {
        return Err(go_error("missing closing )", pattern));
    }
    Ok(out)
}

/// Go's `syntax.Error` text: `error parsing regexp: <code>: `<expr>``.
fn go_error(code: &str, expr: &str) -> String {
    format!("error parsing regexp: {code}: `{expr}`")
}

/// The index of the `]` closing the class that opens at `start`, as RE2
/// reads one: a `]` right after `[` or `[^` is a member, `\` escapes the next
/// character, and `[:name:]` is a named class inside it.
fn class_end(chars: &[char], start: usize) -> Option<usize> {
    let mut i = start + 1;
    if chars.get(i) == Some(&'^') {
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        i += 1;
    }
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '[' if chars.get(i + 1) == Some(&':') => {
                let close = (i + 2..chars.len().saturating_sub(1))
                    .find(|&k| chars[k] == ':' && chars[k + 1] == ']');
                i = close.map_or(i + 1, |k| k + 2);
            }
            ']' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Whether the text from a `{` is a counted repetition RE2 accepts:
/// `{n}`, `{n,}` or `{n,m}` with decimal numbers.
fn opens_repetition(from_brace: &[char]) -> bool {
    let mut i = 1;
    let digits = |i: &mut usize| {
        let start = *i;
        while from_brace.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return false;
    }
    if from_brace.get(i) == Some(&',') {
        i += 1;
        digits(&mut i);
    }
    from_brace.get(i) == Some(&'}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_brace_that_counts_nothing_is_a_literal_and_one_that_counts_is_kept() {
        assert_eq!(to_rust("a{2").as_deref(), Ok("a\\{2"));
        assert_eq!(to_rust("a{,3}").as_deref(), Ok("a\\{,3}"));
        assert_eq!(to_rust("a{2}b{1,}c{1,3}").as_deref(), Ok("a{2}b{1,}c{1,3}"));
        assert_eq!(to_rust("[{]\\{x").as_deref(), Ok("[{]\\{x"));
    }

    #[test]
    fn open_brackets_and_parentheses_are_worded_as_go_words_them() {
        assert_eq!(
            to_rust("[").unwrap_err(),
            "error parsing regexp: missing closing ]: `[`"
        );
        assert_eq!(
            to_rust("(?i)a[b").unwrap_err(),
            "error parsing regexp: missing closing ]: `[b`"
        );
        assert_eq!(
            to_rust("(?i)(unclosed").unwrap_err(),
            "error parsing regexp: missing closing ): `(?i)(unclosed`"
        );
        assert_eq!(
            to_rust("a)").unwrap_err(),
            "error parsing regexp: unexpected ): `a)`"
        );
        assert_eq!(to_rust("[]a]").as_deref(), Ok("[]a]"));
        assert_eq!(to_rust("[[:alpha:]]").as_deref(), Ok("[[:alpha:]]"));
    }
}
