"""Tables that render one row per entry (issue 38).

In a reStructuredText *simple* table a line with text in the first column
starts a new row, so a first-column cell written on two lines renders as
two rows, with the other columns' text split between them; a line whose
first column is blank continues the row above. Both are easy to write by
mistake, and neither shows in the source: the docs and the README use
``.. list-table::`` for any row longer than one line, and simple tables only
when every row fits on one.

Two checks, used by tests/project/test_docs.py and tests/project/test_readme.py:

* :func:`simple_table_wraps` reads the ``.rst`` source: a simple-table line
  whose first column is blank while another is not (a row continued on the
  next line), or whose only text is in its first column (a first cell
  wrapped onto a line of its own);
* :func:`broken_rows` reads the rendered HTML: a row whose first cell is
  empty while another is not, right after a row (the continuation of the row
  before, as Markdown tables and grid tables can be written), whose first
  cell is its only text, or whose first cell reads as the rest of the first
  cell above it (the wrapped first cell of a simple table). The last is a
  heuristic on the words (a cell ends on a comma or on "the", the next one
  starts with "for"...): it finds every wrapped first cell the site had
  when issue 38 was filed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from itertools import pairwise

#: A simple table's border: runs of ``=`` separated by spaces, one per column.
_BORDER = re.compile(r"^( *)(=+)((?: +=+)+) *$")


def _is_border(line: str) -> bool:
    return _BORDER.match(line) is not None


def simple_table_wraps(text: str) -> list[tuple[int, str]]:
    """The lines (1-based, with why) of the simple tables in ``text`` that
    span a row over two lines."""
    lines = text.splitlines()
    found: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        border = _BORDER.match(lines[i])
        if border is None:
            i += 1
            continue
        indent = len(border.group(1))
        second = indent + len(border.group(2))  # where the second column starts
        i += 1
        # the table ends at a border followed by a blank line (or the end)
        while i < len(lines) and not (
            _is_border(lines[i]) and (i + 1 == len(lines) or not lines[i + 1].strip())
        ):
            line = lines[i]
            if line.strip() and not _is_border(line):
                first, rest = line[indent:second].strip(), line[second:].strip()
                if not first and rest:
                    found.append((i + 1, "a row continued on the next line"))
                elif first and not rest:
                    found.append((i + 1, "a first cell wrapped onto a line of its own"))
            i += 1
        i += 1
    return found


@dataclass
class Table:
    """A ``<table class="docutils">`` of a page (not Sphinx's generated
    indexes): its rows, each a list of cell texts (whitespace collapsed),
    the first ``head`` of them in ``<thead>``."""

    rows: list[list[str]] = field(default_factory=list)
    head: int = 0


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Table] = []
        self._open: list[Table] = []  # the tables being read, innermost last
        self._in_head = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._open.append(Table())
            if "docutils" in (dict(attrs).get("class") or "").split():
                self.tables.append(self._open[-1])
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr" and self._open:
            self._open[-1].rows.append([])
            self._open[-1].head += self._in_head
        elif tag in ("td", "th") and self._open:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._open:
            self._open.pop()
        elif tag == "thead":
            self._in_head = False
        elif tag in ("td", "th") and self._cell is not None and self._open:
            self._open[-1].rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def html_tables(html: str) -> list[Table]:
    parser = _Tables()
    parser.feed(html)
    parser.close()
    return parser.tables


#: Words a first cell does not end with, nor the next row's start with,
#: unless the cell goes on: "Another middleware refuses the" / "robots.txt
#: request", "``user-agent: googlebot`` for" / "crawler ``googlebot-image``",
#: "none: another downloader" / "middleware raised..." / "for the robots.txt
#: request" (the issue's rows).
_ENDS_OPEN = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "for",
        "to",
        "with",
        "and",
        "or",
        "than",
        "on",
        "in",
        "by",
        "from",
        "as",
        "at",
        "into",
        "per",
        "between",
    ]
)
_STARTS_OPEN = _ENDS_OPEN - {"a", "an", "the"}


def _goes_on(before: str, cell: str) -> bool:
    """Whether first cell ``cell`` reads as the rest of ``before``, the first
    cell of the row above: ``before`` ends on a comma, an open parenthesis or
    a word that needs more; or ``cell`` closes a parenthesis it did not open,
    starts with one, or starts with a word that joins it to something."""
    if not before or not cell:
        return False
    words_before, words = before.lower().split(), cell.lower().split()
    return (
        before.endswith(",")
        or before.count("(") > before.count(")")
        or words_before[-1] in _ENDS_OPEN
        or cell.count(")") > cell.count("(")
        or cell.startswith("(")
        or words[0] in _STARTS_OPEN
    )


def broken_rows(html: str) -> list[str]:
    """The rows of ``html``'s tables that continue the row before them, each
    as ``"previous row -> this row"``: a row whose first cell is empty while
    another is not; a row whose first cell is its only text; a row whose
    first cell reads as the rest of the one above (:func:`_goes_on`)."""
    found: list[str] = []
    for table in html_tables(html):
        pairs = pairwise(table.rows)
        for index, (before, row) in enumerate(pairs, start=1):
            if len(row) < 2 or not before or index == table.head:
                continue  # the header's last row, then the first entry
            first, rest = row[0], [cell for cell in row[1:] if cell]
            if (not first and rest) or (first and not rest) or _goes_on(before[0], first):
                found.append(f"{' | '.join(before)} -> {' | '.join(row)}")
    return found
