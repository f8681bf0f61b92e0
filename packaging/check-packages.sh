#!/usr/bin/env bash
# Builds the packages a user installs toolspec from, installs each the way a user
# would, and runs it from an empty folder (docs/packaging.md):
#   1. the Python wheel (maturin, bindings = "bin", manylinux2014 through zig): its
#      tag, the newest glibc symbol the binary needs, pip install into a fresh venv,
#      `toolspec list` and the boris suite against the bundled reference server and
#      against one named with --server, and the same through `uvx --from WHEEL`;
#   2. the npm launcher and the linux-x64 package (carrying the wheel's binary, one
#      release build for both): npm pack, install both tarballs into an empty project,
#      `npx toolspec list` and a suite, exit codes and signals passed through, and the
#      launcher's error when the platform package is missing;
#   3. the CI workflow example's shell steps (packaging/check-ci-example.py);
#   4. the GitHub Action (action.yml) and the sharded CI example, their steps run
#      against an honest and a deviant server (packaging/check-action.py);
#   5. the pytest plugin in the wheel and the node:test registration in the launcher,
#      each from an empty project (packaging/check-test-runners.sh).
# Prints the figures: wheel size, install time, from an empty folder to the first
# verdict through pip, npx and the action, tarball sizes.
#
# Needs: cargo, python3 with venv, maturin, ziglang, uv and PyYAML (from PyPI), node
# and npm, objdump. CARGO_TARGET_DIR is honoured. `--wheel FILE` skips the build.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

wheel=""
if [ "${1:-}" = "--wheel" ]; then
  wheel="$(realpath "$2")"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -n 1)"

fail() {
  echo "check-packages: $*" >&2
  exit 1
}

# Seconds since the epoch with milliseconds, and the time since a start, for figures.
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$(now)"; }

# Runs a command that must exit with the given code; prints its output on a mismatch.
expect_exit() {
  local expected="$1" status=0
  shift
  "$@" >"$work/out.txt" 2>&1 || status=$?
  if [ "$status" -ne "$expected" ]; then
    cat "$work/out.txt" >&2
    fail "expected exit $expected, got $status from: $*"
  fi
}

echo "== the wheel"
if [ -z "$wheel" ]; then
  build_start="$(now)"
  (cd "$repo/packaging/python" && maturin build --release --locked --zig --out "$work/dist")
  echo "release build of the wheel: $(since "$build_start") s"
  wheel="$(ls "$work"/dist/toolspec_cli-*.whl)"
fi
wheel_name="$(basename "$wheel")"
# The platform tag lists both spellings of glibc 2.17 (maturin puts the legacy one first).
case "$wheel_name" in
  "toolspec_cli-$version-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl") ;;
  "toolspec_cli-$version-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl") ;;
  *) fail "unexpected wheel name $wheel_name (want version $version, tag manylinux2014_x86_64)" ;;
esac
wheel_bytes="$(stat -c %s "$wheel")"
mkdir "$work/wheel"
# Unpacked keeping each file's mode, to see that the binary is stored executable.
python3 - "$wheel" "$work/wheel" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for member in wheel.infolist():
        unpacked = wheel.extract(member, sys.argv[2])
        mode = (member.external_attr >> 16) & 0o777
        if mode:
            os.chmod(unpacked, mode)
PY
binary="$work/wheel/toolspec_cli-$version.data/scripts/toolspec"
[ -x "$binary" ] || fail "the wheel has no executable toolspec_cli-$version.data/scripts/toolspec"
# manylinux2014 promises glibc 2.17: no symbol of a newer version may be needed.
newest_glibc="$(objdump -T "$binary" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)"
if [ "$(printf '%s\n2.17\n' "$newest_glibc" | sort -V | tail -n 1)" != "2.17" ]; then
  fail "the binary needs glibc $newest_glibc, newer than manylinux2014's 2.17"
fi
echo "wheel: $wheel_name, $wheel_bytes bytes; newest glibc symbol: $newest_glibc"

echo "== pip install into a fresh venv, then run from an empty folder"
python3 -m venv "$work/venv"
mkdir "$work/empty"
cd "$work/empty"
install_start="$(now)"
"$work/venv/bin/python" -m pip install --quiet --no-index --disable-pip-version-check "$wheel"
install_seconds="$(since "$install_start")"
toolspec="$work/venv/bin/toolspec"
"$toolspec" run --suite boris
first_verdict_seconds="$(since "$install_start")"
"$toolspec" list
"$toolspec" run --suite boris --server "$toolspec reference-server --dialect boris --root {root}"
# A server that deviates is caught through the package too (exit 1, with a diff).
mutation="$("$toolspec" reference-server --dialect boris --list-mutations | head -n 1 | cut -f 1)"
expect_exit 1 "$toolspec" run --suite boris \
  --server "$toolspec reference-server --dialect boris --mutate $mutation --root {root}"
[ -z "$(ls -A "$work/empty")" ] || fail "a run from the empty folder left files there: $(ls -A "$work/empty")"

echo "== uvx --from the wheel (never by name: that would fetch whatever is published)"
export UV_CACHE_DIR="$work/uv-cache" UV_PYTHON_DOWNLOADS=never UV_NO_PROGRESS=1
uvx --no-index --from "$wheel" toolspec list >/dev/null
uvx --no-index --from "$wheel" toolspec run --suite boris

echo "== npm: the launcher and the linux-x64 package"
for package in toolspec toolspec-linux-x64; do
  package_version="$(node -p "require('$repo/packaging/npm/$package/package.json').version")"
  [ "$package_version" = "$version" ] || fail "packaging/npm/$package is version $package_version, the crate $version"
done
optional_version="$(node -p "require('$repo/packaging/npm/toolspec/package.json').optionalDependencies['toolspec-linux-x64']")"
[ "$optional_version" = "$version" ] || fail "the launcher depends on toolspec-linux-x64 $optional_version, not $version"
# The platform package carries the wheel's binary: the same release build.
# shellcheck source=pack-npm.sh
. "$repo/packaging/pack-npm.sh"
pack_npm "$repo" "$work" "$binary"
launcher_bytes="$(stat -c %s "$launcher_tgz")"
platform_bytes="$(stat -c %s "$platform_tgz")"

mkdir "$work/project"
cd "$work/project"
npx_start="$(now)"
echo '{ "private": true }' >package.json
npm install --silent --no-audit --no-fund "$launcher_tgz" "$platform_tgz"
npx --no toolspec run --suite boris
npx_first_verdict_seconds="$(since "$npx_start")"
npx --no toolspec list >/dev/null
# Exit codes come through: 1 for failures, 2 for a usage error.
expect_exit 1 npx --no toolspec run --suite boris \
  --server "$toolspec reference-server --dialect boris --mutate $mutation --root {root}"
expect_exit 2 npx --no toolspec run --no-such-flag
# Signals: a reference server waiting on an open stdin is stopped with SIGTERM, once
# started directly and once through the launcher, each time once it is ready to
# catch the signal (or it would depend on timing how it ends). Sent to the launcher, the signal
# must reach the binary, and the launcher must end as the binary does when signalled
# itself. A binary killed by a signal (SIGKILL) must end the launcher by the same one.
serve() { # serve PROGRAM: starts it as a reference server; sets served_pid
  rm -rf "$work/served" "$work/stdin"
  mkdir "$work/served"
  mkfifo "$work/stdin"
  "$1" reference-server --dialect boris --root "$work/served" <"$work/stdin" &
  served_pid=$!
  exec 9>"$work/stdin"
}
ended() { # ended PID: waits for it; sets ended_status
  ended_status=0
  { wait "$1"; } 2>/dev/null || ended_status=$?
  exec 9>&-
}
binary_of() { # binary_of LAUNCHER_PID: the binary the launcher started; sets binary_pid
  binary_pid=""
  for _ in $(seq 100); do
    binary_pid="$(pgrep -P "$1" || true)"
    [ -n "$binary_pid" ] && return
    sleep 0.1
  done
  fail "the launcher did not start the binary"
}
sigterm_caught() { # sigterm_caught PID: waits until it has a SIGTERM handler (up to 10 s)
  local mask
  for _ in $(seq 100); do
    mask="$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null || true)"
    [ -n "$mask" ] && [ $((0x$mask & 0x4000)) -ne 0 ] && return
    sleep 0.1
  done
  # Never installed: the default disposition holds from the start, just as consistent.
}
serve "$binary"
sigterm_caught "$served_pid"
kill -TERM "$served_pid"
ended "$served_pid"
direct_status="$ended_status"
serve node_modules/.bin/toolspec
binary_of "$served_pid"
sigterm_caught "$binary_pid"
kill -TERM "$served_pid"
ended "$served_pid"
[ "$ended_status" -eq "$direct_status" ] \
  || fail "after SIGTERM the launcher ended with $ended_status, the binary itself with $direct_status"
! kill -0 "$binary_pid" 2>/dev/null || fail "the binary (pid $binary_pid) outlived the launcher's SIGTERM"
serve node_modules/.bin/toolspec
binary_of "$served_pid"
kill -KILL "$binary_pid"
ended "$served_pid"
[ "$ended_status" -eq 137 ] || fail "the binary was killed by SIGKILL, but the launcher ended with $ended_status, not 137"

echo "== npm: the launcher without its platform package names what is missing"
mkdir "$work/project-without-platform"
cd "$work/project-without-platform"
echo '{ "private": true }' >package.json
npm install --silent --no-audit --no-fund --omit=optional "$launcher_tgz"
expect_exit 1 npx --no toolspec list
grep -q "the platform package toolspec-linux-x64 is not installed" "$work/out.txt" \
  || fail "the launcher's error does not name the missing package: $(cat "$work/out.txt")"
grep -q "(linux-x64)" "$work/out.txt" || fail "the launcher's error does not name the platform: $(cat "$work/out.txt")"
cat "$work/out.txt"

echo "== the CI workflow example (docs/ci/github-actions.yml), its install step given the wheel"
python3 -m venv "$work/ci-venv"
python3 "$repo/packaging/check-ci-example.py" "$repo/docs/ci/github-actions.yml" \
  --install "\"$work/ci-venv/bin/python\" -m pip install --quiet --no-index --disable-pip-version-check \"$wheel\"" \
  --toolspec "$work/ci-venv/bin/toolspec"

echo "== the GitHub Action (action.yml) and the sharded CI example, given the wheel"
python3 "$repo/packaging/check-action.py" --wheel "$wheel" | tee "$work/action.txt"
action_seconds="$(sed -n 's/^the action from an empty folder to its verdict.*: \([0-9.]*\) s$/\1/p' "$work/action.txt")"

echo "== every scenario a test in pytest and node:test, from the wheel and the tarballs"
# packaging/check-test-runners.sh (docs/test-runners.md); pytest and pytest-xdist
# come from PyPI.
"$repo/packaging/check-test-runners.sh" --wheel "$wheel" --launcher "$launcher_tgz" --platform "$platform_tgz"

echo "== figures"
echo "wheel: $wheel_name, $wheel_bytes bytes ($((wheel_bytes / 1024)) KiB), newest glibc symbol GLIBC_$newest_glibc"
echo "pip install into a fresh venv: $install_seconds s; pip install to the first verdict (boris, reference server): $first_verdict_seconds s"
echo "npm install of the tarballs into an empty project to the first verdict (npx toolspec run --suite boris): $npx_first_verdict_seconds s"
echo "the action's steps from an empty checkout to the verdict (venv, pip install of the wheel, boris): $action_seconds s"
echo "npm tarballs: $(basename "$launcher_tgz") $launcher_bytes bytes, $(basename "$platform_tgz") $platform_bytes bytes"
echo "packages: wheel, uvx, npm launcher and platform package, CI example, action, sharded example, pytest and node:test: all checks passed"
