"""Usage preferences: ``Content-Usage`` and ``Content-Signal`` in robots.txt
and the ``Content-Usage`` response header (U-1..U-6).

Pure Python, no Scrapy import. The sources:

* draft-ietf-aipref-attach-05: a ``Content-Usage`` rule in robots.txt groups
  (§3) and a ``Content-Usage`` header field (§2). Its ABNF (§3)::

      rule =/ content-usage
      content-usage = *WS "content-usage" *WS ":" *WS
                      [ path-pattern 1*WS ] usage-pref EOL
      usage-pref    = <usage preference vocabulary from [VOCAB]>

* draft-ietf-aipref-vocab-08: the categories ``train-ai`` (AI Training:
  modifying a generative AI model's learned parameters, §4.1), ``ai-use``
  (AI Use: an asset as input to a generative AI model when the user did not
  provide it, training excluded, §4.2) and ``search`` (§4.3), their labels
  (§6.1), the values ``y`` and ``n`` (§6.2), an RFC 9651 Dictionary parsed
  as §6.5 says, and the combination of §5.1.
* Cloudflare's ``Content-Signal`` line (``search=yes, ai-train=no,
  ai-input=no``), which has no ABNF: read with the same line shape and the
  same model, ``ai-input`` as ``ai-use`` (U-3).

What a statement says, per category, is one of ``allow``, ``disallow`` or
``unknown``. Statements combine per U-4 (vocab-08 §5.1): any ``n`` gives
disallow, else any ``y`` gives allow, else unknown. Each category keeps its
own value: none is derived from another (U-7). vocab-08 §4.3 says a
``search`` preference covers a use that is search even when it is also
training or AI use; that decides which category a crawl asks about (the
crawl names its purposes, ``ROBOTSTXT_RFC_USAGE``), never a value.

>>> from scrapy_robots_rfc import RobotsTxt
>>> robots = RobotsTxt.parse(b"User-agent: *\\nContent-Usage: train-ai=n\\n")
>>> print(robots.usage("https://example.com/page", "ExampleBot"))
train-ai=n (content-usage line 2)

``http_sf`` (the RFC 9651 parser) is imported on the first statement parsed:
a robots.txt without usage lines never loads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple, Protocol

from ._canonical import Mode, escape_pattern
from ._directives import as_text
from ._patterns import pattern_matches

#: The usage categories, in the order they are shown: vocab-08's three
#: (§4, §6.1 Table 1).
CATEGORIES: Final[tuple[str, ...]] = ("train-ai", "ai-use", "search")
Value = Literal["allow", "disallow", "unknown"]
ALLOW: Final = "allow"
DISALLOW: Final = "disallow"
UNKNOWN: Final = "unknown"
#: The two robots.txt lines; the header is read as ``content-usage``.
Kind = Literal["content-usage", "content-signal"]
#: The ``Request.meta`` key that holds a request's :class:`Preferences` (U-6).
USAGE_META_KEY: Final = "robotstxt_usage"

#: A line's labels -> categories, per kind (U-3). Content-Usage and the
#: header read vocab-08's labels only (§6.1: "These tokens are case
#: sensitive"); Content-Signal's are Cloudflare's, ``ai-input`` being
#: vocab-08's AI Use (§4.2).
LABELS: Final[dict[str, dict[str, str]]] = {
    "content-usage": {"train-ai": "train-ai", "ai-use": "ai-use", "search": "search"},
    "content-signal": {"ai-train": "train-ai", "ai-input": "ai-use", "search": "search"},
}
#: The Tokens that allow and disallow, per kind (vocab-08 §6.2; U-3).
TOKENS: Final[dict[str, tuple[str, str]]] = {
    "content-usage": ("y", "n"),
    "content-signal": ("yes", "no"),
}

#: A usage line as the parser gives it, nothing split or parsed: (the index
#: of its group, or ``None`` before the first user-agent line; whether it
#: is a content-signal line; the value; the line number).
RawUsage = tuple[int | None, bool, bytes, int]

#: Statements parsed so far, by (bytes, kind), and the preferences of the
#: rules that matched (or of a header's value): a crawl meets few distinct
#: ones, and each is immutable. Cleared when full, as the middleware's
#: caches are.
_MEMO_SIZE = 1024
_memo: dict[tuple[bytes, str], Statement] = {}
_found: dict[object, Preferences] = {}


class UsageRule(NamedTuple):
    """One ``content-usage`` or ``content-signal`` line as it is matched.

    ``pattern`` is the path as :func:`.robotstxt._canonical.escape_pattern` gives it
    for the mode (the same form and octet length as an allow/disallow
    rule, draft-ietf-aipref-attach-05 §3.1), ``"/"`` for a line without a
    path (U-2). ``statement`` is the rest of the value, as written
    (attach-05 §3.2: "a sequence of bytes").
    """

    kind: Kind
    pattern: str
    statement: bytes
    line: int

    def __str__(self) -> str:
        """``content-usage: /ai-ok/ train-ai=y (line 5)``; a pattern of
        ``/`` (every path, U-2) is not shown."""
        parts = [] if self.pattern == "/" else [self.pattern]
        if self.statement:
            parts.append(as_text(self.statement))
        return f"{self.kind}: {' '.join(parts)} (line {self.line})"


#: Where a statement comes from: a robots.txt line of either kind, the
#: ``Content-Usage`` header (``"header"``), the ``Content-Signal`` header
#: (``"signal-header"``), or a page-level rule (``"page"``: a robots meta tag
#: or ``X-Robots-Tag`` that says ``noai``, U-8).
SourceKind = Literal["content-usage", "content-signal", "header", "signal-header", "page"]
#: How each kind of source without a line is shown.
_SHOWN: Final[dict[str, str]] = {
    "header": "Content-Usage header",
    "signal-header": "Content-Signal header",
}


class Source(NamedTuple):
    """Where a statement comes from: a robots.txt line (``line``), a
    response header (``kind`` ``"header"`` for ``Content-Usage``,
    ``"signal-header"`` for ``Content-Signal``; ``line`` ``None``) or a
    page-level rule (``"page"``, ``line`` ``None``, U-8). ``text`` is the
    statement as written (for ``"page"``: what said it, e.g.
    ``X-Robots-Tag: noai``)."""

    kind: SourceKind
    line: int | None
    text: str

    def __str__(self) -> str:
        """``content-usage line 4``, ``content-signal line 62``,
        ``Content-Usage header``, ``Content-Signal header``, or a page
        rule's ``text``."""
        if self.line is None:
            return self.text if self.kind == "page" else _SHOWN[self.kind]
        return f"{self.kind} line {self.line}"


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement of preference, parsed (draft-ietf-aipref-vocab-08 §6.5).

    ``values``: ``(category, allow)`` for each category it states, in
    :data:`CATEGORIES` order. ``error``: why the value is not an RFC 9651
    Dictionary, else ``None``; then ``values`` is empty (every category is
    unknown, vocab-08 §6.5.1). ``ignored``: ``(key, why, member)`` for each
    member that states nothing, ``why`` being ``"category"`` (not a label
    of the line's kind, vocab-08 §6.4), ``"value"`` (not one of the line's
    two Tokens) or ``"duplicate"`` (an earlier member of the same key: the
    last counts, RFC 9651 §3.2), ``member`` as :mod:`http_sf` serialises
    it. ``members``: the Dictionary's members; ``0`` without an error is
    an empty statement.
    """

    values: tuple[tuple[str, bool], ...] = ()
    error: str | None = None
    ignored: tuple[tuple[str, str, str], ...] = ()
    members: int = 0

    def __reduce__(self) -> tuple[type[Statement], tuple[Any, ...]]:
        # Rebuilt from its fields: unpickling a frozen class compiled by
        # mypyc cannot set them one by one (robotstxt/_build.py).
        return Statement, (self.values, self.error, self.ignored, self.members)


def parse_statement(raw: bytes, kind: Kind) -> Statement:
    """``raw`` parsed as a statement of ``kind`` (vocab-08 §6.5; U-3).

    >>> parse_statement(b"train-ai=y, search=n", "content-usage").values
    (('train-ai', True), ('search', False))
    >>> parse_statement(b"Train-AI=n", "content-usage").error
    'Key cannot begin with an uppercase character at position 0'

    Never raises; memoised on ``(raw, kind)``.
    """
    key = (raw, kind)
    found = _memo.get(key)
    if found is None:
        found = _parse_statement(raw, kind)
        if len(_memo) >= _MEMO_SIZE:
            _memo.clear()
        _memo[key] = found
    return found


def _parse_statement(raw: bytes, kind: Kind) -> Statement:
    import http_sf  # only when a usage line or header is met

    duplicates: list[str] = []

    def duplicate(name: str, context: str) -> None:
        if context == "dictionary":
            duplicates.append(name)

    parsed: dict[str, Any]
    try:
        parsed = http_sf.parse(raw, tltype="dictionary", on_duplicate_key=duplicate)  # type: ignore[assignment]
        if not isinstance(parsed, dict):
            raise TypeError(f"not a Dictionary: {type(parsed).__name__}")
    except Exception as exc:
        # A third-party parser of untrusted bytes: any failure leaves every
        # category unknown (vocab-08 §6.5.1), never an exception.
        return Statement(error=str(exc) or type(exc).__name__)
    labels = LABELS[kind]
    allow, disallow = TOKENS[kind]
    stated: dict[str, bool] = {}
    ignored = [(name, "duplicate", name) for name in dict.fromkeys(duplicates)]
    for name, member in parsed.items():
        category = labels.get(name)
        value = member[0]
        # A Token first: the String "n" also compares equal to "n".
        if category is not None and isinstance(value, http_sf.Token) and value in (allow, disallow):
            stated[category] = value == allow  # parameters are ignored (§6.5)
        else:
            why = "category" if category is None else "value"
            ignored.append((name, why, _written(http_sf, name, member)))
    values = tuple((c, stated[c]) for c in CATEGORIES if c in stated)
    return Statement(values=values, ignored=tuple(ignored), members=len(parsed))


def _written(http_sf: Any, name: str, member: object) -> str:
    """A Dictionary member as RFC 9651 serialises it: ``train-ai=yes``."""
    try:
        return str(http_sf.ser({name: member}))
    except Exception:
        return name


@dataclass(frozen=True, slots=True)
class Preference:
    """One category's value and the statements that decided it: the
    ``n`` ones for disallow, else the ``y`` ones (U-4)."""

    value: Value = UNKNOWN
    sources: tuple[Source, ...] = ()

    def __reduce__(self) -> tuple[type[Preference], tuple[Any, ...]]:
        # The request meta value survives JOBDIR in both builds (Statement).
        return Preference, (self.value, self.sources)


_UNKNOWN_PREFERENCE = Preference()


def _check(category: str) -> None:
    if category not in CATEGORIES:
        raise ValueError(f"{category!r} is not a usage category: {', '.join(CATEGORIES)}")


@dataclass(frozen=True, slots=True)
class Preferences:
    """What robots.txt and the ``Content-Usage`` header say about a URL's
    use, per category of :data:`CATEGORIES` (immutable, picklable).

    ``stated``: ``(category, Preference)`` for each category that is not
    unknown, in :data:`CATEGORIES` order. Compare with ``==``, never
    ``is``: a pickled copy of :data:`NO_PREFERENCES` equals it.

    >>> prefs = header_preferences([b"train-ai=n"])
    >>> prefs["train-ai"], prefs["search"], str(prefs)
    ('disallow', 'unknown', 'train-ai=n (Content-Usage header)')
    """

    stated: tuple[tuple[str, Preference], ...] = ()

    def __reduce__(self) -> tuple[type[Preferences], tuple[Any, ...]]:
        # The request meta value survives JOBDIR in both builds (Statement).
        return Preferences, (self.stated,)

    @classmethod
    def of(cls, statements: Iterable[tuple[Source, Statement]]) -> Preferences:
        """The statements combined (U-4, vocab-08 §5.1): per category, any
        ``n`` gives disallow, else any ``y`` gives allow, else unknown."""
        said: dict[str, tuple[list[Source], list[Source]]] = {}
        for source, statement in statements:
            for category, allow in statement.values:
                sources = said.setdefault(category, ([], []))[allow]
                if source not in sources:
                    sources.append(source)
        stated = []
        for category in CATEGORIES:
            if category in said:
                noes, yeses = said[category]
                value: Value = DISALLOW if noes else ALLOW
                stated.append((category, Preference(value, tuple(noes or yeses))))
        return cls(tuple(stated))

    def preference(self, category: str) -> Preference:
        """``category``'s :class:`Preference`; ``ValueError`` for a name
        not in :data:`CATEGORIES`."""
        for name, preference in self.stated:
            if name == category:
                return preference
        _check(category)
        return _UNKNOWN_PREFERENCE

    def __getitem__(self, category: str) -> Value:
        """``"allow"``, ``"disallow"`` or ``"unknown"``."""
        return self.preference(category).value

    def disallowed(self, categories: Iterable[str] = CATEGORIES) -> tuple[str, ...]:
        """Those of ``categories`` that are disallowed, in their order."""
        if not self.stated:
            return ()
        return tuple(c for c in categories if self.preference(c).value == DISALLOW)

    def unknown(self, categories: Iterable[str] = CATEGORIES) -> tuple[str, ...]:
        """Those of ``categories`` that are unknown, in their order."""
        return tuple(c for c in categories if self.preference(c).value == UNKNOWN)

    def stating(self, source: Source, values: Iterable[tuple[str, bool]]) -> Preferences:
        """These preferences and one more statement combined (U-4):
        ``values`` are ``(category, allow)`` pairs said by ``source``. For
        a page-level ``noai`` (U-8)::

            preferences.stating(
                Source("page", None, "X-Robots-Tag: noai"),
                [("train-ai", False), ("ai-use", False)],
            )

        ``ValueError`` for a category not in :data:`CATEGORIES`.

        >>> str(NO_PREFERENCES.stating(Source("page", None, "noai"), [("ai-use", False)]))
        'ai-use=n (noai)'
        """
        said = dict(values)
        for category in said:
            _check(category)
        statement = Statement(values=tuple((c, said[c]) for c in CATEGORIES if c in said))
        return self.combined(Preferences.of(((source, statement),)))

    def combined(self, *others: Preferences) -> Preferences:
        """This and ``others`` combined per category (U-4): any disallow
        gives disallow, else any allow gives allow; the sources of the
        deciding value are merged, in order."""
        parts = [p for p in (self, *others) if p.stated]
        if len(parts) <= 1:
            return parts[0] if parts else self
        stated = []
        for category in CATEGORIES:
            preferences = [p.preference(category) for p in parts]
            for value in (DISALLOW, ALLOW):
                sources = [s for p in preferences if p.value == value for s in p.sources]
                if sources:
                    stated.append((category, Preference(value, tuple(dict.fromkeys(sources)))))
                    break
        return Preferences(tuple(stated))

    def describe(self, categories: Iterable[str] = CATEGORIES) -> str:
        """``categories`` that are stated, as ``cat=y`` or ``cat=n``, then
        the distinct sources in parentheses; ``none stated`` if none is.

        >>> Preferences().describe()
        'none stated'
        """
        shown: list[str] = []
        sources: dict[str, None] = {}
        for category in categories:
            preference = self.preference(category)
            if preference.value != UNKNOWN:
                shown.append(f"{category}={'y' if preference.value == ALLOW else 'n'}")
                sources.update(dict.fromkeys(map(str, preference.sources)))
        if not shown:
            return "none stated"
        return f"{', '.join(shown)} ({', '.join(sources)})"

    def __str__(self) -> str:
        return self.describe(CATEGORIES)

    def __bool__(self) -> bool:
        """Whether any category is stated."""
        return bool(self.stated)

    def as_dict(self) -> dict[str, Any]:
        """Every category: its value and sources, for JSON."""
        return {
            category: {
                "value": preference.value,
                "sources": [
                    {"kind": s.kind, "line": s.line, "text": s.text} for s in preference.sources
                ],
            }
            for category in CATEGORIES
            for preference in (self.preference(category),)
        }


#: No preference at all: a disallowed path (U-5), a file without usage
#: lines, no header.
NO_PREFERENCES: Final = Preferences()

#: What :attr:`.AgentRules.usage` holds: rule sets, each in longest-first
#: order, each matched on its own (U-2) and their results combined (U-4):
#: the crawler's groups' rules and the rules before any user-agent line
#: (U-1).
UsageRuleSets = tuple[tuple[UsageRule, ...], ...]


def split_value(value: bytes) -> tuple[bytes, bytes]:
    """A usage line's value -> ``(path, statement)`` (attach-05 §3.2): a
    value starting with ``/`` has a path, which ends before the first SP
    or HTAB; anything else is all statement.

    >>> split_value(b"/ai-ok/ train-ai=y"), split_value(b"train-ai=n")
    ((b'/ai-ok/', b'train-ai=y'), (b'', b'train-ai=n'))
    """
    if value[:1] != b"/":
        return b"", value
    ends = [i for i in (value.find(b" "), value.find(b"\t")) if i >= 0]
    if not ends:
        return value, b""
    end = min(ends)
    return value[:end], value[end:].lstrip(b" \t")


def _rule(raw: RawUsage, mode: Mode) -> UsageRule:
    _, signal, value, line = raw
    path, statement = split_value(value)
    pattern = escape_pattern(path, mode) if path else "/"  # U-2: no path is "/"
    return UsageRule("content-signal" if signal else "content-usage", pattern, statement, line)


def _longest_first(rules: Iterable[UsageRule]) -> tuple[UsageRule, ...]:
    return tuple(sorted(rules, key=lambda rule: (-len(rule.pattern), rule.line)))


def usage_rules_for(
    lines: Sequence[RawUsage], chosen: Sequence[int], mode: Mode
) -> UsageRuleSets | None:
    """The rule sets for a crawler the groups ``chosen`` (their indexes)
    apply to (U-1): those groups' lines, merged as their rules are (RFC 9309
    §2.2.1), and the lines before the first user-agent line, which apply to
    every crawler; ``None`` when neither has a line."""
    picked = set(chosen)
    own = [_rule(raw, mode) for raw in lines if raw[0] is not None and raw[0] in picked]
    preamble = [_rule(raw, mode) for raw in lines if raw[0] is None]
    sets = tuple(_longest_first(rules) for rules in (own, preamble) if rules)
    return sets or None


def usage_lines(lines: Sequence[RawUsage], mode: Mode) -> tuple[tuple[int | None, UsageRule], ...]:
    """Every usage line in file order, with the index of the group it
    stands in, or ``None`` before the first user-agent line."""
    return tuple((raw[0], _rule(raw, mode)) for raw in lines)


def _longest_matches(rules: tuple[UsageRule, ...], path: str) -> list[UsageRule]:
    """The rules of the longest pattern that matches ``path``: all of them,
    combined per U-4, which generalises attach-05 §3.1's "identical paths"
    to ties such as ``/a*`` and ``/ab`` (U-2)."""
    best, found = -1, []
    for rule in rules:
        if len(rule.pattern) < best:
            break
        if pattern_matches(rule.pattern, path):
            best = len(rule.pattern)
            found.append(rule)
    return found


class RulesForAgent(Protocol):
    """What :func:`robots_preferences` reads of an :class:`.AgentRules`:
    its usage rule sets and its allow/disallow verdict. A protocol, so that
    this module does not import the matcher that imports it."""

    @property
    def usage(self) -> UsageRuleSets | None: ...

    def allowed_path(self, path: str) -> bool: ...


def robots_preferences(
    agent: RulesForAgent, path: str, *, allowed: bool | None = None
) -> Preferences:
    """What robots.txt says about the use of the match string ``path`` for
    the crawler ``agent`` is for.

    A path robots.txt disallows has none (U-5, attach-05 §3.1);
    ``allowed`` is its verdict when the caller has it already. Otherwise
    the longest match among the groups' rules and the longest match among
    the rules before any user-agent line are combined (U-1, U-2, U-4): a
    group's ``/ok/ train-ai=y`` does not undo a whole-site ``train-ai=n``.
    """
    sets = agent.usage
    if sets is None:
        return NO_PREFERENCES
    if not (agent.allowed_path(path) if allowed is None else allowed):
        return NO_PREFERENCES
    chosen = tuple(r for rules in sets for r in _longest_matches(rules, path))
    if not chosen:
        return NO_PREFERENCES
    found = _found.get(chosen)
    if found is None:
        found = Preferences.of(
            (
                Source(rule.kind, rule.line, as_text(rule.statement)),
                parse_statement(rule.statement, rule.kind),
            )
            for rule in sorted(chosen, key=_line)
        )
        _remember(chosen, found)
    return found


def _line(rule: UsageRule) -> int:
    return rule.line


def _remember(key: object, found: Preferences) -> None:
    if len(_found) >= _MEMO_SIZE:
        _found.clear()
    _found[key] = found


#: The response headers that state usage preferences, and how each is read
#: (U-3): ``Content-Usage`` (attach-05 §2) with vocab-08's labels,
#: ``Content-Signal`` with Cloudflare's, as its robots.txt line is.
HEADERS: Final[dict[str, Kind]] = {
    "Content-Usage": "content-usage",
    "Content-Signal": "content-signal",
}
_HEADER_SOURCE: Final[dict[str, SourceKind]] = {
    "content-usage": "header",
    "content-signal": "signal-header",
}


def header_source(
    values: Sequence[bytes], kind: Kind = "content-usage"
) -> tuple[Source, Statement]:
    """A response's ``Content-Usage`` header (attach-05 §2), or with
    ``kind`` ``"content-signal"`` its ``Content-Signal`` header, its field
    lines joined with ``", "`` (RFC 9651 §4.2), as a source and its parsed
    statement (the labels of the robots.txt line of that kind, U-3)."""
    raw = b", ".join(values)
    return Source(_HEADER_SOURCE[kind], None, raw.decode("latin-1")), parse_statement(raw, kind)


def header_preferences(values: Sequence[bytes], kind: Kind = "content-usage") -> Preferences:
    """:class:`Preferences` of a ``Content-Usage`` header's field lines, or
    of a ``Content-Signal`` header's with ``kind`` ``"content-signal"``.

    >>> print(header_preferences([b"ai-input=no, search=yes"], "content-signal"))
    ai-use=n, search=y (Content-Signal header)
    """
    if not values:
        return NO_PREFERENCES
    raw = values[0] if len(values) == 1 else b", ".join(values)
    key = (kind, raw)
    found = _found.get(key)
    if found is None:
        found = Preferences.of((header_source([raw], kind),))
        _remember(key, found)
    return found
