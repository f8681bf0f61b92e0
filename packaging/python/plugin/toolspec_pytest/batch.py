"""One ``toolspec run --json`` for a batch of selected scenarios.

The ids go to the binary through ``--ids-from`` (exact ids, never a substring), so a
batch runs what pytest selected and nothing else, in one process: toolspec runs the
scenarios in parallel itself.
"""

import json
import os
import subprocess
import tempfile


class BatchError(Exception):
    """The binary did not write a report for the batch: its output says why."""


def run_batch(command, ids, cwd):
    """Runs ``command`` (the binary, global flags, ``run`` and its flags) for
    ``ids``; returns ``{id: scenario}`` from its JSON report, and how it exited."""
    with tempfile.TemporaryDirectory(prefix="toolspec-pytest-") as scratch:
        ids_file = os.path.join(scratch, "ids.txt")
        report_file = os.path.join(scratch, "report.json")
        with open(ids_file, "w", encoding="utf-8") as out:
            out.write("".join(f"{id}\n" for id in ids))
        argv = [*command, "--ids-from", ids_file, "--json", report_file]
        try:
            finished = subprocess.run(
                argv, cwd=cwd, capture_output=True, text=True, errors="replace", check=False
            )
        except OSError as error:
            raise BatchError(f"could not start {command[0]}: {error}") from error
        # 0: everything held; 1: something did not hold. Anything else wrote no
        # report worth reading (2: refused, 130: interrupted).
        if finished.returncode not in (0, 1) or not os.path.exists(report_file):
            raise BatchError(
                f"`{' '.join(argv)}` exited with {finished.returncode}:\n"
                f"{finished.stderr}{finished.stdout}"
            )
        with open(report_file, encoding="utf-8") as report:
            scenarios = json.load(report)["scenarios"]
    return {scenario["id"]: scenario for scenario in scenarios}, finished.returncode
