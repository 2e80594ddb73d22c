from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from hypothesis import settings

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc.robotstxt._canonical import canonical_match_string

from . import alone
from .crawling import ACTIVATIONS
from .mockserver import MockServer

# CI explores the same examples every run, so that a run is reproducible;
# on a developer's machine hypothesis keeps exploring new ones.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

#: The team's shared folder (spec, corpus), beside the checkout. Tests that
#: read from it skip when it is absent, e.g. for a user of the sdist.
SHARED = Path(os.environ.get("ROBOTS_SHARED", Path(__file__).resolve().parents[2] / "shared"))
CORPUS = SHARED / "corpus" / "robots"
DATA = Path(__file__).parent / "data"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--conformance-figures",
        metavar="PATH",
        help="write the figures of the other projects' test suites "
        "(tests/conformance/test_conformance.py) to PATH as JSON for the docs (make docs); "
        "every conformance case must run",
    )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = session.config.getoption("--conformance-figures")
    if not path:
        return
    from .conformance import shared_outcomes, write_figures

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        # A pytest-xdist worker ran a share of the cases: it hands its
        # outcomes to the controller (pytest_testnodedown), which writes.
        workeroutput["conformance"] = shared_outcomes()
        return
    problem = write_figures(Path(path))
    if problem is not None:
        session.config.get_terminal_writer().line(problem, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """pytest-xdist's controller: a worker's conformance outcomes join this
    process's, so that ``--conformance-figures`` counts every case however
    many workers ran them (``-n``)."""
    share = getattr(node, "workeroutput", {}).get("conformance")
    if share is not None:
        from .conformance import add_shared_outcomes

        add_shared_outcomes(share)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    """A test marked ``alone`` runs while no other test runs, in whichever
    pytest-xdist worker (tests/alone.py)."""
    with alone.turn(item):
        return (yield)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that uses the local server (the ``server`` fixture) is
    marked ``e2e``, so that ``-m "not e2e"`` runs no crawl: one that is not
    stops the run, named (checked before ``-m`` selects)."""
    unmarked = [
        item.nodeid
        for item in items
        if "server" in getattr(item, "fixturenames", ()) and item.get_closest_marker("e2e") is None
    ]
    if unmarked:
        raise pytest.UsageError(
            "these tests use the local server (the server fixture) but "
            "are not marked e2e: mark each with @pytest.mark.e2e, or its module with "
            "pytestmark = pytest.mark.e2e if every test of it crawls:\n  " + "\n  ".join(unmarked)
        )


def corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if p.suffix == ".txt")


requires_corpus = pytest.mark.skipif(
    not corpus_files(),
    reason=f"the real-world robots.txt corpus ({CORPUS}) is not here; it is read in place "
    "and never shipped with the project",
)


def verdict_both_ways(robots: RobotsTxt, url: str, agent: str) -> bool:
    """``robots.allowed(url, agent)``, asserting that the two ways of
    matching find the same deciding rule: scanning (a rule set's first
    verdicts) and the compiled prefix tree (after that)."""
    rules = robots.for_agent(agent)
    path = canonical_match_string(url, robots.mode)
    scanned = rules.scan(path)
    rules.compile()
    assert scanned == rules.decide(path), (url, agent)
    return rules.allowed(url)


@pytest_twisted.async_yield_fixture
async def server() -> Any:
    """The local HTTP server of the crawl tests (tests/mockserver.py)."""
    s = MockServer()
    yield s
    await s.stop()


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port of 127.0.0.1 where nothing listens, for the test: a socket
    holds it bound without listening, so a connection to it is refused,
    and no other process (another pytest-xdist worker, a server started
    meanwhile) can listen there until the test ends."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        yield port


@pytest.fixture(params=sorted(ACTIVATIONS))
def activation(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Settings that turn the middleware on: with the add-on, and by hand.
    Every crawl test runs under both."""
    return ACTIVATIONS[request.param]
