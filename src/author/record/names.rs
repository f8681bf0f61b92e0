//! Default names of recorded scenarios, short and readable: the tool and its
//! most telling argument (a path's file name, else the first words of a
//! command or another text, cut near 40 characters), `(error)` after a call
//! the server refused, and ` #2`, ` #3` after a name already taken.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// How many characters of a text argument a name keeps.
const MOST: usize = 40;

/// The arguments that name a path, most telling first.
const PATH_KEYS: [&str; 6] = ["path", "file_path", "filepath", "file", "filename", "dir"];
/// The arguments that hold a command or a search, most telling first.
const TEXT_KEYS: [&str; 5] = ["command", "cmd", "pattern", "query", "regex"];

/// `tool` and its most telling argument.
pub(crate) fn default_name(tool: &str, args: &Map<String, Value>, failed: bool) -> String {
    let telling = telling(args).map(|t| format!(" {t}")).unwrap_or_default();
    let failed = if failed { " (error)" } else { "" };
    format!("{tool}{telling}{failed}")
}

fn telling(args: &Map<String, Value>) -> Option<String> {
    let text = |key: &str| args.get(key).and_then(Value::as_str);
    if let Some(path) = PATH_KEYS.iter().find_map(|k| text(k)) {
        return Some(file_name(path));
    }
    if let Some(words) = TEXT_KEYS.iter().find_map(|k| text(k)) {
        return Some(cut(words));
    }
    // Else the first string argument that is a path under the root, or any;
    // else what an object argument holds (a server whose tools take their
    // arguments as one `params` object).
    let strings: Vec<&str> = args.values().filter_map(Value::as_str).collect();
    strings
        .iter()
        .find(|s| s.starts_with("{root}"))
        .map(|path| file_name(path))
        .or_else(|| strings.first().map(|s| cut(s)))
        .or_else(|| args.values().filter_map(Value::as_object).find_map(telling))
}

/// A path's last part (`.` for the root itself).
fn file_name(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rsplit('/').next() {
        Some("{root}") | Some("") | None => ".".to_string(),
        Some(name) => cut(name),
    }
}

/// The first line of `text`, its spaces folded, cut at a word near [`MOST`]
/// characters (with `…` when cut).
fn cut(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let words: Vec<&str> = line.split_whitespace().collect();
    let folded = words.join(" ");
    if folded.chars().count() <= MOST && !text.trim_end().contains('\n') {
        return folded;
    }
    let mut kept = String::new();
    for word in words {
        let next = kept.chars().count() + word.chars().count() + 1;
        if next > MOST && !kept.is_empty() {
            break;
        }
        if !kept.is_empty() {
            kept.push(' ');
        }
        kept.push_str(word);
    }
    let kept: String = kept.chars().take(MOST).collect();
    format!("{kept}…")
}

/// `name`, or `name #2`, `name #3`... whichever is not in `taken`; the name
/// returned is added to it.
pub(crate) fn unique(name: String, taken: &mut BTreeSet<String>) -> String {
    let mut chosen = name.clone();
    let mut n = 2;
    while taken.contains(&chosen) {
        chosen = format!("{name} #{n}");
        n += 1;
    }
    taken.insert(chosen.clone());
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn names_are_the_tool_and_its_most_telling_argument() {
        let cases = [
            (
                "read_text_file",
                json!({"path": "{root}/src/a.txt"}),
                false,
                "read_text_file a.txt",
            ),
            (
                "edit_file",
                json!({"path": "{root}/missing.txt", "edits": []}),
                true,
                "edit_file missing.txt (error)",
            ),
            ("view", json!({"path": "{root}"}), false, "view ."),
            (
                "list_dir",
                json!({"params": {"path": "{root}/src"}}),
                false,
                "list_dir src",
            ),
            (
                "bash",
                json!({"command": "echo hello   world"}),
                false,
                "bash echo hello world",
            ),
            (
                "bash",
                json!({"command": "for i in 1 2 3 4 5 6 7 8 9 10; do echo $i; done | sort -n"}),
                false,
                "bash for i in 1 2 3 4 5 6 7 8 9 10; do echo…",
            ),
            (
                "bash",
                json!({"command": "cd x\nmake"}),
                false,
                "bash cd x…",
            ),
            ("list", json!({}), false, "list"),
            (
                "search",
                json!({"limit": 3, "where": "{root}/b"}),
                false,
                "search b",
            ),
        ];
        for (tool, a, failed, want) in cases {
            assert_eq!(default_name(tool, &args(a), failed), want);
        }
        let mut taken = BTreeSet::new();
        assert_eq!(unique("view a.txt".into(), &mut taken), "view a.txt");
        assert_eq!(unique("view a.txt".into(), &mut taken), "view a.txt #2");
        assert_eq!(unique("view a.txt".into(), &mut taken), "view a.txt #3");
    }
}
