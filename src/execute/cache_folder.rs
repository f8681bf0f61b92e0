//! toolspec's cache folder: what one run leaves for the next so that it goes
//! faster (the scenarios that killed each mutation, how long each scenario
//! took). Everything kept there is a cache, not data: it only changes the order
//! work is done in, never a verdict, so a missing, unreadable or malformed file
//! counts as an empty one.
//!
//! The folder is `$TOOLSPEC_CACHE_DIR`, else `$XDG_CACHE_HOME/toolspec`, else
//! `$HOME/.cache/toolspec`.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The variable that names toolspec's cache folder, before the XDG defaults.
pub(crate) const CACHE_DIR_ENV: &str = "TOOLSPEC_CACHE_DIR";

/// The path of `file_name` in the cache folder, as the environment `var` reads
/// names it; `None` when no variable names a folder.
pub(crate) fn cache_file(var: impl Fn(&str) -> Option<String>, file_name: &str) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let folder = set(CACHE_DIR_ENV)
        .or_else(|| set("XDG_CACHE_HOME").map(|d| d.join("toolspec")))
        .or_else(|| set("HOME").map(|d| d.join(".cache").join("toolspec")))?;
    Some(folder.join(file_name))
}

/// [`cache_file`] as the process's environment names the folder.
pub(crate) fn cache_file_here(file_name: &str) -> Option<PathBuf> {
    cache_file(|name| std::env::var(name).ok(), file_name)
}

/// Writes `value` to `path` as pretty JSON, whole or not at all: into a
/// temporary file beside it, then renamed over it, so that two runs ending at
/// once never leave a torn file (the last one's wins).
pub(crate) fn write_json(path: &Path, value: &impl serde::Serialize) -> std::io::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)?;
    let mut file = std::io::BufWriter::new(tempfile::NamedTempFile::new_in(folder)?);
    serde_json::to_writer_pretty(&mut file, value)?;
    file.write_all(b"\n")?;
    let file = file.into_inner().map_err(|e| e.into_error())?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_the_first_variable_set() {
        fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            }
        }
        let all = [
            (CACHE_DIR_ENV, "/c"),
            ("XDG_CACHE_HOME", "/x"),
            ("HOME", "/h"),
        ];
        assert_eq!(
            cache_file(env(&all), "f.json"),
            Some(PathBuf::from("/c/f.json"))
        );
        assert_eq!(
            cache_file(
                env(&[(CACHE_DIR_ENV, ""), ("XDG_CACHE_HOME", "/x")]),
                "f.json"
            ),
            Some(PathBuf::from("/x/toolspec/f.json"))
        );
        assert_eq!(
            cache_file(env(&[("HOME", "/h")]), "f.json"),
            Some(PathBuf::from("/h/.cache/toolspec/f.json"))
        );
        assert_eq!(cache_file(env(&[]), "f.json"), None);
    }
}
