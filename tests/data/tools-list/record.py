#!/usr/bin/env python3
"""Records the answers real MCP servers give to `initialize` and `tools/list`, for
the golden cases of `toolspec init`'s proposal (tests/harness/init.rs). Run by hand
when a server's tool list should be brought up to date; the tests only replay the
files this writes (tests/servers/replay.py) and never install anything.

usage: tests/data/tools-list/record.py [NAME...]

It installs each server at the pinned version below into a scratch folder (npm with
--ignore-scripts, so no install script runs; pip into a fresh venv), starts it on an
empty folder with HOME pointed at another empty folder (so no user setting of this
machine changes what it lists), asks once, stops it and writes NAME.json beside this
script: the package, when it was recorded, the command, the server's answer to
`initialize` and its tools exactly as listed.
"""

import datetime
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (ecosystem, package, version, command in the install folder; {root} is the
# empty folder served).
SERVERS = {
    "claude-code": (
        "npm",
        "@anthropic-ai/claude-code",
        "2.1.197",
        ["node_modules/@anthropic-ai/claude-code-linux-x64/claude", "mcp", "serve"],
    ),
    "desktop-commander": (
        "npm",
        "@wonderwhy-er/desktop-commander",
        "0.2.52",
        ["node", "node_modules/@wonderwhy-er/desktop-commander/dist/index.js"],
    ),
    "server-filesystem": (
        "npm",
        "@modelcontextprotocol/server-filesystem",
        "2026.8.31",
        ["node", "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "{root}"],
    ),
    "filesystem-mcp": (
        "pypi",
        "filesystem-mcp",
        "1.0.2",
        ["venv/bin/filesystem-mcp", "{root}"],
    ),
}


def install(ecosystem, package, version, folder):
    if ecosystem == "npm":
        with open(os.path.join(folder, "package.json"), "w") as manifest:
            manifest.write('{ "private": true }\n')
        subprocess.run(
            ["npm", "install", "--silent", "--no-audit", "--no-fund", "--ignore-scripts",
             f"{package}@{version}"],
            cwd=folder, check=True,
        )
    else:
        subprocess.run([sys.executable, "-m", "venv", "venv"], cwd=folder, check=True)
        subprocess.run(
            ["venv/bin/python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             f"{package}=={version}"],
            cwd=folder, check=True,
        )


def ask(command, folder, root, home):
    """Starts the server, sends initialize and tools/list, returns both results."""
    env = dict(os.environ, HOME=home)
    words = [os.path.join(folder, w) if w.startswith(("node_modules/", "venv/")) else w
             for w in command]
    words = [root if w == "{root}" else w for w in words]
    server = subprocess.Popen(words, cwd=root, env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)

    def send(message):
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()

    def answer(id_):
        for line in server.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("id") == id_:
                if "error" in message:
                    sys.exit(f"{command}: error answer: {message['error']}")
                return message["result"]
        sys.exit(f"{command}: ended without answering request {id_}")

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "toolspec-recorder", "version": "1"}}})
        initialized = answer(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        listed = answer(2)
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    return initialized, listed


def main():
    names = sys.argv[1:] or list(SERVERS)
    for name in names:
        if name not in SERVERS:
            sys.exit(f"unknown server {name!r}; known: {', '.join(SERVERS)}")
        ecosystem, package, version, command = SERVERS[name]
        with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as root, \
                tempfile.TemporaryDirectory() as home:
            install(ecosystem, package, version, folder)
            initialized, listed = ask(command, folder, root, home)
        record = {
            "package": f"{ecosystem}: {package}@{version}",
            "recorded": datetime.date.today().isoformat(),
            "command": command,
            "initialize": initialized,
            "tools/list": listed,
        }
        path = os.path.join(HERE, f"{name}.json")
        with open(path, "w", encoding="utf-8") as out:
            json.dump(record, out, indent=1, ensure_ascii=False)
            out.write("\n")
        print(f"{name}: {len(listed.get('tools', []))} tools -> {path}")


if __name__ == "__main__":
    main()
