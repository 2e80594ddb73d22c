"""README.rst renders without a docutils warning (its doctests run through
pytest's ``--doctest-glob``): a broken table or literal would show on the
package page as raw text."""

from __future__ import annotations

import io
from pathlib import Path

import docutils.core

README = Path(__file__).resolve().parents[1] / "README.rst"


def test_readme_renders_cleanly() -> None:
    warnings = io.StringIO()
    html = docutils.core.publish_string(
        README.read_text(encoding="utf-8"),
        writer="html",
        settings_overrides={"warning_stream": warnings, "report_level": 2, "halt_level": 5},
    )
    assert warnings.getvalue() == ""
    assert b"Migrating from the built-in" in html
