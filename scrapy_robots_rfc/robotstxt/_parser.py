"""bytes or str -> :class:`RobotsTxt`: lines, groups, rules, sitemaps and
crawl-delay.

Pure Python, no Scrapy import. The lexical rules follow robots.cc
``RobotsTxtParser`` byte for byte (D-4, D-5, D-9, D-10), so the
IDs in comments (FMT-n, GRP-n, ...) point into ``docs/spec-ids.md``.

The grammar of RFC 9309 §2.2, for reference::

    robotstxt = *(group / emptyline)
    group = startgroupline *(startgroupline / emptyline)
            *(rule / emptyline)
    startgroupline = *WS "user-agent" *WS ":" *WS product-token EOL
    rule = *WS ("allow" / "disallow") *WS ":" *WS (path-pattern / empty-pattern) EOL
    EOL = *WS [comment] NL
    NL = %x0D / %x0A / %x0D.0A

This parser is more lenient than the grammar where Google's is: keys are
matched by prefix and with common typos, the colon may be missing, and
unknown lines are skipped without ending a group.

A line that is skipped, cut or read other than it is written gets a
:class:`Note` (:attr:`RobotsTxt.notes`, codes in :data:`NOTE_CODES`), which
``python -m scrapy_robots_rfc lint`` prints (:mod:`.robotstxt._lint`).
"""

from __future__ import annotations

import math
import re
import time
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from types import MappingProxyType
from typing import Any, Final, NamedTuple, overload

from ._canonical import MODES, Mode, canonical_match_string, escape_latin1
from ._directives import (
    ALLOW,
    CONTENT_SIGNAL,
    CRAWL_DELAY,
    DISALLOW,
    SITEMAP,
    SPACES,
    SPELT_RIGHT,
    USER_AGENT,
    Noted,
    key_and_value,
    key_notes,
    no_token_note,
    partial_token_note,
    read_as,
    text_of,
    unread_note,
)
from ._matcher import AgentRules
from ._names import GLOBAL_NAME, agent_product, agent_token, ascii_lower, caller_name, crawler_name
from ._patterns import CrawlDelay, Rule
from ._usage import (
    NO_PREFERENCES,
    Preferences,
    RawUsage,
    UsageRule,
    robots_preferences,
    usage_lines,
    usage_rules_for,
)

Body = str | bytes | bytearray | memoryview
#: A crawler's name, or its family's names, most specific first (D-21, D-22).
Name = str | bytes | Sequence[str | bytes]
#: A :class:`Note` as a plain tuple (a tenth of the cost), or, explained
#: only when asked (an HTML page has thousands): ``(line, text)`` for a line
#: without key and value, ``(line, key, None)`` for an unknown key (text
#: read as Latin-1, as :func:`_read` reads lines).
_Pending = Noted | tuple[int, str] | tuple[int, str, None]
#: What the ``past-limit`` note says: the limit, and how many bytes were
#: cut past it (``None``: unknown, the caller cut them).
_Past = tuple[int, int | None]

#: robots.cc keeps ``2083 * 8 - 1`` bytes of a line and drops the rest
#: (FMT-5, D-9): a 16,664-byte buffer less its NUL.
MAX_LINE_BYTES = 2083 * 8 - 1

#: At most this many bytes of a robots.txt are read (RFC 9309 §2.5: at
#: least 500 KiB; Google: 500 KiB; HTTP-12, D-16).
MAX_BYTES = 500 * 1024

_BOM = b"\xef\xbb\xbf"  # FMT-3, D-10
#: The names whose rules a parsed file remembers: a crawler uses few, and
#: a caller that rotates User-Agent strings must not grow the object.
_MAX_NAMES_KEPT: Final = 64
_CRAWL_DELAY_VALUE = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
_ABSOLUTE_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


#: What each :attr:`Note.code` means, in ``lint --help`` order. Note texts
#: are for people: they cite RFC 9309 sections or say what Google's parser
#: does, never the spec IDs of the comments. By code: HTTP-12, HTTP-13;
#: FMT-5, D-9; FMT-1, FMT-2; FMT-12; FMT-9; FMT-8, FMT-9; GRP-3, D-20;
#: OTHER-1; OTHER-2; FMT-11, D-4; FMT-10, D-4; FMT-9, D-5; UA-3, UA-7;
#: UA-1, UA-3, D-21.
NOTE_CODES: Mapping[str, str] = MappingProxyType(
    {
        "past-limit": (
            "content past the size limit (500 KiB unless asked otherwise) is ignored "
            "(RFC 9309 §2.5)"
        ),
        "line-cut": "a line longer than 16,663 bytes is cut, as Google's parser cuts it",
        "non-utf8": "bytes that are not UTF-8 (RFC 9309 §2.3)",
        "unknown-key": "a key this parser does not read: the line is ignored (RFC 9309 §2.2.4)",
        "missing-value": "one word without ':': the line is ignored",
        "syntax": "no key and value: the line is ignored (RFC 9309 §2.3.1.5)",
        "before-user-agent": "a rule before any user-agent line is ignored (RFC 9309 §2.2.2)",
        "bad-sitemap": "a sitemap value that is not an absolute URL is ignored (RFC 9309 §2.2.4)",
        "bad-crawl-delay": "a crawl-delay that is not a number of seconds is ignored",
        "typo": "a misspelt key accepted as Google's parser accepts it",
        "key-prefix": "a longer key read as the key it starts with, as Google's parser does",
        "missing-colon": "two words without ':' read as key and value, as Google's parser does",
        "no-token": "a user-agent value without a product token names no crawler (RFC 9309 §2.2.1)",
        "partial-token": (
            "a user-agent name that is not a product token: the group is for a shorter name "
            "(RFC 9309 §2.2.1)"
        ),
    }
)


class Note(NamedTuple):
    """A line that was skipped, cut, or read other than it is written: a
    ``code`` of :data:`NOTE_CODES` and, for people, what happened to it."""

    line: int
    code: str
    text: str


@dataclass(frozen=True, slots=True)
class Group:
    """One group as written, not merged (RFC 9309 §2.1; GRP-1, GRP-2); its
    rules include those derived from ``allow: <dir>/index.html`` (PATH-9).
    A group's crawl-delay lines are in :attr:`RobotsTxt.crawl_delays`: each
    belongs to the user-agent lines just above it, not to the group (D-17)."""

    agents: tuple[str, ...]
    rules: tuple[Rule, ...]

    def __reduce__(self) -> tuple[type[Group], tuple[Any, ...]]:
        # Rebuilt from its fields: unpickling a frozen class compiled by
        # mypyc cannot set them one by one (robotstxt/_build.py).
        return Group, (self.agents, self.rules)


@dataclass(frozen=True)
class Explanation:
    """Why a URL is allowed or disallowed.

    ``rule`` is the deciding rule, or ``None`` when no rule decides (then the
    URL is allowed, RFC 9309 §2.2.2). ``agents`` are the ``user-agent`` values
    of the groups that apply to ``user_agent`` (the name they were looked up
    for, D-21); empty when no group applies.
    """

    allowed: bool
    url: str
    user_agent: str
    match_string: str
    rule: Rule | None
    agents: tuple[str, ...]
    reason: str

    def __reduce__(self) -> tuple[type[Explanation], tuple[Any, ...]]:
        # As Group.__reduce__.
        fields = (self.allowed, self.url, self.user_agent, self.match_string, self.rule)
        return Explanation, (*fields, self.agents, self.reason)

    def __str__(self) -> str:
        verdict = "allowed" if self.allowed else "disallowed"
        return f"{verdict}: {self.url} for {self.user_agent!r}: {self.reason}"


#: Where a value is in the parsed text, as one int: its offset shifted left
#: by this many bits, or'ed with its length (a line keeps at most
#: :data:`MAX_LINE_BYTES`, less than ``2**15``).
_SPAN_BITS: Final = 15
_SPAN_LENGTH: Final = (1 << _SPAN_BITS) - 1
#: The text is split into lines this many characters at a time, so that a
#: file of millions of short lines never has a string object for each.
_BLOCK: Final = 64 * 1024


class _Lines:
    """What a parse keeps of the lines it reads, as arrays of ints: the
    values are spans of the parsed text (:data:`_SPAN_BITS`), read again
    when a crawler's rules are built. No object per line or per group: a
    file of a million groups costs a few ints for each of its lines
    (RFC 9309 §2.5 lets a crawler read more than 500 KiB;
    ``ROBOTSTXT_RFC_MAX_BYTES`` may be 32 MiB).

    Groups (RFC 9309 §2.1; GRP-1, GRP-2) are runs of the user-agent lines
    and of the rules: group ``g`` has the agents from ``group_agents[g]``
    and the rules from ``group_rules[g]``, up to those of the next group.
    The names a user-agent line may bind (:func:`_bound`) are kept as their
    hashes, one array for its token and one for its product name, each at
    the line's index in ``agents``: a lookup compares ints, then reads the
    lines it found again, so that a hash collision never selects a group."""

    __slots__ = (
        *("agents", "global_agents", "group_agents", "group_rules", "products", "tokens"),
        *("lines", "rule_lines", "rules", "run_agents", "run_delays", "run_ends", "run_lines"),
        *("sitemaps", "usage_groups", "usage_lines", "usage_spans"),
    )

    def __init__(self, size: int) -> None:
        # Spans take 64 bits; line numbers and indexes 32 for a text of
        # less than a GiB (fewer than 2**30 lines), which any limit of
        # ROBOTSTXT_RFC_MAX_BYTES is; the names' hashes always (_hashed).
        index = "i" if size < 1 << 30 else "q"
        #: The value of each user-agent line, in file order.
        self.agents: array[int] = array("q")
        #: The hash of each user-agent line's token (0 for ``*``) and, in
        #: rfc mode, of its product name when that is longer (else 0):
        #: the names it may bind (UA-3, UA-5, D-21).
        self.tokens: array[int] = array("i")
        self.products: array[int] = array("i")
        #: The indexes in :attr:`agents` of the ``*`` lines (UA-2).
        self.global_agents: array[int] = array(index)
        #: Each group's first index in :attr:`agents` and in :attr:`rules`.
        self.group_agents: array[int] = array(index)
        self.group_rules: array[int] = array(index)
        #: The value of each allow/disallow line, and its line number
        #: shifted left by one, or'ed with 1 for allow.
        self.rules: array[int] = array("q")
        self.rule_lines: array[int] = array(index)
        #: The runs of user-agent lines that a crawl-delay line follows
        #: (D-17): their first index in :attr:`agents` and the one after
        #: their last, the delay's seconds and its line.
        self.run_agents: array[int] = array(index)
        self.run_ends: array[int] = array(index)
        self.run_delays: array[float] = array("d")
        self.run_lines: array[int] = array(index)
        #: The content-usage and content-signal lines (U-1): the index of
        #: the group each stands in (-1 before any user-agent line), the
        #: line number shifted left by one, or'ed with 1 for
        #: content-signal, and the value.
        self.usage_groups: array[int] = array(index)
        self.usage_lines: array[int] = array(index)
        self.usage_spans: array[int] = array("q")
        #: ``sitemap`` URLs, absolute, in file order, without duplicates.
        self.sitemaps: dict[str, None] = {}
        #: How many lines the text has.
        self.lines = 0

    def group_of(self, agent: int) -> int:
        """The group of the user-agent line ``agent``."""
        return bisect_right(self.group_agents, agent) - 1

    def group_span(self, group: int, starts: array[int], total: int) -> range:
        """The indexes in ``starts`` (:attr:`group_agents` or
        :attr:`group_rules`) of ``group``'s lines; ``total`` is the
        number of lines there."""
        after = group + 1
        return range(starts[group], starts[after] if after < len(starts) else total)


def _hashed(name: str) -> int:
    """What :attr:`_Lines.tokens` and :attr:`_Lines.products` keep of a
    name: 31 bits of its hash (a lookup reads each line it finds again)."""
    return hash(name) & 0x7FFFFFFF


def _bound(token: str | None, product: str, mode: Mode) -> tuple[str, ...]:
    """The callers' names (ASCII lower-cased) a user-agent line binds: its
    ``token`` (:func:`.robotstxt._names.agent_token`), ``None`` for ``*``.

    UA-3, UA-5, D-7, D-8, D-21: both modes bind the line's token, its
    leading [A-Za-z_-] run; an empty one names nobody, except to an empty
    caller's name in google mode, as robots.cc compares them. rfc mode also
    binds the whole product name (``product``: MJ12bot, where the token
    alone is "mj"; empty unless the value is longer than its token)."""
    if token is None:
        return ()
    if mode == "google":
        return (token,)
    if product and product != token:
        return (product, token) if token else (product,)
    return (token,) if token else ()


def _agent_notes(
    number: int, value: str, agent: str, token: str, product: str, mode: Mode
) -> list[Noted]:
    """The no-token and partial-token notes of a user-agent line (UA-1,
    UA-3, D-21): both modes note a product name longer than its token
    ("my.crawler" is for "my")."""
    notes: list[Noted] = []
    if mode == "google":
        if not token:
            notes.append(no_token_note(number, value, ""))
        elif product and product != token:
            notes.append(partial_token_note(number, agent, token, product))
        return notes
    if product and token and product != token:
        notes.append(partial_token_note(number, agent, token, product))
    if not token:
        notes.append(no_token_note(number, value, product))
    return notes


class RobotsTxt:
    """A parsed robots.txt file.

    >>> robots = RobotsTxt.parse(b"User-agent: *\\nDisallow: /private\\n")
    >>> robots.allowed("https://example.com/private/x", "ExampleBot")
    False

    Parsing never raises on content; it is linear in the size of what it
    reads, which is at most :data:`MAX_BYTES` (500 KiB, RFC 9309 §2.5)
    unless :meth:`parse` is given another ``max_bytes``. What it keeps is
    the text read and a few ints per line (:class:`_Lines`); a crawler's
    rules are built from them when it asks (:meth:`for_agent`), and the
    notes when they are asked for (:attr:`notes`).
    """

    __slots__ = (
        "_by_agent",
        "_by_groups",
        "_by_token",
        "_lines",
        "_past",
        "_text",
        "mode",
        "sitemaps",
    )

    def __init__(self, text: str, lines: _Lines, *, mode: Mode, past: _Past | None) -> None:
        self.mode: Mode = mode
        #: ``sitemap`` URLs, absolute, in file order, without duplicates
        #: (RFC 9309 §2.2.4; OTHER-1). They belong to no group.
        self.sitemaps = tuple(lines.sitemaps)
        lines.sitemaps = {}
        #: The text read (Latin-1, one character per byte, line ends made
        #: LF, a BOM left out): what the spans of :attr:`_lines` point into.
        self._text = text
        self._lines = lines
        #: The ``past-limit`` note's numbers, if something was cut.
        self._past = past
        self._by_token: dict[str, AgentRules] = {}
        self._by_agent: dict[str | tuple[str, ...], AgentRules] = {}
        self._by_groups: dict[tuple[int, ...], AgentRules] = {}

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Parsed again from its text: the names' hashes in _Lines are this
        # process's (str hashes are salted per process).
        return _from_text, (self._text, self.mode, self._past)

    @overload
    @classmethod
    def parse(
        cls, body: Body, mode: Mode = "rfc", *, max_bytes: int = MAX_BYTES, truncated: bool = False
    ) -> RobotsTxt: ...

    @overload
    @classmethod
    def parse(
        cls, body: Body, mode: Mode = "rfc", *, max_bytes: None, truncated: bool = False
    ) -> RobotsTxt: ...

    # The arguments are checked here, not by their annotations: the compiled
    # build would raise its own TypeError for a wrong type before the code
    # below says which argument is wrong (robotstxt/_build.py).
    @classmethod
    def parse(
        cls,
        body: object,
        mode: object = "rfc",
        *,
        max_bytes: object = MAX_BYTES,
        truncated: object = False,
    ) -> RobotsTxt:
        """Parse ``body`` (bytes, or str which is encoded as UTF-8).

        At most ``max_bytes`` bytes are read, 500 KiB by default (RFC 9309
        §2.5: a crawler MAY ignore what follows a limit of at least 500 KiB;
        Google's parser reads 500 KiB). Past it the body is cut as
        :func:`cut_at_limit` cuts it, the line cut by the limit dropped too;
        the limit counts the UTF-8 bytes of a str. ``None`` reads
        everything, a smaller value less.

        >>> body = b"User-agent: *\\nDisallow: /a\\nDisallow: /b\\n"
        >>> [note.code for note in RobotsTxt.parse(body, max_bytes=30).notes]
        ['past-limit']
        >>> RobotsTxt.parse(body, max_bytes=30).allowed("http://e.com/b", "Bot")
        True

        Something cut is said by a ``past-limit`` :class:`Note` (the line
        it starts on, the limit and how many bytes were cut); it changes no
        rule of what was read. ``truncated``: ``body`` is itself what
        :func:`cut_at_limit` left of a longer file (at ``max_bytes``, or
        at 500 KiB when that is ``None``), which adds the same note.

        Raises ``TypeError`` for any other type of ``body`` or
        ``max_bytes``, ``ValueError`` for an unknown ``mode`` or a negative
        ``max_bytes``; never anything for any content (RFC 9309 §2.3.1.5:
        "MUST try to parse each line").
        """
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        checked: Mode = "google" if mode == "google" else "rfc"
        limit: int | None = None
        if max_bytes is not None:
            if not isinstance(max_bytes, int) or isinstance(max_bytes, bool):
                raise TypeError(f"max_bytes must be an int or None, not {type(max_bytes).__name__}")
            if max_bytes < 0:
                raise ValueError(f"max_bytes must be 0 or more bytes, or None, not {max_bytes}")
            limit = max_bytes
        text, past = _read_text(body, limit, truncated=bool(truncated))
        return _from_text(text, checked, past)

    @property
    def notes(self) -> tuple[Note, ...]:
        """A :class:`Note` for each line that was skipped, cut or read other
        than it is written, in line order (a new tuple at each call).

        They are found when asked, by reading the text again: a parse for a
        crawl keeps none (a file of a million lines that are not robots.txt
        lines has a million notes)."""
        pending: list[_Pending] = []
        lines = _read(self._text, self.mode, pending)
        text = self._text
        # FMT-1, FMT-2: one check of the whole text; only a text that fails
        # it is looked at line by line (a line is UTF-8 if and only if the
        # text is: LF never splits a UTF-8 sequence).
        if not text.isascii():
            data = text.encode("latin-1")
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                pending += _utf8_notes(data.split(b"\n"))
        if self._past is not None:
            pending.append((lines.lines + 1, "past-limit", _past_limit_text(*self._past)))
        notes = [_explained(note) for note in pending]
        return tuple(Note(*note) for note in sorted(notes, key=itemgetter(0)))

    @property
    def group_count(self) -> int:
        """How many groups the file has (RFC 9309 §2.1), without building
        them as :attr:`groups` does: a file of a million groups counts them
        in no time."""
        return len(self._lines.group_agents)

    @property
    def groups(self) -> tuple[Group, ...]:
        """The groups in file order, as written (a new view at each call)."""
        return tuple(
            Group(self._agents_of((group,)), tuple(self._rules_of(group)))
            for group in range(len(self._lines.group_agents))
        )

    @property
    def crawl_delays(self) -> tuple[CrawlDelay, ...]:
        """Each ``crawl-delay`` line that counts, with the user-agent lines
        it belongs to (the run directly above it, D-17), in file order; a
        second one after the same run, and one before any user-agent
        line, do not count."""
        return tuple(self._run_delay(run) for run in range(len(self._lines.run_agents)))

    def for_agent(self, user_agent: Name) -> AgentRules:
        """The rules that apply to the crawler named ``user_agent``.

        The name is the crawler's product token (RFC 9309 §2.2.1), compared
        case-insensitively. In ``rfc`` mode a name that is not one is first
        reduced to the crawler's product name, as a User-Agent header is
        (D-21, :func:`.robotstxt._names.crawler_name`): ``BadBot/1.0`` and
        ``Mozilla/5.0 (compatible; BadBot/1.0)`` get ``BadBot``'s groups, and
        ``MJ12bot`` stays whole (never ``mj``). ``google`` mode compares the
        name verbatim, as Google's parser does. ``*`` asks for the global
        groups.

        A sequence of names is a crawler family, most specific first (D-22):
        the first name that selects a group other than ``*`` decides, else
        the global groups apply (``["Googlebot-Image", "Googlebot"]`` follows
        ``User-agent: Googlebot`` when no group names ``Googlebot-Image``).

        The groups naming the crawler are merged (GRP-4); if there is none,
        the ``*`` groups are merged instead, and the two never mix (GRP-5,
        UA-6). A group naming both counts as specific (GRP-8).
        """
        if isinstance(user_agent, str):
            key: str | tuple[str, ...] = user_agent
        elif isinstance(user_agent, (bytes, bytearray, memoryview)):
            key = caller_name(bytes(user_agent))
        else:
            key = tuple(caller_name(name) for name in user_agent)
        found = self._by_agent.get(key)
        if found is not None:
            return found
        if isinstance(key, tuple):
            found = self._for_family(key)
        else:
            name = crawler_name(key, self.mode)
            lowered = ascii_lower(name)
            found = self._by_token.get(lowered)
            if found is None:
                found = self._build(name, lowered)
                if len(self._by_token) >= _MAX_NAMES_KEPT:
                    self._by_token.clear()
                self._by_token[lowered] = found
        if len(self._by_agent) >= _MAX_NAMES_KEPT:
            self._by_agent.clear()
        self._by_agent[key] = found
        return found

    def _for_family(self, names: tuple[str, ...]) -> AgentRules:
        """D-22: the rules of the first of ``names`` that selects a group of
        its own, else those of the first name (the global groups)."""
        if not names:
            raise ValueError("a crawler family needs at least one name")
        for name in names:
            if self._specific(ascii_lower(crawler_name(name, self.mode))):
                return self.for_agent(name)
        return self.for_agent(names[0])

    def _specific(self, lowered: str) -> list[int]:
        """The user-agent lines (indexes in :attr:`_Lines.agents`, in file
        order) that name the crawler ``lowered`` (not the ``*`` ones).

        D-21: in rfc mode "*" and "" select the global groups only; in
        google mode "*" never equals a token and "" is compared like any
        other name (UA-7: robots.cc gives it the groups of empty tokens)."""
        if self.mode != "google" and lowered in ("", GLOBAL_NAME):
            return []
        lines, mode = self._lines, self.mode
        wanted = _hashed(lowered)
        candidates: set[int] = set()
        for hashes in (lines.tokens, lines.products):
            at = 0
            while True:
                try:
                    at = hashes.index(wanted, at)
                except ValueError:
                    break
                candidates.add(at)
                at += 1
        found: list[int] = []
        for agent in sorted(candidates):
            # The line read again: a hash only says where to look.
            value = self._agent(agent)
            token = agent_token(value)
            product = agent_product(value) if token is not None and len(token) < len(value) else ""
            if lowered in _bound(token, product, mode):
                found.append(agent)
        return found

    def _build(self, name: str, lowered: str) -> AgentRules:
        lines = self._lines
        named = self._specific(lowered)
        # GRP-5, UA-6: the groups naming the crawler, else the "*" ones.
        agents = named or list(lines.global_agents)
        chosen = tuple(sorted({lines.group_of(agent) for agent in agents}))
        delay = self._delay(agents) if lines.run_agents else None
        # Names that select the same groups share one rule set: its tables
        # are built once however many names ask.
        shared = self._by_groups.get(chosen)
        if shared is not None:
            return shared.renamed(name, delay)
        usage = None
        if lines.usage_lines:
            usage = usage_rules_for(self._usage_lines(chosen), chosen, self.mode)
        rules = self._by_groups[chosen] = AgentRules(
            [rule for group in chosen for rule in self._rules_of(group)],
            token=name,
            agents=_shared(self._agents_of(chosen)),
            delay=delay,
            mode=self.mode,
            usage=usage,
        )
        return rules

    def _delay(self, agents: list[int]) -> CrawlDelay | None:
        """The crawl-delay of a crawler whose groups are those of the
        user-agent lines ``agents`` (in file order; D-17 revised): the first
        one after a run of user-agent lines that holds one of them. Those
        are the lines naming it, if any group names it (as
        :meth:`_specific` selects groups: D-21, D-22), else the ``*`` ones.
        Which groups' rules apply is :meth:`_build`'s (D-18): a delay never
        changes it."""
        lines = self._lines
        for run in range(len(lines.run_agents)):
            first = bisect_left(agents, lines.run_agents[run])
            if first < len(agents) and agents[first] < lines.run_ends[run]:
                return self._run_delay(run)
        return None

    def _run_delay(self, run: int) -> CrawlDelay:
        lines = self._lines
        agents = range(lines.run_agents[run], lines.run_ends[run])
        return CrawlDelay(
            tuple(self._agent(agent) for agent in agents),
            lines.run_delays[run],
            lines.run_lines[run],
        )

    def _value(self, span: int) -> str:
        """The value at ``span`` (:data:`_SPAN_BITS`), read as Latin-1."""
        start = span >> _SPAN_BITS
        return self._text[start : start + (span & _SPAN_LENGTH)]

    def _agent(self, agent: int) -> str:
        """The value of the user-agent line ``agent``, as text."""
        return text_of(self._value(self._lines.agents[agent]))

    def _agents_of(self, groups: Sequence[int]) -> tuple[str, ...]:
        """The user-agent values of ``groups``, in file order."""
        lines = self._lines
        total = len(lines.agents)
        return tuple(
            self._agent(agent)
            for group in groups
            for agent in lines.group_span(group, lines.group_agents, total)
        )

    def _rules_of(self, group: int) -> list[Rule]:
        """The rules of ``group`` in file order, escaped (``google``) or
        made canonical (``rfc``), as the matcher wants them."""
        lines, mode = self._lines, self.mode
        rules: list[Rule] = []
        for index in lines.group_span(group, lines.group_rules, len(lines.rules)):
            packed = lines.rule_lines[index]
            allow, number = bool(packed & 1), packed >> 1
            pattern = escape_latin1(self._value(lines.rules[index]), mode)
            rules.append(Rule(allow, pattern, number))
            if allow:
                # PATH-9, D-11: "index.htm" and "index.html" are
                # normalized to "/" (robots.cc HandleAllow).
                slash = pattern.rfind("/")
                if slash >= 0 and pattern.startswith("/index.htm", slash):
                    rules.append(Rule(True, pattern[: slash + 1] + "$", number, pattern))
        return rules

    def _usage_lines(self, groups: Sequence[int] | None) -> list[RawUsage]:
        """The usage lines (U-1) that stand in ``groups`` or before any
        user-agent line, in file order; every one for ``None``."""
        lines = self._lines
        picked = None if groups is None else set(groups)
        found: list[RawUsage] = []
        for index in range(len(lines.usage_lines)):
            group = lines.usage_groups[index]
            if picked is None or group < 0 or group in picked:
                packed = lines.usage_lines[index]
                value = self._value(lines.usage_spans[index]).encode("latin-1")
                found.append((None if group < 0 else group, bool(packed & 1), value, packed >> 1))
        return found

    def allowed(self, url: str | bytes, user_agent: Name) -> bool:
        """Whether ``user_agent`` may fetch ``url``.

        ``user_agent`` is the crawler's name (its product token, RFC 9309
        §2.2.1; D-21), or its family's names, most specific first (D-22);
        see :meth:`for_agent`.
        """
        rules = self._by_agent.get(user_agent) if isinstance(user_agent, (str, tuple)) else None
        if rules is None:
            rules = self.for_agent(user_agent)
        rule = rules.url_rule(url)
        return rule is None or rule.allow

    def explain(self, url: str | bytes, user_agent: Name) -> Explanation:
        """The verdict for ``url`` with the rule that decides it, its line
        and the agents of the group it comes from."""
        rules = self.for_agent(user_agent)
        text = url if isinstance(url, str) else bytes(url).decode("latin-1")
        path = canonical_match_string(url, self.mode)
        rule, reason = rules.explain(path)
        return Explanation(
            allowed=rule is None or rule.allow,
            url=text,
            user_agent=rules.token,
            match_string=path,
            rule=rule,
            agents=rules.agents,
            reason=reason,
        )

    def usage(self, url: str | bytes, user_agent: Name) -> Preferences:
        """The usage preferences robots.txt states for ``url`` and the
        crawler named ``user_agent`` (U-1..U-5; none for a URL
        it disallows); :func:`.robotstxt._usage.robots_preferences` says how."""
        if not self._lines.usage_lines:
            return NO_PREFERENCES  # no usage line: nothing to look up
        rules = self.for_agent(user_agent)
        return robots_preferences(rules, canonical_match_string(url, self.mode))

    @property
    def usage_rules(self) -> tuple[tuple[int | None, UsageRule], ...]:
        """Every content-usage and content-signal line in file order, with
        the index in :attr:`groups` of the group it stands in, or ``None``
        before the first user-agent line (U-1)."""
        if not self._lines.usage_lines:
            return ()
        return usage_lines(self._usage_lines(None), self.mode)

    def crawl_delay(self, user_agent: Name) -> float | None:
        """The ``crawl-delay`` that applies to ``user_agent``, in seconds,
        or ``None`` (OTHER-2, D-17): a crawl-delay line belongs to the run
        of user-agent lines directly above it, and a crawler's is the first
        after a run that names it, else the first after a run of ``*``.

        >>> robots = RobotsTxt.parse(
        ...     "User-agent: bingbot\\nCrawl-delay: 1\\n\\n"
        ...     "User-agent: msnbot\\nCrawl-delay: 2\\n\\n"
        ...     "User-agent: *\\nDisallow: /login\\n"
        ... )
        >>> robots.crawl_delay("bingbot"), robots.crawl_delay("msnbot"), robots.crawl_delay("other")
        (1.0, 2.0, None)

        Google ignores it; it never changes grouping or verdicts (D-18):
        all three crawlers above share ``Disallow: /login``.
        :attr:`.AgentRules.delay` says which line gave it."""
        return self.for_agent(user_agent).crawl_delay

    def __repr__(self) -> str:
        return (
            f"<RobotsTxt mode={self.mode!r} groups={len(self._lines.group_agents)}"
            f" sitemaps={len(self.sitemaps)}>"
        )


#: The user-agent lists of the rule sets built so far, each kept once: most
#: cached origins' rules are for ``("*",)``, which then costs nothing each.
_AGENT_LISTS: dict[tuple[str, ...], tuple[str, ...]] = {}
_AGENT_LISTS_MAX = 256


def _shared(agents: tuple[str, ...]) -> tuple[str, ...]:
    """``agents``, or an equal tuple kept from an earlier rule set."""
    found = _AGENT_LISTS.get(agents)
    if found is None:
        if len(_AGENT_LISTS) >= _AGENT_LISTS_MAX:
            _AGENT_LISTS.clear()
        found = _AGENT_LISTS[agents] = agents
    return found


def cut_at_limit(body: bytes, limit: int = MAX_BYTES) -> tuple[bytes, bool]:
    """``body`` cut to ``limit`` bytes, and whether anything was cut.

    Content after the limit is ignored (RFC 9309 §2.5, HTTP-12); a line cut
    by the limit is dropped too, so that ``Disallow: /private`` cut to
    ``Disallow: /pri`` cannot become a broader rule (HTTP-13, D-16).
    """
    if len(body) <= limit:
        return body, False
    # The last line end within the limit, found in place: one copy only.
    end = max(body.rfind(b"\n", 0, limit), body.rfind(b"\r", 0, limit))
    return body[: end + 1], True


def _as_bytes(body: object) -> bytes:
    if isinstance(body, bytes):
        return body
    if isinstance(body, (bytearray, memoryview)):
        return bytes(body)
    if isinstance(body, str):
        try:
            return body.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return body.encode("utf-8", "surrogatepass")
    raise TypeError(f"robots.txt body must be bytes or str, not {type(body).__name__}")


def _past_limit_text(limit: int, cut: int | None) -> str:
    """The ``past-limit`` note (RFC 9309 §2.5; HTTP-12, HTTP-13)."""
    rest = "the rest" if cut is None else f"the rest ({cut:,} bytes)"
    size = f"{limit:,} bytes" + (" (500 KiB)" if limit == MAX_BYTES else "")
    return f"this line and {rest} are past {size} and ignored (RFC 9309 §2.5)"


def _explained(note: _Pending) -> Noted:
    """A pending note in words."""
    if len(note) == 2:
        number, line = note
        return unread_note(number, line.encode("latin-1"))
    number, key, text = note
    if text is None:
        # FMT-12, GRP-7: other records are skipped and never end a group.
        return (
            number,
            "unknown-key",
            f"unsupported key {text_of(key)!r}: the line is ignored (RFC 9309 §2.2.4)",
        )
    return note  # type: ignore[return-value]


def _utf8_notes(lines: list[bytes]) -> list[Noted]:
    """A note for each line with bytes that are not UTF-8 (FMT-2)."""
    notes: list[Noted] = []
    for number, raw in enumerate(lines, 1):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = (
                f"byte {raw[exc.start]:#04x} at column {exc.start + 1} is not UTF-8 (RFC 9309 "
                "§2.3); in a path it is %-escaped byte by byte and matches no UTF-8 URL"
            )
            notes.append((number, "non-utf8", text))
    return notes


def _read_text(body: object, limit: int | None, *, truncated: bool) -> tuple[str, _Past | None]:
    """``body`` cut at ``limit`` (:func:`cut_at_limit`) as the parse reads
    it, and what the ``past-limit`` note says, if anything was cut.

    Read as Latin-1, one character per byte: the text's operations are the
    bytes' (and compile to native ones), and what is kept is turned into
    UTF-8 text or bytes where it is used (text_of, escape_latin1). FMT-4:
    CR, LF and CRLF each end a line, numbered as robots.cc does (what
    bytes.splitlines() gives: str.splitlines() knows other ends); they are
    made LF here. Only the text is left when this returns: each copy of the
    body is let go as soon as the next one is made."""
    data = _as_bytes(body)
    past: _Past | None = (MAX_BYTES if limit is None else limit, None) if truncated else None
    if limit is not None:
        whole = len(data)
        data, cut = cut_at_limit(data, limit)
        if cut:
            # How much was cut is known only when nothing was cut before.
            past = (limit, None if truncated else whole - len(data))
    # FMT-3, D-10: a leading UTF-8 BOM, or a prefix of one, is skipped
    # (decoded from a view of the rest: no copy of the body).
    skip = 0
    if data[:1] == b"\xef":
        skip = 3 if data[:3] == _BOM else 2 if data[:2] == _BOM[:2] else 1
    text = str(memoryview(data)[skip:], "latin-1")
    del data
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        text = text.replace("\r", "\n")
    return text, past


def _from_text(text: str, mode: Mode, past: _Past | None) -> RobotsTxt:
    """The :class:`RobotsTxt` of a text :func:`_read_text` gave."""
    return RobotsTxt(text, _read(text, mode, None), mode=mode, past=past)


def _read(text: str, mode: Mode, notes: list[_Pending] | None) -> _Lines:
    """The lines of ``text`` (:func:`_read_text`), read as robots.cc reads
    them; with ``notes``, a note is added there for each line that is
    skipped, cut or read other than it is written (none is made without)."""
    lines = _Lines(len(text))
    agents, tokens, products = lines.agents, lines.tokens, lines.products
    group_agents, group_rules = lines.group_agents, lines.group_rules
    rules, rule_lines = lines.rules, lines.rule_lines
    sitemaps = lines.sitemaps
    noting = notes is not None
    out: list[_Pending] = [] if notes is None else notes
    in_rules = False  # a rule was seen since the last user-agent line (GRP-1)
    # D-17: the first user-agent line of the run that a crawl-delay line
    # belongs to (-1 before any), whether the last record was one of its
    # lines, and whether a delay followed it already.
    run = -1
    in_run = False
    run_delayed = False
    has_nul = "\0" in text
    number = 0
    size = len(text)
    start = 0  # where the next line starts in text
    while start < size:
        # A block of whole lines (the last may have no line end), split.
        end = text.find("\n", start + _BLOCK)
        end = size if end < 0 else end + 1
        block = text[start:end].split("\n")
        # Other threads get the GIL once per block: the compiled build never
        # runs the interpreter's switch check, so a parse in a thread would
        # hold every other thread up for its whole length (issue 41).
        time.sleep(0)
        if not block[-1]:
            block.pop()  # a last line end ends the last line, it starts none
        for raw in block:
            number += 1
            at = start
            start += len(raw) + 1
            line = raw
            if len(line) > MAX_LINE_BYTES:
                line = line[:MAX_LINE_BYTES]
                if noting:
                    cut = (
                        f"line is {len(raw):,} bytes: only the first {MAX_LINE_BYTES:,} are read, "
                        "the rest is dropped, as Google's parser does"
                    )
                    out.append((number, "line-cut", cut))
            if has_nul:
                # FMT-14: robots.cc handles lines as C strings; a NUL ends the line.
                nul = line.find("\0")
                if nul >= 0:
                    line = line[:nul]
            if "#" in line:  # FMT-6: a comment starts anywhere
                line = line[: line.find("#")]
            head, colon_sep, tail = line.partition(":")
            if head and colon_sep:
                # The usual line, inline: what key_and_value gives for it.
                key = head.strip(SPACES)
                value = tail.strip(SPACES)
                colon = True
                if not key:
                    if noting:
                        out.append((number, line))
                    continue
            else:
                if not line or not line.strip(SPACES):  # str.isspace() knows more
                    continue
                pair = key_and_value(line)
                if pair is None:
                    if noting:
                        out.append((number, line))
                    continue
                key, value, colon = pair
            lowered = key.lower()
            # Nearly every key is spelt right and found with one dict lookup;
            # the others are read by robots.cc's rules, and noted.
            keys = SPELT_RIGHT.get(lowered)
            if keys is None or not colon:
                keys = read_as(lowered)
                if keys is not None and noting:
                    out += key_notes(number, key, lowered, keys, colon)
            # The key is told by its right spelling, compared by value: a tuple's
            # identity is not kept where the module is compiled (mypyc boxes a
            # fixed-length tuple anew at each read).
            name = "" if keys is None else keys[0]
            # Where the value is: it follows the ':' (or the key), and starts
            # with a character that is not a space, so its first place after
            # them is its own.
            span = 0
            if value:
                after = line.find(":") + 1 if colon else line.find(key) + len(key)
                span = (at + line.find(value, after)) << _SPAN_BITS | len(value)
            if name == USER_AGENT:
                if not group_agents or in_rules:
                    group_agents.append(len(agents))
                    group_rules.append(len(rules))
                    in_rules = False
                if run < 0 or not in_run:
                    run = len(agents)
                    in_run = True
                    run_delayed = False
                index = len(agents)
                agents.append(span)
                agent = text_of(value)
                token = agent_token(agent)
                if token is None:
                    lines.global_agents.append(index)
                    tokens.append(0)
                    if mode == "rfc":
                        products.append(0)
                    continue
                product = agent_product(agent) if len(token) < len(agent) else ""
                tokens.append(_hashed(token))
                if mode == "rfc":
                    products.append(_hashed(product) if product else 0)
                if noting:
                    out += _agent_notes(number, value, agent, token, product, mode)
            elif name in (ALLOW, DISALLOW):
                in_run = False
                if not group_agents:
                    # GRP-3, D-20: rules before any user-agent line are ignored.
                    if noting:
                        said = (
                            "rule before any user-agent line: the line is ignored (RFC 9309 §2.2.2)"
                        )
                        out.append((number, "before-user-agent", said))
                    continue
                in_rules = True  # an empty value still ends the block (D-19)
                rules.append(span)  # built on use: RobotsTxt._rules_of
                rule_lines.append(number << 1 | (name == ALLOW))
            elif name == SITEMAP:
                url = text_of(value)
                if _ABSOLUTE_URL.match(url):
                    sitemaps[url] = None
                elif noting:
                    said = "sitemap URL is not absolute: the line is ignored (RFC 9309 §2.2.4)"
                    out.append((number, "bad-sitemap", said))
            elif name == CRAWL_DELAY:
                delay = _CRAWL_DELAY_VALUE.fullmatch(value)
                in_run = False  # D-17: the next user-agent line starts a new run
                if run < 0:
                    if noting:
                        said = "crawl-delay before any user-agent line: the line is ignored"
                        out.append((number, "before-user-agent", said))
                elif delay is None or not math.isfinite(float(delay.group())):
                    # A run of digits past float's range is inf, which no JSON
                    # output can carry: not a number of seconds either.
                    if noting:
                        said = "crawl-delay is not a number of seconds: the line is ignored"
                        out.append((number, "bad-crawl-delay", said))
                elif not run_delayed:
                    # D-17: the first delay after a run is the run's.
                    run_delayed = True
                    lines.run_agents.append(run)
                    lines.run_ends.append(len(agents))
                    lines.run_delays.append(float(delay.group()))
                    lines.run_lines.append(number)
            elif not name:
                in_run = False  # any record but a sitemap ends a run (D-17)
                if noting:
                    out.append((number, key, None))  # unknown-key (FMT-12), see _explained
            else:
                # U-1: content-usage and content-signal are rules of the group
                # they stand in (before any user-agent line: of every group).
                # In rfc mode they end its user-agent list as allow/disallow do
                # (attach-05 §3: "rule =/ content-usage"); google mode groups as
                # Google's parser does, which reads them as unknown keys. Split
                # and parsed only when asked.
                if group_agents and mode == "rfc":
                    in_rules = True
                in_run = False
                lines.usage_groups.append(len(group_agents) - 1)
                lines.usage_lines.append(number << 1 | (name == CONTENT_SIGNAL))
                lines.usage_spans.append(span)
    lines.lines = number
    return lines
