"""Why a robots.txt download failed, in words (RFC 9309 §2.3.1.4: the
failures that make a robots.txt unreachable).

What Scrapy hands the fetcher is an exception whose text is often a list
of Twisted failures, with the server's bytes escaped in it
(``[<twisted.python.failure.Failure twisted.web._newclient.ParseError:
('wrong number of parts', b'\\x00\\x01garbage')>]``), or no text at all
(Scrapy 2.19's ``ResponseDataLossError()``). Scrapy 2.19 raises its own
exceptions ``from`` Twisted's; Scrapy 2.13 raises Twisted's. Either way the
Twisted exception that says what happened is in the chain: a cause
(``__cause__``), or one of the failures that a ``ResponseFailed`` or a
``ResponseNeverReceived`` carries (``reasons``). :func:`reason` finds it
and says it in words; the exception's class still names the stat
(``robotstxt/exception_count/<class>``).

A connection closed in the middle of a response is told apart by what had
arrived: Twisted hands the body's failure a ``ResponseFailed`` that carries
the response (its headers had all come: a truncated body), and the
headers' failure one without (they had not ended: a header line too long
for its HTTP client, which then closes the connection itself, or a server
that closed in the middle of them).
"""

from __future__ import annotations

from collections.abc import Iterator

import scrapy.exceptions
from OpenSSL import SSL
from scrapy.exceptions import IgnoreRequest
from twisted.internet import error
from twisted.protocols.basic import LineReceiver
from twisted.web.client import ResponseFailed, ResponseNeverReceived

#: How much of an unforeseen exception's text is shown at most.
_MOST = 200
#: The longest header line Twisted's HTTP client reads (its parser is a
#: ``LineReceiver``): at a longer one it closes the connection, and the
#: download fails as a response whose headers never ended.
MAX_HEADER_LINE: int = LineReceiver.MAX_LENGTH


def _scrapy(*names: str) -> tuple[type[BaseException], ...]:
    """Scrapy's own download errors of these names, those it has (2.19
    has them, 2.13 raises Twisted's)."""
    found = (getattr(scrapy.exceptions, name, None) for name in names)
    return tuple(cls for cls in found if isinstance(cls, type))


_DNS: tuple[type[BaseException], ...] = (error.DNSLookupError, *_scrapy("CannotResolveHostError"))
_REFUSED: tuple[type[BaseException], ...] = (
    error.ConnectionRefusedError,
    *_scrapy("DownloadConnectionRefusedError"),
)
#: ``download_timeout`` (ROBOTSTXT_RFC_TIMEOUT) ran out.
_TIMEOUT: tuple[type[BaseException], ...] = (
    error.TimeoutError,
    *_scrapy("DownloadTimeoutError"),
)
_DATA_LOSS = _scrapy("ResponseDataLossError")
_WRAPPERS = (ResponseFailed, ResponseNeverReceived)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, its causes, and the failures it carries, depth first."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if current.__cause__ is not None:
            todo.append(current.__cause__)
        if isinstance(current, _WRAPPERS):
            todo.extend(reversed([failure.value for failure in current.reasons or []]))


def _words(text: object) -> str:
    """A message as a clause: no surrounding space, no full stop."""
    return str(text).strip().rstrip(".")


def _tls(exc: BaseException) -> str:
    """OpenSSL's reasons, ``[('SSL routines', '', 'wrong version number')]``
    in its arguments, as "wrong version number"."""
    parts = exc.args[0] if exc.args and isinstance(exc.args[0], list) else []
    found = [str(part[-1]) for part in parts if isinstance(part, tuple) and part and part[-1]]
    return ", ".join(found) or type(exc).__name__


def _http_error(exc: BaseException) -> str:
    """What the HTTP parser said, without the server's bytes it quotes:
    ``ParseError('wrong number of parts', b'...')`` is "wrong number of
    parts"; an error with no such words, its class."""
    first = exc.args[0] if exc.args else None
    if isinstance(first, str) and "b'" not in first and 'b"' not in first:
        return _words(first)
    return type(exc).__name__


def reason(exc: BaseException, timeout: float) -> str:
    """``exc``, which ended a robots.txt download, in words: what happened,
    and where it helps Twisted's or OpenSSL's own words for it; never a
    failure's repr. ``timeout`` is ``ROBOTSTXT_RFC_TIMEOUT``."""
    chain = list(_chain(exc))

    def first(*classes: type[BaseException]) -> BaseException | None:
        return next((e for e in chain if isinstance(e, classes)), None)

    if isinstance(exc, IgnoreRequest):
        # The server answered (or the download failed), and a downloader
        # middleware's process_response or process_exception dropped it.
        return f"a downloader middleware dropped the response ({_words(exc) or 'IgnoreRequest'})"
    dns = first(*_DNS)
    if dns is not None:
        text = _words(dns)
        return text if text.startswith("DNS lookup failed") else f"DNS lookup failed ({text})"
    if first(*_REFUSED) is not None:
        return "connection refused"
    if first(*_TIMEOUT) is not None:
        return f"timed out after {timeout:g} s (ROBOTSTXT_RFC_TIMEOUT)"
    if first(error.TCPTimedOutError) is not None:
        return "the connection timed out"
    tls = first(SSL.Error)
    if tls is not None:
        return f"TLS handshake failed ({_tls(tls)})"
    before_response = first(ResponseNeverReceived) is not None
    if first(error.ConnectionLost) is not None:
        return (
            "the connection was reset before the response"
            if before_response
            else "the connection was reset in the middle of the response"
        )
    closed = first(error.ConnectionDone) is not None
    # Twisted's ResponseFailed of a body cut short carries the response.
    headers_ended = any(isinstance(e, ResponseFailed) and e.response is not None for e in chain)
    if (_DATA_LOSS and first(*_DATA_LOSS)) or (closed and headers_ended):
        return (
            "truncated body: the connection closed before the body was complete "
            "(its Content-Length or chunked encoding said there was more)"
        )
    if closed and not before_response:
        return (
            "the response's headers are too long or cut off: the connection closed before "
            "they ended (Scrapy's HTTP client closes it at a header line longer than "
            f"{MAX_HEADER_LINE:,} bytes)"
        )
    if closed:
        return "the connection closed before the response"
    if first(*_WRAPPERS) is not None:
        inner = [e for e in chain if not isinstance(e, _WRAPPERS) and e is not exc]
        detail = f" ({_http_error(inner[-1])})" if inner else ""
        return f"the server's answer is not a valid HTTP response{detail}"
    if first(error.ConnectError) is not None:
        return f"connection failed ({_words(chain[-1]) or type(chain[-1]).__name__})"
    last = chain[-1]
    text = _words(last)
    if len(text) > _MOST:
        text = text[: _MOST - 3] + "..."
    return f"{type(last).__name__}: {text}" if text else type(last).__name__
