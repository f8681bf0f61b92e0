//! Processes that left their command's process group.
//!
//! A command can escape its group (`setsid`, `setpgid`), so killing the
//! groups the shell knows is not enough. The server makes itself a child
//! subreaper ([`become_subreaper`]): a process of its subtree whose parent
//! dies is re-parented to the server instead of to init, so everything the
//! server started stays among its descendants, whatever groups or sessions
//! it moved to. On the way out the server kills every descendant it still
//! has ([`kill_descendants`]), and while it runs it reaps the adopted ones as
//! they exit ([`reap_adopted`]).
//!
//! tokio waits for the shells it spawned by their pid; an adopted process is
//! reaped by its own pid too, and only when it is not one of the shells the
//! caller tracks, so no exit status tokio waits for is ever taken from it
//! (there is no `waitpid(-1)` here).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Rounds of killing (a process may fork while its parent is being killed).
const KILL_ROUNDS: usize = 50;
/// Pause between rounds, for the killed to die and their children to move.
const ROUND_PAUSE: Duration = Duration::from_millis(5);

/// Set once this process is a subreaper. Until then every zombie child is
/// one of tokio's (nothing is adopted), so [`reap_adopted`] does nothing:
/// several shells in one process (unit tests) never reap each other's.
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// Set before this process first starts a command. A process that never
/// forked has no descendants, so [`kill_descendants`] has nothing to look
/// for, and does not read `/proc` at all: reading a thread's children list
/// makes dentries under `/proc/<pid>/task`, and when the threads exit just
/// before the process does, whoever reaps it spins in the kernel until those
/// dentries are gone (about 1.5 ms of its CPU, measured here), once per
/// server and so once per scenario.
static FORKED: AtomicBool = AtomicBool::new(false);

/// A process as `/proc/<pid>/stat` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ProcessEntry {
    pid: i32,
    parent: i32,
    zombie: bool,
}

/// Notes that this process is about to start a command, so it may have
/// descendants from now on.
pub(super) fn note_fork() {
    FORKED.store(true, Ordering::SeqCst);
}

/// Makes this process the subreaper of its subtree. Returns the OS error
/// when the kernel refuses (then escaped processes are re-parented to init
/// and cannot be found at shutdown).
pub(crate) fn become_subreaper() -> std::io::Result<()> {
    // SAFETY: PR_SET_CHILD_SUBREAPER takes one integer argument and touches
    // no memory of ours.
    let done = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    if done == 0 {
        SUBREAPER.store(true, Ordering::SeqCst);
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// SIGKILLs every live descendant of this process, round after round until
/// none is left (or [`KILL_ROUNDS`] have passed). Process-wide: only for the
/// server's way out.
///
/// The children lists are read one process at a time, so a look can miss a
/// process on its way from a parent that died during the look to this one
/// (its subreaper): after this process's list was read, before the dead
/// parent's was. A look that finds nothing living therefore ends the killing
/// only when every dead process in it was already dead in the look before:
/// the kernel moves a dying process's children before it shows as a zombie.
///
/// Best called once the process's other threads have ended (after the async
/// runtime is shut down): then the children lists read are the main
/// thread's alone (see [`FORKED`] for why that matters).
pub(crate) fn kill_descendants() {
    if !FORKED.load(Ordering::SeqCst) {
        return;
    }
    let me = own_pid();
    let mut dead_before: HashSet<i32> = HashSet::new();
    for round in 0..KILL_ROUNDS {
        let (dead, living): (Vec<ProcessEntry>, Vec<ProcessEntry>) =
            descendants(me).into_iter().partition(|entry| entry.zombie);
        let dead: HashSet<i32> = dead.into_iter().map(|entry| entry.pid).collect();
        if living.is_empty() {
            if dead.is_subset(&dead_before) {
                return;
            }
            // Look again at once: whatever was on its way has arrived.
            dead_before = dead;
            continue;
        }
        for entry in living {
            // SAFETY: kill has no memory-safety preconditions; a process
            // that is already gone yields ESRCH, which is ignored.
            unsafe {
                libc::kill(entry.pid, libc::SIGKILL);
            }
        }
        dead_before = dead;
        if round + 1 < KILL_ROUNDS {
            std::thread::sleep(ROUND_PAUSE);
        }
    }
}

/// Reaps the zombies among this process's children that are not in
/// `tracked` (the shells tokio waits for): processes adopted as subreaper.
pub(super) fn reap_adopted(tracked: &HashSet<i32>) {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    for entry in children_of(own_pid()) {
        if entry.zombie && !tracked.contains(&entry.pid) {
            let mut status = 0;
            // SAFETY: status is a valid place for waitpid to write to; the pid
            // is one specific child, never -1.
            unsafe {
                libc::waitpid(entry.pid, &mut status, libc::WNOHANG);
            }
        }
    }
}

fn own_pid() -> i32 {
    i32::try_from(std::process::id()).unwrap_or(i32::MAX)
}

/// The children of `parent`. Each thread keeps a list of the children it
/// forked (`/proc/<pid>/task/<tid>/children`), so finding them costs the
/// same however many processes the machine runs; on a kernel built without
/// those lists, every process in `/proc` is looked at instead.
fn children_of(parent: i32) -> Vec<ProcessEntry> {
    match listed_children(parent) {
        Some(pids) => entries_of(pids, parent),
        None => children_in(parent, &process_table()),
    }
}

/// Every process below `root`: through the children lists, or through one
/// read of the whole process table on a kernel that keeps none.
fn descendants(root: i32) -> Vec<ProcessEntry> {
    match listed_children(root) {
        Some(of_root) => {
            // The root's list, read to learn that there are lists, is its children.
            let mut of_root = Some(of_root);
            descendants_of(root, |parent| {
                let pids = of_root
                    .take_if(|_| parent == root)
                    .or_else(|| listed_children(parent));
                entries_of(pids.unwrap_or_default(), parent)
            })
        }
        None => {
            let table = process_table();
            descendants_of(root, |parent| children_in(parent, &table))
        }
    }
}

/// The entries for `pids` that are still children of `parent`: a pid read
/// from a list may have been reused by the time its stat is read.
fn entries_of(pids: Vec<i32>, parent: i32) -> Vec<ProcessEntry> {
    pids.into_iter()
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            parse_stat(pid, &stat)
        })
        .filter(|entry| entry.parent == parent)
        .collect()
}

/// The entries of `table` whose parent is `parent`.
fn children_in(parent: i32, table: &[ProcessEntry]) -> Vec<ProcessEntry> {
    table
        .iter()
        .filter(|entry| entry.parent == parent)
        .copied()
        .collect()
}

/// The pids in the children lists of every thread of `parent`; `None` when
/// no thread has such a list (the kernel keeps none, or `parent` is gone).
///
/// When a thread exits, its children move to the first thread still alive,
/// the leader (whose thread id is the pid), as do processes adopted from a
/// dying descendant. Reading the leader's list last, a child moving between
/// lists meanwhile is seen in one of them.
fn listed_children(parent: i32) -> Option<Vec<i32>> {
    let leader = parent.to_string();
    let mut threads: Vec<std::path::PathBuf> = std::fs::read_dir(format!("/proc/{parent}/task"))
        .ok()?
        .flatten()
        .map(|thread| thread.path())
        .collect();
    threads.sort_by_key(|thread| {
        thread
            .file_name()
            .is_some_and(|name| name == leader.as_str())
    });
    let mut pids = Vec::new();
    let mut listed = false;
    for thread in threads {
        // A thread that has just exited has no list: its children went to another.
        if let Ok(text) = std::fs::read_to_string(thread.join("children")) {
            listed = true;
            pids.extend(
                text.split_whitespace()
                    .filter_map(|pid| pid.parse::<i32>().ok()),
            );
        }
    }
    listed.then_some(pids)
}

/// Every process visible in `/proc` (those that vanish while being read are
/// left out).
fn process_table() -> Vec<ProcessEntry> {
    let Ok(listing) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    listing
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            parse_stat(pid, &stat)
        })
        .collect()
}

/// State and parent from a `/proc/<pid>/stat` line. The command name is in
/// parentheses and may itself hold spaces and parentheses, so the fields
/// are read after the last `)`.
fn parse_stat(pid: i32, stat: &str) -> Option<ProcessEntry> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let parent = fields.next()?.parse().ok()?;
    Some(ProcessEntry {
        pid,
        parent,
        zombie: state == "Z" || state == "X",
    })
}

/// The entries below `root` in the parent tree, in no particular order,
/// each parent's found by `children`.
fn descendants_of(
    root: i32,
    mut children: impl FnMut(i32) -> Vec<ProcessEntry>,
) -> Vec<ProcessEntry> {
    let mut found = Vec::new();
    let mut frontier = vec![root];
    let mut seen = HashSet::from([root]);
    while let Some(parent) = frontier.pop() {
        for entry in children(parent) {
            if seen.insert(entry.pid) {
                found.push(entry);
                frontier.push(entry.pid);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_are_read_after_the_command_name() {
        let entry = parse_stat(42, "42 (odd) name (x)) S 7 42 42 0 -1").expect("parsed");
        assert_eq!(
            entry,
            ProcessEntry {
                pid: 42,
                parent: 7,
                zombie: false
            }
        );
        assert!(parse_stat(9, "9 (z) Z 1 9").expect("parsed").zombie);
        assert_eq!(parse_stat(1, "garbage"), None);
    }

    #[test]
    fn descendants_follow_the_parent_links_only() {
        let entry = |pid, parent| ProcessEntry {
            pid,
            parent,
            zombie: false,
        };
        let table = [
            entry(10, 1),
            entry(11, 10),
            entry(12, 11),
            entry(20, 1),
            entry(13, 10),
        ];
        let children = |parent| children_in(parent, &table);
        let mut below: Vec<i32> = descendants_of(10, children).iter().map(|e| e.pid).collect();
        below.sort_unstable();
        assert_eq!(below, vec![11, 12, 13]);
        assert!(descendants_of(12, children).is_empty());
    }

    #[test]
    fn the_children_lists_and_the_whole_table_find_the_same_child() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("start sleep");
        let pid = i32::try_from(child.id()).expect("pid");
        let me = own_pid();
        let listed = listed_children(me).expect("this kernel keeps children lists");
        let scanned: Vec<i32> = children_in(me, &process_table())
            .iter()
            .map(|entry| entry.pid)
            .collect();
        let found: Vec<i32> = children_of(me).iter().map(|entry| entry.pid).collect();
        let _ = child.kill();
        let _ = child.wait();
        assert!(listed.contains(&pid), "children lists: {listed:?}");
        assert!(scanned.contains(&pid), "process table: {scanned:?}");
        assert!(found.contains(&pid), "children_of: {found:?}");
    }
}
