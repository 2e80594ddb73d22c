"""Peak memory of a crawl of many origins whose robots.txt files are large:
what ``ROBOTSTXT_RFC_CACHE_BYTES`` bounds (issue 41).

The site: a process of its own (``--serve``) with one origin on each of
``N`` loopback addresses (127.0.0.2, 127.0.0.3, ...: each its own host and
download slot), each serving the same robots.txt: a ``User-agent: *``
group of 500 KB (about 18,000 lines) of wildcard rules
(``Disallow: /*shop123*.php$``, ``Disallow: /cart/*/456/*.html``,
``Allow: /tag7/*?id=89``, ``Disallow: /*.print1011.html``), and a short
HTML page at any other path. Every origin's file is parsed on its own:
nothing is shared between origins but the bytes the site sends.

The crawl: a fresh process each time (``CrawlerProcess``, the add-on and
Scrapy's defaults otherwise; the asyncio reactor), requesting 4 URLs of
each origin in turn, origin after origin: 2 pages its rules allow and 2 URLs
they disallow, so that each origin's rules answer verdicts and build the
matcher's indexes (its scan table; the prefix tree is built only after
2,048 verdicts of a large rule set, and then only within its share of
memory). When it ends, the process reports ``ru_maxrss`` (its peak resident
set) and the stats: robots.txt fetches, origins evicted from the cache,
the most the cache held as it counts (``robotstxt/cache/bytes/max``).

Targets (issue 41), reported, never asserted: 200 origins peak at most at
500 MiB, and 1,000 origins at most 5 % above 200's (the cache is full: its
bound holds whatever the number of origins).

Run it directly::

    .venv/bin/python benchmarks/bench_cache_memory.py                       # 200 and 1,000
    .venv/bin/python benchmarks/bench_cache_memory.py --quick               # 20 origins
    .venv/bin/python benchmarks/bench_cache_memory.py --origins 1,50,200 --against /tmp/before
    .venv/bin/python benchmarks/bench_cache_memory.py --json results.json

``--against TREE`` crawls with the package of another checkout too (e.g. the
commit before, unpacked with ``git archive``), each count of origins in the
same run. Memory before this bound grows by several MiB per origin: keep
``--origins`` small with it. It is a script, not a test: it asserts nothing
about sizes.
"""

from __future__ import annotations

import json
import os
import random
import resource
import sys
import time
from pathlib import Path
from typing import Any

# harness puts the repository root first on sys.path: the working tree is measured.
import harness

MIB = 1024 * 1024
#: The size of every origin's robots.txt.
ROBOTS_SIZE = 500_000
#: The crawl's URLs per origin: pages the rules allow, URLs they disallow.
ALLOWED = ("/page/1", "/page/2")
DISALLOWED = ("/a/private/b", "/report.secret")
#: The file's first rules: :data:`DISALLOWED` is disallowed by them.
FIRST_RULES = b"User-agent: *\nDisallow: /*/private/*\nDisallow: /*.secret$\n"
#: Peak at 200 origins, and growth from 200 to 1,000 (issue 41).
TARGET_PEAK_MIB = 500
TARGET_GROWTH = 0.05


def robots_txt(size: int = ROBOTS_SIZE) -> bytes:
    """A ``User-agent: *`` group of wildcard rules, ``size`` bytes at most:
    the same for every origin (seeded)."""
    rng = random.Random(harness.SEED)
    words = ("shop", "cart", "print", "search", "tag", "user", "img", "cat", "p", "list")
    lines = [FIRST_RULES]
    total = len(lines[0])
    number = 0
    while True:
        number += 1
        word = rng.choice(words)
        kind = rng.random()
        if kind < 0.4:
            line = f"Disallow: /*{word}{number}*.php$\n"
        elif kind < 0.7:
            line = f"Disallow: /{word}/*/{number}/*.html\n"
        elif kind < 0.85:
            line = f"Allow: /{word}{number % 97}/*?id={number}\n"
        else:
            line = f"Disallow: /*.{word}{number}.html\n"
        data = line.encode("ascii")
        if total + len(data) > size:
            return b"".join(lines)
        lines.append(data)
        total += len(data)


def serve(count: int) -> None:
    """The site's process: ``count`` origins, one robots.txt for all (one
    bytes object: the site's own memory does not grow with the origins)."""
    robots = harness.http_response("200 OK", "text/plain", robots_txt())
    page = harness.http_response("200 OK", "text/html", b"<html><body>ok</body></html>\n")

    def answer(index: int, netloc: str, path: str) -> tuple[bytes, float]:
        return (robots if path == "/robots.txt" else page), 0.0

    harness.serve_site(harness.loopback_hosts(count), answer)


#: One crawl, in its own process: the origins of ``$BENCH_ORIGINS``, 4 URLs
#: each; prints ``RESULT {json}``.
CRAWL = """
import json, os, resource, sys, time
tree = os.environ.get("BENCH_TREE")
if tree:
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    sys.path.insert(0, tree)
import scrapy
from scrapy.crawler import CrawlerProcess

origins = os.environ["BENCH_ORIGINS"].split(",")
urls = [
    f"http://{netloc}{path}"
    for netloc in origins
    for path in json.loads(os.environ["BENCH_PATHS"])
]

class Many(scrapy.Spider):
    name = "many"
    pages = 0
    dropped = 0

    async def start(self):
        for url in urls:
            yield scrapy.Request(url, errback=self.failed)

    def start_requests(self):  # Scrapy before 2.13
        for url in urls:
            yield scrapy.Request(url, errback=self.failed)

    def parse(self, response):
        Many.pages += 1

    def failed(self, failure):
        Many.dropped += 1

settings = {
    "ROBOTSTXT_OBEY": True,
    "ADDONS": {"scrapy_robots_rfc.Addon": 100},
    "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
}
started = time.perf_counter()
process = CrawlerProcess(settings)
crawler = process.create_crawler(Many)
process.crawl(crawler)
process.start()
stats = crawler.stats.get_stats()
import scrapy_robots_rfc
print("RESULT " + json.dumps({
    "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    "seconds": time.perf_counter() - started,
    "pages": Many.pages,
    "dropped": Many.dropped,
    "robots_fetches": stats.get("robotstxt/request_count", 0),
    "evicted": stats.get("robotstxt/cache/evicted", 0),
    "cache_bytes_max": stats.get("robotstxt/cache/bytes/max"),
    "forbidden": stats.get("robotstxt/forbidden", 0),
    "package": scrapy_robots_rfc.__file__,
}), flush=True)
"""


def crawl(origins: list[str], tree: Path | None) -> dict[str, Any]:
    env = {
        "BENCH_ORIGINS": ",".join(origins),
        "BENCH_PATHS": json.dumps([*ALLOWED, *DISALLOWED]),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(harness.ROOT),
    }
    if tree is not None:
        env["BENCH_TREE"] = str(tree)
    return harness.run_child(CRAWL, env, timeout=3600)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]))
        return
    parser = harness.arguments(__doc__, "20 origins only")
    parser.add_argument(
        "--origins",
        default="200,1000",
        help="the counts of origins to crawl, comma-separated (default: 200,1000)",
    )
    harness.against_argument(parser)
    args = parser.parse_args()
    started = time.perf_counter()
    harness.title("Peak memory of a crawl of origins with 500 KB robots.txt files", args.quick)
    print(f"{harness.package_text()}; {harness.git_state()}; {harness.python_text(machine=True)}")
    counts = [20] if args.quick else [int(n) for n in args.origins.split(",")]
    site = harness.Site([__file__, "--serve", str(max(counts))])
    trees: list[tuple[str, Path | None]] = [("this tree", None)]
    if args.against is not None:
        trees.append((f"--against {args.against}", args.against.resolve()))
    rows = []
    results: dict[str, Any] = {"robots_bytes": len(robots_txt()), "runs": []}
    peaks: dict[tuple[str, int], float] = {}
    try:
        for count in counts:
            for label, tree in trees:
                result = crawl(site.origins[:count], tree)
                peak = result["maxrss_kib"] / 1024
                peaks[label, count] = peak
                held = result["cache_bytes_max"]
                rows.append(
                    [
                        label,
                        f"{count:,}",
                        f"{peak:,.1f}",
                        "-" if held is None else f"{held / MIB:,.1f}",
                        f"{result['evicted']:,}",
                        f"{result['robots_fetches']:,}",
                        f"{result['pages']:,}",
                        f"{result['forbidden']:,}",
                        f"{result['seconds']:,.0f}",
                    ]
                )
                results["runs"].append({"tree": label, "origins": count, **result})
                for line in result["log"][:5]:
                    print(f"  [{label}, {count}] {line[:300]}")
                print(f"  {label}, {count} origins: peak {peak:,.1f} MiB", flush=True)
    finally:
        site.stop()
    print()
    headers = [
        "package",
        "origins",
        "peak MiB",
        "cache MiB",
        "evicted",
        "robots.txt",
        "pages",
        "forbidden",
        "seconds",
    ]
    print(harness.table(headers, rows, left=2))
    small, large = peaks.get(("this tree", 200)), peaks.get(("this tree", 1000))
    if small is not None:
        verdict = "met" if small <= TARGET_PEAK_MIB else "NOT met"
        print(f"\n200 origins: {small:,.1f} MiB (target <= {TARGET_PEAK_MIB} MiB: {verdict})")
    if small is not None and large is not None:
        growth = large / small - 1
        verdict = "met" if growth <= TARGET_GROWTH else "NOT met"
        print(f"1,000 origins: {growth:+.1%} over 200 (target <= +5 %: {verdict})")
    results["self_maxrss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    harness.finish(args.json, results, started)


if __name__ == "__main__":
    main()
