"""``hot-envs serve`` and ``hot-envs watch … --browser`` start the table (the wait for Ctrl-C
is replaced by a look at the running server)."""

from __future__ import annotations

import re
import socket
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from hot_envs.cli import main
from hot_envs.web.server import Server
from tests.web.conftest import Client


@pytest.fixture
def running(monkeypatch, capsys):
    """Runs ``check(client, path)`` on the server a command starts, then stops it."""
    opened, checks = [], []

    def wait(server: Server) -> None:
        url = re.search(r"table at (\S+)", capsys.readouterr().out).group(1)
        path = url.removeprefix(server.url)
        try:
            checks.pop()(Client(server.url), path)
        finally:
            server.stop()

    monkeypatch.setattr(Server, "wait", wait)
    monkeypatch.setattr("webbrowser.open", opened.append)
    return checks, opened


CHECKPOINT = str(Path(__file__).resolve().parents[2] / "checkpoints" / "heisse_karten_v0.npz")


def test_serve_starts_the_table_on_localhost_with_the_agents_it_names(running):
    """``--agents`` lets browsers choose a checkpoint (or ``module:factory``) agent."""
    checks, opened = running

    def check(client, path):
        assert client.url.startswith("http://127.0.0.1:") and path == "/"
        with urllib.request.urlopen(client.url + path) as response:
            assert "hot_envs" in response.read().decode()
        assert CHECKPOINT in client.ok("GET", "/api/agents")["agents"]
        body = {"game": "heisse-karten", "seats": [CHECKPOINT, "human", CHECKPOINT]}
        snap = client.ok("POST", "/api/games", body)
        snap = client.ok("POST", f"/api/games/{snap['id']}/step")
        assert snap["log"][0]["seat"] == 0 and snap["to_move"] == 1

    checks.append(check)
    assert main(["serve", "--port", "0", "--agents", CHECKPOINT]) == 0
    assert not checks and not opened


def test_serve_caps_the_tables_of_one_client(running):
    checks, _ = running

    def check(client, path):
        body = {"game": "heisse-karten", "seats": ["human", "random"]}
        client.ok("POST", "/api/games", body)
        status, answer = client.call("POST", "/api/games", body)
        assert status == 429 and "as many as one client may" in answer["error"]

    checks.append(check)
    assert main(["serve", "--port", "0", "--tables-per-client", "1"]) == 0
    assert not checks


def test_serve_caps_the_connections_of_one_client(running):
    checks, _ = running

    def check(client, path):
        parts = urlsplit(client.url)
        held = [socket.create_connection((parts.hostname, parts.port)) for _ in range(3)]
        held[2].settimeout(5)
        assert held[2].recv(1) == b""  # the third is dropped
        for sock in held:
            sock.close()
        time.sleep(0.2)  # the server sees them go
        assert client.ok("GET", "/api/agents")["agents"]

    checks.append(check)
    assert main(["serve", "--port", "0", "--connections-per-client", "2"]) == 0
    assert not checks


def test_watch_in_the_browser_plays_the_agents_game(running):
    checks, opened = running

    def check(client, path):
        table_id = re.match(r"/table/([\w-]+)\?autoplay=0.3&seat=2$", path).group(1)
        snap = client.ok("GET", f"/api/games/{table_id}")
        assert snap["mode"] == "watch" and snap["seats"] == ["heuristic", "random", "heuristic"]
        while not snap["over"]:
            snap = client.ok("POST", f"/api/games/{table_id}/step")
        assert snap["step"] == 48

    checks.append(check)
    argv = ["watch", "heisse-karten", "--agents", "heuristic", "random", "heuristic"]
    assert main([*argv, "--delay", "0.3", "--seat", "2", "--browser", "--port", "0"]) == 0
    assert not checks and len(opened) == 1 and "/table/" in opened[0]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--agents", "random", "random", "random"], "give 1–2 agents for 2 seats"),
        (["--agents", "random", "--seat", "2"], "seat must be 0–1"),
        (["--agents", "random", "--out", "runs/w"], "--out keeps a game watched in the terminal"),
    ],
)
def test_a_bad_browser_watch_is_refused(capsys, options, message):
    assert main(["watch", "heisse-luft", *options, "--browser", "--port", "0"]) == 2
    assert message in capsys.readouterr().err
