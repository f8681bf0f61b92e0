//! Running one case on both sides and comparing them call by call, level by level; the signature of what differed.

pub(crate) mod differential;
pub(crate) mod levels;
pub(crate) mod signature;
pub(crate) mod tools_listed;
