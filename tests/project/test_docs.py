"""The documentation site (docs/, ``make docs``) documents everything the
package defines that a user meets: every setting, every stat the code can
set (the unbounded families as families), every ``Request.meta`` key,
every signal it sends, every command and every exception. The lists come
from the code, so a new name without its documentation fails here.

The checks that README.rst made of sections now in the docs moved here too.

The built site (docs/_build/html, which ``make docs`` builds before it runs
these tests) renders every table one row per entry (tests/doc_tables.py),
with cells that wrap, and no page repeats its title as a heading.
"""

from __future__ import annotations

import argparse
import configparser
import importlib
import importlib.util
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import scrapy_robots_rfc
from scrapy_robots_rfc.cli import build_parser
from scrapy_robots_rfc.crawl._config import setting_names

from ..doc_tables import broken_rows, html_tables, simple_table_wraps

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PACKAGE = ROOT / "scrapy_robots_rfc"

#: A stat key in the code: a string literal, or the literal start of an
#: f-string (``f"robotstxt/page/{kind}"``).
STAT_LITERAL = re.compile(r'(?<![\w])(f?)"(robotstxt/[\w/]*)(\{?)')
#: Families of stats without a bound: one key per value the web returns.
UNBOUNDED = {"robotstxt/response_status_count/": "<N>", "robotstxt/exception_count/": "<class>"}
#: A meta key of this package: public ones and the private ``_robotstxt_rfc_`` ones.
META_KEY = re.compile(r'"((?:_robotstxt_rfc|robotstxt|dont_obey)_[a-z_]+)"')
#: Response flags that look like meta keys.
NOT_META = frozenset({"robotstxt_fetch"})
#: A signal the package sends.
SENT_SIGNAL = re.compile(r"send_catch_log(?:_async)?\(\s*signal=(\w+)")


def page_text(name: str) -> str:
    """One page of the site, by its name in the toctree."""
    return (DOCS / f"{name}.rst").read_text(encoding="utf-8")


def docs_text() -> str:
    """Every page of the site, reStructuredText and Markdown."""
    pages = sorted([*DOCS.glob("*.rst"), *DOCS.glob("*.md")])
    assert len(pages) > 15
    return "\n".join(page.read_text(encoding="utf-8") for page in pages)


def _sources() -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py")}


def code_stats(sources: dict[Path, str]) -> tuple[set[str], set[str]]:
    """The stat keys the code names whole, and the prefixes of those it
    builds (f-strings)."""
    whole: set[str] = set()
    prefixes: set[str] = set()
    for text in sources.values():
        for is_f, key, brace in STAT_LITERAL.findall(text):
            if (is_f and brace) or key.endswith("/"):
                prefixes.add(key)
            else:
                whole.add(key)
    return whole, prefixes


def missing_stats(docs: str, whole: set[str], prefixes: set[str]) -> list[str]:
    missing = [key for key in whole if f"``{key}``" not in docs]
    for prefix in prefixes:
        if prefix in UNBOUNDED:
            family = prefix + UNBOUNDED[prefix]
            if f"``{family}``" not in docs:
                missing.append(family)
        elif not re.search(rf"``{re.escape(prefix)}\w+``", docs):
            missing.append(prefix + "...")
    return sorted(missing)


def code_meta_keys(sources: dict[Path, str]) -> set[str]:
    return {key for text in sources.values() for key in META_KEY.findall(text)} - NOT_META


def code_signals(sources: dict[Path, str]) -> set[str]:
    return {name for text in sources.values() for name in SENT_SIGNAL.findall(text)}


def code_commands() -> set[str]:
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg", encoding="utf-8")
    scrapy_commands = {
        line.partition("=")[0].strip()
        for line in setup["options.entry_points"]["scrapy.commands"].splitlines()
        if line.strip()
    }
    subparsers = [
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    ]
    return scrapy_commands | {name for action in subparsers for name in action.choices}


def code_exceptions() -> set[str]:
    """Every exception class a public module of the package exports."""
    found: set[str] = set()
    for info in pkgutil.walk_packages(scrapy_robots_rfc.__path__, "scrapy_robots_rfc."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        if info.name.startswith("scrapy_robots_rfc.fleet"):
            continue  # loaded by name on scrapy-redis only
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, BaseException):
                found.add(value.__name__)
    return found


# -- what the code defines is in the docs ----------------------------------


def test_every_setting_is_documented() -> None:
    docs = docs_text()
    names = set(setting_names().values())
    assert len(names) > 15
    ours = {name for name in names if name.startswith("ROBOTSTXT_RFC_")}
    assert sorted(name for name in ours if f".. setting:: {name}\n" not in docs) == []
    assert sorted(name for name in ours if f":setting:`{name}`" not in docs) == []
    assert sorted(name for name in names - ours if f"``{name}``" not in docs) == []


def test_every_stat_is_documented() -> None:
    whole, prefixes = code_stats(_sources())
    assert {"robotstxt/forbidden", "robotstxt/waiting/held"} <= whole
    assert set(UNBOUNDED) <= prefixes
    assert missing_stats(docs_text(), whole, prefixes) == []


def test_the_unbounded_families_say_so() -> None:
    docs = docs_text()
    assert re.search(r"families\s+without\s+a\s+bound", docs)


def test_every_meta_key_is_documented() -> None:
    keys = code_meta_keys(_sources())
    assert {"dont_obey_robotstxt", "robotstxt_usage", "_robotstxt_rfc_hold"} <= keys
    docs = docs_text()
    assert sorted(key for key in keys if f"``{key}``" not in docs) == []
    public = {key for key in keys if not key.startswith("_")}
    assert sorted(key for key in public if f".. reqmeta:: {key}\n" not in docs) == []


def test_every_signal_is_documented() -> None:
    signals = code_signals(_sources())
    assert signals == {"robots_parsed"}
    docs = docs_text()
    assert sorted(name for name in signals if f".. signal:: {name}\n" not in docs) == []


def test_every_command_is_documented() -> None:
    commands = code_commands()
    assert commands == {"robots", "check", "lint"}
    docs = docs_text()
    assert sorted(name for name in commands if f".. command:: {name}\n" not in docs) == []
    # the help texts are rendered from the parsers themselves
    assert ".. cli-help:: scrapy robots" in docs
    assert ".. cli-help:: check" in docs
    assert ".. cli-help:: lint" in docs


def test_every_exception_is_documented() -> None:
    exceptions = code_exceptions()
    assert {"ForbiddenByRobotsTxt", "RobotsTxtUnreachable", "ConfigError", "StoreError"} <= (
        exceptions
    )
    docs = docs_text()
    assert sorted(name for name in exceptions if name not in docs) == []


# -- the checks fail when a name is missing ----------------------------------


def test_a_missing_name_is_found() -> None:
    """Each comparison names what the docs lack, rather than passing."""
    whole, prefixes = code_stats(
        {
            Path("x.py"): 'inc("robotstxt/new_thing"); inc(f"robotstxt/kind/{k}")\n'
            'inc(f"robotstxt/response_status_count/{s}")'
        }
    )
    assert whole == {"robotstxt/new_thing"}
    assert prefixes == {"robotstxt/kind/", "robotstxt/response_status_count/"}
    assert missing_stats("``robotstxt/kind/a``", whole, prefixes) == [
        "robotstxt/new_thing",
        "robotstxt/response_status_count/<N>",
    ]
    assert missing_stats(
        "``robotstxt/new_thing`` ``robotstxt/response_status_count/<N>``", whole, prefixes
    ) == ["robotstxt/kind/..."]
    assert code_meta_keys({Path("x.py"): 'meta["_robotstxt_rfc_new"] = meta["other"]'}) == {
        "_robotstxt_rfc_new"
    }
    assert code_signals({Path("x.py"): "send_catch_log_async(signal=thing, a=1)"}) == {"thing"}


@pytest.mark.parametrize(
    "page",
    [
        "index",
        "quickstart",
        "activation",
        "how-it-works",
        "settings",
        "reference",
        "verdicts",
        "stores",
        "fleets",
        "usage",
        "page-rules",
        "parser",
        "performance",
        "cli",
        "api",
        "changelog",
        "monitors",
        "contributing",
    ],
)
def test_every_page_is_in_the_toctree(page: str) -> None:
    assert (DOCS / f"{page}.rst").is_file()
    index = page_text("index")
    assert re.search(rf"^   {re.escape(page)}$", index, re.MULTILINE) or page == "index"


def test_the_decisions_are_in_the_site() -> None:
    index = page_text("index")
    assert re.search(r"^   decisions$", index, re.MULTILINE)
    assert re.search(r"^   spec-ids$", index, re.MULTILINE)
    # The path of the include, from docs/ where the page is.
    assert os.path.relpath(ROOT / "CHANGELOG.rst", DOCS) in page_text("changelog")


# -- moved from tests/project/test_readme.py with the sections they read -------------


def test_migration_is_documented() -> None:
    """README.rst had "Migrating from the built-in"; the page of activation
    and migration has it now, with the differences from the built-in."""
    page = page_text("activation")
    assert "\nMigrating from the built-in\n" in page
    assert "\nDifferences from Scrapy's built-in\n" in page


# -- tables render one row per entry (issue 38) -------------------------------


def _pages() -> list[Path]:
    return sorted([*DOCS.glob("*.rst"), *DOCS.glob("*.md")])


@pytest.mark.parametrize("page", [path.name for path in sorted(DOCS.glob("*.rst"))])
def test_no_simple_table_spans_a_row_over_two_lines(page: str) -> None:
    """A first cell written on two lines renders as two rows: tables whose
    rows need more than one line are list-tables (tests/doc_tables.py)."""
    assert simple_table_wraps((DOCS / page).read_text(encoding="utf-8")) == []


def test_the_source_check_finds_a_wrapped_row() -> None:
    table = (
        "=====  ===========\n"
        "key    what\n"
        "=====  ===========\n"
        "a      one line\n"
        "b, c,  the first\n"
        "d      cell wrapped\n"
        "e      a row\n"
        "       continued\n"
        "f, g,\n"
        "h      a first cell alone\n"
        "=====  ===========\n"
    )
    assert simple_table_wraps("Text.\n\n" + table + "\nMore.\n") == [
        (10, "a row continued on the next line"),
        (11, "a first cell wrapped onto a line of its own"),
    ]
    assert simple_table_wraps(table.replace("       continued\n", "").replace("f, g,\n", "")) == []


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site ``make docs`` built (docs/_build/html) if every page of it is
    newer than its source; otherwise a build of its own, in a temporary
    folder, with the docs extra's Sphinx, without which there is no site."""
    built = DOCS / "_build" / "html"
    fresh = all(
        (built / page.with_suffix(".html").name).is_file()
        and (built / page.with_suffix(".html").name).stat().st_mtime >= page.stat().st_mtime
        for page in _pages()
    )
    if fresh:
        return built
    if importlib.util.find_spec("sphinx") is None:
        pytest.skip("no built site and no Sphinx (the docs extra): `make docs` runs this test")
    out = tmp_path_factory.mktemp("html")
    subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(DOCS), str(out)],
        check=True,
        capture_output=True,
    )
    return out


def test_every_table_of_the_site_renders_one_row_per_entry(site: Path) -> None:
    """The built HTML: no row whose first cell is empty right after a row,
    or whose first cell is its only text (the rest of the row before)."""
    pages = [site / page.with_suffix(".html").name for page in _pages()]
    tables = {page.name: html_tables(page.read_text(encoding="utf-8")) for page in pages}
    assert sum(len(found) for found in tables.values()) > 30
    assert len(tables["how-it-works.html"][0].rows) > 5  # the status table
    broken = {
        page.name: rows for page in pages if (rows := broken_rows(page.read_text(encoding="utf-8")))
    }
    assert broken == {}


def _table(*rows: tuple[str, ...], head: int = 1, cls: str = "docutils") -> str:
    cells = ["".join(f"<td>{cell}</td>" for cell in row) for row in rows]
    return (
        f"<table class='{cls}'><thead>{''.join(f'<tr>{row}</tr>' for row in cells[:head])}"
        f"</thead><tbody>{''.join(f'<tr>{row}</tr>' for row in cells[head:])}</tbody></table>"
    )


@pytest.mark.parametrize(
    ("before", "row"),
    [
        # the rows, as simple tables with a wrapped first cell rendered them
        (
            ("429, 5xx, DNS failure, timeout,", "unreachable: Requests wait"),
            ("connection reset, truncated body", "while robots.txt is fetched"),
        ),
        (
            ("middleware raised IgnoreRequest", "everything is allowed; no retry"),
            ("for the robots.txt request", "loop; one WARNING per origin"),
        ),
        (
            ("Another middleware refuses the", "allow all, one WARNING per origin,"),
            ("robots.txt request (IgnoreRequest)", "robotstxt/refused"),
        ),
        (("redirects given up on (a loop, too", "downloaded"), ("many, no Location)", "it would")),
        (("a header, Mozilla/5.0", "the ExampleBot"), ("(compatible; ExampleBot/1.0)", "line")),
        (("Several crawlers on one scrapy-redis", "each fetches"), ("queue", "")),
        # a Markdown or grid table's row continued with an empty first cell
        (("D-1", "robots.txt is"), ("", "always allowed")),
    ],
)
def test_the_html_check_finds_a_continued_row(
    before: tuple[str, str], row: tuple[str, str]
) -> None:
    html = _table(("key", "what"), ("2xx", "parsed"), before, row, ("4xx", "allowed"))
    assert broken_rows(html) == [f"{' | '.join(before)} -> {' | '.join(row)}"]


def test_the_html_check_passes_whole_rows() -> None:
    rows = [("key", "what"), ("with usage preferences", "74.79 ms"), ("a 2xx", "the response")]
    assert broken_rows(_table(*rows)) == []  # the header's last row is no entry's start
    assert broken_rows(_table(*rows, head=0)) == ["key | what -> with usage preferences | 74.79 ms"]
    # Sphinx's generated indexes are not the pages' tables
    assert broken_rows(_table(("s", ""), ("", "scrapy_robots_rfc"), cls="indextable")) == []


def test_table_cells_wrap_instead_of_clipping(site: Path) -> None:
    """sphinx_rtd_theme keeps each cell on one line (``white-space: nowrap``)
    and scrolls wide tables sideways; the site's stylesheet lets them wrap."""
    page = (site / "settings.html").read_text(encoding="utf-8")
    assert re.search(r'<link rel="stylesheet"[^>]* href="_static/custom\.css', page)
    css = (site / "_static" / "custom.css").read_text(encoding="utf-8")
    rule = re.search(
        r"\.wy-table-responsive table td,\s*\.wy-table-responsive table th\s*\{([^}]*)\}", css
    )
    assert rule is not None
    assert re.search(r"white-space:\s*normal", rule.group(1))


def _headings(html: str) -> list[tuple[int, str]]:
    """The page's headings: level and text, without the permalink."""
    html = re.sub(r'<a class="headerlink".*?</a>', "", html, flags=re.DOTALL)
    return [
        (int(level), " ".join(re.sub(r"<[^>]+>", "", text).split()))
        for level, text in re.findall(r"<h([1-6])>(.*?)</h\1>", html, re.DOTALL)
    ]


def test_no_heading_repeats_its_page_title(site: Path) -> None:
    """The quick start page had an H1 "Quick start" and an H2 "Quick start"."""
    repeated = {}
    for page in _pages():
        headings = _headings((site / page.with_suffix(".html").name).read_text(encoding="utf-8"))
        (level, title), rest = headings[0], headings[1:]
        assert level == 1, (page.name, headings)
        if again := [heading for heading in rest if heading[1] == title]:
            repeated[page.name] = again
    assert repeated == {}
    quickstart = _headings((site / "quickstart.html").read_text(encoding="utf-8"))
    assert quickstart[:3] == [(1, "Quick start"), (2, "Requirements"), (2, "First crawl")]
