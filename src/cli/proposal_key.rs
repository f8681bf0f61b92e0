//! What names a proposal kept for `toolspec review` (`author/pending.rs`): the
//! command's own arguments, less those that change how it runs but not what it
//! proposes, so the same command run again, or with `--write`, finds it.

/// The arguments this process was given, without the `switches` and without
/// each flag of `with_value` and its value (`--flag value`, `--flag=value`, and
/// for a short flag `-jVALUE`).
pub(crate) fn arguments_but(switches: &[&str], with_value: &[&str]) -> Vec<String> {
    let mut key = Vec::new();
    let mut skip_value = false;
    for arg in std::env::args_os().skip(1) {
        let arg = arg.to_string_lossy().into_owned();
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if switches.contains(&arg.as_str()) {
            continue;
        }
        if with_value.contains(&arg.as_str()) {
            skip_value = true;
            continue;
        }
        let joined = with_value.iter().any(|flag| {
            arg.starts_with(&format!("{flag}="))
                || (!flag.starts_with("--") && arg.len() > flag.len() && arg.starts_with(flag))
        });
        if !joined {
            key.push(arg);
        }
    }
    key
}
