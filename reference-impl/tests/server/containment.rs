//! Nothing a client does reaches outside the root: not by a symlink planted
//! in the root, and not by racing the server, swapping a directory for a
//! symlink between the server's check of a path and its use of it.

use std::collections::BTreeMap;
use std::ffi::{CString, OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::session::Session;

/// How long each dialect is raced unless `TOOLSPEC_RACE_SECONDS` says otherwise:
/// thousands of calls against as many swaps in a `cargo test` of seconds. CI
/// sets 3 (`.ci/run`), and longer races are run by hand.
const DEFAULT_RACE_SECONDS: f64 = 0.75;

/// How long each dialect is raced.
fn race_for() -> Duration {
    const NAME: &str = "TOOLSPEC_RACE_SECONDS";
    const WHAT: &str = "a non-negative number of seconds";
    let seconds = crate::util::setting_from_env(NAME, DEFAULT_RACE_SECONDS, WHAT);
    Duration::try_from_secs_f64(seconds)
        .unwrap_or_else(|_| panic!("{NAME}={seconds} is not {WHAT}"))
}

/// Text only the files outside the root hold (in content and in a name).
const SECRET: &str = "OUTSIDE-SECRET";
/// A pattern that finds [`SECRET`] without spelling it, so that an answer
/// echoing the pattern does not count as a leak.
const SECRET_PATTERN: &str = "OUTSIDE-SECRE[T]";

/// A root holding `d/f.txt` and `.d-swap`, a symlink to a folder beside the
/// root; that folder holds a file with the same name and a secret in it.
struct RaceTree {
    _root_dir: tempfile::TempDir,
    _outside_dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn race_tree() -> RaceTree {
    let root_dir = tempfile::tempdir().expect("tempdir");
    let outside_dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(root_dir.path()).expect("canonical");
    let outside = std::fs::canonicalize(outside_dir.path()).expect("canonical");
    std::fs::create_dir(root.join("d")).expect("mkdir");
    std::fs::write(root.join("d/f.txt"), "alpha\n").expect("write");
    symlink(&outside, root.join(".d-swap")).expect("symlink");
    std::fs::write(outside.join("f.txt"), format!("alpha {SECRET}\n")).expect("write");
    std::fs::write(outside.join(format!("{SECRET}.txt")), SECRET).expect("write");
    RaceTree {
        _root_dir: root_dir,
        _outside_dir: outside_dir,
        root,
        outside,
    }
}

/// Every entry under `dir` (not following links): inode, modification time
/// and content, so that any write, rename or new file shows as a difference.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, i64, i64, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).expect("list outside") {
            let path = entry.expect("entry").path();
            let meta = std::fs::symlink_metadata(&path).expect("lstat");
            if meta.is_dir() {
                pending.push(path.clone());
            }
            let content = if meta.is_file() {
                std::fs::read(&path).expect("read")
            } else {
                Vec::new()
            };
            out.insert(path, (meta.ino(), meta.mtime(), meta.mtime_nsec(), content));
        }
    }
    out
}

/// Swaps `<root>/d` and `<root>/.d-swap` (a directory and a symlink leading
/// out) atomically, over and over, until told to stop; returns the count.
fn flip_until(root: &Path, stop: &AtomicBool) -> u64 {
    let a = CString::new(root.join("d").as_os_str().as_bytes()).expect("path");
    let b = CString::new(root.join(".d-swap").as_os_str().as_bytes()).expect("path");
    let mut flips = 0;
    while !stop.load(Ordering::Relaxed) {
        // SAFETY: both are valid NUL-terminated paths; the call only renames.
        let done = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        assert_eq!(done, 0, "renameat2: {}", std::io::Error::last_os_error());
        flips += 1;
    }
    flips
}

/// The calls raced in one dialect: a read, writes of a new and an existing
/// file, edits there and back, a listing, a grep and a glob, all through `d`.
fn racing_calls(dialect: &str, root: &Path) -> Vec<(&'static str, Value)> {
    let at = |name: &str| root.join(name).display().to_string();
    match dialect {
        "boris" => vec![
            ("view", json!({"path": at("d/f.txt")})),
            ("view", json!({"path": at("d")})),
            (
                "create_file",
                json!({"path": at("d/new.txt"), "content": "new\n"}),
            ),
            (
                "create_file",
                json!({"path": at("d/f.txt"), "content": "alpha\n"}),
            ),
            (
                "str_replace",
                json!({"path": at("d/f.txt"), "old_str": "alpha", "new_str": "bravo"}),
            ),
            (
                "str_replace",
                json!({"path": at("d/f.txt"), "old_str": "bravo", "new_str": "alpha"}),
            ),
            (
                "grep",
                json!({"pattern": SECRET_PATTERN, "path": at("d"), "output_mode": "content"}),
            ),
            ("glob", json!({"pattern": "**/*", "path": at("d")})),
        ],
        "gemini-cli" => vec![
            ("read_file", json!({"absolute_path": at("d/f.txt")})),
            ("list_directory", json!({"path": at("d")})),
            (
                "write_file",
                json!({"file_path": at("d/new.txt"), "content": "new\n"}),
            ),
            (
                "write_file",
                json!({"file_path": at("d/f.txt"), "content": "alpha\n"}),
            ),
            (
                "replace",
                json!({"file_path": at("d/f.txt"), "old_string": "alpha", "new_string": "bravo"}),
            ),
            (
                "replace",
                json!({"file_path": at("d/f.txt"), "old_string": "bravo", "new_string": "alpha"}),
            ),
            (
                "search_file_content",
                json!({"pattern": SECRET_PATTERN, "path": "d"}),
            ),
            ("glob", json!({"pattern": "**/*", "path": "d"})),
        ],
        "agent-tools" => vec![
            ("read_file", json!({"path": "d/f.txt"})),
            ("list_dir", json!({"path": "d"})),
            (
                "write_file",
                json!({"path": "d/new.txt", "content": "new\n"}),
            ),
            (
                "write_file",
                json!({"path": "d/f.txt", "content": "alpha\n"}),
            ),
            (
                "edit_file",
                json!({"path": "d/f.txt", "old_string": "alpha", "new_string": "bravo"}),
            ),
            (
                "edit_file",
                json!({"path": "d/f.txt", "old_string": "bravo", "new_string": "alpha"}),
            ),
            (
                "grep",
                json!({"pattern": SECRET_PATTERN, "path": "d", "output_mode": "content"}),
            ),
            ("glob", json!({"pattern": "**/*", "path": "d"})),
        ],
        "ikigai" => vec![
            ("file_read", json!({"path": "d/f.txt"})),
            (
                "file_write",
                json!({"path": "d/new.txt", "content": "new\n"}),
            ),
            (
                "file_write",
                json!({"path": "d/f.txt", "content": "alpha\n"}),
            ),
            (
                "grep",
                json!({"pattern": SECRET_PATTERN, "path": "d", "glob": "*"}),
            ),
            // A glob without wildcards looks the file up instead of listing.
            (
                "grep",
                json!({"pattern": SECRET_PATTERN, "path": "d", "glob": "f.txt"}),
            ),
            ("glob", json!({"pattern": "*", "path": "d"})),
        ],
        other => panic!("no racing calls for {other}"),
    }
}

/// What one dialect's race found.
struct RaceOutcome {
    calls: u64,
    flips: u64,
    /// How many answers showed something from outside the root, and the
    /// first few of them.
    reads_outside: u64,
    read_examples: Vec<String>,
    /// Entries outside the root that changed.
    writes_outside: Vec<String>,
}

fn race(dialect: &str, extra: &[&OsStr]) -> RaceOutcome {
    let tree = race_tree();
    let before = snapshot(&tree.outside);
    let mut session = Session::start_quiet(dialect, &tree.root, extra);
    let stop = Arc::new(AtomicBool::new(false));
    let flips = Arc::new(AtomicU64::new(0));
    let flipper = {
        let (root, stop, flips) = (tree.root.clone(), stop.clone(), flips.clone());
        std::thread::spawn(move || flips.store(flip_until(&root, &stop), Ordering::Relaxed))
    };
    let calls = racing_calls(dialect, &tree.root);
    let deadline = Instant::now() + race_for();
    let mut made = 0u64;
    let mut reads_outside = 0u64;
    let mut read_examples = Vec::new();
    'race: loop {
        for (tool, arguments) in &calls {
            if Instant::now() > deadline {
                break 'race;
            }
            let text = session.call_text(tool, arguments.clone());
            made += 1;
            if text.contains(SECRET) {
                reads_outside += 1;
                if read_examples.len() < 3 {
                    read_examples.push(format!("{tool} {arguments}: {text}"));
                }
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    flipper.join().expect("flipper");
    drop(session);
    let after = snapshot(&tree.outside);
    let mut writes_outside: Vec<String> = after
        .iter()
        .filter(|(path, state)| before.get(*path) != Some(*state))
        .map(|(path, _)| format!("{} written", path.display()))
        .collect();
    writes_outside.extend(
        before
            .keys()
            .filter(|path| !after.contains_key(*path))
            .map(|path| format!("{} removed", path.display())),
    );
    RaceOutcome {
        calls: made,
        flips: flips.load(Ordering::Relaxed),
        reads_outside,
        read_examples,
        writes_outside,
    }
}

#[test]
fn racing_a_symlink_swap_never_reaches_outside_the_root() {
    // The dialects race at once, each with its own tree, server and swapper, so
    // the test takes one race's time instead of four.
    let racers: Vec<_> = ["boris", "gemini-cli", "agent-tools", "ikigai"]
        .into_iter()
        .map(|dialect| {
            std::thread::spawn(move || {
                // boris and ikigai confine only to their allowed directories
                // (ikigai, like rel-04, confines nothing without one): allow
                // the root.
                let extra: Vec<OsString> = if matches!(dialect, "boris" | "ikigai") {
                    vec![OsString::from("--allow-dir"), OsString::from(".")]
                } else {
                    Vec::new()
                };
                let extra: Vec<&OsStr> = extra.iter().map(OsString::as_os_str).collect();
                (dialect, race(dialect, &extra))
            })
        })
        .collect();
    let mut report = Vec::new();
    let mut escapes = Vec::new();
    for racer in racers {
        let (dialect, outcome) = racer.join().expect("a racer");
        report.push(format!(
            "{dialect}: {} calls, {} swaps, {} reads and {} writes outside",
            outcome.calls,
            outcome.flips,
            outcome.reads_outside,
            outcome.writes_outside.len()
        ));
        assert!(
            outcome.calls > 20,
            "{dialect}: too few calls to mean anything"
        );
        assert!(outcome.flips > 100, "{dialect}: the tree hardly changed");
        for escape in outcome.read_examples.iter().chain(&outcome.writes_outside) {
            escapes.push(format!("{dialect}: {escape}"));
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        escapes.is_empty(),
        "the race reached outside the root:\n{}\n{}",
        escapes.join("\n"),
        report.join("\n")
    );
}

/// gemini-cli's `read_file` refuses a symlink out of the root; its search
/// must not show what the link points to either, whether it walks past the
/// link or `include` names it.
#[test]
fn gemini_search_does_not_follow_a_symlink_out_of_the_root() {
    let root_dir = tempfile::tempdir().expect("tempdir");
    let outside_dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(root_dir.path()).expect("canonical");
    std::fs::write(outside_dir.path().join("secret.txt"), format!("{SECRET}\n")).expect("write");
    std::fs::write(
        root.join("inside.txt"),
        format!("inside, no {}\n", "secret"),
    )
    .expect("write");
    symlink(outside_dir.path().join("secret.txt"), root.join("link.txt")).expect("symlink");
    let mut session = Session::start("gemini-cli", &root, &[]);
    let read = session.call_text(
        "read_file",
        json!({"absolute_path": root.join("link.txt").display().to_string()}),
    );
    assert!(
        !read.contains(SECRET),
        "read_file showed the target: {read}"
    );
    for arguments in [
        json!({"pattern": SECRET_PATTERN}),
        json!({"pattern": SECRET_PATTERN, "include": "link.txt"}),
        json!({"pattern": SECRET_PATTERN, "include": "*.txt"}),
        json!({"pattern": SECRET_PATTERN, "path": "."}),
    ] {
        let text = session.call_text("search_file_content", arguments.clone());
        assert!(
            !text.contains(SECRET),
            "search_file_content {arguments} showed the link's target:\n{text}"
        );
        assert!(
            text.starts_with("No matches found"),
            "search_file_content {arguments}: {text}"
        );
    }
}

/// A file name that is not UTF-8 is listed, globbed and searched like any
/// other, and shown the same way in every dialect: each invalid byte
/// sequence as U+FFFD.
#[test]
fn names_that_are_not_utf8_are_listed_and_searched_in_every_dialect() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let odd = OsStr::from_bytes(b"bad-\xff.txt");
    std::fs::write(root.join(odd), "needle\n").expect("write");
    std::fs::create_dir(root.join("sub")).expect("mkdir");
    std::fs::write(root.join("sub").join(odd), "needle\n").expect("write");
    let shown = "bad-\u{fffd}.txt";
    let rooted = root.display().to_string();
    let checks: [(&str, Vec<(&str, Value)>); 4] = [
        (
            "boris",
            vec![
                ("view", json!({"path": rooted})),
                ("glob", json!({"pattern": "**/*.txt", "path": rooted})),
                ("grep", json!({"pattern": "needle", "path": rooted})),
                (
                    "grep",
                    json!({"pattern": "needle", "path": rooted, "output_mode": "content"}),
                ),
            ],
        ),
        (
            "gemini-cli",
            vec![
                ("list_directory", json!({"path": rooted})),
                ("glob", json!({"pattern": "**/*.txt"})),
                ("search_file_content", json!({"pattern": "needle"})),
            ],
        ),
        (
            "agent-tools",
            vec![
                ("list_dir", json!({"path": "."})),
                ("glob", json!({"pattern": "**/*.txt"})),
                ("grep", json!({"pattern": "needle"})),
            ],
        ),
        (
            "ikigai",
            vec![
                ("glob", json!({"pattern": "*.txt"})),
                ("glob", json!({"pattern": "sub/*.txt"})),
                ("grep", json!({"pattern": "needle", "glob": "*.txt"})),
            ],
        ),
    ];
    let mut missing = Vec::new();
    for (dialect, calls) in checks {
        let mut session = Session::start(dialect, &root, &[]);
        for (tool, arguments) in calls {
            let text = session.call_text(tool, arguments.clone());
            if !text.contains(shown) {
                missing.push(format!("{dialect} {tool} {arguments}:\n{text}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "these answers leave out (or show otherwise) the name {shown:?}:\n{}",
        missing.join("\n\n")
    );
}

/// The user and group a test running as root drops to (`nobody`), since root
/// ignores permission bits.
const UNPRIVILEGED: u32 = 65534;

/// Starts `dialect` on `root` as an unprivileged user: `nobody` when the test
/// runs as root, otherwise the test's own user, which already is one.
fn start_unprivileged(dialect: &str, root: &Path) -> Session {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        Session::start_as(dialect, root, UNPRIVILEGED, UNPRIVILEGED)
    } else {
        Session::start(dialect, root, &[])
    }
}

/// A call (tool and arguments) and a piece of text its answer must hold.
type Expected = (&'static str, Value, &'static str);

/// A folder the server may enter but not list (mode 0111) is passed through as
/// a plain `open()` would: a file below it is read and written, one in it that
/// the server may write is rewritten in place (no temporary file can be made
/// there), and only listing the folder itself is refused. agent-tools alone
/// refuses that rewrite with io_error: v0.1.0 always stages a temporary file
/// beside the target (src/lib/atomic.ts:37-49).
#[test]
fn an_unprivileged_server_reads_and_writes_below_a_folder_it_may_enter_but_not_list() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let mode = |path: &Path, bits: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(bits)).expect("chmod");
    };
    std::fs::create_dir_all(root.join("locked/inner")).expect("mkdir");
    mode(&root, 0o755);
    mode(&root.join("locked/inner"), 0o777);
    let at = |name: &str| root.join(name).display().to_string();
    let calls: [(&str, Vec<Expected>); 4] = [
        (
            "boris",
            vec![
                ("view", json!({"path": at("locked/inner/f.txt")}), "alpha"),
                ("view", json!({"path": at("locked/g.txt")}), "gamma"),
                (
                    "create_file",
                    json!({"path": at("locked/inner/new.txt"), "content": "new\n"}),
                    "Created",
                ),
                (
                    "create_file",
                    json!({"path": at("locked/g.txt"), "content": "GAMMA\n"}),
                    "Created",
                ),
                (
                    "str_replace",
                    json!({"path": at("locked/inner/f.txt"), "old_str": "alpha", "new_str": "bravo"}),
                    "Replaced",
                ),
                ("view", json!({"path": at("locked")}), "[IO_ERROR]"),
            ],
        ),
        (
            "gemini-cli",
            vec![
                (
                    "read_file",
                    json!({"absolute_path": at("locked/inner/f.txt")}),
                    "alpha",
                ),
                (
                    "read_file",
                    json!({"absolute_path": at("locked/g.txt")}),
                    "gamma",
                ),
                (
                    "write_file",
                    json!({"file_path": at("locked/inner/new.txt"), "content": "new\n"}),
                    "Successfully",
                ),
                (
                    "write_file",
                    json!({"file_path": at("locked/g.txt"), "content": "GAMMA\n"}),
                    "Successfully",
                ),
                (
                    "replace",
                    json!({"file_path": at("locked/inner/f.txt"), "old_string": "alpha", "new_string": "bravo"}),
                    "Successfully modified",
                ),
                ("list_directory", json!({"path": at("locked")}), "EACCES"),
            ],
        ),
        (
            "agent-tools",
            vec![
                ("read_file", json!({"path": "locked/inner/f.txt"}), "alpha"),
                ("read_file", json!({"path": "locked/g.txt"}), "gamma"),
                (
                    "write_file",
                    json!({"path": "locked/inner/new.txt", "content": "new\n"}),
                    "Wrote",
                ),
                (
                    "write_file",
                    json!({"path": "locked/g.txt", "content": "GAMMA\n"}),
                    "io_error",
                ),
                (
                    "edit_file",
                    json!({"path": "locked/inner/f.txt", "old_string": "alpha", "new_string": "bravo"}),
                    "Replaced 1",
                ),
                ("list_dir", json!({"path": "locked"}), "\"error\""),
            ],
        ),
        (
            "ikigai",
            vec![
                ("file_read", json!({"path": "locked/inner/f.txt"}), "alpha"),
                ("file_read", json!({"path": "locked/g.txt"}), "gamma"),
                (
                    "file_write",
                    json!({"path": "locked/inner/new.txt", "content": "new\n"}),
                    "Wrote",
                ),
                (
                    "file_write",
                    json!({"path": "locked/g.txt", "content": "GAMMA\n"}),
                    "Wrote",
                ),
                (
                    "file_write",
                    json!({"path": "locked/inner/f.txt", "content": "bravo\n"}),
                    "Wrote",
                ),
                ("glob", json!({"pattern": "locked/*"}), "\"count\":0"),
            ],
        ),
    ];
    let mut wrong = Vec::new();
    for (dialect, calls) in calls {
        // As the test's own user (root ignores the modes): a fresh tree each time.
        mode(&root.join("locked"), 0o755);
        let _ = std::fs::remove_file(root.join("locked/inner/new.txt"));
        for (name, content) in [
            ("locked/inner/f.txt", "alpha\n"),
            ("locked/g.txt", "gamma\n"),
        ] {
            std::fs::write(root.join(name), content).expect("write");
            mode(&root.join(name), 0o666);
        }
        mode(&root.join("locked"), 0o111);
        let mut session = start_unprivileged(dialect, &root);
        for (tool, arguments, expected) in calls {
            let text = session.call_text(tool, arguments.clone());
            if !text.contains(expected) {
                wrong.push(format!(
                    "{dialect} {tool} {arguments}: no {expected:?} in\n{text}"
                ));
            }
        }
        drop(session);
        mode(&root.join("locked"), 0o755);
        let rewritten = if dialect == "agent-tools" {
            "gamma\n"
        } else {
            "GAMMA\n"
        };
        for (name, content) in [
            ("locked/inner/f.txt", "bravo\n"),
            ("locked/inner/new.txt", "new\n"),
            ("locked/g.txt", rewritten),
        ] {
            let found = std::fs::read_to_string(root.join(name)).unwrap_or_else(|e| e.to_string());
            if found != content {
                wrong.push(format!(
                    "{dialect}: {name} holds {found:?}, not {content:?}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// A listing shows a symlink that leads out of the root as what it leads to (a
/// directory or not), as gemini-cli does with `fs.stat`, or (boris's tree) by
/// the link's own text; only that is read: nothing is listed or read through
/// the link, and no size of a file outside is shown (agent-tools v0.1.0 shows
/// it; the reference keeps containment first and its baseline says so).
#[test]
fn listings_show_a_link_out_of_the_root_by_its_type_and_never_go_through_it() {
    let root_dir = tempfile::tempdir().expect("tempdir");
    let outside_dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(root_dir.path()).expect("canonical");
    let outside = std::fs::canonicalize(outside_dir.path()).expect("canonical");
    std::fs::create_dir(outside.join("sub")).expect("mkdir");
    std::fs::write(outside.join("sub").join(format!("{SECRET}.txt")), "x").expect("write");
    std::fs::write(outside.join("file.txt"), format!("{SECRET}\n")).expect("write");
    symlink(outside.join("sub"), root.join("out-dir")).expect("symlink");
    symlink(outside.join("file.txt"), root.join("out-file")).expect("symlink");
    let rooted = root.display().to_string();
    let allow_root = [OsStr::new("--allow-dir"), OsStr::new(".")];
    let checks: [(&str, &[&OsStr], Vec<Expected>); 3] = [
        (
            "boris",
            &allow_root,
            vec![
                (
                    "view",
                    json!({"path": rooted}),
                    // Boris's tree names a link by its text (its target, here
                    // outside), and the next line shows it was not entered.
                    "/sub\n└── out-file -> ",
                ),
                (
                    "view",
                    json!({"path": at(&root, "out-dir")}),
                    "[ACCESS_DENIED]",
                ),
            ],
        ),
        (
            "gemini-cli",
            &[],
            vec![
                (
                    "list_directory",
                    json!({"path": rooted}),
                    "[DIR] out-dir\nout-file",
                ),
                (
                    "list_directory",
                    json!({"path": at(&root, "out-dir")}),
                    "Error",
                ),
            ],
        ),
        (
            "agent-tools",
            &[],
            vec![
                ("list_dir", json!({"path": "."}), "out-dir/\nout-file\t0"),
                ("list_dir", json!({"path": "out-dir"}), "path_escape"),
            ],
        ),
    ];
    let mut wrong = Vec::new();
    for (dialect, extra, calls) in checks {
        let mut session = Session::start(dialect, &root, extra);
        for (tool, arguments, expected) in calls {
            let text = session.call_text(tool, arguments.clone());
            if !text.contains(expected) || text.contains(SECRET) {
                wrong.push(format!(
                    "{dialect} {tool} {arguments}: want {expected:?}, got\n{text}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// `name` below `root`, as text.
fn at(root: &Path, name: &str) -> String {
    root.join(name).display().to_string()
}
