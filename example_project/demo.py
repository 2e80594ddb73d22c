"""The demo: a real Scrapy crawl, obeying robots.txt with scrapy_robots_rfc,
of a local site whose origins each answer robots.txt differently (rules for
a named group, 404, 503, a cross-origin redirect, wildcards). Then a report
per origin: the robots.txt outcome, the pages crawled, the pages forbidden
with the rule and line that decided, the requests dropped while robots.txt
was unreachable, what the server never saw, and the ``robotstxt/*`` stats.

Run it with ``make demo`` (``cd example_project && python demo.py``). It
needs no network: the site listens on 127.0.0.1 and stops with the crawl.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings

from scrapy_robots_rfc import RobotsTxt

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
os.environ.setdefault("SCRAPY_SETTINGS_MODULE", "demo_project.settings")

from demo_project.localsite import ROBOTS_TXT, LocalSite  # noqa: E402
from demo_project.spiders.tour import OriginLog, TourSpider  # noqa: E402

if TYPE_CHECKING:
    from scrapy_robots_rfc import Explanation

SHOWN = 6  # crawled paths listed per origin


#: What each ``robotstxt/*`` stat of the demo counts (README.rst, "Stats").
#: They count fetches and requests; the summary line counts origins.
STAT_MEANINGS = {
    "robotstxt/allow_all": "fetches that found no robots.txt (4xx): allow all",
    "robotstxt/fetches": "robots.txt fetches (a redirect chain is one)",
    "robotstxt/origins": "origins decided, by a fetch or the store",
    "robotstxt/exception_count/total": "robots.txt download errors, of any class",
    "robotstxt/disallow_all": "unreachable fetches with no good copy: disallow all",
    "robotstxt/forbidden": "requests dropped by a rule",
    "robotstxt/redirects": "redirect hops followed",
    "robotstxt/request_count": "robots.txt requests sent (redirect hops and retries too)",
    "robotstxt/response_count": "robots.txt responses received",
    "robotstxt/rules": "fetches that found robots.txt (2xx), parsed",
    "robotstxt/unreachable": "fetches that found robots.txt unreachable (429, 5xx, errors)",
    "robotstxt/unreachable/dropped": "requests dropped after waiting for an unreachable one",
    "robotstxt/waiting": "requests held while their origin's robots.txt was fetched",
    "robotstxt/waiting/parked": "waiting requests taken out of the downloader after their grace",
}


class MiddlewareLog(logging.Handler):
    """Keeps the rule the middleware names in its DEBUG line
    "Forbidden by robots.txt: <GET url>: <verdict> of <robots.txt URL>", and
    its INFO summary line "robots.txt: N origins checked (...)"."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.rules: dict[str, tuple[str, int]] = {}
        self.summary = ""

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args
        if record.levelno == logging.INFO and record.getMessage().startswith("robots.txt: "):
            self.summary = record.getMessage()
            return
        if not record.msg.startswith("Forbidden by robots.txt") or not isinstance(args, Mapping):
            return
        rule = args["verdict"].rule
        self.rules[args["request"].url] = (f"{rule.kind} {rule.pattern}", rule.line)


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
        agents = robots.explain(site.url(name), "DemoBot").agents
        if not agents:
            return f"{status}: no group for DemoBot, allow all"
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


def table(title: str, rows: list[tuple[str, str]]) -> None:
    if not rows:
        return
    print(f"  {title}")
    width = max(len(path) for path, _ in rows)
    for path, text in rows:
        print(f"    {path:<{width}}  {text}")


def report_origin(
    site: LocalSite,
    name: str,
    log: OriginLog,
    middleware_rules: dict[str, tuple[str, int]],
    wait: float,
) -> list[str]:
    """Print one origin's section; return the self-check failures."""
    problems: list[str] = []
    spec = site.specs[name]
    _, body = robots_for(site, name)
    robots = RobotsTxt.parse(body)

    def explain(path: str) -> Explanation:
        return robots.explain(site.url(name, path), "DemoBot")

    print(f"\n{name}  {site.url(name, '')}  ({spec.about})")
    print(f"  robots.txt  {outcome(site, name, robots, wait)}")
    if not spec.crawl:
        served = len(site.robots_hits(name))
        print(f"  not crawled; the server answered {served} request(s), all for robots.txt")
        return problems
    crawled = sorted(log.crawled)
    more = f", … ({len(crawled) - SHOWN} more)" if len(crawled) > SHOWN else ""
    print(
        f"  crawled     {len(crawled)}{': ' if crawled else ''}{', '.join(crawled[:SHOWN])}{more}"
    )
    table(
        "allowed by an allow rule:",
        [(p, rule_text(e)) for p in crawled if (e := explain(p)).rule is not None],
    )
    forbidden = sorted(log.forbidden)
    explained = {path: explain(path) for path in forbidden}
    table(
        f"forbidden   {len(forbidden)}, with the rule that decides for DemoBot:",
        [(path, rule_text(why)) for path, why in explained.items()],
    )
    for path, why in explained.items():
        url = site.url(name, path)
        logged = middleware_rules.get(url)
        if why.allowed or why.rule is None:
            problems.append(f"{url}: forbidden, but explain() allows it")
        elif logged != (f"{why.rule.kind} {why.rule.pattern}", why.rule.line):
            problems.append(f"{url}: the middleware logged {logged}, explain() says {why.rule}")
    # Where the group matters: another crawler would get the '*' group.
    others = []
    for path in sorted({*crawled, *forbidden}):
        why = robots.explain(site.url(name, path), "OtherBot")
        if why.allowed != (path in crawled) and why.agents:
            verdict = "allowed" if why.allowed else "forbidden"
            others.append((path, f"{verdict}: {rule_text(why)}"))
    table("other bots  the '*' group would decide otherwise:", others)
    if log.dropped:
        table(
            f"dropped     {len(log.dropped)}, after waiting for robots.txt:",
            [(p, f"at {t:.1f} s: IgnoreRequest({m!r})") for p, t, m in sorted(log.dropped)],
        )
    for path, error in log.errors:
        print(f"  error       {path}: {error}")
        problems.append(f"{site.url(name, path)}: {error}")
    kept_out = sorted({*log.forbidden, *(path for path, _, _ in log.dropped)})
    if kept_out:
        seen = site.seen(name)
        print(f"  server never saw: {', '.join(p for p in kept_out if p not in seen) or '-'}")
        problems += [f"the server saw {site.url(name, p)}" for p in kept_out if p in seen]
    return problems


def main() -> int:
    settings = get_project_settings()
    settings.set("LOG_LEVEL", "WARNING", priority="cmdline")
    settings.set("LOG_FORMAT", "  (log) %(levelname)s %(name)s: %(message)s", priority="cmdline")
    wait = settings.getfloat("ROBOTSTXT_RFC_UNREACHABLE_WAIT")
    middleware_log = MiddlewareLog()
    logger = logging.getLogger("scrapy_robots_rfc")
    logger.addHandler(middleware_log)
    logger.setLevel(logging.DEBUG)  # the root handler still shows WARNING and up only

    site = LocalSite()
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(TourSpider)
    print(
        f"Crawling {sum(s.crawl for s in site.specs.values())} local origins as "
        f"{settings['ROBOTSTXT_USER_AGENT']!r} with scrapy_robots_rfc "
        f"(ROBOTSTXT_RFC_UNREACHABLE_WAIT = {wait:g} s)…",
        flush=True,
    )
    started = time.monotonic()
    process.crawl(crawler, site=site)
    process.start()
    took = time.monotonic() - started

    spider = crawler.spider
    assert isinstance(spider, TourSpider)
    problems: list[str] = []
    for name in site.specs:
        problems += report_origin(site, name, spider.origins[name], middleware_log.rules, wait)

    assert crawler.stats is not None
    stats: dict[str, Any] = crawler.stats.get_stats()
    print("\nThe middleware's summary line, one count per origin (by its last outcome):")
    print(f"  {middleware_log.summary}")
    if not middleware_log.summary:
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
    logs = spider.origins.values()
    print(
        f"\n{sum(len(log.crawled) for log in logs)} pages crawled, "
        f"{sum(len(log.forbidden) for log in logs)} forbidden "
        f"({len(middleware_log.rules)} logged by the middleware with the same rule), "
        f"{sum(len(log.dropped) for log in logs)} dropped; "
        f"finished in {took:.1f} s ({stats.get('finish_reason')})."
    )
    for problem in problems:
        print(f"SELF-CHECK FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
