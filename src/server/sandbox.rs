//! `--sandbox`: the server under test may write only inside its fixture root.
//!
//! A server that writes outside the root (to the user's home, to the repository it
//! was started from) goes unnoticed otherwise: no expectation looks there. Under
//! Landlock the server (and everything it starts) is denied every write outside
//! a few places, so such a write fails in the server, where the scenario sees it.
//! Writes are allowed in the fixture root, in a scratch folder beside it (never
//! inside it, so a listing of the root shows only what the scenario built), which
//! the server gets as `TMPDIR`, and on the character devices every process writes
//! to (`/dev/null` and the like). Reading is not restricted.
//!
//! The rules are made in toolspec (opening the allowed paths allocates) and put in
//! force in the child between `fork` and `exec`, which only makes system calls.

use std::io;
use std::path::Path;

use landlock::{
    path_beneath_rules, AccessFs, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr,
    RulesetStatus, ABI,
};

/// The Landlock ABI whose write rights are handled: V4 (Linux 6.7) adds truncation
/// to V1's writes and V2's cross-folder links; later ones add device `ioctl`, which
/// would deny a terminal's ordinary use, so they are left out. On an older kernel
/// the crate enforces what it can (best effort).
const WRITE_ABI: ABI = ABI::V4;

/// Devices any process may write to, wherever it runs.
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// The write rules for one server: made in toolspec, entered in the child.
pub(super) struct Sandbox {
    /// Taken when the child enters it.
    rules: Option<RulesetCreated>,
}

impl Sandbox {
    /// Rules allowing writes only below `root`, below `scratch`, and to the common
    /// devices.
    pub(super) fn allowing(root: &Path, scratch: &Path) -> io::Result<Sandbox> {
        let writes = AccessFs::from_write(WRITE_ABI);
        let allowed = [root, scratch]
            .into_iter()
            .chain(WRITABLE_DEVICES.iter().map(Path::new));
        let rules = Ruleset::default()
            .handle_access(writes)
            .and_then(Ruleset::create)
            .and_then(|rules| rules.add_rules(path_beneath_rules(allowed, writes)))
            .map_err(io::Error::other)?;
        Ok(Sandbox { rules: Some(rules) })
    }

    /// Puts the rules in force for this process and every process it starts.
    ///
    /// # Safety
    /// Meant for the child between `fork` and `exec` (a `pre_exec` hook): it only
    /// makes system calls (`prctl`, `landlock_restrict_self`) and does not allocate,
    /// not even for an error.
    pub(super) unsafe fn enter(&mut self) -> io::Result<()> {
        let Some(rules) = self.rules.take() else {
            return Ok(());
        };
        match rules.restrict_self() {
            Ok(_) => Ok(()),
            Err(_) => Err(io::Error::from_raw_os_error(libc::EPERM)),
        }
    }
}

/// Whether this kernel enforces Landlock write rules, found the crate's own way: a
/// short-lived thread restricts itself (Landlock binds a thread and what it starts,
/// nothing else) and reports the status. The reason when it does not.
pub(crate) fn unavailable() -> Option<String> {
    let probe = std::thread::spawn(|| {
        let writes = AccessFs::from_write(WRITE_ABI);
        Ruleset::default()
            .handle_access(writes)
            .and_then(Ruleset::create)
            .and_then(RulesetCreated::restrict_self)
            .map(|status| (status.ruleset, status.landlock))
    });
    match probe.join() {
        Ok(Ok((RulesetStatus::NotEnforced, landlock))) => Some(format!(
            "this kernel does not enforce Landlock ({landlock:?})"
        )),
        Ok(Ok(_)) => None,
        Ok(Err(e)) => Some(format!("Landlock refused the rules: {e}")),
        Err(_) => Some("the Landlock probe failed".to_string()),
    }
}
