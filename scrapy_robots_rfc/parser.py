"""bytes or str -> :class:`RobotsTxt`: lines, groups, rules, sitemaps and
crawl-delay.

Pure Python, no Scrapy import. The lexical rules follow robots.cc
``RobotsTxtParser`` byte for byte (DECISIONS.md D-4, D-5, D-9, D-10), so the
IDs in comments (FMT-n, GRP-n, ...) point into ``robots-spec.md``.

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
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .agents import GLOBAL_NAME, agent_product, agent_token, ascii_lower, caller_name
from .matcher import (
    MODES,
    ROBOTS_TXT_PATH,
    AgentRules,
    Mode,
    Rule,
    canonical_match_string,
    escape_pattern,
)

Body = str | bytes | bytearray | memoryview

#: robots.cc keeps ``2083 * 8 - 1`` bytes of a line and drops the rest
#: (FMT-5, D-9): a 16,664-byte buffer less its NUL.
MAX_LINE_BYTES = 2083 * 8 - 1

#: At most this many bytes of a robots.txt are read (RFC 9309 §2.5: at
#: least 500 KiB; Google: 500 KiB; HTTP-12, D-16).
MAX_BYTES = 500 * 1024

_BOM = b"\xef\xbb\xbf"  # FMT-3, D-10
_WHITESPACE = b" \t\n\v\f\r"  # absl::ascii_isspace (FMT-7)

# FMT-10, FMT-11, D-4: robots.cc ParsedRobotsKey::Parse checks these in this
# order, each as a case-insensitive prefix of the key.
_USER_AGENT_KEYS = (b"user-agent", b"useragent", b"user agent")
_ALLOW_KEYS = (b"allow",)  # no typos for allow (robots.cc KeyIsAllow)
_DISALLOW_KEYS = (b"disallow", b"dissallow", b"dissalow", b"disalow", b"diasllow", b"disallaw")
_SITEMAP_KEYS = (b"sitemap", b"site-map")
# OTHER-2: crawl-delay is an "other record" (RFC 9309 §2.2.4). It is read
# into the group it stands in and, like every other record, never ends it.
_CRAWL_DELAY_KEYS = frozenset((b"crawl-delay", b"crawl_delay", b"crawldelay", b"crawl delay"))
_CRAWL_DELAY_VALUE = re.compile(rb"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
_ABSOLUTE_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


@dataclass(frozen=True)
class Explanation:
    """Why a URL is allowed or disallowed.

    ``rule`` is the deciding rule, or ``None`` when no rule decides (then the
    URL is allowed, RFC 9309 §2.2.2). ``agents`` are the ``user-agent`` values
    of the groups that apply to ``user_agent`` (the caller's name, as given);
    empty when no group applies.
    """

    allowed: bool
    url: str
    user_agent: str
    match_string: str
    rule: Rule | None
    agents: tuple[str, ...]
    reason: str

    def __str__(self) -> str:
        verdict = "allowed" if self.allowed else "disallowed"
        return f"{verdict}: {self.url} for {self.user_agent!r}: {self.reason}"


class _Group:
    """One group: its user-agent lines and the records that follow them
    (RFC 9309 §2.1; GRP-1, GRP-2)."""

    __slots__ = ("agents", "binds", "crawl_delay", "is_global", "rules")

    def __init__(self) -> None:
        self.agents: list[str] = []
        #: The callers' names (ASCII lower-cased) this group is for.
        self.binds: set[str] = set()
        self.is_global = False
        self.rules: list[Rule] = []
        self.crawl_delay: float | None = None


class RobotsTxt:
    """A parsed robots.txt file.

    >>> robots = RobotsTxt.parse(b"User-agent: *\\nDisallow: /private\\n")
    >>> robots.allowed("https://example.com/private/x", "ExampleBot")
    False

    Parsing never raises on content; it is linear in the size of the input.
    Nothing is truncated here: the caller (the middleware) applies the
    500 KiB limit of RFC 9309 §2.5.
    """

    __slots__ = ("_by_agent", "_by_token", "_groups", "mode", "notes", "sitemaps")

    def __init__(
        self,
        groups: list[_Group],
        *,
        sitemaps: tuple[str, ...],
        notes: tuple[tuple[int, str], ...],
        mode: Mode,
    ) -> None:
        self.mode: Mode = mode
        #: ``sitemap`` URLs, absolute, in file order, without duplicates
        #: (RFC 9309 §2.2.4; OTHER-1). They belong to no group.
        self.sitemaps = sitemaps
        #: ``(line, reason)`` for each line that was skipped or cut.
        self.notes = notes
        self._groups = groups
        self._by_token: dict[str, AgentRules] = {}
        self._by_agent: dict[str, AgentRules] = {}

    @classmethod
    def parse(cls, body: Body, mode: Mode = "rfc") -> RobotsTxt:
        """Parse ``body`` (bytes, or str which is encoded as UTF-8).

        Raises ``TypeError`` for any other type and ``ValueError`` for an
        unknown ``mode``; never anything for any content (RFC 9309 §2.3.1.5:
        "MUST try to parse each line").
        """
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        return _parse(_as_bytes(body), mode)

    def for_agent(self, user_agent: str | bytes) -> AgentRules:
        """The rules that apply to the crawler named ``user_agent``.

        The name is compared as given, case-insensitively, never shortened
        (D-21): ``MJ12bot`` is not ``mj``. Pass the crawler's product token,
        not a whole User-Agent header (:func:`product_token` finds it in
        one); ``*`` asks for the global groups.

        The groups naming the crawler are merged (GRP-4); if there is none,
        the ``*`` groups are merged instead, and the two never mix (GRP-5,
        UA-6). A group naming both counts as specific (GRP-8).
        """
        key = user_agent if isinstance(user_agent, str) else caller_name(user_agent)
        found = self._by_agent.get(key)
        if found is not None:
            return found
        lowered = ascii_lower(key)
        found = self._by_token.get(lowered)
        if found is None:
            found = self._build(key, lowered)
            self._by_token[lowered] = found
        if len(self._by_agent) >= 64:  # a crawler uses few user agents
            self._by_agent.clear()
        self._by_agent[key] = found
        return found

    def _build(self, name: str, lowered: str) -> AgentRules:
        chosen: list[_Group] = []
        # D-21: in rfc mode "*" and "" select the global groups only; in
        # google mode "*" never equals a token and "" is compared like any
        # other name (UA-7: robots.cc gives it the groups of empty tokens).
        if self.mode == "google" or lowered not in ("", GLOBAL_NAME):
            chosen = [g for g in self._groups if lowered in g.binds]
        if not chosen:
            chosen = [g for g in self._groups if g.is_global]
        return AgentRules(
            [rule for group in chosen for rule in group.rules],
            token=name,
            agents=tuple(agent for group in chosen for agent in group.agents),
            crawl_delay=next((g.crawl_delay for g in chosen if g.crawl_delay is not None), None),
            mode=self.mode,
        )

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        """Whether ``user_agent`` may fetch ``url``.

        ``user_agent`` is the crawler's name (its product token, RFC 9309
        §2.2.1), compared as given (D-21); see :meth:`for_agent`.
        """
        return self.for_agent(user_agent).allowed(url)

    def explain(self, url: str | bytes, user_agent: str | bytes) -> Explanation:
        """The verdict for ``url`` with the rule that decides it, its line
        and the agents of the group it comes from."""
        rules = self.for_agent(user_agent)
        text = url if isinstance(url, str) else bytes(url).decode("latin-1")
        path = canonical_match_string(url, self.mode)
        rule: Rule | None = None
        if self.mode == "rfc" and path == ROBOTS_TXT_PATH:
            reason = "/robots.txt is always allowed (RFC 9309 §2.2.2)"
        elif not rules.agents:
            named = "" if rules.token == GLOBAL_NAME else f"no group names {rules.token!r} and "
            reason = f"{named}there is no '*' group"
        else:
            rule = rules.decide(path)
            group = ", ".join(repr(a) for a in rules.agents)
            if rule is None:
                reason = f"no rule of the group for {group} matches {path!r}"
            else:
                reason = (
                    f"{rule.kind} rule {rule.pattern!r} on line {rule.line} is the "
                    f"longest match for {path!r} in the group for {group}"
                )
                if rule.index_of is not None:
                    reason += f" (derived from allow: {rule.index_of})"
        return Explanation(
            allowed=rule is None or rule.allow,
            url=text,
            user_agent=rules.token,
            match_string=path,
            rule=rule,
            agents=rules.agents,
            reason=reason,
        )

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        """The ``crawl-delay`` of the group that applies to ``user_agent``, in
        seconds, or ``None`` (OTHER-2). Google ignores it; it never changes
        grouping or verdicts."""
        return self.for_agent(user_agent).crawl_delay

    def __repr__(self) -> str:
        return (
            f"<RobotsTxt mode={self.mode!r} groups={len(self._groups)}"
            f" sitemaps={len(self.sitemaps)}>"
        )


def cut_at_limit(body: bytes, limit: int = MAX_BYTES) -> tuple[bytes, bool]:
    """``body`` cut to ``limit`` bytes, and whether anything was cut.

    Content after the limit is ignored (RFC 9309 §2.5, HTTP-12); a line cut
    by the limit is dropped too, so that ``Disallow: /private`` cut to
    ``Disallow: /pri`` cannot become a broader rule (HTTP-13, DECISIONS.md
    "size").
    """
    if len(body) <= limit:
        return body, False
    body = body[:limit]
    end = max(body.rfind(b"\n"), body.rfind(b"\r"))
    return body[: end + 1], True


def _as_bytes(body: Body) -> bytes:
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


def _text(value: bytes) -> str:
    """A value as text; bytes that are not UTF-8 become %XX escapes."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        text = value.decode("utf-8", "surrogateescape")
        return "".join(f"%{ord(c) - 0xDC00:02X}" if "\udc80" <= c <= "\udcff" else c for c in text)


def _key_and_value(line: bytes) -> tuple[bytes, bytes] | None:
    """Split a line whose comment is removed into key and value (FMT-6..9).

    A port of robots.cc ``GetKeyAndValueFrom``: the first ``:`` separates;
    without one, exactly two whitespace-separated tokens are key and value.
    """
    line = line.strip(_WHITESPACE)
    colon = line.find(b":")
    if colon >= 0:
        key, value = line[:colon], line[colon + 1 :]
    else:
        # FMT-9, D-5: "Google-specific optimization: some people forget the
        # colon, so we need to accept whitespace in its stead."
        spaces = [i for i in (line.find(b" "), line.find(b"\t")) if i >= 0]
        if not spaces:
            return None
        sep = min(spaces)
        rest = line[sep:].lstrip(b" \t")
        if b" " in rest or b"\t" in rest:
            return None  # three or more tokens
        key, value = line[:sep], line[sep + 1 :]
    key = key.strip(_WHITESPACE)
    if not key:
        return None
    return key, value.strip(_WHITESPACE)


def _parse(data: bytes, mode: Mode) -> RobotsTxt:
    # FMT-3, D-10: a leading UTF-8 BOM, or a prefix of one, is skipped.
    if data[:1] == b"\xef":
        data = data[3:] if data[:3] == _BOM else data[2:] if data[:2] == _BOM[:2] else data[1:]
    groups: list[_Group] = []
    group: _Group | None = None
    in_rules = False  # a rule was seen since the last user-agent line (GRP-1)
    sitemaps: dict[str, None] = {}
    ignored: list[tuple[int, str]] = []
    # FMT-4: CR, LF and CRLF each end a line; bytes.splitlines() splits on
    # exactly these, and numbers lines as robots.cc does.
    for number, raw in enumerate(data.splitlines(), 1):
        line = raw
        if len(line) > MAX_LINE_BYTES:
            line = line[:MAX_LINE_BYTES]
            ignored.append((number, f"line longer than {MAX_LINE_BYTES} bytes was cut"))
        # FMT-14: robots.cc handles lines as C strings; a NUL ends the line.
        nul = line.find(b"\0")
        if nul >= 0:
            line = line[:nul]
        hash_pos = line.find(b"#")  # FMT-6: a comment starts anywhere
        if hash_pos >= 0:
            line = line[:hash_pos]
        if not line or line.isspace():
            continue
        pair = _key_and_value(line)
        if pair is None:
            ignored.append((number, "no key and value"))
            continue
        key, value = pair
        lowered = key.lower()
        if lowered.startswith(_USER_AGENT_KEYS):
            if group is None or in_rules:
                group = _Group()
                groups.append(group)
                in_rules = False
            # UA-3, UA-5, D-7, D-8, D-21: both modes bind the line's token, its
            # leading [A-Za-z_-] run; an empty one names nobody, except to an
            # empty caller's name in google mode, as robots.cc compares them.
            # rfc mode also binds the whole product name (MJ12bot, where the
            # token alone is "mj"), which only a value longer than its token
            # can have.
            agent = _text(value)
            group.agents.append(agent)
            token = agent_token(agent)
            if token is None:
                group.is_global = True
            elif mode == "google":
                group.binds.add(token)
            else:
                if token:
                    group.binds.add(token)
                if len(token) < len(agent):
                    product = agent_product(agent)
                    if product:
                        group.binds.add(product)
        elif lowered.startswith(_ALLOW_KEYS) or lowered.startswith(_DISALLOW_KEYS):
            if group is None:
                # GRP-3, D-20: rules before any user-agent line are ignored.
                ignored.append((number, "rule before any user-agent line"))
                continue
            in_rules = True  # an empty value still ends the block (D-19)
            allow = lowered.startswith(_ALLOW_KEYS)
            pattern = escape_pattern(value, mode)
            group.rules.append(Rule(allow, pattern, number))
            if allow:
                # PATH-9, D-11: "index.htm" and "index.html" are normalized to
                # "/" (robots.cc HandleAllow).
                slash = pattern.rfind("/")
                if slash >= 0 and pattern.startswith("/index.htm", slash):
                    group.rules.append(Rule(True, pattern[: slash + 1] + "$", number, pattern))
        elif lowered.startswith(_SITEMAP_KEYS):
            url = _text(value)
            if _ABSOLUTE_URL.match(url):
                sitemaps[url] = None
            else:
                ignored.append((number, "sitemap URL is not absolute"))
        elif lowered in _CRAWL_DELAY_KEYS:
            delay = _CRAWL_DELAY_VALUE.fullmatch(value)
            if group is None:
                ignored.append((number, "crawl-delay before any user-agent line"))
            elif delay is None:
                ignored.append((number, "crawl-delay is not a number of seconds"))
            elif group.crawl_delay is None:
                group.crawl_delay = float(delay.group())
        else:
            # FMT-12, GRP-7: other records are skipped and never end a group.
            ignored.append((number, f"unsupported key {_text(key)!r}"))
    return RobotsTxt(
        groups,
        sitemaps=tuple(sitemaps),
        notes=tuple(ignored),
        mode=mode,
    )


__all__ = ["MAX_LINE_BYTES", "Explanation", "RobotsTxt", "Rule"]
