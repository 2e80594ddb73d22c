"""Other projects' own tests, run against this package (tests/conformance,
docs/conformance.rst).

Each case runs in both modes. It passes when our answer is the suite's, or
when it differs exactly as the case's listing says, by a documented
decision. It fails when it differs with no decision, and when a listed
difference has gone (so the listings cannot go stale). A case that awaits
an open issue runs as a strict expected failure.

With ``--conformance-figures=PATH`` the outcomes of the whole run are
written to PATH for the docs (``make docs``), once every case has run.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .conformance import (
    MODES,
    SUITES,
    WRONG,
    answer,
    decisions_cited,
    load,
    outcome,
    pending_in,
    problem,
)

ROOT = Path(__file__).resolve().parents[1]
DECISIONS = ROOT / "docs" / "decisions.md"

#: The suites whose cases ask the parser or the page-level reader; the
#: middleware suite runs as crawls (below).
PURE = tuple(name for name in SUITES if name != "scrapy_middleware")
LOADED = {name: load(name) for name in SUITES}

#: (suite, case index, mode) -> outcome, filled as the cases run.
OUTCOMES: dict[tuple[str, int, str], str] = {}


def _params() -> list[Any]:
    params = []
    for name in PURE:
        suite = LOADED[name]
        for index, case in enumerate(suite.cases):
            for mode in MODES:
                marks = []
                if pending_in(case, mode):
                    why = case["pending"]
                    marks.append(
                        pytest.mark.xfail(strict=True, reason=f"issue {why['issue']}: {why['why']}")
                    )
                params.append(
                    pytest.param(name, index, mode, marks=marks, id=f"{name}-{index}-{mode}")
                )
    return params


@pytest.mark.parametrize(("name", "index", "mode"), _params())
def test_case(name: str, index: int, mode: str) -> None:
    suite = LOADED[name]
    case = suite.cases[index]
    ours = answer(suite, case, mode)
    OUTCOMES[(name, index, mode)] = outcome(case, mode, ours)
    if pending_in(case, mode):
        # Strict xfail: this fails now, and passing turns into a failure.
        assert ours == case["expected"], f"issue {case['pending']['issue']} is open"
        return
    assert problem(case, mode, ours) is None, problem(case, mode, ours)


@pytest.mark.parametrize("name", SUITES)
def test_every_check_found_is_a_case_or_not_applicable(name: str) -> None:
    """The converter found ``checks_found`` checks: none was dropped."""
    suite = LOADED[name]
    found = suite.data["checks_found"]
    assert len(suite.cases) + len(suite.data["not_applicable"]) == found
    for item in suite.data["not_applicable"]:
        assert item["reason"], item
        assert item["api"], item


@pytest.mark.parametrize("name", SUITES)
def test_every_decision_cited_has_a_section(name: str) -> None:
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', DECISIONS.read_text(encoding="utf-8")))
    cited = set(decisions_cited(LOADED[name]))
    assert {decision.lower() for decision in cited} <= anchors, cited


def test_an_unexplained_difference_fails() -> None:
    case = {
        "test": "t",
        "line": 1,
        "expected": True,
        "differs": {"google": {"decision": "D-2", "ours": False}},
    }
    assert outcome(case, "rfc", False) == WRONG
    assert problem(case, "rfc", False) is not None
    # A listed difference that has gone fails too.
    assert outcome(case, "google", True) == WRONG
    assert "remove the listing" in str(problem(case, "google", True))
