"""Origins (RFC 9309 §2.3, spec LOC-1 to LOC-8): scheme, host and port,
IDNA, and the robots.txt URL of each."""

from __future__ import annotations

import pytest

from scrapy_robots_rfc.policy._origin import Origin, Origins, origin


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://example.com/a", Origin("http", "example.com", 80)),
        ("http://example.com:80/a", Origin("http", "example.com", 80)),
        ("https://example.com/a", Origin("https", "example.com", 443)),
        ("https://example.com:443/", Origin("https", "example.com", 443)),
        ("https://example.com:8443/", Origin("https", "example.com", 8443)),
        ("HTTP://EXAMPLE.com/A", Origin("http", "example.com", 80)),
        ("http://user:pw@example.com/", Origin("http", "example.com", 80)),
        ("http://www.exämple.com/", Origin("http", "www.xn--exmple-cua.com", 80)),
        ("http://[::1]:8080/", Origin("http", "[::1]", 8080)),
        ("http://127.0.0.1:5000/x", Origin("http", "127.0.0.1", 5000)),
        ("ftp://example.com/", None),
        ("data:,hello", None),
        ("file:///etc/passwd", None),
        ("http:///nohost", None),
        ("http://example.com:99999/", None),
        ("http://example.com:abc/", None),
    ],
)
def test_origin(url, expected):
    assert origin(url) == expected


def test_http_and_https_are_different_origins():
    assert origin("http://h/") != origin("https://h/")


def test_robots_url():
    assert Origin("https", "example.com", 443).robots_url == "https://example.com/robots.txt"
    assert Origin("http", "example.com", 8080).robots_url == "http://example.com:8080/robots.txt"


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/a",
        "HTTP://EXAMPLE.com/A",
        "http://example.com",
        "http://example.com?q=1",
        "http://example.com#top",
        "https://user:pw@example.com:8443/x/y",
        "http://www.exämple.com/",
        "http://[::1]:8080/",
        "http://example.com:99999/",
        "ftp://example.com/",
        "data:text/plain,x",
        "",
    ],
)
def test_the_memo_answers_as_origin_does(url):
    origins = Origins()
    assert origins(url) == origin(url)
    assert origins(url) == origin(url)  # the second answer comes from the memo


def test_a_small_memo_stays_right_as_it_is_emptied():
    origins = Origins(size=3)
    urls = [f"http://h{i}.example/p" for i in range(10)]
    for url in urls:
        assert origins(url) == origin(url)
    assert origins(urls[0]) == Origin("http", "h0.example", 80)
