"""The demo's local web site: a few origins on 127.0.0.1, one port each.

Each origin serves its own robots.txt and a handful of HTML pages that link
to each other. The server runs on the crawl's own Twisted reactor (it is
started from the spider's ``start()``) and records every request it answers,
so the demo can show which paths never reached it. It listens on 127.0.0.1
only and needs no network.
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


@dataclass(frozen=True)
class OriginSpec:
    """One origin of the site: what its robots.txt answers and its pages.

    ``pages`` maps a path (query included) to the paths it links to.
    ``robots_redirect`` names the origin whose robots.txt a 3xx points to.
    ``start`` are the paths the spider starts from; ``crawl`` is ``False`` for
    an origin that only serves another's robots.txt. ``robots_meta`` maps a
    page's path to the ``content`` of its ``<meta name="robots">`` tag
    (page-level rules).
    """

    name: str
    about: str
    robots_status: int
    robots_body: bytes = b""
    robots_redirect: str | None = None
    pages: dict[str, tuple[str, ...]] = field(default_factory=dict)
    start: tuple[str, ...] = ("/",)
    crawl: bool = True
    robots_meta: dict[str, str] = field(default_factory=dict)


ORIGINS: tuple[OriginSpec, ...] = (
    OriginSpec(
        "normal",
        "robots.txt with a '*' group and a 'DemoBot' group",
        200,
        NORMAL_ROBOTS,
        robots_meta={"/about": "noarchive, nosnippet", "/blog/hello-world": "noai"},
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
        "robots.txt answers 404",
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
        "robots.txt always answers 503",
        503,
        b"Service Unavailable\n",
        pages={"/": ("/news", "/contact"), "/news": ("/",), "/contact": ("/",)},
        start=("/", "/news", "/contact"),
    ),
    OriginSpec(
        "moved",
        "robots.txt answers 301 to the robots.txt of 'moved-target'",
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
        "robots.txt with '*' and '$' patterns",
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

    def start(self) -> None:
        """Listen on one free port of 127.0.0.1 per origin (idempotent)."""
        if self.running:
            return
        from twisted.internet import reactor

        for spec in self.specs.values():
            factory = _QuietSite(_OriginResource(self, spec))
            port = reactor.listenTCP(0, factory, interface="127.0.0.1")  # type: ignore[attr-defined]
            self._listening.append(port)
            self.ports[spec.name] = port.getHost().port
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
        links = spec.pages.get(path)
        if links is None:
            return 404, "text/plain", b"Not Found\n", None
        if path.split("?")[0].lower().endswith(".pdf"):
            return 200, "application/pdf", b"%PDF-1.4\n% a demo file\n", None
        if path.split("?")[0].endswith(".txt"):
            return 200, "text/plain", b"Plain notes.\n", None
        items = "".join(f'<li><a href="{escape(link)}">{escape(link)}</a></li>' for link in links)
        meta = spec.robots_meta.get(path)
        tag = "" if meta is None else f'<meta name="robots" content="{escape(meta)}">'
        html = (
            f"<!DOCTYPE html><html><head><title>{escape(spec.name)} {escape(path)}</title>"
            f"{tag}</head><body><h1>{escape(path)}</h1><p>{escape(spec.about)}</p>"
            f"<ul>{items}</ul></body></html>"
        )
        return 200, "text/html; charset=utf-8", html.encode(), None

    def seen(self, name: str) -> set[str]:
        """Every path the origin ``name`` was asked for."""
        return {hit.path for hit in self.hits if hit.origin == name}

    def robots_hits(self, name: str) -> list[Hit]:
        return [hit for hit in self.hits if hit.origin == name and hit.path == ROBOTS_TXT]
