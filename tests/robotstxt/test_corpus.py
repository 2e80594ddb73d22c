"""A sweep over real robots.txt files, read in place from the team's shared
corpus (never copied into the project): nothing raises, and ``google`` mode
gives Google's verdict on URLs made from each file's own rules."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from jwm.robotstxt.googlebot import RobotsMatcher

from scrapy_robots_rfc import RobotsTxt

from ..conftest import corpus_files, requires_corpus, verdict_both_ways

_RULE = re.compile(rb"(?im)^[ \t]*(?:dis)?allow[ \t]*:[ \t]*([^#\r\n]*)")
_AGENT = re.compile(rb"(?im)^[ \t]*user-agent[ \t]*:[ \t]*([A-Za-z_-]+)")
_FILLS = ["", "x", "a/b", "%41", "é", "index.html"]
_TAILS = ["", "/", "?q=1", ".html", "/page.php", "$", "#f"]


def _urls(body: bytes, rng: random.Random) -> list[str]:
    rules = _RULE.findall(body)
    urls = ["http://example.com/", "http://example.com/robots.txt", "http://example.com/a?b=c"]
    for value in rng.sample(rules, min(len(rules), 60)):
        path = value.strip().decode("utf-8", "replace")
        path = path[:-1] if path.endswith("$") else path
        path = path.replace("*", rng.choice(_FILLS))
        if not path.startswith("/"):
            path = "/" + path
        urls.append("http://example.com" + path + rng.choice(_TAILS))
    return urls


def _agents(body: bytes) -> list[str]:
    named = {m.decode() for m in _AGENT.findall(body)}
    return [*sorted(named)[:3], "Googlebot", "ExampleBot"]


def test_corpus_is_read_in_place() -> None:
    files = corpus_files()
    if not files:
        pytest.skip("the shared corpus is absent")
    assert len(files) >= 300
    assert not any(Path(__file__).parents[1].rglob("0001.txt")), "corpus files must not be copied"


@requires_corpus
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_corpus_file(path: Path) -> None:
    body = path.read_bytes()
    rng = random.Random(path.name)
    rfc = RobotsTxt.parse(body, "rfc")
    google = RobotsTxt.parse(body, "google")
    matcher = RobotsMatcher()
    disallowed = 0
    for agent in _agents(body):
        for url in _urls(body, rng):
            expected = bool(matcher.OneAgentAllowedByRobots(body, agent, url))
            assert verdict_both_ways(google, url, agent) is expected, (agent, url)
            disallowed += not expected
            assert rfc.allowed(url, agent) in (True, False)
            assert rfc.explain(url, agent).allowed is rfc.allowed(url, agent)
        rfc.crawl_delay(agent)
    assert all(isinstance(s, str) for s in rfc.sitemaps)
    if _RULE.search(body) is None:
        assert disallowed == 0
