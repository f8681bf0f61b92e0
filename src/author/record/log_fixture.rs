//! One logged call made a scenario's fixture: the paths its arguments name
//! under the folder the user gives (`record --log FILE --from DIR`) are
//! rewritten to `{root}/...`, and the files and folders they name (a folder
//! with what it holds) become its `given.files`, not the whole folder; so do
//! those a longer text (a shell command) names under it. A path
//! with `..` in it, or an absolute path outside the folder, is refused naming
//! the log line: the call would reach past its fixture.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::call_log::LoggedCall;
use super::live_call::{folder_files, FixtureFileError};

/// Why a logged call cannot be recorded: an argument names a path past the
/// folder, or a file it names cannot be a fixture's. Each names the log line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LogFixtureError {
    /// A path under the folder with `..` in it.
    #[error("line {line}: argument `{at}` names {text:?}, a path with `..`; only paths inside {} are recorded", .from.display())]
    Dotted {
        line: usize,
        at: String,
        text: String,
        from: PathBuf,
    },
    /// An absolute path outside the folder (`why`: with `..`, or outside it).
    #[error("line {line}: argument `{at}` names {text:?}, {why}; only calls on paths inside {} are recorded (--log-root says where the log saw that folder)", .from.display())]
    Outside {
        line: usize,
        at: String,
        text: String,
        why: &'static str,
        from: PathBuf,
    },
    /// A path with `..` that starts inside a longer text (a command).
    #[error("line {line}: argument `{at}` names {logged}/{relative}, a path with `..`; only paths inside {} are recorded", .from.display())]
    DottedInText {
        line: usize,
        at: String,
        logged: String,
        relative: String,
        from: PathBuf,
    },
    #[error("line {line}: {source}")]
    File {
        line: usize,
        #[source]
        source: TakeError,
    },
}

/// Why a file or folder an argument names cannot be taken into the fixture.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TakeError {
    #[error("{}: reaches outside {} through a link", .path.display(), .from.display())]
    ThroughLink { path: PathBuf, from: PathBuf },
    #[error(transparent)]
    File(#[from] FixtureFileError),
}

/// A logged call as it is recorded: arguments with `{root}`, and its fixture.
#[derive(Debug, PartialEq)]
pub(crate) struct CallFixture {
    pub args: Map<String, Value>,
    pub files: BTreeMap<String, Option<String>>,
}

/// Where the logged session's folder is now (`from`), and its path as the log
/// names it (`logged`: the folder's own path unless the log was written
/// elsewhere).
pub(crate) struct Folder<'a> {
    pub from: &'a Path,
    pub logged: &'a str,
}

/// The fixture and arguments of `call`.
pub(crate) fn call_fixture(
    call: &LoggedCall,
    folder: &Folder<'_>,
) -> Result<CallFixture, LogFixtureError> {
    let mut files = BTreeMap::new();
    let mut args = Map::new();
    for (key, value) in &call.args {
        let value = rewritten(value, key, call.line, folder, &mut files)?;
        args.insert(key.clone(), value);
    }
    Ok(CallFixture { args, files })
}

fn rewritten(
    value: &Value,
    at: &str,
    line: usize,
    folder: &Folder<'_>,
    files: &mut BTreeMap<String, Option<String>>,
) -> Result<Value, LogFixtureError> {
    Ok(match value {
        Value::String(text) => Value::String(rewritten_text(text, at, line, folder, files)?),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| rewritten(v, &format!("{at}[{i}]"), line, folder, files))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, v) in map {
                out.insert(
                    key.clone(),
                    rewritten(v, &format!("{at}.{key}"), line, folder, files)?,
                );
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

/// One string argument: a path under the folder rewritten (and its file or
/// folder taken into the fixture); the folder named inside a longer text (a
/// command) rewritten where it stands as a whole path.
fn rewritten_text(
    text: &str,
    at: &str,
    line: usize,
    folder: &Folder<'_>,
    files: &mut BTreeMap<String, Option<String>>,
) -> Result<String, LogFixtureError> {
    let logged = folder.logged.trim_end_matches('/');
    let under = match text.strip_prefix(logged) {
        Some("") => Some(""),
        // Every leading slash: `ROOT//etc` joined to the folder must not be `/etc`.
        Some(rest) => rest.starts_with('/').then(|| rest.trim_start_matches('/')),
        None => None,
    };
    let dotted = |path: &str| path.split('/').any(|part| part == "..");
    if let Some(relative) = under {
        if dotted(relative) {
            return Err(LogFixtureError::Dotted {
                line,
                at: at.to_string(),
                text: text.to_string(),
                from: folder.from.to_path_buf(),
            });
        }
        let relative = relative.trim_end_matches('/');
        take(folder.from, relative, files)
            .map_err(|source| LogFixtureError::File { line, source })?;
        return Ok(if relative.is_empty() {
            "{root}".to_string()
        } else {
            format!("{{root}}/{relative}")
        });
    }
    if text.starts_with('/') && !text.contains(char::is_whitespace) {
        let why = if dotted(text) {
            "a path with `..`"
        } else {
            "outside the folder"
        };
        return Err(LogFixtureError::Outside {
            line,
            at: at.to_string(),
            text: text.to_string(),
            why,
            from: folder.from.to_path_buf(),
        });
    }
    whole_paths_replaced(text, logged, |relative| {
        if dotted(relative) {
            return Err(LogFixtureError::DottedInText {
                line,
                at: at.to_string(),
                logged: logged.to_string(),
                relative: relative.to_string(),
                from: folder.from.to_path_buf(),
            });
        }
        take(folder.from, relative, files).map_err(|source| LogFixtureError::File { line, source })
    })
}

/// `text` with each occurrence of `logged` that is a whole path (followed by
/// `/`, the end, or a character no path name goes on with) written `{root}`,
/// and the path it starts (up to a space, a quote or a shell operator) handed
/// to `found`, relative to it.
fn whole_paths_replaced<E>(
    text: &str,
    logged: &str,
    mut found: impl FnMut(&str) -> Result<(), E>,
) -> Result<String, E> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(logged) {
        let after = &rest[at + logged.len()..];
        let whole = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '-')));
        out.push_str(&rest[..at]);
        out.push_str(if whole { "{root}" } else { logged });
        if whole {
            let path_end = after
                .find(|c: char| c.is_whitespace() || "'\"`;|&<>(){}$,".contains(c))
                .unwrap_or(after.len());
            let relative = after[..path_end]
                .trim_start_matches('/')
                .trim_end_matches('/');
            found(relative)?;
        }
        rest = after;
    }
    out.push_str(rest);
    Ok(out)
}

/// The file or folder `relative` of `from` into `files`: a file's text, a
/// folder's files (or the folder itself when empty); nothing when there is
/// none (a call that makes it).
fn take(
    from: &Path,
    relative: &str,
    files: &mut BTreeMap<String, Option<String>>,
) -> Result<(), TakeError> {
    let path = from.join(relative);
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return Ok(());
    };
    // A link among the folders above it would lead out of the folder.
    let parent = path.parent().map(std::fs::canonicalize);
    if !matches!(parent, Some(Ok(ref at)) if at.starts_with(from)) {
        return Err(TakeError::ThroughLink {
            path,
            from: from.to_path_buf(),
        });
    }
    let prefix = |name: &str| {
        if relative.is_empty() {
            name.to_string()
        } else {
            format!("{relative}/{name}")
        }
    };
    if meta.is_dir() {
        let inside = folder_files(&path)?;
        if inside.is_empty() && !relative.is_empty() {
            files.insert(format!("{relative}/"), None);
        }
        files.extend(inside.into_iter().map(|(name, text)| (prefix(&name), text)));
    } else if meta.is_file() {
        let text = std::fs::read_to_string(&path).map_err(|source| FixtureFileError::NotText {
            path: path.clone(),
            source,
        })?;
        files.insert(relative.to_string(), Some(text));
    } else {
        return Err(FixtureFileError::NotAFile(path).into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fixture_of(args: Value, from: &Path, logged: &str) -> Result<CallFixture, LogFixtureError> {
        let Value::Object(args) = args else {
            panic!("arguments are an object")
        };
        let call = LoggedCall {
            line: 7,
            tool: "view".into(),
            args,
        };
        call_fixture(&call, &Folder { from, logged })
    }

    #[test]
    fn named_files_and_folders_come_and_nothing_else() {
        let dir = tempfile::tempdir().expect("a folder");
        let from = dir.path();
        std::fs::create_dir_all(from.join("src/empty")).expect("folders");
        std::fs::write(from.join("a.txt"), "alpha\n").expect("a.txt");
        std::fs::write(from.join("b.txt"), "not named\n").expect("b.txt");
        std::fs::write(from.join("c.txt"), "named in a command\n").expect("c.txt");
        std::fs::write(from.join("src/lib.rs"), "fn x() {}\n").expect("lib.rs");
        let made = fixture_of(
            json!({
                "path": "/home/u/proj/a.txt",
                "paths": ["/home/u/proj/src", "/home/u/proj/new.txt"],
                "command": "cat /home/u/proj/a.txt /home/u/project2/x && wc '/home/u/proj/c.txt'",
                "limit": 3
            }),
            from,
            "/home/u/proj",
        )
        .expect("a fixture");
        assert_eq!(made.args["path"], "{root}/a.txt");
        assert_eq!(made.args["paths"], json!(["{root}/src", "{root}/new.txt"]));
        assert_eq!(
            made.args["command"],
            "cat {root}/a.txt /home/u/project2/x && wc '{root}/c.txt'"
        );
        assert_eq!(made.args["limit"], 3);
        let names: Vec<&str> = made.files.keys().map(String::as_str).collect();
        assert_eq!(names, ["a.txt", "c.txt", "src/empty/", "src/lib.rs"]);
        assert_eq!(made.files["a.txt"].as_deref(), Some("alpha\n"));
    }

    #[test]
    fn a_path_past_the_folder_is_refused_naming_the_line() {
        let dir = tempfile::tempdir().expect("a folder");
        std::os::unix::fs::symlink("/etc", dir.path().join("out")).expect("a link");
        let from = dir.path().canonicalize().expect("canonical");
        let why = fixture_of(
            json!({"path": "/home/u/proj/out/passwd"}),
            &from,
            "/home/u/proj",
        )
        .expect_err("through a link")
        .to_string();
        assert!(why.contains("reaches outside"), "{why}");
        let made = fixture_of(
            json!({"path": "/home/u/proj//etc/passwd"}),
            &from,
            "/home/u/proj",
        )
        .expect("a path in the folder, which has no etc/");
        assert!(made.files.is_empty(), "{:?}", made.files);
        for (args, want) in [
            (
                json!({"path": "/home/u/proj/../secret"}),
                "a path with `..`",
            ),
            (json!({"path": "/etc/passwd"}), "outside the folder"),
            (
                json!({"edits": [{"path": "/home/u/other/a"}]}),
                "`edits[0].path`",
            ),
        ] {
            let why = fixture_of(args, dir.path(), "/home/u/proj")
                .expect_err(want)
                .to_string();
            assert!(why.starts_with("line 7: "), "{why}");
            assert!(why.contains(want), "{why}");
        }
    }
}
