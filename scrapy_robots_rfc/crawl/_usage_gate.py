"""Usage preferences in a crawl (U-6, revised): what the middleware does
with ``Content-Usage`` and ``Content-Signal``.

A response's preferences are robots.txt's for its URL combined with its
``Content-Usage`` header (draft-ietf-aipref-attach-05 §2) and its
``Content-Signal`` header, read as the robots.txt line of that name (U-3,
U-4). A crawl that does not name the categories it is for pays nothing per
request or response: :meth:`UsageGate.read` reads them when a callback asks
(``scrapy_robots_rfc.usage_preferences(response, crawler)``), once per
response. When ``ROBOTSTXT_RFC_USAGE`` names the categories the crawl is
for, every request the middleware lets through carries robots.txt's
preferences in ``request.meta["robotstxt_usage"]``
(:data:`.USAGE_META_KEY`), every response carries them combined, and:

* a request whose robots.txt preference is ``n`` for one of them is dropped
  before download;
* a response whose ``Content-Usage`` or ``Content-Signal`` header says ``n``
  for one is dropped before the spider, and so is one for which a category
  stays unknown when ``ROBOTSTXT_RFC_USAGE_UNKNOWN`` is "disallow".

Each category is asked about on its own (U-7): a crawl for ``search`` is
governed by the ``search`` preference alone.

When ``ROBOTSTXT_RFC_USAGE`` names ``train-ai`` or ``ai-use``, a page whose
robots meta tag or ``X-Robots-Tag`` says ``noai`` for this crawler (an
image's ``noimageai`` too) counts as ``train-ai=n`` and ``ai-use=n`` for
that response (U-8), and drops it before the spider as a header would.

Each drop raises :class:`.ForbiddenByUsagePreference`, never "Forbidden by
robots.txt": the URL may be crawled, its content not used so. A request
that does not obey robots.txt (``dont_obey_robotstxt``, robots.txt fetches,
schemes robots.txt does not govern) gets its header's part only, and is
never dropped.
"""

from __future__ import annotations

import logging
import weakref
from typing import TYPE_CHECKING, Any

from .._logging import reaches_a_handler
from ..exceptions import ForbiddenByUsagePreference, UsageWhere
from ..robotstxt import (
    HEADERS,
    NO_PREFERENCES,
    USAGE_META_KEY,
    Preferences,
    Source,
    canonical_match_string,
    header_preferences,
    header_source,
    robots_preferences,
)
from ._headers import header_name, header_values
from ._page_gate import PageRulesOnDemand, page_rules_in

if TYPE_CHECKING:
    from ..pagerules import PageRules

if TYPE_CHECKING:
    from collections.abc import Sequence

    from scrapy.http import Request, Response

    from .._runtime import Runtime
    from ..policy import Origin, Origins
    from ..robotstxt import AgentRules
    from ._config import Config
    from ._report import Report

logger = logging.getLogger(__name__)

#: What a page-level ``noai`` says (U-8).
_NOAI: tuple[tuple[str, bool], ...] = (("train-ai", False), ("ai-use", False))
_NOAI_CATEGORIES = frozenset(category for category, _ in _NOAI)


def _is_image(response: Response) -> bool:
    """Whether ``response`` is an image, whose ``noimageai`` counts (U-8)."""
    return (response.headers.get(b"Content-Type") or b"").lower().startswith(b"image/")


#: Each usage header, how it is read, and its stats' prefix
#: (``robotstxt/usage/header``, ``robotstxt/usage/signal_header``, each
#: with ``_invalid``).
_HEADERS = tuple(
    (header_name(name.encode()), kind, "header" if kind == "content-usage" else "signal_header")
    for name, kind in HEADERS.items()
)
#: Their normalised names: a response without any skips them at once.
_HEADER_NAMES = tuple(name for name, _, _ in _HEADERS)
#: The stat of a response dropped, by what dropped it.
_STATS: dict[UsageWhere, str] = {
    "header": "robotstxt/usage/header_forbidden",
    "page": "robotstxt/usage/page_forbidden",
    "unknown": "robotstxt/usage/unknown_forbidden",
}


def _debug() -> bool:
    return reaches_a_handler(logger, logging.DEBUG)


class UsageGate:
    """Sets the preferences of each request and response, and drops those
    the crawl may not use (``ROBOTSTXT_RFC_USAGE``), counting each drop in
    the ``robotstxt/usage/*`` stats and the crawl report."""

    def __init__(
        self,
        runtime: Runtime,
        config: Config,
        report: Report,
        origins: Origins,
    ) -> None:
        self._runtime = runtime
        self._config = config
        self._report = report
        self._origins = origins
        #: Whether a page's ``noai`` counts (U-8): the crawl names a category
        #: it speaks for. Otherwise the page's head is never read for it, so
        #: that a crawl that does not ask pays nothing (its rules stay in
        #: ``robotstxt_page_rules``).
        self._page_ai = any(category in _NOAI_CATEGORIES for category in config.usage)
        #: What :meth:`read` read, per response.
        self._read: weakref.WeakKeyDictionary[Response, Preferences] = weakref.WeakKeyDictionary()

    @property
    def reads_pages(self) -> bool:
        """Whether each response's page-level rules are read for it: the
        crawl names a category a page's ``noai`` speaks for (U-8)."""
        return self._page_ai

    def read(
        self, response: Response, agent: AgentRules | None, page: PageRules | None
    ) -> Preferences:
        """``response``'s usage preferences, read now, once per response:
        robots.txt's for its request's URL by ``agent`` (the crawler's rules
        there; ``None``: none), combined with its usage headers and, when
        the crawl names a category it speaks for (:attr:`reads_pages`),
        ``page``'s ``noai`` for this crawler (U-4, U-8). The one call a
        callback makes to know them (U-6 revised); in a crawl that names
        categories, the ones of its meta."""
        meta = response.meta
        if self._config.usage:
            found = meta.get(USAGE_META_KEY)
            if isinstance(found, Preferences):
                return found
        found = self._read.get(response)
        if found is not None:
            return found
        preferences = NO_PREFERENCES
        request = response.request
        if agent is not None and agent.usage is not None and request is not None:
            path = canonical_match_string(request.url, self._config.mode)
            preferences = robots_preferences(agent, path, allowed=True)
        header, _ = self._headers(response)
        if header is not None:
            preferences = preferences.combined(header)
        noai = None if page is None or not self._page_ai else self._noai(response, page)
        if noai is not None:
            preferences = preferences.combined(noai[1])
        self._read[response] = preferences
        return preferences

    def on_request(
        self, request: Request, key: Origin, agent: AgentRules | None, robots_url: str | None
    ) -> None:
        """After robots.txt allowed ``request`` for ``agent``, whose rules
        came from ``robots_url`` (``None``: ``key``'s own robots.txt): set
        its preferences, and raise :class:`.ForbiddenByUsagePreference` if
        one is ``n`` for a category of ``ROBOTSTXT_RFC_USAGE``. Always set,
        so that a redirect's copied meta never carries another URL's."""
        meta = request.meta
        if agent is None or agent.usage is None:
            meta[USAGE_META_KEY] = NO_PREFERENCES
            return
        path = canonical_match_string(request.url, self._config.mode)
        preferences = meta[USAGE_META_KEY] = robots_preferences(agent, path, allowed=True)
        categories = preferences.disallowed(self._config.usage) if self._config.usage else ()
        if not categories:
            return
        self._runtime.stats.inc_value("robotstxt/usage/forbidden")
        self._report.usage(key, categories, downloaded=False)
        if _debug():
            logger.debug(
                "Forbidden by usage preference: %(request)s: %(preferences)s in %(robots)s",
                {
                    "request": request,
                    "preferences": preferences.describe(categories),
                    "robots": robots_url or key.robots_url,
                },
                extra=self._runtime.log,
            )
        raise ForbiddenByUsagePreference(categories, preferences, "robots.txt")

    def on_response(self, request: Request, response: Response) -> Response:
        """Set the preferences of ``response``: its request's combined with
        its ``Content-Usage`` and ``Content-Signal`` headers (U-3, U-4);
        raise :class:`.ForbiddenByUsagePreference` if the crawl may not use
        it."""
        meta = request.meta
        obeyed = not meta.get("dont_obey_robotstxt")
        robots = meta.get(USAGE_META_KEY, NO_PREFERENCES) if obeyed else NO_PREFERENCES
        header, said = self._headers(response)
        page = self._page(response, meta) if self._page_ai and obeyed else None
        preferences = robots if header is None else robots.combined(header)
        if page is not None:
            preferences = preferences.combined(page[1])
        meta[USAGE_META_KEY] = preferences
        usage = self._config.usage
        if not usage or not obeyed:
            return response
        categories = () if header is None else header.disallowed(usage)
        where: UsageWhere = "header"
        if not categories and page is not None:
            categories, where, said = page[1].disallowed(usage), "page", [page]
        if not categories and self._config.usage_unknown == "disallow":
            categories, where = preferences.unknown(usage), "unknown"
        key = self._origins(request.url) if categories else None
        if key is None:  # allowed, or a scheme robots.txt does not govern
            return response
        self._runtime.stats.inc_value(_STATS[where])
        self._report.usage(key, categories, downloaded=True)
        if _debug():
            # Only the headers that say n are named.
            texts = [text for text, stated in said if stated.disallowed(categories)]
            if where in ("header", "page"):
                verb = "disallows" if len(texts) == 1 else "disallow"
                message = f"%(header)s {verb} %(categories)s"
            else:
                message = (
                    "%(categories)s unknown (robots.txt and the usage headers state "
                    'none) and ROBOTSTXT_RFC_USAGE_UNKNOWN is "disallow"'
                )
            logger.debug(
                f"Forbidden by usage preference: %(response)s: {message}",
                {
                    "response": response,
                    "header": " and ".join(texts),
                    "categories": ", ".join(categories),
                },
                extra=self._runtime.log,
            )
        raise ForbiddenByUsagePreference(categories, preferences, where)

    def _page(self, response: Response, meta: dict[str, Any]) -> tuple[str, Preferences] | None:
        """The statement of ``response``'s page-level ``noai`` for this
        crawler (``noimageai`` too for an image), U-8: ``train-ai=n`` and
        ``ai-use=n``, and the page rule as the DEBUG line shows it; ``None``
        when the page says neither."""
        rules = page_rules_in(meta)
        if rules is None:
            return None
        return self._noai(response, rules)

    def _noai(
        self, response: Response, rules: PageRules | PageRulesOnDemand
    ) -> tuple[str, Preferences] | None:
        """The ``noai`` (or an image's ``noimageai``) of ``rules`` as a
        statement (U-8), counted; ``None`` without one."""
        directive = rules.deciding("noai")
        if directive is None and _is_image(response):
            directive = rules.deciding("noimageai")
        if directive is None:
            return None
        self._runtime.stats.inc_value("robotstxt/usage/page")
        source = Source("page", None, str(directive))
        stated = NO_PREFERENCES.stating(source, _NOAI)
        return f"the page's {directive}", stated

    def _headers(
        self, response: Response
    ) -> tuple[Preferences | None, Sequence[tuple[str, Preferences]]]:
        """The preferences of ``response``'s usage headers combined (U-4),
        ``None`` without any, and each header as the DEBUG line shows it
        (``the Content-Signal header 'ai-input=no'``) with its own
        preferences; each header counted in its stats."""
        headers = response.headers
        if headers.keys().isdisjoint(_HEADER_NAMES):
            return None, ()  # most responses: nothing is built for them
        found: list[Preferences] = []
        said: list[tuple[str, Preferences]] = []
        for name, kind, stat in _HEADERS:
            values = header_values(headers, name)
            if not values:
                continue
            source, statement = header_source(values, kind)  # the statement is memoised
            self._runtime.stats.inc_value(f"robotstxt/usage/{stat}")
            if statement.error is not None:
                self._runtime.stats.inc_value(f"robotstxt/usage/{stat}_invalid")
            stated = header_preferences(values, kind)  # memoised per header value
            found.append(stated)
            said.append((f"the {name.decode()} header {source.text!r}", stated))
        if not found:
            return None, said
        return found[0].combined(*found[1:]), said
