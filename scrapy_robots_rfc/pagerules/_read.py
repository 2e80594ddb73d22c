"""A response's page-level rules for this crawler: its ``X-Robots-Tag``
headers and the robots meta tags of its head (P-1..P-3).

Whose a directive is (P-2): ``<meta name="robots">`` and a header value
without a crawler's name are for every crawler; ``<meta name="BadBot">``
and ``X-Robots-Tag: badbot: ...`` are for the crawler whose name equals
``BadBot`` in any case. The crawler's names are reduced first as robots.txt
reduces them (D-21: ``BadBot/1.0`` and a whole User-Agent header name
``BadBot``); for a family (D-22: ``("hedwig-images", "hedwig")``) a
directive for any of its names applies, since the most restrictive
directive wins anyway. ``*`` and an empty name name no crawler: only the
directives for every crawler apply to them. Directives for other crawlers
are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..robotstxt import GLOBAL_NAME, ascii_lower, crawler_name
from ._html import html_head, meta_tags
from ._lists import content_directives, header_directives
from ._rules import EVERY_CRAWLER, NO_PAGE_RULES, Directive, PageRules

#: ``<meta name="robots">``: the tag for every crawler (P-2).
_EVERY_CRAWLER_TAG = "robots"


def read_page_rules(
    headers: Iterable[bytes | str],
    html: bytes | None,
    names: Sequence[str],
    *,
    encoding: str | None = None,
) -> PageRules:
    """What ``headers`` (every ``X-Robots-Tag`` value, in order) and the
    head of ``html`` (``None`` when the response is not HTML) say to the
    crawler called ``names`` (one name, or a family most specific first).

    Never raises on content; ``TypeError`` on arguments of the wrong type
    (a single ``str`` for ``headers`` or ``names`` included: wrap it in a
    tuple). ``encoding`` is the response's, when known (a BOM overrides it).

    >>> rules = read_page_rules(
    ...     [b"otherbot: noindex", b"ExampleBot: nofollow"],
    ...     b'<meta name="robots" content="noarchive">',
    ...     ["ExampleBot/1.0"],
    ... )
    >>> print(rules)
    nofollow, noarchive
    >>> print(rules.deciding("nofollow"))
    nofollow (X-Robots-Tag header, examplebot)
    """
    if isinstance(headers, (str, bytes, bytearray)):
        raise TypeError("headers must be an iterable of header values, not one value")
    if isinstance(names, (str, bytes, bytearray)):
        raise TypeError("names must be a sequence of names, not one name: wrap it in a tuple")
    if html is not None and not isinstance(html, (bytes, bytearray)):
        raise TypeError(f"html must be bytes or None, not {type(html).__name__}")
    ours = _names(names)
    found: list[Directive] = []
    for value in headers:
        for crawler, name, said in header_directives(_header_text(value)):
            whose = EVERY_CRAWLER if crawler is None else ascii_lower(crawler)
            if crawler is None or whose in ours:
                found.append(Directive(name, said, "header", whose))
    if html is not None:
        for tag_name, content in meta_tags(html_head(html), encoding):
            whose = ascii_lower(tag_name.strip())
            if whose == _EVERY_CRAWLER_TAG:
                whose = EVERY_CRAWLER
            elif whose not in ours:
                continue
            found.extend(
                Directive(name, said, "meta", whose)
                for _, name, said in content_directives(content)
            )
    return PageRules.from_directives(found) if found else NO_PAGE_RULES


def _names(names: Sequence[str]) -> frozenset[str]:
    """The lower-cased names a directive for one crawler must equal (D-21,
    D-22); never ``*`` or an empty name."""
    ours = set()
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"each name must be a str, not {type(name).__name__}")
        ours.add(ascii_lower(crawler_name(name.strip(), "rfc")))
    return frozenset(ours - {GLOBAL_NAME, ""})


def _header_text(value: bytes | str) -> str:
    """A header value as text: UTF-8 when it decodes so, else ISO-8859-1
    (RFC 9110 §5.5: a field value's other octets are opaque); the names
    and directives are ASCII in both."""
    if isinstance(value, str):
        return value
    if not isinstance(value, (bytes, bytearray)):
        raise TypeError(f"a header value must be bytes or str, not {type(value).__name__}")
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        return bytes(value).decode("latin-1")
