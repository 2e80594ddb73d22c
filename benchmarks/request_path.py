"""The path of one request through the package's modules, on a real crawl:
how many modules it enters, how many times it comes back to a module it
had left, and how many of those are call-backs (a call into a module that is
lower on the call stack, as a room calling its middleware), for a cache
miss (the first request to an origin, whose robots.txt is fetched) and a
cache hit (the next request to it).

It is a measure of the code's shape, not of speed: a profiler
(``sys.setprofile``) follows which of the package's modules runs, call by
call, while a spider crawls two pages of a local server. Calls outside the
package (Scrapy, Twisted) are not counted; the pure ``robotstxt`` package
can be counted as one unit (``--core-as-one``), as a library called through
``RobotsTxt.parse``, or both pure layers as library calls (``--io-only``:
only how the request moves among the Scrapy-facing modules counts).

*Re-entries* count fresh calls into a module the request had entered before
and left, up to its verdict (the page request reaching the downloader): a
return to the caller is none, nor a coroutine resumed. ``--own`` counts them
only in the page request's own calls (its ``process_request`` passes and the
handler that parks it), not in the robots.txt load it waits for.
``--slow-robots SECONDS`` answers robots.txt after that long: with more than
``ROBOTSTXT_RFC_PARK_AFTER`` (0.05 s), the first page waits its grace in
place, is parked, and comes back through the engine (a *parked miss*),
whatever the machine's load.

    python benchmarks/request_path.py [--core-as-one | --io-only] [--own] [--show]
        [--slow-robots SECONDS]
"""

from __future__ import annotations

import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import FrameType
from typing import Any

import harness
from scrapy import Request, Spider, signals
from scrapy.crawler import CrawlerProcess

PACKAGE = "scrapy_robots_rfc"
_COROUTINE, _GENERATOR = 0x80, 0x20  # inspect.CO_COROUTINE, CO_GENERATOR
#: The pure layers, which ``--io-only`` counts as library calls; the second
#: line names them in the flat layout of 0.1, so that older trees compare.
PURE = (
    PACKAGE + ".robotstxt",
    PACKAGE + ".policy",
    *(f"{PACKAGE}.{name}" for name in ("agents", "canonical", "keys", "lint", "matcher")),
    *(f"{PACKAGE}.{name}" for name in ("origin", "parser", "tree", "usage", "verdict")),
)
ROBOTS = b"User-agent: *\nDisallow: /private\nCrawl-delay: 0\n"


class _Handler(BaseHTTPRequestHandler):
    #: Seconds robots.txt is answered after (``--slow-robots``).
    delay = 0.0

    def do_GET(self) -> None:
        if self.path == "/robots.txt" and self.delay:
            time.sleep(self.delay)
        body = ROBOTS if self.path == "/robots.txt" else b"<html><body>page</body></html>"
        kind = "text/plain" if self.path == "/robots.txt" else "text/html"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Path:
    """The modules that ran, phase by phase, consecutive repeats collapsed."""

    def __init__(self, core_as_one: bool, io_only: bool, own_only: bool = False) -> None:
        self.core_as_one = core_as_one
        self.io_only = io_only
        self.own_only = own_only
        self.phase: str | None = None
        self.steps: dict[str, list[str]] = {"miss": [], "hit": []}
        #: Calls into a module that is lower on the call stack: a module
        #: called back by one it called (a web, not layers).
        self.callbacks: dict[str, list[str]] = {"miss": [], "hit": []}
        #: Re-entries: fresh calls into a module the path had entered
        #: before and left (not on the stack now), up to the verdict. A
        #: return to the caller is no entry, nor is a coroutine resumed.
        self.reentries: dict[str, list[str]] = {"miss": [], "hit": []}
        self._entered: dict[str, set[str]] = {"miss": set(), "hit": set()}
        #: Coroutine frames already entered: a later "call" resumes them.
        self._frames: set[FrameType] = set()

    def unit(self, frame: FrameType | None) -> str | None:
        """The package module of the innermost package frame, if any."""
        while frame is not None:
            name = frame.f_globals.get("__name__", "")
            if name == PACKAGE or name.startswith(PACKAGE + "."):
                if self.core_as_one and name.startswith(PACKAGE + ".robotstxt"):
                    return PACKAGE + ".robotstxt"
                if self.io_only and name.startswith(PURE):
                    frame = frame.f_back  # a library call: its caller counts
                    continue
                return str(name)
            frame = frame.f_back
        return None

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        if event not in ("call", "return"):
            return
        if self.phase is None:
            code = frame.f_code
            ours = frame.f_globals.get("__name__", "").startswith(PACKAGE)
            if event == "call" and code.co_name == "process_request" and ours:
                self.phase = "miss"
            if self.phase is None:
                return
        steps = self.steps.get(self.phase)
        if steps is None:
            return
        where = self.unit(frame if event == "call" else frame.f_back)
        if event == "call" and where is not None:
            self._callback(frame, where)
            self._reentry(frame, where)
        if where is not None and (not steps or steps[-1] != where):
            steps.append(where)

    def _reentry(self, frame: FrameType, module: str) -> None:
        assert self.phase is not None
        entered = self._entered.get(self.phase)
        if entered is None:
            return
        if self.own_only and not self._own(frame):
            return
        if frame.f_code.co_flags & (_COROUTINE | _GENERATOR):
            if frame in self._frames:
                return  # resumed, not entered
            self._frames.add(frame)
        caller = self.unit(frame.f_back)
        if caller == module:
            return  # a call within the module
        if module in entered and not self._on_stack(frame.f_back, module):
            self.reentries[self.phase].append(module)
        entered.add(module)

    def _own(self, frame: FrameType | None) -> bool:
        """Whether ``frame`` runs for the page request itself: below the
        middleware's ``process_request`` or the scheduler handler that
        parks it, for the page's URL (not the robots.txt fetch, nor
        Scrapy's download signals)."""
        while frame is not None:
            if frame.f_code.co_name in ("process_request", "scheduled"):
                request = frame.f_locals.get("request")
                if getattr(request, "url", "").endswith(("/one", "/two")):
                    return True
            frame = frame.f_back
        return False

    def _on_stack(self, frame: FrameType | None, module: str) -> bool:
        while frame is not None:
            if self.unit(frame) == module:
                return True
            frame = frame.f_back
        return False

    def verdict(self, request: Any) -> None:
        """The request reached the downloader: its path ends (a page's, not
        the robots.txt fetch's)."""
        if self.phase in ("miss", "hit") and not request.url.endswith("/robots.txt"):
            self.phase = f"{self.phase}-decided"

    def _callback(self, frame: FrameType, module: str) -> None:
        caller = self.unit(frame.f_back)
        if caller is None or caller == module:
            return
        below = frame.f_back
        while below is not None:
            if self.unit(below) == module and below.f_globals.get("__name__", "").startswith(
                module
            ):
                assert self.phase is not None
                self.callbacks[self.phase].append(f"{caller} -> {module}")
                return
            below = below.f_back


def counts(steps: list[str]) -> tuple[int, int]:
    """Modules entered, and returns to a module the path had left."""
    seen: set[str] = set()
    returns = 0
    for module in steps:
        if module in seen:
            returns += 1
        seen.add(module)
    return len(seen), returns


def main() -> None:
    parser = harness.arguments(__doc__, "(no effect: the run is short)")
    parser.add_argument("--core-as-one", action="store_true", help="count robotstxt/ as one unit")
    parser.add_argument(
        "--io-only",
        action="store_true",
        help="count only the Scrapy-facing modules (calls into robotstxt/, policy/: library calls)",
    )
    parser.add_argument(
        "--own",
        action="store_true",
        help="count re-entries only in the page request's own calls (process_request and the "
        "handler that parks it), not in the robots.txt fetch it waits for",
    )
    parser.add_argument("--show", action="store_true", help="print each path's modules")
    parser.add_argument(
        "--slow-robots",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="answer robots.txt after SECONDS (0.3: the first page is parked, a parked miss)",
    )
    options = parser.parse_args()
    _Handler.delay = options.slow_robots
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    path = _Path(options.core_as_one, options.io_only, options.own)

    class TwoPages(Spider):
        name = "two_pages"

        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            spider = super().from_crawler(crawler, *args, **kwargs)
            crawler.signals.connect(path.verdict, signal=signals.request_reached_downloader)
            return spider

        async def start(self) -> Any:
            yield Request(f"{base}/one", callback=self.first)

        def first(self, response: Any) -> Any:
            path.phase = "hit"
            yield Request(f"{base}/two", callback=self.second)

        def second(self, response: Any) -> None:
            path.phase = "done"

    process = CrawlerProcess(
        {
            "ROBOTSTXT_OBEY": True,
            "ADDONS": {"scrapy_robots_rfc.Addon": 0},
            "LOG_LEVEL": "WARNING",
            "TELNETCONSOLE_ENABLED": False,
        }
    )
    process.crawl(TwoPages)
    sys.setprofile(path.profile)
    try:
        process.start()
    finally:
        sys.setprofile(None)
        server.shutdown()
    harness.title("request path", False)
    print(f"tree: {harness.git_state()}")
    if options.slow_robots:
        print(f"robots.txt answered after {options.slow_robots:g} s")
    if options.io_only:
        print("Scrapy-facing modules only (robotstxt/ and policy/ are library calls)")
    else:
        print("pure core counted as one unit" if options.core_as_one else "every module counted")
    rows = []
    for phase, steps in path.steps.items():
        modules, returns = counts(steps)
        back = str(len(path.callbacks[phase]))
        again = str(len(path.reentries[phase]))
        rows.append([f"cache {phase}", str(modules), str(returns), again, back, str(len(steps))])
    print(harness.table(["path", "modules", "returns", "re-entries", "call-backs", "steps"], rows))
    if options.show:
        for phase, steps in path.steps.items():
            short = [step.removeprefix(PACKAGE + ".") for step in steps]
            print(f"\n{phase}: " + " > ".join(short))
            again = [step.removeprefix(PACKAGE + ".") for step in path.reentries[phase]]
            print(f"  re-entered: {', '.join(again) or 'none'}")
            for edge in path.callbacks[phase]:
                print(f"  called back: {edge.replace(PACKAGE + '.', '')}")


if __name__ == "__main__":
    main()
