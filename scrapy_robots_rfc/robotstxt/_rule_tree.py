"""The compiled form of a large rule set: a prefix tree of the rules'
literal prefixes as one regular expression, and per tree node the rules to
try, filtered by their required segments when there are many (RFC 9309
§2.2.2 longest match, PATH-5, PATH-6, PATH-11: nothing backtracks).

:class:`.robotstxt._matcher.AgentRules` compiles a rule set into it after its first
verdicts; pure Python, no Scrapy import.
"""

from __future__ import annotations

import re
import sys
from os.path import commonprefix
from typing import TYPE_CHECKING

from ._footprint import footprint, shared
from ._patterns import form_matches, scan_form

if TYPE_CHECKING:
    from ._patterns import Rule


def precedence(rule: Rule) -> tuple[int, bool, int]:
    """Sort key: longest pattern first (PATH-5), allow first on a tie
    (PATH-6), then the earliest line, which robots.cc reports."""
    return (-len(rule.pattern), not rule.allow, rule.line)


def precedence_weight(rule: Rule) -> int:
    """:func:`precedence` as one number, greatest first (``sorted(...,
    key=precedence_weight, reverse=True)``, which keeps the order of equal
    keys as :func:`precedence`'s does): an int compares faster than a
    tuple, and costs no tuple. Exact for lines below 2**40 (a file of a
    terabyte)."""
    return (((len(rule.pattern) << 1) | rule.allow) << 40) - rule.line


def is_prefix_rule(rule: Rule) -> bool:
    """A rule with neither ``*`` nor a final ``$`` matches exactly the paths
    that start with its pattern."""
    return "*" not in rule.pattern and not rule.pattern.endswith("$")


class TooDeep(Exception):
    pass


#: Past this many nested prefixes the prefix tree is not worth its regex;
#: every rule is then tried in one alternation (same answer, slower).
MAX_TREE_DEPTH = 64


def tree_regex(prefixes: list[str], depth: int = 0, level: int = 0) -> str:
    """A regex that, from offset ``depth``, greedily matches the longest of
    ``prefixes`` (sorted, sharing their first ``depth`` characters) that the
    text starts with.

    It is a radix tree: the alternatives of a node start with different
    characters, so the regex engine enters at most one and never
    backtracks further than to the last complete prefix.
    """
    if level > MAX_TREE_DEPTH:
        raise TooDeep
    terminal = prefixes[0] if len(prefixes[0]) == depth else None
    children: dict[str, list[str]] = {}
    for prefix in prefixes:
        if len(prefix) > depth:
            children.setdefault(prefix[depth], []).append(prefix)
    branches = []
    for group in children.values():
        # Character by character is what a radix tree wants; sorted, the
        # first and last strings bound the common prefix of the group.
        edge = commonprefix([group[0], group[-1]])  # noqa: RUF071
        branches.append(re.escape(edge[depth:]) + tree_regex(group, len(edge), level + 1))
    if not branches:
        return ""
    body = "|".join(branches)
    return f"(?:{body})?" if terminal is not None else f"(?:{body})"


#: A node with more wildcard rules than this finds their required literals
#: in the path first, and tries only the rules whose literal is there.
FILTER_MIN = 12


def required_literal(pattern: str) -> str:
    """The longest literal segment after the first ``*``: a path that the
    pattern matches contains it. Empty when there is none."""
    if pattern.endswith("$"):
        pattern = pattern[:-1]
    return max(pattern.split("*")[1:], key=len, default="")


class Node:
    """The rules that can match a path whose longest literal prefix among
    the rules' is a given one: a plain prefix rule that surely matches,
    and the wildcard or anchored rules of higher precedence to try first.

    Those are tried in precedence order, each in the form the matcher's
    scan tries it (:func:`.robotstxt._patterns.scan_form`: its longest
    segment looked for first, then its segments left to right), so that a
    node costs no regex of its own. Many of them (files list hundreds of
    ``/*.something.html`` rules) are filtered first: one regex over the
    path finds which of their required literals it contains (PATH-11 still
    holds: it is linear in the path).
    """

    __slots__ = (
        "_always",
        "_by_literal",
        "_closure",
        "_forms",
        "best",
        "cost",
        "regex",
        "specials",
    )

    def __init__(self, prefix: str, candidates: list[Rule]) -> None:
        candidates.sort(key=precedence)
        self.best = next(
            (r for r in candidates if is_prefix_rule(r) and prefix.startswith(r.pattern)), None
        )
        specials: dict[str, Rule] = {}
        for rule in candidates:
            if rule is self.best:
                break
            # Of two rules with one pattern, the first in precedence order
            # decides whenever either matches.
            specials.setdefault(rule.pattern, rule)
        self.specials = tuple(specials.values())
        self._forms = tuple(scan_form(pattern) for pattern in specials)
        #: The filter of a node with many specials, else ``None``.
        self.regex: re.Pattern[str] | None = None
        self._always: tuple[int, ...] = ()
        self._by_literal: dict[str, list[int]] = {}
        self._closure: dict[str, tuple[str, ...]] = {}
        if len(specials) > FILTER_MIN:
            self._build_filter()
        #: What the node costs in memory, in bytes.
        self.cost = self._footprint()

    def _footprint(self) -> int:
        # Its rules are the rule set's, which counts them and their
        # patterns (a plain prefix is its rule's pattern). A method of its
        # own: the compiled build would read self.regex as None in
        # __init__, where it was first set so.
        parts = (self.specials, self._forms, self.regex, self._always, self._by_literal)
        seen = shared(*(rule.pattern for rule in self.specials))
        return sys.getsizeof(self) + footprint((parts, self._closure), seen)

    def _build_filter(self) -> None:
        always = []
        by_literal: dict[str, list[int]] = {}
        for index, rule in enumerate(self.specials):
            literal = required_literal(rule.pattern)
            if literal:
                by_literal.setdefault(literal, []).append(index)
            else:
                always.append(index)
        if not by_literal:
            return
        literals = sorted(by_literal)
        try:
            tree = tree_regex(literals)
        except TooDeep:
            return
        # At each position the tree gives the longest literal that starts
        # there; the shorter ones that start there too are its prefixes.
        self._closure = {
            lit: tuple(lit[:size] for size in range(1, len(lit) + 1) if lit[:size] in by_literal)
            for lit in literals
        }
        self._by_literal = by_literal
        self._always = tuple(always)
        self.regex = re.compile(f"(?=({tree}))", re.DOTALL)

    def decide(self, path: str) -> Rule | None:
        forms = self._forms
        regex = self.regex
        if regex is None:
            for index in range(len(forms)):
                if form_matches(forms[index], path):
                    return self.specials[index]
            return self.best
        indexes = set(self._always)
        for hit in regex.finditer(path):
            for literal in self._closure[hit.group(1)]:
                indexes.update(self._by_literal[literal])
        for index in sorted(indexes):
            if form_matches(forms[index], path):
                return self.specials[index]
        return self.best
