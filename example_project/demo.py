"""The demo: a real Scrapy crawl, obeying robots.txt with scrapy_robots_rfc,
of a local site whose origins each answer robots.txt differently (rules for
a named group, 404, 503, a cross-origin redirect, wildcards, a usage
preference, a crawl-delay) or carry page-level rules (``nofollow``,
``noindex``).

First a list of the origins and what each will show, so that the WARNINGs
logged during the crawl (the 503 origin's) have their context. Then a report
per origin: the robots.txt outcome, the pages crawled, the pages forbidden
with the rule and line that decided, the requests dropped while robots.txt
was unreachable or for a usage preference, the links and items page-level
rules dropped, the crawl-delay and how far apart the requests came, what the
server never saw, and the ``robotstxt/*`` stats. The demo checks its report
against the server's hit log, the package's log lines and its stats, and
exits non-zero if they disagree.

Run it with ``make demo`` (``cd example_project && python demo.py``). It
needs no network: the site listens on 127.0.0.1 and stops with the crawl.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings

from scrapy_robots_rfc import RobotsTxt

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
os.environ.setdefault("SCRAPY_SETTINGS_MODULE", "demo_project.settings")

from demo_project.localsite import ROBOTS_TXT, LocalSite  # noqa: E402
from demo_project.spiders.tour import OriginLog, TourSpider, path_of  # noqa: E402

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from scrapy_robots_rfc import Explanation

SHOWN = 6  # crawled paths listed per origin
AGENT = "DemoBot"
#: How much sooner than the crawl-delay the server may see a request: the
#: delay is kept between the starts of two requests, and the trip to the
#: server on 127.0.0.1 takes a little time of its own.
TRIP = 0.1
#: The settings of the crawl the introduction names (the tour spider's).
SHOWN_SETTINGS = (
    "ROBOTSTXT_RFC_NOFOLLOW",
    "ROBOTSTXT_RFC_NOINDEX",
    "ROBOTSTXT_RFC_USAGE",
    "ROBOTSTXT_RFC_CRAWL_DELAY",
    "ROBOTSTXT_RFC_UNREACHABLE_RETRY",
    "ROBOTSTXT_RFC_UNREACHABLE_WAIT",
)


#: What each ``robotstxt/*`` stat of the demo counts (docs/reference.rst,
#: "Stats"). They count fetches and requests; the summary line counts origins.
STAT_MEANINGS = {
    "robotstxt/allow_all": "fetches that found no robots.txt (4xx): allow all",
    "robotstxt/cache/bytes/max": "the most bytes the cache of robots.txt rules held",
    "robotstxt/crawl_delay/applied": "download slots given a robots.txt crawl-delay",
    "robotstxt/crawl_delay/waited": "requests that waited for their crawl-delay turn",
    "robotstxt/fetches": "robots.txt fetches (a redirect chain is one)",
    "robotstxt/origins": "origins decided, by a fetch or the store",
    "robotstxt/exception_count/total": "robots.txt download errors, of any class",
    "robotstxt/disallow_all": "unreachable fetches with no good copy: disallow all",
    "robotstxt/forbidden": "requests dropped by a rule",
    "robotstxt/page/nofollow": "links yielded from a nofollow page, dropped",
    "robotstxt/page/noindex": "items yielded from a noindex page, dropped",
    "robotstxt/redirects": "redirect hops followed",
    "robotstxt/request_count": "robots.txt requests sent (redirect hops and retries too)",
    "robotstxt/response_count": "robots.txt responses received",
    "robotstxt/rules": "fetches that found robots.txt (2xx), parsed",
    "robotstxt/unreachable": "fetches that found robots.txt unreachable (429, 5xx, errors)",
    "robotstxt/unreachable/dropped": "requests dropped after waiting for an unreachable one",
    "robotstxt/usage/forbidden": "requests dropped before download for a usage preference",
    "robotstxt/usage/page": "responses whose page says noai: train-ai=n, ai-use=n",
    "robotstxt/usage/page_forbidden": "... dropped before the spider for it",
    "robotstxt/waiting": "requests held while their origin's robots.txt was fetched",
    "robotstxt/waiting/parked": "waiting requests taken out of the downloader after their grace",
}

# The package's log lines the report reads (docs/how-it-works.rst,
# docs/page-rules.rst, docs/settings.rst): their text, never their internals.
_FORBIDDEN = re.compile(
    r'Forbidden by robots\.txt: <\w+ (?P<url>\S+)>: \w+ by "(?P<kind>allow|disallow): '
    r'(?P<pattern>.*) \(line (?P<line>\d+)\)" in the group for '
)
_CRAWL_DELAY = re.compile(
    r"(?P<robots>\S+) asks for a Crawl-delay of .*; (?P<delay>[\d.]+) s in force"
)
_PAGE_DROP = re.compile(
    r"Dropped (?:<\w+ (?P<link>\S+)>|an item \(\w+\)) from <\d+ (?P<page>\S+)>: "
    r"the page says (?P<directive>.*)"
)


class PackageLog(logging.Handler):
    """Keeps the package's log lines the report shows: the DEBUG line
    "Forbidden by robots.txt: <GET url>: disallowed by "rule" ..." (the rule
    and its line), the INFO line of a crawl-delay in force, the DEBUG lines
    of what page-level rules dropped, and the INFO summary line
    "robots.txt: N origins checked (...)"."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        #: URL -> ("disallow /private/", 7)
        self.rules: dict[str, tuple[str, int]] = {}
        #: robots.txt URL -> (the INFO line, the delay in force)
        self.crawl_delays: dict[str, tuple[str, float]] = {}
        #: (the link's URL, or None for an item; the page's URL; the directive)
        self.page_drops: list[tuple[str | None, str, str]] = []
        self.summary = ""

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.levelno == logging.INFO and message.startswith("robots.txt: "):
            self.summary = message
        elif found := _FORBIDDEN.match(message):
            rule = f"{found['kind']} {found['pattern']}"
            self.rules[found["url"]] = (rule, int(found["line"]))
        elif found := _CRAWL_DELAY.match(message):
            self.crawl_delays[found["robots"]] = (message, float(found["delay"]))
        elif found := _PAGE_DROP.match(message):
            self.page_drops.append((found["link"], found["page"], found["directive"]))


def stat_meaning(key: str) -> str:
    last = key.rsplit("/", 1)[1]
    if key.startswith("robotstxt/response_status_count/"):
        return f"... with status {last}"
    if key.startswith("robotstxt/response_status_class/"):
        return f"robots.txt responses with a {last} status"
    if key.startswith("robotstxt/origins/"):
        return f"... whose last outcome is {last}"
    return STAT_MEANINGS.get(key, "")


def robots_for(site: LocalSite, name: str) -> tuple[str, bytes]:
    """The name of the origin whose robots.txt body decides for ``name``
    (after redirects), and that body, as the site serves it."""
    spec = site.specs[name]
    while spec.robots_redirect is not None:
        spec = site.specs[spec.robots_redirect]
    return spec.name, spec.robots_body


def outcome(site: LocalSite, name: str, robots: RobotsTxt, wait: float) -> str:
    """The robots.txt outcome for ``name``, from the server's hit log."""
    hits = site.robots_hits(name)
    if not hits:
        return "never fetched"
    status = hits[-1].status
    if 300 <= status < 400:
        target, _ = robots_for(site, name)
        then = site.robots_hits(target)
        inner = outcome(site, target, robots, wait) if then else "not fetched"
        return f"{status} → {site.url(target, ROBOTS_TXT)} → {inner} (applied to this origin)"
    if 200 <= status < 300:
        agents = robots.explain(site.url(name), AGENT).agents
        if not agents:
            return f"{status}: no group for {AGENT}, allow all"
        return f"{status}: rules for group {', '.join(repr(a) for a in agents)}"
    if 400 <= status < 500 and status != 429:
        return f"{status}: no robots.txt, allow all"
    times = ", ".join(f"{hit.time:.1f}" for hit in hits)
    return (
        f"{status} ({len(hits)} fetches, at {times} s): unreachable, so requests "
        f"waited, then were dropped after {wait:g} s"
    )


def rule_text(explanation: Explanation) -> str:
    rule = explanation.rule
    if rule is None:
        return "no rule matches"
    return f"{rule.kind} {rule.pattern} (line {rule.line})"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def table(title: str, rows: Sequence[tuple[str, str]]) -> None:
    if not rows:
        return
    print(f"  {title}")
    width = max(len(path) for path, _ in rows)
    for path, text in rows:
        print(f"    {path:<{width}}  {text}".rstrip())


def intro(site: LocalSite, settings: BaseSettings) -> None:
    """Before the crawl: each origin, where it listens and what it will
    show, and the settings that decide what this crawl does."""
    crawled = sum(spec.crawl for spec in site.specs.values())
    print(
        f"The local site: {len(site.specs)} origins on 127.0.0.1, {crawled} of them crawled "
        f"as {settings['ROBOTSTXT_USER_AGENT']!r} with scrapy_robots_rfc. What each will show:"
    )
    width = max(map(len, site.specs))
    for name, spec in site.specs.items():
        print(f"  {name:<{width}}  {site.url(name, '')}  {spec.about}")
    shown = ", ".join(f"{key} = {settings[key]!r}" for key in SHOWN_SETTINGS)
    print("The crawl's settings (settings.py and the tour spider's custom_settings):")
    print(textwrap.fill(shown, width=100, initial_indent="  ", subsequent_indent="  "))
    unreachable = [
        site.url(name, "") for name in site.specs if site.specs[name].robots_status >= 500
    ]
    print(
        f"Crawling… The WARNINGs logged meanwhile are about the 503 origin "
        f"({', '.join(unreachable)}): its retries, then the drop.",
        flush=True,
    )


@dataclass
class Origin:
    """One origin's section of the report: what the site serves, what the
    spider and the package's log said, and the self-check failures."""

    site: LocalSite
    name: str
    log: OriginLog
    package: PackageLog
    wait: float
    #: ROBOTSTXT_RFC_USAGE: the uses the crawl is for
    usage_for: tuple[str, ...]
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.spec = self.site.specs[self.name]
        self.robots = RobotsTxt.parse(robots_for(self.site, self.name)[1])

    def url(self, path: str) -> str:
        return self.site.url(self.name, path)

    def explain(self, path: str) -> Explanation:
        return self.robots.explain(self.url(path), AGENT)

    def mine(self, url: str) -> bool:
        return self.site.origin_of(url) == self.name

    def report(self) -> list[str]:
        """Print the section; return the self-check failures."""
        print(f"\n{self.name}  {self.url('')}  ({self.spec.about})")
        print(f"  robots.txt  {outcome(self.site, self.name, self.robots, self.wait)}")
        if not self.spec.crawl:
            served = len(self.site.robots_hits(self.name))
            print(f"  not crawled; the server answered {served} request(s), all for robots.txt")
            return self.problems
        crawled = sorted(self.log.crawled)
        more = f", … ({len(crawled) - SHOWN} more)" if len(crawled) > SHOWN else ""
        listed = ", ".join(crawled[:SHOWN])
        print(f"  crawled     {len(crawled)}{': ' if crawled else ''}{listed}{more}")
        self.rules(crawled)
        self.unreachable()
        self.usage()
        never = self.page_rules()
        self.crawl_delay()
        for path, error in self.log.errors:
            print(f"  error       {path}: {error}")
            self.problems.append(f"{self.url(path)}: {error}")
        self.never_seen(never)
        return self.problems

    def rules(self, crawled: list[str]) -> None:
        """The allow rules that let a page through, the pages forbidden with
        the rule and line (as the middleware logged them), and where another
        crawler's group would decide otherwise."""
        table(
            "allowed by an allow rule:",
            [(p, rule_text(e)) for p in crawled if (e := self.explain(p)).rule is not None],
        )
        forbidden = sorted(self.log.forbidden)
        explained = {path: self.explain(path) for path in forbidden}
        table(
            f"forbidden   {len(forbidden)}, with the rule that decides for {AGENT}:",
            [(path, rule_text(why)) for path, why in explained.items()],
        )
        for path, why in explained.items():
            url = self.url(path)
            logged = self.package.rules.get(url)
            if why.allowed or why.rule is None:
                self.problems.append(f"{url}: forbidden, but explain() allows it")
            elif logged != (f"{why.rule.kind} {why.rule.pattern}", why.rule.line):
                self.problems.append(
                    f"{url}: the middleware logged {logged}, explain() says {why.rule}"
                )
        # Where the group matters: another crawler would get the '*' group.
        others = []
        for path in sorted({*crawled, *forbidden}):
            why = self.robots.explain(self.url(path), "OtherBot")
            if why.allowed != (path in crawled) and why.agents:
                verdict = "allowed" if why.allowed else "forbidden"
                others.append((path, f"{verdict}: {rule_text(why)}"))
        table("other bots  the '*' group would decide otherwise:", others)

    def unreachable(self) -> None:
        if self.log.dropped:
            table(
                f"dropped     {len(self.log.dropped)}, after waiting for robots.txt:",
                [
                    (p, f"at {t:.1f} s: IgnoreRequest({m!r})")
                    for p, t, m in sorted(self.log.dropped)
                ],
            )

    def usage(self) -> None:
        """What robots.txt says the crawled pages may be used for, and the
        requests dropped for a usage preference: before download (robots.txt)
        or after it (the page's ``noai``, a header)."""
        table(
            "usage       preferences of the pages crawled:",
            sorted(self.log.preferences.items()),
        )
        drops = sorted(self.log.usage)
        table(
            f"dropped     {len(drops)}, for a usage preference (ROBOTSTXT_RFC_USAGE = "
            f"{list(self.usage_for)}):",
            [
                (path, f"{'before download' if where == 'robots.txt' else 'downloaded'}: {m}")
                for path, m, where in drops
            ],
        )
        for path, _, where in drops:
            said = self.robots.usage(self.url(path), AGENT)
            if where == "robots.txt" and not said.disallowed(self.usage_for):
                self.problems.append(f"{self.url(path)}: dropped, but robots.txt says {said}")
            if where != "robots.txt" and path not in self.site.seen(self.name):
                self.problems.append(f"{self.url(path)}: dropped after download, never fetched")

    def page_rules(self) -> set[str]:
        """The page-level rules of the crawled pages for DemoBot, the links
        and items they dropped (from the package's DEBUG lines), and the tags
        that name another crawler. Returns the links never requested."""
        log = self.log
        table(
            f"page rules  for {AGENT}, on {plural(len(log.page_rules), 'page')}:",
            sorted(log.page_rules.items()),
        )
        links = [
            (path_of(u), path_of(p), d)
            for u, p, d in self.package.page_drops
            if u is not None and self.mine(p)
        ]
        items = [
            (path_of(p), d) for u, p, d in self.package.page_drops if u is None and self.mine(p)
        ]
        table(
            f"nofollow    {plural(len(links), 'link')} dropped (ROBOTSTXT_RFC_NOFOLLOW), "
            "never requested:",
            [(link, f"from {page}: the page says {d}") for link, page, d in sorted(links)],
        )
        table(
            f"noindex     {plural(len(items), 'item')} dropped "
            '(ROBOTSTXT_RFC_NOINDEX = "drop"), never passed to the pipeline:',
            [(page, f"its item: the page says {d}") for page, d in sorted(items)],
        )
        if links or items:
            print(
                f"  items       {len(log.items)} of {len(log.crawled)} pages crawled reached "
                "the item pipeline"
            )
        # Tags for another crawler change nothing for this one.
        others = [
            (path, name, content)
            for path, tags in self.spec.meta.items()
            for name, content in tags
            if name.lower() not in ("robots", AGENT.lower())
        ]
        table(
            f"other bots  a tag that names another crawler changes nothing for {AGENT}:",
            [
                (
                    path,
                    f'<meta name="{name}" content="{content}">: '
                    f"{sum(link in log.crawled for link in log.links.get(path, []))} of "
                    f"{len(log.links.get(path, []))} links followed, item "
                    f"{'kept' if path in log.items else 'dropped'}",
                )
                for path, name, content in others
            ],
        )
        self.check_page_rules(links, items)
        return {link for link, _, _ in links}

    def check_page_rules(
        self, links: list[tuple[str, str, str]], items: list[tuple[str, str]]
    ) -> None:
        """Every link a nofollow page yielded was dropped, no other; every
        crawled page's item reached the pipeline, but a noindex page's."""
        log = self.log
        dropped_from: dict[str, set[str]] = {}
        for link, page, _ in links:
            dropped_from.setdefault(page, set()).add(link)
        for page, yielded in log.links.items():
            expected = set(yielded) if page in log.nofollow else set()
            if dropped_from.get(page, set()) != expected:
                self.problems.append(
                    f"{self.url(page)}: links dropped {dropped_from.get(page)}, "
                    f"expected {expected or 'none'}"
                )
        dropped_items = {page for page, _ in items}
        for page in log.crawled:
            noindex = page in log.noindex
            if (page in dropped_items) != noindex or (page in log.items) == noindex:
                self.problems.append(
                    f"{self.url(page)}: item {'dropped' if page in dropped_items else 'kept'}"
                    f" with page rules {log.page_rules.get(page, 'none')!r}"
                )

    def crawl_delay(self) -> None:
        """The INFO line of a crawl-delay in force, and the requests as the
        server saw them: never closer than the delay."""
        said = self.package.crawl_delays.get(self.url(ROBOTS_TXT))
        if said is None:
            return
        line, delay = said
        print(f"  crawl-delay {delay:g} s in force, as the package's INFO line says:")
        print(f"    {line}")
        hits = [hit for hit in self.site.hits if hit.origin == self.name]
        rows = [(hits[0].path, f"at {hits[0].time:5.2f} s")]
        for before, hit in pairwise(hits):
            gap = hit.time - before.time
            rows.append((hit.path, f"at {hit.time:5.2f} s  +{gap:.2f} s"))
            if gap < delay - TRIP:
                self.problems.append(
                    f"{self.url(hit.path)}: {gap:.2f} s after {before.path}, less than "
                    f"the crawl-delay of {delay:g} s"
                )
        table(f"requests    as the server saw them, at least {delay:g} s apart:", rows)

    def never_seen(self, links: set[str]) -> None:
        """What the crawl kept from the server: forbidden, dropped while
        robots.txt was unreachable, dropped for usage before download, links
        of a nofollow page."""
        kept_out = sorted(
            {
                *self.log.forbidden,
                *(path for path, _, _ in self.log.dropped),
                *(path for path, _, where in self.log.usage if where == "robots.txt"),
                *links,
            }
        )
        if kept_out:
            seen = self.site.seen(self.name)
            print(f"  server never saw: {', '.join(p for p in kept_out if p not in seen) or '-'}")
            self.problems += [f"the server saw {self.url(p)}" for p in kept_out if p in seen]


def check_stats(stats: dict[str, Any], logs: list[OriginLog], package: PackageLog) -> list[str]:
    """The stats against what the spider and the log lines counted."""
    counted = {
        "robotstxt/forbidden": sum(len(log.forbidden) for log in logs),
        "robotstxt/unreachable/dropped": sum(len(log.dropped) for log in logs),
        "robotstxt/usage/forbidden": sum(
            where == "robots.txt" for log in logs for _, _, where in log.usage
        ),
        "robotstxt/usage/page_forbidden": sum(
            where == "page" for log in logs for _, _, where in log.usage
        ),
        "robotstxt/page/nofollow": sum(link is not None for link, _, _ in package.page_drops),
        "robotstxt/page/noindex": sum(link is None for link, _, _ in package.page_drops),
        "item_scraped_count": sum(len(log.items) for log in logs),
    }
    problems = [
        f"{key} is {stats.get(key, 0)}, the demo counted {n}"
        for key, n in counted.items()
        if stats.get(key, 0) != n
    ]
    problems += [
        f"{key} has no meaning in STAT_MEANINGS"
        for key in stats
        if key.startswith("robotstxt/") and not stat_meaning(key)
    ]
    return problems


def main() -> int:
    settings = get_project_settings()
    settings.set("LOG_LEVEL", "WARNING", priority="cmdline")
    settings.set("LOG_FORMAT", "  (log) %(levelname)s %(name)s: %(message)s", priority="cmdline")
    package = PackageLog()
    logger = logging.getLogger("scrapy_robots_rfc")
    logger.addHandler(package)
    logger.setLevel(logging.DEBUG)  # the root handler still shows WARNING and up only

    site = LocalSite()
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(TourSpider)  # its settings: the project's and the spider's
    wait = crawler.settings.getfloat("ROBOTSTXT_RFC_UNREACHABLE_WAIT")
    usage_for = tuple(crawler.settings.getlist("ROBOTSTXT_RFC_USAGE"))
    process.crawl(crawler, site=site)  # installs the reactor the site listens on
    site.listen()
    intro(site, crawler.settings)
    started = time.monotonic()
    process.start()
    took = time.monotonic() - started

    spider = crawler.spider
    assert isinstance(spider, TourSpider)
    problems: list[str] = []
    for name in site.specs:
        origin = Origin(site, name, spider.origins[name], package, wait, usage_for)
        problems += origin.report()

    assert crawler.stats is not None
    stats: dict[str, Any] = crawler.stats.get_stats()
    print("\nThe middleware's summary line, one count per origin (by its last outcome):")
    print(f"  {package.summary}")
    if not package.summary:
        problems.append("the middleware logged no summary line")
    print("\nrobotstxt/* stats, counts of fetches and requests:")
    for key in sorted(k for k in stats if k.startswith("robotstxt/")):
        print(f"  {key:<36} {stats[key]:>3}  {stat_meaning(key)}".rstrip())
    unreachable = stats.get("robotstxt/unreachable", 0)
    print(
        f'  (the 503 origin is "1 unreachable" in the summary and {unreachable} in '
        "robotstxt/unreachable:\n"
        f"   its robots.txt was fetched {unreachable} times and was unreachable each time. "
        "robotstxt/waiting\n"
        "   counts the first requests of each origin and every request of the 503 origin.)"
    )
    logs = [spider.origins[name] for name in site.specs]
    problems += check_stats(stats, logs, package)
    links = sum(link is not None for link, _, _ in package.page_drops)
    print(
        f"\n{sum(len(log.crawled) for log in logs)} pages crawled, "
        f"{sum(len(log.forbidden) for log in logs)} forbidden "
        f"({len(package.rules)} logged by the middleware with the same rule), "
        f"{sum(len(log.dropped) for log in logs)} dropped while robots.txt was unreachable, "
        f"{sum(len(log.usage) for log in logs)} for usage preferences; page-level rules "
        f"dropped {plural(links, 'link')} and {plural(len(package.page_drops) - links, 'item')}; "
        f"finished in {took:.1f} s ({stats.get('finish_reason')})."
    )
    for problem in problems:
        print(f"SELF-CHECK FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
