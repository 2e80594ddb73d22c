"""Loading an origin's TDMRep file, ``/.well-known/tdmrep.json`` (W3C TDM
Reservation Protocol, "TDM File on the Origin Server"; T-2), in a crawl
that mines (``ROBOTSTXT_RFC_TDM``): the second per-origin document. It goes
through the same parts as robots.txt, given to it by the assembly: its
own :class:`.Fetcher` (the document :data:`.TDMREP_JSON`, its stats under
``robotstxt/tdm/``), the shared store's records and fetch leases (named
by the target: the origin and the file's path), the status policy and
lifetimes of :mod:`.policy` (:func:`.policy.tdm_entry_for`), and the life
of :class:`.Lives`, which waits, retries and drops as for an unreachable
robots.txt.

What differs is what a body means: a 2xx body is parsed whole by
:meth:`.TdmFile.parse`, at most :data:`TDM_MAX_BYTES` of it; a body larger than
that (or cut by a lost download) is not read and is "not known", as a 5xx
is (T-2): the origin's requests wait and the file is fetched again.

Like :class:`.RobotsLoader`, it never calls back into whoever asked:
:meth:`TdmLoader.load` answers with a :class:`.Loaded`.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from .. import policy
from ..policy import TDMREP_JSON, Answer, State, Target, TdmEntry, tdm_entry_for
from ..robotstxt import MAX_BYTES
from ..stores import InForce, Ours, Unshared, entry_from_record, record_for
from ..tdmrep import TdmFile
from ._fetcher import Fetched
from ._robots_loader import FROM_THE_STORE, Loaded, Unreachable

if TYPE_CHECKING:
    from collections.abc import Container

    from scrapy.http import Request

    from .._runtime import Runtime
    from ..policy import Origin
    from ..robotstxt import Token
    from ..stores import Record, SharedStore
    from ._config import Config
    from ._fetcher import Fetcher
    from ._report import Report

logger = logging.getLogger(__name__)

#: T-2: the most of a ``tdmrep.json`` body that is read, 500 KiB (512,000
#: bytes), as robots.txt's default (RFC 9309 §2.5), and fixed:
#: ``ROBOTSTXT_RFC_MAX_BYTES`` does not raise it, since ``json.loads`` can
#: take about 33 times a pathological body's size while it parses.
TDM_MAX_BYTES: Final = MAX_BYTES


class TdmLoader:
    """Turns fetches and stored records of an origin's TDMRep file into
    cache entries (:class:`.TdmEntry`)."""

    def __init__(
        self,
        runtime: Runtime,
        config: Config,
        cache: policy.LruCache[Origin, TdmEntry],
        report: Report,
        fetcher: Fetcher,
        shared: SharedStore,
    ) -> None:
        self._runtime = runtime
        self._config = config
        self._cache = cache
        self._report = report
        self._fetcher = fetcher
        self._shared = shared

    def answered(self, key: Origin) -> bool:
        """Whether the fetch of ``key``'s file under way has its answer, all
        of it (:meth:`.Fetcher.downloaded`): what is left is this crawler's
        own work, done in a moment."""
        return self._fetcher.downloaded(key)

    async def load(
        self, key: Origin, trigger: Request, tokens: set[Token], *, keep: Container[Origin]
    ) -> Loaded:
        """Fetch (or read from the store) ``key``'s TDMRep file and cache the
        entry it gives; ``trigger`` gives the fetch its proxy and slot;
        ``tokens`` play no part (the file has no groups). The cache never
        evicts an origin of ``keep`` for it. Never raises."""
        previous = self._cache.get(key)
        fetched: Fetched | None = None
        why = ""
        try:
            if not self._shared.available:
                found, fetched = await self._fetch(key, trigger, previous)
            else:
                found, fetched = await self._through_store(key, trigger, previous)
                if fetched is None:
                    why = FROM_THE_STORE
        except Exception as exc:  # a bug of ours must not lose requests
            logger.error(
                "Error fetching %(url)s",
                {"url": Target(key, TDMREP_JSON).url},
                exc_info=True,
                extra=self._runtime.log,
            )
            answer = Answer(State.UNREACHABLE, f"{type(exc).__name__}: {exc}")
            found = self._entry(answer, previous, None, policy.DEFAULT_TTL)
            why = f"an error ended the fetch ({answer.outcome})"
        unreachable = self._said(key, found)
        evicted = self._cache.put(key, found, keep=keep)
        if evicted:
            self._runtime.stats.inc_value("robotstxt/tdm/cache/evicted", evicted)
        self._report.row(key).tdm = _outcome(found)
        return Loaded(found.entry, fetched, why, unreachable)

    async def _fetch(
        self, key: Origin, trigger: Request, previous: TdmEntry | None
    ) -> tuple[TdmEntry, Fetched]:
        """Fetch and apply the status policy (T-2): 2xx parsed, 3xx
        followed, 4xx no file, 429, 5xx, network failures and a body past
        :data:`TDM_MAX_BYTES` not known."""
        self._report.row(key).tdm_fetches += 1
        fetched = await self._fetcher.fetch(key, trigger)
        answer, file = fetched.answer, None
        if fetched.body is not None:
            if fetched.cut:
                detail = (
                    f"larger than {TDM_MAX_BYTES:,} bytes, or cut short: not read, not known (T-2)"
                )
                answer = replace(answer, state=State.UNREACHABLE, detail=detail)
            else:
                file = TdmFile.parse(fetched.body, max_bytes=None)
        return self._entry(answer, previous, file, fetched.fresh_for), fetched

    async def _through_store(
        self, key: Origin, trigger: Request, previous: TdmEntry | None
    ) -> tuple[TdmEntry, Fetched | None]:
        """The entry of the store's record when it is in force; otherwise
        fetch, one crawler at a time (the same lease as robots.txt's), and
        store what was found."""
        name = Target(key, TDMREP_JSON).name
        match await self._shared.claim(name, lease=self._config.lease):
            case InForce(record=record, waited=waited):
                found = self._from_record(record)
                if not found.entry.due(self._runtime.clock()):
                    stat = "robotstxt/tdm/store/shared" if waited else "robotstxt/tdm/store/hit"
                    self._runtime.stats.inc_value(stat)
                    return found, None
                return await self._fetch(key, trigger, found)
            case Ours(record=record, lease=lease):
                try:
                    if record is not None:  # a due record: the copy a failure keeps
                        previous = self._from_record(record)
                    found, fetched = await self._fetch(key, trigger, previous)
                except BaseException:
                    await lease.drop()
                    raise
                await lease.keep(self._record(found, fetched, record))
                return found, fetched
            case Unshared(record=record):
                if record is not None:
                    previous = self._from_record(record)
                return await self._fetch(key, trigger, previous)

    def _record(self, found: TdmEntry, fetched: Fetched, old: Record | None) -> Record | None:
        """What to store of a fetch: its body when it was read (a good
        copy's file is read again from it), nothing of a cut one."""
        entry = found.entry
        body = fetched.body if entry.unreachable_since is None else None
        failed = entry.unreachable_since is not None
        if failed and found.file is not None and (old is None or old.body is None):
            return None  # the good copy is not in the store: never stored as "no file"
        return record_for(
            entry, body=body, status=fetched.answer.status, old=old, now=self._runtime.clock()
        )

    def _from_record(self, record: Record) -> TdmEntry:
        """The entry of a stored record: its body parsed, when it has one."""
        now = self._runtime.clock()
        entry = entry_from_record(record, None, now=now, ttl=self._config.cache_ttl)
        file = None
        if record.body is not None and record.good:
            file = TdmFile.parse(record.body, max_bytes=TDM_MAX_BYTES)
        return TdmEntry(entry, file)

    def _entry(
        self, answer: Answer, previous: TdmEntry | None, file: TdmFile | None, fresh_for: float
    ) -> TdmEntry:
        """The entry after ``answer``, counted."""
        found = tdm_entry_for(
            answer,
            previous,
            file,
            now=self._runtime.clock(),
            fresh_for=fresh_for,
            first_retry=self._config.unreachable_retry,
        )
        stats = self._runtime.stats
        if answer.state is State.RULES:
            stats.inc_value("robotstxt/tdm/file")
        elif answer.state is State.UNREACHABLE:
            stats.inc_value("robotstxt/tdm/unreachable")
        else:  # a 4xx, redirects given up on, a local refusal: no file
            stats.inc_value("robotstxt/tdm/no_file")
        return found

    def _said(self, key: Origin, found: TdmEntry) -> Unreachable | None:
        """The lines of what was found: DEBUG for a file or none, the notes
        of a file that has some (INFO), and what :class:`.Lives` announces
        of a file that is not known."""
        entry = found.entry
        url = Target(key, TDMREP_JSON).url
        if entry.unreachable_since is not None:
            outcome = f"TDM reservations not known: {entry.outcome}"
            if entry.good:  # the last good copy stays in force (HTTP-5)
                return Unreachable(outcome, entry.retry_at, good=True)
            if entry.usable(self._runtime.clock(), self._config.allow_after):
                return None  # unreachable for ROBOTSTXT_RFC_UNREACHABLE_DAYS: unset
            return Unreachable(outcome, entry.retry_at)
        file = found.file
        if file is None:
            logger.debug(
                "%(url)s: %(outcome)s: every URL of %(origin)s is unset unless its "
                "response says otherwise",
                {"url": url, "outcome": entry.outcome, "origin": key},
                extra=self._runtime.log,
            )
        elif file.notes:
            logger.info(
                "%(url)s: %(count)d %(rules)s read; %(notes)s",
                {
                    "url": url,
                    "count": len(file.rules),
                    "rules": "rule" if len(file.rules) == 1 else "rules",
                    "notes": "; ".join(str(note) for note in file.notes),
                },
                extra=self._runtime.log,
            )
        else:
            logger.debug(
                "%(url)s: %(count)d TDM rules read",
                {"url": url, "count": len(file.rules)},
                extra=self._runtime.log,
            )
        return None


def _outcome(found: TdmEntry) -> str:
    """The file's outcome in the crawl report: ``"file (3 rules)"``, the
    fetch's outcome when there is none (``"404: no file: unset"``), or
    ``"not known (HTTP 503)"``."""
    entry = found.entry
    if entry.unreachable_since is not None:
        kept = ", last good copy in force" if found.file is not None else ""
        return f"not known ({entry.outcome}{kept})"
    if found.file is None:
        return entry.outcome
    return f"file ({len(found.file.rules)} rules)"
