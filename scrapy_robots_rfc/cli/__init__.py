"""``python -m scrapy_robots_rfc``: check URLs against a robots.txt, and
lint one.

Pure: like :mod:`.robotstxt._parser` and :mod:`.robotstxt._matcher` it never imports Scrapy. A
robots.txt given as an ``http``/``https`` URL is fetched by
:mod:`.cli._robots_file` under the status policy of docs/decisions.md (RFC 9309
§2.3.1; HTTP-1 to HTTP-8), reading at most 500 KiB (RFC 9309 §2.5, HTTP-12).

``check ROBOTS URL...`` prints one line per URL: the URL and its
:class:`.Verdict`, as the middleware's log and ``scrapy robots`` say it
(``--json``: JSON Lines), with the usage preferences robots.txt states for
it (:mod:`.robotstxt._usage`) when it has content-usage or content-signal lines.
``lint ROBOTS`` prints one ``SOURCE:LINE: CODE: message`` line per finding
of :mod:`.robotstxt._lint`, then their count. What they print, and their exit
statuses (:data:`EXIT_OK` to :data:`EXIT_PIPE`), are described in their
``--help`` epilogs below and in docs/verdicts.rst.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO
from urllib.parse import urlsplit

from .. import __version__, build, schemas
from ..policy import Origin, State, Verdict, origin
from ..robotstxt import (
    CODES,
    GLOBAL_NAME,
    MAX_BYTES,
    MODES,
    NO_PREFERENCES,
    CrawlDelay,
    FileNote,
    Mode,
    Preferences,
    RobotsTxt,
    crawler_name,
    crawler_names,
    file_notes,
    lint,
    name_problem,
)
from ..tdmrep import TdmFile, TdmValue
from ._page import Page, fetch_page
from ._robots_file import MAX_REDIRECTS, CliError, Source, fetch, load

__all__ = [
    "MAX_REDIRECTS",
    "CliError",
    "Source",
    "fetch",
    "load",
    "main",
    "preferences",
    "verdicts",
]

PROG = "python -m scrapy_robots_rfc"

#: Seconds to wait for the robots.txt server.
DEFAULT_TIMEOUT = 30.0

#: Exit statuses: every URL allowed or no findings; a URL disallowed by the
#: rules or findings; an error; robots.txt could not be fetched (RFC 9309
#: §2.3.1.4); standard output closed early (128 + SIGPIPE, as a shell
#: reports a program SIGPIPE ended).
EXIT_OK, EXIT_FOUND, EXIT_ERROR, EXIT_UNREACHABLE, EXIT_PIPE = 0, 1, 2, 3, 141

#: Findings ``lint`` prints for a body that looks like an HTML page, unless
#: ``--all``: one per line of the page would bury the one line that matters.
HTML_SHOWN = 20

_CHECK_EPILOG = f"""\
ROBOTS is a file, - for standard input, or an http(s) URL. A URL is
fetched (at most {MAX_REDIRECTS} redirects, {MAX_BYTES:,} bytes) and its status decides
first, as the middleware does (RFC 9309 §2.3.1):
  2xx                      the rules are parsed
  4xx (but 429)            no robots.txt: every URL is allowed
  429, 5xx, network error  unreachable: a crawl disallows every URL; check
                           says why on stderr, prints no verdict, exits 3
Redirects followed are shown on stderr. Each URL must be an absolute http or
https URL (a bare path is refused, even with a local ROBOTS). A robots.txt
applies only to its own origin (scheme, host and port, RFC 9309 §2.3): when
ROBOTS is a URL, URLs of another origin get a warning on stderr.

output, one line per URL, as the middleware's log and scrapy robots say it:
  https://example.com/a: allowed by "allow: /a (line 3)" in the group for '*'
  https://example.com/b: disallowed by "disallow: / (line 2)" in the group for '*'
  https://example.com/c: allowed: no rule of the group for '*' matches '/c'
When robots.txt has Content-Usage or Content-Signal lines, each line ends
with the usage preferences they state for the URL (none for a disallowed
one; they never change the verdict or the exit status):
  https://example.com/d: allowed ...; usage: train-ai=n (content-usage line 4)
  https://example.com/e: disallowed ...; usage: none (disallowed)
With --tdm TDMREP (a tdmrep.json: a file, - or a URL), each allowed URL's
line ends with its TDM reservation (W3C TDMRep) and the source that decided
it; with --page too, the page's tdm-reservation header and meta tags
supersede the file's value:
  https://example.com/a/x: allowed ...; tdm: reserved (tdm-reservation 1 from tdmrep.json[0] ...)
Notes go to stderr: what the file is as a whole (larger than 512,000
bytes and cut there, an HTML page, lines with bytes that are not UTF-8,
lines ignored; the words of lint and scrapy robots), redirects, the
crawl-delay, a --user-agent that is not a product token.
--json prints one JSON object per URL, one per line (JSON Lines), with the
keys schema ({schemas.CHECK}), url, mode, user_agent (names, given,
from), robots (url, source, status, state: rules, allow_all or unreachable,
outcome), crawl_delay (seconds or null) and crawl_delay_from (the
crawl-delay line: line, agents, or null), verdict (allowed, rule: allow,
pattern, line or null, group, match_string, reason, why) and usage (per category, its value: allow,
disallow or unknown, and the lines it comes from), and with --tdm, tdm
(reservation, policy, source, rule, location, errors, text, file). Its JSON Schema is
scrapy_robots_rfc/schemas/check.json.

exit status: 0 every URL is allowed; 1 the rules disallow one, or with --tdm
a TDM reservation reserves one; 2 error (a bad argument or URL, a file that
cannot be read); 3 robots.txt could not be fetched (429, 5xx, network error);
141 output closed early (as by | head).

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
  SOURCE:LINE: CODE: message
then "N findings" or "no findings". The codes:
"""
    + "".join(f"  {code:<18} {text}\n" for code, text in CODES.items())
    + f"""
"shadowed" is reported only where it is proven: every URL the rule matches is
also matched by a rule of the other kind that wins (longer, or an allow of
the same length), so the rule never decides a verdict.

A body that looks like an HTML page (it starts with <!doctype html or <html,
or it was served as text/html and no line of it is read) gets one line
saying so first, then only the first {HTML_SHOWN} findings; --all prints them all.

--json prints one JSON object per finding, one per line (JSON Lines), with
the keys schema ({schemas.LINT}), source, line, code, message, note
(true for a note) and mode; its JSON Schema is
scrapy_robots_rfc/schemas/lint.json. The summary goes to stderr.

exit status: 0 no findings (notes allowed); 1 findings; 2 error; 3 robots.txt
could not be fetched (429, 5xx, network error); 141 output closed early (as
by | head).

examples:
  {PROG} lint robots.txt
  {PROG} lint --mode google https://example.com/robots.txt
"""
)


def _counted(count: int, word: str) -> str:
    """``1 redirect``, ``2 redirects``, ``3,828 findings``."""
    return f"{count:,} {word}{'s' * (count != 1)}"


def _robots_origin(robots: str) -> Origin | None:
    """The origin a robots.txt given as a URL applies to, after redirects
    too (RFC 9309 §2.3.1.2, LOC-9); ``None`` for a file or stdin."""
    return origin(robots) if "://" in robots else None


def _redirect_note(source: Source, robots: Origin | None) -> str | None:
    """The redirects the fetch followed, in a ``note:`` line, or ``None``."""
    if not source.chain:
        return None
    hops = len(source.chain) - 1
    line = f"note: robots.txt: {' -> '.join(source.chain)} ({_counted(hops, 'redirect')})"
    if robots is not None and origin(source.name) != robots:
        line += f"; its rules are those of {robots} (RFC 9309 §2.3.1.2)"
    return line


def _unreachable(source: Source, robots: Origin | None) -> str | None:
    """Why a robots.txt could not be fetched and what a crawl does then
    (RFC 9309 §2.3.1.4, HTTP-5, HTTP-6), or ``None`` when it was."""
    if source.state is not State.UNREACHABLE:
        return None
    where = "the origin" if robots is None else str(robots)
    return (
        f"cannot fetch {source.name}: {source.problem}. A crawl would treat {where} as "
        "unreachable and disallow every URL there while it stays so (RFC 9309 §2.3.1.4)"
    )


# -- check ----------------------------------------------------------------


#: ``example.com/a``, ``www.example.com:8080``: a URL without its scheme.
_HOST_AND_PATH = re.compile(r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?::[0-9]+)?(?:[/?#]|$)")


def url_problem(url: str, robots: Origin | None = None) -> str | None:
    """What is wrong with ``url`` as a URL to check, or ``None``: it must be
    an absolute ``http``/``https`` URL with a host (the only URLs a
    robots.txt fetched over HTTP governs, LOC-7). ``robots``, the origin of
    the robots.txt, gives the example."""
    accepted = "check takes absolute http and https URLs"
    site = str(robots) if robots is not None else "https://example.com"
    parts = urlsplit(url) if "://" in url else None
    if parts is None:
        if url.startswith("/"):
            return f"{url!r} is a path, not a URL: {accepted}, such as {site}{url}"
        if _HOST_AND_PATH.match(url):
            return f"{url!r} has no scheme: {accepted}, such as https://{url}"
        return f"{url!r} is not a URL: {accepted}, such as {site}/path"
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        return f"{url!r} is not an http or https URL (its scheme is {scheme}): {accepted}"
    if origin(url) is None:
        return f"{url!r} has no valid host and port: {accepted}, such as {site}/path"
    return None


def verdicts(
    source: Source, urls: Sequence[str], user_agent: str | tuple[str, ...], mode: Mode
) -> list[Verdict]:
    """The verdict for each of ``urls``, for the crawler ``user_agent`` or
    the crawler family of its names (D-22)."""
    name, status = source.name, source.status
    if source.state is not State.RULES:
        shown = user_agent if isinstance(user_agent, str) else ", ".join(user_agent)
        return [
            Verdict.of_state(url, shown, source.state, source.outcome, source=name, status=status)
            for url in urls
        ]
    # The parser takes the name (D-21): "*", the default, asks for the '*'
    # groups in both modes.
    robots = _parsed(source.body, mode)
    return [
        Verdict.explained(
            robots.explain(url, user_agent),
            outcome=source.outcome or None,
            source=name,
            status=status,
        )
        for url in urls
    ]


def preferences(
    source: Source, urls: Sequence[str], user_agent: str | tuple[str, ...], mode: Mode
) -> list[Preferences]:
    """The usage preferences robots.txt states for each of ``urls``
    (:meth:`.RobotsTxt.usage`; U-1 to U-5): none unless
    ``source`` has rules, and none for a URL they disallow."""
    if source.state is not State.RULES:
        return [NO_PREFERENCES for _ in urls]
    robots = _parsed(source.body, mode)
    return [robots.usage(url, user_agent) for url in urls]


@functools.lru_cache(maxsize=1)
def _parsed(body: bytes, mode: Mode) -> RobotsTxt:
    """``body`` parsed once for :func:`verdicts` and :func:`preferences`."""
    return RobotsTxt.parse(body, mode)


def _usage(prefs: Preferences, allowed: bool) -> str:
    """What ``check`` adds to a verdict line: ``; usage: train-ai=n
    (content-usage line 4)``; a disallowed URL has none (attach-05 §3.1)."""
    return f"; usage: {prefs}" if allowed else "; usage: none (disallowed)"


def _page(
    args: argparse.Namespace, verdict: Verdict, names: Sequence[str], err: TextIO
) -> Page | None:
    """With ``--page``, the page of an allowed URL, fetched for its
    page-level rules (P-1); a disallowed page is never fetched (P-5)."""
    if not args.page or not verdict.allowed:
        return None
    page = fetch_page(verdict.url, tuple(names), timeout=args.timeout, user_agent=_header(args))
    if page.rules is None:
        err.write(f"warning: {verdict.url}: the page could not be fetched: {page.problem}\n")
    return page


def _page_text(page: Page) -> str:
    """What ``check --page`` adds to an allowed URL's line: ``; page:
    noindex (X-Robots-Tag header, every crawler)``, or ``; page: no
    page-level rules``."""
    assert page.rules is not None
    shown = "; ".join(str(directive) for directive in page.rules.directives)
    redirect = ""
    if page.location is not None:
        redirect = f"{page.status} to {page.location} (not followed), "
    return f"; page: {redirect}{shown or 'no page-level rules'}"


def _tdm_file(args: argparse.Namespace, err: TextIO) -> tuple[TdmFile | None, str | None]:
    """With ``--tdm``, the TDMRep file read (T-2: a 4xx is no file, so every
    URL unset; a 5xx, a network error or a file past the bound is not
    known, ``None``) and what its fetch found (``None`` for a file)."""
    source = load(args.tdm, timeout=args.timeout, user_agent=_header(args))
    outcome = source.outcome if "://" in args.tdm else None
    if source.state is State.RULES:
        file = TdmFile.parse(source.body, truncated=source.truncated)
        for note in file.notes:
            err.write(f"note: {source.name}: {note}\n")
        return (file if file.whole else None), outcome
    if source.state is State.UNREACHABLE or source.truncated:
        err.write(f"warning: {source.name}: {source.outcome}: TDM reservations not known (T-2)\n")
        return None, outcome
    return TdmFile(), outcome  # no file: every URL unset


def _tdm_value(file: TdmFile, url: str, page: Page | None) -> TdmValue:
    """The URL's value: the file's, then (``--page``) its header fields and
    meta tags (T-1)."""
    value = file.value(url)
    if page is not None and page.tdm_header is not None:
        value = value.superseded(page.tdm_header)
    if page is not None and page.tdm_meta is not None:
        value = value.superseded(page.tdm_meta)
    return value


def _header(args: argparse.Namespace) -> str:
    """The User-Agent header of a fetch: ``--user-agent`` (a family's most
    specific name, D-22), or this tool."""
    agent = crawler_names(args.user_agent)[0]
    return f"scrapy_robots_rfc/{__version__}" if agent in ("*", "") else agent


def _other_origins(urls: Sequence[str], robots: Origin, given: str) -> list[str]:
    """A warning for each origin of ``urls`` that is not ``robots``: a
    robots.txt applies to its own origin only (RFC 9309 §2.3; LOC-2, LOC-3)."""
    return [
        f"warning: {given} applies only to {robots} (its scheme, host and port; RFC 9309 "
        f"§2.3): the verdicts for URLs on {other} are those it gives for the same paths on "
        f"{robots}; on {other}, {other.robots_url} decides"
        for other in dict.fromkeys(origin(url) for url in urls)
        if other is not None and other != robots
    ]


def crawl_delay(source: Source, user_agent: str | tuple[str, ...], mode: Mode) -> CrawlDelay | None:
    """The crawl-delay line robots.txt gives the crawler, if any (D-17: the
    first after user-agent lines that name it, else after ``*`` lines);
    none unless ``source`` has rules."""
    if source.state is not State.RULES:
        return None
    return _parsed(source.body, mode).for_agent(user_agent).delay


def _shared_members(
    args: argparse.Namespace, source: Source, names: Sequence[str], delay: CrawlDelay | None
) -> dict[str, Any]:
    """The members every line of ``check --json`` has alike (the ``check``
    schema, :mod:`.schemas`): the mode, the crawler's names as the groups
    were looked up for them (D-21, D-22), what the fetch found, and the
    crawl-delay with the line that gives it (D-17)."""
    mode: Mode = args.mode
    given = args.robots if "://" in args.robots else None
    return {
        "mode": mode,
        "user_agent": schemas.user_agent_object(
            [crawler_name(name, mode) for name in names], args.user_agent, "--user-agent"
        ),
        "robots": schemas.robots_object(
            url=given,
            source=source.name,
            status=source.status,
            state=source.state,
            outcome=source.outcome,
        ),
        "crawl_delay": None if delay is None else delay.seconds,
        "crawl_delay_from": schemas.crawl_delay_from(delay),
    }


#: The file notes that ``lint`` lists line by line as findings instead.
_LINTED = frozenset({"size-cut", "non-utf8", "ignored-lines"})


def _file_notes(source: Source, mode: Mode) -> tuple[FileNote, ...]:
    """What to say about the file as a whole (:func:`.robotstxt.file_notes`:
    cut at the limit, an HTML page, bytes that are not UTF-8, lines
    ignored), as every tool and the crawl say it."""
    return file_notes(source.body, source.content_type, mode, truncated=source.truncated)


def run_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``check``: exit 0 when every URL is allowed, 1 when the rules
    disallow one, 3 when robots.txt could not be fetched."""
    mode: Mode = args.mode
    robots = _robots_origin(args.robots)
    problems = [p for p in (url_problem(url, robots) for url in args.urls) if p is not None]
    names = crawler_names(args.user_agent)
    if len(names) > 1 and not all(names):
        problems.append(
            f"--user-agent {args.user_agent!r} has an empty name: give the crawler's name, or "
            "its family's names separated by commas, most specific first"
        )
    if problems:
        raise CliError(*problems)
    source = load(args.robots, timeout=args.timeout, user_agent=_header(args))
    notes = [_redirect_note(source, robots)]
    if source.state not in (State.RULES, State.UNREACHABLE):
        notes.append(f"note: {source.name}: {source.outcome} ({source.state.value})")
    if source.state is State.RULES:
        notes += [f"note: {source.name}: {note}" for note in _file_notes(source, mode)]
    if robots is not None:
        notes += _other_origins(args.urls, robots, args.robots)
    for name in names:
        problem = name_problem(name, mode)
        if problem is not None and name != GLOBAL_NAME:
            # D-21: say what the name is taken as, and what that selects.
            notes.append(f"warning: --user-agent {name!r} {problem}")
    unreachable = _unreachable(source, robots)
    agent = names[0] if len(names) == 1 else names
    delay = crawl_delay(source, agent, mode)
    if delay is not None:
        agents = ", ".join(repr(agent) for agent in delay.agents)
        notes.append(
            f"note: {source.name}: crawl-delay of {delay.seconds:g} s (line {delay.line}, "
            f"for {agents})"
        )
    err.writelines(f"{line}\n" for line in (*notes, unreachable) if line is not None)
    found = verdicts(source, args.urls, agent, mode)
    usage = preferences(source, args.urls, agent, mode)
    tdm: tuple[TdmFile | None, str | None] | None = None
    if args.tdm is not None:
        tdm = _tdm_file(args, err)
    reserved = False
    # The preferences are shown only where robots.txt can state some.
    shown = source.state is State.RULES and bool(_parsed(source.body, mode).usage_rules)
    shared = _shared_members(args, source, names, delay) if args.json else {}
    for verdict, prefs in zip(found, usage, strict=True):
        page = _page(args, verdict, names, err) if unreachable is None else None
        value: TdmValue | None = None
        if tdm is not None and tdm[0] is not None and verdict.allowed:
            value = _tdm_value(tdm[0], verdict.url, page)
            reserved = reserved or value.reserved
        if args.json:
            record = {
                "schema": schemas.CHECK,
                "url": verdict.url,
                **shared,
                "verdict": verdict.as_dict(),
                "usage": prefs.as_dict(),
            }
            if page is not None and page.rules is not None:
                record["page"] = schemas.page_object(page.rules, url=page.url, status=page.status)
            if value is not None and tdm is not None:
                record["tdm"] = schemas.tdm_object(value, file=tdm[1])
            out.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
        elif unreachable is None:
            extra = _usage(prefs, verdict.allowed) if shown else ""
            if page is not None and page.rules is not None:
                extra += _page_text(page)
            if tdm is not None and verdict.allowed:
                extra += f"; tdm: {'not known' if value is None else value}"
            out.write(f"{verdict.url}: {verdict}{extra}\n")
    if unreachable is not None:
        return EXIT_UNREACHABLE
    return EXIT_OK if all(v.allowed for v in found) and not reserved else EXIT_FOUND


# -- lint -----------------------------------------------------------------


def run_lint(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``lint``: exit 0 without findings, 1 with some, 3 when robots.txt
    could not be fetched."""
    mode: Mode = args.mode
    source = load(args.robots, timeout=args.timeout, user_agent=_header(args))
    robots = _robots_origin(args.robots)
    unreachable = _unreachable(source, robots)
    err.writelines(f"{line}\n" for line in (_redirect_note(source, robots), unreachable) if line)
    if unreachable is not None:
        return EXIT_UNREACHABLE
    if source.state is not State.RULES:
        raise CliError(f"{source.name}: {source.outcome} ({source.state.value}): nothing to lint")
    found = lint(source.body, mode, truncated=source.truncated)
    about = _file_notes(source, mode)
    # The size cut, bytes that are not UTF-8 and ignored lines are findings
    # of their own, line by line: what is left is said first (an HTML page).
    said = [note for note in about if note.code not in _LINTED]
    (err if args.json else out).writelines(f"{source.name}: {note}\n" for note in said)
    html = any(note.code == "html-page" for note in about)
    shown = found if args.json or args.all or not html else found[:HTML_SHOWN]
    for finding in shown:
        if args.json:
            record = {
                "schema": schemas.LINT,
                "source": source.name,
                "line": finding.line,
                "code": finding.code,
                "message": finding.message,
                "note": finding.is_note,
                "mode": mode,
            }
            out.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
        else:
            out.write(f"{source.name}:{finding.line}: {finding.code}: {finding.message}\n")
    if len(shown) < len(found):
        out.write(f"... and {len(found) - len(shown):,} more (--all prints them all)\n")
    count = sum(not f.is_note for f in found)
    notes = len(found) - count
    summary = _counted(count, "finding") if count else "no findings"
    if notes:
        summary += f" ({_counted(notes, 'note')})"
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


def _command(
    commands: Any,
    name: str,
    run: Callable[[argparse.Namespace, TextIO, TextIO], int],
    *,
    help: str,
    description: str,
    epilog: str,
) -> argparse.ArgumentParser:
    """A subcommand reading ROBOTS, run by ``run``; ``commands`` is what
    ``add_subparsers`` returned."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        help=help,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("robots", metavar="ROBOTS", help="file, - (stdin) or http(s) URL")
    parser.set_defaults(run=run)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The ``argparse`` parser of ``python -m scrapy_robots_rfc``."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Check URLs against a robots.txt, or lint one (RFC 9309, Google's rules).",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} ({build()} build)"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = _command(
        commands,
        "check",
        run_check,
        help="is each URL allowed, and by which rule",
        description="Print, for each URL, the verdict and the rule that decides it.",
        epilog=_CHECK_EPILOG,
    )
    check.add_argument("urls", metavar="URL", nargs="+", help="absolute http(s) URLs to check")
    check.add_argument(
        "--user-agent",
        default="*",
        metavar="NAME",
        help=(
            "the crawler's product token (default *: the '*' groups); in rfc mode a name "
            "that is not one is reduced to its product name (BadBot/1.0 is BadBot); a "
            "crawler family's names separated by commas, most specific first "
            "('hedwig-images, hedwig'): the first with a group of its own decides"
        ),
    )
    check.add_argument(
        "--page",
        action="store_true",
        help=(
            "also fetch each URL robots.txt allows and show its page-level rules for the "
            "crawler (X-Robots-Tag, robots meta tags)"
        ),
    )
    check.add_argument(
        "--tdm",
        metavar="TDMREP",
        help=(
            "also give each allowed URL's TDM reservation (W3C TDMRep) from this "
            "tdmrep.json: a file, - (stdin) or an http(s) URL such as "
            "https://example.com/.well-known/tdmrep.json; with --page, the page's "
            "tdm-reservation header and meta tags too. A reserved URL exits 1"
        ),
    )
    _common(check)
    lint_parser = _command(
        commands,
        "lint",
        run_lint,
        help="list ignored lines, accepted typos, rules that never decide",
        description="List what a crawler ignores, or reads other than it is written.",
        epilog=_LINT_EPILOG,
    )
    lint_parser.add_argument(
        "--all",
        action="store_true",
        help=f"print every finding of an HTML page, not the first {HTML_SHOWN}",
    )
    lint_parser.set_defaults(user_agent="*")
    _common(lint_parser)
    return parser


def _quiet_broken_pipe() -> None:
    """After a reader closed standard output (``| head``): point stdout and
    stderr at devnull, so that the flush at exit cannot fail again (the
    recipe of Python's ``signal`` documentation, "Note on SIGPIPE")."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a StringIO: nothing to flush
            os.dup2(devnull, stream.fileno())
    os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        out, err = sys.stdout, sys.stderr
        for stream in (out, err):
            if isinstance(stream, io.TextIOWrapper):
                stream.reconfigure(errors="backslashreplace")
        run: Callable[[argparse.Namespace, TextIO, TextIO], int] = args.run
        try:
            status = run(args, out, err)
        except CliError as exc:
            for message in exc.args:
                err.write(f"{PROG} {args.command}: error: {message}\n")
            status = EXIT_ERROR
        out.flush()
        return status
    except BrokenPipeError:
        _quiet_broken_pipe()
        return EXIT_PIPE
