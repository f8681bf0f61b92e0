//! The last resort against a server that kills its own supervisor: the toolspec
//! process itself is a child subreaper, and kills and reaps whatever is reparented
//! to it.
//!
//! A supervisor (`supervisor.rs`) holds its server's tree only while it lives, and
//! the server runs as the same user, so it can kill it (`kill -9 $PPID`). What the
//! server started is then reparented to the nearest subreaper above: this process,
//! once [`adopt_escaped_processes`] has made it one, instead of init, where it
//! would outlive the run. The children toolspec starts itself are listed by the
//! caller (its supervisors, the few programs it runs); any other child of this
//! process was adopted. Each is killed and reaped by its own pid, never with
//! `waitpid(-1)`, so tokio and std still reap their own children.
//!
//! It suits a process whose every child toolspec starts: the CLI, a test binary
//! whose `main` is toolspec's runner. In any other, a child that other code started
//! would be taken for an escaped one, so a process has to ask for it.

use std::collections::BTreeSet;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::proc_stat;

/// Set once this process adopts what escapes its supervisors.
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// Rounds of killing before giving up on a tree that keeps growing.
const MAX_ROUNDS: usize = 1_000;
/// How long a killed process may take to be reapable before it is left.
const REAP_WAIT: Duration = Duration::from_secs(5);

/// Makes this process the subreaper of last resort for every server it starts: what
/// escapes a server's supervisor is reparented here, and ended when the server's
/// scenario ends. Call it only in a process whose every child toolspec starts (a
/// `main` of your own that calls [`crate::run_named`]); `toolspec` and the test
/// runners ([`crate::conformance_main`], [`crate::target_main`]) call it themselves.
///
/// # Errors
/// When the kernel refuses `PR_SET_CHILD_SUBREAPER` (Linux before 3.4).
pub fn adopt_escaped_processes() -> io::Result<()> {
    // SAFETY: this prctl only sets a flag on the calling process.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    ADOPTING.store(true, Ordering::SeqCst);
    Ok(())
}

/// Whether this process adopts escaped processes.
pub(super) fn adopting() -> bool {
    ADOPTING.load(Ordering::SeqCst)
}

/// Kills and reaps every child of this process that `known` does not list, and
/// what is reparented here as those die, until none is left; says how many. Does
/// nothing unless this process adopts. The caller keeps new children from being
/// started unlisted meanwhile.
pub(super) fn end_strays(known: &BTreeSet<i32>) -> usize {
    if !adopting() {
        return 0;
    }
    let mut ended = 0;
    for _ in 0..MAX_ROUNDS {
        let strays: Vec<i32> = children()
            .into_iter()
            .filter(|pid| !known.contains(pid))
            .collect();
        if strays.is_empty() {
            break;
        }
        for &pid in &strays {
            // SAFETY: kill only sends a signal, to a child of this process that no
            // one else reaps, so the pid cannot have been reused.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        let deadline = Instant::now() + REAP_WAIT;
        for &pid in &strays {
            reap(pid, deadline);
            ended += 1;
        }
    }
    ended
}

/// Reaps child `pid` once it has died, waiting until `deadline` at most.
fn reap(pid: i32, deadline: Instant) {
    loop {
        let mut status = 0;
        // SAFETY: waits for one child of this process, by its pid, without blocking.
        let reaped = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if reaped != 0 || Instant::now() >= deadline {
            // Reaped, or not a child any more (ECHILD), or stuck in the kernel.
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The pids of this process's children. A child belongs to the thread that forked
/// it (an adopted one to the first thread alive), so every thread's list is read;
/// on a kernel without those lists, every process is looked at instead. The
/// children of a thread that exits move to the first thread alive, the main one
/// (whose thread id is the pid), so its list is read last: a child moving between
/// lists meanwhile is then seen in one of them.
fn children() -> Vec<i32> {
    let mut pids = Vec::new();
    let mut listed = false;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        let main = std::process::id().to_string();
        let mut tasks: Vec<std::path::PathBuf> = tasks.flatten().map(|t| t.path()).collect();
        tasks.sort_by_key(|task| task.file_name().is_some_and(|name| name == main.as_str()));
        for task in tasks {
            // A thread that has just exited has no list: its children went to another.
            if let Ok(text) = std::fs::read_to_string(task.join("children")) {
                listed = true;
                pids.extend(
                    text.split_whitespace()
                        .filter_map(|p| p.parse::<i32>().ok()),
                );
            }
        }
    }
    if listed {
        pids
    } else {
        children_by_scan()
    }
}

/// Every process whose parent is this one, from each `/proc/<pid>/stat`.
fn children_by_scan() -> Vec<i32> {
    let me = std::process::id().to_string();
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    processes
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let pid: i32 = name.to_str()?.parse().ok()?;
            // The state, then the parent's pid.
            let fields = proc_stat::after_name(name.to_str()?)?;
            (fields.split_whitespace().nth(1)? == me).then_some(pid)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ways_of_listing_children_find_the_same_child() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("start sleep");
        let pid = i32::try_from(child.id()).expect("pid");
        assert!(children().contains(&pid), "{:?}", children());
        assert!(
            children_by_scan().contains(&pid),
            "{:?}",
            children_by_scan()
        );
        let _ = child.kill();
        let _ = child.wait();
    }
}
