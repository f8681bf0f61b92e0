//! How a file name that is not valid UTF-8 is shown.
//!
//! Results are JSON text, so such a name cannot be sent as it is. Every
//! listing, walk and message shows it the same way, in every dialect: each
//! byte sequence that is not UTF-8 becomes U+FFFD (as Go's JSON encoder and
//! Node's `readdir` show it upstream). The entry is still listed, searched and
//! read under its real bytes; only its shown name is replaced.

use std::ffi::OsStr;

/// `name` as shown in results: itself when it is UTF-8, otherwise with
/// U+FFFD for each invalid sequence.
pub(crate) fn display_name(name: &OsStr) -> String {
    name.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn invalid_bytes_show_as_replacement_characters() {
        assert_eq!(display_name(OsStr::new("plain.txt")), "plain.txt");
        let name = OsStr::from_bytes(b"bad-\xff\xfe.txt");
        assert_eq!(display_name(name), "bad-\u{fffd}\u{fffd}.txt");
    }
}
