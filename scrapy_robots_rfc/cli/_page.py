"""A page fetched for its page-level rules (``check --page``): its
``X-Robots-Tag`` headers and, for an HTML page, the head of the document
(P-1), read with :mod:`urllib.request` like robots.txt (:mod:`._robots_file`).

Only the bytes up to the end of the head are read (at most
:data:`.pagerules.HEAD_LIMIT`), so a large page costs its head. Redirects
are followed, as a crawler following them would read the rules of the page
it ends on. Never imports Scrapy.
"""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import IO

from ..pagerules import HEAD_LIMIT, PageRules, html_head, read_page_rules

#: The media types whose head is read for robots meta tags.
_HTML = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True)
class Page:
    """A page as fetched: the URL it ended on, its status, and its rules
    for the crawler; ``problem`` says why it could not be fetched."""

    url: str
    status: int | None
    rules: PageRules | None
    problem: str = ""


def fetch_page(url: str, names: tuple[str, ...], *, timeout: float, user_agent: str) -> Page:
    """GET ``url`` and read its page-level rules for the crawler ``names``
    (D-21, D-22). Never raises for a network error or any content."""
    request = urllib.request.Request(url, headers={"User-Agent": user_agent})
    response: IO[bytes]
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
        status: int = response.status  # type: ignore[attr-defined]
    except urllib.error.HTTPError as exc:  # a 4xx or 5xx page still has headers
        response, status = exc, exc.code
    except (OSError, http.client.HTTPException, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        return Page(url, None, None, f"{type(reason).__name__}: {reason}")
    with response:
        headers = response.headers  # type: ignore[attr-defined]
        final = response.geturl()  # type: ignore[attr-defined]
        tags = tuple(headers.get_all("X-Robots-Tag") or ())
        content_type = headers.get_content_type() if headers.get("Content-Type") else ""
        head = None
        if content_type in _HTML:
            try:
                head = html_head(_read_head(response))
            except (OSError, http.client.HTTPException) as exc:
                return Page(final, status, None, f"its body could not be read ({exc!r})")
        charset = headers.get_content_charset()
    return Page(final, status, read_page_rules(tags, head, names, encoding=charset))


def _read_head(response: IO[bytes]) -> bytes:
    """The body up to the end of the head, at most ``HEAD_LIMIT`` bytes,
    read in pieces so that the rest of a large page is never read."""
    body = b""
    while len(body) < HEAD_LIMIT:
        piece = response.read(min(16384, HEAD_LIMIT - len(body)))
        if not piece:
            break
        body += piece
        if len(html_head(body)) < len(body):  # the head ended in what was read
            break
    return body
