//! The gemini-cli catalogue of mutations, in `--list-mutations` order.
//! After the dialect's own come the engine's confinement bugs (`escape-*`,
//! `engine::breach`), shared by every dialect that confines its paths.

use crate::engine::breach::Breach;
use crate::mutations::catalogue;

catalogue! {
    /// The mistakes a gemini-style server could make.
    pub(crate) enum Mutation {
        DropTrailingPeriod = "drop-trailing-period": "success sentences lose their final period (`Successfully overwrote file: X`)",
        PluralMatchAlways = "plural-match-always": "the search heading says `1 matches`",
        OccurrenceAlwaysSingular = "occurrence-always-singular": "the replace mismatch error says `Expected 2 occurrence`",
        AcceptRelativePath = "accept-relative-path": "a relative path is taken against the root where an absolute one is required",
        NamesOnlyOrder = "names-only-order": "list_directory sorts by name only, not directories first",
        GlobPathOrder = "glob-path-order": "glob lists files by path, ignoring modification times",
        RelativeGlobPaths = "relative-glob-paths": "glob lists paths relative to the search directory",
        TrimStdout = "trim-stdout": "the shell report trims Stdout and Stderr",
        EmptyAsBlank = "empty-as-blank": "an empty Stdout or Stderr is printed as nothing instead of `(empty)`",
        NoPgidLine = "no-pgid-line": "the shell report lacks its `Process Group PGID` line",
        FilterAlways = "filter-always": "the search heading shows ` (filter: \"\")` without an include",
        ErrorOnNonzeroExit = "error-on-nonzero-exit": "a shell command's non-zero exit is sent with `isError: true`",
        WriteDespiteError = "write-despite-error": "replace writes the edit even when the occurrence count is wrong",
        TrimOnOverwrite = "trim-on-overwrite": "write_file trims the content when overwriting (as upstream 0.1.13 does)",
        IgnoreUnanchored = "ignore-unanchored": "list_directory's ignore patterns match anywhere in a name, not the whole name",
        HideDotfiles = "hide-dotfiles": "list_directory leaves out entries whose name starts with a dot",
        CrlfToLf = "crlf-to-lf": "read_file gives CRLF line ends back as LF",
        CutLinesByBytes = "cut-lines-by-bytes": "read_file cuts long lines at 2000 bytes of UTF-8, not 2000 characters",
        WindowStartZeroBased = "window-start-zero-based": "the truncation header counts lines from 0 (`showing lines 1-2` for offset 1)",
        OverlappingOccurrences = "overlapping-occurrences": "replace counts overlapping occurrences (`aa` three times in `aaaa`)",
        RegexOldString = "regex-old-string": "replace takes old_string as a regular expression, not as exact text",
        CountEveryHit = "count-every-hit": "the search counts every hit of the pattern, not every matching line",
        GlobDirAsSent = "glob-dir-as-sent": "glob's messages name a `path` argument as sent (`within sub`), not resolved",
        CommandLineTrimmed = "command-line-trimmed": "the shell report's `Command:` line shows the command trimmed",
    }
    and Breach::CATALOGUE
}
