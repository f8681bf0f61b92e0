"""The pytest hooks: options, one item per scenario, one binary run per batch.

Collection asks the binary for the scenario ids (``toolspec list --json``) and adds
one item per id, named by it, after the test files' own items; pytest's own
selection (``-k``, ``-m``, ``--lf``, ``--deselect``) then works on them as on any
test. The first item to run starts one ``toolspec run`` for every selected item,
and each item reads its scenario out of that run's JSON report. Under xdist every
worker collects and deselects alike, so the first worker to need an outcome runs
the binary for the whole selection and leaves the outcomes in a folder the
controller made (``shared.py``); the other workers read them: one run a session.
"""

import json
import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from .batch import BatchError, run_batch
from .outcome import Outcome, outcome_of
from .shared import SharedOutcomes, share_with_workers

PLUGIN_NAME = "toolspec-session"


def pytest_addoption(parser):
    group = parser.getgroup("toolspec", "toolspec: every scenario of a suite as a test")
    group.addoption(
        "--toolspec-target",
        metavar="FILE",
        help="the target file of the server under test (docs/targets.md); its pinned "
        "suites run unless --toolspec-suite names others",
    )
    group.addoption(
        "--toolspec-server",
        metavar="'CMD ARGS {root}'",
        help="a stdio server command instead of a target file",
    )
    group.addoption(
        "--toolspec-suite",
        action="append",
        default=[],
        metavar="NAME",
        help="a suite whose scenarios become tests; repeat for several",
    )
    group.addoption("--toolspec-specs", metavar="DIR", help="a folder of suites besides the built-in ones")
    group.addoption(
        "--toolspec-binary",
        metavar="PATH",
        help="the toolspec binary (default: $TOOLSPEC_BINARY, the one this environment's "
        "toolspec-cli installed, else toolspec on PATH)",
    )
    group.addoption(
        "--toolspec-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an argument for `toolspec run`, as is (--toolspec-arg=--timeout-ms=30000)",
    )
    parser.addini("toolspec_target", "the target file (as --toolspec-target)")
    parser.addini("toolspec_server", "a stdio server command (as --toolspec-server)")
    parser.addini("toolspec_suites", "suites to run (as --toolspec-suite)", type="linelist")
    parser.addini("toolspec_specs", "a folder of suites (as --toolspec-specs)")


def pytest_configure(config):
    config.addinivalue_line("markers", "toolspec: a scenario of a toolspec suite")
    settings = Settings.of(config)
    if settings is not None:
        config.pluginmanager.register(ToolspecRuns(config, settings), PLUGIN_NAME)
        share_with_workers(config)


class Settings:
    """The options, paths made absolute: a command line's against the folder pytest
    was started in, an ini file's against that file's folder."""

    def __init__(self, binary, global_args, run_args, list_args):
        self.binary = binary
        self.global_args = global_args
        self.run_args = run_args
        self.list_args = list_args

    @classmethod
    def of(cls, config):
        here = Path(config.invocation_params.dir)
        ini_dir = Path(config.inipath).parent if config.inipath else Path(config.rootpath)

        def option_or_ini(option, ini):
            value = config.getoption(option)
            if value:
                return value, here
            value = config.getini(ini)
            return (value, ini_dir) if value else (None, here)

        target, target_base = option_or_ini("toolspec_target", "toolspec_target")
        server, _ = option_or_ini("toolspec_server", "toolspec_server")
        specs, specs_base = option_or_ini("toolspec_specs", "toolspec_specs")
        suites = config.getoption("toolspec_suite") or config.getini("toolspec_suites")
        if not (target or server or suites or specs):
            return None
        if target and server:
            raise pytest.UsageError("toolspec: give --toolspec-target or --toolspec-server, not both")
        global_args = ["--specs", str(specs_base / specs)] if specs else []
        selection = [arg for suite in suites for arg in ("--suite", suite)]
        run_args = list(selection)
        list_args = list(selection)
        if target:
            run_args += ["--target", str(target_base / target)]
            list_args += ["--target", str(target_base / target)]
        if server:
            run_args += ["--server", server]
        run_args += config.getoption("toolspec_arg")
        return cls(find_binary(config), global_args, run_args, list_args)


def find_binary(config):
    """The binary to run: the option, $TOOLSPEC_BINARY, the one installed beside
    this environment's Python by the toolspec-cli wheel, then PATH."""
    named = config.getoption("toolspec_binary") or os.environ.get("TOOLSPEC_BINARY")
    if named:
        return str(Path(config.invocation_params.dir) / named) if os.sep in named else named
    beside = Path(sysconfig.get_path("scripts")) / "toolspec"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("toolspec")
    if found is None:
        raise pytest.UsageError(
            "toolspec: no toolspec binary: install toolspec-cli in this environment, "
            "or name one with --toolspec-binary or TOOLSPEC_BINARY"
        )
    return found


class ScenarioFailed(Exception):
    """A scenario that did not hold: its text is toolspec's own."""


class ScenarioItem(pytest.Item):
    """One scenario, named by its id (`suite::file::scenario`)."""

    def __init__(self, *, scenario_id, runs, **kwargs):
        super().__init__(**kwargs)
        self.scenario_id = scenario_id
        self.runs = runs
        self.add_marker("toolspec")

    def runtest(self):
        outcome = self.runs.outcome(self)
        if outcome.kind == "failed":
            raise ScenarioFailed(outcome.text)
        if outcome.kind == "skipped":
            pytest.skip(outcome.text)
        if outcome.kind == "xfailed":
            pytest.xfail(outcome.text)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, self.scenario_id


class ScenarioCollector(pytest.Collector):
    """The scenarios `toolspec list --json` gives, as items under `toolspec::`."""

    def __init__(self, *, listing, runs, **kwargs):
        super().__init__(**kwargs)
        self.listing = listing
        self.runs = runs

    def collect(self):
        return [
            # The node id spelled out: the scenario id's own `::` are segments of it,
            # as pytest parses the ids it caches (--lf) and reports.
            ScenarioItem.from_parent(
                self,
                name=scenario["id"],
                nodeid=f"{self.nodeid}::{scenario['id']}",
                scenario_id=scenario["id"],
                runs=self.runs,
            )
            for suite in self.listing["suites"]
            for scenario in suite["scenarios"]
        ]


class ToolspecRuns:
    """The session's scenarios and the binary runs that judge them."""

    def __init__(self, config, settings):
        self.config = config
        self.settings = settings
        self.outcomes = {}
        self.runs = 0
        self.ran = 0
        self.session = None

    def command(self, *args):
        return [self.settings.binary, *self.settings.global_args, *args]

    def listing(self):
        argv = self.command("list", "--json", *self.settings.list_args)
        try:
            listed = subprocess.run(argv, capture_output=True, text=True, check=False)
        except OSError as error:
            raise pytest.UsageError(f"toolspec: could not start {argv[0]}: {error}") from error
        if listed.returncode != 0:
            raise pytest.UsageError(
                f"toolspec: `{' '.join(argv)}` exited with {listed.returncode}:\n{listed.stderr}"
            )
        return json.loads(listed.stdout)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session, config, items):
        # First, so that -k, -m, --lf and --deselect see the scenarios as any test.
        self.session = session
        collector = ScenarioCollector.from_parent(
            session, name="toolspec", nodeid="toolspec", listing=self.listing(), runs=self
        )
        report = collector.ihook.pytest_make_collect_report(collector=collector)
        collector.ihook.pytest_collectreport(report=report)
        if report.failed:
            raise pytest.UsageError(f"toolspec: could not collect the scenarios:\n{report.longreprtext}")
        items.extend(item for item in report.result if isinstance(item, pytest.Item))

    def outcome(self, item):
        if item.scenario_id not in self.outcomes:
            ids = self.pending(item)
            shared = SharedOutcomes.of(self.config)
            if shared is None:
                self.outcomes.update(self.run(ids))
            else:
                self.outcomes.update(shared.get_or_make(ids, self.run))
        return self.outcomes.get(
            item.scenario_id,
            Outcome("failed", f"toolspec run did not report {item.scenario_id}"),
        )

    def pending(self, item):
        """The selected scenarios still to run: this one first, then the rest of the
        session's items in order (after every deselection)."""
        ids = [item.scenario_id]
        for other in self.session.items:
            if isinstance(other, ScenarioItem) and other.scenario_id not in self.outcomes:
                if other.scenario_id not in ids:
                    ids.append(other.scenario_id)
        return ids

    def run(self, ids):
        """One binary run for `ids`: their outcomes by id."""
        self.runs += 1
        self.ran += len(ids)
        try:
            scenarios, _ = run_batch(self.command("run", *self.settings.run_args), ids, cwd=None)
        except BatchError as error:
            return {id: Outcome("failed", str(error)) for id in ids}
        return {id: outcome_of(scenarios[id]) for id in ids if id in scenarios}

    def pytest_terminal_summary(self, terminalreporter):
        if self.runs:
            terminalreporter.write_line(
                f"toolspec: {self.ran} scenarios in {self.runs} run(s) of {self.settings.binary}"
            )
