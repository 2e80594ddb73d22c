"""Fetching one origin's robots.txt through Scrapy's engine: the request,
the size limit, decompression, and the redirect and status steps of
:mod:`.policy` (RFC 9309 §2.3.1, §2.5).

The request goes through the user's downloader middlewares (proxies,
headers, download handlers apply) but is not retried, redirected or cached
by them: :class:`~.policy.Redirects` follows redirects, and the policy
decides what failures mean.
"""

from __future__ import annotations

import logging
import zlib
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, StopDownload
from scrapy.extensions.httpcache import parse_cachecontrol
from scrapy.http import Request
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.python import global_object_name
from w3lib.url import safe_url_string

from .. import policy
from ..policy import Answer, State
from ..robotstxt import cut_at_limit
from ._download_failures import reason

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from .._runtime import Runtime
    from ..policy import Origin
    from ._config import Config

logger = logging.getLogger(__name__)

#: The robots.txt request's priority, as in the built-in.
DOWNLOAD_PRIORITY = 1000
#: Response flags of a body that is not all the server sent: the download
#: stopped at the size limit (here or by decompression), or lost data.
_STOPPED = frozenset(("download_stopped", "dataloss"))
#: The bounded count of download errors, beside the per-class
#: ``robotstxt/exception_count/<class>`` keys: a class name never has a slash
#: and is written ``<class '...'>``, so it cannot clash.
EXCEPTION_TOTAL = "robotstxt/exception_count/total"
#: The classes :func:`status_class` gives: a fixed set of stats keys
#: whatever statuses the web sends.
STATUS_CLASSES = ("1xx", "2xx", "3xx", "4xx", "5xx", "other")


def status_class(status: int) -> str:
    """``"2xx"`` for a 200 (RFC 9110 §15: the first digit is the class);
    ``"other"`` for a status outside 100 to 599."""
    return f"{status // 100}xx" if 100 <= status <= 599 else "other"


@dataclass(frozen=True, slots=True)
class Fetched:
    """What one fetch found: the :class:`~.policy.Answer`, and for a 2xx
    its body, cut at ``ROBOTSTXT_RFC_MAX_BYTES``."""

    answer: Answer
    #: The (cut) body of a 2xx, ``None`` otherwise.
    body: bytes | None = None
    #: How long the copy stays fresh (:func:`.policy.lifetime`).
    fresh_for: float = policy.DEFAULT_TTL
    #: A download error (logged at ERROR, as the built-in logs it).
    error: bool = False
    #: The last response, for the spider's own request for this robots.txt
    #: (:mod:`.crawl._kept_responses`); ``None`` when the fetch ended without one (a download
    #: error, a refusal).
    response: Response | None = None
    #: Whether ``response``'s body is not all the server sent: cut at
    #: ``ROBOTSTXT_RFC_MAX_BYTES`` (HTTP-12), or the download lost data.
    cut: bool = False


@dataclass(eq=False, slots=True)
class _Receiving:
    received: int = 0
    response: Response | None = None
    #: Every downloader middleware's process_request let it through
    #: (``request_reached_downloader``): the server was asked.
    reached: bool = False


class _Refused(Exception):
    """A downloader middleware raised ``IgnoreRequest`` for the robots.txt
    request before it reached the server (docs/decisions.md "robots.txt request
    refused locally")."""

    def __init__(self, error: IgnoreRequest, by: str | None) -> None:
        super().__init__(error)
        self.error = error
        #: The import path of the middleware that raised it, when known.
        self.by = by


@dataclass(eq=False)
class Fetcher:
    """Fetches robots.txt for the middleware; counts ``robotstxt/*`` stats
    of the requests and responses."""

    runtime: Runtime
    crawler: Crawler
    config: Config
    #: robots.txt requests in flight: bytes received so far, and the
    #: response as the download handler returned it.
    _receiving: dict[Request, _Receiving] = field(default_factory=dict)
    #: Origins already named in a "was not fetched" warning.
    _warned_refused: set[Origin] = field(default_factory=set)

    async def fetch(self, key: Origin, trigger: Request) -> Fetched:
        """Fetch ``key``'s robots.txt, following redirects (HTTP-1 to
        HTTP-8, HTTP-12, HTTP-13); ``trigger`` gives the proxy and slot."""
        config = self.config
        chain = policy.Redirects(key.robots_url, config.max_redirects, clean=safe_url_string)
        self.runtime.stats.inc_value("robotstxt/fetches")
        while True:
            try:
                response = await self._download(self._request(chain.url, trigger))
            except _Refused as refused:
                by = refused.by or "a downloader middleware"
                self._warn_refused(key, chain.url, by, refused.error)
                answer = chain.ended(State.REFUSED, f"refused by {by}")
                return Fetched(answer, fresh_for=config.cache_ttl)
            except Exception as exc:
                if not isinstance(exc, IgnoreRequest):
                    self._count_exception(exc)
                answer = chain.ended(State.UNREACHABLE, reason(exc, config.timeout))
                return Fetched(answer, error=True)
            status = response.status
            self.runtime.stats.inc_value("robotstxt/response_count")
            self.runtime.stats.inc_value(f"robotstxt/response_status_count/{status}")
            self.runtime.stats.inc_value(f"robotstxt/response_status_class/{status_class(status)}")
            location = response.headers.get(b"Location")
            step = chain.follow(status, location.decode("latin-1") if location else None)
            if isinstance(step, str):
                self.runtime.stats.inc_value("robotstxt/redirects")
                continue
            return self._answered(key, step, response)

    def _count_exception(self, exc: Exception) -> None:
        """A download error, by class (as the built-in counts it: one key per
        class, so as many keys as the web has kinds of errors) and in the
        bounded total."""
        stats = self.runtime.stats
        stats.inc_value(f"robotstxt/exception_count/{type(exc)}")
        stats.inc_value(EXCEPTION_TOTAL)

    def _answered(self, key: Origin, answer: Answer, response: Response) -> Fetched:
        config = self.config
        headers = response.headers
        cut = not _STOPPED.isdisjoint(response.flags)
        if policy.classify(response.status) == "redirect":  # given up on
            return Fetched(answer, fresh_for=config.cache_ttl, response=response, cut=cut)
        cache_control = parse_cachecontrol(headers.get(b"Cache-Control") or b"")
        fresh_for = policy.lifetime(cache_control, config.cache_ttl)
        if answer.state is State.UNREACHABLE:
            hint = policy.retry_after(headers.get(b"Retry-After"), self.runtime.clock())
            return Fetched(replace(answer, retry_hint=hint), response=response, cut=cut)
        if answer.state is not State.RULES:
            return Fetched(answer, fresh_for=fresh_for, response=response, cut=cut)
        if "dataloss" in response.flags:
            # The redirects that led here still count.
            detail = "truncated body (data loss)"
            unreachable = replace(answer, state=State.UNREACHABLE, detail=detail)
            return Fetched(unreachable, response=response, cut=True)
        # HTTP-12, HTTP-13: at most max_bytes; a line cut there is dropped.
        body, truncated = cut_at_limit(response.body, config.max_bytes)
        if truncated:
            self.runtime.stats.inc_value("robotstxt/truncated")
            logger.info(
                "%(url)s is larger than ROBOTSTXT_RFC_MAX_BYTES (%(limit)d bytes); the rest is "
                "ignored (RFC 9309 §2.5)",
                {"url": key.robots_url, "limit": config.max_bytes},
                extra=self.runtime.log,
            )
        return Fetched(answer, body, fresh_for, response=response, cut=cut or truncated)

    def _warn_refused(self, key: Origin, url: str, by: str, error: IgnoreRequest) -> None:
        """docs/decisions.md "robots.txt request refused locally": one WARNING
        per origin."""
        self.runtime.stats.inc_value("robotstxt/refused")
        if key in self._warned_refused:
            return
        self._warned_refused.add(key)
        logger.warning(
            "%(url)s was not fetched: %(by)s raised %(error)r for it, so nothing was asked "
            "of the server and every request to %(origin)s is allowed, as Scrapy's "
            "built-in allows it. Let robots.txt requests through (their meta has "
            "dont_obey_robotstxt) to obey the site's rules.",
            {"url": url, "by": by, "error": error, "origin": key},
            extra=self.runtime.log,
        )

    def _request(self, url: str, trigger: Request) -> Request:
        """The robots.txt request, in the origin's download slot."""
        downloader = self.crawler.engine.downloader
        meta: dict[str, Any] = {
            "dont_obey_robotstxt": True,
            "dont_redirect": True,
            "dont_retry": True,
            "dont_cache": True,
            "handle_httpstatus_all": True,
            "allow_offsite": True,
            "download_timeout": self.config.timeout,
            # No size limit in the download handler: a Content-Length above it
            # would cancel the download instead of truncating it. The limit is
            # applied by _bytes_received (HTTP-12).
            "download_maxsize": 0,
            "download_slot": downloader.get_slot_key(trigger),
        }
        if "proxy" in trigger.meta:
            meta["proxy"] = trigger.meta["proxy"]
        self.runtime.stats.inc_value("robotstxt/request_count")
        return Request(
            url,
            priority=DOWNLOAD_PRIORITY,
            # Encodings that can be cut at ROBOTSTXT_RFC_MAX_BYTES without
            # decoding everything (see _download); Scrapy also asks for br
            # and zstd.
            headers={"Accept-Encoding": "gzip, deflate"},
            meta=meta,
            dont_filter=True,
            callback=NO_CALLBACK,
        )

    async def _download(self, request: Request) -> Response:
        """Download through the engine, capping the body (HTTP-12).

        The signal handlers are connected only while a robots.txt download
        is in flight, so that page downloads never pay for them otherwise;
        by strong references, which PyDispatcher calls without the calls of
        its weak reference to a bound method, for every download meanwhile.
        The last download to end disconnects them: nothing holds the
        fetcher once the crawl is over.
        """
        receiving = self._receiving
        handlers = (
            (self._reached_downloader, signals.request_reached_downloader),
            (self._bytes_received, signals.bytes_received),
            (self._response_downloaded, signals.response_downloaded),
        )
        if not receiving:
            for handler, signal in handlers:
                self.crawler.signals.connect(handler, signal=signal, weak=False)
        state = receiving[request] = _Receiving()
        try:
            engine = self.crawler.engine
            if hasattr(engine, "download_async"):  # Scrapy 2.14+
                response: Response = await engine.download_async(request)
            else:
                response = await maybe_deferred_to_future(engine.download(request))
        except IgnoreRequest as exc:
            if not state.reached:
                # A process_request refused it: the server was never asked.
                raise _Refused(exc, self._raised_by(exc)) from exc
            raw = state.response
            if raw is None or "decompression" not in str(exc):
                raise
            # HttpCompressionMiddleware refuses more than download_maxsize of
            # decoded body; the first max_bytes of it are still what is read.
            body = inflate(raw.body, self.config.max_bytes + 1)
            if body is None:
                raise
            headers = raw.headers.copy()
            headers.pop(b"Content-Encoding", None)
            return raw.replace(body=body, headers=headers, flags=[*raw.flags, "download_stopped"])
        finally:
            del receiving[request]
            if not receiving:
                for handler, signal in handlers:
                    self.crawler.signals.disconnect(handler, signal=signal, weak=False)
        return response

    def _raised_by(self, exc: BaseException) -> str | None:
        """The import path of the downloader middleware whose
        ``process_request`` raised ``exc``; ``None`` if unknown.

        Scrapy hands the caller the exception alone: nothing on it, nor in
        the request, names the middleware that raised it (Scrapy 2.13 to
        2.19). Its traceback does: the innermost frame that runs the code of
        a middleware's ``process_request``, as Scrapy's downloader middleware
        manager lists them. A middleware whose ``process_request`` returns
        a Deferred that fails later has no such frame: ``None``, and the
        warning says "a downloader middleware".
        """
        methods = self.crawler.engine.downloader.middleware.methods["process_request"]
        codes = {}
        for method in methods:
            code = getattr(getattr(method, "__func__", method), "__code__", None)
            owner = getattr(method, "__self__", None)
            if code is not None and owner is not None:
                codes[code] = owner
        found = None
        tb = exc.__traceback__
        while tb is not None:
            owner = codes.get(tb.tb_frame.f_code)
            if owner is not None:
                found = owner  # the innermost one raised it
            tb = tb.tb_next
        return None if found is None else global_object_name(type(found))

    # The three signal handlers take **kwargs: PyDispatcher then passes the
    # signal's arguments as they are instead of matching them to the
    # parameters, for every download while a robots.txt one is in flight.

    def _reached_downloader(self, request: Request, **kwargs: Any) -> None:
        state = self._receiving.get(request)
        if state is not None:
            state.reached = True

    def _bytes_received(self, data: bytes, request: Request, **kwargs: Any) -> None:
        state = self._receiving.get(request)
        if state is None:
            return
        limit = self.config.max_bytes
        if not state.received:
            # The download handler has read download_maxsize (0) by now;
            # HttpCompressionMiddleware reads it later and must stop
            # decoding at the limit: a gzip bomb never enters memory.
            request.meta["download_maxsize"] = limit
        state.received += len(data)
        if state.received > limit:
            raise StopDownload(fail=False)

    def _response_downloaded(self, response: Response, request: Request, **kwargs: Any) -> None:
        state = self._receiving.get(request)
        if state is not None:
            state.response = response


def inflate(raw: bytes, limit: int) -> bytes | None:
    """The first ``limit`` bytes of a gzip, zlib or raw deflate ``raw``."""
    for wbits in (47, -15):  # 47: gzip or zlib, detected from the header
        try:
            return zlib.decompressobj(wbits).decompress(raw, limit)
        except zlib.error:
            continue
    return None
