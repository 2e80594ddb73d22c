"""A real ``redis-server`` for the Redis store tests.

``redis_server_fixture()`` makes a pytest fixture that starts one on a free
port of 127.0.0.1, in a temporary directory, with no persistence, and
yields a :class:`RedisServer` (``.url``, ``.stop()``, ``.start()``) so that
a test can take the server away and bring it back on the same port, or
freeze it (``.pause()``: SIGSTOP, a server that hangs; ``.resume()``).

Several test processes start servers at once (``make test`` runs the suite
in pytest-xdist workers, and other checkouts may run theirs): a port found
free can be taken by another process before ``redis-server`` binds it, so a
server that finds its port taken at its first start tries another one, and
one started again (same port) waits for the port to be free again. A test
that needs a port where nothing listens takes the ``closed_port`` fixture
(tests/conftest.py), which no other process can take meanwhile.

Without ``redis-server`` on the PATH the tests skip, except under CI (the
``CI`` environment variable is set), where they fail: there they must run.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

#: How long redis-server may take to accept connections, in seconds.
START_TIMEOUT = 10.0
#: How many times a server whose port was taken tries again.
START_ATTEMPTS = 5
#: What redis-server logs when its port is taken.
_PORT_TAKEN = "Address already in use"


def free_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def ping(port: int, timeout: float = 1.0) -> bool:
    """Whether a server on ``port`` answers ``PING`` with ``+PONG``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """One ``redis-server`` process; :meth:`start` again after :meth:`stop`
    serves the same port (empty: nothing is saved)."""

    def __init__(self, executable: str, directory: Path) -> None:
        self.executable = executable
        self.directory = directory
        self.port = free_port()
        self.log: list[str] = []
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        self._started = False

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the server; on its port again if it ran before."""
        assert not self.running, "redis-server is already running"
        for _ in range(START_ATTEMPTS):
            if self._launch():
                self._started = True
                return
            self.stop()
            if not any(_PORT_TAKEN in line for line in self.log):
                break
            if self._started:
                time.sleep(0.5)  # the tests' URL names this port: wait for it
            else:
                self.port = free_port()
        pytest.fail(f"redis-server did not start on port {self.port}:\n" + "".join(self.log[-20:]))

    def _launch(self) -> bool:
        """Run redis-server; whether it accepts connections in time."""
        self.log = []
        ready = threading.Event()
        args = ["--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        args += ["--appendonly", "no", "--daemonize", "no", "--logfile", ""]
        args += ["--dir", str(self.directory)]
        process = subprocess.Popen(
            [self.executable, *args],
            cwd=self.directory,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._process = process

        def drain() -> None:
            # Read the log to its end, so that the server never blocks on
            # a full pipe, and tell when it accepts connections.
            assert process.stdout is not None
            for line in process.stdout:
                self.log.append(line)
                if "Ready to accept connections" in line:
                    ready.set()
            ready.set()  # exited: let start() see it

        self._reader = threading.Thread(target=drain, daemon=True)
        self._reader.start()
        return ready.wait(START_TIMEOUT) and ping(self.port)

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): connections open, nothing answers."""
        assert self._process is not None
        self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Let a paused server go on (SIGCONT)."""
        if self._process is not None:
            self._process.send_signal(signal.SIGCONT)

    def stop(self, *, kill: bool = False) -> None:
        """End the server: SIGTERM (or SIGKILL, a crash, if ``kill``)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGCONT)  # a paused server ends too
            if kill:
                process.kill()
            else:
                process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._reader is not None:
            self._reader.join(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def redis_server_fixture(**fixture_args: Any) -> Callable[..., Iterator[RedisServer]]:
    """A fixture (``fixture_args`` as for ``pytest.fixture``, e.g. a scope)
    that yields a running :class:`RedisServer` and stops it afterwards."""

    @pytest.fixture(**fixture_args)
    def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
        executable = shutil.which("redis-server")
        if executable is None:
            message = (
                "redis-server is not installed: the Redis store tests need it (.ci/run installs it)"
            )
            if os.environ.get("CI"):
                pytest.fail(message + "; under CI they must run, not skip", pytrace=False)
            pytest.skip(message)
        server = RedisServer(executable, tmp_path_factory.mktemp("redis"))
        server.start()
        try:
            yield server
        finally:
            server.stop()

    return redis_server
