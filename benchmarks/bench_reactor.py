"""Whether parsing a huge robots.txt holds up the rest of the crawl
(issue 41): how late the reactor runs its calls while one origin's
robots.txt of 32 MiB is parsed, and how many pages of other origins are
downloaded meanwhile.

The site: one small threaded HTTP/1.1 server per origin, in this process
(each on its own port of 127.0.0.1, so each is its own origin):

* ``huge``: a robots.txt of 32 MiB (the largest ``ROBOTSTXT_RFC_MAX_BYTES``
  allows), streamed in 64 KiB writes, and ``/page``, which it allows. The
  robots.txt is one of :data:`SHAPES` repeated, numbered: ``groups``,
  1,198,372 groups of one user-agent line (each another product token)
  and one rule, the file of issue 41, whose parse builds millions of
  objects; ``comments``, 1,864,135 comment lines, whose parse builds none
  but the lines;
* ``other-1`` to ``other-8``: a two-line robots.txt, and pages ``/p/0``,
  ``/p/1``, … answered after 20 ms (a network's latency), each linking to
  the next.

Each server logs the time of each request it receives.

The crawl runs in a fresh process (``CrawlerProcess``, the add-on, the
asyncio reactor, ``ROBOTSTXT_RFC_MAX_BYTES = 32 MiB``, no retries,
``LOG_LEVEL = "WARNING"``). Its spider asks for the huge origin's
``/page`` first, then ``/p/0`` of each other origin, and follows each other
origin's links, one page after the other, until the huge origin's page
has arrived (then a second more), so that other origins always have a
page on its way while robots.txt is parsed. A probe in the crawl process
asks the reactor for a call every 10 ms (``reactor.callLater``) and records
how late each runs.

"The parse" is the time from when the crawl had the huge robots.txt whole
(Scrapy's ``response_downloaded`` signal) to when the huge origin's
``/page`` reached its server: the parse, the rules kept and what follows
them (both processes read the same wall clock). The table gives, for each package folder and round:
its build (``pure`` or ``compiled``), how long the parse took, the latest
call of the probe that was due or ran during the parse, how many of its
calls ran more than 0.2 s late, and the other origins' pages the servers
served during the parse. Target (issue 41): no call more than 0.2 s late,
and pages of other origins served during the parse.

Run it directly::

    .venv/bin/python benchmarks/bench_reactor.py
    .venv/bin/python benchmarks/bench_reactor.py --source /tmp/old --source .tox/compiled/src
    .venv/bin/python benchmarks/bench_reactor.py --rounds 2 --json results.json
    .venv/bin/python benchmarks/bench_reactor.py --sizes

With ``--sizes``, it times instead what decides ``IN_THREAD_BYTES``
(``crawl/_parsing.py``): for bodies of 1 KiB to 500 KiB cut from the
corpus files one after the other (``<shared>/corpus/robots``; generated
groups without it), the median of 15 parses on the reactor's thread (how
long they hold the reactor up) and of 15 round trips through the parse
thread (``Parses(in_thread_from=0)``: how long the origin waits), with the
asyncio reactor running, for each package folder that has the parse
thread.

``--source`` (repeatable) measures the package in another folder: an older
commit unpacked with ``git archive``, or a compiled copy (``.ci/compiled``
leaves one in ``.tox/compiled/src``); the folders are crawled in turn,
round after round. It is a script, not a test: it asserts nothing about
times.
"""

from __future__ import annotations

import http.server
import json
import socketserver
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

# harness puts the repository root first on sys.path: the working tree is measured.
import harness

ROOT = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024
#: The largest ``ROBOTSTXT_RFC_MAX_BYTES`` allows, and the huge file's size.
LIMIT = 32 * MIB
#: What the huge robots.txt repeats, numbered: a group of 28 bytes (32 MiB
#: hold 1.2 M), or a comment line of 18 bytes.
SHAPES = {"groups": "User-agent:b{:07d}\nAllow:/\n", "comments": "# comment {:07d}\n"}
CHUNK = 64 * 1024
OTHERS = 8
#: How long another origin's page takes to answer (a network's latency).
PAGE_DELAY_S = 0.02
#: The probe's interval, and the target: no call more than this late.
PROBE_S = 0.01
TARGET_LATE_S = 0.2
ROUNDS = 1
SMALL_ROBOTS = b"User-agent: *\nDisallow: /private\n"
#: ``--sizes``: the bodies' sizes, and the parses timed at each.
SIZES = (1024, 4 * 1024, 16 * 1024, 64 * 1024, 256 * 1024, 512_000)
SIZE_PASSES = 15


def huge_robots(shape: str) -> bytes:
    """The huge robots.txt: ``shape`` repeated, as many as 32 MiB hold."""
    count = LIMIT // len(shape.format(0))
    return "".join(shape.format(number) for number in range(count)).encode()


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class Site:
    """The origins' servers, and the log of the requests they received:
    ``(time, origin, path)``."""

    def __init__(self, robots: bytes) -> None:
        self.log: list[tuple[float, str, str]] = []
        self._lock = threading.Lock()
        self._servers: list[_Server] = []
        self.urls = {"huge": self._serve("huge", robots, 0.0)}
        for number in range(1, OTHERS + 1):
            name = f"other-{number}"
            self.urls[name] = self._serve(name, SMALL_ROBOTS, PAGE_DELAY_S)

    def _note(self, origin: str, what: str) -> None:
        with self._lock:
            self.log.append((time.time(), origin, what))

    def _serve(self, origin: str, robots: bytes, delay: float) -> str:
        note = self._note

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                note(origin, self.path)
                try:
                    if self.path == "/robots.txt":
                        self._send(robots, "text/plain")
                        return
                    time.sleep(delay)
                    number = int(self.path.rpartition("/")[2]) if self.path.startswith("/p/") else 0
                    page = f'<html><body><a href="/p/{number + 1}">next</a></body></html>'
                    self._send(page.encode(), "text/html")
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def _send(self, body: bytes, content_type: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                for start in range(0, len(body), CHUNK):
                    self.wfile.write(body[start : start + CHUNK])

        server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self._servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    def clear(self) -> None:
        with self._lock:
            self.log.clear()

    def shutdown(self) -> None:
        for server in self._servers:
            server.shutdown()


#: One crawl, in its own process (see the module's docstring); prints
#: ``RESULT {json}`` with the probe's calls and a few stats.
CRAWL = textwrap.dedent(
    """
    import json, os, sys, time
    sys.path.insert(0, os.environ["BENCH_SOURCE"])
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    huge = os.environ["BENCH_HUGE"]
    others = json.loads(os.environ["BENCH_OTHERS"])
    interval = float(os.environ["BENCH_PROBE"])
    calls = []  # (when it ran, how late), each call of the probe

    def probe(due):
        from twisted.internet import reactor
        now = time.time()
        calls.append((now, now - due))
        reactor.callLater(interval, probe, time.time() + interval)

    class Bench(scrapy.Spider):
        name = "bench"
        huge_done = None
        robots_at = None

        @classmethod
        def from_crawler(cls, crawler, *args, **kwargs):
            spider = super().from_crawler(crawler, *args, **kwargs)
            crawler.signals.connect(spider.opened, signal=signals.spider_opened)
            crawler.signals.connect(spider.downloaded, signal=signals.response_downloaded)
            return spider

        def downloaded(self, response, request, spider):
            if request.url == huge + "/robots.txt":
                Bench.robots_at = time.time()

        def opened(self, spider):
            probe(time.time())

        async def start(self):
            for request in self.start_requests():
                yield request

        def start_requests(self):  # Scrapy before 2.13 calls this one
            yield scrapy.Request(huge + "/page", priority=1)
            for url in others:
                yield scrapy.Request(url + "/p/0")

        def parse(self, response):
            if response.url.startswith(huge):
                self.huge_done = time.time()
                return
            if self.huge_done is None or time.time() < self.huge_done + 1.0:
                yield response.follow(response.css("a::attr(href)").get())

    settings = {
        "ROBOTSTXT_OBEY": True,
        "ADDONS": {"scrapy_robots_rfc.Addon": 100},
        "ROBOTSTXT_RFC_MAX_BYTES": int(os.environ["BENCH_LIMIT"]),
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
        "RETRY_ENABLED": False,
        "DOWNLOAD_WARNSIZE": 0,
    }
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(Bench)
    process.crawl(crawler)
    process.start()
    import scrapy_robots_rfc
    assert scrapy_robots_rfc.__file__.startswith(os.environ["BENCH_SOURCE"])
    stats = crawler.stats.get_stats()
    print("RESULT " + json.dumps({
        "build": scrapy_robots_rfc.build(),
        "calls": calls,
        "huge_done": Bench.huge_done,
        "robots_at": Bench.robots_at,
        "rules": stats.get("robotstxt/rules"),
        "pages": stats.get("response_received_count"),
    }), flush=True)
    """
)


#: ``--sizes``, in its own process: ``RESULT {size: [inline s, round trip s]}``,
#: or ``RESULT null`` for a package without the parse thread.
SIZES_CHILD = textwrap.dedent(
    """
    import json, os, statistics, sys, time
    sys.path.insert(0, os.environ["BENCH_SOURCE"])
    from twisted.internet import asyncioreactor
    asyncioreactor.install()
    from twisted.internet import defer, reactor
    from scrapy.utils.defer import deferred_from_coro
    try:
        from scrapy_robots_rfc.crawl._parsing import Parses, parse_and_keep
    except ImportError:
        print("RESULT null")
        sys.exit()

    text = open(os.environ["BENCH_TEXT"], "rb").read()
    passes = int(os.environ["BENCH_PASSES"])
    sizes = json.loads(os.environ["BENCH_SIZES"])
    found = {}

    @defer.inlineCallbacks
    def measure():
        threaded = Parses(in_thread_from=0)
        for size in sizes:
            body = text[: text.rfind(b"\\n", 0, size) + 1]
            args = (body, "rfc", 32 * 1024 * 1024, ("scrapy",))
            inline, round_trip = [], []
            for _ in range(passes):
                start = time.perf_counter()
                parse_and_keep(*args)
                inline.append(time.perf_counter() - start)
                start = time.perf_counter()
                yield deferred_from_coro(threaded.parse(*args))
                round_trip.append(time.perf_counter() - start)
            found[size] = [statistics.median(inline), statistics.median(round_trip)]
        reactor.stop()

    reactor.callWhenRunning(measure)
    reactor.run()
    print("RESULT " + json.dumps(found), flush=True)
    """
)


def sizes_text() -> tuple[bytes, str]:
    """What ``--sizes`` cuts its bodies from: the corpus files one after the
    other (the first :data:`SIZES`' largest bytes), else generated groups."""
    text = b""
    for robots_file in harness.load_corpus():
        text += robots_file.body.rstrip(b"\n") + b"\n"
        if len(text) > max(SIZES):
            return text, "the corpus"
    count = max(SIZES) // 20 + 1
    return SHAPES["groups"].format(0).encode() * count, "generated groups"


def time_sizes(source: Path, text: bytes) -> dict[int, list[float]] | None:
    """``--sizes`` for the package in ``source``: by size, the median parse
    on the reactor's thread and round trip through the parse thread, in
    seconds; ``None`` when the package has no parse thread."""
    with tempfile.NamedTemporaryFile(suffix=".txt") as body:
        body.write(text)
        body.flush()
        env = {
            "BENCH_SOURCE": str(source),
            "BENCH_TEXT": body.name,
            "BENCH_PASSES": str(SIZE_PASSES),
            "BENCH_SIZES": json.dumps(SIZES),
            "PATH": "/usr/bin:/bin",
        }
        done = subprocess.run(
            [sys.executable, "-c", SIZES_CHILD],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            found = json.loads(line[len("RESULT ") :])
            return None if found is None else {int(k): v for k, v in found.items()}
    raise RuntimeError(f"the timing failed ({done.returncode}):\n{done.stderr[-3000:]}")


def report_sizes(sources: list[Path]) -> dict[str, Any]:
    """``--sizes``: the table, and the figures for ``--json``."""
    text, where = sizes_text()
    print(f"bodies cut from {where}; median of {SIZE_PASSES} each, in ms")
    rows, results = [], {}
    for source in sources:
        found = time_sizes(source, text)
        if found is None:
            print(f"  {source}: no parse thread (crawl/_parsing.py), left out")
            continue
        results[str(source)] = found
        for size, (inline, round_trip) in found.items():
            rows.append(
                [
                    str(source),
                    f"{size / 1024:,.0f} KiB",
                    f"{inline * 1e3:.3f}",
                    f"{round_trip * 1e3:.3f}",
                    f"{(round_trip - inline) * 1e3:+.3f}",
                ]
            )
    if rows:
        headers = ["package", "body", "reactor's thread", "parse thread", "difference"]
        print()
        print(harness.table(headers, rows, left=2))
    return results


def crawl(source: Path, site: Site) -> dict[str, Any]:
    """One crawl of ``site`` with the package in ``source``: what the crawl
    process reports, and the servers' log."""
    site.clear()
    others = [url for name, url in site.urls.items() if name != "huge"]
    env = {
        "BENCH_SOURCE": str(source),
        "BENCH_HUGE": site.urls["huge"],
        "BENCH_OTHERS": json.dumps(others),
        "BENCH_LIMIT": str(LIMIT),
        "BENCH_PROBE": str(PROBE_S),
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        [sys.executable, "-c", CRAWL],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            result: dict[str, Any] = json.loads(line[len("RESULT ") :])
            result["log"] = list(site.log)
            result["problems"] = [
                line for line in done.stderr.splitlines() if "WARNING" in line or "ERROR" in line
            ]
            return result
    raise RuntimeError(f"the crawl failed ({done.returncode}):\n{done.stderr[-3000:]}")


def figures(result: dict[str, Any]) -> dict[str, Any]:
    """What the table shows of one crawl (the module's docstring)."""
    log = result["log"]
    page = [t for t, origin, what in log if origin == "huge" and what == "/page"]
    if result["robots_at"] is None or not page:
        raise RuntimeError(f"the huge origin's robots.txt or page never came: {log[:20]}")
    start, end = result["robots_at"], page[0]
    # A call was held up by the parse if it was due, or ran, during it.
    during = [late for ran, late in result["calls"] if ran >= start and ran - late <= end]
    served = [t for t, origin, what in log if origin != "huge" and what.startswith("/p/")]
    in_parse = [t for t in served if start <= t <= end]
    return {
        "build": result["build"],
        "parse_s": end - start,
        "max_late_s": max(during, default=0.0),
        "late_calls": sum(late > TARGET_LATE_S for late in during),
        "probe_calls": len(during),
        "max_late_crawl_s": max((late for _, late in result["calls"]), default=0.0),
        "other_pages_in_parse": len(in_parse),
        "other_pages": len(served),
        "rules": result["rules"],
    }


def main() -> None:
    parser = harness.arguments(__doc__, "the groups file only, one round")
    parser.add_argument(
        "--source",
        type=Path,
        action="append",
        help="a package folder to measure (repeatable; default: this working tree)",
    )
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="crawls per folder")
    parser.add_argument(
        "--robots",
        choices=tuple(SHAPES),
        action="append",
        help="the huge robots.txt's shape (repeatable; default: each)",
    )
    parser.add_argument(
        "--sizes",
        action="store_true",
        help="time parses on the reactor's thread against the parse thread, by size, instead",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    harness.title("reactor lateness while a huge robots.txt is parsed", args.quick)
    print(harness.python_text(machine=True))
    sources = [path.resolve() for path in (args.source or [ROOT])]
    if args.sizes:
        harness.finish(args.json, {"sizes": report_sizes(sources)}, started)
        return
    rows, results = [], []
    rounds = 1 if args.quick else args.rounds
    for shape in args.robots or (("groups",) if args.quick else tuple(SHAPES)):
        robots = huge_robots(SHAPES[shape])
        count = len(robots) // len(SHAPES[shape].format(0))
        print(f"{shape}: {len(robots):,} bytes, {count:,} repeats; {OTHERS} other origins")
        site = Site(robots)
        for round_ in range(1, rounds + 1):
            for source in sources:
                found = figures(crawl(source, site))
                found.update(source=str(source), round=round_, robots=shape)
                results.append(found)
                late = harness.against(
                    found["max_late_s"],
                    TARGET_LATE_S,
                    f"{found['max_late_s']:.3f}",
                    f"{TARGET_LATE_S}",
                    "<=",
                )
                rows.append(
                    [
                        shape,
                        str(source),
                        found["build"],
                        str(round_),
                        f"{found['parse_s']:.2f}",
                        late,
                        f"{found['late_calls']} of {found['probe_calls']}",
                        str(found["other_pages_in_parse"]),
                        f"{found['max_late_crawl_s']:.3f}",
                    ]
                )
                print(f"  {shape}, {source} ({found['build']}), round {round_}: done", flush=True)
        site.shutdown()
    headers = [
        "robots.txt",
        "package",
        "build",
        "round",
        "parse s",
        "max late s (parse)",
        "calls > 0.2 s late",
        "other pages (parse)",
        "max late s (crawl)",
    ]
    print()
    print(harness.table(headers, rows, left=3))
    harness.finish(args.json, {"runs": results}, started)


if __name__ == "__main__":
    main()
