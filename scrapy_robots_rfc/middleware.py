"""The downloader middleware: robots.txt per origin, fetched through Scrapy's
engine, with the status policy of RFC 9309 §2.3.1 and a bounded cache.

How a request travels (README.rst, "How it works"):

1. ``process_request`` finds the request's origin (RFC 9309 §2.3; LOC-2).
   With a usable copy of that origin's robots.txt in the cache, the verdict
   is immediate: ``None`` or ``IgnoreRequest("Forbidden by robots.txt")``.
2. Otherwise the robots.txt fetch starts (once per origin) and the request
   leaves the downloader, so that it holds none of ``CONCURRENT_REQUESTS``
   while it waits: ``process_request`` returns a copy of it, the engine
   schedules the copy, and the ``request_scheduled`` handler takes it out
   of the scheduler into the origin's waiting list.
3. When the origin is decided, its waiting requests go back to the engine
   with ``engine.crawl`` and come through step 1 again. A request still
   waiting after ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` seconds goes back marked
   to be dropped, so that its errback sees the ``IgnoreRequest``.

Requests downloaded with ``engine.download`` (media pipelines, for example)
never pass the scheduler; those wait inside ``process_request``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import pickle
import time
import zlib
from collections import Counter, OrderedDict, deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, cast
from urllib.parse import urljoin, urlsplit

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, NotConfigured, StopDownload
from scrapy.extensions.httpcache import parse_cachecontrol
from scrapy.http import Request
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from scrapy.utils.python import global_object_name
from scrapy.utils.request import request_from_dict
from twisted.internet.defer import Deferred
from w3lib.url import safe_url_string

from . import policy
from .agents import ascii_lower, caller_name, name_problem, product_token
from .config import Config
from .matcher import ROBOTS_TXT_PATH, canonical_match_string
from .parser import RobotsTxt, cut_at_limit
from .robotparser import RobotParser
from .stores import open_store, store_close
from .stores.base import Record, Store, StoreError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Self

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.threadpool import ThreadPool

    from .matcher import AgentRules

logger = logging.getLogger(__name__)

#: LOC-3: a default port is the same as no port.
_DEFAULT_PORTS = {"http": 80, "https": 443}
#: Set on a request that waited longer than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``
#: and was sent back to the engine to be dropped; kept in ``meta`` so that it
#: survives a disk queue.
_DROP = "_robotstxt_rfc_drop"
#: Set by the ``request_scheduled`` handler and taken off again by
#: ``process_request``: the request came through the scheduler, so it can be
#: sent back to it to wait. A ``meta`` key rather than the request's identity,
#: because a ``JOBDIR`` disk queue gives back a new object.
_SCHEDULED = "_robotstxt_rfc_scheduled"
#: On a request that was sent back to the scheduler with ``dont_filter``
#: set only for that; ``process_request`` clears the flag again, so that
#: redirects and offsite filtering treat it as the user made it.
_FILTER = "_robotstxt_rfc_filter"
#: ``JOBDIR`` file for requests still waiting when the crawl pauses.
_JOBDIR_FILE = "robotstxt_rfc.waiting"
_ORIGIN_MEMO = 4096
#: Seconds between looks at the store while another crawler fetches.
_STORE_POLL = 0.5


class Origin(NamedTuple):
    """The scope of one robots.txt file: scheme, lower-case IDNA host, port
    (RFC 9309 §2.3; LOC-2, LOC-3, LOC-4, LOC-8: userinfo is dropped)."""

    scheme: str
    host: str
    port: int

    @property
    def robots_url(self) -> str:
        """``scheme://host[:port]/robots.txt`` (LOC-1)."""
        return f"{self}{ROBOTS_TXT_PATH}"

    def __str__(self) -> str:
        if self.port == _DEFAULT_PORTS[self.scheme]:
            return f"{self.scheme}://{self.host}"
        return f"{self.scheme}://{self.host}:{self.port}"


def origin(url: str) -> Origin | None:
    """The origin of ``url``, or ``None`` when robots.txt does not apply.

    Only ``http`` and ``https`` are checked (LOC-7); a URL without a host or
    with an invalid port has no origin either, and Scrapy's own download
    fails on it.

    >>> origin("HTTP://User:pw@Exämple.COM:80/a?b")
    Origin(scheme='http', host='xn--exmple-cua.com', port=80)
    >>> str(origin("https://example.com:8443/"))
    'https://example.com:8443'
    >>> origin("ftp://example.com/") is None
    True
    """
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        default = _DEFAULT_PORTS.get(scheme)
        if default is None:
            return None
        host = parts.hostname
        port = parts.port or default
    except ValueError:
        return None
    if not host:
        return None
    if ":" in host:
        host = f"[{host}]"  # IPv6 literal
    elif not host.isascii():
        host = _idna(host)
    return Origin(scheme, host, port)


def _idna(host: str) -> str:
    """LOC-4: an IDN host is the same as its punycode form."""
    import idna

    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError:
        try:
            return host.encode("idna").decode("ascii")
        except UnicodeError:
            return host


@dataclass(eq=False, slots=True)
class _Receiving:
    received: int = 0
    response: Response | None = None
    #: Every downloader middleware's process_request let it through
    #: (``request_reached_downloader``): the server was asked.
    reached: bool = False


class _Refused(Exception):
    """A downloader middleware raised ``IgnoreRequest`` for the robots.txt
    request before it reached the server (DECISIONS.md "robots.txt request
    refused locally")."""

    def __init__(self, error: IgnoreRequest, by: str | None) -> None:
        super().__init__(error)
        self.error = error
        #: The import path of the middleware that raised it, when known.
        self.by = by


@dataclass(eq=False)
class _Waiting:
    """An origin whose robots.txt is being fetched, or is unreachable, and
    the requests that wait for it."""

    #: The request that triggered the current fetch: its proxy and slot are
    #: used, and ``robots_parsed`` receives it.
    trigger: Request
    fetching: bool = False
    #: Requests taken out of the scheduler, with when they began to wait
    #: (``time.monotonic``), oldest first.
    parked: deque[tuple[Request, float]] = field(default_factory=deque)
    #: Deferreds of requests waiting inside ``process_request``, the same
    #: way; fired with ``None`` to decide again, or a reason to drop.
    in_place: deque[tuple[Deferred[str | None], float]] = field(default_factory=deque)
    #: Product tokens the next parse must keep rules for.
    tokens: set[str] = field(default_factory=set)
    #: When a fetch first found the origin unreachable (``time.monotonic``):
    #: ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` counts from here or from when the
    #: request began to wait, whichever is later; a first fetch that is only
    #: slow never drops anything.
    unreachable_at: float | None = None
    retry_timer: Any = None
    drop_timer: Any = None
    #: What the current fetch found, for the store: the (cut) body of a
    #: 2xx, and the last status.
    body: bytes | None = None
    status: int | None = None


#: A row's ``kind``: what its last outcome means, before any rule is looked
#: at. ``None`` while no fetch has decided the origin yet.
_KINDS = {
    "rules": "rules",
    "allow_all": "allow all",
    "refused": "refused locally",
    "unreachable": "unreachable",
    "unreachable_last_good": "unreachable with a good copy",
    None: "undecided",
}


@dataclass(eq=False, slots=True)
class _Row:
    """One origin's line of the end-of-crawl report (``ROBOTSTXT_RFC_REPORT``)."""

    kind: str | None = None
    #: ``policy.Entry.outcome`` of the last fetch: "200", "404: allow all"...
    outcome: str | None = None
    #: Where the rules came from (LOC-9: the end of the redirects).
    robots_url: str | None = None
    #: robots.txt fetches: a redirect chain is one fetch.
    fetches: int = 0
    redirects: int = 0
    forbidden: int = 0
    waited: int = 0
    dropped: int = 0
    #: The download slot delay set from ``crawl-delay``, if any.
    crawl_delay: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


class RobotsTxtMiddleware:
    """Drop-in replacement for Scrapy's ``RobotsTxtMiddleware`` that follows
    RFC 9309 and Google's robots.txt specification (DECISIONS.md)."""

    #: The robots.txt request's priority, as in the built-in.
    DOWNLOAD_PRIORITY = 1000

    def __init__(self, crawler: Crawler) -> None:
        if not crawler.settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured
        self.crawler = crawler
        self.config = Config.from_settings(crawler.settings)
        assert crawler.stats is not None
        self._stats = crawler.stats
        #: The time source for cache lifetimes; tests replace it.
        self.clock: Callable[[], float] = time.time
        self._cache: OrderedDict[Origin, policy.Entry] = OrderedDict()
        self._waiting: dict[Origin, _Waiting] = {}
        #: Copies returned by ``process_request`` that the
        #: ``request_scheduled`` handler is to park.
        self._to_park: dict[Request, Origin] = {}
        #: robots.txt requests in flight: bytes received so far, and the
        #: response as the download handler returned it.
        self._receiving: dict[Request, _Receiving] = {}
        self._origins: dict[str, Origin | None] = {}
        #: Origins already named in a "Dropping requests" warning.
        self._warned: set[Origin] = set()
        #: Origins already named in a "was not fetched" warning.
        self._warned_refused: set[Origin] = set()
        #: Names already warned about.
        self._warned_names: set[str] = set()
        #: User-Agent header -> the crawler's name in it, lower-cased.
        self._tokens: dict[bytes, str] = {}
        #: The crawler's name (DECISIONS.md "crawler name"): as given in
        #: ROBOTSTXT_USER_AGENT, else the product of USER_AGENT that names it.
        if self.config.robots_user_agent is not None:
            name = self.config.robots_user_agent
            self._name = self._checked_name(name, "ROBOTSTXT_USER_AGENT")
        else:
            name = product_token(self.config.user_agent)
            self._name = self._checked_name(name, f"USER_AGENT {self.config.user_agent!r}")
        #: Its lower-cased form, the key of an entry's rules.
        self._default_token = ascii_lower(self._name)
        _warn_about_robotstxt_parser(crawler, self.config.mode)
        self._spider: Spider | None = None
        self._allow_after = self.config.unreachable_days * 86400
        self._pool: ThreadPool | None = None
        self._abandoned: list[Store] = []
        #: ``ROBOTSTXT_RFC_STORE``; ``None`` is memory only.
        self._store = open_store(self.config.store, crawler.settings.get("JOBDIR"))
        #: The end-of-crawl report: one row per origin, for at most
        #: ``ROBOTSTXT_RFC_MAX_ORIGINS`` origins (the first seen); the others
        #: are added up in ``_other``, ``_other_origins`` and
        #: ``_other_kinds``. Not the LRU: an evicted origin keeps its row.
        self._rows: dict[Origin, _Row] = {}
        self._other = _Row()
        self._other_origins = 0
        self._other_kinds: Counter[str | None] = Counter()
        connect = crawler.signals.connect
        connect(self._request_scheduled, signal=signals.request_scheduled)
        connect(self._spider_idle, signal=signals.spider_idle)
        connect(self._spider_opened, signal=signals.spider_opened)
        connect(self._spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    @property
    def product_token(self) -> str:
        """The crawler's name for requests without their own User-Agent
        header, as given: ``ROBOTSTXT_USER_AGENT``, else the product of
        ``USER_AGENT`` that names the crawler (DECISIONS.md "crawler name",
        D-21)."""
        return self._name

    # -- the verdict -----------------------------------------------------

    async def process_request(self, request: Request, spider: Spider | None = None) -> Any:
        """``None`` to let ``request`` through, ``IgnoreRequest`` to drop it,
        or a copy of it to take it out of the downloader while it waits."""
        meta = request.meta
        scheduled = meta.pop(_SCHEDULED, False)
        if meta.pop(_FILTER, False) and scheduled:
            request.dont_filter = False
        if meta.get("dont_obey_robotstxt"):
            return None
        key = self._origin(request.url)
        if key is None:
            return None
        reason = meta.pop(_DROP, None)
        if reason is not None:
            self._stats.inc_value("robotstxt/unreachable/dropped")
            self._row(key).dropped += 1
            raise IgnoreRequest(f"robots.txt unreachable: {reason}")
        token = self._token(request)
        while True:
            entry = self._cache.get(key)
            now = self.clock()
            if entry is not None and entry.usable(now, self._allow_after):
                rules = entry.rules
                agent = None if rules is None else rules.get(token)
                if rules is None or agent is not None:
                    self._cache.move_to_end(key)
                    if entry.due(now):  # a good copy in force while unreachable
                        self._fetch(key, request, token)
                    self._decide(request, key, entry, agent)
                    return None
            # Not decided yet: fetch if nobody is, and wait.
            waiting = self._fetch(key, request, token)
            if scheduled:
                # dont_filter lets the copy past the dupefilter, which has
                # seen the request once; it is set back on the verdict.
                copy = request
                if not request.dont_filter:
                    copy = request.replace(dont_filter=True)
                    copy.meta[_FILTER] = True
                self._to_park[copy] = key
                return copy
            reason = await self._wait_in_place(key, waiting)
            if reason is not None:
                self._stats.inc_value("robotstxt/unreachable/dropped")
                self._row(key).dropped += 1
                raise IgnoreRequest(f"robots.txt unreachable: {reason}")

    def _decide(
        self, request: Request, key: Origin, entry: policy.Entry, agent: AgentRules | None
    ) -> None:
        """Raise ``IgnoreRequest`` if ``agent``'s rules disallow ``request``
        (RFC 9309 §2.2.2; PATH-5: the longest match decides)."""
        if agent is None or not agent.rules:
            return
        rule = agent.deciding_rule(canonical_match_string(request.url, self.config.mode))
        if rule is None or rule.allow:
            return
        self._stats.inc_value("robotstxt/forbidden")
        self._row(key).forbidden += 1
        logger.debug(
            "Forbidden by robots.txt: %(request)s (%(rule)s of %(robots)s)",
            {"request": request, "rule": rule, "robots": entry.url or key.robots_url},
            extra={"spider": self._spider},
        )
        raise IgnoreRequest("Forbidden by robots.txt")

    def _origin(self, url: str) -> Origin | None:
        if not url[:8].lower().startswith(("http://", "https://")):
            return None  # LOC-7; and a data: URL must not fill the memo
        end = url.find("/", url.find("//") + 2)
        prefix = url if end < 0 else url[:end]
        try:
            return self._origins[prefix]
        except KeyError:
            if len(self._origins) >= _ORIGIN_MEMO:
                self._origins.clear()
            found = self._origins[prefix] = origin(prefix)
            return found

    def _token(self, request: Request) -> str:
        """The lower-cased name the request is decided for:
        ``ROBOTSTXT_USER_AGENT``, else the crawler's product in the request's
        User-Agent header, else in ``USER_AGENT`` (DECISIONS.md "crawler
        name")."""
        if self.config.robots_user_agent is not None:
            return self._default_token
        header = request.headers.get(b"User-Agent")
        if not header:
            return self._default_token
        try:
            return self._tokens[header]
        except KeyError:
            if len(self._tokens) >= 64:
                self._tokens.clear()
            text = caller_name(header)
            name = self._checked_name(product_token(text), f"the User-Agent header {text!r}")
            token = self._tokens[header] = ascii_lower(name)
            return token

    def _checked_name(self, name: str, source: str) -> str:
        """``name``, with one warning per name that is not a product token
        (``[A-Za-z_-]+``, RFC 9309 §2.2.1) saying which groups it can and
        cannot match (D-21)."""
        problem = name_problem(name, self.config.mode)
        if problem is not None and name not in self._warned_names:
            self._warned_names.add(name)
            logger.warning(
                "The robots.txt name of this crawler, %(name)r from %(source)s, %(problem)s. "
                "If that is not what you want, set ROBOTSTXT_USER_AGENT to the name site "
                'owners use for your crawler, e.g. ROBOTSTXT_USER_AGENT = "MyBot".',
                {"name": name, "source": source, "problem": problem},
            )
        return name

    # -- waiting -----------------------------------------------------------

    def _request_scheduled(self, request: Request, spider: Spider | None = None) -> None:
        key = self._to_park.pop(request, None)
        if key is None or key not in self._waiting:  # or decided meanwhile
            request.meta[_SCHEDULED] = True
            return
        waiting = self._waiting[key]
        waiting.parked.append((request, time.monotonic()))
        self._stats.inc_value("robotstxt/waiting")
        self._row(key).waited += 1
        self._arm_drop_timer(key, waiting)
        raise IgnoreRequest  # keeps it out of the scheduler; the engine logs nothing

    async def _wait_in_place(self, key: Origin, waiting: _Waiting) -> str | None:
        d: Deferred[str | None] = Deferred()
        waiting.in_place.append((d, time.monotonic()))
        self._stats.inc_value("robotstxt/waiting")
        self._row(key).waited += 1
        self._arm_drop_timer(key, waiting)
        return await maybe_deferred_to_future(d)

    def _settle(self, key: Origin) -> None:
        """Release what waits for ``key`` once it is decided; otherwise keep
        waiting and fetch again when the backoff ends (RFC 9309 §2.3.1.4)."""
        waiting = self._waiting.get(key)
        if waiting is None or waiting.fetching:
            return
        entry = self._cache.get(key)
        now = self.clock()
        if entry is not None and entry.usable(now, self._allow_after):
            del self._waiting[key]
            self._cancel(waiting)
            self._release([request for request, _ in waiting.parked])
            for d, _ in waiting.in_place:
                d.callback(None)
            return
        if not waiting.parked and not waiting.in_place:
            del self._waiting[key]
            self._cancel(waiting)
            return
        if entry is not None:
            if waiting.unreachable_at is None:
                waiting.unreachable_at = time.monotonic()
            self._arm_retry_timer(key, waiting, entry)
            self._arm_drop_timer(key, waiting)

    def _arm_retry_timer(self, key: Origin, waiting: _Waiting, entry: policy.Entry) -> None:
        if waiting.retry_timer is None:
            delay = max(0.0, entry.retry_at - self.clock())
            waiting.retry_timer = _call_later(delay, self._retry, key)

    def _retry(self, key: Origin) -> None:
        waiting = self._waiting.get(key)
        if waiting is None:
            return
        waiting.retry_timer = None
        if (waiting.parked or waiting.in_place) and not waiting.fetching:
            self._start(key, waiting)

    def _drop_time(self, waiting: _Waiting) -> float | None:
        """When the longest-waiting request is to be dropped, if the origin
        is unreachable."""
        if waiting.unreachable_at is None:
            return None
        starts = [queue[0][1] for queue in (waiting.parked, waiting.in_place) if queue]
        if not starts:
            return None
        return max(min(starts), waiting.unreachable_at) + self.config.unreachable_wait

    def _arm_drop_timer(self, key: Origin, waiting: _Waiting) -> None:
        if waiting.drop_timer is not None:
            return
        when = self._drop_time(waiting)
        if when is not None:
            delay = max(0.0, when - time.monotonic())
            waiting.drop_timer = _call_later(delay, self._drop_expired, key)

    def _drop_expired(self, key: Origin) -> None:
        """Send back, to be dropped, the requests that waited too long
        (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``) for an unreachable origin."""
        waiting = self._waiting.get(key)
        if waiting is None:
            return
        waiting.drop_timer = None
        if waiting.unreachable_at is None:
            return
        # Requests wait from when they came or from when the origin turned
        # unreachable, whichever is later: the queues are in that order.
        limit = time.monotonic() - self.config.unreachable_wait
        if waiting.unreachable_at > limit:
            self._arm_drop_timer(key, waiting)
            return
        entry = self._cache.get(key)
        reason = entry.outcome if entry is not None else "robots.txt not fetched"
        expired: list[Request] = []
        while waiting.parked and waiting.parked[0][1] <= limit:
            expired.append(waiting.parked.popleft()[0])
        while waiting.in_place and waiting.in_place[0][1] <= limit:
            waiting.in_place.popleft()[0].callback(reason)
        if expired:
            if key not in self._warned:
                self._warned.add(key)
                logger.warning(
                    "Dropping requests to %(origin)s: its robots.txt has been unreachable "
                    "(%(reason)s) for ROBOTSTXT_RFC_UNREACHABLE_WAIT (%(wait)s s); more "
                    "requests to it will be dropped the same way while it stays unreachable",
                    {"origin": key, "reason": reason, "wait": self.config.unreachable_wait},
                    extra={"spider": self._spider},
                )
            for request in expired:
                request.meta[_DROP] = reason
            self._release(expired)
        if not waiting.parked and not waiting.in_place and not waiting.fetching:
            del self._waiting[key]  # nobody waits: the next request fetches again
            self._cancel(waiting)
            return
        self._arm_drop_timer(key, waiting)

    def _release(self, requests: Iterable[Request]) -> None:
        engine = self.crawler.engine
        for request in requests:
            try:
                engine.crawl(request)
            except Exception:  # the engine is closing
                logger.error(
                    "Could not send %(request)s back to the engine after it waited for robots.txt",
                    {"request": request},
                    exc_info=True,
                    extra={"spider": self._spider},
                )

    @staticmethod
    def _cancel(waiting: _Waiting) -> None:
        for timer in (waiting.retry_timer, waiting.drop_timer):
            if timer is not None:
                timer.cancel()
        waiting.retry_timer = waiting.drop_timer = None

    # -- fetching ----------------------------------------------------------

    def _fetch(self, key: Origin, trigger: Request, token: str | None) -> _Waiting:
        """Start fetching ``key``'s robots.txt unless a fetch is under way."""
        waiting = self._waiting.get(key)
        if waiting is None:
            waiting = self._waiting[key] = _Waiting(trigger)
        if token is not None:
            waiting.tokens.add(token)
        if not waiting.fetching:
            waiting.trigger = trigger
            entry = self._cache.get(key)
            if (
                entry is not None
                and entry.unreachable_since is not None
                and not entry.due(self.clock())
            ):
                self._arm_retry_timer(key, waiting, entry)  # RFC 9309 §2.3.1.4: backoff
            else:
                self._start(key, waiting)
        return waiting

    def _start(self, key: Origin, waiting: _Waiting) -> None:
        waiting.fetching = True
        deferred_from_coro(self._fetch_and_settle(key, waiting))

    async def _fetch_and_settle(self, key: Origin, waiting: _Waiting) -> None:
        previous = self._cache.get(key)
        try:
            if self._store is None:
                entry = await self._fetch_entry(key, waiting, previous)
            else:
                entry = await self._through_store(key, waiting, previous)
        except Exception as exc:  # a bug of ours must not lose requests
            logger.error(
                "Error fetching %(url)s",
                {"url": key.robots_url},
                exc_info=True,
                extra={"spider": self._spider},
            )
            entry = self._unreachable(previous, f"{type(exc).__name__}: {exc}", None, key)
        waiting.fetching = False
        self._remember(key, entry)
        try:
            self._settle(key)
        except Exception:
            logger.error(
                "Error releasing the requests that waited for %(url)s",
                {"url": key.robots_url},
                exc_info=True,
                extra={"spider": self._spider},
            )

    # -- the shared store (issue 4) --------------------------------------------

    async def _store_call(self, method: str, *args: Any, store: Store | None = None) -> Any:
        """Call the store's ``method`` in the store's own threads; on a store
        error, log it, fall back to memory for the rest of the crawl and
        return ``None``. Also ``None`` once the store is gone: every call
        looks it up anew, unless ``store`` names the one to use."""
        store = store or self._store
        if store is None:
            return None
        try:
            return await maybe_deferred_to_future(self._in_thread(getattr(store, method), *args))
        except StoreError as exc:
            if self._store is store:
                self._store = None
                self._abandoned.append(store)  # closed with the spider
                self._stats.inc_value("robotstxt/store/error")
                logger.error(
                    "The robots.txt store failed (%(error)s); robots.txt is cached in "
                    "memory only for the rest of this crawl",
                    {"error": exc},
                    extra={"spider": self._spider},
                )
            return None

    def _in_thread(self, func: Callable[..., Any], *args: Any) -> Deferred[Any]:
        """Run ``func`` in the store's thread pool, not the reactor's, which
        Scrapy's DNS resolver uses: a slow store must not stall name
        lookups."""
        from twisted.internet import reactor
        from twisted.internet.threads import deferToThreadPool
        from twisted.python.threadpool import ThreadPool

        if self._pool is None:
            self._pool = ThreadPool(minthreads=0, maxthreads=4, name="robotstxt_rfc-store")
            self._pool.start()
        return deferToThreadPool(reactor, self._pool, func, *args)

    async def _through_store(
        self, key: Origin, waiting: _Waiting, previous: policy.Entry | None
    ) -> policy.Entry:
        """The entry from the store when it is fresh there; otherwise fetch,
        one crawler at a time, and store what was found (issue 4)."""
        store = self._store
        name = str(key)
        record: Record | None = await self._store_call("get", name)
        stat = "robotstxt/store/hit"
        # Only one crawler fetches an origin at a time; the others wait for
        # its record, or fetch themselves once its lock has expired.
        lock_ttl = self.config.timeout * (self.config.max_redirects + 1) + 5
        give_up = time.monotonic() + lock_ttl
        locked = False
        try:
            while True:
                if record is not None:
                    stored, robots = self._from_record(key, waiting, record)
                    if not stored.due(self.clock()):
                        return await self._stored(waiting, stored, robots, stat)
                    previous = stored
                if locked or self._store is None or time.monotonic() >= give_up:
                    break
                stat = "robotstxt/store/shared"
                locked = bool(await self._store_call("acquire", name, lock_ttl))
                if not locked:
                    await _sleep(_STORE_POLL)
                # Read again, lock or not: reading then locking is not
                # atomic, and the crawler that held the lock may have stored
                # its copy.
                record = await self._store_call("get", name)
            waiting.body = waiting.status = None
            entry = await self._fetch_entry(key, waiting, previous)
            new = self._to_record(entry, waiting, record)
            if new is not None and entry.unreachable_since is not None:
                # Never replace a good copy another crawler stored meanwhile
                # with a failure.
                current = await self._store_call("get", name)
                if current is not None and current.good and current != record:
                    new = None
            if new is not None:
                await self._store_call("put", name, new)
            return entry
        finally:
            if locked:
                # Through the store that gave the lock, even if it failed
                # since: otherwise the others wait for the lock to expire.
                await self._store_call("release", name, store=store)

    async def _stored(
        self, waiting: _Waiting, entry: policy.Entry, robots: RobotsTxt | None, stat: str
    ) -> policy.Entry:
        """A fresh record from the store, put to use."""
        self._stats.inc_value(stat)
        if robots is not None and entry.rules:
            await self._adopt(waiting, robots, entry.rules)
        elif entry.allows_all_by_answer():
            await self._send_robots_parsed(waiting, RobotsTxt.parse(b"", self.config.mode))
        return entry

    def _from_record(
        self, key: Origin, waiting: _Waiting, record: Record
    ) -> tuple[policy.Entry, RobotsTxt | None]:
        """The entry for a stored record. Times are limited to what this
        crawler would have set, so that a machine whose clock runs ahead
        cannot hold an origin back for long; the body is cut at this
        crawler's ``ROBOTSTXT_RFC_MAX_BYTES``."""
        robots, rules = None, None
        if record.body is not None:
            body, _ = cut_at_limit(record.body, self.config.max_bytes)
            robots, rules = self._rules(key, waiting, body)
        now = self.clock()
        entry = policy.Entry(
            rules,
            good=record.good,
            expires=min(record.expires_at, now + self.config.cache_ttl),
            outcome=record.outcome,
            unreachable_since=record.unreachable_since,
            failures=record.failures,
            retry_at=min(record.retry_at, now + policy.MAX_RETRY_DELAY),
            url=record.url,
        )
        return entry, robots

    def _to_record(
        self, entry: policy.Entry, waiting: _Waiting, old: Record | None
    ) -> Record | None:
        """The record for what a fetch found, or ``None`` when it cannot be
        stored faithfully: a failed fetch whose good copy (kept in memory as
        parsed rules only) is not in the store either. Saving it without its
        body would read back as "allow all". A refusal by a local middleware
        is no answer of the server's, so it is not stored either."""
        if entry.refused:
            return None
        if entry.unreachable_since is not None:
            # A failed fetch: the good copy, if any, is the stored one.
            body = old.body if old is not None and old.good else None
            if entry.good and entry.rules is not None and body is None:
                return None
            fetched_at = old.fetched_at if old is not None else self.clock()
        else:
            body = waiting.body
            fetched_at = self.clock()
        return Record(
            good=entry.good,
            body=body,
            status=waiting.status,
            outcome=entry.outcome,
            fetched_at=fetched_at,
            expires_at=entry.expires,
            url=entry.url,
            unreachable_since=entry.unreachable_since,
            failures=entry.failures,
            retry_at=entry.retry_at,
        )

    def _remember(self, key: Origin, entry: policy.Entry) -> None:
        cache = self._cache
        self._record_outcome(key, entry, cache.get(key))
        cache[key] = entry
        cache.move_to_end(key)
        if len(cache) <= self.config.max_origins:
            return
        # Least recently used first, but never an origin that requests are
        # waiting for: that would reset its backoff and its waits.
        excess = len(cache) - self.config.max_origins
        victims: list[Origin] = []
        for old in cache:
            if len(victims) == excess:
                break
            if old != key and old not in self._waiting:
                victims.append(old)
        for old in victims:
            del cache[old]
            self._stats.inc_value("robotstxt/cache/evicted")

    async def _fetch_entry(
        self, key: Origin, waiting: _Waiting, previous: policy.Entry | None
    ) -> policy.Entry:
        """Fetch, follow redirects, and apply the status policy (HTTP-1 to
        HTTP-8; RFC 9309 §2.3.1). An answer that means "allow all" (4xx,
        redirects given up on) sends ``robots_parsed`` with a parser that
        allows everything, as the built-in sends one for every response."""
        entry = await self._fetch_outcome(key, waiting, previous)
        if entry.allows_all_by_answer():
            await self._send_robots_parsed(waiting, RobotsTxt.parse(b"", self.config.mode))
        return entry

    async def _fetch_outcome(
        self, key: Origin, waiting: _Waiting, previous: policy.Entry | None
    ) -> policy.Entry:
        """The entry for one fetch: the redirect loop and the status policy."""
        if previous is not None and previous.good:
            self._stats.inc_value("robotstxt/cache/refreshed")
        row = self._row(key)
        row.fetches += 1
        url = key.robots_url
        seen = {url}
        hops = 0
        while True:
            try:
                response = await self._download(self._robots_request(url, key, waiting.trigger))
            except _Refused as refused:
                return self._refused(key, url, refused)
            except Exception as exc:
                return self._failed(key, previous, exc)
            self._stats.inc_value("robotstxt/response_count")
            self._stats.inc_value(f"robotstxt/response_status_count/{response.status}")
            waiting.status = response.status
            kind = policy.classify(response.status)
            if kind != "redirect":
                break
            location = response.headers.get(b"Location")
            if not location:
                return self._allow_all(key, f"{response.status} without a Location header")
            target = safe_url_string(urljoin(url, location.decode("latin-1")))
            if urlsplit(target).scheme.lower() not in _DEFAULT_PORTS:
                return self._allow_all(key, f"redirect to a non-HTTP URL ({target})")
            if target in seen:
                return self._allow_all(key, f"redirect loop at {target}")
            if hops >= self.config.max_redirects:
                return self._allow_all(
                    key,
                    f"more than {self.config.max_redirects} redirects",
                )
            hops += 1
            self._stats.inc_value("robotstxt/redirects")
            row.redirects += 1
            seen.add(target)
            url = target
        cache_control = parse_cachecontrol(response.headers.get(b"Cache-Control") or b"")
        fresh_for = policy.lifetime(cache_control, self.config.cache_ttl)
        if kind == "allow_all":
            return self._allow_all(key, f"{response.status}: no robots.txt", fresh_for)
        if kind == "unreachable":
            hint = policy.retry_after(response.headers.get(b"Retry-After"), self.clock())
            return self._unreachable(previous, f"HTTP {response.status}", hint, key)
        if "dataloss" in response.flags:
            return self._unreachable(previous, "truncated body (data loss)", None, key)
        entry = await self._parse(key, waiting, response.body, response, fresh_for)
        if url != key.robots_url:
            entry.url = url  # the rules came from there (LOC-9)
        return entry

    async def _parse(
        self, key: Origin, waiting: _Waiting, body: bytes, response: Response, fresh_for: float
    ) -> policy.Entry:
        """HTTP-1, HTTP-12, HTTP-13: parse at most ``max_bytes``; a line cut
        there is dropped."""
        body, truncated = cut_at_limit(body, self.config.max_bytes)
        if truncated:
            self._stats.inc_value("robotstxt/truncated")
            logger.info(
                "%(url)s is larger than ROBOTSTXT_RFC_MAX_BYTES (%(limit)d bytes); the rest is "
                "ignored (RFC 9309 §2.5)",
                {"url": key.robots_url, "limit": self.config.max_bytes},
                extra={"spider": self._spider},
            )
        waiting.body = body
        robots, rules = self._rules(key, waiting, body)
        self._stats.inc_value("robotstxt/rules")
        await self._adopt(waiting, robots, rules)
        return policy.fetched(
            rules, outcome=f"{response.status}", now=self.clock(), fresh_for=fresh_for
        )

    async def _adopt(
        self, waiting: _Waiting, robots: RobotsTxt, rules: dict[str, AgentRules]
    ) -> None:
        """What follows parsing, fetched or from the store: the crawl-delay
        (OTHER-2) and the ``robots_parsed`` signal (Scrapy 2.18+)."""
        self._apply_crawl_delay(waiting.trigger, rules[self._default_token])
        await self._send_robots_parsed(waiting, robots)

    async def _send_robots_parsed(self, waiting: _Waiting, robots: RobotsTxt) -> None:
        """The ``robots_parsed`` signal (Scrapy 2.18+), with the request that
        triggered the fetch, as the built-in sends it."""
        robots_parsed = getattr(signals, "robots_parsed", None)
        if robots_parsed is not None:
            parser = RobotParser(robots, self.config.robots_user_agent)
            await self.crawler.signals.send_catch_log_async(
                signal=robots_parsed, robotparser=parser, request=waiting.trigger
            )

    def _rules(
        self, key: Origin, waiting: _Waiting, body: bytes
    ) -> tuple[RobotsTxt, dict[str, AgentRules]]:
        """Parse ``body`` and keep the groups of the tokens in use."""
        robots = RobotsTxt.parse(body, self.config.mode)
        tokens = {self._default_token, *waiting.tokens}
        previous = self._cache.get(key)
        if previous is not None and previous.rules:
            tokens.update(previous.rules)
        return robots, {token: robots.for_agent(token) for token in tokens}

    def _allow_all(self, key: Origin, outcome: str, fresh_for: float | None = None) -> policy.Entry:
        """HTTP-2, HTTP-3: as if there were no robots.txt."""
        self._stats.inc_value("robotstxt/allow_all")
        logger.debug(
            "%(url)s: %(outcome)s; everything is allowed",
            {"url": key.robots_url, "outcome": outcome},
            extra={"spider": self._spider},
        )
        if fresh_for is None:
            fresh_for = self.config.cache_ttl
        return policy.fetched(
            None, outcome=f"{outcome}: allow all", now=self.clock(), fresh_for=fresh_for
        )

    def _failed(self, key: Origin, previous: policy.Entry | None, exc: Exception) -> policy.Entry:
        """HTTP-6: a download error makes robots.txt unreachable; logged at
        ERROR, as the built-in logs it."""
        if not isinstance(exc, IgnoreRequest):
            self._stats.inc_value(f"robotstxt/exception_count/{type(exc)}")
        outcome = f"{type(exc).__name__}: {exc}"
        return self._unreachable(previous, outcome, None, key, level=logging.ERROR)

    def _refused(self, key: Origin, url: str, refused: _Refused) -> policy.Entry:
        """DECISIONS.md "robots.txt request refused locally": nothing was
        asked of the server, so no retry loop; allow all, as Scrapy's
        built-in does, with one WARNING per origin."""
        self._stats.inc_value("robotstxt/refused")
        by = refused.by or "a downloader middleware"
        if key not in self._warned_refused:
            self._warned_refused.add(key)
            logger.warning(
                "%(url)s was not fetched: %(by)s raised %(error)r for it, so nothing was asked "
                "of the server and every request to %(origin)s is allowed, as Scrapy's "
                "built-in allows it. Let robots.txt requests through (their meta has "
                "dont_obey_robotstxt) to obey the site's rules.",
                {"url": url, "by": by, "error": refused.error, "origin": key},
                extra={"spider": self._spider},
            )
        return policy.refused(
            outcome=f"robots.txt not fetched (refused by {by})",
            now=self.clock(),
            fresh_for=self.config.cache_ttl,
        )

    def _unreachable(
        self,
        previous: policy.Entry | None,
        outcome: str,
        hint: float | None,
        key: Origin | None = None,
        *,
        level: int = logging.WARNING,
    ) -> policy.Entry:
        """HTTP-4, HTTP-5: disallow all while retrying, unless a good copy
        is in force."""
        self._stats.inc_value("robotstxt/unreachable")
        entry = policy.unreachable(
            previous,
            outcome=outcome,
            now=self.clock(),
            first_retry=self.config.unreachable_retry,
            hint=hint,
        )
        if entry.good:
            self._stats.inc_value("robotstxt/unreachable/last_good")
        else:
            self._stats.inc_value("robotstxt/disallow_all")
        logger.log(
            level,
            "%(url)s is unreachable (%(outcome)s): %(policy)s; next try in %(delay).0f s",
            {
                "url": key.robots_url if key is not None else "robots.txt",
                "outcome": outcome,
                "policy": "the last good copy stays in force"
                if entry.good
                else "requests to this origin wait",
                "delay": entry.retry_at - self.clock(),
            },
            extra={"spider": self._spider},
        )
        return entry

    def _robots_request(self, url: str, key: Origin, trigger: Request) -> Request:
        """The robots.txt request: through the engine and the user's
        middlewares, but not retried, redirected or cached by them (the
        policy here does that), in the origin's download slot."""
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
        # Encodings this middleware can cut at ROBOTSTXT_RFC_MAX_BYTES
        # without decoding everything (see _download); Scrapy also asks for
        # br and zstd.
        headers = {"Accept-Encoding": "gzip, deflate"}
        if "proxy" in trigger.meta:
            meta["proxy"] = trigger.meta["proxy"]
        request = Request(
            url,
            priority=self.DOWNLOAD_PRIORITY,
            headers=headers,
            meta=meta,
            dont_filter=True,
            callback=NO_CALLBACK,
        )
        self._stats.inc_value("robotstxt/request_count")
        return request

    async def _download(self, request: Request) -> Response:
        """Download through the engine, capping the body (HTTP-12).

        The two signal handlers are connected only while a robots.txt
        download is in flight, so that page downloads never pay for them.
        """
        receiving = self._receiving
        if not receiving:
            connect = self.crawler.signals.connect
            connect(self._reached_downloader, signal=signals.request_reached_downloader)
            connect(self._bytes_received, signal=signals.bytes_received)
            connect(self._response_downloaded, signal=signals.response_downloaded)
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
            body = _inflate(raw.body, self.config.max_bytes + 1)
            if body is None:
                raise
            headers = raw.headers.copy()
            headers.pop(b"Content-Encoding", None)
            return raw.replace(body=body, headers=headers, flags=[*raw.flags, "download_stopped"])
        finally:
            del receiving[request]
            if not receiving:
                disconnect = self.crawler.signals.disconnect
                disconnect(self._reached_downloader, signal=signals.request_reached_downloader)
                disconnect(self._bytes_received, signal=signals.bytes_received)
                disconnect(self._response_downloaded, signal=signals.response_downloaded)
        return response

    def _raised_by(self, exc: BaseException) -> str | None:
        """The import path of the downloader middleware in whose code
        ``exc`` was raised, read off its traceback; ``None`` if unknown."""
        middlewares = self.crawler.engine.downloader.middleware.middlewares
        found = None
        tb = exc.__traceback__
        while tb is not None:
            owner = tb.tb_frame.f_locals.get("self")
            if owner is not None and owner is not self and any(owner is m for m in middlewares):
                found = owner  # the innermost one raised it
            tb = tb.tb_next
        return None if found is None else global_object_name(type(found))

    def _reached_downloader(self, request: Request, spider: Spider | None = None) -> None:
        state = self._receiving.get(request)
        if state is not None:
            state.reached = True

    def _bytes_received(self, data: bytes, request: Request, spider: Spider | None = None) -> None:
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

    def _response_downloaded(
        self, response: Response, request: Request, spider: Spider | None = None
    ) -> None:
        state = self._receiving.get(request)
        if state is not None:
            state.response = response

    def _apply_crawl_delay(self, trigger: Request, agent: AgentRules) -> None:
        """OTHER-2: with ``ROBOTSTXT_RFC_CRAWL_DELAY``, the group's
        crawl-delay becomes the download slot's delay, capped by
        ``ROBOTSTXT_RFC_CRAWL_DELAY_MAX``; it never shortens a longer one."""
        if not self.config.crawl_delay or not agent.crawl_delay:
            return
        delay = min(agent.crawl_delay, self.config.crawl_delay_max)
        downloader = self.crawler.engine.downloader
        key = downloader.get_slot_key(trigger)
        slot_settings = downloader.per_slot_settings.setdefault(key, {})
        slot = downloader.slots.get(key)
        if slot is not None:
            current = slot.delay
        else:
            current = slot_settings.get("delay", self.crawler.settings.getfloat("DOWNLOAD_DELAY"))
        if delay <= current:
            return
        slot_settings["delay"] = delay
        if slot is not None:
            slot.delay = delay
        self._stats.inc_value("robotstxt/crawl_delay/applied")
        site = self._origin(trigger.url)
        if site is not None:
            self._row(site).crawl_delay = delay
        logger.debug(
            "Download slot %(slot)r: crawl-delay %(delay)s s from robots.txt",
            {"slot": key, "delay": delay},
            extra={"spider": self._spider},
        )

    # -- the report ----------------------------------------------------------

    def _row(self, key: Origin) -> _Row:
        """``key``'s report row; past ``ROBOTSTXT_RFC_MAX_ORIGINS`` rows, the
        totals of the other origins."""
        row = self._rows.get(key)
        if row is None:
            if len(self._rows) >= self.config.max_origins:
                return self._other
            row = self._rows[key] = _Row(robots_url=key.robots_url)
        return row

    def _kind(self, entry: policy.Entry) -> str:
        if entry.refused:
            return "refused"
        if entry.unreachable_since is None:
            return "allow_all" if entry.rules is None else "rules"
        if entry.good:
            return "unreachable_last_good"
        if entry.usable(self.clock(), self._allow_after):
            return "allow_all"  # RFC 9309 §2.3.1.4: unreachable for too long
        return "unreachable"

    def _record_outcome(
        self, key: Origin, entry: policy.Entry, previous: policy.Entry | None
    ) -> None:
        """Once per fetch (or store read): the origin's kind and outcome."""
        kind = self._kind(entry)
        row = self._row(key)
        if row is self._other:
            # No row to hold the origin's kind: count it by its last kind,
            # through the cache. An origin the LRU evicted counts again.
            if previous is None:
                self._other_origins += 1
            else:
                self._other_kinds[self._kind(previous)] -= 1
            self._other_kinds[kind] += 1
            return
        row.kind = kind
        row.outcome = entry.outcome
        row.robots_url = entry.url or key.robots_url

    def _report(self, spider: Spider) -> None:
        """The INFO summary, and the JSON lines file of
        ``ROBOTSTXT_RFC_REPORT``."""
        rows = self._rows.values()
        other = self._other
        kinds = Counter(row.kind for row in rows) + self._other_kinds
        origins = len(self._rows) + self._other_origins
        forbidden = sum(row.forbidden for row in rows) + other.forbidden
        waited = sum(row.waited for row in rows) + other.waited
        dropped = sum(row.dropped for row in rows) + other.dropped
        breakdown = ", ".join(
            f"{kinds[kind]} {label}" for kind, label in _KINDS.items() if kinds[kind] > 0
        )
        logger.info(
            "robots.txt: %(origins)d %(origin_word)s checked%(breakdown)s; %(forbidden)d "
            "%(request_word)s forbidden, %(waited)d waited, %(dropped)d dropped",
            {
                "origins": origins,
                "origin_word": "origin" if origins == 1 else "origins",
                "breakdown": f" ({breakdown})" if breakdown else "",
                "forbidden": forbidden,
                "request_word": "request" if forbidden == 1 else "requests",
                "waited": waited,
                "dropped": dropped,
            },
            extra={"spider": spider},
        )
        path = self.config.report
        if path is None:
            return
        lines = [
            json.dumps({"origin": str(key), **row.as_dict()}, ensure_ascii=False)
            for key, row in sorted(self._rows.items(), key=lambda item: str(item[0]))
        ]
        if self._other_origins or other.as_dict() != _Row().as_dict():
            totals = {
                "origin": None,
                "origins": self._other_origins,
                "kinds": {kind or "undecided": n for kind, n in self._other_kinds.items() if n > 0},
                **other.as_dict(),
            }
            for name in ("kind", "outcome", "robots_url", "crawl_delay"):
                del totals[name]
            lines.append(json.dumps(totals, ensure_ascii=False))
        try:
            _write_atomically(path, "".join(f"{line}\n" for line in lines))
        except OSError as exc:
            logger.error(
                "Cannot write the robots.txt report to %(path)s (ROBOTSTXT_RFC_REPORT): %(error)s",
                {"path": path, "error": exc},
                extra={"spider": spider},
            )

    # -- the spider's life ---------------------------------------------------

    def _spider_opened(self, spider: Spider) -> None:
        self._spider = spider
        _warn_about_builtin(self.crawler, spider)
        path = self._jobdir_file()
        if path is None or not os.path.exists(path):
            return
        try:
            with open(path, "rb") as f:
                requests = [
                    request_from_dict(pickle.loads(blob), spider=spider) for blob in pickle.load(f)
                ]
        except Exception:
            # Left in place: nothing is lost, and the next run tries again.
            logger.error(
                "Cannot read %(path)s, the requests that were waiting for robots.txt "
                "when the crawl paused",
                {"path": path},
                exc_info=True,
                extra={"spider": spider},
            )
            return
        os.remove(path)
        logger.info(
            "Resuming %(count)d requests that were waiting for robots.txt",
            {"count": len(requests)},
            extra={"spider": spider},
        )
        self._release(requests)

    def _spider_idle(self, spider: Spider) -> None:
        if any(w.parked or w.in_place for w in self._waiting.values()):
            raise DontCloseSpider

    def _spider_closed(self, spider: Spider, reason: str) -> None:
        for store in [*self._abandoned, self._store]:
            if store is not None:
                store_close(store)
        self._store, self._abandoned = None, []
        if self._pool is not None:
            self._pool.stop()
            self._pool = None
        self._put_waiting_aside(spider, reason)
        self._report(spider)

    def _put_waiting_aside(self, spider: Spider, reason: str) -> None:
        """Save the requests still waiting in ``JOBDIR``, or count them as
        abandoned."""
        parked: list[Request] = []
        for waiting in self._waiting.values():
            self._cancel(waiting)
            parked.extend(request for request, _ in waiting.parked)
            for d, _ in waiting.in_place:
                d.callback("the spider closed")
        self._waiting.clear()
        if not parked:
            return
        path = self._jobdir_file()
        if path is None:
            self._stats.set_value("robotstxt/waiting/abandoned", len(parked))
            logger.warning(
                "%(count)d requests were still waiting for robots.txt when the spider closed "
                "(%(reason)s); set JOBDIR to keep them for the next run",
                {"count": len(parked), "reason": reason},
                extra={"spider": spider},
            )
            return
        # Each request is pickled on its own, as Scrapy's disk queues do, so
        # that one that cannot be does not take the others with it.
        saved: list[bytes] = []
        for request in parked:
            try:
                saved.append(pickle.dumps(request.to_dict(spider=spider), protocol=4))
            except (ValueError, TypeError, AttributeError, pickle.PicklingError):
                self._stats.inc_value("robotstxt/waiting/abandoned")
                logger.error(
                    "Cannot save %(request)s, which was waiting for robots.txt, in JOBDIR",
                    {"request": request},
                    exc_info=True,
                    extra={"spider": spider},
                )
        partial = f"{path}.partial"
        with open(partial, "wb") as f:
            pickle.dump(saved, f, protocol=4)
        os.replace(partial, path)  # never a half-written file
        self._stats.set_value("robotstxt/waiting/saved", len(saved))

    def _jobdir_file(self) -> str | None:
        jobdir = self.crawler.settings.get("JOBDIR")
        return os.path.join(jobdir, _JOBDIR_FILE) if jobdir else None


# -- migrating from the built-in ------------------------------------------------------


def _warn_about_builtin(crawler: Crawler, spider: Spider) -> None:
    """Warn when Scrapy's built-in robots.txt middleware runs beside this
    one. Read off the middlewares the engine built, so that it holds
    whichever way the project named them (README.rst, "Migrating from the
    built-in")."""
    from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as Builtin

    from .addon import OURS

    engine = crawler.engine
    if engine is None:
        return
    for found in engine.downloader.middleware.middlewares:
        if isinstance(found, Builtin):
            path = global_object_name(type(found))
            logger.warning(
                "Scrapy's built-in robots.txt middleware (%(path)r) is enabled beside "
                "%(ours)r: robots.txt is fetched twice per origin, and the built-in drops "
                "requests by its own rules, which this package's stats and report do not "
                'count. Add "%(path)s": None to DOWNLOADER_MIDDLEWARES, or use ADDONS = '
                '{"scrapy_robots_rfc.Addon": 100} instead, which does that for you.',
                {"path": path, "ours": OURS},
                extra={"spider": spider},
            )
            return


def _warn_about_robotstxt_parser(crawler: Crawler, mode: str) -> None:
    """Warn at start-up when the project sets ``ROBOTSTXT_PARSER``, which
    this middleware does not use (README.rst, "Migrating from the
    built-in")."""
    from scrapy.settings import SETTINGS_PRIORITIES

    from .addon import OURS, component

    settings = crawler.settings
    parser = settings.get("ROBOTSTXT_PARSER")
    chosen = (settings.getpriority("ROBOTSTXT_PARSER") or 0) > SETTINGS_PRIORITIES["default"]
    if chosen and component(parser) is not RobotParser:
        logger.warning(
            "ROBOTSTXT_PARSER (%(parser)r) is not used by %(ours)r, which parses robots.txt "
            "itself as ROBOTSTXT_RFC_MODE (%(mode)r) says. Remove ROBOTSTXT_PARSER, or set "
            'ROBOTSTXT_RFC_MODE = "google" for the verdicts of Google\'s parser.',
            {"parser": parser, "ours": OURS, "mode": mode},
        )


# -- version bridges -------------------------------------------------------------


def _call_later(delay: float, func: Callable[[Origin], None], key: Origin) -> Any:
    """``scrapy.utils.asyncio.call_later`` (2.14+), or the reactor's."""
    try:
        from scrapy.utils.asyncio import call_later
    except ImportError:  # Scrapy 2.13
        from twisted.internet import reactor

        return cast("Any", reactor).callLater(delay, func, key)
    return call_later(delay, func, key)


async def _sleep(seconds: float) -> None:
    d: Deferred[None] = Deferred()
    _call_later(seconds, lambda _: d.callback(None), None)  # type: ignore[arg-type]
    await maybe_deferred_to_future(d)


def _write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it, so that
    a reader never sees half a report; parent folders are created."""
    path = os.path.expanduser(path)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    partial = f"{path}.{os.getpid()}.partial"
    try:
        with open(partial, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(partial)
        raise


def _inflate(raw: bytes, limit: int) -> bytes | None:
    """The first ``limit`` bytes of a gzip, zlib or raw deflate ``raw``."""
    for wbits in (47, -15):  # 47: gzip or zlib, detected from the header
        try:
            return zlib.decompressobj(wbits).decompress(raw, limit)
        except zlib.error:
            continue
    return None
