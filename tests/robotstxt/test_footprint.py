"""What a crawler's rules cost in memory (:attr:`AgentRules.cost`), and
the share their indexes may take: an index that would take more is not
built, and the rules answer the same (issue 41). Memory is measured with
tracemalloc; the verdicts are checked against the plain reading of each
pattern (:meth:`Rule.matches`)."""

from __future__ import annotations

import gc
import re
import tracemalloc
from collections.abc import Callable
from typing import TypeVar

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_robots_rfc import AgentRules, RobotsTxt, Rule
from scrapy_robots_rfc.robotstxt import canonical_match_string
from scrapy_robots_rfc.robotstxt._matcher import SHARE

T = TypeVar("T")


#: What a measure may find beside the rule set: the module's cache of
#: agent lists (kept once for all rule sets) grows its table now and then.
SLACK = 2048


def warmed_up() -> None:
    """One-time allocations (the first use of a code path, in the compiled
    build too) made before anything is measured, as bench_memory.py does."""
    for body in FILES.values():
        agent = RobotsTxt.parse(body).for_agent("bot")
        for path in paths(2200):
            agent.decide(path)
        agent.compile()


def retained(build: Callable[[], T]) -> tuple[int, T]:
    """What ``build()`` keeps in memory (tracemalloc), and what it returned."""
    gc.collect()
    re.purge()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = build()
        gc.collect()
        re.purge()
        return tracemalloc.get_traced_memory()[0] - before, kept
    finally:
        tracemalloc.stop()


def grown(agent: AgentRules, step: Callable[[], None]) -> int:
    """What ``step()`` adds to what ``agent`` keeps (tracemalloc)."""
    return retained(step)[0]


def robots(lines: list[str]) -> bytes:
    return ("User-agent: *\n" + "".join(f"{line}\n" for line in lines)).encode()


#: Rule sets of each kind the indexes treat apart: plain prefixes, anchored
#: and wildcard rules, hundreds of '/*x' rules (the floating index), and a
#: large set of every kind (compiled after 2,048 verdicts).
FILES = {
    "plain": robots([f"Disallow: /dir-{n}/" for n in range(60)]),
    "wildcards": robots([f"Disallow: /*/item-{n}/*.php$" for n in range(100)]),
    "floating": robots([f"Disallow: /*session-{n}=*x{n}" for n in range(300)]),
    "large": robots(
        [
            line
            for n in range(300)
            for line in (
                f"Disallow: /shop/{n}/",
                f"Allow: /shop/{n}/*.html$",
                f"Disallow: /*.print{n}.html",
                f"Disallow: /cat{n % 40}/*/x{n}",
            )
        ]
    ),
}


def paths(count: int) -> list[str]:
    """Match strings that hit every kind of rule of :data:`FILES`."""
    shapes = (
        "/dir-{n}/a",
        "/a/item-{n}/b.php",
        "/q?session-{n}=1x{n}",
        "/shop/{n}/p.html",
        "/shop/{n}/p.htm",
        "/x.print{n}.html",
        "/cat{m}/y/x{n}",
        "/nothing/{n}",
    )
    return [shapes[i % len(shapes)].format(n=i % 300, m=i % 40) for i in range(count)]


def test_the_indexes_stay_within_their_share_after_many_verdicts():
    """The parsed form of a file stays within a constant times what its
    rules cost, however many verdicts it answers (the prefix tree of a
    large set, and a node for each prefix asked, included)."""
    warmed_up()
    for name, body in FILES.items():
        base, agent = retained(lambda body=body: RobotsTxt.parse(body).for_agent("bot"))

        def verdicts(agent: AgentRules = agent) -> None:
            for path in paths(2200):
                agent.decide(path)
            agent.compile()

        more = grown(agent, verdicts)
        # tracemalloc counts what the allocator was asked for; the cost
        # what sys.getsizeof says: 10 % between them at most.
        assert more <= SHARE * base * 1.1, (name, base, more)


def _answered(body: bytes, stages: int) -> AgentRules:
    """The rule set of ``body`` after ``stages`` times 1,500 verdicts."""
    agent = RobotsTxt.parse(body).for_agent("bot")
    for stage in range(stages):
        for _ in range(3):
            for path in paths(2000)[stage::4]:
                agent.decide(path)
    return agent


def test_the_cost_is_paid_before_the_indexes_are_built():
    """What the cost says never goes up (what a verdict may build is in it
    from the start) and never falls below what is kept. Each stage is
    measured from the start, so that nothing else the process allocates
    meanwhile adds up."""
    warmed_up()
    for name, body in FILES.items():
        costs = []
        for stages in range(5):
            kept, agent = retained(lambda body=body, stages=stages: _answered(body, stages))
            costs.append(agent.cost)
            assert kept * 0.9 - SLACK <= costs[-1], (name, stages, kept, costs)
        assert costs == sorted(costs, reverse=True), (name, costs)
        # The same rule set, asked throughout: its cost only goes down.
        agent = RobotsTxt.parse(body).for_agent("bot")
        seen = [agent.cost]
        for path in paths(6000):
            agent.decide(path)
            if agent.cost != seen[-1]:
                seen.append(agent.cost)
        assert seen == sorted(seen, reverse=True), (name, seen)


def test_a_small_set_is_charged_what_it_keeps_once_it_has_answered():
    """A set of up to 128 rules is never compiled: after its first verdict
    (its scan table) nothing is kept in reserve."""
    warmed_up()
    body = FILES["plain"]
    kept, agent = retained(lambda: RobotsTxt.parse(body).for_agent("bot"))
    before = agent.cost
    kept += grown(agent, lambda: agent.decide("/dir-3/x") and None)
    assert agent.cost < before
    assert kept * 0.9 - SLACK <= agent.cost <= kept * 1.15


def _reference(rules: tuple[Rule, ...], path: str) -> Rule | None:
    """PATH-5, PATH-6: the first rule in precedence order that matches."""
    return next((rule for rule in rules if rule.matches(path)), None)


def test_a_large_set_whose_tree_does_not_fit_answers_as_its_rules():
    """Hundreds of '/*x' rules: every node of the tree would hold them all,
    which the share does not allow; the verdicts stay those of the rules."""
    agent = RobotsTxt.parse(FILES["floating"]).for_agent("bot")
    for path in paths(3000):
        match = canonical_match_string("http://e.com" + path, "rfc")
        assert agent.decide(match) == _reference(agent.rules, match), path


_PIECES = ["", "/", "a", "ab", "abc", ".php", "x/y", "?", "=", "*", "**", "$", "%7E", "é"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.lists(st.sampled_from(_PIECES), max_size=5).map("".join)),
        max_size=200,
    ),
    st.lists(
        st.lists(st.sampled_from(_PIECES), max_size=8).map(lambda parts: "/" + "".join(parts)),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from(["rfc", "google"]),
)
def test_with_or_without_indexes_the_verdicts_are_the_same(
    lines: list[tuple[bool, str]], asked: list[str], mode: str
) -> None:
    """A rule set whose share lets nothing be built (share 0: each rule is
    tried as written), one that builds its scan table, and the same
    compiled into its prefix tree all find the rule the plain reading finds."""
    body = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {value}\n" for allow, value in lines
    )
    parsed = RobotsTxt.parse(body, mode)  # type: ignore[arg-type]
    built = parsed.for_agent("x")
    bare = AgentRules(list(built.rules), token="x", agents=built.agents, mode=built.mode, share=0)
    compiled = AgentRules(list(built.rules), token="x", agents=built.agents, mode=built.mode)
    compiled.compile()
    for path in asked:
        match = canonical_match_string("http://e.com" + path, mode)  # type: ignore[arg-type]
        for probe in (match, match + match):
            expected = _reference(built.rules, probe)
            assert bare.decide(probe) == expected
            assert bare.scan(probe) == expected
            assert built.scan(probe) == expected
            assert compiled.decide(probe) == expected
    # Nothing was built for the bare one: its cost is its rules'.
    assert bare.cost <= built.cost


# -- what a parse keeps (RobotsTxt) ----------------------------------------------


def _filled(unit: Callable[[int], bytes], size: int) -> bytes:
    parts, total, number = [], 0, 0
    while total + len(unit(number)) <= size:
        parts.append(unit(number))
        total += len(parts[-1])
        number += 1
    return b"".join(parts)


HOSTILE = {
    # A million groups would take a minute here; the cost is per line.
    "groups": lambda n: b"User-agent: b%05x\nAllow: /\n" % (n & 0xFFFFF),
    "comments": lambda n: b"# comment\n",
    "lines that are not robots.txt lines": lambda n: b"<p>x</p>\n",
    "crawl-delays": lambda n: b"User-agent: b%x\nCrawl-delay: 1\n" % n,
    "usage lines": lambda n: b"User-agent: b%x\nContent-Usage: /x train-ai=n\n" % n,
}


def test_a_parse_keeps_a_few_ints_a_line():
    """Whatever the lines, a parse keeps its text and a few ints for each
    line that it reads as a record (issue 41: 25 times the size of a file
    of a million groups before), at most three times the file's size; the
    notes are found when asked."""
    size = 1024 * 1024
    for name, unit in HOSTILE.items():
        body = _filled(unit, size)
        kept, parsed = retained(lambda body=body: RobotsTxt.parse(body, max_bytes=None))
        assert kept <= 3 * size, (name, kept / size)
        assert parsed.groups or name in ("comments", "lines that are not robots.txt lines")
    junk = RobotsTxt.parse(_filled(HOSTILE["lines that are not robots.txt lines"], 9000))
    assert len(junk.notes) == 1000
    assert {note.code for note in junk.notes} == {"syntax"}


def test_a_parse_survives_pickling():
    """A parsed file is pickled as its text, and parsed again: the names'
    hashes it keeps are the process's own."""
    import pickle

    body = (
        b"User-agent: MJ12bot\nUser-agent: a.b\nDisallow: /x\nCrawl-delay: 2\n\n"
        b"User-agent: *\nDisallow: /private\nContent-Usage: /p train-ai=n\n"
        b"Sitemap: https://e.com/s.xml\nfoo\n"
    )
    for mode in ("rfc", "google"):
        parsed = RobotsTxt.parse(body, mode, max_bytes=60)  # type: ignore[arg-type]
        again = pickle.loads(pickle.dumps(parsed))
        assert again.groups == parsed.groups
        assert again.notes == parsed.notes
        assert again.crawl_delays == parsed.crawl_delays
        assert again.sitemaps == parsed.sitemaps
        assert again.usage_rules == parsed.usage_rules
        for name in ("mj12bot", "a", "other"):
            assert again.explain("http://e.com/x", name) == parsed.explain("http://e.com/x", name)
