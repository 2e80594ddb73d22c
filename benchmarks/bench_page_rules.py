"""Page-level rules (P-1 to P-4): what reading them costs per response,
next to what Scrapy's own link extraction costs on the same pages.

The pages are built like real ones: a head with a charset, a title, a
viewport, ten ``<meta>`` tags (description, Open Graph, Twitter), five
``<link>`` tags, two inline scripts and a robots meta tag, then a body of
about 40 KB with 150 links. Half of them also have an ``X-Robots-Tag``
header. Each is a Scrapy ``HtmlResponse``, built fresh for every pass
(outside the timed region), since a response keeps its parsed selector.

Per response, the best of several passes over all the pages:

* **not asked**: what the middleware does on every response of a crawl
  that honours them (``PageGate.on_response``: the ``X-Robots-Tag``
  lookup, the search for the end of the head, the on-demand object in
  ``response.meta``);
* **rules off, none on the page**: what a crawl that leaves page-level
  rules off (the default) does on every response (``PageGate.notice``:
  the same lookup and search, nothing kept), on the same pages without
  their robots meta tag and header, and on a plain-text response;
* **asked**: the same, then one question (``.nofollow``), which reads the
  rules (the head parsed with parsel);
* **LinkExtractor**: ``scrapy.linkextractors.LinkExtractor().extract_links``,
  what a ``CrawlSpider`` runs on every page;
* **css a::attr(href)**: the whole page parsed and its links listed, the
  least a spider that follows links does.

A crawl that never asks pays the first line; ``bench_crawl.py
--page-rules`` measures it on a whole crawl (mode d: every page's rules
read). Run it directly::

    .venv/bin/python benchmarks/bench_page_rules.py           # about 30 seconds
    .venv/bin/python benchmarks/bench_page_rules.py --quick   # fewer pages and passes

It is a script, not a test: it asserts nothing about times.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import harness
from scrapy.http import HtmlResponse, Request, TextResponse
from scrapy.linkextractors import LinkExtractor

from scrapy_robots_rfc._runtime import Runtime
from scrapy_robots_rfc.crawl._config import Config
from scrapy_robots_rfc.crawl._crawler_names import CrawlerNames
from scrapy_robots_rfc.crawl._page_gate import PageGate
from scrapy_robots_rfc.crawl._report import Report
from scrapy_robots_rfc.pagerules import PAGE_RULES_META_KEY
from scrapy_robots_rfc.policy import Origins

PAGES = 200
QUICK_PAGES = 40
PASSES = 7
QUICK_PASSES = 3


class _Stats:
    def inc_value(self, key: str, count: int = 1) -> None:
        pass


def page_html(rng: random.Random, n: int, robots_tag: bool = True) -> bytes:
    """One page: a realistic head and a body of about 40 KB; ``robots_tag``:
    with a robots meta tag."""
    metas = "".join(
        f'<meta property="og:{k}" content="{k} of page {n}">'
        for k in ("title", "type", "url", "image", "site_name")
    ) + "".join(
        f'<meta name="twitter:{k}" content="{k} {n}">'
        for k in ("card", "site", "title", "description", "image")
    )
    links = "".join(
        f'<link rel="{rel}" href="/static/{rel}.{n}">'
        for rel in ("stylesheet", "icon", "canonical", "alternate", "preload")
    )
    robots = rng.choice(["index, follow", "noarchive", "max-snippet: -1, max-image-preview: large"])
    head = (
        '<head><meta charset="utf-8"><title>Page '
        f'{n}</title><meta name="viewport" content="width=device-width">'
        f'<meta name="description" content="The page number {n} of the bench site.">'
        f"{metas}{links}<script>window.dataLayer = window.dataLayer || [];</script>"
        f"<script>var page = {n};</script>"
        + (f'<meta name="robots" content="{robots}">' if robots_tag else "")
        + "</head>"
    )
    paragraphs = "".join(
        f"<p>Paragraph {i} of page {n}: "
        + " ".join(
            rng.choice(("robots", "crawl", "page", "text", "link", "site")) for _ in range(40)
        )
        + "</p>"
        for i in range(60)
    )
    anchors = "".join(f'<li><a href="/page/{n}/{i}">link {i}</a></li>' for i in range(150))
    body = f"<body><h1>Page {n}</h1>{paragraphs}<ul>{anchors}</ul></body>"
    return f"<!DOCTYPE html><html>{head}{body}</html>".encode()


def responses(
    bodies: list[tuple[bytes, dict[str, str]]], cls: type[TextResponse] = HtmlResponse
) -> list[HtmlResponse]:
    found = []
    kind = "text/html" if cls is HtmlResponse else "text/plain"
    for n, (body, headers) in enumerate(bodies):
        request = Request(f"https://example.com/page/{n}")
        found.append(
            cls(
                request.url,
                body=body,
                headers={"Content-Type": f"{kind}; charset=utf-8", **headers},
                request=request,
            )
        )
    return found  # type: ignore[return-value]


def per_response(
    bodies: list[tuple[bytes, dict[str, str]]],
    passes: int,
    work: Callable[[HtmlResponse], Any],
    cls: type[TextResponse] = HtmlResponse,
) -> float:
    """The best pass's seconds per response, each pass on fresh responses."""
    batch: list[HtmlResponse] = []

    def setup() -> None:
        batch[:] = responses(bodies, cls)

    def run() -> None:
        for response in batch:
            work(response)

    return harness.best_of(passes, run, setup) / len(bodies)


def main() -> None:
    parser = harness.arguments(__doc__, f"{QUICK_PAGES} pages, {QUICK_PASSES} passes")
    args = parser.parse_args()
    started = time.perf_counter()
    count = QUICK_PAGES if args.quick else PAGES
    passes = QUICK_PASSES if args.quick else PASSES
    harness.title("page-level rules benchmark", args.quick)
    print(f"{harness.python_text(machine=True)}; Scrapy {harness.version('scrapy')}")
    print(f"{harness.package_text()} ({harness.git_state()})")
    rng = random.Random(harness.SEED)
    bodies = []
    for n in range(count):
        headers = {"X-Robots-Tag": "noarchive, otherbot: noindex"} if n % 2 else {}
        bodies.append((page_html(rng, n), headers))
    size = sum(len(body) for body, _ in bodies) / count
    print(f"{count} HTML pages of {size / 1024:.1f} KiB on average, best of {passes} passes")
    # A crawl that honours them (on_response), and one that leaves them off.
    honours = Config(nofollow=True)
    gate = PageGate(Runtime(_Stats()), honours, Report(10), Origins())  # type: ignore[arg-type]
    off = PageGate(Runtime(_Stats()), Config(), Report(10), Origins())  # type: ignore[arg-type]
    names = CrawlerNames(Config(user_agent="BenchBot/1.0"), Runtime(_Stats()))  # type: ignore[arg-type]
    plain = [(page_html(rng, n, robots_tag=False), {}) for n in range(count)]

    def not_asked(response: HtmlResponse) -> None:
        gate.on_response(response.request, response, "benchbot")  # type: ignore[arg-type]

    def noticed(response: HtmlResponse) -> None:
        off.notice(response.request, response, names)  # type: ignore[arg-type]

    def asked(response: HtmlResponse) -> None:
        not_asked(response)
        _ = response.meta[PAGE_RULES_META_KEY].nofollow

    extractor = LinkExtractor()
    rows = {
        "not asked (every response)": per_response(bodies, passes, not_asked),
        "asked (the rules read)": per_response(bodies, passes, asked),
        "rules off, none on the page (HTML)": per_response(plain, passes, noticed),
        "rules off, a text/plain response": per_response(plain, passes, noticed, TextResponse),
        "LinkExtractor().extract_links": per_response(bodies, passes, extractor.extract_links),
        "css a::attr(href)": per_response(
            bodies, passes, lambda r: r.css("a::attr(href)").getall()
        ),
    }
    extract = rows["LinkExtractor().extract_links"]
    table = [
        [name, f"{seconds * 1e6:,.1f}", f"{seconds / extract:.3f}"]
        for name, seconds in rows.items()
    ]
    print(harness.table(["per response", "µs", "× LinkExtractor"], table))
    results = {
        "quick": args.quick,
        "pages": count,
        "passes": passes,
        "mean_page_bytes": size,
        "seconds_per_response": rows,
        "git": harness.git_state(),
    }
    harness.finish(args.json, results, started)


if __name__ == "__main__":
    main()
