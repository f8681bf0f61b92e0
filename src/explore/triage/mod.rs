//! What a run's divergences come to: classes by signature, the baseline that knows some, the witnesses of those not seen, and how often the sides agreed.

pub(crate) mod agreement;
pub(crate) mod baseline;
pub(crate) mod baseline_file;
pub(crate) mod baseline_yaml;
pub(crate) mod classes;
pub(crate) mod stale;
pub(crate) mod tally;
