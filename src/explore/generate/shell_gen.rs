//! Shell commands from a small grammar that cannot reach outside the fixture: it
//! prints fixed ASCII words to stdout or stderr, exits with a code, sleeps a
//! tenth of a second, reads a fixture file, and writes a file inside the root,
//! always through `{root:sh}`, the root quoted for the shell whatever it holds.
//! No word of it is taken from a server.

use fastrand::Rng;

/// Words a command prints: plain ASCII, nothing a shell would expand.
const SAFE_WORDS: &[&str] = &["hello", "done", "x", "42", "two words"];

/// One to three steps joined by `;` or `&&`, an `exit` only last.
pub(crate) fn generate_command(rng: &mut Rng, files: &[&str]) -> String {
    steps(rng, files, true)
}

/// A command that touches no file, only prints, sleeps and exits: for a command
/// run in the background, whose reads and writes would race with the calls made
/// while it runs, so two honest runs would differ.
pub(crate) fn generate_command_without_files(rng: &mut Rng) -> String {
    steps(rng, &[], false)
}

fn steps(rng: &mut Rng, files: &[&str], with_files: bool) -> String {
    let steps = rng.usize(1..=3);
    let mut command = String::new();
    for i in 0..steps {
        if i > 0 {
            command.push_str(if rng.bool() { "; " } else { " && " });
        }
        command.push_str(&step(rng, files, i + 1 == steps, with_files));
    }
    command
}

fn step(rng: &mut Rng, files: &[&str], last: bool, with_files: bool) -> String {
    let word = SAFE_WORDS[rng.usize(..SAFE_WORDS.len())];
    match rng.u8(..if last { 7 } else { 6 }) {
        4 | 5 if !with_files => "sleep 0.1".to_string(),
        0 => format!("echo '{word}'"),
        1 => format!("echo '{word}' >&2"),
        2 => format!("printf '%s' '{word}'"),
        3 => "sleep 0.1".to_string(),
        4 => format!(
            "printf '%s\\n' '{word}' > {{root:sh}}/out-{}.txt",
            rng.u8(..3)
        ),
        5 if !files.is_empty() => format!("cat {{root:sh}}/'{}'", files[rng.usize(..files.len())]),
        5 => "true".to_string(),
        _ => format!("exit {}", [0, 1, 2, 7][rng.usize(..4)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_stay_inside_the_root() {
        let mut rng = Rng::with_seed(3);
        for _ in 0..500 {
            let command = generate_command(&mut rng, &["a.txt", "src/main.rs"]);
            for redirect in command.split('>').skip(1) {
                let target = redirect.trim_start_matches('&').trim_start();
                assert!(
                    target.starts_with('2') || target.starts_with("{root:sh}/"),
                    "{command}"
                );
            }
            assert!(!command.contains(".."), "{command}");
            assert!(!command.contains("rm "), "{command}");
            let quiet = generate_command_without_files(&mut rng);
            assert!(!quiet.contains("{root") && !quiet.contains("> "), "{quiet}");
        }
    }
}
