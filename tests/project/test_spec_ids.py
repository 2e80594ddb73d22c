"""Every citation in the project resolves inside the project.

* A rule ID (``PATH-5``, ``HTTP-12``) cited by the package, README.rst,
  CHANGELOG.rst, the docs, the tests, the benchmarks or the demo project has
  a row in docs/spec-ids.md.
* A decision (``D-21``, ``U-4``, or a title such as ``docs/decisions.md
  "crawler name"``) has a section in docs/decisions.md, with a stable
  anchor, what the package does, its source (an RFC 9309 section, a
  passage of Google's spec, or for a T decision a section of the W3C TDM
  Reservation Protocol), why, and what ``google`` mode does.
* A document the project names is one it contains: no working document
  that stays outside the checkout and the sdist.

So a citation can be followed from a plain checkout or an unpacked sdist.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "docs" / "spec-ids.md"
DECISIONS = ROOT / "docs" / "decisions.md"
PACKAGE = ROOT / "scrapy_robots_rfc"
README = ROOT / "README.rst"
SETTINGS_PAGE = ROOT / "docs" / "settings.rst"
#: This file names the documents it looks for, so it is not scanned itself.
THIS = Path(__file__).resolve()

#: What a citation looks like: a family and a number (FMT-9, HTTP-12, D-21).
ID = re.compile(r"\b(?:[A-Z]+-\d+|D-\d+)\b")
#: A range of one family: "URL-1..4", "FMT-6..9", "HTTP-1 to HTTP-8".
RANGE = re.compile(r"\b([A-Z]+)-(\d+)\s*(?:\.\.|to)\s*(?:\1-)?(\d+)\b")
#: Words that have the shape of an ID but name no rule.
NOT_IDS = frozenset({"UTF-8", "UTF-16", "UTF-32", "ISO-8859", "SHA-1", "SHA-256", "BSD-3", "PDF-1"})
#: The families whose IDs are decisions (docs/decisions.md), not rules.
DECISION_FAMILIES = frozenset({"D", "U", "P", "T"})
#: A decision cited by its title: docs/decisions.md "crawler name" (or
#: docs/decisions.md section "..."), the title possibly wrapped.
NAMED = re.compile(r'docs/decisions\.md,?\s+(?:section\s+)?"([^"]+)"')
#: A document named by its file name: a path ending in .md or .rst.
DOCUMENT = re.compile(r"(?<![\w/.<>-])((?:\.\.?/)*[\w<>][\w./<>-]*\.(?:md|rst))\b")
#: A path into the folder beside the checkout (``$ROBOTS_SHARED``).
SHARED_PATH = re.compile(r"(?:\.\./shared|<shared>|\$ROBOTS_SHARED)/([\w./*-]+)")
#: What may be read from that folder: the real-world robots.txt corpus,
#: an optional input that tests and benchmarks skip without. Nothing else
#: there may be cited.
SHARED_ALLOWED = ("corpus/",)
#: Names of working documents that never ship, in any spelling of the path.
OUTSIDE = re.compile(r"\bDECISIONS\b|\brobots-spec\b|\bSTYLE\.md\b|\bshared/(?:spec|seeds)\b")
#: The parts every section of docs/decisions.md has.
PARTS = ("What we do.", "Source.", "Why.", "In `google` mode.")
#: A source: an RFC 9309 section, or a passage of Google's spec.
SOURCE = re.compile(r"RFC 9309 §\d|Google's spec\b")
#: The source of a T decision (TDMRep): the W3C TDM Reservation Protocol.
TDM_SOURCE = re.compile(r"W3C TDM Reservation Protocol\b")


def _text_files() -> list[Path]:
    """Every file whose citations count: the package, the docs, the tests,
    the benchmarks, the demo project, README.rst, CHANGELOG.rst and the
    files that build and check the project."""
    found = [
        *PACKAGE.rglob("*.py"),
        *(ROOT / "docs").rglob("*.md"),
        *(ROOT / "docs").rglob("*.rst"),
        *(ROOT / "tests").rglob("*.py"),
        *(ROOT / "benchmarks").rglob("*.py"),
        *(ROOT / "example_project").rglob("*.py"),
        *(ROOT / ".ci").iterdir(),
    ]
    for name in (
        "README.rst",
        "CHANGELOG.rst",
        "MANIFEST.in",
        "Makefile",
        "tox.ini",
        "setup.cfg",
        "pyproject.toml",
    ):
        found.append(ROOT / name)
    return sorted(path for path in found if path.is_file() and path.resolve() != THIS)


def _where(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def ids_in(lines: Iterable[str], where: str) -> dict[str, list[str]]:
    """Each ID cited in ``lines`` -> ``where:line`` places; ranges expand."""
    found: dict[str, list[str]] = {}
    for number, line in enumerate(lines, 1):
        ids = set(ID.findall(line))
        for family, first, last in RANGE.findall(line):
            ids.update(f"{family}-{n}" for n in range(int(first), int(last) + 1))
        for cited in ids - NOT_IDS:
            found.setdefault(cited, []).append(f"{where}:{number}")
    return found


def cited_ids() -> dict[str, list[str]]:
    """Each ID cited anywhere in the project -> ``file:line`` places."""
    found: dict[str, list[str]] = {}
    for path in _text_files():
        lines = path.read_text(encoding="utf-8").splitlines()
        for cited, places in ids_in(lines, _where(path)).items():
            found.setdefault(cited, []).extend(places)
    return found


def _unwrapped(text: str) -> str:
    """``text`` with each line break, and the indentation and comment markers
    that follow it, made one space: a citation may run over two lines."""
    return re.sub(r"\s*\n\s*(?:#:?\s*)?", " ", text)


def titles_cited(text: str) -> list[str]:
    """The decisions ``text`` cites by title."""
    return NAMED.findall(_unwrapped(text))


def outside_documents(text: str) -> list[str]:
    """What ``text`` names that the project cannot contain: a working
    document kept outside it, or a path into the folder beside the
    checkout other than the corpus."""
    found = [match.group() for match in OUTSIDE.finditer(text)]
    found += [
        f"../shared/{rest}"
        for rest in SHARED_PATH.findall(text)
        if not rest.startswith(SHARED_ALLOWED)
    ]
    return found


def missing_documents(text: str, citing: Path) -> list[str]:
    """The documents (``*.md``, ``*.rst``) ``text`` names that are neither
    at that path from the project's root nor beside ``citing``."""
    missing = []
    for name in DOCUMENT.findall(text):
        if "<" in name or "*" in name:
            continue  # a pattern such as <name>.rst, not a file
        if not ((ROOT / name).is_file() or (citing.parent / name).is_file()):
            missing.append(name)
    return missing


def _cells(line: str) -> list[str]:
    """The cells of a table line; ``\\|`` is a ``|`` inside a cell."""
    cells = line.strip().strip("|").replace("\\|", "\0").split("|")
    return [cell.replace("\0", "|").strip() for cell in cells]


def tables(path: Path = TABLE) -> list[tuple[list[str], list[list[str]]]]:
    """The tables of a Markdown file: each its header and its rows."""
    found: list[tuple[list[str], list[list[str]]]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        previous = lines[index - 1] if index else ""
        is_separator = re.fullmatch(r"\|(?:\s*:?-+:?\s*\|)+", line.strip()) is not None
        if is_separator and previous.lstrip().startswith("|"):
            rows = []
            for row in lines[index + 1 :]:
                if not row.lstrip().startswith("|"):
                    break
                rows.append(_cells(row))
            found.append((_cells(previous), rows))
    return found


def id_rows() -> list[tuple[str, list[str], list[str]]]:
    """``(ID, header, row)`` for each row of the tables of docs/spec-ids.md
    whose first column is ``ID``."""
    return [
        (row[0].strip("`*"), header, row)
        for header, rows in tables()
        if header[0] == "ID"
        for row in rows
    ]


_HEADING = re.compile(r"^(#{2,3}) (.+)$")
_ANCHOR = re.compile(r'^<a id="([^"]+)"></a>$')


def sections() -> list[tuple[str, str, str, str]]:
    """``(ID or "", title, anchor, body)`` for each ``###`` section of
    docs/decisions.md, and ``("", title, anchor, "")`` for each ``##`` one.
    The anchor is the ``<a id>`` just before the heading ("" if none)."""
    lines = DECISIONS.read_text(encoding="utf-8").splitlines()
    found: list[tuple[str, str, str, str]] = []
    for index, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading is None:
            continue
        before = [previous for previous in lines[:index] if previous.strip()]
        anchor = _ANCHOR.match(before[-1]) if before else None
        body = []
        if heading.group(1) == "###":
            for following in lines[index + 1 :]:
                if _HEADING.match(following):
                    break
                body.append(following)
        spec_id, _, title = heading.group(2).partition(" · ")
        if not title:
            spec_id, title = "", spec_id
        found.append((spec_id, title, anchor.group(1) if anchor else "", "\n".join(body)))
    return found


def decision_ids() -> list[str]:
    return [spec_id for spec_id, _, _, body in sections() if spec_id and body]


def _part(body: str, name: str) -> str:
    """The text of one part of a section, up to the next part."""
    start = body.index(f"**{name}**") + len(name) + 4
    ends = [body.find(f"**{other}**", start) for other in PARTS]
    end = min([e for e in ends if e != -1], default=len(body))
    return " ".join(body[start:end].split())


def _differing_in_table() -> set[str]:
    """The IDs of the table "Where the modes differ" in docs/decisions.md."""
    for header, rows in tables(DECISIONS):
        if header[0] == "ID":
            return {row[0] for row in rows}
    return set()


def _docs_mode_section() -> str:
    """ROBOTSTXT_RFC_MODE's entry on the settings page of the docs."""
    text = SETTINGS_PAGE.read_text(encoding="utf-8")
    start = text.index("\nROBOTSTXT_RFC_MODE\n")
    end = text.index("\nROBOTSTXT_RFC_MAX_REDIRECTS\n")
    return text[start:end]


# -- the tables and the sections are there ------------------------------------


def test_the_tables_are_there() -> None:
    assert TABLE.is_file(), f"{TABLE} is missing"
    assert len(id_rows()) > 50
    assert DECISIONS.is_file(), f"{DECISIONS} is missing"
    assert len(decision_ids()) > 25


def test_no_id_is_defined_twice_or_in_both_places() -> None:
    rows = Counter(spec_id for spec_id, _, _ in id_rows())
    twice = sorted(spec_id for spec_id, count in rows.items() if count > 1)
    assert not twice, f"defined more than once in docs/spec-ids.md: {', '.join(twice)}"
    sections_ = Counter(decision_ids())
    twice = sorted(spec_id for spec_id, count in sections_.items() if count > 1)
    assert not twice, f"more than one section in docs/decisions.md: {', '.join(twice)}"
    decisions_as_rows = sorted(
        spec_id for spec_id in rows if spec_id.split("-")[0] in DECISION_FAMILIES
    )
    assert not decisions_as_rows, (
        f"decisions with a row in docs/spec-ids.md: {', '.join(decisions_as_rows)}; "
        "a decision has its section in docs/decisions.md only"
    )
    rules_as_sections = sorted(
        spec_id for spec_id in sections_ if spec_id.split("-")[0] not in DECISION_FAMILIES
    )
    assert not rules_as_sections, f"rules with a decision section: {rules_as_sections}"


# -- every citation resolves ----------------------------------------------------


def test_every_cited_rule_has_a_row() -> None:
    defined = {spec_id for spec_id, _, _ in id_rows()}
    missing = {
        spec_id: places
        for spec_id, places in cited_ids().items()
        if spec_id.split("-")[0] not in DECISION_FAMILIES and spec_id not in defined
    }
    assert not missing, (
        "cited but not defined in docs/spec-ids.md: "
        + "; ".join(
            f"{spec_id} ({', '.join(places[:3])})" for spec_id, places in sorted(missing.items())
        )
        + ". Add a row for each (ID, rule as implemented, RFC 9309 section), or, if it is "
        "not a spec ID, add it to NOT_IDS in tests/project/test_spec_ids.py."
    )


def test_every_cited_decision_has_a_section() -> None:
    defined = set(decision_ids())
    missing = {
        spec_id: places
        for spec_id, places in cited_ids().items()
        if spec_id.split("-")[0] in DECISION_FAMILIES and spec_id not in defined
    }
    assert not missing, (
        "decisions cited but without a section in docs/decisions.md: "
        + "; ".join(
            f"{spec_id} ({', '.join(places[:3])})" for spec_id, places in sorted(missing.items())
        )
        + ". Add a section (what we do, source, why, google mode) for each."
    )


def test_every_decision_cited_by_title_has_a_section() -> None:
    titles = {title.lower() for _, title, _, _ in sections()}
    missing: dict[str, list[str]] = {}
    for path in _text_files():
        for title in titles_cited(path.read_text(encoding="utf-8")):
            if title.lower() not in titles:
                missing.setdefault(title, []).append(_where(path))
    assert not missing, (
        "decisions cited by title but with no such heading in docs/decisions.md: "
        + "; ".join(
            f'"{title}" ({", ".join(sorted(set(where)))})' for title, where in missing.items()
        )
    )


def test_no_document_outside_the_project_is_cited() -> None:
    outside = {
        _where(path): found
        for path in _text_files()
        if (found := outside_documents(path.read_text(encoding="utf-8")))
    }
    assert not outside, (
        f"cited but not part of the project: {outside}. Cite docs/decisions.md (a "
        "decision's ID) or docs/spec-ids.md (a rule's ID) instead"
    )


def test_every_document_named_is_in_the_project() -> None:
    missing = {
        _where(path): found
        for path in _text_files()
        if (found := missing_documents(path.read_text(encoding="utf-8"), path))
    }
    assert not missing, f"documents named but not in the project: {missing}"


# -- what each decision says ----------------------------------------------------


def test_every_section_has_a_stable_anchor() -> None:
    wrong = []
    for spec_id, title, anchor, _ in sections():
        expected = spec_id.lower() if spec_id else re.sub(r"[^a-z0-9]+", "-", title.lower())
        if anchor != expected.strip("-"):
            wrong.append(f"{spec_id or title}: {anchor!r}, expected {expected!r}")
    assert not wrong, f'each heading needs <a id="..."></a> before it: {wrong}'


def test_every_decision_has_its_four_parts() -> None:
    missing = [
        f"{spec_id or title}: {part}"
        for spec_id, title, _, body in sections()
        if body
        for part in PARTS
        if f"**{part}**" not in body
    ]
    assert not missing, f"sections of docs/decisions.md without a part: {missing}"


def test_every_decision_cites_rfc_9309_or_googles_spec() -> None:
    """A T decision (TDMRep) cites the W3C TDM Reservation Protocol
    instead: RFC 9309 and Google's spec do not cover it."""
    unsourced = [
        spec_id or title
        for spec_id, title, _, body in sections()
        if body
        and not (TDM_SOURCE if spec_id.startswith("T-") else SOURCE).search(_part(body, "Source."))
    ]
    assert not unsourced, (
        "decisions whose source names no RFC 9309 section or Google's spec (for a T "
        f"decision: the W3C TDM Reservation Protocol): {unsourced}"
    )
    assert {"T-1", "T-3"} <= set(decision_ids())


def test_the_table_of_modes_lists_the_decisions_whose_google_mode_differs() -> None:
    """A section's ``google`` part starts "The same" exactly when the
    decision is not in the table "Where the modes differ"."""
    differing = {
        spec_id or title
        for spec_id, title, _, body in sections()
        if body and not _part(body, "In `google` mode.").startswith("The same")
    }
    assert differing == _differing_in_table()
    assert {"D-1", "D-2", "D-3", "D-21"} <= differing


def test_the_docs_list_every_difference_between_the_modes() -> None:
    """ROBOTSTXT_RFC_MODE's entry in docs/settings.rst names the same
    decisions, and points to docs/decisions.md."""
    section = _docs_mode_section()
    assert set(ID.findall(section)) == _differing_in_table()
    assert "docs/decisions.md" in section


# -- the scan itself -----------------------------------------------------------


def test_the_scan_finds_citations() -> None:
    """Ranges expand, look-alikes are skipped, and each kind of citation
    that must fail is found."""
    assert RANGE.findall("URL-1..4, HTTP-1 to HTTP-8") == [("URL", "1", "4"), ("HTTP", "1", "8")]
    assert set(ids_in(["(U-1 to U-3; D-21, UTF-8)"], "x")) == {"U-1", "U-2", "U-3", "D-21"}
    found = cited_ids()
    assert "UTF-8" not in found
    assert {"PATH-5", "D-21", "U-6"} <= found.keys()
    assert titles_cited('see docs/decisions.md "crawler\n    #: name"') == ["crawler name"]
    decisions_md = "DECISIONS" + ".md"
    assert outside_documents(f"({decisions_md} D-21)") == ["DECISIONS"]
    assert outside_documents("the DECISIONS D-22 table") == ["DECISIONS"]
    assert outside_documents("robots-spec" + ".md §7") == ["robots-spec"]
    assert outside_documents("../shared/seeds/004_x.txt") == [
        "shared/seeds",
        "../shared/seeds/004_x.txt",
    ]
    assert outside_documents("``<shared>/corpus/robots`` (``../shared`` by default)") == []
    assert missing_documents("see docs/nothing-here.md and README.rst", README) == [
        "docs/nothing-here.md"
    ]
    assert missing_documents("docs/decisions.md, spec-ids.md", TABLE) == []
