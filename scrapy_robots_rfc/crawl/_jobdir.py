"""``JOBDIR`` for the requests still waiting for robots.txt in memory when a
crawl pauses: saved at close (:func:`put_aside`, which counts them as
abandoned without ``JOBDIR``), sent back to the engine at the next open
(:func:`resume_waiting`). A fleet's held requests stay in Redis
instead (:mod:`.fleet`).
"""

from __future__ import annotations

import logging
import os
import pickle
from typing import TYPE_CHECKING

from scrapy.utils.request import request_from_dict

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

#: ``JOBDIR`` file for requests still waiting when a crawl without a fleet
#: pauses.
JOBDIR_FILE = "robotstxt_rfc.waiting"


def load_waiting(path: str, spider: Spider) -> list[Request] | None:
    """The requests :func:`save_waiting` left in ``path``, which is removed;
    ``None`` when it cannot be read (it is left in place: nothing is lost,
    and the next run tries again)."""
    try:
        with open(path, "rb") as f:
            requests = [
                request_from_dict(pickle.loads(blob), spider=spider) for blob in pickle.load(f)
            ]
    except Exception:
        logger.error(
            "Cannot read %(path)s, the requests that were waiting for robots.txt "
            "when the crawl paused",
            {"path": path},
            exc_info=True,
            extra={"spider": spider},
        )
        return None
    os.remove(path)
    return requests


def save_waiting(path: str, requests: list[Request], spider: Spider) -> tuple[int, int]:
    """Save ``requests`` in ``path``; how many were saved and how many could
    not be. Each request is pickled on its own, as Scrapy's disk queues do,
    so that one that cannot be does not take the others with it."""
    saved: list[bytes] = []
    for request in requests:
        try:
            saved.append(pickle.dumps(request.to_dict(spider=spider), protocol=4))
        except Exception:  # one that cannot be saved does not take the others along
            logger.error(
                "Cannot save %(request)s, which was waiting for robots.txt, in JOBDIR",
                {"request": request},
                exc_info=True,
                extra={"spider": spider},
            )
    partial = f"{path}.partial"
    with open(partial, "wb") as f:
        pickle.dump(saved, f, protocol=4)
    os.replace(partial, path)  # never a half-written file
    return len(saved), len(requests) - len(saved)


def _jobdir_file(jobdir: str | None) -> str | None:
    return os.path.join(jobdir, JOBDIR_FILE) if jobdir else None


def resume_waiting(jobdir: str | None, spider: Spider) -> list[Request]:
    """The requests that were waiting when the crawl paused, from ``jobdir``
    (``JOBDIR``), to send back to the engine."""
    path = _jobdir_file(jobdir)
    if path is None or not os.path.exists(path):
        return []
    requests = load_waiting(path, spider) or []
    if requests:
        logger.info(
            "Resuming %(requests)s that %(were)s waiting for robots.txt",
            {"requests": _requests(len(requests)), "were": _were(len(requests))},
            extra={"spider": spider},
        )
    return requests


def put_aside(
    jobdir: str | None,
    stats: StatsCollector,
    parked: list[Request],
    spider: Spider,
    reason: str,
    *,
    one_off: bool,
) -> None:
    """Save in ``jobdir`` (``JOBDIR``) the requests still waiting in memory
    when the spider closed (``reason``), or count them as abandoned; a
    command's ``one_off`` run gets no JOBDIR advice."""
    path = _jobdir_file(jobdir)
    if path is None:
        count = len(parked)
        stats.set_value("robotstxt/waiting/abandoned", count)
        message = (
            "%(requests)s %(were)s still waiting for robots.txt when the spider closed (%(reason)s)"
        )
        # A command's one request (scrapy fetch, shell, robots...) has no
        # next run to keep it for.
        if not one_off:
            message += "; set JOBDIR to keep %(them)s for the next run"
        logger.warning(
            message,
            {
                "requests": _requests(count),
                "were": _were(count),
                "reason": reason,
                "them": "it" if count == 1 else "them",
            },
            extra={"spider": spider},
        )
        return
    saved, failed = save_waiting(path, parked, spider)
    if failed:
        stats.inc_value("robotstxt/waiting/abandoned", failed)
    stats.set_value("robotstxt/waiting/saved", saved)


def _requests(count: int) -> str:
    return f"{count} request" if count == 1 else f"{count} requests"


def _were(count: int) -> str:
    return "was" if count == 1 else "were"
