"""Store errors that heal (docs/stores.rst, "Stores"): after a
:class:`~.stores._base.StoreError` the crawl goes on with the in-memory
cache, the store is asked again with a backoff (1 s, doubling up to 60 s),
and used again as soon as it answers.

The clock and the thread runner are passed in, so that tests drive the
probes with ``twisted.internet.task.Clock``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .._logging import duration
from ._base import StoreError

if TYPE_CHECKING:
    from collections.abc import Callable

    from twisted.internet.defer import Deferred
    from twisted.python.failure import Failure

    from .._runtime import Runtime
    from .._timers import Timer
    from ._base import Store

logger = logging.getLogger(__name__)


class StoreHealth:
    """Whether the store is in use (:attr:`up`), and the probes that bring
    it back after an error.

    Each switch is counted and logged once: to memory as
    ``robotstxt/store/error`` (ERROR the first time in the crawl, WARNING
    after that), back to the store as ``robotstxt/store/recovered``
    (WARNING). A failed probe is logged at DEBUG only.
    """

    #: Seconds before the first probe after an error.
    FIRST_RETRY = 1.0
    #: The longest wait between two probes, and how long the store must
    #: stay up for the next error to start again from :attr:`FIRST_RETRY`:
    #: a store that keeps failing again soon after it answers is asked at
    #: most once a minute.
    MAX_RETRY = 60.0

    def __init__(
        self,
        store: Store,
        *,
        runtime: Runtime,
        describe: str,
        in_thread: Callable[..., Deferred[Any]],
    ) -> None:
        self._store = store
        self._runtime = runtime
        #: Names the store in the log, e.g. ``ROBOTSTXT_RFC_STORE ('redis://…')``.
        self.describe = describe
        self._in_thread = in_thread
        #: ``False`` from an error until a probe gets an answer: the store
        #: is not called meanwhile.
        self.up = True
        #: Called with no argument each time the store is used again.
        self.on_up: list[Callable[[], None]] = []
        self._delay = self.FIRST_RETRY
        self._errors = 0
        self._down_since = 0.0
        self._up_since: float | None = None
        self._timer: Timer | None = None
        self._closed = False

    def failed(self, error: StoreError) -> None:
        """The store raised ``error``: use memory until a probe gets an
        answer. Errors of calls made before the switch are not counted
        again."""
        if not self.up or self._closed:
            return
        self.up = False
        now = self._runtime.monotonic()
        self._down_since = now
        if self._up_since is not None and now - self._up_since < self.MAX_RETRY:
            self._delay = min(self._delay * 2, self.MAX_RETRY)  # flapping
        else:
            self._delay = self.FIRST_RETRY
        self._errors += 1
        self._runtime.stats.inc_value("robotstxt/store/error")
        most = duration(self.MAX_RETRY)
        if self._delay < self.MAX_RETRY:
            retry = f"tried again in {duration(self._delay)} s, then at growing intervals of up "
            retry += f"to {most} s"
        else:
            retry = f"tried again every {most} s"
        logger.log(
            logging.ERROR if self._errors == 1 else logging.WARNING,
            "The robots.txt store failed (%(error)s); robots.txt is cached in memory until the "
            "store answers again (%(retry)s)",
            {"error": error, "retry": retry},
            extra=self._runtime.log,
        )
        self._timer = self._runtime.call_later(self._delay, self._probe)

    def close(self) -> None:
        """Stop probing: the crawl is over."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _probe(self) -> None:
        self._timer = None
        if self._closed:
            return
        d = self._in_thread(self._store.ping)
        d.addCallbacks(self._answered, self._still_down)

    def _answered(self, _: object) -> None:
        if self._closed:
            return
        now = self._runtime.monotonic()
        self.up = True
        self._up_since = now
        self._runtime.stats.inc_value("robotstxt/store/recovered")
        logger.warning(
            "The robots.txt store %(store)s answers again after %(down)s s; robots.txt is "
            "shared through it again",
            {"store": self.describe, "down": duration(now - self._down_since)},
            extra=self._runtime.log,
        )
        for callback in list(self.on_up):
            try:
                callback()
            except Exception:
                logger.error(
                    "Error using the robots.txt store again",
                    exc_info=True,
                    extra=self._runtime.log,
                )

    def _still_down(self, failure: Failure) -> None:
        if self._closed:
            return
        if not isinstance(failure.value, StoreError):  # a bug of ours
            logger.error(
                "Error asking the robots.txt store whether it answers",
                exc_info=failure.value,
                extra=self._runtime.log,
            )
        self._delay = min(self._delay * 2, self.MAX_RETRY)
        logger.debug(
            "The robots.txt store still fails (%(error)s); asked again in %(delay)s s",
            {"error": failure.value, "delay": duration(self._delay)},
            extra=self._runtime.log,
        )
        self._timer = self._runtime.call_later(self._delay, self._probe)
