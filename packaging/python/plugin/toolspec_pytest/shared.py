"""One binary run for a whole xdist session, shared by its workers.

Every xdist worker collects the same items and deselects the same ones, so each
knows the whole selection. The controller makes a folder before the workers start
and names it in their environment; the first worker to need an outcome takes a lock
there, runs the binary for the whole selection and writes every outcome down; the
others wait for the lock and read them. The controller removes the folder at the
end. Without xdist, or in a worker of a controller without the plugin, nothing is
shared and the worker runs its own selection.
"""

import fcntl
import json
import os
import shutil
import tempfile
from pathlib import Path

from .outcome import Outcome

SHARED_FOLDER = "TOOLSPEC_PYTEST_SHARED"


def share_with_workers(config):
    """In an xdist controller: the folder the workers will share, removed at exit."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    folder = tempfile.mkdtemp(prefix="toolspec-pytest-")
    os.environ[SHARED_FOLDER] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    config.add_cleanup(lambda: os.environ.pop(SHARED_FOLDER, None))


class SharedOutcomes:
    """The outcomes file of one test run (xdist's testrunuid) in the shared folder."""

    def __init__(self, folder):
        self.folder = folder

    @classmethod
    def of(cls, config):
        workerinput = getattr(config, "workerinput", None)
        shared = os.environ.get(SHARED_FOLDER)
        if workerinput is None or not shared:
            return None
        return cls(Path(shared) / workerinput["testrunuid"])

    def get_or_make(self, ids, run):
        """The outcomes of `ids`: read if another worker ran them, else from
        `run(ids)`, written down for the others."""
        self.folder.mkdir(parents=True, exist_ok=True)
        written = self.folder / "outcomes.json"
        with open(self.folder / "lock", "w", encoding="utf-8") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if written.exists():
                with open(written, encoding="utf-8") as read:
                    stored = json.load(read)
                outcomes = {id: Outcome(*pair) for id, pair in stored.items()}
                if all(id in outcomes for id in ids):
                    return outcomes
            outcomes = run(ids)
            with open(written, "w", encoding="utf-8") as out:
                json.dump({id: [o.kind, o.text] for id, o in outcomes.items()}, out)
            return outcomes
