//! Name order as gemini-cli gets it from JavaScript's `localeCompare`: letters
//! compare without regard to case first (`apple` < `Banana` < `cherry`), and a
//! lower-case letter comes before its capital on a tie. This is an
//! approximation of ICU collation that agrees with it on plain names.

use std::cmp::Ordering;

/// Compares two names (or paths) in locale-like order.
pub(crate) fn locale_cmp(a: &str, b: &str) -> Ordering {
    let folded = a.to_lowercase().cmp(&b.to_lowercase());
    folded.then_with(|| {
        // On a case-only tie, lower case first: invert the byte order of case.
        a.chars()
            .zip(b.chars())
            .find(|(x, y)| x != y)
            .map_or(a.len().cmp(&b.len()), |(x, y)| {
                y.is_lowercase().cmp(&x.is_lowercase())
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_is_ignored_until_it_is_the_only_difference() {
        let mut names = vec!["cherry", "Banana", "apple", "Apple", "b.txt"];
        names.sort_by(|a, b| locale_cmp(a, b));
        assert_eq!(names, vec!["apple", "Apple", "b.txt", "Banana", "cherry"]);
    }
}
