"""Crawl speed with robots.txt off, with Scrapy's built-in middleware, and
with this package's, against a local site.

The site: 20 origins (20 ports on 127.0.0.1) of 200 pages each, served by a
small asyncio HTTP/1.1 server (keep-alive, canned responses) in a separate
process, so that the server does not compete with the crawler for the GIL.
Every origin serves the same robots.txt: a ``User-agent: *`` group of 11
allow/disallow rules (prefixes, ``*`` and ``$``) and a ``BadBot`` group.
The pages ``/page/0`` to ``/page/199`` are allowed by it; 3 more URLs per
origin (``/private/…``, ``/page/…/edit``, ``….pdf``) are disallowed.

Three modes, all with Scrapy's default settings except those named here:

a. ``ROBOTSTXT_OBEY = False``. The disallowed URLs are not requested, so
   the crawl downloads the same 4,000 pages as the two others.
b. Scrapy's built-in ``RobotsTxtMiddleware`` (``ROBOTSTXT_OBEY = True``,
   default parser, Protego).
c. This package: ``ROBOTSTXT_OBEY = True`` and
   ``ADDONS = {"scrapy_robots_rfc.Addon": 100}``.

(b) and (c) download the 4,000 pages and 20 robots.txt files and drop the
60 disallowed requests; every run is checked for that, and the benchmark
fails if a page count, a ``robotstxt/forbidden`` or a
``robotstxt/request_count`` stat differs.

The spider yields every request from ``start()`` (``start_requests()`` too,
for older Scrapy), interleaved across origins. ``CONCURRENT_REQUESTS`` is 64;
all the origins share the host 127.0.0.1, which is Scrapy's default download
slot key, so ``CONCURRENT_REQUESTS_PER_DOMAIN`` is 64 too (with the default,
8, the whole crawl would be limited to 8 requests at a time). No retries, no
delay, no telnet console, ``LOG_LEVEL = "WARNING"``, the asyncio reactor.

Each crawl runs in a fresh process (a Twisted reactor cannot be restarted):
5 rounds of the three modes in rotating order, after one untimed warm-up
crawl. Only the crawl is timed, from ``spider_opened`` to
``spider_closed`` (wall clock, and the crawl process's CPU time), not the
process start-up. pages/s = 4,000 pages / crawl seconds. The report gives
each mode's median and the ratios c/a and c/b of the medians next to their
targets, and also the median of the per-round ratios (the three crawls of a
round run back to back, so this cancels slow drifts of the machine). A
child process that writes anything to stderr (a warning, an error log) is
reported.

The crawl is CPU-bound (one core, the crawl process); the rounds spread by
about 10 % on a shared 2-core machine, so a difference of a few percent
needs more rounds (``--rounds``) to be told from noise. ``--profile`` shows
where a mode-c crawl spends its time.

Run it directly::

    .venv/bin/python benchmarks/bench_crawl.py            # about 90 seconds
    .venv/bin/python benchmarks/bench_crawl.py --quick    # 1 round, 5 origins x 40 pages
    .venv/bin/python benchmarks/bench_crawl.py --json results.json
    .venv/bin/python benchmarks/bench_crawl.py --rounds 9  # more rounds, less noise
    .venv/bin/python benchmarks/bench_crawl.py --profile  # one mode-c crawl under cProfile

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
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any

# harness puts the repository root first on sys.path: the working tree is measured.
import harness

MODES = ("a", "b", "c")
MODE_NAMES = {
    "a": "ROBOTSTXT_OBEY = False",
    "b": "Scrapy's built-in",
    "c": "scrapy_robots_rfc add-on",
}
HOST = "127.0.0.1"
CONCURRENCY = 64
#: Disallowed URLs requested per origin in modes b and c.
FORBIDDEN_PER_ORIGIN = 3
WARM_UP_ORIGINS = 5
WARM_UP_PAGES = 20
#: A crawl that takes longer has hung (a full one takes about 5 s).
CRAWL_TIMEOUT_S = 300

# Targets from the design brief; reported, never asserted.
TARGET_VS_OFF = 0.97
TARGET_VS_BUILTIN = 1.00

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


@dataclass(frozen=True)
class Settings:
    rounds: int
    origins: int
    pages: int


FULL = Settings(rounds=5, origins=20, pages=200)
QUICK = Settings(rounds=1, origins=5, pages=40)


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
    at = {pages * (k + 1) // (FORBIDDEN_PER_ORIGIN + 1): k for k in range(FORBIDDEN_PER_ORIGIN)}
    for n in range(pages):
        for port in ports:
            yield f"http://{HOST}:{port}/page/{n}"
        if forbidden and n in at:
            kind = kinds[at[n] % len(kinds)]
            for port in ports:
                yield f"http://{HOST}:{port}" + kind.format(n=n)


def crawl_settings(mode: str) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "ROBOTSTXT_OBEY": mode != "a",
        "CONCURRENT_REQUESTS": CONCURRENCY,
        # One download slot for every origin (the host is the slot key).
        "CONCURRENT_REQUESTS_PER_DOMAIN": CONCURRENCY,
        "DOWNLOAD_DELAY": 0,
        "RETRY_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "WARNING",
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
    }
    if mode == "c":
        settings["ADDONS"] = {"scrapy_robots_rfc.Addon": 100}
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

        def _requests(self) -> Iterator[scrapy.Request]:
            for url in plan(ports, pages, forbidden=mode != "a"):
                yield scrapy.Request(url, callback=self.parse)

        async def start(self) -> Any:
            for request in self._requests():
                yield request

        def start_requests(self) -> Iterator[scrapy.Request]:
            yield from self._requests()

        def parse(self, response: Any) -> None:
            if response.url.split("/", 3)[3].startswith("page/") and response.status == 200:
                self.pages += 1
            else:
                self.others += 1

    marks: dict[str, float] = {}

    def opened() -> None:
        marks["wall0"], marks["cpu0"] = time.perf_counter(), time.process_time()

    def closed(reason: str) -> None:
        marks["wall1"], marks["cpu1"] = time.perf_counter(), time.process_time()
        marks["reason"] = reason  # type: ignore[assignment]

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
    result = {
        "mode": mode,
        "seconds": marks["wall1"] - marks["wall0"],
        "cpu_seconds": marks["cpu1"] - marks["cpu0"],
        "reason": marks["reason"],
        "pages": spider.pages,
        "other_responses": spider.others,
        "responses": stats.get("downloader/response_count", 0),
        "robots_requests": stats.get("robotstxt/request_count", 0),
        "forbidden": stats.get("robotstxt/forbidden", 0),
        "elapsed_time_seconds": stats.get("elapsed_time_seconds"),
    }
    print("RESULT " + json.dumps(result), flush=True)


# --- the parent -----------------------------------------------------------


@dataclass
class Run:
    mode: str
    round: int
    seconds: float
    cpu_seconds: float
    pages: int
    other_responses: int
    responses: int
    robots_requests: int
    forbidden: int
    pages_per_s: float
    stderr: str


class CrawlFailed(Exception):
    pass


def crawl(
    mode: str, ports: Sequence[int], pages: int, round_: int, profile_out: str | None = None
) -> Run:
    """Run one crawl in a fresh process, and check what it downloaded."""
    command = [sys.executable, __file__, "--crawl", mode, "--ports", ",".join(map(str, ports))]
    command += ["--pages", str(pages)]
    if profile_out:
        command += ["--profile-out", profile_out]
    done = subprocess.run(
        command, capture_output=True, text=True, check=False, timeout=CRAWL_TIMEOUT_S
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise CrawlFailed(
            f"mode {mode} crawl exited with {done.returncode}\n"
            f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
    found = json.loads(lines[-1][len("RESULT ") :])
    run = Run(
        mode=mode,
        round=round_,
        seconds=found["seconds"],
        cpu_seconds=found["cpu_seconds"],
        pages=found["pages"],
        other_responses=found["other_responses"],
        responses=found["responses"],
        robots_requests=found["robots_requests"],
        forbidden=found["forbidden"],
        pages_per_s=found["pages"] / found["seconds"],
        stderr=done.stderr.strip(),
    )
    problems = check(run, len(ports), pages, found["reason"])
    if problems:
        raise CrawlFailed(
            f"mode {mode} ({MODE_NAMES[mode]}) round {round_}: " + "; ".join(problems) + "\n"
            f"result: {found}\nstderr:\n{done.stderr}"
        )
    return run


def check(run: Run, origins: int, pages: int, reason: str) -> list[str]:
    """What differs from the expected crawl: every allowed page downloaded
    once, nothing else but robots.txt, every disallowed URL dropped."""
    problems = []
    robots = 0 if run.mode == "a" else origins
    forbidden = 0 if run.mode == "a" else origins * FORBIDDEN_PER_ORIGIN
    expected = {
        "close reason": (reason, "finished"),
        "allowed pages": (run.pages, origins * pages),
        "other responses": (run.other_responses, 0),
        "responses (pages + robots.txt)": (run.responses, origins * pages + robots),
        "robotstxt/request_count": (run.robots_requests, robots),
        "robotstxt/forbidden": (run.forbidden, forbidden),
    }
    for what, (got, want) in expected.items():
        if got != want:
            problems.append(f"{what}: {got}, expected {want}")
    return problems


def rotate(round_: int) -> tuple[str, ...]:
    shift = round_ % len(MODES)
    return MODES[shift:] + MODES[:shift]


def ratio_text(value: float, target: float) -> str:
    return harness.against(value, target, f"{value:.3f}", f"{target:.2f}", ">=")


def report(runs: Sequence[Run], settings: Settings) -> dict[str, Any]:
    by_mode = {mode: [r for r in runs if r.mode == mode] for mode in MODES}
    summary: dict[str, Any] = {"modes": {}}
    rows = []
    for mode in MODES:
        rates = [r.pages_per_s for r in by_mode[mode]]
        cpu = [r.cpu_seconds for r in by_mode[mode]]
        median = statistics.median(rates)
        cpu_median = statistics.median(cpu)
        summary["modes"][mode] = {
            "name": MODE_NAMES[mode],
            "median_pages_per_s": median,
            "min_pages_per_s": min(rates),
            "max_pages_per_s": max(rates),
            "median_cpu_seconds": cpu_median,
            "pages_per_cpu_s": settings.origins * settings.pages / cpu_median,
            "robots_requests": sorted({r.robots_requests for r in by_mode[mode]}),
        }
        rows.append(
            [
                f"{mode}. {MODE_NAMES[mode]}",
                *(f"{rate:,.0f}" for rate in rates),
                f"{median:,.0f}",
                f"{(max(rates) - min(rates)) / median * 100:.1f}%",
                f"{settings.origins * settings.pages / cpu_median:,.0f}",
            ]
        )
    rounds = [f"round {n + 1}" for n in range(settings.rounds)]
    print(f"\npages/s ({settings.origins * settings.pages:,} pages per crawl, one crawl a process)")
    print(harness.table(["mode", *rounds, "median", "spread", "pages/CPU-s"], rows))
    print(
        "   spread = (max - min) / median over the rounds; pages/CPU-s uses the crawl\n"
        "   process's median CPU time between spider_opened and spider_closed."
    )
    medians = {m: summary["modes"][m]["median_pages_per_s"] for m in MODES}
    per_cpu = {m: summary["modes"][m]["pages_per_cpu_s"] for m in MODES}
    summary["c_over_a"] = medians["c"] / medians["a"]
    summary["c_over_b"] = medians["c"] / medians["b"]
    summary["cpu_c_over_a"] = per_cpu["c"] / per_cpu["a"]
    summary["cpu_c_over_b"] = per_cpu["c"] / per_cpu["b"]
    paired = {
        other: statistics.median(
            c.pages_per_s / o.pages_per_s for c, o in zip(by_mode["c"], by_mode[other], strict=True)
        )
        for other in ("a", "b")
    }
    summary["paired_c_over_a"] = paired["a"]
    summary["paired_c_over_b"] = paired["b"]
    print("\nSummary (targets are reported, never asserted)")
    print(f"   median pages/s c/a: {ratio_text(summary['c_over_a'], TARGET_VS_OFF)}")
    print(f"   median pages/s c/b: {ratio_text(summary['c_over_b'], TARGET_VS_BUILTIN)}")
    print(
        f"   (median of the per-round ratios, which cancels slow drifts:"
        f" c/a {paired['a']:.3f}, c/b {paired['b']:.3f})"
    )
    print(
        f"   (pages per CPU-second: c/a {summary['cpu_c_over_a']:.3f},"
        f" c/b {summary['cpu_c_over_b']:.3f})"
    )
    for mode in ("b", "c"):
        counts = ", ".join(map(str, summary["modes"][mode]["robots_requests"]))
        print(
            f"   robotstxt/request_count, {mode}: {counts}"
            f" (expected {settings.origins}, one per origin)"
        )
    noisy = [r for r in runs if r.stderr]
    for r in noisy:
        print(f"\n   NOTE: mode {r.mode} round {r.round} wrote to stderr:\n{r.stderr}")
    return summary


def profile(site: Site, settings: Settings) -> None:
    """One mode-c crawl under cProfile: this package's functions, then
    everything, by cumulative time."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "crawl.prof")
        run = crawl("c", site.ports, settings.pages, 0, profile_out=out)
        print(
            f"\nmode c under cProfile: {run.pages_per_s:,.0f} pages/s"
            " (slower than unprofiled; whole process.start() profiled)"
        )
        stats = pstats.Stats(out, stream=sys.stdout)
        stats.sort_stats("cumulative")
        print("\nscrapy_robots_rfc, top 15 by cumulative time:")
        stats.print_stats(r"scrapy_robots_rfc", 15)
        print("\nall, top 25 by cumulative time:")
        stats.print_stats(25)


def main(argv: Sequence[str] | None = None) -> None:
    parser = harness.arguments(__doc__, "1 round, 5 origins x 40 pages (seconds)")
    parser.add_argument(
        "--rounds", type=int, metavar="N", help=f"rounds of a, b, c (default {FULL.rounds})"
    )
    parser.add_argument(
        "--profile", action="store_true", help="profile one mode-c crawl instead of timing"
    )
    # Internal: the server and crawl child processes.
    parser.add_argument("--serve", type=int, metavar="ORIGINS", help=argparse.SUPPRESS)
    parser.add_argument("--crawl", choices=MODES, help=argparse.SUPPRESS)
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

    settings = QUICK if args.quick else FULL
    if args.rounds is not None:
        settings = replace(settings, rounds=max(1, args.rounds))
    started = time.perf_counter()
    harness.title("crawl benchmark", args.quick)
    print(
        f"{harness.python_text(machine=True)}; Scrapy {harness.version('scrapy')},"
        f" Twisted {harness.version('twisted')}, Protego {harness.version('protego')};\n"
        + harness.package_text()
    )
    print(
        f"Site: {settings.origins} origins x {settings.pages} pages (+{FORBIDDEN_PER_ORIGIN}"
        f" disallowed URLs per origin in b and c), server in its own process;\n"
        f"CONCURRENT_REQUESTS = CONCURRENT_REQUESTS_PER_DOMAIN = {CONCURRENCY};"
        f" {settings.rounds} round(s) of modes a, b, c in rotating order"
    )
    site = Site(settings.origins)
    runs: list[Run] = []
    try:
        if args.profile:
            profile(site, settings)
            return
        if not args.quick:
            crawl("c", site.ports[:WARM_UP_ORIGINS], WARM_UP_PAGES, 0)  # untimed warm-up
        for round_ in range(settings.rounds):
            for mode in rotate(round_):
                run = crawl(mode, site.ports, settings.pages, round_ + 1)
                runs.append(run)
                print(
                    f"  round {round_ + 1} mode {mode}: {run.pages:,} pages in"
                    f" {run.seconds:.2f} s = {run.pages_per_s:,.0f} pages/s"
                    f" (CPU {run.cpu_seconds:.2f} s, robots.txt requests {run.robots_requests},"
                    f" forbidden {run.forbidden})",
                    flush=True,
                )
    except CrawlFailed as exc:
        sys.exit(f"bench_crawl: FAILED: {exc}")
    finally:
        site.stop()

    summary = report(runs, settings)
    results = {
        "quick": args.quick,
        "settings": asdict(settings),
        "python": platform.python_version(),
        "scrapy": harness.version("scrapy"),
        "protego": harness.version("protego"),
        "concurrency": CONCURRENCY,
        "forbidden_per_origin": FORBIDDEN_PER_ORIGIN,
        "targets": {"c_over_a": TARGET_VS_OFF, "c_over_b": TARGET_VS_BUILTIN},
        "summary": summary,
        "runs": [asdict(r) for r in runs],
    }
    harness.finish(args.json, results, started)


if __name__ == "__main__":
    main()
