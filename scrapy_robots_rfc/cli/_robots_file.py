"""A robots.txt as the command line reads it: a file, standard input, or
an ``http``/``https`` URL fetched with :mod:`urllib.request`.

Pure: like :mod:`.robotstxt._parser` it never imports Scrapy. A URL is fetched under
the status policy of docs/decisions.md (RFC 9309 §2.3.1; HTTP-1 to HTTP-8), the
middleware's (:mod:`.policy`), reading at most 500 KiB (RFC 9309 §2.5,
HTTP-12). :mod:`.cli` prints what :func:`load` returns.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import Message
from http import HTTPStatus
from typing import IO, Any
from urllib.parse import urlsplit

from ..policy import Answer, Redirects, State
from ..robotstxt import MAX_BYTES, cut_at_limit

#: Redirects followed when fetching a robots.txt (RFC 9309 §2.3.1.2, HTTP-2);
#: more, a loop, a 3xx without ``Location`` or a redirect to a non-HTTP URL
#: mean no robots.txt (allow all), as in the middleware (D-14, HTTP-8).
MAX_REDIRECTS = 5


class CliError(Exception):
    """An error the user can fix: reported on stderr, exit status 2. Each
    argument is one message, one line."""


@dataclass(frozen=True)
class Source:
    """A robots.txt as read, and what its fetch means before any rule is
    looked at."""

    name: str
    #: ``RULES`` for a file; for a URL, what the status step found.
    state: State
    #: The body, cut at :data:`MAX_BYTES` (``b""`` unless ``state`` is rules).
    body: bytes = b""
    #: Whether content past :data:`MAX_BYTES` was dropped.
    truncated: bool = False
    #: The HTTP status of the last response, ``None`` for a file.
    status: int | None = None
    #: :attr:`.policy.Answer.outcome`, as the middleware's log and report
    #: say it ("200", "404: no robots.txt: allow all"...); empty for a file.
    outcome: str = ""
    #: The URLs fetched when redirects were followed, the first and the
    #: last included; empty without a redirect.
    chain: tuple[str, ...] = ()
    #: The media type of the last response (``text/html``), if it had one.
    content_type: str = ""
    #: Why an unreachable robots.txt could not be fetched, in plain words.
    problem: str = ""

    @classmethod
    def answered(cls, answer: Answer, chain: Sequence[str], **fields: Any) -> Source:
        """The source of a fetch that followed ``chain``, named after its
        last URL; ``fields``: ``body``, ``truncated``, ``content_type``..."""
        followed = tuple(chain) if len(chain) > 1 else ()
        state, status, outcome = answer.state, answer.status, answer.outcome
        return cls(chain[-1], state, status=status, outcome=outcome, chain=followed, **fields)


def _read_capped(stream: IO[bytes]) -> tuple[bytes, bool]:
    """At most :data:`MAX_BYTES` of ``stream``: one byte more is read to
    know whether there is more, and a line cut at the limit is dropped
    (RFC 9309 §2.5, HTTP-13)."""
    return cut_at_limit(stream.read(MAX_BYTES + 1), MAX_BYTES)


def load(robots: str, *, timeout: float, user_agent: str) -> Source:
    """Read ``robots``: ``-`` is standard input, an ``http``/``https`` URL is
    fetched (:func:`fetch`), anything else is a file path."""
    if robots == "-":
        body, truncated = _read_capped(sys.stdin.buffer)
        return Source("<stdin>", State.RULES, body, truncated)
    scheme = urlsplit(robots).scheme.lower() if "://" in robots else ""
    if scheme in ("http", "https"):
        return fetch(robots, timeout=timeout, user_agent=user_agent)
    if scheme:
        raise CliError(f"{robots}: only http and https URLs are fetched")
    try:
        with open(robots, "rb") as file:
            body, truncated = _read_capped(file)
    except OSError as exc:
        raise CliError(f"cannot read {robots}: {exc.strerror or exc}") from None
    return Source(robots, State.RULES, body, truncated)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are not followed by urllib: :func:`fetch` follows and
    counts them itself, and ``check --page`` shows where one points
    (:mod:`._page`)."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


#: Network errors in plain words, the first that matches (HTTP-6).
_NETWORK_ERRORS: tuple[tuple[type[BaseException], str], ...] = (
    (ConnectionRefusedError, "connection refused"),
    (http.client.RemoteDisconnected, "the server closed the connection without answering"),
    (ConnectionResetError, "the connection was reset"),
    (socket.gaierror, "the host name cannot be resolved"),
)


def network_problem(error: BaseException | str, timeout: float) -> str:
    """A network error in plain words: "connection refused"."""
    if isinstance(error, str):
        return error
    if isinstance(error, TimeoutError):
        return f"no answer within {timeout:g} seconds"
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"its TLS certificate is not valid ({error.verify_message})"
    plain = next((text for kind, text in _NETWORK_ERRORS if isinstance(error, kind)), None)
    return plain or getattr(error, "strerror", None) or f"{type(error).__name__}: {error}"


def fetch(url: str, *, timeout: float, user_agent: str) -> Source:
    """GET ``url`` and apply the status and redirect steps of
    :mod:`.policy`, the middleware's (RFC 9309 §2.3.1.1 to §2.3.1.4;
    HTTP-1 to HTTP-8).

    Redirects are followed up to :data:`MAX_REDIRECTS`, across hosts too;
    the rules found are those of ``url``'s origin (RFC 9309 §2.3.1.2, LOC-9).
    """
    opener = urllib.request.build_opener(NoRedirect())
    redirects = Redirects(url, MAX_REDIRECTS)
    chain = [url]
    while True:
        url = redirects.url
        try:
            request = urllib.request.Request(url, headers={"User-Agent": user_agent})
        except ValueError as exc:
            raise CliError(f"{url}: {exc}") from None
        response: IO[bytes]
        try:
            response = opener.open(request, timeout=timeout)
            status: int = response.status  # type: ignore[attr-defined]
        except urllib.error.HTTPError as exc:
            response, status = exc, exc.code
        except (OSError, http.client.HTTPException, ValueError) as exc:
            # HTTP-6: DNS, connection, timeout... URLError is an OSError.
            reason = getattr(exc, "reason", None) or exc
            detail = f"{type(reason).__name__}: {reason}"
            answer = redirects.ended(State.UNREACHABLE, detail)
            return Source.answered(answer, chain, problem=network_problem(reason, timeout))
        with response:
            headers: Message = response.headers  # type: ignore[attr-defined]
            content_type = headers.get_content_type() if headers.get("Content-Type") else ""
            step = redirects.follow(status, headers.get("Location"))
            if isinstance(step, str):
                chain.append(step)
                continue
            if step.state is State.UNREACHABLE:
                phrase = next((f" {s.phrase}" for s in HTTPStatus if s == status), "")
                problem = f"the server answered {status}{phrase}"
                return Source.answered(step, chain, content_type=content_type, problem=problem)
            if step.state is not State.RULES:
                return Source.answered(step, chain, content_type=content_type)
            try:
                body, truncated = _read_capped(response)
            except (OSError, http.client.HTTPException) as exc:
                detail = f"HTTP {status}, body not read: {exc!r}"
                answer = redirects.ended(State.UNREACHABLE, detail, status)
                problem = f"its body could not be read ({network_problem(exc, timeout)})"
                return Source.answered(answer, chain, content_type=content_type, problem=problem)
            return Source.answered(
                step, chain, body=body, truncated=truncated, content_type=content_type
            )
