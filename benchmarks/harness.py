"""What the benchmark scripts share, so that each ``bench_*.py`` keeps only
its own workload: the command line and the run's header, the corpus, URLs
built from a file's own rules, timing and memory readings, tables, targets,
the JSON file, a ``redis-server`` (``tests/redis_server.py``'s, the one
the tests start), and for the crawl benchmarks (``bench_crawl.py``,
``bench_latency.py``) the local site in its own process, one crawl a
process, its checks, the rounds and their report.

Scripts import it as a sibling module (``python benchmarks/bench_x.py`` puts
this folder on ``sys.path``); importing it puts the repository root first on
``sys.path``, so that the scripts measure the working tree whether or not
the package is installed, and can import ``tests.redis_server``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import hashlib
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any, Literal, TypeVar

# The working tree is measured, whether or not the package is installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
#: ``BENCH_TREE``: a crawl process of mode o (``--against TREE``) imports the
#: package from TREE, another checkout (e.g. an older commit's worktree):
#: it goes first, and an editable install's finder, which would find the
#: working tree's package whatever ``sys.path`` says, is left out.
AGAINST_TREE = os.environ.get("BENCH_TREE")
if AGAINST_TREE:
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    sys.path.insert(0, AGAINST_TREE)

from scrapy_robots_rfc import AgentRules, RobotsTxt, __version__, build, product_token  # noqa: E402
from scrapy_robots_rfc.robotstxt._names import ascii_lower  # noqa: E402

#: The repository root, whose package is measured.
ROOT = Path(__file__).resolve().parents[1]

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


def run_child(code: str, env: dict[str, str], timeout: float) -> dict[str, Any]:
    """Run ``code`` with ``python -c`` in a fresh process with ``env`` and
    return the JSON of the one ``RESULT {json}`` line it prints, with its
    WARNING and ERROR lines under ``log``; a child that prints none fails
    with the end of its stderr."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            result: dict[str, Any] = json.loads(line[len("RESULT ") :])
            result["log"] = [
                line for line in done.stderr.splitlines() if "WARNING" in line or "ERROR" in line
            ]
            return result
    raise RuntimeError(f"the crawl failed ({done.returncode}):\n{done.stderr[-3000:]}")


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


# --- crawl benchmarks ---------------------------------------------------------
#
# bench_crawl.py and bench_latency.py crawl a local site with robots.txt off,
# with Scrapy's built-in middleware and with this package's add-on. The site
# is served by the script itself (``--serve``) in a process of its own, so
# that the server does not compete with the crawler for the GIL; each crawl
# runs in a fresh process of the script (``--crawl``), since a Twisted
# reactor cannot be restarted. A child crawl prints one ``RESULT {json}`` line.

#: The modes every crawl benchmark compares, and their names.
CRAWL_MODES = ("a", "b", "c")
CRAWL_MODE_NAMES = {
    "a": "ROBOTSTXT_OBEY = False",
    "b": "Scrapy's built-in",
    "c": "scrapy_robots_rfc add-on",
}
#: With ``--against TREE``: the add-on as c, its package from TREE.
AGAINST_MODE = "o"
AGAINST_NAME = "add-on from --against"


def against_argument(parser: argparse.ArgumentParser) -> None:
    """``--against TREE``: also mode o, the add-on from another checkout."""
    parser.add_argument(
        "--against",
        type=Path,
        metavar="TREE",
        help="also mode o: the add-on with its package from TREE, another checkout "
        "(e.g. git worktree add /tmp/before <commit>), in the same rounds",
    )


#: The modes that may download a disallowed URL: Scrapy's built-in hands
#: the rules to the first request that waited for a robots.txt and None
#: (allow all) to the others, as the README's table says ("is awaited by N
#: requests: all but the first go unchecked"); a run counts them and goes on.
LEAKY_MODES = frozenset({"b"})
CONCURRENT_REQUESTS = 32
CONCURRENT_REQUESTS_PER_DOMAIN = 8  # Scrapy's default
#: Disallowed URLs requested per origin when robots.txt is obeyed.
FORBIDDEN_PER_ORIGIN = 3

#: Every origin's robots.txt: a ``User-agent: *`` group of 11 allow/disallow
#: rules (prefixes, ``*`` and ``$``) and a ``BadBot`` group.
#: The site's TDMRep file (W3C TDMRep): a few rules, none of which reserves
#: a page of the plan, so that a crawl with ``ROBOTSTXT_RFC_TDM`` downloads
#: the same pages and pays for the file's request and the per-request and
#: per-response reading only.
SITE_TDMREP_JSON = (
    b'[{"location": "/private/", "tdm-reservation": 1},'
    b' {"location": "/*.pdf$", "tdm-reservation": 1, "tdm-policy": "https://example.com/p.json"},'
    b' {"location": "/page/", "tdm-reservation": 0}]'
)

SITE_ROBOTS_TXT = """\
# robots.txt of the benchmarks' site
User-agent: *
Disallow: /private/
Disallow: /tmp/
Disallow: /search
Allow: /search/about
Disallow: /*.pdf$
Disallow: /*?sessionid=
Disallow: /page/*/edit
Disallow: /admin/
Allow: /admin/help
Disallow: /cart
Allow: /page/

User-agent: BadBot
Disallow: /

Sitemap: http://{netloc}/sitemap.xml
"""

#: The answer of an origin (its index and ``host:port``) to a path: the
#: whole HTTP response, and the seconds to wait before sending it.
Answer = Callable[[int, str, str], tuple[bytes, float]]


def http_response(status: str, content_type: str, body: bytes) -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\nServer: bench\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


def site_reply(netloc: str, path: str) -> bytes:
    """The site's answer to ``path``: :data:`SITE_ROBOTS_TXT`,
    :data:`SITE_TDMREP_JSON` (asked for only by a crawl with
    ``ROBOTSTXT_RFC_TDM``), or a small page that links to 10 others."""
    if path == "/robots.txt":
        text = SITE_ROBOTS_TXT.format(netloc=netloc)
        return http_response("200 OK", "text/plain", text.encode())
    if path == "/.well-known/tdmrep.json":
        return http_response("200 OK", "application/json", SITE_TDMREP_JSON)
    links = "".join(f'<li><a href="/page/{n}">page {n}</a></li>' for n in range(10))
    body = (
        f"<!DOCTYPE html>\n<html><head><title>{path} on {netloc}</title></head>"
        f"<body><h1>{path}</h1><p>A small page of the benchmarks' site.</p>"
        f"<ul>{links}</ul></body></html>\n"
    )
    return http_response("200 OK", "text/html; charset=utf-8", body.encode())


def loopback_hosts(count: int) -> list[str]:
    """``count`` distinct loopback addresses from 127.0.0.2 on, none ending
    in .0 or .255: each its own host, so each its own Scrapy download slot.
    Linux routes all of 127.0.0.0/8 to the loopback interface (other systems
    may answer on 127.0.0.1 alone)."""
    hosts: list[str] = []
    number = 2
    while len(hosts) < count:
        if number & 255 not in (0, 255):
            hosts.append(f"127.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}")
        number += 1
    return hosts


class _Origin:
    """One origin of the site: its answers by path, each made once."""

    def __init__(self, index: int, answer: Answer) -> None:
        self.index = index
        self.netloc = ""  # once its port is known
        self._answer = answer
        self._answers: dict[bytes, tuple[bytes, float]] = {}

    def answer(self, path: bytes) -> tuple[bytes, float]:
        found = self._answers.get(path)
        if found is None:
            found = self._answer(self.index, self.netloc, path.decode("latin-1"))
            self._answers[path] = found
        return found


class _Http(asyncio.Protocol):
    """Just enough HTTP/1.1 for Scrapy: GET, keep-alive, no request bodies.
    An answer with a delay is sent by a timer of the event loop, so that the
    server goes on serving meanwhile; the answers on one connection leave in
    the order of their requests."""

    def __init__(self, origin: _Origin) -> None:
        self.origin = origin
        self.buffer = b""
        self.transport: asyncio.Transport | None = None
        self.closing = False
        self.ready = 0.0  # the loop time at which the last answer queued leaves

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while not self.closing:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head, self.buffer = self.buffer[:end], self.buffer[end + 4 :]
            parts = head.split(b"\r\n", 1)[0].split(b" ")
            reply, delay = self.origin.answer(parts[1] if len(parts) > 2 else b"/")
            self.closing = b"connection: close" in head.lower()
            if delay <= 0 and not self.ready:
                self._send(reply, self.closing)
            else:
                loop = asyncio.get_running_loop()
                self.ready = max(self.ready, loop.time() + delay)
                loop.call_at(self.ready, self._send, reply, self.closing)

    def _send(self, reply: bytes, close: bool) -> None:
        assert self.transport is not None
        if self.transport.is_closing():  # the client went away meanwhile
            return
        self.transport.write(reply)
        if close:
            self.transport.close()


async def _serve(hosts: Sequence[str], answer: Answer) -> None:
    loop = asyncio.get_running_loop()
    servers = []
    for index, host in enumerate(hosts):
        origin = _Origin(index, answer)
        server = await loop.create_server(partial(_Http, origin), host, 0, backlog=512)
        origin.netloc = f"{host}:{server.sockets[0].getsockname()[1]}"
        servers.append((server, origin.netloc))
    print("ORIGINS " + " ".join(netloc for _, netloc in servers), flush=True)
    # Serve until the parent closes our stdin (or dies).
    stop = asyncio.Event()
    threading.Thread(
        target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(stop.set)), daemon=True
    ).start()
    await stop.wait()
    for server, _ in servers:
        server.close()


def serve_site(hosts: Sequence[str], answer: Answer) -> None:
    """The site's process: one origin on a free port of each of ``hosts``
    (a host may repeat), answering with ``answer``; prints ``ORIGINS`` and
    their ``host:port``, then serves until its stdin is closed."""
    asyncio.run(_serve(hosts, answer))


class Site:
    """The site's process (``python <args>``, the script's ``--serve``),
    started and stopped by the parent; ``origins``: its ``host:port``."""

    def __init__(self, args: Sequence[str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().split()
        if not line or line[0] != "ORIGINS":
            self.stop()
            sys.exit(f"{Path(args[0]).stem}: the site did not start (it said {line!r})")
        self.origins = line[1:]

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass(frozen=True)
class Crawl:
    """One crawl of the site: the first ``origins`` origins, ``pages`` pages
    each, and its targets: ratio name (``c_over_b``, ``c_over_a``) -> the
    least it should be. Targets are reported, never asserted."""

    name: str
    title: str
    origins: int
    pages: int
    targets: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.origins * self.pages


def plan(origins: Sequence[str], pages: int) -> Iterator[tuple[str, bool]]:
    """Every URL of a crawl of ``origins`` (``host:port``), interleaved
    across them, with whether the site's robots.txt allows it: the pages
    ``/page/0``, ``/page/1``, …, and ``FORBIDDEN_PER_ORIGIN`` disallowed
    URLs per origin spread among them."""
    kinds = ("/private/{n}", "/page/{n}/edit", "/files/report-{n}.pdf")
    # After which page each disallowed URL comes (several after one page
    # when there are few pages: 200 origins x 1 page).
    at: dict[int, list[int]] = {}
    for k in range(FORBIDDEN_PER_ORIGIN):
        at.setdefault(pages * (k + 1) // (FORBIDDEN_PER_ORIGIN + 1), []).append(k)
    for n in range(pages):
        for netloc in origins:
            yield f"http://{netloc}/page/{n}", True
        for k in at.get(n, []):
            kind = kinds[k % len(kinds)]
            for netloc in origins:
                yield f"http://{netloc}" + kind.format(n=f"{n}-{k}"), False


def obeys(mode: str) -> bool:
    """Whether a crawl in ``mode`` obeys robots.txt: all but a."""
    return mode != "a"


def crawl_settings(mode: str) -> dict[str, Any]:
    """Scrapy's settings for ``mode``: the defaults but for these; in c (and
    the scripts' own modes built on it) the add-on."""
    settings: dict[str, Any] = {
        "ROBOTSTXT_OBEY": obeys(mode),
        "CONCURRENT_REQUESTS": CONCURRENT_REQUESTS,
        "CONCURRENT_REQUESTS_PER_DOMAIN": CONCURRENT_REQUESTS_PER_DOMAIN,
        "DOWNLOAD_DELAY": 0,
        "RETRY_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "WARNING",
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
    }
    if obeys(mode) and mode != "b":
        settings["ADDONS"] = {"scrapy_robots_rfc.Addon": 100}
    return settings


def url_digest(urls: Iterable[str]) -> str:
    """A short digest of a list of URLs, whatever their order."""
    return hashlib.sha256("\n".join(sorted(urls)).encode()).hexdigest()[:16]


def run_crawl(
    settings: dict[str, Any],
    urls: Iterable[str],
    profile_out: str | None = None,
    on_page: Callable[[Any], object] | None = None,
) -> None:
    """One crawl of ``urls`` in this process (a child of
    :meth:`CrawlRunner.crawl`), timed from ``spider_opened`` to
    ``spider_closed``; prints one ``RESULT {json}`` line. ``on_page`` is
    called with each response; with ``profile_out`` the crawl runs under
    cProfile, whose figures are written there."""
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.exceptions import IgnoreRequest

    class BenchSpider(scrapy.Spider):
        name = "bench_crawl"

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.pages: list[str] = []
            self.others: list[str] = []
            self.dropped: list[str] = []
            self.failed = 0
            self.first_page: float | None = None

        def _requests(self) -> Iterator[scrapy.Request]:
            for url in urls:
                yield scrapy.Request(url, callback=self.parse, errback=self.failure)

        async def start(self) -> Any:
            for request in self._requests():
                yield request

        def start_requests(self) -> Iterator[scrapy.Request]:
            yield from self._requests()

        def parse(self, response: Any) -> None:
            if on_page is not None:
                on_page(response)
            path = response.url.split("/", 3)[3]
            if path.startswith("page/") and path[5:].isdigit() and response.status == 200:
                self.pages.append(response.url)
                if self.first_page is None:
                    self.first_page = time.perf_counter()
            else:
                self.others.append(response.url)

        def failure(self, failure: Any) -> Any:
            # Returned, the failure costs Scrapy what it costs without an
            # errback: output from an errback would go through the scraper's
            # CONCURRENT_ITEMS workers, as a page's does.
            if failure.check(IgnoreRequest):  # dropped by a robots.txt middleware
                self.dropped.append(failure.request.url)
            else:
                self.failed += 1
            return failure

    marks: dict[str, Any] = {}

    def opened() -> None:
        marks["wall0"], marks["cpu0"] = time.perf_counter(), time.process_time()

    def closed(reason: str) -> None:
        marks["wall1"], marks["cpu1"] = time.perf_counter(), time.process_time()
        marks["reason"] = reason

    process = CrawlerProcess(settings)
    crawler = process.create_crawler(BenchSpider)
    crawler.signals.connect(opened, signal=signals.spider_opened)
    crawler.signals.connect(closed, signal=signals.spider_closed)
    process.crawl(crawler)
    profiler = cProfile.Profile() if profile_out else None
    if profiler is not None:
        profiler.enable()
    process.start()
    if profiler is not None and profile_out:
        profiler.disable()
        profiler.dump_stats(profile_out)
    assert crawler.stats is not None
    stats = crawler.stats.get_stats()
    spider = crawler.spider
    assert isinstance(spider, BenchSpider)
    first = spider.first_page
    result = {
        "seconds": marks["wall1"] - marks["wall0"],
        "cpu_seconds": marks["cpu1"] - marks["cpu0"],
        "first_page_seconds": None if first is None else first - marks["wall0"],
        "reason": marks["reason"],
        "pages": len(spider.pages),
        "pages_digest": url_digest(spider.pages),
        "other_responses": len(spider.others),
        "dropped": len(spider.dropped),
        # The disallowed URLs: dropped, or (the built-in's leaks) downloaded.
        "disallowed_digest": url_digest(spider.dropped + spider.others),
        "failed": spider.failed,
        "responses": stats.get("downloader/response_count", 0),
        "robots_requests": stats.get("robotstxt/request_count", 0),
        "tdm_requests": stats.get("robotstxt/tdm/request_count", 0),
        "forbidden": stats.get("robotstxt/forbidden", 0),
        "scheduled": stats.get("scheduler/enqueued", 0),
        "waiting": stats.get("robotstxt/waiting", 0),
        "parked": stats.get("robotstxt/waiting/parked", 0),
        "elapsed_time_seconds": stats.get("elapsed_time_seconds"),
        "package": str(Path(sys.modules["scrapy_robots_rfc"].__file__ or "").parents[1]),
    }
    print("RESULT " + json.dumps(result), flush=True)


def crawl_child_arguments(parser: argparse.ArgumentParser, modes: Sequence[str]) -> None:
    """The hidden options of a crawl process: ``--crawl MODE --crawl-origins
    HOST:PORT,… --crawl-pages N [--profile-out PATH]``."""
    parser.add_argument("--crawl", choices=modes, help=argparse.SUPPRESS)
    parser.add_argument("--crawl-origins", help=argparse.SUPPRESS)
    parser.add_argument("--crawl-pages", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--profile-out", help=argparse.SUPPRESS)


def crawl_child_urls(args: argparse.Namespace) -> Iterator[str]:
    """A crawl process's URLs (:func:`crawl_child_arguments`): the plan's,
    the disallowed ones only in the modes that obey robots.txt. The origins
    are ``HOST:PORT,…``, or ``@FILE`` that holds them (thousands of hosts
    exceed what one command-line argument may hold)."""
    origins = args.crawl_origins
    if origins.startswith("@"):
        origins = Path(origins[1:]).read_text()
    for url, allowed in plan(origins.split(","), args.crawl_pages):
        if allowed or obeys(args.crawl):
            yield url


@dataclass
class Run:
    crawl: str
    mode: str
    round: int
    seconds: float
    cpu_seconds: float
    first_page_seconds: float | None
    pages: int
    other_responses: int
    leaked: int
    responses: int
    robots_requests: int
    forbidden: int
    scheduled: int
    waiting: int
    parked: int
    pages_per_s: float
    stderr: str


class CrawlFailed(Exception):
    pass


def check_crawl(found: dict[str, Any], mode: str, origins: Sequence[str], pages: int) -> list[str]:
    """What differs from the expected crawl of ``pages`` pages on each of
    ``origins``: every allowed page downloaded once, nothing else but
    robots.txt, and when robots.txt is obeyed one robots.txt per origin and
    every disallowed URL dropped (the same URLs, whichever the middleware).
    In :data:`LEAKY_MODES` a disallowed URL may be downloaded instead of
    dropped: :class:`Run` counts those (``leaked``)."""
    obey = obeys(mode)
    allowed: list[str] = []
    disallowed: list[str] = []
    for url, ok in plan(origins, pages):
        (allowed if ok else disallowed).append(url)
    if not obey:
        disallowed = []
    robots = len(origins) if obey else 0
    others = found["other_responses"]
    # A crawl with ROBOTSTXT_RFC_TDM (a --variant) asks each origin for its
    # tdmrep.json too, once.
    tdm = found.get("tdm_requests", 0)
    expected = {
        "close reason": (found["reason"], "finished"),
        "allowed pages": (found["pages"], len(allowed)),
        "the pages downloaded (digest)": (found["pages_digest"], url_digest(allowed)),
        "failed requests": (found["failed"], 0),
        "responses (pages + others + robots.txt)": (
            found["responses"],
            len(allowed) + others + robots + tdm,
        ),
        "robotstxt/request_count": (found["robots_requests"], robots),
        "robotstxt/forbidden": (found["forbidden"], found["dropped"]),
        "the disallowed requests, dropped or downloaded (digest)": (
            found["disallowed_digest"],
            url_digest(disallowed),
        ),
    }
    if mode not in LEAKY_MODES:
        expected["other responses (disallowed URLs downloaded)"] = (others, 0)
    if tdm:
        expected["robotstxt/tdm/request_count"] = (tdm, robots)
    return [
        f"{what}: {got}, expected {want}" for what, (got, want) in expected.items() if got != want
    ]


#: Characters of the origins passed in a command-line argument at most; more
#: go through a file (Linux takes at most 128 KiB in one argument).
_MOST_ARGUMENT = 64 * 1024


@dataclass(frozen=True)
class CrawlRunner:
    """Runs a script's crawls, each in a fresh process of ``script``
    (:func:`crawl_child_arguments`, then ``child_args``), over the first of
    ``origins``."""

    script: str
    origins: Sequence[str]
    names: dict[str, str]
    timeout: float
    child_args: tuple[str, ...] = ()
    #: Mode o's tree (``--against``).
    against: Path | None = None

    def crawl(self, mode: str, spec: Crawl, round_: int, profile_out: str | None = None) -> Run:
        """One crawl of ``spec`` in ``mode``, checked (:func:`check_crawl`);
        raises :class:`CrawlFailed`."""
        origins = self.origins[: spec.origins]
        given = ",".join(origins)
        listed = None
        if len(given) > _MOST_ARGUMENT:  # in a file: more than an argument holds
            with tempfile.NamedTemporaryFile("w", suffix=".origins", delete=False) as f:
                f.write(given)
            listed = Path(f.name)
            given = f"@{listed}"
        command = [sys.executable, self.script, "--crawl", mode]
        command += ["--crawl-origins", given, "--crawl-pages", str(spec.pages)]
        command += self.child_args
        if profile_out:
            command += ["--profile-out", profile_out]
        where = f"{spec.title}, mode {mode} ({self.names[mode]}), round {round_}"
        env = dict(os.environ)
        env.pop("BENCH_TREE", None)
        if mode == AGAINST_MODE:
            assert self.against is not None, "mode o needs --against"
            env["BENCH_TREE"] = str(self.against)
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, check=False, timeout=self.timeout, env=env
            )
        except subprocess.TimeoutExpired:
            raise CrawlFailed(f"{where}: no end after {self.timeout:.0f} s") from None
        finally:
            if listed is not None:
                listed.unlink()
        lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode != 0 or not lines:
            raise CrawlFailed(
                f"{where}: the crawl exited with {done.returncode}\n"
                f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
            )
        found = json.loads(lines[-1][len("RESULT ") :])
        problems = check_crawl(found, mode, origins, spec.pages)
        tree = self.against if mode == AGAINST_MODE else ROOT
        if obeys(mode) and mode != "b" and Path(found["package"]) != Path(tree).resolve():
            problems.append(f"the package came from {found['package']}, not {tree}")
        if problems:
            raise CrawlFailed(
                f"{where}: " + "; ".join(problems) + f"\nresult: {found}\nstderr:\n{done.stderr}"
            )
        return Run(
            crawl=spec.name,
            mode=mode,
            round=round_,
            seconds=found["seconds"],
            cpu_seconds=found["cpu_seconds"],
            first_page_seconds=found["first_page_seconds"],
            pages=found["pages"],
            other_responses=found["other_responses"],
            leaked=found["other_responses"] if mode in LEAKY_MODES else 0,
            responses=found["responses"],
            robots_requests=found["robots_requests"],
            forbidden=found["forbidden"],
            scheduled=found["scheduled"],
            waiting=found["waiting"],
            parked=found["parked"],
            pages_per_s=found["pages"] / found["seconds"],
            stderr=done.stderr.strip(),
        )

    def rounds(
        self, crawls: Sequence[Crawl], modes: Sequence[str], rounds: int, warm_up: Crawl | None
    ) -> list[Run]:
        """After an untimed crawl of ``warm_up`` (mode c), ``rounds`` rounds
        of every crawl in every mode, in an order that rotates from round to
        round (a, b, c; then b, c, a; …); each run printed as it ends."""
        if warm_up is not None:
            self.crawl("c", warm_up, 0)
        runs: list[Run] = []
        for round_ in range(1, rounds + 1):
            for spec in crawls:
                for mode in rotate(round_ - 1, modes):
                    run = self.crawl(mode, spec, round_)
                    runs.append(run)
                    print(
                        f"  round {round_} {spec.title} mode {mode}: {run.seconds:.3f} s ="
                        f" {run.pages_per_s:,.0f} pages/s (CPU {run.cpu_seconds:.2f} s,"
                        f" scheduled {run.scheduled}, robots.txt {run.robots_requests},"
                        f" forbidden {run.forbidden}, parked {run.parked})",
                        flush=True,
                    )
        return runs


def rotate(round_: int, modes: Sequence[str]) -> tuple[str, ...]:
    shift = round_ % len(modes)
    return (*modes[shift:], *modes[:shift])


def crawl_versions() -> str:
    """The header's lines on what is measured: Python, the machine, Scrapy,
    Twisted, Protego, the package and the commit."""
    return (
        f"{python_text(machine=True)}; Scrapy {version('scrapy')},"
        f" Twisted {version('twisted')}, Protego {version('protego')};\n"
        f"{package_text()} ({git_state()})"
    )


def crawl_results(
    quick: bool, rounds: int, crawls: Sequence[Crawl], summary: dict[str, Any], runs: Sequence[Run]
) -> dict[str, Any]:
    """What a crawl benchmark writes with ``--json``."""
    return {
        "quick": quick,
        "rounds": rounds,
        "crawls": [asdict(spec) for spec in crawls],
        "python": platform.python_version(),
        "scrapy": version("scrapy"),
        "protego": version("protego"),
        "git": git_state(),
        "concurrent_requests": CONCURRENT_REQUESTS,
        "concurrent_requests_per_domain": CONCURRENT_REQUESTS_PER_DOMAIN,
        "forbidden_per_origin": FORBIDDEN_PER_ORIGIN,
        "summary": summary,
        "runs": [asdict(r) for r in runs],
    }


def _ratio_text(value: float, target: float | None) -> str:
    if target is None:
        return f"{value:.3f}"
    return against(value, target, f"{value:.3f}", f"{target:.2f}", ">=")


def report_crawl(
    spec: Crawl, runs: Sequence[Run], names: dict[str, str], ratios: Sequence[tuple[str, str]]
) -> dict[str, Any]:
    """The table and summary of one crawl's runs, and the ``ratios`` (mode,
    other) of those that ran; their figures."""
    ran = tuple(mode for mode in names if any(r.mode == mode for r in runs))
    by_mode = {
        mode: sorted((r for r in runs if r.mode == mode), key=lambda r: r.round) for mode in ran
    }
    summary: dict[str, Any] = {"title": spec.title, "origins": spec.origins, "pages": spec.pages}
    modes: dict[str, dict[str, Any]] = {}
    summary["modes"] = modes
    rows = []
    for mode in ran:
        mine = by_mode[mode]
        rates = [r.pages_per_s for r in mine]
        median = statistics.median(rates)
        cpu_median = statistics.median(r.cpu_seconds for r in mine)
        firsts = [r.first_page_seconds for r in mine if r.first_page_seconds is not None]
        first = statistics.median(firsts) if firsts else None
        modes[mode] = {
            "name": names[mode],
            "pages_per_s": rates,
            "median_pages_per_s": median,
            "min_pages_per_s": min(rates),
            "max_pages_per_s": max(rates),
            "median_seconds": statistics.median(r.seconds for r in mine),
            "median_cpu_seconds": cpu_median,
            "pages_per_cpu_s": spec.total / cpu_median,
            "median_first_page_seconds": first,
            "scheduled": sorted({r.scheduled for r in mine}),
            "parked": sorted({r.parked for r in mine}),
            "leaked": [r.leaked for r in mine],
            "robots_requests": sorted({r.robots_requests for r in mine}),
        }
        rows.append(
            [
                f"{mode}. {names[mode]}",
                *(f"{rate:,.0f}" for rate in rates),
                f"{median:,.0f}",
                f"{(max(rates) - min(rates)) / median * 100:.1f}%",
                f"{spec.total / cpu_median:,.0f}",
                "-" if first is None else f"{first * 1000:.0f}",
                "/".join(map(str, modes[mode]["scheduled"])),
                "/".join(map(str, modes[mode]["parked"])),
                "/".join(map(str, sorted(set(modes[mode]["leaked"])))),
            ]
        )
    rounds = [f"r{r.round}" for r in by_mode[ran[0]]]
    print(f"\n{spec.title}: pages/s ({spec.total:,} pages per crawl, one crawl a process)")
    headers = [
        "mode",
        *rounds,
        "median",
        "spread",
        "pages/CPU-s",
        "1st page ms",
        "scheduled",
        "parked",
        "leaked",
    ]
    print(table(headers, rows))
    for mine_, other in ratios:
        if mine_ not in by_mode or other not in by_mode:
            continue
        key = f"{mine_}_over_{other}"
        target = spec.targets.get(key)
        pairs = list(zip(by_mode[mine_], by_mode[other], strict=True))
        of_medians = modes[mine_]["median_pages_per_s"] / modes[other]["median_pages_per_s"]
        per_round = [c.pages_per_s / o.pages_per_s for c, o in pairs]
        paired = statistics.median(per_round)
        extra = statistics.median(c.seconds - o.seconds for c, o in pairs)
        summary[key] = of_medians
        summary[f"paired_{key}"] = paired
        summary[f"rounds_{key}"] = per_round
        summary[f"paired_extra_seconds_{mine_}_minus_{other}"] = extra
        if target is not None:
            summary.setdefault("targets", {})[key] = target
        print(
            f"   {mine_}/{other}: per-round median {_ratio_text(paired, target)};"
            f" of the medians {of_medians:.3f}; rounds "
            + " ".join(f"{value:.3f}" for value in per_round)
            + f"; {mine_} - {other} per round {extra * 1000:+.0f} ms"
        )
    return summary


def report_crawls(
    runs: Sequence[Run],
    crawls: Sequence[Crawl],
    names: dict[str, str],
    ratios: Sequence[tuple[str, str]],
) -> dict[str, Any]:
    """:func:`report_crawl` for each crawl, what the columns mean, and the
    runs that wrote to stderr."""
    summary = {
        spec.name: report_crawl(spec, [r for r in runs if r.crawl == spec.name], names, ratios)
        for spec in crawls
    }
    print(
        "\n   r1, r2, …: pages/s of each round; spread = (max - min) / median over the\n"
        "   rounds; pages/CPU-s uses the median CPU time of the crawl process between\n"
        "   spider_opened and spider_closed; 1st page ms: median time from\n"
        "   spider_opened to the first page reaching the spider; scheduled: the\n"
        "   scheduler/enqueued stat; parked: robotstxt/waiting/parked; leaked:\n"
        "   disallowed URLs downloaded (Scrapy's built-in lets through all but the\n"
        "   first request that waits for a robots.txt). Targets are reported, never\n"
        "   asserted; the per-round ratio cancels slow drifts of the machine."
    )
    for r in runs:
        if r.stderr:
            print(
                f"\n   NOTE: {r.crawl} mode {r.mode} round {r.round} wrote to stderr:\n{r.stderr}"
            )
    return summary
