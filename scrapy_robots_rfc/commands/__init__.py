"""Scrapy commands of scrapy_robots_rfc, registered through the
``scrapy.commands`` entry point group: ``scrapy robots URL``."""

__all__: list[str] = []
