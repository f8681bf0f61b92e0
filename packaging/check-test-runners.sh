#!/usr/bin/env bash
# Every scenario a test in the user's own runner (docs/test-runners.md), checked from
# an empty project each, as a user would: the toolspec-cli wheel's pytest plugin in a
# fresh venv, and the npm launcher's node:test registration in an empty npm project.
# For each runner:
#   - a suite that passes (boris against the reference server named as the user's
#     own server) and one that fails (the same server with a deviation, through a
#     target file whose baseline lists one failure): the runner's own report is read
#     (pytest's JUnit XML, node's TAP) and its counts must equal those of the JSON
#     report of `toolspec run` with the same server, and a failure's text must be
#     toolspec's diff;
#   - a selection (-k, --test-name-pattern) must reach the binary as exactly the
#     selected ids, in one run;
#   - pytest: -n 2 (xdist), --lf, -x, each with the runs counted.
# The binary is run through a wrapper that logs each `toolspec run` and the number
# of ids it was given, so "one run, only the selected" is seen, not assumed.
#
# Usage:
#   check-test-runners.sh --wheel FILE --launcher TGZ --platform TGZ
#       (packaging/check-packages.sh passes what it built)
#   check-test-runners.sh --dev
#       (a wheel from the debug build, no zig, and npm tarballs carrying
#        target/debug/toolspec: for working on the plugins; needs maturin)
# Needs python3 with venv, pip (pytest and pytest-xdist come from PyPI), node 20 and npm.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# shellcheck source=pack-npm.sh
. "$repo/packaging/pack-npm.sh"

fail() {
  echo "check-test-runners: $*" >&2
  exit 1
}

wheel="" launcher_tgz="" platform_tgz=""
case "${1:-}" in
  --dev)
    (cd "$repo/packaging/python" && maturin build --compatibility linux --out "$work/dist" >/dev/null)
    wheel="$(ls "$work"/dist/toolspec_cli-*.whl)"
    pack_npm "$repo" "$work" "${CARGO_TARGET_DIR:-$repo/target}/debug/toolspec"
    ;;
  --wheel)
    [ "$#" -eq 6 ] && [ "$3" = --launcher ] && [ "$5" = --platform ] \
      || fail "usage: $0 --wheel FILE --launcher TGZ --platform TGZ | --dev"
    wheel="$(realpath "$2")" launcher_tgz="$(realpath "$4")" platform_tgz="$(realpath "$6")"
    ;;
  *) fail "usage: $0 --wheel FILE --launcher TGZ --platform TGZ | --dev" ;;
esac

echo "== pytest: the wheel and pytest in a fresh venv"
python3 -m venv "$work/venv"
for attempt in 1 2 3; do
  "$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    pytest==9.2.0 pytest-xdist==3.8.0 && break
  [ "$attempt" -lt 3 ] || exit 1
  echo "pip install failed (attempt $attempt); retrying" >&2
  sleep 5
done
"$work/venv/bin/python" -m pip install --quiet --no-index --disable-pip-version-check "$wheel"
toolspec="$work/venv/bin/toolspec"
pytest="$work/venv/bin/pytest"

# The servers: the bundled reference server named as a user names their own, and the
# same with a deviation, through a target file whose baseline excuses one failure.
honest="$toolspec reference-server --dialect boris --root {root}"
mkdir "$work/targets"
cat >"$work/targets/deviant.yaml" <<TARGET
name: deviant
command: ["$toolspec", reference-server, --dialect, boris, --mutate, drop-code-prefix, --root, "{root}"]
baseline: ["boris::cross-tool-error-codes::PATH_NOT_FOUND on missing file (grep path)"]
TARGET
deviant="$work/targets/deviant.yaml"

# The wrapper that logs each `toolspec run` with the number of ids it was handed.
runs="$work/runs.log"
cat >"$work/toolspec-logged" <<WRAPPER
#!/usr/bin/env bash
previous=""
for arg in "\$@"; do
  if [ "\$previous" = --ids-from ]; then echo "run \$(grep -c . "\$arg") ids" >>"$runs"; fi
  previous="\$arg"
done
exec "$toolspec" "\$@"
WRAPPER
chmod +x "$work/toolspec-logged"
# logged_runs EXPECTED_RUNS EXPECTED_IDS WHAT: the wrapper saw that many runs and ids.
logged_runs() {
  local seen_runs seen_ids
  seen_runs="$(grep -c '^run ' "$runs" 2>/dev/null || true)"
  seen_ids="$(awk '{ n += $2 } END { print n + 0 }' "$runs" 2>/dev/null || echo 0)"
  [ "$seen_runs" = "$1" ] && [ "$seen_ids" = "$2" ] \
    || fail "$3: expected $1 toolspec run(s) of $2 ids, saw $seen_runs run(s) of $seen_ids ids: $(cat "$runs" 2>/dev/null)"
  echo "$3: $seen_runs toolspec run(s), $seen_ids ids"
  rm -f "$runs"
}

# The counts of `toolspec run`, the reference for every runner's report.
"$toolspec" run --suite boris --server "$honest" --json "$work/honest.json" >/dev/null
set +e
"$toolspec" run --suite boris --target "$deviant" --json "$work/deviant.json" >/dev/null
status=$?
set -e
[ "$status" -eq 1 ] || fail "toolspec run against the deviant server exited $status, not 1"

# compare RUNNER REPORT TOOLSPEC_JSON [IDS]: the runner's counts equal toolspec's,
# over the ids given (default: every scenario of the JSON report).
compare() {
  python3 - "$@" <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET

runner, report, reference = sys.argv[1:4]
scenarios = json.load(open(reference))["scenarios"]
if len(sys.argv) > 4:
    wanted = set(open(sys.argv[4]).read().splitlines())
    scenarios = [s for s in scenarios if s["id"] in wanted]
standings = [s["standing"] for s in scenarios]
want = {
    "passed": standings.count("PASS"),
    "failed": sum(standings.count(s) for s in ("FAIL", "ERROR", "FLAKY", "STALE")),
    "skipped": sum(standings.count(s) for s in ("SKIP", "UNSUPPORTED")),
    "expected": sum(standings.count(s) for s in ("KNOWN", "NEW")),
}
if runner == "junit":
    cases = ET.parse(report).getroot().iter("testcase")
    got = {"passed": 0, "failed": 0, "skipped": 0, "expected": 0}
    for case in cases:
        if case.find("failure") is not None or case.find("error") is not None:
            got["failed"] += 1
        elif (skip := case.find("skipped")) is not None:
            # pytest writes an xfail as <skipped type="pytest.xfail">.
            got["expected" if skip.get("type") == "pytest.xfail" else "skipped"] += 1
        else:
            got["passed"] += 1
else:
    text = open(report).read()
    count = lambda key: int(re.search(rf"^# {key} (\d+)$", text, re.M).group(1))
    ran = count("tests") - len(re.findall(r"# SKIP test name does not match pattern", text))
    got = {
        # A todo test is counted under todo only.
        "passed": count("pass"),
        "failed": count("fail"),
        "skipped": count("skipped") - (count("tests") - ran),
        "expected": count("todo"),
    }
if got != want:
    sys.exit(f"{runner} counts {got} differ from toolspec run's {want} ({reference})")
print(f"{runner} counts equal toolspec run's: {got}")
PY
}

mkdir "$work/py-project"
cd "$work/py-project"
echo "== pytest: the passing suite, the binary found in the venv"
"$pytest" -q -p no:cacheprovider --toolspec-suite=boris "--toolspec-server=$honest" \
  --junitxml="$work/honest.xml" | tail -n 2
compare junit "$work/honest.xml" "$work/honest.json"

echo "== pytest: the failing suite (through the logging wrapper from here on)"
export TOOLSPEC_BINARY="$work/toolspec-logged"
set +e
"$pytest" -q --toolspec-suite=boris "--toolspec-target=$deviant" --junitxml="$work/deviant.xml" >"$work/pytest.txt"
status=$?
set -e
tail -n 1 "$work/pytest.txt"
[ "$status" -eq 1 ] || fail "pytest on the failing suite exited $status, not 1"
compare junit "$work/deviant.xml" "$work/deviant.json"
logged_runs 1 "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['scenarios']))" "$work/deviant.json")" "pytest, whole suite"
grep -q 'does not start with a `\[CODE\] ` prefix' "$work/deviant.xml" || fail "the JUnit report lacks toolspec's diff"
grep -q 'KNOWN: a failure the target' "$work/deviant.xml" || fail "the JUnit report lacks the KNOWN reason"

echo "== pytest: a selection (-k) runs only what it selects"
"$pytest" -q -p no:cacheprovider --toolspec-suite=boris "--toolspec-target=$deviant" \
  -k "PATH_NOT_FOUND and missing" --junitxml="$work/selected.xml" >/dev/null || true
"$toolspec" list --json --suite boris | python3 -c '
import json, sys
ids = [s["id"] for s in json.load(sys.stdin)["suites"][0]["scenarios"]]
print("\n".join(i for i in ids if "path_not_found" in i.lower() and "missing" in i.lower()))' >"$work/selected.txt"
compare junit "$work/selected.xml" "$work/deviant.json" "$work/selected.txt"
logged_runs 1 "$(grep -c . "$work/selected.txt")" "pytest -k"

echo "== pytest: --lf reruns only the failures, -x stops at the first"
"$pytest" -q --toolspec-suite=boris "--toolspec-target=$deviant" --lf >/dev/null || true
failed="$(python3 -c "import json,sys; print(sum(s['standing'] in ('FAIL','ERROR','FLAKY','STALE') for s in json.load(open(sys.argv[1]))['scenarios']))" "$work/deviant.json")"
logged_runs 1 "$failed" "pytest --lf"
"$pytest" -q -p no:cacheprovider --toolspec-suite=boris "--toolspec-target=$deviant" -x \
  --junitxml="$work/first.xml" >/dev/null || true
python3 - "$work/first.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
cases = list(ET.parse(sys.argv[1]).getroot().iter("testcase"))
failed = [c for c in cases if c.find("failure") is not None]
if len(failed) != 1 or cases[-1] is not failed[0]:
    sys.exit(f"-x: expected the report to end at its one failure, got {len(cases)} cases, {len(failed)} failed")
print(f"pytest -x: stopped at the first failure after {len(cases)} items")
PY
rm -f "$runs"

echo "== pytest: xdist (-n 2) gives the same counts from one toolspec run"
"$pytest" -q -p no:cacheprovider -n 2 --toolspec-suite=boris "--toolspec-target=$deviant" \
  --junitxml="$work/xdist.xml" >/dev/null || true
compare junit "$work/xdist.xml" "$work/deviant.json"
logged_runs 1 "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['scenarios']))" "$work/deviant.json")" "pytest -n 2"
[ -z "$(ls -A "$work/py-project" | grep -v '^.pytest_cache$')" ] || fail "pytest left files in the project: $(ls -A "$work/py-project")"

echo "== node:test: the launcher and the platform package in an empty npm project"
unset TOOLSPEC_BINARY
mkdir "$work/node-project"
cd "$work/node-project"
echo '{ "private": true }' >package.json
npm install --silent --no-audit --no-fund "$launcher_tgz" "$platform_tgz"
cat >honest.test.mjs <<TEST
import { registerScenarios } from "toolspec";
registerScenarios({ suites: ["boris"], server: process.env.HONEST_SERVER });
TEST
cat >deviant.test.mjs <<TEST
import { registerScenarios } from "toolspec";
registerScenarios({ suites: ["boris"], target: process.env.DEVIANT_TARGET });
TEST
export HONEST_SERVER="$honest" DEVIANT_TARGET="$deviant"

echo "== node:test: the passing suite, the binary found in the platform package"
node --test --test-reporter=tap honest.test.mjs >"$work/honest.tap"
compare tap "$work/honest.tap" "$work/honest.json"

echo "== node:test: the failing suite"
export TOOLSPEC_BINARY="$work/toolspec-logged"
set +e
node --test --test-reporter=tap deviant.test.mjs >"$work/deviant.tap"
status=$?
set -e
[ "$status" -eq 1 ] || fail "node --test on the failing suite exited $status, not 1"
compare tap "$work/deviant.tap" "$work/deviant.json"
logged_runs 1 "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['scenarios']))" "$work/deviant.json")" "node --test, whole suite"
grep -q 'does not start with a `\[CODE\] ` prefix' "$work/deviant.tap" || fail "the TAP report lacks toolspec's diff"

echo "== node:test: a selection (--test-name-pattern) runs only what it selects"
node --test --test-reporter=tap --test-name-pattern="PATH_NOT_FOUND on missing" deviant.test.mjs \
  >"$work/selected.tap" || true
grep "PATH_NOT_FOUND on missing" "$work/selected.txt" >"$work/selected-node.txt"
compare tap "$work/selected.tap" "$work/deviant.json" "$work/selected-node.txt"
logged_runs 1 "$(grep -c . "$work/selected-node.txt")" "node --test --test-name-pattern"
echo "test runners: pytest and node:test counts agree with toolspec run's; selections run only what they select"
