//! Whether a case goes on past a divergence. Without a baseline a case stops at
//! its first one. With `--baseline`, stopping at a departure the triage already
//! names would hide every later call of the case, so the case passes over it
//! when all of these hold:
//! - only a reading differs (`convention` or `text`): an escape, a side that broke
//!   or files left apart always stop the case, as the sides no longer share a
//!   state worth comparing;
//! - the two fixtures' files still agree, so both sides go on from one state;
//! - the baseline classifies the divergence's signature.
//!
//! A divergence passed over is counted, not lost: the case keeps it
//! (`CaseOutcome::Ran::passed_over`), and classification and the reports read it.
//! The baseline is a later step's model (`triage/baseline.rs`), so this step
//! asks it through [`KnownSignatures`], which the baseline implements.

use crate::explore::compare::differential::Divergence;
use crate::explore::compare::levels::Level;
use crate::explore::compare::signature::{signature, Signature};
use crate::explore::generate::case::Case;

/// What a case may go on past: the signatures a run's baseline classifies.
pub(crate) trait KnownSignatures: Sync {
    /// Whether a class of the baseline accepts `signature`.
    fn knows(&self, signature: &Signature) -> bool;
}

/// Whether a divergence at `level` is of a kind a case may go on past: a
/// reading that differs, not a side that escaped or broke, nor files left apart.
fn passable(level: Level) -> bool {
    matches!(level, Level::Convention | Level::Text)
}

/// Whether `case` goes on past `divergence`. `files_agree` compares the two
/// fixtures (it lists both), so it is asked last, and only of a divergence the
/// baseline knows.
pub(crate) fn passes_over(
    known: Option<&dyn KnownSignatures>,
    case: &Case,
    divergence: &Divergence,
    files_agree: impl FnOnce() -> bool,
) -> bool {
    let Some(known) = known else {
        return false;
    };
    passable(divergence.difference.level)
        && known.knows(&signature(case, divergence))
        && files_agree()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::explore::compare::levels::difference;
    use crate::explore::generate::call::GeneratedCall;
    use crate::explore::generate::fixture_gen::GeneratedFixture;

    /// A baseline of one class: any subject reading that says `no code`.
    struct NoCode;

    impl KnownSignatures for NoCode {
        fn knows(&self, signature: &Signature) -> bool {
            signature
                .subject
                .iter()
                .any(|line| line.contains("no code"))
        }
    }

    fn case() -> Case {
        Case {
            number: 0,
            fixture: GeneratedFixture::default(),
            settings: BTreeMap::new(),
            calls: vec![GeneratedCall {
                tool: "view".into(),
                args: serde_json::Map::new(),
            }],
        }
    }

    fn diverged(level: Level, subject: &str) -> Divergence {
        Divergence {
            at_call: Some(0),
            difference: difference(level, "error NOT_FOUND".into(), subject.into()),
            stderr_tail: String::new(),
        }
    }

    #[test]
    fn a_known_reading_is_passed_over_while_the_files_agree() {
        let case = case();
        for level in [Level::Convention, Level::Text] {
            let known = diverged(level, "error with no code");
            assert!(passes_over(Some(&NoCode), &case, &known, || true));
            assert!(!passes_over(Some(&NoCode), &case, &known, || false));
            assert!(!passes_over(None, &case, &known, || true));
        }
    }

    #[test]
    fn an_unknown_one_or_one_past_the_readings_stops_the_case() {
        let case = case();
        let unknown = diverged(Level::Convention, "error IO_ERROR");
        assert!(!passes_over(Some(&NoCode), &case, &unknown, || true));
        // Known, but a side escaped, broke, or left files apart.
        for level in [Level::Escape, Level::Broken, Level::Files] {
            let known = diverged(level, "error with no code");
            assert!(NoCode.knows(&signature(&case, &known)));
            assert!(
                !passes_over(Some(&NoCode), &case, &known, || true),
                "{level:?}"
            );
        }
    }
}
