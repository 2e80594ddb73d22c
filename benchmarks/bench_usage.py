"""Usage preferences (Content-Usage, Content-Signal; U-1..U-6):
what reading them costs, over the real robots.txt corpus.

A file without usage lines must cost nothing more than before: the parse
loop reaches the usage branch only for the two usage keys, verdicts never
look at usage rules, and ``usage()`` answers ``NO_PREFERENCES`` after one
``is None`` test. What is measured (``<shared>/corpus/robots``, read in
place; ``<shared>`` as for bench_memory.py):

* **before/after** (with ``--before REV``): the corpus files without usage
  lines, parsed, then asked for verdicts (``allowed()`` on URLs built from
  each file's rules, for the middleware's token), and the bytes kept per
  cached origin (``{token: for_agent(token)}``, tracemalloc, as
  bench_memory.py measures ours), by the working tree and by the package
  at git revision ``REV`` (extracted read-only with ``git archive`` into a
  temporary folder). Each side runs in its own process, in interleaved
  rounds; the best and the median round are shown. Without ``--before``
  the working tree alone is measured.
* **the hook exercised**: the same files with a ``Content-Usage`` line in
  every group and one before the first, parsed; the cost per usage line.
* **usage()**: per call, on files without usage lines (the fast path, next
  to ``allowed()``), on those files with usage lines (first call: the rule
  sets built and the statements parsed; then warm), and on the corpus
  files that have usage lines.
* **header_preferences**: a statement not seen before (parsed by
  ``http_sf``) and one memoised.

Run it directly::

    .venv/bin/python benchmarks/bench_usage.py                  # about 30 seconds
    .venv/bin/python benchmarks/bench_usage.py --before HEAD~1  # against a commit
    .venv/bin/python benchmarks/bench_usage.py --quick          # first 60 files

It is a script, not a test: it asserts nothing about times or sizes.
"""

from __future__ import annotations

import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# harness puts the repository root first on sys.path: the working tree is measured.
import harness

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc.robotstxt._usage import NO_PREFERENCES, header_preferences

TOKEN = harness.TOKEN
QUICK_FILES = 60
ROUNDS = 5
URLS_PER_FILE = 20
#: A usage line: the key of either kind, in any case.
USAGE_LINE = re.compile(rb"(?im)^[ \t]*content-(?:usage|signal)\b")
#: The user-agent lines that start a group.
USER_AGENT_LINES = re.compile(rb"(?im)((?:^[ \t]*user-?agent[ \t]*:[^\r\n]*(?:\r\n|\r|\n))+)")

#: What one side (a package folder on sys.path) measures, in its own
#: process: the files' parse time and verdict time (best of 3 passes), and
#: the bytes kept per cached origin. It reads the files and URLs from stdin.
CHILD = """
import gc, json, re, statistics, sys, time, tracemalloc
root = sys.argv[1]
sys.path.insert(0, root)
from scrapy_robots_rfc import RobotsTxt
spec = json.loads(sys.stdin.read())
bodies = [open(p, "rb").read() for p in spec["files"]]
token = spec["token"]
def parse():
    for body in bodies:
        RobotsTxt.parse(body)
def verdicts():
    agents = [RobotsTxt.parse(body).for_agent(token) for body in bodies]
    gc.disable()
    start = time.perf_counter()
    for agent, urls in zip(agents, spec["urls"]):
        for url in urls:
            agent.allowed(url)
    took = time.perf_counter() - start
    gc.enable()
    return took
def timed(run):
    gc.disable()
    start = time.perf_counter()
    run()
    took = time.perf_counter() - start
    gc.enable()
    return took
parse()
parse_s = min(timed(parse) for _ in range(3))
verdict_s = min(verdicts() for _ in range(3))
kept = []
if spec["memory"]:
    tracemalloc.start()
    for body in bodies:
        gc.collect(); re.purge(); gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        entry = {token: RobotsTxt.parse(body).for_agent(token)}
        gc.collect(); re.purge(); gc.collect()
        kept.append(tracemalloc.get_traced_memory()[0] - before)
        del entry
    tracemalloc.stop()
print(json.dumps({"parse_s": parse_s, "verdict_s": verdict_s, "kept": kept}))
"""


def side(root: Path, spec: dict[str, Any]) -> dict[str, Any]:
    """One run of :data:`CHILD` with the package at ``root``."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root)],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def extract(revision: str, into: Path) -> Path:
    """The package at git ``revision``, extracted read-only into ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(harness.ROOT), "archive", revision, "scrapy_robots_rfc"],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def with_usage_lines(body: bytes) -> tuple[bytes, int]:
    """``body`` with a Content-Usage line before the first line and after
    the user-agent lines of every group, and how many were added."""
    added, count = USER_AGENT_LINES.subn(rb"\1Content-Usage: /private/ train-ai=n\n", body)
    return b"Content-Usage: train-ai=y, search=y\n" + added, count + 1


def per_call(calls: Sequence[tuple[RobotsTxt, str]], method: str, passes: int = 3) -> float:
    """Seconds per call of ``robots.<method>(url, TOKEN)``, best of ``passes``."""

    def run() -> None:
        for robots, url in calls:
            getattr(robots, method)(url, TOKEN)

    return harness.best_of(passes, run) / len(calls)


def before_after(
    files: Sequence[harness.RobotsFile], urls: list[list[str]], before: Path | None, rounds: int
) -> dict[str, Any]:
    paths = [str(harness.corpus_dir() / f.name) for f in files]
    spec = {"files": paths, "urls": urls, "token": TOKEN, "memory": False}
    sides = {"after": harness.ROOT} | ({"before": before} if before else {})
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, root in sides.items():
            runs[name].append(side(root, spec))
    results = {}
    for name, root in sides.items():
        kept = side(root, spec | {"memory": True})["kept"]
        parse = [r["parse_s"] for r in runs[name]]
        verdicts = [r["verdict_s"] for r in runs[name]]
        results[name] = {
            "parse_best_ms": min(parse) * 1e3,
            "parse_median_ms": statistics.median(parse) * 1e3,
            "verdicts_best_ms": min(verdicts) * 1e3,
            "verdicts_median_ms": statistics.median(verdicts) * 1e3,
            "kept_median": statistics.median(kept),
            "kept_mean": statistics.fmean(kept),
        }
    return results


def hook(files: Sequence[harness.RobotsFile]) -> dict[str, Any]:
    plain = [f.body for f in files]
    changed = [with_usage_lines(body) for body in plain]
    lines = sum(count for _, count in changed)

    def parse(bodies: Sequence[bytes]) -> None:
        for body in bodies:
            RobotsTxt.parse(body)

    without = harness.best_of(5, lambda: parse(plain))
    with_lines = harness.best_of(5, lambda: parse([body for body, _ in changed]))
    return {
        "lines": lines,
        "without_ms": without * 1e3,
        "with_ms": with_lines * 1e3,
        "per_line_us": (with_lines - without) / lines * 1e6,
    }


def _calls(bodies: Sequence[bytes], urls: list[list[str]]) -> list[tuple[RobotsTxt, str]]:
    """Each body parsed once, with each of its URLs."""
    parsed = [RobotsTxt.parse(body) for body in bodies]
    return [(robots, url) for robots, own in zip(parsed, urls, strict=True) for url in own]


def usage_calls(files: Sequence[harness.RobotsFile], urls: list[list[str]]) -> dict[str, Any]:
    plain = _calls([f.body for f in files], urls)
    for robots, url in plain:
        assert robots.usage(url, TOKEN) is NO_PREFERENCES
    changed_bodies = [with_usage_lines(f.body)[0] for f in files]

    # A crawler's rules are built with its usage rule sets: each of its
    # usage lines split and its path escaped, as usage_rules does for all.
    parsed = [RobotsTxt.parse(body) for body in changed_bodies]
    lines = sum(len(robots.usage_rules) for robots in parsed)
    build = harness.best_of(5, lambda: [robots.usage_rules for robots in parsed]) / lines
    changed = _calls(changed_bodies, urls)
    return {
        "allowed_ns": per_call(plain, "allowed") * 1e9,
        "usage_none_ns": per_call(plain, "usage") * 1e9,
        "rule_build_us": build * 1e6,
        "usage_warm_ns": per_call(changed, "usage") * 1e9,
    }


def corpus_usage(files: Sequence[harness.RobotsFile], rng: random.Random) -> list[list[str]]:
    rows = []
    for robots_file in files:
        robots = RobotsTxt.parse(robots_file.body)
        urls = harness.rule_urls(harness.protego_text(robots_file.body), rng, URLS_PER_FILE)
        calls = [(robots, url) for url in urls]
        stated = sum(1 for url in urls if robots.usage(url, TOKEN))
        rows.append(
            [
                robots_file.name,
                str(len(robots.usage_rules)),
                f"{stated}/{len(urls)}",
                f"{per_call(calls, 'usage', 5) * 1e9:,.0f}",
                f"{per_call(calls, 'allowed', 5) * 1e9:,.0f}",
            ]
        )
    return rows


def headers() -> dict[str, float]:
    count = 2000
    fresh = [f"train-ai=n, search=y, x{i}=?1".encode() for i in range(count)]
    cold = harness.best_of(1, lambda: [header_preferences([v]) for v in fresh]) / count
    seen = [b"train-ai=n, search=y"] * count
    warm = harness.best_of(3, lambda: [header_preferences([v]) for v in seen]) / count
    return {"cold_us": cold * 1e6, "memoised_us": warm * 1e6}


def main(argv: Sequence[str] | None = None) -> None:
    parser = harness.arguments(__doc__, f"the first {QUICK_FILES} files only")
    parser.add_argument(
        "--before",
        metavar="REV",
        help="also measure the package at this git revision (extracted with git archive)",
    )
    parser.add_argument(
        "--rounds", type=int, default=ROUNDS, help=f"before/after rounds (default {ROUNDS})"
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    corpus = harness.load_corpus()
    if not corpus:
        sys.exit(
            f"bench_usage: no corpus at {harness.corpus_dir()}; it is read in place from the"
            " team's shared folder (set ROBOTS_SHARED to the folder that holds corpus/robots)"
        )
    with_lines = [f for f in corpus if USAGE_LINE.search(f.body)]
    files = [f for f in corpus if not USAGE_LINE.search(f.body)]
    if args.quick:
        files = files[:QUICK_FILES]
    rng = random.Random(harness.SEED)
    urls = [harness.rule_urls(harness.protego_text(f.body), rng, URLS_PER_FILE) for f in files]
    harness.title("usage preferences benchmark", args.quick)
    print(f"{harness.python_text()}; {harness.package_text()} ({harness.git_state()})")
    print(
        f"Input: {len(files)} corpus files without usage lines "
        f"({sum(len(f.body) for f in files):,} bytes, {sum(map(len, urls)):,} URLs); "
        f"{len(with_lines)} with: {', '.join(f.name for f in with_lines)}"
    )

    with tempfile.TemporaryDirectory() as folder:
        before = extract(args.before, Path(folder)) if args.before else None
        compared = before_after(files, urls, before, args.rounds)
    names = list(compared)
    label = {"after": "working tree", "before": f"at {args.before}"}
    print(f"\nFiles without usage lines, {args.rounds} interleaved rounds, one process per side:")
    print(
        harness.table(
            ["package", "parse best", "median", "verdicts best", "median", "kept/origin median"],
            [
                [
                    label[name],
                    f"{compared[name]['parse_best_ms']:.2f} ms",
                    f"{compared[name]['parse_median_ms']:.2f} ms",
                    f"{compared[name]['verdicts_best_ms']:.2f} ms",
                    f"{compared[name]['verdicts_median_ms']:.2f} ms",
                    f"{compared[name]['kept_median']:,.0f} B",
                ]
                for name in names
            ],
        )
    )

    exercised = hook(files)
    print(
        f"\nThe same files with {exercised['lines']:,} Content-Usage lines added: parse "
        f"{exercised['without_ms']:.2f} ms -> {exercised['with_ms']:.2f} ms, "
        f"{exercised['per_line_us']:.2f} us per usage line"
    )
    calls = usage_calls(files, urls)
    print(
        f"Per call: allowed() {calls['allowed_ns']:,.0f} ns; usage() without usage lines "
        f"{calls['usage_none_ns']:,.0f} ns; with them: usage() "
        f"{calls['usage_warm_ns']:,.0f} ns; a usage rule is built (with the crawler's rules) "
        f"in {calls['rule_build_us']:.2f} us"
    )
    print(f"\nCorpus files with usage lines (rfc mode, token {TOKEN!r}):")
    rows = corpus_usage(with_lines, rng)
    print(harness.table(["file", "lines", "URLs stated", "usage() ns", "allowed() ns"], rows))
    header = headers()
    print(
        f"\nheader_preferences: {header['cold_us']:.1f} us for a statement not seen before, "
        f"{header['memoised_us']:.2f} us memoised"
    )
    results = {
        "quick": args.quick,
        "python": harness.python_text(),
        "files": len(files),
        "before": args.before,
        "before_after": compared,
        "hook": exercised,
        "calls": calls,
        "corpus_with_usage": rows,
        "header": header,
    }
    harness.finish(args.json, results, started)


if __name__ == "__main__":
    main()
