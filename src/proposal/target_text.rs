//! The proposed target file as text: YAML a person reviews, each guess with a
//! comment saying why and how sure, what could not be mapped left commented out.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::matching::ToolMatch;

/// What the target file is written from.
#[derive(Debug)]
pub(crate) struct Draft<'a> {
    /// The server's command line as given to `--server`.
    pub server_line: &'a str,
    /// The name the server gave itself in its answer to `initialize`.
    pub server_name: Option<&'a str>,
    /// The same, split into words.
    pub words: &'a [String],
    /// The suite the proposal is for, and its version (pinned).
    pub suite: &'a str,
    /// The suite's version.
    pub version: u32,
    /// One proposal per tool of the suite.
    pub matches: &'a [ToolMatch],
    /// Server tools no suite tool took.
    pub unclaimed: &'a [String],
    /// The suite's settings as the reference server takes them.
    pub settings: &'a BTreeMap<String, Vec<String>>,
}

/// YAML scalar for any text: a JSON string is a YAML double-quoted scalar.
fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

fn confidence(score: f64) -> &'static str {
    if score >= 0.6 {
        "high"
    } else if score >= 0.45 {
        "medium"
    } else {
        "low"
    }
}

/// Programs that run the server rather than being it: the target is named after
/// what they run.
const LAUNCHERS: &[&str] = &[
    "node", "nodejs", "npx", "bunx", "bun", "deno", "python", "python3", "uv", "uvx", "pipx",
    "bash", "sh", "env", "java", "ruby", "go", "cargo",
];

/// The target's name: the one the server gave itself if it is a plain word,
/// otherwise the program the command line runs (the script after an interpreter
/// or launcher, without its folder and extension).
fn target_name(server_name: Option<&str>, words: &[String]) -> String {
    let plain = |n: &&str| {
        !n.is_empty()
            && n.len() <= 64
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.@/".contains(c))
    };
    if let Some(name) = server_name.filter(plain) {
        return name.to_string();
    }
    let base = |w: &str| w.rsplit('/').next().unwrap_or(w).to_string();
    let mut program = words.iter().map(|w| base(w));
    let Some(first) = program.next() else {
        return String::new();
    };
    if !LAUNCHERS.contains(&first.as_str()) {
        return first;
    }
    words
        .iter()
        .skip(1)
        .find(|w| !w.starts_with('-') && !w.contains('{') && !w.contains('='))
        .map(|w| {
            let name = base(w);
            match name.rsplit_once('.') {
                Some((stem, "js" | "mjs" | "cjs" | "ts" | "py" | "sh")) => stem.to_string(),
                _ => name,
            }
        })
        .unwrap_or(first)
}

/// The target file, without `baseline_file:` (the run that writes the baseline
/// comes after).
pub(crate) fn render(draft: &Draft) -> String {
    let mut out = String::new();
    let name = target_name(draft.server_name, draft.words);
    let _ = writeln!(
        out,
        "# Proposed by `toolspec init` from the tools/list of\n#   {}\n# for suite {} version {}. Review each rename (the comments say why and how sure),\n# then gate with: toolspec run --target <this file>",
        draft.server_line, draft.suite, draft.version
    );
    let _ = writeln!(out, "name: {}", quoted(&name));
    let words: Vec<String> = draft.words.iter().map(|w| quoted(w)).collect();
    let _ = writeln!(out, "command: [{}]", words.join(", "));
    let _ = writeln!(
        out,
        "# The suite version this target was checked at: scenarios added later are NEW, not failures.\nsuites: {{ {}: {} }}",
        quoted(draft.suite),
        draft.version
    );
    write_tools(&mut out, draft.matches);
    write_arguments(&mut out, draft.matches);
    if !draft.unclaimed.is_empty() {
        let _ = writeln!(
            out,
            "# The server's tools no tool of the suite matched: {}",
            draft.unclaimed.join(", ")
        );
    }
    write_settings(&mut out, draft.settings);
    out
}

fn write_tools(out: &mut String, matches: &[ToolMatch]) {
    let renamed: Vec<&ToolMatch> = matches
        .iter()
        .filter(|m| m.server.as_ref().is_some_and(|s| *s != m.spec))
        .collect();
    let _ = writeln!(
        out,
        "# The suite's tool -> the server's.\ntools:{}",
        if renamed.is_empty() { " {}" } else { "" }
    );
    for m in matches {
        match &m.server {
            Some(server) if *server == m.spec => {
                let _ = writeln!(out, "  # {}: the server has it under the same name", m.spec);
            }
            Some(server) => {
                let _ = writeln!(
                    out,
                    "  {}: {}   # confidence {:.2} ({}): {}",
                    quoted(&m.spec),
                    quoted(server),
                    m.score,
                    confidence(m.score),
                    m.why
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "  # {}: ?   # no tool of the server matched: its scenarios are UNSUPPORTED until you name one",
                    quoted(&m.spec)
                );
            }
        }
    }
}

fn write_arguments(out: &mut String, matches: &[ToolMatch]) {
    let mut lines = Vec::new();
    let mut any = false;
    for m in matches {
        let Some(server) = &m.server else { continue };
        let renamed: Vec<_> = m
            .arguments
            .iter()
            .filter(|a| a.server.as_ref() != Some(&a.spec))
            .collect();
        if renamed.is_empty() {
            continue;
        }
        let active = renamed.iter().any(|a| a.server.is_some());
        any |= active;
        lines.push(format!(
            "  {}{}:",
            if active { "" } else { "# " },
            quoted(&m.spec)
        ));
        for a in renamed {
            lines.push(match &a.server {
                Some(name) => format!("    {}: {}   # {}", quoted(&a.spec), quoted(name), a.how),
                None => format!(
                    "    # {}: ?   # `{server}` declares nothing like it",
                    quoted(&a.spec)
                ),
            });
        }
    }
    let _ = writeln!(
        out,
        "# The suite's argument -> the server's, per suite tool.\narguments:{}",
        if any { "" } else { " {}" }
    );
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
}

fn write_settings(out: &mut String, settings: &BTreeMap<String, Vec<String>>) {
    if settings.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "# How the server's command line sets what a scenario asks for. Not known for this\n# server, so each is left out and the scenarios that need one are SKIP; give the\n# server's own flags (the reference server's are shown).\n# settings:"
    );
    for (name, flags) in settings {
        let flags: Vec<String> = flags.iter().map(|f| quoted(f)).collect();
        let _ = writeln!(out, "#   {}: [{}]", quoted(name), flags.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use super::target_name;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn a_target_is_named_by_the_server_or_by_what_its_launcher_runs() {
        let node = words("node /opt/srv/dist/index.js --root {root}");
        assert_eq!(
            target_name(Some("secure-filesystem-server"), &node),
            "secure-filesystem-server"
        );
        assert_eq!(target_name(None, &node), "index");
        assert_eq!(target_name(Some("two words"), &node), "index");
        assert_eq!(
            target_name(None, &words("npx -y @scope/server-files {root}")),
            "server-files"
        );
        assert_eq!(
            target_name(None, &words("/usr/local/bin/mcp-files {root}")),
            "mcp-files"
        );
        assert_eq!(target_name(None, &words("python3")), "python3");
    }
}
