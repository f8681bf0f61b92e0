//! Whole-name wildcard matching where a star stands for any run of
//! characters. Dialects differ in what else a pattern may hold (just `?`,
//! or bracket sets and classes too), so they say what one pattern element
//! matches and this does the walking.

/// Whether `pattern` matches all of `name`. `is_star` picks the elements
/// that match any run (empty included); `matches_one` says whether any
/// other element matches one character. Only the last star is remembered to
/// fall back to, which is enough for a whole-name match and keeps it from
/// ever going exponential.
pub(crate) fn star_match<T>(
    pattern: &[T],
    name: &[char],
    is_star: impl Fn(&T) -> bool,
    matches_one: impl Fn(&T, char) -> bool,
) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(element) if is_star(element) => {
                star = Some((p, n));
                p += 1;
            }
            Some(element) if matches_one(element, name[n]) => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((star_p, star_n)) => {
                    p = star_p + 1;
                    n = star_n + 1;
                    star = Some((star_p, star_n + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(is_star)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, name: &str) -> bool {
        let pattern: Vec<char> = pattern.chars().collect();
        let name: Vec<char> = name.chars().collect();
        star_match(&pattern, &name, |&c| c == '*', |&p, c| p == '?' || p == c)
    }

    #[test]
    fn stars_take_any_run_and_the_rest_must_match_exactly() {
        assert!(m("*", ""));
        assert!(m("a*b*c", "axxbyyc"));
        assert!(!m("a*b*c", "axxbyy"));
        assert!(m("*.c", "x.c.c"));
        assert!(m("?b", "ab"));
        assert!(!m("?b", "b"));
        assert!(!m("ab", "abc"));
        assert!(m("ab**", "ab"));
    }
}
