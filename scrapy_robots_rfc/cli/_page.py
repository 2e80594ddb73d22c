"""A page fetched for its page-level rules (``check --page``): its
``X-Robots-Tag`` headers and, for an HTML page, the head of the document
(P-1), read with :mod:`urllib.request` like robots.txt (:mod:`._robots_file`).

Only the bytes up to the end of the head are read (at most
:data:`.pagerules.HEAD_LIMIT`), so a large page costs its head. Redirects
are not followed: their target may be one robots.txt disallows, or on
another origin whose robots.txt decides it (P-5); the redirect's own
headers are read, and where it points is said, as ``scrapy robots --page``
does. A page without a ``Content-Type`` is read as HTML when its body starts
like HTML, as Scrapy guesses. Never imports Scrapy.
"""

from __future__ import annotations

import http.client
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import IO

from ..pagerules import HEAD_LIMIT, PageRules, html_head, meta_tags, read_page_rules
from ..tdmrep import TDM_POLICY, TDM_RESERVATION, Statement, header_statement, meta_statement
from ._robots_file import NoRedirect, network_problem

#: The media types whose head is read for robots meta tags.
_HTML = ("text/html", "application/xhtml+xml")
#: A body that starts like HTML, for a page without a ``Content-Type``.
_LOOKS_HTML = re.compile(rb"\s*(?:\xef\xbb\xbf)?\s*<(?:!doctype\s+html|html|head)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Page:
    """A page as fetched: the URL it ended on, its status, and its rules
    for the crawler; ``problem`` says why it could not be fetched."""

    url: str
    status: int | None
    rules: PageRules | None
    problem: str = ""
    #: Where a redirect points, not followed.
    location: str | None = None
    #: What its ``tdm-reservation`` / ``tdm-policy`` header fields and meta
    #: tags say (T-1), for ``check --tdm``; ``None`` when they state nothing.
    tdm_header: Statement | None = None
    tdm_meta: Statement | None = None


def fetch_page(url: str, names: tuple[str, ...], *, timeout: float, user_agent: str) -> Page:
    """GET ``url`` and read its page-level rules for the crawler ``names``
    (D-21, D-22). Never raises for a network error or any content."""
    request = urllib.request.Request(url, headers={"User-Agent": user_agent})
    response: IO[bytes]
    try:
        response = urllib.request.build_opener(NoRedirect()).open(request, timeout=timeout)
        status: int = response.status  # type: ignore[attr-defined]
    except urllib.error.HTTPError as exc:  # a 4xx or 5xx page still has headers
        response, status = exc, exc.code
    except (OSError, http.client.HTTPException, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        return Page(url, None, None, network_problem(reason, timeout))
    with response:
        headers = response.headers  # type: ignore[attr-defined]
        final = response.geturl()  # type: ignore[attr-defined]
        tags = tuple(headers.get_all("X-Robots-Tag") or ())
        content_type = headers.get_content_type() if headers.get("Content-Type") else ""
        location = headers.get("Location") if 300 <= status < 400 else None
        head = None
        if content_type in _HTML or (not content_type and location is None):
            try:
                body = _read_head(response)
            except (OSError, http.client.HTTPException) as exc:
                problem = network_problem(exc, timeout)
                return Page(final, status, None, f"its body could not be read ({problem})")
            if content_type or _LOOKS_HTML.match(body):
                head = html_head(body)
        charset = headers.get_content_charset()
        reservation = headers.get_all(TDM_RESERVATION) or ()
        policy = headers.get_all(TDM_POLICY) or ()
    rules = read_page_rules(tags, head, names, encoding=charset)
    tdm_header = header_statement(reservation, policy) if reservation or policy else None
    tdm_meta = None
    if head is not None and b"tdm-" in head.lower():
        tdm_meta = meta_statement(meta_tags(head, charset))
    return Page(final, status, rules, location=location, tdm_header=tdm_header, tdm_meta=tdm_meta)


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
