// Where the toolspec binary of this install is: in the platform package npm chose
// for this machine (an optional dependency per `process.platform`-`process.arch`).
// Shared by the `toolspec` command (bin/toolspec.js) and the node:test registration
// (lib/node-test.mjs).
"use strict";

const path = require("node:path");

/** The platform package for each `process.platform`-`process.arch` pair built. */
const PLATFORM_PACKAGES = {
  "linux-x64": "toolspec-linux-x64",
};

/** The binary's path; throws an Error saying what to install when there is none. */
function binaryPath() {
  const platform = `${process.platform}-${process.arch}`;
  const packageName = PLATFORM_PACKAGES[platform];
  if (packageName === undefined) {
    const built = Object.keys(PLATFORM_PACKAGES).join(", ");
    throw new Error(
      `no toolspec binary is published for this platform (${platform}); ` +
        `packages exist for: ${built}. Build it from source with cargo instead.`,
    );
  }
  let manifest;
  try {
    manifest = require.resolve(`${packageName}/package.json`);
  } catch {
    throw new Error(
      `the platform package ${packageName} is not installed, and this platform ` +
        `(${platform}) needs it: it carries the toolspec binary. npm skips it when ` +
        `optional dependencies are omitted (--omit=optional, --no-optional) or when ` +
        `its os/cpu/libc do not match (it needs glibc 2.17 or later). Install it ` +
        `with: npm install ${packageName}`,
    );
  }
  return path.join(path.dirname(manifest), "bin", "toolspec");
}

module.exports = { PLATFORM_PACKAGES, binaryPath };
