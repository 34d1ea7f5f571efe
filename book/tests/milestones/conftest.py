"""Shared setup for the milestone tests.

Each milestone test reads only your workspace, ``checkpoints/myllm/``, and ends in one of
three ways: skipped (the session has not been started: its artifact is missing), failed (the
artifact is there but falls short, and the message says how) or passed.

The helpers live in ``milestone.py`` next to this file; this conftest only reports, once per
run, where the tests are looking.
"""

from milestone import MYLLM


def pytest_report_header(config):
    state = "found" if MYLLM.is_dir() else "not created yet"
    return f"milestones read {MYLLM} ({state})"
