//! A denied action made visible: when a scenario fails and what the server said
//! (its answer, its stderr) shows a permission error on a path outside the places
//! it may use, or a connection that could not be made, the report says the
//! isolation denied it and which key of `isolation:` would allow it. Otherwise a
//! real server failing under toolspec and not elsewhere leaves its user guessing.

use std::path::Path;

use super::layers::Layer;
use crate::server::package_runner::PackageRunner;
use crate::server::Target;

/// Words of a permission error, as errno strings and as programs print them, in
/// lower case: they are matched in any case, since programs and their loggers print
/// them in their own ("PERMISSION DENIED", "eacces"). "No such file or directory"
/// is not one: a path the server's view hides and a path that does not exist look
/// the same from inside, and most are the scenario's own missing files.
const PERMISSION: &[&str] = &[
    "permission denied",
    "eacces",
    "operation not permitted",
    "eperm",
    "read-only file system",
    "erofs",
];

/// Words of a connection that could not be made, in lower case as above.
const NETWORK: &[&str] = &[
    "connection refused",
    "econnrefused",
    "network is unreachable",
    "enetunreach",
    "temporary failure in name resolution",
    "eai_again",
    "getaddrinfo enotfound",
];

/// Whether a line of what a server said may show a denial this module can name: a
/// permission error on an absolute path, or a connection that failed. The session
/// keeps the first few such lines of its stderr wherever they come, since the tail
/// alone loses a denial printed before a long traceback.
pub(in crate::server) fn may_show_denial(line: &str) -> bool {
    (says(line, PERMISSION) && absolute_paths(line).next().is_some()) || says(line, NETWORK)
}

/// The line for a report, if `said` (the server's answer, the lines of its stderr
/// the session kept for [`may_show_denial`], the tail of its stderr) shows an action
/// the isolation of `target` denied; `root` is the scenario's fixture root. The
/// first line that does is the one named.
pub(crate) fn denied_by_isolation(target: &Target, root: &str, said: &[&str]) -> Option<String> {
    let layers = target.isolation_layers();
    if layers.is_empty() {
        return None;
    }
    let cut = network_cut(&layers);
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
    for line in said.iter().flat_map(|text| text.lines()) {
        if says(line, PERMISSION) {
            let outside = absolute_paths(line).find(|path| !Path::new(path).starts_with(root));
            if let Some(path) = outside {
                let in_home = home
                    .as_ref()
                    .is_some_and(|home| Path::new(path).starts_with(home));
                return Some(if in_home && layers.contains(&Layer::Home) {
                    format!(
                        "isolation: a permission error on `{path}`, in the real home, which the \
                         server may neither read nor write; `isolation: {{ keep_home: true }}` \
                         lets it read there (`writable: [...]` lets it write)"
                    )
                } else {
                    format!(
                        "isolation: a permission error on `{path}`, outside the fixture and the \
                         server's scratch folder; `isolation: {{ writable: [\"{path}\"] }}` lets \
                         the server write there"
                    )
                });
            }
        }
        if cut && says(line, NETWORK) {
            return Some(
                "isolation: a connection failed, and the server's network is cut off (only \
                 its own loopback); `isolation: { allow_network: true }` opens it"
                    .to_string(),
            );
        }
    }
    let runner = target
        .program
        .file_name()
        .and_then(|name| name.to_str())
        .filter(|_| PackageRunner::of(&target.program).is_some());
    match runner {
        // Such a runner retries its registry in silence: nothing it says shows why.
        Some(runner) if cut && target.isolation.shows_package_cache(&target.program) => {
            Some(format!(
                "isolation: the server is started through `{runner}`, and its network is cut \
                 off: it runs what `{runner}`'s own cache holds (shown in its private home), \
                 and this package is not there; run the same command once outside toolspec \
                 to cache it, install the package and name its program in the target file, \
                 or give the target `isolation: {{ allow_network: true }}` (docs/isolation.md)"
            ))
        }
        Some(runner) if cut => Some(format!(
            "isolation: the server is started through `{runner}`, which asks its registry for \
             the package before it starts it, and the server's network is cut off; install \
             the package and name its program in the target file, or give the target \
             `isolation: {{ allow_network: true }}`, and it fetches the package into the \
             server's private home at each start (docs/isolation.md)"
        )),
        _ => None,
    }
}

/// Whether `layers` cut the server's network off (a namespace of its own, or
/// Landlock's port rules).
fn network_cut(layers: &[Layer]) -> bool {
    layers
        .iter()
        .any(|l| matches!(l, Layer::NetworkNamespace | Layer::TcpPorts))
}

/// Whether `line` holds one of `words` (lower case) in any case, as words of their
/// own: with case ignored, a short errno name would otherwise be found inside other
/// words ("eperm" in "sleepermode").
fn says(line: &str, words: &[&str]) -> bool {
    // ASCII lower case keeps every byte where it was, so the indices fit both.
    let lower = line.to_ascii_lowercase();
    let part_of_a_word = |c: char| c.is_alphanumeric() || c == '_';
    words.iter().any(|word| {
        lower.match_indices(word).any(|(at, _)| {
            let before = lower[..at].chars().next_back();
            let after = lower[at + word.len()..].chars().next();
            !before.is_some_and(part_of_a_word) && !after.is_some_and(part_of_a_word)
        })
    })
}

/// The absolute paths quoted in `line`: words starting with `/`, without the
/// quotes and punctuation around them.
fn absolute_paths(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | ',' | '(' | ')'))
        .map(|word| word.trim_end_matches([':', '.', ';']))
        .filter(|word| word.starts_with('/') && word.len() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn isolated() -> Target {
        Target::from_command_line("server {root}").expect("a target")
    }

    #[test]
    fn a_server_started_through_a_package_runner_with_its_network_cut_is_told_why() {
        let npx = Target::from_command_line("npx -y some-server {root}").expect("a target");
        let line = denied_by_isolation(&npx, "/r", &["", ""]);
        if network_cut(&npx.isolation_layers()) {
            let line = line.expect("a line");
            assert!(line.contains("`npx`"), "{line}");
            assert!(line.contains("allow_network"), "{line}");
            // Where its view shows npx's cache, the line says to fill it first.
            let cached = npx.isolation.shows_package_cache(&npx.program);
            assert_eq!(
                line.contains("once outside toolspec to cache it"),
                cached,
                "{line}"
            );
            let pnpm = Target::from_command_line("pnpm dlx some-server {root}").expect("a target");
            let line = denied_by_isolation(&pnpm, "/r", &["", ""]).expect("a line");
            assert!(line.contains("asks its registry"), "{line}");
        }
        let mut open = npx.clone();
        open.isolation.allow_network = true;
        assert_eq!(denied_by_isolation(&open, "/r", &["", ""]), None);
        assert_eq!(denied_by_isolation(&isolated(), "/r", &["", ""]), None);
    }

    #[test]
    fn a_permission_error_outside_the_root_names_the_key_that_allows_it() {
        let line = denied_by_isolation(
            &isolated(),
            "/tmp/toolspec-abc",
            &["EACCES: permission denied, open '/opt/cache/index.db'"],
        );
        // Landlock may be missing where this runs: then there is no layer to blame.
        if isolated().isolation_layers().contains(&Layer::Writes) {
            let line = line.expect("a line");
            assert!(line.contains("/opt/cache/index.db"), "{line}");
            assert!(line.contains("writable"), "{line}");
        }
    }

    #[test]
    fn nothing_is_blamed_on_isolation_that_it_did_not_do() {
        let target = isolated();
        // A permission error inside the root is the scenario's own.
        assert_eq!(
            denied_by_isolation(
                &target,
                "/tmp/toolspec-abc",
                &["open /tmp/toolspec-abc/locked: Permission denied"],
            ),
            None
        );
        // No permission error, no line.
        assert_eq!(
            denied_by_isolation(&target, "/r", &["[PATH_NOT_FOUND] /etc/nothing"]),
            None
        );
        // Without isolation nothing is its doing.
        let mut open = isolated();
        open.isolation.enabled = false;
        assert_eq!(
            denied_by_isolation(&open, "/r", &["connect ECONNREFUSED 10.0.0.1:5432"]),
            None
        );
    }

    #[test]
    fn a_denial_is_found_in_any_case_and_only_as_words_of_their_own() {
        let target = isolated();
        for said in [
            "OSError: [Errno 13] PERMISSION DENIED: '/opt/cache/index.db'",
            "open /opt/cache/index.db: eacces",
            "mkdir '/opt/cache/index.db': READ-ONLY FILE SYSTEM",
            "Error: EPERM: Operation Not Permitted, open '/opt/cache/index.db'",
        ] {
            let line = denied_by_isolation(&target, "/tmp/toolspec-abc", &[said])
                .unwrap_or_else(|| panic!("no denial found in {said:?}"));
            assert!(line.contains("`/opt/cache/index.db`"), "{said:?}: {line}");
            assert!(may_show_denial(said), "{said:?}");
        }
        // An errno name inside another word is none, and a missing file is no
        // denial: a path hidden from the server and one that is not there look
        // alike from inside.
        for said in [
            "sleepermode on for /opt/cache/index.db",
            "ENOENT: no such file or directory, open '/opt/cache/index.db'",
        ] {
            assert_eq!(
                denied_by_isolation(&target, "/tmp/toolspec-abc", &[said]),
                None,
                "{said:?}"
            );
            assert!(!may_show_denial(said), "{said:?}");
        }
    }

    /// `stderr` read as a session reads a server's: its tail and the lines it kept.
    fn kept_of(stderr: &[u8]) -> (String, Vec<String>) {
        use std::sync::atomic::AtomicBool;
        use std::sync::{Arc, Mutex};
        let tail = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::new(Mutex::new(Vec::new()));
        crate::server::runtime::thread_runtime()
            .expect("a runtime")
            .block_on(crate::server::session::keep_tail(
                stderr,
                tail.clone(),
                kept.clone(),
                Arc::new(AtomicBool::new(false)),
            ));
        let tail = String::from_utf8_lossy(&tail.lock().expect("the tail")).into_owned();
        let kept = kept.lock().expect("the kept lines").clone();
        (tail, kept)
    }

    #[test]
    fn a_denial_buried_under_a_long_traceback_is_found_through_the_kept_lines() {
        let mut stderr =
            b"PermissionError: [Errno 13] Permission denied: '/opt/cache/index.db'\n".to_vec();
        while stderr.len() < 70_000 {
            stderr.extend_from_slice(b"  File \"/usr/lib/python3/loader.py\", line 12, in load\n");
        }
        let (tail, kept) = kept_of(&stderr);
        let target = isolated();
        let root = "/tmp/toolspec-abc";
        // The tail alone has lost it, so the check below can fail.
        assert_eq!(denied_by_isolation(&target, root, &["", &tail]), None);
        let said: Vec<&str> = std::iter::once("")
            .chain(kept.iter().map(String::as_str))
            .chain([tail.as_str()])
            .collect();
        let line = denied_by_isolation(&target, root, &said).expect("a line");
        assert!(line.contains("`/opt/cache/index.db`"), "{line}");
    }

    #[test]
    fn the_kept_lines_are_the_first_few_and_each_is_cut_short() {
        // The first denial straddles two reads of the stream (8 KiB each); a
        // permission error that names no path is not kept.
        let mut stderr = vec![b'x'; 8180];
        stderr.extend_from_slice(b"\nEACCES: open '/opt/first'\nPermission denied\n");
        for n in 0..20 {
            stderr.extend_from_slice(format!("EACCES: open '/opt/{n}").as_bytes());
            stderr.extend_from_slice(&[b'a'; 3000]);
            stderr.extend_from_slice(b"'\n");
        }
        let (_, kept) = kept_of(&stderr);
        assert_eq!(kept.len(), 8, "{kept:?}");
        assert_eq!(kept[0], "EACCES: open '/opt/first'");
        assert!(
            kept[1].starts_with("EACCES: open '/opt/0aaa"),
            "{:?}",
            kept[1]
        );
        assert!(kept.iter().all(|line| line.len() <= 1024), "{kept:?}");
    }

    #[test]
    fn paths_are_cut_out_of_their_quotes() {
        let found: Vec<_> =
            absolute_paths("open '/a/b': Permission denied (\"/c\", /d.) x/y").collect();
        assert_eq!(found, ["/a/b", "/c", "/d"]);
    }
}
