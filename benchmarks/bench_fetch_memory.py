"""Peak memory of a crawl whose robots.txt is huge, at several
``ROBOTSTXT_RFC_MAX_BYTES`` (issue 35).

The site: a small threaded HTTP/1.1 server in this process, which streams
each body in 64 KiB writes and never holds it whole:

* ``tiny``: a two-line robots.txt (the baseline: what a crawl costs anyway);
* ``plain``: a 100 MB (10^8 bytes) robots.txt, ``Content-Length`` given,
  of 1,000-byte comment lines after two rules, so that what the parser
  builds from it is small and the figure is the fetch's;
* ``gzip bomb``: 1 GiB of the same text, sent gzip-compressed
  (``Content-Encoding: gzip``, about 1 MB on the wire, compressed once when
  the server starts);
* ``deflate bomb``, ``br bomb``, ``zstd bomb``: the same 1 GiB in the
  other encodings Scrapy's ``HttpCompressionMiddleware`` decodes (br and
  zstd only when their modules are installed);
* ``groups``: 32 MiB of user-agent groups of 28 bytes each
  (``User-agent: b0a1f2`` hex names, ``Allow: /``), 1.2 million groups
  (issue 41), which the parser keeps in full (another crawler may ask for
  any of them);
* ``short comments``: 32 MiB of comment lines of 10 bytes (3.4 million
  lines), which the parser reads and drops;
* ``rules``: a ``User-agent: *`` group of 32 MiB of short rules
  (``Disallow: /p123456``, 2 million), every one of which applies to the
  crawler, so that the crawl keeps them all.

Each crawl runs in a fresh process (``CrawlerProcess``, the add-on, the
asyncio reactor, one page request, which robots.txt allows;
``ROBOTSTXT_RFC_UNREACHABLE_WAIT = 0``, so that a robots.txt found
unreachable ends the crawl at once) at
``ROBOTSTXT_RFC_MAX_BYTES`` of 500 KiB (512,000), 10 MB (10^7) and the
largest the settings allow (32 MiB). When it ends, the process reports
``ru_maxrss`` (its peak resident set, in KiB on Linux) and a few stats.
The table gives the peak, the peak above the ``tiny`` crawl's (the cost
of the robots.txt fetch), and that as a multiple of the limit. With
``--phases``, each case is crawled once more under ``tracemalloc``, which
gives the peak of what Python allocated during the fetch (the download,
decoding and the cut: ``Fetcher.fetch``) and during the parse of the body
read (``RobotsLoader._rules``), each above what was allocated when it began,
as multiples of the limit.

Run it directly::

    .venv/bin/python benchmarks/bench_fetch_memory.py
    .venv/bin/python benchmarks/bench_fetch_memory.py --quick          # 500 KiB only
    .venv/bin/python benchmarks/bench_fetch_memory.py --source /tmp/old  # another tree
    .venv/bin/python benchmarks/bench_fetch_memory.py --phases         # and where it goes
    .venv/bin/python benchmarks/bench_fetch_memory.py --json results.json
    .venv/bin/python benchmarks/bench_fetch_memory.py --sites groups,short,gzip --limits max

``--sites`` keeps the robots.txt files whose name starts with one of its
words, ``--limits`` the limits whose name does (``500``, ``10``, ``max``).

``--source`` measures the package in another folder (e.g. an older commit
unpacked with ``git archive``); its largest limit may differ. It is a
script, not a test: it asserts nothing about sizes.
"""

from __future__ import annotations

import http.server
import socketserver
import sys
import textwrap
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# harness puts the repository root first on sys.path: the working tree is measured.
import harness

ROOT = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024
CHUNK = 64 * 1024
HEAD = b"User-agent: *\nDisallow: /private\n"
LINE = b"#" * 999 + b"\n"
SHORT_LINE = b"# comment\n"
#: The issue's hostile sizes: a file of the largest limit.
HOSTILE_SIZE = 32 * MIB
PLAIN_SIZE = 10**8
BOMB_SIZE = 1024 * MIB
LIMITS = {"500 KiB": 512_000, "10 MB": 10**7, "max (32 MiB)": 32 * MIB}
#: What ``--phases`` measures: the fetch (``Fetcher.fetch``: the download,
#: decoding, the cut) and the parse of the body read (``RobotsLoader._rules``).
PHASES = ("fetch", "parse")


def text(size: int, line: bytes = LINE) -> Iterator[bytes]:
    """:data:`HEAD`, then comment lines (``line``), ``size`` bytes in all,
    in 1 MiB pieces."""
    yield HEAD
    left = size - len(HEAD)
    block = line * (MIB // len(line))
    while left > 0:
        piece = block[:left]
        left -= len(piece)
        yield piece


def groups(size: int) -> Iterator[bytes]:
    """``size`` bytes of 28-byte user-agent groups (``User-agent: b0a1f2``,
    ``Allow: /``; the names repeat after 2**20), in pieces of about 1 MiB;
    the page the crawl asks for is allowed."""
    left = size
    number = 0
    while left > 0:
        piece = b"".join(
            b"User-agent: b%05x\nAllow: /\n" % ((number + n) & 0xFFFFF) for n in range(MIB // 28)
        )[:left]
        number += MIB // 28
        left -= len(piece)
        yield piece


def compressed(encoding: str, size: int) -> bytes | None:
    """``size`` bytes of :func:`text` in ``encoding``; ``None`` when its
    module is not installed."""
    if encoding in ("gzip", "deflate"):
        wbits = 31 if encoding == "gzip" else 15
        z = zlib.compressobj(9, zlib.DEFLATED, wbits)
        return b"".join([*(z.compress(piece) for piece in text(size)), z.flush()])
    if encoding == "br":
        try:
            import brotli
        except ImportError:
            return None
        c = brotli.Compressor(quality=5)
        return b"".join([*(c.process(piece) for piece in text(size)), c.finish()])
    if encoding == "zstd":
        try:
            if sys.version_info >= (3, 14):
                from compression import zstd
            else:
                from backports import zstd
        except ImportError:
            return None
        zc = zstd.ZstdCompressor()
        return b"".join([*(zc.compress(piece) for piece in text(size)), zc.flush()])
    raise ValueError(encoding)


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(robots: Callable[[http.server.BaseHTTPRequestHandler], None]) -> tuple[str, _Server]:
    """A server on a free port of 127.0.0.1 whose ``/robots.txt`` is
    written by ``robots`` and whose other paths are a short page."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            try:
                if self.path == "/robots.txt":
                    robots(self)
                else:
                    body = b"<html><body>ok</body></html>"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    server = _Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


def rules(size: int) -> Iterator[bytes]:
    """``size`` bytes of one ``User-agent: *`` group of short disallow
    rules, in pieces of about 1 MiB; the page the crawl asks for is
    allowed."""
    yield b"User-agent: *\n"
    left = size - 14
    number = 0
    while left > 0:
        piece = b"".join(b"Disallow: /p%d\n" % (number + n) for n in range(MIB // 18))[:left]
        number += MIB // 18
        left -= len(piece)
        yield piece


def streamed(
    size: int, pieces: Callable[[int], Iterator[bytes]] = text
) -> Callable[[http.server.BaseHTTPRequestHandler], None]:
    def write(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.send_header("Content-Length", str(size))
        handler.end_headers()
        for piece in pieces(size):
            for start in range(0, len(piece), CHUNK):
                handler.wfile.write(piece[start : start + CHUNK])

    return write


def encoded(body: bytes, encoding: str) -> Callable[[http.server.BaseHTTPRequestHandler], None]:
    def write(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.send_header("Content-Encoding", encoding)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        for start in range(0, len(body), CHUNK):
            handler.wfile.write(body[start : start + CHUNK])

    return write


#: One crawl, in its own process: ``$BENCH_URL/page`` with the add-on and
#: ``ROBOTSTXT_RFC_MAX_BYTES = $BENCH_LIMIT``; prints ``RESULT {json}``.
CRAWL = textwrap.dedent(
    """
    import json, os, resource, sys
    sys.path.insert(0, os.environ["BENCH_SOURCE"])
    import scrapy
    from scrapy.crawler import CrawlerProcess

    url = os.environ["BENCH_URL"]
    phases = {}
    if os.environ.get("BENCH_TRACE"):
        # Where the memory goes: the peak of what Python allocates during
        # the fetch (download, decoding, the cut) and during the parse of
        # the body read, above what was allocated when each began.
        import tracemalloc
        from scrapy_robots_rfc.crawl import _fetcher, _robots_loader

        def traced(name, method, is_async):
            async def run_async(*args, **kwargs):
                start = tracemalloc.get_traced_memory()[0]
                tracemalloc.reset_peak()
                try:
                    return await method(*args, **kwargs)
                finally:
                    phases[name] = tracemalloc.get_traced_memory()[1] - start

            def run(*args, **kwargs):
                start = tracemalloc.get_traced_memory()[0]
                tracemalloc.reset_peak()
                try:
                    return method(*args, **kwargs)
                finally:
                    phases[name] = tracemalloc.get_traced_memory()[1] - start

            return run_async if is_async else run

        _fetcher.Fetcher.fetch = traced("fetch", _fetcher.Fetcher.fetch, True)
        _robots_loader.RobotsLoader._rules = traced(
            "parse", _robots_loader.RobotsLoader._rules, False
        )
        tracemalloc.start()

    class One(scrapy.Spider):
        name = "one"
        seen = []

        async def start(self):
            yield scrapy.Request(url + "/page")

        def start_requests(self):  # Scrapy before 2.13
            yield scrapy.Request(url + "/page")

        def parse(self, response):
            self.seen.append(response.url)

    settings = {
        "ROBOTSTXT_OBEY": True,
        "ADDONS": {"scrapy_robots_rfc.Addon": 100},
        "ROBOTSTXT_RFC_MAX_BYTES": int(os.environ["BENCH_LIMIT"]),
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
        "RETRY_ENABLED": False,
        # An unreachable robots.txt drops the page at once: the crawl ends.
        "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 0,
    }
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(One)
    process.crawl(crawler)
    process.start()
    stats = crawler.stats.get_stats()
    import scrapy_robots_rfc
    assert scrapy_robots_rfc.__file__.startswith(os.environ["BENCH_SOURCE"])
    print("RESULT " + json.dumps({
        "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "seen": len(One.seen),
        "truncated": stats.get("robotstxt/truncated"),
        "rules": stats.get("robotstxt/rules"),
        "unreachable": stats.get("robotstxt/unreachable"),
        "downloaded": stats.get("downloader/response_bytes"),
        "phases": phases,
    }), flush=True)
    """
)


def crawl(source: Path, url: str, limit: int, *, trace: bool = False) -> dict[str, Any]:
    env = {
        "BENCH_SOURCE": str(source),
        "BENCH_URL": url,
        "BENCH_LIMIT": str(limit),
        "PATH": "/usr/bin:/bin",
    }
    if trace:
        env["BENCH_TRACE"] = "1"
    return harness.run_child(CRAWL, env, timeout=600)


def main() -> None:
    parser = harness.arguments(__doc__, "500 KiB only")
    parser.add_argument("--source", type=Path, default=ROOT, help="the package's folder")
    parser.add_argument(
        "--sites",
        help="only the robots.txt files whose name starts with one of these words "
        "(comma-separated: plain, gzip, deflate, br, zstd, groups, short, rules)",
    )
    parser.add_argument(
        "--limits",
        help="only the limits whose name starts with one of these (comma-separated: 500, 10, max)",
    )
    parser.add_argument(
        "--phases",
        action="store_true",
        help="crawl each case once more under tracemalloc: the peak of the fetch and the parse",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    harness.title("Peak memory of a robots.txt fetch (ru_maxrss of the crawl process)", args.quick)
    source = args.source.resolve()
    print(f"package measured: {source}; {harness.python_text(machine=True)}")
    limits = dict(list(LIMITS.items())[:1]) if args.quick else LIMITS
    if args.limits:
        chosen = tuple(args.limits.split(","))
        limits = {label: limit for label, limit in limits.items() if label.startswith(chosen)}
    wanted = tuple(args.sites.split(",")) if args.sites else ()
    sites: dict[str, str] = {}
    servers = []
    routes = [
        ("tiny", streamed(len(HEAD))),
        ("plain 100 MB", streamed(PLAIN_SIZE)),
        ("groups 32 MiB (1.2 M)", streamed(HOSTILE_SIZE, groups)),
        ("short comments 32 MiB", streamed(HOSTILE_SIZE, lambda size: text(size, SHORT_LINE))),
        ("rules 32 MiB (2 M)", streamed(HOSTILE_SIZE, rules)),
    ]
    for name, route in routes:
        if name == "tiny" or not wanted or name.startswith(wanted):
            sites[name], server = serve(route)
            servers.append(server)
    for encoding in ("gzip", "deflate", "br", "zstd"):
        if wanted and not encoding.startswith(wanted):
            continue
        body = compressed(encoding, BOMB_SIZE)
        if body is None:
            print(f"{encoding}: its module is not installed, left out")
            continue
        url, server = serve(encoded(body, encoding))
        sites[f"{encoding} bomb 1 GiB ({len(body) / MIB:.1f} MiB sent)"] = url
        servers.append(server)
    baseline = crawl(source, sites["tiny"], 512_000)["maxrss_kib"]
    print(f"baseline (two-line robots.txt): {baseline / 1024:.1f} MiB")
    rows = []
    results: dict[str, Any] = {"baseline_kib": baseline, "runs": []}
    for site, url in sites.items():
        if site == "tiny":
            continue
        for label, limit in limits.items():
            result = crawl(source, url, limit)
            peak = result["maxrss_kib"]
            above = (peak - baseline) * 1024
            phases = crawl(source, url, limit, trace=True)["phases"] if args.phases else {}
            rows.append(
                [
                    site,
                    label,
                    f"{peak / 1024:.1f}",
                    f"{above / MIB:.1f}",
                    f"{above / limit:.2f}",
                    *(
                        [f"{phases[p] / limit:.2f}" if p in phases else "-" for p in PHASES]
                        if args.phases
                        else []
                    ),
                    str(result["truncated"]),
                    "unreachable" if result["unreachable"] else "rules" if result["rules"] else "-",
                    str(result["seen"]),
                ]
            )
            results["runs"].append({"site": site, "limit": limit, **result, "phases": phases})
            for line in result["log"]:
                print(f"  [{site}, {label}] {line[:300]}")
    print()
    headers = [
        "robots.txt",
        "limit",
        "peak MiB",
        "above base",
        "x limit",
        *([f"{p} x limit" for p in PHASES] if args.phases else []),
        "truncated",
        "outcome",
        "pages",
    ]
    print(harness.table(headers, rows, left=2))
    for server in servers:
        server.shutdown()
    harness.finish(args.json, results, started)


if __name__ == "__main__":
    main()
