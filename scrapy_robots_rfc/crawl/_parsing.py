"""Where a robots.txt body is parsed (issue 41): on the reactor's thread
when it is small, in a thread of its own when it is large, so that a huge
file does not hold up the rest of the crawl.

A parse is linear in the bytes read (:meth:`.RobotsTxt.parse`), and
``ROBOTSTXT_RFC_MAX_BYTES`` allows 32 MiB: on the reactor's thread such a
file stopped every other origin's downloads for as long as it took. In a
thread the reactor runs on meanwhile: the pure build lets it take the GIL
at the interpreter's switch interval, the compiled one each time the
parser gives way to other threads (every 1,024 lines, and between slices
of its split into lines: :mod:`.robotstxt._parser`).

Large parses run in one thread for the whole process, one after the
other, as they did on the reactor's thread: the memory one needs is not
multiplied by the origins that serve such files at the same moment. It is
not a thread of the reactor's pool, which Scrapy's DNS resolver uses: a
parse of seconds must not hold up name lookups.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThreadPool
from twisted.python.threadpool import ThreadPool

from ..robotstxt import RobotsTxt

if TYPE_CHECKING:
    from twisted.internet.base import ReactorBase
    from twisted.internet.defer import Deferred

    from ..robotstxt import AgentRules, Mode, Token

T = TypeVar("T")

#: A body of at least this many bytes is parsed in a thread; a smaller one
#: on the reactor's thread, as before. Below it a parse holds the reactor
#: up for less than the interpreter's switch interval (5 ms), as long as a
#: parse in a thread may hold it up anyway, and the round trip through the
#: thread would make the origin wait longer (at 64 KiB of real files, 1.5
#: to 2.4 ms on the reactor's thread, and 3 ms more through the thread:
#: ``bench_reactor.py --sizes``, CHANGELOG.rst, issue 41). 94 % of the real
#: files of the team's corpus are smaller.
IN_THREAD_BYTES = 64 * 1024

#: The rules kept of a parsed file, by product token.
Kept = dict["Token", "AgentRules"]

#: The thread large parses run in (see the module's docstring), started
#: with the first and stopped when the reactor stops, as its own pool is.
_pool: ThreadPool | None = None


def parse_and_keep(
    body: bytes, mode: Mode, max_bytes: int, tokens: Iterable[Token]
) -> tuple[RobotsTxt, Kept]:
    """``body`` parsed, reading at most ``max_bytes``, and the rules of
    ``tokens`` (:meth:`.RobotsTxt.for_agent`): all of what a parse costs,
    in whichever thread calls it."""
    robots = RobotsTxt.parse(body, mode, max_bytes=max_bytes)
    return robots, {token: robots.for_agent(token) for token in tokens}


def _in_thread(func: Callable[..., T], *args: Any) -> Deferred[T]:
    """``func(*args)`` in the parse thread, after the parses before it."""
    global _pool
    from twisted.internet import reactor

    if _pool is None:
        _pool = ThreadPool(minthreads=0, maxthreads=1, name="robotstxt_rfc-parse")
        _pool.start()
        cast("ReactorBase", reactor).addSystemEventTrigger("during", "shutdown", _stop)
    return deferToThreadPool(reactor, _pool, func, *args)


def _stop() -> None:
    """Stop the parse thread (the reactor stops); the next reactor's first
    large parse starts another."""
    global _pool
    pool, _pool = _pool, None
    if pool is not None:
        pool.stop()


class Parses:
    """Parses robots.txt bodies, a large one in the parse thread (see the
    module's docstring): one of ``in_thread_from`` bytes or more,
    :data:`IN_THREAD_BYTES` unless a test says otherwise."""

    def __init__(self, *, in_thread_from: int | None = None) -> None:
        self.in_thread_from = IN_THREAD_BYTES if in_thread_from is None else in_thread_from

    async def parse(
        self, body: bytes, mode: Mode, max_bytes: int, tokens: Iterable[Token]
    ) -> tuple[RobotsTxt, Kept]:
        """What :func:`parse_and_keep` gives; an error of the parse is
        raised here, whichever thread it happened in."""
        if len(body) < self.in_thread_from:
            return parse_and_keep(body, mode, max_bytes, tokens)
        tokens = tuple(tokens)  # read here, not in the thread
        return await maybe_deferred_to_future(
            _in_thread(parse_and_keep, body, mode, max_bytes, tokens)
        )
