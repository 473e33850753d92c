"""Running the browser table: uvicorn in a thread, ``hot-envs serve`` and ``watch --browser``."""

from __future__ import annotations

import threading
import time
import webbrowser
from collections.abc import Iterable

import uvicorn
from starlette.applications import Starlette

from hot_envs.core.games import get_game
from hot_envs.evaluation.arena import num_players
from hot_envs.web.app import create_app
from hot_envs.web.store import TableStore
from hot_envs.web.tables import Table, new_seed

DEFAULT_PORT = 8765


class Server:
    """A uvicorn server running ``app`` in a background thread; ``url`` is where it listens
    (with the real port when 0 asked for a free one)."""

    def __init__(self, app: Starlette, host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> None:
        self.app = app
        # log_config=None: uvicorn leaves the process's logging as it is (its own dictConfig would
        # close and replace every handler the host program set up); warnings still reach stderr.
        config = uvicorn.Config(
            app, host=host, port=port, log_level="warning", log_config=None, lifespan="off"
        )
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
) -> tuple[Server, TableStore]:
    """A running server with ``store`` (a fresh one by default; tests use port 0: any free
    port). ``allow_origins``: see :func:`serve`."""
    store = TableStore() if store is None else store
    return Server(create_app(store, agents, allow_origins), host, port), store


def serve(
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    agents: Iterable[str] = (),
    open_browser: bool = False,
    allow_origins: Iterable[str] = (),
) -> None:
    """``hot-envs serve``: run the table until Ctrl-C. ``allow_origins`` are origins
    (``https://cards.example.org``) besides the server's own whose pages may play: a proxy's
    (docs/web.md, "Limits")."""
    server, _ = start_server(host, port, agents, allow_origins)
    _announce(server, "/", open_browser)
    server.wait()


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
    server, store = start_server(host, port, agents, allow_origins)
    if seat is not None:
        table.check_seat(seat)
    table_id = store.add(table)
    query = f"?autoplay={pace:g}" + ("" if seat is None else f"&seat={seat}")
    _announce(server, f"/table/{table_id}{query}", open_browser)
    server.wait()


def _announce(server: Server, path: str, open_browser: bool) -> None:
    url = server.url + path
    print(f"hot_envs table at {url} (Ctrl-C stops)", flush=True)
    if open_browser:
        webbrowser.open(url)
