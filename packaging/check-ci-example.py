#!/usr/bin/env python3
"""Runs the shell steps of the CI workflow example (docs/ci/github-actions.yml) the
way a runner would, so the example a user copies is known to work.

Each `run:` step runs in order with bash (as GitHub's `shell: bash` does: -e and
pipefail) in a fresh folder that stands for the user's checkout, with
GITHUB_STEP_SUMMARY set to a file there. `uses:` steps are actions and are skipped;
the step with id `install-toolspec` is replaced by the install command given. After
a failed step only `if: always()` steps run, as on GitHub.

Two runs: one against an honest server, where every step must succeed, the summary
must hold the Markdown report and the JUnit file the upload step names must exist;
and one against a server with a deviation, where the gate step must fail and the
summary and JUnit must still be there (the example must really gate).

usage: check-ci-example.py WORKFLOW --install CMD --toolspec PATH
  CMD installs toolspec so that `toolspec` is on the PATH given to the steps
  (PATH is the folder of PATH first).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

import yaml

INSTALL_STEP_ID = "install-toolspec"
TARGET_FILE = "conformance/my-server.yaml"


def load_steps(workflow_path):
    with open(workflow_path, encoding="utf-8") as workflow_file:
        workflow = yaml.safe_load(workflow_file)
    jobs = workflow.get("jobs") or {}
    if len(jobs) != 1:
        sys.exit(f"{workflow_path}: expected one job, found {len(jobs)}")
    (job,) = jobs.values()
    steps = job.get("steps") or []
    if not any(step.get("id") == INSTALL_STEP_ID for step in steps):
        sys.exit(f"{workflow_path}: no step with id {INSTALL_STEP_ID!r} to replace")
    return steps


def upload_path(steps):
    """The file the upload-artifact step sends: the JUnit report."""
    for step in steps:
        if str(step.get("uses", "")).startswith("actions/upload-artifact"):
            return step["with"]["path"]
    sys.exit("the workflow uploads nothing (no actions/upload-artifact step)")


def write_target(checkout, mutation):
    """The user's target file: the reference server, honest or with one deviation,
    started as `toolspec` from the PATH the install step filled."""
    command = ["toolspec", "reference-server", "--dialect", "boris", "--root", "{root}"]
    if mutation:
        command += ["--mutate", mutation]
    os.makedirs(os.path.join(checkout, "conformance"))
    with open(os.path.join(checkout, TARGET_FILE), "w", encoding="utf-8") as target:
        yaml.safe_dump({"name": "my-server", "command": command, "suites": {"boris": 2}}, target)


def run_steps(steps, checkout, install_command, path_first):
    """Runs the steps; returns the name of each step that failed."""
    summary = os.path.join(checkout, "step-summary.md")
    open(summary, "w").close()
    env = dict(os.environ)
    env["GITHUB_STEP_SUMMARY"] = summary
    env["PATH"] = path_first + os.pathsep + env.get("PATH", "")
    failed = []
    for number, step in enumerate(steps, start=1):
        name = step.get("name") or step.get("uses") or f"step {number}"
        if "uses" in step:
            print(f"-- skip (an action): {name}")
            continue
        if failed and "always()" not in str(step.get("if", "")):
            print(f"-- skip (an earlier step failed): {name}")
            continue
        script = install_command if step.get("id") == INSTALL_STEP_ID else step["run"]
        print(f"-- run: {name}", flush=True)
        status = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=checkout,
            env=env,
        ).returncode
        if status != 0:
            print(f"-- step failed with exit {status}: {name}")
            failed.append(name)
    return failed


def check_reports(checkout, junit_relative):
    """The summary holds the Markdown report, and the JUnit file is there."""
    problems = []
    with open(os.path.join(checkout, "step-summary.md"), encoding="utf-8") as summary_file:
        summary = summary_file.read()
    if "boris" not in summary or "|" not in summary:
        problems.append(f"GITHUB_STEP_SUMMARY has no Markdown report naming boris: {summary!r}")
    junit = os.path.join(checkout, junit_relative)
    if not os.path.isfile(junit):
        problems.append(f"the JUnit file the upload step names is missing: {junit_relative}")
    else:
        root = ElementTree.parse(junit).getroot()
        if root.tag not in ("testsuites", "testsuite"):
            problems.append(f"{junit_relative} is not JUnit: root element <{root.tag}>")
    return problems


def first_mutation(toolspec):
    listing = subprocess.run(
        [toolspec, "reference-server", "--dialect", "boris", "--list-mutations"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return listing.splitlines()[0].split("\t")[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("workflow")
    parser.add_argument("--install", required=True)
    parser.add_argument("--toolspec", required=True)
    args = parser.parse_args()
    steps = load_steps(args.workflow)
    junit = upload_path(steps)
    path_first = os.path.dirname(args.toolspec)
    problems = []

    with tempfile.TemporaryDirectory() as checkout:
        print("== the CI example against an honest server: every step must pass")
        write_target(checkout, mutation=None)
        failed = run_steps(steps, checkout, args.install, path_first)
        if failed:
            problems.append(f"honest server: steps failed: {failed}")
        problems += [f"honest server: {p}" for p in check_reports(checkout, junit)]

    mutation = first_mutation(args.toolspec)
    with tempfile.TemporaryDirectory() as checkout:
        print(f"== the CI example against a server with a deviation ({mutation}): the gate must fail")
        write_target(checkout, mutation=mutation)
        failed = run_steps(steps, checkout, args.install, path_first)
        if failed != ["Conformance gate"]:
            problems.append(f"deviating server: expected only the gate step to fail, failed: {failed}")
        problems += [f"deviating server: {p}" for p in check_reports(checkout, junit)]

    if problems:
        sys.exit("CI example: " + "; ".join(problems))
    print("CI example: its steps install, gate, write the summary and the JUnit file")


if __name__ == "__main__":
    main()
