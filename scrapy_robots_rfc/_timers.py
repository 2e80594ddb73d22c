"""The reactor's clock: ``call_later`` and what it returns. Every timer
of the Scrapy-facing layer and of the async store adapter goes through
here, so that tests can pass ``twisted.internet.task.Clock`` instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from collections.abc import Callable


class Timer(Protocol):
    """What ``call_later`` returns: Twisted's ``IDelayedCall``, or asyncio's
    ``TimerHandle``."""

    def cancel(self) -> Any: ...


def call_later(delay: float, func: Callable[[], None]) -> Timer:
    """``scrapy.utils.asyncio.call_later`` (2.14+), or the reactor's."""
    try:
        from scrapy.utils.asyncio import call_later as scrapy_call_later
    except ImportError:  # Scrapy 2.13
        from twisted.internet import reactor

        return cast("Timer", cast("Any", reactor).callLater(delay, func))
    return cast("Timer", scrapy_call_later(delay, func))
