"""Tests that run while no other test runs, when the suite runs in parallel.

``make test`` runs the suite in pytest-xdist workers, one per core, so a
test shares the machine with whatever the other workers run. A few tests
measure wall-clock time against a bound the load of another test can break
(a crawl compared with another crawl, an SQLite lock that must be let go
within its 0.5 s timeout by threads that need the CPU): they carry the
``alone`` marker, and :func:`turn` runs each of them while every other
worker waits between two tests.

It is a readers-writer lock between the workers, on two files in the run's
temporary folder, which every worker's ``basetemp`` is a folder of: every
test holds ``alone.lock`` shared (``flock``) from its setup to its
teardown; an ``alone`` test holds it exclusively. The turnstile
(``alone.turnstile``) keeps an ``alone`` test from waiting for ever: once
it is waiting, no other test starts. Without pytest-xdist (one process) a
test is always alone and nothing is locked.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # Windows: the tests run side by side as they come
    fcntl = None  # type: ignore[assignment]

#: The marker of a test that runs alone (pyproject.toml registers it).
MARKER = "alone"


@contextlib.contextmanager
def turn(item: pytest.Item) -> Iterator[None]:
    """Hold ``item``'s turn for the ``with`` block: shared with the other
    workers' tests, or the whole machine's for an ``alone`` test."""
    workerinput = getattr(item.config, "workerinput", None)
    if workerinput is None or fcntl is None or item.config.option.basetemp is None:
        yield
        return
    folder = Path(item.config.option.basetemp).parent
    alone = item.get_closest_marker(MARKER) is not None
    turnstile_path, lock_path = folder / "alone.turnstile", folder / "alone.lock"
    with open(turnstile_path, "a") as turnstile, open(lock_path, "a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            if not alone:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            if alone:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
