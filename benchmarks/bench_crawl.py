"""Crawl speed with robots.txt off, with Scrapy's built-in middleware, and
with this package's, against a local site, in deep and in broad crawls.

The site: up to 200 origins (200 ports on 127.0.0.1), served by a small
asyncio HTTP/1.1 server (keep-alive, canned responses) in a separate
process, so that the server does not compete with the crawler for the GIL.
Every origin serves the same robots.txt: a ``User-agent: *`` group of 11
allow/disallow rules (prefixes, ``*`` and ``$``) and a ``BadBot`` group.
The pages ``/page/0``, ``/page/1``, … are allowed by it; 3 more URLs per
origin (``/private/…``, ``/page/…/edit``, ``….pdf``) are disallowed.

Three crawls (issue 11), each over the first origins of the site:

- deep 20x100: 20 origins x 100 pages (2,000 pages);
- deep 20x400: 20 origins x 400 pages (8,000 pages);
- broad 200x10: 200 origins x 10 pages (2,000 pages).

A cost paid once per origin (the robots.txt fetch and what waits for it)
weighs on a deep crawl of 100 pages per origin about 4 times as much as on
one of 400, and on the broad crawl 10 times as much as on the first.

Three modes, all with Scrapy's default settings except those named here:

a. ``ROBOTSTXT_OBEY = False``. The disallowed URLs are not requested, so
   the crawl downloads the same pages as the two others.
b. Scrapy's built-in ``RobotsTxtMiddleware`` (``ROBOTSTXT_OBEY = True``,
   default parser, Protego).
c. This package: ``ROBOTSTXT_OBEY = True`` and
   ``ADDONS = {"scrapy_robots_rfc.Addon": 100}``.
d. With ``--page-rules`` only: (c), and page-level rules honoured
   (``ROBOTSTXT_RFC_NOFOLLOW = True``, ``ROBOTSTXT_RFC_NOINDEX = "drop"``)
   while the spider asks every response for them, so that every page's
   ``X-Robots-Tag`` and head are read (issue 22). ``d/c`` is what reading
   them costs a crawl.

(b) and (c) download every page and one robots.txt per origin, and drop the
3 disallowed requests of each origin; every run is checked for that, and
the benchmark fails if a page count, a ``robotstxt/forbidden`` or a
``robotstxt/request_count`` stat differs.

The spider yields every request from ``start()`` (``start_requests()`` too,
for older Scrapy), interleaved across origins. ``CONCURRENT_REQUESTS`` is
32 and ``CONCURRENT_REQUESTS_PER_DOMAIN`` 8 (Scrapy's default). All the
origins share the host 127.0.0.1, which is Scrapy's default download slot
key: the whole crawl has one download slot, so 8 downloads at a time, and
up to 32 requests in the downloader (the others queue in that slot). No
retries, no delay, no telnet console, ``LOG_LEVEL = "WARNING"``, the
asyncio reactor.

Each crawl runs in a fresh process (a Twisted reactor cannot be restarted).
After one untimed warm-up crawl, each round runs every crawl in the three
modes, in an order that rotates from round to round (a, b, c; then b, c, a;
…), so the three modes of a crawl run back to back. Only the crawl is
timed, from ``spider_opened`` to ``spider_closed`` (wall clock, and the
crawl process's CPU time), not the process start-up. pages/s = pages /
crawl seconds. For each crawl the report gives each mode's median, the
ratios c/b and c/a of the medians next to their targets (issue 24: deep
20x100 and broad 200x10 each c/b >= 1.0; issue 11's deep c/a >= 0.95), and the
median of the per-round ratios, which cancels slow drifts of the machine
and is the figure to trust; also the median per-round difference in
seconds (c - b, c - a), which shows a fixed cost directly, and how many
requests each mode's scheduler received (``scheduler/enqueued``: a request
that waits for robots.txt and goes through the scheduler again counts
twice). A child process that writes anything to stderr (a warning, an
error log) is reported.

The crawl is CPU-bound (the crawl process uses its core all the time, its
CPU time is its wall time); on a shared 2-core machine single crawls spread
by 10 to 35 %, so a difference of a few percent needs more rounds
(``--rounds``) to be told from noise. ``--profile`` runs each crawl once
per mode under cProfile instead, and gives per page the calls of the whole
crawl process and of each mode's robots.txt code: calls are counted
exactly, so that the cost of a change per request shows without the noise
of timings (its times are the profiler's, inflated by it).

Run it directly::

    .venv/bin/python benchmarks/bench_crawl.py            # about 9 minutes (2 cores)
    .venv/bin/python benchmarks/bench_crawl.py --quick    # 1 round of small crawls, 20 s
    .venv/bin/python benchmarks/bench_crawl.py --json results.json
    .venv/bin/python benchmarks/bench_crawl.py --rounds 9  # more rounds, less noise
    .venv/bin/python benchmarks/bench_crawl.py --only deep-100  # one crawl (or more, by name)
    .venv/bin/python benchmarks/bench_crawl.py --profile --only deep-100  # calls per page
    .venv/bin/python benchmarks/bench_crawl.py --page-rules  # also mode d

It is a script, not a test: it asserts nothing about timings.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

# harness puts the repository root first on sys.path: the working tree is measured.
import harness

MODES = ("a", "b", "c")
#: With ``--page-rules``: the add-on, and every page's page-level rules read.
PAGE_MODE = "d"
MODE_NAMES = {
    "a": "ROBOTSTXT_OBEY = False",
    "b": "Scrapy's built-in",
    "c": "scrapy_robots_rfc add-on",
    "d": "add-on, page-level rules read",
}
HOST = "127.0.0.1"
CONCURRENT_REQUESTS = 32
CONCURRENT_REQUESTS_PER_DOMAIN = 8
#: Disallowed URLs requested per origin in modes b and c.
FORBIDDEN_PER_ORIGIN = 3
ROUNDS = 5
WARM_UP_ORIGINS = 5
WARM_UP_PAGES = 20
#: A crawl that takes longer has hung (the longest takes about 20 s on 2 cores).
CRAWL_TIMEOUT_S = 300


@dataclass(frozen=True)
class Crawl:
    """One crawl of the site, and its targets (issues 11 and 24): ratio name
    (``c_over_b``, ``c_over_a``) -> the least it should be. Targets are
    reported, never asserted."""

    name: str
    title: str
    origins: int
    pages: int
    targets: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.origins * self.pages


CRAWLS = (
    Crawl("deep-100", "deep 20x100", 20, 100, {"c_over_b": 1.0, "c_over_a": 0.95}),
    Crawl("deep-400", "deep 20x400", 20, 400),
    Crawl("broad", "broad 200x10", 200, 10, {"c_over_b": 1.0}),
    # Issue 37: a cost per origin shows most here (1 page each).
    Crawl("wide", "wide 200x1", 200, 1, {"c_over_b": 0.97}),
)
QUICK_CRAWLS = (
    Crawl("deep-100", "deep 5x40 (quick)", 5, 40),
    Crawl("deep-400", "deep 5x120 (quick)", 5, 120),
    Crawl("broad", "broad 40x5 (quick)", 40, 5),
    Crawl("wide", "wide 40x1 (quick)", 40, 1),
)

ROBOTS_TXT = """\
# robots.txt of the bench_crawl site
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

Sitemap: http://{host}:{port}/sitemap.xml
"""


# --- the site (runs in its own process) -----------------------------------


def _response(status: str, content_type: str, body: bytes) -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\nServer: bench_crawl\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


def _page(port: int, path: str) -> bytes:
    links = "".join(f'<li><a href="/page/{n}">page {n}</a></li>' for n in range(10))
    body = (
        f"<!DOCTYPE html>\n<html><head><title>{path} on {port}</title></head>"
        f"<body><h1>{path}</h1><p>A small page of the bench_crawl site.</p>"
        f"<ul>{links}</ul></body></html>\n"
    )
    return _response("200 OK", "text/html; charset=utf-8", body.encode())


class _Http(asyncio.Protocol):
    """Just enough HTTP/1.1 for Scrapy: GET, keep-alive, no request bodies."""

    def __init__(self, port: int, cache: dict[bytes, bytes]) -> None:
        self.port = port
        self.cache = cache
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head, self.buffer = self.buffer[:end], self.buffer[end + 4 :]
            parts = head.split(b"\r\n", 1)[0].split(b" ")
            path = parts[1] if len(parts) > 2 else b"/"
            reply = self.cache.get(path)
            if reply is None:
                reply = self.cache[path] = self._reply(path.decode("latin-1"))
            self.transport.write(reply)
            if b"connection: close" in head.lower():
                self.transport.close()
                return

    def _reply(self, path: str) -> bytes:
        if path == "/robots.txt":
            text = ROBOTS_TXT.format(host=HOST, port=self.port)
            return _response("200 OK", "text/plain", text.encode())
        return _page(self.port, path)


def _protocol(holder: list[int], cache: dict[bytes, bytes]) -> _Http:
    """A connection to the origin whose port is ``holder[0]``."""
    return _Http(holder[0], cache)


async def _serve(origins: int) -> None:
    loop = asyncio.get_running_loop()
    servers = []
    ports = []
    for _ in range(origins):
        holder: list[int] = []  # the port, once known
        server = await loop.create_server(partial(_protocol, holder, {}), HOST, 0, backlog=512)
        port = server.sockets[0].getsockname()[1]
        holder.append(port)
        servers.append(server)
        ports.append(port)
    print("PORTS " + " ".join(map(str, ports)), flush=True)
    # Serve until the parent closes our stdin (or dies).
    stop = asyncio.Event()
    threading.Thread(
        target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(stop.set)), daemon=True
    ).start()
    await stop.wait()
    for server in servers:
        server.close()


class Site:
    """The server process, started and stopped by the parent."""

    def __init__(self, origins: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(origins)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().split()
        if not line or line[0] != "PORTS":
            self.stop()
            sys.exit(f"bench_crawl: the site did not start (it said {line!r})")
        self.ports = [int(p) for p in line[1:]]

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# --- the crawl (runs in its own process) ----------------------------------


def plan(ports: Sequence[int], pages: int, forbidden: bool) -> Iterator[str]:
    """Every URL of the crawl, interleaved across origins; with
    ``forbidden``, ``FORBIDDEN_PER_ORIGIN`` disallowed ones per origin are
    spread among the pages."""
    kinds = ("/private/{n}", "/page/{n}/edit", "/files/report-{n}.pdf")
    # After which page each disallowed URL comes (several after one page
    # when there are few pages: 200 origins x 1 page).
    at: dict[int, list[int]] = {}
    for k in range(FORBIDDEN_PER_ORIGIN):
        at.setdefault(pages * (k + 1) // (FORBIDDEN_PER_ORIGIN + 1), []).append(k)
    for n in range(pages):
        for port in ports:
            yield f"http://{HOST}:{port}/page/{n}"
        for k in at.get(n, []) if forbidden else []:
            kind = kinds[k % len(kinds)]
            for port in ports:
                yield f"http://{HOST}:{port}" + kind.format(n=f"{n}-{k}")


def crawl_settings(mode: str) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "ROBOTSTXT_OBEY": mode != "a",
        "CONCURRENT_REQUESTS": CONCURRENT_REQUESTS,
        "CONCURRENT_REQUESTS_PER_DOMAIN": CONCURRENT_REQUESTS_PER_DOMAIN,
        "DOWNLOAD_DELAY": 0,
        "RETRY_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "WARNING",
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
    }
    if mode in ("c", PAGE_MODE):
        settings["ADDONS"] = {"scrapy_robots_rfc.Addon": 100}
    if mode == PAGE_MODE:  # the spider middleware is configured too
        settings["ROBOTSTXT_RFC_NOFOLLOW"] = True
        settings["ROBOTSTXT_RFC_NOINDEX"] = "drop"
    return settings


def run_crawl(mode: str, ports: Sequence[int], pages: int, profile_out: str | None) -> None:
    """One crawl; prints one ``RESULT {json}`` line on stdout."""
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    class BenchSpider(scrapy.Spider):
        name = "bench_crawl"

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.pages = 0
            self.others = 0
            self.first_page: float | None = None

        def _requests(self) -> Iterator[scrapy.Request]:
            for url in plan(ports, pages, forbidden=mode != "a"):
                yield scrapy.Request(url, callback=self.parse)

        async def start(self) -> Any:
            for request in self._requests():
                yield request

        def start_requests(self) -> Iterator[scrapy.Request]:
            yield from self._requests()

        def parse(self, response: Any) -> None:
            if mode == PAGE_MODE:  # a spider that asks: every page's rules are read
                _ = response.meta["robotstxt_page_rules"].nofollow
            if response.url.split("/", 3)[3].startswith("page/") and response.status == 200:
                self.pages += 1
                if self.first_page is None:
                    self.first_page = time.perf_counter()
            else:
                self.others += 1

    marks: dict[str, Any] = {}

    def opened() -> None:
        marks["wall0"], marks["cpu0"] = time.perf_counter(), time.process_time()

    def closed(reason: str) -> None:
        marks["wall1"], marks["cpu1"] = time.perf_counter(), time.process_time()
        marks["reason"] = reason

    process = CrawlerProcess(crawl_settings(mode))
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
        "mode": mode,
        "seconds": marks["wall1"] - marks["wall0"],
        "cpu_seconds": marks["cpu1"] - marks["cpu0"],
        "first_page_seconds": None if first is None else first - marks["wall0"],
        "reason": marks["reason"],
        "pages": spider.pages,
        "other_responses": spider.others,
        "responses": stats.get("downloader/response_count", 0),
        "robots_requests": stats.get("robotstxt/request_count", 0),
        "forbidden": stats.get("robotstxt/forbidden", 0),
        "scheduled": stats.get("scheduler/enqueued", 0),
        "elapsed_time_seconds": stats.get("elapsed_time_seconds"),
    }
    print("RESULT " + json.dumps(result), flush=True)


# --- the parent -----------------------------------------------------------


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
    responses: int
    robots_requests: int
    forbidden: int
    scheduled: int
    pages_per_s: float
    stderr: str


class CrawlFailed(Exception):
    pass


def crawl(
    mode: str, spec: Crawl, ports: Sequence[int], round_: int, profile_out: str | None = None
) -> Run:
    """Run one crawl of ``spec`` over the first of ``ports`` in a fresh
    process, and check what it downloaded."""
    ports = ports[: spec.origins]
    command = [sys.executable, __file__, "--crawl", mode, "--ports", ",".join(map(str, ports))]
    command += ["--pages", str(spec.pages)]
    if profile_out:
        command += ["--profile-out", profile_out]
    done = subprocess.run(
        command, capture_output=True, text=True, check=False, timeout=CRAWL_TIMEOUT_S
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise CrawlFailed(
            f"{spec.title}, mode {mode}: the crawl exited with {done.returncode}\n"
            f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
    found = json.loads(lines[-1][len("RESULT ") :])
    run = Run(
        crawl=spec.name,
        mode=mode,
        round=round_,
        seconds=found["seconds"],
        cpu_seconds=found["cpu_seconds"],
        first_page_seconds=found["first_page_seconds"],
        pages=found["pages"],
        other_responses=found["other_responses"],
        responses=found["responses"],
        robots_requests=found["robots_requests"],
        forbidden=found["forbidden"],
        scheduled=found["scheduled"],
        pages_per_s=found["pages"] / found["seconds"],
        stderr=done.stderr.strip(),
    )
    problems = check(run, spec, found["reason"])
    if problems:
        raise CrawlFailed(
            f"{spec.title}, mode {mode} ({MODE_NAMES[mode]}), round {round_}: "
            + "; ".join(problems)
            + f"\nresult: {found}\nstderr:\n{done.stderr}"
        )
    return run


def check(run: Run, spec: Crawl, reason: str) -> list[str]:
    """What differs from the expected crawl: every allowed page downloaded
    once, nothing else but robots.txt, every disallowed URL dropped."""
    problems = []
    robots = 0 if run.mode == "a" else spec.origins
    forbidden = 0 if run.mode == "a" else spec.origins * FORBIDDEN_PER_ORIGIN
    expected = {
        "close reason": (reason, "finished"),
        "allowed pages": (run.pages, spec.total),
        "other responses": (run.other_responses, 0),
        "responses (pages + robots.txt)": (run.responses, spec.total + robots),
        "robotstxt/request_count": (run.robots_requests, robots),
        "robotstxt/forbidden": (run.forbidden, forbidden),
    }
    for what, (got, want) in expected.items():
        if got != want:
            problems.append(f"{what}: {got}, expected {want}")
    return problems


def rotate(round_: int, modes: tuple[str, ...] = MODES) -> tuple[str, ...]:
    shift = round_ % len(modes)
    return modes[shift:] + modes[:shift]


def ratio_text(value: float, target: float | None) -> str:
    if target is None:
        return f"{value:.3f}"
    return harness.against(value, target, f"{value:.3f}", f"{target:.2f}", ">=")


def report_crawl(spec: Crawl, runs: Sequence[Run]) -> dict[str, Any]:
    """The table and summary of one crawl's runs; their figures."""
    ran = tuple(mode for mode in (*MODES, PAGE_MODE) if any(r.mode == mode for r in runs))
    by_mode = {
        mode: sorted((r for r in runs if r.mode == mode), key=lambda r: r.round) for mode in ran
    }
    summary: dict[str, Any] = {"title": spec.title, "origins": spec.origins, "pages": spec.pages}
    summary["modes"] = modes = {}
    rows = []
    for mode in ran:
        mine = by_mode[mode]
        rates = [r.pages_per_s for r in mine]
        median = statistics.median(rates)
        cpu_median = statistics.median(r.cpu_seconds for r in mine)
        firsts = [r.first_page_seconds for r in mine if r.first_page_seconds is not None]
        first = statistics.median(firsts) if firsts else None
        modes[mode] = {
            "name": MODE_NAMES[mode],
            "median_pages_per_s": median,
            "min_pages_per_s": min(rates),
            "max_pages_per_s": max(rates),
            "median_seconds": statistics.median(r.seconds for r in mine),
            "median_cpu_seconds": cpu_median,
            "pages_per_cpu_s": spec.total / cpu_median,
            "median_first_page_seconds": first,
            "scheduled": sorted({r.scheduled for r in mine}),
            "robots_requests": sorted({r.robots_requests for r in mine}),
        }
        rows.append(
            [
                f"{mode}. {MODE_NAMES[mode]}",
                *(f"{rate:,.0f}" for rate in rates),
                f"{median:,.0f}",
                f"{(max(rates) - min(rates)) / median * 100:.1f}%",
                f"{spec.total / cpu_median:,.0f}",
                "-" if first is None else f"{first * 1000:.0f}",
                "/".join(map(str, modes[mode]["scheduled"])),
            ]
        )
    rounds = [f"r{r.round}" for r in by_mode["a"]]
    print(f"\n{spec.title}: pages/s ({spec.total:,} pages per crawl, one crawl a process)")
    headers = ["mode", *rounds, "median", "spread", "pages/CPU-s", "1st page ms", "scheduled"]
    print(harness.table(headers, rows))
    ratios = [("c", "b"), ("c", "a")]
    if PAGE_MODE in by_mode:
        ratios.append((PAGE_MODE, "c"))
    for mine_, other in ratios:
        key = f"{mine_}_over_{other}"
        target = spec.targets.get(key)
        pairs = list(zip(by_mode[mine_], by_mode[other], strict=True))
        of_medians = modes[mine_]["median_pages_per_s"] / modes[other]["median_pages_per_s"]
        paired = statistics.median(c.pages_per_s / o.pages_per_s for c, o in pairs)
        extra = statistics.median(c.seconds - o.seconds for c, o in pairs)
        summary[key] = of_medians
        summary[f"paired_{key}"] = paired
        summary[f"paired_extra_seconds_{mine_}_minus_{other}"] = extra
        if target is not None:
            summary.setdefault("targets", {})[key] = target
        print(
            f"   {mine_}/{other}: per-round median {ratio_text(paired, target)};"
            f" of the medians {of_medians:.3f}; {mine_} - {other} per round"
            f" {extra * 1000:+.0f} ms"
        )
    return summary


def report(runs: Sequence[Run], crawls: Sequence[Crawl]) -> dict[str, Any]:
    summary = {
        spec.name: report_crawl(spec, [r for r in runs if r.crawl == spec.name]) for spec in crawls
    }
    print(
        "\n   r1, r2, …: pages/s of each round; spread = (max - min) / median over the\n"
        "   rounds; pages/CPU-s uses the median CPU time of the crawl process between\n"
        "   spider_opened and spider_closed; 1st page ms: median time from\n"
        "   spider_opened to the first page reaching the spider; scheduled: the\n"
        "   scheduler/enqueued stat. Targets are reported, never asserted; the\n"
        "   per-round ratio cancels slow drifts of the machine."
    )
    for spec in crawls:
        for mode in ("b", "c"):
            counts = summary[spec.name]["modes"][mode]["robots_requests"]
            if counts != [spec.origins]:
                print(f"   {spec.title}, mode {mode}: robotstxt/request_count {counts}")
    for r in runs:
        if r.stderr:
            print(
                f"\n   NOTE: {r.crawl} mode {r.mode} round {r.round} wrote to stderr:\n{r.stderr}"
            )
    return summary


#: Where each mode's robots.txt code lives, for ``--profile``: Scrapy's
#: built-in middleware and its parser (Protego), or this package.
ROBOTS_CODE = {
    "b": ("/scrapy/downloadermiddlewares/robotstxt.py", "/scrapy/robotstxt.py", "/protego/"),
    "c": ("/scrapy_robots_rfc/",),
    PAGE_MODE: ("/scrapy_robots_rfc/",),
}


def _per_page(
    stats: pstats.Stats, pages: int, where: tuple[str, ...] = ()
) -> tuple[float, float, dict[str, tuple[float, float]]]:
    """Calls and profiled seconds per page: of the whole process, of the
    functions defined in files whose path holds one of ``where``, and of
    each of those files."""
    entries: dict[Any, tuple[Any, ...]] = stats.stats  # type: ignore[attr-defined]
    calls = seconds = 0.0
    files: dict[str, tuple[float, float]] = {}
    for (path, _line, _name), (_primitive, count, own, *_rest) in entries.items():
        calls += count
        seconds += own
        path = path.replace(os.sep, "/")
        if any(part in path for part in where):
            known = files.get(path, (0.0, 0.0))
            files[path] = (known[0] + count / pages, known[1] + own / pages)
    return calls / pages, seconds / pages, files


def profile(site: Site, specs: Sequence[Crawl], modes: Sequence[str]) -> None:
    """One crawl of each of ``specs`` in each of ``modes`` under cProfile:
    calls per page of the whole crawl process and of each mode's robots.txt
    code (the calls are counted exactly, run after run; the times are the
    profiler's, inflated by it), this package's files, and its functions by
    cumulative time."""
    for spec in specs:
        rows = []
        found: dict[str, tuple[float, float, dict[str, tuple[float, float]]]] = {}
        with tempfile.TemporaryDirectory() as folder:
            for mode in modes:
                out = os.path.join(folder, f"{mode}.prof")
                crawl(mode, spec, site.ports, 0, profile_out=out)
                stats = pstats.Stats(out, stream=sys.stdout)
                found[mode] = _per_page(stats, spec.total, ROBOTS_CODE.get(mode, ()))
                calls, seconds, files = found[mode]
                code = f"{sum(c for c, _ in files.values()):,.1f}" if mode in ROBOTS_CODE else "-"
                code_us = (
                    f"{sum(s for _, s in files.values()) * 1e6:,.1f}"
                    if mode in ROBOTS_CODE
                    else "-"
                )
                rows.append(
                    [
                        f"{mode}. {MODE_NAMES[mode]}",
                        f"{calls:,.0f}",
                        f"{seconds * 1e6:,.0f}",
                        code,
                        code_us,
                    ]
                )
            print(
                f"\n{spec.title} under cProfile, per page ({spec.total:,} pages, one crawl a mode;"
                " the whole process.start())"
            )
            headers = ["mode", "calls", "µs", "robots.txt code: calls", "µs"]
            print(harness.table(headers, rows))
            if "b" in found and "c" in found:
                extra = found["c"][0] - found["b"][0]
                print(f"   c - b: {extra:+,.1f} calls per page, all of the crawl process's")
            print(
                "   robots.txt code: the functions of Scrapy's built-in middleware and Protego"
                " (b), or of\n   this package (c, d); the calls they make into Scrapy and"
                " the standard library count\n   in the whole process only. Calls are"
                " counted exactly; times are inflated by the profiler."
            )
            ours = "c" if "c" in found else modes[-1]
            if ours in ROBOTS_CODE:
                files = found[ours][2]
                root = ROBOTS_CODE[ours][0]
                file_rows = [
                    [path.split(root, 1)[-1], f"{calls:,.2f}", f"{seconds * 1e6:,.2f}"]
                    for path, (calls, seconds) in sorted(files.items(), key=lambda i: -i[1][1])
                ][:15]
                print(f"\n   mode {ours}, this package's 15 costliest files, per page:")
                print(harness.table(["file", "calls", "µs"], file_rows))
                stats = pstats.Stats(os.path.join(folder, f"{ours}.prof"), stream=sys.stdout)
                stats.sort_stats("cumulative")
                print(f"\n   mode {ours}, scrapy_robots_rfc, top 15 by cumulative time:")
                stats.print_stats(r"scrapy_robots_rfc", 15)


def main(argv: Sequence[str] | None = None) -> None:
    parser = harness.arguments(__doc__, "1 round of small crawls (seconds)")
    parser.add_argument(
        "--rounds", type=int, metavar="N", help=f"rounds of a, b, c (default {ROUNDS})"
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=[spec.name for spec in CRAWLS],
        help="run this crawl only (repeatable); default: all",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="instead of timing: one crawl of each mode under cProfile, per page",
    )
    parser.add_argument(
        "--page-rules",
        action="store_true",
        help="also mode d: the add-on with every page's page-level rules read",
    )
    # Internal: the server and crawl child processes.
    parser.add_argument("--serve", type=int, metavar="ORIGINS", help=argparse.SUPPRESS)
    parser.add_argument("--crawl", choices=(*MODES, PAGE_MODE), help=argparse.SUPPRESS)
    parser.add_argument("--ports", help=argparse.SUPPRESS)
    parser.add_argument("--pages", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--profile-out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.serve is not None:
        asyncio.run(_serve(args.serve))
        return
    if args.crawl is not None:
        ports = [int(p) for p in args.ports.split(",")]
        run_crawl(args.crawl, ports, args.pages, args.profile_out)
        return

    crawls = QUICK_CRAWLS if args.quick else CRAWLS
    if args.only:
        crawls = tuple(spec for spec in crawls if spec.name in args.only)
    rounds = 1 if args.quick else ROUNDS
    if args.rounds is not None:
        rounds = max(1, args.rounds)
    started = time.perf_counter()
    modes = (*MODES, PAGE_MODE) if args.page_rules else MODES
    harness.title("crawl benchmark", args.quick)
    print(
        f"{harness.python_text(machine=True)}; Scrapy {harness.version('scrapy')},"
        f" Twisted {harness.version('twisted')}, Protego {harness.version('protego')};\n"
        f"{harness.package_text()} ({harness.git_state()})"
    )
    print(
        "Crawls: " + ", ".join(spec.title for spec in crawls) + f" (+{FORBIDDEN_PER_ORIGIN}"
        " disallowed URLs per origin in b and c), server in its own process;\n"
        f"CONCURRENT_REQUESTS = {CONCURRENT_REQUESTS}, CONCURRENT_REQUESTS_PER_DOMAIN ="
        f" {CONCURRENT_REQUESTS_PER_DOMAIN} (one download slot: every origin is on {HOST});\n"
        f"{rounds} round(s) of every crawl in modes {', '.join(modes)}, in rotating order"
    )
    site = Site(max(spec.origins for spec in crawls))
    runs: list[Run] = []
    try:
        if args.profile:
            profile(site, crawls, modes)
            return
        if not args.quick:
            warm_up = Crawl("warm-up", "warm-up", WARM_UP_ORIGINS, WARM_UP_PAGES)
            crawl("c", warm_up, site.ports, 0)  # untimed
        for round_ in range(1, rounds + 1):
            for spec in crawls:
                for mode in rotate(round_ - 1, modes):
                    run = crawl(mode, spec, site.ports, round_)
                    runs.append(run)
                    print(
                        f"  round {round_} {spec.title} mode {mode}: {run.seconds:.3f} s ="
                        f" {run.pages_per_s:,.0f} pages/s (CPU {run.cpu_seconds:.2f} s,"
                        f" scheduled {run.scheduled}, robots.txt {run.robots_requests},"
                        f" forbidden {run.forbidden})",
                        flush=True,
                    )
    except CrawlFailed as exc:
        sys.exit(f"bench_crawl: FAILED: {exc}")
    finally:
        site.stop()

    summary = report(runs, crawls)
    results = {
        "quick": args.quick,
        "rounds": rounds,
        "crawls": [asdict(spec) for spec in crawls],
        "python": platform.python_version(),
        "scrapy": harness.version("scrapy"),
        "protego": harness.version("protego"),
        "git": harness.git_state(),
        "concurrent_requests": CONCURRENT_REQUESTS,
        "concurrent_requests_per_domain": CONCURRENT_REQUESTS_PER_DOMAIN,
        "forbidden_per_origin": FORBIDDEN_PER_ORIGIN,
        "summary": summary,
        "runs": [asdict(r) for r in runs],
    }
    harness.finish(args.json, results, started)


if __name__ == "__main__":
    main()
