//! Named conforming variations, switched on with `--vary NAME`: answers in another
//! form that the documents and the MCP specification allow.
//!
//! The mutation catalogues ([`crate::mutations`]) prove that the suites catch
//! wrong answers. These prove the other half: that a right answer in another
//! allowed form passes. Each entry names the sentence that allows it, so a
//! reader can check the freedom is real; [`REJECTED`] lists the freedoms that
//! were considered and are not variations, with why.
//!
//! The catalogue is declared once, like a mutation catalogue, and each entry
//! says which results it can reach: every result (the MCP result object), the
//! JSON texts of the dialects that write them ([`Reach::JsonTexts`]), or the
//! failure messages of the dialects whose documents give no words for them
//! ([`Reach::FreeMessages`]). A variation applies to every result it reaches;
//! none looks at which scenario is running. Variations combine: a server may
//! take all of them at once.
//!
//! A message in other words is right by the documents, not by the upstream
//! program, whose exact wording `basis: upstream` scenarios check: such a
//! variation is listed as sparing `spec` scenarios only, every other one `all`.

use rmcp::model::CallToolResult;
use serde_json::{json, Value};
use thiserror::Error;

use crate::dialects::{Adapter, Rendered, Reply};
use crate::json_spelling::{respell, Spelling};

/// Which results a variation can change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The MCP result object of every tool call.
    EveryResult,
    /// The texts that are JSON objects the dialect writes itself (an envelope,
    /// bash's object), in the dialects that write them.
    JsonTexts,
    /// The message of a failure, in the dialects whose documents give no words
    /// for it.
    FreeMessages,
    /// The error flag of a failure, in the dialects whose documents give their
    /// failures as texts alone.
    UnflaggedErrors,
}

impl Reach {
    /// Which scenarios must accept the variation: `spec` when it changes words
    /// the upstream program has, `all` otherwise.
    pub(crate) fn spares(self) -> &'static str {
        match self {
            Reach::FreeMessages => "spec",
            Reach::EveryResult | Reach::JsonTexts | Reach::UnflaggedErrors => "all",
        }
    }
}

/// What a dialect leaves free, from its adapter: which variations reach it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Freedoms {
    pub(crate) json_texts: bool,
    pub(crate) free_messages: bool,
    pub(crate) unflagged_errors: bool,
}

impl Freedoms {
    pub(crate) fn of(adapter: &Adapter) -> Freedoms {
        Freedoms {
            json_texts: adapter.json_texts,
            free_messages: adapter.free_messages,
            unflagged_errors: adapter.unflagged_errors,
        }
    }

    fn reach(self, reach: Reach) -> bool {
        match reach {
            Reach::EveryResult => true,
            Reach::JsonTexts => self.json_texts,
            Reach::FreeMessages => self.free_messages,
            Reach::UnflaggedErrors => self.unflagged_errors,
        }
    }
}

/// One entry of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VariationInfo {
    /// The `--vary` value.
    pub(crate) name: &'static str,
    /// What changes, in one line.
    pub(crate) what: &'static str,
    /// The sentence of a document or of a specification that allows it, with
    /// where it is.
    pub(crate) allowed_by: &'static str,
    pub(crate) reach: Reach,
}

/// A freedom considered and not made a variation, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rejected {
    pub(crate) what: &'static str,
    pub(crate) why: &'static str,
}

/// Declares the catalogue: an enum with one variant per variation, each given as
/// `Variant = "name" (reach): "what", "allowed by"`, plus its `CATALOGUE` table
/// in declaration order.
macro_rules! catalogue {
    (
        $(#[$meta:meta])*
        $vis:vis enum $enum:ident {
            $($variant:ident = $name:literal ($reach:ident) : $what:literal, $allowed:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $enum {
            $(#[doc = $what] $variant,)*
        }

        impl $enum {
            /// Every variation, in `--list-variations` order.
            pub(crate) const CATALOGUE: &'static [VariationInfo] = &[
                $(VariationInfo { name: $name, what: $what, allowed_by: $allowed, reach: Reach::$reach },)*
            ];

            fn name(self) -> &'static str {
                // Variants are numbered in declaration order, as the table is.
                Self::CATALOGUE[self as usize].name
            }
        }
    };
}

catalogue! {
    /// The forms a right answer may take.
    pub(crate) enum Variation {
        ExplicitIsErrorFalse = "explicit-is-error-false" (EveryResult):
            "a success states `isError: false` instead of leaving the field out",
            "MCP 2025-03-26 schema, CallToolResult.isError: \"Whether the tool call ended in an error. If not set, this is assumed to be false (the call was successful).\"",
        ResultMeta = "result-meta" (EveryResult):
            "every result carries a `_meta` object",
            "MCP 2025-03-26 schema, Result._meta: \"This result property is reserved by the protocol to allow clients and servers to attach additional metadata to their responses.\"",
        TextAnnotations = "text-annotations" (EveryResult):
            "each text block carries `annotations` (audience and priority)",
            "MCP 2025-03-26 schema, TextContent.annotations: \"Optional annotations for the client.\"",
        StructuredContent = "structured-content" (JsonTexts):
            "a text that is a JSON object is also sent as `structuredContent`",
            "MCP 2025-06-18, Tools, Structured Content: \"Structured content is returned as a JSON object in the structuredContent field of a result. For backwards compatibility, a tool that returns structured content SHOULD also return the serialized JSON in a TextContent block.\"",
        JsonKeysReordered = "json-keys-reordered" (JsonTexts):
            "the keys of every JSON object the text holds come in reverse byte order (`message` before `error`)",
            "RFC 8259, section 1: \"An object is an unordered collection of zero or more name/value pairs\"; neither seed 003 nor seed 004 orders the keys",
        JsonSpaced = "json-spaced" (JsonTexts):
            "JSON texts are written with a space after each `:` and `,` and inside the braces, as seed 003 writes its envelope",
            "RFC 8259, section 2: \"Insignificant whitespace is allowed before or after any of the six structural characters.\"; seed 003 shows `{ \"error\": \"<code>\", \"message\": \"...\" }`",
        JsonPrettyPrinted = "json-pretty-printed" (JsonTexts):
            "JSON texts are indented over several lines",
            "RFC 8259, section 2: \"Insignificant whitespace is allowed before or after any of the six structural characters.\"",
        JsonEscaped = "json-escaped" (JsonTexts):
            "JSON strings escape `/` and every non-ASCII character (`\\/`, `\\u00e9`)",
            "RFC 8259, section 7: \"Any character may be escaped.\"",
        ExtraField = "extra-field" (JsonTexts):
            "a success's open JSON object carries one more field: ikigai's `data`, agent-tools' bash object",
            "seed 004: \"Tool-specific data: Each tool can include relevant fields in `data`\"; seed 003: bash's text is \"a { exit_code, … } JSON object\"",
        ErrorsUnflagged = "errors-unflagged" (UnflaggedErrors):
            "a failure is sent without `isError`, its text alone saying what went wrong",
            "seed 002 gives each failure as a text alone: \"the tool must return the exact error string\", with no error flag (nor has gemini-cli 0.1.13 one)",
        MessageReworded = "message-reworded" (FreeMessages):
            "a failure's message opens with `The call failed: ` before the program's own words",
            "seed 000: \"Every error message (the text after the `[CODE]` prefix) SHALL state what happened, include the relevant value (path, pattern, count), and when applicable suggest how to fix the request\" (what it says, not its words); seed 003: \"Match on error, never on message.\"",
    }
}

/// The freedoms considered and not made variations.
pub(crate) const REJECTED: &[Rejected] = &[
    Rejected {
        what: "an extra text content block, or the text split over several blocks",
        why: "every document gives a result's whole answer as its text; a client reads the blocks together, so another block changes the answer",
    },
    Rejected {
        what: "an extra non-text content block (an image, a resource link)",
        why: "no document gives a tool a second kind of content; what it would hold is not an answer the documents describe",
    },
    Rejected {
        what: "a JSON-RPC error instead of an error result for a failed tool call",
        why: "MCP 2025-06-18, Tools, Error Handling: errors in tool results carry isError; the documents of every dialect give their failures as results (where one allows both, the scenario's any_of accepts both)",
    },
    Rejected {
        what: "spacing, key order or escaping in the texts of boris and gemini-cli",
        why: "their texts are plain text whose exact form the documents give ([CODE] message, numbered lines, exact sentences), not JSON",
    },
    Rejected {
        what: "a whole number written with a fraction or exponent (`0.0`, `0e0`) in a JSON text",
        why: "RFC 8259 allows it, but seed 004's `count`, `bytes` and `exit_code` and seed 003's `exit_code` are counts and codes: integers, as the seeds' examples write them",
    },
    Rejected {
        what: "a field added to agent-tools' envelope of any code",
        why: "seed 003 lets some codes add fields, not every one; the internal error, upstream, says only \"internal error\"",
    },
    Rejected {
        what: "another wording of a message the document gives",
        why: "where a document gives the words (gemini-cli's exact strings, ikigai's examples), they are the contract; messages no document gives are worded by the program, and the scenarios that check that wording are basis: upstream",
    },
    Rejected {
        what: "spaces or a newline inside the JSON-RPC message on stdio",
        why: "MCP 2025-06-18, Transports, stdio: messages are delimited by newlines and MUST NOT contain embedded newlines; spacing within a line is the MCP library's and is not the tool's answer",
    },
];

/// `--vary` named a variation that is not in the dialect's catalogue.
#[derive(Debug, Error)]
#[error("unknown variation {name:?} for this dialect; valid variations: {valid}")]
pub(crate) struct UnknownVariation {
    name: String,
    valid: String,
}

/// The variations that reach a dialect's results, given what it leaves free.
pub(crate) fn catalogue_for(freedoms: Freedoms) -> impl Iterator<Item = &'static VariationInfo> {
    Variation::CATALOGUE
        .iter()
        .filter(move |v| freedoms.reach(v.reach))
}

/// The variations switched on for this server, checked at start-up.
#[derive(Debug, Clone, Default)]
pub(crate) struct Variations {
    active: Vec<&'static str>,
}

impl Variations {
    /// Switches on `names` among the variations a dialect's results can take.
    pub(crate) fn select(
        freedoms: Freedoms,
        names: &[String],
    ) -> Result<Variations, UnknownVariation> {
        let mut active = Vec::new();
        for name in names {
            match catalogue_for(freedoms).find(|v| v.name == name) {
                Some(info) if !active.contains(&info.name) => active.push(info.name),
                Some(_) => {}
                None => {
                    let valid: Vec<&str> = catalogue_for(freedoms).map(|v| v.name).collect();
                    return Err(UnknownVariation {
                        name: name.clone(),
                        valid: valid.join(", "),
                    });
                }
            }
        }
        Ok(Variations { active })
    }

    fn is_active(&self, variation: Variation) -> bool {
        self.active.contains(&variation.name())
    }

    /// `reply` in the words the active variations give it, before the dialect
    /// renders it.
    pub(crate) fn reword(&self, reply: Reply) -> Reply {
        match reply {
            Reply::Failure(mut failure) if self.is_active(Variation::MessageReworded) => {
                failure.message = format!("The call failed: {}", failure.message);
                Reply::Failure(failure)
            }
            other => other,
        }
    }

    /// The MCP result of `rendered`, in the forms the active variations give it.
    /// `json_text` says that the text, if it is a JSON object, is one the dialect
    /// wrote (so its spelling is free), not a file's content.
    pub(crate) fn result(&self, rendered: Rendered, json_text: bool) -> CallToolResult {
        if self.active.is_empty() {
            return rendered.into_result();
        }
        let honest = rendered.clone();
        let is_error = rendered.is_error;
        let mut object = json_text
            .then(|| serde_json::from_str::<Value>(&rendered.text).ok())
            .flatten()
            .filter(Value::is_object);
        if let (Some(value), false, true) = (
            object.as_mut(),
            is_error,
            self.is_active(Variation::ExtraField),
        ) {
            // The object the documents leave open: ikigai's `data`, else the
            // success's own object (agent-tools' bash result).
            let open = match value.get_mut("data") {
                Some(data) if data.is_object() => data,
                _ => value,
            };
            if let Some(fields) = open.as_object_mut() {
                fields.insert("toolspec_extra".into(), json!("an added field"));
            }
        }
        let text = match &object {
            Some(value) => respell(
                value,
                Spelling {
                    reversed_keys: self.is_active(Variation::JsonKeysReordered),
                    spaced: self.is_active(Variation::JsonSpaced),
                    pretty: self.is_active(Variation::JsonPrettyPrinted),
                    escaped: self.is_active(Variation::JsonEscaped),
                },
            ),
            None => rendered.text,
        };
        let mut block = json!({ "type": "text", "text": text });
        if self.is_active(Variation::TextAnnotations) {
            block["annotations"] = json!({ "audience": ["assistant"], "priority": 0.5 });
        }
        let mut result = json!({ "content": [block] });
        if is_error && !self.is_active(Variation::ErrorsUnflagged) {
            result["isError"] = Value::Bool(true);
        } else if self.is_active(Variation::ExplicitIsErrorFalse) {
            result["isError"] = Value::Bool(false);
        }
        if self.is_active(Variation::ResultMeta) {
            result["_meta"] = json!({ "toolspec.dev/variation": "result-meta" });
        }
        if let (Some(value), true) = (object, self.is_active(Variation::StructuredContent)) {
            result["structuredContent"] = value;
        }
        // Every field set above is one CallToolResult has, with its type; were one
        // refused, the answer would still be right, only not varied.
        serde_json::from_value(result).unwrap_or_else(|_| honest.into_result())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(variations: &[&str], text: &str, is_error: bool) -> Value {
        let names: Vec<String> = variations.iter().map(|v| v.to_string()).collect();
        let freedoms = Freedoms {
            json_texts: true,
            free_messages: true,
            unflagged_errors: true,
        };
        let chosen = Variations::select(freedoms, &names).expect("known variations");
        let rendered = Rendered {
            text: text.to_string(),
            is_error,
        };
        serde_json::to_value(chosen.result(rendered, true)).expect("serializable")
    }

    #[test]
    fn no_variation_leaves_the_result_as_the_dialect_rendered_it() {
        let value = wire(&[], r#"{"error":"x","message":"y"}"#, true);
        assert_eq!(
            value["content"][0]["text"],
            r#"{"error":"x","message":"y"}"#
        );
        assert_eq!(value["isError"], true);
        assert!(value.get("_meta").is_none());
    }

    #[test]
    fn the_result_object_takes_every_field_mcp_allows() {
        let all = [
            "explicit-is-error-false",
            "result-meta",
            "text-annotations",
            "structured-content",
        ];
        let value = wire(&all, r#"{"exit_code":0}"#, false);
        assert_eq!(value["isError"], false);
        assert!(value["_meta"].is_object());
        assert_eq!(
            value["content"][0]["annotations"]["audience"][0],
            "assistant"
        );
        assert_eq!(value["structuredContent"], json!({"exit_code": 0}));
        let plain = wire(&all, "plain output", false);
        assert!(plain.get("structuredContent").is_none());
    }

    #[test]
    fn an_unflagged_error_leaves_the_flag_out() {
        let value = wire(&["errors-unflagged"], "File not found: /r/a", true);
        assert!(value.get("isError").is_none(), "{value}");
        assert_eq!(value["content"][0]["text"], "File not found: /r/a");
    }

    #[test]
    fn json_texts_are_respelled_and_other_texts_kept() {
        let value = wire(
            &["json-keys-reordered", "json-spaced", "json-escaped"],
            r#"{"error":"not_found","message":"a/é"}"#,
            true,
        );
        assert_eq!(
            value["content"][0]["text"],
            r#"{ "message": "a\/\u00e9", "error": "not_found" }"#
        );
        let plain = wire(&["json-spaced"], "1\talpha", false);
        assert_eq!(plain["content"][0]["text"], "1\talpha");
    }

    #[test]
    fn an_open_object_of_a_success_gains_a_field_and_a_failure_does_not() {
        let text = |v: &Value| -> Value {
            serde_json::from_str(v["content"][0]["text"].as_str().expect("text")).expect("JSON")
        };
        let data = wire(
            &["extra-field"],
            r#"{"success":true,"data":{"count":1}}"#,
            false,
        );
        assert_eq!(text(&data)["data"]["toolspec_extra"], "an added field");
        assert!(text(&data).get("toolspec_extra").is_none());
        let bash = wire(&["extra-field"], r#"{"exit_code":0}"#, false);
        assert_eq!(text(&bash)["toolspec_extra"], "an added field");
        let failure = wire(&["extra-field"], r#"{"error":"x","message":"y"}"#, true);
        assert!(text(&failure).get("toolspec_extra").is_none());
    }

    #[test]
    fn selection_checks_names_against_what_reaches_the_dialect() {
        let fixed = Freedoms {
            json_texts: false,
            free_messages: false,
            unflagged_errors: false,
        };
        assert!(Variations::select(fixed, &["result-meta".into()]).is_ok());
        assert!(Variations::select(fixed, &["message-reworded".into()]).is_err());
        let err = Variations::select(fixed, &["json-spaced".into()]).unwrap_err();
        assert!(
            err.to_string()
                .contains("valid variations: explicit-is-error-false"),
            "{err}"
        );
    }

    #[test]
    fn a_failure_is_reworded_and_a_success_kept() {
        let freedoms = Freedoms {
            json_texts: false,
            free_messages: true,
            unflagged_errors: false,
        };
        let chosen = Variations::select(freedoms, &["message-reworded".into()]).expect("known");
        let failure = crate::dialects::Failure::new("NOT_FOUND", "no such file: a.txt");
        match chosen.reword(Reply::Failure(failure)) {
            Reply::Failure(f) => assert_eq!(f.message, "The call failed: no such file: a.txt"),
            other => panic!("{other:?}"),
        }
        assert_eq!(chosen.reword(Reply::text("ok")), Reply::text("ok"));
    }

    #[test]
    fn every_entry_cites_what_allows_it() {
        for info in Variation::CATALOGUE {
            assert!(
                info.allowed_by.contains('"'),
                "{} quotes no sentence",
                info.name
            );
        }
        assert!(REJECTED.iter().all(|r| !r.why.is_empty()));
    }
}
