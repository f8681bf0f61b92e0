//! `list_directory`: `Directory listing for <path>:` and one entry per line,
//! directories first with a `[DIR] ` prefix, each group in name order.
//!
//! Like upstream (which calls `fs.stat` on each entry), a symlink is listed as
//! what it leads to, even outside the root: only that type is read, and a
//! dangling link is left out.

use rmcp::model::JsonObject;

use crate::dialects::gemini_cli::confine::{self, Refusal};
use crate::dialects::gemini_cli::mutations::Mutation;
use crate::dialects::gemini_cli::order::locale_cmp;
use crate::dialects::gemini_cli::params::Params;
use crate::dialects::gemini_cli::{
    invalid_params, node_error, plain_error, sentence, Context, Outcome,
};
use crate::dialects::Reply;
use crate::engine::confined_fs::LeadsTo;
use crate::engine::names::display_name;
use crate::engine::star_match::star_match;

/// One listed entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) is_dir: bool,
}

pub(crate) fn list_directory(ctx: &Context, raw: &JsonObject) -> Outcome {
    let params = Params::new(raw, &["path"]).map_err(invalid_params)?;
    let path = params.string("path").map_err(invalid_params)?;
    let ignore = params
        .opt_string_array("ignore")
        .map_err(invalid_params)?
        .unwrap_or_default();
    let real = confine::absolute_within_root(ctx, &path).map_err(|refusal| {
        invalid_params(match refusal {
            Refusal::Relative => format!("Path must be absolute: {path}"),
            Refusal::OutsideRoot => format!(
                "Path must be within the root directory ({}): {path}",
                ctx.policy.root().display()
            ),
            Refusal::Unusable(why) => why,
        })
    })?;
    // Node stats the path as sent: a `..` out of a missing folder finds nothing.
    let meta = match confine::stepping_out_error(ctx, &path) {
        Some(err) => Err(err),
        None => ctx.policy.stat(&real),
    }
    .map_err(|err| {
        plain_error(format!(
            "Error listing directory: {}",
            node_error::describe(&err, "stat", &path)
        ))
    })?;
    if !meta.is_dir() {
        return Err(plain_error(format!(
            "Error: Path is not a directory: {path}"
        )));
    }
    let listed = ctx.policy.read_dir(&real).map_err(|err| {
        plain_error(format!(
            "Error listing directory: {}",
            node_error::describe(&err, "scandir", &path)
        ))
    })?;
    if listed.is_empty() {
        return Ok(Reply::text(sentence(
            ctx,
            format!("Directory {path} is empty"),
        )));
    }
    let unanchored = ctx.mutations.is_active(Mutation::IgnoreUnanchored);
    let hide_dotfiles = ctx.mutations.is_active(Mutation::HideDotfiles);
    let mut entries: Vec<Entry> = listed
        .into_iter()
        .map(|entry| (display_name(&entry.name), entry.leads_to))
        .filter(|(shown, _)| !(hide_dotfiles && shown.starts_with('.')))
        .filter(|(shown, _)| {
            !ignore
                .iter()
                .any(|pattern| ignored_by(pattern, shown, unanchored))
        })
        // An entry that cannot be stat'ed (a dangling link) is left out, as
        // upstream.
        .filter_map(|(shown, leads_to)| {
            let is_dir = match leads_to {
                LeadsTo::Directory => true,
                LeadsTo::NotADirectory => false,
                LeadsTo::Nowhere => return None,
            };
            Some(Entry { name: shown, is_dir })
        })
        .collect();
    sort_entries(
        &mut entries,
        ctx.mutations.is_active(Mutation::NamesOnlyOrder),
    );
    let lines: Vec<String> = entries
        .iter()
        .map(|e| {
            if e.is_dir {
                format!("[DIR] {}", e.name)
            } else {
                e.name.clone()
            }
        })
        .collect();
    Ok(Reply::text(format!(
        "Directory listing for {path}:\n{}",
        lines.join("\n")
    )))
}

/// Directories first, then files, each in name order. `names_only` (a
/// mutation) forgets the grouping.
pub(crate) fn sort_entries(entries: &mut [Entry], names_only: bool) {
    entries.sort_by(|a, b| {
        let group = if names_only {
            std::cmp::Ordering::Equal
        } else {
            b.is_dir.cmp(&a.is_dir)
        };
        group.then_with(|| locale_cmp(&a.name, &b.name))
    });
}

/// gemini's ignore patterns: `*` is any run of characters, `?` one
/// character, everything else literal, matched against the whole name.
/// Whether ignore `pattern` removes `name`: the whole name must match, unless
/// `unanchored` (a mutation) lets the pattern match any part of it.
pub(crate) fn ignored_by(pattern: &str, name: &str, unanchored: bool) -> bool {
    if unanchored {
        name_matches(&format!("*{pattern}*"), name)
    } else {
        name_matches(pattern, name)
    }
}

pub(crate) fn name_matches(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    star_match(&pattern, &name, |&c| c == '*', |&p, c| p == '?' || p == c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_patterns_match_whole_names() {
        assert!(name_matches("*.log", "debug.log"));
        assert!(!name_matches("*.log", "debug.log.txt"));
        assert!(name_matches("a?c", "abc"));
        assert!(!name_matches("a?c", "ac"));
        assert!(name_matches("node_modules", "node_modules"));
        assert!(!name_matches("node", "node_modules"));
        assert!(name_matches("*", ""));
        assert!(name_matches("a*b*c", "axxbyyc"));
        assert!(!ignored_by("*.log", "debug.log.1", false));
        assert!(ignored_by("*.log", "debug.log.1", true));
    }

    #[test]
    fn directories_come_first() {
        let entry = |name: &str, is_dir| Entry {
            name: name.into(),
            is_dir,
        };
        let mut entries = vec![
            entry("b.txt", false),
            entry("zeta", true),
            entry("A.txt", false),
            entry("alpha", true),
        ];
        sort_entries(&mut entries, false);
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, vec!["alpha", "zeta", "A.txt", "b.txt"]);
        sort_entries(&mut entries, true);
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, vec!["A.txt", "alpha", "b.txt", "zeta"]);
    }
}
