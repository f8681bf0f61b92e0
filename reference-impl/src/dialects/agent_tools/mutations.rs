//! The agent-tools catalogue of mutations, in `--list-mutations` order.
//! After the dialect's own come the engine's confinement bugs (`escape-*`,
//! `engine::breach`), shared by every dialect that confines its paths.

use crate::engine::breach::Breach;
use crate::mutations::catalogue;

catalogue! {
    /// The mistakes an agent-tools implementation could make.
    pub(crate) enum Mutation {
        CodeFieldRenamed = "code-field-renamed": "the envelope names its code `code` instead of `error`",
        UppercaseCodes = "uppercase-codes": "codes are written in upper case: `NOT_FOUND`",
        PlainTextErrors = "plain-text-errors": "a failure's text is only its message, not the JSON envelope",
        OmitIsError = "omit-is-error": "failures are sent without `isError: true`",
        ErrorOnNonzeroExit = "error-on-nonzero-exit": "a command's non-zero exit is an `io_error` envelope with `isError: true`",
        LeakInternalDetails = "leak-internal-details": "an internal error's message carries the underlying error and path",
        MultiEditPartialWrite = "multi-edit-partial-write": "multi_edit writes after each edit, so a failing later edit leaves earlier ones applied",
        PatchNotAtomic = "patch-not-atomic": "apply_patch writes each file as soon as its hunks apply, so a later failing file leaves earlier ones patched",
        AbsolutePathsInMessages = "absolute-paths-in-messages": "messages name absolute paths instead of workspace-relative ones",
        NoTolerantRetry = "no-tolerant-retry": "edit_file answers no_match at once when old_string is absent, without the whitespace-tolerant retry",
        SuccessInEnvelope = "success-in-envelope": "a success's text is wrapped in a JSON object `{\"result\": …}`",
        TimeoutDropsOutput = "timeout-drops-output": "a timeout envelope leaves out the partial stdout and stderr",
        ReadOnlyStillListed = "read-only-still-listed": "read-only mode refuses the mutating tools but still lists them in tools/list",
        ReadOnlyIgnored = "read-only-ignored": "read-only mode still lists and runs the mutating tools",
        WriteCountsChars = "write-counts-chars": "write_file reports the content's characters as its byte count (UTF-8 bytes vs chars)",
        WriteAddsFinalNewline = "write-adds-final-newline": "write_file ends a content that lacks one with a newline",
        EmptyDirBlank = "empty-dir-blank": "list_dir of an empty directory answers an empty text instead of `(empty directory)`",
        OffsetZeroBased = "offset-zero-based": "read_file's positive offset counts lines to skip, so offset=2 starts at line 3",
        LimitIgnored = "limit-ignored": "read_file ignores `limit` and shows up to the default 2000 lines",
        PrefixConfinement = "prefix-confinement": "confinement compares path strings, so a sibling `<root>-x` counts as inside the root",
        IdenticalCheckedLate = "identical-checked-late": "edit_file checks identical strings only after finding old_string, so an absent one is no_match",
        UnescapedEnvelope = "unescaped-envelope": "the envelope is built by string formatting, so a quote or newline in a message breaks the JSON",
        GrepIgnoreCaseIgnored = "grep-ignore-case-ignored": "grep matches case-sensitively even with `ignore_case: true`",
        SignalExitCodeMinusOne = "signal-exit-code-minus-one": "a command ended by a signal reports `exit_code: -1` instead of 128 + the signal's number",
        ExitCodeAsString = "exit-code-as-string": "bash's `exit_code` is a JSON string (`\"3\"`) instead of a number",
    }
    and Breach::CATALOGUE
}
