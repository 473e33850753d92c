"""The browser table leaves the host program's logging alone."""

from __future__ import annotations

import io
import logging

from hot_envs.web.app import create_app
from hot_envs.web.server import Server
from hot_envs.web.store import TableStore


class OwnStream(logging.StreamHandler):
    """A handler that, like some libraries' handlers, closes its stream when shut down."""

    def close(self) -> None:
        self.stream.close()
        super().close()


def test_starting_a_server_keeps_the_hosts_handlers_and_their_streams():
    stream = io.StringIO()
    handler = OwnStream(stream)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        server = Server(create_app(TableStore(), []), port=0)
        server.stop()
        assert handler in root.handlers and not stream.closed
        logging.getLogger("hot_envs.test").warning("still here")
        assert "still here" in stream.getvalue()
    finally:
        root.removeHandler(handler)
