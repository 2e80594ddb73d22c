"""A request's verdict from the cache, now: :class:`Verdicts` reads the
origin's entry and the rules it keeps for the request's name, and answers
allowed, forbidden (RFC 9309 §2.2.2; PATH-5: the longest match decides), or
nothing while the origin is undecided for it. A hit marks the entry as just
used; a good copy in force while robots.txt is unreachable starts its
retry when the retry is due (RFC 9309 §2.3.1.4). The read-only views the
middleware offers tools (``entry``, ``state``, ``explain``...) are here too.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from .._logging import reaches_a_handler
from ..policy import ROBOTS_TXT, Standing, State, Target, Verdict, standing
from ..robotstxt import ROBOTS_TXT_PATH, canonical_match_string
from ._outcomes import ALLOWED, Allowed, Forbidden

if TYPE_CHECKING:
    from scrapy.http import Request

    from .._runtime import Runtime
    from ..policy import Entry, LruCache, Origin, Origins
    from ..robotstxt import AgentRules, Token
    from ._config import Config
    from ._crawler_names import CrawlerNames
    from ._report import Report

logger = logging.getLogger(__name__)


class Refresher(Protocol):
    """Who fetches an origin's robots.txt again when a hit finds its retry
    due (the undecided origins' keeper)."""

    def need(self, target: Target, trigger: Request, token: Token) -> object: ...


class Verdicts:
    """The verdicts of the cache, and what a hit sets going."""

    def __init__(
        self,
        runtime: Runtime,
        config: Config,
        *,
        cache: LruCache[Origin, Entry],
        origins: Origins,
        names: CrawlerNames,
        report: Report,
        refresher: Refresher,
    ) -> None:
        self._runtime = runtime
        self._cache = cache
        self._origins = origins
        self._names = names
        self._report = report
        self._refresher = refresher
        self._mode = config.mode
        #: ``ROBOTSTXT_RFC_UNREACHABLE_DAYS`` in seconds (RFC 9309 §2.3.1.4).
        self._allow_after = config.allow_after
        #: Whether an allowed request has usage preferences to get, and
        #: crawl-delay turns to take.
        self._usage = bool(config.usage)
        self._delays = config.crawl_delay

    def decide(self, key: Origin, request: Request, token: Token) -> Allowed | Forbidden | None:
        """``request``'s verdict from the cache now, for its name ``token``;
        ``None`` while ``key`` is undecided for it (no entry, one that is
        due, or no rules kept for the name)."""
        entry = self._cache.get(key)
        if entry is None:
            return None
        rules = entry.rules
        if entry.unreachable_since is None:
            # The common case: a fetched copy, usable until it is due
            # (CACHE-1); what standing() answers, without its call.
            if self._runtime.clock() >= entry.expires:
                return None
            agent = None if rules is None else rules.get(token)
            if agent is None and rules is not None:
                return None
            self._cache.touch(key)
        else:
            where = standing(entry, token, self._runtime.clock(), self._allow_after)
            if where is not Standing.DECIDED and where is not Standing.RETRY_DUE:
                return None
            self._cache.touch(key)
            if where is Standing.RETRY_DUE:  # a good copy in force while unreachable
                self._refresher.need(Target(key, ROBOTS_TXT), request, token)
            agent = None if rules is None else rules.get(token)
        if agent is not None:
            rule = agent.url_rule(request.url)
            if rule is not None and not rule.allow:
                self._forbidden(key, request, entry, agent)
                return Forbidden(rule)
            if agent.crawl_delay and self._delays:
                return Allowed(entry, agent, extras=True)
        if self._usage or ROBOTS_TXT_PATH in request.url:
            return Allowed(entry, agent, extras=True)
        return ALLOWED

    def _forbidden(self, key: Origin, request: Request, entry: Entry, agent: AgentRules) -> None:
        """Count a forbidden request, and say why at DEBUG."""
        self._runtime.stats.inc_value("robotstxt/forbidden")
        self._report.row(key).forbidden += 1
        if reaches_a_handler(logger, logging.DEBUG):
            source = entry.url or key.robots_url
            path = canonical_match_string(request.url, agent.mode)
            logger.debug(
                "Forbidden by robots.txt: %(request)s: %(verdict)s of %(robots)s",
                {
                    "request": request,
                    "verdict": Verdict.of_rules(
                        request.url, agent.token, agent, path, source=source
                    ),
                    "robots": source,
                },
                extra=self._runtime.log,
            )

    # -- the views -----------------------------------------------------------

    def entry(self, url: str) -> Entry | None:
        """What the cache holds for the origin of ``url``, if anything."""
        key = self._origins(url)
        return None if key is None else self._cache.get(key)

    def state(self, url: str) -> State | None:
        """The :class:`~.policy.State` of ``url``'s origin now, ``None``
        while no fetch has decided it."""
        entry = self.entry(url)
        return None if entry is None else entry.state(self._runtime.clock(), self._allow_after)

    def agent_rules(self, url: str, token: Token | None = None) -> AgentRules | None:
        """The rules the cache keeps for ``token`` (the crawler's own name by
        default) at ``url``'s origin; ``None`` when it keeps none."""
        entry = self.entry(url)
        rules = None if entry is None else entry.rules
        return None if rules is None else rules.get(self._names.token if token is None else token)

    def sitemaps(self, url: str) -> tuple[str, ...] | None:
        """The ``Sitemap`` URLs of ``url``'s origin from the good copy the
        cache holds (RFC 9309 §2.2.4, OTHER-1); ``None`` without one."""
        entry = self.entry(url)
        return entry.sitemaps if entry is not None and entry.good else None

    def explain(self, url: str) -> Verdict | None:
        """The verdict the cache gives ``url`` now for the crawler's name,
        with what decides it; ``None`` while the origin is undecided."""
        key = self._origins(url)
        entry = None if key is None else self._cache.get(key)
        if key is None or entry is None:
            return None
        source = entry.url or key.robots_url
        state = entry.state(self._runtime.clock(), self._allow_after)
        agent = None if entry.rules is None else entry.rules.get(self._names.token)
        name = self._names.name
        if state is State.UNREACHABLE or agent is None:
            return Verdict.of_state(url, name, state, entry.outcome, source=source)
        path = canonical_match_string(url, self._mode)
        return Verdict.of_rules(url, name, agent, path, state=state, source=source)
