"""``python -m scrapy_robots_rfc``, run as a user runs it: in a subprocess,
from the checkout, with warnings as errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .jsonschemas import valid_lines

ROOT = Path(__file__).parents[1]


def run(*args: str, stdin: bytes | None = None) -> tuple[int, list[str], str]:
    """Exit status, stdout lines and stderr of the command line; with
    ``--json``, every line of stdout is first checked against the command's
    shipped schema (check.json, lint.json)."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["PYTHONIOENCODING"] = "utf-8"
    done = subprocess.run(
        [sys.executable, "-W", "error", "-m", "scrapy_robots_rfc", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        env=env,
        timeout=120,
    )
    out = done.stdout.decode().splitlines()
    if "--json" in args:
        valid_lines(args[0], out)
    return done.returncode, out, done.stderr.decode()
