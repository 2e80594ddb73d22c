"""The cache of entries bounded in origins and in bytes
(``ROBOTSTXT_RFC_MAX_ORIGINS``, ``ROBOTSTXT_RFC_CACHE_BYTES``), and what an
entry costs (construction-level; the crawl that evicts by bytes is in
tests/crawl/test_middleware.py)."""

from __future__ import annotations

import gc
import re
import sys
import tracemalloc

import pytest

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc.policy import ITEM_BYTES, Entry, LruCache, Origin, charge
from scrapy_robots_rfc.policy import _policy as policy


def weighed(weights: dict[str, int], size: int = 100, max_bytes: int = 1000) -> LruCache[str, str]:
    """A cache whose value ``v`` weighs ``weights[v]`` (plus ITEM_BYTES)."""
    return LruCache(size, max_bytes=max_bytes, weigh=lambda key, value: weights[value])


# -- the count ---------------------------------------------------------------------


def test_the_least_recently_used_key_goes_first():
    cache: LruCache[str, int] = LruCache(2)
    assert cache.put("a", 1) == 0
    assert cache.put("b", 2) == 0
    cache.touch("b")
    cache.touch("a")
    assert cache.put("c", 3) == 1
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)
    assert len(cache) == 2
    assert cache.total == 0  # nothing weighs without weigh


def test_a_kept_key_is_never_evicted():
    cache: LruCache[str, int] = LruCache(1)
    cache.put("a", 1)
    assert cache.put("b", 2, keep={"a"}) == 0
    assert len(cache) == 2  # over the count: the key put stays, and so does a kept one
    assert cache.put("c", 3, keep={"a"}) == 1  # b goes
    assert cache.get("a") == 1
    assert cache.get("b") is None


def test_used_keys_go_before_those_not_used_since_they_were_put():
    """A copy put when its fetch ends waits for the requests that waited
    for it: the keys touched since they were put go first (least recently
    used first), then the others, the most recently put first, so that the
    earliest keep their place until their requests are decided."""
    cache: LruCache[str, int] = LruCache(3)
    for key in "abc":
        cache.put(key, 1)
    cache.touch("b")  # b's requests were decided: it may go
    assert cache.put("d", 1) == 1
    assert cache.get("b") is None
    # a, c and d are not used yet: the most recently put of them, d, goes
    # (e is the one put now), and a, the earliest, stays.
    assert cache.put("e", 1) == 1
    assert [key for key in "acde" if cache.get(key) is not None] == ["a", "c", "e"]
    cache.touch("a")
    assert cache.put("f", 1) == 1
    assert [key for key in "acef" if cache.get(key) is not None] == ["c", "e", "f"]


def test_max_bytes_and_weigh_go_together():
    with pytest.raises(ValueError, match="go together"):
        LruCache(10, max_bytes=100)
    with pytest.raises(ValueError, match="go together"):
        LruCache(10, weigh=lambda key, value: 1)


# -- the bytes ---------------------------------------------------------------------


def test_keys_are_evicted_by_what_they_weigh():
    weights = {"small": 100, "large": 500}
    cache = weighed(weights, max_bytes=2 * ITEM_BYTES + 650)
    cache.put("a", "small")
    cache.put("b", "small")
    assert cache.total == 2 * (100 + ITEM_BYTES)
    cache.put("c", "small")
    assert len(cache) == 3
    # 500 more: b and c (the least recently used) must go for it to fit.
    for key in "bca":
        cache.touch(key)
    assert cache.put("d", "large") == 2
    assert [cache.get(k) for k in "abcd"] == ["small", None, None, "large"]
    assert cache.total == 100 + 500 + 2 * ITEM_BYTES
    assert cache.total <= cache.max_bytes  # type: ignore[operator]


def test_replacing_a_value_weighs_the_new_one():
    weights = {"old": 300, "new": 100}
    cache = weighed(weights)
    cache.put("a", "old")
    cache.put("a", "new")
    assert cache.total == 100 + ITEM_BYTES
    assert len(cache) == 1


def test_a_value_larger_than_the_bound_is_kept_alone():
    """A file whose rules alone weigh more than the bound is still cached
    (requests wait for it), and evicts every other it can."""
    weights = {"small": 10, "huge": 5000}
    cache = weighed(weights, max_bytes=1000)
    cache.put("a", "small")
    cache.put("b", "small")
    assert cache.put("c", "huge", keep={"a"}) == 1
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == ("small", None, "huge")
    # The next one puts it out in turn.
    assert cache.put("d", "small", keep={"a"}) == 1
    assert cache.get("c") is None
    assert cache.total == 2 * (10 + ITEM_BYTES)


def test_a_touch_weighs_the_value_again():
    """A value's cost may change while it is cached (an entry's rules build
    their indexes on use): a touch reads it again."""
    weights = {"v": 400}
    cache = weighed(weights)
    cache.put("a", "v")
    weights["v"] = 150
    cache.touch("a")
    assert cache.total == 150 + ITEM_BYTES
    cache.put("b", "v")  # weighs 150: fits now
    assert len(cache) == 2


def test_a_final_cost_is_not_weighed_again():
    """Once ``final`` says a value's cost will not change, a touch does not
    weigh it (weighing costs microseconds a request need not pay); put
    again, it is weighed anew."""
    weights = {"v": 400}
    calls: list[str] = []

    def weigh(key: str, value: str) -> int:
        calls.append(key)
        return weights[value]

    final = {"v": False}
    cache: LruCache[str, str] = LruCache(10, max_bytes=10_000, weigh=weigh, final=final.get)
    cache.put("a", "v")
    cache.touch("a")
    assert calls == ["a", "a"]
    final["v"] = True
    weights["v"] = 100
    cache.touch("a")  # weighed: the value is now final
    assert cache.total == 100 + ITEM_BYTES
    weights["v"] = 50
    cache.touch("a")
    cache.touch("a")
    assert calls == ["a", "a", "a"]
    assert cache.total == 100 + ITEM_BYTES
    cache.put("a", "v")
    assert cache.total == 50 + ITEM_BYTES
    cache.put("b", "v")
    weights["v"] = 10_000
    assert cache.put("c", "v") == 2  # a and b: their final weights are what goes
    assert cache.total == 10_000 + ITEM_BYTES


def test_both_bounds_hold_together():
    weights = {"v": 10}
    cache = weighed(weights, size=3, max_bytes=10_000)
    for key in "abcde":
        cache.put(key, "v")
        cache.touch(key)
    assert len(cache) == 3  # the count binds, well below the bytes
    assert [cache.get(k) for k in "abcde"] == [None, None, "v", "v", "v"]


# -- what an entry costs ---------------------------------------------------------


def _retained(build):
    """What ``build()`` keeps in memory, measured by tracemalloc, and what
    it returned."""
    gc.collect()
    re.purge()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = build()
        gc.collect()
        re.purge()
        return tracemalloc.get_traced_memory()[0] - before, kept
    finally:
        tracemalloc.stop()


def _entry(body: bytes, tokens: tuple[str, ...] = ("mybot",)) -> Entry:
    robots = RobotsTxt.parse(body)
    rules = {token: robots.for_agent(token) for token in tokens}
    return policy.fetched(rules, outcome="200", now=0.0, fresh_for=60.0, sitemaps=robots.sitemaps)


BODIES = {
    "small": b"User-agent: *\nDisallow: /private\nAllow: /private/ok\nDisallow: /*.pdf$\n",
    "sitemaps": b"User-agent: *\nDisallow: /a\nSitemap: https://example.com/sitemap.xml\n" * 3,
    "hundreds of rules": b"User-agent: *\n"
    + b"".join(b"Disallow: /section-%d/*/page-%d.html\n" % (i, i) for i in range(400)),
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_an_entry_costs_what_it_keeps(name):
    """Entry.cost() is what tracemalloc finds the entry keeps, after its
    rules have answered: within 15 %, and a few hundred bytes of objects
    that entries share (the outcome "200", the agents ``("*",)``), which
    it counts for each."""
    body = BODIES[name]

    def build() -> Entry:
        entry = _entry(body)
        assert entry.rules is not None
        agent = entry.rules["mybot"]
        for n in range(3000):  # the scan table, and for a large set the tree
            agent.allowed(f"http://example.com/section-{n % 500}/x/page-{n}.html")
        return entry

    measured, entry = _retained(build)
    cost = entry.cost()
    assert entry.rules is not None
    agent = entry.rules["mybot"]
    if len(agent.rules) <= 128:
        # Settled: nothing more is built, nothing is held in reserve.
        assert measured * 0.85 <= cost <= measured * 1.15 + 300, (measured, cost)
    else:
        # A large set keeps its share in reserve until it is full: never less.
        assert measured * 0.85 <= cost, (measured, cost)


def test_names_that_share_rules_count_them_once():
    body = b"User-agent: *\n" + b"".join(b"Disallow: /p%d\n" % i for i in range(50))
    one = _entry(body, ("mybot",))
    two = _entry(body, ("mybot", "otherbot"))
    assert two.rules is not None
    assert two.rules["mybot"].rules is two.rules["otherbot"].rules
    extra = two.cost() - one.cost()
    assert 0 < extra < 1000  # the second name's object and its dict slot, not the rules again


def test_an_entry_without_rules_costs_little():
    entry = policy.fetched(None, outcome="404: no robots.txt: allow all", now=0.0, fresh_for=60.0)
    assert sys.getsizeof(entry) < entry.cost() < 600


def test_the_cache_charges_the_entry_and_its_key():
    entry = _entry(BODIES["small"])
    key = Origin("https", "www.example.com", 443)
    assert charge(key, entry) == entry.cost() + sys.getsizeof(key) + sum(
        sys.getsizeof(part) for part in key
    )


def test_item_bytes_is_what_the_cache_keeps_per_item():
    """ITEM_BYTES covers the OrderedDict's entry and the weight kept for
    it, whether its cost is final or not (two dicts, one entry in either):
    measured with tracemalloc over 10,000 items, each touched once, half of
    them final by then (keys and values made beforehand, so that they are
    not counted)."""
    keys = [f"origin-{n}" for n in range(10_000)]
    values = [1000 + n for n in range(10_000)]
    settled: set[int] = set()

    def fill() -> LruCache[str, int]:
        cache: LruCache[str, int] = LruCache(
            20_000,
            max_bytes=10**12,
            weigh=lambda key, value: value,
            final=settled.__contains__,
        )
        for key, value in zip(keys, values, strict=True):
            cache.put(key, value)
        settled.update(values[::2])
        for key in keys:
            cache.touch(key)
        return cache

    measured, cache = _retained(fill)
    assert len(cache) == 10_000
    per_item = measured / 10_000
    assert ITEM_BYTES * 0.6 <= per_item <= ITEM_BYTES, per_item
