"""Fetching one origin's robots.txt through Scrapy's engine: the request,
the size limit, decompression, and the redirect and status steps of
:mod:`.policy` (RFC 9309 §2.3.1, §2.5).

The request goes through the user's downloader middlewares (proxies,
headers, download handlers apply) but is not retried, redirected or cached
by them: :class:`~.policy.Redirects` follows redirects, and the policy
decides what failures mean.

The size limit (RFC 9309 §2.5, HTTP-12) bounds memory whatever the server
sends: the download handler holds the body it receives, and a handler of
the ``bytes_received`` signal stops the download (``StopDownload``) once
more than ``ROBOTSTXT_RFC_MAX_BYTES`` has come, or, for an encoded body,
once more than that is decoded (:mod:`.crawl._content_encoding`, fed as
the bytes come). So the fetch holds at most about twice the limit: the
bytes received, and the body decoded from them or cut from them. The
request has no ``download_maxsize`` (a ``Content-Length`` above it would
cancel the download instead of reading its first bytes) nor
``download_warnsize`` (the body read is never more than the limit), so that
Scrapy logs neither for it, and ``DOWNLOAD_MAXSIZE`` and
``DOWNLOAD_WARNSIZE``, whatever their values, apply to pages only: Scrapy
reads both from a request's meta first.
"""

from __future__ import annotations

import gc
import logging
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, StopDownload
from scrapy.extensions.httpcache import parse_cachecontrol
from scrapy.http import Request
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.python import global_object_name
from twisted.internet.defer import Deferred
from w3lib.url import safe_url_string

from .. import policy
from ..policy import ROBOTS_TXT, Answer, State, Target
from ..robotstxt import cut_at_limit
from ._content_encoding import DecodedBody
from ._download_failures import reason

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Headers, Response

    from .._runtime import Runtime
    from ..policy import Document, Origin
    from ._config import Config

logger = logging.getLogger(__name__)

#: The ``meta`` key that marks the request of a document other than
#: robots.txt (the TDMRep file), with its title: ``scrapy robots`` tells its
#: hops from robots.txt's.
DOCUMENT_KEY = "_robotstxt_rfc_document"
#: The robots.txt request's priority, as in the built-in.
DOWNLOAD_PRIORITY = 1000
#: Response flags of a body that is not all the server sent: the download
#: stopped at the size limit (here or by decompression), or lost data.
_STOPPED = frozenset(("download_stopped", "dataloss"))
#: The bounded count of download errors, beside the per-class
#: ``robotstxt/exception_count/<class>`` keys: a class name never has a slash
#: and is written ``<class '...'>``, so it cannot clash.
EXCEPTION_TOTAL = "robotstxt/exception_count/total"


def status_class(status: int) -> str:
    """``"2xx"`` for a 200 (RFC 9110 §15: the first digit is the class);
    ``"other"`` for a status outside 100 to 599: a fixed set of stats keys
    whatever statuses the web sends."""
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
    """One robots.txt download in flight, as the download signals see it."""

    #: Bytes of the body received so far (as sent: encoded or not).
    received: int = 0
    #: Every downloader middleware's process_request let it through
    #: (``request_reached_downloader``): the server was asked.
    reached: bool = False
    #: The body decoded as it comes, when its ``Content-Encoding`` is one
    #: :mod:`.crawl._content_encoding` decodes (``headers_received``).
    decoded: DecodedBody | None = None
    #: The body's length as its ``Content-Length`` header gives it, if it
    #: does (``headers_received``).
    expected: int | None = None
    #: The response has come whole (``response_downloaded``).
    downloaded: bool = False

    @property
    def whole(self) -> bool:
        """Every byte of the response is here: the download handler has
        handed it over, or the body received is as long as its
        ``Content-Length`` says."""
        expected = self.expected
        return self.downloaded or (expected is not None and self.received >= expected)


@dataclass(frozen=True, slots=True)
class _Downloaded:
    """A response as the fetch reads it: its body decoded and at most the
    limit and one byte long."""

    response: Response
    #: Whether the body is not all the server sent: the download stopped at
    #: the limit (here, or decoding), or lost data.
    stopped: bool
    #: The coding the body was decoded from ("gzip"), and how many bytes of
    #: it were received; ``None`` for a body that was not encoded.
    decoded_from: tuple[str, int] | None = None
    #: Why the encoded body was not read to its end: damaged after some of
    #: it decoded (that part is read), or at once (none is).
    damage: str | None = None


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
    #: The document fetched: robots.txt, or (a second fetcher, with its own
    #: stats under ``robotstxt/tdm/``) the TDMRep file.
    document: Document = ROBOTS_TXT
    #: robots.txt requests in flight, as the download signals see them.
    _receiving: dict[Request, _Receiving] = field(default_factory=dict)
    #: Origins already named in a "was not fetched" warning.
    _warned_refused: set[Origin] = field(default_factory=set)
    #: The download in flight of each origin's robots.txt.
    _downloading: dict[Origin, _Receiving] = field(default_factory=dict)

    def downloaded(self, key: Origin) -> bool:
        """Whether the robots.txt download of ``key`` in flight has its
        response whole: what is left of it is this crawler's own work."""
        state = self._downloading.get(key)
        return state is not None and state.whole

    async def fetch(self, key: Origin, trigger: Request) -> Fetched:
        """Fetch ``key``'s robots.txt, following redirects (HTTP-1 to
        HTTP-8, HTTP-12, HTTP-13); ``trigger`` gives the proxy and slot."""
        config = self.config
        url = Target(key, self.document).url
        chain = policy.Redirects(url, config.max_redirects, clean=safe_url_string)
        stat = self._stat
        self.runtime.stats.inc_value(stat("robotstxt/fetches"))
        while True:
            try:
                downloaded = await self._download(self._request(chain.url, trigger), key)
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
            response = downloaded.response
            status = response.status
            self.runtime.stats.inc_value(stat("robotstxt/response_count"))
            self.runtime.stats.inc_value(stat(f"robotstxt/response_status_count/{status}"))
            self.runtime.stats.inc_value(
                stat(f"robotstxt/response_status_class/{status_class(status)}")
            )
            location = response.headers.get(b"Location")
            step = chain.follow(status, location.decode("latin-1") if location else None)
            if isinstance(step, str):
                self.runtime.stats.inc_value(stat("robotstxt/redirects"))
                continue
            fetched = self._answered(key, step, downloaded)
            if fetched.cut:
                del downloaded, response
                await self._let_go()
            return fetched

    def _stat(self, name: str) -> str:
        """The stat ``name`` of robots.txt fetches, or its twin under
        ``robotstxt/tdm/`` for the TDMRep file's."""
        if self.document is ROBOTS_TXT:
            return name
        return "robotstxt/tdm/" + name.removeprefix("robotstxt/")

    async def _let_go(self) -> None:
        """Let go of the body as received once the body read is cut from it,
        before the body read is parsed: the parse then never has both in
        memory.

        Two things still hold it when the fetch ends. The download's Future
        holds the response until its done callbacks run, on the next turn
        of the event loop: one turn is taken. And Scrapy keeps the
        ``StopDownload`` that stopped the download in a Twisted ``Failure``
        in a local variable of the function that caught it: a reference
        cycle of frames, up to the download handler's ``dataReceived``,
        which holds the body (Scrapy 2.13 to 2.19). Only the garbage
        collector frees a cycle; the cycle is a few moments old, so a
        collection of the two young generations (well under a millisecond)
        finds it. Only a body larger than the limit pays for this."""
        turned: Deferred[None] = Deferred()
        self.runtime.call_later(0, lambda: turned.callback(None))
        await maybe_deferred_to_future(turned)
        gc.collect(1)

    def _count_exception(self, exc: Exception) -> None:
        """A download error, by class (as the built-in counts it: one key per
        class, so as many keys as the web has kinds of errors) and in the
        bounded total."""
        stats = self.runtime.stats
        stats.inc_value(self._stat(f"robotstxt/exception_count/{type(exc)}"))
        stats.inc_value(self._stat(EXCEPTION_TOTAL))

    def _answered(self, key: Origin, answer: Answer, downloaded: _Downloaded) -> Fetched:
        config = self.config
        response = downloaded.response
        headers = response.headers
        cut = downloaded.stopped or not _STOPPED.isdisjoint(response.flags)
        # A cut body is never handed to the spider (:mod:`.crawl._kept_responses`):
        # what is kept of the response goes without it.
        kept = _without_body(response) if cut else response
        if policy.classify(response.status) == "redirect":  # given up on
            return Fetched(answer, fresh_for=config.cache_ttl, response=kept, cut=cut)
        cache_control = parse_cachecontrol(headers.get(b"Cache-Control") or b"")
        fresh_for = policy.lifetime(cache_control, config.cache_ttl)
        if answer.state is State.UNREACHABLE:
            hint = policy.retry_after(headers.get(b"Retry-After"), self.runtime.clock())
            return Fetched(replace(answer, retry_hint=hint), response=kept, cut=cut)
        if answer.state is not State.RULES:
            return Fetched(answer, fresh_for=fresh_for, response=kept, cut=cut)
        if "dataloss" in response.flags:
            # The redirects that led here still count.
            detail = "truncated body (data loss)"
            unreachable = replace(answer, state=State.UNREACHABLE, detail=detail)
            return Fetched(unreachable, response=kept, cut=True)
        if downloaded.damage is not None and not response.body:
            assert downloaded.decoded_from is not None
            coding = downloaded.decoded_from[0]
            detail = f"its {coding} body cannot be decoded ({downloaded.damage})"
            unreachable = replace(answer, state=State.UNREACHABLE, detail=detail)
            return Fetched(unreachable, response=kept, cut=True)
        # HTTP-12, HTTP-13: at most max_bytes; a line cut there is dropped.
        body, truncated = cut_at_limit(response.body, config.max_bytes)
        if downloaded.stopped and not truncated:
            # Stopped short of the limit (a damaged encoded body, or more
            # than the limit received that decodes to less): its last line
            # may be cut too (HTTP-13).
            body = body[: max(body.rfind(b"\n"), body.rfind(b"\r")) + 1]
        if truncated:
            self.runtime.stats.inc_value(self._stat("robotstxt/truncated"))
            if self.document is ROBOTS_TXT:  # a cut TDMRep file is not read (T-2)
                self._say_truncated(key, downloaded)
        elif downloaded.damage is not None and self.document is ROBOTS_TXT:
            self._say_damaged(key, downloaded, len(body))
        if truncated and not cut:
            kept = _without_body(response)
        return Fetched(answer, body, fresh_for, response=kept, cut=cut or truncated)

    def _say_truncated(self, key: Origin, downloaded: _Downloaded) -> None:
        """RFC 9309 §2.5: the INFO line of a body larger than the limit,
        saying what was read of it (all that is downloaded of it)."""
        limit = self.config.max_bytes
        if downloaded.decoded_from is None:
            how = "its download stopped there"
        else:
            coding, received = downloaded.decoded_from
            how = (
                f"its download stopped there, after {received:,} bytes of {coding}-encoded "
                "body, decoded as they came"
            )
        logger.info(
            "%(url)s is larger than ROBOTSTXT_RFC_MAX_BYTES (%(limit)s bytes): %(how)s, and "
            "the rules in its first %(limit)s bytes are used; the rest is ignored "
            "(RFC 9309 §2.5)",
            {"url": key.robots_url, "limit": f"{limit:,}", "how": how},
            extra=self.runtime.log,
        )

    def _say_damaged(self, key: Origin, downloaded: _Downloaded, read: int) -> None:
        """The WARNING of an encoded body damaged after some of it decoded:
        what decoded before the damage is read, as Scrapy's
        ``HttpCompressionMiddleware`` reads a damaged gzip body."""
        assert downloaded.decoded_from is not None
        logger.warning(
            "%(url)s: its %(coding)s body is damaged (%(damage)s); the %(read)s bytes "
            "decoded before the damage are used, up to their last whole line",
            {
                "url": key.robots_url,
                "coding": downloaded.decoded_from[0],
                "damage": downloaded.damage,
                "read": f"{read:,}",
            },
            extra=self.runtime.log,
        )

    def _warn_refused(self, key: Origin, url: str, by: str, error: IgnoreRequest) -> None:
        """docs/decisions.md "robots.txt request refused locally": one WARNING
        per origin."""
        self.runtime.stats.inc_value(self._stat("robotstxt/refused"))
        if key in self._warned_refused:
            return
        self._warned_refused.add(key)
        logger.warning(
            "%(url)s was not fetched: %(by)s raised %(error)r for it, so nothing was asked "
            "of the server and %(means)s. Let %(title)s requests through (their meta has "
            "dont_obey_robotstxt) to obey the site's rules.",
            {
                "url": url,
                "by": by,
                "error": error,
                "means": (
                    f"every request to {key} is allowed, as Scrapy's built-in allows it"
                    if self.document is ROBOTS_TXT
                    else f"the URLs of {key} are unset for TDM (no file known)"
                ),
                "title": self.document.title,
            },
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
            # applied by _bytes_received (HTTP-12), which also sets this to
            # the limit once the handler has read it, for a coding that
            # HttpCompressionMiddleware decodes instead of this module.
            "download_maxsize": 0,
            # Nor a warning size: the body read is at most the limit, and
            # the INFO line of a larger body says how much was read.
            "download_warnsize": 0,
            "download_slot": downloader.get_slot_key(trigger),
        }
        if self.document is not ROBOTS_TXT:
            meta[DOCUMENT_KEY] = self.document.title
        if "proxy" in trigger.meta:
            meta["proxy"] = trigger.meta["proxy"]
        self.runtime.stats.inc_value(self._stat("robotstxt/request_count"))
        return Request(
            url,
            priority=DOWNLOAD_PRIORITY,
            # The codings every install decodes (zlib); a server that sends
            # br or zstd anyway is decoded too when their module is
            # installed (:mod:`.crawl._content_encoding`).
            headers={"Accept-Encoding": "gzip, deflate"},
            meta=meta,
            dont_filter=True,
            callback=NO_CALLBACK,
        )

    async def _download(self, request: Request, key: Origin) -> _Downloaded:
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
            (self._headers_received, signals.headers_received),
            (self._bytes_received, signals.bytes_received),
            (self._response_downloaded, signals.response_downloaded),
        )
        if not receiving:
            for handler, signal in handlers:
                self.crawler.signals.connect(handler, signal=signal, weak=False)
        state = receiving[request] = self._downloading[key] = _Receiving()
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
            raise
        finally:
            del receiving[request]
            if self._downloading.get(key) is state:
                del self._downloading[key]
            if not receiving:
                for handler, signal in handlers:
                    self.crawler.signals.disconnect(handler, signal=signal, weak=False)
        decoded = state.decoded
        if decoded is None:
            return _Downloaded(response, stopped=state.received > self.config.max_bytes)
        body = decoded.body()
        return _Downloaded(
            _with_body(response, body),
            stopped=decoded.stopped or state.received > self.config.max_bytes,
            decoded_from=(", ".join(decoded.codings), decoded.received),
            damage=decoded.damage,
        )

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

    # The signal handlers take **kwargs: PyDispatcher then passes the
    # signal's arguments as they are instead of matching them to the
    # parameters, for every download while a robots.txt one is in flight.

    def _reached_downloader(self, request: Request, **kwargs: Any) -> None:
        state = self._receiving.get(request)
        if state is not None:
            state.reached = True

    def _headers_received(self, headers: Headers, request: Request, **kwargs: Any) -> None:
        state = self._receiving.get(request)
        if state is not None:
            length = headers.get(b"Content-Length")
            if length is not None and length.isdigit():
                state.expected = int(length)
            encoding = headers.getlist(b"Content-Encoding")
            if encoding:
                state.decoded = DecodedBody.of(encoding, self.config.max_bytes)

    def _bytes_received(self, data: bytes, request: Request, **kwargs: Any) -> None:
        state = self._receiving.get(request)
        if state is None:
            return
        limit = self.config.max_bytes
        if not state.received:
            # The download handler has read download_maxsize (0) by now;
            # HttpCompressionMiddleware reads it later, and stops at the
            # limit a coding that DecodedBody does not decode.
            request.meta["download_maxsize"] = limit
        state.received += len(data)
        decoded = state.decoded
        if (decoded is not None and decoded.feed(data)) or state.received > limit:
            raise StopDownload(fail=False)

    def _response_downloaded(self, response: Response, request: Request, **kwargs: Any) -> None:
        state = self._receiving.get(request)
        if state is None:
            return
        state.downloaded = True
        if state.decoded is not None:
            # The body is decoded here, as it came: HttpCompressionMiddleware
            # must not decode it again, whole, and call it "Ignored" past its
            # DOWNLOAD_MAXSIZE. It decodes only what the Content-Encoding
            # header names, and Scrapy gives it no other way to skip a
            # response (2.13 to 2.19): the header goes. The fetch's response
            # gets the decoded body (_download).
            del response.headers[b"Content-Encoding"]


def _with_body(response: Response, body: bytes) -> Response:
    """``response`` with ``body`` instead of its own. Not ``replace()``: for
    a ``TextResponse`` it reads every attribute, ``encoding`` too, which
    decodes the whole body to guess it (as much memory again as the body,
    or four times that); the copy guesses it later, if it is asked."""
    kwargs = {
        name: getattr(response, name)
        for name in response.attributes
        if name not in ("body", "encoding")
    }
    return type(response)(body=body, **kwargs)


def _without_body(response: Response) -> Response:
    """``response`` without its body, which nothing reads once it is cut."""
    return _with_body(response, b"")
