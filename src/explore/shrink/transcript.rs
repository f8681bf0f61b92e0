//! A shrunk case run once more, this time keeping everything the scenario writer
//! needs: each call's two answers (each side's root written `{root}`) and, for a
//! files difference, the files each side left under its root. What comes out is
//! the writer's own description of a case, so explore's types stay here.

use std::collections::BTreeMap;
use std::path::Path;

use cap_std::fs::Dir;
use serde_json::{Map, Value};

use crate::author::{Answer, FilesAfter, FixtureEntry, Kind, Observed, RecordedCall};
use crate::explore::compare::differential::{start_both, Divergence, Live, Sides};
use crate::explore::compare::levels::Level;
use crate::explore::generate::argument_gen::{NO_TASK, TASK};
use crate::explore::generate::call::GeneratedCall;
use crate::explore::generate::case::Case;
use crate::server::outcome::CallOutcome;

/// The writer's kind of a divergence level: a side that broke is read as the
/// convention reads an answer, the others as they are.
fn kind(level: Level) -> Kind {
    match level {
        Level::Escape => Kind::Escape,
        Level::Broken | Level::Convention => Kind::Convention,
        Level::Text => Kind::Text,
        Level::Files => Kind::Files,
    }
}

fn answer(outcome: CallOutcome, live: &Live) -> Answer {
    match outcome {
        CallOutcome::Result(result) => Answer::Result {
            is_error: result.is_error,
            text: live.as_written(&result.text),
        },
        CallOutcome::Protocol { code, message } => Answer::Protocol {
            code,
            message: live.as_written(&message),
        },
        other => Answer::Broken(other.summary()),
    }
}

/// The fixture as the writer gives it: every file, folder and link, with its age
/// and mode.
fn fixture_entries(case: &Case) -> BTreeMap<String, FixtureEntry> {
    let fixture = &case.fixture;
    let mut entries: BTreeMap<String, FixtureEntry> = fixture
        .folders()
        .into_iter()
        .map(|name| (name, FixtureEntry::default()))
        .collect();
    for (name, text) in fixture.files() {
        entries.insert(
            name.to_string(),
            FixtureEntry {
                text: Some(text.to_string()),
                ..FixtureEntry::default()
            },
        );
    }
    for (name, target) in &fixture.links {
        entries.insert(
            name.clone(),
            FixtureEntry {
                symlink: Some(target.clone()),
                ..FixtureEntry::default()
            },
        );
    }
    for (name, entry) in &mut entries {
        entry.age = fixture.ages.get(name.trim_end_matches('/')).copied();
        entry.mode = fixture.modes.get(name.trim_end_matches('/')).copied();
    }
    entries
}

/// The files under a side's root: path -> text. Folders and links are left out
/// (a file's path names its folders), as is a file over 1 MiB.
fn files_under_root(live: &Live) -> FilesAfter {
    let mut files = FilesAfter::new();
    collect(live.fixture.handle(), Path::new(""), &mut files);
    files
}

fn collect(dir: &Dir, folder: &Path, files: &mut FilesAfter) {
    let entries = if folder.as_os_str().is_empty() {
        dir.entries()
    } else {
        dir.read_dir(folder)
    };
    for entry in entries.into_iter().flatten().flatten() {
        let path = folder.join(entry.file_name());
        match entry.file_type() {
            Ok(t) if t.is_dir() => collect(dir, &path, files),
            Ok(t) if t.is_file() => {
                let small = entry.metadata().is_ok_and(|m| m.len() <= 1 << 20);
                if let (true, Ok(bytes)) = (small, dir.read(&path)) {
                    files.insert(
                        path.display().to_string(),
                        String::from_utf8_lossy(&bytes).into_owned(),
                    );
                }
            }
            _ => {}
        }
    }
}

/// `args` with each `{task}` argument made [`NO_TASK`].
fn without_task_hole(args: &Map<String, Value>) -> Map<String, Value> {
    let hole = format!("{{{TASK}}}");
    args.iter()
        .map(|(name, value)| match value.as_str() {
            Some(text) if text == hole => (name.clone(), Value::String(NO_TASK.to_string())),
            _ => (name.clone(), value.clone()),
        })
        .collect()
}

/// `{task: <tasks.started>}` when `outcome` started a background task and a call
/// of `later` reads one, so the written scenario captures the id the server
/// chooses instead of holding a literal.
fn task_capture(
    sides: &Sides<'_>,
    outcome: &CallOutcome,
    later: &[GeneratedCall],
) -> BTreeMap<String, String> {
    let hole = format!("{{{TASK}}}");
    let read_later = later
        .iter()
        .any(|c| c.args.values().any(|v| v.as_str() == Some(hole.as_str())));
    match sides.tasks {
        Some(tasks) if read_later && tasks.started.is_match(&outcome.answer_text(usize::MAX)) => {
            BTreeMap::from([(TASK.to_string(), tasks.started.as_str().to_string())])
        }
        _ => BTreeMap::new(),
    }
}

/// A shrunk case could not be described: one of its sides did not start when it
/// was run again.
#[derive(Debug, thiserror::Error)]
#[error("a side did not start when the case was run again")]
pub(crate) struct SideDidNotStart;

/// Runs `case` (shrunk, ending at the call that diverged) on both sides and
/// describes it for the writer.
pub(crate) async fn observe(
    sides: &Sides<'_>,
    case: &Case,
    divergence: &Divergence,
    key: String,
    provenance: String,
) -> Result<Observed, SideDidNotStart> {
    let (oracle, subject) = start_both(sides, case).await;
    let (mut oracle, mut subject) = match (oracle, subject) {
        (Ok(o), Ok(s)) => (o, s),
        (o, s) => {
            for live in [o.ok(), s.ok()].into_iter().flatten() {
                let _ = live.session.stop().await;
            }
            return Err(SideDidNotStart);
        }
    };
    let mut calls: Vec<RecordedCall> = Vec::new();
    let mut captured = false;
    for (index, call) in case.calls.iter().enumerate() {
        let (o, s) = tokio::join!(
            oracle.call(sides, sides.oracle, call),
            subject.call(sides, sides.subject, call)
        );
        // Before any call captures a task's id, `{task}` stood for NO_TASK, and
        // is written so: a scenario may use only what it captured.
        let args = if captured {
            call.args.clone()
        } else {
            without_task_hole(&call.args)
        };
        let capture = task_capture(sides, &o, &case.calls[index + 1..]);
        captured |= !capture.is_empty();
        calls.push(RecordedCall {
            tool: call.tool.clone(),
            args,
            oracle: answer(o, &oracle),
            subject: Some(answer(s, &subject)),
            capture,
        });
    }
    let level = divergence.difference.level;
    let files_after =
        (level == Level::Files).then(|| (files_under_root(&oracle), files_under_root(&subject)));
    let _ = tokio::join!(oracle.session.stop(), subject.session.stop());
    Ok(Observed {
        key,
        kind: kind(level),
        fixture: fixture_entries(case),
        outside: case.fixture.outside.clone(),
        settings: case.settings.clone(),
        calls,
        files_after,
        provenance,
        server_chosen: sides.masks.to_vec(),
    })
}
