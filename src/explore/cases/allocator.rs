//! Keeping a long explore run's memory flat. A run holds almost nothing from case
//! to case (a clean case is only counted), yet glibc's allocator gives every thread
//! that allocates an arena of its own (up to eight a core) and keeps what each
//! arena once held: over a hundred thousand cases on eight job threads, the rare
//! large case of each thread ratchets its arena up, and the resident size creeps
//! though the live heap stays a few megabytes (heaptrack: 3.4 MB at its peak over
//! 3,000 cases). Two arenas, and freed memory handed back to the system every
//! [`TRIM_EVERY`] cases, keep it flat. Elsewhere than glibc this does nothing.

/// How many cases a job thread runs between two trims: a trim walks the arenas,
/// which costs well under a millisecond, against tens of milliseconds a case.
pub(crate) const TRIM_EVERY: u64 = 512;

/// Caps the process at two arenas: call before the job threads start.
pub(crate) fn share_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; no memory is touched.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

/// Hands the allocator's free memory back to the system.
pub(crate) fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim releases free pages only; live allocations stay.
    unsafe {
        libc::malloc_trim(0);
    }
}
