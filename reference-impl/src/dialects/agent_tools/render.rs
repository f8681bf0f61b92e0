//! The failure envelope and the mutations that bend it.
//!
//! A failure's text is one compact JSON object whose first two keys are
//! `error` (the code) and `message`, followed by the code's extra fields
//! (`path`, `size`, `limit`, `file`, `hunk`, `timeout_ms`, `stdout`,
//! `stderr`, ...). A success's text is the tool's own output and never this
//! object.

use serde_json::{Map, Value};

use super::super::{Failure, Rendered, Reply};
use super::mutations::Mutation;
use crate::dialects::common::ordered_json::object;
use crate::mutations::Mutations;

/// Writes `{"error":code,"message":message,...extra}` with the keys in that
/// order (serde_json's map would sort `error` after `file`).
pub(super) fn envelope(
    code_key: &str,
    code: &str,
    message: &str,
    extra: &Map<String, Value>,
) -> String {
    let mut fields = vec![
        (code_key, Value::from(code)),
        ("message", Value::from(message)),
    ];
    fields.extend(
        extra
            .iter()
            .filter(|(key, _)| key.as_str() != code_key && key.as_str() != "message")
            .map(|(key, value)| (key.as_str(), value.clone())),
    );
    object(&fields)
}

/// The envelope put together with `format!`: the code and message are
/// pasted between quotes as they are (no JSON escaping), the extra fields
/// serialized properly.
fn hand_built(code_key: &str, code: &str, message: &str, extra: &Map<String, Value>) -> String {
    let mut text = format!("{{\"{code_key}\":\"{code}\",\"message\":\"{message}\"");
    for (key, value) in extra {
        text.push_str(&format!(",{}:{value}", Value::from(key.as_str())));
    }
    text.push('}');
    text
}

/// Renders a reply in the agent-tools conventions, applying the mutations
/// that concern the shape of a result (the others act where the work is done).
pub(super) fn render(mutations: &Mutations, reply: Reply) -> Rendered {
    match reply {
        Reply::Success { text, exit_code } => match exit_code {
            Some(code) if code != 0 && mutations.is_active(Mutation::ErrorOnNonzeroExit) => {
                let mut failure =
                    Failure::new("io_error", format!("Command exited with code {code}"));
                if let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(&text) {
                    failure.extra = fields;
                }
                render_failure(mutations, failure)
            }
            _ if mutations.is_active(Mutation::SuccessInEnvelope) => Rendered {
                text: serde_json::json!({ "result": text }).to_string(),
                is_error: false,
            },
            _ => Rendered {
                text,
                is_error: false,
            },
        },
        Reply::Failure(failure) => render_failure(mutations, failure),
    }
}

fn render_failure(mutations: &Mutations, failure: Failure) -> Rendered {
    let code = if mutations.is_active(Mutation::UppercaseCodes) {
        failure.code.to_ascii_uppercase()
    } else {
        failure.code.to_string()
    };
    let code_key = if mutations.is_active(Mutation::CodeFieldRenamed) {
        "code"
    } else {
        "error"
    };
    let text = if mutations.is_active(Mutation::PlainTextErrors) {
        failure.message
    } else if mutations.is_active(Mutation::UnescapedEnvelope) {
        hand_built(code_key, &code, &failure.message, &failure.extra)
    } else {
        envelope(code_key, &code, &failure.message, &failure.extra)
    };
    Rendered {
        text,
        is_error: !mutations.is_active(Mutation::OmitIsError),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::agent_tools::mutations::Mutation;

    fn mutated(names: &[Mutation]) -> Mutations {
        Mutations::of(names)
    }

    fn failure_with_extra() -> Failure {
        let mut failure = Failure::new("patch_failed", "Hunk did not apply cleanly in b.txt");
        failure.extra.insert("hunk".into(), Value::from(1));
        failure.extra.insert("file".into(), Value::from("b.txt"));
        failure
    }

    #[test]
    fn error_and_message_come_first_then_the_extra_fields() {
        let failure = failure_with_extra();
        assert_eq!(
            envelope("error", failure.code, &failure.message, &failure.extra),
            r#"{"error":"patch_failed","message":"Hunk did not apply cleanly in b.txt","file":"b.txt","hunk":1}"#
        );
    }

    #[test]
    fn failures_are_errors_and_successes_are_left_alone() {
        let plain = mutated(&[]);
        let rendered = render(
            &plain,
            Reply::Failure(Failure::new("not_found", "No such file: a")),
        );
        assert_eq!(
            rendered,
            Rendered {
                text: r#"{"error":"not_found","message":"No such file: a"}"#.into(),
                is_error: true
            }
        );
        let bash = Reply::Success {
            text: r#"{"exit_code":3,"stdout":"","stderr":"","signal":null,"timed_out":false}"#
                .into(),
            exit_code: Some(3),
        };
        assert!(!render(&plain, bash.clone()).is_error);
        let mutated_render = render(&mutated(&[Mutation::ErrorOnNonzeroExit]), bash);
        assert!(mutated_render.is_error);
        assert!(mutated_render.text.starts_with(r#"{"error":"io_error""#));
    }

    #[test]
    fn the_hand_built_envelope_pastes_the_message_unescaped() {
        let failure = Failure::new("invalid_input", "missing required parameter \"path\"");
        let text = render(
            &mutated(&[Mutation::UnescapedEnvelope]),
            Reply::Failure(failure),
        )
        .text;
        assert_eq!(
            text,
            r#"{"error":"invalid_input","message":"missing required parameter "path""}"#
        );
        assert!(serde_json::from_str::<Value>(&text).is_err());
        let text = render(
            &mutated(&[Mutation::UnescapedEnvelope]),
            Reply::Failure(failure_with_extra()),
        )
        .text;
        assert!(text.ends_with(r#","file":"b.txt","hunk":1}"#), "{text}");
    }

    #[test]
    fn shape_mutations_change_only_what_they_name() {
        let text =
            |names: &[Mutation]| render(&mutated(names), Reply::Failure(failure_with_extra()));
        assert!(text(&[Mutation::UppercaseCodes])
            .text
            .starts_with(r#"{"error":"PATCH_FAILED""#));
        assert!(text(&[Mutation::CodeFieldRenamed])
            .text
            .starts_with(r#"{"code":"patch_failed""#));
        assert_eq!(
            text(&[Mutation::PlainTextErrors]).text,
            "Hunk did not apply cleanly in b.txt"
        );
        assert!(!text(&[Mutation::OmitIsError]).is_error);
        assert_eq!(
            render(&mutated(&[Mutation::SuccessInEnvelope]), Reply::text("ok")).text,
            r#"{"result":"ok"}"#
        );
    }
}
