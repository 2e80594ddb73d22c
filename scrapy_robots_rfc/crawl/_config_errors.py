"""A setting the crawl cannot use, said once: one CRITICAL line that names
the setting, its value and what is allowed, then the crawl stops at
start-up with Scrapy's own exit status (1), and no traceback.

Scrapy lets an exception raised while a crawl starts (an add-on built, a
component built) escape as the crawl's failure, and nothing retrieves it:
``scrapy crawl`` on Scrapy 2.14+ runs the crawl as an asyncio task
(``AsyncCrawlerRunner._crawl_and_track`` re-raises "so asyncio still logs
it"), whose exception asyncio logs when the task is collected ("Task
exception was never retrieved", and the traceback, which repeats the
message twice); on Scrapy 2.13, and with a reactor other than asyncio's,
it is a Deferred's failure that Twisted logs when the Deferred is collected
("Unhandled error in Deferred:", then the traceback). There is no place in
Scrapy 2.13 where a component can stop a crawl before it starts without
one of these (a ``CloseSpider`` from ``spider_opened`` is honoured from
2.14 only, and it would close the spider with exit status 0 after the
stats).

So the error is raised, as before (the crawl stops before anything is
fetched, and ``scrapy crawl`` exits with 1), and the two loggers that
would report it unretrieved are told that it has been reported: asyncio's
exception handler and the ``twisted`` logger pass on everything else as
they would have. A crawl run by code that awaits or waits on the crawl
(``CrawlerRunner.crawl``) gets the exception as always.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from ..exceptions import ConfigError


logger = logging.getLogger(__name__)

#: The attribute that marks an error as said: its CRITICAL line is logged.
_SAID = "_scrapy_robots_rfc_said"
#: Twisted's words before the traceback of a Deferred collected failed.
_UNHANDLED = "Unhandled error in Deferred:"
#: The errors said whose report by Twisted, if any comes, has not come yet:
#: Twisted's words come before the traceback that shows which error they
#: are about. Not a weak set: Twisted reports a Deferred when the cyclic
#: garbage collector finalizes it, after it has cleared the weak references
#: to the error. A process whose crawl stops on one has few: at most 8 kept.
_PENDING: deque[BaseException] = deque(maxlen=8)


def stop_crawl(error: ConfigError, log: logging.Logger | None = None) -> NoReturn:
    """Log ``error`` at CRITICAL (with ``log``, the raising module's
    logger) unless it is said already, and raise it; what would report it
    again unretrieved stays quiet."""
    if not said(error):
        (log or logger).critical("%(error)s", {"error": str(error)})
        setattr(error, _SAID, True)
        _PENDING.append(error)
        _quiet_asyncio()
        _quiet_twisted()
    raise error


def said(error: BaseException | None) -> bool:
    """Whether ``error`` is a configuration error already said at CRITICAL."""
    return error is not None and getattr(error, _SAID, False) is True


def _quiet_asyncio() -> None:
    """Wrap the running event loop's exception handler, once, so that a
    task that ends in an error already said is not reported; every other
    context goes to the handler that was there (or asyncio's default)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return  # no loop runs: no task to report it (a Deferred does, below)
    previous = loop.get_exception_handler()
    if getattr(previous, _SAID, False):
        return

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        # Twisted may report it too (a Deferred over the task): it stays
        # pending for _SaidFilter.
        if said(context.get("exception")):
            return
        if previous is None:
            loop.default_exception_handler(context)
        else:
            previous(loop, context)

    setattr(handler, _SAID, True)
    loop.set_exception_handler(handler)


class _SaidFilter(logging.Filter):
    """On the ``twisted`` logger: drops the report of a Deferred collected
    with an error already said (its traceback, with the error as
    ``exc_info``), and Twisted's words before it while such an error's
    report has not come."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = None if record.exc_info is None else record.exc_info[1]
        if error is not None and said(error):
            if error in _PENDING:
                _PENDING.remove(error)
            return False
        return not (_PENDING and record.getMessage().strip() == _UNHANDLED)


def _quiet_twisted() -> None:
    """Put :class:`_SaidFilter` on the ``twisted`` logger, once. While an
    error said is pending, Twisted's words "Unhandled error in Deferred:"
    of another failure are dropped too; its traceback, which says what it
    is, is not."""
    twisted = logging.getLogger("twisted")
    if not any(isinstance(existing, _SaidFilter) for existing in twisted.filters):
        twisted.addFilter(_SaidFilter())
