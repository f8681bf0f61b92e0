//! Running one case on both sides and comparing them call by call, level by level (going on past a divergence the baseline knows); the signature of what differed.

pub(crate) mod differential;
pub(crate) mod levels;
pub(crate) mod pass_over;
pub(crate) mod signature;
pub(crate) mod tools_listed;
