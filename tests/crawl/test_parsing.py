"""Where a robots.txt body is parsed (issue 41,
:mod:`scrapy_robots_rfc.crawl._parsing`), on the reactor and real threads,
without a crawl: a large body in the parse thread while the reactor runs
on, a small one on the reactor's thread, the same results either way, an
error raised to the caller, large parses one at a time.

Nothing here measures time: each test waits on events that one thread
sets for the other (a bounded wait, so that a wrong answer fails rather
than hangs)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import pytest_twisted
from scrapy.utils.defer import deferred_from_coro
from twisted.internet import defer, reactor
from twisted.python.threadable import isInIOThread

from scrapy_robots_rfc.crawl import _parsing
from scrapy_robots_rfc.crawl._parsing import IN_THREAD_BYTES, Parses, parse_and_keep
from scrapy_robots_rfc.robotstxt import RobotsTxt

from ..conftest import corpus_files

#: How long a thread waits for the other before the test fails.
WAIT_S = 30
MAX_BYTES = 32 * 1024 * 1024
TOKENS = ("testbot", "googlebot")


def large_body(size: int = 2 * IN_THREAD_BYTES) -> bytes:
    """A robots.txt of ``size`` bytes or so: many groups, one for TestBot
    with a crawl-delay, sitemaps, a usage line, CR and CRLF line ends, a
    non-UTF-8 byte and a line too long to read whole."""
    parts = [
        b"User-agent: TestBot\nCrawl-delay: 2\nDisallow: /private\nAllow: /private/ok\r\n",
        b"Content-Usage: train-ai=n\n",
        b"User-agent: *\rDisallow: /caf\xe9\n",
        b"Disallow: /" + b"x" * 20_000 + b"\n",
    ]
    number, length = 0, sum(map(len, parts))
    while length < size:
        group = b"User-agent: bot%d\nDisallow: /p%d\n" % (number, number)
        if number % 1000 == 0:
            group += b"Sitemap: https://e.com/s%d.xml\n" % number
        parts.append(group)
        length += len(group)
        number += 1
    return b"".join(parts)


def summary(robots: RobotsTxt, kept: dict[str, Any]) -> Any:
    """All a parse gives that the crawl uses or a user can read."""
    return (
        robots.groups,
        robots.sitemaps,
        robots.notes,
        robots.crawl_delays,
        robots.usage_rules,
        {
            token: (rules.rules, rules.agents, rules.delay, rules.crawl_delay, rules.usage)
            for token, rules in kept.items()
        },
    )


@pytest_twisted.inlineCallbacks
def test_a_large_body_is_parsed_in_a_thread_while_the_reactor_runs(monkeypatch):
    reactor_ran = threading.Event()
    seen: dict[str, Any] = {}

    def parse_in_step(*args: Any) -> Any:
        seen["on the reactor's thread"] = isInIOThread()
        # The parse goes on once the reactor has run a call scheduled after
        # it began, which the reactor's own thread could never do.
        seen["the reactor ran"] = reactor_ran.wait(WAIT_S)
        return parse_and_keep(*args)

    monkeypatch.setattr(_parsing, "parse_and_keep", parse_in_step)
    body = large_body()
    parsed = deferred_from_coro(Parses().parse(body, "rfc", MAX_BYTES, TOKENS))
    reactor.callLater(0, reactor_ran.set)
    robots, kept = yield parsed
    assert seen == {"on the reactor's thread": False, "the reactor ran": True}
    assert summary(robots, kept) == summary(*parse_and_keep(body, "rfc", MAX_BYTES, TOKENS))


@pytest_twisted.inlineCallbacks
def test_a_small_body_is_parsed_on_the_reactors_thread(monkeypatch):
    threads: list[bool] = []

    def recorded(*args: Any) -> Any:
        threads.append(isInIOThread())
        return parse_and_keep(*args)

    monkeypatch.setattr(_parsing, "parse_and_keep", recorded)
    body = large_body(IN_THREAD_BYTES - 100)[: IN_THREAD_BYTES - 1]
    yield deferred_from_coro(Parses().parse(body, "rfc", MAX_BYTES, TOKENS))
    assert threads == [True]


@pytest.mark.parametrize("mode", ["rfc", "google"])
@pytest_twisted.inlineCallbacks
def test_a_parse_in_the_thread_gives_what_the_inline_parse_gives(mode):
    """Each corpus file (when the shared corpus is here) and a body of 2 MiB
    of every kind of line, parsed in the thread (every body is large to
    ``in_thread_from=0``) and on the reactor's thread."""
    bodies = [path.read_bytes() for path in corpus_files()]
    bodies.append(large_body(2 * 1024 * 1024))
    threaded = Parses(in_thread_from=0)
    for body in bodies:
        robots, kept = yield deferred_from_coro(threaded.parse(body, mode, MAX_BYTES, TOKENS))
        assert summary(robots, kept) == summary(*parse_and_keep(body, mode, MAX_BYTES, TOKENS))


@pytest_twisted.inlineCallbacks
def test_an_error_of_the_parse_in_the_thread_is_raised_to_the_caller(monkeypatch):
    def broken(*args: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(_parsing, "parse_and_keep", broken)
    parsed = deferred_from_coro(Parses().parse(large_body(), "rfc", MAX_BYTES, TOKENS))
    with pytest.raises(RuntimeError, match="boom"):
        yield parsed


@pytest_twisted.inlineCallbacks
def test_large_parses_take_turns(monkeypatch):
    """The second parse begins only when the first has ended: the first
    waits for the second to begin (it never does), then ends."""
    second_began = threading.Event()
    order: list[str] = []

    def recorded(body: bytes, *args: Any) -> Any:
        name = body.decode("latin-1").partition("\n")[0]
        order.append(f"{name} began")
        if name == "# first":
            order.append(f"the second began meanwhile: {second_began.wait(1)}")
        else:
            second_began.set()
        found = parse_and_keep(body, *args)
        order.append(f"{name} ended")
        return found

    monkeypatch.setattr(_parsing, "parse_and_keep", recorded)
    parses = Parses()
    both = [
        deferred_from_coro(
            parses.parse(b"# " + name + b"\n" + large_body(), "rfc", MAX_BYTES, TOKENS)
        )
        for name in (b"first", b"second")
    ]
    yield defer.gatherResults(both)
    assert order == [
        "# first began",
        "the second began meanwhile: False",
        "# first ended",
        "# second began",
        "# second ended",
    ]
