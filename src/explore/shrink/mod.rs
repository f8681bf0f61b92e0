//! Shrinking a new divergence to a small case, and describing it once more for the scenario writer.

pub(crate) mod shrink_case;
pub(crate) mod transcript;
