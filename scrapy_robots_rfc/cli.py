"""``python -m scrapy_robots_rfc``: check URLs against a robots.txt, and
lint one.

Pure: like :mod:`.parser` and :mod:`.matcher` it never imports Scrapy. A
robots.txt given as an ``http``/``https`` URL is fetched with
:mod:`urllib.request` under the status policy of DECISIONS.md (RFC 9309
§2.3.1; HTTP-1 to HTTP-8), reading at most 500 KiB (RFC 9309 §2.5, HTTP-12).

``check ROBOTS URL...``
    One line per URL: the URL, then its :class:`.Verdict` (the deciding
    rule with its line and the ``user-agent`` values of its group, or why
    no rule decides), as the middleware's log and ``scrapy robots`` say it.
    With ``--json``, one JSON object per URL and per line (JSON Lines).
    Exit status: 0 every URL is allowed, 1 at least one is disallowed, 2 an
    error (a robots.txt that cannot be read, a bad argument).

``lint ROBOTS``
    One ``SOURCE:LINE: CODE: message`` line per finding, in line order, then
    ``N findings`` or ``no findings``. Exit status: 0 no findings, 1
    findings, 2 an error. The findings and their codes come from
    :mod:`.lint` (:data:`.lint.CODES`).
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import Message
from typing import IO, Any, TextIO
from urllib.parse import urlsplit

from . import __version__
from .agents import GLOBAL_NAME, name_problem
from .lint import CODES, lint
from .matcher import MODES, Mode
from .parser import MAX_BYTES, RobotsTxt, cut_at_limit
from .policy import Answer, Redirects, State
from .verdict import Verdict

__all__ = [
    "DEFAULT_TIMEOUT",
    "EXIT_ERROR",
    "EXIT_FOUND",
    "EXIT_OK",
    "MAX_REDIRECTS",
    "PROG",
    "CliError",
    "Source",
    "build_parser",
    "fetch",
    "load",
    "main",
    "run_check",
    "run_lint",
    "verdicts",
]

PROG = "python -m scrapy_robots_rfc"

#: Redirects followed when fetching a robots.txt (RFC 9309 §2.3.1.2, HTTP-2);
#: more, a loop, a 3xx without ``Location`` or a redirect to a non-HTTP URL
#: mean no robots.txt (allow all), as in the middleware (D-14, HTTP-8).
MAX_REDIRECTS = 5

#: Seconds to wait for the robots.txt server.
DEFAULT_TIMEOUT = 30.0

#: Exit statuses.
EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2

_CHECK_EPILOG = f"""\
ROBOTS is a file, - for standard input, or an http(s) URL. A URL is
fetched (at most {MAX_REDIRECTS} redirects, {MAX_BYTES:,} bytes) and its status decides
first, as the middleware does (RFC 9309 §2.3.1):
  2xx                      the rules are parsed
  4xx (but 429)            no robots.txt: every URL is allowed
  429, 5xx, network error  unreachable: every URL is disallowed

output, one line per URL, as the middleware's log and scrapy robots say it:
  https://example.com/a: allowed by "allow: /a (line 3)" in the group for '*'
  https://example.com/b: disallowed by "disallow: / (line 2)" in the group for '*'
  https://example.com/c: allowed: no rule of the group for '*' matches '/c'
--json prints one JSON object per URL, one per line (JSON Lines), with the
keys url, verdict, allowed, token, match_string, rule (allow, pattern,
line; or null), group, reason, why, robots (source, status, kind: rules,
allow_all or unreachable, outcome), user_agent and mode.

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
  SOURCE:LINE: CODE: message
then "N findings" or "no findings". The codes:
"""
    + "".join(f"  {code:<18} {text}\n" for code, text in CODES.items())
    + f"""
"shadowed" is reported only where it is proven: every URL the rule matches is
also matched by a rule of the other kind that wins (longer, or an allow of
the same length), so the rule never decides a verdict.

--json prints one JSON object per finding, one per line (JSON Lines), with
the keys source, line, kind, code, message and note (true for a note); kind
is the same as code, kept for compatibility. The summary goes to stderr.

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
    looked at."""

    name: str
    #: ``RULES`` for a file; for a URL, what the status step found.
    state: State
    #: The body, cut at :data:`MAX_BYTES` (``b""`` unless ``state`` is rules).
    body: bytes = b""
    #: Whether content past :data:`MAX_BYTES` was dropped.
    truncated: bool = False
    #: The HTTP status of the last response, ``None`` for a file.
    status: int | None = None
    #: :attr:`.policy.Answer.outcome`, as the middleware's log and report
    #: say it ("200", "404: no robots.txt: allow all"...); empty for a file.
    outcome: str = ""

    @classmethod
    def answered(
        cls, name: str, answer: Answer, body: bytes = b"", truncated: bool = False
    ) -> Source:
        return cls(name, answer.state, body, truncated, answer.status, answer.outcome)


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
        return Source("<stdin>", State.RULES, body, truncated)
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
    return Source(robots, State.RULES, body, truncated)


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
    """GET ``url`` and apply the status and redirect steps of
    :mod:`.policy`, the middleware's (RFC 9309 §2.3.1.1 to §2.3.1.4;
    HTTP-1 to HTTP-8).

    Redirects are followed up to :data:`MAX_REDIRECTS`, across hosts too;
    the rules found apply to the URLs checked whatever their origin (LOC-9).
    """
    opener = urllib.request.build_opener(_NoRedirect())
    chain = Redirects(url, MAX_REDIRECTS)
    while True:
        url = chain.url
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
            detail = f"{type(reason).__name__}: {reason}"
            return Source.answered(url, chain.ended(State.UNREACHABLE, detail))
        with response:
            headers: Message = response.headers  # type: ignore[attr-defined]
            step = chain.follow(status, headers.get("Location"))
            if isinstance(step, str):
                continue
            if step.state is not State.RULES:
                return Source.answered(url, step)
            try:
                body, truncated = _read_capped(response)
            except (OSError, http.client.HTTPException) as exc:
                detail = f"HTTP {status}, body not read: {exc!r}"
                return Source.answered(url, chain.ended(State.UNREACHABLE, detail, status))
            return Source.answered(url, step, body, truncated)


# -- check ----------------------------------------------------------------


def verdicts(source: Source, urls: Sequence[str], user_agent: str, mode: Mode) -> list[Verdict]:
    """The verdict for each of ``urls``."""
    name, status = source.name, source.status
    if source.state is not State.RULES:
        return [
            Verdict.of_state(
                url, user_agent, source.state, source.outcome, source=name, status=status
            )
            for url in urls
        ]
    # The name is compared as given (D-21): "*", the default, asks for the
    # '*' groups in both modes.
    robots = RobotsTxt.parse(source.body, mode)
    return [
        Verdict.explained(
            robots.explain(url, user_agent),
            outcome=source.outcome or None,
            source=name,
            status=status,
        )
        for url in urls
    ]


def _header(args: argparse.Namespace) -> str:
    """The User-Agent header of a fetch: ``--user-agent``, or this tool."""
    agent: str = args.user_agent
    return f"scrapy_robots_rfc/{__version__}" if agent == "*" else agent


def run_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``check``: exit 0 when every URL is allowed, 1 otherwise."""
    mode: Mode = args.mode
    source = load(args.robots, timeout=args.timeout, user_agent=_header(args))
    if source.state is not State.RULES:
        err.write(f"note: {source.name}: {source.outcome} ({source.state.value})\n")
    if source.truncated:
        err.write(f"note: {source.name} is larger than {MAX_BYTES:,} bytes; the rest is ignored\n")
    problem = name_problem(args.user_agent, mode)
    if problem is not None and args.user_agent != GLOBAL_NAME:
        # D-21: the name is used as given, so say what that selects.
        err.write(f"warning: --user-agent {args.user_agent!r} {problem}\n")
    found = verdicts(source, args.urls, args.user_agent, mode)
    for verdict in found:
        if args.json:
            record = {**verdict.as_dict(), "user_agent": args.user_agent, "mode": mode}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            out.write(f"{verdict.url}: {verdict}\n")
    return EXIT_OK if all(v.allowed for v in found) else EXIT_FOUND


# -- lint -----------------------------------------------------------------


def run_lint(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``lint``: exit 0 without findings, 1 with some."""
    mode: Mode = args.mode
    source = load(args.robots, timeout=args.timeout, user_agent=_header(args))
    if source.state is not State.RULES:
        raise CliError(f"{source.name}: {source.outcome} ({source.state.value}): nothing to lint")
    found = lint(source.body, mode, truncated=source.truncated)
    for finding in found:
        if args.json:
            record = {
                "source": source.name,
                "line": finding.line,
                "kind": finding.code,  # the name of earlier versions (lint.py)
                "code": finding.code,
                "message": finding.message,
                "note": finding.is_note,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            out.write(f"{source.name}:{finding.line}: {finding.code}: {finding.message}\n")
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
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = _command(
        commands,
        "check",
        run_check,
        help="is each URL allowed, and by which rule",
        description="Print, for each URL, the verdict and the rule that decides it.",
        epilog=_CHECK_EPILOG,
    )
    check.add_argument("urls", metavar="URL", nargs="+", help="URLs to check")
    check.add_argument(
        "--user-agent",
        default="*",
        metavar="TOKEN",
        help="the crawler's product token, compared as given (default *: the '*' groups)",
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
    lint_parser.set_defaults(user_agent="*")
    _common(lint_parser)
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
