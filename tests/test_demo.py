"""``make demo`` stays a working crawl: it runs example_project/demo.py,
which checks its own report against the server's hit log and the
middleware's log, and exits non-zero if they disagree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DEMO = Path(__file__).resolve().parents[1] / "example_project"


def test_demo_crawls_the_local_site_and_reports_per_origin():
    done = subprocess.run(
        [sys.executable, "demo.py"],
        cwd=DEMO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    report = done.stdout
    assert "200: rules for group 'DemoBot'" in report
    assert "404: no robots.txt, allow all" in report
    assert "disallow /*.pdf$" in report
    assert "robotstxt/unreachable/dropped" in report
