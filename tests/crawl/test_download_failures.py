"""A failed robots.txt download, said in words (issue 35): for every kind
of failure a fetch meets, as Scrapy 2.19 raises it (its own exception,
``from`` Twisted's) and as Scrapy 2.13 does (Twisted's), the outcome the
unreachable line and the crawl report give: never a Twisted failure's repr,
never the server's bytes. tests/crawl/test_fetch_limits.py meets each of them in
a real crawl.
"""

from __future__ import annotations

import pytest
from scrapy.exceptions import IgnoreRequest
from twisted.internet import error
from twisted.python.failure import Failure
from twisted.web.client import ResponseFailed, ResponseNeverReceived

from scrapy_robots_rfc.crawl._download_failures import reason


def _failure(exc: BaseException) -> Failure:
    return Failure(exc)


class _DataLoss(Exception):
    """Twisted's private ``twisted.web.http._DataLoss``, as it shows here."""


def _scrapy_219(name: str, cause: BaseException) -> BaseException:
    """Scrapy 2.19's ``name`` raised from ``cause``, or ``cause`` itself
    on an older Scrapy, which raises Twisted's exceptions as they are."""
    import scrapy.exceptions

    cls = getattr(scrapy.exceptions, name, None)
    if cls is None:
        return cause
    exc: BaseException = cls(str(cause)) if name != "ResponseDataLossError" else cls()
    exc.__cause__ = cause
    return exc


FAILURES = [
    pytest.param(
        _scrapy_219(
            "DownloadFailedError",
            ResponseNeverReceived([_failure(error.ConnectionLost("non-clean"))]),
        ),
        "the connection was reset before the response",
        id="reset",
    ),
    pytest.param(
        ResponseFailed([_failure(error.ConnectionLost("non-clean"))]),
        "the connection was reset in the middle of the response",
        id="reset-mid-body",
    ),
    pytest.param(
        _scrapy_219(
            "ResponseDataLossError",
            # Twisted's failure of a body carries the response: its headers came.
            ResponseFailed(
                [_failure(error.ConnectionDone()), _failure(_DataLoss())], response=object()
            ),
        ),
        "truncated body: the connection closed before the body was complete (its "
        "Content-Length or chunked encoding said there was more)",
        id="truncated",
    ),
    pytest.param(
        # Twisted's HTTP client closed the connection at a header line
        # longer than it reads (or the server closed it mid-headers): no
        # response in the failure, and no data loss.
        _scrapy_219("DownloadFailedError", ResponseFailed([_failure(error.ConnectionDone())])),
        "the response's headers are too long or cut off: the connection closed before they "
        "ended (Scrapy's HTTP client closes it at a header line longer than 16,384 bytes)",
        id="header-too-long",
    ),
    pytest.param(
        _scrapy_219(
            "DownloadFailedError",
            ResponseFailed([_failure(Exception("wrong number of parts", b"\x00\x01garbage\xff"))]),
        ),
        "the server's answer is not a valid HTTP response (wrong number of parts)",
        id="garbage",
    ),
    pytest.param(
        ResponseFailed([_failure(ValueError("Value contains non-decimal digits: b'abc'"))]),
        "the server's answer is not a valid HTTP response (ValueError)",
        id="bad-header",
    ),
    pytest.param(
        _scrapy_219(
            "DownloadTimeoutError",
            error.TimeoutError("Getting http://a.test/robots.txt took longer than 4.0 seconds."),
        ),
        "timed out after 4 s (ROBOTSTXT_RFC_TIMEOUT)",
        id="timeout",
    ),
    pytest.param(
        _scrapy_219(
            "CannotResolveHostError",
            error.DNSLookupError("no results for hostname lookup: a.invalid"),
        ),
        "DNS lookup failed: no results for hostname lookup: a.invalid",
        id="dns",
    ),
    pytest.param(
        _scrapy_219(
            "DownloadConnectionRefusedError",
            error.ConnectionRefusedError("111: Connection refused"),
        ),
        "connection refused",
        id="refused",
    ),
    pytest.param(error.TCPTimedOutError(), "the connection timed out", id="tcp-timeout"),
    pytest.param(
        IgnoreRequest("robots.txt responses are dropped here"),
        "a downloader middleware dropped the response (robots.txt responses are dropped here)",
        id="ignored",
    ),
    pytest.param(RuntimeError("boom"), "RuntimeError: boom", id="other"),
    pytest.param(RuntimeError(), "RuntimeError", id="other-without-text"),
]


@pytest.mark.parametrize(("exc", "said"), FAILURES)
def test_each_failure_is_said_in_words(exc, said):
    assert reason(exc, 4.0) == said
    assert "Failure" not in said
    assert "\\x" not in said


def test_a_tls_failure_gives_openssls_reason():
    from OpenSSL import SSL

    tls = SSL.Error([("SSL routines", "", "wrong version number")])
    exc = _scrapy_219("DownloadFailedError", ResponseNeverReceived([_failure(tls)]))
    assert reason(exc, 4.0) == "TLS handshake failed (wrong version number)"
