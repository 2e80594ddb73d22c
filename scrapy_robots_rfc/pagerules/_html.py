"""The robots meta tags of an HTML document's head (P-1).

Google's spec, "Robots meta tag questions": "the robots meta tag currently
needs to be in the <head> section of a page". So only the head is read:
:func:`html_head` finds where it ends with a byte search (no parse of the
rest, so a 10 MB page costs what its head costs), and :func:`meta_tags`
parses that prefix with parsel (lxml), the parser Scrapy ships, and reads
the ``<meta>`` elements the parser puts in ``<head>``. A ``<meta>`` after
``<body>``, or after content that opens the body (a ``<p>``, a ``<div>``),
is the body's, as a browser has it too.

parsel is imported on the first document read: reading headers alone never
loads it.
"""

from __future__ import annotations

import re
from typing import Final

#: At most this much of a document is searched for the end of its head and
#: parsed: a head is a few KiB; the same bound as robots.txt's (RFC 9309
#: §2.5), so that a page without ``</head>`` costs no more than a big robots.txt.
HEAD_LIMIT: Final = 512 * 1024

#: Where the head ends (``</head``, or ``<body`` when the closing tag is
#: left out), and what to skip while looking for it: comments, scripts and
#: styles may hold those words as text. Each tag name must end there:
#: ``</header>`` and ``<bodyguard>`` end nothing.
_HEAD_END: Final = re.compile(
    rb"<!--|<(?:script|style)(?=[\s/>]|\Z)|</head(?=[\s/>]|\Z)|<body(?=[\s/>]|\Z)", re.IGNORECASE
)
#: The end of what :data:`_HEAD_END` skips, by what opened it.
_SKIPPED_TO: Final = {
    b"<!--": re.compile(rb"-->"),
    b"<script": re.compile(rb"</script", re.IGNORECASE),
    b"<style": re.compile(rb"</style", re.IGNORECASE),
}
#: Byte order marks: a BOM decides the encoding, whatever the response
#: declares (the HTML standard's "encoding sniffing", as Scrapy does).
_BOMS: Final = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
#: The ``<meta>`` elements of the head that have a name and a content.
_META_XPATH: Final = "/html/head//meta[@name][@content]"


def html_head(body: bytes, limit: int = HEAD_LIMIT) -> bytes:
    """The bytes of ``body`` up to where its head ends (``</head``, or the
    first ``<body``, in any case, outside comments, scripts and styles), at
    most ``limit`` bytes: all of them when the head does not end before.

    >>> html_head(b"<html><head><meta name=robots content=noindex></head><body>...")
    b'<html><head><meta name=robots content=noindex>'
    >>> html_head(b"<title>a</title><!-- <body> --><BODY><p>text", limit=1000)
    b'<title>a</title><!-- <body> -->'
    """
    return bytes(body[: head_end(body, limit)])


def head_end(body: bytes, limit: int = HEAD_LIMIT) -> int:
    """Where :func:`html_head` cuts ``body``: the length of its head, so
    that a caller can search the head in place, without a copy.

    >>> head_end(b"<head><title>a</title></head><body>")
    22
    """
    if not isinstance(body, (bytes, bytearray)):
        raise TypeError(f"body must be bytes, not {type(body).__name__}")
    end = max(min(limit, len(body)), 0)
    position = 0
    while (found := _HEAD_END.search(body, position, end)) is not None:
        skipped = _SKIPPED_TO.get(found.group().lower())
        if skipped is None:
            return found.start()
        closed = skipped.search(body, found.end(), end)
        if closed is None:
            break
        position = closed.end()
    return end


def meta_tags(head: bytes, encoding: str | None = None) -> list[tuple[str, str]]:
    """``(name, content)`` of each ``<meta name=... content=...>`` in the
    head of ``head`` (a document's start, as :func:`html_head` gives it), in
    document order, with entities decoded. ``encoding`` is the response's,
    when known; a BOM overrides it, and without either UTF-8 is assumed
    (the names and directives are ASCII in every encoding that is).

    >>> meta_tags(b'<meta NAME="Robots" content="noindex&#44; nofollow"><p>'
    ...           b'<meta name="robots" content="noarchive">')
    [('Robots', 'noindex, nofollow')]
    """
    text = _decoded(head, encoding)
    if not text.strip():
        return []
    from parsel import Selector  # on the first document only (see above)

    selector = Selector(text=text, type="html")
    return [(meta.attrib["name"], meta.attrib["content"]) for meta in selector.xpath(_META_XPATH)]


def _decoded(head: bytes, encoding: str | None) -> str:
    """``head`` as text: by its BOM, else by ``encoding``, else as UTF-8;
    bytes the encoding cannot decode become U+FFFD. An encoding Python does
    not know, or that is no text encoding, is ignored."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return head[len(bom) :].decode(name, "replace")
    if encoding:
        try:
            return head.decode(encoding, "replace")
        # LookupError: an unknown name, or a codec that is no text
        # encoding; ValueError: a codec without the "replace" handler.
        except (LookupError, ValueError):
            pass
    return head.decode("utf-8", "replace")
