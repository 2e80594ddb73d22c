"""Crawl speed with robots.txt off, with Scrapy's built-in middleware, and
with this package's, when each origin is its own host: with network
latency, and with many hosts on loopback.

On loopback every robots.txt answers in a millisecond, so what a middleware
does while a robots.txt is on its way never shows. Here each origin is on a
loopback address of its own (127.0.0.2, 127.0.0.3, …: Linux routes all of
127.0.0.0/8 to the loopback interface), so each is its own host and its own
Scrapy download slot, as on the web. Two crawls (issue 37):

- latency 400x10: 400 origins x 10 pages (4,000 pages), each answer after a
  delay drawn per URL from a seeded RNG: every page and most robots.txt
  files after 30-300 ms (uniform), 10 % of the robots.txt files after 2 s
  and 3 % after 8 s (which origins: a seeded shuffle, so exactly 40 and
  12). Targets: c/b >= 1.20 (the built-in's waiting requests hold
  downloader places while robots.txt downloads), c/a >= 0.78 (the
  robots.txt downloads themselves hold places, which bounds any middleware
  that fetches through Scrapy's engine: below).
- hosts 2000x2: 2,000 hosts x 2 pages (4,000 pages), answered at once: a
  cost paid per origin, each origin in a download slot of its own, where
  bench_crawl.py's crawls put every origin in one (127.0.0.1).
  Target: c/b >= 0.97.

Two more, the many-hosts crawls (issue 42), run only when named
(``--only many-2000``, ``--only many-8000``): 2,000 and 8,000 hosts x 1 page,
answered at once. What a middleware keeps per origin, and what it costs the
scheduler (a request that waits goes through it twice), grows with the
number of origins. Target: c/b >= 0.97 at both sizes. ``--profile`` runs
each named crawl once per mode under cProfile instead (calls per page, as
bench_crawl.py's ``--profile``: calls are counted exactly).

The same URL gets the same delay in every crawl and every mode, whatever
the order of the requests. The header gives the delays drawn, and the
bound they put on pages/s with ``CONCURRENT_REQUESTS`` downloads at a time:
the seconds the pages' answers hold downloader places, and those that the
robots.txt answers add (each origin's robots.txt is downloaded once, in b
and c).

The site is bench_crawl.py's (harness.py): every origin serves the same
robots.txt and the pages ``/page/0``, ``/page/1``, …, which it allows; 3
more URLs per origin are disallowed. It is served by one asyncio process
(keep-alive, canned responses; a delayed answer waits on a timer of the
event loop, so the server never blocks), with one listening socket per
origin: on each address a port for the crawl without delays and, on the
first 400, one for the crawl with them.

Three modes, all with Scrapy's default settings except those named here
(``CONCURRENT_REQUESTS = 32``, ``CONCURRENT_REQUESTS_PER_DOMAIN = 8``, no
retries, no delay, no telnet console, ``LOG_LEVEL = "WARNING"``, the
asyncio reactor):

a. ``ROBOTSTXT_OBEY = False``; the disallowed URLs are not requested.
b. Scrapy's built-in ``RobotsTxtMiddleware`` (Protego).
c. This package: ``ADDONS = {"scrapy_robots_rfc.Addon": 100}``.
e. With ``--variant NAME=VALUE`` only: (c) with those settings as well, so
   that a setting of the add-on (``ROBOTSTXT_RFC_PARK_AFTER``…) is
   measured against its default in the same rounds (e/c). ``--tdm`` is
   ``--variant ROBOTSTXT_RFC_TDM=true``: e is a crawl that mines, which
   asks each origin for its ``/.well-known/tdmrep.json`` too (the site's
   file reserves none of the planned pages; in the latency crawl it is
   answered after a delay drawn as a page's), and e/c is the latency cost
   of honouring TDM reservations (issue 44; docs/performance.rst).

Every run is checked: every mode downloads exactly the planned pages, once
each; b and c fetch one robots.txt per origin, and c drops exactly the
disallowed requests (the URLs the spider's errback sees with
``IgnoreRequest``, and the ``robotstxt/forbidden`` stat). A run that
differs stops the benchmark. Scrapy's built-in (b) gives its rules to the
first request that waited for a robots.txt and lets the other waiters
through unchecked (the README's table), so behind a slow robots.txt it
may download disallowed URLs: the benchmark checks that each disallowed
URL was either dropped or downloaded, and reports how many were
downloaded ("leaked"); b's pages/s counts the allowed pages only.

Each crawl runs in a fresh process. After an untimed warm-up crawl (5
origins x 20 pages, without delays), each crawl runs its rounds (by
default 3 of the latency crawl and 5 of the hosts crawl; ``--rounds``),
each round in the three modes in an order that rotates (a, b, c; then b,
c, a; …). Only the crawl is timed, from ``spider_opened`` to ``spider_closed``.
The report gives each round's pages/s, each mode's median, and the ratios
c/b, c/a and b/a: the median of the per-round ratios (the figure to
trust), each round's ratio, and the ratio of the medians; also how many
requests went through the scheduler and how many the add-on parked
(``robotstxt/waiting/parked``). The latency crawl is not CPU-bound: on a
busy 2-core machine its rounds agreed within 1 % with robots.txt off and
within 6 to 8 % with a middleware. The hosts crawl is CPU-bound, and there
single crawls spread by up to 30 %: it needs more rounds, or a quiet
machine, to tell a few percent from noise.

Run it directly::

    .venv/bin/python benchmarks/bench_latency.py            # 8 to 12 minutes (2 cores)
    .venv/bin/python benchmarks/bench_latency.py --quick    # 60x5 and 200x2, 1 round, 30 s
    .venv/bin/python benchmarks/bench_latency.py --json results.json
    .venv/bin/python benchmarks/bench_latency.py --only latency --rounds 9  # 15 minutes
    .venv/bin/python benchmarks/bench_latency.py --only hosts --rounds 9    # 6 to 10 minutes
    .venv/bin/python benchmarks/bench_latency.py --only hosts --origins 200 --pages 1
    .venv/bin/python benchmarks/bench_latency.py --only many-2000 --only many-8000  # 20-30 min
    .venv/bin/python benchmarks/bench_latency.py --only many-8000 --profile  # calls per page
    .venv/bin/python benchmarks/bench_latency.py --only latency --variant ROBOTSTXT_RFC_PARK_AFTER=0
    .venv/bin/python benchmarks/bench_latency.py --only latency --tdm --rounds 9  # TDM on: e/c
    .venv/bin/python benchmarks/bench_latency.py --against /tmp/before  # another checkout: mode o

It is a script, not a test: it asserts nothing about timings.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

# harness puts the repository root first on sys.path: the working tree is measured.
import harness
from harness import Crawl

MODES = harness.CRAWL_MODES
#: With ``--variant``: the add-on with other settings.
VARIANT_MODE = "e"
MODE_NAMES = {
    **harness.CRAWL_MODE_NAMES,
    VARIANT_MODE: "add-on, --variant settings",
    harness.AGAINST_MODE: harness.AGAINST_NAME,
}
RATIOS = (
    ("c", "b"),
    ("c", "a"),
    ("b", "a"),
    (VARIANT_MODE, "c"),
    (VARIANT_MODE, "b"),
    ("c", harness.AGAINST_MODE),
)

#: Each page's and most robots.txt files' delay: uniform between these (s).
DELAYS = (0.030, 0.300)
#: The shares of the origins whose robots.txt answers after a longer delay (s).
SLOW_ROBOTS = ((0.03, 8.0), (0.10, 2.0))

LATENCY = "latency"
HOSTS = "hosts"
CRAWLS = (
    Crawl(LATENCY, "latency 400x10", 400, 10, {"c_over_b": 1.20, "c_over_a": 0.78}),
    Crawl(HOSTS, "hosts 2000x2", 2000, 2, {"c_over_b": 0.97}),
)
QUICK_CRAWLS = (
    Crawl(LATENCY, "latency 60x5 (quick)", 60, 5),
    Crawl(HOSTS, "hosts 200x2 (quick)", 200, 2),
)
#: The many-hosts crawls: run only when named (``--only``).
MANY = (
    Crawl("many-2000", "many hosts 2000x1", 2000, 1, {"c_over_b": 0.97}),
    Crawl("many-8000", "many hosts 8000x1", 8000, 1, {"c_over_b": 0.97}),
)
#: Rounds of each crawl by default (about 5, and 3 to 5 minutes on 2 cores):
#: the latency crawl's rounds agree more closely than the CPU-bound hosts
#: crawl's.
ROUNDS = {LATENCY: 3, HOSTS: 5, **{spec.name: 3 for spec in MANY}}
WARM_UP = Crawl("warm-up", "warm-up", 5, 20)
#: A crawl that takes longer has hung (the longest takes about 40 s).
CRAWL_TIMEOUT_S = 600


class Delays:
    """The latency site's delays, for ``origins`` origins: per URL, from a
    RNG seeded with ``seed``, the origin's index and the path, so that a URL
    gets the same delay in every crawl; the slow robots.txt files' origins
    from a seeded shuffle, so that their shares are exact."""

    def __init__(self, origins: int, seed: int) -> None:
        self.seed = seed
        order = list(range(origins))
        random.Random(seed).shuffle(order)
        self.robots: dict[int, float] = {}
        start = 0
        for share, delay in SLOW_ROBOTS:
            count = round(share * origins)
            self.robots.update(dict.fromkeys(order[start : start + count], delay))
            start += count

    def __call__(self, index: int, path: str) -> float:
        if path == "/robots.txt" and index in self.robots:
            return self.robots[index]
        return random.Random(f"{self.seed}:{index}:{path}").uniform(*DELAYS)

    def of(self, spec: Crawl) -> tuple[list[float], list[float]]:
        """The delays of ``spec``'s pages, and of its origins' robots.txt."""
        pages = [self(i, f"/page/{n}") for i in range(spec.origins) for n in range(spec.pages)]
        return pages, [self(i, "/robots.txt") for i in range(spec.origins)]


class LatencySite:
    """The answers of the site's process (``--serve PROMPT DELAYED SEED``):
    origins ``0 .. prompt - 1`` at once, the next ``delayed`` ones after
    their :class:`Delays`."""

    def __init__(self, prompt: int, delayed: int, seed: int) -> None:
        self.prompt = prompt
        self.delays = Delays(delayed, seed)

    def __call__(self, index: int, netloc: str, path: str) -> tuple[bytes, float]:
        reply = harness.site_reply(netloc, path)
        if index < self.prompt:
            return reply, 0.0
        return reply, self.delays(index - self.prompt, path)


def delays_text(spec: Crawl, delays: Delays) -> str:
    """What the delays of ``spec``'s URLs add up to, and the pages/s they
    allow with ``CONCURRENT_REQUESTS`` answers awaited at a time."""
    pages, robots = delays.of(spec)
    slow = {delay: sum(1 for d in robots if d == delay) for _, delay in SLOW_ROBOTS}
    places = harness.CONCURRENT_REQUESTS
    bound_a = len(pages) / (sum(pages) / places)
    bound_bc = len(pages) / ((sum(pages) + sum(robots)) / places)
    return (
        f"{spec.title}: pages {sum(pages) / len(pages) * 1000:.0f} ms on average"
        f" ({sum(pages):.0f} s in all); robots.txt "
        + ", ".join(f"{count} after {delay:.0f} s" for delay, count in slow.items())
        + f", the others {DELAYS[0] * 1000:.0f}-{DELAYS[1] * 1000:.0f} ms"
        f" ({sum(robots):.0f} s in all);\n  with {places} answers awaited at a time:"
        f" a <= {bound_a:.0f} pages/s, b and c <= {bound_bc:.0f} ({bound_bc / bound_a:.2f} of a)"
    )


def busy_text(spec: Crawl, delays: Delays, runs: Sequence[harness.Run]) -> str:
    """How many answers each mode awaited at a time on average: the delays
    of what it downloaded over its crawl seconds (the median of the rounds)."""
    pages, robots = delays.of(spec)
    busy = []
    for mode in MODE_NAMES:
        waited = sum(pages) + (sum(robots) if harness.obeys(mode) else 0)
        rounds = [waited / r.seconds for r in runs if r.crawl == spec.name and r.mode == mode]
        if rounds:
            busy.append(f"{mode} {statistics.median(rounds):.1f}")
    return (
        f"\n{spec.title}: answers awaited at a time, on average (the delays of the pages and"
        " robots.txt\n   files downloaded / crawl seconds, the median of the rounds; at most"
        f" {harness.CONCURRENT_REQUESTS}): " + ", ".join(busy)
    )


def variant_settings(texts: Sequence[str]) -> dict[str, Any]:
    """``--variant NAME=VALUE`` options as settings: VALUE read as JSON
    (``0``, ``true``, ``"drop"``…), else taken as a string."""
    settings: dict[str, Any] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name:
            raise ValueError(f"--variant {text!r}: expected NAME=VALUE")
        try:
            settings[name] = json.loads(value)
        except json.JSONDecodeError:
            settings[name] = value
    return settings


def resized(spec: Crawl, origins: int | None, pages: int | None) -> Crawl:
    """``spec`` with ``origins`` and ``pages`` where given (at least 1)."""
    origins = max(1, origins or spec.origins)
    pages = max(1, pages or spec.pages)
    return replace(spec, title=f"{spec.name} {origins}x{pages}", origins=origins, pages=pages)


def main(argv: Sequence[str] | None = None) -> None:
    parser = harness.arguments(__doc__, "60x5 and 200x2 crawls, 1 round (about 30 s)")
    parser.add_argument(
        "--rounds",
        type=int,
        metavar="N",
        help=f"rounds of a, b, c (default {ROUNDS[LATENCY]} latency, {ROUNDS[HOSTS]} hosts)",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=[spec.name for spec in (*CRAWLS, *MANY)],
        help="run this crawl only (repeatable); default: all",
    )
    parser.add_argument("--origins", type=int, metavar="N", help="origins of each crawl run")
    parser.add_argument("--pages", type=int, metavar="N", help="pages per origin of each crawl")
    parser.add_argument(
        "--seed", type=int, default=harness.SEED, help="of the delays (default %(default)s)"
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="also mode e: the add-on with this Scrapy setting (repeatable; VALUE read as"
        " JSON, else a string), e.g. ROBOTSTXT_RFC_PARK_AFTER=0",
    )
    parser.add_argument(
        "--tdm",
        action="store_true",
        help="also mode e with ROBOTSTXT_RFC_TDM on (--variant ROBOTSTXT_RFC_TDM=true): the"
        " latency cost of honouring TDM reservations, e/c",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="run each crawl once per mode under cProfile: calls per page (bench_crawl.py's)",
    )
    # Internal: the server and crawl child processes.
    parser.add_argument("--serve", type=int, nargs=2, help=argparse.SUPPRESS)
    harness.against_argument(parser)
    harness.crawl_child_arguments(parser, (*MODES, VARIANT_MODE, harness.AGAINST_MODE))
    args = parser.parse_args(argv)
    if args.tdm:
        args.variant.append("ROBOTSTXT_RFC_TDM=true")

    if args.serve is not None:
        prompt, delayed = args.serve
        hosts = harness.loopback_hosts(max(prompt, delayed))
        answer = LatencySite(prompt, delayed, args.seed)
        harness.serve_site(hosts[:prompt] + hosts[:delayed], answer)
        return
    if args.crawl is not None:
        settings = harness.crawl_settings(args.crawl)
        if args.crawl == VARIANT_MODE:
            settings.update(variant_settings(args.variant))
        harness.run_crawl(settings, harness.crawl_child_urls(args), args.profile_out)
        return

    crawls: tuple[Crawl, ...] = QUICK_CRAWLS if args.quick else CRAWLS
    if args.only:
        crawls = tuple(spec for spec in (*crawls, *MANY) if spec.name in args.only)
    if args.origins is not None or args.pages is not None:
        crawls = tuple(resized(spec, args.origins, args.pages) for spec in crawls)
    try:
        variant = variant_settings(args.variant)
    except ValueError as exc:
        parser.error(str(exc))
    modes = (*MODES, VARIANT_MODE) if variant else MODES
    if args.against is not None:
        modes = (*modes, harness.AGAINST_MODE)
    rounds = {spec.name: 1 if args.quick else ROUNDS[spec.name] for spec in crawls}
    if args.rounds is not None:
        rounds = dict.fromkeys(rounds, max(1, args.rounds))
    prompt = max([WARM_UP.origins, *(s.origins for s in crawls if s.name != LATENCY)])
    delayed = max([0, *(s.origins for s in crawls if s.name == LATENCY)])
    started = time.perf_counter()
    harness.title("latency benchmark", args.quick)
    print(harness.crawl_versions())
    print(
        "Crawls: "
        + ", ".join(f"{spec.title} ({rounds[spec.name]} rounds)" for spec in crawls)
        + f" (+{harness.FORBIDDEN_PER_ORIGIN} disallowed URLs per origin in b and c),"
        " each origin on a loopback address of its own (its own download slot), server in"
        f" its own process;\nCONCURRENT_REQUESTS = {harness.CONCURRENT_REQUESTS},"
        f" CONCURRENT_REQUESTS_PER_DOMAIN = {harness.CONCURRENT_REQUESTS_PER_DOMAIN};"
        f" modes {', '.join(modes)} in rotating order; delays seeded with {args.seed}"
        + "".join(f"\ne. the add-on with {name} = {value!r}" for name, value in variant.items())
    )
    for spec in crawls:
        if spec.name == LATENCY:
            print(delays_text(spec, Delays(delayed, args.seed)))
    site = harness.Site([__file__, "--serve", str(prompt), str(delayed), "--seed", str(args.seed)])
    child_args = tuple(arg for text in args.variant for arg in ("--variant", text))
    runners = {
        name: harness.CrawlRunner(
            __file__, origins, MODE_NAMES, CRAWL_TIMEOUT_S, child_args, against=args.against
        )
        for name, origins in ((HOSTS, site.origins[:prompt]), (LATENCY, site.origins[prompt:]))
    }
    for spec in MANY:  # on the hosts crawl's addresses
        runners[spec.name] = runners[HOSTS]
    if args.profile:
        import bench_crawl

        try:
            for spec in crawls:
                # Under the profiler a crawl of thousands of hosts takes
                # several times as long.
                runner = replace(runners[spec.name], timeout=CRAWL_TIMEOUT_S * 6)
                bench_crawl.profile(runner, [spec], modes)
        finally:
            site.stop()
        return
    runs: list[harness.Run] = []
    try:
        if not args.quick:
            runners[HOSTS].crawl("c", WARM_UP, 0)  # untimed
        for spec in crawls:
            runs += runners[spec.name].rounds([spec], modes, rounds[spec.name], None)
    except harness.CrawlFailed as exc:
        sys.exit(f"bench_latency: FAILED: {exc}")
    finally:
        site.stop()

    summary = harness.report_crawls(runs, crawls, MODE_NAMES, RATIOS)
    for spec in crawls:
        if spec.name == LATENCY:
            print(busy_text(spec, Delays(delayed, args.seed), runs))
    leaked = sum(r.leaked for r in runs)
    print(
        "\n   Every run was checked: the planned pages downloaded once each in every mode,"
        "\n   one robots.txt per origin in b and c, and every disallowed request dropped"
        + (
            " by the add-on;"
            f"\n   b downloaded {leaked:,} disallowed URLs in all (the leaked column)."
            if leaked
            else " in b and c."
        )
    )
    results = harness.crawl_results(args.quick, max(rounds.values()), crawls, summary, runs)
    results["rounds_by_crawl"] = rounds
    results["seed"] = args.seed
    results["delays"] = {"pages_and_robots": DELAYS, "slow_robots": SLOW_ROBOTS}
    results["variant"] = variant
    harness.finish(args.json, results, started)


if __name__ == "__main__":
    main()
