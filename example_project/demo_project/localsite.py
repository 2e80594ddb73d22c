"""The demo's local web site: a few origins on 127.0.0.1, one port each.

Each origin serves its own robots.txt and a handful of HTML pages that link
to each other; some pages carry page-level rules (a robots meta tag, an
``X-Robots-Tag`` header). The server runs on the crawl's own Twisted reactor
(it is started from the spider's ``start()``, or listens earlier when the
demo calls :meth:`LocalSite.listen` to name its ports first) and records
every request it answers, with its time, so the demo can show which paths
never reached it and how far apart the requests came. It listens on
127.0.0.1 only and needs no network.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from twisted.internet import defer
from twisted.web.resource import Resource
from twisted.web.server import Site

if TYPE_CHECKING:
    from twisted.internet.interfaces import IListeningPort
    from twisted.web.server import Request

ROBOTS_TXT = "/robots.txt"
TDMREP_JSON = "/.well-known/tdmrep.json"

NORMAL_ROBOTS = b"""\
# robots.txt of the "normal" origin: one group for every crawler, one for DemoBot
User-agent: *
Disallow: /private/
Disallow: /beta/

User-agent: DemoBot
Disallow: /private/
Allow: /private/press/
Disallow: /drafts/
"""

MOVED_TARGET_ROBOTS = b"""\
# Served for the "moved" origin, whose /robots.txt redirects here
User-agent: *
Disallow: /old/
Allow: /old/kept
"""

WILDCARD_ROBOTS = b"""\
# '*' matches any run of characters, a final '$' anchors the end
User-agent: *
Disallow: /*.pdf$
Disallow: /search?*q=
Allow: /search?q=public
"""

PAGE_RULES_ROBOTS = b"""\
# Every page may be fetched: the pages say the rest themselves
User-agent: *
Disallow:
"""

USAGE_ROBOTS = b"""\
# Everything may be crawled; what the content may be used for is stated per
# path (Content-Usage, draft-ietf-aipref-attach): no AI training on /articles/
User-agent: *
Disallow:
Content-Usage: train-ai=y
Content-Usage: /articles/ train-ai=n
"""

CRAWL_DELAY_ROBOTS = b"""\
# Crawl-delay is no rule of RFC 9309; crawlers that read it wait that many
# seconds between two requests to the origin
User-agent: *
Crawl-delay: 5
Disallow:

User-agent: DemoBot
Crawl-delay: 1
Disallow:
"""


@dataclass(frozen=True)
class OriginSpec:
    """One origin of the site: what its robots.txt answers and its pages.

    ``pages`` maps a path (query included) to the paths it links to.
    ``robots_redirect`` names the origin whose robots.txt a 3xx points to.
    ``start`` are the paths the spider starts from; ``crawl`` is ``False`` for
    an origin that only serves another's robots.txt. ``meta`` maps a page's
    path to the ``(name, content)`` of the ``<meta>`` tags in its head
    (page-level rules: ``name`` is ``robots`` for every crawler, or one
    crawler's name), and ``headers`` to the ``(name, value)`` of the extra
    headers it is served with (``X-Robots-Tag``...). ``tdmrep`` is the body
    of its ``/.well-known/tdmrep.json`` (W3C TDMRep), or ``None``: a 404.
    """

    name: str
    about: str
    robots_status: int
    robots_body: bytes = b""
    robots_redirect: str | None = None
    pages: dict[str, tuple[str, ...]] = field(default_factory=dict)
    start: tuple[str, ...] = ("/",)
    crawl: bool = True
    meta: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    headers: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    tdmrep: bytes | None = None


ORIGINS: tuple[OriginSpec, ...] = (
    OriginSpec(
        "normal",
        "robots.txt has a group for '*' and one for 'DemoBot', which decides; a page says noai",
        200,
        NORMAL_ROBOTS,
        meta={
            "/about": (("robots", "noarchive, nosnippet"),),
            "/blog/hello-world": (("robots", "noai"),),
        },
        pages={
            "/": ("/about", "/blog/", "/beta/", "/private/press/launch", "/private/accounts"),
            "/about": ("/",),
            "/blog/": ("/blog/hello-world", "/blog/robots-and-you", "/drafts/next-post"),
            "/blog/hello-world": ("/blog/",),
            "/blog/robots-and-you": ("/blog/", "/private/accounts?tab=billing"),
            "/beta/": ("/",),
            "/private/press/launch": ("/",),
            "/private/accounts": ("/",),
            "/private/accounts?tab=billing": ("/",),
            "/drafts/next-post": ("/",),
        },
    ),
    OriginSpec(
        "no-robots",
        "robots.txt answers 404: no robots.txt, so everything may be crawled",
        404,
        b"Not Found\n",
        pages={
            "/": ("/private/diary", "/admin/", "/page-2"),
            "/private/diary": ("/",),
            "/admin/": ("/",),
            "/page-2": ("/",),
        },
    ),
    OriginSpec(
        "unreachable",
        "robots.txt answers 503: its requests wait and are retried, then dropped",
        503,
        b"Service Unavailable\n",
        pages={"/": ("/news", "/contact"), "/news": ("/",), "/contact": ("/",)},
        start=("/", "/news", "/contact"),
    ),
    OriginSpec(
        "moved",
        "robots.txt answers 301 to the robots.txt of 'moved-target', whose rules apply here",
        301,
        robots_redirect="moved-target",
        pages={
            "/": ("/new/", "/old/archive", "/old/kept"),
            "/new/": ("/",),
            "/old/archive": ("/",),
            "/old/kept": ("/",),
        },
    ),
    OriginSpec(
        "moved-target",
        "serves the robots.txt 'moved' redirects to; not crawled",
        200,
        MOVED_TARGET_ROBOTS,
        pages={"/": ()},
        crawl=False,
    ),
    OriginSpec(
        "wildcards",
        "robots.txt rules with '*' and '$' patterns",
        200,
        WILDCARD_ROBOTS,
        pages={
            "/": (
                "/files/report.pdf",
                "/files/report.pdf?download=1",
                "/files/REPORT.PDF",
                "/files/notes.txt",
                "/search?q=public",
                "/search?q=secret",
                "/search?lang=en&q=robots",
                "/search?lang=en",
            ),
            "/files/report.pdf": (),
            "/files/report.pdf?download=1": (),
            "/files/REPORT.PDF": (),
            "/files/notes.txt": (),
            "/search?q=public": ("/",),
            "/search?q=secret": ("/",),
            "/search?lang=en&q=robots": ("/",),
            "/search?lang=en": ("/",),
        },
    ),
    OriginSpec(
        "page-rules",
        "pages that say nofollow (a meta tag naming DemoBot) and noindex (X-Robots-Tag)",
        200,
        PAGE_RULES_ROBOTS,
        meta={
            "/links": (("DemoBot", "nofollow"),),
            "/others": (("OtherBot", "noindex, nofollow"),),
        },
        headers={"/draft": (("X-Robots-Tag", "noindex"),)},
        pages={
            "/": ("/links", "/draft", "/others"),
            "/links": ("/links/one", "/links/two", "/links/three"),
            "/links/one": ("/",),
            "/links/two": ("/",),
            "/links/three": ("/",),
            "/draft": ("/",),
            "/others": ("/others/kept",),
            "/others/kept": ("/",),
        },
    ),
    OriginSpec(
        "usage-prefs",
        "robots.txt says train-ai=n for /articles/ (Content-Usage): no AI training there",
        200,
        USAGE_ROBOTS,
        pages={
            "/": ("/articles/one", "/articles/two", "/shop"),
            "/articles/one": ("/",),
            "/articles/two": ("/",),
            "/shop": ("/",),
        },
    ),
    OriginSpec(
        "crawl-delay",
        "robots.txt asks DemoBot for a Crawl-delay of 1 s between its requests",
        200,
        CRAWL_DELAY_ROBOTS,
        pages={"/": ("/page-1", "/page-2"), "/page-1": ("/",), "/page-2": ("/",)},
    ),
)


@dataclass(frozen=True)
class Hit:
    """One request the server answered; ``time`` is seconds since it started."""

    origin: str
    path: str
    status: int
    time: float


class _QuietSite(Site):
    """A ``Site`` without the access log (the demo prints its own)."""

    def log(self, request: Any) -> None:
        pass


class _OriginResource(Resource):
    isLeaf = True

    def __init__(self, site: LocalSite, spec: OriginSpec) -> None:
        super().__init__()
        self._site = site
        self._spec = spec

    def render_GET(self, request: Request) -> bytes:
        path = request.uri.decode("latin-1")
        status, content_type, body, location = self._site.answer(self._spec, path)
        request.setResponseCode(status)
        request.setHeader(b"Content-Type", content_type.encode())
        if location is not None:
            request.setHeader(b"Location", location.encode())
        if status == 200:
            for name, value in self._spec.headers.get(path, ()):
                request.setHeader(name.encode(), value.encode())
        self._site.hits.append(Hit(self._spec.name, path, status, self._site.elapsed()))
        return body


class LocalSite:
    """The origins of :data:`ORIGINS`, each on its own port of 127.0.0.1."""

    def __init__(self, origins: tuple[OriginSpec, ...] = ORIGINS) -> None:
        self.specs = {spec.name: spec for spec in origins}
        self.ports: dict[str, int] = {}
        self.hits: list[Hit] = []
        self._listening: list[IListeningPort] = []
        self._started = 0.0

    @property
    def running(self) -> bool:
        return bool(self._listening)

    def listen(self) -> None:
        """Listen on one free port of 127.0.0.1 per origin (idempotent), on
        the reactor Scrapy installed: the ports are known before the crawl."""
        if self.running:
            return
        from twisted.internet import reactor

        for spec in self.specs.values():
            factory = _QuietSite(_OriginResource(self, spec))
            port = reactor.listenTCP(0, factory, interface="127.0.0.1")  # type: ignore[attr-defined]
            self._listening.append(port)
            self.ports[spec.name] = port.getHost().port
        self._started = time.monotonic()

    def start(self) -> None:
        """Listen (if not yet), and count the hits' times from now: the
        crawl starts."""
        self.listen()
        self._started = time.monotonic()

    def stop(self) -> defer.Deferred[Any]:
        """Stop listening; fires when every port is closed."""
        ports, self._listening = self._listening, []
        return defer.gatherResults([defer.maybeDeferred(port.stopListening) for port in ports])

    def elapsed(self) -> float:
        return time.monotonic() - self._started

    def url(self, name: str, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.ports[name]}{path}"

    def origin_of(self, url: str) -> str | None:
        """The name of the origin ``url`` belongs to."""
        port = urlsplit(url).port
        return next((name for name, p in self.ports.items() if p == port), None)

    def answer(self, spec: OriginSpec, path: str) -> tuple[int, str, bytes, str | None]:
        """Status, Content-Type, body and Location for ``path`` on ``spec``."""
        if path == ROBOTS_TXT:
            if spec.robots_redirect is not None:
                target = self.url(spec.robots_redirect, ROBOTS_TXT)
                return spec.robots_status, "text/plain", b"", target
            return spec.robots_status, "text/plain", spec.robots_body, None
        if path == TDMREP_JSON and spec.tdmrep is not None:
            return 200, "application/json", spec.tdmrep, None
        links = spec.pages.get(path)
        if links is None:
            return 404, "text/plain", b"Not Found\n", None
        if path.split("?")[0].lower().endswith(".pdf"):
            return 200, "application/pdf", b"%PDF-1.4\n% a demo file\n", None
        if path.split("?")[0].endswith(".txt"):
            return 200, "text/plain", b"Plain notes.\n", None
        items = "".join(f'<li><a href="{escape(link)}">{escape(link)}</a></li>' for link in links)
        tags = "".join(
            f'<meta name="{escape(name)}" content="{escape(content)}">'
            for name, content in spec.meta.get(path, ())
        )
        html = (
            f"<!DOCTYPE html><html><head><title>{escape(spec.name)} {escape(path)}</title>"
            f"{tags}</head><body><h1>{escape(path)}</h1><p>{escape(spec.about)}</p>"
            f"<ul>{items}</ul></body></html>"
        )
        return 200, "text/html; charset=utf-8", html.encode(), None

    def seen(self, name: str) -> set[str]:
        """Every path the origin ``name`` was asked for."""
        return {hit.path for hit in self.hits if hit.origin == name}

    def robots_hits(self, name: str) -> list[Hit]:
        return [hit for hit in self.hits if hit.origin == name and hit.path == ROBOTS_TXT]
