"""Downloader middlewares the crawl tests put in front of the robots.txt
middleware, loaded by import path like a project's own."""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar
from urllib.parse import urlparse

from scrapy.exceptions import IgnoreRequest


class RefuseRobotsTxt:
    """Refuses every robots.txt request, as a project's own URL filter
    might (docs/decisions.md "robots.txt request refused locally")."""

    def process_request(self, request: Any, spider: Any = None) -> None:
        if request.url.endswith("/robots.txt"):
            raise IgnoreRequest("robots.txt requests are not allowed here")


class CountRequests:
    """Counts the requests it sees, by URL, in a class attribute."""

    seen: ClassVar[Counter[str]] = Counter()

    def process_request(self, request: Any, spider: Any = None) -> None:
        CountRequests.seen[request.url] += 1


class DropRobotsTxtResponse:
    """Drops the response to every robots.txt request: the server was asked
    and answered, so this is not a refusal."""

    def process_response(self, request: Any, response: Any, spider: Any = None) -> Any:
        if request.url.endswith("/robots.txt"):
            raise IgnoreRequest("robots.txt responses are dropped here")
        return response


class SwitchableRefuser:
    """Refuses robots.txt requests while ``on`` (a class attribute the test
    flips between stages)."""

    on: ClassVar[bool] = True

    def process_request(self, request: Any, spider: Any = None) -> None:
        if SwitchableRefuser.on and request.url.endswith("/robots.txt"):
            raise IgnoreRequest("robots.txt requests are not allowed here")


class IgnoreOnException:
    """Turns a download error of robots.txt into ``IgnoreRequest`` in
    ``process_exception``: the server was asked, so this is no refusal."""

    def process_exception(self, request: Any, exception: Any, spider: Any = None) -> None:
        if request.url.endswith("/robots.txt"):
            raise IgnoreRequest(f"gave up: {exception!r}")


class RefuseRobotsTxtOnPorts:
    """Refuses the robots.txt requests to the ports in ``ports`` (a class
    attribute the test sets), and lets every other request through."""

    ports: ClassVar[set[int]] = set()

    def process_request(self, request: Any, spider: Any = None) -> None:
        if request.url.endswith("/robots.txt") and urlparse(request.url).port in self.ports:
            raise IgnoreRequest("robots.txt requests are not allowed here")


class RefuseRobotsTxtLater:
    """Refuses every robots.txt request, as ``RefuseRobotsTxt`` does, but
    from a Deferred that fails on a later turn of the reactor: no frame of
    its ``process_request`` is left on the traceback to name it by."""

    def process_request(self, request: Any, spider: Any = None) -> Any:
        if not request.url.endswith("/robots.txt"):
            return None
        from twisted.internet import reactor
        from twisted.internet.defer import Deferred

        later: Deferred[None] = Deferred()
        error = IgnoreRequest("robots.txt requests are not allowed here, later")
        reactor.callLater(0, later.errback, error)  # type: ignore[attr-defined]
        return later


class RefuseRobotsTxtAsync:
    """Refuses every robots.txt request from a coroutine ``process_request``
    (Scrapy 2.13+), after a helper of its own raised."""

    async def process_request(self, request: Any, spider: Any = None) -> None:
        if request.url.endswith("/robots.txt"):
            self._refuse()

    @staticmethod
    def _refuse() -> None:
        raise IgnoreRequest("robots.txt requests are not allowed here")
