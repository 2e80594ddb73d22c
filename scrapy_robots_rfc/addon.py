"""Kept for the settings path ``scrapy_robots_rfc.addon.Addon`` (``ADDONS``);
the add-on lives in :mod:`.crawl.addon`."""

from __future__ import annotations

from .crawl.addon import Addon

__all__ = ["Addon"]
