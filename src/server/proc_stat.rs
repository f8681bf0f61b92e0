//! `/proc/<pid>/stat`, read past the command name. The name is in parentheses and
//! may itself hold spaces and `)`, so the fields are the ones after the last `) `:
//! the state (field 3) first, then the parent's pid, and so on.

/// The fields of process `pid`'s stat line after its command name (`pid` may be
/// `self`), as one string to split on whitespace; `None` when it cannot be read.
pub(super) fn after_name(pid: &str) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(") ")?;
    Some(rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_running_with_its_parent_after_its_name() {
        let fields = after_name("self").expect("own stat");
        let mut fields = fields.split_whitespace();
        assert!(matches!(fields.next(), Some("R" | "S")));
        let parent = std::os::unix::process::parent_id().to_string();
        assert_eq!(fields.next(), Some(parent.as_str()));
        assert_eq!(after_name("0"), None);
    }
}
