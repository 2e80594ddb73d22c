"""tests/alone.py: under pytest-xdist, a test marked ``alone`` runs while no
other test runs, and the others still run side by side."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]

CONFTEST = """
import pytest
from tests import alone


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    with alone.turn(item):
        return (yield)
"""

#: Each test writes when it ran, in the worker it ran in.
TESTS = """
import json, os, time
import pytest

LOG = os.environ["ALONE_LOG"]


def spend(name):
    start = time.monotonic()
    time.sleep(0.4)
    with open(LOG, "a") as f:
        worker = os.environ["PYTEST_XDIST_WORKER"]
        f.write(json.dumps([name, worker, start, time.monotonic()]) + "\\n")


@pytest.mark.parametrize("n", range(8))
def test_side_by_side(n):
    spend(f"side-{n}")


@pytest.mark.alone
@pytest.mark.parametrize("n", range(2))
def test_alone(n):
    spend(f"alone-{n}")
"""


def test_an_alone_test_overlaps_no_other(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "conftest.py").write_text(CONFTEST)
    (project / "test_turns.py").write_text(TESTS)
    log = tmp_path / "log.jsonl"
    env = {**os.environ, "ALONE_LOG": str(log), "PYTHONPATH": str(ROOT)}
    options = ["-q", "-n", "2", "-p", "no:cacheprovider", "-o", "markers=alone"]
    options += [f"--rootdir={project}", f"--basetemp={tmp_path / 'basetemp'}"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *options, str(project)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(runs) == 10
    assert {worker for _, worker, _, _ in runs} == {"gw0", "gw1"}

    def overlap(a: list[object], b: list[object]) -> bool:
        return a[2] < b[3] and b[2] < a[3]  # type: ignore[operator]

    pairs = [(a, b) for a, b in combinations(runs, 2) if overlap(a, b)]
    assert [(a[0], b[0]) for a, b in pairs if "alone" in a[0] + b[0]] == []
    # The others did run side by side: the lock is not one at a time for all.
    assert any(a[1] != b[1] for a, b in pairs), runs
