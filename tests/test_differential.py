"""Differential property tests against Google's parser (``jwm.robotstxt``,
a binding of robots.cc), the reference the spec names for testing.

* ``google`` mode gives Google's verdict on every generated file and URL.
* ``rfc`` mode differs from it only where DECISIONS.md says so: D-1 (the
  ``/robots.txt`` exemption) and D-2/D-3 (both sides canonicalised). So its
  verdict equals Google's on the same file with every allow/disallow value
  canonicalised and the URL's match string canonicalised.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from jwm.robotstxt.googlebot import RobotsMatcher

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc.matcher import canonical_match_string, escape_pattern

from .conftest import verdict_both_ways
from .robots_strategies import Line, RobotsFile, cases

SETTINGS = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def google(body: bytes, agent: str, url: str) -> bool:
    return bool(RobotsMatcher().OneAgentAllowedByRobots(body, agent, url))


@SETTINGS
@given(cases())
@example(
    (
        RobotsFile(
            b"",
            (
                Line("user-agent", key="user-agent", sep=":", value="*"),
                Line("disallow", key="disallow", sep=":", value="/"),
            ),
        ),
        "FooBot",
        "http://example.com/robots.txt",
    )
)
def test_google_mode_equals_google(case: tuple[RobotsFile, str, str]) -> None:
    robots, agent, url = case
    body = robots.render()
    parsed = RobotsTxt.parse(body, "google")
    assert verdict_both_ways(parsed, url, agent) == google(body, agent, url)


@SETTINGS
@given(cases())
def test_google_mode_reports_google_line(case: tuple[RobotsFile, str, str]) -> None:
    robots, agent, url = case
    body = robots.render()
    matcher = RobotsMatcher()
    verdict = matcher.OneAgentAllowedByRobots(body, agent, url)
    explained = RobotsTxt.parse(body, "google").explain(url, agent)
    assert explained.allowed == verdict
    if explained.rule is not None:
        assert explained.rule.line == matcher.matching_line()


def _canonical_value(line: Line) -> str:
    if line.kind in ("allow", "disallow"):
        # The value as the parser sees it: without surrounding whitespace.
        value = line.value.encode("utf-8", "surrogateescape").strip(b" \t\n\v\f\r")
        return escape_pattern(value, "rfc")
    return line.value


@SETTINGS
@given(cases())
def test_rfc_mode_differs_only_as_decided(case: tuple[RobotsFile, str, str]) -> None:
    robots, agent, url = case
    body = robots.render()
    path = canonical_match_string(url, "rfc")
    if path == "/robots.txt":
        expected = True  # D-1
    else:
        # D-2, D-3: Google's semantics on canonical patterns and URL.
        expected = google(robots.render(_canonical_value), agent, "http://example.com" + path)
    assert verdict_both_ways(RobotsTxt.parse(body, "rfc"), url, agent) == expected
