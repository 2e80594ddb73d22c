"""Settings of the demo project: obey robots.txt with scrapy_robots_rfc."""

from __future__ import annotations

BOT_NAME = "demo_project"
SPIDER_MODULES = ["demo_project.spiders"]
NEWSPIDER_MODULE = "demo_project.spiders"

# Obey robots.txt, with this package's middleware in place of Scrapy's.
ROBOTSTXT_OBEY = True
ADDONS = {"scrapy_robots_rfc.Addon": 100}

# The product token robots.txt groups are matched against, and a polite
# User-Agent header that names it and says who runs the crawler.
ROBOTSTXT_USER_AGENT = "DemoBot"
USER_AGENT = "DemoBot/1.0 (scrapy_robots_rfc demo; runs on 127.0.0.1 only)"

# An unreachable robots.txt (5xx, 429, network error) is fetched again after
# 1 s, then 2 s, 4 s...; requests waiting for it are dropped after 4 s. The
# defaults (30 s and 600 s) suit a real crawl; these keep the demo short.
ROBOTSTXT_RFC_UNREACHABLE_RETRY = 1
ROBOTSTXT_RFC_UNREACHABLE_WAIT = 4

# The tour spider asks for more in its custom_settings: page-level rules
# honoured (ROBOTSTXT_RFC_NOFOLLOW, ROBOTSTXT_RFC_NOINDEX), a crawl for
# train-ai (ROBOTSTXT_RFC_USAGE) and crawl-delay kept (ROBOTSTXT_RFC_CRAWL_DELAY).
# Here they stay at their defaults, so that `scrapy robots URL` in this
# project shows what a project that does not set them gets.

TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
DOWNLOAD_DELAY = 0
# Nothing else listens: no telnet console, no remote control server.
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False
LOG_LEVEL = "INFO"
