//! Named, realistic deviations, switched on with `--mutate NAME`.
//!
//! The harness proves that its suites catch mistakes by running them against
//! a deliberately broken reference server (`toolspec mutants`). Each dialect
//! owns its catalogue (`MUTATIONS` in its module), because a deviation only
//! makes sense in the conventions it bends: a lower-case `[code]` is a boris
//! mistake, a renamed envelope field an agent-tools one. A name may appear in
//! several catalogues when the same mistake exists in several dialects.
//!
//! A mutation applies to every call of the kind it affects; none looks at
//! which scenario is running.

/// One entry of a dialect's catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MutationInfo {
    /// The `--mutate` value.
    pub name: &'static str,
    /// What goes wrong, in one line, for `--list-mutations` and reports.
    pub what: &'static str,
}

/// The mutations switched on for this server, checked against its dialect's
/// catalogue at start-up.
#[derive(Debug, Clone, Default)]
pub struct Mutations {
    catalogue: &'static [MutationInfo],
    active: Vec<&'static str>,
}

impl Mutations {
    /// Switches on `names`; an unknown name is refused with the valid ones.
    pub fn select(
        catalogue: &'static [MutationInfo],
        names: &[String],
    ) -> Result<Mutations, String> {
        let mut active = Vec::new();
        for name in names {
            match catalogue.iter().find(|m| m.name == name) {
                Some(info) if !active.contains(&info.name) => active.push(info.name),
                Some(_) => {}
                None => {
                    let valid: Vec<&str> = catalogue.iter().map(|m| m.name).collect();
                    return Err(format!(
                        "unknown mutation {name:?} for this dialect; valid mutations: {}",
                        valid.join(", ")
                    ));
                }
            }
        }
        Ok(Mutations { catalogue, active })
    }

    /// [`Self::select`] for names written in code, such as a test's.
    pub fn select_named(
        catalogue: &'static [MutationInfo],
        names: &[&str],
    ) -> Result<Mutations, String> {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        Self::select(catalogue, &names)
    }

    /// Whether a command's result is sent as an error: never honestly (a non-zero
    /// exit is the command's answer, not the tool's failure), but with the
    /// `error-on-nonzero-exit` mistake, whenever the exit code is not 0.
    pub fn flags_nonzero_exit(&self, exit_code: Option<i32>) -> bool {
        self.is_active("error-on-nonzero-exit") && exit_code.is_some_and(|code| code != 0)
    }

    /// Whether `name` is switched on. Asking about a name that is not in the
    /// catalogue is a programming error (a typo would make a mutation that
    /// never fires), caught in debug builds.
    pub fn is_active(&self, name: &str) -> bool {
        debug_assert!(
            self.catalogue.is_empty() || self.catalogue.iter().any(|m| m.name == name),
            "mutation {name:?} is not in this dialect's catalogue"
        );
        self.active.contains(&name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATALOGUE: &[MutationInfo] = &[
        MutationInfo {
            name: "one",
            what: "first",
        },
        MutationInfo {
            name: "two",
            what: "second",
        },
    ];

    #[test]
    fn selection_checks_names_against_the_catalogue() {
        let muts = Mutations::select(CATALOGUE, &["two".into(), "two".into()]).expect("known");
        assert!(muts.is_active("two"));
        assert!(!muts.is_active("one"));
        let err = Mutations::select(CATALOGUE, &["nope".into()]).unwrap_err();
        assert!(err.contains("one, two"), "{err}");
    }
}
