#!/usr/bin/env python3
"""A stdio MCP server that dies as it starts, with a Python traceback on stderr,
as a server missing its configuration does: for the one error `run`, `record`
and `explore` end with when the first start fails (issue 46 item 5).

usage: crash_at_start.py ROOT
"""
import sys


def read_config(path):
    raise RuntimeError(f"no configuration at {path}: set FAKE_SERVER_CONFIG")


def main():
    print("fake-server 0.1 starting", file=sys.stderr)
    read_config("/nonexistent/fake-server.toml")


main()
