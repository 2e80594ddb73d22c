"""The demo: parse the spec examples under tests/data and print, for each,
the verdict in both modes and the rule that decides it.

Run it with ``make demo``. It needs no network.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from scrapy_robots_rfc import RobotsTxt

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"


def main() -> None:
    rows = []
    for name in ("rfc_cases.json", "google_doc_cases.json"):
        for case in json.loads((DATA / name).read_text(encoding="utf-8")):
            if "robotstxt_b64" in case:
                body = base64.b64decode(case["robotstxt_b64"])
            else:
                body = case["robotstxt"].encode()
            rfc = RobotsTxt.parse(body, "rfc").explain(case["url"], case["user_agent"])
            google = RobotsTxt.parse(body, "google").allowed(case["url"], case["user_agent"])
            rule = str(rfc.rule) if rfc.rule else "-"
            rows.append(
                (
                    case["user_agent"][:14],
                    rfc.match_string[:34],
                    "allow" if rfc.allowed else "DENY",
                    "allow" if google else "DENY",
                    rule[:44],
                )
            )
    header = ("agent", "match string", "rfc", "google", "deciding rule (rfc mode)")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    differ = sum(1 for r in rows if r[2] != r[3])
    print(f"\n{len(rows)} verdicts; the modes differ on {differ} (DECISIONS.md D-1..D-3).")


if __name__ == "__main__":
    main()
