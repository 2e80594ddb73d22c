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
#: read as Latin-1, as :func:`_parse` reads lines).
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
#: Every this many lines the parse lets other threads take the GIL (issue
#: 41): the compiled build never runs the interpreter's switch check, so a
#: huge file parsed in a thread would hold up every other thread (a
#: crawl's reactor among them) until the end. 1,024 lines take a
#: millisecond or two; ``time.sleep(0)`` costs a microsecond when no other
#: thread waits.
_LINES_PER_SWITCH: Final = 1024
#: The text is split into lines this many characters at a time, with a
#: GIL release between (issue 41): one split of 32 MiB holds the GIL for a
#: quarter of a second, in either build.
_SPLIT_CHARS: Final = 1 << 20
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


class _Group:
    """One group: its user-agent lines and the records that follow them
    (RFC 9309 §2.1; GRP-1, GRP-2). :class:`Group` is its read-only view.

    Its rules are escaped and built when a crawler's name first selects the
    group (:meth:`rules_in`): a file names many crawlers, and a crawler
    reads one or two groups."""

    __slots__ = ("agents", "binds", "is_global", "raw", "rules")

    def __init__(self) -> None:
        self.agents: list[str] = []
        #: The callers' names (ASCII lower-cased) this group is for.
        self.binds: set[str] = set()
        self.is_global = False
        #: (allow, value, line) of each allow/disallow line, until built
        #: (the value read as Latin-1, as :func:`_parse` reads lines).
        self.raw: list[tuple[bool, str, int]] = []
        self.rules: list[Rule] | None = None

    def rules_in(self, mode: Mode) -> list[Rule]:
        """The group's rules, in file order (built on first call)."""
        rules = self.rules
        if rules is None:
            rules = self.rules = []
            for allow, value, number in self.raw:
                pattern = escape_latin1(value, mode)
                rules.append(Rule(allow, pattern, number))
                if allow:
                    # PATH-9, D-11: "index.htm" and "index.html" are
                    # normalized to "/" (robots.cc HandleAllow).
                    slash = pattern.rfind("/")
                    if slash >= 0 and pattern.startswith("/index.htm", slash):
                        rules.append(Rule(True, pattern[: slash + 1] + "$", number, pattern))
            self.raw = []
        return rules


class _Run:
    """A run of user-agent lines, one after the other (blank lines and
    comments between them do not count), and the first crawl-delay line
    after them: the delay is theirs (D-17 revised). A group's user-agent
    lines are one run or more: a crawl-delay line or another record between
    them starts a new run, where it never starts a new group (D-18)."""

    __slots__ = ("agents", "binds", "crawl_delay", "is_global", "line")

    def __init__(self) -> None:
        self.agents: list[str] = []
        #: The callers' names (ASCII lower-cased) the run names, as
        #: :attr:`_Group.binds`.
        self.binds: set[str] = set()
        self.is_global = False
        self.crawl_delay: float | None = None
        self.line = 0


class RobotsTxt:
    """A parsed robots.txt file.

    >>> robots = RobotsTxt.parse(b"User-agent: *\\nDisallow: /private\\n")
    >>> robots.allowed("https://example.com/private/x", "ExampleBot")
    False

    Parsing never raises on content; it is linear in the size of what it
    reads, which is at most :data:`MAX_BYTES` (500 KiB, RFC 9309 §2.5)
    unless :meth:`parse` is given another ``max_bytes``.
    """

    __slots__ = (
        *("_by_agent", "_by_groups", "_by_token", "_delays", "_groups", "_notes", "_usage"),
        *("mode", "sitemaps"),
    )

    def __init__(
        self,
        groups: list[_Group],
        *,
        sitemaps: tuple[str, ...],
        notes: tuple[_Pending, ...],
        mode: Mode,
        usage: Sequence[RawUsage] | None = None,
        delays: Sequence[_Run] = (),
    ) -> None:
        self.mode: Mode = mode
        #: ``sitemap`` URLs, absolute, in file order, without duplicates
        #: (RFC 9309 §2.2.4; OTHER-1). They belong to no group.
        self.sitemaps = sitemaps
        self._notes = notes
        self._groups = groups
        #: The runs of user-agent lines that a crawl-delay line follows, in
        #: file order (D-17).
        self._delays = tuple(delays)
        # U-1: the content-usage/content-signal lines, None without any.
        self._usage = None if usage is None else tuple(usage)
        self._by_token: dict[str, AgentRules] = {}
        self._by_agent: dict[str | tuple[str, ...], AgentRules] = {}
        self._by_groups: dict[tuple[int, ...], AgentRules] = {}

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
        data = _as_bytes(body)
        past: _Past | None = (MAX_BYTES if limit is None else limit, None) if truncated else None
        if limit is not None:
            whole = len(data)
            data, cut = cut_at_limit(data, limit)
            if cut:
                # How much was cut is known only when nothing was cut before.
                past = (limit, None if truncated else whole - len(data))
        return _parse(data, checked, past)

    @property
    def notes(self) -> tuple[Note, ...]:
        """A :class:`Note` for each line that was skipped, cut or read other
        than it is written, in line order (a new tuple at each call)."""
        notes = [_explained(note) for note in self._notes]
        return tuple(Note(*note) for note in sorted(notes, key=itemgetter(0)))

    @property
    def groups(self) -> tuple[Group, ...]:
        """The groups in file order, as written (a new view at each call)."""
        return tuple(Group(tuple(g.agents), tuple(g.rules_in(self.mode))) for g in self._groups)

    @property
    def crawl_delays(self) -> tuple[CrawlDelay, ...]:
        """Each ``crawl-delay`` line that counts, with the user-agent lines
        it belongs to (the run directly above it, D-17), in file order; a
        second one after the same run, and one before any user-agent
        line, do not count."""
        return tuple(
            CrawlDelay(tuple(r.agents), r.crawl_delay or 0.0, r.line) for r in self._delays
        )

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

    def _specific(self, lowered: str) -> list[_Group]:
        """The groups that name the crawler ``lowered`` (not the ``*`` ones).

        D-21: in rfc mode "*" and "" select the global groups only; in
        google mode "*" never equals a token and "" is compared like any
        other name (UA-7: robots.cc gives it the groups of empty tokens)."""
        if self.mode == "google" or lowered not in ("", GLOBAL_NAME):
            return [g for g in self._groups if lowered in g.binds]
        return []

    def _build(self, name: str, lowered: str) -> AgentRules:
        chosen = self._specific(lowered)
        delay = self._delay(lowered, named=bool(chosen)) if self._delays else None
        if not chosen:
            chosen = [g for g in self._groups if g.is_global]
        # Names that select the same groups share one rule set: its tables
        # are built once however many names ask.
        key = tuple(id(group) for group in chosen)
        shared = self._by_groups.get(key)
        if shared is not None:
            return shared.renamed(name, delay)
        agents = tuple(agent for group in chosen for agent in group.agents)
        rules = self._by_groups[key] = AgentRules(
            [rule for group in chosen for rule in group.rules_in(self.mode)],
            token=name,
            agents=_shared(agents),
            delay=delay,
            mode=self.mode,
            usage=None if self._usage is None else usage_rules_for(self._usage, chosen, self.mode),
        )
        return rules

    def _delay(self, lowered: str, *, named: bool) -> CrawlDelay | None:
        """The crawl-delay of the crawler ``lowered`` (D-17 revised): the
        first one after a run of user-agent lines that names it, if any
        group names it (``named``, as :meth:`_specific` selects groups:
        D-21, D-22); else the first one after a run of ``*``. Which groups'
        rules apply is :meth:`_build`'s (D-18): a delay never changes it."""
        for run in self._delays:
            if (lowered in run.binds) if named else run.is_global:
                return CrawlDelay(tuple(run.agents), run.crawl_delay or 0.0, run.line)
        return None

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
        if self._usage is None:
            return NO_PREFERENCES  # no usage line: nothing to look up
        rules = self.for_agent(user_agent)
        return robots_preferences(rules, canonical_match_string(url, self.mode))

    @property
    def usage_rules(self) -> tuple[tuple[int | None, UsageRule], ...]:
        """Every content-usage and content-signal line in file order, with
        the index in :attr:`groups` of the group it stands in, or ``None``
        before the first user-agent line (U-1)."""
        if self._usage is None:
            return ()
        return usage_lines(self._usage, self._groups, self.mode)

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
            f"<RobotsTxt mode={self.mode!r} groups={len(self._groups)}"
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


def _split_lines(text: str) -> list[str]:
    """``text.split("\\n")``, split :data:`_SPLIT_CHARS` characters or so
    at a time, with a GIL release between."""
    if len(text) <= _SPLIT_CHARS:
        return text.split("\n")
    lines: list[str] = []
    start = 0
    while True:
        end = text.find("\n", start + _SPLIT_CHARS)
        if end < 0:
            lines += text[start:].split("\n")
            return lines
        lines += text[start:end].split("\n")
        start = end + 1
        time.sleep(0)  # releases the GIL: see _LINES_PER_SWITCH


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


def _parse(data: bytes, mode: Mode, past: _Past | None) -> RobotsTxt:
    # FMT-3, D-10: a leading UTF-8 BOM, or a prefix of one, is skipped.
    if data[:1] == b"\xef":
        data = data[3:] if data[:3] == _BOM else data[2:] if data[:2] == _BOM[:2] else data[1:]
    groups: list[_Group] = []
    group: _Group | None = None
    in_rules = False  # a rule was seen since the last user-agent line (GRP-1)
    # D-17: the run of user-agent lines that a crawl-delay line belongs to,
    # whether the last record was one of its lines, and the runs with a delay.
    run: _Run | None = None
    in_run = False
    delays: list[_Run] = []
    sitemaps: dict[str, None] = {}
    notes: list[_Pending] = []
    usage: list[RawUsage] | None = None
    # Read as Latin-1, one character per byte: the text's operations are
    # the bytes' (and compile to native ones), and what is kept is turned
    # into UTF-8 text or bytes where it is kept (text_of, escape_latin1).
    # FMT-4: CR, LF and CRLF each end a line, numbered as robots.cc does
    # (what bytes.splitlines() gives: str.splitlines() knows other ends).
    text = data.decode("latin-1")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = _split_lines(text)
    if not lines[-1]:
        lines.pop()  # a last line end ends the last line, it starts none
    has_nul = "\0" in text
    for number, raw in enumerate(lines, 1):
        if not number % _LINES_PER_SWITCH:
            time.sleep(0)  # releases the GIL: see _LINES_PER_SWITCH
        line = raw
        if len(line) > MAX_LINE_BYTES:
            line = line[:MAX_LINE_BYTES]
            text = (
                f"line is {len(raw):,} bytes: only the first {MAX_LINE_BYTES:,} are read, "
                "the rest is dropped, as Google's parser does"
            )
            notes.append((number, "line-cut", text))
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
                notes.append((number, line))
                continue
        else:
            if not line or not line.strip(SPACES):  # str.isspace() knows more
                continue
            pair = key_and_value(line)
            if pair is None:
                notes.append((number, line))
                continue
            key, value, colon = pair
        lowered = key.lower()
        # Nearly every key is spelt right and found with one dict lookup;
        # the others are read by robots.cc's rules, and noted.
        keys = SPELT_RIGHT.get(lowered)
        if keys is None or not colon:
            keys = read_as(lowered)
            if keys is not None:
                notes += key_notes(number, key, lowered, keys, colon)
        # The key is told by its right spelling, compared by value: a tuple's
        # identity is not kept where the module is compiled (mypyc boxes a
        # fixed-length tuple anew at each read).
        name = "" if keys is None else keys[0]
        if name == USER_AGENT:
            if group is None or in_rules:
                group = _Group()
                groups.append(group)
                in_rules = False
            # UA-3, UA-5, D-7, D-8, D-21: both modes bind the line's token, its
            # leading [A-Za-z_-] run; an empty one names nobody, except to an
            # empty caller's name in google mode, as robots.cc compares them.
            # rfc mode also binds the whole product name (MJ12bot, where the
            # token alone is "mj"), which only a value longer than its token
            # can have. Both modes note a product name longer than its token
            # (partial-token): "my.crawler" is for "my".
            if run is None or not in_run:
                run = _Run()
                in_run = True
            agent = text_of(value)
            group.agents.append(agent)
            run.agents.append(agent)
            token = agent_token(agent)
            if token is None:
                group.is_global = run.is_global = True
            elif mode == "google":
                group.binds.add(token)
                run.binds.add(token)
                if not token:
                    notes.append(no_token_note(number, value, ""))
                elif len(token) < len(agent):
                    product = agent_product(agent)
                    if product != token:
                        notes.append(partial_token_note(number, agent, token, product))
            else:
                product = ""
                if len(token) < len(agent):
                    product = agent_product(agent)
                    if product:
                        group.binds.add(product)
                        run.binds.add(product)
                        if token and product != token:
                            notes.append(partial_token_note(number, agent, token, product))
                if token:
                    group.binds.add(token)
                    run.binds.add(token)
                else:
                    notes.append(no_token_note(number, value, product))
        elif name in (ALLOW, DISALLOW):
            allow = name == ALLOW
            in_run = False
            if group is None:
                # GRP-3, D-20: rules before any user-agent line are ignored.
                text = "rule before any user-agent line: the line is ignored (RFC 9309 §2.2.2)"
                notes.append((number, "before-user-agent", text))
                continue
            in_rules = True  # an empty value still ends the block (D-19)
            group.raw.append((allow, value, number))  # built on use: _Group.rules_in
        elif name == SITEMAP:
            url = text_of(value)
            if _ABSOLUTE_URL.match(url):
                sitemaps[url] = None
            else:
                text = "sitemap URL is not absolute: the line is ignored (RFC 9309 §2.2.4)"
                notes.append((number, "bad-sitemap", text))
        elif name == CRAWL_DELAY:
            delay = _CRAWL_DELAY_VALUE.fullmatch(value)
            in_run = False  # D-17: the next user-agent line starts a new run
            if run is None:
                text = "crawl-delay before any user-agent line: the line is ignored"
                notes.append((number, "before-user-agent", text))
            elif delay is None or not math.isfinite(float(delay.group())):
                # A run of digits past float's range is inf, which no JSON
                # output can carry: not a number of seconds either.
                text = "crawl-delay is not a number of seconds: the line is ignored"
                notes.append((number, "bad-crawl-delay", text))
            elif run.crawl_delay is None:
                # D-17: the first delay after a run is the run's.
                run.crawl_delay = float(delay.group())
                run.line = number
                delays.append(run)
        elif not name:
            in_run = False  # any record but a sitemap ends a run (D-17)
            notes.append((number, key, None))  # unknown-key (FMT-12), see _explained
        else:
            # U-1: content-usage and content-signal are rules of the group they
            # stand in (before any user-agent line: of every group). In rfc
            # mode they end its user-agent list as allow/disallow do
            # (attach-05 §3: "rule =/ content-usage"); google mode groups as
            # Google's parser does, which reads them as unknown keys. Split
            # and parsed only when asked.
            if group is not None and mode == "rfc":
                in_rules = True
            in_run = False
            if usage is None:
                usage = []
            usage.append((group, name == CONTENT_SIGNAL, value.encode("latin-1"), number))
    # FMT-1, FMT-2: one check of the whole body; only a body that fails it
    # is looked at line by line (a line is UTF-8 if and only if the body
    # is: CR and LF never split a UTF-8 sequence).
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            notes += _utf8_notes([line.encode("latin-1") for line in lines])
    if past is not None:
        notes.append((len(lines) + 1, "past-limit", _past_limit_text(*past)))
    return RobotsTxt(
        groups, sitemaps=tuple(sitemaps), notes=tuple(notes), mode=mode, usage=usage, delays=delays
    )
