"""README.rst renders without a docutils warning (its doctests, and the
docs pages', run through pytest's ``--doctest-glob``): a broken table or
literal would show on the package page as raw text. Its commands work as
written. What it checked of the sections that moved to docs/ is in
tests/test_docs.py."""

from __future__ import annotations

import io
import re
import shlex
from pathlib import Path

import docutils.core
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.rst"


def test_readme_renders_cleanly() -> None:
    warnings = io.StringIO()
    html = docutils.core.publish_string(
        README.read_text(encoding="utf-8"),
        writer="html",
        settings_overrides={"warning_stream": warnings, "report_level": 2, "halt_level": 5},
    )
    assert warnings.getvalue() == ""
    for section in (b"Install", b"Activation", b"The two commands", b"Documentation"):
        assert section in html


def test_readme_is_a_front_page() -> None:
    """README.rst fits on a screen or two (issue 23: at most ~15 KB); the
    reference lives in docs/, where tests/test_docs.py checks it."""
    size = README.stat().st_size
    assert size <= 15_000, f"README.rst is {size} bytes"
    readme = README.read_text(encoding="utf-8")
    assert 'ADDONS = {"scrapy_robots_rfc.Addon": 100}' in readme
    assert "make docs" in readme
    assert "docs/index.rst" in readme


def test_changelog_renders_cleanly() -> None:
    warnings = io.StringIO()
    html = docutils.core.publish_string(
        (ROOT / "CHANGELOG.rst").read_text(encoding="utf-8"),
        writer="html",
        settings_overrides={"warning_stream": warnings, "report_level": 2, "halt_level": 5},
    )
    assert warnings.getvalue() == ""
    assert b"Unreleased" in html


def _pip_commands(text: str) -> list[str]:
    return re.findall(r"pip install [^`\n]*", text)


def _unquoted_extras(commands: list[str]) -> list[str]:
    return [
        command
        for command in commands
        for word in shlex.split(command, comments=True, posix=False)
        if "[" in word and word[0] not in "'\""
    ]


@pytest.mark.parametrize(
    "path",
    [README, *sorted((ROOT / "docs").glob("*.rst")), *sorted((ROOT / "docs").glob("*.md"))],
    ids=lambda path: path.relative_to(ROOT).as_posix(),
)
def test_pip_commands_quote_their_extras(path: Path) -> None:
    """Unquoted, ``name[extra]`` is a file pattern to zsh, which stops with
    "no matches found"; quoted, every shell passes it to pip as written. The
    README and every page of the docs (the install matrix is in
    docs/quickstart.rst, the ``monitoring`` extra in docs/monitors.rst)."""
    assert _unquoted_extras(_pip_commands(path.read_text(encoding="utf-8"))) == []


def test_the_pip_check_finds_an_unquoted_extra() -> None:
    commands = _pip_commands(
        "    pip install scrapy-robots-rfc[monitoring]\n"
        "    pip install 'scrapy-robots-rfc[redis]'  # a [comment]\n"
        "``pip install -e '.[bench]'``"
    )
    assert len(commands) == 3
    assert _unquoted_extras(commands) == ["pip install scrapy-robots-rfc[monitoring]"]


def test_the_corpus_variable_is_the_one_the_tests_read() -> None:
    readme = README.read_text(encoding="utf-8")
    conftest = (ROOT / "tests" / "conftest.py").read_text(encoding="utf-8")
    assert 'os.environ.get("ROBOTS_SHARED"' in conftest
    assert "``ROBOTS_SHARED``" in readme
    assert "corpus/robots/*.txt" in readme
    assert 'SHARED / "corpus" / "robots"' in conftest
