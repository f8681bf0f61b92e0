#!/usr/bin/env node
// The `toolspec` command of the npm package. The binary itself ships in one package
// per platform (optional dependencies, each with `os` and `cpu`, so npm installs only
// the one that fits); this script finds that package and runs its binary with the
// same arguments, the same standard streams, and hands back how it ended.
"use strict";

const { spawn } = require("node:child_process");
const os = require("node:os");
const path = require("node:path");

/** The platform package for each `process.platform`-`process.arch` pair built. */
const PLATFORM_PACKAGES = {
  "linux-x64": "toolspec-linux-x64",
};

/** The signals a user or a CI runner sends to stop a run: passed on to the binary. */
const FORWARDED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

function fail(message) {
  process.stderr.write(`toolspec: ${message}\n`);
  process.exit(1);
}

function binaryPath() {
  const platform = `${process.platform}-${process.arch}`;
  const packageName = PLATFORM_PACKAGES[platform];
  if (packageName === undefined) {
    const built = Object.keys(PLATFORM_PACKAGES).join(", ");
    fail(
      `no toolspec binary is published for this platform (${platform}); ` +
        `packages exist for: ${built}. Build it from source with cargo instead.`,
    );
  }
  let manifest;
  try {
    manifest = require.resolve(`${packageName}/package.json`);
  } catch {
    fail(
      `the platform package ${packageName} is not installed, and this platform ` +
        `(${platform}) needs it: it carries the toolspec binary. npm skips it when ` +
        `optional dependencies are omitted (--omit=optional, --no-optional) or when ` +
        `its os/cpu/libc do not match (it needs glibc 2.17 or later). Install it ` +
        `with: npm install ${packageName}`,
    );
  }
  return path.join(path.dirname(manifest), "bin", "toolspec");
}

function main() {
  const binary = binaryPath();
  const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
  // While the binary runs, a signal sent to this process (a CI job's timeout, a
  // `kill`) goes on to it, and the binary decides how to stop.
  const forwarders = FORWARDED_SIGNALS.map((signal) => {
    const forward = () => child.kill(signal);
    process.on(signal, forward);
    return [signal, forward];
  });
  child.on("error", (error) => {
    fail(`could not start ${binary}: ${error.message}`);
  });
  child.on("exit", (code, signal) => {
    if (signal !== null) {
      // End the same way, so the caller sees the signal and not a made-up code.
      for (const [name, forward] of forwarders) process.removeListener(name, forward);
      process.kill(process.pid, signal);
      // A signal Node ignores (SIGPIPE) does not end it: the shell's code instead.
      setTimeout(() => process.exit(128 + (os.constants.signals[signal] ?? 0)), 1000);
      return;
    }
    process.exit(code === null ? 1 : code);
  });
}

main();
