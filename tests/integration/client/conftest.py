"""Client test fixtures: the real API served over real HTTP on the session's real Redis, with a
real rq SimpleWorker running the scoring and bot jobs in a thread.

`live` yields a `Live` with the server's base URL; `Live.create(...)` makes a match and hands
back seat clients. `Proxy` is a TCP relay in front of the server whose connections a test can
cut, to force real disconnects.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from rq import Queue, SimpleWorker
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from api import create_app
from deadwood_client import Client
from store.jobs import QUEUES
from tests.support.client_support import FAST


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


class ThreadWorker(SimpleWorker):
    """rq's SimpleWorker, runnable off the main thread: no signal handlers, timer timeouts,
    and no pub/sub listener for remote commands (its thread takes a second to stop, which
    would make every burst that slow)."""

    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self) -> None:
        pass

    def subscribe(self) -> None:
        pass

    def unsubscribe(self) -> None:
        pass


def _work(service: Any, stop: threading.Event) -> None:
    """Run the queued jobs one at a time until `stop` is set.

    One job per burst, so the thread sees `stop` between any two jobs: a match of bots only
    enqueues its next job from each job, so a burst would not run dry while such a match
    plays, and the thread would outlive its test and take the jobs of the tests after it."""
    connection = service.queues.connection
    queues = [Queue(n, connection=connection, serializer=JSONSerializer) for n in QUEUES]
    while not stop.is_set():
        worker = ThreadWorker(queues, connection=connection, serializer=JSONSerializer)
        if not worker.work(burst=True, max_jobs=1, logging_level="WARNING"):
            stop.wait(0.02)


@dataclass
class Live:
    base_url: str
    port: int
    service: Any
    clients: list[Client] = field(default_factory=list)

    def client(self, token: str | None = None, **kwargs: Any) -> Client:
        url = kwargs.pop("base_url", self.base_url)
        made = Client(url, token, retry=kwargs.pop("retry", FAST), **kwargs)
        self.clients.append(made)
        return made

    def create(
        self,
        players: list[Any],
        variant: str = "three-hand-gin",
        seed: int | None = 7,
        options: dict[str, Any] | None = None,
    ) -> tuple[str, list[Client]]:
        """A new match; one client per seat (a spectator's for bot seats)."""
        created = self.client().create_match(variant, players, seed=seed, options=options)
        return created["id"], [self.client(s["token"]) for s in created["seats"]]


@pytest.fixture
def live(service: Any) -> Iterator[Live]:
    """The app served on a free port (threaded werkzeug) plus a worker thread for its jobs."""
    from workers.connection import set_service

    app = create_app({"SERVICE": service, "SSE_HEARTBEAT_SECONDS": 0.2, "SSE_MAX_SECONDS": 3})
    server: BaseWSGIServer = make_server(
        "127.0.0.1", 0, app, threaded=True, request_handler=_QuietHandler
    )
    # threaded=True makes a ThreadedWSGIServer (typed as its base); so server_close() waits
    # for every request thread
    server.daemon_threads = False  # type: ignore[attr-defined]
    serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    serving.start()
    set_service(service)
    stop = threading.Event()
    working = threading.Thread(target=_work, args=(service, stop))
    working.start()
    found = Live(f"http://127.0.0.1:{server.server_port}", server.server_port, service)
    try:
        yield found
    finally:
        for made in found.clients:
            made.close()
        stop.set()
        working.join(timeout=30)
        server.shutdown()
        serving.join(timeout=10)
        server.server_close()
        set_service(None)
        assert not working.is_alive(), "the job thread did not stop within 30 s of its test"


@pytest.fixture
def proxy(live: Live) -> Iterator[Proxy]:
    """A cuttable relay in front of the live server (`proxy.base_url`)."""
    relay = Proxy(live.port)
    try:
        yield relay
    finally:
        relay.close()


class Proxy:
    """A TCP relay to `target` port; `cut()` closes every connection it is relaying."""

    def __init__(self, target_port: int) -> None:
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.open: list[socket.socket] = []
        self.cuts = 0
        self.accepted = 0
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                downstream, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.open += [downstream, upstream]
                self.accepted += 1
            for a, b in ((downstream, upstream), (upstream, downstream)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cut(self) -> None:
        """Drop every relayed connection, mid-response if need be."""
        with self.lock:
            sockets, self.open = self.open, []
            self.cuts += 1
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.listener.close()
        self.cut()
