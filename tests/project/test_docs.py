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
import dataclasses
import importlib
import importlib.util
import os
import pkgutil
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import scrapy_robots_rfc
from scrapy_robots_rfc.cli import build_parser
from scrapy_robots_rfc.crawl._config import Config, setting_names

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
    import scrapy_robots_rfc

    if scrapy_robots_rfc.build() == "compiled":
        # autodoc and viewcode read the modules' sources, which an
        # extension module has not: make docs builds the site from the pure build.
        pytest.skip(
            "the site is built from the pure build (make docs); this run loads the compiled one"
        )
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


# -- every link of the built site leads somewhere (issue 43) ---------------------


class _Anchors(HTMLParser):
    """A page's ids (and old-style ``<a name>``) and its links."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if found.get(key):
                self.ids.add(str(found[key]))
        if tag == "a" and found.get("href") is not None:
            self.links.append(str(found["href"]))


def broken_links(site: Path) -> tuple[list[str], int]:
    """Each link of the site's HTML pages to a page of the site that does
    not exist, or to a ``#fragment`` that is no id of that page, as
    ``page -> href``; and how many links were followed. Links with a scheme
    (``https:``, ``mailto:``) leave the site and are not followed."""
    pages = {}
    for path in site.rglob("*.html"):
        parser = _Anchors()
        parser.feed(path.read_text(encoding="utf-8"))
        pages[path.resolve()] = parser
    broken = []
    followed = 0
    for path, parser in sorted(pages.items()):
        for href in parser.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc:
                continue
            followed += 1
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            where = f"{path.relative_to(site.resolve()).as_posix()} -> {href}"
            if not target.is_file() or (
                parts.fragment
                and target.suffix == ".html"
                and unquote(parts.fragment) not in pages[target].ids
            ):
                broken.append(where)
    return broken, followed


def test_every_link_of_the_site_resolves(site: Path) -> None:
    """The API page documented the package root with ``:no-index:``: the 31
    "[docs]" links of the source pages (viewcode) led to anchors that did
    not exist. Every page is checked, the source pages too."""
    broken, followed = broken_links(site)
    assert broken == []
    assert followed > 1000
    sources = [
        path
        for path in (site / "_modules").rglob("*.html")
        if 'class="viewcode-back"' in path.read_text(encoding="utf-8")
    ]
    assert len(sources) > 10  # the "[docs]" links were followed too


def test_the_link_check_finds_a_missing_page_or_anchor(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "api.html").write_text(
        '<dt id="scrapy_robots_rfc.RobotsTxt"></dt><a name="old"></a>', encoding="utf-8"
    )
    (tmp_path / "sub" / "page.html").write_text(
        '<a href="../api.html#scrapy_robots_rfc.RobotsTxt">ok</a>'
        '<a href="../api.html#old">ok</a><a href="#here">ok</a><p id="here"></p>'
        '<a href="https://example.com/missing.html#x">away</a>'
        '<a href="../api.html#scrapy_robots_rfc.Addon">[docs]</a>'
        '<a href="../gone.html">gone</a>',
        encoding="utf-8",
    )
    assert broken_links(tmp_path) == (
        [
            "sub/page.html -> ../api.html#scrapy_robots_rfc.Addon",
            "sub/page.html -> ../gone.html",
        ],
        5,
    )


def test_the_package_root_names_are_in_the_index(site: Path) -> None:
    """Every name the package root exports has one documented place: the
    API page, under its name in the package root, or the exceptions'
    module for the exceptions; the general index lists it."""
    assert ":no-index:" not in page_text("api")
    api = _Anchors()
    api.feed((site / "api.html").read_text(encoding="utf-8"))
    index = (site / "genindex.html").read_text(encoding="utf-8")
    names = [name for name in scrapy_robots_rfc.__all__ if name != "__version__"]
    assert {"RobotsTxt", "Addon", "RobotsTxtMiddleware", "product_token"} <= set(names)
    missing = []
    for name in names:
        value = getattr(scrapy_robots_rfc, name)
        is_exception = isinstance(value, type) and issubclass(value, BaseException)
        anchor = f"scrapy_robots_rfc.{'exceptions.' if is_exception else ''}{name}"
        if anchor not in api.ids or f'href="api.html#{anchor}"' not in index:
            missing.append(anchor)
    assert missing == []


# -- no token is split, no name is clipped (issue 43) ---------------------------


def _css_rules(css: str) -> list[tuple[list[str], dict[str, str]]]:
    """The stylesheet's rules: their selectors and declarations (no nesting
    but ``@media``'s, whose rules are read as if outside it)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    css = re.sub(r"@media[^{]*\{", "", css)
    rules = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        declarations = dict(
            (part.partition(":")[0].strip(), part.partition(":")[2].strip())
            for part in body.split(";")
            if ":" in part
        )
        rules.append(([s.strip() for s in selectors.split(",")], declarations))
    return rules


def _specificity(selector: str) -> tuple[int, int, int]:
    """CSS specificity of a simple selector (ids, classes and pseudo-classes,
    elements); ``:not(x)`` counts as ``x``."""
    selector = re.sub(r":not\(([^)]*)\)", r" \1", selector)
    ids = len(re.findall(r"#[\w-]+", selector))
    classes = len(re.findall(r"\.[\w-]+|\[[^]]*\]|:(?!:)[\w-]+", selector))
    elements = len(re.findall(r"(?:^|[\s>+~])([a-z][\w-]*)", selector))
    return ids, classes, elements


def test_the_specificity_of_the_selectors_used() -> None:
    assert _specificity(".rst-content p a") == (0, 1, 2)
    assert _specificity(".rst-content table.docutils td p a") == (0, 2, 4)
    assert _specificity(".rst-content table.conformance td:not(:first-child) a") == (0, 3, 3)
    assert _css_rules("/* x { a: b } */ a, b.c { color: red; overflow-wrap: normal }") == [
        (["a", "b.c"], {"color": "red", "overflow-wrap": "normal"})
    ]


def test_no_table_cell_splits_a_word(site: Path) -> None:
    """The theme lets a link in a paragraph break anywhere
    (``.rst-content p a { overflow-wrap: anywhere }``): the conformance table
    showed ``RobotsTxtMidd|leware``, ``D-|22`` and commit hashes cut in two.
    The site's stylesheet overrides it, with a more specific selector, for
    every link and literal in a table cell, and breaks no word anywhere
    else in a table; the conformance table keeps each decision and commit
    on one line."""
    theme = _css_rules((site / "_static" / "css" / "theme.css").read_text(encoding="utf-8"))
    [(theirs, _)] = [
        (selector, rule)
        for selectors, rule in theme
        for selector in selectors
        if selector == ".rst-content p a" and rule.get("overflow-wrap") == "anywhere"
    ]
    ours = _css_rules((site / "_static" / "custom.css").read_text(encoding="utf-8"))
    kept_whole = {
        selector
        for selectors, rule in ours
        for selector in selectors
        if rule.get("overflow-wrap") == "normal" and rule.get("word-break") == "keep-all"
    }
    for cell in ("td", "th"):
        link = f".rst-content table.docutils {cell} p a"
        assert link in kept_whole
        assert _specificity(link) > _specificity(theirs)
        assert f".rst-content table.docutils {cell} code.literal" in kept_whole
    splitting = [
        selector
        for selectors, rule in ours
        for selector in selectors
        if "table" in selector
        and (
            rule.get("overflow-wrap") in ("anywhere", "break-word")
            or rule.get("word-break") in ("break-all", "break-word")
            or rule.get("hyphens") == "auto"
        )
    ]
    assert splitting == []
    nowrap = [
        selector
        for selectors, rule in ours
        for selector in selectors
        if rule.get("white-space") == "nowrap"
    ]
    assert nowrap == [".rst-content table.conformance td:not(:first-child) a"]
    # The conformance table carries the class, and its decisions and commits
    # are links outside the first column.
    page = (site / "conformance.html").read_text(encoding="utf-8")
    [table] = re.findall(r'<table class="[^"]*\bconformance\b[^"]*">(.*?)</table>', page, re.S)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)[1:]
    assert len(rows) >= 8
    tokens = 0
    for row in rows:
        first, *rest = re.findall(r"<td>(.*?)</td>", row, re.S)
        assert not re.search(r">(D-\d+|[0-9a-f]{10})</a>", first)
        tokens += len(re.findall(r"<a [^>]*>(?:D-\d+|[0-9a-f]{10})</a>", "".join(rest)))
    assert tokens > 3 * len(rows)


def _nav_runs(html: str) -> list[tuple[str, bool]]:
    """The sidebar's link texts, cut where a line may break (at a space, a
    hyphen, or a ``<wbr>``), each with whether it is a literal."""
    nav = html[html.index('class="wy-menu wy-menu-vertical"') :]
    nav = nav[: nav.index("</div>")]
    runs = []
    for text in re.findall(r"<a [^>]*>(.*?)</a>", nav, re.S):
        literal = "<code" in text
        text = re.sub(r"<(?!wbr>)[^>]+>", "", text)
        runs += [(run, literal) for run in re.split(r"\s+|<wbr>|(?<=-)", text) if run]
    return runs


def test_the_sidebar_wraps_long_names(site: Path) -> None:
    """The sidebar (300 px, the rest clipped) cut ROBOTSTXT_RFC_UNREACHABLE_RETRY
    off. Names now break after an underscore or a dot (docs/_ext/navbreaks.py),
    literals in the sidebar wrap, and what is still too long wraps
    anywhere. No run of the sidebar without a place to break is longer than
    what fits at the deepest level it is shown at: 20 characters of text
    (the setting's name was 31), 28 of a literal (in a smaller, monospace
    font: the API's objects)."""
    settings = (site / "settings.html").read_text(encoding="utf-8")
    assert "ROBOTSTXT_<wbr>RFC_<wbr>UNREACHABLE_<wbr>RETRY</a>" in settings
    css = _css_rules((site / "_static" / "custom.css").read_text(encoding="utf-8"))
    [sidebar] = [rule for selectors, rule in css if ".wy-menu-vertical a code" in selectors]
    assert sidebar == {"white-space": "normal", "overflow-wrap": "anywhere"}
    long_runs = {
        page.name: [
            run
            for run, literal in _nav_runs(page.read_text(encoding="utf-8"))
            if len(run) > (28 if literal else 20)
        ]
        for page in site.glob("*.html")
        if page.name not in ("genindex.html", "search.html", "py-modindex.html")
    }
    assert {page: runs for page, runs in long_runs.items() if runs} == {}
    assert len(_nav_runs(settings)) > 40
    assert any(literal for _, literal in _nav_runs((site / "api.html").read_text("utf-8")))


def test_the_site_names_no_address_of_its_own(site: Path) -> None:
    """Nothing is published yet (issue 43): sphinx_scrapy guessed an address
    on Read the Docs for the canonical links and sitemap.xml; the site now
    names only the address its host gives the build
    (``READTHEDOCS_CANONICAL_URL``), so none in a local build, and makes no
    sitemap (which needs one)."""
    published = os.environ.get("READTHEDOCS_CANONICAL_URL")
    pages = {page.name: page.read_text(encoding="utf-8") for page in site.glob("*.html")}
    assert len(pages) > 15
    canonical = {
        name: found
        for name, html in pages.items()
        if (found := re.findall(r'<link rel="canonical" href="([^"]*)"', html))
    }
    guessed = sorted(name for name, html in pages.items() if "readthedocs.io/en/" in html)
    if published:
        assert all(link[0].startswith(published) for link in canonical.values())
    else:
        assert canonical == {}
        assert guessed == []
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert re.findall(r"^html_baseurl = (.*)$", conf, re.MULTILINE) == [
        'os.environ.get("READTHEDOCS_CANONICAL_URL", "")'
    ]


def test_the_settings_page_opens_with_its_table() -> None:
    """About 450 words of caveats stood between the settings page's title and
    its table (issue 43): the table comes first, after a few lines, and the
    checks and caveats follow it in a section of their own."""
    page = page_text("settings")
    title = page.index("\nSettings\n========\n")
    table = page.index(".. list-table::")
    words = len(re.sub(r"[:`*]", " ", page[title:table]).split())
    assert words <= 80, words
    checks = page.index("\nHow settings are checked\n------------------------\n")
    first_entry = page.index(".. setting:: ")
    assert table < checks < first_entry
    rows = re.findall(r"^   \* - :setting:`(\w+)`$", page[table:checks], re.MULTILINE)
    assert len(rows) == len(re.findall(r"^\.\. setting:: ", page, re.MULTILINE))


def test_the_performance_page_is_written_for_users() -> None:
    """The page read as an engineering journal (issue 43): 4,600 words, 12
    tables, issue numbers, commit hashes, targets met and not met, and a park
    grace of 0.2 s where the settings said 0.05. It opens with one table,
    this package beside the built-in and the peers; how each figure was
    reached is in the changelog and docs/dev/performance-history.rst."""
    page = page_text("performance")
    assert re.findall(r"\bissues? \d+|\btargets?\b|\bnot met\b|\b[0-9a-f]{7,40}\b", page) == []
    assert len(page.split()) < 2_500
    assert page.count(".. list-table::") + len(re.findall(r"^=+  +=+", page, re.M)) // 3 <= 8
    title = page.index("\nPerformance\n===========\n")
    first_table = page.index(".. list-table::")
    assert len(page[title:first_table].split()) < 80
    header = page[first_table : page.index("   * - ", page.index("   * - ", first_table) + 1)]
    for peer in ("scrapy_robots_rfc", "Scrapy's built-in", "Google's parser", "texting-robots-py"):
        assert peer in header
    assert "\n**How it was measured.**" in page
    assert (ROOT / "docs/dev/performance-history.rst").is_file()
    # the grace it states is the one in force, as the settings page states it
    [grace] = [f.default for f in dataclasses.fields(Config) if f.name == "park_after"]
    assert f":setting:`ROBOTSTXT_RFC_PARK_AFTER` ({grace:g} s)" in page
    assert f"   * - {grace:g} s (the default)\n" in page
    assert f"   * - :setting:`ROBOTSTXT_RFC_PARK_AFTER`\n     - ``{grace:g}`` s\n" in (
        page_text("settings")
    )
