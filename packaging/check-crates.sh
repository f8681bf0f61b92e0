#!/usr/bin/env bash
# The crates as the registry would get them (docs/packaging.md, "The crates"):
#   1. `cargo package` of both crates in one command (toolspec cannot be packaged
#      alone before toolspec-reference is published), which builds each from its
#      packaged sources; each .crate must be under the registry's 10 MB;
#   2. toolspec's .crate unpacked and installed with `cargo install --path` into a
#      scratch root, toolspec-reference taken from its own unpacked .crate;
#   3. from an empty folder, the installed binary lists the suites and runs one.
# The install builds the dev profile in the workspace's target folder, where the
# packaging's own check has just built the same sources, so it adds little: the
# release build of these sources is the wheel's (check-packages.sh).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -n 1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() {
  echo "check-crates: $*" >&2
  exit 1
}

echo "== cargo package -p toolspec-reference -p toolspec (each built from its package)"
cd "$repo"
cargo package --locked -p toolspec-reference -p toolspec
limit=$((10 * 1000 * 1000))
for crate in toolspec-reference toolspec; do
  file="$target/package/$crate-$version.crate"
  [ -f "$file" ] || fail "no $file"
  bytes="$(stat -c %s "$file")"
  [ "$bytes" -lt "$limit" ] || fail "$crate-$version.crate is $bytes bytes, over the registry's 10 MB"
  tar -xzf "$file" -C "$work"
  echo "$crate-$version.crate: $bytes bytes, $(tar -tzf "$file" | wc -l) files"
done
for needed in build.rs LICENSE-MIT LICENSE-APACHE README.md; do
  [ -e "$work/toolspec-$version/$needed" ] || fail "the toolspec crate lacks $needed"
done
# Every suite and fixture file is compiled into the binary: each must be in the
# crate (cargo silently leaves out a folder holding a Cargo.toml, say).
missing="$(cd "$repo" && git ls-files specs fixtures | while read -r file; do
  [ -e "$work/toolspec-$version/$file" ] || echo "$file"
done)"
[ -z "$missing" ] || fail "the toolspec crate lacks suite or fixture files: $missing"
for needed in LICENSE-MIT LICENSE-APACHE README.md; do
  [ -f "$work/toolspec-reference-$version/$needed" ] || fail "the toolspec-reference crate lacks $needed"
done

echo "== cargo install --path the unpacked toolspec crate into a scratch root"
cargo install --locked --debug --path "$work/toolspec-$version" --root "$work/root" \
  --target-dir "$target" \
  --config "patch.crates-io.toolspec-reference.path=\"$work/toolspec-reference-$version\""
toolspec="$work/root/bin/toolspec"
[ -x "$toolspec" ] || fail "cargo install put no toolspec in $work/root/bin"

echo "== the installed toolspec from an empty folder"
mkdir "$work/empty"
cd "$work/empty"
"$toolspec" --version
"$toolspec" list >/dev/null
"$toolspec" run --suite ikigai
[ -z "$(ls -A "$work/empty")" ] || fail "a run from the empty folder left files there: $(ls -A "$work/empty")"
echo "crates: packaged, installed from the packages, a suite run: all checks passed"
