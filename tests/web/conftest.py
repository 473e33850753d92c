"""A real browser-table server on 127.0.0.1 (any free port) for the web tests, and a small
HTTP client; tests skip with the reason when the web extra is not installed."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

pytest.importorskip(
    "starlette", reason="the browser table needs the web extra (pip install -e '.[web]')"
)
pytest.importorskip(
    "uvicorn", reason="the browser table needs the web extra (pip install -e '.[web]')"
)

from hot_envs.web import start_server  # noqa: E402


class Client:
    """JSON over HTTP to the test server: ``call`` returns (status, decoded body)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def call(
        self,
        method: str,
        path: str,
        body: object = None,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
    ):
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        headers = {"Content-Type": "application/json", **(headers or {})}
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                self.headers = response.headers
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            self.headers = error.headers
            return error.code, json.loads(error.read())

    def ok(self, method: str, path: str, body: object = None) -> dict:
        status, data = self.call(method, path, body)
        assert status in (200, 201), (status, data)
        return data


@pytest.fixture(scope="module")
def server():
    running, store = start_server(port=0)
    yield running, store
    running.stop()


@pytest.fixture(scope="module")
def client(server) -> Client:
    return Client(server[0].url)


@pytest.fixture(scope="module")
def store(server):
    return server[1]
