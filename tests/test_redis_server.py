"""tests/redis_server.py: a port another process took before redis-server
bound it does not fail the test (pytest-xdist workers start servers at
once), and a server started again keeps its port."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from .redis_server import RedisServer, ping

pytestmark = pytest.mark.e2e


@pytest.fixture
def executable() -> str:
    found = shutil.which("redis-server")
    if found is None:
        pytest.skip("redis-server is not installed")
    return found


def test_a_port_taken_before_the_first_start_is_given_up_for_another(
    executable: str, tmp_path: Path
) -> None:
    server = RedisServer(executable, tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        server.port = taken.getsockname()[1]  # as if another process took it meanwhile
        try:
            server.start()
            assert server.port != taken.getsockname()[1]
            assert server.url == f"redis://127.0.0.1:{server.port}/0"
            assert ping(server.port)
            port = server.port
            server.stop()
            server.start()
            assert server.port == port  # started again: the tests' URL still holds
            assert ping(port)
        finally:
            server.stop()
