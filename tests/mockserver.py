"""A real local HTTP server for end-to-end crawl tests.

The server runs in-process, on the Twisted reactor that pytest-twisted
installs, so a test that yields to the reactor (``@pytest_twisted.inlineCallbacks``
or ``@pytest_twisted.ensureDeferred``) can run a crawl against it. It listens
on 127.0.0.1 only. Each :class:`Origin` is one listening port with its own
routes; every request to every origin is recorded as a :class:`Hit`.

A route is a :class:`Reply` (a canned answer: status, body, headers, and
misbehaviours such as ``delay``, ``hang``, ``reset``, ``truncate``, ``gzip``)
or a callable that gets the :class:`Hit` and the 1-based count of hits of
that (origin, path) so far and returns a :class:`Reply`. A redirect is just
``Reply(301, headers={"Location": other.url("/robots.txt")})``.

:meth:`MockServer.stop` returns a ``Deferred`` that fires once every port has
stopped listening and every open connection (a hanging request's especially)
has been closed; pending delayed replies are cancelled at once. Wait for it
in the fixture's teardown, so that nothing leaks into the next test::

    import pytest
    import pytest_twisted

    from tests.mockserver import MockServer, Reply


    @pytest_twisted.async_yield_fixture
    async def server():
        s = MockServer()
        yield s
        await s.stop()


    @pytest_twisted.inlineCallbacks
    def test_something(server):
        origin = server.add_origin({"/robots.txt": Reply(body=b"User-agent: *\\nDisallow: /")})
        ...  # crawl origin.url("/page")
        assert server.paths(origin) == ["/robots.txt"]

A plain (synchronous) fixture can instead end with
``pytest_twisted.blockon(s.stop())``.
"""

from __future__ import annotations

import contextlib
import gzip as _gzip
import socket
import struct
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from twisted.internet import defer, task
from twisted.internet.interfaces import IPullProducer
from twisted.protocols.policies import ProtocolWrapper, WrappingFactory
from twisted.web.http import NO_BODY_CODES
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET, Request, Site
from zope.interface import implementer

if TYPE_CHECKING:
    from twisted.internet.base import DelayedCall
    from twisted.internet.interfaces import IListeningPort

__all__ = ["Hit", "MockServer", "Origin", "Reply", "Route"]


@dataclass(frozen=True)
class Reply:
    """A canned answer to a request.

    ``headers`` are extra response headers (they override the server's own,
    ``Content-Type`` included); a list of values sends the header once per
    value. ``delay`` is seconds to wait before replying
    (a reactor ``callLater``; it also delays ``reset`` and ``truncate``).
    ``hang`` never replies: the connection stays open until the client gives
    up or the server stops. ``reset`` aborts the TCP connection (with an RST)
    without sending a byte. ``truncate`` announces ``Content-Length: len(body)
    + 1000``, sends the body and closes the connection. ``gzip`` compresses
    the body and sets ``Content-Encoding: gzip`` whatever the request's
    ``Accept-Encoding``. ``html`` sends ``text/html`` instead of ``text/plain``.
    ``repeat`` sends ``body`` that many times (``Content-Length`` is the
    whole), written as the connection takes it: a body of any size is never
    held whole, and a client that stops reading stops the writing too;
    :attr:`MockServer.sent` counts the body bytes written so.
    """

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str | Sequence[str]] = field(default_factory=dict)
    delay: float = 0.0
    hang: bool = False
    reset: bool = False
    truncate: bool = False
    gzip: bool = False
    html: bool = False
    repeat: int = 0


@dataclass(frozen=True)
class Hit:
    """One request as the server received it.

    ``host`` is the Host header's host part, lower-cased; ``path`` is the
    request target as sent (query included, percent-escapes kept);
    ``headers`` has lower-cased names (the last value wins); ``time`` is
    ``time.monotonic()`` on arrival.
    """

    port: int
    host: str
    path: str
    method: str
    headers: dict[str, str]
    time: float


Route: TypeAlias = Reply | Callable[[Hit, int], Reply]


class Origin:
    """One listening port of a :class:`MockServer`."""

    def __init__(self, port: int) -> None:
        """Wrap the port number ``port``."""
        self.port = port

    def __repr__(self) -> str:
        """``Origin(http://127.0.0.1:PORT)``."""
        return f"Origin({self.base})"

    def url(self, path: str = "/", *, host: str = "127.0.0.1", scheme: str = "http") -> str:
        """The URL of ``path`` (which starts with ``/``) on this origin,
        e.g. ``http://127.0.0.1:PORT/path``; ``host`` may be ``localhost``."""
        return f"{scheme}://{host}:{self.port}{path}"

    @property
    def base(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return self.url("")


def _reactor() -> Any:
    """The installed reactor (imported late: pytest-twisted installs it)."""
    from twisted.internet import reactor

    return reactor


def _host_part(host_header: str) -> str:
    """The host of a Host header value, without the port, lower-cased."""
    if host_header.startswith("["):
        return host_header[: host_header.find("]") + 1].lower()
    return host_header.rsplit(":", 1)[0].lower() if ":" in host_header else host_header.lower()


class _Factory(WrappingFactory):
    """Wraps a :class:`Site` to keep track of its open connections."""

    noisy = False

    def __init__(self, site: Site) -> None:
        """Wrap ``site``."""
        super().__init__(site)
        self._closed: list[defer.Deferred[None]] = []

    def unregisterProtocol(self, p: ProtocolWrapper) -> None:
        """Forget a closed connection; fire the waiters once none is left."""
        super().unregisterProtocol(p)
        if not self.protocols:
            waiters, self._closed = self._closed, []
            for waiter in waiters:
                waiter.callback(None)

    def close_all(self) -> defer.Deferred[None]:
        """Abort every open connection; the result fires when all are gone."""
        done: defer.Deferred[None] = defer.Deferred()
        if not self.protocols:
            done.callback(None)
            return done
        self._closed.append(done)
        for wrapper in list(self.protocols):
            wrapper.transport.abortConnection()
        return done


class _Resource(Resource):
    """Answers every request to one origin from its routes."""

    isLeaf = True

    def __init__(
        self, server: MockServer, port: int, routes: dict[str, Route], default: Route | None
    ) -> None:
        """Serve ``routes`` (and ``default``) for ``server``'s origin on ``port``."""
        super().__init__()
        self._server = server
        self._port = port
        self._routes = routes
        self._default = default

    def render(self, request: Request) -> bytes | int:
        """Record the hit, then answer as its route says."""
        hit = self._server._record(request, self._port)
        route = self._routes.get(hit.path.split("?", 1)[0], self._default)
        if route is None:
            route = Reply(200, f"ok {hit.path}".encode())
        reply = route if isinstance(route, Reply) else route(hit, self._server._count(hit))
        if reply.hang:
            return NOT_DONE_YET
        if reply.delay > 0:
            self._server._later(request, reply)
        else:
            _respond(request, reply, self._server.sent)
        return NOT_DONE_YET


@implementer(IPullProducer)
class _Repeater:
    """Writes ``body`` ``times`` times to ``request``, a piece each time the
    transport asks for more; counts what it wrote in ``sent``."""

    def __init__(self, request: Request, body: bytes, times: int, sent: Counter[int]) -> None:
        self._request = request
        self._body = body
        self._left = times
        self._sent = sent
        self._port = request.getHost().port

    def resumeProducing(self) -> None:
        if self._left <= 0:
            self._request.unregisterProducer()
            self._request.finish()
            return
        self._left -= 1
        self._sent[self._port] += len(self._body)
        self._request.write(self._body)

    def stopProducing(self) -> None:
        self._left = 0


def _respond(request: Request, reply: Reply, sent: Counter[int]) -> None:
    """Send ``reply`` (or misbehave as it says) on ``request``."""
    transport = request.channel.transport
    if reply.reset:
        # a zero linger time makes close() send an RST rather than a FIN
        with contextlib.suppress(AttributeError, OSError):
            handle = transport.getHandle()
            handle.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abortConnection()
        return
    body = _gzip.compress(reply.body, mtime=0) if reply.gzip else reply.body
    request.setResponseCode(reply.status)
    request.setHeader(b"Content-Type", b"text/html" if reply.html else b"text/plain")
    if reply.gzip:
        request.setHeader(b"Content-Encoding", b"gzip")
    if reply.status not in NO_BODY_CODES:
        extra = 1000 if reply.truncate else 0
        length = len(body) * max(reply.repeat, 1) + extra
        request.setHeader(b"Content-Length", str(length).encode())
    for name, value in reply.headers.items():
        values = [value] if isinstance(value, str) else list(value)
        request.responseHeaders.setRawHeaders(
            name.encode("latin-1"), [v.encode("latin-1") for v in values]
        )
    if reply.repeat:
        request.registerProducer(_Repeater(request, body, reply.repeat, sent), False)
        return
    request.write(body)
    if reply.truncate:
        transport.loseConnection()
    else:
        request.finish()


class MockServer:
    """A local HTTP server with any number of origins (ports).

    ``hits`` is every request received, in order, on all origins.
    """

    def __init__(self) -> None:
        """A server with no origin yet; :meth:`add_origin` adds one."""
        self.hits: list[Hit] = []
        #: Body bytes written by ``Reply(repeat=...)`` routes, by port.
        self.sent: Counter[int] = Counter()
        self._counts: Counter[tuple[int, str]] = Counter()
        self._ports: list[IListeningPort] = []
        self._factories: list[_Factory] = []
        self._calls: set[DelayedCall] = set()

    def add_origin(
        self, routes: Mapping[str, Route] | None = None, *, default: Route | None = None
    ) -> Origin:
        """Start listening on a new free port of 127.0.0.1.

        ``routes`` maps an exact path (without the query) to a route; any
        other path gets ``default``, which by default is a 200 ``text/plain``
        reply ``ok PATH`` (PATH with its query). A ``/robots.txt`` without a
        route gets the default too, which parses as allow-all.
        """
        resource = _Resource(self, 0, dict(routes or {}), default)
        site = Site(resource)
        site.noisy = False
        site.log = lambda request: None  # type: ignore[method-assign]
        factory = _Factory(site)
        listening = _reactor().listenTCP(0, factory, interface="127.0.0.1")
        port: int = listening.getHost().port
        resource._port = port
        self._ports.append(listening)
        self._factories.append(factory)
        return Origin(port)

    def hits_for(self, origin: Origin, path: str | None = None) -> list[Hit]:
        """The hits on ``origin``, and on ``path`` (exact, query included) if given."""
        return [
            hit
            for hit in self.hits
            if hit.port == origin.port and (path is None or hit.path == path)
        ]

    def paths(self, origin: Origin) -> list[str]:
        """The paths requested on ``origin``, in order."""
        return [hit.path for hit in self.hits_for(origin)]

    def stop(self) -> defer.Deferred[None]:
        """Stop listening everywhere, cancel pending delayed replies and abort
        every open connection. The result fires once all of that is done."""
        for call in self._calls:
            if call.active():
                call.cancel()
        self._calls.clear()
        waits: list[defer.Deferred[Any]] = []
        waits.extend(defer.maybeDeferred(listening.stopListening) for listening in self._ports)
        self._ports.clear()
        waits.extend(factory.close_all() for factory in self._factories)
        self._factories.clear()
        done = defer.gatherResults(waits, consumeErrors=True)
        # one more turn of the reactor lets the clients' ends of the closed
        # connections go away too
        return done.addCallback(lambda _: task.deferLater(_reactor(), 0, lambda: None))

    def _record(self, request: Request, port: int) -> Hit:
        """Record ``request``, received on ``port``, as a :class:`Hit`."""
        headers = {
            name.decode("latin-1").lower(): values[-1].decode("latin-1")
            for name, values in request.requestHeaders.getAllRawHeaders()
        }
        hit = Hit(
            port=port,
            host=_host_part(headers.get("host", "")),
            path=request.uri.decode("latin-1"),
            method=request.method.decode("latin-1"),
            headers=headers,
            time=time.monotonic(),
        )
        self.hits.append(hit)
        self._counts[port, hit.path] += 1
        return hit

    def _count(self, hit: Hit) -> int:
        """How many hits of ``hit``'s (origin, path) so far, ``hit`` included."""
        return self._counts[hit.port, hit.path]

    def _later(self, request: Request, reply: Reply) -> None:
        """Answer ``request`` with ``reply`` after ``reply.delay`` seconds,
        unless the client goes away first."""

        def fire() -> None:
            self._calls.discard(call)
            _respond(request, reply, self.sent)

        def gone(_: object) -> None:
            self._calls.discard(call)
            if call.active():
                call.cancel()

        call = _reactor().callLater(reply.delay, fire)
        self._calls.add(call)
        request.notifyFinish().addBoth(gone)
