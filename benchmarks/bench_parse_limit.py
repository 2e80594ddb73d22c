"""The library's parse limit (issue 25): what ``RobotsTxt.parse`` costs on
a robots.txt of 500 KiB, 5 MB and 50 MB, with its default limit (500 KiB,
RFC 9309 §2.5) and with ``max_bytes=None`` (everything read).

The bodies are built from real-looking rules: the allow/disallow values of
the corpus files (``<shared>/corpus/robots``, as for bench_matcher.py; a
built-in list when it is absent), each made unique by a number as a large
file's product paths are, a fifth of them ``Allow``, in one ``User-agent:
*`` group after a small ``Googlebot`` one, with a ``Sitemap`` line now and
then. One group holding every rule is the worst case for the first verdict,
which builds that group's rule set. For each body and limit:

* **parse**: the best of a few parses, in seconds;
* **peak**: ``tracemalloc``'s peak during one parse, over the bytes read
  (the body itself, allocated before, is not counted);
* **first verdict**: ``allowed()`` for Scrapy's default crawler on a fresh
  parse: it selects the groups and builds their rule set
  (``RobotsTxt.for_agent``), so it is proportional to the rules of the group;
* **next**: the median of the next 200 verdicts, on other URLs (scanned;
  a rule set asked for many more verdicts is compiled, which
  bench_matcher.py measures).

Run it directly::

    .venv/bin/python benchmarks/bench_parse_limit.py           # about 30 seconds
    .venv/bin/python benchmarks/bench_parse_limit.py --quick   # 500 KiB and 5 MB, one pass

It is a script, not a test: it asserts nothing about times or sizes.
"""

from __future__ import annotations

import gc
import random
import re
import statistics
import time
import tracemalloc
from typing import Any

import harness

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc.robotstxt import MAX_BYTES

SIZES = {"500 KiB": MAX_BYTES, "5 MB": 5_000_000, "50 MB": 50_000_000}
QUICK_SIZES = ("500 KiB", "5 MB")
#: Parses timed per body and limit; one when a parse reads more than this.
PASSES = 3
ONE_PASS_OVER = 10_000_000
NEXT_VERDICTS = 200
#: Values used when the corpus is absent: what large real files list.
FALLBACK_VALUES = [
    b"/search",
    b"/cart/",
    b"/checkout/*",
    b"/*?sort=",
    b"/*&filter=*",
    b"/account/",
    b"/*.pdf$",
    b"/products/*/reviews",
    b"/wp-admin/",
    b"/tag/*/page/",
]


def rule_values() -> list[bytes]:
    """The distinct allow/disallow values of the corpus, else the fallback."""
    values: dict[bytes, None] = {}
    pattern = re.compile(harness.RULE_VALUE.pattern.encode(), re.I | re.M)
    for robots_file in harness.load_corpus():
        values.update(dict.fromkeys(pattern.findall(robots_file.body)))
    return list(values) or FALLBACK_VALUES


def build_body(size: int, values: list[bytes], rng: random.Random) -> tuple[bytes, list[str]]:
    """A robots.txt of about ``size`` bytes (see the module's docstring),
    and paths that its rules are about (for the verdicts)."""
    parts = [b"User-agent: Googlebot\nDisallow: /private/\n\nUser-agent: *\n"]
    total = len(parts[0])
    paths: list[str] = []
    number = 0
    while total < size:
        value = rng.choice(values)
        if not value.startswith((b"/", b"*")):
            value = b"/" + value
        if not value.endswith(b"$"):
            value += b"%d" % number
        kind = b"Allow" if rng.random() < 0.2 else b"Disallow"
        line = kind + b": " + value + b"\n"
        if number % 500 == 0:
            line += b"Sitemap: https://example.com/sitemap-%d.xml\n" % number
        if len(paths) < 4 * NEXT_VERDICTS and rng.random() < 0.05:
            paths.append(value.decode("utf-8", "replace").replace("*", "x").rstrip("$"))
        parts.append(line)
        total += len(line)
        number += 1
    return b"".join(parts)[:size], paths


def peak_bytes(body: bytes, max_bytes: int | None) -> int:
    """``tracemalloc``'s peak over one parse of ``body``, above what was
    allocated before it."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        robots = RobotsTxt.parse(body, max_bytes=max_bytes)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    del robots
    return peak


def measure(body: bytes, paths: list[str], max_bytes: int | None, passes: int) -> dict[str, Any]:
    """What the module's docstring lists, for one body and limit, the parse
    timed ``passes`` times (once if it reads more than 10 MB)."""
    read = len(body) if max_bytes is None else min(len(body), max_bytes)
    passes = 1 if read > ONE_PASS_OVER else passes
    parse_s = harness.best_of(passes, lambda: RobotsTxt.parse(body, max_bytes=max_bytes))
    peak = peak_bytes(body, max_bytes)
    robots = RobotsTxt.parse(body, max_bytes=max_bytes)
    urls = [harness.HOST + path for path in paths] or [harness.HOST + "/"]
    first_s, _ = harness.timed(lambda: robots.allowed(urls[0], harness.TOKEN))
    rules = robots.for_agent(harness.TOKEN)
    times = []
    for index in range(1, NEXT_VERDICTS + 1):
        url = urls[index % len(urls)] + f"?n={index}"
        times.append(harness.timed(lambda url=url: rules.allowed(url))[0])
    cut = [note for note in robots.notes if note.code == "past-limit"]
    return {
        "body_bytes": len(body),
        "max_bytes": max_bytes,
        "cut": bool(cut),
        "rules": len(rules.rules),
        "parse_s": parse_s,
        "peak_bytes": peak,
        "first_verdict_s": first_s,
        "next_verdict_s": statistics.median(times),
    }


def main() -> None:
    parser = harness.arguments(__doc__, "500 KiB and 5 MB only, one pass each")
    args = parser.parse_args()
    started = time.perf_counter()
    harness.title("parse limit benchmark", args.quick)
    print(harness.python_text(machine=True))
    print(f"{harness.package_text()} ({harness.git_state()})")
    values = rule_values()
    source = "the corpus" if harness.load_corpus(1) else "the built-in list"
    print(f"{len(values):,} rule values from {source}")
    passes = 1 if args.quick else PASSES
    names = QUICK_SIZES if args.quick else tuple(SIZES)
    rows, results = [], []
    for name in names:
        body, paths = build_body(SIZES[name], values, random.Random(harness.SEED))
        for limit_name, max_bytes in (("default", MAX_BYTES), ("None", None)):
            found = measure(body, paths, max_bytes, passes)
            found["body"] = name
            results.append(found)
            read = len(body) if max_bytes is None else min(len(body), max_bytes)
            rows.append(
                [
                    name,
                    limit_name,
                    f"{read / 1024:,.0f}" + (" (cut)" if found["cut"] else ""),
                    f"{found['rules']:,}",
                    f"{found['parse_s']:.3f}",
                    f"{found['peak_bytes'] / 2**20:,.1f}",
                    f"{found['peak_bytes'] / read:.1f}",
                    f"{found['first_verdict_s'] * 1e3:,.1f}",
                    f"{found['next_verdict_s'] * 1e6:,.1f}",
                ]
            )
            print(f"  {name}, max_bytes={limit_name}: done", flush=True)
    headers = [
        "body",
        "max_bytes",
        "KiB read",
        "rules",
        "parse s",
        "peak MiB",
        "peak/byte",
        "1st verdict ms",
        "next µs",
    ]
    print()
    print(harness.table(headers, rows, left=2))
    harness.finish(args.json, {"quick": args.quick, "runs": results}, started)


if __name__ == "__main__":
    main()
