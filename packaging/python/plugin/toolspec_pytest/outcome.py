"""What one scenario of a ``toolspec run --json`` report means for its pytest item.

The report's ``standing`` is the verdict with the target's baseline applied, the
same value ``toolspec run``'s summary line counts; each maps to one pytest outcome,
and the text shown is the report's own: the expectations that did not hold with
toolspec's diff under each, the error and the server's stderr, the reason.
"""

from dataclasses import dataclass

# Standings that make `toolspec run` exit 1: a failed pytest item each.
FAILING = ("FAIL", "ERROR", "FLAKY", "STALE")
# Not judged here: a pytest skip with toolspec's reason.
SKIPPED = ("SKIP", "UNSUPPORTED")
# Did not pass without failing the run: an expected failure (xfail).
EXPECTED = ("KNOWN", "NEW")


@dataclass(frozen=True)
class Outcome:
    """``kind`` is "passed", "failed", "skipped" or "xfailed"; ``text`` says why."""

    kind: str
    text: str


def outcome_of(scenario):
    """The pytest outcome of one ``scenarios[]`` entry of the JSON report."""
    standing = scenario["standing"]
    if standing == "PASS":
        return Outcome("passed", "")
    if standing in FAILING:
        return Outcome("failed", failure_text(scenario))
    if standing in SKIPPED:
        return Outcome("skipped", f"{standing}: {scenario.get('reason') or 'not run'}")
    if standing in EXPECTED:
        return Outcome("xfailed", expected_text(scenario))
    return Outcome("failed", f"toolspec reported a standing this plugin does not know: {standing!r}")


def failure_text(scenario):
    """The failure as toolspec prints it: what was called, each expectation that did
    not hold with its diff, or the error with the server's last stderr lines."""
    lines = [f"{scenario['standing']} {scenario['id']}"]
    attempts = scenario.get("attempts") or []
    if scenario["standing"] == "FLAKY":
        lines.append(f"  the attempts did not all end alike: {', '.join(attempts)}")
    if scenario["standing"] == "STALE":
        lines.append(
            "  the target's baseline lists this scenario as a known failure, but it passes now:"
            " remove the entry"
        )
    if scenario.get("call"):
        lines.append(f"  call: {scenario['call']}")
    for mismatch in scenario.get("mismatches") or []:
        excused = " (excused by the baseline)" if mismatch.get("excused") else ""
        lines.append(f"  expected {mismatch['expectation']}{excused}:")
        lines.extend("    " + line for line in mismatch["detail"].splitlines())
    error = scenario.get("error")
    if error:
        lines.append(f"  error: {error['what']}")
        if error.get("stderr_tail"):
            lines.append("  server stderr (last lines):")
            lines.extend("    " + line for line in error["stderr_tail"].splitlines())
    if scenario.get("isolation_denied"):
        lines.append(f"  {scenario['isolation_denied']}")
    for warning in scenario.get("warnings") or []:
        lines.append(f"  warning: {warning}")
    if scenario.get("note"):
        lines.append(f"  note: {scenario['note']}")
    return "\n".join(lines)


def expected_text(scenario):
    """An xfail's reason: why the failure does not count, then the failure itself."""
    if scenario["standing"] == "KNOWN":
        why = "KNOWN: a failure the target's baseline lists"
    else:
        why = (
            f"NEW: arrived in suite version {scenario['since']}, after the "
            f"version {scenario['pinned']} the target pins"
        )
    if scenario["verdict"] == "PASS":
        return why
    return why + "\n" + failure_text(scenario)
