//! Bad arguments in ikigai's words: `Missing required parameter: <name>`
//! (upstream's wording), `Invalid type for parameter <name>: …` and
//! `Unknown parameter: <name>`; and string arguments as rel-04 holds them.

use crate::dialects::common::args::{ArgError, Args};
use crate::dialects::Failure;

/// A malformed argument as ikigai words it (no code).
pub(super) fn argument_failure(err: ArgError) -> Failure {
    Failure::new(
        "",
        match err {
            ArgError::Missing(name) => format!("Missing required parameter: {name}"),
            ArgError::WrongType {
                name,
                expected,
                got,
            } => format!("Invalid type for parameter {name}: expected {expected}, got {got}"),
            ArgError::Unknown { name, .. } => format!("Unknown parameter: {name}"),
        },
    )
}

/// A required string argument, up to its first NUL: rel-04 copies every
/// argument into a C string (`talloc_strdup`, tool_arg_parser.c:51), so a
/// `content` of `a\u0000b` writes `a` and counts 1 byte. Seed 004 says
/// nothing of NULs.
pub(super) fn string(args: &Args, name: &'static str) -> Result<String, Failure> {
    args.string(name)
        .map(|text| until_nul(&text).to_string())
        .map_err(argument_failure)
}

/// An optional string argument, up to its first NUL (see [`string`]).
pub(super) fn opt_string(args: &Args, name: &'static str) -> Result<Option<String>, Failure> {
    args.opt_string(name)
        .map(|text| text.map(|text| until_nul(&text).to_string()))
        .map_err(argument_failure)
}

/// `text` up to its first NUL, as a C string reads it: what rel-04 puts in
/// an answer's `output` (`yyjson_mut_obj_add_str` takes the `strlen` of the
/// file's buffer, tool_file_read.c:104, and of the command's output,
/// tool_bash.c:24), and what its grep matches and shows of a line
/// (tool_grep.c:48, 52, 55).
pub(super) fn until_nul(text: &str) -> &str {
    text.split('\0').next().unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_ends_at_its_first_nul() {
        assert_eq!(until_nul("nul\0inside\n"), "nul");
        assert_eq!(until_nul("\0x"), "");
        assert_eq!(until_nul("plain"), "plain");
    }
}
