//! Random tool calls made from the server's own `tools/list`: a listed tool
//! (now and then one that is not), its declared arguments filled from pools
//! of hostile values, often of the wrong type, sometimes missing or with
//! extras. Paths may point anywhere; shell commands only read, or write
//! harmlessly inside the root, since the shell is not confined by design.

use serde_json::{json, Map, Value};

use super::fixture::{Fixture, LINKS};

/// A listed tool: its name and input schema.
pub(super) struct Tool {
    pub(super) name: String,
    schema: Value,
}

impl Tool {
    /// The tools in a `tools/list` result; `None` if it has none.
    pub(super) fn listed(result: &Value) -> Option<Vec<Tool>> {
        let tools: Vec<Tool> = result["tools"]
            .as_array()?
            .iter()
            .filter_map(|tool| {
                Some(Tool {
                    name: tool["name"].as_str()?.to_string(),
                    schema: tool["inputSchema"].clone(),
                })
            })
            .collect();
        (!tools.is_empty()).then_some(tools)
    }

    /// Whether the tool runs shell commands: it declares a `command`.
    pub(super) fn is_shell(&self) -> bool {
        self.schema["properties"].get("command").is_some()
    }
}

/// The values arguments are drawn from.
pub(super) struct Pools {
    root: String,
    strings: Vec<String>,
    commands: Vec<String>,
}

/// Shell commands that read, or write only to fresh names inside the root
/// (never through a link), and some that leave processes behind.
const COMMANDS: &[&str] = &[
    "echo x",
    "ls",
    "ls -la",
    "ls ln-dir ln-up",
    "true",
    "false",
    "exit 3",
    "exit 255",
    "pwd",
    "sleep 0.1",
    "sleep 0.1 &",
    "cat a.txt",
    "cat missing.txt",
    "cat",
    "read line; echo \"[$line]\"",
    "echo err >&2; exit 1",
    "printf 'alpha\\nbeta\\n' > shell-out.txt",
    "mkdir -p shell-dir/x && echo made",
    "yes | head -c 200000",
    "head -c 3000000 /dev/zero",
    "seq 1 50000 | tail -n 1",
    "printf '\\xff\\xfe not utf-8\\n'",
    "echo $((1/0))",
    "kill -9 $$",
    "exec 1>&-; echo closed",
    "for i in 1 2 3; do echo $i; done",
    "echo \u{fc}n\u{ef}c\u{f6}de",
    "echo a\u{0}b",
    "",
    " ",
    "sleep 30 > /dev/null 2>&1 < /dev/null &",
    "setsid sleep 30 > /dev/null 2>&1 < /dev/null &",
    "bash -c 'trap \"\" TERM HUP; sleep 30' > /dev/null 2>&1 < /dev/null &",
    "nohup sleep 30 > /dev/null 2>&1 < /dev/null & echo started",
    "ls -R . | head -n 50",
    "stat -c %s a.txt",
];

const NUMBERS: &[f64] = &[
    0.0, 1.0, -1.0, 2.0, 3.0, 5.0, 50.0, 100.0, 1000.0, 65536.0, 600_001.0, 1.5, -0.5, 1e300,
    -1e300,
];

const FIELD_NAMES: &[&str] = &["extra", "path2", "__proto__", "constructor", "", "Path"];

impl Pools {
    /// Pools for `fixture`: its paths, relative and absolute, inside, out
    /// by `..`, out by a link, and beside the root.
    pub(super) fn new(fixture: &Fixture) -> Pools {
        let root = fixture.root.display().to_string();
        let base = fixture.base.display().to_string();
        let canary = fixture.canary.display().to_string();
        let mut strings: Vec<String> = [
            // Inside.
            "a.txt",
            "sub/notes.md",
            "src/main.rs",
            ".gitignore",
            "new.txt",
            "sub/new.txt",
            "deep/er/new.txt",
            "shell-out.txt",
            ".",
            "./a.txt",
            "sub/../a.txt",
            "sub",
            "src",
            // Out by `..`.
            "..",
            "../canary",
            "../canary/secret.txt",
            "../canary/planted.txt",
            "../beside.txt",
            "sub/../../canary/sub/deep.txt",
            "../root/../canary/secret.txt",
            "../root-x/f.txt",
            // Through the links.
            "ln-dir/secret.txt",
            "ln-dir/planted.txt",
            "ln-dir/sub",
            "ln-dir/sub/deep.txt",
            "ln-rel/secret.txt",
            "ln-up/canary/secret.txt",
            "ln-up/beside.txt",
            "sub/ln-deep/deep.txt",
            "sub/ln-deep/planted.txt",
            "ln-dir/../a.txt",
            "ln-dir/to-root/a.txt",
            // Odd.
            "",
            " ",
            "\0",
            "a\0b",
            "a\nb.txt",
            "\u{202e}txt.exe",
            "~",
            "$HOME",
            "-rf",
            "--help",
            "file:///a.txt",
            "C:\\x",
            "\\\\server\\share",
            "\u{fffd}",
            "\u{e9}t\u{e9}.txt",
            "\u{1f600}",
            "/",
            "//",
            "/etc",
            "/proc/self/environ",
            "/dev/null",
            // Patterns: globs and regexes.
            "*",
            "**/*",
            "**",
            "*.txt",
            "**/*.md",
            "../*",
            "../canary/*",
            "ln-dir/*",
            "ln-dir/**",
            "ln-*/**/*",
            "**/ln-*",
            "{a,b}*",
            "[",
            "[!a]*",
            "**/../../*",
            "/**",
            ".*",
            "(",
            ")",
            "a{1000000}",
            "(a+)+$",
            "(a|aa)*b",
            "canary",
            "secret",
            "alpha",
            "beta",
            "ALPHA",
            "\\",
            "[[:alpha:]]+",
            "^$",
            "(?i)ALPHA",
            "\\b",
            "x{2,1}",
            "|",
            "files_with_matches",
            "content",
            "count",
            "file",
            "directory",
            "js",
            "rust",
            // Contents.
            "alpha\n",
            "alpha\nbeta\n",
            "\n",
            "x",
        ]
        .iter()
        .map(|text| (*text).to_string())
        .collect();
        for link in LINKS {
            strings.push(link.to_string());
            strings.push(format!("{link}/"));
            strings.push(format!("{root}/{link}"));
        }
        for absolute in [
            root.clone(),
            format!("{root}/a.txt"),
            format!("{root}/new.txt"),
            format!("{root}/ln-dir/secret.txt"),
            format!("{root}/ln-dangling"),
            format!("{root}/../canary/secret.txt"),
            format!("{root}-x/f.txt"),
            format!("{root}-x"),
            base.clone(),
            format!("{base}/beside.txt"),
            format!("{base}/*"),
            format!("{base}/**/*"),
            canary.clone(),
            format!("{canary}/secret.txt"),
            format!("{canary}/planted.txt"),
            format!("{canary}/sub/deep.txt"),
            format!("{canary}/**"),
            format!("/proc/self/root{canary}/secret.txt"),
            format!("/proc/self/root{base}/beside.txt"),
        ] {
            strings.push(absolute);
        }
        // Patches that would write outside if their paths were followed.
        for target in [
            "../canary/secret.txt",
            "ln-file",
            "ln-dangling",
            "ln-dir/secret.txt",
            &format!("{canary}/secret.txt"),
            "a.txt",
        ] {
            strings.push(format!(
                "--- a/{target}\n+++ b/{target}\n@@ -1 +1 @@\n-canary alpha\n+patched\n"
            ));
            strings.push(format!(
                "--- /dev/null\n+++ b/{target}\n@@ -0,0 +1 @@\n+created\n"
            ));
        }
        strings.push("a".repeat(300));
        // Deep, but not thousands deep: a write through it makes every
        // level, and the server's tree walks slow down faster than linearly
        // with depth (1000 levels: about 7 s per glob in a debug build).
        strings.push("a/".repeat(150));
        // Long texts that do not repeat themselves: as a regex against a
        // file holding the same text, a periodic one costs the regex engine
        // time in the product of the two lengths (minutes in a debug build)
        // which is a property of the input and not what this test looks for.
        strings.push((0..40_000).map(|n| format!("{n} ")).collect());
        strings.push((0..15_000).map(|n| format!("line {n}\n")).collect());
        strings.push("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".repeat(60));
        let mut commands: Vec<String> = COMMANDS.iter().map(|text| (*text).to_string()).collect();
        commands.push(format!("ls {canary}"));
        commands.push("x".repeat(100_000));
        Pools {
            root,
            strings,
            commands,
        }
    }

    /// A string from the pool; a relative one is made absolute under the
    /// root one time in three, since some dialects take absolute paths only.
    fn string(&self, rng: &mut fastrand::Rng) -> String {
        let text = &self.strings[rng.usize(..self.strings.len())];
        if !text.starts_with('/') && rng.u8(..3) == 0 {
            format!("{}/{text}", self.root)
        } else {
            text.clone()
        }
    }

    fn number(rng: &mut fastrand::Rng) -> Value {
        match rng.u8(..10) {
            0 => json!(i64::MAX),
            1 => json!(i64::MIN),
            2 => json!(u64::MAX),
            3 => json!(9_007_199_254_740_993u64),
            4 => json!(rng.i64(-5..5000)),
            _ => json!(NUMBERS[rng.usize(..NUMBERS.len())]),
        }
    }

    /// Any JSON value at all, nested at most `depth` deep.
    fn any(&self, rng: &mut fastrand::Rng, depth: u32) -> Value {
        if depth > 0 && rng.u8(..40) == 0 {
            return nested(rng.usize(1..300));
        }
        let kinds = if depth == 0 { 4 } else { 6 };
        match rng.u8(..kinds) {
            0 => Value::Null,
            1 => json!(rng.bool()),
            2 => Pools::number(rng),
            3 => json!(self.string(rng)),
            4 => Value::Array(
                (0..rng.usize(..4))
                    .map(|_| self.any(rng, depth - 1))
                    .collect(),
            ),
            _ => {
                let mut object = Map::new();
                for _ in 0..rng.usize(..4) {
                    object.insert(self.field_name(rng), self.any(rng, depth - 1));
                }
                Value::Object(object)
            }
        }
    }

    fn field_name(&self, rng: &mut fastrand::Rng) -> String {
        if rng.bool() {
            FIELD_NAMES[rng.usize(..FIELD_NAMES.len())].to_string()
        } else {
            self.string(rng)
        }
    }

    /// A value for a property named `name` declared by `schema`: mostly of
    /// the declared type, one time in eight anything at all.
    fn value(&self, rng: &mut fastrand::Rng, name: &str, schema: &Value, depth: u32) -> Value {
        if rng.u8(..8) == 0 || depth == 0 {
            return self.any(rng, 2);
        }
        if let Some(choices) = schema["enum"]
            .as_array()
            .filter(|choices| !choices.is_empty())
        {
            if rng.bool() {
                return choices[rng.usize(..choices.len())].clone();
            }
        }
        match schema["type"].as_str() {
            Some("string") if name == "command" => {
                json!(self.commands[rng.usize(..self.commands.len())])
            }
            Some("string") => json!(self.string(rng)),
            Some("integer" | "number") => Pools::number(rng),
            Some("boolean") => json!(rng.bool()),
            Some("array") => Value::Array(
                (0..rng.usize(..4))
                    .map(|_| self.value(rng, name, &schema["items"], depth - 1))
                    .collect(),
            ),
            Some("object") => self.object(rng, schema, depth - 1),
            _ => self.any(rng, 2),
        }
    }

    /// An object for `schema`: each required property nineteen times in
    /// twenty, each optional one about half the time, and one time in ten
    /// a property the schema does not declare.
    fn object(&self, rng: &mut fastrand::Rng, schema: &Value, depth: u32) -> Value {
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut object = Map::new();
        if let Some(properties) = schema["properties"].as_object() {
            for (name, property) in properties {
                let wanted = if required.contains(&name.as_str()) {
                    rng.u8(..20) != 0
                } else {
                    rng.bool()
                };
                if wanted {
                    object.insert(name.clone(), self.value(rng, name, property, depth));
                }
            }
        }
        if rng.u8(..10) == 0 {
            object.insert(self.field_name(rng), self.any(rng, 2));
        }
        Value::Object(object)
    }

    /// A call: mostly a listed tool with arguments for its schema; now and
    /// then a name it does not list, arguments that are not an object, or
    /// none at all.
    pub(super) fn call(&self, rng: &mut fastrand::Rng, tools: &[Tool]) -> Value {
        let tool = &tools[rng.usize(..tools.len())];
        let name = match rng.u8(..40) {
            0 => json!(self.string(rng)),
            1 => self.any(rng, 1),
            _ => json!(tool.name),
        };
        match rng.u8(..40) {
            0 => json!({"name": name}),
            1 => json!({"name": name, "arguments": self.any(rng, 2)}),
            _ => json!({"name": name, "arguments": self.object(rng, &tool.schema, 3)}),
        }
    }
}

/// An array `depth` levels deep: past the server's nesting limit at the top.
fn nested(depth: usize) -> Value {
    (0..depth).fold(json!("deep"), |inner, _| json!([inner]))
}
