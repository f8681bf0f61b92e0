#!/usr/bin/env python3
"""A stdio MCP server that serves another one under other names, for `toolspec init`'s
tests: it renames tools and arguments in tools/list and back in tools/call, and can
hide a tool.

usage: renamed.py RULE... -- COMMAND...
  RULE  tool=new            serve `tool` as `new`
        tool.arg=new        serve argument `arg` of `tool` as `new`
        -tool               do not list `tool`
"""
import json, subprocess, sys, threading

split = sys.argv.index("--")
rules, command = sys.argv[1:split], sys.argv[split + 1:]
tools, arguments, hidden = {}, {}, set()
for rule in rules:
    if rule.startswith("-"):
        hidden.add(rule[1:])
        continue
    old, new = rule.split("=", 1)
    if "." in old:
        tool, arg = old.split(".", 1)
        arguments.setdefault(tool, {})[arg] = new
    else:
        tools[old] = new
back = {new: old for old, new in tools.items()}
child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def to_child():
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("method") == "tools/call":
            params = message["params"]
            name = back.get(params["name"], params["name"])
            renames = {new: old for old, new in arguments.get(name, {}).items()}
            params["name"] = name
            params["arguments"] = {renames.get(k, k): v for k, v in (params.get("arguments") or {}).items()}
        child.stdin.write((json.dumps(message) + "\n").encode())
        child.stdin.flush()
    child.stdin.close()


threading.Thread(target=to_child, daemon=True).start()
for line in child.stdout:
    message = json.loads(line)
    listed = (message.get("result") or {}).get("tools")
    if isinstance(listed, list):
        served = []
        for tool in listed:
            name = tool["name"]
            if name in hidden:
                continue
            schema = tool.get("inputSchema", {})
            renames = arguments.get(name, {})
            props = schema.get("properties", {})
            schema["properties"] = {renames.get(k, k): v for k, v in props.items()}
            if "required" in schema:
                schema["required"] = [renames.get(k, k) for k in schema["required"]]
            tool["name"] = tools.get(name, name)
            served.append(tool)
        message["result"]["tools"] = served
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
sys.exit(child.wait())
