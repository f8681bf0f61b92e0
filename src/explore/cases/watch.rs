//! What a run tells whoever watches it while it goes: each case as it ends, and
//! the phase it is in (exploring, or shrinking a divergence), so the command can
//! keep a live progress line without the stage knowing how it is drawn.

use crate::explore::compare::differential::ExploredCase;

/// Told of a run's progress, from any of its job threads.
pub(crate) trait Watch: Sync {
    /// A case ended (in any order: jobs finish out of turn).
    fn case_ended(&self, case: &ExploredCase);
    /// The run moved to another phase, said in a few words (`shrinking 2 of 5`).
    fn phase(&self, text: &str);
}
