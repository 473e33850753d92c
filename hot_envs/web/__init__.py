"""The browser table: play either game against agents, watch agents play, step through recorded
games — a Starlette app on uvicorn (the ``web`` extra), started by ``hot-envs serve``.

Not imported by ``import hot_envs``. See docs/web.md.
"""

from hot_envs.web.app import create_app
from hot_envs.web.server import serve, start_server, watch_in_browser
from hot_envs.web.store import TableStore
from hot_envs.web.tables import Table

__all__ = ["Table", "TableStore", "create_app", "serve", "start_server", "watch_in_browser"]
