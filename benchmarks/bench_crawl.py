"""Crawl speed with robots.txt off, with Scrapy's built-in middleware, and
with this package's, against a local site, in deep and in broad crawls.

The site: up to 200 origins (200 ports on 127.0.0.1), served by a small
asyncio HTTP/1.1 server (keep-alive, canned responses) in a separate
process, so that the server does not compete with the crawler for the GIL.
Every origin serves the same robots.txt: a ``User-agent: *`` group of 11
allow/disallow rules (prefixes, ``*`` and ``$``) and a ``BadBot`` group.
The pages ``/page/0``, ``/page/1``, … are allowed by it; 3 more URLs per
origin (``/private/…``, ``/page/…/edit``, ``….pdf``) are disallowed.

Four crawls (issues 11 and 37), each over the first origins of the site:

- deep 20x100: 20 origins x 100 pages (2,000 pages);
- deep 20x400: 20 origins x 400 pages (8,000 pages);
- broad 200x10: 200 origins x 10 pages (2,000 pages);
- wide 200x1: 200 origins x 1 page (200 pages).

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
``robotstxt/request_count`` stat differs, or if the pages downloaded or
the requests dropped (the spider's errback sees each ``IgnoreRequest``)
are not exactly the planned ones.

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
20x100 and broad 200x10 each c/b >= 1.0; issue 11's deep c/a >= 0.95;
issue 37's wide 200x1 c/b >= 0.97), and the median of the per-round
ratios, which cancels slow drifts of the machine and is the figure to
trust (each round's ratio is listed too); also the median per-round
difference in seconds (c - b, c - a), which shows a fixed cost directly,
how many requests each mode's scheduler received (``scheduler/enqueued``:
a request that waits for robots.txt and goes through the scheduler again
counts twice), and how many the add-on parked
(``robotstxt/waiting/parked``). A child process that writes anything to stderr (a warning, an
error log) is reported.

The crawl is CPU-bound (the crawl process uses its core all the time, its
CPU time is its wall time); on a shared 2-core machine single crawls spread
by 10 to 35 %, so a difference of a few percent needs more rounds
(``--rounds``) to be told from noise. ``--profile`` runs each crawl once
per mode under cProfile instead, and gives per page the calls of the whole
crawl process and of each mode's robots.txt code: calls are counted
exactly, so that the cost of a change per request shows without the noise
of timings (its times are the profiler's, inflated by it). How many
requests the add-on parks (each a second trip through Scrapy, some 360 to
550 calls) varies with the machine's load, and with it the calls per page;
``--park-after 60`` sets ``ROBOTSTXT_RFC_PARK_AFTER`` so that none is, for
the calls of a crawl whose requests all wait in place.

Run it directly::

    .venv/bin/python benchmarks/bench_crawl.py            # about 9 minutes (2 cores)
    .venv/bin/python benchmarks/bench_crawl.py --quick    # 1 round of small crawls, 20 s
    .venv/bin/python benchmarks/bench_crawl.py --json results.json
    .venv/bin/python benchmarks/bench_crawl.py --rounds 9  # more rounds, less noise
    .venv/bin/python benchmarks/bench_crawl.py --only deep-100  # one crawl (or more, by name)
    .venv/bin/python benchmarks/bench_crawl.py --profile --only deep-100  # calls per page
    .venv/bin/python benchmarks/bench_crawl.py --profile --only wide --park-after 60
    .venv/bin/python benchmarks/bench_crawl.py --page-rules  # also mode d
    .venv/bin/python benchmarks/bench_crawl.py --against /tmp/before  # also mode o: the add-on
    # from another checkout (git worktree add /tmp/before <commit>), in the same rounds

It is a script, not a test: it asserts nothing about timings.
"""

from __future__ import annotations

import argparse
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

# harness puts the repository root first on sys.path: the working tree is measured.
import harness
from harness import Crawl

MODES = harness.CRAWL_MODES
#: With ``--page-rules``: the add-on, and every page's page-level rules read.
PAGE_MODE = "d"
MODE_NAMES = {
    **harness.CRAWL_MODE_NAMES,
    PAGE_MODE: "add-on, page-level rules read",
    harness.AGAINST_MODE: harness.AGAINST_NAME,
}
#: The ratios reported: c/b, c/a, with ``--page-rules`` d/c, with
#: ``--against`` c/o.
RATIOS = (("c", "b"), ("c", "a"), (PAGE_MODE, "c"), ("c", harness.AGAINST_MODE))
#: Every origin is on this host, on a port of its own.
HOST = "127.0.0.1"
ROUNDS = 5
WARM_UP = Crawl("warm-up", "warm-up", 5, 20)
#: A crawl that takes longer has hung (the longest takes about 20 s on 2 cores).
CRAWL_TIMEOUT_S = 300


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


def answer(_index: int, netloc: str, path: str) -> tuple[bytes, float]:
    """The site's answers, at once."""
    return harness.site_reply(netloc, path), 0.0


def crawl_settings(mode: str) -> dict[str, Any]:
    if mode != PAGE_MODE:
        return harness.crawl_settings(mode)
    # The add-on, and the spider middleware configured too.
    return {
        **harness.crawl_settings("c"),
        "ROBOTSTXT_RFC_NOFOLLOW": True,
        "ROBOTSTXT_RFC_NOINDEX": "drop",
    }


def read_page_rules(response: Any) -> None:
    """Mode d: a spider that asks, so that every page's rules are read."""
    _ = response.meta["robotstxt_page_rules"].nofollow


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


def profile(runner: harness.CrawlRunner, specs: Sequence[Crawl], modes: Sequence[str]) -> None:
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
                run = runner.crawl(mode, spec, 0, profile_out=out)
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
                        f"{run.parked:,}",
                    ]
                )
            print(
                f"\n{spec.title} under cProfile, per page ({spec.total:,} pages, one crawl a mode;"
                " the whole process.start())"
            )
            headers = ["mode", "calls", "µs", "robots.txt code: calls", "µs", "parked"]
            print(harness.table(headers, rows))
            if "b" in found and "c" in found:
                extra = found["c"][0] - found["b"][0]
                print(f"   c - b: {extra:+,.1f} calls per page, all of the crawl process's")
            print(
                "   robots.txt code: the functions of Scrapy's built-in middleware and Protego"
                " (b), or of\n   this package (c, d); the calls they make into Scrapy and"
                " the standard library count\n   in the whole process only. Calls are"
                " counted exactly; times are inflated by the profiler. parked:\n   the"
                " requests parked (robotstxt/waiting/parked), each a second trip through Scrapy."
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
    parser.add_argument(
        "--park-after",
        type=float,
        metavar="SECONDS",
        help="ROBOTSTXT_RFC_PARK_AFTER of the add-on's modes (60: none parked, to count the"
        " calls of a crawl whose requests all wait in place)",
    )
    # Internal: the server and crawl child processes.
    parser.add_argument("--serve", type=int, metavar="ORIGINS", help=argparse.SUPPRESS)
    harness.against_argument(parser)
    harness.crawl_child_arguments(parser, (*MODES, PAGE_MODE, harness.AGAINST_MODE))
    args = parser.parse_args(argv)

    if args.serve is not None:
        harness.serve_site([HOST] * args.serve, answer)
        return
    if args.crawl is not None:
        on_page = read_page_rules if args.crawl == PAGE_MODE else None
        settings = crawl_settings(args.crawl)
        if args.park_after is not None and "ADDONS" in settings:
            settings["ROBOTSTXT_RFC_PARK_AFTER"] = args.park_after
        harness.run_crawl(settings, harness.crawl_child_urls(args), args.profile_out, on_page)
        return

    crawls: tuple[Crawl, ...] = QUICK_CRAWLS if args.quick else CRAWLS
    if args.only:
        crawls = tuple(spec for spec in crawls if spec.name in args.only)
    rounds = 1 if args.quick else ROUNDS
    if args.rounds is not None:
        rounds = max(1, args.rounds)
    started = time.perf_counter()
    modes = (*MODES, PAGE_MODE) if args.page_rules else MODES
    if args.against is not None:
        modes = (*modes, harness.AGAINST_MODE)
    harness.title("crawl benchmark", args.quick)
    print(harness.crawl_versions())
    print(
        "Crawls: " + ", ".join(spec.title for spec in crawls) + f" (+{harness.FORBIDDEN_PER_ORIGIN}"
        " disallowed URLs per origin in b and c), server in its own process;\n"
        f"CONCURRENT_REQUESTS = {harness.CONCURRENT_REQUESTS}, CONCURRENT_REQUESTS_PER_DOMAIN ="
        f" {harness.CONCURRENT_REQUESTS_PER_DOMAIN} (one download slot: every origin is on"
        f" {HOST});\n{rounds} round(s) of every crawl in modes {', '.join(modes)}, in rotating"
        " order"
    )
    site = harness.Site([__file__, "--serve", str(max(spec.origins for spec in crawls))])
    child_args = () if args.park_after is None else ("--park-after", str(args.park_after))
    if child_args:
        print(f"The add-on with ROBOTSTXT_RFC_PARK_AFTER = {args.park_after}")
    runner = harness.CrawlRunner(
        __file__, site.origins, MODE_NAMES, CRAWL_TIMEOUT_S, child_args, against=args.against
    )
    try:
        if args.profile:
            profile(runner, crawls, modes)
            return
        runs = runner.rounds(crawls, modes, rounds, None if args.quick else WARM_UP)
    except harness.CrawlFailed as exc:
        sys.exit(f"bench_crawl: FAILED: {exc}")
    finally:
        site.stop()

    summary = harness.report_crawls(runs, crawls, MODE_NAMES, RATIOS)
    results = harness.crawl_results(args.quick, rounds, crawls, summary, runs)
    harness.finish(args.json, results, started)


if __name__ == "__main__":
    main()
