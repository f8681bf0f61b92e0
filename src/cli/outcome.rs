//! How a command's work came out, in its own module so that every command file
//! reaches it without importing the parser that dispatches to them.

/// How a command's work came out, when it could be done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Exit [`super::exit::SUCCESS`].
    Held,
    /// Exit [`super::exit::FAILURES`].
    Broken,
}
