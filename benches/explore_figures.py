#!/usr/bin/env python3
"""The "found without a hand-written scenario" figure of docs/explore.md, run by hand:

    cargo build && python3 benches/explore_figures.py [--cases 2000] [--seed 29] [--out FILE]

(`TOOLSPEC=path` runs another build, e.g. a copy, so a rebuild does not disturb a run.)

For every mutation of the four catalogues, `toolspec explore` with a fixed seed and
a cap on cases: whether it diverges, after how many cases (the first divergent
case's number + 1), and the size of that first divergence shrunk (calls, fixture
entries). The search runs without shrinking, in growing steps up to the cap; the
shrink then runs on exactly the cases up to the first divergence, so only that one
is shrunk. One JSON line per mutation goes to --out as it is measured (a run
with that file already there goes on where it stopped), and a summary is printed
at the end. Not a test: it takes from minutes to hours.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

DIALECTS = {"boris": "boris", "gemini-cli": "gemini-cli", "agent-tools": "agent-tools", "ikigai": "ikigai"}


def toolspec():
    if os.environ.get("TOOLSPEC"):
        return os.environ["TOOLSPEC"]
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "target", "debug", "toolspec")


def mutations(dialect):
    out = subprocess.run(
        [toolspec(), "reference-server", "--dialect", dialect, "--list-mutations"],
        check=True, capture_output=True, text=True,
    ).stdout
    return [line.split("\t")[0] for line in out.splitlines() if line.strip()]


def explore(suite, mutation, seed, cases, budget, jobs):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.json")
        subprocess.run(
            [toolspec(), "explore", "--suite", suite, "--mutate", mutation, "--seed", str(seed),
             "--cases", str(cases), "--shrink-budget", str(budget), "--jobs", str(jobs),
             "--json", path],
            capture_output=True, text=True,
        )
        with open(path) as f:
            return json.load(f)


def measure(suite, mutation, seed, cap, jobs):
    steps = [s for s in (50, 400) if s < cap] + [cap]
    for cases in steps:
        report = explore(suite, mutation, seed, cases, 0, jobs)
        if report["divergences"]:
            first = report["divergences"][0]["case"]
            shrunk_run = explore(suite, mutation, seed, first + 1, 60, jobs)
            if not shrunk_run["signatures"]:
                # The divergence did not show again: an answer that depends on timing.
                return {"suite": suite, "mutation": mutation, "found": True,
                        "cases_to_first": first + 1, "level": report["divergences"][0]["level"],
                        "tool": None, "shrunk_calls": None, "shrunk_files": None,
                        "reproduced": False}
            sig = shrunk_run["signatures"][0]
            shrunk = sig["shrunk"] or {}
            return {
                "suite": suite, "mutation": mutation, "found": True,
                "cases_to_first": first + 1, "level": sig["level"], "tool": sig["tool"],
                "shrunk_calls": len(shrunk.get("calls", [])),
                "shrunk_files": len(shrunk.get("files", {})),
                "shrink_runs": shrunk.get("runs"),
                "stopped_by_budget": shrunk.get("stopped_by_budget"),
            }
    return {"suite": suite, "mutation": mutation, "found": False, "cases": cap}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--out", default="explore-figures.jsonl")
    parser.add_argument("--suite", action="append")
    args = parser.parse_args()
    rows = []
    done = set()
    if os.path.exists(args.out):
        with open(args.out) as f:
            for line in f:
                row = json.loads(line)
                rows.append(row)
                done.add((row["suite"], row["mutation"]))
    with open(args.out, "a") as out:
        for suite, dialect in DIALECTS.items():
            if args.suite and suite not in args.suite:
                continue
            for mutation in mutations(dialect):
                if (suite, mutation) in done:
                    continue
                row = measure(suite, mutation, args.seed, args.cases, args.jobs)
                rows.append(row)
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(json.dumps(row), file=sys.stderr)
    found = [r for r in rows if r["found"]]
    print(f"mutations: {len(rows)}, found: {len(found)} ({100 * len(found) / max(len(rows), 1):.0f}%)")
    if found:
        firsts = [r["cases_to_first"] for r in found]
        small = [r for r in found if r["shrunk_calls"] is not None
                 and r["shrunk_calls"] <= 2 and r["shrunk_files"] <= 3]
        print(f"cases to the first divergence: median {statistics.median(firsts)}, worst {max(firsts)}")
        print(f"shrunk to <= 2 calls and <= 3 files: {len(small)} of {len(found)} "
              f"({100 * len(small) / len(found):.0f}%)")
        print("not found: " + ", ".join(f"{r['suite']}/{r['mutation']}" for r in rows if not r["found"]))


if __name__ == "__main__":
    main()
