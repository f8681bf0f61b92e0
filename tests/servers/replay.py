#!/usr/bin/env python3
"""A stdio MCP server that answers as a recorded one did: `initialize` with the
recorded server's name and capabilities, `tools/list` with its recorded tools
(tests/data/tools-list/*.json, written by record.py there). Every tool call is
refused with a JSON-RPC error: this stands in for a real server's self-description
only, for `toolspec init`'s golden proposals (tests/harness/init.rs).

usage: replay.py RECORDED.json [ROOT]
"""
import json
import sys

with open(sys.argv[1], encoding="utf-8") as recorded_file:
    recorded = json.load(recorded_file)
initialized = dict(recorded["initialize"])


def reply(message_id, result=None, error=None):
    answer = {"jsonrpc": "2.0", "id": message_id}
    if error is None:
        answer["result"] = result
    else:
        answer["error"] = error
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        asked = (message.get("params") or {}).get("protocolVersion")
        reply(message["id"], dict(initialized, protocolVersion=asked or initialized.get("protocolVersion")))
    elif method == "tools/list":
        reply(message["id"], recorded["tools/list"])
    elif method == "ping":
        reply(message["id"], {})
    else:
        reply(message["id"], error={"code": -32601, "message": f"replay.py answers no {method}"})
