"""The TDMRep file's cache entry (:mod:`.policy._tdm_entry`; T-2): the
status policy, lifetimes and backoff of robots.txt, on a fake clock, with
the parsed file beside them."""

from __future__ import annotations

import pytest

from scrapy_robots_rfc.policy import Answer, State, TdmEntry, tdm_entry_for
from scrapy_robots_rfc.tdmrep import TdmFile

FILE = TdmFile.parse(b'[{"location": "/a/", "tdm-reservation": 1}]')
URL = "https://e.com/a/x"


def after(answer: Answer, previous: TdmEntry | None = None, now: float = 100.0) -> TdmEntry:
    file = FILE if answer.state is State.RULES else None
    return tdm_entry_for(answer, previous, file, now=now, fresh_for=60.0, first_retry=30.0)


@pytest.mark.parametrize(
    ("answer", "reservation", "outcome", "usable"),
    [
        (Answer(State.RULES, "", 200), 1, "200", True),
        (Answer(State.ALLOW_ALL, "no robots.txt", 404), None, "404: no file: unset", True),
        (
            Answer(State.ALLOW_ALL, "redirect loop at https://e.com/x", 301),
            None,
            "301: redirect loop at https://e.com/x: unset",
            True,
        ),
        (
            Answer(State.REFUSED, "refused by a middleware"),
            None,
            "tdmrep.json not fetched (refused by a middleware): unset",
            True,
        ),
        # Not known (T-2): its requests wait.
        (Answer(State.UNREACHABLE, "HTTP 503", 503), None, "HTTP 503", False),
    ],
)
def test_each_answer(answer: Answer, reservation: int | None, outcome: str, usable: bool) -> None:
    found = after(answer)
    assert found.value(URL).reservation == reservation
    assert found.entry.outcome == outcome
    assert found.entry.usable(100.0) is usable
    assert found.entry.rules is None


def test_a_copy_is_fresh_for_its_lifetime_then_due() -> None:
    found = after(Answer(State.RULES, "", 200), now=100.0)
    assert not found.entry.due(159.9)
    assert found.entry.due(160.0)
    assert not found.entry.usable(160.0)


def test_a_failure_keeps_the_good_copy_and_backs_off() -> None:
    good = after(Answer(State.RULES, "", 200), now=100.0)
    failed = after(Answer(State.UNREACHABLE, "HTTP 503", 503), good, now=200.0)
    assert failed.file is FILE
    assert failed.value(URL).reserved
    assert failed.entry.usable(200.0), "the good copy stays in force (HTTP-5)"
    assert failed.entry.retry_at == 230.0
    again = after(Answer(State.UNREACHABLE, "HTTP 503", 503), failed, now=230.0)
    assert again.entry.retry_at == 290.0, "30 s, then 60 s"
    assert again.entry.unreachable_since == 200.0


def test_a_failure_without_a_good_copy_is_not_known_until_the_days_pass() -> None:
    failed = after(Answer(State.UNREACHABLE, "HTTP 503", 503), now=0.0)
    assert failed.file is None
    assert not failed.entry.usable(10.0, allow_after=100.0)
    assert failed.entry.usable(100.0, allow_after=100.0), "then unset (RFC 9309 §2.3.1.4)"


def test_the_cache_of_tdm_files_is_bounded_in_bytes() -> None:
    """Each file is charged what it keeps (``tdm_charge``), so a cache
    bounded in bytes evicts large files to stay within its bound."""
    from scrapy_robots_rfc.policy import ITEM_BYTES, LruCache, tdm_charge, tdm_settled

    body = ",".join(f'{{"location": "/d{i}/", "tdm-reservation": 1}}' for i in range(2_000))
    large = TdmFile.parse(f"[{body}]".encode(), max_bytes=None)
    small = TdmFile.parse(b'[{"location": "/a/", "tdm-reservation": 1}]')

    def found(file: TdmFile) -> TdmEntry:
        return tdm_entry_for(
            Answer(State.RULES, "", 200), None, file, now=0.0, fresh_for=60.0, first_retry=30.0
        )

    cost = tdm_charge(("https", "e.com", 443), found(large))
    assert cost > large.cost() > 100 * small.cost()
    cache: LruCache[tuple[str, str, int], TdmEntry] = LruCache(
        100, max_bytes=3 * (cost + ITEM_BYTES) + 100, weigh=tdm_charge, final=tdm_settled
    )
    for n in range(5):
        cache.put(("https", f"h{n}.com", 443), found(large))
    assert len(cache) == 3
    assert cache.total <= cache.max_bytes
    cache.put(("https", "small.com", 443), found(small))
    assert cache.total <= cache.max_bytes
    assert len(cache) == 3  # a large file went for the small one
