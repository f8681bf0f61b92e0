// Every scenario of a suite as a node:test test, from a plain `.mjs` test file:
//
//   import { registerScenarios } from "toolspec";
//   registerScenarios({ target: "my-server.yaml" });
//
// Registering asks the binary for the scenario ids (`toolspec list --json`) and
// registers one test per id, named by it. The first test body to run starts one
// `toolspec run` for the tests this process will run (every registered one, less
// those `--test-name-pattern` leaves out), and each test reads its scenario out of
// that run's JSON report. A test whose scenario that run did not cover (node
// selected it in a way this file does not read) gets a run of its own.

import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { test } from "node:test";

import { outcomeOf } from "./outcome.mjs";

const require = createRequire(import.meta.url);
const { binaryPath } = require("./platform.cjs");

/**
 * Registers one node:test test per scenario.
 *
 * @param {object} options
 * @param {string} [options.target] the target file of the server under test; its
 *   pinned suites run unless `suites` names others
 * @param {string} [options.server] a stdio server command ('CMD ARGS {root}') instead
 * @param {string[]} [options.suites] suites whose scenarios become tests
 * @param {string} [options.specs] a folder of suites besides the built-in ones
 * @param {string} [options.binary] the toolspec binary (default: $TOOLSPEC_BINARY,
 *   else the one the platform package installed)
 * @param {string[]} [options.args] more arguments for `toolspec run`, as they are
 * @returns {{ ids: string[], runs: () => number }} the ids registered, and how many
 *   binary runs have been made so far
 */
export function registerScenarios(options = {}) {
  const { target, server, suites = [], specs, args = [] } = options;
  if (target && server) throw new Error("toolspec: give `target` or `server`, not both");
  const binary = options.binary ?? process.env.TOOLSPEC_BINARY ?? binaryPath();
  const globalArgs = specs ? ["--specs", resolve(specs)] : [];
  const selection = suites.flatMap((suite) => ["--suite", suite]);
  const targetArgs = target ? ["--target", resolve(target)] : [];
  const runArgs = [...selection, ...targetArgs, ...(server ? ["--server", server] : []), ...args];

  const listing = JSON.parse(
    execFileSync(binary, [...globalArgs, "list", "--json", ...selection, ...targetArgs], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
  const ids = listing.suites.flatMap((suite) => suite.scenarios.map((scenario) => scenario.id));
  const patterns = testNamePatterns(process.execArgv);
  const selected = ids.filter((id) => patterns.length === 0 || patterns.some((p) => p.test(id)));

  const outcomes = new Map();
  let runs = 0;
  const runFor = (wanted) => {
    runs += 1;
    for (const [id, outcome] of runBatch(binary, [...globalArgs, "run", ...runArgs], wanted)) {
      outcomes.set(id, outcome);
    }
  };

  for (const id of ids) {
    test(id, (t) => {
      if (!outcomes.has(id)) {
        const pending = selected.filter((other) => !outcomes.has(other));
        runFor(pending.includes(id) ? pending : [id, ...pending]);
      }
      const outcome = outcomes.get(id) ?? {
        kind: "failed",
        text: `toolspec run did not report ${id}`,
      };
      if (outcome.kind === "failed") throw new ScenarioFailed(outcome.text);
      if (outcome.kind === "skipped") t.skip(outcome.text);
      if (outcome.kind === "todo") t.todo(outcome.text);
    });
  }
  return { ids, runs: () => runs };
}

/** A scenario that did not hold; its message is toolspec's own text. */
class ScenarioFailed extends Error {
  constructor(text) {
    super(text);
    this.name = "ScenarioFailed";
    // The text is the whole story: where in this file it was thrown is not.
    this.stack = `${this.name}: ${text}`;
  }
}

/** `--test-name-pattern` as node reads it, from this process's own flags (the
 * `node --test` runner passes them on to each test file's process): a `/re/flags`
 * literal or a plain string made a RegExp. */
export function testNamePatterns(execArgv) {
  const patterns = [];
  for (let i = 0; i < execArgv.length; i += 1) {
    const arg = execArgv[i];
    let value;
    if (arg.startsWith("--test-name-pattern=")) value = arg.slice("--test-name-pattern=".length);
    else if (arg === "--test-name-pattern") value = execArgv[(i += 1)];
    if (value === undefined) continue;
    const literal = /^\/(.*)\/([a-z]*)$/s.exec(value);
    patterns.push(literal ? new RegExp(literal[1], literal[2]) : new RegExp(value));
  }
  return patterns;
}

/** One `toolspec run --ids-from --json` for `ids`: each id's outcome. */
function runBatch(binary, command, ids) {
  const scratch = mkdtempSync(join(tmpdir(), "toolspec-node-test-"));
  try {
    const idsFile = join(scratch, "ids.txt");
    const reportFile = join(scratch, "report.json");
    writeFileSync(idsFile, ids.map((id) => `${id}\n`).join(""));
    const argv = [...command, "--ids-from", idsFile, "--json", reportFile];
    const finished = spawnSync(binary, argv, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    let report;
    if (finished.status === 0 || finished.status === 1) {
      try {
        report = JSON.parse(readFileSync(reportFile, "utf8"));
      } catch {
        report = undefined;
      }
    }
    if (report === undefined) {
      const how = finished.error ? finished.error.message : `exited with ${finished.status ?? finished.signal}`;
      const text = `\`${[binary, ...argv].join(" ")}\` ${how}:\n${finished.stderr ?? ""}${finished.stdout ?? ""}`;
      return ids.map((id) => [id, { kind: "failed", text }]);
    }
    return report.scenarios.filter((s) => ids.includes(s.id)).map((s) => [s.id, outcomeOf(s)]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
