#!/usr/bin/env python3
"""A stdio MCP server that starts and never answers anything: it reads stdin
to its end and says nothing, for the bounded wait on `initialize` before a run
ends with one error (issue 46 item 5).

usage: silent.py ROOT
"""
import sys

print("silent server: listening, will not answer", file=sys.stderr)
for _ in sys.stdin:
    pass
