"""The add-on: what it does to a project's settings."""

from __future__ import annotations

import pytest
from scrapy.settings import Settings

from scrapy_robots_rfc.crawl.addon import BUILTIN, OURS, Addon


@pytest.mark.parametrize(
    "user",
    [
        {},
        {BUILTIN: 100},
        pytest.param("class", id="class-key"),
    ],
)
def test_addon_switches_the_builtin_off_whatever_key_the_user_used(user):
    from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as Builtin
    from scrapy.utils.conf import build_component_list

    settings = Settings()
    value = {Builtin: 100} if user == "class" else user
    settings.set("DOWNLOADER_MIDDLEWARES", value, priority="spider")  # custom_settings
    Addon().update_settings(settings)
    # What Scrapy's middleware manager reads: 2.15+ merges class and path keys.
    if hasattr(settings, "get_component_priority_dict_with_base"):
        merged = settings.get_component_priority_dict_with_base("DOWNLOADER_MIDDLEWARES")
    else:
        merged = settings.getwithbase("DOWNLOADER_MIDDLEWARES")
    enabled = build_component_list(merged)
    names = [c if isinstance(c, str) else f"{c.__module__}.{c.__qualname__}" for c in enabled]
    assert BUILTIN not in names
    assert Builtin not in enabled
    assert OURS in names
