//! `toolspec init`'s proposal: which of a server's tools and arguments are the
//! spec's, found by matching names, descriptions and schemas against a synonym
//! table, and the target file that says so, with a comment on every guess.

pub(crate) mod matching;
pub(crate) mod synonyms;
pub(crate) mod target_text;
