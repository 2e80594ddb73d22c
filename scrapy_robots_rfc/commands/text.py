"""``scrapy robots``'s report as aligned text lines: one label and its value
per line, the way the command prints it without ``--json``."""

from __future__ import annotations

from typing import Any

from ..policy import State

__all__ = ["clauses", "report_text"]


def clauses(*parts: str) -> str:
    """The non-empty ``parts`` joined with ``"; "``, each without the full
    stop that ends it: an outcome quoted from an exception often ends with
    one ("... Connection refused."), which before ``;`` would be doubled
    punctuation. An ellipsis stays."""
    return "; ".join(
        part[:-1] if part.endswith(".") and not part.endswith("..") else part
        for part in parts
        if part
    )


def report_text(report: dict[str, Any], detail: str = "") -> str:
    """The report (the ``robots`` schema's object) as aligned lines;
    ``detail`` is the middleware's words for the outcome, shown beside it."""
    lines: list[tuple[str, str]] = []
    robots = report.get("robots")
    if robots is not None:
        chain = robots["url"]
        for i, hop in enumerate(report["chain"]):
            if i:
                chain += f" → {hop['url']}"
            chain += f" → {hop['status'] if hop['status'] is not None else 'no response'}"
        if report["from_store"] and not report["chain"]:
            chain += " → from ROBOTSTXT_RFC_STORE"
        state = robots["state"]
        outcome = "unknown" if state is None else State(state).effect
        if robots["source"] != robots["url"] and state == State.RULES.value:
            outcome += f" of {robots['source']}"
        followed = f"redirects followed: {max(0, len(report['chain']) - 1)}"
        fetched = f"fetched {report['fetches']} times" if report["fetches"] > 1 else ""
        lines.append(("robots.txt", f"{chain}: {outcome} ({clauses(detail, followed, fetched)})"))
    lines.append(("URL", report["url"]))
    agent = report.get("user_agent")
    if agent is not None:
        names = ", ".join(agent["names"])
        lines.append(("user agent", f"{names} (from {agent['from']} {agent['given']!r})"))
    verdict = report["verdict"]
    lines.append(("verdict", f"error: {report['error']}" if verdict is None else verdict["reason"]))
    if report.get("usage_text") is not None:
        lines.append(("usage", report["usage_text"]))
    if "sitemaps" in report:
        sitemaps = report["sitemaps"]
        if sitemaps is None:
            sitemaps = ["unknown (robots.txt came from the store; Scrapy 2.18+ shows them)"]
        sitemaps = sitemaps or ["none"]
        lines.append(("sitemaps", sitemaps[0]))
        lines.extend(("", sitemap) for sitemap in sitemaps[1:])
        delay, source = report["crawl_delay"], report["crawl_delay_from"]
        if delay is None:
            lines.append(("crawl-delay", "none"))
        else:
            # D-17: the line, and the user-agent lines above it it belongs to.
            agents = ", ".join(repr(agent) for agent in source["agents"])
            where = f"line {source['line']}, for {agents}"
            lines.append(("crawl-delay", f"{delay:g} s ({where}; {report['crawl_delay_note']})"))
    tdm = report.get("tdm")
    if tdm is not None:
        # The URL's value and the source that decided it (T-1, T-3).
        fetched = "" if tdm["file"] is None else f" (tdmrep.json: {tdm['file']})"
        dropped = "; a crawl that mines does not download it" if tdm["reserved"] else ""
        if tdm["reserved"] and tdm["source"] and not tdm["source"].startswith("tdmrep.json"):
            dropped = "; a crawl that mines keeps its items from the pipeline"
        lines.append(("tdm", f"{tdm['text']}{fetched}{dropped}"))
    page = report.get("page")
    if page is not None:
        directives = page["directives"]
        lines.append(("page", f"{page['url']} → {page['status']}"))
        if not directives:
            lines.append(("page rules", "none"))
        for i, directive in enumerate(directives):
            lines.append(("page rules" if i == 0 else "", _directive(directive)))
    for note in report.get("notes", ()):
        lines.append(("note", note))
    width = max(len(label) for label, _ in lines) + 1
    return "\n".join(f"{label:<{width}} {value}".rstrip() for label, value in lines)


def _directive(directive: dict[str, Any]) -> str:
    """A directive of the ``page`` object in words, as
    :class:`.pagerules.Directive` says it."""
    from ..pagerules import Directive

    return str(
        Directive(
            directive["name"], directive["value"], directive["source"], directive["applies_to"]
        )
    )
