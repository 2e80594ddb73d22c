"""``JOBDIR`` for the requests still waiting for robots.txt in memory when a
crawl pauses: saved at close, sent back to the engine at the next open
(Scrapy's ``JOBDIR``). A fleet's held requests stay in Redis
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
