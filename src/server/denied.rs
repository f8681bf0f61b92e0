//! A denied action made visible: when a scenario fails and what the server said
//! (its answer, its stderr) shows a permission error on a path outside the places
//! it may use, or a connection that could not be made, the report says the
//! isolation denied it and which key of `isolation:` would allow it. Otherwise a
//! real server failing under toolspec and not elsewhere leaves its user guessing.

use std::path::Path;

use super::isolation::Layer;
use super::Target;

/// Words of a permission error, as errno strings and as programs print them.
const PERMISSION: &[&str] = &[
    "Permission denied",
    "EACCES",
    "Operation not permitted",
    "EPERM",
    "Read-only file system",
    "EROFS",
];

/// Words of a connection that could not be made.
const NETWORK: &[&str] = &[
    "Connection refused",
    "ECONNREFUSED",
    "Network is unreachable",
    "ENETUNREACH",
    "Temporary failure in name resolution",
    "EAI_AGAIN",
    "getaddrinfo ENOTFOUND",
];

/// The line for a report, if `said` (the server's answer and stderr) shows an
/// action the isolation of `target` denied; `root` is the scenario's fixture root.
pub(crate) fn denied_by_isolation(target: &Target, root: &str, said: &[&str]) -> Option<String> {
    let layers = target.isolation_layers();
    if layers.is_empty() {
        return None;
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
    for line in said.iter().flat_map(|text| text.lines()) {
        if PERMISSION.iter().any(|word| line.contains(word)) {
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
        let cut = layers
            .iter()
            .any(|l| matches!(l, Layer::NetworkNamespace | Layer::TcpPorts));
        if cut && NETWORK.iter().any(|word| line.contains(word)) {
            return Some(
                "isolation: a connection failed, and the server's network is cut off (only \
                 its own loopback); `isolation: { allow_network: true }` opens it"
                    .to_string(),
            );
        }
    }
    None
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
    fn paths_are_cut_out_of_their_quotes() {
        let found: Vec<_> =
            absolute_paths("open '/a/b': Permission denied (\"/c\", /d.) x/y").collect();
        assert_eq!(found, ["/a/b", "/c", "/d"]);
    }
}
