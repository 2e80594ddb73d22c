"""Whose a crawl-delay is (D-17 revised): a ``crawl-delay`` line belongs to
the run of user-agent lines directly above it, never to the whole group that
Google's grouping (D-18) makes of several runs.

One table, run in both modes, through the library (``RobotsTxt``) and through
the ``ROBOTSTXT_PARSER`` interface (``RobotParser``); then a differential
over every file of the shared corpus that has a crawl-delay, against a small
reading of "the user-agent lines just above it" written here, apart from the
parser.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from scrapy.utils.test import get_crawler

from scrapy_robots_rfc import RobotParser, RobotsTxt
from scrapy_robots_rfc.robotstxt import CrawlDelay

from ..conftest import corpus_files, requires_corpus

BING_MSN = (
    b"User-agent: bingbot\n"
    b"Crawl-delay: 1\n"
    b"\n"
    b"User-agent: msnbot\n"
    b"Crawl-delay: 2\n"
    b"\n"
    b"User-agent: *\n"
    b"Disallow: /login\n"
)
EBI = b"User-agent: EBISearch\nCrawl-Delay: 0\n\nUser-agent: *\nCrawl-Delay: 10\n"

#: (body, crawler, delay, the line that gives it): the same in both modes.
CASES: list[tuple[bytes, str, float | None, int | None]] = [
    # The example: 1 / 2 / none, as Protego, crawler-commons, Bing
    # and Yandex read it (it was 1 / 1 / 1: the merged group's first).
    (BING_MSN, "bingbot", 1.0, 2),
    (BING_MSN, "msnbot", 2.0, 5),
    (BING_MSN, "otherbot", None, None),
    # ebi.ac.uk: 0 s for EBISearch, 10 s for everyone else (it was 0 for all).
    (EBI, "EBISearch", 0.0, 2),
    (EBI, "otherbot", 10.0, 5),
    # A run of two names, then the delay, then a rule: both names have it.
    (b"User-agent: a\nUser-agent: b\nCrawl-delay: 5\nDisallow: /x\n", "a", 5.0, 3),
    (b"User-agent: a\nUser-agent: b\nCrawl-delay: 5\nDisallow: /x\n", "b", 5.0, 3),
    (b"User-agent: a\nUser-agent: b\nCrawl-delay: 5\nDisallow: /x\n", "c", None, None),
    # A delay after the rules is still the run's above it.
    (b"User-agent: a\nDisallow: /x\nCrawl-delay: 5\n", "a", 5.0, 3),
    (b"User-agent: a\nDisallow: /x\nCrawl-delay: 5\n", "c", None, None),
    # A delay before any user-agent line is nobody's.
    (b"Crawl-delay: 3\nUser-agent: a\nDisallow: /\n", "a", None, None),
    (b"Crawl-delay: 3\nUser-agent: *\nDisallow: /\n", "c", None, None),
    # Blank lines and comments do not break a run; a sitemap does not either
    # (it belongs to no group); any other record does.
    (b"User-agent: a\n# x\n\nUser-agent: b\nCrawl-delay: 4\n", "a", 4.0, 5),
    (b"User-agent: a\nSitemap: http://e.com/s.xml\nUser-agent: b\nCrawl-delay: 4\n", "a", 4.0, 4),
    (b"User-agent: a\nHost: e.com\nUser-agent: b\nCrawl-delay: 4\n", "a", None, None),
    (b"User-agent: a\nHost: e.com\nUser-agent: b\nCrawl-delay: 4\n", "b", 4.0, 4),
    # The first delay of a run counts; the first run naming the crawler too.
    (b"user-agent: FooBot\ncrawl-delay: 2\ncrawl-delay: 9\n", "FooBot", 2.0, 2),
    (
        b"User-agent: a\nDisallow: /\n\nUser-agent: a\nCrawl-delay: 3\n\n"
        b"User-agent: a\nCrawl-delay: 9\n",
        "a",
        3.0,
        5,
    ),
    # A crawler that a group names never takes the '*' runs' delay.
    (b"User-agent: a\nDisallow: /x\n\nUser-agent: *\nCrawl-delay: 5\n", "a", None, None),
    (b"User-agent: a\nDisallow: /x\n\nUser-agent: *\nCrawl-delay: 5\n", "c", 5.0, 5),
    # Delays shared with '*' in one run; a later named run is its own.
    (b"user-agent: *\ncrawl-delay: 4\nuser-agent: FooBot\ndisallow: /\n", "FooBot", None, None),
    (b"user-agent: *\ncrawl-delay: 4\nuser-agent: FooBot\ndisallow: /\n", "BarBot", 4.0, 2),
    (
        b"user-agent: BarBot\ncrawl-delay: 4\nuser-agent: FooBot\ndisallow: /\n",
        "FooBot",
        None,
        None,
    ),
    (b"user-agent: BarBot\ncrawl-delay: 4\nuser-agent: FooBot\ndisallow: /\n", "BarBot", 4.0, 2),
    (b"user-agent: *\nuser-agent: FooBot\ncrawl-delay: 4\n", "FooBot", 4.0, 3),
    # r-bloggers.com's shape: a named crawler's long delay is not cut to the
    # shorter one of the run before it.
    (
        b"User-agent: *\nCrawl-delay: 1\nUser-agent: AhrefsBot\nCrawl-delay: 2000\n",
        "AhrefsBot",
        2000.0,
        4,
    ),
    (b"User-agent: *\nCrawl-delay: 1\nUser-agent: AhrefsBot\nCrawl-delay: 2000\n", "x", 1.0, 2),
    # Values that are not a number of seconds are skipped; the next counts.
    (b"user-agent: FooBot\ncrawl-delay: soon\ncrawl-delay: 3\n", "FooBot", 3.0, 3),
    (b"user-agent: FooBot\ncrawl-delay: -1\n", "FooBot", None, None),
    (b"user-agent: FooBot\ncrawl-delay: inf\n", "FooBot", None, None),
    (b"user-agent: FooBot\nCrawl-Delay: 0.5\ndisallow: /\n", "FooBot", 0.5, 2),
    # Misspelt keys read as Google's parser reads them (D-4).
    (b"useragent: FooBot\ncrawl_delay: 6\n", "FooBot", 6.0, 2),
]


def _id(case: tuple[bytes, str, float | None, int | None]) -> str:
    body, agent, delay, _ = case
    return f"{body.decode()[:48]!r}-{agent}-{delay}"


@pytest.mark.parametrize("mode", ["rfc", "google"])
@pytest.mark.parametrize(("body", "agent", "delay", "line"), CASES, ids=map(_id, CASES))
def test_crawl_delay_is_the_runs_above_it(
    mode: str, body: bytes, agent: str, delay: float | None, line: int | None
) -> None:
    robots = RobotsTxt.parse(body, mode)
    assert robots.crawl_delay(agent) == delay
    found = robots.for_agent(agent).delay
    assert (None if found is None else found.line) == line


@pytest.mark.parametrize("mode", ["rfc", "google"])
@pytest.mark.parametrize(("body", "agent", "delay", "line"), CASES, ids=map(_id, CASES))
def test_robot_parser_follows_it(
    mode: str, body: bytes, agent: str, delay: float | None, line: int | None
) -> None:
    crawler = get_crawler(settings_dict={"ROBOTSTXT_RFC_MODE": mode})
    parser = RobotParser.from_crawler(crawler, body)
    assert parser.crawl_delay(agent) == delay
    assert parser.crawl_delay(agent.encode()) == delay
    # The built-in passes a whole User-Agent header: the same crawler.
    assert parser.crawl_delay(f"Mozilla/5.0 (compatible; {agent}/1.0)") == delay


def test_a_delay_never_changes_which_rules_apply() -> None:
    """D-18 stays: the three crawlers of the example share ``Disallow: /login``
    (Google's grouping), though their delays differ."""
    for mode in ("rfc", "google"):
        robots = RobotsTxt.parse(BING_MSN, mode)
        for agent in ("bingbot", "msnbot", "otherbot"):
            assert robots.allowed("http://e.com/login", agent) is False
            assert robots.allowed("http://e.com/", agent) is True


def test_names_that_share_rules_keep_their_own_delays() -> None:
    """bingbot and msnbot select the same (merged) group; the rule set is
    shared, the delay is each one's own, whichever is asked first."""
    robots = RobotsTxt.parse(BING_MSN)
    msn, bing = robots.for_agent("msnbot"), robots.for_agent("bingbot")
    assert (msn.crawl_delay, bing.crawl_delay) == (2.0, 1.0)
    assert msn.rules == bing.rules


def test_reduced_names_and_families_select_runs_as_groups() -> None:
    """D-21: a versioned name and a whole header select the runs of their
    product name; D-22: the first name of a family that a group names."""
    robots = RobotsTxt.parse(BING_MSN)
    assert robots.crawl_delay("msnbot/2.0b") == 2.0
    assert robots.crawl_delay("Mozilla/5.0 (compatible; msnbot/2.0b; +http://x)") == 2.0
    assert robots.crawl_delay(["msnbot-media", "msnbot"]) == 2.0
    assert robots.crawl_delay(["bingbot", "msnbot"]) == 1.0
    assert robots.crawl_delay(["newbot", "otherbot"]) is None


def test_crawl_delays_view() -> None:
    robots = RobotsTxt.parse(BING_MSN + b"User-agent: a\nUser-agent: b\nCrawl-delay: 7\n")
    assert robots.crawl_delays == (
        CrawlDelay(("bingbot",), 1.0, 2),
        CrawlDelay(("msnbot",), 2.0, 5),
        CrawlDelay(("a", "b"), 7.0, 11),
    )


# -- the differential over the corpus ------------------------------------

_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
_TOKEN = re.compile(r"[A-Za-z_-]*")
#: How Google's parser spells the three keys this reading needs (D-4).
_USER_AGENT = frozenset(("user-agent", "useragent", "user agent"))
_CRAWL_DELAY = frozenset(("crawl-delay", "crawl_delay", "crawldelay", "crawl delay"))
_SITEMAP = frozenset(("sitemap", "site-map"))
#: Records after which a user-agent line starts a new group (D-18, D-19,
#: and in rfc mode the usage lines of U-1).
_RULES = frozenset(("allow", "disallow"))
_USAGE = frozenset(("content-usage", "content-signal"))


def _records(body: bytes) -> list[tuple[int, str, str]]:
    """(line number, key, value) of each line with a colon; the keys of
    typos this reading does not know are kept as written."""
    if body.startswith(b"\xef\xbb\xbf"):
        body = body[3:]
    text = body.decode("latin-1").replace("\r\n", "\n").replace("\r", "\n")
    records = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.split("\0")[0].split("#")[0].strip()
        key, colon, value = line.partition(":")
        if colon and key.strip():
            records.append((number, key.strip().lower(), value.strip()))
    return records


def _names(value: str, mode: str) -> tuple[bool, set[str]]:
    """Whether a user-agent value is the global one, and the names it binds."""
    if value == "*" or value[:2] in ("* ", "*\t"):
        return True, set()
    token = _TOKEN.match(value)
    names = {token.group().lower()} if token and token.group() else set()
    if mode == "rfc":
        product = re.split(r"[/ \t]", value, maxsplit=1)[0].lower()
        names |= {product} if product else set()
    return False, names


def _delay(value: str) -> float | None:
    return float(value) if _NUMBER.fullmatch(value) and math.isfinite(float(value)) else None


def runs_reading(body: bytes, agent: str, mode: str) -> tuple[float | None, int | None]:
    """D-17 revised, read apart from the parser: runs of user-agent lines,
    the first delay after each, and the crawler's from the runs naming it,
    else from the runs of ``*``."""
    runs: list[dict[str, object]] = []
    run: dict[str, object] | None = None
    for number, key, value in _records(body):
        if key in _USER_AGENT:
            if run is None or run["closed"]:
                run = {"global": False, "names": set(), "delay": None, "closed": False}
                runs.append(run)
            is_global, names = _names(value, mode)
            run["global"] = run["global"] or is_global
            run["names"] |= names  # type: ignore[operator]
        elif key not in _SITEMAP and run is not None:
            run["closed"] = True
            if key in _CRAWL_DELAY and run["delay"] is None and _delay(value) is not None:
                run["delay"] = (_delay(value), number)
    lowered = agent.lower()
    named = [r for r in runs if lowered in r["names"]]  # type: ignore[operator]
    chosen = named or [r for r in runs if r["global"]]
    for r in chosen:
        if r["delay"] is not None:
            return r["delay"]  # type: ignore[return-value]
    return None, None


def groups_reading(body: bytes, agent: str, mode: str) -> float | None:
    """The reading D-17 replaced: the first delay of the merged groups that
    apply (Google's grouping, D-18). For the count of files it changes."""
    groups: list[dict[str, object]] = []
    group: dict[str, object] | None = None
    for _, key, value in _records(body):
        if key in _USER_AGENT:
            if group is None or group["ruled"]:
                group = {"global": False, "names": set(), "delay": None, "ruled": False}
                groups.append(group)
            is_global, names = _names(value, mode)
            group["global"] = group["global"] or is_global
            group["names"] |= names  # type: ignore[operator]
        elif group is not None:
            if key in _RULES or (key in _USAGE and mode == "rfc"):
                group["ruled"] = True
            elif key in _CRAWL_DELAY and group["delay"] is None:
                group["delay"] = _delay(value)
    lowered = agent.lower()
    named = [g for g in groups if lowered in g["names"]]  # type: ignore[operator]
    for g in named or [g for g in groups if g["global"]]:
        if g["delay"] is not None:
            return g["delay"]  # type: ignore[return-value]
    return None


def delay_files() -> list[Path]:
    return [p for p in corpus_files() if re.search(rb"(?im)^\s*crawl.?delay", p.read_bytes())]


def agents_of(body: bytes) -> list[str]:
    """The crawlers to ask a file about: each name its user-agent lines
    write (as a product token), and two it names nowhere."""
    named = re.findall(rb"(?im)^[ \t]*user-?agent[ \t]*:[ \t]*([A-Za-z_-]+)", body)
    return [*sorted({name.decode() for name in named}), "UnnamedBot", "*"]


@requires_corpus
@pytest.mark.parametrize("mode", ["rfc", "google"])
def test_every_corpus_delay_is_the_runs_above_it(mode: str) -> None:
    files = delay_files()
    assert len(files) >= 30, "the corpus has files with a crawl-delay"
    differences = []
    for path in files:
        body = path.read_bytes()
        robots = RobotsTxt.parse(body, mode)
        for agent in agents_of(body):
            rules = robots.for_agent(agent)
            found = (rules.crawl_delay, None if rules.delay is None else rules.delay.line)
            expected = runs_reading(body, agent, mode)
            if found != expected:
                differences.append((path.name, agent, found, expected))
    assert differences == []


@requires_corpus
def test_the_corpus_has_delays_that_the_revision_changes() -> None:
    """The revision matters on real files (the closing note counts them):
    some crawler's delay differs from what the merged group gave."""
    changed = {
        path.name
        for path in delay_files()
        for agent in agents_of(path.read_bytes())
        if runs_reading(path.read_bytes(), agent, "rfc")[0]
        != groups_reading(path.read_bytes(), agent, "rfc")
    }
    assert changed, "no corpus file changes: the two readings would be the same"
