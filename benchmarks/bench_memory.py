"""Memory kept per cached origin: this package's middleware entry against
Scrapy's built-in (Protego), over the real robots.txt corpus.

What is measured, for every ``*.txt`` in ``<shared>/corpus/robots``
(``<shared>`` is ``../shared`` next to the repo root, or ``$ROBOTS_SHARED``;
the files are read in place, never copied):

* ours, parsed: what ``RobotsTxtMiddleware`` keeps per origin, a
  ``policy.Entry`` holding ``{token: robots.for_agent(token)}`` for its own
  product token only (``"scrapy"``: Scrapy's default ``USER_AGENT`` is
  ``Scrapy/x.y``, and the middleware lower-cases tokens). The body is parsed
  as the middleware parses it (bytes, ``rfc`` mode), the Entry is built, and
  the ``RobotsTxt`` is dropped.
* ours, after 100 verdicts: the same Entry after 100 verdicts on URLs made
  from the file's own allow/disallow values. A rule set answers its first 64
  verdicts by scanning, then compiles a prefix tree (one regex, plus one
  small regex per tree node used); this row counts what that adds.
* Protego, parsed: the ``Protego`` object that Scrapy's default
  ``ProtegoRobotParser`` keeps per origin, from ``Protego.parse(text)`` where
  ``text`` is the body decoded as Scrapy decodes it (``utf-8-sig``,
  ``errors="ignore"``; the decode happens before the measurement, and the
  text is not kept by Protego). Also after the same 100 verdicts
  (``can_fetch`` with Scrapy's default User-Agent).
* the raw body size, for scale.

Not counted, for either: the cache's own structures per origin (a dict
slot and the key), which are the same size for both.

How: ``tracemalloc`` traces allocations; each file is measured in
isolation: ``gc.collect()``, read the traced total, build the object and
keep it (dropping everything else, e.g. the ``RobotsTxt``), ``gc.collect()``,
read the traced total again; the difference is what the object keeps. A
warm-up pass over every file first makes one-time allocations (module
caches, the URL quoter's table) happen outside the measured passes.

The ``re`` module caches up to 512 compiled patterns process-wide. Left
alone, that cache would (a) keep a reference to every pattern compiled while
building the object, so that dropping the object would not show its
patterns as freed, and (b) hand a later file an already-compiled pattern
with the same source, hiding its cost. So ``re.purge()`` runs before every
"before" and every "after" reading: each file compiles its patterns anew,
and a pattern is counted exactly when the measured object itself holds it.

Run it directly::

    .venv/bin/python benchmarks/bench_memory.py            # about 20 seconds
    .venv/bin/python benchmarks/bench_memory.py --quick    # first 40 files
    .venv/bin/python benchmarks/bench_memory.py --json results.json

It is a script, not a test: it asserts nothing about sizes.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import platform
import random
import re
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import HOST, RULE_VALUE, rule_paths, shared_dir, table, version

# Measure the working tree, whether or not the package is installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protego import Protego

import scrapy_robots_rfc
from scrapy_robots_rfc import RobotsTxt, policy
from scrapy_robots_rfc.matcher import canonical_match_string

ROOT = Path(__file__).resolve().parents[1]
#: The middleware's token for Scrapy's default USER_AGENT, lower-cased.
TOKEN = "scrapy"
#: What Protego is asked with: Scrapy's default USER_AGENT form.
USER_AGENT = "Scrapy/2.19 (+https://scrapy.org)"
VERDICTS = 100
SEED = 9309
QUICK_FILES = 40
#: Target from the issue; reported, never asserted.
TARGET_MEDIAN_BYTES = 2048


@dataclass(frozen=True)
class RobotsFile:
    name: str
    body: bytes
    text: str  # as Scrapy's ProtegoRobotParser decodes it
    urls: tuple[str, ...]  # VERDICTS URLs made from the file's own rules


# --- input ----------------------------------------------------------------


def urls_for(text: str, rng: random.Random) -> tuple[str, ...]:
    """``VERDICTS`` URLs built from a file's allow/disallow values (cycled),
    as bench_matcher.py builds them."""
    unique = rule_paths(list(dict.fromkeys(RULE_VALUE.findall(text))), rng)
    rng.shuffle(unique)
    return tuple(HOST + unique[i % len(unique)] for i in range(VERDICTS))


def load_corpus(folder: Path, limit: int | None) -> list[RobotsFile]:
    rng = random.Random(SEED)
    files = []
    for path in sorted(folder.glob("*.txt"))[:limit]:
        body = path.read_bytes()
        text = body.decode("utf-8-sig", errors="ignore")
        files.append(RobotsFile(path.name, body, text, urls_for(text, rng)))
    return files


# --- what each approach keeps ---------------------------------------------


def ours_entry(body: bytes) -> policy.Entry:
    """What RobotsTxtMiddleware._parse stores for an origin; the RobotsTxt
    is dropped on return."""
    robots = RobotsTxt.parse(body, "rfc")
    rules = {TOKEN: robots.for_agent(TOKEN)}
    return policy.fetched(rules, outcome=f"{200}", now=0.0, fresh_for=policy.DEFAULT_TTL)


def ours_verdicts(entry: policy.Entry, urls: Sequence[str]) -> None:
    """The middleware's verdict path (``_decide``)."""
    assert entry.rules is not None
    agent = entry.rules[TOKEN]
    for url in urls:
        if agent.rules:
            path = canonical_match_string(url, "rfc")
            if path != "/robots.txt":
                agent.decide(path)


def protego_parsed(text: str) -> Protego:
    return Protego.parse(text)


def protego_verdicts(rp: Protego, urls: Sequence[str]) -> None:
    for url in urls:
        rp.can_fetch(url, USER_AGENT)


# --- measuring ------------------------------------------------------------


def _settle() -> int:
    """Traced bytes once garbage and the re cache are gone."""
    gc.collect()
    re.purge()
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def kept_bytes(
    build: Callable[[], object], use: Callable[[Any], None] | None = None
) -> tuple[int, int | None]:
    """Bytes that ``build()``'s result keeps, and (if ``use`` is given) that it
    keeps after ``use(result)``. The result is dropped before returning."""
    before = _settle()
    kept = build()
    built = _settle() - before
    used = None
    if use is not None:
        use(kept)
        used = _settle() - before
    del kept
    return built, used


def measure(robots: RobotsFile) -> dict[str, Any]:
    ours, ours_used = kept_bytes(
        lambda: ours_entry(robots.body), lambda e: ours_verdicts(e, robots.urls)
    )
    theirs, theirs_used = kept_bytes(
        lambda: protego_parsed(robots.text), lambda p: protego_verdicts(p, robots.urls)
    )
    return {
        "file": robots.name,
        "body": len(robots.body),
        "ours": ours,
        "ours_100": ours_used,
        "protego": theirs,
        "protego_100": theirs_used,
    }


def warm_up(files: Sequence[RobotsFile]) -> None:
    for robots in files:
        ours_verdicts(ours_entry(robots.body), robots.urls)
        protego_verdicts(protego_parsed(robots.text), robots.urls)


# --- output ---------------------------------------------------------------

COLUMNS = (
    ("ours", "ours, parsed (Entry, 1 token)"),
    ("ours_100", f"ours, after {VERDICTS} verdicts"),
    ("protego", "Protego, parsed"),
    ("protego_100", f"Protego, after {VERDICTS} verdicts"),
    ("body", "raw body"),
)


def percentile(values: Sequence[int], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return float(ordered[max(0, math.ceil(fraction * len(ordered)) - 1)])


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    out = {}
    for key, _ in COLUMNS:
        values = [r[key] for r in rows]
        out[key] = {
            "median": float(statistics.median(values)),
            "p90": percentile(values, 0.9),
            "max": float(max(values)),
            "mean": statistics.fmean(values),
            "total": float(sum(values)),
        }
    return out


def target_text(median: float) -> str:
    verdict = "meets" if median <= TARGET_MEDIAN_BYTES else "ABOVE"
    return f"{median:,.0f} bytes ({verdict} target <= {TARGET_MEDIAN_BYTES:,} bytes)"


def report(rows: Sequence[dict[str, Any]], stats: dict[str, dict[str, float]]) -> None:
    print(f"\nBytes kept per origin, over {len(rows)} files (tracemalloc):")
    print(
        table(
            ["what is kept", "median", "p90", "max", "mean"],
            [
                [
                    label,
                    *(f"{stats[key][s]:,.0f}" for s in ("median", "p90", "max", "mean")),
                ]
                for key, label in COLUMNS
            ],
        )
    )
    largest = max(rows, key=lambda r: r["ours_100"])
    print(
        f"   largest ours after {VERDICTS} verdicts: {largest['file']}"
        f" ({largest['body']:,} byte body): {largest['ours']:,} parsed,"
        f" {largest['ours_100']:,} after verdicts, Protego {largest['protego']:,}"
    )
    after = f"after {VERDICTS} verdicts"
    lines = [
        ("ours median, parsed", target_text(stats["ours"]["median"])),
        (f"ours median, {after}", target_text(stats["ours_100"]["median"])),
        (
            "median ratio Protego/ours, parsed",
            f"{stats['protego']['median'] / stats['ours']['median']:.1f}x",
        ),
        (
            f"median ratio Protego/ours, {after}",
            f"{stats['protego_100']['median'] / stats['ours_100']['median']:.1f}x",
        ),
        ("median raw body", f"{stats['body']['median']:,.0f} bytes"),
    ]
    width = max(len(label) for label, _ in lines) + 1
    print("\nSummary (targets are reported, never asserted)")
    for label, value in lines:
        print(f"   {label + ':':<{width}} {value}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"the first {QUICK_FILES} files only")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results as JSON")
    args = parser.parse_args(argv)
    started = time.perf_counter()

    corpus_dir = shared_dir() / "corpus" / "robots"
    if not corpus_dir.is_dir():
        sys.exit(
            f"bench_memory: no corpus at {corpus_dir}; it is read in place from the team's"
            " shared folder (set ROBOTS_SHARED to the folder that holds corpus/robots)"
        )
    files = load_corpus(corpus_dir, QUICK_FILES if args.quick else None)
    if not files:
        sys.exit(f"bench_memory: no *.txt files in {corpus_dir}")

    print("scrapy_robots_rfc memory benchmark" + (" (--quick)" if args.quick else ""))
    print(
        f"Python {platform.python_version()}; scrapy_robots_rfc {scrapy_robots_rfc.__version__}"
        f" from {ROOT}; Protego {version('protego')}"
    )
    size = sum(len(f.body) for f in files)
    print(f"Input: corpus {corpus_dir}: {len(files)} files, {size:,} bytes")
    print(f"Token {TOKEN!r} for ours, User-Agent {USER_AGENT!r} for Protego")

    tracemalloc.start()
    try:
        warm_up(files)
        rows = [measure(robots) for robots in files]
    finally:
        tracemalloc.stop()
    stats = summary(rows)
    report(rows, stats)

    elapsed = time.perf_counter() - started
    print(f"\nTotal time {elapsed:.1f} s")
    if args.json is not None:
        results = {
            "quick": args.quick,
            "python": platform.python_version(),
            "protego": version("protego"),
            "source": str(corpus_dir),
            "files": len(files),
            "token": TOKEN,
            "user_agent": USER_AGENT,
            "verdicts": VERDICTS,
            "target_median_bytes": TARGET_MEDIAN_BYTES,
            "summary": stats,
            "per_file": rows,
            "elapsed_s": elapsed,
        }
        args.json.write_text(json.dumps(results, indent=2) + "\n")
        print(f"Results written to {args.json}")


if __name__ == "__main__":
    main()
