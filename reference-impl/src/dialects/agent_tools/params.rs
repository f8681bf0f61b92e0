//! Schema checks beyond the types `args.rs` knows: minimums, enums and the
//! `edits` array. Every failure here is `invalid_input`, raised before any
//! file is touched, as v0.1.0 checks every argument against the tool's schema
//! before the tool runs (src/core.ts:57-65).

use serde_json::{Map, Value};

use super::super::Failure;
use crate::dialects::common::args::{ArgError, Args};

pub(crate) fn invalid(message: impl Into<String>) -> Failure {
    Failure::new("invalid_input", message)
}

/// A malformed argument: `invalid_input` with the argument's message.
pub(crate) fn argument_failure(err: ArgError) -> Failure {
    invalid(err.message())
}

/// An optional integer that must be at least `min`.
pub(crate) fn int_at_least(
    args: &Args,
    name: &'static str,
    min: i64,
) -> Result<Option<i64>, Failure> {
    match args.opt_int(name).map_err(argument_failure)? {
        Some(n) if n < min => Err(invalid(format!(
            "parameter \"{name}\" must be at least {min}, got {n}"
        ))),
        other => Ok(other),
    }
}

/// An optional string that must be one of `allowed`.
pub(crate) fn one_of(
    args: &Args,
    name: &'static str,
    allowed: &[&'static str],
) -> Result<Option<String>, Failure> {
    match args.opt_string(name).map_err(argument_failure)? {
        Some(value) if !allowed.contains(&value.as_str()) => Err(invalid(format!(
            "parameter \"{name}\" must be one of {}, got \"{value}\"",
            allowed.join(", ")
        ))),
        other => Ok(other),
    }
}

/// One entry of `multi_edit`'s `edits`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EditSpec {
    pub(crate) old_string: String,
    pub(crate) new_string: String,
    pub(crate) replace_all: bool,
}

impl EditSpec {
    /// Reads one `{old_string, new_string, replace_all?}` object.
    pub(crate) fn from_object(map: &Map<String, Value>) -> Result<EditSpec, ArgError> {
        let args = Args::new(map, &["old_string", "new_string", "replace_all"])?;
        Ok(EditSpec {
            old_string: args.string("old_string")?,
            new_string: args.string("new_string")?,
            replace_all: args.opt_bool("replace_all")?.unwrap_or(false),
        })
    }
}

/// `edits`: a non-empty array of edit objects.
pub(crate) fn edits(raw: &Map<String, Value>) -> Result<Vec<EditSpec>, Failure> {
    let items = match raw.get("edits") {
        None | Some(Value::Null) => return Err(invalid(ArgError::Missing("edits").message())),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(invalid("parameter \"edits\" must be an array")),
    };
    if items.is_empty() {
        return Err(invalid(
            "parameter \"edits\" must contain at least one edit",
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Object(map) => match EditSpec::from_object(map) {
                Err(err) => Err(invalid(format!("edits[{i}]: {}", err.message()))),
                // `minLength: 1` in v0.1.0's schema (src/tools/multi-edit.ts:32):
                // refused with the other arguments, before the file is looked at.
                Ok(spec) if spec.old_string.is_empty() => Err(invalid(format!(
                    "edits[{i}]: old_string must not be empty"
                ))),
                Ok(spec) => Ok(spec),
            },
            _ => Err(invalid(format!("edits[{i}] must be an object"))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn edits_are_checked_item_by_item() {
        let ok = object(json!({"edits": [{"old_string": "a", "new_string": "b"}]}));
        assert_eq!(
            edits(&ok).expect("valid"),
            vec![EditSpec {
                old_string: "a".into(),
                new_string: "b".into(),
                replace_all: false
            }]
        );
        let bad =
            object(json!({"edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c"}]}));
        assert_eq!(
            edits(&bad).expect_err("missing").message,
            "edits[1]: missing required parameter \"new_string\""
        );
        assert!(edits(&object(json!({"edits": []}))).is_err());
        assert!(edits(&object(json!({}))).is_err());
    }

    #[test]
    fn minimums_and_enums() {
        let map = object(json!({"n": -1, "mode": "lines"}));
        let args = Args::new(&map, &["n", "mode"]).expect("known");
        assert!(int_at_least(&args, "n", 0).is_err());
        assert_eq!(int_at_least(&args, "n", -5).expect("ok"), Some(-1));
        assert!(one_of(&args, "mode", &["content", "count"]).is_err());
    }
}
