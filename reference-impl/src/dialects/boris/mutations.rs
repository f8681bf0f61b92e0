//! The boris catalogue of mutations, in `--list-mutations` order.

use crate::mutations::catalogue;

catalogue! {
    /// The mistakes a boris-style server could make.
    pub(crate) enum Mutation {
        DropCodePrefix = "drop-code-prefix": "error text loses its `[CODE] ` prefix",
        LowercaseCode = "lowercase-code": "the code is written in lower case: `[path_not_found] …`",
        NoSpaceAfterCode = "no-space-after-code": "no space after the code: `[CODE]message`",
        OmitIsError = "omit-is-error": "error results are sent without `isError: true`",
        ErrorOnNonzeroExit = "error-on-nonzero-exit": "a command's non-zero exit is reported with `isError: true`",
        WrongCode = "wrong-code": "`PATH_NOT_FOUND` is reported as `IO_ERROR`",
        EmptyCommandAsInvalidInput = "empty-command-as-invalid-input": "an empty bash command gets the generic `INVALID_INPUT`, not `BASH_EMPTY_COMMAND`",
        AmbiguousAsNotFound = "ambiguous-as-not-found": "an ambiguous `old_str` is reported as `STR_REPLACE_NOT_FOUND`",
        DeniedAsNotFound = "denied-as-not-found": "a path outside the allowed scope is reported as `PATH_NOT_FOUND`, hiding it",
        BadRegexAsInvalidInput = "bad-regex-as-invalid-input": "an invalid grep pattern gets the generic `INVALID_INPUT`",
        PartialWrite = "partial-write": "a write refused for its size leaves a truncated file behind",
        DropPathFromMessage = "drop-path-from-message": "error messages no longer name the path they are about",
        DoubleSpaceAfterCode = "double-space-after-code": "two spaces after the code: `[CODE]  message`",
        AmbiguousCountOffByOne = "ambiguous-count-off-by-one": "an ambiguous `old_str` reports one occurrence fewer than it has (counting the others)",
        TaskLimitOffByOne = "task-limit-off-by-one": "the background task limit refuses the 10th task instead of the 11th",
        CreateSizeCountsChars = "create-size-counts-chars": "create_file measures content in characters, not UTF-8 bytes, against the size limit",
        NameSymlinkTarget = "name-symlink-target": "a dangling symlink is reported by its target's path, not the path the caller gave",
        TooLargeMessageWithoutPath = "too-large-message-without-path": "`FILE_TOO_LARGE` says `file is N bytes, …` without naming the file",
        IoErrorBareCause = "io-error-bare-cause": "`IO_ERROR` carries only the raw OS error (`is a directory`), no operation or path",
        BlankCommandRuns = "blank-command-runs": "only `\"\"` counts as an empty command; a blank one is run by the shell",
        NonzeroExitDropsStderr = "nonzero-exit-drops-stderr": "a command that exits non-zero loses its stderr from the result",
        OutputModeWithoutValidValues = "output-mode-without-valid-values": "an invalid grep `output_mode` message does not list the valid values",
    }
}
