//! `glob`: the files (not directories) under a directory whose path relative
//! to it matches the pattern, as node-glob matches (`*.txt` stays at the top
//! level, `**/*.txt` goes down), dotfiles included, `.git` and
//! `node_modules` skipped, case ignored unless `case_sensitive`.
//!
//! Order, as gemini-cli sorts: files modified in the last 24 hours first,
//! newest first; then the rest by path. A link's time is its own, not that
//! of what it leads to (node-glob lstats what it finds). Paths are absolute,
//! under the search directory as named (not its symlink target).

use std::cmp::Ordering;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use rmcp::model::JsonObject;

use crate::dialects::gemini_cli::confine::{self, Refusal};
use crate::dialects::gemini_cli::mutations::Mutation;
use crate::dialects::gemini_cli::order::locale_cmp;
use crate::dialects::gemini_cli::params::Params;
use crate::dialects::gemini_cli::{invalid_params, plain_error, sentence, Context, Outcome};
use crate::dialects::Reply;
use crate::engine::walk::{walk_until, DirLinks, NoPrune};

use crate::dialects::common::node_glob::node_glob;

/// How recent a file must be to be listed by time rather than by path.
pub(crate) const RECENT: Duration = Duration::from_secs(24 * 60 * 60);

/// One file found, with what the order needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) path: String,
    pub(crate) modified: Option<SystemTime>,
}

pub(crate) fn glob(ctx: &Context, raw: &JsonObject) -> Outcome {
    let params = Params::new(raw, &["pattern"]).map_err(invalid_params)?;
    let pattern = params.string("pattern").map_err(invalid_params)?;
    let path_arg = params.opt_string("path").map_err(invalid_params)?;
    let case_sensitive = params
        .opt_bool("case_sensitive")
        .map_err(invalid_params)?
        .unwrap_or(false);
    let dir_arg = path_arg
        .as_deref()
        .filter(|p| !p.is_empty())
        .unwrap_or(".")
        .to_string();
    let absolute = confine::resolved_display(ctx, &dir_arg);
    // What the messages call the search directory: the resolved one, or, under
    // the `glob-dir-as-sent` mutation, the `path` argument as sent if any.
    let named_dir = match path_arg.as_deref() {
        Some(sent) if !sent.is_empty() && ctx.mutations.is_active(Mutation::GlobDirAsSent) => {
            sent.to_string()
        }
        _ => absolute.clone(),
    };
    let real = confine::within_root(ctx, &dir_arg).map_err(|refusal| {
        invalid_params(match refusal {
            Refusal::Relative | Refusal::OutsideRoot => format!(
                "Search path (\"{absolute}\") resolves outside the tool's root directory (\"{}\").",
                ctx.policy.root().display()
            ),
            Refusal::Unusable(why) => why,
        })
    })?;
    match ctx.policy.stat(&real) {
        Err(_) => {
            return Err(invalid_params(format!(
                "Search path does not exist {named_dir}"
            )))
        }
        Ok(meta) if !meta.is_dir() => {
            return Err(invalid_params(format!(
                "Search path is not a directory: {named_dir}"
            )))
        }
        Ok(_) => {}
    }
    if pattern.trim().is_empty() {
        return Err(invalid_params("The 'pattern' parameter cannot be empty."));
    }
    let matcher = node_glob(&pattern, !case_sensitive)
        .map_err(|err| plain_error(format!("Error during glob search operation: {err}")))?;
    let relative_paths = ctx.mutations.is_active(Mutation::RelativeGlobPaths);
    let base = PathBuf::from(&absolute);
    let mut found: Vec<Found> = Vec::new();
    // node-glob's `nodir` walk without `follow` lists a link to a folder,
    // or to nothing, as a file of its own (tools/glob.js:132).
    let _ = walk_until(&ctx.policy, &real, &mut NoPrune, DirLinks::Listed, &mut |entry| {
        if entry.is_dir {
            return ControlFlow::Continue(());
        }
        let matches = if pattern.starts_with('/') {
            matcher.is_match(base.join(&entry.relative))
        } else {
            matcher.is_match(&entry.relative)
        };
        if !matches {
            return ControlFlow::Continue(());
        }
        found.push(Found {
            path: if relative_paths {
                entry.relative.clone()
            } else {
                base.join(&entry.relative).display().to_string()
            },
            // node-glob's `stat: true` lstats: a link sorts by its own time.
            modified: entry.own_modified(),
        });
        ControlFlow::Continue(())
    });
    if found.is_empty() {
        return Ok(Reply::text(sentence(
            ctx,
            format!("No files found matching pattern \"{pattern}\" within {named_dir}"),
        )));
    }
    if ctx.mutations.is_active(Mutation::GlobPathOrder) {
        found.sort_by(|a, b| locale_cmp(&a.path, &b.path));
    } else {
        sort_found(&mut found, SystemTime::now());
    }
    let list: Vec<&str> = found.iter().map(|f| f.path.as_str()).collect();
    Ok(Reply::text(format!(
        "Found {} file(s) matching \"{pattern}\" within {named_dir}, sorted by modification time (newest first):\n{}",
        found.len(),
        list.join("\n")
    )))
}

/// Recent files (modified within [`RECENT`] of `now`) first, newest first;
/// then the others by path. Equal times fall back to path order.
pub(crate) fn sort_found(found: &mut [Found], now: SystemTime) {
    let cutoff = now.checked_sub(RECENT);
    let recent = |f: &Found| match (f.modified, cutoff) {
        (Some(m), Some(c)) => m > c,
        _ => false,
    };
    found.sort_by(|a, b| match (recent(a), recent(b)) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (true, true) => b
            .modified
            .cmp(&a.modified)
            .then_with(|| locale_cmp(&a.path, &b.path)),
        (false, false) => locale_cmp(&a.path, &b.path),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_files_lead_newest_first_then_paths() {
        let now = SystemTime::now();
        let at = |path: &str, ago: u64| Found {
            path: path.into(),
            modified: Some(now - Duration::from_secs(ago)),
        };
        let mut found = vec![
            at("/r/a-old.txt", 3 * 86_400),
            at("/r/b-recent.txt", 7_200),
            at("/r/c-newest.txt", 60),
            at("/r/0-old.txt", 2 * 86_400),
        ];
        sort_found(&mut found, now);
        let order: Vec<&str> = found.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            order,
            vec![
                "/r/c-newest.txt",
                "/r/b-recent.txt",
                "/r/0-old.txt",
                "/r/a-old.txt"
            ]
        );
    }
}
