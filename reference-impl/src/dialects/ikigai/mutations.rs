//! The ikigai catalogue of mutations, in `--list-mutations` order.

use crate::mutations::catalogue;

catalogue! {
    /// The mistakes an ikigai-style server could make.
    pub(crate) enum Mutation {
        SuccessAsString = "success-as-string": "`success` is the string \"true\"/\"false\" instead of a boolean",
        OmitCount = "omit-count": "glob and grep leave `count` out of `data`",
        CountNewlines = "count-newlines": "`count` is the number of newlines in `output`, one less than its lines",
        CountAsString = "count-as-string": "`count` is written as a string (\"2\")",
        BytesAsChars = "bytes-as-chars": "file_write counts characters instead of UTF-8 bytes",
        NonzeroExitIsFailure = "nonzero-exit-is-failure": "a command's non-zero exit is reported as success:false",
        OmitIsError = "omit-is-error": "failures are sent without `isError: true`",
        IsErrorOnSuccess = "is-error-on-success": "successes are sent with `isError: true`",
        NoDataWrapper = "no-data-wrapper": "the tool fields sit beside `success` instead of inside `data`",
        GrepNoSpace = "grep-no-space": "grep lines read `file:42:text`, without the space after the line number",
        ErrorWithoutPath = "error-without-path": "error messages leave out the path (`File not found`)",
        BashStdoutOnly = "bash-stdout-only": "bash output has stdout only; stderr is dropped",
        NoMatchIsError = "no-match-is-error": "glob and grep with no match answer success:false",
        GrepIgnoreCase = "grep-ignore-case": "grep matches without regard to case (REG_ICASE)",
        GlobMatchesDotfiles = "glob-matches-dotfiles": "a wildcard matches a leading `.` (`*` lists `.env`)",
        GrepRecursive = "grep-recursive": "grep also searches the files in subdirectories of `path`",
        GrepCountOccurrences = "grep-count-occurrences": "grep's `count` counts every match in a line, not matching lines",
        GrepStripCr = "grep-strip-cr": "grep removes a `\\r` before the newline from the lines it shows",
        GrepDropLastLine = "grep-drop-last-line": "grep skips a last line that has no newline",
        ExitCodeWaitStatus = "exit-code-wait-status": "bash reports the wait status (code << 8) as `exit_code`",
        WriteNamesFullPath = "write-names-full-path": "file_write's confirmation names the path as given, not its base name",
        ErrorResolvedPath = "error-resolved-path": "file errors name the resolved absolute path instead of the path as written",
    }
}
