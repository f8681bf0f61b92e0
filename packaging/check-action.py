#!/usr/bin/env python3
"""Runs the GitHub Action (action.yml) and the sharded CI example
(docs/ci/github-actions-sharded.yml) the way a runner would, so what a user points a
workflow at is known to work (docs/packaging.md).

A composite action's steps run in order with bash (`shell: bash` is
`bash --noprofile --norc -eo pipefail`), their `env:` filled from the inputs given
(each `${{ inputs.NAME }}`, defaults from action.yml), in a folder that stands for
the user's checkout, with RUNNER_TEMP, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT and
GITHUB_PATH set to files there as a runner sets them: lines a step appends to
GITHUB_PATH come first on the PATH of later steps, and `name=value` lines appended to
GITHUB_OUTPUT become the step's outputs, from which the action's `outputs:` are read.
The action installs toolspec from the wheel given (its `package` input), with pip
kept off the network (PIP_NO_INDEX).

Checks:
  1. the action against an honest server: the gate passes, outputs pass > 0, fail 0
     and spec-score N/N, the summary holds the Markdown report, JUnit and JSON exist;
  2. the action with suites and a partition (hash:1/2): the JSON report is that
     shard's;
  3. the action against a server with a deviation: the gate step fails, fail > 0,
     and the summary, the JUnit and the outputs are still written;
  4. the sharded example against an honest server: each matrix job's steps (the
     action with `partition: hash:K/N`), then the merge job's shell steps
     (`toolspec report merge`): one JUnit, one summary and one results page holding
     every scenario of the unsplit run; and against the deviant server, where the
     shards and the merge fail and the merged reports are still written.
Prints how long the honest action run took, from an empty folder to its verdict.

usage: check-action.py --wheel WHEEL [--action action.yml] [--sharded WORKFLOW]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_FILE = "conformance/my-server.yaml"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def substitute(text, context):
    """Fills each `${{ a.b.c }}` from `context` (nested dicts); any other expression
    is refused, so an unchecked one cannot pass unnoticed."""

    def value(match):
        found = context
        for part in match.group(1).split("."):
            if not isinstance(found, dict) or part not in found:
                sys.exit(f"check-action: no value for the expression {match.group(0)!r}")
            found = found[part]
        return str(found)

    return EXPRESSION.sub(value, str(text))


class Runner:
    """One job's runner: a checkout folder and the files GitHub gives each step."""

    def __init__(self, checkout, job="job", path_first=None):
        self.checkout = checkout
        # Each job's runner files apart: the sharded example's jobs share a checkout.
        self.temp = os.path.join(checkout, f".runner-{job}")
        os.makedirs(self.temp)
        self.summary = os.path.join(self.temp, "step-summary.md")
        open(self.summary, "w").close()
        self.path = [path_first] if path_first else []
        self.failed = []

    def run(self, name, script, env_extra):
        """Runs one bash step; returns its outputs (GITHUB_OUTPUT) and whether it passed."""
        output_file = os.path.join(self.temp, f"output-{len(os.listdir(self.temp))}")
        path_file = output_file + ".path"
        open(output_file, "w").close()
        open(path_file, "w").close()
        env = dict(os.environ)
        env.update(env_extra)
        env.update(
            RUNNER_TEMP=self.temp,
            GITHUB_STEP_SUMMARY=self.summary,
            GITHUB_OUTPUT=output_file,
            GITHUB_PATH=path_file,
            GITHUB_WORKSPACE=self.checkout,
            PIP_NO_INDEX="1",
            PIP_DISABLE_PIP_VERSION_CHECK="1",
        )
        env["PATH"] = os.pathsep.join(self.path + [os.environ.get("PATH", "")])
        print(f"-- run: {name}", flush=True)
        status = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=self.checkout,
            env=env,
        ).returncode
        with open(path_file, encoding="utf-8") as added:
            self.path = [line.strip() for line in added if line.strip()][::-1] + self.path
        outputs = {}
        with open(output_file, encoding="utf-8") as written:
            for line in written:
                if "=" in line:
                    key, value = line.rstrip("\n").split("=", 1)
                    outputs[key] = value
        if status != 0:
            print(f"-- step failed with exit {status}: {name}")
            self.failed.append(name)
        return outputs, status == 0


def load_yaml(path):
    with open(path, encoding="utf-8") as opened:
        return yaml.safe_load(opened)


def run_action(runner, action, inputs):
    """Runs the composite action's steps with `inputs`; returns its outputs."""
    if action["runs"]["using"] != "composite":
        sys.exit("check-action: action.yml is not a composite action")
    declared = action.get("inputs") or {}
    unknown = set(inputs) - set(declared)
    if unknown:
        sys.exit(f"check-action: inputs the action does not declare: {sorted(unknown)}")
    filled = {name: spec.get("default", "") for name, spec in declared.items()}
    filled.update(inputs)
    for name, spec in declared.items():
        if spec.get("required") and not filled.get(name):
            sys.exit(f"check-action: required input {name!r} not given")
    steps_outputs = {}
    failed_before = len(runner.failed)
    for step in action["runs"]["steps"]:
        name = step.get("name", step.get("id", "a step"))
        condition = str(step.get("if", ""))
        if len(runner.failed) > failed_before and "always()" not in condition:
            print(f"-- skip (an earlier step failed): {name}")
            continue
        if step.get("shell") != "bash":
            sys.exit(f"check-action: step {name!r} does not say `shell: bash`")
        context = {"inputs": filled, "steps": steps_outputs}
        env = {key: substitute(value, context) for key, value in (step.get("env") or {}).items()}
        if EXPRESSION.search(step["run"]):
            sys.exit(f"check-action: step {name!r} pastes an expression into its script; use env")
        outputs, _ = runner.run(name, step["run"], env)
        if "id" in step:
            steps_outputs[step["id"]] = {"outputs": outputs}
    context = {"steps": steps_outputs}
    return {
        name: EXPRESSION.sub(
            lambda m: _lookup(m, context), str(spec["value"])
        )
        for name, spec in (action.get("outputs") or {}).items()
    }


def _lookup(match, context):
    """An output's `${{ steps.ID.outputs.NAME }}`: empty when the step wrote none,
    as on GitHub."""
    found = context
    for part in match.group(1).split("."):
        found = found.get(part, {}) if isinstance(found, dict) else {}
    return "" if isinstance(found, dict) else str(found)


def write_target(checkout, mutation):
    """The user's target file: the reference server, honest or with one deviation."""
    command = ["toolspec", "reference-server", "--dialect", "boris", "--root", "{root}"]
    if mutation:
        command += ["--mutate", mutation]
    os.makedirs(os.path.join(checkout, "conformance"), exist_ok=True)
    with open(os.path.join(checkout, TARGET_FILE), "w", encoding="utf-8") as target:
        yaml.safe_dump({"name": "my-server", "command": command, "suites": {"boris": 3}}, target)


def read_summary(runner):
    with open(runner.summary, encoding="utf-8") as summary:
        return summary.read()


def junit_cases(path):
    root = ElementTree.parse(path).getroot()
    if root.tag not in ("testsuites", "testsuite"):
        raise ValueError(f"{path} is not JUnit: root element <{root.tag}>")
    return len(root.findall(".//testcase"))


def first_mutation(toolspec):
    listing = subprocess.run(
        [toolspec, "reference-server", "--dialect", "boris", "--list-mutations"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return listing.splitlines()[0].split("\t")[0]


def check_action(action, wheel, problems):
    """Checks 1 to 3; returns the toolspec the action installed and the seconds the
    honest run took."""
    with tempfile.TemporaryDirectory() as checkout:
        print("== the action against an honest server: the gate must pass")
        started = time.monotonic()
        runner = Runner(checkout)
        write_target(checkout, None)
        outputs = run_action(runner, action, {"target": TARGET_FILE, "package": wheel})
        seconds = time.monotonic() - started
        print(f"-- outputs: {outputs}")
        if runner.failed:
            problems.append(f"action, honest: steps failed: {runner.failed}")
        if outputs.get("exit-code") != "0" or outputs.get("fail") != "0":
            problems.append(f"action, honest: expected exit-code 0 and fail 0: {outputs}")
        if not outputs.get("pass", "0").isdigit() or int(outputs.get("pass", "0")) == 0:
            problems.append(f"action, honest: expected pass > 0: {outputs}")
        spec = outputs.get("spec-score", "")
        passed, _, total = spec.partition("/")
        if not passed.isdigit() or passed != total or passed == "0":
            problems.append(f"action, honest: expected spec-score N/N: {spec!r}")
        summary = read_summary(runner)
        if "| boris |" not in summary:
            problems.append(f"action, honest: the summary has no Markdown report: {summary!r}")
        for report in ("toolspec-results/junit.xml", "toolspec-results/report.json"):
            if not os.path.isfile(os.path.join(checkout, report)):
                problems.append(f"action, honest: {report} is missing")
        toolspec = os.path.join(runner.temp, "toolspec-venv", "bin", "toolspec")
        mutation = first_mutation(toolspec)
        # Kept: the later checks start servers with this toolspec.
        kept = tempfile.mkdtemp()
        subprocess.run(["cp", "-a", os.path.join(runner.temp, "toolspec-venv"), kept], check=True)

    toolspec_dir = os.path.join(kept, "toolspec-venv", "bin")
    with tempfile.TemporaryDirectory() as checkout:
        print("== the action with suites and a partition: the report is that shard's")
        runner = Runner(checkout)
        write_target(checkout, None)
        outputs = run_action(
            runner,
            action,
            {"target": TARGET_FILE, "package": wheel, "suites": "boris", "partition": "hash:1/2"},
        )
        report = os.path.join(checkout, "toolspec-results/report.json")
        partition = json.load(open(report, encoding="utf-8")).get("partition") if os.path.isfile(report) else None
        if runner.failed or partition != "hash:1/2":
            problems.append(f"action, partition: failed {runner.failed}, partition {partition!r}")

    with tempfile.TemporaryDirectory() as checkout:
        print(f"== the action against a server with a deviation ({mutation}): the gate must fail")
        runner = Runner(checkout)
        write_target(checkout, mutation)
        outputs = run_action(runner, action, {"target": TARGET_FILE, "package": wheel})
        print(f"-- outputs: {outputs}")
        if runner.failed != ["Conformance gate"]:
            problems.append(f"action, deviant: expected only the gate to fail, failed: {runner.failed}")
        if outputs.get("exit-code") != "1" or int(outputs.get("fail") or 0) == 0:
            problems.append(f"action, deviant: expected exit-code 1 and fail > 0: {outputs}")
        if "| boris |" not in read_summary(runner):
            problems.append("action, deviant: the summary has no Markdown report")
        junit = os.path.join(checkout, "toolspec-results/junit.xml")
        if not os.path.isfile(junit) or junit_cases(junit) == 0:
            problems.append("action, deviant: no JUnit report")
    return toolspec_dir, kept, seconds


def check_sharded(workflow_path, action, wheel, toolspec_dir, mutation, problems, label):
    """Check 4: the matrix's jobs, then the merge job, in one checkout."""
    workflow = load_yaml(workflow_path)
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    shards = shard_job["strategy"]["matrix"]["shard"]
    with tempfile.TemporaryDirectory() as checkout:
        print(f"== the sharded example ({label}): {len(shards)} shards, then the merge")
        write_target(checkout, mutation)
        shard_failed = []
        for shard in shards:
            runner = Runner(checkout, f"shard-{shard}")
            for step in shard_job["steps"]:
                uses = str(step.get("uses", ""))
                if uses.endswith("/toolspec@v0.1.0"):
                    inputs = {
                        key: substitute(value, {"matrix": {"shard": shard}})
                        for key, value in (step.get("with") or {}).items()
                    }
                    inputs["package"] = wheel
                    run_action(runner, action, inputs)
                elif uses.startswith("actions/upload-artifact"):
                    path = substitute(step["with"]["path"], {"matrix": {"shard": shard}})
                    if not os.path.isfile(os.path.join(checkout, path)):
                        problems.append(f"sharded ({label}): shard {shard} wrote no {path}")
                elif "run" in step:
                    sys.exit(f"check-action: the shard job has a shell step the check does not know: {step}")
            shard_failed += runner.failed
        runner = Runner(checkout, "merge", toolspec_dir)
        for step in merge_job["steps"]:
            name = step.get("name") or step.get("uses")
            if "uses" in step:
                print(f"-- skip (an action; the shards' files are already in place): {name}")
                continue
            if runner.failed and "always()" not in str(step.get("if", "")):
                print(f"-- skip (an earlier step failed): {name}")
                continue
            if step.get("id") == "install-toolspec":
                print(f"-- installed already (the wheel the shards ran): {name}")
                continue
            runner.run(name, step["run"], {})
        results = os.path.join(checkout, "toolspec-results")
        merged = os.path.join(results, "report.json")
        if not os.path.isfile(merged):
            problems.append(f"sharded ({label}): no merged report.json")
            return
        counts = json.load(open(merged, encoding="utf-8"))["counts"]
        cases = junit_cases(os.path.join(results, "junit.xml"))
        whole = sum(counts[v] for v in ("PASS", "FAIL", "ERROR", "SKIP", "UNSUPPORTED", "KNOWN", "FLAKY"))
        print(f"-- merged: {counts}; JUnit test cases: {cases}")
        if cases < whole or whole == 0:
            problems.append(f"sharded ({label}): the merged JUnit has {cases} cases for {whole} scenarios")
        if not os.path.isfile(os.path.join(results, "index.html")):
            problems.append(f"sharded ({label}): no merged results page")
        if "| boris |" not in read_summary(runner):
            problems.append(f"sharded ({label}): the summary has no merged Markdown report")
        if mutation is None:
            if shard_failed or runner.failed or counts["FAIL"] or counts["ERROR"]:
                problems.append(f"sharded (honest): failed steps {shard_failed + runner.failed}, counts {counts}")
        else:
            if not shard_failed or runner.failed != ["Merge the shards"] or counts["FAIL"] == 0:
                problems.append(
                    f"sharded (deviant): expected failing shards and merge, got {shard_failed}, {runner.failed}, {counts}"
                )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wheel", required=True)
    parser.add_argument("--action", default=os.path.join(REPO, "action.yml"))
    parser.add_argument("--sharded", default=os.path.join(REPO, "docs/ci/github-actions-sharded.yml"))
    args = parser.parse_args()
    wheel = os.path.abspath(args.wheel)
    action = load_yaml(args.action)
    problems = []
    toolspec_dir, kept, seconds = check_action(action, wheel, problems)
    try:
        mutation = first_mutation(os.path.join(toolspec_dir, "toolspec"))
        check_sharded(args.sharded, action, wheel, toolspec_dir, None, problems, "honest")
        check_sharded(args.sharded, action, wheel, toolspec_dir, mutation, problems, "deviant")
    finally:
        subprocess.run(["rm", "-rf", kept], check=False)
    print(f"the action from an empty folder to its verdict (install from the wheel, then boris): {seconds:.1f} s")
    if problems:
        sys.exit("check-action: " + "; ".join(problems))
    print("action and sharded example: installed, gated, summaries, outputs and merged reports as expected")


if __name__ == "__main__":
    main()
