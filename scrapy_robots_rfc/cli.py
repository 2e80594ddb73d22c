"""``python -m scrapy_robots_rfc``: check URLs against a robots.txt, and
lint one.

Pure: like :mod:`.parser` and :mod:`.matcher` it never imports Scrapy. A
robots.txt given as an ``http``/``https`` URL is fetched with
:mod:`urllib.request` under the status policy of DECISIONS.md (RFC 9309
§2.3.1; HTTP-1 to HTTP-8), reading at most 500 KiB (RFC 9309 §2.5, HTTP-12).

``check ROBOTS URL...``
    One line per URL: the verdict, the URL, then the deciding rule with its
    line and the ``user-agent`` values of its group, or why no rule decides.
    With ``--json``, one JSON object per URL and per line (JSON Lines).
    Exit status: 0 every URL is allowed, 1 at least one is disallowed, 2 an
    error (a robots.txt that cannot be read, a bad argument).

``lint ROBOTS``
    One ``SOURCE:LINE: KIND: message`` line per finding, in line order, then
    ``N findings`` or ``no findings``. Exit status: 0 no findings, 1
    findings, 2 an error. The kinds are listed in :data:`KINDS`.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from email.message import Message
from typing import IO, TextIO
from urllib.parse import urljoin, urlsplit

from . import __version__, policy
from .agents import GLOBAL_NAME, agent_product, agent_token, name_problem
from .matcher import (
    MODES,
    ROBOTS_TXT_PATH,
    Mode,
    Rule,
    _literal_prefix,
    _matches,
)
from .parser import (
    _ALLOW_KEYS,
    _BOM,
    _CRAWL_DELAY_KEYS,
    _DISALLOW_KEYS,
    _SITEMAP_KEYS,
    _USER_AGENT_KEYS,
    MAX_BYTES,
    MAX_LINE_BYTES,
    Explanation,
    RobotsTxt,
    _key_and_value,
    cut_at_limit,
)

PROG = "python -m scrapy_robots_rfc"

#: Redirects followed when fetching a robots.txt (RFC 9309 §2.3.1.2, HTTP-2);
#: more, a loop, a 3xx without ``Location`` or a redirect to a non-HTTP URL
#: mean no robots.txt (allow all), as in the middleware (D-14, HTTP-8).
MAX_REDIRECTS = 5

#: Seconds to wait for the robots.txt server.
DEFAULT_TIMEOUT = 30.0

#: Exit statuses.
EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2

#: What ``lint`` reports, by kind. Every kind but ``empty-rule`` is a
#: finding; ``empty-rule`` is a note that does not change the exit status
#: (``Disallow:`` is the usual way to say "allow everything").
KINDS: dict[str, str] = {
    "past-limit": "content after 500 KiB is ignored (RFC 9309 §2.5, HTTP-12, HTTP-13)",
    "line-cut": "a line longer than 16,663 bytes is cut (FMT-5, D-9)",
    "non-utf8": "bytes that are not UTF-8 (RFC 9309 §2.3, FMT-1, FMT-2)",
    "unknown-key": "a key this parser does not read: the line is ignored (RFC 9309 §2.2.4, FMT-12)",
    "missing-value": "one word without ':': the line is ignored (FMT-9)",
    "syntax": "no key and value: the line is ignored (RFC 9309 §2.3.1.5, FMT-8, FMT-9)",
    "before-user-agent": "a rule before any user-agent line is ignored (RFC 9309 §2.2.2, GRP-3)",
    "bad-sitemap": "a sitemap value that is not an absolute URL is ignored (OTHER-1)",
    "bad-crawl-delay": "a crawl-delay that is not a number of seconds is ignored (OTHER-2)",
    "typo": "a misspelt key accepted as Google's parser accepts it (FMT-11, D-4)",
    "key-prefix": "a longer key read as the key it starts with (FMT-10, D-4)",
    "missing-colon": "two words without ':' read as key and value (FMT-9, D-5)",
    "no-token": "a user-agent value without a product token names no crawler (UA-3, UA-7)",
    "never-matches": "a pattern not starting with '/' or '*' matches no URL (PATH-10, D-6)",
    "shadowed": "a rule that a rule of the other kind always overrides (PATH-5, PATH-6)",
    "duplicate": "the same rule earlier in the same group",
    "empty-rule": "note: an empty allow/disallow matches nothing (FMT-15, D-19)",
    "incomplete": "note: too many rules to search them all for shadowed ones",
}
_NOTES = frozenset({"empty-rule", "incomplete"})

#: Rule pairs compared in search of shadowed rules, per file: a group of
#: thousands of ``/*...`` rules would otherwise take minutes.
MAX_COMPARISONS = 5_000_000

_CHECK_EPILOG = f"""\
ROBOTS is a file, - for standard input, or an http(s) URL. A URL is
fetched (at most {MAX_REDIRECTS} redirects, {MAX_BYTES:,} bytes) and its status decides
first, as the middleware does (RFC 9309 §2.3.1):
  2xx                      the rules are parsed
  4xx (but 429)            no robots.txt: every URL is allowed
  429, 5xx, network error  unreachable: every URL is disallowed

output, one line per URL:
  allowed    https://example.com/a  line 3 allow: /a  group: *
  disallowed https://example.com/b  line 2 disallow: /  group: *
--json prints one JSON object per URL, one per line (JSON Lines), with the
keys url, allowed, user_agent, token, mode, match_string, rule (kind,
pattern, line, index_of; or null), group, reason and robots (source,
status, kind: rules, allow_all or unreachable, outcome).

exit status: 0 all URLs allowed, 1 some disallowed, 2 error.

examples:
  {PROG} check robots.txt https://example.com/private/x
  {PROG} check --user-agent ExampleBot --mode google robots.txt https://example.com/a
  curl -s https://example.com/robots.txt | {PROG} check - https://example.com/a
  {PROG} check --json https://example.com/robots.txt https://example.com/a
"""

_LINT_EPILOG = (
    """\
ROBOTS is a file, - for standard input, or an http(s) URL. Only the first
512,000 bytes are read, as a crawler reads them. One line per finding:
  SOURCE:LINE: KIND: message
then "N findings" or "no findings". The kinds:
"""
    + "".join(f"  {kind:<18} {text}\n" for kind, text in KINDS.items())
    + f"""
"shadowed" is reported only where it is proven: every URL the rule matches is
also matched by a rule of the other kind that wins (longer, or an allow of
the same length), so the rule never decides a verdict.

exit status: 0 no findings (notes allowed), 1 findings, 2 error.

examples:
  {PROG} lint robots.txt
  {PROG} lint --mode google https://example.com/robots.txt
"""
)


class CliError(Exception):
    """An error the user can fix: reported on stderr, exit status 2."""


@dataclass(frozen=True)
class Source:
    """A robots.txt as read, and what its fetch means before any rule is
    looked at (:data:`policy.Kind`)."""

    name: str
    kind: policy.Kind
    #: The body, cut at :data:`MAX_BYTES` (``b""`` unless ``kind`` is rules).
    body: bytes = b""
    #: Whether content past :data:`MAX_BYTES` was dropped.
    truncated: bool = False
    #: The HTTP status of the last response, ``None`` for a file.
    status: int | None = None
    #: For people: "HTTP 404", "network error: ..." (empty for a file).
    outcome: str = ""


def _read_capped(stream: IO[bytes]) -> tuple[bytes, bool]:
    """At most :data:`MAX_BYTES` of ``stream``: one byte more is read to
    know whether there is more, and a line cut at the limit is dropped
    (RFC 9309 §2.5, HTTP-13)."""
    return cut_at_limit(stream.read(MAX_BYTES + 1), MAX_BYTES)


def load(robots: str, *, timeout: float, user_agent: str) -> Source:
    """Read ``robots``: ``-`` is standard input, an ``http``/``https`` URL is
    fetched (:func:`fetch`), anything else is a file path."""
    if robots == "-":
        body, truncated = _read_capped(sys.stdin.buffer)
        return Source("<stdin>", "rules", body, truncated)
    scheme = urlsplit(robots).scheme.lower() if "://" in robots else ""
    if scheme in ("http", "https"):
        return fetch(robots, timeout=timeout, user_agent=user_agent)
    if scheme:
        raise CliError(f"{robots}: only http and https URLs are fetched")
    try:
        with open(robots, "rb") as file:
            body, truncated = _read_capped(file)
    except OSError as exc:
        raise CliError(f"cannot read {robots}: {exc.strerror or exc}") from None
    return Source(robots, "rules", body, truncated)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are followed by :func:`fetch`, which counts them."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: Message,
        newurl: str,
    ) -> urllib.request.Request | None:
        return None


def fetch(url: str, *, timeout: float, user_agent: str) -> Source:
    """GET ``url`` and apply the status policy (DECISIONS.md "Fetching and
    policy"; RFC 9309 §2.3.1.1 to §2.3.1.4; HTTP-1 to HTTP-8).

    Redirects are followed up to :data:`MAX_REDIRECTS`, across hosts too;
    the rules found apply to the URLs checked whatever their origin (LOC-9).
    """
    opener = urllib.request.build_opener(_NoRedirect())
    seen = {url}
    hops = 0
    while True:
        try:
            request = urllib.request.Request(url, headers={"User-Agent": user_agent})
        except ValueError as exc:
            raise CliError(f"{url}: {exc}") from None
        response: IO[bytes]
        try:
            response = opener.open(request, timeout=timeout)
            status: int = response.status  # type: ignore[attr-defined]
        except urllib.error.HTTPError as exc:
            response, status = exc, exc.code
        except (OSError, http.client.HTTPException, ValueError) as exc:
            # HTTP-6: DNS, connection, timeout... URLError is an OSError.
            reason = getattr(exc, "reason", None) or exc
            return Source(url, "unreachable", outcome=f"network error: {reason}")
        with response:
            headers: Message = response.headers  # type: ignore[attr-defined]
            kind = policy.classify(status)
            if kind == "parse":
                try:
                    body, truncated = _read_capped(response)
                except (OSError, http.client.HTTPException) as exc:
                    outcome = f"HTTP {status}, body not read: {exc!r}"
                    return Source(url, "unreachable", status=status, outcome=outcome)
                return Source(url, "rules", body, truncated, status, f"HTTP {status}")
        if kind != "redirect":
            return Source(url, kind, status=status, outcome=f"HTTP {status}")
        location = headers.get("Location")
        gave_up = ""
        if not location:
            gave_up = "without a Location header"
        else:
            target = urljoin(url, location)
            if urlsplit(target).scheme.lower() not in ("http", "https"):
                gave_up = f"to a non-HTTP URL ({target})"
            elif target in seen:
                gave_up = f"loop at {target}"
            elif hops >= MAX_REDIRECTS:
                gave_up = f"more than {MAX_REDIRECTS} redirects"
            else:
                hops += 1
                seen.add(target)
                url = target
                continue
        return Source(url, "allow_all", status=status, outcome=f"HTTP {status} redirect {gave_up}")


# -- check ----------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """The verdict for one URL, with what decided it."""

    url: str
    allowed: bool
    #: Why, in one line, for people.
    detail: str
    #: The longer reason of :meth:`RobotsTxt.explain`, or :attr:`detail`.
    reason: str
    match_string: str | None = None
    rule: Rule | None = None
    group: tuple[str, ...] = ()
    token: str | None = None


def _verdict(explanation: Explanation, mode: Mode) -> Verdict:
    rule, agents = explanation.rule, explanation.agents
    group = ", ".join(agents)
    if rule is not None:
        detail = f"line {rule.line} {rule.kind}: {rule.pattern}"
        if rule.index_of is not None:
            detail += f" (from allow: {rule.index_of})"
        detail += f"  group: {group}"
    elif mode == "rfc" and explanation.match_string == ROBOTS_TXT_PATH:
        detail = "/robots.txt is always allowed (RFC 9309 §2.2.2)"
    elif not agents:
        detail = f"no group for {explanation.user_agent or '*'!r} and no '*' group"
    else:
        detail = f"no rule matches {explanation.match_string}  group: {group}"
    return Verdict(
        url=explanation.url,
        allowed=explanation.allowed,
        detail=detail,
        reason=explanation.reason,
        match_string=explanation.match_string,
        rule=rule,
        group=agents,
        token=explanation.user_agent,
    )


def verdicts(source: Source, urls: Sequence[str], user_agent: str, mode: Mode) -> list[Verdict]:
    """The verdict for each of ``urls``."""
    if source.kind == "allow_all":
        detail = f"no robots.txt ({source.outcome}): allow all (RFC 9309 §2.3.1.3)"
        return [Verdict(url, True, detail, detail) for url in urls]
    if source.kind == "unreachable":
        detail = f"robots.txt unreachable ({source.outcome}): disallow all (RFC 9309 §2.3.1.4)"
        return [Verdict(url, False, detail, detail) for url in urls]
    # The name is compared as given (D-21): "*", the default, asks for the
    # '*' groups in both modes.
    robots = RobotsTxt.parse(source.body, mode)
    return [_verdict(robots.explain(url, user_agent), mode) for url in urls]


def _verdict_json(
    verdict: Verdict, source: Source, user_agent: str, mode: Mode
) -> dict[str, object]:
    rule = verdict.rule
    return {
        "url": verdict.url,
        "allowed": verdict.allowed,
        "user_agent": user_agent,
        "token": verdict.token,
        "mode": mode,
        "match_string": verdict.match_string,
        "rule": None
        if rule is None
        else {
            "kind": rule.kind,
            "pattern": rule.pattern,
            "line": rule.line,
            "index_of": rule.index_of,
        },
        "group": list(verdict.group),
        "reason": verdict.reason,
        "robots": {
            "source": source.name,
            "status": source.status,
            "kind": source.kind,
            "outcome": source.outcome,
        },
    }


def _header(args: argparse.Namespace) -> str:
    """The User-Agent header of a fetch: ``--user-agent``, or this tool."""
    agent: str = args.user_agent
    return f"scrapy_robots_rfc/{__version__}" if agent == "*" else agent


def run_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``check``: exit 0 when every URL is allowed, 1 otherwise."""
    mode: Mode = args.mode
    source = load(args.robots, timeout=args.timeout, user_agent=_header(args))
    if source.truncated:
        err.write(f"note: {source.name} is larger than {MAX_BYTES:,} bytes; the rest is ignored\n")
    problem = name_problem(args.user_agent, mode)
    if problem is not None and args.user_agent != GLOBAL_NAME:
        # D-21: the name is used as given, so say what that selects.
        err.write(f"warning: --user-agent {args.user_agent!r} {problem}\n")
    found = verdicts(source, args.urls, args.user_agent, mode)
    for verdict in found:
        if args.json:
            record = _verdict_json(verdict, source, args.user_agent, mode)
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            word = "allowed" if verdict.allowed else "disallowed"
            out.write(f"{word:<10} {verdict.url}  {verdict.detail}\n")
    return EXIT_OK if all(v.allowed for v in found) else EXIT_FOUND


# -- lint -----------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Finding:
    """One ``lint`` finding: a line and a kind of :data:`KINDS`."""

    line: int
    kind: str
    message: str

    @property
    def is_note(self) -> bool:
        return self.kind in _NOTES


_KEYS: tuple[tuple[str, tuple[bytes, ...]], ...] = (
    # robots.cc ParsedRobotsKey::Parse order, as parser.py checks them.
    ("user-agent", _USER_AGENT_KEYS),
    ("allow", _ALLOW_KEYS),
    ("disallow", _DISALLOW_KEYS),
    ("sitemap", _SITEMAP_KEYS),
)


def _recognise(lowered: bytes) -> tuple[str, bytes, bytes] | None:
    """How parser.py reads a lower-cased key: ``(name, the key it starts
    with, the right spelling)``, or ``None`` for an unsupported key."""
    for name, keys in _KEYS:
        matched = next((k for k in keys if lowered.startswith(k)), None)
        if matched is not None:
            return name, matched, keys[0]
    if lowered in _CRAWL_DELAY_KEYS:
        return "crawl-delay", lowered, b"crawl-delay"
    return None


def _show(data: bytes) -> str:
    return repr(data.decode("utf-8", "backslashreplace"))


def _lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """The lines of ``data`` numbered as parser.py numbers them: after a
    (partial) BOM, split at CR, LF and CRLF (FMT-3, FMT-4)."""
    if data[:1] == b"\xef":
        data = data[3:] if data[:3] == _BOM else data[2:] if data[:2] == _BOM[:2] else data[1:]
    yield from enumerate(data.splitlines(), 1)


def _line_findings(number: int, raw: bytes, mode: Mode) -> Iterator[Finding]:
    """What parser.py does to one line without saying so in ``notes``:
    typos, key prefixes and missing colons it accepts, non-UTF-8 bytes."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        yield Finding(
            number,
            "non-utf8",
            f"byte {raw[exc.start]:#04x} at column {exc.start + 1} is not UTF-8; in a path it "
            "is %-escaped byte by byte and matches no UTF-8 URL (FMT-2)",
        )
    line = raw[:MAX_LINE_BYTES]
    if len(raw) > MAX_LINE_BYTES:
        yield Finding(
            number,
            "line-cut",
            f"line is {len(raw):,} bytes: only the first {MAX_LINE_BYTES:,} are read, the "
            "rest is dropped (FMT-5, D-9)",
        )
    line = line.split(b"\0", 1)[0].split(b"#", 1)[0]  # FMT-14, FMT-6
    if not line.strip():
        return
    pair = _key_and_value(line)
    if pair is None:
        words = line.split()
        if b":" in line:
            yield Finding(number, "syntax", "nothing before ':': the line is ignored (FMT-8)")
        elif len(words) == 1 and _recognise(words[0].lower()) is not None:
            yield Finding(
                number,
                "missing-value",
                f"{_show(words[0])} has no ':' and no value: the line is ignored (FMT-9)",
            )
        else:
            yield Finding(
                number,
                "syntax",
                "no ':' and not two words: not a 'key: value' line, ignored (FMT-9, D-5)",
            )
        return
    key, value = pair
    lowered = key.lower()
    recognised = _recognise(lowered)
    read_as = None if recognised is None else recognised[0]
    if recognised is not None:
        name, matched, spelling = recognised
        if matched != spelling:
            yield Finding(
                number,
                "typo",
                f"{_show(key)} is read as {name!r}: a typo Google's parser accepts (FMT-11, D-4)",
            )
        elif lowered != matched:
            yield Finding(
                number,
                "key-prefix",
                f"{_show(key)} is read as {name!r} because it starts with it (FMT-10, D-4)",
            )
    if read_as is not None and b":" not in line:
        yield Finding(
            number,
            "missing-colon",
            f"no ':' after {_show(key)}: read as key and value as Google's parser does "
            "(FMT-9, D-5)",
        )
    agent = value.decode("utf-8", "replace")
    if read_as == "user-agent" and agent_token(agent) == "":
        if not value:
            what = "has no value: its group applies to no crawler"
        elif mode == "rfc" and (product := agent_product(agent)):
            # D-21: rfc mode binds the whole product name as well.
            what = (
                f"{_show(value)} has no product token: its group applies only to a "
                f"crawler named exactly {product!r}"
            )
        else:
            what = f"{_show(value)} has no product token: its group applies to no crawler"
        yield Finding(number, "no-token", f"user-agent {what} (RFC 9309 §2.2.1, UA-3, D-21)")


#: parser.py ``notes`` reasons -> kind; line cuts are found by
#: :func:`_line_findings`, and lines without key and value too.
_NOTE_KINDS = (
    ("rule before any user-agent line", "before-user-agent", "(RFC 9309 §2.2.2, GRP-3, D-20)"),
    ("crawl-delay before any user-agent line", "before-user-agent", "(OTHER-2)"),
    ("sitemap URL is not absolute", "bad-sitemap", "(RFC 9309 §2.2.4, OTHER-1)"),
    ("crawl-delay is not a number", "bad-crawl-delay", "(OTHER-2)"),
    ("unsupported key", "unknown-key", "(RFC 9309 §2.2.4, FMT-12)"),
)


def _note_findings(notes: Sequence[tuple[int, str]]) -> Iterator[Finding]:
    for line, reason in notes:
        for start, kind, cite in _NOTE_KINDS:
            if reason.startswith(start):
                yield Finding(line, kind, f"{reason}: the line is ignored {cite}")
                break
        else:
            if not reason.startswith(("line longer than", "no key and value")):
                yield Finding(line, "ignored", reason)


def _never_matches(pattern: str) -> bool:
    """PATH-10, D-6: every match string starts with ``/`` (URL-1), so a
    pattern whose first character is neither ``/`` nor ``*`` matches none
    (this includes a lone ``$``)."""
    return not pattern.startswith(("/", "*"))


def _covers(wide: Rule, narrow: Rule) -> bool:
    """Whether ``wide`` matches every path that ``narrow`` matches.

    Sufficient, not necessary: ``narrow``'s pattern is written as a word in
    which each ``*`` (and, unless ``narrow`` ends with ``$``, the end) is a
    NUL, a character no pattern contains (FMT-14) and so only a ``*`` of
    ``wide`` can match. If ``wide`` matches that word (:func:`_matches`, exact
    for ``*``-only patterns, PATH-2, PATH-3), it matches every path obtained
    by putting any text in place of the NULs: every path ``narrow`` matches.
    """
    pattern = narrow.pattern
    anchored = pattern.endswith("$")
    word = (pattern[:-1] if anchored else pattern).replace("*", "\0")
    return _matches(wide.pattern, word if anchored else word + "\0")


def _beats(rule: Rule, other: Rule) -> bool:
    """Whether ``rule`` decides over ``other`` when both match: longer, or
    an allow of the same length (RFC 9309 §2.2.2; PATH-5, PATH-6)."""
    if len(rule.pattern) != len(other.pattern):
        return len(rule.pattern) > len(other.pattern)
    return rule.allow and not other.allow


class _Budget:
    """What is left of :data:`MAX_COMPARISONS`."""

    def __init__(self, left: int = MAX_COMPARISONS) -> None:
        self.left = left


def _group_findings(rules: Sequence[Rule], budget: _Budget) -> Iterator[Finding]:
    """Empty, never-matching, shadowed and duplicate rules of one group."""
    live: list[Rule] = []
    dead_lines: set[int] = set()
    for rule in rules:
        if rule.index_of is not None:
            live.append(rule)
        elif not rule.pattern:
            yield Finding(
                rule.line,
                "empty-rule",
                f"empty {rule.kind}: matches nothing, a no-op (not an error); it still ends "
                "the user-agent lines of its group (FMT-15, D-19)",
            )
        elif _never_matches(rule.pattern):
            dead_lines.add(rule.line)
            yield Finding(
                rule.line,
                "never-matches",
                f"{rule.kind}: {rule.pattern} matches no URL: a path starts with '/' "
                "(write '/' or '*' first; PATH-10, D-6)",
            )
        else:
            live.append(rule)
    # Only a rule whose literal prefix starts the other's can cover it.
    by_prefix: dict[str, list[Rule]] = {}
    for rule in live:
        by_prefix.setdefault(_literal_prefix(rule.pattern), []).append(rule)
    sizes = sorted({len(prefix) for prefix in by_prefix})
    # A line with a derived index.html rule (PATH-9) is dead only when all
    # of its rules are.
    per_line: dict[int, list[tuple[Rule, Rule | None]]] = {}
    for rule in live:
        prefix = _literal_prefix(rule.pattern)
        covering: list[Rule] = []
        if budget.left <= 0:
            yield Finding(
                rule.line,
                "incomplete",
                f"more than {MAX_COMPARISONS:,} pairs of rules compared: rules from this "
                "line on are not searched for shadowed or duplicate ones",
            )
            break
        for size in sizes:
            if size > len(prefix):
                break
            candidates = by_prefix.get(prefix[:size], ())
            budget.left -= len(candidates)
            for other in candidates:
                if other.line == rule.line:
                    continue
                if other.allow != rule.allow:
                    wins = _beats(other, rule)
                else:
                    wins = other.pattern == rule.pattern and other.line < rule.line
                if wins and _covers(other, rule):
                    covering.append(other)
        # Name a rule of the other kind if there is one, then the first.
        winner = min(covering, key=lambda r: (r.allow == rule.allow, r.line), default=None)
        per_line.setdefault(rule.line, []).append((rule, winner))
    for line, pairs in per_line.items():
        if line in dead_lines or any(winner is None for _, winner in pairs):
            continue
        rule, winner = next((p for p in pairs if p[0].index_of is None), pairs[0])
        assert winner is not None
        shown = f"{winner.kind}: {winner.pattern} (line {winner.line})"
        if winner.allow == rule.allow:
            yield Finding(line, "duplicate", f"{rule.kind}: {rule.pattern} repeats {shown}")
        else:
            yield Finding(
                line,
                "shadowed",
                f"{rule.kind}: {rule.pattern} never decides: {shown} matches every URL it "
                "matches and wins (longest match, allow on a tie; PATH-5, PATH-6)",
            )


def lint(source: Source, mode: Mode) -> list[Finding]:
    """The findings for ``source`` (its rules), in line order."""
    found: list[Finding] = []
    data = source.body
    lines = list(_lines(data))
    if source.truncated:
        found.append(
            Finding(
                len(lines) + 1,
                "past-limit",
                f"this line and the rest are past {MAX_BYTES:,} bytes (500 KiB) and ignored "
                "(RFC 9309 §2.5, HTTP-12, HTTP-13)",
            )
        )
    for number, raw in lines:
        found.extend(_line_findings(number, raw, mode))
    robots = RobotsTxt.parse(data, mode)
    found.extend(_note_findings(robots.notes))
    # The groups as parsed (the public API only offers them merged by agent).
    budget = _Budget()
    for group in robots._groups:
        found.extend(_group_findings(group.rules, budget))
    return sorted(set(found))


def run_lint(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``lint``: exit 0 without findings, 1 with some."""
    mode: Mode = args.mode
    source = load(args.robots, timeout=args.timeout, user_agent=_header(args))
    if source.kind != "rules":
        what = "no robots.txt" if source.kind == "allow_all" else "robots.txt unreachable"
        raise CliError(f"{source.name}: {what} ({source.outcome}): nothing to lint")
    found = lint(source, mode)
    for finding in found:
        if args.json:
            record = {"source": source.name, **asdict(finding), "note": finding.is_note}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            out.write(f"{source.name}:{finding.line}: {finding.kind}: {finding.message}\n")
    count = sum(not f.is_note for f in found)
    notes = len(found) - count
    summary = f"{count} finding{'s' * (count != 1)}" if count else "no findings"
    if notes:
        summary += f" ({notes} note{'s' * (notes != 1)})"
    (err if args.json else out).write(summary + "\n")
    return EXIT_FOUND if count else EXIT_OK


# -- command line ---------------------------------------------------------


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=MODES, default="rfc", help="matching mode (default rfc)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"when ROBOTS is a URL (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument("--json", action="store_true", help="JSON Lines output")


def build_parser() -> argparse.ArgumentParser:
    """The ``argparse`` parser of ``python -m scrapy_robots_rfc``."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Check URLs against a robots.txt, or lint one (RFC 9309, Google's rules).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    formatter = argparse.RawDescriptionHelpFormatter
    check = commands.add_parser(
        "check",
        help="is each URL allowed, and by which rule",
        description="Print, for each URL, the verdict and the rule that decides it.",
        epilog=_CHECK_EPILOG,
        formatter_class=formatter,
    )
    check.add_argument("robots", metavar="ROBOTS", help="file, - (stdin) or http(s) URL")
    check.add_argument("urls", metavar="URL", nargs="+", help="URLs to check")
    check.add_argument(
        "--user-agent",
        default="*",
        metavar="TOKEN",
        help="the crawler's product token, compared as given (default *: the '*' groups)",
    )
    _common(check)
    check.set_defaults(run=run_check)
    lint_parser = commands.add_parser(
        "lint",
        help="list ignored lines, accepted typos, rules that never decide",
        description="List what a crawler ignores, or reads other than it is written.",
        epilog=_LINT_EPILOG,
        formatter_class=formatter,
    )
    lint_parser.add_argument("robots", metavar="ROBOTS", help="file, - (stdin) or http(s) URL")
    _common(lint_parser)
    lint_parser.set_defaults(run=run_lint, user_agent="*")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    for stream in (out, err):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    run: Callable[[argparse.Namespace, TextIO, TextIO], int] = args.run
    try:
        return run(args, out, err)
    except CliError as exc:
        err.write(f"{PROG} {args.command}: error: {exc}\n")
        return EXIT_ERROR
