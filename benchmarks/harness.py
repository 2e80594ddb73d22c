"""What the benchmark scripts share, so that each ``bench_*.py`` keeps only
its own workload: the command line and the run's header, the corpus, URLs
built from a file's own rules, timing and memory readings, tables, targets,
the JSON file, and a ``redis-server`` (``tests/redis_server.py``'s, the one
the tests start).

Scripts import it as a sibling module (``python benchmarks/bench_x.py`` puts
this folder on ``sys.path``); importing it puts the repository root first on
``sys.path``, so that the scripts measure the working tree whether or not
the package is installed, and can import ``tests.redis_server``.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Literal, TypeVar

# The working tree is measured, whether or not the package is installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scrapy_robots_rfc import AgentRules, RobotsTxt, __version__, build, product_token
from scrapy_robots_rfc.robotstxt._names import ascii_lower

#: The repository root, whose package is measured.
ROOT = Path(sys.path[0])

#: The host of every URL built from a file's rules.
HOST = "http://example.com"
#: The value of an allow or disallow line.
RULE_VALUE = re.compile(r"^[ \t]*(?:dis)?allow[ \t]*:[ \t]*([^\s#]+)", re.I | re.M)
#: What Scrapy's default ``USER_AGENT`` looks like (the version is not read
#: from the installed Scrapy, so that runs compare).
SCRAPY_USER_AGENT = "Scrapy/2.19 (+https://scrapy.org)"
#: The middleware's name for that crawler: its product token, lower-cased.
TOKEN = ascii_lower(product_token(SCRAPY_USER_AGENT))
#: Every script's random numbers start from it.
SEED = 9309

T = TypeVar("T")


# --- the command line and the run -------------------------------------------


def arguments(doc: str | None, quick: str) -> argparse.ArgumentParser:
    """The options every script has: ``--quick`` (``quick`` is its help) and
    ``--json PATH``; the description is the first paragraph of ``doc``."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=quick)
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results as JSON")
    return parser


def title(what: str, quick: bool) -> None:
    """The first line of a run: ``scrapy_robots_rfc <what>``."""
    print(f"scrapy_robots_rfc {what}" + (" (--quick)" if quick else ""))


def version(dist: str) -> str:
    """The installed version of ``dist``, or ``?``."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def python_text(machine: bool = False) -> str:
    """``Python 3.x.y``, with ``machine``: ``on <arch>, <n> CPUs`` too."""
    text = f"Python {platform.python_version()}"
    if machine:
        text += f" on {platform.machine()}, {os.cpu_count()} CPUs"
    return text


def package_text() -> str:
    """``scrapy_robots_rfc <version>, <build> build, from <where>``: the
    build is ``scrapy_robots_rfc.build()``, ``pure`` or ``compiled``."""
    return f"scrapy_robots_rfc {__version__}, {build()} build, from {ROOT}"


def git_state() -> str:
    """The commit of the working tree, and whether the package has uncommitted changes."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "scrapy_robots_rfc")
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    return f"commit {head}" + (", package has uncommitted changes" if dirty else "")


def finish(path: Path | None, results: dict[str, Any], started: float, note: str = "") -> None:
    """The last lines of a run: its total time (``note`` after it), and with
    ``path`` the results, ``elapsed_s`` added, written there as JSON."""
    elapsed = time.perf_counter() - started
    print(f"\nTotal time {elapsed:.1f} s{note}")
    if path is not None:
        results["elapsed_s"] = elapsed
        text = json.dumps(results, indent=2, ensure_ascii=False)
        path.write_text(text + "\n", encoding="utf-8")
        print(f"Results written to {path}")


# --- the corpus ---------------------------------------------------------------


@dataclass(frozen=True)
class RobotsFile:
    name: str
    body: bytes


def shared_dir() -> Path:
    """The team's shared folder: ``$ROBOTS_SHARED``, else ``../shared``."""
    env = os.environ.get("ROBOTS_SHARED")
    if env:
        return Path(env)
    return ROOT.parent / "shared"


def corpus_dir() -> Path:
    """``<shared>/corpus/robots``: the real robots.txt files (``*.txt``,
    read in place; ``SOURCES.tsv`` says where each came from)."""
    return shared_dir() / "corpus" / "robots"


def load_corpus(limit: int | None = None) -> list[RobotsFile]:
    """The corpus files in name order (the first ``limit``), or none
    when the folder is absent."""
    folder = corpus_dir()
    paths = sorted(folder.glob("*.txt"))[:limit] if folder.is_dir() else []
    return [RobotsFile(path.name, path.read_bytes()) for path in paths]


def protego_text(body: bytes) -> str:
    """What Scrapy's ProtegoRobotParser gives ``Protego.parse``."""
    return body.decode("utf-8-sig", errors="ignore")


def middleware_kept(body: bytes) -> tuple[dict[str, AgentRules], tuple[str, ...]]:
    """What the middleware keeps of a robots.txt body for Scrapy's default
    crawler: the rules of its group only (``rfc`` mode), and the file's
    ``Sitemap`` URLs; not the file."""
    robots = RobotsTxt.parse(body, "rfc")
    return {TOKEN: robots.for_agent(TOKEN)}, robots.sitemaps


def rule_urls(text: str, rng: random.Random, most: int | None = None) -> list[str]:
    """URLs that exercise a file's own allow/disallow values (at most
    ``most`` of them, drawn at random): each value with ``*`` made literal
    and ``$`` dropped, a few URLs around it, plus two generic ones; no
    duplicates."""
    values = list(dict.fromkeys(RULE_VALUE.findall(text)))
    if most is not None and len(values) > most:
        values = rng.sample(values, most)
    paths: list[str] = []
    for value in values:
        path = value.replace("*", "x")
        if path.endswith("$"):
            path = path[:-1]
        if not path.startswith("/"):
            path = "/" + path
        paths += [path, path.rstrip("/") + "/page.html", path + "?q=1"]
    paths += [f"/products/{rng.randint(1, 99_999)}", "/"]
    return [HOST + path for path in dict.fromkeys(paths)]


#: The value of a user-agent line.
AGENT_VALUE = re.compile(r"^[ \t]*user-?agent[ \t]*:[ \t]*([^\s#]+)", re.I | re.M)
#: The agents every file is also asked about: Google's crawler, Scrapy's
#: default and a crawler no file names.
COMMON_AGENTS = ("Googlebot", "Scrapy", "UnheardOfBot")


def _variants(value: str) -> list[str]:
    """The paths a crawler meets around one allow/disallow value."""
    anchored = value.endswith("$")
    core = value[:-1] if anchored else value
    if not core.startswith(("/", "*")):
        core = "/" + core
    paths = [core.replace("*", fill) for fill in ("", "x", "abc/def")]
    literal = paths[0] or "/"
    paths += [
        literal + "suffix",
        literal + "?q=1",
        literal + "?",
        literal.upper(),
        literal + "%7e",  # a lower-case hex escape
        literal + "/caf%C3%A9",  # UTF-8 escaped non-ASCII
        literal + "/café",
    ]
    if anchored:
        paths += [literal[:-1], literal + "x"]  # the neighbours of '$'
    letter = next((i for i, c in enumerate(literal) if c.isalpha()), None)
    if letter is not None:  # one letter %-escaped
        paths.append(f"{literal[:letter]}%{ord(literal[letter]):02X}{literal[letter + 1 :]}")
    if "%" in literal:  # escapes decoded
        paths.append(re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), literal))
    return paths


def crawler_workload(text: str, rng: random.Random, urls: int = 30) -> list[tuple[str, str]]:
    """A crawler's (URL, agent) questions to one robots.txt (issue 11):
    about ``urls`` URLs built from the file's own rules (:func:`_variants`
    of each value, drawn at random) plus ``/``, ``/index.html`` and
    ``/robots.txt``, each asked for 3 agents drawn from the file's own
    product tokens (at most 6) and :data:`COMMON_AGENTS`, so that each
    (file, agent) gets 10 to 30 verdicts."""
    values = list(dict.fromkeys(RULE_VALUE.findall(text)))
    paths = list(dict.fromkeys(p for value in values for p in _variants(value)))
    if len(paths) > urls - 3:
        paths = rng.sample(paths, urls - 3)
    paths += ["/", "/index.html", "/robots.txt"]
    own = [a for a in dict.fromkeys(AGENT_VALUE.findall(text)) if a != "*"]
    pool = [*rng.sample(own, min(6, len(own))), *COMMON_AGENTS]
    return [(HOST + path, agent) for path in paths for agent in rng.sample(pool, 3)]


# --- timing -------------------------------------------------------------------


@contextmanager
def gc_off() -> Iterator[None]:
    """The garbage collector off, as ``timeit`` has it; as it was on exit."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def timed(run: Callable[[], T]) -> tuple[float, T]:
    """One call of ``run`` with the collector off: seconds, and what it returned."""
    with gc_off():
        start = time.perf_counter()
        found = run()
        return time.perf_counter() - start, found


def best_of(
    passes: int, run: Callable[[], object], setup: Callable[[], object] | None = None
) -> float:
    """The shortest of ``passes`` timed calls of ``run``, in seconds;
    ``setup`` runs before each call, outside the timed region."""
    best = math.inf
    for _ in range(passes):
        if setup is not None:
            setup()
        best = min(best, timed(run)[0])
    return best


# --- memory -------------------------------------------------------------------


@contextmanager
def tracing() -> Iterator[None]:
    """``tracemalloc`` on, for :func:`kept_bytes`."""
    tracemalloc.start()
    try:
        yield
    finally:
        tracemalloc.stop()


def _settled() -> int:
    """Traced bytes once garbage and the ``re`` cache are gone: ``re``
    caches compiled patterns process-wide, which would keep an object's
    patterns alive, or hand a later build one it did not pay for."""
    gc.collect()
    re.purge()
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def kept_bytes(
    build: Callable[[], T], use: Callable[[T], object] | None = None
) -> tuple[int, int | None]:
    """Under :func:`tracing`: the bytes that ``build()``'s result keeps, and
    (if ``use`` is given) that it keeps after ``use(result)``. The result is
    dropped before returning."""
    before = _settled()
    kept = build()
    built = _settled() - before
    used = None
    if use is not None:
        use(kept)
        used = _settled() - before
    del kept
    return built, used


def rss() -> int | None:
    """This process's resident set size in bytes (Linux), else ``None``."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def settled_rss() -> int | None:
    """:func:`rss` after a collection."""
    gc.collect()
    return rss()


def growth(before: int | None, after: int | None) -> int | None:
    return None if before is None or after is None else after - before


# --- output -------------------------------------------------------------------


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A plain-text table; the first ``left`` columns are left-aligned."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = [
            cell.ljust(width) if i < left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in rows)])


def against(
    value: float, target: float, shown: str, target_shown: str, op: Literal[">=", "<=", "<"]
) -> str:
    """``<shown> (meets target <op> <target_shown>)``, or ``BELOW``/``ABOVE``
    for a miss. Targets are reported, never asserted."""
    if op == ">=":
        verdict = "meets" if value >= target else "BELOW"
    else:
        verdict = "meets" if (value <= target if op == "<=" else value < target) else "ABOVE"
    return f"{shown} ({verdict} target {op} {target_shown})"


# --- redis-server -------------------------------------------------------------


def redis_executable() -> str | None:
    return shutil.which("redis-server")


def redis_version(executable: str) -> str:
    """``redis-server --version``'s ``v=``, or ``?``."""
    try:
        out = subprocess.run(
            [executable, "--version"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return "?"
    found = re.search(r"v=(\S+)", out)
    return found.group(1) if found else "?"


@contextmanager
def redis_server(executable: str, directory: Path) -> Iterator[str]:
    """The tests' ``redis-server`` (``tests/redis_server.py``): on a free port
    of 127.0.0.1, in ``directory``, without persistence; yields its URL and
    stops it on exit. Raises ``RuntimeError`` if it does not start."""
    try:
        import pytest

        from tests.redis_server import RedisServer
    except ImportError as exc:  # pytest is a test dependency
        raise RuntimeError(f"tests/redis_server.py cannot be imported: {exc}") from None
    server = RedisServer(executable, directory)
    try:
        server.start()
    except pytest.fail.Exception as exc:  # how start() reports a failure, for the tests
        raise RuntimeError(str(exc)) from None
    try:
        yield server.url
    finally:
        server.stop()
