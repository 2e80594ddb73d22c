"""A list of directives, as an ``X-Robots-Tag`` value or a robots meta
tag's ``content`` writes it (P-1, P-3).

Pure text in, ``(crawler, name, value)`` out; nothing here knows whose
crawler this is. What Google's robots meta tag and ``X-Robots-Tag``
documentation shows, and how it is read:

* Directives are separated by commas: ``noindex, nofollow``. White space
  around each is dropped; empty items (``noindex,,``) are skipped.
* ``name: value`` gives a directive a value: ``max-snippet: -1``,
  ``unavailable_after: 25 Jun 2010 15:00:00 PST``. Only the first colon
  separates, so an ISO 8601 time keeps its own (``2010-06-25T15:00:00Z``).
* A date may hold commas (RFC 822's ``Fri, 25 Jun 2010 ...``, RFC 850's
  ``Friday, 25-Jun-10 ...``): after ``unavailable_after``, an item that
  starts with a digit, or that follows a value that is only a weekday's
  name, is the rest of the date, not a directive.
* In a header only, ``crawler: directives`` names the crawler the
  directives are for (``X-Robots-Tag: googlebot: nofollow``), and
  everything that follows in that header value is that crawler's, as
  Google reads ``googlebot: noindex, unavailable_after: ...`` (P-2). A
  name before a colon is a crawler's unless it is a directive's
  (``max-snippet: 20`` is a directive), and has no white space in it.
* Names of directives and crawlers are compared in any case: they are
  lower-cased here (P-3).
"""

from __future__ import annotations

from typing import Final

from ..robotstxt import ascii_lower

#: A directive read: (the crawler it names, ``None`` for every crawler;
#: its name, lower-cased; its value, ``None`` without a colon).
Read = tuple[str | None, str, str | None]

#: Directives Google documents, and those P-3 adds: a name before a colon
#: that is one of these is a directive with a value, never a crawler.
DIRECTIVE_NAMES: Final = frozenset(
    (
        "all",
        "index",
        "follow",
        "noindex",
        "nofollow",
        "none",
        "noarchive",
        "nocache",
        "nosnippet",
        "indexifembedded",
        "max-snippet",
        "max-image-preview",
        "max-video-preview",
        "notranslate",
        "noimageindex",
        "unavailable_after",
        "noai",
        "noimageai",
    )
)
#: The names of weekdays, short and long, as RFC 822 and RFC 850 dates
#: start with them (``Fri, 25 Jun 2010``, ``Friday, 25-Jun-10``).
_WEEKDAYS: Final = frozenset(
    [
        "mon",
        "tue",
        "wed",
        "thu",
        "fri",
        "sat",
        "sun",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
)
_DIGITS: Final = frozenset("0123456789")


def header_directives(value: str) -> list[Read]:
    """The directives of one ``X-Robots-Tag`` header value, each with the
    crawler it names (``None``: every crawler).

    >>> for read in header_directives("googlebot: noindex, unavailable_after: Fri, 25 Jun 2010"):
    ...     print(read)
    ('googlebot', 'noindex', None)
    ('googlebot', 'unavailable_after', 'Fri, 25 Jun 2010')
    >>> header_directives("NoIndex, max-snippet: -1")
    [(None, 'noindex', None), (None, 'max-snippet', '-1')]
    """
    return _read(value, crawlers=True)


def content_directives(content: str) -> list[Read]:
    """The directives of a robots meta tag's ``content`` (never a crawler's
    name: the tag's ``name`` says whose they are).

    >>> content_directives("noindex, unavailable_after: 2010-06-25")
    [(None, 'noindex', None), (None, 'unavailable_after', '2010-06-25')]
    """
    return _read(content, crawlers=False)


def _read(text: str, *, crawlers: bool) -> list[Read]:
    found: list[Read] = []
    crawler: str | None = None
    for piece in text.split(","):
        if found and _continues_date(found[-1], piece):
            named, name, value = found[-1]
            found[-1] = (named, name, f"{value},{piece}".strip())
            continue
        item = piece.strip()
        if crawlers:
            before, colon, after = item.partition(":")
            prefix = before.strip()
            if colon and _is_crawler(prefix):
                crawler, item = prefix, after.strip()
        name, colon, after = item.partition(":")
        name = ascii_lower(name.strip())
        if name:
            found.append((crawler, name, after.strip() if colon else None))
    return found


def _is_crawler(prefix: str) -> bool:
    """Whether the text before a header item's colon names a crawler."""
    return (
        bool(prefix)
        and ascii_lower(prefix) not in DIRECTIVE_NAMES
        and not any(char.isspace() for char in prefix)
    )


def _continues_date(last: Read, piece: str) -> bool:
    """Whether ``piece`` (the text after a comma) is the rest of the date of
    ``last``, an ``unavailable_after`` directive."""
    _, name, value = last
    if name != "unavailable_after" or value is None:
        return False
    rest = piece.strip()
    return bool(rest) and (rest[0] in _DIGITS or ascii_lower(value.strip()) in _WEEKDAYS)
