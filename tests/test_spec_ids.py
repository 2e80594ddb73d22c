"""Every spec ID the package or README.rst cites (``PATH-5``, ``D-21``...) is
defined in docs/spec-ids.md, so that a citation can be followed from a
plain checkout. The working documents the IDs were first numbered in do
not ship with the package; docs/spec-ids.md does."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "spec-ids.md"
PACKAGE = ROOT / "scrapy_robots_rfc"
README = ROOT / "README.rst"

#: What a citation looks like: a family and a number (FMT-9, HTTP-12, D-21).
ID = re.compile(r"\b(?:[A-Z]+-\d+|D-\d+)\b")
#: A range of one family: "URL-1..4", "FMT-6..9", "HTTP-1 to HTTP-8".
RANGE = re.compile(r"\b([A-Z]+)-(\d+)\s*(?:\.\.|to)\s*(?:\1-)?(\d+)\b")
#: Words that have the shape of an ID but name no rule.
NOT_IDS = frozenset({"UTF-8", "UTF-16", "UTF-32", "ISO-8859", "SHA-1", "SHA-256"})
#: A DECISIONS.md section cited by its name: DECISIONS.md "crawler name".
NAMED = re.compile(r'DECISIONS(?:\.md)?,? "([^"]+)"')


def _sources() -> list[Path]:
    return [*sorted(PACKAGE.rglob("*.py")), README]


def cited_ids() -> dict[str, list[str]]:
    """Each ID cited by the package or README.rst -> ``file:line`` places."""
    found: dict[str, list[str]] = {}
    for path in _sources():
        where = path.relative_to(ROOT)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            ids = set(ID.findall(line))
            for family, first, last in RANGE.findall(line):
                ids.update(f"{family}-{n}" for n in range(int(first), int(last) + 1))
            for cited in ids - NOT_IDS:
                found.setdefault(cited, []).append(f"{where}:{number}")
    return found


def cited_sections() -> dict[str, list[str]]:
    """Each DECISIONS.md section cited by name -> the files citing it.

    A citation may run over two lines of a comment or docstring, so the
    line breaks and the comment markers that follow them are taken out
    first."""
    found: dict[str, list[str]] = {}
    for path in _sources():
        text = re.sub(r"\s*\n\s*(?:#:?\s*)?", " ", path.read_text(encoding="utf-8"))
        for name in NAMED.findall(text):
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def _cells(line: str) -> list[str]:
    """The cells of a table line; ``\\|`` is a ``|`` inside a cell."""
    cells = line.strip().strip("|").replace("\\|", "\0").split("|")
    return [cell.replace("\0", "|").strip() for cell in cells]


def tables() -> list[tuple[list[str], list[list[str]]]]:
    """The tables of docs/spec-ids.md: each its header and its rows."""
    found: list[tuple[list[str], list[list[str]]]] = []
    lines = TABLE.read_text(encoding="utf-8").splitlines()
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
    """``(ID, header, row)`` for each row of the tables whose first column is ``ID``."""
    return [
        (row[0].strip("`*"), header, row)
        for header, rows in tables()
        if header[0] == "ID"
        for row in rows
    ]


def defined_sections() -> set[str]:
    return {
        row[0].strip('`*"')
        for header, rows in tables()
        if header[0].startswith("DECISIONS.md")
        for row in rows
    }


def test_the_table_is_there() -> None:
    assert TABLE.is_file(), f"{TABLE} is missing"
    assert len(id_rows()) > 50


def test_every_cited_id_is_defined() -> None:
    defined = {spec_id for spec_id, _, _ in id_rows()}
    missing = {spec_id: places for spec_id, places in cited_ids().items() if spec_id not in defined}
    assert not missing, (
        "cited but not defined in docs/spec-ids.md: "
        + "; ".join(
            f"{spec_id} ({', '.join(places[:3])})" for spec_id, places in sorted(missing.items())
        )
        + ". Add a row for each (ID, rule as implemented, RFC 9309 section), or, if it is "
        "not a spec ID, add it to NOT_IDS in tests/test_spec_ids.py."
    )


def test_every_cited_decisions_section_is_defined() -> None:
    defined = {name.lower() for name in defined_sections()}
    missing = {
        name: files for name, files in cited_sections().items() if name.lower() not in defined
    }
    assert not missing, (
        "DECISIONS.md sections cited by name but not in docs/spec-ids.md: "
        + "; ".join(
            f'"{name}" ({", ".join(sorted(set(files)))})' for name, files in missing.items()
        )
    )


def test_no_id_is_defined_twice() -> None:
    counts = Counter(spec_id for spec_id, _, _ in id_rows())
    twice = sorted(spec_id for spec_id, count in counts.items() if count > 1)
    assert not twice, f"defined more than once in docs/spec-ids.md: {', '.join(twice)}"


def test_every_row_names_its_rfc_section() -> None:
    column = "RFC 9309"
    empty = []
    for spec_id, header, row in id_rows():
        assert column in header, f"the table of {spec_id} has no {column!r} column: {header}"
        assert len(row) == len(header), f"{spec_id}: {len(row)} cells for {len(header)} columns"
        if row[header.index(column)] in ("", "-"):
            empty.append(spec_id)
    assert not empty, (
        f"rows without an RFC 9309 section (write the section, or 'not in RFC 9309' / "
        f"'Google only'): {', '.join(empty)}"
    )


def test_the_id_pattern_finds_citations() -> None:
    """The scan itself works: ranges expand and look-alikes are skipped."""
    assert RANGE.findall("URL-1..4, HTTP-1 to HTTP-8") == [("URL", "1", "4"), ("HTTP", "1", "8")]
    found = cited_ids()
    assert "UTF-8" not in found
    assert {"PATH-5", "D-21"} <= found.keys()
