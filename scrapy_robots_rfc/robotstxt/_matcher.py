"""URL -> match string, percent-encoding canonicalisation, ``*``/``$``
matching and longest-match precedence.

Pure Python, no Scrapy import. The IDs in comments (PATH-5, ENC-6, ...) point
into ``docs/spec-ids.md``; the D-n IDs into ``docs/decisions.md``.

Two modes exist (docs/decisions.md):

``rfc`` (default)
    RFC 9309 where it speaks: patterns and URLs are canonicalised the same way
    (RFC 9309 §2.2.2, §2.2.3; ENC-6) and ``/robots.txt`` is always allowed
    (RFC 9309 §2.2.2; D-1).
``google``
    Byte-for-byte what Google's C++ parser (robots.cc) decides: patterns are
    only escaped (ENC-1) and the URL is used as given (URL-5).

Matching never backtracks: a pattern is split at ``*`` into literal segments
that are found left to right, each at its leftmost position (PATH-11). That
is O(len(url) * segments) in the worst case and usually one ``str.find`` per
segment.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from ._canonical import Mode, canonical_match_string
from ._footprint import footprint, int_bytes, rules_footprint, shared, text_bytes
from ._patterns import EXACT, CrawlDelay, Rule, Wild, scan_form, wild_matches
from ._rule_tree import Node, TooDeep, precedence_weight, tree_regex

if TYPE_CHECKING:
    from ._usage import UsageRuleSets

#: The implicitly allowed URI (RFC 9309 §2.2.2; D-1, ``rfc`` mode only).
ROBOTS_TXT_PATH: Final = "/robots.txt"

#: Rules are scanned in chunks of this many: one C-level ``startswith``
#: with the chunk's literal prefixes skips a chunk that cannot match.
_CHUNK: Final = 8


def _scan_table(rules: tuple[Rule, ...]) -> tuple[tuple[str, ...], tuple[Wild | None, ...]]:
    """What :meth:`AgentRules.scan` needs, as two flat tuples in precedence
    order: each rule's literal prefix (the pattern itself for a plain rule,
    so no new string) and its wildcard form (:func:`scan_form`)."""
    patterns = [rule.pattern for rule in rules]
    if len(patterns) < len(_PLAIN_WILDS) and not [p for p in patterns if "*" in p or p[-1] == "$"]:
        # The usual rule set: plain prefixes only, with no call per rule.
        return tuple(patterns), _PLAIN_WILDS[len(patterns)]
    prefixes: list[str] = []
    wilds: list[Wild | None] = []
    for rule in rules:
        pattern = rule.pattern
        if "*" not in pattern and pattern[-1] != "$":
            prefixes.append(pattern)  # the usual rule: a plain prefix
            wilds.append(None)
        else:
            prefix, wild = scan_form(pattern)
            prefixes.append(prefix)
            wilds.append(wild)
    if len(wilds) < len(_PLAIN_WILDS) and not any(wilds):
        return tuple(prefixes), _PLAIN_WILDS[len(wilds)]
    return tuple(prefixes), tuple(wilds)


#: The wildcard forms of a small rule set of plain prefixes, one tuple for
#: each size, shared by every cached origin (most have such rules).
_PLAIN_WILDS: Final[tuple[tuple[Wild | None, ...], ...]] = tuple((None,) * n for n in range(33))


#: What a node's place in a rule set's dict of nodes costs, beside the
#: node and its key: a dict entry, with room to grow.
_NODE_SLOT: Final = 48

#: A literal prefix no match string has (they all start with '/'): the
#: chunked scan skips the rules :func:`_float` indexes instead.
_NEVER: Final = "\0"
#: Indexed by their required segment: wildcard rules whose literal prefix
#: is at most this long (``/*.print.html``), when a rule set has at least
#: _FLOAT_MIN of them.
_FLOAT_PREFIX: Final = 1
_FLOAT_MIN: Final = 16
_GRAM: Final = 3


#: A required segment's first characters -> the rules :func:`_float`
#: indexed under them, by their index in precedence order (their literal
#: prefix is the pattern's first character, or nothing before a ``*``).
_Floating = dict[str, tuple[int, ...]]


def _float(
    prefixes: tuple[str, ...], wilds: tuple[Wild | None, ...]
) -> tuple[tuple[str, ...], _Floating | None]:
    """Take the wildcard rules that every path passes the prefix check of,
    and whose required segment is at least :data:`_GRAM` long, out of the
    chunked scan: index them by the segment's first characters instead.

    A file can list hundreds of ``/*.something.html`` rules; the index
    finds the few whose segment starts somewhere in the path with one dict
    lookup per position, where the scan would try each rule."""
    grams: dict[str, list[int]] = {}
    scanned = list(prefixes)
    for index, (prefix, wild) in enumerate(zip(prefixes, wilds, strict=True)):
        if wild is not None and len(prefix) <= _FLOAT_PREFIX and len(wild[0]) >= _GRAM:
            grams.setdefault(wild[0][:_GRAM], []).append(index)
            scanned[index] = _NEVER
    if sum(map(len, grams.values())) < _FLOAT_MIN:
        return prefixes, None
    return tuple(scanned), {gram: tuple(entries) for gram, entries in grams.items()}


def _scan_table_bytes(
    rules: tuple[Rule, ...],
    prefixes: tuple[str, ...],
    wilds: tuple[Wild | None, ...],
    chunks: tuple[tuple[str, ...], ...] | None,
    floating: _Floating | None,
) -> int:
    """What a scan table costs (:meth:`AgentRules.scan`), in bytes, counted
    without a set of what was seen (which would cost as much again): a
    plain rule's prefix is its pattern, which the rules count; the wildcard
    forms of a small set of plain rules are shared."""
    size = sys.getsizeof(prefixes)
    if len(wilds) >= len(_PLAIN_WILDS) or wilds is not _PLAIN_WILDS[len(wilds)]:
        size += sys.getsizeof(wilds)
    for rule, prefix, wild in zip(rules, prefixes, wilds, strict=True):
        if prefix is not rule.pattern:
            size += text_bytes(prefix)
        if wild is not None and wild is not EXACT:
            size += footprint(wild, shared())
    if chunks is not None:
        size += sys.getsizeof(chunks) + sum(map(sys.getsizeof, chunks))
    if floating is not None:
        size += sys.getsizeof(floating)
        for gram, indexes in floating.items():
            size += text_bytes(gram) + sys.getsizeof(indexes) + sum(map(int_bytes, indexes))
    return size


def literal_prefix(pattern: str) -> str:
    """The literal text a pattern starts with: up to its first ``*``, or the
    whole pattern but a final ``$``. Only a path that starts with it can
    match.

    >>> literal_prefix("/shop/*.php$"), literal_prefix("/a$"), literal_prefix("*x")
    ('/shop/', '/a', '')
    """
    if pattern.endswith("$"):
        pattern = pattern[:-1]
    star = pattern.find("*")
    return pattern if star < 0 else pattern[:star]


#: Rule sets this small are never compiled: scanning them is as fast as
#: the tree or faster (one ``startswith`` per 8 rules), and costs nothing
#: to build.
_SCAN_ONLY_MAX: Final = 128
#: A larger rule set is scanned for this many verdicts before it is
#: compiled: building the tree costs about what this many verdicts save
#: with it (7 to 17 us per rule to build, against about 5 ns per rule
#: saved per verdict), and a crawler asks most origins for few verdicts.
_SCANS_BEFORE_COMPILE: Final = 2048
#: A rule set of more rules than this is never compiled, only scanned:
#: building the tree takes a dict entry and a list per prefix, and seconds.
#: The largest rule set of the 310 real files has 1,708 rules.
_COMPILE_MAX_RULES: Final = 65_536
#: Nor one whose tree's regex is longer than this: Python's regex compiler
#: takes about 90 bytes a character while it works (11 MiB here), and
#: about a second per 25,000 characters. The largest tree of the real
#: files has 52,622.
_TREE_MAX_CHARS: Final = 131_072
#: What the indexes built on use (the scan table, the prefix tree and its
#: nodes) may cost together, as a multiple of what the rules themselves
#: cost: an index that would take more is not built, and the rules are
#: scanned instead (the same verdicts, more slowly). A file's parsed form
#: thus stays within a constant times its size, however many verdicts it
#: answers.
SHARE: Final = 2


class AgentRules:
    """The rules that apply to one crawler token, ready for matching.

    Rules are kept in precedence order: longest pattern first, allow before
    disallow on a tie, earlier line first (PATH-5, PATH-6). The first rule
    that matches decides; a rule with an empty pattern matches everything at
    priority 0 and never decides (FMT-15). With no deciding rule the URL is
    allowed (PATH-7).

    Verdicts scan the rules (:meth:`scan`). A rule set of more than 128
    rules (and up to 65,536) that keeps being asked (2,048 verdicts) is
    compiled into a prefix tree (one regex, :mod:`.robotstxt._rule_tree`), so that one C-level
    ``match`` finds the few rules that can match a path; those are then
    tried in precedence order.

    Each of those indexes is built only if what they cost together stays
    within ``share`` (:data:`SHARE`) times what the rules cost
    (:attr:`cost`); the verdicts never depend on which were built.
    """

    __slots__ = (
        "_base",
        "_by_prefix",
        "_chunks",
        "_floating",
        "_full",
        "_held",
        "_nodes",
        "_prefixes",
        "_scans",
        "_share",
        "_spent",
        "_tree",
        "_wilds",
        "agents",
        "crawl_delay",
        "delay",
        "mode",
        "rules",
        "token",
        "usage",
    )

    def __init__(
        self,
        rules: list[Rule],
        *,
        token: str,
        agents: tuple[str, ...],
        mode: Mode,
        delay: CrawlDelay | None = None,
        usage: UsageRuleSets | None = None,
        base: AgentRules | None = None,
        share: float = SHARE,
    ) -> None:
        #: The rules in precedence order.
        self.rules: tuple[Rule, ...] = (
            base.rules
            if base is not None
            else tuple(sorted([r for r in rules if r.pattern], key=precedence_weight, reverse=True))
        )
        #: The crawler's product token.
        self.token = token
        #: The ``user-agent`` values of the groups these rules come from.
        self.agents = agents
        #: The crawl-delay line for this crawler, or ``None``: the first
        #: after a run of user-agent lines naming the crawler, else after a
        #: run of ``*`` (D-17; OTHER-2); :attr:`crawl_delay` is its seconds.
        self.delay = delay
        self.crawl_delay = None if delay is None else delay.seconds
        #: The content-usage/content-signal rules that apply, as rule sets
        #: matched each on its own, longest first (:mod:`.robotstxt._usage`; U-1, U-2);
        #: ``None`` without any.
        self.usage = usage
        self.mode: Mode = mode
        self._tree: re.Pattern[str] | None = None
        self._scans = 0
        # For scanning, built on first use (:func:`_scan_table`); chunks of
        # the prefixes only for more than _CHUNK rules. A cached origin
        # keeps them, and nothing else until it is compiled: empty dicts
        # cost 64 bytes each.
        self._prefixes: tuple[str, ...] | None = None
        self._wilds: tuple[Wild | None, ...] = ()
        self._chunks: tuple[tuple[str, ...], ...] | None = None
        self._floating: _Floating | None = None
        self._by_prefix: dict[str, list[Rule]] | None = None
        self._nodes: dict[str, Node] | None = None
        #: The rule set this one answers with (:meth:`renamed`), if any.
        self._base = base
        #: What the rules (and usage rules, agents, delay) cost, in bytes;
        #: what the indexes may cost (``share`` times that: :data:`SHARE`
        #: unless a test asks otherwise); what the indexes built so far
        #: cost; whether no index will be built any more (one did not fit,
        #: or the tree would be too large to compile).
        self._held = 0
        if base is None:
            seen = shared()
            self._held = rules_footprint(self.rules) + footprint((agents, delay, usage), seen)
        # The factor, not the bytes: SHARE is one int for every rule set,
        # where the product would be an int object for each.
        self._share = share
        self._spent = 0
        self._full = False

    @property
    def cost(self) -> int:
        """What this rule set costs in memory, in bytes: the object, its
        rules and the indexes built so far, and what the indexes may still
        take before they fill their share (:data:`SHARE`), which a verdict
        may build at any time. A cache bounded in bytes charges this: what
        is built later is paid for beforehand. It only ever goes down.

        A rule set :meth:`renamed` from another costs its own object and
        the other's :attr:`cost`: a caller that holds both counts the
        rules once (they share :attr:`rules`)."""
        own = sys.getsizeof(self)
        base = self._base
        if base is not None:
            return own + base.cost
        total = own + self._held + self._spent
        if not self.settled:
            total += self._allowance() - self._spent
        return total

    @property
    def settled(self) -> bool:
        """Whether no index will be built any more, so that :attr:`cost`
        is final: the share is full, or a small rule set has its scan
        table (it is never compiled). A rule set :meth:`renamed` from
        another is as settled as the other."""
        if self._base is not None:
            return self._base.settled
        return (
            self._full
            or not self.rules
            or (self._prefixes is not None and len(self.rules) <= _SCAN_ONLY_MAX)
        )

    def _allowance(self) -> int:
        """What the indexes may cost: ``share`` times what the rules cost."""
        return int(self._share * self._held)

    def _charge(self, size: int) -> bool:
        """Count an index of ``size`` bytes, if it fits in the share;
        ``False`` when it does not, and then nothing more is built."""
        if self._full or self._spent + size > self._allowance():
            self._full = True
            return False
        self._spent += size
        return True

    def renamed(self, token: str, delay: CrawlDelay | None) -> AgentRules:
        """The same rules for another crawler token that the same groups
        apply to (GRP-4, GRP-5): verdicts, scan tables and the compiled tree
        are shared; the name differs, and so may the crawl-delay, which
        belongs to the user-agent lines above it, not to the group (D-17)."""
        return AgentRules(
            [],
            token=token,
            agents=self.agents,
            delay=delay,
            mode=self.mode,
            usage=self.usage,
            base=self._base or self,
        )

    def compile(self) -> None:
        """Compile the rules into the prefix tree now, rather than after the
        first verdicts of a large rule set (:meth:`decide`); answers do not
        change, only their speed and the memory kept. Within the share
        (:data:`SHARE`), as on use."""
        if self._base is not None:
            self._base.compile()
        elif self.rules and self._tree is None and not self._full:
            self._compile()

    def _compile(self) -> re.Pattern[str] | None:
        """The prefix tree, built if it fits in the share and is not too
        large to compile (:data:`_COMPILE_MAX_RULES`,
        :data:`_TREE_MAX_CHARS`); ``None`` if not (and nothing more is
        built)."""
        if len(self.rules) > _COMPILE_MAX_RULES:
            self._full = True
            return None
        by_prefix: dict[str, list[Rule]] = {"": []}
        keys = 0  # what the keys cost: a plain prefix is its rule's pattern
        for rule in self.rules:
            prefix = literal_prefix(rule.pattern)
            rules = by_prefix.get(prefix)
            if rules is None:
                rules = by_prefix[prefix] = []
                if prefix is not rule.pattern:
                    keys += text_bytes(prefix)
            rules.append(rule)
        try:
            tree = tree_regex(sorted(by_prefix))
        except TooDeep:
            # Pathological nesting: one node holds every rule.
            by_prefix = {"": list(self.rules)}
            tree = ""
        if len(tree) > _TREE_MAX_CHARS:
            self._full = True
            return None
        compiled = re.compile(tree, re.DOTALL)
        nodes: dict[str, Node] = {}
        size = keys + sum(map(sys.getsizeof, (by_prefix, compiled, nodes)))
        if not self._charge(size + sum(map(sys.getsizeof, by_prefix.values()))):
            return None
        self._by_prefix, self._tree, self._nodes = by_prefix, compiled, nodes
        return compiled

    def scan(self, path: str) -> Rule | None:
        """The deciding rule for the match string ``path``, found by trying
        the rules in precedence order (the first that matches decides,
        PATH-5); :meth:`decide` gives the same answer, and uses it for a
        rule set's first verdicts. Without its scan table (it did not fit
        in the share) each rule's pattern is tried as it is written."""
        if self._base is not None:
            return self._base.scan(path)
        prefixes = self._prefixes
        if prefixes is None:
            prefixes = self._scan_table()
            if prefixes is None:
                return next((rule for rule in self.rules if rule.matches(path)), None)
        wilds = self._wilds
        count = best = len(prefixes)
        start = 0
        for chunk in self._chunks or (prefixes,):
            # One C-level call rejects most chunks; in the others, only the
            # rules whose literal prefix and required segment are both in
            # the path need the full check.
            end = start + len(chunk)
            if path.startswith(chunk):
                for index in range(start, end):
                    prefix = prefixes[index]
                    if path.startswith(prefix):
                        wild = wilds[index]
                        if wild is None or (
                            wild[0] in path and wild_matches(len(prefix), wild, path)
                        ):
                            best = index
                            break
                if best < count:
                    break
            start = end
        floating = self._floating
        if floating is not None:
            best = self._best_floating(floating, path, best)
        return self.rules[best] if best < count else None

    def _scan_table(self) -> tuple[str, ...] | None:
        """Build what :meth:`scan` needs, if it fits in the share: the
        literal prefixes; ``None`` if it does not."""
        if self._full:
            return None
        prefixes, wilds = _scan_table(self.rules)
        floating: _Floating | None = None
        chunks: tuple[tuple[str, ...], ...] | None = None
        if len(prefixes) > _CHUNK:
            prefixes, floating = _float(prefixes, wilds)
            chunks = tuple(prefixes[i : i + _CHUNK] for i in range(0, len(prefixes), _CHUNK))
        if not self._charge(_scan_table_bytes(self.rules, prefixes, wilds, chunks, floating)):
            return None
        self._prefixes, self._wilds, self._chunks, self._floating = (
            prefixes,
            wilds,
            chunks,
            floating,
        )
        return prefixes

    def _best_floating(self, floating: _Floating, path: str, best: int) -> int:
        """The first rule in precedence order, before ``best``, of those
        :func:`_float` indexed that matches ``path``; else ``best``."""
        if len(path) - _GRAM < len(floating):
            grams: Iterable[str] = {path[i : i + _GRAM] for i in range(len(path) - _GRAM + 1)}
        else:  # a long path: try each segment start the rules have instead
            grams = [gram for gram in floating if gram in path]
        for gram in grams:
            for index in floating.get(gram, ()):
                if index >= best:
                    break
                # The literal prefix is one character at most (_FLOAT_PREFIX).
                head = self.rules[index].pattern[:1]
                start = 0 if head == "*" else 1
                wild = self._wilds[index]
                assert wild is not None  # _float indexes wildcard rules only
                if (not start or path.startswith(head)) and wild_matches(start, wild, path):
                    best = index
                    break
        return best

    def _node(self, prefix: str) -> Node | None:
        """The tree node of ``prefix``, built if it fits in the share;
        ``None`` if not (and nothing more is built)."""
        if self._full or self._nodes is None:
            return None
        by_prefix = self._by_prefix or {}
        candidates = [
            rule for size in range(len(prefix) + 1) for rule in by_prefix.get(prefix[:size], ())
        ]
        node = Node(prefix, candidates)
        if not self._charge(node.cost + _NODE_SLOT + sys.getsizeof(prefix)):
            return None
        self._nodes[prefix] = node
        return node

    def decide(self, path: str) -> Rule | None:
        """The deciding rule for the match string ``path``, or ``None``."""
        if self._base is not None:
            return self._base.decide(path)
        if not self.rules:
            return None
        tree = self._tree
        if tree is None:
            # A rule set of up to 128 rules (the median file has 6 for a
            # crawler) is always scanned: as fast as the tree or faster, and
            # no compiled state to keep per cached origin.
            if len(self.rules) <= _SCAN_ONLY_MAX:
                return self.scan(path)
            # Compiling costs as much as a few thousand scans: a rule set
            # used for fewer verdicts is only scanned; one whose tree does
            # not fit in its share, always.
            self._scans += 1
            if self._scans <= _SCANS_BEFORE_COMPILE or self._full:
                return self.scan(path)
            tree = self._compile()
            if tree is None:
                return self.scan(path)
        found = tree.match(path)
        prefix = path[: found.end()] if found is not None else ""
        node = (self._nodes or {}).get(prefix) or self._node(prefix)
        if node is None:
            return self.scan(path)
        return node.decide(path)

    def deciding_rule(self, path: str) -> Rule | None:
        """:meth:`decide`, except that in ``rfc`` mode ``/robots.txt``
        itself is decided by no rule (D-1, RFC 9309 §2.2.2)."""
        if self.mode == "rfc" and path == ROBOTS_TXT_PATH:
            return None
        return self.decide(path)

    def explain(self, path: str) -> tuple[Rule | None, str]:
        """The rule that decides the match string ``path`` (RFC 9309
        §2.2.2: the longest match) and why, in words: the one wording of a
        verdict's reason, for :meth:`RobotsTxt.explain` and the middleware."""
        if self.mode == "rfc" and path == ROBOTS_TXT_PATH:
            return None, "/robots.txt is always allowed (RFC 9309 §2.2.2)"
        if not self.agents:
            named = "" if self.token == "*" else f"no group names {self.token!r} and "
            return None, f"{named}there is no '*' group"
        rule = self.decide(path)
        group = ", ".join(repr(agent) for agent in self.agents)
        if rule is None:
            return None, f"no rule of the group for {group} matches {path!r}"
        reason = (
            f"{rule.kind} rule {rule.pattern!r} on line {rule.line} is the "
            f"longest match for {path!r} in the group for {group}"
        )
        if rule.index_of is not None:
            reason += f" (derived from allow: {rule.index_of})"
        return rule, reason

    def allowed_path(self, path: str) -> bool:
        """The verdict for a match string already in this mode's form."""
        rule = self.deciding_rule(path)
        return rule is None or rule.allow

    def url_rule(self, url: str | bytes) -> Rule | None:
        """:meth:`deciding_rule` of ``url``'s match string in this mode
        (:func:`.canonical_match_string`), with the common case (a small
        rule set, scanned) inline: what a crawler asks for every request."""
        if not self.rules:
            return None
        if self._base is not None:
            return self._base.url_rule(url)
        mode = self.mode
        path = canonical_match_string(url, mode)
        if mode == "rfc" and path == ROBOTS_TXT_PATH:
            return None  # D-1, RFC 9309 §2.2.2
        if self._tree is None and len(self.rules) <= _SCAN_ONLY_MAX:
            return self.scan(path)
        return self.decide(path)

    def allowed(self, url: str | bytes) -> bool:
        """The verdict for ``url``: :meth:`allowed_path` of its match
        string (:meth:`url_rule`)."""
        rule = self.url_rule(url)
        return rule is None or rule.allow
