"""The examples of RFC 9309 and of Google's robots.txt documentation
(tests/data/*.json, copied from the team's spec folder).

In these files ``allowed`` is the verdict the document states (RFC 9309 or
Google's documentation) and ``google_library_allowed`` is what Google's C++
parser answers. ``google`` mode must give the library's verdict, ``rfc`` mode
the document's, except on the rows the data marks ``rfc_ambiguous``.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from scrapy_robots_rfc import RobotsTxt

from ..conftest import DATA


def _cases() -> list[Any]:
    cases = []
    for name in ("rfc_cases.json", "google_doc_cases.json"):
        for case in json.loads((DATA / name).read_text(encoding="utf-8")):
            cases.append(pytest.param(case, id=case["name"]))
    return cases


def _body(case: dict[str, Any]) -> bytes:
    if "robotstxt_b64" in case:
        return base64.b64decode(case["robotstxt_b64"])
    return case["robotstxt"].encode("utf-8")


CASES = _cases()


def test_the_data_is_there() -> None:
    assert len(CASES) == 179


@pytest.mark.parametrize("case", CASES)
def test_google_mode(case: dict[str, Any]) -> None:
    robots = RobotsTxt.parse(_body(case), mode="google")
    assert robots.allowed(case["url"], case["user_agent"]) is case["google_library_allowed"]


@pytest.mark.parametrize("case", [c for c in CASES if not c.values[0].get("rfc_ambiguous")])
def test_rfc_mode(case: dict[str, Any]) -> None:
    robots = RobotsTxt.parse(_body(case), mode="rfc")
    assert robots.allowed(case["url"], case["user_agent"]) is case["allowed"]


@pytest.mark.parametrize("case", [c for c in CASES if c.values[0].get("rfc_ambiguous")])
def test_rfc_mode_keeps_reserved_escapes(case: dict[str, Any]) -> None:
    # RFC 9309 Figure 4 row 2 treats "https://foo.bar" and
    # "https%3A%2F%2Ffoo.bar" as one, which RFC 3986 does not: ':' and '/'
    # are reserved. D-2 keeps reserved escapes, so the two stay different.
    robots = RobotsTxt.parse(_body(case), mode="rfc")
    assert robots.allowed(case["url"], case["user_agent"]) is True


def test_modes_really_differ_on_the_flagged_rows() -> None:
    flagged = [c.values[0] for c in CASES if c.values[0].get("google_library_disagrees")]
    assert len(flagged) == 10
    for case in flagged:
        google = RobotsTxt.parse(_body(case), "google").allowed(case["url"], case["user_agent"])
        assert google is case["google_library_allowed"]
