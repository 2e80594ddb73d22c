"""The robots.txt monitors: each reads the ``robotstxt/*`` stats (and, at
close, the middleware's public ``waiting_requests``) and compares them with
its ``ROBOTSTXT_RFC_MONITOR_*`` threshold (docs/monitors.rst). A threshold
is read when the monitor runs, so a bad value fails that monitor with a
:class:`~scrapy_robots_rfc.exceptions.ConfigError` rather than the crawl."""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any, TypeVar

from spidermon import Monitor, monitors

from ..crawl import MONITOR_SETTINGS
from ..crawl.middleware import RobotsTxtMiddleware
from ..exceptions import ConfigError
from ..policy import State

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.settings import BaseSettings

_T = TypeVar("_T")

logger = logging.getLogger(__name__)

#: What a threshold may be.
_ALLOWED = "a finite number of 0 or more"


def threshold(settings: BaseSettings, name: str) -> float:
    """The ``ROBOTSTXT_RFC_MONITOR_*`` setting ``name``, or its default
    (:data:`.crawl.MONITOR_SETTINGS`); :class:`~.exceptions.ConfigError` for
    a value that is not a finite number of 0 or more."""
    value = settings.get(name, MONITOR_SETTINGS[name])
    if isinstance(value, bool):
        raise ConfigError(name, value, _ALLOWED)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(name, value, _ALLOWED) from None
    if not (number >= 0 and math.isfinite(number)):
        raise ConfigError(name, value, _ALLOWED)
    return number


def _named(name: str) -> Callable[[_T], _T]:
    """Spidermon's ``monitors.name``, typed: the name its results show."""
    decorate: Callable[[_T], _T] = monitors.name(name)
    return decorate


class _RobotsTxtMonitor(Monitor):  # type: ignore[misc]
    """What every monitor here reads: the stats Spidermon took when the
    suite began, and the crawler's settings."""

    def stat(self, key: str) -> int:
        value: Any = self.data.stats.get(key) or 0
        return int(value)

    def threshold(self, name: str) -> float:
        return threshold(self.data.crawler.settings, name)

    def at_most(self, value: float, limit: float, message: str) -> None:
        """Fail the monitor with ``message`` when ``value`` is over ``limit``."""
        if value > limit:
            self.fail(message)


@_named("robots.txt")
class UnreachableOriginsMonitor(_RobotsTxtMonitor):
    """Origins whose robots.txt is unreachable now (``robotstxt/origins/unreachable``
    and ``robotstxt/origins/unreachable_last_good``), as a share of the origins
    decided (``robotstxt/origins``), at most
    ``ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_PERCENT``."""

    @_named("Origins with robots.txt unreachable")
    def test_unreachable_origins(self) -> None:
        origins = self.stat("robotstxt/origins")
        unreachable = sum(
            self.stat(f"robotstxt/origins/{state.value}")
            for state in (State.UNREACHABLE, State.UNREACHABLE_LAST_GOOD)
        )
        limit = self.threshold("ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_PERCENT")
        percent = 100 * unreachable / origins if origins else 0.0
        self.at_most(
            percent,
            limit,
            f"robots.txt is unreachable for {unreachable} of {origins} origins "
            f"({percent:.1f} %), more than ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_PERCENT "
            f"({limit:g} %)",
        )


@_named("robots.txt")
class UnreachableDroppedMonitor(_RobotsTxtMonitor):
    """Requests dropped because their origin's robots.txt stayed unreachable
    (``robotstxt/unreachable/dropped``), at most
    ``ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_DROPPED``."""

    @_named("Requests dropped: robots.txt unreachable")
    def test_unreachable_dropped(self) -> None:
        dropped = self.stat("robotstxt/unreachable/dropped")
        limit = self.threshold("ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_DROPPED")
        self.at_most(
            dropped,
            limit,
            f"{dropped} requests were dropped because robots.txt stayed unreachable, "
            f"more than ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_DROPPED ({limit:g})",
        )


@_named("robots.txt")
class TdmUnknownDroppedMonitor(_RobotsTxtMonitor):
    """Requests dropped in a crawl that mines (``ROBOTSTXT_RFC_TDM``) because
    their origin's ``tdmrep.json`` stayed not known (429, 5xx, a network
    error, a file past the bound; T-2): ``robotstxt/tdm/unreachable/dropped``,
    at most ``ROBOTSTXT_RFC_MONITOR_MAX_TDM_UNKNOWN_DROPPED``. The URLs the
    file reserves are not counted: they are dropped as asked."""

    @_named("Requests dropped: TDM reservations not known")
    def test_tdm_unknown_dropped(self) -> None:
        dropped = self.stat("robotstxt/tdm/unreachable/dropped")
        limit = self.threshold("ROBOTSTXT_RFC_MONITOR_MAX_TDM_UNKNOWN_DROPPED")
        self.at_most(
            dropped,
            limit,
            f"{dropped} requests were dropped because their tdmrep.json stayed not known, "
            f"more than ROBOTSTXT_RFC_MONITOR_MAX_TDM_UNKNOWN_DROPPED ({limit:g})",
        )


@_named("robots.txt")
class StoreErrorsMonitor(_RobotsTxtMonitor):
    """Store errors the store has not recovered from: switches to memory
    (``robotstxt/store/error``) not followed by a switch back
    (``robotstxt/store/recovered``), at most
    ``ROBOTSTXT_RFC_MONITOR_MAX_STORE_ERRORS``."""

    @_named("Store errors not recovered")
    def test_store_errors(self) -> None:
        errors = self.stat("robotstxt/store/error")
        left = errors - self.stat("robotstxt/store/recovered")
        limit = self.threshold("ROBOTSTXT_RFC_MONITOR_MAX_STORE_ERRORS")
        self.at_most(
            left,
            limit,
            f"ROBOTSTXT_RFC_STORE failed {errors} times and has not answered again "
            f"after {left} of them (robots.txt is cached in memory meanwhile, not shared), "
            f"more than ROBOTSTXT_RFC_MONITOR_MAX_STORE_ERRORS ({limit:g})",
        )


@_named("robots.txt")
class WaitingAtCloseMonitor(_RobotsTxtMonitor):
    """Requests still waiting for robots.txt when the spider closes (the
    middleware's ``waiting_requests``, which become
    ``robotstxt/waiting/saved`` or ``robotstxt/waiting/abandoned``), at most
    ``ROBOTSTXT_RFC_MONITOR_MAX_WAITING_AT_CLOSE``. For the close-time suite
    only: while the crawl runs, requests wait all the time."""

    @_named("Requests waiting for robots.txt at close")
    def test_waiting_at_close(self) -> None:
        engine = self.data.crawler.engine
        found = [
            middleware
            for middleware in (engine.downloader.middleware.middlewares if engine else ())
            if isinstance(middleware, RobotsTxtMiddleware)
        ]
        waiting = sum(middleware.waiting_requests for middleware in found)
        limit = self.threshold("ROBOTSTXT_RFC_MONITOR_MAX_WAITING_AT_CLOSE")
        self.at_most(
            waiting,
            limit,
            f"{waiting} requests were still waiting for robots.txt when the spider "
            f"closed, more than ROBOTSTXT_RFC_MONITOR_MAX_WAITING_AT_CLOSE ({limit:g})",
        )


@_named("robots.txt")
class FetchesPerOriginMonitor(_RobotsTxtMonitor):
    """robots.txt fetches of this crawler (``robotstxt/fetches``; a redirect
    chain is one fetch) per origin decided (``robotstxt/origins``), at most
    ``ROBOTSTXT_RFC_MONITOR_MAX_FETCHES_PER_ORIGIN``. One crawler fetches
    each origin once per cache lifetime; a fleet that shares a store, less
    (RFC 9309 §2.4: cache to spare the servers); every worker of a fleet
    that lost its sharing fetches each origin itself."""

    @_named("robots.txt fetches per origin")
    def test_fetches_per_origin(self) -> None:
        fetches = self.stat("robotstxt/fetches")
        origins = self.stat("robotstxt/origins")
        limit = self.threshold("ROBOTSTXT_RFC_MONITOR_MAX_FETCHES_PER_ORIGIN")
        ratio = fetches / origins if origins else 0.0
        self.at_most(
            ratio,
            limit,
            f"{fetches} robots.txt fetches for {origins} origins ({ratio:.2f} per origin), "
            f"more than ROBOTSTXT_RFC_MONITOR_MAX_FETCHES_PER_ORIGIN ({limit:g})",
        )
