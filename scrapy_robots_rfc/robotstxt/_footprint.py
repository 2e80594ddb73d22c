"""What the matcher's structures cost in memory, in bytes: what a crawl
that keeps many origins' rules charges for each (RFC 9309 §2.5 lets a
file be large; ``ROBOTSTXT_RFC_CACHE_BYTES`` bounds what is kept by this
count, docs/performance.rst). Pure Python, no Scrapy import.

``sys.getsizeof`` of each object once: the containers, the strings and
numbers in them, and a compiled regex with its code (CPython counts it).
What the allocator rounds up is not counted (a few bytes an object).
"""

from __future__ import annotations

import sys

from ._patterns import Rule

#: Objects every rule set shares, never counted: the singletons.
_SHARED: frozenset[int] = frozenset(map(id, (None, True, False, "", ())))


def shared(*objects: object) -> set[int]:
    """A ``seen`` set for :func:`footprint` that leaves out ``objects``
    (kept once for every rule set) and the singletons."""
    return set(_SHARED).union(map(id, objects))


def text_bytes(text: str) -> int:
    """What a string costs: nothing for an empty one or one character,
    which CPython keeps once for all."""
    return sys.getsizeof(text) if len(text) > 1 else 0


def footprint(root: object, seen: set[int]) -> int:
    """What ``root`` costs with everything it holds, in bytes, leaving out
    the objects in ``seen`` (their ``id``), to which it adds those it
    counts: objects shared by two calls with one ``seen`` count once.

    A :class:`.Rule` is never counted: the rule set holds each one, and
    :func:`rules_footprint` counts them."""
    total = 0
    stack: list[object] = [root]
    while stack:
        item = stack.pop()
        key = id(item)
        if key in seen or type(item) is Rule:
            continue
        seen.add(key)
        total += text_bytes(item) if isinstance(item, str) else sys.getsizeof(item)
        if isinstance(item, (tuple, list, set, frozenset)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        # Anything else (str, int, a compiled regex, an array...) holds
        # nothing this counts.
    return total


def rules_footprint(rules: tuple[Rule, ...]) -> int:
    """What a rule set's rules cost: the tuple, each rule, its pattern and
    its line number (past 256, an int object of its own). The pattern an
    ``index_of`` names is another rule's (PATH-9): not counted twice."""
    total = sys.getsizeof(rules)
    for rule in rules:
        total += sys.getsizeof(rule) + text_bytes(rule.pattern) + int_bytes(rule.line)
    return total


def int_bytes(number: int) -> int:
    """What an int costs: nothing from -5 to 256, which CPython keeps once
    for all."""
    return 0 if -5 <= number <= 256 else sys.getsizeof(number)
