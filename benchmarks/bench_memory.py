"""Memory kept per cached origin: this package's middleware entry against
Scrapy's built-in (Protego), over the real robots.txt corpus.

What is measured, for every ``*.txt`` in ``<shared>/corpus/robots``
(``<shared>`` is ``../shared`` next to the repo root, or ``$ROBOTS_SHARED``;
the files are read in place, never copied):

* ours, parsed: what ``RobotsTxtMiddleware`` keeps per origin, a
  ``policy.Entry`` holding ``{token: robots.for_agent(token)}`` for its own
  product token (``"scrapy"``: Scrapy's default ``USER_AGENT`` is
  ``Scrapy/x.y``, and the middleware lower-cases tokens) and the file's
  ``Sitemap`` URLs. The body is parsed
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

import math
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# harness puts the repository root first on sys.path: the working tree is measured.
import harness
from protego import Protego

from scrapy_robots_rfc.policy import _policy as policy
from scrapy_robots_rfc.robotstxt._canonical import canonical_match_string

#: What Protego is asked with: Scrapy's default USER_AGENT form.
USER_AGENT = harness.SCRAPY_USER_AGENT
#: What ours is asked with: the middleware's name for that USER_AGENT.
TOKEN = harness.TOKEN
VERDICTS = 100
QUICK_FILES = 40
#: Target from the issue; reported, never asserted.
TARGET_MEDIAN_BYTES = 2048


@dataclass(frozen=True)
class Sample:
    name: str
    body: bytes
    text: str  # as Scrapy's ProtegoRobotParser decodes it
    urls: tuple[str, ...]  # VERDICTS URLs made from the file's own rules


# --- input ----------------------------------------------------------------


def load_samples(limit: int | None) -> list[Sample]:
    """The corpus files, each with ``VERDICTS`` URLs built from its own
    allow/disallow values (cycled), as bench_matcher.py builds them."""
    rng = random.Random(harness.SEED)
    samples = []
    for robots in harness.load_corpus(limit):
        text = harness.protego_text(robots.body)
        urls = harness.rule_urls(text, rng)
        rng.shuffle(urls)
        cycled = tuple(urls[i % len(urls)] for i in range(VERDICTS))
        samples.append(Sample(robots.name, robots.body, text, cycled))
    return samples


# --- what each approach keeps ---------------------------------------------


def ours_entry(body: bytes) -> policy.Entry:
    """What the middleware caches for an origin (its resolver's entry); the
    RobotsTxt is dropped on return."""
    rules, sitemaps = harness.middleware_kept(body)
    return policy.fetched(
        rules, outcome=f"{200}", now=0.0, fresh_for=policy.DEFAULT_TTL, sitemaps=sitemaps
    )


def ours_verdicts(entry: policy.Entry, urls: Sequence[str]) -> None:
    """The middleware's verdict path (``_decide``)."""
    assert entry.rules is not None
    agent = entry.rules[TOKEN]
    for url in urls:
        if agent.rules:
            agent.deciding_rule(canonical_match_string(url, agent.mode))


def protego_parsed(text: str) -> Protego:
    return Protego.parse(text)


def protego_verdicts(rp: Protego, urls: Sequence[str]) -> None:
    for url in urls:
        rp.can_fetch(url, USER_AGENT)


# --- measuring ------------------------------------------------------------


def measure(robots: Sample) -> dict[str, Any]:
    ours, ours_used = harness.kept_bytes(
        lambda: ours_entry(robots.body), lambda e: ours_verdicts(e, robots.urls)
    )
    theirs, theirs_used = harness.kept_bytes(
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


def warm_up(files: Sequence[Sample]) -> None:
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
    return harness.against(
        median, TARGET_MEDIAN_BYTES, f"{median:,.0f} bytes", f"{TARGET_MEDIAN_BYTES:,} bytes", "<="
    )


def report(rows: Sequence[dict[str, Any]], stats: dict[str, dict[str, float]]) -> None:
    print(f"\nBytes kept per origin, over {len(rows)} files (tracemalloc):")
    print(
        harness.table(
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
    args = harness.arguments(__doc__, f"the first {QUICK_FILES} files only").parse_args(argv)
    started = time.perf_counter()

    folder = harness.corpus_dir()
    if not folder.is_dir():
        sys.exit(
            f"bench_memory: no corpus at {folder}; it is read in place from the team's"
            " shared folder (set ROBOTS_SHARED to the folder that holds corpus/robots)"
        )
    files = load_samples(QUICK_FILES if args.quick else None)
    if not files:
        sys.exit(f"bench_memory: no *.txt files in {folder}")

    harness.title("memory benchmark", args.quick)
    print(
        f"{harness.python_text()}; {harness.package_text()}; Protego {harness.version('protego')}"
    )
    size = sum(len(f.body) for f in files)
    print(f"Input: corpus {folder}: {len(files)} files, {size:,} bytes")
    print(f"Token {TOKEN!r} for ours, User-Agent {USER_AGENT!r} for Protego")

    with harness.tracing():
        warm_up(files)
        rows = [measure(robots) for robots in files]
    stats = summary(rows)
    report(rows, stats)

    results = {
        "quick": args.quick,
        "python": platform.python_version(),
        "protego": harness.version("protego"),
        "source": str(folder),
        "files": len(files),
        "token": TOKEN,
        "user_agent": USER_AGENT,
        "verdicts": VERDICTS,
        "target_median_bytes": TARGET_MEDIAN_BYTES,
        "summary": stats,
        "per_file": rows,
    }
    harness.finish(args.json, results, started)


if __name__ == "__main__":
    main()
