"""README.rst renders without a docutils warning (its doctests, and the
docs pages', run through pytest's ``--doctest-glob``): a broken table or
literal would show on the package page as raw text. Its commands work as
written. Its first screen says what the package is, why (what changes in
a crawl), how to turn it on and the two commands (issue 38). What it checked
of the sections that moved to docs/ is in tests/project/test_docs.py."""

from __future__ import annotations

import io
import os
import re
import shlex
from pathlib import Path

import docutils.core
import pytest

from ..doc_tables import broken_rows, html_tables, simple_table_wraps

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.rst"


def _html(text: str) -> str:
    warnings = io.StringIO()
    html = docutils.core.publish_string(
        text,
        writer="html",
        settings_overrides={"warning_stream": warnings, "report_level": 2, "halt_level": 5},
    )
    assert warnings.getvalue() == ""
    return html.decode("utf-8")


def test_readme_renders_cleanly() -> None:
    html = _html(README.read_text(encoding="utf-8"))
    for section in ("Install", "Activation", "The two commands", "Documentation"):
        assert f">{section}</" in html


def test_the_readme_tables_render_one_row_per_entry() -> None:
    """As the docs' (tests/project/test_docs.py): no simple table spans a row over
    two lines, and no rendered row continues the one above."""
    readme = README.read_text(encoding="utf-8")
    assert simple_table_wraps(readme) == []
    html = _html(readme)
    assert len(html_tables(html)) >= 1
    assert broken_rows(html) == []


def test_the_first_screen_says_what_why_how_and_the_two_commands() -> None:
    """The first 55 lines, in this order (issue 43): one sentence of what,
    the table of what changes against the built-in, the install command,
    the one-line activation, ``make demo`` and ``make test`` with how long
    it takes, and the quick ``make test-unit``. (40 lines until issue 43
    put Install, ten lines, before the activation that needs it.)"""
    readme = README.read_text(encoding="utf-8")
    screen = "\n".join(readme.splitlines()[:55])
    what = screen[screen.index("=\n\n") + 3 :].split("\n\n")[0]
    assert "robots.txt" in what
    assert "RFC 9309" in what
    assert what.endswith(".")
    assert ". " not in what  # one sentence
    # why: the table, with the differences that change a crawl
    [table] = html_tables(_html(screen))
    assert table.rows[0] == ["robots.txt", "Scrapy's built-in", "scrapy_robots_rfc"]
    situations = " ".join(row[0] for row in table.rows[1:])
    for situation in ("5xx", "DNS", "fetched", "awaited", "cached", "500 KiB", "X-Robots-Tag"):
        assert situation in situations
    assert 5 <= len(table.rows) - 1 <= 8
    # install, before the activation that needs it
    install = screen.index("\n    pip install ./scrapy-robots-rfc\n")
    # how: startproject wrote the rest; one line to fill in
    activation = screen.index('\n    ADDONS = {"scrapy_robots_rfc.Addon": 100}\n')
    assert screen.index("\nInstall\n=") < install < screen.index("\nActivation\n=") < activation
    assert "``ADDONS = {}``" in screen
    assert "\n    ROBOTSTXT_OBEY" not in screen
    # the two commands, before any section on contributing, and the quick run
    demo = re.search(r"^    make demo +# ", screen, re.MULTILINE)
    test = re.search(r"^    make test +# ", screen, re.MULTILINE)
    unit = re.search(r"^    make test-unit +# .*quick", screen, re.MULTILINE)
    assert demo
    assert test
    assert unit
    assert activation < demo.start() < test.start() < unit.start()
    assert re.search(r"``make test`` takes about \d+ minutes", screen)
    assert "Contributing" not in screen


def test_the_readme_links_nothing_unpublished() -> None:
    """Nothing of this project is published yet (issue 43): the README
    names no address of its own (the docs are built from ``docs/`` with
    ``make docs``), says "this repository" and never shows a placeholder;
    its only links are to published documents (RFC 9309)."""
    readme = README.read_text(encoding="utf-8")
    links = re.findall(r'href="([^"#][^"]*)"', _html(readme))
    assert links == ["https://www.rfc-editor.org/rfc/rfc9309.html"]
    assert "readthedocs" not in readme.lower()
    assert "docs/index.rst" in readme
    assert "``make docs`` builds it into ``docs/_build/html``" in readme
    assert "this repository" in readme
    assert "<repository URL>" not in readme


def test_the_install_matrix_and_the_compiled_build_are_in_the_docs() -> None:
    """The README gives one install command and the one with its extras;
    every variant, and the compiled build, are on the quick start page."""
    readme = README.read_text(encoding="utf-8")
    quickstart = (ROOT / "docs/quickstart.rst").read_text(encoding="utf-8")
    assert len(_pip_commands(readme)) <= 2
    assert len(_pip_commands(quickstart)) >= 8
    assert "SCRAPY_ROBOTS_RFC_USE_MYPYC" not in readme
    assert "SCRAPY_ROBOTS_RFC_USE_MYPYC=1 python -m build --wheel" in quickstart
    assert "docs/quickstart.rst" in readme


def test_the_docs_front_page_shows_the_readme_table() -> None:
    """docs/index.rst includes the README's table of differences, so that
    the two front pages cannot disagree; the include's markers are in the
    README."""
    readme = README.read_text(encoding="utf-8")
    index = (ROOT / "docs/index.rst").read_text(encoding="utf-8")
    assert readme.count("\n.. why-table-start\n") == readme.count("\n.. why-table-end\n") == 1
    assert (
        f".. include:: {os.path.relpath(README, ROOT / 'docs')}\n"
        "   :start-after: .. why-table-start\n"
        "   :end-before: .. why-table-end\n"
    ) in index
    assert 'ADDONS = {"scrapy_robots_rfc.Addon": 100}' in index
    assert "make demo" in index


def test_readme_is_a_front_page() -> None:
    """README.rst fits on a screen or two (issue 23: at most ~15 KB); the
    reference lives in docs/, where tests/project/test_docs.py checks it."""
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


def test_the_install_commands_name_every_extra_for_users() -> None:
    """The README's Install names the extras a user installs; the docs give
    the commands."""
    readme = README.read_text(encoding="utf-8")
    install = readme[readme.index("\nInstall\n") :]
    install = install[: install.index("\n\n\n")]
    for extra in ("redis", "monitoring"):
        assert f"``{extra}``" in install
    commands = " ".join(
        command
        for page in ("quickstart", "monitors")
        for command in _pip_commands((ROOT / "docs" / f"{page}.rst").read_text(encoding="utf-8"))
    )
    assert "[redis]" in commands
    assert "[monitoring]" in commands


def test_the_corpus_variable_is_the_one_the_tests_read() -> None:
    readme = README.read_text(encoding="utf-8")
    conftest = (ROOT / "tests" / "conftest.py").read_text(encoding="utf-8")
    assert 'os.environ.get("ROBOTS_SHARED"' in conftest
    assert "``ROBOTS_SHARED``" in readme
    assert "corpus/robots/*.txt" in readme
    assert 'SHARED / "corpus" / "robots"' in conftest
