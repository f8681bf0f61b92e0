# Sourced by check-packages.sh and check-test-runners.sh: packs the npm launcher
# and the linux-x64 platform package carrying BINARY, as a release would publish
# them, into WORK/tarballs. Sets launcher_tgz and platform_tgz to the tarballs.
# usage: pack_npm REPO WORK BINARY
pack_npm() {
  local repo="$1" work="$2" binary="$3"
  mkdir -p "$work/npm" "$work/tarballs"
  cp -R "$repo/packaging/npm/toolspec" "$repo/packaging/npm/toolspec-linux-x64" "$work/npm/"
  mkdir -p "$work/npm/toolspec-linux-x64/bin"
  install -m 0755 "$binary" "$work/npm/toolspec-linux-x64/bin/toolspec"
  launcher_tgz="$work/tarballs/$(cd "$work/npm/toolspec" && npm pack --silent --pack-destination "$work/tarballs")"
  platform_tgz="$work/tarballs/$(cd "$work/npm/toolspec-linux-x64" && npm pack --silent --pack-destination "$work/tarballs")"
}
