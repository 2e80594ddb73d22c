"""What one source says of a URL's TDM reservation (a :class:`Statement`),
and the value the sources add up to (a :class:`TdmValue`).

The W3C TDM Reservation Protocol (Community Group final report, May 2024)
gives two properties, ``tdm-reservation`` and ``tdm-policy`` (section
"Declaring the reservation of TDM Rights"), and three places a Web server
states them, read in this order (section "Processing priority"; T-1):

1. the TDM file on the origin server, ``/.well-known/tdmrep.json``
   (:mod:`._file`);
2. the response's header fields ``tdm-reservation`` and ``tdm-policy``
   (section "TDM Header Field in HTTP Responses"): :func:`header_statement`;
3. the ``<meta name="tdm-reservation">`` and ``<meta name="tdm-policy">``
   tags of an HTML document (section "TDM Metadata in HTML Content"):
   :func:`meta_statement`, given the head's ``(name, content)`` pairs, as
   :func:`scrapy_robots_rfc.pagerules.meta_tags` reads them.

"The values of tdm-reservation and tdm-policy found [at a later step]
supercede previous values", and "the absence of tdm-reservation and
tdm-policy MUST not reset current values". A value other than ``0`` or
``1`` is a protocol error, after which "the TDM Agents MUST consider that
tdm-reservation is unset" (section "tdm-reservation"): so a protocol error
at a step is that step stating nothing, and never resets what an earlier
step said (T-1). ``tdm-policy`` is not read beside a reservation of 0 ("TDM
Agents SHOULD NOT process tdm-policy in this case", section "tdm-policy"),
and the value has a policy only when its reservation is 1.

Pure Python: no Scrapy, Twisted or HTML parser import; names are
compared in ASCII case only, as robots.txt's (``robotstxt.ascii_lower``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, Literal, NamedTuple

from ..robotstxt import ascii_lower

#: A ``tdm-reservation`` value: 1, TDM rights are reserved; 0, they are not
#: (section "tdm-reservation").
Reservation = Literal[0, 1]
#: The places a value is read from, in the order they supersede each other
#: (section "Processing priority"; T-1).
Kind = Literal["file", "header", "meta"]
KINDS: Final[tuple[Kind, ...]] = ("file", "header", "meta")

#: The names of the two properties, as header field names (matched in any
#: case, RFC 9110 §5.1) and as ``<meta name>`` values (matched in any case,
#: as HTML compares metadata names).
TDM_RESERVATION: Final = "tdm-reservation"
TDM_POLICY: Final = "tdm-policy"

#: The white space around a value that is not part of it: optional white
#: space of a header field (RFC 9110 §5.5: SP, HTAB) and ASCII white space
#: of an HTML attribute.
_SPACE: Final = " \t\n\r\f"
_VALUES: Final[dict[str, Reservation]] = {"0": 0, "1": 1}


class Source(NamedTuple):
    """Where a statement comes from: the TDM file (with the index in its
    array of the rule that matched, and that rule's ``location`` as
    written, when one did), the response's header fields, or the HTML
    document's meta tags."""

    kind: Kind
    #: The matching rule's index in the file's array (from 0), or ``None``.
    rule: int | None = None
    #: The matching rule's ``location``, as written, or ``None``.
    location: str | None = None

    def __str__(self) -> str:
        if self.kind == "file":
            if self.rule is None:
                return "tdmrep.json"
            return f"tdmrep.json[{self.rule}] (location {self.location!r})"
        return "HTTP header" if self.kind == "header" else "HTML meta"


class Statement(NamedTuple):
    """What one source says: its ``tdm-reservation`` (``None`` when it
    states none, or states one that is a protocol error) and its
    ``tdm-policy`` as written (``None`` when it states none), and in
    ``errors`` each protocol error it holds, in words."""

    source: Source
    reservation: Reservation | None = None
    policy: str | None = None
    errors: tuple[str, ...] = ()

    def __str__(self) -> str:
        said = []
        if self.reservation is not None:
            said.append(f"tdm-reservation {self.reservation}")
        if self.policy is not None:
            ignored = " (not read beside 0)" if self.reservation == 0 else ""
            said.append(f"tdm-policy {self.policy}{ignored}")
        if not said:
            if self.errors:
                said.append("unset")
            elif self.source.kind == "file" and self.source.rule is None:
                said.append("no rule's location matches")
            else:
                said.append("nothing stated")
        text = f"{self.source}: {', '.join(said)}"
        if self.errors:
            text += f" ({'; '.join(self.errors)})"
        return text


@dataclass(frozen=True, slots=True)
class TdmValue:
    """A URL's TDM reservation: what its sources say, each superseding the
    ones before (section "Processing priority"; T-1), as a new value at
    each step (:meth:`superseded`).

    ``reservation`` is 1 (reserved), 0 (not reserved) or ``None`` (unset:
    no source states a valid value); ``source`` is the source that decided
    it. ``policy`` is the ``tdm-policy`` URL in force, as written, only
    when the reservation is 1 (section "tdm-policy"), and
    ``policy_source`` the source that stated it.

    >>> value = TdmValue().superseded(Statement(Source("header"), 1, "https://e.com/p.json"))
    >>> print(value)
    reserved (tdm-reservation 1 from HTTP header), policy https://e.com/p.json (HTTP header)
    >>> print(value.superseded(Statement(Source("meta"), None, None, ("bad value",))))
    reserved (tdm-reservation 1 from HTTP header), policy https://e.com/p.json (HTTP header)
    """

    #: What each source said, in the order they were read.
    statements: tuple[Statement, ...] = ()
    reservation: Reservation | None = field(init=False, default=None)
    source: Source | None = field(init=False, default=None)
    policy: str | None = field(init=False, default=None)
    policy_source: Source | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        if not isinstance(self.statements, tuple):
            raise TypeError(f"statements must be a tuple, not {type(self.statements).__name__}")
        reservation: Reservation | None = None
        source = policy_source = None
        policy = None
        rank = -1
        for statement in self.statements:
            if not isinstance(statement, Statement):
                raise TypeError(f"a statement must be a Statement, not {type(statement).__name__}")
            kind = KINDS.index(statement.source.kind)
            if kind <= rank:
                order = ", ".join(KINDS)
                raise ValueError(f"statements come one per source, in the order {order}")
            rank = kind
            # Absence and protocol errors never reset (section "Processing
            # priority"; section "tdm-reservation"; T-1).
            if statement.reservation is not None:
                reservation, source = statement.reservation, statement.source
            # A policy beside a reservation of 0 is not read (section
            # "tdm-policy").
            if statement.policy is not None and statement.reservation != 0:
                policy, policy_source = statement.policy, statement.source
        object.__setattr__(self, "reservation", reservation)
        object.__setattr__(self, "source", source)
        if reservation == 1:
            object.__setattr__(self, "policy", policy)
            object.__setattr__(self, "policy_source", policy_source)

    @property
    def reserved(self) -> bool:
        """Whether TDM rights are reserved (``tdm-reservation`` 1): the
        "opt-out" of Article 4 of Directive (EU) 2019/790."""
        return self.reservation == 1

    @property
    def errors(self) -> tuple[str, ...]:
        """Every protocol error the sources held, each with its source."""
        return tuple(
            f"{statement.source}: {error}"
            for statement in self.statements
            for error in statement.errors
        )

    def superseded(self, statement: Statement) -> TdmValue:
        """This value with ``statement`` read after its own: a new value.

        ``ValueError`` if ``statement``'s source does not come after the
        last one read (file, then header, then meta; one each)."""
        return TdmValue((*self.statements, statement))

    def __str__(self) -> str:
        if self.reservation is None:
            return "unset (no source states a valid tdm-reservation)"
        said = "reserved" if self.reservation == 1 else "not reserved"
        text = f"{said} (tdm-reservation {self.reservation} from {self.source})"
        if self.policy is not None:
            text += f", policy {self.policy} ({self.policy_source})"
        return text


#: The value of a URL that no source has spoken for yet: unset.
UNSET: Final = TdmValue()

#: The ``Request.meta`` / ``Response.meta`` key of a URL's :class:`TdmValue`
#: in a crawl that mines (``ROBOTSTXT_RFC_TDM``): the file's value before
#: download, the final value (header and HTML meta read) once the response
#: is in, for the spider and pipelines.
TDM_META_KEY: Final = "robotstxt_tdm"


def header_statement(
    reservation: Iterable[bytes | str], policy: Iterable[bytes | str] = ()
) -> Statement:
    """What a response's header fields say: ``reservation`` is every field
    line of ``tdm-reservation`` and ``policy`` every one of ``tdm-policy``,
    in order (Scrapy: ``response.headers.getlist("tdm-reservation")``).

    A ``tdm-reservation`` line is a comma list (RFC 9110 §5.3: several lines
    are one list, and a proxy may join them), empty members ignored; the
    value is ``0`` or ``1`` when every member says it, else a protocol
    error. A ``tdm-policy`` line is one URL (a URL may hold a comma);
    several different ones are ambiguous and none is read. Octets are read
    as ISO-8859-1 (RFC 9110 §5.5).

    >>> print(header_statement([b"1"], [b"https://e.com/policy.json"]))
    HTTP header: tdm-reservation 1, tdm-policy https://e.com/policy.json
    >>> print(header_statement([b"1, 1"]))
    HTTP header: tdm-reservation 1
    >>> print(header_statement([b"yes"]))
    HTTP header: unset (tdm-reservation 'yes' is neither 0 nor 1: a protocol error)

    Never raises on content; ``TypeError`` for a single value instead of
    an iterable of them, or a value that is neither bytes nor str.
    """
    lines = _field_lines(reservation, TDM_RESERVATION)
    members = [member for line in lines for member in line.split(",") if member.strip(_SPACE)]
    policies = [line for line in _field_lines(policy, TDM_POLICY) if line.strip(_SPACE)]
    return _statement(Source("header"), members, policies, empty=bool(lines) and not members)


def meta_statement(tags: Iterable[tuple[str, str]]) -> Statement:
    """What an HTML document's ``<meta name="tdm-reservation">`` and
    ``<meta name="tdm-policy">`` say: ``tags`` are the ``(name, content)``
    pairs of its head, in document order, as
    :func:`scrapy_robots_rfc.pagerules.meta_tags` gives them; names are
    matched in any case and other tags ignored. Several tags must agree;
    several different values are a protocol error (reservation) or
    ambiguous (policy), and none is read.

    >>> from scrapy_robots_rfc.pagerules import html_head, meta_tags
    >>> html = (b'<html><head><meta name="tdm-reservation" content="1">'
    ...         b'<meta name="tdm-policy" content="https://e.com/p.json"></head><body>')
    >>> print(meta_statement(meta_tags(html_head(html))))
    HTML meta: tdm-reservation 1, tdm-policy https://e.com/p.json
    """
    if isinstance(tags, (str, bytes, bytearray)):
        raise TypeError("tags must be an iterable of (name, content) pairs, not one value")
    reservations: list[str] = []
    policies: list[str] = []
    for name, content in tags:
        if not isinstance(name, str) or not isinstance(content, str):
            raise TypeError("each tag must be a (name, content) pair of str")
        lowered = ascii_lower(name.strip(_SPACE))
        if lowered == TDM_RESERVATION:
            reservations.append(content)
        elif lowered == TDM_POLICY and content.strip(_SPACE):
            policies.append(content)
    return _statement(Source("meta"), reservations, policies)


def _reservation_of(text: str) -> tuple[Reservation | None, str | None]:
    """A ``tdm-reservation`` value written as text, white space around it
    dropped: ``0`` or ``1``, else ``None`` and the protocol error in words
    (section "tdm-reservation")."""
    value = _VALUES.get(text.strip(_SPACE))
    if value is None:
        return None, f"tdm-reservation {text.strip(_SPACE)!r} is neither 0 nor 1: a protocol error"
    return value, None


def _statement(
    source: Source, reservations: list[str], policies: list[str], *, empty: bool = False
) -> Statement:
    """The statement of a header or meta source from the texts it gives
    for each property: one value, or several that agree."""
    errors: list[str] = []
    reservation: Reservation | None = None
    if empty:
        errors.append("an empty tdm-reservation: a protocol error")
    read = {_reservation_of(text) for text in reservations}
    if len(read) == 1:
        reservation, error = read.pop()
        if error is not None:
            errors.append(error)
    elif read:
        said = ", ".join(repr(text.strip(_SPACE)) for text in reservations)
        errors.append(f"several tdm-reservation values ({said}): a protocol error")
    policy = None
    stripped = {text.strip(_SPACE) for text in policies}
    if len(stripped) == 1:
        policy = stripped.pop()
    elif stripped:
        errors.append(f"several tdm-policy values ({', '.join(sorted(stripped))}): none is read")
    return Statement(source, reservation, policy, tuple(errors))


def _field_lines(values: Iterable[bytes | str], name: str) -> list[str]:
    if isinstance(values, (str, bytes, bytearray)):
        raise TypeError(f"{name} must be an iterable of field lines, not one value")
    lines = []
    for value in values:
        if isinstance(value, str):
            lines.append(value)
        elif isinstance(value, (bytes, bytearray)):
            lines.append(bytes(value).decode("latin-1"))
        else:
            raise TypeError(f"a {name} field line must be bytes or str, not {type(value).__name__}")
    return lines
