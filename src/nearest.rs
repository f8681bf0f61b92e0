//! The known name closest to one typed, for a "did you mean" after a refusal:
//! an id `covers:` names that no clause has, a tool `record` is asked to call
//! that the server does not list. Sits under every stage, as `visible` does.
//! The distance is `strsim`'s (already built for clap's own suggestions).

/// The known name closest to `typed` by edit distance, if within a typo's reach
/// (a quarter of its length, and at least two edits).
pub(crate) fn nearest<'a>(typed: &str, known: &[&'a str]) -> Option<&'a str> {
    let (best, distance) = known
        .iter()
        .map(|k| (*k, strsim::levenshtein(typed, k)))
        .min_by_key(|(_, d)| *d)?;
    (distance <= (typed.len() / 4).max(2)).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_miss_is_suggested_and_a_far_one_is_not() {
        let known = ["glob/output", "glob/count", "bash/exit-code"];
        assert_eq!(nearest("glob/ouptut", &known), Some("glob/output"));
        assert_eq!(nearest("bash/exit_code", &known), Some("bash/exit-code"));
        assert_eq!(nearest("write-file/bytes", &known), None);
        assert_eq!(nearest("x", &[]), None);
    }
}
