"""What a page says to this crawler: each directive read, where it came
from, and what they add up to (P-3).

Pure: no Scrapy import, no parsing (the lists and the HTML are read in
``_lists`` and ``_html``; dates in ``_dates``). Directives combine as
Google's robots meta tag documentation says: the most restrictive wins,
``none`` is ``noindex, nofollow``, and ``all``, ``index`` and ``follow``
say nothing (P-3).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Literal

from ..robotstxt import ascii_lower
from ._dates import parse_date

#: The ``Response.meta`` key that holds a response's :class:`PageRules` (P-4).
PAGE_RULES_META_KEY: Final = "robotstxt_page_rules"

#: Where a directive was read: the ``X-Robots-Tag`` response header, or a
#: ``<meta>`` tag in the document's head (P-1).
Source = Literal["header", "meta"]

#: ``applies_to`` of a directive for every crawler (``<meta name="robots">``,
#: an ``X-Robots-Tag`` value without a crawler's name; P-2).
EVERY_CRAWLER: Final = "*"

#: The restrictions :class:`PageRules` has a flag for, in the order
#: ``str(rules)`` names them, each with the directives that set it (P-3:
#: ``none`` is ``noindex, nofollow``).
RESTRICTIONS: Final[dict[str, tuple[str, ...]]] = {
    "noindex": ("noindex", "none"),
    "nofollow": ("nofollow", "none"),
    "noarchive": ("noarchive",),
    "nosnippet": ("nosnippet",),
    "noimageindex": ("noimageindex",),
    "notranslate": ("notranslate",),
    "noai": ("noai",),
    "noimageai": ("noimageai",),
}
#: The directive whose value is a date (P-3).
UNAVAILABLE_AFTER: Final = "unavailable_after"


@dataclass(frozen=True, slots=True)
class Directive:
    """One directive of a page, for this crawler.

    >>> print(Directive("noindex", None, "header", "*"))
    noindex (X-Robots-Tag header, every crawler)
    >>> print(Directive("nofollow", None, "meta", "badbot"))
    nofollow (<meta name="badbot">)
    >>> print(Directive("max-snippet", "-1", "meta", "*"))
    max-snippet: -1 (<meta name="robots">)
    """

    #: The directive's name, lower-cased: ``noindex``, ``unavailable_after``,
    #: ``max-snippet``... Unknown names are kept (P-3).
    name: str
    #: What follows ``name:`` (``-1``, the date's text), else ``None``.
    value: str | None
    #: The ``X-Robots-Tag`` header or a ``<meta>`` tag (P-1).
    source: Source
    #: ``"*"`` for every crawler, else the crawler's name as the page wrote
    #: it, lower-cased (P-2).
    applies_to: str

    def __str__(self) -> str:
        said = self.name if self.value is None else f"{self.name}: {self.value}".rstrip()
        if self.source == "meta":
            name = "robots" if self.applies_to == EVERY_CRAWLER else self.applies_to
            return f'{said} (<meta name="{name}">)'
        whose = "every crawler" if self.applies_to == EVERY_CRAWLER else self.applies_to
        return f"{said} (X-Robots-Tag header, {whose})"


@dataclass(frozen=True, slots=True)
class PageRules:
    """The page-level rules a response states for this crawler (P-1..P-3).

    Build one with :meth:`from_directives` (or read one with
    ``read_page_rules``): the flags are what the directives add up to.

    >>> rules = PageRules.from_directives(
    ...     [Directive("none", None, "meta", "*"), Directive("index", None, "header", "*")]
    ... )
    >>> print(rules)
    noindex, nofollow
    >>> print(rules.deciding("noindex"))
    none (<meta name="robots">)
    >>> print(NO_PAGE_RULES == PageRules.from_directives([]), repr(str(NO_PAGE_RULES)))
    True ''
    """

    #: Every directive that applies to this crawler, in the order read
    #: (headers first, then meta tags), unknown ones included.
    directives: tuple[Directive, ...] = ()
    noindex: bool = False
    nofollow: bool = False
    noarchive: bool = False
    nosnippet: bool = False
    noimageindex: bool = False
    notranslate: bool = False
    noai: bool = False
    noimageai: bool = False
    #: The earliest ``unavailable_after`` date that parses, timezone-aware
    #: (UTC when the text names no zone), else ``None``.
    unavailable_after: datetime | None = None

    @classmethod
    def from_directives(cls, directives: Iterable[Directive]) -> PageRules:
        """What ``directives`` add up to: each flag is set when any
        directive sets it (the most restrictive wins, P-3)."""
        kept = tuple(directives)
        names = {directive.name for directive in kept}
        flags = {
            flag: any(name in names for name in setters) for flag, setters in RESTRICTIONS.items()
        }
        dates = [date for _, date in _dates(kept)]
        return cls(kept, **flags, unavailable_after=min(dates, default=None))

    def deciding(self, name: str) -> Directive | None:
        """The first directive that sets the flag ``name`` (``noindex`` is set
        by ``noindex`` or ``none``), or for ``unavailable_after`` the first
        that gives the earliest date; for any other name the first directive
        so named. ``None`` when nothing does."""
        wanted = ascii_lower(name)
        if wanted == UNAVAILABLE_AFTER:
            return next(
                (d for d, date in _dates(self.directives) if date == self.unavailable_after),
                None,
            )
        setters = RESTRICTIONS.get(wanted, (wanted,))
        return next((d for d in self.directives if d.name in setters), None)

    def expired(self, now: datetime) -> bool:
        """Whether ``now`` is past ``unavailable_after`` (a naive ``now`` is
        taken as UTC)."""
        if self.unavailable_after is None:
            return False
        if now.tzinfo is None:
            now = now.replace(tzinfo=UTC)
        return now > self.unavailable_after

    def __str__(self) -> str:
        said = [flag for flag in RESTRICTIONS if getattr(self, flag)]
        if self.unavailable_after is not None:
            said.append(f"{UNAVAILABLE_AFTER}: {self.unavailable_after.isoformat()}")
        return ", ".join(said)


def _dates(directives: Iterable[Directive]) -> list[tuple[Directive, datetime]]:
    """The ``unavailable_after`` directives whose date parses, with it."""
    found = []
    for directive in directives:
        if directive.name == UNAVAILABLE_AFTER and directive.value is not None:
            date = parse_date(directive.value)
            if date is not None:
                found.append((directive, date))
    return found


#: A response that states nothing for this crawler.
NO_PAGE_RULES: Final[PageRules] = PageRules()
