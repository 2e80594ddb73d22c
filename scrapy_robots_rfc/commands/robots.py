"""``scrapy robots URL``: what robots.txt says about one URL, found the way
the project's crawl would find it.

The command runs a one-request crawl with the project's settings, its
downloader middlewares, proxy and headers. ``ROBOTSTXT_OBEY`` is forced on
and, if the project does not enable this package, ``scrapy_robots_rfc.Addon``
is added for the run. The middleware fetches robots.txt through the engine
exactly as in a crawl (status policy, redirects, size limit, store); the
request for the URL itself gets its verdict from the middleware and is then
answered by a small downloader middleware placed right after it, so that the
page is never downloaded.

The request waits for one fetch only (:func:`..crawl.wait_once`): an
unreachable robots.txt (RFC 9309 §2.3.1.4) drops it after the first fetch
instead of holding it for the retry, unless ``--wait`` is given.

robots.txt's usage preferences for the URL are shown (U-6),
and whether ``ROBOTSTXT_RFC_USAGE`` drops it; the page's header is not seen.

Exit status: 0 allowed, 1 disallowed (by a rule, or while robots.txt is
unreachable) or dropped for a usage preference, 2 error (bad arguments, a
crawl that could not start, a request that failed for another reason).

``--json`` prints the report as one object, the ``robots`` schema of
:mod:`..schemas`; without it, :func:`.commands.text.report_text` prints the same as
aligned lines.

Scrapy imports this module for every ``scrapy`` command (entry points are
loaded to list the commands), so its top level imports little.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scrapy import Spider, signals
from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.http import Request, Response

from .. import schemas
from .._logging import duration
from ..crawl import DOCUMENT_KEY, SERVED_FLAG
from ..crawl.addon import component
from ..exceptions import (
    ForbiddenByRobotsTxt,
    ForbiddenByUsagePreference,
    RobotsTxtUnreachable,
    TdmReserved,
    TdmUnknown,
)
from ..pagerules import PAGE_RULES_META_KEY
from ..policy import State, Verdict
from ..robotstxt import NO_PREFERENCES
from ..tdmrep import TDM_META_KEY, TdmValue
from .text import report_text

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from twisted.python.failure import Failure

    from ..crawl import Config
    from ..crawl.middleware import RobotsTxtMiddleware
    from ..policy import Entry, Origin
    from ..robotstxt import FileNote, Preferences, RobotsTxt

__all__ = [
    "EXIT_ALLOWED",
    "EXIT_DISALLOWED",
    "EXIT_ERROR",
    "NOT_DOWNLOADED",
    "PROBE",
    "PROBE_PAGE",
    "Command",
    "ProbeMiddleware",
    "RobotsSpider",
]

#: ``meta`` key of the command's request for the URL.
PROBE = "_robotstxt_rfc_command_probe"
#: ``meta`` key set with ``--page``: the page is downloaded, for its
#: page-level rules.
PROBE_PAGE = "_robotstxt_rfc_command_page"
#: Response flag of the answer that replaces the page download.
NOT_DOWNLOADED = "not downloaded (scrapy robots)"
EXIT_ALLOWED = 0
EXIT_DISALLOWED = 1
EXIT_ERROR = 2

_ADDON = "scrapy_robots_rfc.Addon"
_PROBE_MIDDLEWARE = "scrapy_robots_rfc.commands.robots.ProbeMiddleware"


class ProbeMiddleware:
    """Answers the command's request once the robots.txt middleware has let
    it through, so that the page is not downloaded (unless ``--page`` asks
    for it). The command installs it right after the robots.txt middleware."""

    def process_request(self, request: Request, spider: Spider | None = None) -> Response | None:
        if request.meta.get(PROBE) and not request.meta.get(PROBE_PAGE):
            return Response(request.url, status=200, flags=[NOT_DOWNLOADED], request=request)
        return None


class RobotsSpider(Spider):
    """The spider of the run when no project spider handles the URL."""

    name = "robots"


def _our_priority(settings: BaseSettings) -> int | None:
    """The priority of this package's middleware (or a subclass of it) in
    ``DOWNLOADER_MIDDLEWARES``, ``None`` when it is not there."""
    from ..crawl.middleware import RobotsTxtMiddleware

    middlewares = settings["DOWNLOADER_MIDDLEWARES"]
    for key in middlewares:
        cls = component(key)
        priority = middlewares[key]
        if priority is not None and isinstance(cls, type) and issubclass(cls, RobotsTxtMiddleware):
            return int(priority)
    return None


def _has_addon(settings: BaseSettings) -> bool:
    from ..crawl.addon import Addon

    addons = settings["ADDONS"]
    return any(
        addons[key] is not None
        and isinstance(cls := component(key), type)
        and issubclass(cls, Addon)
        for key in addons
    )


@dataclass
class _Hop:
    """One robots.txt request of the run and what it got."""

    url: str
    status: int | None = None
    location: str | None = None


@dataclass
class _Run:
    """What the one-request crawl found, gathered from signals."""

    key: Origin
    middleware: RobotsTxtMiddleware | None = None
    #: Every robots.txt request, in order, with its response (keyed by the
    #: request itself, which keeps it alive: an ``id()`` could be reused).
    hops: dict[Request, _Hop] = field(default_factory=dict)
    #: The last 2xx robots.txt body, for Scrapy before 2.18 (no
    #: ``robots_parsed`` signal).
    body: bytes | None = None
    #: Its media type (``text/plain``), for :func:`.robotstxt.file_notes`.
    content_type: str = ""
    robots: RobotsTxt | None = None
    #: "allowed", "forbidden", "unreachable" or "error".
    verdict: str | None = None
    message: str = ""
    #: The outcome a request dropped while robots.txt was unreachable names,
    #: and the seconds left then before the next fetch.
    unreachable: str = ""
    retry_in: float | None = None
    #: robots.txt's usage preferences for the URL (U-6), from the request's
    #: meta or the exception that dropped it; and that exception.
    usage: Preferences | None = None
    usage_drop: ForbiddenByUsagePreference | None = None
    #: With ``--page``: the page's response, its URL and status, and its
    #: page-level rules for the crawler (P-1 to P-3).
    page: dict[str, Any] | None = None
    #: In a run that mines (``ROBOTSTXT_RFC_TDM``, ``--tdm``): the URL's TDM
    #: value (the file's; with ``--page``, the page's final one), and the
    #: drop of a URL the file reserves.
    tdm: TdmValue | None = None
    tdm_drop: TdmReserved | None = None
    #: The drop of the URL when its origin's tdmrep.json stayed not known.
    tdm_unknown: TdmUnknown | None = None

    def connect(self, crawler: Crawler) -> None:
        connect = crawler.signals.connect
        connect(self._opened, signal=signals.spider_opened)
        connect(self._reached, signal=signals.request_reached_downloader)
        connect(self._received, signal=signals.response_received)
        robots_parsed = getattr(signals, "robots_parsed", None)  # Scrapy 2.18+
        if robots_parsed is not None:
            connect(self._parsed, signal=robots_parsed)
        self._crawler = crawler

    # -- signal handlers ---------------------------------------------------

    def _opened(self, spider: Spider) -> None:
        from ..crawl.middleware import RobotsTxtMiddleware

        engine = self._crawler.engine
        assert engine is not None
        for middleware in engine.downloader.middleware.middlewares:
            if isinstance(middleware, RobotsTxtMiddleware):
                self.middleware = middleware

    @staticmethod
    def _is_robots(request: Request) -> bool:
        # The middleware's robots.txt requests: never obeyed, never
        # redirected by Scrapy (the middleware follows redirects itself).
        meta = request.meta
        return bool(meta.get("dont_obey_robotstxt") and meta.get("dont_redirect")) and (
            PROBE not in meta and DOCUMENT_KEY not in meta
        )

    def _hop(self, request: Request) -> _Hop:
        hop = self.hops.get(request)
        if hop is None:
            hop = self.hops[request] = _Hop(request.url)
        return hop

    def _reached(self, request: Request, spider: Spider | None = None) -> None:
        if self._is_robots(request):
            self._hop(request)

    def _received(self, response: Response, request: Request, spider: Spider | None = None) -> None:
        if not self._is_robots(request):
            return
        hop = self._hop(request)
        hop.status = response.status
        location = response.headers.get(b"Location")
        hop.location = location.decode("latin-1") if location else None
        if 200 <= response.status < 300:
            self.body = response.body
            content_type = response.headers.get(b"Content-Type") or b""
            self.content_type = content_type.decode("latin-1").partition(";")[0].strip()

    def _parsed(self, robotparser: Any, request: Request) -> None:
        robots = getattr(robotparser, "robots", None)
        if robots is not None:
            self.robots = robots

    # -- the request's callbacks -----------------------------------------------

    def allowed(self, response: Response) -> None:
        # Answered by ProbeMiddleware, or for a robots.txt URL by the
        # middleware with its fetch's response (:mod:`.crawl._kept_responses`): after the
        # verdict either way, and the URL was not downloaded again.
        from ..crawl.middleware import usage_preferences

        value = response.meta.get(TDM_META_KEY)
        if isinstance(value, TdmValue):
            self.tdm = value
        if NOT_DOWNLOADED in response.flags or SERVED_FLAG in response.flags:
            self.verdict = "allowed"
            self.usage = usage_preferences(response, self._crawler)
        elif response.meta.get(PROBE_PAGE):  # downloaded for --page
            self.verdict = "allowed"
            self.usage = usage_preferences(response, self._crawler)
            self._page(response)
        else:
            self.verdict = "error"
            self.message = (
                f"a downloader middleware before scrapy_robots_rfc answered the request "
                f"({response.status}), so robots.txt was not checked"
            )

    def _page(self, response: Response) -> None:
        """With ``--page``, the downloaded page's rules, read as a callback
        reads them (``page_rules``, P-4)."""
        from ..crawl.middleware import page_rules

        rules = page_rules(response, self._crawler)
        self.page = schemas.page_object(rules, url=response.url, status=response.status)

    def failed(self, failure: Failure) -> None:
        error = failure.value
        message = str(error)
        if isinstance(error, ForbiddenByRobotsTxt):
            self.verdict = "forbidden"
        elif isinstance(error, TdmReserved):
            self.verdict = "allowed"  # by robots.txt's rules; not downloaded (T-4)
            self.tdm, self.tdm_drop = error.value, error
        elif isinstance(error, TdmUnknown):
            self.verdict = "allowed"  # by robots.txt's rules; the file is not known (T-2)
            self.tdm_unknown = error
        elif isinstance(error, ForbiddenByUsagePreference):
            self.verdict = "allowed"  # by robots.txt's rules
            self.usage, self.usage_drop = error.preferences, error
            request = getattr(failure, "request", None)
            if error.where != "robots.txt" and request is not None:
                # Downloaded, then dropped before the spider: its page-level
                # rules may be why (a page's noai, U-8), which a crawl that
                # reads them for that puts in the meta.
                rules = request.meta.get(PAGE_RULES_META_KEY)
                if request.meta.get(PROBE_PAGE) and rules is not None:
                    rules = getattr(rules, "rules", rules)  # read on demand
                    self.page = schemas.page_object(rules, url=request.url, status=None)
        elif isinstance(error, RobotsTxtUnreachable):
            self.verdict = "unreachable"
            self.unreachable = error.outcome
            if self.middleware is not None:  # the delay of the retry timer, now
                entry = self.middleware.entry(self.key.robots_url)
                self.retry_in = None if entry is None else entry.retry_at - self.middleware.clock()
        else:
            self.verdict = "error"
            message = f"{type(error).__name__}: {message}"
        self.message = message

    # -- after the crawl ---------------------------------------------------

    def last_fetch(self) -> list[_Hop]:
        """The hops of the last fetch: each fetch starts at the origin's
        ``/robots.txt``, which the middleware never requests again within
        one fetch."""
        fetch: list[_Hop] = []
        for hop in self.hops.values():
            if hop.url == self.key.robots_url:
                fetch = []
            fetch.append(hop)
        return fetch

    def fetches(self) -> int:
        return sum(hop.url == self.key.robots_url for hop in self.hops.values())

    def redirects(self) -> int:
        """Redirects followed in the run: every hop that starts no fetch."""
        return len(self.hops) - self.fetches()


class Command(ScrapyCommand):
    requires_project = False

    def syntax(self) -> str:
        return "[options] <url>"

    def short_desc(self) -> str:
        return "Show what robots.txt says about a URL (scrapy_robots_rfc)"

    def long_desc(self) -> str:
        return (
            "Fetch the robots.txt of URL's origin with the project's settings and "
            "downloader middlewares, as a crawl with scrapy_robots_rfc would, and show "
            "the status-policy outcome, the verdict for URL with the rule that decides it, "
            "the sitemaps and the crawl-delay. URL itself is not downloaded. "
            "ROBOTSTXT_OBEY is on for the run, and scrapy_robots_rfc.Addon is added if the "
            "project does not enable the package; JOBDIR is not used. An unreachable "
            "robots.txt gives the verdict at once (disallowed while unreachable, with when "
            "a crawl would fetch it again); --wait waits for it as a crawl's requests would, "
            "up to ROBOTSTXT_RFC_UNREACHABLE_WAIT. --json prints the report as one JSON "
            f"object ({schemas.ROBOTS}). Logs go to stderr at WARNING, the default of -L "
            "for this command. Exit status: 0 allowed, 1 disallowed (by a rule, or while "
            "robots.txt is unreachable, or dropped for a usage preference of "
            "ROBOTSTXT_RFC_USAGE), 2 error."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        # No help text here has a colon inside it: Scrapy's help formatter
        # (ScrapyHelpFormatter.format_part_strings) takes any wrapped line
        # that ends with ":" for a section heading, title-cases it and
        # underlines it, and where argparse wraps depends on the terminal.
        assert self.settings is not None
        # Logs at WARNING whatever the project's LOG_LEVEL, set before
        # Scrapy's -L option reads it for its "(default: ...)"; -L and
        # -s LOG_LEVEL=... come later at the same priority, so they win.
        self.settings.set("LOG_LEVEL", "WARNING", priority="cmdline")
        super().add_options(parser)
        parser.add_argument(
            "--user-agent",
            dest="user_agent",
            metavar="NAME",
            help="the robots.txt product token or User-Agent to check for "
            "(sets ROBOTSTXT_USER_AGENT for the run)",
        )
        parser.add_argument(
            "--spider", dest="spider", help="use this spider's class and custom_settings"
        )
        parser.add_argument(
            "--wait",
            dest="wait",
            action=argparse.BooleanOptionalAction,
            default=False,
            help="wait for an unreachable robots.txt as a crawl's requests do, up to "
            "ROBOTSTXT_RFC_UNREACHABLE_WAIT (without it, the verdict after the first fetch)",
        )
        parser.add_argument(
            "--json",
            dest="json",
            action="store_true",
            help="print the report as JSON, in the schema of scrapy_robots_rfc/schemas/robots.json",
        )
        parser.add_argument(
            "--page",
            dest="page",
            action="store_true",
            help="also download the page if robots.txt allows it, and show its page-level "
            "rules for the crawler (X-Robots-Tag, robots meta tags)",
        )
        parser.add_argument(
            "--tdm",
            dest="tdm",
            action="store_true",
            help="also give the URL's TDM reservation (W3C TDMRep), from its origin's "
            "tdmrep.json (and with --page its header and meta tags); sets ROBOTSTXT_RFC_TDM "
            "for the run",
        )

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        from scrapy.utils.project import inside_project

        super().process_options(args, opts)
        settings = self.settings
        assert settings is not None
        self.notes: list[str] = []
        in_project = inside_project()
        # Outside a project, Scrapy's defaults: their ROBOTSTXT_OBEY is off,
        # and nothing enables the package; one note says so (below).
        obey_off = not settings.getbool("ROBOTSTXT_OBEY")
        if obey_off and in_project:
            self.notes.append(
                "ROBOTSTXT_OBEY is off in these settings: their crawls do not obey robots.txt "
                "(it is on for this run)"
            )
        settings.set("ROBOTSTXT_OBEY", True, priority="cmdline")
        # Never resume, nor add to, the project's paused crawl.
        settings.set("JOBDIR", None, priority="cmdline")
        if opts.user_agent is not None:
            settings.set("ROBOTSTXT_USER_AGENT", opts.user_agent, priority="cmdline")
        if opts.tdm:
            settings.set("ROBOTSTXT_RFC_TDM", True, priority="cmdline")
        from ..crawl.addon import PRIORITY

        priority = _our_priority(settings)
        added = priority is None and not _has_addon(settings)
        if added:
            settings["ADDONS"].set(_ADDON, PRIORITY, priority="cmdline")
        if priority is None:
            priority = PRIORITY
        settings["DOWNLOADER_MIDDLEWARES"].set(_PROBE_MIDDLEWARE, priority + 1, priority="cmdline")
        if in_project and added:
            self.notes.append(
                f"the project does not enable scrapy_robots_rfc: this run adds {_ADDON} to ADDONS"
            )
        elif not in_project:
            changes = ["ROBOTSTXT_OBEY on"] if obey_off else []
            if added:
                changes.append(f"{_ADDON} added to ADDONS")
            self.notes.append(
                "not in a Scrapy project: this run uses Scrapy's default settings and the -s "
                f"options{', with ' + ' and '.join(changes) if changes else ''}"
            )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        from ..crawl import wait_once
        from ..policy import origin

        if len(args) != 1:
            raise UsageError()
        url = args[0]
        key = origin(url)
        if key is None:
            raise UsageError(f"{url!r} is not an http or https URL with a host", print_help=False)
        probe = _Run(key)
        request = Request(
            url,
            callback=probe.allowed,
            errback=probe.failed,
            dont_filter=True,
            meta={
                PROBE: True,
                "dont_redirect": True,
                "dont_retry": True,
                "dont_cache": True,
                "handle_httpstatus_all": True,
                "allow_offsite": True,
                PROBE_PAGE: opts.page,
            },
        )
        wait_once(request.meta, not opts.wait)
        process = self.crawler_process
        assert process is not None
        spidercls = self._spider_class(request, opts)

        async def start(self: Spider) -> AsyncIterator[Any]:
            yield request

        probe_spider = type(
            spidercls.__name__, (spidercls,), {"start": start, "__module__": __name__}
        )
        crawler = process.create_crawler(probe_spider)
        probe.connect(crawler)
        process.crawl(crawler)
        process.start()
        if process.bootstrap_failed or (probe.verdict is None and probe.middleware is None):
            print("error: the crawl could not start; see the log above", flush=True)
            self.exitcode = EXIT_ERROR
            return
        report, detail = self._report(probe, crawler, url, opts)
        if opts.json:
            print(json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False))
        else:
            print(report_text(report, detail))
        self.exitcode = report["exit_status"]

    def _spider_class(self, request: Request, opts: argparse.Namespace) -> type[Spider]:
        from scrapy.utils.spider import spidercls_for_request

        assert self.crawler_process is not None
        loader = self.crawler_process.spider_loader
        if opts.spider:
            try:
                spidercls: type[Spider] = loader.load(opts.spider)
            except KeyError:
                raise UsageError(f"Spider not found: {opts.spider}", print_help=False) from None
            return spidercls
        return spidercls_for_request(loader, request, RobotsSpider)

    # -- the report --------------------------------------------------------

    def _report(
        self, probe: _Run, crawler: Crawler, url: str, opts: argparse.Namespace
    ) -> tuple[dict[str, Any], str]:
        """The report, as ``--json`` prints it (the ``robots`` schema of
        :mod:`..schemas`), and the middleware's words for the outcome, which
        the text adds."""
        from ..robotstxt import RobotsTxt

        stats = crawler.stats
        assert stats is not None
        notes = list(self.notes)
        middleware = probe.middleware
        if middleware is None:
            error = "scrapy_robots_rfc's middleware is not enabled in this crawl"
            alone = {"schema": schemas.ROBOTS, "url": url, "verdict": None, "error": error}
            return {**alone, "notes": notes, "exit_status": EXIT_ERROR}, ""
        config = middleware.config
        given_by: schemas.NameOrigin
        if config.robots_user_agent is not None:
            given_by = "--user-agent" if opts.user_agent is not None else "ROBOTSTXT_USER_AGENT"
            given = config.robots_user_agent
        else:
            given_by, given = "USER_AGENT", config.user_agent
        notes.extend(middleware.name_notes)  # D-21: what was taken, and why
        entry = middleware.entry(url)
        robots = probe.robots
        if robots is None and probe.body is not None:
            robots = RobotsTxt.parse(probe.body, config.mode, max_bytes=config.max_bytes)
        from_store = bool(stats.get_value("robotstxt/store/hit"))
        if from_store:
            notes.append("robots.txt came from ROBOTSTXT_RFC_STORE, not from a fetch")
        about = _file_notes(probe, robots, config, bool(stats.get_value("robotstxt/truncated")))
        notes.extend(f"robots.txt: {note}" for note in about)

        state = middleware.state(url)
        robots_url = probe.key.robots_url
        report: dict[str, Any] = {
            "schema": schemas.ROBOTS,
            "url": url,
            "mode": config.mode,
            "user_agent": schemas.user_agent_object(middleware.crawler_names, given, given_by),
            "robots": schemas.robots_object(
                url=robots_url,
                source=None if entry is None else entry.url or robots_url,
                status=None if entry is None else entry.status,
                state=state,
                outcome=None if entry is None else entry.outcome,
            ),
            "fetches": probe.fetches(),
            "redirects": probe.redirects(),
            "chain": [
                {"url": hop.url, "status": hop.status, "location": hop.location}
                for hop in probe.last_fetch()
            ],
            "from_store": from_store,
        }

        names = middleware.crawler_names  # D-22: a family's, most specific first
        token = middleware.product_token
        verdict = self._verdict(probe, state, robots, middleware, url, token, opts.wait)
        if isinstance(verdict, str):
            report.update(verdict=None, error=verdict)
        else:
            report.update(verdict=verdict.as_dict(), error=None)
        allowed = None if isinstance(verdict, str) else verdict.allowed
        agent = middleware.agent_rules(url)
        sitemaps: list[str] | None = []
        line = None  # the crawl-delay line in force (D-17)
        if state in (State.RULES, State.UNREACHABLE_LAST_GOOD):
            if robots is not None:
                sitemaps, line = list(robots.sitemaps), robots.for_agent(names).delay
            else:
                # From the store, before Scrapy 2.18: the middleware keeps the
                # groups it uses, not the sitemaps.
                sitemaps = None
                line = agent.delay if agent is not None else None
        delay = None if line is None else line.seconds
        applied, note = self._delay(delay, config, crawler)
        report.update(_usage(probe, allowed, config))
        if middleware.mines and allowed:
            file = middleware.tdm_outcome(url)
            if probe.tdm is not None:
                report["tdm"] = schemas.tdm_object(probe.tdm, file=file)
            else:
                notes.append(f"TDM reservations not known: tdmrep.json {file or 'not fetched'}")
        report.update(
            sitemaps=sitemaps,
            crawl_delay=delay,
            crawl_delay_from=schemas.crawl_delay_from(line),
            crawl_delay_applied=applied,
            crawl_delay_note=note,
            page_downloaded=probe.page is not None,
            page=probe.page,
            file_notes=[note.as_dict() for note in about],
            notes=notes,
        )
        if allowed is None:
            report["exit_status"] = EXIT_ERROR
        elif (
            allowed
            and probe.usage_drop is None
            and probe.tdm_drop is None
            and (probe.tdm_unknown is None)
        ):
            report["exit_status"] = EXIT_ALLOWED
        else:
            report["exit_status"] = EXIT_DISALLOWED
        return report, self._outcome(entry, state, config)

    @staticmethod
    def _outcome(entry: Entry | None, state: State | None, config: Config) -> str:
        """The middleware's words for ``entry``'s outcome, beside its state."""
        if entry is None or state is None:
            return "the middleware has no robots.txt for this origin"
        if state is State.REFUSED:
            return f"{entry.outcome}: allow all, as Scrapy's built-in"
        if state is State.UNREACHABLE_LAST_GOOD:
            return f"unreachable ({entry.outcome}); the last good copy is in force"
        if state is State.UNREACHABLE:
            return f"unreachable: {entry.outcome}"
        if entry.unreachable_since is not None:  # allow all after the days
            days = config.unreachable_days
            return f"unreachable ({entry.outcome}) for {days:g} days or more"
        return "" if state is State.RULES else entry.detail

    @staticmethod
    def _verdict(
        probe: _Run,
        state: State | None,
        robots: RobotsTxt | None,
        middleware: RobotsTxtMiddleware,
        url: str,
        token: str,
        waited: bool,
    ) -> Verdict | str:
        """The verdict, with what decides it; a ``str`` says why there is
        none."""
        if probe.verdict == "error" or probe.verdict is None:
            return probe.message or "the request got no verdict"
        if probe.verdict == "unreachable":
            wait = duration(middleware.config.unreachable_wait)
            if waited or probe.retry_in is None:
                note = f"dropped after ROBOTSTXT_RFC_UNREACHABLE_WAIT = {wait} s"
            else:
                retry = duration(probe.retry_in)
                note = (
                    f"disallowed while unreachable; a crawl would fetch it again in {retry} s, "
                    f"its requests waiting up to {wait} s (ROBOTSTXT_RFC_UNREACHABLE_WAIT); "
                    "--wait waits the same way"
                )
            return Verdict.of_state(url, token, State.UNREACHABLE, probe.unreachable, note=note)
        allowed = probe.verdict == "allowed"
        if state is None or state in (State.ALLOW_ALL, State.REFUSED):
            if allowed:
                return Verdict.of_state(url, token, state or State.ALLOW_ALL, "")
            return Verdict(False, url, token, probe.message)
        if robots is None:
            # From the store, before Scrapy 2.18: the group the middleware
            # kept gives the same rule.
            return middleware.explain(url) or Verdict(allowed, url, token, "no deciding rule")
        why = robots.explain(url, middleware.crawler_names)
        if why.allowed != allowed:
            word = "allowed" if allowed else "disallowed"
            return Verdict(allowed, url, token, f"the middleware says {word}, but explain() "
                           f"says: {why.reason}")  # fmt: skip
        return Verdict.explained(why)

    @staticmethod
    def _delay(delay: float | None, config: Config, crawler: Crawler) -> tuple[float | None, str]:
        """The download slot's delay set from robots.txt's ``delay``
        (OTHER-2; ``None`` when none is), and in words why or how."""
        if delay is None:
            return None, ""
        if not config.crawl_delay:
            return None, "not applied: ROBOTSTXT_RFC_CRAWL_DELAY is off"
        if not config.crawl_delay_max:
            return None, "not applied: ROBOTSTXT_RFC_CRAWL_DELAY_MAX is 0"
        assert crawler.stats is not None
        if not crawler.stats.get_value("robotstxt/crawl_delay/applied"):
            return None, "not applied: the download slot's delay is already as long"
        if delay > config.crawl_delay_max:
            return config.crawl_delay_max, (
                f"applied to the download slot as {config.crawl_delay_max:g} s "
                "(ROBOTSTXT_RFC_CRAWL_DELAY_MAX)"
            )
        return delay, "applied to the download slot"


def _file_notes(
    probe: _Run, robots: RobotsTxt | None, config: Config, truncated: bool
) -> tuple[FileNote, ...]:
    """What ``check`` and ``lint`` say about the fetched file as a whole
    (:func:`.robotstxt.file_notes`: cut at ``ROBOTSTXT_RFC_MAX_BYTES``, an
    HTML page, bytes that are not UTF-8, lines ignored); nothing when no
    2xx body was fetched (a 4xx, unreachable, from the store)."""
    from ..robotstxt import cut_at_limit, file_notes

    if probe.body is None:
        return ()
    body, cut = cut_at_limit(probe.body, config.max_bytes)
    return file_notes(
        body,
        probe.content_type,
        config.mode,
        truncated=cut or truncated,
        max_bytes=config.max_bytes,
        robots=robots,
    )


def _usage(probe: _Run, allowed: bool | None, config: Config) -> dict[str, Any]:
    """The report's usage keys: robots.txt's preferences for the URL (none
    for a disallowed one, U-5; ``None`` without a verdict), as JSON and as
    the text line, the message of a crawl's drop, and the categories a crawl
    drops for (``ROBOTSTXT_RFC_USAGE``)."""
    usage, text, drop = probe.usage, None, probe.usage_drop
    if allowed is False:
        usage, text = NO_PREFERENCES, "none: robots.txt disallows the URL"
    elif allowed is None:
        usage = None
    elif usage is not None:
        text = str(usage)
        if drop is not None and drop.where == "unknown":
            states = ", ".join(drop.categories)
            text += f"; a crawl drops it unless its Content-Usage header states {states}: {drop}"
        elif drop is not None:
            text += f"; a crawl drops it: {drop}"
    return {
        "usage": None if usage is None else usage.as_dict(),
        "usage_text": text,
        "usage_drop": None if drop is None else str(drop),
        "usage_enforced": list(config.usage),
    }
