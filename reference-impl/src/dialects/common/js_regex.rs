//! Patterns as JavaScript's `new RegExp(pattern)` reads them, for the
//! dialects of programs written in it (gemini-cli 0.1.13's grep.js
//! `validateToolParams`, agent-tools v0.1.0's src/lib/rg.ts:157), each
//! wording a refusal with V8's message (`Invalid regular expression: /(/:
//! Unterminated group`). JavaScript also takes some text literally that the
//! regex crate refuses: a `{` that starts no quantifier (`a{2`), a lone `}` or
//! `]`, and a `[` inside a class. So a pattern is scanned once, as V8 scans
//! it, and either refused with V8's words or spelled for the regex crate with
//! those characters escaped. Constructs JavaScript has and the regex crate
//! lacks (lookaround, back-references) still fail to compile there, with its
//! words.

/// The pattern spelled for the regex crate, or V8's reason for refusing it.
pub(crate) fn for_regex_crate(pattern: &str) -> Result<String, &'static str> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut open_groups = 0usize;
    // Whether the last thing written can take a quantifier.
    let mut repeatable = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let next = *chars.get(i + 1).ok_or("\\ at end of pattern")?;
                out.push(c);
                out.push(next);
                repeatable = !matches!(next, 'b' | 'B');
                i += 2;
                continue;
            }
            '[' => {
                i = class(&chars, i, &mut out)?;
                repeatable = true;
                continue;
            }
            '(' => {
                i = group_opening(&chars, i, &mut out)?;
                open_groups += 1;
                repeatable = false;
                continue;
            }
            ')' => {
                open_groups = open_groups.checked_sub(1).ok_or("Unmatched ')'")?;
                out.push(c);
                repeatable = true;
            }
            '*' | '+' | '?' => {
                if !repeatable {
                    return Err("Nothing to repeat");
                }
                out.push(c);
                // A `?` after a quantifier makes it lazy; nothing more repeats.
                if chars.get(i + 1) == Some(&'?') {
                    out.push('?');
                    i += 1;
                }
                repeatable = false;
            }
            '{' => match quantifier(&chars, i) {
                Some((low, high, end)) => {
                    if !repeatable {
                        return Err("Nothing to repeat");
                    }
                    if high.is_some_and(|high| high < low) {
                        return Err("numbers out of order in {} quantifier");
                    }
                    out.extend(&chars[i..end]);
                    i = end;
                    if chars.get(i) == Some(&'?') {
                        out.push('?');
                        i += 1;
                    }
                    repeatable = false;
                    continue;
                }
                None => {
                    out.push_str("\\{");
                    repeatable = true;
                }
            },
            '}' | ']' => {
                out.push('\\');
                out.push(c);
                repeatable = true;
            }
            '|' => {
                out.push(c);
                repeatable = false;
            }
            '^' | '$' => {
                out.push(c);
                repeatable = false;
            }
            _ => {
                out.push(c);
                repeatable = true;
            }
        }
        i += 1;
    }
    if open_groups > 0 {
        return Err("Unterminated group");
    }
    Ok(out)
}

/// Copies the class opening at `start` (`[`), with `[` and the regex crate's
/// set operators escaped; the index after its `]`.
fn class(chars: &[char], start: usize, out: &mut String) -> Result<usize, &'static str> {
    let mut i = start + 1;
    let negated = chars.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    // JavaScript's `[]` matches nothing and `[^]` anything.
    if chars.get(i) == Some(&']') {
        out.push_str(if negated { "[\\s\\S]" } else { "[^\\s\\S]" });
        return Ok(i + 1);
    }
    out.push_str(if negated { "[^" } else { "[" });
    while let Some(&c) = chars.get(i) {
        match c {
            ']' => {
                out.push(']');
                return Ok(i + 1);
            }
            '\\' => {
                let next = *chars.get(i + 1).ok_or("\\ at end of pattern")?;
                out.push(c);
                out.push(next);
                i += 2;
                continue;
            }
            '[' | '&' | '-' | '~' if chars.get(i + 1) == Some(&c) || c == '[' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        i += 1;
    }
    Err("Unterminated character class")
}

/// Copies a group's opening at `start` (`(`, `(?:`, `(?=`, `(?!`, `(?<=`,
/// `(?<!` or `(?<name>`); the index after it.
fn group_opening(chars: &[char], start: usize, out: &mut String) -> Result<usize, &'static str> {
    if chars.get(start + 1) != Some(&'?') {
        out.push('(');
        return Ok(start + 1);
    }
    let kind = chars.get(start + 2).copied();
    let look_behind = kind == Some('<') && matches!(chars.get(start + 3), Some('=' | '!'));
    let end = match kind {
        Some(':' | '=' | '!') => start + 3,
        Some('<') if look_behind => start + 4,
        Some('<') => {
            let name_start = start + 3;
            let close = chars[name_start..]
                .iter()
                .position(|&c| c == '>')
                .map(|at| name_start + at)
                .ok_or("Invalid capture group name")?;
            let name = &chars[name_start..close];
            let valid = name
                .first()
                .is_some_and(|c| c.is_alphabetic() || matches!(c, '_' | '$'))
                && name
                    .iter()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$'));
            if !valid {
                return Err("Invalid capture group name");
            }
            close + 1
        }
        _ => return Err("Invalid group"),
    };
    out.extend(&chars[start..end]);
    Ok(end)
}

/// `{n}`, `{n,}` or `{n,m}` at `start`: its bounds and the index after `}`.
fn quantifier(chars: &[char], start: usize) -> Option<(u64, Option<u64>, usize)> {
    let digits = |from: usize| -> (Option<u64>, usize) {
        let end = chars[from..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .map_or(chars.len(), |at| from + at);
        let text: String = chars[from..end].iter().collect();
        (text.parse().ok(), end)
    };
    let (low, after_low) = digits(start + 1);
    let low = low?;
    match chars.get(after_low)? {
        '}' => Some((low, Some(low), after_low + 1)),
        ',' => {
            let (high, after_high) = digits(after_low + 1);
            (chars.get(after_high) == Some(&'}')).then_some((low, high, after_high + 1))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_use_v8_words() {
        for (pattern, why) in [
            ("(unclosed", "Unterminated group"),
            ("[", "Unterminated character class"),
            ("a)", "Unmatched ')'"),
            ("*a", "Nothing to repeat"),
            ("a**", "Nothing to repeat"),
            ("x|+", "Nothing to repeat"),
            ("\\", "\\ at end of pattern"),
            ("(?<x", "Invalid capture group name"),
            ("(?x)", "Invalid group"),
            ("a{2,1}", "numbers out of order in {} quantifier"),
        ] {
            assert_eq!(for_regex_crate(pattern), Err(why), "{pattern}");
        }
    }

    #[test]
    fn what_javascript_takes_literally_is_escaped() {
        assert_eq!(for_regex_crate("a{2").as_deref(), Ok("a\\{2"));
        assert_eq!(for_regex_crate("a}]").as_deref(), Ok("a\\}\\]"));
        assert_eq!(for_regex_crate("[[a&&b]").as_deref(), Ok("[\\[a\\&&b]"));
        assert_eq!(for_regex_crate("x{2,3}?y*?").as_deref(), Ok("x{2,3}?y*?"));
        assert_eq!(
            for_regex_crate("^(?:a|b)\\d+$").as_deref(),
            Ok("^(?:a|b)\\d+$")
        );
        assert_eq!(for_regex_crate("beta.*").as_deref(), Ok("beta.*"));
        for pattern in ["a{2", "a}]", "[[a&&b]", "x{2,3}?y*?", "[]a", "[^]"] {
            let spelled = for_regex_crate(pattern).expect("valid in JavaScript");
            assert!(
                regex::Regex::new(&spelled).is_ok(),
                "{pattern} as {spelled}"
            );
        }
    }
}
