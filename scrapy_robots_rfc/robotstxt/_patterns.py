"""An allow or disallow rule and how one pattern matches a path (RFC 9309
§2.2.2, §2.2.3; PATH-1 to PATH-3, PATH-11): what the matcher, the rule tree
and the usage lines all match with, and the form the matcher's scan and the
rule tree's nodes try a pattern in (:func:`scan_form`). Pure Python, no
Scrapy import.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple


class Rule(NamedTuple):
    """An allow or disallow rule as it is matched (immutable; a named tuple,
    which a parse creates three times faster than a frozen dataclass).

    ``pattern`` is the escaped (``google``) or canonical (``rfc``) form;
    ``line`` is the 1-based line of the file, counted as robots.cc counts
    (CR, LF and CRLF each end one line). ``index_of`` is set on the
    ``<dir>/$`` rule derived from an ``Allow: <dir>/index.htm...`` line
    (PATH-9) and holds the pattern it came from.
    """

    allow: bool
    pattern: str
    line: int
    index_of: str | None = None

    @property
    def kind(self) -> str:
        return "allow" if self.allow else "disallow"

    @property
    def priority(self) -> int:
        """Octets of the pattern, wildcards and ``$`` included (PATH-5)."""
        return len(self.pattern)

    def matches(self, path: str) -> bool:
        """Whether the pattern matches the match string ``path`` (PATH-1..3)."""
        return pattern_matches(self.pattern, path)

    def __str__(self) -> str:
        text = f"{self.kind}: {self.pattern} (line {self.line})"
        if self.index_of is not None:
            text += f", derived from allow: {self.index_of}"
        return text


class CrawlDelay(NamedTuple):
    """A ``crawl-delay`` line and the user-agent lines it belongs to: the
    run of them directly above it (D-17; OTHER-2). ``seconds`` is its
    value, ``line`` its line number, counted as :class:`Rule` counts."""

    agents: tuple[str, ...]
    seconds: float
    line: int

    def __str__(self) -> str:
        agents = ", ".join(repr(agent) for agent in self.agents)
        return f"crawl-delay: {self.seconds:g} (line {self.line}, for {agents})"


def pattern_matches(pattern: str, path: str) -> bool:
    """Whether the robots.txt ``pattern`` (as :func:`escape_pattern` gives
    it) matches the match string ``path``, without compiling anything.

    >>> pattern_matches("/*.gif$", "/img/a.gif")
    True
    >>> pattern_matches("/*.gif$", "/img/a.gif?x")
    False

    ``*`` matches any run of octets, ``/`` included (PATH-2); a final ``$``
    anchors the end (PATH-3). The literal segments between ``*`` are found
    left to right, each at its leftmost place, which is exact for patterns
    whose only wildcard is ``*``: no backtracking, one ``str.find`` per
    segment (PATH-11).
    """
    anchored = pattern.endswith("$")
    if anchored:
        pattern = pattern[:-1]
    if "*" not in pattern:
        return path == pattern if anchored else path.startswith(pattern)
    first, *middle, last = pattern.split("*")
    return path.startswith(first) and segments_follow(path, len(first), middle, last, anchored)


def segments_follow(path: str, pos: int, middle: Sequence[str], last: str, anchored: bool) -> bool:
    """Whether the literal segments ``middle`` and then ``last`` are found in
    ``path`` from ``pos``, each at its leftmost place, ``last`` at the end
    if ``anchored``: the ``*`` matching of PATH-2, PATH-3, exact and never
    backtracking (PATH-11). The one loop of both :func:`pattern_matches` and
    the matcher's scan (:mod:`.robotstxt._matcher`)."""
    for segment in middle:
        pos = path.find(segment, pos)
        if pos < 0:
            return False
        pos += len(segment)
    if anchored:
        return len(path) - len(last) >= pos and path.endswith(last)
    return path.find(last, pos) >= 0


STARS = re.compile(r"\*{2,}")  # a run of '*' matches what one does (PATH-2)


#: What :func:`scan_form` keeps of a wildcard pattern, as one flat tuple: a
#: literal segment that every path it matches contains (checked first, in
#: C), the last segment, whether ``$`` anchors it, then the segments between
#: the literal prefix and the last one.
Wild = tuple[Any, ...]
#: The :data:`Wild` of ``<literal>$``: the path is the literal (PATH-3).
EXACT: Wild = ("", "", True)


def scan_form(pattern: str) -> tuple[str, Wild | None]:
    """How :meth:`.AgentRules.scan` tries a pattern (PATH-1..3): its literal
    prefix, and what must follow it (``None``: anything). A pattern whose
    only ``*`` ends it is a plain prefix too."""
    anchored = pattern.endswith("$")
    if anchored:
        pattern = pattern[:-1]
    if "*" not in pattern:
        return pattern, EXACT if anchored else None
    if "**" in pattern:
        pattern = STARS.sub("*", pattern)  # a run of '*' matches what one does (PATH-2)
    if pattern.endswith("*"):
        pattern = pattern[:-1]
        anchored = False  # "...*$" ends with anything: the same as "...*"
        if "*" not in pattern:
            return pattern, None
    first, *middle, last = pattern.split("*")
    required = max((*middle, last), key=len)  # one of them: no new string
    return first, (required, last, anchored, *middle)


def wild_matches(start: int, wild: Wild, path: str) -> bool:
    """Whether the segments of ``wild`` are found in ``path`` from ``start``
    (the end of the literal prefix), each at its leftmost place: exact for
    ``*`` and never backtracking (PATH-2, PATH-3, PATH-11)."""
    if wild is EXACT:
        return len(path) == start
    return segments_follow(path, start, wild[3:], wild[1], wild[2])


def form_matches(form: tuple[str, Wild | None], path: str) -> bool:
    """Whether the pattern whose :func:`scan_form` is ``form`` matches the
    match string ``path`` (PATH-1..3): what the rule tree's nodes try; the
    matcher's scan makes the same check inline, in its hot loop."""
    prefix, wild = form
    if not path.startswith(prefix):
        return False
    return wild is None or (wild[0] in path and wild_matches(len(prefix), wild, path))
