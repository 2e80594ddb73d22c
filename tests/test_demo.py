"""``make demo`` stays a working crawl: it runs example_project/demo.py,
which checks its own report against the server's hit log and the
middleware's log, and exits non-zero if they disagree. Its stats say what
each counts, beside the summary line that counts origins."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[1] / "example_project"


@pytest.fixture(scope="module")
def done() -> subprocess.CompletedProcess[str]:
    """One run of the demo, as ``make demo`` runs it."""
    return subprocess.run(
        [sys.executable, "demo.py"],
        cwd=DEMO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_demo_crawls_the_local_site_and_reports_per_origin(done):
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    report = done.stdout
    assert "200: rules for group 'DemoBot'" in report
    assert "404: no robots.txt, allow all" in report
    assert "disallow /*.pdf$" in report
    assert "robotstxt/unreachable/dropped" in report


def test_demo_tells_fetches_from_origins(done):
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    summary = lines.index(
        "The middleware's summary line, one count per origin (by its last outcome):"
    )
    assert lines[summary + 1] == (
        "  robots.txt: 5 origins checked (3 with rules, 1 allow all, 1 unreachable); "
        "7 requests forbidden, 7 waited, 3 dropped"
    )
    start = lines.index("robotstxt/* stats, counts of fetches and requests:")
    stats = {}
    for line in lines[start + 1 :]:
        row = re.fullmatch(r"  (robotstxt/\S+) +(\d+)  (.*)", line)
        if row is None:
            break
        stats[row[1]] = (int(row[2]), row[3])
    assert stats["robotstxt/unreachable"] == (
        3,
        "fetches that found robots.txt unreachable (429, 5xx, errors)",
    )
    assert stats["robotstxt/disallow_all"] == (
        3,
        "unreachable fetches with no good copy: disallow all",
    )
    assert stats["robotstxt/response_status_count/503"] == (3, "... with status 503")
    assert stats["robotstxt/rules"] == (3, "fetches that found robots.txt (2xx), parsed")
    assert stats["robotstxt/allow_all"] == (1, "fetches that found no robots.txt (4xx): allow all")
    assert lines[start + 1 + len(stats) : start + 4 + len(stats)] == [
        '  (the 503 origin is "1 unreachable" in the summary and 3 in robotstxt/unreachable:',
        "   its robots.txt was fetched 3 times and was unreachable each time. robotstxt/waiting",
        "   counts the first requests of each origin and every request of the 503 origin.)",
    ]
