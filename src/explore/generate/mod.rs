//! Drawing a case: its fixture, its calls and their arguments, rarer inputs and a route out of the root, each from a stream of its own.

pub(crate) mod argument_gen;
pub(crate) mod call;
pub(crate) mod case;
pub(crate) mod escape_gen;
pub(crate) mod fixture_gen;
pub(crate) mod ignore_gen;
pub(crate) mod patch_gen;
pub(crate) mod rare_gen;
pub(crate) mod shell_gen;
