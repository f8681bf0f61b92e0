//! What toolspec removes when it exits: folders and cgroups kept for the whole
//! process (the views' folders, the cgroups of ended servers kept for reuse), which
//! no destructor reaches, since statics are never dropped and an interrupted run
//! ends by `exit`. Each action runs once, in the process that registered it: a
//! forked child that calls `exit` must not remove what its parent still uses.

use std::sync::Mutex;

/// The actions registered, and the process they belong to.
struct Registered {
    owner: u32,
    actions: Vec<fn()>,
}

static ACTIONS: Mutex<Option<Registered>> = Mutex::new(None);

/// Has `action` run when this process exits (by `exit` or by returning from
/// `main`; a process killed outright leaves what `remove_leftover_runs` and the
/// temporary folder's own cleaning find later).
pub(super) fn at_exit(action: fn()) {
    let mut registered = ACTIONS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let first = registered.is_none();
    registered
        .get_or_insert_with(|| Registered {
            owner: std::process::id(),
            actions: Vec::new(),
        })
        .actions
        .push(action);
    if first {
        // SAFETY: registers a function that takes the list and calls plain Rust
        // functions; libc calls it once, at exit.
        unsafe {
            libc::atexit(run_actions);
        }
    }
}

extern "C" fn run_actions() {
    // Another thread may hold the lock as the process exits: then nothing runs,
    // rather than waiting for a thread that may never let go.
    let Ok(mut registered) = ACTIONS.try_lock() else {
        return;
    };
    let Some(Registered { owner, actions }) = registered.take() else {
        return;
    };
    if owner != std::process::id() {
        return;
    }
    for action in actions.iter().rev() {
        action();
    }
}
