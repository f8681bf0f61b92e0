//! What `read_file` makes of a file from its name alone, before it looks at a
//! byte, as gemini-cli 0.1.13 decides (`detectFileType`,
//! `utils/fileUtils.js:84-148` of the installed package): a TypeScript name
//! is text whatever it holds, an SVG name is shown whole, a name with one of
//! 28 extensions is a binary file unread, and any other name is left to the
//! content sniff. The extension is Node's `path.extname` of the path as sent,
//! lower-cased, so a link is judged by its own name, not its target's.
//!
//! Not modelled: names the `mime-types` package calls an image, audio, video
//! or PDF (`fileUtils.js:94-107`), which 0.1.13 sends as inline data; here
//! they go to the content sniff like any other name.

/// What a file's name says about how to show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameVerdict {
    /// `.ts`: text, whatever its bytes (`fileUtils.js:88-90`).
    Text,
    /// `.svg`: the whole text, with no window (`fileUtils.js:91-93, 194-206`).
    Svg,
    /// An extension called binary outright (`fileUtils.js:111-142`).
    Binary,
    /// Any other name: the content decides (`fileUtils.js:145`).
    ByContent,
}

/// The extensions 0.1.13 calls binary without reading the file.
const BINARY_EXTENSIONS: &[&str] = &[
    ".zip", ".tar", ".gz", ".exe", ".dll", ".so", ".class", ".jar", ".war", ".7z", ".doc",
    ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".bin", ".dat", ".obj",
    ".o", ".a", ".lib", ".wasm", ".pyc", ".pyo",
];

/// What the name of `path` (as the caller sent it) says.
pub(crate) fn name_verdict(path: &str) -> NameVerdict {
    let extension = node_extname(path).to_lowercase();
    match extension.as_str() {
        ".ts" => NameVerdict::Text,
        ".svg" => NameVerdict::Svg,
        known if BINARY_EXTENSIONS.contains(&known) => NameVerdict::Binary,
        _ => NameVerdict::ByContent,
    }
}

/// Node's `path.extname` (POSIX): from the last `.` of the last component
/// (trailing slashes ignored) to its end; empty when there is no dot, when
/// the only dot starts the name (`.bin`), or for `..`.
fn node_extname(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    let name = trimmed.rsplit('/').next().unwrap_or(trimmed);
    match name.rfind('.') {
        None | Some(0) => "",
        Some(_) if name == ".." => "",
        Some(dot) => &name[dot..],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_is_what_node_calls_it() {
        assert_eq!(node_extname("/r/a.bin"), ".bin");
        assert_eq!(node_extname("/r/.bin"), "");
        assert_eq!(node_extname("/r/..bin"), ".bin");
        assert_eq!(node_extname("/r/a.tar.gz"), ".gz");
        assert_eq!(node_extname("/r/a."), ".");
        assert_eq!(node_extname("/r/a.bin/"), ".bin");
        assert_eq!(node_extname("/r/x.bin/.."), "");
        assert_eq!(node_extname("/r/bin"), "");
    }

    #[test]
    fn names_decide_before_content() {
        assert_eq!(name_verdict("/r/blob.bin"), NameVerdict::Binary);
        assert_eq!(name_verdict("/r/LIB.A"), NameVerdict::Binary);
        assert_eq!(name_verdict("/r/main.ts"), NameVerdict::Text);
        assert_eq!(name_verdict("/r/logo.SVG"), NameVerdict::Svg);
        assert_eq!(name_verdict("/r/a.txt"), NameVerdict::ByContent);
        assert_eq!(name_verdict("/r/.bin"), NameVerdict::ByContent);
        assert_eq!(name_verdict("/r/binary"), NameVerdict::ByContent);
    }
}
