#!/usr/bin/env node
// The `toolspec` command of the npm package. The binary itself ships in one package
// per platform (optional dependencies, each with `os` and `cpu`, so npm installs only
// the one that fits); this script finds that package and runs its binary with the
// same arguments, the same standard streams, and hands back how it ended.
"use strict";

const { spawn } = require("node:child_process");
const os = require("node:os");
const { binaryPath } = require("../lib/platform.cjs");

/** The signals a user or a CI runner sends to stop a run: passed on to the binary. */
const FORWARDED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

function fail(message) {
  process.stderr.write(`toolspec: ${message}\n`);
  process.exit(1);
}

function main() {
  let binary;
  try {
    binary = binaryPath();
  } catch (error) {
    fail(error.message);
  }
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
