"""What reports an exception nobody retrieved stays quiet about a
configuration error already said at CRITICAL, and only about it
(:mod:`scrapy_robots_rfc.crawl._config_errors`); the crawls that show it
are in tests/crawl/test_startup.py."""

from __future__ import annotations

import asyncio
import logging

import pytest
import pytest_twisted

from scrapy_robots_rfc.crawl._config_errors import _PENDING, said, stop_crawl
from scrapy_robots_rfc.exceptions import ConfigError


def _error() -> ConfigError:
    return ConfigError("ROBOTSTXT_RFC_TIMEOUT", "inf", "a number")


def test_said_once_at_critical_and_raised(caplog):
    error = _error()
    with caplog.at_level(logging.INFO), pytest.raises(ConfigError) as raised:
        stop_crawl(error)
    assert raised.value is error
    assert said(error)
    with pytest.raises(ConfigError):
        stop_crawl(error)  # raised again, not said again
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [("CRITICAL", str(error))]
    assert not said(_error())
    assert not said(ValueError("x"))


@pytest_twisted.ensureDeferred
async def test_asyncio_reports_other_errors_of_tasks_nobody_awaited():
    """On the reactor's own loop, as in ``scrapy crawl`` on Scrapy 2.14+:
    what asyncio calls when it collects a task whose exception nobody
    retrieved, for the error said and for a bug."""
    reported: list[object] = []
    loop = asyncio.get_running_loop()
    before = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: reported.append(context.get("exception")))
    try:
        error = _error()
        with pytest.raises(ConfigError):
            stop_crawl(error)
        for exception in (error, KeyError("a bug")):
            loop.call_exception_handler(
                {"message": "Task exception was never retrieved", "exception": exception}
            )
    finally:
        loop.set_exception_handler(before)
    assert [type(error) for error in reported] == [KeyError]


def test_twisted_logger_drops_only_the_report_of_an_error_said():
    _PENDING.clear()  # the errors of the tests before, which Twisted never reported
    twisted = logging.getLogger("twisted")
    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    handler = Keep()
    twisted.addHandler(handler)
    try:
        error = _error()
        with pytest.raises(ConfigError):
            stop_crawl(error)
        twisted.critical("Unhandled error in Deferred:")
        twisted.critical("", exc_info=(ConfigError, error, None))
        twisted.critical("Unhandled error in Deferred:")
        twisted.critical("", exc_info=(KeyError, KeyError("a bug"), None))
    finally:
        twisted.removeHandler(handler)
    assert seen == ["Unhandled error in Deferred:", ""]
