"""The demo's Scrapy project: settings, the ``tour`` spider and the local site."""
