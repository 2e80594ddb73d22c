"""URL -> match string, and the canonical form of patterns and match
strings (RFC 9309 §2.2.2, §2.2.3; ENC-1, ENC-3, ENC-6, URL-1..URL-5).

Pure Python, no Scrapy import; :mod:`.robotstxt._matcher` matches what this gives.
The IDs in comments point into ``docs/spec-ids.md`` and ``docs/decisions.md``.
"""

from __future__ import annotations

import re
from importlib.machinery import EXTENSION_SUFFIXES
from typing import Final, Literal

Mode = Literal["rfc", "google"]
MODES: tuple[Mode, ...] = ("rfc", "google")

# RFC 3986 §2.3 unreserved characters: their escapes are decoded (ENC-6 step 3).
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

# ENC-1: Google escapes bytes >= 0x80 and upper-cases existing escapes (of a
# value read as Latin-1: one character per byte).
_GOOGLE_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}|[\x80-\xff]")
# ENC-6: the rfc canonical form normalises every %XX (_ESCAPE), then escapes
# what is not printable ASCII (controls, SP, bytes >= 0x80), the characters
# a URI may never hold raw (D-2; RFC 3986 §2, Appendix A: not unreserved,
# reserved or '%') and, in the URL only, a literal '*' or '$' (ENC-3).
#: D-2: what Scrapy's request URLs always carry %-encoded (w3lib's
#: ``safe_url_string``), so a raw one in a pattern must be encoded to match.
URI_ILLEGAL = '"<>\\^`{|}'
_PATTERN_SAFE = "".join(c for c in map(chr, range(0x21, 0x7F)) if c not in URI_ILLEGAL)
_URL_SAFE = _PATTERN_SAFE.replace("*", "").replace("$", "")
_HEX = "0123456789ABCDEFabcdef"
#: ENC-6 for every escape, by its text: an unreserved character's escape
#: is decoded, any other escape upper-cased; and a printable ASCII character
#: outside the safe sets (a space, URI_ILLEGAL, a literal '*' or '$' in a
#: URL, DEL) as its escape. Other characters go through :func:`_escaped`.
_CANONICAL: dict[str, str] = {
    f"%{hi}{lo}": chr(int(hi + lo, 16)) if int(hi + lo, 16) in _UNRESERVED else f"%{hi}{lo}".upper()
    for hi in _HEX
    for lo in _HEX
}
_CANONICAL.update((chr(byte), f"%{byte:02X}") for byte in range(0x80))
#: Non-ASCII characters are added to _CANONICAL as they come, up to this size.
_CANONICAL_MAX = 4096


def _special(safe: str) -> str:
    """A regex of what ENC-6 changes: an escape, or a character not in ``safe``."""
    return "%[0-9A-Fa-f]{2}|[^" + "".join(re.escape(c) for c in safe) + "]"


_URL_SPECIAL = re.compile(_special(_URL_SAFE))
_PATTERN_SPECIAL = re.compile(_special(_PATTERN_SAFE))
#: ENC-6 for the two hex digits of an escape, by their text, upper- or
#: lower-case: the character of an unreserved one, else the escape
#: upper-cased; a '%' without them is not in it.
_ESCAPE_DIGITS: Final[dict[str, str]] = {
    escape[1:]: text for escape, text in _CANONICAL.items() if len(escape) == 3
}
#: A value that ENC-6 leaves as it is: safe, no '%' (an escape is normalised).
_PATTERN_CLEAN = re.compile("[" + re.escape(_PATTERN_SAFE.replace("%", "")) + "]*")

# A URL whose match string needs no work: "scheme://authority" followed by a
# path, params or query made only of printable ASCII other than '#' (and, for
# rfc mode, other than '*', '$' and URI_ILLEGAL, with at most escapes to
# normalise). Everything else takes the general path below, which is the
# exact port of robots.cc GetPathParamsQuery. The quantifiers are
# possessive: no part can give characters back to another, and a URL that
# is not clean (a raw space, say) then fails at its first such character
# instead of backtracking over the whole path (2 us per URL).
_FAST_GOOGLE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*+://[^/?;#]*+([/?;][^#]*+)?+(?:#.*)?", re.S)
_CLEAN = r"[!%-)+-;=?-\[\]_a-z~]"  # _URL_SAFE less '#', as a class
_FAST_RFC = re.compile(rf"[A-Za-z][A-Za-z0-9+.\-]*+://[^/?;#]*+([/?;]{_CLEAN}*+)?+(?:#.*)?", re.S)
# Their bound methods, Final: the compiled build calls each as a static
# function, without looking the name up in the module or the method up on
# the pattern (a fifth of a clean URL's time there).
_GOOGLE_FULLMATCH: Final = _FAST_GOOGLE.fullmatch
_RFC_FULLMATCH: Final = _FAST_RFC.fullmatch

#: Whether this module is the compiled build's (robotstxt/_build.py): there
#: a loop over the characters of a URL (:func:`http_path`) costs a fifth
#: of the regex above, where in pure Python it costs five times as much.
_COMPILED: Final = __file__.endswith(tuple(EXTENSION_SUFFIXES))
#: For each ASCII code, whether ``_CLEAN`` has it: what an rfc match string
#: keeps as it is ('%' starts an escape, normalised after).
_KEPT: Final = bytes(re.fullmatch(_CLEAN, chr(code)) is not None for code in range(0x80))
#: For each ASCII code, whether ``_PATTERN_CLEAN`` has it.
_PATTERN_KEPT: Final = bytes(
    _PATTERN_CLEAN.fullmatch(chr(code)) is not None for code in range(0x80)
)


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
    return escape_latin1(value.decode("latin-1"), mode)


def escape_latin1(value: str, mode: Mode) -> str:
    """:func:`escape_pattern` of a value read as Latin-1 text, one
    character per byte, as the parser reads lines."""
    if mode == "google":
        if value.isascii() and "%" not in value:
            return value  # no byte >= 0x80, no escape
        return _GOOGLE_ESCAPE.sub(_google_escape_one, value)
    if pattern_clean(value) if _COMPILED else _PATTERN_CLEAN.fullmatch(value) is not None:
        pattern = value
    else:
        text = value.encode("latin-1").decode("utf-8", "surrogateescape")
        pattern = _PATTERN_SPECIAL.sub(_canonical_one, text)
    if "$" in pattern[:-1]:
        # A '$' is special only at the end (PATH-3); elsewhere it is the
        # literal that the URL carries as %24 (D-3).
        pattern = pattern[:-1].replace("$", "%24") + pattern[-1]
    return pattern


def pattern_clean(value: str) -> bool:
    """Whether ``_PATTERN_CLEAN`` matches all of ``value``, without a regex
    (the compiled build's route, as :func:`http_path`)."""
    for index in range(len(value)):
        code = ord(value[index])
        if code >= 0x80 or not _PATTERN_KEPT[code]:
            return False
    return True


def canonical_match_string(url: str | bytes, mode: Mode) -> str:
    """The match string of ``url`` as patterns of ``mode`` are compared to it.

    ``google`` uses it as given (URL-5). ``rfc`` canonicalises it (D-2, ENC-6)
    and escapes a literal ``*`` or ``$`` (D-3, RFC 9309 §2.2.3).
    """
    if isinstance(url, (bytes, bytearray)):
        url = bytes(url).decode("latin-1" if mode == "google" else "utf-8", "surrogateescape")
    if _COMPILED:
        path = http_path(url, mode == "rfc")
        if path is not None:
            return path
    if mode == "google":
        fast = _GOOGLE_FULLMATCH(url)
        if fast is None:
            return match_string(url)
    else:
        fast = _RFC_FULLMATCH(url)
        if fast is None:
            # Not clean: the path of any "scheme://" URL, then canonicalised.
            fast = _GOOGLE_FULLMATCH(url)
            path = match_string(url) if fast is None else fast[1] or "/"
            return _URL_SPECIAL.sub(_canonical_one, path if path[0] == "/" else "/" + path)
    path = fast[1]
    if path is None:
        return "/"
    if path[0] != "/":
        path = "/" + path
    if mode == "rfc" and "%" in path:
        return _normalised_escapes(path)  # ENC-6 step 3: the only change left
    return path


def http_path(url: str, rfc: bool) -> str | None:
    """The match string of a ``http://`` or ``https://`` URL with a path,
    found without a regex (the compiled build's route; URL-1..4, and in
    ``rfc`` mode ENC-6 for a path of ``_CLEAN`` characters, escapes
    normalised); ``None`` for any other URL, which the regexes take.

    What the regex route gives for the same URL: the authority ends at the
    first '/', and one with '?', ';' or '#' before it is left to them."""
    if url.startswith("https://"):
        index = 8
    elif url.startswith("http://"):
        index = 7
    else:
        return None
    size = len(url)
    while index < size:
        code = ord(url[index])
        if code == 0x2F:  # '/'
            break
        if code == 0x3F or code == 0x3B or code == 0x23:  # '?', ';', '#'
            return None
        index += 1
    else:
        return None  # no path: "/", by the regex route
    start = index
    if not rfc:
        end = url.find("#", start)  # URL-3: the fragment is not matched
        return url[start:] if end < 0 else url[start:end]
    escapes = False
    while index < size:
        code = ord(url[index])
        if code == 0x23:  # '#'
            break
        if code >= 0x80 or not _KEPT[code]:
            end = url.find("#", index)
            return escaped_path(url[start:] if end < 0 else url[start:end])
        if code == 0x25:  # '%'
            escapes = True
        index += 1
    path = url[start:index]
    return _normalised_escapes(path) if escapes else path


def escaped_path(path: str) -> str:
    """ENC-6 of a match string with characters to escape, without a regex
    (the compiled build's route): each run of characters outside the safe
    set %-encoded, and the escapes of the runs between them normalised.

    The same as one pass over both (``_URL_SPECIAL``): an escape is made of
    safe characters only, so it lies within one run of them, and what a
    character outside the set becomes is an escape in its canonical form."""
    pieces: list[str] = []
    begin = index = 0
    size = len(path)
    while index < size:
        code = ord(path[index])
        if code < 0x80 and _KEPT[code]:
            index += 1
            continue
        if begin < index:
            pieces.append(_normalised(path[begin:index]))
        end = index + 1
        while end < size:
            code = ord(path[end])
            if code < 0x80 and _KEPT[code]:
                break
            end += 1
        pieces.append(_escaped_run(path[index:end]))
        begin = index = end
    if begin < size:
        pieces.append(_normalised(path[begin:]))
    return "".join(pieces)


def _normalised(text: str) -> str:
    return _normalised_escapes(text) if "%" in text else text


def _escaped_run(run: str) -> str:
    """A run of characters outside the safe set, %-encoded byte by byte in
    UTF-8 (ENC-6 step 4), in one C-level pass; a lone surrogate other than
    a surrogate escape, one character at a time (:func:`_escaped`)."""
    try:
        data = run.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return "".join([_escaped_char(char) for char in run])
    return "%" + data.hex("%").upper()


def _normalised_escapes(text: str) -> str:
    """``text`` with each ``%XX`` escape as ENC-6 has it (step 3: an
    unreserved character's decoded, any other upper-cased); a '%' not
    followed by two hex digits stays as it is."""
    parts = text.split("%")
    for index in range(1, len(parts)):
        part = parts[index]
        digits = _ESCAPE_DIGITS.get(part[:2])
        parts[index] = "%" + part if digits is None else digits + part[2:]
    return "".join(parts)


def _escaped(char: str) -> str:
    """``%XX`` for each byte of ``char`` in UTF-8; a surrogate escape (a
    byte that was not UTF-8) gives that byte back (ENC-6 step 4)."""
    try:
        data = char.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        # Lone surrogates outside the escape range: keep their bytes anyway.
        data = char.encode("utf-8", "surrogatepass")
    return "".join(f"%{byte:02X}" for byte in data)


def _canonical_one(match: re.Match[str]) -> str:
    """ENC-6 for one escape or one character outside the safe set: an
    escape of an unreserved character is decoded, any other escape
    upper-cased, and the character %-encoded."""
    return _escaped_char(match.group())


def _escaped_char(text: str) -> str:
    """ENC-6 for one escape or one character outside the safe set, kept in
    :data:`_CANONICAL` (a few hundred characters recur)."""
    found = _CANONICAL.get(text)
    if found is None:
        found = _escaped(text)
        if len(_CANONICAL) < _CANONICAL_MAX:
            _CANONICAL[text] = found
    return found


def _google_escape_one(match: re.Match[str]) -> str:
    text = match.group()
    if len(text) == 3:
        return text.upper()
    return f"%{ord(text):02X}"
