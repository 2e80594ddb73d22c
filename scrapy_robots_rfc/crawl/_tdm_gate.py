"""TDM reservations in a crawl that mines (``ROBOTSTXT_RFC_TDM``; W3C TDM
Reservation Protocol; T-1 to T-5). Built only when the setting is on: a
crawl that does not mine pays nothing, no request for the file, no work per
request or response.

Before download, :meth:`TdmGate.decide` reads the origin's TDMRep file
from the cache (a hit), as :class:`.Verdicts` reads robots.txt: a URL its
first matching rule reserves (``tdm-reservation`` 1, T-3) is not
downloaded (:class:`.Reserved`: ``robotstxt/tdm/reserved``, a DEBUG line,
:class:`.TdmReserved`); any other URL goes with the file's value in
``request.meta`` (:data:`.TDM_META_KEY`). While the origin's file is
undecided the request waits for it, as for robots.txt (:class:`.Waits`).

After download, :meth:`TdmGate.on_response` adds what the response says:
its ``tdm-reservation`` and ``tdm-policy`` header fields, then, for an HTML
page, its ``<meta name="tdm-reservation">`` and ``<meta name="tdm-policy">``
tags (each superseding, T-1), and leaves the final :class:`.TdmValue` in
``response.meta`` (:data:`.TDM_META_KEY`) for the spider and pipelines. A
page reserved so keeps its links, but the
:class:`~scrapy_robots_rfc.TdmReservationMiddleware` spider middleware keeps
its items from the pipeline (T-4).

A request with ``dont_obey_robotstxt`` is not checked, and its response not
read: the key that takes a request out of this package's hands does so for
TDM too.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from scrapy.http import HtmlResponse
from w3lib.encoding import http_content_type_encoding

from .._logging import reaches_a_handler
from ..pagerules import head_end, meta_tags
from ..policy import TDMREP_JSON, Target
from ..tdmrep import (
    TDM_META_KEY,
    TDM_POLICY,
    TDM_RESERVATION,
    UNSET,
    TdmValue,
    header_statement,
    meta_statement,
)
from ._headers import header_name, header_values
from ._outcomes import ALLOWED, Allowed, Reserved

if TYPE_CHECKING:
    from scrapy.http import Request, Response

    from .._runtime import Runtime
    from ..policy import LruCache, Origin, Origins, TdmEntry
    from ..robotstxt import Token
    from ._config import Config
    from ._report import Report
    from ._verdicts import Refresher

logger = logging.getLogger(__name__)

_RESERVATION = header_name(TDM_RESERVATION.encode())
_POLICY = header_name(TDM_POLICY.encode())
#: A ``<meta>`` tag of TDMRep may be in the head: the only pages whose head
#: is parsed (most pages have none, and are searched in place).
_TDM_META = re.compile(rb"<meta\b[^>]*?\bname\s*=\s*[\"']?\s*tdm-", re.IGNORECASE)


class TdmGate:
    """The TDMRep file's verdicts from the cache, and the value of each
    response; ``refresher`` fetches a file whose retry is due."""

    def __init__(
        self,
        runtime: Runtime,
        config: Config,
        *,
        cache: LruCache[Origin, TdmEntry],
        origins: Origins,
        report: Report,
        refresher: Refresher,
    ) -> None:
        self._runtime = runtime
        self._cache = cache
        self._origins = origins
        self._report = report
        self._refresher = refresher
        #: ``ROBOTSTXT_RFC_UNREACHABLE_DAYS`` in seconds.
        self._allow_after = config.allow_after

    # -- before download ---------------------------------------------------

    def decide(self, key: Origin, request: Request, token: Token) -> Allowed | Reserved | None:
        """``request``'s value from its origin's file in the cache now:
        reserved, or allowed with the file's value in its meta; ``None``
        while the file is undecided (not fetched, due, or not known)."""
        found = self._cache.get(key)
        if found is None:
            return None
        entry = found.entry
        now = self._runtime.clock()
        if entry.unreachable_since is None:
            if now >= entry.expires:
                return None
        else:
            # Not known (T-2): its requests wait, unless a good copy stays in
            # force, or it stayed so for ROBOTSTXT_RFC_UNREACHABLE_DAYS.
            if not entry.usable(now, self._allow_after):
                return None
            if entry.due(now):
                self._refresher.need(Target(key, TDMREP_JSON), request, token)
        self._cache.touch(key)
        value = found.value(request.url)
        if value.reserved:
            self._reserved(key, request, value)
            return Reserved(value)
        request.meta[TDM_META_KEY] = value
        return ALLOWED

    def _reserved(self, key: Origin, request: Request, value: TdmValue) -> None:
        """Count a request the file reserves, and say why at DEBUG."""
        self._runtime.stats.inc_value("robotstxt/tdm/reserved")
        self._report.row(key).tdm_reserved += 1
        if reaches_a_handler(logger, logging.DEBUG):
            logger.debug(
                "TDM rights reserved, not downloaded: %(request)s: %(value)s of %(file)s",
                {"request": request, "value": value, "file": Target(key, TDMREP_JSON).url},
                extra=self._runtime.log,
            )

    # -- after download ----------------------------------------------------

    def on_response(self, request: Request, response: Response) -> None:
        """Set ``response``'s final value in its meta: the file's value,
        superseded by its header fields, then its HTML meta tags (T-1)."""
        meta = request.meta
        if meta.get("dont_obey_robotstxt"):
            return
        value = meta.get(TDM_META_KEY)
        if not isinstance(value, TdmValue) or len(value.statements) != 1:
            # Not checked before download: no origin, or a value another
            # response's meta carried over. process_request leaves the file's
            # statement alone in it.
            value = UNSET
        headers = response.headers
        reservation = header_values(headers, _RESERVATION)
        policy = header_values(headers, _POLICY)
        if reservation or policy:
            value = value.superseded(header_statement(reservation, policy))
        if isinstance(response, HtmlResponse):
            body = response.body
            end = head_end(body)
            if _TDM_META.search(body, 0, end) is not None:
                raw = headers.get(b"Content-Type")
                encoding = http_content_type_encoding(raw.decode("latin-1")) if raw else None
                value = value.superseded(meta_statement(meta_tags(body[:end], encoding)))
        meta[TDM_META_KEY] = value
        if value.reserved:
            self._page_reserved(response, value)

    def _page_reserved(self, response: Response, value: TdmValue) -> None:
        """A page its own header or meta reserves: counted, and said at
        DEBUG; its items are kept from the pipeline by the spider
        middleware, its links still followed (T-4)."""
        source = value.source
        kind = "header" if source is not None and source.kind == "header" else "meta"
        self._runtime.stats.inc_value(f"robotstxt/tdm/page_reserved/{kind}")
        key = self._origins(response.url)
        if key is not None:
            self._report.row(key).tdm_pages_reserved += 1
        if reaches_a_handler(logger, logging.DEBUG):
            logger.debug(
                "TDM rights reserved by the page: %(response)s: %(value)s; its items will not "
                "reach the pipeline, its links are followed",
                {"response": response, "value": value},
                extra=self._runtime.log,
            )

    def item_from(self, response: Response, item: Any) -> Any:
        """``item``, yielded by a callback for ``response``, or ``None`` to
        keep it from the pipeline: the page's final value reserves its TDM
        rights (T-4)."""
        try:
            value = response.meta.get(TDM_META_KEY)
        except AttributeError:  # a response without its request
            return item
        if not isinstance(value, TdmValue) or not value.reserved:
            return item
        self._runtime.stats.inc_value("robotstxt/tdm/items_dropped")
        key = self._origins(response.url)
        if key is not None:
            self._report.row(key).tdm_items_dropped += 1
        if reaches_a_handler(logger, logging.DEBUG):
            logger.debug(
                "Dropped an item (%(type)s) from %(page)s: TDM rights reserved, %(value)s",
                {"type": type(item).__name__, "page": response, "value": value},
                extra=self._runtime.log,
            )
        return None

    # -- views ---------------------------------------------------------------

    def outcome(self, url: str) -> str | None:
        """What the last fetch of ``url``'s origin's file found, in words;
        ``None`` before any."""
        key = self._origins(url)
        found = None if key is None else self._cache.get(key)
        return None if found is None else found.entry.outcome
