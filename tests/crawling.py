"""Running real crawls in tests: a recording spider, both ways of turning
the middleware on, a fake clock, and the helpers of most crawl tests
(``crawl``, ``robots_origin``, ``pages``, ``stat``).

Every crawl test runs twice, once per activation (``ADDONS`` and a manual
``DOWNLOADER_MIDDLEWARES``), the way scrapy-zyte-api tests its add-on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from scrapy import Request, Spider, signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.test import get_crawler

from scrapy_robots_rfc._timers import call_later
from scrapy_robots_rfc.crawl.middleware import RobotsTxtMiddleware

from .mockserver import MockServer, Origin, Reply

BUILTIN = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"

ACTIVATIONS: dict[str, dict[str, Any]] = {
    "addon": {"ADDONS": {"scrapy_robots_rfc.Addon": 100}},
    "manual": {
        "DOWNLOADER_MIDDLEWARES": {BUILTIN: None, "scrapy_robots_rfc.RobotsTxtMiddleware": 100}
    },
}

#: The robots.txt most crawl tests serve.
ROBOTS = b"User-agent: *\nDisallow: /private\nAllow: /private/ok\n"

BASE_SETTINGS: dict[str, Any] = {
    "ROBOTSTXT_OBEY": True,
    "USER_AGENT": "TestBot/1.0 (+https://example.com/bot)",
    "LOG_LEVEL": "DEBUG",
    "RETRY_ENABLED": False,
    # As the get_crawler() of newer Scrapy sets it (2.13.4's does not): each crawl
    # would listen on one of the telnet console's fixed ports (6023-6073),
    # and crawls in two pytest-xdist workers at once race for them (the
    # loser leaves an unclosed socket, an error here).
    "TELNETCONSOLE_ENABLED": False,
}


@dataclass
class FakeClock:
    """A wall clock the test moves by hand (cache lifetimes only)."""

    now: float = 1_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


#: A URL, or a dict of ``Request`` keyword arguments with a ``url``.
Spec = str | dict[str, Any]
#: Runs when a stage begins, with the spider; e.g. moves a fake clock.
Hook = Callable[["Recorder"], None] | None


@dataclass
class Stage:
    requests: list[Spec]
    hook: Hook = None


class Recorder(Spider):
    """Requests its stages one after the other (the next stage starts when
    the crawl is idle) and records what reached it."""

    name = "recorder"

    def __init__(self, *args: Any, stages: Iterable[Stage] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stages = list(stages)
        self.seen: list[str] = []
        self.metas: list[dict[str, Any]] = []
        #: The responses, for what a test reads of them when the crawl is
        #: over (``page_rules``, ``usage_preferences``).
        self.responses: list[Any] = []
        self.failures: list[tuple[str, BaseException]] = []

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Recorder:
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider._idle, signal=signals.spider_idle)
        return spider

    async def start(self) -> Any:
        for request in self._next_stage():
            yield request

    def start_requests(self) -> Iterator[Request]:  # Scrapy before 2.13
        yield from self._next_stage()

    def _next_stage(self) -> Iterator[Request]:
        if not self.stages:
            return
        stage = self.stages.pop(0)
        if stage.hook is not None:
            stage.hook(self)
        for spec in stage.requests:
            kwargs = {"url": spec} if isinstance(spec, str) else dict(spec)
            kwargs.setdefault("dont_filter", True)
            yield Request(callback=self.parse, errback=self.errback, **kwargs)

    def _idle(self) -> None:
        # The engine can be idle while robots.txt is read from a store in a
        # thread, or while requests wait: a stage begins only after that.
        robots = [
            mw
            for mw in self.crawler.engine.downloader.middleware.middlewares
            if isinstance(mw, RobotsTxtMiddleware)
        ]
        if any(m.busy for m in robots):
            # Without a new request the engine looks again only on its
            # heartbeat (5 s): ask it to look again soon.
            call_later(0.01, self._wake)
            raise DontCloseSpider
        if self.stages:
            for request in self._next_stage():
                self.crawler.engine.crawl(request)
            raise DontCloseSpider

    def _wake(self) -> None:
        engine = self.crawler.engine
        slot = getattr(engine, "_slot", None) or getattr(engine, "slot", None)
        if slot is not None and engine.running:
            slot.nextcall.schedule()

    def parse(self, response: Any) -> None:
        self.seen.append(response.url)
        self.metas.append(dict(response.meta))
        self.responses.append(response)

    def errback(self, failure: Any) -> None:
        self.failures.append((failure.request.url, failure.value))

    @property
    def failed(self) -> list[str]:
        return [url for url, _ in self.failures]

    def failed_with(self, message: str) -> list[str]:
        return [url for url, exc in self.failures if str(exc).startswith(message)]


def middleware_of(crawler: Any) -> RobotsTxtMiddleware:
    found = [
        mw
        for mw in crawler.engine.downloader.middleware.middlewares
        if isinstance(mw, RobotsTxtMiddleware)
    ]
    assert len(found) == 1, found
    return found[0]


def use_clock(clock: FakeClock) -> Hook:
    def hook(spider: Recorder) -> None:
        middleware_of(spider.crawler).clock = clock

    return hook


def make_crawler(activation: dict[str, Any], settings: dict[str, Any] | None = None) -> Any:
    return get_crawler(Recorder, {**BASE_SETTINGS, **activation, **(settings or {})})


def crawl(activation: dict[str, Any], stages: list[Stage], **settings: Any) -> Any:
    """Run a crawl; the Deferred fires with the crawler."""
    crawler = make_crawler(activation, settings)
    d = crawler.crawl(stages=stages)
    d.addCallback(lambda _: crawler)
    return d


def robots_origin(server: MockServer, route: Any) -> Origin:
    return server.add_origin({"/robots.txt": route})


def switchable_origin(server: MockServer, *, up: bool) -> tuple[Origin, dict[str, bool]]:
    """An origin whose robots.txt is ``ROBOTS`` while ``state["up"]``, else
    a 503; the test flips ``state["up"]``."""
    state = {"up": up}
    origin = robots_origin(
        server, lambda hit, n: Reply(body=ROBOTS) if state["up"] else Reply(status=503)
    )
    return origin, state


def pages(origin: Origin, *paths: str) -> list[str]:
    return [origin.url(path) for path in paths]


def stat(crawler: Any, key: str) -> Any:
    return crawler.stats.get_value(key)
