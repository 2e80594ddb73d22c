"""The lexical layer of robots.txt: how a line splits into key and value,
which keys are read and how they may be spelt, and the notes about a line
that is read other than it is written (RFC 9309 §2.2; FMT-6..FMT-12, D-4,
D-5). A port of robots.cc ``GetKeyAndValueFrom`` and
``ParsedRobotsKey::Parse``; :mod:`.robotstxt._parser` builds the groups on it.
"""

from __future__ import annotations

#: A note as a plain tuple: line, code, text (:class:`.robotstxt._parser.Note`).
Noted = tuple[int, str, str]
WHITESPACE = b" \t\n\v\f\r"  # absl::ascii_isspace (FMT-7)
#: The same, for a line read as Latin-1 text (one character per byte: the
#: parser reads lines so, :func:`.robotstxt._parser._read`).
SPACES = " \t\n\v\f\r"
Spellings = tuple[str, ...]

# Each key by its right spelling: the parser tells keys apart by these
# (compared by value, never by identity).
USER_AGENT, ALLOW, DISALLOW, SITEMAP = "user-agent", "allow", "disallow", "sitemap"
CRAWL_DELAY, CONTENT_USAGE, CONTENT_SIGNAL = "crawl-delay", "content-usage", "content-signal"
# FMT-10, FMT-11, D-4: robots.cc ParsedRobotsKey::Parse checks these in this
# order, each as a case-insensitive prefix of the key. The first of each is
# the right spelling; the others are typos it accepts.
USER_AGENT_KEYS = (USER_AGENT, "useragent", "user agent")
ALLOW_KEYS = (ALLOW,)  # no typos for allow (robots.cc KeyIsAllow)
DISALLOW_KEYS = (DISALLOW, "dissallow", "dissalow", "disalow", "diasllow", "disallaw")
SITEMAP_KEYS = (SITEMAP, "site-map")
# OTHER-2: crawl-delay is an "other record" (RFC 9309 §2.2.4). It is read
# into the group it stands in and, like every other record, never ends it.
# Its spellings are whole keys, not prefixes.
CRAWL_DELAY_SPELLINGS = (CRAWL_DELAY, "crawl_delay", "crawldelay", "crawl delay")
# U-1: usage preferences are rules of the group they stand in and never end
# it (draft-ietf-aipref-attach-05 §3; Cloudflare's Content Signals). Whole
# keys, case-insensitive: no typos, no prefixes.
CONTENT_USAGE_KEYS = (CONTENT_USAGE,)
CONTENT_SIGNAL_KEYS = (CONTENT_SIGNAL,)
PREFIX_KEYS = (USER_AGENT_KEYS, ALLOW_KEYS, DISALLOW_KEYS, SITEMAP_KEYS)
_WHOLE_KEYS: dict[str, Spellings] = {
    **dict.fromkeys(CRAWL_DELAY_SPELLINGS, CRAWL_DELAY_SPELLINGS),
    CONTENT_USAGE: CONTENT_USAGE_KEYS,
    CONTENT_SIGNAL: CONTENT_SIGNAL_KEYS,
}
#: A key spelt as the spec spells it -> all its spellings.
SPELT_RIGHT: dict[str, Spellings] = {
    k[0]: k for k in (*PREFIX_KEYS, CRAWL_DELAY_SPELLINGS, CONTENT_USAGE_KEYS, CONTENT_SIGNAL_KEYS)
}


def as_text(value: bytes) -> str:
    """A value as text; bytes that are not UTF-8 become %XX escapes."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        text = value.decode("utf-8", "surrogateescape")
        # 0xDC80..0xDCFF: the surrogates "surrogateescape" gives undecodable
        # bytes (by number: mypyc compiles no surrogate in a literal).
        return "".join(f"%{ord(c) - 0xDC00:02X}" if 0xDC80 <= ord(c) <= 0xDCFF else c for c in text)


def text_of(value: str) -> str:
    """:func:`as_text` of a value read as Latin-1 text (one character per
    byte)."""
    return value if value.isascii() else as_text(value.encode("latin-1"))


def show(data: bytes | str) -> str:
    """A key or value quoted for a note (text: read as Latin-1)."""
    if isinstance(data, str):
        data = data.encode("latin-1")
    return repr(data.decode("utf-8", "backslashreplace"))


def key_and_value(line: str) -> tuple[str, str, bool] | None:
    """Split a line whose comment is removed into key, value and whether a
    ``:`` separated them (FMT-6..9).

    A port of robots.cc ``GetKeyAndValueFrom``: the first ``:`` separates;
    without one, exactly two whitespace-separated tokens are key and value.
    """
    line = line.strip(SPACES)
    colon = line.find(":")
    if colon >= 0:
        key, value = line[:colon], line[colon + 1 :]
    else:
        # FMT-9, D-5: "Google-specific optimization: some people forget the
        # colon, so we need to accept whitespace in its stead."
        space, tab = line.find(" "), line.find("\t")
        if space < 0 and tab < 0:
            return None
        sep = tab if space < 0 or 0 <= tab < space else space
        rest = line[sep:].lstrip(" \t")
        if " " in rest or "\t" in rest:
            return None  # three or more tokens
        key, value = line[:sep], line[sep + 1 :]
    key = key.strip(SPACES)
    if not key:
        return None
    return key, value.strip(SPACES), colon >= 0


def read_as(lowered: str) -> Spellings | None:
    """The spellings of the key that a lower-cased key is read as, or
    ``None`` for an unsupported key (robots.cc ``ParsedRobotsKey::Parse``;
    FMT-10, FMT-11, FMT-12)."""
    for keys in PREFIX_KEYS:
        if lowered.startswith(keys):
            return keys
    return _WHOLE_KEYS.get(lowered)


def key_notes(number: int, key: str, lowered: str, keys: Spellings, colon: bool) -> list[Noted]:
    """The typo, key-prefix and missing-colon notes of a line whose key is
    read as ``keys[0]`` (FMT-9..FMT-11, D-4, D-5)."""
    notes: list[Noted] = []
    shown, name = show(key), keys[0]
    matched = next(k for k in keys if lowered.startswith(k))
    # The texts are for people: they cite RFC 9309 or say what Google's
    # parser does, never our spec IDs (FMT-9..FMT-11, D-4, D-5).
    if matched != keys[0]:
        text = f"{shown} is read as {name!r}: a typo Google's robots.txt parser accepts"
        notes.append((number, "typo", text))
    elif lowered != matched:
        text = (
            f"{shown} is read as {name!r} because it starts with it, as Google's parser reads keys"
        )
        notes.append((number, "key-prefix", text))
    if not colon:
        text = f"no ':' after {shown}: read as key and value, as Google's parser does"
        notes.append((number, "missing-colon", text))
    return notes


def unread_note(number: int, line: bytes) -> Noted:
    """Why a line that is not blank has no key and value (FMT-8, FMT-9, D-5):
    RFC 9309 §2.3.1.5 asks to parse each line and use those that parse."""
    if b":" in line:
        return (number, "syntax", "nothing before ':': the line is ignored")
    words = line.split(None, 1)
    if len(words) == 1 and read_as(words[0].lower().decode("latin-1")) is not None:
        text = f"{show(words[0])} has no ':' and no value: the line is ignored"
        return (number, "missing-value", text)
    text = "no ':' and not two words: not a 'key: value' line, ignored"
    return (number, "syntax", text)


def no_token_note(number: int, value: str, product: str) -> Noted:
    """A user-agent line without a product token (UA-3); ``product`` is the
    whole product name rfc mode binds instead (D-21), or empty."""
    if not value:
        what = "has no value: its group applies to no crawler"
    else:
        whom = f"only to a crawler named exactly {product!r}" if product else "to no crawler"
        what = f"{show(value)} has no product token: its group applies {whom}"
    return (number, "no-token", f"user-agent {what} (RFC 9309 §2.2.1)")


def partial_token_note(number: int, agent: str, token: str, product: str) -> Noted:
    """A user-agent line whose product name (``product``, lower-cased) is
    longer than its token (UA-1, UA-3, D-21): ``my.crawler`` binds ``my``
    in both modes, and ``my.crawler`` too in rfc mode."""
    short, name = agent[: len(token)], agent[: len(product)]
    text = (
        f"user-agent {name!r} is not a product token, which has only letters, '-' and '_' "
        f"(RFC 9309 §2.2.1): its token stops before {agent[len(token)]!r}, so rfc mode "
        f"applies the group to a crawler named {short!r} or {name!r}, google mode (as "
        f"Google's parser) only to one named {short!r}"
    )
    return (number, "partial-token", text)
