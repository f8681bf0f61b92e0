"""pytest plugin of toolspec: every scenario of a suite is a pytest item.

Installed with the ``toolspec-cli`` wheel and loaded through its ``pytest11`` entry
point; it does nothing unless a ``--toolspec-*`` option (or a ``toolspec_*`` ini
key) asks for scenarios. See docs/test-runners.md in the toolspec repository.
"""
