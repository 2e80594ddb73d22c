"""Kept for the settings path ``scrapy_robots_rfc.robotparser.RobotParser``
(``ROBOTSTXT_PARSER``); the class lives in :mod:`.crawl.robotparser`."""

from __future__ import annotations

from .crawl.robotparser import RobotParser

__all__ = ["RobotParser"]
