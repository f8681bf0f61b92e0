#!/usr/bin/env python3
"""Holds a run of a real program to the escapes it is known to make.

usage: known-escapes.py REPORT.json ESCAPES.txt EXIT_STATUS [--upstream-passes]

No baseline can excuse an ESCAPE (docs/confinement.md), so a run against a program
that escapes exits 1. This check makes CI pass on exactly the escapes ESCAPES.txt
lists (one scenario id a line, `#` comments giving each its reason): any other
escape, a listed one that no longer happens, or anything else that fails the run
(FAIL, ERROR, FLAKY, STALE) fails it. With --upstream-passes, every `basis:
upstream` scenario must pass or be a listed escape: one that fails is a defect of
the suite, never a baseline entry.
"""
import json
import sys

report_path, escapes_path, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
report = json.load(open(report_path))
expected = {l.strip() for l in open(escapes_path) if l.strip() and not l.startswith("#")}
escaped = {s["id"] for s in report["scenarios"] if s["standing"] == "ESCAPE"}
problems = []
if escaped - expected:
    problems.append("escapes not listed in %s: %s" % (escapes_path, sorted(escaped - expected)))
if expected - escaped:
    problems.append("listed escapes that no longer happen (remove them): %s" % sorted(expected - escaped))
counts = report["counts"]
broken = {k: counts[k] for k in ("FAIL", "ERROR", "FLAKY", "STALE") if counts[k]}
if broken:
    problems.append("the run breaks otherwise: %s" % broken)
if status != (1 if escaped else 0):
    problems.append("exit status %d" % status)
if "--upstream-passes" in sys.argv[4:]:
    upstream = [s["id"] for s in report["scenarios"]
                if s["basis"] == "upstream" and s["verdict"] != "PASS" and s["id"] not in expected]
    if upstream:
        problems.append("basis: upstream scenarios that do not pass: " + ", ".join(upstream))
if problems:
    sys.exit("%s (%s): %s" % (report["target"], report_path, "; ".join(problems)))
print("%s: exactly the %d known escape(s), nothing else breaks; counts: %s"
      % (report["target"], len(escaped), counts))
