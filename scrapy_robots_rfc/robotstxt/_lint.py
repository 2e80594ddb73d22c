"""What a robots.txt author would want to know: ``python -m scrapy_robots_rfc
lint``.

Pure, like :mod:`.robotstxt._parser` and :mod:`.robotstxt._matcher`: it never imports Scrapy and
does no I/O; :mod:`.cli` reads the file and prints. The findings come from
two places:

* the parser's notes (:attr:`.RobotsTxt.notes`), one finding each, with the
  same code and text: lines that are skipped or cut, keys read other than
  they are written, bytes that are not UTF-8, content past the 500 KiB limit;
* the rules of each group as written (:attr:`.RobotsTxt.groups`): rules that
  match nothing, never match, never decide (``shadowed``) or repeat another
  (``duplicate``);
* the content-usage and content-signal lines (:attr:`.RobotsTxt.usage_rules`,
  :mod:`.robotstxt._usage`): statements that are not a Structured Fields Dictionary or
  state nothing, keys and values that are ignored, and preferences for URLs
  robots.txt disallows, which never apply.

Every code is listed in :data:`CODES`. :func:`looks_like_html` tells a body
that looks like an HTML page (a server's answer that is not a robots.txt),
which the command says first (:func:`html_page`) and the crawl says in a
WARNING. The command prints one ``SOURCE:LINE: CODE:
message`` line per finding. With ``--json`` it prints
one JSON object per finding (the ``lint`` schema of :mod:`.schemas`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from ._directives import WHITESPACE, as_text
from ._matcher import literal_prefix
from ._names import GLOBAL_NAME, agent_product, agent_token
from ._parser import MAX_BYTES, NOTE_CODES, RobotsTxt
from ._patterns import pattern_matches
from ._usage import TOKENS, parse_statement

if TYPE_CHECKING:
    from ._canonical import Mode
    from ._matcher import AgentRules
    from ._patterns import Rule
    from ._usage import UsageRule

#: What ``lint`` reports, by code: the parser's notes (:data:`NOTE_CODES`),
#: then what the rules of a group say about each other. Every code but
#: those of :data:`NOTE_ONLY` is a finding; those are notes that do not
#: change the exit status (``Disallow:`` is the usual way to say "allow
#: everything"). The texts cite RFC 9309, never the spec IDs of the
#: comments (never-matches: PATH-10, D-6; shadowed: PATH-5, PATH-6;
#: empty-rule: FMT-15, D-19).
CODES: Mapping[str, str] = MappingProxyType(
    {
        **NOTE_CODES,
        "never-matches": "a pattern not starting with '/' or '*' matches no URL (RFC 9309 §2.2)",
        "shadowed": "a rule that a rule of the other kind always overrides (RFC 9309 §2.2.2)",
        "duplicate": "the same rule earlier in the same group",
        "empty-rule": "note: an empty allow/disallow matches nothing",
        "incomplete": "note: too many rules to search them all for shadowed ones",
        "usage-syntax": (
            "a content-usage/content-signal value that is not a Structured Fields "
            "Dictionary: every category unknown (RFC 9651 §4.2)"
        ),
        "usage-empty": "a content-usage/content-signal line that states no preference",
        "usage-category": (
            "a key that is not a category of its line: ignored (draft-ietf-aipref-vocab-08 §6.4)"
        ),
        "usage-value": (
            "a value other than y/n (content-usage) or yes/no (content-signal): unknown"
        ),
        "usage-duplicate": "a key given twice on one line: only the last counts (RFC 9651 §3.2)",
        "usage-disallowed": (
            "a usage preference for URLs robots.txt disallows: it never applies "
            "(draft-ietf-aipref-attach-05 §3.1)"
        ),
    }
)
#: The codes that are notes, not findings.
NOTE_ONLY = frozenset({"empty-rule", "incomplete"})

#: Rule pairs compared in search of shadowed rules, per file: a group of
#: thousands of ``/*...`` rules would otherwise take minutes.
MAX_COMPARISONS = 5_000_000

#: How an HTML page starts, lower-cased, after white space and a BOM.
_HTML_STARTS = (b"<!doctype html", b"<html")
#: The bytes looked at for how a body starts: white space beyond them is
#: not an HTML page's start.
_HTML_PEEK = 4096
#: The media types of an HTML page; RFC 9309 §2.3 asks for text/plain.
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})


@dataclass(frozen=True, order=True)
class Finding:
    """One ``lint`` finding: a line, a code of :data:`CODES` and what to
    tell the author."""

    line: int
    code: str
    message: str

    @property
    def is_note(self) -> bool:
        """Whether it is only a note (:data:`NOTE_ONLY`)."""
        return self.code in NOTE_ONLY


def lint(
    body: bytes,
    mode: Mode = "rfc",
    *,
    max_bytes: int | None = MAX_BYTES,
    truncated: bool = False,
) -> list[Finding]:
    """The findings for the robots.txt ``body``, in line order.

    Of ``body``, what :meth:`.RobotsTxt.parse` reads is linted: at most
    ``max_bytes`` (500 KiB by default, RFC 9309 §2.5; ``None``: all of
    it). Content cut there is a ``past-limit`` finding, as it is when
    ``truncated`` says that ``body`` was cut already
    (:func:`~.robotstxt._parser.cut_at_limit`).
    """
    robots = RobotsTxt.parse(body, mode, max_bytes=max_bytes, truncated=truncated)
    found = [Finding(note.line, note.code, note.text) for note in robots.notes]
    budget = MAX_COMPARISONS
    for group in robots.groups:
        group_found, budget = _group_findings(group.rules, budget)
        found += group_found
    found += _usage_findings(robots)
    return sorted(set(found))


@dataclass(frozen=True)
class HtmlPage:
    """Why a body served as robots.txt looks like an HTML page (a server's
    answer that is not a robots.txt: a soft 404, a log-in page), and what a
    crawler reads of it (:func:`looks_like_html`).

    A crawler parses such a page anyway and uses the lines that parse as
    robots.txt lines, ignoring the others (RFC 9309 §2.3.1.5: "Crawlers MUST
    try to parse each line of the robots.txt file. Crawlers MUST use the
    parseable rules"; Google's robots.txt specification, "File format").
    """

    #: How it starts (``'<!DOCTYPE html'``, as written), when that is a sign.
    starts: str | None
    #: The media type it was served as (``text/html``), when that is a sign.
    served_as: str | None
    #: Whether any line of it parses as a robots.txt line: a group or a
    #: sitemap was read.
    read: bool

    @property
    def why(self) -> str:
        """The signs, for people: "it starts with '<html' and it was served
        as text/html"."""
        why = [f"it starts with {self.starts!r}"] if self.starts is not None else []
        why += [f"it was served as {self.served_as}"] if self.served_as is not None else []
        return " and ".join(why)

    def __str__(self) -> str:
        """What ``lint`` says first about the file."""
        ignored = (
            "a crawler reads only the lines that parse as robots.txt lines and ignores the rest"
            if self.read
            else "every line is ignored, so a crawler finds no rule in it"
        )
        return f"this looks like an HTML page, not a robots.txt ({self.why}): {ignored}"


def looks_like_html(
    body: bytes, content_type: str = "", mode: Mode = "rfc", *, robots: RobotsTxt | None = None
) -> HtmlPage | None:
    """Whether ``body`` looks like an HTML page, not a robots.txt: an
    :class:`HtmlPage` that says why, or ``None``.

    It does when it starts, after white space and a BOM (within its first
    4 KiB: the body is never copied), with ``<!doctype html`` or ``<html``
    (in any case), or when it was served as
    ``text/html`` or ``application/xhtml+xml`` (``content_type``, the media
    type) and not one line of it is read. ``robots`` is ``body`` parsed,
    when the caller has it (the crawl does); else it is parsed in ``mode``.
    """
    start = body[:_HTML_PEEK].removeprefix(b"\xef\xbb\xbf").lstrip(WHITESPACE)
    starts = next((s for s in _HTML_STARTS if start[: len(s)].lower() == s), b"")
    served = content_type.lower() in HTML_TYPES
    if not starts and not served:
        return None
    if robots is None:
        robots = RobotsTxt.parse(body, mode)
    read = bool(robots.group_count or robots.sitemaps)
    if not starts and read:
        return None
    return HtmlPage(
        starts=start[: len(starts)].decode("ascii") if starts else None,
        served_as=content_type.lower() if served else None,
        read=read,
    )


def html_page(body: bytes, content_type: str = "", mode: Mode = "rfc") -> str | None:
    """What to say first about ``body`` if it looks like an HTML page, not a
    robots.txt (:func:`looks_like_html`), or ``None``. Every line of it that
    is not read is a finding."""
    found = looks_like_html(body, content_type, mode)
    return None if found is None else str(found)


#: The parser's notes of a line it ignores (:data:`NOTE_CODES`).
IGNORED_LINE_CODES = frozenset(
    {
        "unknown-key",
        "missing-value",
        "syntax",
        "before-user-agent",
        "bad-sitemap",
        "bad-crawl-delay",
        "no-token",
    }
)


@dataclass(frozen=True)
class FileNote:
    """One thing to know about a robots.txt file as a whole, the same words
    in ``check``, ``lint``, ``scrapy robots`` and the crawl's log
    (:func:`file_notes`): ``code`` is ``size-cut``, ``html-page``,
    ``non-utf8`` or ``ignored-lines``."""

    code: str
    message: str

    def __str__(self) -> str:
        return self.message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def _lines(count: int) -> str:
    return f"{count:,} line" if count == 1 else f"{count:,} lines"


def file_notes(
    body: bytes,
    content_type: str = "",
    mode: Mode = "rfc",
    *,
    truncated: bool = False,
    max_bytes: int = MAX_BYTES,
    robots: RobotsTxt | None = None,
) -> tuple[FileNote, ...]:
    """What to say about the robots.txt ``body`` as a whole, in this order:
    cut at the size limit (RFC 9309 §2.5; ``truncated``: the caller cut it
    already, at ``max_bytes``), an HTML page rather than a robots.txt
    (:func:`looks_like_html`, with its ``content_type``), lines with bytes
    that are not UTF-8 (RFC 9309 §2.3), lines ignored. The one source of
    these words for every tool and the crawl. ``robots`` is ``body`` parsed
    when the caller has it; else it is parsed in ``mode``. The lines of an
    HTML page are not counted: the page's note says what is read of it."""
    if robots is None:
        robots = RobotsTxt.parse(body, mode, max_bytes=max_bytes, truncated=truncated)
    notes = robots.notes
    found: list[FileNote] = []
    if truncated or any(note.code == "past-limit" for note in notes):
        found.append(
            FileNote(
                "size-cut",
                f"it is larger than {max_bytes:,} bytes: the rules in its first {max_bytes:,} "
                "bytes are used, the rest is ignored (RFC 9309 §2.5)",
            )
        )
    html = looks_like_html(body, content_type, mode, robots=robots)
    if html is not None:
        found.append(FileNote("html-page", str(html)))
        return tuple(found)
    utf8 = [note for note in notes if note.code == "non-utf8"]
    if utf8:
        found.append(
            FileNote(
                "non-utf8",
                f"{_lines(len(utf8))} with bytes that are not UTF-8 (first: line {utf8[0].line}); "
                "in a path such a byte is %-escaped and matches no UTF-8 URL (RFC 9309 §2.3)",
            )
        )
    ignored = [note for note in notes if note.code in IGNORED_LINE_CODES]
    if ignored:
        first = ignored[0]
        found.append(
            FileNote(
                "ignored-lines",
                f"{_lines(len(ignored))} ignored, the first at line {first.line}: "
                f"{first.text}; lint lists them all",
            )
        )
    return tuple(found)


def _never_matches(pattern: str) -> bool:
    """PATH-10, D-6: every match string starts with ``/`` (URL-1), so a
    pattern whose first character is neither ``/`` nor ``*`` matches none
    (this includes a lone ``$``)."""
    return not pattern.startswith(("/", "*"))


def _covers(wide: str, narrow: str) -> bool:
    """Whether the pattern ``wide`` matches every path that the pattern
    ``narrow`` matches.

    Sufficient, not necessary: ``narrow`` is written as a word in which
    each ``*`` (and, unless ``narrow`` ends with ``$``, the end) is a NUL, a
    character no pattern contains (FMT-14) and so only a ``*`` of ``wide``
    can match. If ``wide`` matches that word (:func:`pattern_matches`, exact
    for ``*``-only patterns, PATH-2, PATH-3), it matches every path obtained
    by putting any text in place of the NULs: every path ``narrow`` matches.
    """
    anchored = narrow.endswith("$")
    word = (narrow[:-1] if anchored else narrow).replace("*", "\0")
    return pattern_matches(wide, word if anchored else word + "\0")


def _beats(rule: Rule, other: Rule) -> bool:
    """Whether ``rule`` decides over ``other`` when both match: longer, or
    an allow of the same length (RFC 9309 §2.2.2; PATH-5, PATH-6)."""
    if len(rule.pattern) != len(other.pattern):
        return len(rule.pattern) > len(other.pattern)
    return rule.allow and not other.allow


def _group_findings(rules: Sequence[Rule], budget: int) -> tuple[list[Finding], int]:
    """Empty, never-matching, shadowed and duplicate rules of one group, and
    what is left of ``budget``, the rule pairs that may still be compared."""
    found: list[Finding] = []
    live: list[Rule] = []
    dead_lines: set[int] = set()
    for rule in rules:
        if rule.index_of is not None:
            live.append(rule)
        elif not rule.pattern:
            found.append(
                Finding(
                    rule.line,
                    "empty-rule",
                    f"empty {rule.kind}: matches nothing, a no-op (not an error); it still "
                    "ends the user-agent lines of its group, as in Google's parser",
                )
            )
        elif _never_matches(rule.pattern):
            dead_lines.add(rule.line)
            found.append(
                Finding(
                    rule.line,
                    "never-matches",
                    f"{rule.kind}: {rule.pattern} matches no URL: a path starts with '/' "
                    "(write '/' or '*' first; RFC 9309 §2.2)",
                )
            )
        else:
            live.append(rule)
    # Only a rule whose literal prefix starts the other's can cover it.
    by_prefix: dict[str, list[Rule]] = {}
    for rule in live:
        by_prefix.setdefault(literal_prefix(rule.pattern), []).append(rule)
    sizes = sorted({len(prefix) for prefix in by_prefix})
    # A line with a derived index.html rule (PATH-9) is dead only when all
    # of its rules are.
    per_line: dict[int, list[tuple[Rule, Rule | None]]] = {}
    for rule in live:
        prefix = literal_prefix(rule.pattern)
        covering: list[Rule] = []
        if budget <= 0:
            found.append(
                Finding(
                    rule.line,
                    "incomplete",
                    f"more than {MAX_COMPARISONS:,} pairs of rules compared: rules from this "
                    "line on are not searched for shadowed or duplicate ones",
                )
            )
            break
        for size in sizes:
            if size > len(prefix):
                break
            candidates = by_prefix.get(prefix[:size], ())
            budget -= len(candidates)
            for other in candidates:
                if other.line == rule.line:
                    continue
                if other.allow != rule.allow:
                    wins = _beats(other, rule)
                else:
                    wins = other.pattern == rule.pattern and other.line < rule.line
                if wins and _covers(other.pattern, rule.pattern):
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
            found.append(Finding(line, "duplicate", f"{rule.kind}: {rule.pattern} repeats {shown}"))
        else:
            found.append(
                Finding(
                    line,
                    "shadowed",
                    f"{rule.kind}: {rule.pattern} never decides: {shown} matches every URL it "
                    "matches and wins (longest match, allow on a tie; RFC 9309 §2.2.2)",
                )
            )
    return found, budget


# -- content-usage and content-signal (U-1 to U-5) --------------------------

#: The labels of earlier drafts of draft-ietf-aipref-vocab (-01 to -04)
#: that -08 does not have: ignored like any unknown key (vocab-08 §6.4).
#: (``ai-use`` was one of them and is again, as vocab-08's AI Use, §4.2.)
_EARLIER_LABELS = frozenset(
    ("tdm", "ai", "genai", "inference", "all", "train-genai", "bots", "ai-output")
)
#: A line's categories as its author writes them (Content-Usage in
#: vocab-08's order, §6.1 Table 1; Content-Signal in Cloudflare's).
_LISTED = {
    "content-usage": "train-ai, ai-use, search",
    "content-signal": "search, ai-input, ai-train",
}
#: The hint for a label of the other kind of line (U-3).
_OTHER_KIND = {
    ("content-usage", "ai-train"): "Content-Usage writes it 'train-ai'",
    ("content-signal", "train-ai"): "Content-Signal writes it 'ai-train'",
    ("content-usage", "ai-input"): "Content-Usage writes it 'ai-use'",
    ("content-signal", "ai-use"): "Content-Signal writes it 'ai-input'",
}


def _usage_findings(robots: RobotsTxt) -> list[Finding]:
    """The findings on each content-usage and content-signal line: its
    statement (vocab-08 §6.5, RFC 9651 §4.2), then whether it can apply."""
    rules = [rule for _, rule in robots.usage_rules]
    found = [finding for rule in rules for finding in _statement_findings(rule)]
    if rules:
        found += _never_applies(robots, rules)
    return found


def _statement_findings(rule: UsageRule) -> list[Finding]:
    """What is wrong with ``rule``'s statement: not a Dictionary, empty,
    or members that state nothing (:attr:`.robotstxt._usage.Statement.ignored`)."""
    kind, line = rule.kind, rule.line
    statement = parse_statement(rule.statement, kind)
    if statement.error is not None:
        text = as_text(rule.statement)
        message = (
            f"{kind} value {text!r} is not a Structured Fields Dictionary ({statement.error}): "
            "every category is unknown (RFC 9651 §4.2)"
        )
        # "Content-Usage: *.pdf train-ai=n": no '/', so all of it is the statement.
        if text.startswith("*"):
            message += "; a path starts with '/'"
        return [Finding(line, "usage-syntax", message)]
    if not statement.members:
        what = "the line" if rule.pattern == "/" else repr(rule.pattern)
        return [Finding(line, "usage-empty", f"{kind}: {what} states no preference")]
    found = []
    for key, why, member in statement.ignored:
        if why == "duplicate":
            message = (
                f"{kind}: {key!r} is given more than once: only the last counts (RFC 9651 §3.2)"
            )
            found.append(Finding(line, "usage-duplicate", message))
        elif why == "category":
            found.append(Finding(line, "usage-category", _category_message(kind, key)))
        else:
            found.append(Finding(line, "usage-value", _value_message(kind, member)))
    return found


def _category_message(kind: str, key: str) -> str:
    """``content-usage: 'ai-train' is not a usage category (train-ai,
    search): ignored; Content-Usage writes it 'train-ai'``."""
    message = f"{kind}: {key!r} is not a usage category ({_LISTED[kind]}): ignored"
    hint = _OTHER_KIND.get((kind, key))
    if hint is None and kind == "content-usage" and key in _EARLIER_LABELS:
        hint = f"{key!r} is a category of earlier drafts, not of draft-ietf-aipref-vocab-08"
    return message if hint is None else f"{message}; {hint}"


def _value_message(kind: str, member: str) -> str:
    """``content-usage: train-ai=yes: the value is not y or n, so the
    preference is unknown``, with a hint for ``N``, ``"n"`` and a key
    without a value."""
    allow, disallow = TOKENS[kind]
    value = member.partition("=")[2].partition(";")[0]
    message = (
        f"{kind}: {member}: the value is not {allow} or {disallow}, so the preference is unknown"
    )
    if "=" not in member.partition(";")[0]:
        message += " (a key alone is the Boolean true)"
    elif value.lower() in (allow, disallow):
        message += " (values are case-sensitive)"
    elif value.strip('"') in (allow, disallow):
        message += " (a Token, written without quotes)"
    return message


def _never_applies(robots: RobotsTxt, rules: Sequence[UsageRule]) -> list[Finding]:
    """``usage-disallowed`` for each rule that states a preference for no
    URL a crawler may fetch (attach-05 §3.1, U-5), as proven for every
    crawler the rule applies to (:func:`_disallowing`).

    The crawlers are named after every group's token and product name, and
    ``*`` for all others: any name selects the same rules as one of these.
    """
    names = dict.fromkeys([GLOBAL_NAME])
    for group in robots.groups:
        for value in group.agents:
            names.update(dict.fromkeys(n for n in (agent_token(value), agent_product(value)) if n))
    stating = {rule.line for rule in rules if parse_statement(rule.statement, rule.kind).values}
    # line -> the disallow rule that decides every URL it matches, for
    # every crawler seen so far; None once one crawler may fetch one.
    proofs: dict[int, Rule | None] = {}
    for name in names:
        agent = robots.for_agent(name)
        for rule in (rule for rules in agent.usage or () for rule in rules):
            if rule.line in stating and proofs.get(rule.line, True) is not None:
                proof = _disallowing(agent, rule.pattern)
                proofs[rule.line] = proof if proof is None else proofs.get(rule.line, proof)
    return [
        Finding(
            rule.line,
            "usage-disallowed",
            f"{str(rule).removesuffix(f' (line {rule.line})')}: every URL it applies to is "
            f"disallowed by {proof}, so it never applies (draft-ietf-aipref-attach-05 §3.1)",
        )
        for rule in rules
        if (proof := proofs.get(rule.line)) is not None
    ]


def _disallowing(agent: AgentRules, pattern: str) -> Rule | None:
    """The disallow rule of ``agent`` that decides every URL the usage
    ``pattern`` matches, or ``None`` when that is not proven.

    It is the longest disallow that :func:`_covers` the pattern. No allow
    at least as long (which would win, RFC 9309 §2.2.2) may match a URL the
    pattern matches: a path both match starts with both literal prefixes,
    so one prefix starts the other. (``/robots.txt``, always allowed in rfc
    mode, D-1, is left out: a preference is about the site's content.)
    """
    rules = agent.rules  # longest first, allow first on a tie
    wide = next((r for r in rules if not r.allow and _covers(r.pattern, pattern)), None)
    if wide is None:
        return None
    prefix = literal_prefix(pattern)
    for rule in rules:
        if len(rule.pattern) < len(wide.pattern):
            break
        other = literal_prefix(rule.pattern)
        if rule.allow and (other.startswith(prefix) or prefix.startswith(other)):
            return None
    return wide
