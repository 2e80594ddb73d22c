"""Other projects' own tests, translated into data and run against this
package (docs/conformance.rst).

Each suite is one JSON file beside this module: the repository and the
commit its cases were taken from, the cases, and the checks that test an
API of that project alone (``not_applicable``, each with its reason).

A case is one check of the suite as it runs: one assertion, or one run of
it for each row of a table or each turn of a loop. It names the test and
the line it comes from, the input (the robots.txt body, the URL, the
crawler's name), the suite's expected answer (``expected``) and, for each
mode (``rfc``, ``google``) in which this package answers otherwise by a
documented decision, that decision and our answer::

    "differs": {"google": {"decision": "D-2", "ours": false}}

A case that awaits the fix of an open issue says so in ``pending``
(``{"issue": 34, "modes": ["rfc"], "why": "..."}``): it runs as a strict
expected failure, so that the fix turns it into a failure until the mark
is removed.

:func:`answer` is how a check is asked of this package, through its public
API only; :func:`outcome` compares it with the case. The middleware suite is
run as real crawls by ``tests/conformance/test_conformance.py``; its cases use the same
outcomes. :func:`figures` adds the outcomes up for the docs' table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc.pagerules import read_page_rules
from scrapy_robots_rfc.policy import classify, origin
from scrapy_robots_rfc.robotstxt import canonical_match_string, name_problem

HERE = Path(__file__).resolve().parent
MODES = ("rfc", "google")

#: The suites in the order of the docs' table.
SUITES = (
    "protego",
    "scrapy_interface",
    "scrapy_middleware",
    "google",
    "crawler_commons",
    "texting_robots",
    "nutch",
    "stormcrawler",
    "norconex",
)

#: What each outcome of a case in one mode means.
AGREES = "agrees"  # our answer is the suite's
DECISION = "decision"  # it differs, as the case says, by a documented decision
PENDING = "pending"  # it differs until an open issue is fixed
WRONG = "wrong"  # it differs and nothing explains it: a bug, or stale data


@dataclass(frozen=True)
class Suite:
    """One suite's JSON file."""

    name: str
    data: Mapping[str, Any]
    cases: tuple[Mapping[str, Any], ...] = field(default=())

    @property
    def title(self) -> str:
        return str(self.data["title"])

    def body(self, case: Mapping[str, Any]) -> bytes:
        """The robots.txt body of ``case``."""
        return self.named_body(case["body"])

    def named_body(self, name: str) -> bytes:
        """A text of the suite's ``bodies`` as UTF-8, or, when it is one of
        ``latin1_bodies`` (bodies that are not UTF-8), as the bytes its
        characters stand for."""
        text = self.data["bodies"][name]
        if name in self.data.get("latin1_bodies", ()):
            return bytes(text, "latin-1")
        return bytes(text, "utf-8")


def load(name: str) -> Suite:
    data = json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))
    return Suite(name, data, tuple(data["cases"]))


@lru_cache(maxsize=256)
def _parsed(body: bytes, mode: str) -> RobotsTxt:
    return RobotsTxt.parse(body, mode)


def _robot_parser(body: bytes, mode: str) -> Any:
    # Scrapy-facing: imported only by the suites that need it.
    from scrapy.utils.misc import build_from_crawler
    from scrapy.utils.test import get_crawler

    from scrapy_robots_rfc import RobotParser

    crawler = get_crawler(settings_dict={"ROBOTSTXT_RFC_MODE": mode})
    return build_from_crawler(RobotParser, crawler, body)


def _agent(case: Mapping[str, Any]) -> str | tuple[str, ...]:
    agent = case["agent"]
    return tuple(agent) if isinstance(agent, list) else str(agent)


def _line_counts(robots: RobotsTxt) -> dict[str, int]:
    """What Google's test handler counts, from the public view of a parse:
    lines read as user-agent, allow, disallow or sitemap (a rule before any
    user-agent line included), lines with an unknown key, and the last line
    of either kind."""
    rules = [rule for group in robots.groups for rule in group.rules if rule.index_of is None]
    outside = [note for note in robots.notes if note.code == "before-user-agent"]
    unknown = [note for note in robots.notes if note.code == "unknown-key"]
    agents = sum(len(group.agents) for group in robots.groups)
    lines = [rule.line for rule in rules] + [note.line for note in outside + unknown]
    return {
        "recognised_lines": agents + len(rules) + len(outside) + len(robots.sitemaps),
        "unknown_keys": len(unknown),
        "last_line": max(lines, default=0),
    }


def _status(status: int) -> dict[str, bool]:
    """What a robots.txt fetch that ended with ``status`` means before any
    rule: may the origin be crawled, and is robots.txt asked again soon
    (HTTP-1 to HTTP-8). A 3xx is a fetch whose redirects were given up on
    (the crawler-commons suite's ``failedFetch(3xx)``): allow all (D-14)."""
    kind = classify(status)
    return {
        "allowed": kind in ("allow_all", "redirect", "parse"),
        "retried": kind == "unreachable",
    }


def answer(suite: Suite, case: Mapping[str, Any], mode: str) -> Any:
    """Our answer to ``case`` in ``mode``, through the public API."""
    check = case["check"]
    if check == "match_string":
        return canonical_match_string(case["url"], mode)
    if check == "valid_name":
        return name_problem(case["agent"], mode) is None
    if check == "robots_url":
        found = origin(case["url"])
        return None if found is None else found.robots_url
    if check in ("status_allowed", "status_retried"):
        return _status(case["status"])[check.removeprefix("status_")]
    if check == "page":
        # Every flag named is set (Norconex checks two at once).
        rules = read_page_rules(
            [value.encode("latin-1") for value in case.get("headers", [])],
            None if case.get("html") is None else case["html"].encode("utf-8"),
            case["names"],
        )
        return all(getattr(rules, flag) for flag in case["flags"])
    if check == "escaped_pattern":
        # How a pattern is kept once parsed: the one rule of a one-line group.
        (group,) = _parsed(b"user-agent: *\ndisallow: " + case["pattern"].encode(), mode).groups
        return group.rules[0].pattern
    body = suite.body(case)
    if check.startswith("robotparser_"):
        parser = _robot_parser(body, mode)
        if check == "robotparser_allowed":
            return parser.allowed(case["url"], case["agent"])
        return parser.crawl_delay(case["agent"])
    robots = _parsed(body, mode)
    if check == "allowed":
        return robots.allowed(case["url"], _agent(case))
    if check == "crawl_delay":
        return robots.crawl_delay(_agent(case))
    if check == "crawl_delay_over":
        delay = robots.crawl_delay(_agent(case))
        return delay is not None and delay > case["bound"]
    if check == "sitemaps":
        return list(robots.sitemaps)
    if check == "sitemap_count":
        return len(robots.sitemaps)
    if check == "sitemap_listed":
        return case["sitemap"] in robots.sitemaps
    if check in ("sitemap_at", "sitemap_case_kept"):
        if len(robots.sitemaps) <= case["index"]:
            return None  # no such sitemap
        sitemap = robots.sitemaps[case["index"]]
        return sitemap if check == "sitemap_at" else sitemap != sitemap.lower()
    if check == "matched_wildcard":
        return "*" in robots.for_agent(_agent(case)).agents
    if check == "rule_count":
        return len(robots.for_agent(_agent(case)).rules)
    if check in ("recognised_lines", "unknown_keys", "last_line"):
        return _line_counts(robots)[check]
    raise ValueError(f"unknown check {check!r}")


def pending_in(case: Mapping[str, Any], mode: str) -> bool:
    pending = case.get("pending")
    return pending is not None and mode in pending["modes"]


def outcome(case: Mapping[str, Any], mode: str, ours: Any) -> str:
    """How ``ours`` compares with ``case`` in ``mode``."""
    expected = case["expected"]
    listed = case.get("differs", {}).get(mode)
    if pending_in(case, mode):
        return PENDING if ours != expected else WRONG
    if listed is None:
        return AGREES if ours == expected else WRONG
    if ours != expected and ours == listed["ours"]:
        return DECISION
    return WRONG


def problem(case: Mapping[str, Any], mode: str, ours: Any) -> str | None:
    """Why ``outcome`` is :data:`WRONG`, for the failure message."""
    expected = case["expected"]
    listed = case.get("differs", {}).get(mode)
    where = f"{case['test']} (line {case['line']}), {mode} mode"
    if pending_in(case, mode):
        if ours == expected:
            issue = case["pending"]["issue"]
            return f"{where}: agrees now; remove its 'pending' mark (issue {issue})"
        return None
    if listed is None:
        if ours != expected:
            return f"{where}: the suite expects {expected!r}, we answer {ours!r}: no decision"
        return None
    decision = listed["decision"]
    if ours == expected:
        return f"{where}: listed as a {decision} difference but agrees; remove the listing"
    if ours != listed["ours"]:
        return f"{where}: listed as {decision} answering {listed['ours']!r}, but we answer {ours!r}"
    return None


def decisions_cited(suite: Suite) -> Iterator[str]:
    for case in suite.cases:
        for listed in case.get("differs", {}).values():
            yield listed["decision"]


#: (suite, case index, mode) -> outcome, filled as tests/conformance/test_conformance.py
#: runs the cases; :func:`write_figures` reads it at the end of the run.
OUTCOMES: dict[tuple[str, int, str], str] = {}

#: Protego's sweep over its real robots.txt files (its
#: ``tests/test_on_fetched_robotstxt.py``: parsing never raises), when the
#: files are there (``PROTEGO_TEST_DATA``): how many were parsed, in each
#: mode, and which raised. Empty when the sweep did not run.
SWEEP: dict[str, Any] = {}


@dataclass
class Tally:
    """One suite's figures in one mode."""

    agrees: int = 0
    decisions: dict[str, int] = field(default_factory=dict)
    pending: int = 0
    wrong: list[str] = field(default_factory=list)

    def add(self, kind: str, case: Mapping[str, Any], mode: str) -> None:
        if kind == AGREES:
            self.agrees += 1
        elif kind == DECISION:
            decision = case["differs"][mode]["decision"]
            self.decisions[decision] = self.decisions.get(decision, 0) + 1
        elif kind == PENDING:
            self.pending += 1
        else:
            self.wrong.append(f"{case['test']} (line {case['line']})")


def figures(
    suites: Sequence[Suite], outcomes: Mapping[tuple[str, int, str], str]
) -> dict[str, Any]:
    """The docs' table: for each suite, where and from which commit its
    cases come, how many checks it has and how many are not applicable (by
    API, with the reason), and per mode how many agree, how many differ by
    which decision, how many await an open issue, and which differ for no
    documented reason. ``outcomes`` maps (suite, case index, mode) to an
    outcome; every case must be there (:func:`missing`)."""
    rows = []
    for suite in suites:
        tallies = {mode: Tally() for mode in MODES}
        for index, case in enumerate(suite.cases):
            for mode in MODES:
                tallies[mode].add(outcomes[(suite.name, index, mode)], case, mode)
        not_applicable: dict[str, dict[str, Any]] = {}
        for item in suite.data["not_applicable"]:
            entry = not_applicable.setdefault(item["api"], {"checks": 0, "reason": item["reason"]})
            entry["checks"] += 1
        issues = sorted({case["pending"]["issue"] for case in suite.cases if "pending" in case})
        rows.append(
            {
                "suite": suite.name,
                "title": suite.title,
                "repository": suite.data["repository"],
                "commit": suite.data["commit"],
                "version": suite.data["version"],
                "files": suite.data["files"],
                "checks": len(suite.cases),
                "not_applicable": not_applicable,
                "pending_issues": issues,
                "modes": {mode: vars(tally) for mode, tally in tallies.items()},
            }
        )
    return {"suites": rows, "protego_sweep": dict(SWEEP) or None}


def missing(suites: Sequence[Suite], outcomes: Mapping[tuple[str, int, str], str]) -> int:
    """How many (case, mode) pairs have no outcome: the run was partial."""
    return sum(
        (suite.name, index, mode) not in outcomes
        for suite in suites
        for index in range(len(suite.cases))
        for mode in MODES
    )


def shared_outcomes() -> str:
    """This process's :data:`OUTCOMES` and :data:`SWEEP` as JSON: what a
    pytest-xdist worker hands to the controller (tests/conftest.py)."""
    outcomes = [[*key, value] for key, value in OUTCOMES.items()]
    return json.dumps({"outcomes": outcomes, "sweep": SWEEP})


def add_shared_outcomes(share: str) -> None:
    """Add what :func:`shared_outcomes` gave in a worker to this process's."""
    data = json.loads(share)
    for suite, index, mode, value in data["outcomes"]:
        OUTCOMES[(suite, index, mode)] = value
    SWEEP.update(data["sweep"])


def write_figures(path: Path) -> str | None:
    """Write :func:`figures` of this run's :data:`OUTCOMES` to ``path``
    (JSON), or say why not: a run that did not run every case."""
    suites = [load(name) for name in SUITES]
    absent = missing(suites, OUTCOMES)
    if absent:
        return f"{absent} conformance checks did not run: figures not written to {path}"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(figures(suites, OUTCOMES), indent=1, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
    return None
