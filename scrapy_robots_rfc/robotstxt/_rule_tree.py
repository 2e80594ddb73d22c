"""The compiled form of a large rule set: a prefix tree of the rules'
literal prefixes as one regular expression, and per tree node the rules to
try, filtered by their required segments when there are many (RFC 9309
§2.2.2 longest match, PATH-5, PATH-6, PATH-11: nothing backtracks).

:class:`.robotstxt._matcher.AgentRules` compiles a rule set into it after its first
verdicts; pure Python, no Scrapy import.
"""

from __future__ import annotations

import re
from os.path import commonprefix
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._patterns import Rule


def pattern_regex(pattern: str) -> str:
    """The regular expression for a robots.txt pattern, matched from the
    start of the match string (PATH-1), with the semantics of
    :func:`.robotstxt._patterns.pattern_matches`.

    Each ``*`` is an atomic group that takes the leftmost occurrence of the next literal
    segment and is never re-entered, which is exact for patterns whose only
    wildcard is ``*`` and cannot backtrack: a pattern of k segments costs at
    most O(len(path) * k) (PATH-11).
    """
    anchored = pattern.endswith("$")
    if anchored:
        pattern = pattern[:-1]
    first, *rest = pattern.split("*")
    source = re.escape(first)
    if not rest:
        return source + r"\Z" if anchored else source
    *middle, last = rest
    source += "".join(f"(?>.*?{re.escape(segment)})" for segment in middle if segment)
    if anchored:
        return source + f".*{re.escape(last)}\\Z"
    return source + f"(?>.*?{re.escape(last)})" if last else source


def precedence(rule: Rule) -> tuple[int, bool, int]:
    """Sort key: longest pattern first (PATH-5), allow first on a tie
    (PATH-6), then the earliest line, which robots.cc reports."""
    return (-len(rule.pattern), not rule.allow, rule.line)


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

    Few of those are tried in one alternation, in precedence order. Many
    (files list hundreds of ``/*.something.html`` rules) are filtered
    first: one regex over the path finds which of their required literals
    it contains (PATH-11 still holds: each regex is linear in the path).
    """

    __slots__ = ("_always", "_by_literal", "_closure", "_each", "best", "regex", "specials")

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
        self.regex: re.Pattern[str] | None = None
        self._each: tuple[re.Pattern[str], ...] = ()
        self._always: tuple[int, ...] = ()
        self._by_literal: dict[str, list[int]] = {}
        self._closure: dict[str, tuple[str, ...]] = {}
        if len(specials) > FILTER_MIN and self._build_filter():
            self._each = tuple(
                re.compile(pattern_regex(r.pattern), re.DOTALL) for r in self.specials
            )
        elif specials:
            source = "|".join(f"({pattern_regex(pattern)})" for pattern in specials)
            self.regex = re.compile(source, re.DOTALL)

    def _build_filter(self) -> bool:
        always = []
        by_literal: dict[str, list[int]] = {}
        for index, rule in enumerate(self.specials):
            literal = required_literal(rule.pattern)
            if literal:
                by_literal.setdefault(literal, []).append(index)
            else:
                always.append(index)
        if not by_literal:
            return False
        literals = sorted(by_literal)
        try:
            tree = tree_regex(literals)
        except TooDeep:
            return False
        # At each position the tree gives the longest literal that starts
        # there; the shorter ones that start there too are its prefixes.
        self._closure = {
            lit: tuple(lit[:size] for size in range(1, len(lit) + 1) if lit[:size] in by_literal)
            for lit in literals
        }
        self._by_literal = by_literal
        self._always = tuple(always)
        self.regex = re.compile(f"(?=({tree}))", re.DOTALL)
        return True

    def decide(self, path: str) -> Rule | None:
        regex = self.regex
        if regex is None:
            return self.best
        if not self._each:
            found = regex.match(path)
            if found is not None:
                # Each alternative is one capturing group, and the atomic
                # groups inside them capture nothing: lastindex names it.
                return self.specials[found.lastindex - 1]  # type: ignore[operator]
            return self.best
        indexes = set(self._always)
        for hit in regex.finditer(path):
            for literal in self._closure[hit.group(1)]:
                indexes.update(self._by_literal[literal])
        for index in sorted(indexes):
            if self._each[index].match(path):
                return self.specials[index]
        return self.best
