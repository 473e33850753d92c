"""Running the browser table: uvicorn in a thread, ``hot-envs serve`` and ``watch --browser``.

uvicorn bounds an idle keep-alive connection (``timeout_keep_alive``), the size of a request's
headers (h11's ``max_incomplete_event_size``) and the connections it serves at once
(``limit_concurrency``: a 503 past it), but not the time a request takes to arrive — a client
that sends half its headers, or half its body, and then waits is held forever — nor the
connections of one client: one address that opens as many as the server serves and sends
nothing shuts everyone else out. So the server runs uvicorn's h11 protocol (its ``http``
setting) with bounds of its own, read deadlines and connections per client:
:class:`BoundedH11Protocol` (docs/web.md, "Limits").
"""

from __future__ import annotations

import asyncio
import threading
import time
import webbrowser
from collections import Counter
from collections.abc import Iterable

import h11
import uvicorn
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from hot_envs.core.games import get_game
from hot_envs.evaluation.arena import num_players
from hot_envs.web.app import create_app
from hot_envs.web.store import MAX_TABLES_PER_CLIENT, TableStore
from hot_envs.web.tables import Table, new_seed

DEFAULT_PORT = 8765
HEADER_SECONDS = 10.0  # a request's headers, from the connection or the previous answer
BODY_SECONDS = 30.0  # its body, from its headers (1 MiB at 35 kB/s)
KEEP_ALIVE_SECONDS = 5  # an idle connection between requests (uvicorn's default)
HEADER_BYTES = 16 * 2**10  # a request's headers (h11's default; past it a 400)
MAX_CONNECTIONS = 1000  # at once; past it a 503 (uvicorn's limit_concurrency)
CONNECTIONS_PER_CLIENT = 100  # at once from one address; past it a new one is dropped


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the server's own bounds (one subclass per server, made by
    :class:`Server`; tests give it short deadlines):

    * it drops a connection whose request does not arrive in time: its headers within
      ``header_seconds`` of the connection (or of the answer before), its body within
      ``body_seconds`` of its headers. Only the waiting for the request counts: an agent's
      thinking, or a slow answer, does not;
    * it keeps at most ``per_client`` connections of one address at once: one more is closed
      as soon as it is made, before anything is read (idle connections never reach the app, so
      the app cannot count them). A proxy's addresses (``proxies``) are not capped: it speaks
      for many clients."""

    header_seconds = HEADER_SECONDS
    body_seconds = BODY_SECONDS
    per_client = CONNECTIONS_PER_CLIENT
    proxies: frozenset[str] = frozenset()
    open: Counter[str] = Counter()  # each address's connections (the server's own Counter)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        self._awaiting: object = None  # h11's state of the client the deadline is for
        self._counted: str | None = None  # the address this connection counts against
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        if address is not None and not {address, "*"} & self.proxies:  # "*": all are proxies
            if self.open[address] >= self.per_client:
                transport.close()  # past the client's share (connection_lost follows)
                return
            self.open[address] += 1
            self._counted = address
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._set(None)
        if self._counted is not None:
            self.open[self._counted] -= 1
            if not self.open[self._counted]:
                del self.open[self._counted]
            self._counted = None
        super().connection_lost(exc)

    def _watch(self) -> None:
        """A deadline while the client owes headers (h11.IDLE) or a body (h11.SEND_BODY); none
        while the server owes the answer. Set when the wait starts, not moved by bytes that
        trickle in."""
        state = self.conn.their_state
        if state not in (h11.IDLE, h11.SEND_BODY) or self.transport.is_closing():
            state = None
        if state is not self._awaiting:
            self._set(state)

    def _set(self, state: object) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._awaiting, self._deadline = state, None
        if state is not None:
            seconds = self.header_seconds if state is h11.IDLE else self.body_seconds
            self._deadline = self.loop.call_later(seconds, self.transport.close)  # drop it


class Server:
    """A uvicorn server running ``app`` in a background thread; ``url`` is where it listens
    (with the real port when 0 asked for a free one). ``behind_proxy``: a proxy on this machine
    names each client in ``X-Forwarded-For`` (else that header is ignored: any local program
    could claim to be any client and so escape the per-client limit), and its own connections
    are not capped per client. ``max_connections`` are served at once,
    ``connections_per_client`` of them from one address."""

    def __init__(
        self,
        app: Starlette,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        header_seconds: float = HEADER_SECONDS,
        body_seconds: float = BODY_SECONDS,
        behind_proxy: bool = False,
        max_connections: int = MAX_CONNECTIONS,
        connections_per_client: int = CONNECTIONS_PER_CLIENT,
    ) -> None:
        if not min(header_seconds, body_seconds) > 0:
            raise ValueError("the read deadlines must be positive")
        n = connections_per_client
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"connections per client must be a positive int, not {n!r}")
        self.app = app
        # log_config=None: uvicorn leaves the process's logging as it is (its own dictConfig would
        # close and replace every handler the host program set up); warnings still reach stderr.
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level="warning",
            log_config=None,
            lifespan="off",
            timeout_keep_alive=KEEP_ALIVE_SECONDS,
            h11_max_incomplete_event_size=HEADER_BYTES,
            limit_concurrency=max_connections,
            proxy_headers=behind_proxy,
        )
        # The addresses uvicorn takes X-Forwarded-For from (its forwarded_allow_ips).
        trusted = config.forwarded_allow_ips if behind_proxy else []
        trusted = trusted.split(",") if isinstance(trusted, str) else trusted
        bounds = {  # and a count of connections of this server's own
            "header_seconds": header_seconds,
            "body_seconds": body_seconds,
            "per_client": connections_per_client,
            "proxies": frozenset(address.strip() for address in trusted),
            "open": Counter(),
        }
        config.http = type("BoundedH11Protocol", (BoundedH11Protocol,), bounds)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise ValueError(f"cannot listen on {host}:{port} (is the port in use?)")
            time.sleep(0.01)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://{f'[{host}]' if ':' in host else host}:{port}"

    def wait(self) -> None:
        """Block until the server stops; Ctrl-C stops it."""
        try:
            while self._thread.is_alive():
                self._thread.join(0.5)
        except KeyboardInterrupt:
            self.stop()
            raise

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        referee = getattr(self.app.state, "referee", None)
        if referee is not None:
            referee.close()


def start_server(
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    agents: Iterable[str] = (),
    allow_origins: Iterable[str] = (),
    store: TableStore | None = None,
    connections_per_client: int = CONNECTIONS_PER_CLIENT,
) -> tuple[Server, TableStore]:
    """A running server with ``store`` (a fresh one by default; tests use port 0: any free
    port). ``allow_origins``, ``connections_per_client``: see :func:`serve`."""
    store = TableStore() if store is None else store
    allow_origins = tuple(allow_origins)
    app = create_app(store, agents, allow_origins)
    server = Server(
        app,
        host,
        port,
        behind_proxy=bool(allow_origins),
        connections_per_client=connections_per_client,
    )
    return server, store


def serve(
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    agents: Iterable[str] = (),
    open_browser: bool = False,
    allow_origins: Iterable[str] = (),
    tables_per_client: int = MAX_TABLES_PER_CLIENT,
    connections_per_client: int = CONNECTIONS_PER_CLIENT,
) -> None:
    """``hot-envs serve``: run the table until Ctrl-C. ``allow_origins`` are origins
    (``https://cards.example.org``) besides the server's own whose pages may play: a proxy's;
    ``tables_per_client`` the games one address may keep, ``connections_per_client`` the
    connections it may hold at once (docs/web.md, "Limits")."""
    store = TableStore(max_tables_per_client=tables_per_client)
    server, _ = start_server(host, port, agents, allow_origins, store, connections_per_client)
    _run(server, "/", open_browser)


def watch_in_browser(
    game: str,
    agents: list[str],
    players: int | None = None,
    seed: int | None = None,
    pace: float = 0.8,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    seat: int | None = None,
    open_browser: bool = True,
    allow_origins: Iterable[str] = (),
) -> None:
    """``hot-envs watch GAME --agents A B … --browser``: one game between ``agents`` (seat by
    seat, repeated to fill ``players`` seats) on the browser table, playing itself at ``pace``
    seconds a move and shown as ``seat`` sees it, until Ctrl-C."""
    description = get_game(game)
    name = description.name
    seed = new_seed() if seed is None else seed
    if players is None and len(description.players) > 1:  # one seat per agent, at least
        players = max(len(agents), description.min_players)
    n = num_players(name, players)
    if not 1 <= len(agents) <= n:
        raise ValueError(f"give 1–{n} agents for {n} seats, not {len(agents)}")
    table = Table(name, [agents[s % len(agents)] for s in range(n)], seed)
    if seat is not None:
        table.check_seat(seat)
    server, store = start_server(host, port, agents, allow_origins)
    query = f"?autoplay={pace:g}" + ("" if seat is None else f"&seat={seat}")
    _run(server, f"/table/{store.add(table)}{query}", open_browser)


def _run(server: Server, path: str, open_browser: bool) -> None:
    """Say where the table is (and open it), then serve until Ctrl-C."""
    url = server.url + path
    print(f"hot_envs table at {url} (Ctrl-C stops)", flush=True)
    if open_browser:
        webbrowser.open(url)
    server.wait()
