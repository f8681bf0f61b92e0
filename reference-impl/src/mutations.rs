//! Named, realistic deviations, switched on with `--mutate NAME`.
//!
//! The harness proves that its suites catch mistakes by running them against
//! a deliberately broken reference server (`toolspec mutants`). Each dialect
//! owns its catalogue (`mutations.rs` in its folder), because a deviation only
//! makes sense in the conventions it bends: a lower-case `[code]` is a boris
//! mistake, a renamed envelope field an agent-tools one. A name may appear in
//! several catalogues when the same mistake exists in several dialects.
//!
//! A catalogue is an enum declared with [`catalogue!`]: code asks about a
//! variant, so a misspelt mutation does not compile, and the `--mutate` names
//! and descriptions come from the same declaration, in its order. A mistake
//! of the shared engine (the confinement bugs of `engine::breach`) is declared
//! once there and added to each catalogue it applies to, after the dialect's
//! own (`and SHARED`), and the engine asks about it by its own type.
//!
//! A mutation applies to every call of the kind it affects; none looks at
//! which scenario is running.

use thiserror::Error;

/// One entry of a dialect's catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MutationInfo {
    /// The `--mutate` value.
    pub(crate) name: &'static str,
    /// What goes wrong, in one line, for `--list-mutations` and reports.
    pub(crate) what: &'static str,
}

/// A variant of a dialect's catalogue enum (see [`catalogue!`]).
pub(crate) trait Mutation: Copy {
    /// The `--mutate` value that switches this mutation on.
    fn name(self) -> &'static str;
}

/// Declares a dialect's catalogue: an enum with one variant per mutation,
/// each given as `Variant = "name": "what goes wrong"`, plus its
/// `CATALOGUE` table (in declaration order, then the entries of the shared
/// table named after `and`, if any) and its [`Mutation`] impl.
macro_rules! catalogue {
    (
        $(#[$meta:meta])*
        $vis:vis enum $enum:ident {
            $($variant:ident = $name:literal : $what:literal,)*
        }
    ) => {
        $crate::mutations::catalogue! {
            $(#[$meta])*
            $vis enum $enum {
                $($variant = $name : $what,)*
            }
            and &[]
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $enum:ident {
            $($variant:ident = $name:literal : $what:literal,)*
        }
        and $shared:expr
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $enum {
            $(#[doc = $what] $variant,)*
        }

        impl $enum {
            /// The dialect's own mutations, in declaration order.
            const OWN: &'static [$crate::mutations::MutationInfo] = &[
                $($crate::mutations::MutationInfo { name: $name, what: $what },)*
            ];

            /// The shared mutations the dialect offers too.
            const SHARED: &'static [$crate::mutations::MutationInfo] = $shared;

            /// Every mutation, in `--list-mutations` order: the dialect's own,
            /// then the shared ones.
            pub(crate) const CATALOGUE: &'static [$crate::mutations::MutationInfo] =
                &$crate::mutations::joined::<{ $enum::OWN.len() + $enum::SHARED.len() }>(
                    $enum::OWN,
                    $enum::SHARED,
                );
        }

        impl $crate::mutations::Mutation for $enum {
            fn name(self) -> &'static str {
                // Variants are numbered in declaration order, as the table is.
                Self::CATALOGUE[self as usize].name
            }
        }
    };
}
pub(crate) use catalogue;

/// `own` then `shared` in one table of `N` entries (their lengths' sum), for
/// [`catalogue!`]'s `CATALOGUE`; evaluated at compile time, where a wrong `N`
/// is a build error.
pub(crate) const fn joined<const N: usize>(
    own: &[MutationInfo],
    shared: &[MutationInfo],
) -> [MutationInfo; N] {
    let mut out = [MutationInfo { name: "", what: "" }; N];
    let mut at = 0;
    while at < own.len() {
        out[at] = own[at];
        at += 1;
    }
    let mut next = 0;
    while next < shared.len() {
        out[at + next] = shared[next];
        next += 1;
    }
    out
}

/// `--mutate` named a mutation that is not in the dialect's catalogue.
#[derive(Debug, Error)]
#[error("unknown mutation {name:?} for this dialect; valid mutations: {valid}")]
pub(crate) struct UnknownMutation {
    name: String,
    /// The catalogue's names, comma-separated.
    valid: String,
}

/// The mutations switched on for this server, checked against its dialect's
/// catalogue at start-up.
#[derive(Debug, Clone, Default)]
pub(crate) struct Mutations {
    active: Vec<&'static str>,
}

impl Mutations {
    /// Switches on `names`; an unknown name is refused with the valid ones.
    pub(crate) fn select(
        catalogue: &'static [MutationInfo],
        names: &[String],
    ) -> Result<Mutations, UnknownMutation> {
        let mut active = Vec::new();
        for name in names {
            match catalogue.iter().find(|m| m.name == name) {
                Some(info) if !active.contains(&info.name) => active.push(info.name),
                Some(_) => {}
                None => {
                    let valid: Vec<&str> = catalogue.iter().map(|m| m.name).collect();
                    return Err(UnknownMutation {
                        name: name.clone(),
                        valid: valid.join(", "),
                    });
                }
            }
        }
        Ok(Mutations { active })
    }

    /// Switches on `mutations`, for tests that build a context by hand.
    #[cfg(test)]
    pub(crate) fn of<M: Mutation>(mutations: &[M]) -> Mutations {
        Mutations {
            active: mutations.iter().map(|m| m.name()).collect(),
        }
    }

    /// Whether `mistake` (shared by several dialects under one name) turns a
    /// command's result into an error: never honestly (a non-zero exit is the
    /// command's answer, not the tool's failure), but with the mistake,
    /// whenever the exit code is not 0.
    pub(crate) fn flags_nonzero_exit(
        &self,
        mistake: impl Mutation,
        exit_code: Option<i32>,
    ) -> bool {
        self.is_active(mistake) && exit_code.is_some_and(|code| code != 0)
    }

    /// Whether `mutation` is switched on.
    pub(crate) fn is_active(&self, mutation: impl Mutation) -> bool {
        self.active.contains(&mutation.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    catalogue! {
        enum Test {
            One = "one": "first",
            Two = "two": "second",
        }
    }

    const SHARED: &[MutationInfo] = &[MutationInfo {
        name: "shared",
        what: "third",
    }];

    catalogue! {
        enum WithShared {
            Own = "own": "first",
        }
        and SHARED
    }

    #[test]
    fn the_table_follows_the_declaration() {
        assert_eq!(Test::One.name(), "one");
        assert_eq!(Test::Two.name(), "two");
        assert_eq!(Test::CATALOGUE[1].what, "second");
        assert_eq!(Test::CATALOGUE.len(), 2);
    }

    #[test]
    fn shared_entries_follow_the_dialects_own() {
        let names: Vec<&str> = WithShared::CATALOGUE.iter().map(|m| m.name).collect();
        assert_eq!(names, ["own", "shared"]);
        assert_eq!(WithShared::Own.name(), "own");
    }

    #[test]
    fn selection_checks_names_against_the_catalogue() {
        let muts =
            Mutations::select(Test::CATALOGUE, &["two".into(), "two".into()]).expect("known");
        assert!(muts.is_active(Test::Two));
        assert!(!muts.is_active(Test::One));
        let err = Mutations::select(Test::CATALOGUE, &["nope".into()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown mutation \"nope\" for this dialect; valid mutations: one, two"
        );
    }
}
