"""The conformance page's table (docs/conformance.rst) as reStructuredText
lines, from the figures that the conformance run writes. Plain Python, no
Sphinx: the directive in ``conformance.py`` parses these lines in place, and
the tests render them without the docs extra.
"""

from __future__ import annotations

from typing import Any

#: Where ``make docs`` writes the figures, from the docs' source folder.
FIGURES = "_generated/conformance.json"
MODES = ("rfc", "google")


def _link(text: str, url: str) -> str:
    return f"`{text} <{url}>`__"


def _decision(decision: str, count: int) -> str:
    # docs/decisions.md gives each decision an anchor: its ID in lower case.
    link = _link(decision, f"decisions.html#{decision.lower()}")
    return link if count == 1 else f"{link} ×{count}"


def _agrees(row: dict[str, Any], mode: str) -> str:
    tally = row["modes"][mode]
    text = f"{tally['agrees']} of {row['checks']}"
    if tally["pending"]:
        issues = ", ".join(str(issue) for issue in row["pending_issues"])
        text += f" (+{tally['pending']} once issue {issues} is fixed)"
    return text


def _differences(row: dict[str, Any]) -> str:
    parts = []
    for mode in MODES:
        tally = row["modes"][mode]
        listed = [_decision(d, n) for d, n in sorted(tally["decisions"].items(), key=_order)]
        if tally["wrong"]:
            listed.append(f"**{len(tally['wrong'])} with no decision**")
        parts.append(f"``{mode}``: " + (", ".join(listed) if listed else "none"))
    return "; ".join(parts)


def _order(item: tuple[str, int]) -> tuple[str, int]:
    family, _, number = item[0].partition("-")
    return family, int(number)


def table_rst(figures: dict[str, Any]) -> list[str]:
    """The list-table, and the checks not applicable, as rst lines."""
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        # docs/_static/custom.css: no token of this table is split
        "   :class: conformance",
        "   :widths: 24 15 12 14 14 21",
        "",
        "   * - Suite",
        "     - Version",
        "     - Checks",
        "     - Agree in ``rfc`` mode",
        "     - Agree in ``google`` mode",
        "     - Differences, by decision",
    ]
    for row in figures["suites"]:
        repository = f"https://github.com/{row['repository']}"
        tree = f"{repository}/tree/{row['commit']}"
        not_applicable = sum(entry["checks"] for entry in row["not_applicable"].values())
        checks = str(row["checks"])
        if not_applicable:
            checks += f" ({not_applicable} more not applicable)"
        lines += [
            f"   * - {_link(row['title'], tree)}",
            f"     - {row['version']}, {_link(row['commit'][:10], tree)}",
            f"     - {checks}",
            f"     - {_agrees(row, 'rfc')}",
            f"     - {_agrees(row, 'google')}",
            f"     - {_differences(row)}",
        ]
    sweep = figures.get("protego_sweep")
    lines.append("")
    if sweep:
        lines.append(
            f"Protego's sweep over its {sweep['files']:,} real robots.txt files (commit "
            f"{sweep['commit'][:10]}): each parsed in both modes, "
            + (f"**{len(sweep['raised'])} raised**." if sweep["raised"] else "none raised.")
        )
    else:
        lines.append(
            "Protego's sweep over its real robots.txt files did not run in this build: "
            "the files are not part of this project (``PROTEGO_TEST_DATA``)."
        )
    lines += ["", ".. rubric:: Not applicable", ""]
    for row in figures["suites"]:
        if not row["not_applicable"]:
            continue
        lines += [f"**{row['title']}**", ""]
        for api, entry in row["not_applicable"].items():
            count = entry["checks"]
            checks = "1 check" if count == 1 else f"{count} checks"
            lines.append(f"* ``{api}`` ({checks}): {entry['reason']}.")
        lines.append("")
    wrong = [
        (row["title"], mode, case)
        for row in figures["suites"]
        for mode in MODES
        for case in row["modes"][mode]["wrong"]
    ]
    if wrong:
        lines += [".. rubric:: Differences with no decision", ""]
        lines += [f"* {title}, ``{mode}`` mode: {case}" for title, mode, case in wrong]
        lines.append("")
    return lines
