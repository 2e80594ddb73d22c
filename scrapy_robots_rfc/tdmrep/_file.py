"""``/.well-known/tdmrep.json`` -> :class:`TdmFile`: its rules, and the
rule that decides a URL.

The W3C TDM Reservation Protocol (Community Group final report, May 2024),
section "TDM File on the Origin Server": the file "contains an array of
JSON objects; each object represents a rule and accepts three
properties": ``location`` ("a pattern matching the path of a set of files
hosted on the server"), ``tdm-reservation`` and the optional
``tdm-policy``. "The most specific match is the first in sequence"; "if no
match is found, a TDM Agent MUST consider that tdm-reservation is unset"
(T-3).

Patterns are matched as robots.txt's are, by the same code
(:func:`scrapy_robots_rfc.robotstxt.escape_pattern`,
:func:`~scrapy_robots_rfc.robotstxt.pattern_matches` and the URL's match
string, :func:`~scrapy_robots_rfc.robotstxt.canonical_match_string`, all
in ``rfc`` mode): section "Use of regular expressions" reuses robots.txt's
``*`` and ``$`` and its percent-encoding ("If a percent-encoded US-ASCII
character is encountered in the URI, it MUST be unencoded prior to
comparison, unless it is a reserved character"; "If TDM Agents match
special characters verbatim in the URI, they MUST use "%" encoding":
``/path/foo-%24`` matches ``/path/foo-$``), and "for the sake of
interoperability, TDM Agents should follow the rules detailed by Google in
How Google interprets the robots.txt specification". Case-sensitive ("The
matching SHOULD be case sensitive"). That is D-2 and D-3, whatever mode
robots.txt is matched in (T-3).

Parsing never raises on content: bytes that are not JSON, JSON that is not
an array, entries that are not objects and rules without a usable
``location`` give fewer rules (none at worst: unset, "the origin server
does not implement this protocol", T-2) and a :class:`Note` each. Time and
memory are linear in the input, which is bounded like robots.txt's (500
KiB by default); a file cut at the bound is not read (:attr:`TdmFile.whole`
is false: what it says is not known, T-2).

Pure Python: the standard library's :mod:`json` and
:mod:`scrapy_robots_rfc.robotstxt`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from ..robotstxt import MAX_BYTES, canonical_match_string, escape_pattern, pattern_matches
from ._values import TDM_POLICY, TDM_RESERVATION, Reservation, Source, Statement, TdmValue

#: Where the file is, on every origin (section "TDM File on the Origin
#: Server"; RFC 8615 well-known URIs).
TDMREP_PATH: Final = "/.well-known/tdmrep.json"
#: The key of a rule's pattern.
LOCATION: Final = "location"
_KEYS: Final = frozenset((LOCATION, TDM_RESERVATION, TDM_POLICY))
#: At most this many notes are kept, then one that counts the rest: a file
#: of 500 KiB can hold 100,000 entries that are not rules.
MAX_NOTES: Final = 100
_BOM: Final = b"\xef\xbb\xbf"

#: What each :attr:`Note.code` means.
NOTE_CODES: Mapping[str, str] = MappingProxyType(
    {
        "past-limit": "the file is larger than the size bound: it is not read, and what it says "
        "is not known",
        "bom": "a UTF-8 byte order mark before the JSON text is skipped",
        "non-utf8": "bytes that are not UTF-8 (RFC 8259 §8.1): read byte for byte",
        "not-json": "the file is not JSON: no rules, every URL is unset",
        "not-array": "the JSON text is not an array of rules: no rules, every URL is unset",
        "not-object": "an entry of the array that is not an object is not a rule",
        "no-location": "a rule without a location (a string) is skipped",
        "empty-location": "a rule whose location is empty matches no URL and is skipped",
        "not-a-path": "a location that starts with neither '/' nor '*' matches no URL",
        "bad-reservation": "a rule whose tdm-reservation is not the number 0 or 1: a protocol "
        "error, the URLs it matches are unset",
        "bad-policy": "a tdm-policy that is not a URL (a non-empty string) is not read",
        "duplicate-key": "a key given twice in one rule: if the values differ, neither is read",
        "unknown-key": "a key the protocol does not define is ignored",
        "more-notes": "the notes past the first 100 are counted, not kept",
    }
)


class Note(NamedTuple):
    """Something in the file that was skipped or read other than it is
    written: the ``position`` in the array of the entry it is about (from
    0; ``None``: the whole file), a ``code`` of :data:`NOTE_CODES` and, for
    people, what happened."""

    position: int | None
    code: str
    text: str

    def __str__(self) -> str:
        return self.text if self.position is None else f"[{self.position}] {self.text}"


class TdmRule(NamedTuple):
    """A rule of the file that has a location: its ``position`` in the
    array (from 0, counting every entry), its ``location`` as written and the
    ``pattern`` that is matched (its ``rfc``-mode canonical form, D-2), its
    ``tdm-reservation`` (``None``: missing or not 0 or 1, a protocol error)
    and its ``tdm-policy`` (``None``: none that reads)."""

    position: int
    location: str
    pattern: str
    reservation: Reservation | None
    policy: str | None

    def matches(self, path: str) -> bool:
        """Whether ``location`` matches the match string ``path``: a URL's
        path and query in ``rfc`` canonical form, as
        ``scrapy_robots_rfc.robotstxt.canonical_match_string`` gives it."""
        return pattern_matches(self.pattern, path)

    def __str__(self) -> str:
        value = "invalid" if self.reservation is None else str(self.reservation)
        text = f"[{self.position}] location {self.location!r}: tdm-reservation {value}"
        return text if self.policy is None else f"{text}, tdm-policy {self.policy}"


class _Object(dict[str, Any]):
    """A JSON object that gives a key of the protocol more than once (RFC
    8259 §4: names SHOULD be unique, and parsers differ on which one they
    keep): ``duplicated`` holds each such key and whether its values
    differ."""

    __slots__ = ("duplicated",)

    def __init__(self, pairs: list[tuple[str, Any]], duplicated: tuple[tuple[str, bool], ...]):
        super().__init__(pairs)
        self.duplicated = duplicated


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, as :func:`json.loads` makes it; an
    :class:`_Object` when it gives a key of the protocol twice. Other keys
    given twice are not looked at: they are ignored anyway."""
    made = dict(pairs)
    if len(made) == len(pairs):
        return made
    given: dict[str, list[Any]] = {}
    for key, value in pairs:
        if key in _KEYS:
            given.setdefault(key, []).append(value)
    duplicated = tuple(
        (key, any(value != values[0] for value in values[1:]))
        for key, values in sorted(given.items())
        if len(values) > 1
    )
    return _Object(pairs, duplicated) if duplicated else made


class _Notes:
    """The notes of one parse, the first :data:`MAX_NOTES` of them kept."""

    __slots__ = ("kept", "more")

    def __init__(self) -> None:
        self.kept: list[Note] = []
        self.more = 0

    def add(self, position: int | None, code: str, text: str) -> None:
        if len(self.kept) < MAX_NOTES:
            self.kept.append(Note(position, code, text))
        else:
            self.more += 1

    def done(self) -> tuple[Note, ...]:
        if self.more:
            more = f"{self.more:,} more notes are not kept"
            return (*self.kept, Note(None, "more-notes", more))
        return tuple(self.kept)


@dataclass(frozen=True, slots=True)
class TdmFile:
    """A parsed ``tdmrep.json``: its :attr:`rules` in array order, the
    :attr:`notes` of what was skipped, and whether it was read
    :attr:`whole`.

    >>> file = TdmFile.parse(b'''[
    ...   {"location": "/directory-a/", "tdm-reservation": 1},
    ...   {"location": "/directory-b/images/*.jpg", "tdm-reservation": 0}
    ... ]''')
    >>> print(file.statement("https://provider.com/directory-a/report.pdf"))
    tdmrep.json[0] (location '/directory-a/'): tdm-reservation 1
    >>> print(file.value("https://provider.com/directory-b/images/cat.jpg"))
    not reserved (tdm-reservation 0 from tdmrep.json[1] (location '/directory-b/images/*.jpg'))
    >>> print(file.value("https://provider.com/other"))
    unset (no source states a valid tdm-reservation)
    """

    #: The rules that have a location, in array order.
    rules: tuple[TdmRule, ...] = ()
    notes: tuple[Note, ...] = ()
    #: False when the file was cut at the size bound (or handed over cut):
    #: it has no rules then, and what it says is not known (T-2).
    whole: bool = True

    def cost(self) -> int:
        """What the parsed file keeps in memory, in bytes: itself, its rules
        and notes and their strings, as ``sys.getsizeof`` gives them
        (within a few percent of what ``tracemalloc`` sees kept). What a
        crawl's cache charges for it (``ROBOTSTXT_RFC_CACHE_BYTES``)."""
        size = sys.getsizeof
        total = size(self) + size(self.rules) + size(self.notes)
        for rule in self.rules:
            total += size(rule) + size(rule.position) + size(rule.location) + size(rule.pattern)
            if rule.policy is not None:
                total += size(rule.policy)
        for note in self.notes:
            total += size(note) + size(note.position) + size(note.code) + size(note.text)
        return total

    @classmethod
    def parse(
        cls, body: object, *, max_bytes: int | None = MAX_BYTES, truncated: bool = False
    ) -> TdmFile:
        """Parse ``body``, the bytes of ``/.well-known/tdmrep.json`` (or a
        str, read as its UTF-8 bytes).

        A body longer than ``max_bytes`` (500 KiB by default, as
        robots.txt's; ``None``: no bound), or one that is itself what is
        left of a longer file (``truncated``, as the crawl cuts a download
        at ``ROBOTSTXT_RFC_MAX_BYTES``), is not read: :attr:`whole` is
        false and there are no rules (T-2).

        Raises ``TypeError`` for a body of any other type, or a
        ``max_bytes`` that is not an int or ``None``; ``ValueError`` for a
        negative ``max_bytes``; never anything for any content.
        """
        if max_bytes is not None:
            if not isinstance(max_bytes, int) or isinstance(max_bytes, bool):
                raise TypeError(f"max_bytes must be an int or None, not {type(max_bytes).__name__}")
            if max_bytes < 0:
                raise ValueError(f"max_bytes must be 0 or more bytes, or None, not {max_bytes}")
        data = _as_bytes(body)
        if truncated or (max_bytes is not None and len(data) > max_bytes):
            bound = MAX_BYTES if max_bytes is None else max_bytes
            size = "" if truncated else f" ({len(data):,} bytes)"
            text = f"the file{size} is larger than {bound:,} bytes: not read, not known"
            return cls((), (Note(None, "past-limit", text),), whole=False)
        notes = _Notes()
        found = _json(data, notes)
        if not isinstance(found, list):
            if found is not _NOT_JSON:
                what = _json_type(found)
                hint = " (a rule must be inside [ ])" if isinstance(found, dict) else ""
                notes.add(None, "not-array", f"the JSON text is {what}, not an array{hint}")
            return cls((), notes.done())
        rules = []
        for index, entry in enumerate(found):
            if not isinstance(entry, dict):
                notes.add(index, "not-object", f"{_json_type(entry)}, not an object: not a rule")
                continue
            rule = _rule(index, entry, notes)
            if rule is not None:
                rules.append(rule)
        return cls(tuple(rules), notes.done())

    def rule_for(self, url: str | bytes) -> TdmRule | None:
        """The rule that decides ``url``: the first in array order whose
        location matches the URL's path and query (T-3), or ``None``."""
        path = canonical_match_string(url, "rfc")
        for rule in self.rules:
            if pattern_matches(rule.pattern, path):
                return rule
        return None

    def statement(self, url: str | bytes) -> Statement:
        """What the file says of ``url``: the first matching rule's
        reservation and policy, with its position; nothing when no rule
        matches, or when the file was not read whole."""
        if not self.whole:
            return Statement(Source("file"), errors=("not read whole: not known",))
        rule = self.rule_for(url)
        if rule is None:
            return Statement(Source("file"))
        errors: tuple[str, ...] = ()
        if rule.reservation is None:
            errors = ("its tdm-reservation is not 0 or 1: a protocol error",)
        source = Source("file", rule.position, rule.location)
        return Statement(source, rule.reservation, rule.policy, errors)

    def value(self, url: str | bytes) -> TdmValue:
        """The value of ``url`` from the file alone (what is known before
        it is downloaded): :meth:`statement` as a :class:`TdmValue`, to
        which a response's header and meta statements are added."""
        return TdmValue((self.statement(url),))

    def __str__(self) -> str:
        lines = [str(rule) for rule in self.rules]
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)


#: What :func:`_json` gives for a body that is not JSON.
_NOT_JSON: Final = object()


def _json(data: bytes, notes: _Notes) -> object:
    """The JSON value of ``data``, or :data:`_NOT_JSON` with a note.

    UTF-8 (RFC 8259 §8.1); a BOM is skipped, as the RFC lets a parser do;
    bytes that are not UTF-8 are kept as they are (surrogate escapes, so a
    location with them matches the same bytes in a URL, as robots.txt
    reads them)."""
    if data.startswith(_BOM):
        notes.add(None, "bom", "a UTF-8 byte order mark is skipped")
        data = data[len(_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        notes.add(None, "non-utf8", f"byte {exc.start:,} and maybe others are not UTF-8")
        text = data.decode("utf-8", "surrogateescape")
    try:
        return json.loads(text, object_pairs_hook=_object)
    except RecursionError:
        notes.add(None, "not-json", "not JSON that can be read: nested too deeply")
    except ValueError as exc:
        # json.JSONDecodeError says where; a number of more than 4,300
        # digits is a ValueError too (Python's int limit).
        notes.add(None, "not-json", f"not JSON: {exc}")
    return _NOT_JSON


def _rule(index: int, entry: dict[str, Any], notes: _Notes) -> TdmRule | None:
    """The rule of one object of the array, or ``None`` (with a note) when
    it has no location to match."""
    ambiguous: frozenset[str] = frozenset()
    if isinstance(entry, _Object):
        ambiguous = frozenset(key for key, differ in entry.duplicated if differ)
        for key, differ in entry.duplicated:
            said = "different values: neither is read" if differ else "the same value"
            notes.add(index, "duplicate-key", f"{key!r} is given more than once, with {said}")
    unknown = sorted(key for key in entry if key not in _KEYS)
    if unknown:
        names = ", ".join(repr(key) for key in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        notes.add(index, "unknown-key", f"ignored: {names}{more}")
    location = entry.get(LOCATION)
    if LOCATION in ambiguous:
        location = None
    if not isinstance(location, str):
        what = "no location" if location is None else f"a location that is {_json_type(location)}"
        notes.add(index, "no-location", f"{what}: the rule is skipped")
        return None
    if not location:
        notes.add(index, "empty-location", "an empty location matches no URL: the rule is skipped")
        return None
    if location[0] not in "/*":
        notes.add(index, "not-a-path", f"location {location!r} is not a path: it matches no URL")
    pattern = escape_pattern(_utf8(location), "rfc")
    reservation = _reservation(index, entry, ambiguous, notes)
    policy = _policy(index, entry, ambiguous, notes)
    return TdmRule(index, location, pattern, reservation, policy)


def _reservation(
    index: int, entry: dict[str, Any], ambiguous: frozenset[str], notes: _Notes
) -> Reservation | None:
    """A rule's ``tdm-reservation``: the JSON number 0 or 1 (section
    "tdm-reservation": other values are protocol errors). A string such as
    ``"1"`` or a JSON ``true`` is another value, as the protocol says."""
    if TDM_RESERVATION in ambiguous:
        return None
    if TDM_RESERVATION not in entry:
        notes.add(index, "bad-reservation", "no tdm-reservation: a protocol error, unset")
        return None
    value = entry[TDM_RESERVATION]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value == 1:
            return 1
        if value == 0:
            return 0
    shown = json.dumps(value) if not isinstance(value, (dict, list)) else _json_type(value)
    notes.add(
        index,
        "bad-reservation",
        f"tdm-reservation {shown[:80]} is not the number 0 or 1: a protocol error, unset",
    )
    return None


def _policy(
    index: int, entry: dict[str, Any], ambiguous: frozenset[str], notes: _Notes
) -> str | None:
    """A rule's ``tdm-policy``: a URL, as written, white space around it
    dropped (section "tdm-policy"); ``None`` when it has none that reads."""
    if TDM_POLICY in ambiguous or TDM_POLICY not in entry:
        return None
    value = entry[TDM_POLICY]
    if isinstance(value, str):
        policy = value.strip()
        try:
            policy.encode("utf-8")
        except UnicodeEncodeError:
            policy = ""  # a lone surrogate: no URL
        if policy:
            return policy
    shown = repr(value) if isinstance(value, str) else _json_type(value)
    notes.add(index, "bad-policy", f"tdm-policy {shown[:80]} is not a URL: not read")
    return None


def _json_type(value: object) -> str:
    """What a JSON value is, in words."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return "a number"


def _as_bytes(body: object) -> bytes:
    if isinstance(body, bytes):
        return body
    if isinstance(body, (bytearray, memoryview)):
        return bytes(body)
    if isinstance(body, str):
        return _utf8(body)
    raise TypeError(f"tdmrep.json body must be bytes or str, not {type(body).__name__}")


def _utf8(text: str) -> bytes:
    """``text`` as UTF-8, a byte that was not UTF-8 (a surrogate escape)
    given back as that byte, so that a location with one matches the same
    byte in a URL (D-2); any other lone surrogate (a ``\\ud800`` escape
    in the JSON text) as its three bytes, which no URL has."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")
