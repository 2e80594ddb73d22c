"""Differential property tests against Google's parser (``jwm.robotstxt``,
a binding of robots.cc), the reference the spec names for testing.

* ``google`` mode gives Google's verdict on every generated file, URL and
  caller's name, whatever the name (D-21: compared verbatim).
* ``rfc`` mode differs from it only where docs/decisions.md says so: D-1 (the
  ``/robots.txt`` exemption), D-2/D-3 (both sides canonicalised) and D-21
  (a caller's name that is not a product token is reduced to its product
  name; it also binds a line's whole product name; ``*`` and ``""`` select
  the global groups only) and U-1 (a usage line ends a user-agent list, as
  attach-05's ``rule =/ content-usage`` says). So its verdict equals Google's on
  the same file with every usage line made an empty ``Disallow:`` (D-19),
  every allow/disallow value canonicalised, every
  user-agent line replaced by a name that binds Google's caller exactly
  when the line binds ours, and the URL's match string canonicalised.
"""

from __future__ import annotations

import os
import re

from hypothesis import HealthCheck, example, given, settings
from jwm.robotstxt.googlebot import RobotsMatcher

from scrapy_robots_rfc import RobotsTxt, product_token
from scrapy_robots_rfc.robotstxt._canonical import canonical_match_string, escape_pattern

from ..conftest import verdict_both_ways
from ..robots_strategies import (
    ODD_CALLERS,
    Line,
    RobotsFile,
    any_caller_cases,
    cases,
    usage_as_rules,
)

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
        # D-2, D-3: Google's semantics on canonical patterns and URL; U-1:
        # usage lines group as rules.
        body_for_google = usage_as_rules(robots).render(_canonical_value)
        expected = google(body_for_google, agent, "http://example.com" + path)
    assert verdict_both_ways(RobotsTxt.parse(body, "rfc"), url, agent) == expected


# -- any caller's name (D-21) -------------------------------------------------

#: ROBOTS_DIFFERENTIAL_EXAMPLES raises the count for a longer run by hand.
ANY_NAME = settings(
    max_examples=int(os.environ.get("ROBOTS_DIFFERENTIAL_EXAMPLES", "600")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@ANY_NAME
@given(any_caller_cases())
def test_google_mode_equals_google_for_any_name(case: tuple[RobotsFile, str, str]) -> None:
    robots, agent, url = case
    body = robots.render()
    parsed = RobotsTxt.parse(body, "google")
    assert verdict_both_ways(parsed, url, agent) == google(body, agent, url)


def test_google_mode_odd_names_on_every_agent_line() -> None:
    """Each odd name against a file naming every odd name: google mode and
    Google's parser pick the same group."""
    lines = [f"User-agent: {name}\nDisallow: /{i}\n\n" for i, name in enumerate(ODD_CALLERS)]
    body = "".join(lines).encode()
    parsed = RobotsTxt.parse(body, "google")
    for name in ODD_CALLERS:
        for i in range(len(ODD_CALLERS)):
            url = f"http://example.com/{i}"
            assert parsed.allowed(url, name) == google(body, name, url), (name, i)


_WS = " \t\n\v\f\r"


def _binds_in_rfc_mode(value: str, name: str) -> bool:
    """D-21 as docs/decisions.md words it, for a line that is not global: a name
    that is not a product token ([A-Za-z_-]+) is first reduced to the
    crawler's product name, exactly as a User-Agent header is
    (:func:`product_token`, tested on its own table); then the line's token
    (its leading [A-Za-z_-] run, D-7) or its whole product name (up to the
    first '/', space or tab) equals the name, in any ASCII case; an empty
    one names nobody; "*" and "" name no crawler."""
    lower = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
    if name not in ("", "*") and not re.fullmatch(r"[A-Za-z_-]+", name):
        name = product_token(name)
    wanted = name.translate(lower)
    if wanted in ("", "*"):
        return False
    token = re.match(r"[A-Za-z_-]*", value).group()  # type: ignore[union-attr]
    product = re.split(r"[/ \t]", value, maxsplit=1)[0]
    return wanted in {n.translate(lower) for n in (token, product) if n}


def _is_global(value: str) -> bool:
    return value[:1] == "*" and (len(value) == 1 or value[1] in _WS)


@ANY_NAME
@given(any_caller_cases())
def test_rfc_mode_differs_only_as_decided_for_any_name(
    case: tuple[RobotsFile, str, str],
) -> None:
    robots, agent, url = case
    body = robots.render()
    path = canonical_match_string(url, "rfc")

    def value(line: Line) -> str:
        if line.kind != "user-agent":
            return _canonical_value(line)
        seen = line.value.strip(_WS)
        if _is_global(seen):
            return line.value
        return "MatchedBot" if _binds_in_rfc_mode(seen, agent) else "OtherBot"

    if path == "/robots.txt":
        expected = True  # D-1
    else:
        expected = google(
            usage_as_rules(robots).render(value), "MatchedBot", "http://example.com" + path
        )
    assert verdict_both_ways(RobotsTxt.parse(body, "rfc"), url, agent) == expected
