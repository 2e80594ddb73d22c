"""``.. cli-help:: check`` renders a command's ``--help`` from its argparse
parser, so that the docs never drift from the code: ``check`` and ``lint``
(``python -m scrapy_robots_rfc``, :func:`scrapy_robots_rfc.cli.build_parser`),
``main`` (the parser itself) and ``scrapy robots`` (the Scrapy command, its
parser built as ``scrapy.cmdline`` builds it)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]  # type: ignore[no-any-return]
    raise KeyError(name)


def _scrapy_robots() -> argparse.ArgumentParser:
    from scrapy.cmdline import ScrapyArgumentParser
    from scrapy.commands import ScrapyHelpFormatter
    from scrapy.settings import Settings

    from scrapy_robots_rfc.commands.robots import Command

    command = Command()
    parser = ScrapyArgumentParser(
        formatter_class=ScrapyHelpFormatter,
        usage=f"scrapy robots {command.syntax()}",
        conflict_handler="resolve",
        description=command.long_desc(),
    )
    settings = Settings()
    settings.setdict(command.default_settings, priority="command")
    command.settings = settings
    command.add_options(parser)
    return parser


def help_text(name: str) -> str:
    os.environ["COLUMNS"] = "80"  # argparse wraps to the terminal's width
    if name == "scrapy robots":
        return _scrapy_robots().format_help()
    from scrapy_robots_rfc.cli import build_parser

    parser = build_parser()
    if name == "main":
        return parser.format_help()
    return _subparser(parser, name).format_help()


class CliHelp(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True

    def run(self) -> list[nodes.Node]:
        text = help_text(self.arguments[0])
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("cli-help", CliHelp)
    return {"parallel_read_safe": True}
