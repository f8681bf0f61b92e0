//! What proves the suites themselves: that every clause of a spec document has a
//! scenario ([`coverage`], with [`scaffold`] to start the missing ones), and that
//! every deliberate deviation of the bundled server is caught ([`mutants`]).
//! These sit after the pipeline: they load suites and run scenarios, and nothing
//! in the pipeline calls back into them.

pub(crate) mod coverage;
pub(crate) mod freedoms;
pub(crate) mod mutants;
pub(crate) mod scaffold;
