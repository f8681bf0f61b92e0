//! Finding what the server started, wherever it went: the server gets a
//! marker in its environment, which every command inherits (the soak never
//! clears a command's environment), so a process is the server's if its
//! initial environment holds the marker, whatever its parent, group or
//! session became.

use std::time::{Duration, Instant};

use crate::shutdown::alive;

/// The environment variable that carries the marker.
pub(super) const MARK_VAR: &str = "TOOLSPEC_SOAK_MARK";

/// A marker no other run shares: the dialect, this process and the time.
pub(super) fn new_mark(dialect: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    format!("{dialect}-{}-{nanos}", std::process::id())
}

/// Live (not zombie) processes carrying `mark`, other than `except`, each
/// as `pid N: command line`.
pub(super) fn marked(mark: &str, except: Option<u32>) -> Vec<(i32, String)> {
    let entry = format!("{MARK_VAR}={mark}");
    let Ok(listing) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    listing
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| u32::try_from(*pid).ok() != except)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                environ
                    .split(|byte| *byte == 0)
                    .any(|pair| pair == entry.as_bytes())
            })
        })
        .filter(|pid| alive(*pid))
        .map(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let shown = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (pid, format!("pid {pid}: {}", shown.trim_end()))
        })
        .collect()
}

/// Waits up to `within` for every process carrying `mark` to die; kills and
/// names those still alive, so that a failing run leaves nothing either.
pub(super) fn survivors(mark: &str, within: Duration) -> Vec<String> {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline && !marked(mark, None).is_empty() {
        std::thread::sleep(Duration::from_millis(50));
    }
    marked(mark, None)
        .into_iter()
        .map(|(pid, shown)| {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            shown
        })
        .collect()
}
