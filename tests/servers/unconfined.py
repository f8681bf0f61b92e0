#!/usr/bin/env python3
"""A small boris-style stdio MCP server (view, create_file, str_replace, grep, glob)
whose check of `--allow-dir` can be wrong in the ways real servers have been, for
the tests of escapes judged by effect (docs/confinement.md).

usage: unconfined.py --root DIR [--allow-dir DIR]... [--check KIND] [--words KIND]
  --check resolved  resolve `..` and every link, then compare whole path steps (right)
          lexical   normalise `..` only, then compare the text by prefix: admits a
                    sibling named like the root and anything a link reaches
  --words boris     a refusal is `[ACCESS_DENIED] ...` (the seed's code)
          other     a refusal is `access denied: ...` (right, but in other words)
"""
import glob as globbing
import json
import os
import re
import sys

args = sys.argv[1:]


def option(name, default=None):
    return args[args.index(name) + 1] if name in args else default


root = option("--root", os.getcwd())
allowed = [args[i + 1] for i, a in enumerate(args) if a == "--allow-dir"]
check = option("--check", "resolved")
words = option("--words", "boris")


def refuse(path):
    if words == "boris":
        return f"[ACCESS_DENIED] {path} is outside the allowed directories"
    return f"access denied: {path}"


def permitted(path):
    if not allowed:
        return True
    if check == "lexical":
        text = os.path.normpath(path)
        return any(text.startswith(os.path.normpath(a)) for a in allowed)
    real = os.path.realpath(path)
    return any(
        real == os.path.realpath(a) or real.startswith(os.path.realpath(a) + os.sep)
        for a in allowed
    )


def absolute(path):
    return path if os.path.isabs(path) else os.path.join(root, path)


def view(a):
    path = absolute(a["path"])
    if os.path.isdir(path):
        return "\n".join(sorted(os.listdir(path))) + "\n", False
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    return "".join(f"{i}\t{line}\n" for i, line in enumerate(lines, 1)), False


def create_file(a):
    path = absolute(a["path"])
    with open(path, "w", encoding="utf-8") as f:
        f.write(a.get("content", ""))
    return f"Created {path}\n", False


def str_replace(a):
    path = absolute(a["path"])
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if a["old_str"] not in text:
        return f"[STR_REPLACE_NOT_FOUND] not found in {path}", True
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(a["old_str"], a.get("new_str", ""), 1))
    return f"Edited {path}\n", False


def grep(a):
    path = absolute(a.get("path", root))
    found = []
    for folder, _, names in os.walk(path, followlinks=True):
        for name in sorted(names):
            file = os.path.join(folder, name)
            with open(file, encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    if re.search(a["pattern"], line):
                        found.append(f"{file}:{n}:{line.rstrip()}")
    return "\n".join(found) + "\n", False


def glob(a):
    path = absolute(a.get("path", root))
    return "\n".join(sorted(globbing.glob(os.path.join(path, a["pattern"])))) + "\n", False


TOOLS = {"view": view, "create_file": create_file, "str_replace": str_replace, "grep": grep, "glob": glob}
PATHS = {"view": "path", "create_file": "path", "str_replace": "path", "grep": "path", "glob": "path"}
ARGUMENTS = {
    "view": ["path"],
    "create_file": ["path", "content"],
    "str_replace": ["path", "old_str", "new_str"],
    "grep": ["pattern", "path"],
    "glob": ["pattern", "path"],
}


def call(name, arguments):
    tool = TOOLS.get(name)
    if tool is None:
        return f"[INVALID_INPUT] unknown tool {name}", True
    given = arguments.get(PATHS[name], root)
    if not permitted(absolute(given)):
        return refuse(given), True
    try:
        return tool(arguments)
    except FileNotFoundError:
        return f"[PATH_NOT_FOUND] {given} does not exist", True
    except OSError as e:
        return f"[IO_ERROR] {given}: {e.strerror}", True


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "unconfined", "version": "0"},
        }
    elif method == "tools/list":
        result = {
            "tools": [
                {
                    "name": name,
                    "inputSchema": {
                        "type": "object",
                        "properties": {arg: {"type": "string"} for arg in ARGUMENTS[name]},
                        "required": ARGUMENTS[name],
                    },
                }
                for name in TOOLS
            ]
        }
    elif method == "tools/call":
        params = message["params"]
        text, is_error = call(params["name"], params.get("arguments") or {})
        result = {"content": [{"type": "text", "text": text}], "isError": is_error}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
