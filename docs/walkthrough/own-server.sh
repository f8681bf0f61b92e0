#!/usr/bin/env bash
# The walkthrough of docs/authoring.md ("Your own server, from an empty folder"),
# as CI runs it: a golden suite of 20 scenarios, file effects checked, for a
# third-party server (@modelcontextprotocol/server-filesystem, which .ci/run
# installs at a pinned version) in five typed commands, no file edited by hand.
# The lines between the markers are the page's, word for word (a harness test,
# docs_match_code, compares them).
#
# usage: docs/walkthrough/own-server.sh FOLDER
#   FOLDER: empty or missing; `toolspec` and `mcp-server-filesystem` on PATH.
set -euo pipefail
mkdir -p "$1"
cd "$1"
# --- walkthrough ---
mkdir -p example/src && printf 'alpha\nbeta\ngamma\n' > example/notes.txt && printf 'def f():\n    return 1\n' > example/src/app.py
cat > calls.yaml <<'EOF'
- { tool: read_text_file, args: { path: "{root}/notes.txt" } }
- { tool: read_text_file, args: { path: "{root}/notes.txt", head: 2 } }
- { tool: read_text_file, args: { path: "{root}/notes.txt", tail: 1 } }
- { tool: read_text_file, args: { path: "{root}/missing.txt" } }
- { tool: read_multiple_files, args: { paths: ["{root}/notes.txt", "{root}/src/app.py"] } }
- { tool: write_file, args: { path: "{root}/new.txt", content: "first line\nsecond line\n" } }
- { tool: read_text_file, args: { path: "{root}/new.txt" } }
- { tool: edit_file, args: { path: "{root}/notes.txt", edits: [{ oldText: "beta", newText: "BETA" }] } }
- { tool: edit_file, args: { path: "{root}/notes.txt", edits: [{ oldText: "delta", newText: "x" }] } }
- { tool: edit_file, args: { path: "{root}/src/app.py", edits: [{ oldText: "return 1", newText: "return 2" }], dryRun: true } }
- { tool: create_directory, args: { path: "{root}/build/out" } }
- { tool: list_directory, args: { path: "{root}" } }
- { tool: list_directory_with_sizes, args: { path: "{root}/src" } }
- { tool: directory_tree, args: { path: "{root}/src" } }
- { tool: move_file, args: { source: "{root}/new.txt", destination: "{root}/moved.txt" } }
- { tool: move_file, args: { source: "{root}/nothing.txt", destination: "{root}/x.txt" } }
- { tool: search_files, args: { path: "{root}", pattern: "*.py" } }
- { tool: list_directory, args: { path: "{root}/../" } }
- { tool: write_file, args: { path: "{root}/src/app.py", content: "print('hi')\n" } }
- { tool: list_allowed_directories, args: {} }
EOF
toolspec --specs specs record --suite fs --convention plain --server 'mcp-server-filesystem {root}' --calls calls.yaml --files example --accept-error
toolspec --specs specs review --accept-all
toolspec --specs specs run --suite fs --server 'mcp-server-filesystem {root}'
# --- end ---
