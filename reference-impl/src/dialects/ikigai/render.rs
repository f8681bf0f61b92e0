//! The result envelope of seed 004: compact JSON, `{"success":true,
//! "data":{…}}` or `{"success":false,"error":"…"}`, with `isError` set
//! exactly when `success` is false. Keys are written in the seed's order
//! (`success` first; `output` first in `data`).
//!
//! Tools hand their data over as the JSON of [`Data`] in a
//! [`Reply::Success`]; [`render`] wraps it, applying the envelope mutations.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::{Failure, Rendered, Reply};
use super::mutations::Mutation;
use crate::dialects::common::ordered_json::object;
use crate::mutations::Mutations;

/// The tool-specific fields of a success; each tool fills the ones the seed
/// gives it (`count` for glob and grep, `bytes` for file_write, `exit_code`
/// for bash).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Data {
    pub(crate) output: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) exit_code: Option<i32>,
}

impl Data {
    /// The reply a tool returns; `exit_code` is repeated outside the JSON so
    /// that rendering can act on it.
    pub(crate) fn into_reply(self) -> Reply {
        let exit_code = self.exit_code;
        Reply::Success {
            text: serde_json::to_value(&self)
                .unwrap_or(Value::Null)
                .to_string(),
            exit_code,
        }
    }

    /// The data object's fields in order, as the mutations bend them.
    fn fields(&self, mutations: &Mutations) -> Vec<(&'static str, Value)> {
        let mut fields = vec![("output", Value::from(self.output.as_str()))];
        if let Some(count) = self.count {
            let count = if mutations.is_active(Mutation::CountNewlines) {
                self.output.matches('\n').count() as u64
            } else {
                count
            };
            if mutations.is_active(Mutation::CountAsString) {
                fields.push(("count", Value::from(count.to_string())));
            } else if !mutations.is_active(Mutation::OmitCount) {
                fields.push(("count", Value::from(count)));
            }
        }
        if let Some(bytes) = self.bytes {
            fields.push(("bytes", Value::from(bytes)));
        }
        if let Some(exit_code) = self.exit_code {
            fields.push(("exit_code", Value::from(exit_code)));
        }
        fields
    }
}

fn success_flag(mutations: &Mutations, success: bool) -> Value {
    if mutations.is_active(Mutation::SuccessAsString) {
        Value::from(success.to_string())
    } else {
        Value::from(success)
    }
}

/// Renders a reply as the envelope.
pub(super) fn render(mutations: &Mutations, reply: Reply) -> Rendered {
    match reply {
        Reply::Success { text, exit_code } => {
            if mutations.is_active(Mutation::NonzeroExitIsFailure) {
                if let Some(code) = exit_code.filter(|&code| code != 0) {
                    let failure = Failure::new("", format!("Command exited with code {code}"));
                    return render_failure(mutations, failure);
                }
            }
            match serde_json::from_str::<Data>(&text) {
                Ok(data) => render_success(mutations, &data),
                Err(err) => render_failure(
                    mutations,
                    Failure::new("", format!("Internal error: bad tool data: {err}")),
                ),
            }
        }
        Reply::Failure(failure) => render_failure(mutations, failure),
    }
}

fn render_success(mutations: &Mutations, data: &Data) -> Rendered {
    let success = ("success", success_flag(mutations, true));
    let fields = data.fields(mutations);
    let text = if mutations.is_active(Mutation::NoDataWrapper) {
        let mut all = vec![success];
        all.extend(fields);
        object(&all)
    } else {
        // `data` is already JSON text; splice it in as a raw member.
        let inner = object(&fields);
        let head = object(&[success]);
        format!("{},\"data\":{inner}}}", &head[..head.len() - 1])
    };
    Rendered {
        text,
        is_error: mutations.is_active(Mutation::IsErrorOnSuccess),
    }
}

fn render_failure(mutations: &Mutations, failure: Failure) -> Rendered {
    let mut message = failure.message;
    if mutations.is_active(Mutation::ErrorWithoutPath) {
        for path in &failure.paths {
            message = message.replace(&format!(": {path}"), "");
        }
    }
    Rendered {
        text: object(&[
            ("success", success_flag(mutations, false)),
            ("error", Value::from(message)),
        ]),
        is_error: !mutations.is_active(Mutation::OmitIsError),
    }
}

#[cfg(test)]
mod tests {
    use super::super::mutations::Mutation;
    use super::*;

    fn mutated(names: &[Mutation]) -> Mutations {
        Mutations::of(names)
    }

    fn grep_data() -> Data {
        Data {
            output: "a.c:1: x\na.c:2: y".into(),
            count: Some(2),
            ..Data::default()
        }
    }

    fn render_with(names: &[Mutation], reply: Reply) -> Rendered {
        render(&mutated(names), reply)
    }

    #[test]
    fn successes_are_compact_and_ordered() {
        let rendered = render_with(&[], grep_data().into_reply());
        assert_eq!(
            rendered.text,
            r#"{"success":true,"data":{"output":"a.c:1: x\na.c:2: y","count":2}}"#
        );
        assert!(!rendered.is_error);
        let bash = Data {
            output: "héllo".into(),
            exit_code: Some(3),
            ..Data::default()
        };
        assert_eq!(
            render_with(&[], bash.into_reply()).text,
            r#"{"success":true,"data":{"output":"héllo","exit_code":3}}"#
        );
    }

    #[test]
    fn failures_carry_the_message_and_is_error() {
        let failure = Failure {
            paths: vec!["missing.txt".into()],
            ..Failure::new("", "File not found: missing.txt")
        };
        let rendered = render_with(&[], Reply::Failure(failure.clone()));
        assert_eq!(
            rendered.text,
            r#"{"success":false,"error":"File not found: missing.txt"}"#
        );
        assert!(rendered.is_error);
        let bent = render_with(
            &[
                Mutation::ErrorWithoutPath,
                Mutation::OmitIsError,
                Mutation::SuccessAsString,
            ],
            Reply::Failure(failure),
        );
        assert_eq!(bent.text, r#"{"success":"false","error":"File not found"}"#);
        assert!(!bent.is_error);
    }

    #[test]
    fn envelope_mutations_bend_the_fields() {
        let text = |names: &[Mutation]| render_with(names, grep_data().into_reply()).text;
        assert_eq!(
            text(&[Mutation::OmitCount]),
            r#"{"success":true,"data":{"output":"a.c:1: x\na.c:2: y"}}"#
        );
        assert!(text(&[Mutation::CountNewlines]).ends_with(r#""count":1}}"#));
        assert!(text(&[Mutation::CountAsString]).ends_with(r#""count":"2"}}"#));
        assert_eq!(
            text(&[Mutation::NoDataWrapper]),
            r#"{"success":true,"output":"a.c:1: x\na.c:2: y","count":2}"#
        );
        assert!(render_with(&[Mutation::IsErrorOnSuccess], grep_data().into_reply()).is_error);
        let failed_exit = Data {
            output: String::new(),
            exit_code: Some(1),
            ..Data::default()
        };
        let rendered = render_with(&[Mutation::NonzeroExitIsFailure], failed_exit.into_reply());
        assert_eq!(
            rendered.text,
            r#"{"success":false,"error":"Command exited with code 1"}"#
        );
        assert!(rendered.is_error);
    }
}
