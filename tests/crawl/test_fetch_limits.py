"""The robots.txt fetch against hostile servers (issue 35): a body of any
size or any compression costs at most about twice ``ROBOTSTXT_RFC_MAX_BYTES``
and is read up to it; and the log says what happened, in words: no
"Ignored response" or warn-size line of Scrapy's for a body of which only
the limit was read, no Twisted failure repr for a failed download.

Real crawls against the local server (a raw socket server where the mock
server cannot misbehave enough), under both activations; the decoder and
the failure wording have table tests of their own.
"""

from __future__ import annotations

import functools
import gzip
import logging
import socket
import threading
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
import pytest_twisted
from scrapy import signals

from scrapy_robots_rfc.crawl._content_encoding import DecodedBody

from ..crawling import Stage, crawl, make_crawler, pages, robots_origin, stat
from ..mockserver import Reply

LIMIT = 512_000
HEAD = b"User-agent: *\nDisallow: /early\n"
LINE = b"#" * 999 + b"\n"
LATE = b"Disallow: /late\n"
MIB = 1024 * 1024


def text(size: int) -> Iterator[bytes]:
    """:data:`HEAD`, comment lines to ``size`` bytes, then :data:`LATE`, in
    1 MiB pieces."""
    yield HEAD
    block = LINE * (MIB // len(LINE))
    left = size - len(HEAD)
    while left > 0:
        yield block[:left]
        left -= len(block)
    yield LATE


@functools.cache
def bomb(coding: str, size: int = 1024 * MIB) -> bytes:
    """:func:`text` of ``size`` bytes in ``coding``: 1 GiB is a few MB."""
    if coding in ("gzip", "deflate"):
        z = zlib.compressobj(1, zlib.DEFLATED, 31 if coding == "gzip" else 15)
        return b"".join([*(z.compress(piece) for piece in text(size)), z.flush()])
    if coding == "br":
        brotli = pytest.importorskip("brotli")
        c = brotli.Compressor(quality=1)
        return b"".join([*(c.process(piece) for piece in text(size)), c.finish()])
    assert coding == "zstd"
    zstd = _zstd()
    zc = zstd.ZstdCompressor()
    return b"".join([*(zc.compress(piece) for piece in text(size)), zc.flush()])


def _zstd() -> Any:
    try:
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError:
        zstd = pytest.importorskip("backports.zstd", reason="no zstd module is installed")
    return zstd


def lines(caplog: pytest.LogCaptureFixture, level: int = logging.DEBUG) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= level]


def by(caplog: pytest.LogCaptureFixture, logger: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name.startswith(logger)]


# -- decoding as the body comes, never past the limit -----------------------------------


def fed(coding: str, data: bytes, limit: int, piece: int = 65536) -> DecodedBody:
    decoded = DecodedBody.of([coding.encode()], limit)
    assert decoded is not None
    for start in range(0, len(data), piece):
        if decoded.feed(data[start : start + piece]):
            break
    return decoded


SMALL = HEAD + LINE * 100 + LATE


def _brotli(data: bytes) -> bytes:
    return pytest.importorskip("brotli").compress(data)  # type: ignore[no-any-return]


def _raw_deflate(data: bytes) -> bytes:
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    return z.compress(data) + z.flush()


ENCODED = [
    pytest.param("gzip", lambda d: gzip.compress(d), id="gzip"),
    pytest.param("x-gzip", lambda d: gzip.compress(d), id="x-gzip"),
    pytest.param("gzip", lambda d: gzip.compress(d[:500]) + gzip.compress(d[500:]), id="2-members"),
    pytest.param("deflate", zlib.compress, id="deflate-zlib"),
    pytest.param("deflate", _raw_deflate, id="deflate-raw"),
    pytest.param("br", _brotli, id="br"),
    pytest.param("zstd", lambda d: _zstd().compress(d), id="zstd"),
    pytest.param("gzip, br", lambda d: _brotli(gzip.compress(d)), id="gzip-then-br"),
]


@pytest.mark.parametrize(("coding", "encode"), ENCODED)
@pytest.mark.parametrize("piece", [1, 7, 65536])
def test_a_body_is_decoded_whole_under_the_limit(coding, encode, piece):
    decoded = fed(coding, encode(SMALL), LIMIT, piece)
    assert (decoded.body(), decoded.full, decoded.damage) == (SMALL, False, None)


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "zstd"])
def test_a_bomb_is_decoded_to_the_limit_and_one_byte(coding):
    """1 GiB compressed to a few MB: decoding stops at the limit and one
    byte, after the first kilobytes of it."""
    data = bomb(coding)
    decoded = fed(coding, data, LIMIT)
    body = decoded.body()
    assert len(body) == LIMIT + 1
    assert body.startswith(HEAD)
    assert decoded.full
    assert decoded.received <= 65536


def test_no_coding_of_a_chain_gives_the_next_more_than_the_limit():
    """gzip of a gzip bomb: the outer gzip decodes to the inner gzip, which
    is itself never decoded past the limit either."""
    twice = gzip.compress(bomb("gzip", 64 * MIB))
    decoded = fed("gzip, gzip", twice, LIMIT)
    body = decoded.body()
    assert len(body) == LIMIT + 1
    assert body.startswith(HEAD)


def test_a_damaged_gzip_body_is_read_up_to_the_damage():
    """A wrong checksum at the end, as some servers send it: every byte
    decoded, as Scrapy's gunzip reads it; the damage is said."""
    data = bytearray(gzip.compress(SMALL))
    data[-6] ^= 0xFF  # in the checksum of the gzip trailer
    decoded = fed("gzip", bytes(data), LIMIT)
    assert decoded.body() == SMALL
    assert decoded.damage == "Error -3 while decompressing data: incorrect data check"
    assert not decoded.full


def test_a_body_that_is_not_what_its_coding_says_decodes_to_nothing():
    decoded = fed("gzip", SMALL, LIMIT)
    assert decoded.body() == b""
    assert decoded.damage == "Error -3 while decompressing data: incorrect header check"


@pytest.mark.parametrize("header", [[b"identity"], [b""], [b"compress"], [b"gzip, compress"]])
def test_identity_and_unknown_codings_are_not_decoded_here(header):
    assert DecodedBody.of(header, LIMIT) is None


# -- real crawls: sizes and codings ------------------------------------------------------


def no_size_warning(caplog: pytest.LogCaptureFixture) -> None:
    """Nothing of Scrapy's about the robots.txt body's size or compression:
    the limit is the fetch's, and the INFO line of ours says so."""
    for message in lines(caplog, logging.WARNING):
        assert "Ignored response" not in message, message
        assert "warn size" not in message, message
        assert "max size" not in message, message
        assert "DOWNLOAD_MAXSIZE" not in message, message
    assert by(caplog, "scrapy.downloadermiddlewares.httpcompression") == []


def larger_line(robots: str, how: str) -> str:
    return (
        f"{robots} is larger than ROBOTSTXT_RFC_MAX_BYTES (512,000 bytes): {how}, and the "
        "rules in its first 512,000 bytes are used; the rest is ignored (RFC 9309 §2.5)"
    )


@pytest.mark.e2e
@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "zstd"])
@pytest_twisted.inlineCallbacks
def test_a_1_gib_bomb_is_read_to_the_limit_and_said_so(server, activation, caplog, coding):
    data = bomb(coding)
    origin = robots_origin(server, Reply(body=data, headers={"Content-Encoding": coding}))
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(pages(origin, "/early", "/late"))])
    assert crawler.spider.seen == [origin.url("/late")]
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [origin.url("/early")]
    assert stat(crawler, "robotstxt/truncated") == 1
    assert stat(crawler, "robotstxt/rules") == 1
    # The download stopped after the first pieces: far less than the bomb.
    assert stat(crawler, "downloader/response_bytes") < 1_000_000
    # Scrapy's HttpCompressionMiddleware never decoded it.
    assert stat(crawler, "httpcompression/response_count") is None
    no_size_warning(caplog)
    robots = origin.url("/robots.txt")
    [said] = [m for m in lines(caplog, logging.INFO) if m.startswith(f"{robots} is larger")]
    received = said.split("after ")[1].split(" bytes")[0]
    how = (
        f"its download stopped there, after {received} bytes of {coding}-encoded body, "
        "decoded as they came"
    )
    assert said == larger_line(robots, how)
    assert 0 < int(received.replace(",", "")) < 1_000_000


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_100_mb_body_is_read_to_the_limit_and_said_so(server, activation, caplog):
    """Served as it is written (tests/mockserver.py's ``repeat``): the
    server sends what the crawl reads, no more than the socket buffers."""
    # 1,000 bytes, 100,000 times: each starts with the rules for /early.
    head = HEAD + b"#" * (1000 - len(HEAD) - 1) + b"\n"
    origin = robots_origin(server, Reply(body=head, repeat=100_000))
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(pages(origin, "/early", "/late"))])
    assert crawler.spider.seen == [origin.url("/late")]
    assert stat(crawler, "robotstxt/truncated") == 1
    assert server.sent[origin.port] < 100_000_000 // 4
    assert stat(crawler, "downloader/response_bytes") < LIMIT + 2 * MIB
    no_size_warning(caplog)
    robots = origin.url("/robots.txt")
    assert larger_line(robots, "its download stopped there") in lines(caplog, logging.INFO)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_damaged_gzip_body_is_read_up_to_the_damage_and_said_so(server, activation, caplog):
    data = bytearray(gzip.compress(HEAD + LATE))
    data[-6] ^= 0xFF
    origin = robots_origin(server, Reply(body=bytes(data), headers={"Content-Encoding": "gzip"}))
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(pages(origin, "/early", "/late", "/a"))])
    assert crawler.spider.seen == [origin.url("/a")]
    assert stat(crawler, "robotstxt/rules") == 1
    robots = origin.url("/robots.txt")
    assert (
        f"{robots}: its gzip body is damaged (Error -3 while decompressing data: incorrect "
        f"data check); the {len(HEAD + LATE)} bytes decoded before the damage are used, up to "
        "their last whole line"
    ) in lines(caplog, logging.WARNING)
    no_size_warning(caplog)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_body_that_is_not_gzip_makes_robots_txt_unreachable(server, activation, caplog):
    origin = robots_origin(server, Reply(body=HEAD, headers={"Content-Encoding": "gzip"}))
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(
            activation, [Stage(pages(origin, "/a"))], ROBOTSTXT_RFC_UNREACHABLE_WAIT=0
        )
    assert crawler.spider.failed_with("robots.txt unreachable") == [origin.url("/a")]
    robots = origin.url("/robots.txt")
    assert any(
        m.startswith(
            f"{robots} is unreachable (its gzip body cannot be decoded (Error -3 while "
            "decompressing data: incorrect header check)): "
        )
        for m in lines(caplog, logging.WARNING)
    ), lines(caplog, logging.WARNING)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_body_under_the_limit_is_decoded_and_handed_to_the_spider(server, activation):
    """The spider's own request for robots.txt gets the fetch's response,
    decoded, without its Content-Encoding (docs/sitemaps.rst)."""
    origin = robots_origin(server, Reply(body=SMALL, gzip=True))
    crawler = make_crawler(activation)
    received: list[tuple[str, bytes, list[bytes]]] = []

    def keep(response: Any, **kwargs: Any) -> None:
        received.append((response.url, response.body, response.flags))

    crawler.signals.connect(keep, signal=signals.response_received)
    yield crawler.crawl(stages=[Stage(pages(origin, "/robots.txt", "/late", "/a"))])
    assert sorted(crawler.spider.seen) == sorted(pages(origin, "/robots.txt", "/a"))
    assert server.paths(origin).count("/robots.txt") == 1
    assert stat(crawler, "robotstxt/spider_request/served") == 1
    # The spider's copy of the fetch's response: decoded, whole.
    [body] = [body for url, body, flags in received if "robotstxt_fetch" in flags]
    assert body == SMALL
    assert stat(crawler, "httpcompression/response_count") is None


# -- real crawls: failures said in words ---------------------------------------------


def raw_server(answer: bytes) -> tuple[socket.socket, str]:
    """A server that reads a request and answers ``answer``, whatever it
    is (bytes that are not HTTP, an HTTP answer to a TLS handshake), then
    closes; the base URL, without scheme."""
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(8)

    def serve() -> None:
        while True:
            try:
                conn, _ = listening.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    return listening, f"127.0.0.1:{listening.getsockname()[1]}"


def unreachable_said(caplog: pytest.LogCaptureFixture, robots: str) -> str:
    """The outcome in the line that says ``robots`` is unreachable."""
    prefix = f"{robots} is unreachable ("
    [said] = [m for m in lines(caplog, logging.WARNING) if m.startswith(prefix)]
    return said[len(prefix) : said.index("): ")]


def no_failure_repr(caplog: pytest.LogCaptureFixture) -> None:
    for message in lines(caplog, logging.WARNING):
        assert "twisted.python.failure" not in message, message
        assert "<twisted" not in message, message
        assert "\\x" not in message, message


QUICK = {"ROBOTSTXT_RFC_TIMEOUT": 0.5, "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 0}


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("reply", "said"),
    [
        pytest.param(Reply(reset=True), "the connection was reset before the response", id="reset"),
        pytest.param(
            Reply(body=HEAD, truncate=True),
            "truncated body: the connection closed before the body was complete (its "
            "Content-Length or chunked encoding said there was more)",
            id="truncated",
        ),
        pytest.param(Reply(hang=True), "timed out after 0.5 s (ROBOTSTXT_RFC_TIMEOUT)", id="hang"),
    ],
)
@pytest_twisted.inlineCallbacks
def test_a_failed_download_is_said_in_words(server, activation, caplog, reply, said):
    origin = robots_origin(server, reply)
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(pages(origin, "/a"))], **QUICK)
    assert crawler.spider.failed_with("robots.txt unreachable") == [origin.url("/a")]
    assert unreachable_said(caplog, origin.url("/robots.txt")) == said
    assert crawler.spider.failures[0][1].outcome == said
    no_failure_repr(caplog)


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("answer", "scheme", "said"),
    [
        pytest.param(
            b"\x00\x01garbage\xff\r\n\r\n",
            "http",
            "the server's answer is not a valid HTTP response (wrong number of parts)",
            id="garbage",
        ),
        pytest.param(
            b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
            "https",
            "TLS handshake failed (wrong version number)",
            id="tls",
        ),
    ],
)
@pytest.mark.filterwarnings(
    # Scrapy 2.13's TLS context with Twisted 25: a warning of theirs.
    "ignore:Passing method to twisted.internet.ssl.CertificateOptions:DeprecationWarning"
)
@pytest_twisted.inlineCallbacks
def test_a_garbage_or_tls_answer_is_said_in_words(activation, caplog, answer, scheme, said):
    listening, host = raw_server(answer)
    base = f"{scheme}://{host}"
    try:
        with caplog.at_level(logging.DEBUG):
            crawler = yield crawl(activation, [Stage([f"{base}/a"])], **QUICK)
    finally:
        listening.close()
    assert crawler.spider.failed_with("robots.txt unreachable") == [f"{base}/a"]
    assert unreachable_said(caplog, f"{base}/robots.txt") == said
    no_failure_repr(caplog)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_dns_and_a_refused_connection_are_said_in_words(activation, caplog):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    refused, unknown = f"http://127.0.0.1:{port}", "http://robots-rfc-test.invalid"
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage([f"{refused}/a", f"{unknown}/a"])], **QUICK)
    assert sorted(crawler.spider.failed_with("robots.txt unreachable")) == sorted(
        [f"{refused}/a", f"{unknown}/a"]
    )
    assert unreachable_said(caplog, f"{refused}/robots.txt") == "connection refused"
    assert unreachable_said(caplog, f"{unknown}/robots.txt").startswith("DNS lookup failed")
    no_failure_repr(caplog)


HEADERS_CUT = (
    "the response's headers are too long or cut off: the connection closed before they "
    "ended (Scrapy's HTTP client closes it at a header line longer than 16,384 bytes)"
)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_100_kb_header_is_said_as_such(server, activation, caplog):
    """Issue 41: a robots.txt response with a 100 KB header was said to be
    a "truncated body". Twisted's HTTP client closes the connection at a
    header line longer than it reads: robots.txt is unreachable (the server's
    answer cannot be read), and the line names the header."""
    origin = robots_origin(server, Reply(body=HEAD, headers={"X-Big": "a" * 100_000}))
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(pages(origin, "/a", "/early"))], **QUICK)
    robots = origin.url("/robots.txt")
    said = unreachable_said(caplog, robots)
    assert said == HEADERS_CUT
    assert "truncated" not in said
    # What reached the spider: both pages dropped, with this outcome.
    spider = crawler.spider
    assert sorted(spider.failed_with("robots.txt unreachable")) == pages(origin, "/a", "/early")
    assert [exc.outcome for _, exc in spider.failures] == [said, said]
    assert spider.seen == []
    assert server.paths(origin) == ["/robots.txt"]
    assert stat(crawler, "robotstxt/unreachable") == 1
    assert stat(crawler, "robotstxt/disallow_all") == 1
    assert stat(crawler, "robotstxt/exception_count/total") == 1
    assert stat(crawler, "robotstxt/response_count") is None
    assert stat(crawler, "robotstxt/truncated") is None
    no_failure_repr(caplog)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_headers_cut_off_by_the_server_are_said_alike(activation, caplog):
    """A server that closes in the middle of its headers fails the same way
    (Twisted tells the two apart in nothing it hands Scrapy): the same
    words, which say both."""
    listening, host = raw_server(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Cut: ab")
    base = f"http://{host}"
    try:
        with caplog.at_level(logging.DEBUG):
            crawler = yield crawl(activation, [Stage([f"{base}/a"])], **QUICK)
    finally:
        listening.close()
    assert crawler.spider.failed_with("robots.txt unreachable") == [f"{base}/a"]
    assert unreachable_said(caplog, f"{base}/robots.txt") == HEADERS_CUT
    assert stat(crawler, "robotstxt/unreachable") == 1
    no_failure_repr(caplog)


# -- DOWNLOAD_MAXSIZE is the pages' limit, not robots.txt's (issue 43) --------------


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_small_download_maxsize_leaves_robots_txt_its_own_limit(server, activation, caplog):
    """A broad crawl's ``DOWNLOAD_MAXSIZE = 100_000`` starts (it stopped the
    crawl at start-up), reads a 300 KB robots.txt whole, to its last rule,
    and leaves the pages at 100,000 bytes: a 200 KB page, and the spider's
    own request for the 300 KB robots.txt, are cancelled by Scrapy as
    usual."""
    robots = HEAD + LINE * 300 + LATE  # 300 KB, its last rule at the end
    big = b"x" * 200_000
    origin = server.add_origin({"/robots.txt": Reply(body=robots), "/big": Reply(body=big)})
    with caplog.at_level(logging.INFO):
        crawler = yield crawl(
            activation,
            [Stage(pages(origin, "/late", "/early", "/a", "/big", "/robots.txt"))],
            DOWNLOAD_MAXSIZE=100_000,
        )
    # The rules at the end of the 300 KB file are honoured.
    assert sorted(crawler.spider.failed_with("Forbidden by robots.txt")) == pages(
        origin, "/early", "/late"
    )
    assert stat(crawler, "robotstxt/rules") == 1
    assert stat(crawler, "robotstxt/truncated") is None
    assert server.paths(origin).count("/late") == 0
    # Pages keep the user's limit: Scrapy cancels the 200 KB page, and the
    # spider's own request for robots.txt is not answered with the fetch's
    # 300 KB body but downloaded, and cancelled too.
    assert crawler.spider.seen == [origin.url("/a")]
    assert sorted(crawler.spider.failed) == pages(origin, "/big", "/early", "/late", "/robots.txt")
    assert stat(crawler, "robotstxt/spider_request/downloaded") == 1
    assert server.paths(origin).count("/robots.txt") == 2
    # Scrapy's own warning (its words vary by version), for these two only.
    cancelled = [m for m in lines(caplog, logging.WARNING) if "max size (100000)" in m]
    assert len(cancelled) == 2, lines(caplog, logging.WARNING)
    for url in pages(origin, "/big", "/robots.txt"):
        assert len([m for m in cancelled if f"{url}>" in m or f"{url}:" in m]) == 1, cancelled
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
