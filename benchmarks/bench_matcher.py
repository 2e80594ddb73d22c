"""Speed of ``scrapy_robots_rfc`` against Protego, texting-robots-py and Google's C++ parser.

The header says which build of the package is measured
(``scrapy_robots_rfc.build()``: ``pure`` or ``compiled``). texting-robots-py
(a binding of the Rust crate ``texting_robots``) is optional: without it
(the ``bench`` extra: ``pip install -e '.[bench]'``, which ``make bench``
does) its rows are skipped and the run says so. Its API binds the agent at
parse time (``Robot(agent, body)``), so it is used as a crawler would: one
parsed object per (file, agent), each parse counted in its first use.

One run measures, and prints as tables:

0. The headline: a crawler's workload (issue 11). For every corpus file,
   about 30 URLs built from the file's own rules (``harness.crawler_workload``:
   each value's literal path, with a suffix, ``*`` expanded to ``''``, ``x``
   and ``abc/def``, with ``?q=1`` and an empty ``?``, the neighbours of a
   final ``$``, upper-cased, a letter %-escaped, a lower-case escape,
   escapes decoded, UTF-8 non-ASCII escaped and raw; plus ``/``,
   ``/index.html`` and ``/robots.txt``), each asked for 3 agents drawn from
   the file's own product tokens and ``Googlebot``, ``Scrapy`` and an
   unknown bot, so that each (file, agent) gets 10 to 30 verdicts.
   *First use* is timed from the parse through the file's last verdict, on
   fresh objects, summed over the corpus; *warmed* is the best of the next
   5 passes of the same questions on the same objects, *steady* the best of
   the 5 passes after those (by then the large rule sets that pay for
   compiling are compiled, ``AgentRules.decide``). Ours (both modes),
   Protego (with Scrapy's decode) and texting-robots-py alternate within
   each of several runs; the ratios are per run, and their median is
   reported; ``re``'s cache of compiled patterns is emptied before each
   first use. Google's parser (``jwm.robotstxt``, parse + match per
   verdict) is timed once.
   *Agreement*: on the same questions, how many verdicts of
   texting-robots-py, Protego and ours in each mode differ from Google's
   parser's (and from ours in ``rfc`` mode, the RFC reading), with a few
   of texting-robots-py's. Ours in ``google`` mode must differ on none: a
   difference is a bug, and the run says so.
1. Parse throughput (MB/s) over the real corpus, every ``*.txt`` in
   ``<shared>/corpus/robots`` (``<shared>`` is ``../shared`` next to the repo
   root, or ``$ROBOTS_SHARED``). The files are read in place. Each row is the
   best of several passes, a pass parsing every file once. Ours is timed in
   both modes, Protego with the ``utf-8-sig`` decode that Scrapy does before
   ``Protego.parse``, texting-robots-py for one agent (its parse compiles
   that agent's rules). ``jwm.robotstxt`` (a binding of robots.cc) has no
   parsed form, so its row is one ``OneAgentAllowedByRobots`` call per file
   with a fixed URL: parse plus one match. Rows "parse + 1st verdict" add the
   lazy per-agent preparation that ours and Protego do on first use.
2. Verdicts per second on pre-parsed files, for URLs built from each corpus
   file's own rules (a seeded, fixed set; half for ``ExampleBot``, half for
   ``Googlebot``): ours through ``RobotsTxt.allowed`` and through a
   pre-selected ``for_agent(agent).allowed`` (what the middleware does),
   Protego through ``can_fetch``, texting-robots-py through one ``Robot``
   per (file, agent), jwm re-parsing the file for every verdict.
   Ours in ``google`` mode is checked against jwm on every URL (on one in
   three with ``--quick``); mismatches are counted and shown.
3. Worst-case time per verdict on generated adversarial files (1,000 ``*``,
   4 KiB of ``*``, ``/*x*x...$``, 5,000 rules, a 64 KiB URL, a 500 KiB
   file), and the parse time of that 500 KiB file. texting-robots-py
   refuses some of these files (its parse raises); they are marked so.
4. A summary: the ratios ours/Protego for verdicts/s and parse throughput,
   in ``rfc`` (the default) and ``google`` mode, next to their targets; then
   issue 24's targets for the compiled build (first use >= 1.2x
   texting-robots-py and >= 3x Protego, warmed >= 1.0x texting-robots-py,
   parse >= 3x Protego) next to this run's ratios, whichever build it is.

Run it with ``make bench``, or directly::

    .venv/bin/python benchmarks/bench_matcher.py            # about 2 minutes
    .venv/bin/python benchmarks/bench_matcher.py --quick    # under a minute
    .venv/bin/python benchmarks/bench_matcher.py --json results.json

It is a script, not a test: it asserts nothing about timings. Timed regions
run with the garbage collector off, as ``timeit`` does.
"""

from __future__ import annotations

import itertools
import math
import platform
import random
import re
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

# harness puts the repository root first on sys.path: the working tree is measured.
import harness
from jwm.robotstxt.googlebot import RobotsMatcher
from protego import Protego

from scrapy_robots_rfc import AgentRules, RobotsTxt, build

# texting-robots-py is an optional comparison: its rows are skipped without it.
TextingRobot: Any
try:
    from texting_robots import Robot as TextingRobot
except ImportError as exc:
    TextingRobot = None
    TEXTING_SKIPPED: str | None = (
        f"texting-robots-py skipped: it cannot be imported ({exc}); install the bench extra"
        " (pip install -e '.[bench]', which make bench does)"
    )
else:
    TEXTING_SKIPPED = None
#: What texting-robots-py raises on a file it refuses (a rule its regex
#: engine will not compile): it has no parsed form of such a file at all.
TEXTING_ERRORS = (RuntimeError, ValueError)
TEXTING = "texting-robots-py"

AGENTS = ("ExampleBot", "Googlebot")
FIXED_URL = harness.HOST + "/"
#: At most this many allow/disallow values of one corpus file become URLs.
MAX_VALUES_PER_FILE = 25
BIG_FILE_BYTES = 500 * 1024  # RFC 9309 §2.5 limit
MB = 1_000_000

# Targets from the design brief; reported, never asserted.
TARGET_VERDICT_RATIO = 3.0
TARGET_FIRST_USE_RATIO = 2.0
TARGET_PARSE_RATIO = 1.5
TARGET_WORST_MS = 0.2
TARGET_BIG_PARSE_S = 1.0


Mode = Literal["rfc", "google"]
Verdict = Callable[[str, str], bool]


@dataclass(frozen=True)
class Settings:
    parse_passes: int
    verdict_passes: int
    #: Single-verdict timings repeat up to ``call_repeats`` times, or fewer
    #: (at least ``MIN_REPEATS``) once ``call_budget_s`` seconds are spent.
    call_repeats: int
    #: The first verdict after a fresh parse: at least ``first_min`` times.
    first_repeats: int
    first_min: int
    call_budget_s: float
    jwm_repeats: int
    #: jwm re-parses the file for every verdict: it checks every n-th pair.
    jwm_stride: int
    #: Section 0: runs of first use, and passes per warmed timing.
    crawler_runs: int
    warm_passes: int


FULL = Settings(
    parse_passes=7,
    verdict_passes=7,
    call_repeats=500,
    first_repeats=20,
    first_min=3,
    call_budget_s=0.25,
    jwm_repeats=2,
    jwm_stride=1,
    crawler_runs=5,
    warm_passes=5,
)
QUICK = Settings(
    parse_passes=2,
    verdict_passes=2,
    call_repeats=50,
    first_repeats=5,
    first_min=1,
    call_budget_s=0.03,
    jwm_repeats=1,
    jwm_stride=3,
    crawler_runs=3,
    warm_passes=3,
)
MIN_REPEATS = 3


@dataclass(frozen=True)
class Pair:
    file: int
    url: str
    agent: str


@dataclass(frozen=True)
class Adversarial:
    name: str
    body: bytes
    urls: tuple[str, ...]


# --- timing ---------------------------------------------------------------


def best_call(
    fn: Callable[[str, str], object],
    url: str,
    agent: str,
    repeats: int,
    budget: float = math.inf,
) -> float:
    """The shortest of up to ``repeats`` single calls ``fn(url, agent)``, in
    seconds; it stops early, after ``MIN_REPEATS`` calls, once ``budget``
    seconds are spent."""
    best = math.inf
    deadline = time.perf_counter() + budget
    with harness.gc_off():
        for n in range(repeats):
            start = time.perf_counter()
            fn(url, agent)
            end = time.perf_counter()
            best = min(best, end - start)
            if n + 1 >= MIN_REPEATS and end > deadline:
                break
    return best


# --- inputs ---------------------------------------------------------------


# --- 0. the crawler's workload -----------------------------------------------


@dataclass(frozen=True)
class Workload:
    """One corpus file and its crawler questions: (URL, agent) pairs, and
    the same questions by agent, for texting-robots-py: its parsed form
    answers for one agent, so a crawler would hold one per agent."""

    name: str
    body: bytes
    questions: list[tuple[str, str]]
    by_agent: list[tuple[str, list[str]]]


def crawler_workloads(files: Sequence[harness.RobotsFile], rng: random.Random) -> list[Workload]:
    work = []
    for f in files:
        questions = harness.crawler_workload(f.body.decode("utf-8", "replace"), rng)
        by_agent: dict[str, list[str]] = {}
        for url, agent in questions:
            by_agent.setdefault(agent, []).append(url)
        work.append(Workload(f.name, f.body, questions, list(by_agent.items())))
    return work


#: What a first use gives: seconds from each file's parse through its last
#: verdict, per file, and the parsed objects (for the warmed passes).
FirstUse = tuple[list[float], list[Any]]


def _ours_first_use(work: Sequence[Workload], mode: Mode) -> FirstUse:
    parsed = []
    elapsed = []
    with harness.gc_off():
        for item in work:
            start = time.perf_counter()
            robots = RobotsTxt.parse(item.body, mode)
            for url, agent in item.questions:
                robots.allowed(url, agent)
            elapsed.append(time.perf_counter() - start)
            parsed.append(robots)
    return elapsed, parsed


def _protego_first_use(work: Sequence[Workload]) -> FirstUse:
    parsed = []
    elapsed = []
    with harness.gc_off():
        for item in work:
            start = time.perf_counter()
            robots = Protego.parse(harness.protego_text(item.body))
            for url, agent in item.questions:
                robots.can_fetch(url, agent)
            elapsed.append(time.perf_counter() - start)
            parsed.append(robots)
    return elapsed, parsed


def _texting_first_use(work: Sequence[Workload]) -> FirstUse:
    """texting-robots-py: for each file, one ``Robot`` per agent, each parse
    followed by that agent's questions, all of it timed; per file, the
    (robot, URLs) pairs. A parse that raises is left out (the agreement
    check counts its questions as answered wrongly)."""
    parsed = []
    elapsed = []
    robot_class = TextingRobot
    with harness.gc_off():
        for item in work:
            start = time.perf_counter()
            robots = []
            for agent, urls in item.by_agent:
                try:
                    robot = robot_class(agent, item.body)
                except TEXTING_ERRORS:
                    continue
                for url in urls:
                    robot.allowed(url)
                robots.append((robot, urls))
            elapsed.append(time.perf_counter() - start)
            parsed.append(robots)
    return elapsed, parsed


def _ours_pass(work: Sequence[Workload], parsed: Sequence[Any]) -> None:
    for item, robots in zip(work, parsed, strict=True):
        ask = robots.allowed
        for url, agent in item.questions:
            ask(url, agent)


def _protego_pass(work: Sequence[Workload], parsed: Sequence[Any]) -> None:
    for item, robots in zip(work, parsed, strict=True):
        ask = robots.can_fetch
        for url, agent in item.questions:
            ask(url, agent)


def _texting_pass(work: Sequence[Workload], parsed: Sequence[Any]) -> None:
    for robots in parsed:
        for robot, urls in robots:
            ask = robot.allowed
            for url in urls:
                ask(url)


#: Section 0's implementations: their first use, and one warmed pass.
CRAWLER_IMPLS: dict[str, tuple[Callable[[Sequence[Workload]], FirstUse], Any]] = {
    "rfc": (lambda work: _ours_first_use(work, "rfc"), _ours_pass),
    "google": (lambda work: _ours_first_use(work, "google"), _ours_pass),
    "protego": (_protego_first_use, _protego_pass),
    "texting": (_texting_first_use, _texting_pass),
}
#: Their labels in the tables.
CRAWLER_LABELS = {
    "rfc": "ours rfc",
    "google": "ours google",
    "protego": "Protego",
    "texting": TEXTING,
}


def _warmed(
    one_pass: Callable[[Sequence[Workload], Sequence[Any]], None],
    work: Sequence[Workload],
    parsed: Sequence[Any],
    passes: int,
) -> tuple[float, float]:
    """Every question on ``parsed``, ``2 * passes`` times: the best of the
    first ``passes`` passes (warmed) and the best of the others (steady:
    by then the large rule sets that pay for it are compiled)."""

    def run() -> None:
        one_pass(work, parsed)

    return harness.best_of(passes, run), harness.best_of(passes, run)


def crawler_speed(work: Sequence[Workload], settings: Settings) -> dict[str, Any]:
    """Section 0: first use and warmed, per run, ours in both modes,
    Protego and texting-robots-py (when installed) alternating; then jwm
    once, and every implementation's agreement with it."""
    questions = sum(len(item.questions) for item in work)
    names = ["rfc", "google", "protego"] + (["texting"] if TextingRobot is not None else [])
    runs: list[dict[str, float]] = []
    costliest: dict[str, dict[str, Any]] = {}
    for run in range(settings.crawler_runs):
        row: dict[str, float] = {}
        shift = run % len(names)
        for name in names[shift:] + names[:shift]:
            # Each first use starts without the regexes the previous one
            # compiled (``re`` caches 512 of them per process).
            re.purge()
            first_use, one_pass = CRAWLER_IMPLS[name]
            per_file, parsed = first_use(work)
            row[f"{name}_first_s"] = first = sum(per_file)
            most = max(range(len(work)), key=per_file.__getitem__)
            costliest[name] = {
                "file": work[most].name,
                "s": per_file[most],
                "share": per_file[most] / first,
            }
            row[f"{name}_warm_s"], row[f"{name}_steady_s"] = _warmed(
                one_pass, work, parsed, settings.warm_passes
            )
        runs.append(row)
    matcher = RobotsMatcher()
    google: list[bool] = []
    start = time.perf_counter()
    for item in work:
        for url, agent in item.questions:
            google.append(bool(matcher.OneAgentAllowedByRobots(item.body, agent, url)))
    jwm_s = time.perf_counter() - start
    agreed = agreement(work, google)
    return {
        "questions": questions,
        "names": names,
        "texting_parses": sum(len(item.by_agent) for item in work),
        "runs": runs,
        "costliest_first_use": costliest,
        "jwm_s": jwm_s,
        "google_mismatches": agreed["impls"]["ours google"]["vs_google"],
        "agreement": agreed,
    }


#: Examples of disagreements shown (and written to the JSON).
EXAMPLES = 5


def agreement(work: Sequence[Workload], google: Sequence[bool]) -> dict[str, Any]:
    """Each implementation's verdicts on the crawler's questions against
    Google's parser's (``google``, in question order) and against ours in
    ``rfc`` mode (the RFC reading). A question texting-robots-py has no
    verdict for (its parse of the file raised) counts as a disagreement."""
    verdicts: dict[str, list[bool | None]] = {"ours google": [], "ours rfc": [], "Protego": []}
    if TextingRobot is not None:
        verdicts[TEXTING] = []
    where: list[tuple[str, str, str]] = []
    refused: list[dict[str, str]] = []
    for item in work:
        rfc = RobotsTxt.parse(item.body, "rfc")
        ours_google = RobotsTxt.parse(item.body, "google")
        protego = Protego.parse(harness.protego_text(item.body))
        texting: dict[str, Any] = {}
        if TextingRobot is not None:
            for agent, _ in item.by_agent:
                try:
                    texting[agent] = TextingRobot(agent, item.body)
                except TEXTING_ERRORS as exc:
                    refused.append({"file": item.name, "agent": agent, "error": _reason(exc)})
        for url, agent in item.questions:
            where.append((item.name, agent, url))
            verdicts["ours google"].append(ours_google.allowed(url, agent))
            verdicts["ours rfc"].append(rfc.allowed(url, agent))
            verdicts["Protego"].append(protego.can_fetch(url, agent))
            if TextingRobot is not None:
                robot = texting.get(agent)
                verdicts[TEXTING].append(None if robot is None else robot.allowed(url))
    count = len(google)
    reading = verdicts["ours rfc"]
    impls: dict[str, dict[str, Any]] = {}
    for name, found in verdicts.items():
        differ = [i for i, (a, b) in enumerate(zip(found, google, strict=True)) if a != b]
        vs_rfc = sum(a != b for a, b in zip(found, reading, strict=True))
        # Wrong by either reading: where Google's parser and the RFC agree.
        vs_both = sum(found[i] != reading[i] for i in differ)
        impls[name] = {
            "vs_google": len(differ),
            "vs_google_pct": 100 * len(differ) / count if count else 0.0,
            "vs_rfc": vs_rfc,
            "vs_rfc_pct": 100 * vs_rfc / count if count else 0.0,
            "vs_both": vs_both,
            "vs_both_pct": 100 * vs_both / count if count else 0.0,
            "examples": _examples(differ, where, found, google, reading),
        }
    return {"questions": count, "impls": impls, "texting_refused": refused}


def _reason(exc: Exception) -> str:
    """texting-robots-py's error, short: its first line (cut) and its cause."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [repr(exc)]
    cause = next((after for line, after in itertools.pairwise(lines) if line == "Caused by:"), "")
    head = lines[0] if len(lines[0]) <= 60 else lines[0][:60] + "..."
    return head + (f" ({cause})" if cause else "")


def _examples(
    differ: Sequence[int],
    where: Sequence[tuple[str, str, str]],
    found: Sequence[bool | None],
    google: Sequence[bool],
    reading: Sequence[bool | None],
) -> list[dict[str, Any]]:
    """Up to :data:`EXAMPLES` disagreements, the first of files spread over
    the corpus (one per file)."""
    first: dict[str, int] = {}
    for i in differ:
        first.setdefault(where[i][0], i)
    chosen = list(first.values())
    if len(chosen) > EXAMPLES:
        step = (len(chosen) - 1) / (EXAMPLES - 1)
        chosen = [chosen[round(n * step)] for n in range(EXAMPLES)]
    return [
        {
            "file": where[i][0],
            "agent": where[i][1],
            "url": where[i][2],
            "verdict": found[i],
            "google": google[i],
            "ours_rfc": reading[i],
        }
        for i in chosen
    ]


def _median(runs: Sequence[dict[str, float]], key: str) -> float:
    return sorted(r[key] for r in runs)[len(runs) // 2]


def _median_ratio(runs: Sequence[dict[str, float]], theirs: str, ours: str) -> float:
    return sorted(r[theirs] / r[ours] for r in runs)[len(runs) // 2]


def report_crawler(result: dict[str, Any], files: int) -> dict[str, float]:
    runs = result["runs"]
    names = result["names"]
    count = result["questions"]
    print(
        f"\n0. A crawler's workload: {files} files, {count:,} (URL, agent) questions,"
        f" {len(runs)} runs (ratios per run, median shown)"
    )
    rows = []
    for name in names:
        first, warm, steady = (
            _median(runs, f"{name}_{what}_s") for what in ("first", "warm", "steady")
        )
        rows.append(
            [
                CRAWLER_LABELS[name],
                f"{first * 1000:.0f}",
                f"{count / first:,.0f}",
                f"{warm * 1000:.0f}",
                f"{count / warm:,.0f}",
                f"{count / steady:,.0f}",
            ]
        )
    print(
        harness.table(
            [
                "implementation",
                "first use ms",
                "questions/s",
                "warmed ms",
                "verdicts/s",
                "steady/s",
            ],
            rows,
        )
    )
    ratios: dict[str, float] = {}
    for theirs, suffix in (("protego", ""), ("texting", "_texting")):
        if theirs not in names:
            continue
        for what, key in (("first", "first_use"), ("warm", "warmed"), ("steady", "steady")):
            for mode in ("rfc", "google"):
                ratios[f"{key}_{mode}{suffix}"] = _median_ratio(
                    runs, f"{theirs}_{what}_s", f"{mode}_{what}_s"
                )
    if "texting" in names:
        print(
            f"   {TEXTING} answers for the agent it was parsed for: one Robot per (file, agent),"
            f"\n   {result['texting_parses']:,} parses, each counted in its first use"
        )
    costliest = "; ".join(
        f"{CRAWLER_LABELS[name]} {c['file']} {c['s'] * 1000:.1f} ms ({c['share']:.0%})"
        for name in names
        for c in (result["costliest_first_use"][name],)
    )
    print(
        textwrap.fill(
            f"the costliest file in first use (last run): {costliest}",
            96,
            initial_indent="   ",
            subsequent_indent="     ",
        )
    )
    for theirs in ("protego", "texting"):
        if theirs in names:
            per_run = ", ".join(f"{r[f'{theirs}_first_s'] / r['rfc_first_s']:.2f}x" for r in runs)
            print(f"   first use, {CRAWLER_LABELS[theirs]} / ours rfc, per run: {per_run}")
    jwm = result["jwm_s"]
    ours = _median(runs, "rfc_first_s")
    print(
        f"   jwm (robots.cc, parse + match per verdict): {jwm * 1000:.0f} ms;"
        f" ours rfc first use is {jwm / ours:.1f}x faster"
    )
    report_agreement(result["agreement"])
    return ratios


def report_agreement(agreed: dict[str, Any]) -> None:
    impls = agreed["impls"]
    print(
        f"\n   0b. Agreement on these {agreed['questions']:,} questions with Google's parser"
        " (jwm.robotstxt), with ours in rfc\n   mode (the RFC reading), and with both where"
        " they agree (a verdict wrong by either reading):"
    )
    print(
        harness.table(
            ["implementation", "differ from Google", "%", "from ours rfc", "%", "from both", "%"],
            [
                [
                    name,
                    f"{r['vs_google']:,}",
                    f"{r['vs_google_pct']:.2f}",
                    f"{r['vs_rfc']:,}",
                    f"{r['vs_rfc_pct']:.2f}",
                    f"{r['vs_both']:,}",
                    f"{r['vs_both_pct']:.2f}",
                ]
                for name, r in impls.items()
            ],
        )
    )
    bug = impls["ours google"]
    if bug["vs_google"]:
        print(
            f"   BUG: ours in google mode differs from Google's parser on {bug['vs_google']}"
            " questions; it must differ on none. For example:"
        )
        _print_examples("ours google", bug["examples"])
    else:
        print("   ours in google mode gives Google's parser's verdict on every question.")
    if TEXTING not in impls:
        return
    refused = agreed["texting_refused"]
    if refused:
        print(
            f"   {TEXTING} raised on {len(refused)} (file, agent) parses (counted as wrong),"
            f" e.g. {refused[0]['file']}: {refused[0]['error']!r}"
        )
    if impls[TEXTING]["examples"]:
        print(f"   Some of {TEXTING}'s disagreements with Google's parser:")
        _print_examples(TEXTING, impls[TEXTING]["examples"])


def _print_examples(name: str, examples: Sequence[dict[str, Any]]) -> None:
    def said(verdict: bool | None) -> str:
        return "no verdict (raised)" if verdict is None else ("allow" if verdict else "disallow")

    for e in examples:
        print(
            f"     {e['file']} {e['agent']} {e['url'][:80]!r}:"
            f" {name} {said(e['verdict'])}, Google {said(e['google'])}"
            f" (ours rfc {said(e['ours_rfc'])})"
        )


def build_pairs(files: Sequence[harness.RobotsFile], rng: random.Random) -> list[Pair]:
    pairs: list[Pair] = []
    for index, robots in enumerate(files):
        text = robots.body.decode("utf-8", errors="ignore")
        for n, url in enumerate(harness.rule_urls(text, rng, MAX_VALUES_PER_FILE)):
            pairs.append(Pair(index, url, AGENTS[n % 2]))
    return pairs


_WORDS = (
    "products", "search", "cart", "account", "admin", "wp-admin", "api", "static", "images",
    "blog", "tag", "category", "print", "login", "checkout", "feeds", "archive", "media",
    "user", "profile", "node", "help", "de", "fr", "catalog", "filter", "sort", "page",
)  # fmt: skip


def _random_pattern(rng: random.Random) -> str:
    parts = [rng.choice(_WORDS) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.2:
        parts[-1] += f"-{rng.randint(1, 9999)}"
    if rng.random() < 0.1:
        parts[-1] = "%" + rng.choice(("7E", "7e", "C3%A9", "2F", "20")) + parts[-1]
    path = "/" + "/".join(parts)
    roll = rng.random()
    if roll < 0.2:
        path = "/*" + path + "*"
    elif roll < 0.3:
        path += "?*" + rng.choice(("sort=", "sessionid=", "q=", "page="))
    elif roll < 0.4:
        path = "/*." + rng.choice(("pdf", "php", "css", "js", "json")) + "$"
    elif roll < 0.5:
        path += "/"
    return path


def generated_file(rng: random.Random, size: int) -> bytes:
    """A robots.txt of at most ``size`` bytes with many groups and rules."""
    lines: list[str] = []
    total = 0
    while total < size:
        block: list[str] = []
        for _ in range(rng.randint(1, 3)):
            roll = rng.random()
            if roll < 0.03:
                agent = "*"
            elif roll < 0.08:
                agent = rng.choice(AGENTS)
            else:
                agent = f"Bot{rng.randint(1, 5000)}"
            block.append(f"User-agent: {agent}")
        if rng.random() < 0.2:
            block.append(f"Crawl-delay: {rng.randint(1, 30)}")
        for _ in range(rng.randint(5, 60)):
            kind = "Allow" if rng.random() < 0.25 else "Disallow"
            block.append(f"{kind}: {_random_pattern(rng)}")
        if rng.random() < 0.2:
            block.append(f"# section {rng.randint(1, 10**6)}")
        if rng.random() < 0.05:
            block.append(f"Sitemap: {harness.HOST}/sitemap-{rng.randint(1, 999)}.xml")
        block.append("")
        lines += block
        total += sum(len(line) + 1 for line in block)
    data = "\n".join(lines).encode()[:size]
    return data[: data.rfind(b"\n") + 1]


def generated_corpus(rng: random.Random) -> list[harness.RobotsFile]:
    """Stand-in for the corpus when the shared folder is absent."""
    sizes = [rng.randint(200, 40_000) for _ in range(40)]
    return [
        harness.RobotsFile(f"generated-{i:02}.txt", generated_file(rng, s))
        for i, s in enumerate(sizes)
    ]


def adversarial_cases(big: bytes, big_urls: Sequence[str]) -> list[Adversarial]:
    prefixes = "".join(
        f"{'Allow' if i % 5 == 0 else 'Disallow'}: /section/{i}/item/{i}/\n" for i in range(5000)
    )
    typical = (
        "User-agent: *\nDisallow: /*?*sort=\nDisallow: /search\nAllow: /*.css$\n"
        "Disallow: /*/print$\nDisallow: /private/\n"
    )
    long_path = 65_536 - len(harness.HOST)
    return [
        Adversarial(
            "/a*a*...*b, 1000 '*', 8 KiB URL",
            ("User-agent: *\nDisallow: /" + "a*" * 1000 + "b\n").encode(),
            (harness.HOST + "/" + "a" * 8192,),
        ),
        Adversarial(
            "5,000 plain prefix rules",
            ("User-agent: *\n" + prefixes).encode(),
            (
                harness.HOST + "/section/4999/item/4999/page",
                harness.HOST + "/section/4998/item/4999/",
                harness.HOST + "/section/1/item/2/",
                harness.HOST + "/other",
            ),
        ),
        Adversarial(
            "4 KiB of '*'",
            ("User-agent: *\nDisallow: /" + "*" * 4096 + "x\n").encode(),
            (harness.HOST + "/" + "a" * 8192, harness.HOST + "/" + "a" * 8192 + "x"),
        ),
        Adversarial(
            "/*x*x...*x$, 500 segments, 16 KiB URL",
            ("User-agent: *\nDisallow: /" + "*x" * 500 + "$\n").encode(),
            (harness.HOST + "/" + "x" * 16_384 + "a", harness.HOST + "/" + "xa" * 8192),
        ),
        Adversarial(
            "64 KiB URL, 5 typical rules",
            typical.encode(),
            (
                harness.HOST + "/" + "a" * (long_path - 1),
                harness.HOST + "/search?q=" + "%7e" * ((long_path - 10) // 3),
                harness.HOST + "/a/" + "é" * ((long_path - 3) // 2),
                harness.HOST + "/x/" + "y?sort=" * ((long_path - 3) // 7),
            ),
        ),
        Adversarial("500 KiB generated file", big, tuple(big_urls)),
    ]


# --- measurements ---------------------------------------------------------


def texting_robot(agent: str, body: bytes) -> Any:
    """texting-robots-py's parsed form of ``body`` for ``agent``, or ``None``
    where it refuses the file (:data:`TEXTING_ERRORS`)."""
    try:
        return TextingRobot(agent, body)
    except TEXTING_ERRORS:
        return None


def parse_throughput(
    files: Sequence[harness.RobotsFile], settings: Settings
) -> list[dict[str, Any]]:
    bodies = [f.body for f in files]
    size = sum(map(len, bodies))
    matcher = RobotsMatcher()

    def ours(mode: Mode) -> Callable[[], None]:
        def run() -> None:
            for body in bodies:
                RobotsTxt.parse(body, mode)

        return run

    def ours_first(mode: Mode) -> Callable[[], None]:
        def run() -> None:
            for body in bodies:
                RobotsTxt.parse(body, mode).allowed(FIXED_URL, AGENTS[0])

        return run

    def protego() -> None:
        for body in bodies:
            Protego.parse(harness.protego_text(body))

    def protego_first() -> None:
        for body in bodies:
            Protego.parse(harness.protego_text(body)).can_fetch(FIXED_URL, AGENTS[0])

    def jwm() -> None:
        for body in bodies:
            matcher.OneAgentAllowedByRobots(body, AGENTS[0], FIXED_URL)

    def texting() -> None:
        for body in bodies:
            texting_robot(AGENTS[0], body)

    def texting_first() -> None:
        for body in bodies:
            robot = texting_robot(AGENTS[0], body)
            if robot is not None:
                robot.allowed(FIXED_URL)

    rows: list[tuple[str, str, Callable[[], None], Callable[[], object] | None]] = [
        ("ours rfc", "parse", ours("rfc"), None),
        ("ours google", "parse", ours("google"), None),
        ("Protego", "decode + parse", protego, None),
        ("jwm (robots.cc)", "parse+match, 1 fixed URL", jwm, None),
        # re.purge: ours compiles an agent's rules into regular expressions on
        # first use; re's cache would hide that cost after the first pass.
        ("ours rfc", "parse + 1st verdict", ours_first("rfc"), re.purge),
        ("ours google", "parse + 1st verdict", ours_first("google"), re.purge),
        ("Protego", "decode + parse + 1st verdict", protego_first, re.purge),
    ]
    if TextingRobot is not None:
        # Its parse is for one agent, whose rules it compiles there and then.
        rows[4:4] = [(TEXTING, f"parse for {AGENTS[0]}", texting, None)]
        rows.append((TEXTING, "parse + 1st verdict", texting_first, None))
    results: list[dict[str, Any]] = []
    for impl, what, run, setup in rows:
        best = harness.best_of(settings.parse_passes, run, setup)
        results.append(
            {
                "impl": impl,
                "what": what,
                "best_pass_s": best,
                "mb_per_s": size / best / MB,
                "files": len(bodies),
                "bytes": size,
            }
        )
    return results


def verdict_speed(
    files: Sequence[harness.RobotsFile], pairs: Sequence[Pair], settings: Settings
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rfc = [RobotsTxt.parse(f.body) for f in files]
    google = [RobotsTxt.parse(f.body, "google") for f in files]
    protego = [Protego.parse(harness.protego_text(f.body)) for f in files]

    def calls(parsed: Sequence[Any], method: str) -> list[tuple[Verdict, str, str]]:
        return [(getattr(parsed[p.file], method), p.url, p.agent) for p in pairs]

    def selected(parsed: Sequence[RobotsTxt]) -> list[tuple[Callable[[str], bool], str]]:
        chosen: list[AgentRules] = [parsed[p.file].for_agent(p.agent) for p in pairs]
        return [(rules.allowed, p.url) for rules, p in zip(chosen, pairs, strict=True)]

    def run2(work: Sequence[tuple[Verdict, str, str]]) -> Callable[[], list[bool]]:
        return lambda: [fn(url, agent) for fn, url, agent in work]

    def run1(work: Sequence[tuple[Callable[[str], bool], str]]) -> Callable[[], list[bool]]:
        return lambda: [fn(url) for fn, url in work]

    # The for_agent rows get their own parsed files, so that their first
    # pass, like every row's, includes the lazy per-agent preparation.
    rfc_selected = selected([RobotsTxt.parse(f.body) for f in files])
    google_selected = selected([RobotsTxt.parse(f.body, "google") for f in files])
    rows: list[tuple[str, str, Callable[[], list[bool]]]] = [
        ("ours rfc", "robots.allowed(url, agent)", run2(calls(rfc, "allowed"))),
        ("ours google", "robots.allowed(url, agent)", run2(calls(google, "allowed"))),
        ("ours rfc", "for_agent(agent).allowed(url)", run1(rfc_selected)),
        ("ours google", "for_agent(agent).allowed(url)", run1(google_selected)),
        ("Protego", "can_fetch(url, agent)", run2(calls(protego, "can_fetch"))),
    ]
    # texting-robots-py: one Robot per (file, agent); the pairs of a file it
    # refuses are left out of its row (and count as mismatches below).
    texting_pairs: list[int] = []
    if TextingRobot is not None:
        robots = {(p.file, p.agent): texting_robot(p.agent, files[p.file].body) for p in pairs}
        texting_pairs = [i for i, p in enumerate(pairs) if robots[p.file, p.agent] is not None]
        texting_work = [
            (robots[pairs[i].file, pairs[i].agent].allowed, pairs[i].url) for i in texting_pairs
        ]
        rows.append((TEXTING, "Robot(agent, body).allowed(url)", run1(texting_work)))
    verdicts: dict[str, list[bool]] = {}
    results: list[dict[str, Any]] = []
    for impl, how, run in rows:
        re.purge()  # the first pass pays for compiling rules, as in a crawl
        first_pass, found = harness.timed(run)
        verdicts.setdefault(impl, found)
        best = harness.best_of(settings.verdict_passes, run)
        results.append(_verdict_row(impl, how, len(found), best, first_pass))

    # jwm has no parsed form: every verdict parses the whole file again. One
    # matcher is reused (robots.cc resets it on every call), which is the
    # cheapest way to call it.
    matcher = RobotsMatcher()
    checked = range(0, len(pairs), settings.jwm_stride)
    work = [(files[pairs[i].file].body, pairs[i].agent, pairs[i].url) for i in checked]
    google_ref: list[bool] = []

    def jwm() -> None:
        google_ref[:] = [
            bool(matcher.OneAgentAllowedByRobots(body, agent, url)) for body, agent, url in work
        ]

    best = harness.best_of(1, jwm)
    results.append(
        _verdict_row("jwm (robots.cc)", "parse+match per verdict, 1 pass", len(work), best, best)
    )

    ours_google = verdicts["ours google"]
    mismatches = [
        {
            "file": files[pairs[i].file].name,
            "agent": pairs[i].agent,
            "url": pairs[i].url,
            "ours": ours_google[i],
            "jwm": ref,
        }
        for i, ref in zip(checked, google_ref, strict=True)
        if ours_google[i] != ref
    ]
    differ_protego = sum(
        a != b for a, b in zip(verdicts["ours rfc"], verdicts["Protego"], strict=True)
    )
    check: dict[str, Any] = {
        "pairs": len(pairs),
        "google_vs_jwm_checked": len(work),
        "google_vs_jwm_mismatches": len(mismatches),
        "google_vs_jwm_examples": mismatches[:5],
        "rfc_vs_protego_differences": differ_protego,
    }
    if TEXTING in verdicts:
        texting = dict(zip(texting_pairs, verdicts[TEXTING], strict=True))
        check["texting_vs_jwm_mismatches"] = sum(
            texting.get(i) != ref for i, ref in zip(checked, google_ref, strict=True)
        )
        check["texting_refused_pairs"] = len(pairs) - len(texting_pairs)
    return results, check


def _verdict_row(impl: str, how: str, count: int, best: float, first_pass: float) -> dict[str, Any]:
    return {
        "impl": impl,
        "how": how,
        "verdicts": count,
        "best_pass_s": best,
        "verdicts_per_s": count / best,
        "us_per_verdict": best / count * 1e6,
        "first_pass_s": first_pass,
        "first_pass_verdicts_per_s": count / first_pass,
    }


def worst_case(cases: Sequence[Adversarial], settings: Settings) -> list[dict[str, Any]]:
    matcher = RobotsMatcher()
    return [_worst_one(case, settings, matcher) for case in cases]


def _worst_one(case: Adversarial, settings: Settings, matcher: Any) -> dict[str, Any]:
    agent = AGENTS[0]
    rfc = RobotsTxt.parse(case.body)
    google = RobotsTxt.parse(case.body, "google")
    protego = Protego.parse(harness.protego_text(case.body))
    robot = None if TextingRobot is None else texting_robot(agent, case.body)
    times: dict[str, float | None] = {}
    if TextingRobot is not None and robot is None:
        times[TEXTING] = None  # it refuses the file: no verdict to time
    per_url: list[dict[str, Any]] = []
    disagree: list[str] = []
    repeats, budget = settings.call_repeats, settings.call_budget_s
    for url in case.urls:
        rfc.allowed(url, agent)  # warm the lazy per-agent state
        ours = google.allowed(url, agent)
        protego.can_fetch(url, agent)
        jwm_seconds, ref = _jwm_verdict(settings.jwm_repeats, matcher, case.body, agent, url)
        measured = {
            "ours rfc": best_call(rfc.allowed, url, agent, repeats, budget),
            "ours google": best_call(google.allowed, url, agent, repeats, budget),
            "ours rfc 1st": _first_verdict(settings, case.body, url, agent, ours=True),
            "Protego": best_call(protego.can_fetch, url, agent, repeats, budget),
            "Protego 1st": _first_verdict(settings, case.body, url, agent, ours=False),
            "jwm": jwm_seconds,
        }
        if robot is not None:
            measured[TEXTING] = best_call(
                lambda url, _agent: robot.allowed(url), url, agent, repeats, budget
            )
        for column, seconds in measured.items():
            times[column] = max(times.get(column) or 0.0, seconds * 1000)
        per_url.append(
            {
                "url": _short(url),
                "ms": {column: seconds * 1000 for column, seconds in measured.items()},
            }
        )
        if ref != ours:
            disagree.append(_short(url))
    return {
        "case": case.name,
        "bytes": len(case.body),
        "urls": len(case.urls),
        "max_ms": times,
        "per_url": per_url,
        "google_vs_jwm_mismatches": disagree,
    }


def _short(url: str) -> str:
    if len(url) <= 70:
        return url
    return f"{url[:40]}... ({len(url)} chars, {len(url.encode())} bytes in UTF-8)"


def _jwm_verdict(
    repeats: int, matcher: Any, body: bytes, agent: str, url: str
) -> tuple[float, bool]:
    """Best time of one parse+match by robots.cc, and its verdict."""
    best = math.inf
    verdict = True
    for _ in range(repeats):
        start = time.perf_counter()
        verdict = bool(matcher.OneAgentAllowedByRobots(body, agent, url))
        best = min(best, time.perf_counter() - start)
    return best, verdict


def _first_verdict(settings: Settings, body: bytes, url: str, agent: str, *, ours: bool) -> float:
    """Best time of the first verdict after a fresh parse (parse not timed)."""
    best = math.inf
    deadline = time.perf_counter() + settings.call_budget_s
    for n in range(settings.first_repeats):
        re.purge()  # re's cache would hide the cost of compiling the rules
        if ours:
            fn: Callable[[str, str], object] = RobotsTxt.parse(body).allowed
        else:
            fn = Protego.parse(harness.protego_text(body)).can_fetch
        best = min(best, best_call(fn, url, agent, 1))
        if n + 1 >= settings.first_min and time.perf_counter() > deadline:
            break
    return best


def big_file_parse(body: bytes, settings: Settings) -> list[dict[str, Any]]:
    matcher = RobotsMatcher()
    rows: list[tuple[str, str, Callable[[], object], Callable[[], object] | None]] = [
        ("ours rfc", "parse", lambda: RobotsTxt.parse(body), None),
        ("ours google", "parse", lambda: RobotsTxt.parse(body, "google"), None),
        ("Protego", "decode + parse", lambda: Protego.parse(harness.protego_text(body)), None),
        (
            "ours rfc",
            "parse + 1st verdict",
            lambda: RobotsTxt.parse(body).allowed(FIXED_URL, AGENTS[0]),
            re.purge,
        ),
        (
            "Protego",
            "decode + parse + 1st verdict",
            lambda: Protego.parse(harness.protego_text(body)).can_fetch(FIXED_URL, AGENTS[0]),
            re.purge,
        ),
        (
            "jwm (robots.cc)",
            "parse+match, 1 fixed URL",
            lambda: matcher.OneAgentAllowedByRobots(body, AGENTS[0], FIXED_URL),
            None,
        ),
    ]
    if TextingRobot is not None:
        refused = " (raises)" if texting_robot(AGENTS[0], body) is None else ""
        parse = f"parse for {AGENTS[0]}{refused}"
        rows.append((TEXTING, parse, lambda: texting_robot(AGENTS[0], body), None))
    return [
        {"impl": impl, "what": what, "seconds": harness.best_of(settings.parse_passes, run, setup)}
        for impl, what, run, setup in rows
    ]


# --- output ---------------------------------------------------------------


def ratio_text(value: float, target: float) -> str:
    shown = f"{value:.2f}"
    if float(shown) == target and value < target:
        shown = f"{value:.3f}"  # do not print "1.50x (BELOW target >= 1.5x)"
    return harness.against(value, target, f"{shown}x", f"{target:g}x", ">=")


def _find(rows: Sequence[dict[str, Any]], impl: str, key: str, prefix: str) -> dict[str, Any]:
    return next(r for r in rows if r["impl"] == impl and r[key].startswith(prefix))


def report_parse(rows: Sequence[dict[str, Any]], settings: Settings, source: str) -> None:
    base = _protego_parse_rates(rows)
    print(f"\n1. Parse throughput: best of {settings.parse_passes} passes over {source}")
    print(
        harness.table(
            ["implementation", "what is timed", "ms/pass", "MB/s", "vs Protego"],
            [
                [
                    r["impl"],
                    r["what"],
                    f"{r['best_pass_s'] * 1000:.1f}",
                    f"{r['mb_per_s']:.1f}",
                    f"{r['mb_per_s'] / base[r['what'].endswith('1st verdict')]:.2f}x",
                ]
                for r in rows
            ],
            left=2,
        )
    )
    print(
        "   jwm has no parsed form: its row is one OneAgentAllowedByRobots call per file with\n"
        f"   a fixed URL ({FIXED_URL}), i.e. parse plus one match. '1st verdict' rows add\n"
        f"   ours' and Protego's lazy per-agent preparation (one {AGENTS[0]} verdict per file)."
    )
    if TextingRobot is not None:
        print(
            f"   {TEXTING} parses for one agent and compiles its rules then: a crawler with\n"
            "   several names parses once per name."
        )


def _protego_parse_rates(rows: Sequence[dict[str, Any]]) -> dict[bool, float]:
    """Protego's MB/s without (False) and with (True) a first verdict."""
    return {
        r["what"].endswith("1st verdict"): r["mb_per_s"] for r in rows if r["impl"] == "Protego"
    }


def report_verdicts(
    rows: Sequence[dict[str, Any]], check: dict[str, Any], settings: Settings
) -> None:
    protego_rate = _find(rows, "Protego", "how", "can_fetch")["verdicts_per_s"]
    print(
        f"\n2. Verdicts on pre-parsed files: {check['pairs']} (file, URL) pairs built from the"
        f" files' own rules,\n   half {AGENTS[0]}, half {AGENTS[1]};"
        f" best of {settings.verdict_passes} passes"
    )
    print(
        harness.table(
            ["implementation", "how", "verdicts/s", "us/verdict", "vs Protego", "1st pass/s"],
            [
                [
                    r["impl"],
                    r["how"],
                    f"{r['verdicts_per_s']:,.0f}",
                    f"{r['us_per_verdict']:.2f}",
                    f"{r['verdicts_per_s'] / protego_rate:.2f}x",
                    f"{r['first_pass_verdicts_per_s']:,.0f}",
                ]
                for r in rows
            ],
            left=2,
        )
    )
    print(
        "   '1st pass/s': verdicts/s of the first pass over freshly parsed files, which\n"
        "   includes the lazy per-agent preparation; the other columns are the best pass."
    )
    print(
        f"   ours google vs jwm: {check['google_vs_jwm_mismatches']} mismatches"
        f" in {check['google_vs_jwm_checked']} verdicts"
        + ("" if settings.jwm_stride == 1 else f" (1 pair in {settings.jwm_stride})")
    )
    for m in check["google_vs_jwm_examples"]:
        print(f"     {m['file']} {m['agent']} {m['url'][:90]!r}: ours {m['ours']}, jwm {m['jwm']}")
    if "texting_vs_jwm_mismatches" in check:
        refused = check["texting_refused_pairs"]
        print(
            f"   {TEXTING} vs jwm: {check['texting_vs_jwm_mismatches']} mismatches"
            f" in the same verdicts"
            + (f" ({refused} pairs of files it refuses left out of its row)" if refused else "")
        )
    print(
        f"   (for information: ours rfc and Protego differ on {check['rfc_vs_protego_differences']}"
        " verdicts;\n   their semantics differ, so these are not counted as errors)"
    )


WORST_COLUMNS = ("ours rfc", "ours google", "ours rfc 1st", "Protego", "Protego 1st", "jwm")


def _ms(value: float | None) -> str:
    return "raises" if value is None else f"{value:.4f}"


def report_worst(worst: Sequence[dict[str, Any]], settings: Settings) -> None:
    columns = WORST_COLUMNS + ((TEXTING,) if TextingRobot is not None else ())
    print(
        "\n3. Worst-case time per verdict, ms: the max over each case's URLs of the best of up to"
        f"\n   {settings.call_repeats} calls ({settings.first_repeats} for '1st',"
        f" {settings.jwm_repeats} for jwm); agent {AGENTS[0]}"
    )
    print(
        harness.table(
            ["case", "URLs", *columns],
            [[w["case"], str(w["urls"]), *(_ms(w["max_ms"][c]) for c in columns)] for w in worst],
            left=2,
        )
    )
    print(
        "   Pre-parsed and warm, except: '1st' = the first verdict after a fresh parse (parse\n"
        "   not timed, lazy rule preparation included); jwm = parse+match per verdict."
    )
    if TextingRobot is not None:
        print(f"   {TEXTING}: 'raises' = its parse of the file raises, so it has no verdict.")
    for w in worst:
        for column in ("ours rfc", "ours rfc 1st"):
            slowest = max(w["per_url"], key=lambda u: float(u["ms"][column]))
            if slowest["ms"][column] > TARGET_WORST_MS:
                print(
                    f"   slowest '{column}' in {w['case']!r}: {slowest['ms'][column]:.3f} ms\n"
                    f"     for {slowest['url']!r}"
                )
    disagreements = [(w["case"], u) for w in worst for u in w["google_vs_jwm_mismatches"]]
    print(f"   ours google vs jwm on these URLs: {len(disagreements)} mismatches")
    for name, url in disagreements[:5]:
        print(f"     {name}: {url!r}")


def report_big(big: bytes, rows: Sequence[dict[str, Any]], settings: Settings) -> None:
    print(
        f"\n   3c. {len(big) / 1024:.0f} KiB generated file"
        f" ({big.count(b'User-agent')} user-agent lines,"
        f" {len(harness.RULE_VALUE.findall(big.decode()))} rules):"
        f" best of {settings.parse_passes}"
    )
    print(
        harness.table(
            ["implementation", "what is timed", "ms"],
            [[r["impl"], r["what"], f"{r['seconds'] * 1000:.1f}"] for r in rows],
            left=2,
        )
    )


def summarize(
    parse_rows: Sequence[dict[str, Any]],
    verdict_rows: Sequence[dict[str, Any]],
    worst: Sequence[dict[str, Any]],
    big_rows: Sequence[dict[str, Any]],
    crawler: dict[str, float],
) -> dict[str, Any]:
    protego_rate = _find(verdict_rows, "Protego", "how", "can_fetch")["verdicts_per_s"]
    protego_parse = _protego_parse_rates(parse_rows)[False]
    summary: dict[str, Any] = {"crawler": crawler}
    print("\n4. Summary (targets are reported, never asserted)")
    print("   a crawler's workload (section 0), median of the runs:")
    for key, label, target in (
        ("first_use_rfc", "first use, rfc mode:      ", TARGET_FIRST_USE_RATIO),
        ("first_use_google", "first use, google mode:   ", TARGET_FIRST_USE_RATIO),
        ("warmed_rfc", "warmed verdicts, rfc mode:", TARGET_VERDICT_RATIO),
        ("warmed_google", "warmed, google mode:      ", TARGET_VERDICT_RATIO),
        ("steady_rfc", "steady verdicts, rfc:     ", TARGET_VERDICT_RATIO),
        ("steady_google", "steady, google mode:      ", TARGET_VERDICT_RATIO),
    ):
        print(f"     {label} ours/Protego " + ratio_text(crawler[key], target))
    for mode in ("rfc", "google"):
        impl = f"ours {mode}"
        ratios = {
            "verdict_ratio": _find(verdict_rows, impl, "how", "robots.allowed")["verdicts_per_s"]
            / protego_rate,
            "for_agent_verdict_ratio": _find(verdict_rows, impl, "how", "for_agent")[
                "verdicts_per_s"
            ]
            / protego_rate,
            "parse_ratio": _find(parse_rows, impl, "what", "parse")["mb_per_s"] / protego_parse,
        }
        summary[mode] = ratios
        print(f"   {mode} mode" + (" (default):" if mode == "rfc" else ":"))
        print(
            "     verdicts/s ratio ours/Protego:          "
            + ratio_text(ratios["verdict_ratio"], TARGET_VERDICT_RATIO)
        )
        print(
            "     the same, ours via for_agent().allowed: "
            + ratio_text(ratios["for_agent_verdict_ratio"], TARGET_VERDICT_RATIO)
        )
        print(
            "     parse throughput ratio ours/Protego:    "
            + ratio_text(ratios["parse_ratio"], TARGET_PARSE_RATIO)
        )
    star = worst[0]["max_ms"]["ours rfc"]
    slowest = max(worst, key=lambda w: w["max_ms"]["ours rfc"])
    slowest_first = max(worst, key=lambda w: w["max_ms"]["ours rfc 1st"])
    big_parse = _find(big_rows, "ours rfc", "what", "parse")["seconds"]
    summary.update(
        worst_star_ms=star,
        worst_any_ms=slowest["max_ms"]["ours rfc"],
        worst_any_case=slowest["case"],
        worst_first_ms=slowest_first["max_ms"]["ours rfc 1st"],
        worst_first_case=slowest_first["case"],
        big_parse_s=big_parse,
    )
    print(
        "   /a*a*...*b (1000 '*') per verdict, ours rfc: "
        + harness.against(star, TARGET_WORST_MS, f"{star:.4f} ms", f"{TARGET_WORST_MS} ms", "<=")
    )
    print(
        f"   slowest generated case, ours rfc, pre-parsed: {summary['worst_any_ms']:.4f} ms"
        f" ({slowest['case']})"
    )
    print(
        f"   slowest first verdict after parse, ours rfc: {summary['worst_first_ms']:.4f} ms"
        f" ({slowest_first['case']})"
    )
    print(
        "   500 KiB parse, ours rfc: "
        + harness.against(
            big_parse, TARGET_BIG_PARSE_S, f"{big_parse:.3f} s", f"{TARGET_BIG_PARSE_S:g} s", "<"
        )
    )
    return summary


#: Issue 24's targets: a name, its label, and where its ratio (their time /
#: ours) is: in the crawler's ratios (section 0), or in the summary's per mode
#: (section 1's parse); ``{mode}`` is ``rfc`` or ``google``.
ISSUE24 = (
    ("first_use_texting", f"first use, ours / {TEXTING}:", "first_use_{mode}_texting", 1.2),
    ("first_use_protego", "first use, ours / Protego:", "first_use_{mode}", 3.0),
    ("warmed_texting", f"warmed, ours / {TEXTING}:", "warmed_{mode}_texting", 1.0),
    ("parse_protego", "parse, ours / Protego:", "parse_ratio", 3.0),
)


def issue24_targets(crawler: dict[str, float], summary: dict[str, Any]) -> dict[str, Any]:
    """Issue 24's targets (set for the compiled build) next to this run's
    ratios, rfc mode (google mode in brackets); reported, never asserted."""
    found: dict[str, Any] = {"build": build()}
    print(
        f"   issue 24's targets (set for the compiled build; this run measures the {build()}"
        " build),\n   their time / ours, rfc mode [google mode]:"
    )
    width = max(len(label) for _, label, _, _ in ISSUE24)
    for name, label, key, target in ISSUE24:
        value, google = (
            summary[mode][key] if key == "parse_ratio" else crawler.get(key.format(mode=mode))
            for mode in ("rfc", "google")
        )
        found[name] = {"rfc": value, "google": google, "target": target}
        shown = (
            f"skipped ({TEXTING} not installed)"
            if value is None or google is None
            else f"{ratio_text(value, target)} [{google:.2f}x]"
        )
        print(f"     {label.ljust(width)} {shown}")
    return found


def main(argv: Sequence[str] | None = None) -> None:
    args = harness.arguments(__doc__, "fewer repeats (under a minute)").parse_args(argv)
    settings = QUICK if args.quick else FULL
    started = time.perf_counter()
    rng = random.Random(harness.SEED)

    harness.title("benchmark", args.quick)
    git = harness.git_state()
    texting = None if TextingRobot is None else harness.version("texting-robots-py")
    print(
        f"{harness.python_text(machine=True)}; {harness.package_text()}\n"
        f"({git}); Protego {harness.version('protego')};"
        f" jwm.robotstxt {harness.version('jwm.robotstxt')}"
        + ("" if texting is None else f"; {TEXTING} {texting}")
    )
    if TEXTING_SKIPPED:
        print(TEXTING_SKIPPED)
    files = harness.load_corpus()
    if files:
        source = f"corpus {harness.corpus_dir()}"
    else:
        print(
            f"NOTE: no corpus at {harness.corpus_dir()}; sections 1 and 2 use generated files only."
        )
        files = generated_corpus(rng)
        source = "generated files"
    size = sum(len(f.body) for f in files)
    print(f"Input: {source}: {len(files)} files, {size / MB:.2f} MB")
    results: dict[str, Any] = {
        "quick": args.quick,
        "settings": settings.__dict__,
        "python": platform.python_version(),
        "build": build(),
        "git": git,
        "texting_robots": texting,
        "texting_skipped": TEXTING_SKIPPED,
        "source": source,
        "files": len(files),
        "bytes": size,
    }

    sections: dict[str, float] = {}
    mark = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        sections[name] = now - mark
        mark = now

    work = crawler_workloads(files, random.Random(harness.SEED))
    crawler = crawler_speed(work, settings)
    lap("crawler workload")
    results["crawler"] = crawler
    crawler_ratios = report_crawler(crawler, len(files))

    parse_rows = parse_throughput(files, settings)
    lap("parse")
    results["parse"] = parse_rows
    report_parse(parse_rows, settings, source)

    pairs = build_pairs(files, rng)
    verdict_rows, check = verdict_speed(files, pairs, settings)
    lap("verdicts")
    results["verdicts"] = verdict_rows
    results["google_vs_jwm"] = check
    report_verdicts(verdict_rows, check, settings)

    big = generated_file(random.Random(harness.SEED + 1), BIG_FILE_BYTES)
    big_rng = random.Random(harness.SEED + 2)
    big_urls = harness.rule_urls(big.decode(), big_rng, MAX_VALUES_PER_FILE)[::6][:8]
    worst = worst_case(adversarial_cases(big, big_urls), settings)
    lap("worst cases")
    results["worst_case"] = worst
    report_worst(worst, settings)

    big_rows = big_file_parse(big, settings)
    lap("500 KiB parse")
    results["big_file"] = {"bytes": len(big), "rows": big_rows}
    report_big(big, big_rows, settings)

    results["summary"] = summarize(parse_rows, verdict_rows, worst, big_rows, crawler_ratios)
    results["summary"]["issue24"] = issue24_targets(crawler_ratios, results["summary"])
    results["section_s"] = sections
    laps = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in sections.items())
    harness.finish(args.json, results, started, f" ({laps})")


if __name__ == "__main__":
    main()
