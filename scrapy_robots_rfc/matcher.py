"""URL -> match string, percent-encoding canonicalisation, ``*``/``$``
matching and longest-match precedence.

Pure Python, no Scrapy import. The IDs in comments (PATH-5, ENC-6, ...) point
into ``robots-spec.md``; the D-n IDs into ``DECISIONS.md``.

Two modes exist (DECISIONS.md):

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
from dataclasses import dataclass
from typing import Literal, Union

Mode = Literal["rfc", "google"]
MODES: tuple[Mode, ...] = ("rfc", "google")

#: The implicitly allowed URI (RFC 9309 §2.2.2; D-1, ``rfc`` mode only).
ROBOTS_TXT_PATH = "/robots.txt"

_TOKEN = re.compile(r"[A-Za-z_-]*")
_HEX = "0123456789ABCDEF"
# RFC 3986 §2.3 unreserved characters: their escapes are decoded (ENC-6 step 3).
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

# ENC-1: Google escapes bytes >= 0x80 and upper-cases existing escapes.
_GOOGLE_ESCAPE = re.compile(rb"%[0-9A-Fa-f]{2}|[\x80-\xff]")
# ENC-6: the rfc canonical form escapes controls, SP and bytes >= 0x80,
# normalises every %XX, and (URL only, ENC-3) escapes literal '*' and '$'.
_RFC_PATTERN = re.compile(rb"%([0-9A-Fa-f]{2})|[\x00-\x20\x7f-\xff]")
_RFC_URL = re.compile(rb"%([0-9A-Fa-f]{2})|[\x00-\x20\x7f-\xff*$]")

# A URL whose match string needs no work: "scheme://authority" followed by a
# path, params or query made only of printable ASCII other than '#' (and, for
# rfc mode, other than '%', '*' and '$'). Everything else takes the general
# path below, which is the exact port of robots.cc GetPathParamsQuery.
_FAST_GOOGLE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^/?;#]*([/?;][^#]*)?(?:#.*)?", re.S)
_FAST_RFC = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^/?;#]*([/?;][!-\"&-)+-~]*)?(?:#.*)?", re.S)
_RFC_CLEAN = re.compile(r"[!-\"&-)+-~]*")


def product_token(user_agent: str | bytes) -> str:
    """The crawler's product token: the leading ``[A-Za-z_-]`` run (UA-1, UA-3).

    A full User-Agent header works too: ``"Mozilla/5.0 (compatible;
    ExampleBot/1.0)"`` gives ``"Mozilla"``, which is why a crawler should name
    its token explicitly (RFC 9309 §2.2.1).
    """
    if isinstance(user_agent, (bytes, bytearray)):
        user_agent = bytes(user_agent).decode("latin-1")
    match = _TOKEN.match(user_agent.strip())
    assert match is not None  # the pattern matches the empty string
    return match.group()


def agent_token(value: str) -> str | None:
    """The token of a ``user-agent:`` line's value, lower-cased, or ``None``
    for the global group (UA-3, UA-5, D-7, D-8).

    ``*`` alone, or ``*`` followed by whitespace and anything, is global
    (robots.cc ``HandleUserAgent``). Anything else is reduced to its leading
    ``[A-Za-z_-]`` run: ``Googlebot/2.1`` -> ``googlebot``, ``*bot`` -> ``""``.
    """
    if value[:1] == "*" and (len(value) == 1 or value[1] in " \t\n\v\f\r"):
        return None
    match = _TOKEN.match(value)
    assert match is not None
    return match.group().lower()


def match_string(url: str) -> str:
    """The path, params and query of ``url``, without the fragment (URL-1..4).

    An exact port of robots.cc ``GetPathParamsQuery``: the result always
    starts with ``/``; an empty or path-less URL gives ``/``.
    """
    search_start = 2 if url[:2] == "//" else 0
    early_path = _find_first_of(url, "/?;", search_start)
    protocol_end = url.find("://", search_start)
    if protocol_end < 0 or (0 <= early_path < protocol_end):
        # A path, param or query that starts before "://" means it is no scheme.
        protocol_end = search_start
    else:
        protocol_end += 3
    path_start = _find_first_of(url, "/?;", protocol_end)
    if path_start < 0:
        return "/"
    hash_pos = url.find("#", search_start)
    if 0 <= hash_pos < path_start:
        return "/"
    path_end = len(url) if hash_pos < 0 else hash_pos
    path = url[path_start:path_end]
    return path if path[0] == "/" else "/" + path


def _find_first_of(text: str, chars: str, start: int) -> int:
    found = [i for i in (text.find(c, start) for c in chars) if i >= 0]
    return min(found) if found else -1


def escape_pattern(value: bytes, mode: Mode) -> str:
    """The form of an allow/disallow value that is matched (ENC-1, ENC-6).

    ``google``: bytes >= 0x80 become ``%XX`` and existing escapes are
    upper-cased, nothing else (robots.cc ``MaybeEscapePattern``).
    ``rfc``: canonicalised like the URL (D-2), except that ``*`` and a final
    ``$`` keep their special meaning (RFC 9309 §2.2.3).
    """
    if mode == "google":
        if not _GOOGLE_ESCAPE.search(value):
            return value.decode("ascii")
        return _GOOGLE_ESCAPE.sub(_google_escape_one, value).decode("ascii")
    pattern = _canonical(value, _RFC_PATTERN)
    if "$" in pattern[:-1]:
        # A '$' is special only at the end (PATH-3); elsewhere it is the
        # literal that the URL carries as %24 (D-3).
        pattern = pattern[:-1].replace("$", "%24") + pattern[-1]
    return pattern


def canonical_match_string(url: str | bytes, mode: Mode) -> str:
    """The match string of ``url`` as patterns of ``mode`` are compared to it.

    ``google`` uses it as given (URL-5). ``rfc`` canonicalises it (D-2, ENC-6)
    and escapes a literal ``*`` or ``$`` (D-3, RFC 9309 §2.2.3).
    """
    if isinstance(url, (bytes, bytearray)):
        url = bytes(url).decode("latin-1" if mode == "google" else "utf-8", "surrogateescape")
    fast = (_FAST_GOOGLE if mode == "google" else _FAST_RFC).fullmatch(url)
    if fast is not None:
        path = fast.group(1)
        if path is None:
            return "/"
        return path if path[0] == "/" else "/" + path
    path = match_string(url)
    if mode == "google":
        return path
    if _RFC_CLEAN.fullmatch(path):
        return path
    return _canonical(_utf8(path), _RFC_URL)


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        # Lone surrogates outside the escape range: keep their bytes anyway.
        return text.encode("utf-8", "surrogatepass")


def _canonical(value: bytes, pattern: re.Pattern[bytes]) -> str:
    return pattern.sub(_rfc_escape_one, value).decode("ascii")


def _google_escape_one(match: re.Match[bytes]) -> bytes:
    text = match.group()
    if len(text) == 3:
        return text.upper()
    byte = text[0]
    return b"%" + _HEX[byte >> 4].encode() + _HEX[byte & 15].encode()


def _rfc_escape_one(match: re.Match[bytes]) -> bytes:
    hexdigits = match.group(1)
    if hexdigits is not None:
        byte = int(hexdigits, 16)
        if byte in _UNRESERVED:
            return bytes((byte,))
        return b"%" + hexdigits.upper()
    byte = match.group()[0]
    return b"%" + _HEX[byte >> 4].encode() + _HEX[byte & 15].encode()


@dataclass(frozen=True)
class Rule:
    """An allow or disallow rule as it is matched.

    ``pattern`` is the escaped (``google``) or canonical (``rfc``) form;
    ``line`` is the 1-based line of the file, counted as robots.cc counts
    (CR, LF and CRLF each end one line). ``index_of`` is set on the
    ``<dir>/$`` rule derived from an ``Allow: <dir>/index.htm...`` line
    (PATH-9) and holds the pattern it came from.
    """

    allow: bool
    pattern: str
    line: int
    index_of: str | None = None

    @property
    def kind(self) -> str:
        return "allow" if self.allow else "disallow"

    @property
    def priority(self) -> int:
        """Octets of the pattern, wildcards and ``$`` included (PATH-5)."""
        return len(self.pattern)

    def matches(self, path: str) -> bool:
        """Whether the pattern matches the match string ``path`` (PATH-1..3)."""
        return _compile(self.pattern)(path)

    def __str__(self) -> str:
        text = f"{self.kind}: {self.pattern} (line {self.line})"
        if self.index_of is not None:
            text += f", derived from allow: {self.index_of}"
        return text


_Matcher = Union["_Prefix", "_Exact", "_Wildcard"]


class _Prefix:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __call__(self, path: str) -> bool:
        return path.startswith(self.text)


class _Exact:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __call__(self, path: str) -> bool:
        return path == self.text


class _Wildcard:
    """``*`` matches any run of octets, ``/`` included (PATH-2); a final ``$``
    anchors the end (PATH-3). Literal segments are found leftmost-first, which
    is exact for patterns whose only wildcard is ``*`` and never backtracks."""

    __slots__ = ("anchored", "first", "last", "longest", "middle")

    def __init__(self, pattern: str) -> None:
        self.anchored = pattern.endswith("$")
        if self.anchored:
            pattern = pattern[:-1]
        segments = pattern.split("*")
        self.first = segments[0]
        self.last = segments[-1]
        self.middle = tuple(s for s in segments[1:-1] if s)
        # Any match contains every segment; testing the longest one first
        # rejects most URLs (and adversarial patterns) in one C-level search.
        self.longest = max(segments, key=len)

    def __call__(self, path: str) -> bool:
        if not path.startswith(self.first) or self.longest not in path:
            return False
        pos = len(self.first)
        for segment in self.middle:
            pos = path.find(segment, pos)
            if pos < 0:
                return False
            pos += len(segment)
        last = self.last
        if self.anchored:
            return len(path) - len(last) >= pos and path.endswith(last)
        return not last or path.find(last, pos) >= 0


def _compile(pattern: str) -> _Matcher:
    if "*" in pattern:
        return _Wildcard(pattern)
    if pattern.endswith("$"):
        return _Exact(pattern[:-1])
    return _Prefix(pattern)


def _precedence(rule: Rule) -> tuple[int, bool, int]:
    """Sort key: longest pattern first (PATH-5), allow first on a tie
    (PATH-6), then the earliest line, which robots.cc reports."""
    return (-len(rule.pattern), not rule.allow, rule.line)


class AgentRules:
    """The rules that apply to one crawler token, ready for matching.

    Rules are kept in precedence order: longest pattern first, allow before
    disallow on a tie, earlier line first (PATH-5, PATH-6). The first rule
    that matches decides; a rule with an empty pattern matches everything at
    priority 0 and never decides (FMT-15). With no deciding rule the URL is
    allowed (PATH-7).
    """

    __slots__ = (
        "_plain",
        "_plain_re",
        "_ready",
        "_special",
        "agents",
        "crawl_delay",
        "mode",
        "rules",
        "token",
    )

    def __init__(
        self,
        rules: list[Rule],
        *,
        token: str,
        agents: tuple[str, ...],
        crawl_delay: float | None,
        mode: Mode,
    ) -> None:
        rules = sorted((r for r in rules if r.pattern), key=_precedence)
        #: The rules in precedence order.
        self.rules: tuple[Rule, ...] = tuple(rules)
        #: The crawler's product token.
        self.token = token
        #: The ``user-agent`` values of the groups these rules come from.
        self.agents = agents
        self.crawl_delay = crawl_delay
        self.mode: Mode = mode
        self._ready = False
        self._plain: dict[str, Rule] = {}
        self._plain_re: re.Pattern[str] | None = None
        self._special: tuple[tuple[Rule, _Matcher], ...] = ()

    def _prepare(self) -> None:
        # Plain prefixes go into one alternation of literals, longest first,
        # so one C-level match finds the longest plain rule that matches.
        # Wildcard and anchored rules are tried one by one; there are few.
        plain: dict[str, Rule] = {}
        special = []
        for rule in self.rules:
            if "*" in rule.pattern or rule.pattern.endswith("$"):
                special.append((rule, _compile(rule.pattern)))
            elif rule.pattern not in plain:  # allow sorts first on a tie
                plain[rule.pattern] = rule
        self._plain = plain
        if plain:
            self._plain_re = re.compile("|".join(map(re.escape, plain)))
        self._special = tuple(special)
        self._ready = True

    def decide(self, path: str) -> Rule | None:
        """The deciding rule for the match string ``path``, or ``None``."""
        if not self._ready:
            self._prepare()
        best: Rule | None = None
        if self._plain_re is not None:
            found = self._plain_re.match(path)
            if found is not None:
                best = self._plain[found.group()]
        for rule, matches in self._special:
            if best is not None and _precedence(rule) > _precedence(best):
                break
            if matches(path):
                return rule
        return best

    def allowed_path(self, path: str) -> bool:
        """The verdict for a match string already in this mode's form."""
        if self.mode == "rfc" and path == ROBOTS_TXT_PATH:
            return True
        rule = self.decide(path)
        return rule is None or rule.allow

    def allowed(self, url: str | bytes) -> bool:
        """The verdict for ``url``."""
        return self.allowed_path(canonical_match_string(url, self.mode))
