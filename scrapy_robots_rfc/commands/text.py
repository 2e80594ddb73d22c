"""``scrapy robots``'s report as aligned text lines: one label and its value
per line, the way the command prints it without ``--json``."""

from __future__ import annotations

from typing import Any

__all__ = ["report_text"]


def report_text(report: dict[str, Any]) -> str:
    """The report as aligned lines."""
    lines: list[tuple[str, str]] = []
    if "robots_txt" in report:
        chain = report["robots_txt"]
        for i, hop in enumerate(report["chain"]):
            if i:
                chain += f" → {hop['url']}"
            chain += f" → {hop['status'] if hop['status'] is not None else 'no response'}"
        if report["from_store"] and not report["chain"]:
            chain += " → from ROBOTSTXT_RFC_STORE"
        outcome = report["effect"]
        if report["rules_url"] != report["robots_txt"] and report["outcome"] == "rules":
            outcome += f" of {report['rules_url']}"
        extra = [report["outcome_detail"], f"redirects followed: {report['redirects_followed']}"]
        if report["fetches"] > 1:
            extra.append(f"fetched {report['fetches']} times")
        lines.append(("robots.txt", f"{chain}: {outcome} ({'; '.join(filter(None, extra))})"))
    lines.append(("URL", report["url"]))
    if "user_agent" in report:
        lines.append(
            (
                "user agent",
                f"{report['user_agent']} (from {report['user_agent_source']} "
                f"{report['user_agent_value']!r})",
            )
        )
    reason = report["reason"]
    lines.append(("verdict", f"error: {reason}" if report["verdict"] == "error" else reason))
    if report.get("usage_text") is not None:
        lines.append(("usage", report["usage_text"]))
    if "sitemaps" in report:
        sitemaps = report["sitemaps"]
        if sitemaps is None:
            sitemaps = ["unknown (robots.txt came from the store; Scrapy 2.18+ shows them)"]
        sitemaps = sitemaps or ["none"]
        lines.append(("sitemaps", sitemaps[0]))
        lines.extend(("", sitemap) for sitemap in sitemaps[1:])
        delay = report["crawl_delay"]
        if delay is None:
            lines.append(("crawl-delay", "none"))
        else:
            lines.append(("crawl-delay", f"{delay:g} s ({report['crawl_delay_note']})"))
    for note in report.get("notes", ()):
        lines.append(("note", note))
    width = max(len(label) for label, _ in lines) + 1
    return "\n".join(f"{label:<{width}} {value}".rstrip() for label, value in lines)
