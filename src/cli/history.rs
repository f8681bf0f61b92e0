//! `toolspec history`: one suite across the releases of one program, from JSON
//! reports already written, as a folder a CI job can publish: the history page
//! (`index.html`), `history.json` and `history.md` (for a job summary). The
//! releases come in order from repeated `--run LABEL=FILE`, or from a folder whose
//! `releases.txt` names them.

use std::path::{Path, PathBuf};

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use crate::report::history::{history_json, history_markdown, history_text, History};
use crate::report::matrix::clause_order;
use crate::report::matrix::{Column, Matrix};
use crate::report::{history_page, read_json};

/// The index file of a `--releases` folder.
pub(crate) const RELEASES_INDEX: &str = "releases.txt";

/// `toolspec history`.
#[derive(clap::Args, Debug)]
pub(crate) struct HistoryArgs {
    /// A release and its JSON report (`run --json`), as `LABEL=FILE`; repeat,
    /// oldest release first.
    #[arg(
        long = "run",
        value_name = "LABEL=FILE",
        required_unless_present = "releases",
        conflicts_with = "releases"
    )]
    run: Vec<String>,
    /// A folder of JSON reports with a `releases.txt` naming them oldest first, one
    /// `LABEL=FILE` a line (FILE relative to the folder; `#` starts a comment).
    #[arg(long, value_name = "DIR")]
    releases: Option<PathBuf>,
    /// The folder to write into (made if missing).
    #[arg(long)]
    out: PathBuf,
    /// The page's heading (default: the suite and how many releases).
    #[arg(long)]
    title: Option<String>,
}

/// One release as given: its label and its JSON report.
struct Named {
    label: String,
    report: PathBuf,
}

pub(crate) fn history(args: &HistoryArgs, specs: Option<&Path>) -> Result<Outcome, CliError> {
    let named = match &args.releases {
        Some(dir) => from_index(dir)?,
        None => args
            .run
            .iter()
            .map(|given| {
                label_and_file(given)
                    .map(|(label, file)| Named {
                        label,
                        report: PathBuf::from(file),
                    })
                    .ok_or_else(|| {
                        CliError::History(format!(
                            "--run `{given}`: expected LABEL=FILE, a release's name and its JSON report"
                        ))
                    })
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    if named.len() < 2 {
        return Err(CliError::History(format!(
            "a history needs at least two releases, got {}",
            named.len()
        )));
    }
    for (at, n) in named.iter().enumerate() {
        if named[..at].iter().any(|m| m.label == n.label) {
            return Err(CliError::History(format!(
                "release `{}` is named twice",
                n.label
            )));
        }
    }
    let mut columns: Vec<Column> = Vec::new();
    for n in &named {
        let (run, reports) = read_json(&n.report)?;
        if let Some(first) = columns.first() {
            let names = |run: &crate::report::RunFacts| -> Vec<String> {
                let mut names: Vec<String> = run.suites.iter().map(|s| s.name.clone()).collect();
                names.sort();
                names
            };
            if names(&first.run) != names(&run) {
                return Err(CliError::History(format!(
                    "{} (release `{}`) is a run of suite(s) `{}`, but {} (release `{}`) of `{}`: a history follows the same suite across releases",
                    n.report.display(),
                    n.label,
                    names(&run).join(", "),
                    named[0].report.display(),
                    named[0].label,
                    names(&first.run).join(", ")
                )));
            }
        }
        columns.push(Column::new(n.label.clone(), run, reports));
    }
    let suites: Vec<String> = columns[0]
        .run
        .suites
        .iter()
        .map(|s| s.name.clone())
        .collect();
    let (order, unknown) = clause_order(specs, &suites);
    for name in unknown {
        say(format_args!(
            "note: no clause index of suite `{name}` here; its rows are in the reports' order"
        ));
    }
    let title = args.title.clone().unwrap_or_else(|| {
        format!(
            "toolspec: {} across {} releases",
            suites.join(", "),
            columns.len()
        )
    });
    let history = History::new(Matrix::new(title, columns, &order));
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CliError::WriteReport { path, source }
    };
    std::fs::create_dir_all(&args.out).map_err(failed(&args.out))?;
    let write = |name: &str, text: &str| {
        let path = args.out.join(name);
        std::fs::write(&path, text).map_err(failed(&path))
    };
    write("index.html", &history_page(&history))?;
    let json = history_json(&history).map_err(failed(&args.out.join("history.json")))?;
    write("history.json", &json)?;
    write("history.md", &history_markdown(&history))?;
    // Line by line through `say`, which makes a server's control characters inert.
    for line in history_text(&history).lines() {
        say(line);
    }
    say(format_args!(
        "wrote {} (index.html, history.json, history.md)",
        args.out.display()
    ));
    Ok(Outcome::Held)
}

/// `LABEL=FILE`, each part trimmed and neither empty.
fn label_and_file(given: &str) -> Option<(String, String)> {
    let (label, file) = given.split_once('=')?;
    let (label, file) = (label.trim(), file.trim());
    (!label.is_empty() && !file.is_empty()).then(|| (label.to_string(), file.to_string()))
}

/// The releases `dir/releases.txt` names, in its order, their files under `dir`.
fn from_index(dir: &Path) -> Result<Vec<Named>, CliError> {
    let index = dir.join(RELEASES_INDEX);
    let text = std::fs::read_to_string(&index).map_err(|e| {
        CliError::History(format!(
            "cannot read {}: {e} (a --releases folder names its reports there, oldest first, one LABEL=FILE a line)",
            index.display()
        ))
    })?;
    let mut named = Vec::new();
    for (at, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let (label, file) = label_and_file(line).ok_or_else(|| {
            CliError::History(format!(
                "{}:{}: expected LABEL=FILE, got `{}`",
                index.display(),
                at + 1,
                crate::visible::excerpt(line, 120)
            ))
        })?;
        named.push(Named {
            label,
            report: dir.join(file),
        });
    }
    Ok(named)
}
