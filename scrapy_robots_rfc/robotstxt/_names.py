"""The user-agent line and the crawler's name: which groups a name selects.

Pure Python, no Scrapy import. A ``user-agent`` line's value gives a token
(UA-3) and, in ``rfc`` mode, a whole product name (D-21). The caller's name
is compared with them ASCII case-insensitively (UA-2); in ``rfc`` mode a
name that is not a product token is first reduced to the crawler's product
name (:func:`crawler_name`, RFC 9309 §2.2.1), the way :func:`product_token`
reads a User-Agent header (docs/decisions.md "crawler name"). A crawler family
is a list of names, most specific first (D-22, :func:`crawler_names`). The
IDs in comments point into ``docs/spec-ids.md`` and ``docs/decisions.md``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._canonical import Mode

#: The token characters of RFC 9309 §2.2.1 (UA-1): ``product-token =
#: identifier / "*"``, ``identifier = 1*(%x2D / %x41-5A / %x5F / %x61-7A)``;
#: a user-agent line's token is its leading run of them (UA-3).
_TOKEN = re.compile(r"[A-Za-z_-]*")
#: A product's name (RFC 9110 §10.1.5: ``product = token ["/"
#: product-version]``): a ``token`` (§5.6.2: no white space and none of
#: the delimiters ``"(),/:;<=>?@[\]{}``), in any script, so that one rule
#: reads a name written in Cyrillic, Greek or CJK as it reads one in ASCII
#: (D-21: a crawler never gets fewer rules than the site wrote for its name).
_PRODUCT_NAME = r'[^\s"(),/:;<=>?@\[\\\]{}]+'
#: The first product of a User-Agent header (RFC 9110 §10.1.5: ``product
#: *( RWS ( product / comment ) )``), without its version.
_FIRST_PRODUCT = re.compile(_PRODUCT_NAME)
#: A comment of a User-Agent header, without its parentheses.
_COMMENT = re.compile(r"\(([^()]*)\)")
#: ``Name/version`` at the start of a comment element: the same product
#: name, starting with a letter or a digit of any script (never ``+http``).
_VERSIONED = re.compile(rf"(?=[^\W_])({_PRODUCT_NAME})/\S")
#: Products of browsers' headers, which crawlers copy but which never name
#: a crawler (docs/decisions.md "crawler name": never ``Mozilla``), lower-cased.
_BROWSER_PRODUCTS = frozenset(
    (
        "mozilla",
        "applewebkit",
        "khtml",
        "gecko",
        "chrome",
        "chromium",
        "safari",
        "firefox",
        "trident",
        "edge",
        "edg",
        "opr",
        "opera",
        "version",
        "mobile",
    )
)
#: A value's product name ends at its version or at white space (D-21).
_PRODUCT_END = re.compile(r"[/ \t]")
#: ASCII letters only: robots.cc compares with ``absl::EqualsIgnoreCase``
#: (UA-2), so ``\u212a`` (KELVIN SIGN) is not ``k`` as ``str.lower`` has it.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

#: The name that selects the global (``*``) groups only (D-21).
GLOBAL_NAME = "*"

#: The key under which rules are kept for a crawler: its lower-cased name,
#: or its family's lower-cased names, most specific first (D-22).
Token = str | tuple[str, ...]


def ascii_lower(text: str) -> str:
    """``text`` with ``A-Z`` lower-cased and nothing else (UA-2, D-0)."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def caller_name(user_agent: str | bytes) -> str:
    """The caller's name as text: bytes are read as UTF-8, the way Google's
    parser receives a Python string."""
    if isinstance(user_agent, (bytes, bytearray, memoryview)):
        return bytes(user_agent).decode("utf-8", "surrogateescape")
    return user_agent


def is_product_token(name: str) -> bool:
    """Whether ``name`` is an RFC 9309 §2.2.1 product token (``[A-Za-z_-]+``)."""
    return bool(name) and _TOKEN.fullmatch(name) is not None


def crawler_name(name: str, mode: Mode) -> str:
    """The name whose groups the caller's ``name`` selects (D-21).

    RFC 9309 §2.2.1: the product token is the crawler's name and "SHOULD be
    a substring of the identification string that the crawler sends". So in
    ``rfc`` mode a name that is not a product token is reduced to the
    crawler's product name, exactly as a User-Agent header is
    (:func:`product_token`): the site's rules for ``BadBot`` bind
    ``BadBot/1.0`` and ``Mozilla/5.0 (compatible; BadBot/1.0)``, so a crawler
    never gets fewer rules than the site wrote for its name. A name without
    a version stays whole (``MJ12bot``: the line's whole product name binds
    it). ``*`` and ``""`` stay as they are. ``google`` mode keeps the name
    verbatim, as Google's parser compares it.

    >>> crawler_name("BadBot/1.0", "rfc"), crawler_name("BadBot/1.0", "google")
    ('BadBot', 'BadBot/1.0')
    >>> crawler_name("Mozilla/5.0 (compatible; BadBot/1.0; +http://x)", "rfc")
    'BadBot'
    >>> crawler_name("MJ12bot", "rfc")
    'MJ12bot'
    """
    if mode == "google" or name in ("", GLOBAL_NAME) or _TOKEN.fullmatch(name):
        return name
    # A crawler asks every origin's rules with the same few names: each is
    # reduced once (a User-Agent header takes a few regex scans).
    found = _REDUCED.get(name)
    if found is None:
        if len(_REDUCED) >= _REDUCED_MAX:
            _REDUCED.clear()
        found = _REDUCED[name] = product_token(name)
    return found


#: :func:`crawler_name`'s reductions, by the name asked (bounded: a caller
#: that rotates User-Agent strings must not grow it).
_REDUCED: dict[str, str] = {}
_REDUCED_MAX = 256


def crawler_names(value: str) -> tuple[str, ...]:
    """The names of a crawler family written as one string, most specific
    first (D-22): ``"hedwig-images, hedwig"`` -> ``("hedwig-images",
    "hedwig")``. Commas inside a comment's parentheses do not split (a whole
    User-Agent header stays one name); each name is stripped, and an empty
    one is kept so that the caller can refuse it.

    >>> crawler_names("hedwig-images, hedwig")
    ('hedwig-images', 'hedwig')
    >>> crawler_names("Mozilla/5.0 (compatible; Hedwig/1.0, +http://x)")
    ('Mozilla/5.0 (compatible; Hedwig/1.0, +http://x)',)
    """
    names: list[str] = []
    depth = start = 0
    for index, char in enumerate(value):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif char == "," and not depth:
            names.append(value[start:index].strip())
            start = index + 1
    names.append(value[start:].strip())
    return tuple(names)


def product_token(user_agent: str | bytes) -> str:
    """The product token that names the crawler in a User-Agent header
    (docs/decisions.md "crawler name"), for passing to :meth:`RobotsTxt.allowed`.

    The header's first product, without its version, unless it is a
    browser's (``Mozilla``, ``AppleWebKit``...: crawlers copy those); then
    the ``Name/1.0`` that follows ``compatible;`` in a comment, or a comment
    that starts with ``Name/1.0`` (Applebot's form). A header with none of
    these names no crawler: ``"*"``, which selects the ``User-agent: *``
    groups only. Nothing is shortened to letters: ``MJ12bot/v1.4`` gives
    ``MJ12bot`` (D-21).

    >>> product_token("Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot)")
    'ExampleBot'
    >>> product_token("Scrapy/2.19 (+https://scrapy.org)")
    'Scrapy'
    >>> product_token("MJ12bot/v1.4.8")
    'MJ12bot'
    >>> product_token("Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0")
    '*'
    """
    text = caller_name(user_agent).strip()
    first = _FIRST_PRODUCT.match(text)
    if first is not None and first.group().lower() not in _BROWSER_PRODUCTS:
        return first.group()
    for comment in _COMMENT.findall(text):
        elements = [element.strip() for element in comment.split(";")]
        lowered = [element.lower() for element in elements]
        # After "compatible;" any element may be the crawler's; elsewhere
        # only a comment's first ("Nexus 5X Build/MMB29P" is a device).
        candidates = (
            elements[lowered.index("compatible") + 1 :] if "compatible" in lowered else elements[:1]
        )
        for element in candidates:
            versioned = _VERSIONED.match(element)
            if versioned is not None and versioned.group(1).lower() not in _BROWSER_PRODUCTS:
                return versioned.group(1)
    return GLOBAL_NAME


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


def agent_product(value: str) -> str:
    """The whole product name of a ``user-agent:`` line's value, lower-cased:
    the value up to the first ``/``, space or tab (D-21, ``rfc`` mode).
    ``MJ12bot/1.0`` -> ``mj12bot``, where :func:`agent_token` gives ``mj``."""
    end = _PRODUCT_END.search(value)
    return ascii_lower(value if end is None else value[: end.start()])


def name_problem(name: str, mode: Mode) -> str | None:
    """What happens to a caller's name that is not a product token
    (``[A-Za-z_-]+``, RFC 9309 §2.2.1), or ``None`` for a product token.

    The text completes "The robots.txt name ... " in the middleware's
    start-up warning and in ``check``'s and ``scrapy robots``' notes: what
    was taken (:func:`crawler_name`, D-21) and which groups that selects.
    """
    if is_product_token(name):
        return None
    if name == GLOBAL_NAME or (name == "" and mode == "rfc"):
        return "names no crawler, so only the 'User-agent: *' groups apply to it"
    if name == "":
        return (
            "is empty; google mode gives it the groups whose user-agent line has no token "
            "(such as 'User-agent: 008'), as Google's parser does, else the 'User-agent: *' "
            "groups"
        )
    if mode == "google":
        return (
            "is not a product token ([A-Za-z_-]+); google mode compares it verbatim with "
            "each user-agent line's token, which never holds other characters, so no "
            f"group for a crawler applies to it, not even 'User-agent: {name}'; only the "
            "'User-agent: *' groups do"
        )
    taken = crawler_name(name, mode)
    if taken == GLOBAL_NAME:
        return (
            "is not a product token ([A-Za-z_-]+) and none of its products names a crawler "
            "(browsers' products such as 'Mozilla' never do), so only the 'User-agent: *' "
            "groups apply to it"
        )
    if taken != name:
        # RFC 9309 §2.2.1: the product token is the crawler's name (D-21).
        reduced = (
            f"is not a product token ([A-Za-z_-]+); its product name {taken!r} is taken as "
            "the crawler's name (RFC 9309 §2.2.1), so the groups for "
            f"'User-agent: {taken}' apply to it"
        )
        further = name_problem(taken, mode)
        if further is None:
            return reduced + ", else the 'User-agent: *' groups"
        return f"{reduced}; {taken!r} {further}"
    prefix = _TOKEN.match(name)
    assert prefix is not None
    part = f", never a group named by a part of it such as {prefix.group()!r}"
    return (
        f"is not a product token ([A-Za-z_-]+): only groups whose user-agent line names "
        f"exactly {name!r} apply to it ('User-agent: {name}' or '{name}/2.0', in any "
        f"case){part if prefix.group() else ''}; without one, the 'User-agent: *' groups apply"
    )
