"""The parser is a pure library: importing it never imports Scrapy."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def test_parser_does_not_import_scrapy() -> None:
    code = (
        "import sys\n"
        "from scrapy_robots_rfc import RobotsTxt\n"
        "import scrapy_robots_rfc.robotstxt._parser, scrapy_robots_rfc.robotstxt._matcher\n"
        "import scrapy_robots_rfc.robotstxt._names, scrapy_robots_rfc.robotstxt._directives\n"
        "import scrapy_robots_rfc.robotstxt._canonical, scrapy_robots_rfc.robotstxt._lint\n"
        "import scrapy_robots_rfc.policy, scrapy_robots_rfc.pagerules\n"
        "import scrapy_robots_rfc.tdmrep._file, scrapy_robots_rfc.tdmrep._values\n"
        "assert not RobotsTxt.parse(b'user-agent: *\\ndisallow: /').allowed('http://e/', 'a')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scrapy', 'twisted')))\n"
    )
    assert _run(code) == "[]"


def test_scrapy_names_are_imported_lazily() -> None:
    code = (
        "import sys, scrapy_robots_rfc\n"
        "assert 'scrapy' not in sys.modules\n"
        "parser = scrapy_robots_rfc.RobotParser\n"
        "print('scrapy' in sys.modules, parser.__module__)\n"
    )
    assert _run(code) == "True scrapy_robots_rfc.crawl.robotparser"


def test_unknown_attribute() -> None:
    code = (
        "import scrapy_robots_rfc\n"
        "try:\n"
        "    scrapy_robots_rfc.Nope\n"
        "except AttributeError as e:\n"
        "    print(e)\n"
    )
    assert _run(code) == "module 'scrapy_robots_rfc' has no attribute 'Nope'"


def test_usage_preferences_import_http_sf_only_when_read() -> None:
    """A file without usage lines never loads the Structured Fields parser
    (http_sf); one with them loads it at the first statement read, not at
    parse time (U-3)."""
    code = (
        "import sys\n"
        "from scrapy_robots_rfc import RobotsTxt\n"
        "import scrapy_robots_rfc.robotstxt\n"
        "plain = RobotsTxt.parse(b'user-agent: *\\ndisallow: /x\\nnoindex: /y')\n"
        "assert plain.allowed('http://e/', 'a') and not plain.allowed('http://e/x', 'a')\n"
        "print(str(plain.usage('http://e/', 'a')), 'http_sf' in sys.modules)\n"
        "lines = RobotsTxt.parse(b'user-agent: *\\ndisallow: /x\\ncontent-usage: train-ai=n')\n"
        "assert lines.allowed('http://e/', 'a') and lines.for_agent('b').usage is not None\n"
        "print(len(lines.usage_rules), 'http_sf' in sys.modules)\n"
        "print(str(lines.usage('http://e/x', 'a')), 'http_sf' in sys.modules)\n"
        "print(str(lines.usage('http://e/', 'a')), 'http_sf' in sys.modules)\n"
    )
    assert _run(code).splitlines() == [
        "none stated False",
        "1 False",
        "none stated False",
        "train-ai=n (content-usage line 3) True",
    ]


def test_tdmrep_imports_no_html_parser() -> None:
    """Reading TDMRep, the file and the header fields, loads neither Scrapy
    nor an HTML parser: the meta tags are handed to it (T-1)."""
    code = (
        "import sys\n"
        "from scrapy_robots_rfc.tdmrep import TdmFile, header_statement, meta_statement\n"
        'file = TdmFile.parse(b\'[{"location": "/a/", "tdm-reservation": 1}]\')\n'
        "value = file.value('https://e.com/a/x').superseded(header_statement([b'0']))\n"
        "value = value.superseded(meta_statement([('tdm-reservation', '1')]))\n"
        "assert value.reserved, value\n"
        "loaded = ('scrapy', 'twisted', 'parsel', 'lxml', 'redis')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in loaded))\n"
    )
    assert _run(code) == "[]"
