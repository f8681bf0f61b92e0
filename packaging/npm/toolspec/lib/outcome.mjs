// What one scenario of a `toolspec run --json` report means for its node:test test:
// the report's `standing` (the verdict with the target's baseline applied, as the
// summary line counts it) mapped to a pass, a failure with toolspec's own text, a
// skip with its reason, or a todo (node:test has no expected failure) with its reason.

/** Standings that make `toolspec run` exit 1: a failed test each. */
const FAILING = new Set(["FAIL", "ERROR", "FLAKY", "STALE"]);
/** Not judged here: a skip with toolspec's reason. */
const SKIPPED = new Set(["SKIP", "UNSUPPORTED"]);
/** Did not pass without failing the run: a todo with the reason. */
const EXPECTED = new Set(["KNOWN", "NEW"]);

/** `{ kind: "passed" | "failed" | "skipped" | "todo", text }` of one report entry. */
export function outcomeOf(scenario) {
  const standing = scenario.standing;
  if (standing === "PASS") return { kind: "passed", text: "" };
  if (FAILING.has(standing)) return { kind: "failed", text: failureText(scenario) };
  if (SKIPPED.has(standing)) {
    return { kind: "skipped", text: `${standing}: ${scenario.reason ?? "not run"}` };
  }
  if (EXPECTED.has(standing)) return { kind: "todo", text: expectedText(scenario) };
  return { kind: "failed", text: `toolspec reported a standing this package does not know: ${standing}` };
}

const indented = (text, by) => text.split("\n").map((line) => by + line);

/** The failure as toolspec prints it: the call, each expectation that did not hold
 * with its diff, or the error with the server's last stderr lines. */
export function failureText(scenario) {
  const lines = [`${scenario.standing} ${scenario.id}`];
  if (scenario.standing === "FLAKY") {
    lines.push(`  the attempts did not all end alike: ${(scenario.attempts ?? []).join(", ")}`);
  }
  if (scenario.standing === "STALE") {
    lines.push(
      "  the target's baseline lists this scenario as a known failure, but it passes now: remove the entry",
    );
  }
  if (scenario.call) lines.push(`  call: ${scenario.call}`);
  for (const mismatch of scenario.mismatches ?? []) {
    const excused = mismatch.excused ? " (excused by the baseline)" : "";
    lines.push(`  expected ${mismatch.expectation}${excused}:`, ...indented(mismatch.detail, "    "));
  }
  if (scenario.error) {
    lines.push(`  error: ${scenario.error.what}`);
    if (scenario.error.stderr_tail) {
      lines.push("  server stderr (last lines):", ...indented(scenario.error.stderr_tail.trimEnd(), "    "));
    }
  }
  if (scenario.isolation_denied) lines.push(`  ${scenario.isolation_denied}`);
  for (const warning of scenario.warnings ?? []) lines.push(`  warning: ${warning}`);
  if (scenario.note) lines.push(`  note: ${scenario.note}`);
  return lines.join("\n");
}

function expectedText(scenario) {
  const why =
    scenario.standing === "KNOWN"
      ? "KNOWN: a failure the target's baseline lists"
      : `NEW: arrived in suite version ${scenario.since}, after the version ${scenario.pinned} the target pins`;
  return scenario.verdict === "PASS" ? why : `${why}\n${failureText(scenario)}`;
}
