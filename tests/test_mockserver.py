"""Tests of :mod:`tests.mockserver`, with Twisted's own HTTP client in the same reactor."""

from __future__ import annotations

import gzip
import time
from collections.abc import AsyncIterator, Generator
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import defer, error, task
from twisted.internet.protocol import Protocol
from twisted.python.failure import Failure
from twisted.web.client import (
    Agent,
    HTTPConnectionPool,
    IResponse,
    ResponseDone,
    ResponseFailed,
    ResponseNeverReceived,
)
from twisted.web.http_headers import Headers

from tests.mockserver import Hit, MockServer, Reply

pytestmark = pytest.mark.e2e

ServerGen = Generator[Any, Any, None]


@pytest_twisted.async_yield_fixture
async def server() -> AsyncIterator[MockServer]:
    """A :class:`MockServer`, stopped (and waited for) after the test."""
    s = MockServer()
    yield s
    await s.stop()


def _reactor() -> Any:
    from twisted.internet import reactor

    return reactor


def _agent() -> Agent:
    """A client that does not keep connections open after a response."""
    return Agent(_reactor(), pool=HTTPConnectionPool(_reactor(), persistent=False))


class _BodyReader(Protocol):
    """Collects a response body; ``done`` fires with it, or fails as the body did.

    (Twisted's ``readBody`` warns that the client's transport has no
    ``abortConnection``, which the project's ``filterwarnings = error`` turns into
    a failure.)
    """

    def __init__(self) -> None:
        self.done: defer.Deferred[bytes] = defer.Deferred()
        self._data: list[bytes] = []

    def dataReceived(self, data: bytes) -> None:
        self._data.append(data)

    def connectionLost(self, reason: Failure = ResponseDone) -> None:  # type: ignore[assignment]
        if reason.check(ResponseDone):
            self.done.callback(b"".join(self._data))
        else:
            self.done.errback(reason)


def readBody(response: IResponse) -> defer.Deferred[bytes]:
    """The body of ``response``."""
    reader = _BodyReader()
    response.deliverBody(reader)
    return reader.done


@defer.inlineCallbacks
def _get(url: str, headers: dict[str, str] | None = None) -> ServerGen:
    """GET ``url``; the result is ``(response, body)``."""
    raw = Headers({k: [v] for k, v in (headers or {}).items()})
    response = yield _agent().request(b"GET", url.encode(), raw)
    body = yield readBody(response)
    return response, body


def _sleep(seconds: float) -> defer.Deferred[None]:
    return task.deferLater(_reactor(), seconds, lambda: None)


def _our_calls() -> list[Any]:
    """The reactor's pending delayed calls that come from the mock server."""
    return [c for c in _reactor().getDelayedCalls() if c.func.__module__ == "tests.mockserver"]


@pytest_twisted.inlineCallbacks
def test_route_and_default(server: MockServer) -> ServerGen:
    origin = server.add_origin({"/robots.txt": Reply(body=b"User-agent: *\nDisallow: /private\n")})
    response, body = yield _get(origin.url("/robots.txt"))
    assert response.code == 200
    assert body == b"User-agent: *\nDisallow: /private\n"
    assert response.headers.getRawHeaders(b"content-type") == [b"text/plain"]

    response, body = yield _get(origin.url("/some/page?q=1"))
    assert response.code == 200
    assert body == b"ok /some/page?q=1"

    html = server.add_origin(default=Reply(404, b"<p>gone</p>", html=True))
    response, body = yield _get(html.url("/robots.txt"))
    assert (response.code, body) == (404, b"<p>gone</p>")
    assert response.headers.getRawHeaders(b"content-type") == [b"text/html"]


@pytest_twisted.inlineCallbacks
def test_callable_route_sees_the_hit_count(server: MockServer) -> ServerGen:
    seen: list[tuple[str, int]] = []

    def flaky(hit: Hit, n: int) -> Reply:
        seen.append((hit.path, n))
        return Reply(503, b"busy", headers={"Retry-After": "1"}) if n == 1 else Reply(body=b"ok")

    origin = server.add_origin({"/robots.txt": flaky})
    response, body = yield _get(origin.url("/robots.txt"))
    assert (response.code, body) == (503, b"busy")
    assert response.headers.getRawHeaders(b"retry-after") == [b"1"]
    response, body = yield _get(origin.url("/robots.txt"))
    assert (response.code, body) == (200, b"ok")
    assert seen == [("/robots.txt", 1), ("/robots.txt", 2)]


@pytest_twisted.inlineCallbacks
def test_redirect_between_origins(server: MockServer) -> ServerGen:
    target = server.add_origin({"/robots.txt": Reply(body=b"User-agent: *\nAllow: /\n")})
    origin = server.add_origin(
        {"/robots.txt": Reply(301, headers={"Location": target.url("/robots.txt")})}
    )
    response, _ = yield _get(origin.url("/robots.txt"))
    assert response.code == 301
    assert response.headers.getRawHeaders(b"location") == [target.url("/robots.txt").encode()]
    assert target.port != origin.port


@pytest_twisted.inlineCallbacks
def test_gzip(server: MockServer) -> ServerGen:
    text = b"User-agent: *\nDisallow: /x\n" * 50
    origin = server.add_origin({"/robots.txt": Reply(body=text, gzip=True)})
    response, body = yield _get(origin.url("/robots.txt"))
    assert response.headers.getRawHeaders(b"content-encoding") == [b"gzip"]
    assert body != text
    assert gzip.decompress(body) == text
    assert response.length == len(body)


@pytest_twisted.inlineCallbacks
def test_repeat(server: MockServer) -> ServerGen:
    piece = b"#" * 999 + b"\n"
    origin = server.add_origin({"/robots.txt": Reply(body=piece, repeat=3000)})
    response, body = yield _get(origin.url("/robots.txt"))
    assert response.length == 3_000_000
    assert body == piece * 3000
    assert server.sent[origin.port] == 3_000_000


@pytest_twisted.inlineCallbacks
def test_repeat_stops_writing_when_the_client_goes(server: MockServer) -> ServerGen:
    """A body of 10 GB: the client reads for a moment and closes the
    connection; the server wrote what the connection took, no more."""
    origin = server.add_origin({"/robots.txt": Reply(body=b"#" * 65_535 + b"\n", repeat=160_000)})
    response = yield _agent().request(b"GET", origin.url("/robots.txt").encode())
    assert response.length == 10_485_760_000
    reader = _Quitter()
    response.deliverBody(reader)
    yield reader.done
    yield _sleep(0.2)
    sent = server.sent[origin.port]
    # What the client read, and what the socket buffers held when it left.
    assert 0 < reader.received <= sent < reader.received + 50_000_000 < response.length


class _Quitter(Protocol):
    """Reads a body for 0.1 s, then stops the download (and the connection)."""

    def __init__(self) -> None:
        self.done: defer.Deferred[None] = defer.Deferred()
        self.received = 0
        self._call = _reactor().callLater(0.1, self._quit)

    def dataReceived(self, data: bytes) -> None:
        self.received += len(data)

    def _quit(self) -> None:
        assert self.transport is not None
        self.transport.stopProducing()

    def connectionLost(self, reason: Failure = ResponseDone) -> None:  # type: ignore[assignment]
        if self._call.active():
            self._call.cancel()
        self.done.callback(None)


@pytest_twisted.inlineCallbacks
def test_truncate(server: MockServer) -> ServerGen:
    origin = server.add_origin({"/robots.txt": Reply(body=b"User-agent: *\n", truncate=True)})
    response = yield _agent().request(b"GET", origin.url("/robots.txt").encode())
    assert response.code == 200
    assert response.length == len(b"User-agent: *\n") + 1000
    with pytest.raises(ResponseFailed) as info:
        yield readBody(response)
    # the connection closed cleanly, but short of the announced length
    reasons = info.value.reasons
    assert reasons[0].check(error.ConnectionDone)
    assert [type(r.value).__name__ for r in reasons[1:]] == ["_DataLoss"]


@pytest_twisted.inlineCallbacks
def test_reset(server: MockServer) -> ServerGen:
    origin = server.add_origin({"/robots.txt": Reply(reset=True)})
    with pytest.raises(ResponseNeverReceived) as info:
        yield _get(origin.url("/robots.txt"))
    # an RST, not a clean close: "lost in a non-clean fashion"
    assert [r.check(error.ConnectionLost) for r in info.value.reasons] == [error.ConnectionLost]
    assert server.paths(origin) == ["/robots.txt"]


@pytest_twisted.inlineCallbacks
def test_delay(server: MockServer) -> ServerGen:
    origin = server.add_origin({"/slow": Reply(body=b"late", delay=0.3)})
    start = time.monotonic()
    _, body = yield _get(origin.url("/slow"))
    elapsed = time.monotonic() - start
    (hit,) = server.hits_for(origin, "/slow")
    assert body == b"late"
    assert elapsed >= 0.3
    assert hit.time - start < 0.3  # recorded on arrival, before the reply
    assert not _our_calls()


@pytest_twisted.inlineCallbacks
def test_hang_then_stop_cleans_up(server: MockServer) -> ServerGen:
    origin = server.add_origin({"/robots.txt": Reply(hang=True), "/slow": Reply(delay=60)})
    d = _agent().request(b"GET", origin.url("/robots.txt").encode())
    d.addTimeout(0.5, _reactor())  # Agent's cancellation wins over the TimeoutError
    start = time.monotonic()
    with pytest.raises(ResponseNeverReceived) as info:
        yield d
    assert time.monotonic() - start >= 0.5
    assert info.value.reasons[0].check(defer.CancelledError)
    assert server.paths(origin) == ["/robots.txt"]

    # one request still hanging, one waiting for its delayed reply
    failures: list[Failure] = []
    for path in ("/robots.txt", "/slow"):
        _agent().request(b"GET", origin.url(path).encode()).addErrback(failures.append)
    while len(server.hits) < 3:
        yield _sleep(0.01)
    assert _our_calls()
    factories = list(server._factories)
    assert sum(len(factory.protocols) for factory in factories) == 2
    yield server.stop()
    assert not _our_calls()
    assert not any(factory.protocols for factory in factories)
    while len(failures) < 2:
        yield _sleep(0.01)
    assert [f.check(ResponseNeverReceived) for f in failures] == [ResponseNeverReceived] * 2
    with pytest.raises(error.ConnectionRefusedError):
        yield _get(origin.url("/robots.txt"))
    yield server.stop()  # stopping twice is harmless (the fixture stops it again)


@pytest_twisted.inlineCallbacks
def test_hits_record_requests(server: MockServer) -> ServerGen:
    a = server.add_origin({"/robots.txt": Reply(body=b"")})
    b = server.add_origin()
    yield _get(a.url("/robots.txt"), {"User-Agent": "TestBot/1.0"})
    yield _get(a.url("/p%20q?x=1", host="localhost"))
    yield _get(b.url("/"))

    assert [(h.port, h.path) for h in server.hits] == [
        (a.port, "/robots.txt"),
        (a.port, "/p%20q?x=1"),
        (b.port, "/"),
    ]
    assert server.paths(a) == ["/robots.txt", "/p%20q?x=1"]
    assert server.paths(b) == ["/"]
    assert server.hits_for(a, "/p%20q?x=1")[0].host == "localhost"
    assert server.hits_for(a, "/p%20q") == []
    first = server.hits_for(a, "/robots.txt")[0]
    assert (first.host, first.method) == ("127.0.0.1", "GET")
    assert first.headers["user-agent"] == "TestBot/1.0"
    assert first.headers["host"] == f"127.0.0.1:{a.port}"
    assert server.hits[0].time <= server.hits[1].time <= server.hits[2].time
    assert a.base == f"http://127.0.0.1:{a.port}"
