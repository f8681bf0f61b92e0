//! Argument checks boris applies beyond their JSON types: non-empty
//! strings, counts where a negative one means none, and an optional path that defaults to the
//! root.

use super::failure::{argument_failure, engine_failure, invalid};
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Failure};

/// A required string parameter that must not be empty.
pub(super) fn non_empty(args: &Args, name: &'static str) -> Result<String, Failure> {
    let value = args.string(name).map_err(argument_failure)?;
    if value.is_empty() {
        return Err(invalid(format!("{name} must not be empty")));
    }
    Ok(value)
}

/// `head_limit` or `offset`, a count Boris applies only when it is above
/// zero (grep.go:449 and 763-785), so a negative one is as if not given.
pub(super) fn zero_if_negative(args: &Args, name: &'static str) -> Result<usize, Failure> {
    Ok(args
        .opt_int(name)
        .map_err(argument_failure)?
        .map_or(0, |n| usize::try_from(n).unwrap_or(0)))
}

/// Resolves an optional path parameter, defaulting to the root.
pub(super) fn resolve_or_root(
    ctx: &Context,
    raw: Option<&str>,
) -> Result<std::path::PathBuf, Failure> {
    match raw {
        None | Some("") => Ok(ctx.policy.root().to_path_buf()),
        Some(raw) => Ok(ctx.policy.resolve(raw).map_err(engine_failure)?),
    }
}
