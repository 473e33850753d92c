"""Same-origin only (docs/web.md, "Limits"): another site's page cannot create tables or play;
a name that is not the server's gets nothing; ``--allow-origin`` names a proxy's origin."""

from __future__ import annotations

import pytest

from hot_envs.cli import main
from hot_envs.web.app import create_app
from hot_envs.web.origins import check_origin
from hot_envs.web.server import Server
from tests.web.conftest import Client

NEW_GAME = {"game": "heisse-karten", "seats": ["human", "random"], "seed": 1}


def own_origin(client) -> str:
    return client.url  # http://127.0.0.1:PORT


@pytest.mark.parametrize(
    ("headers", "status", "message"),
    [
        ({"Content-Type": "text/plain"}, 415, "application/json"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "application/json"),
        ({"Content-Type": ""}, 415, "no type"),
        ({"Origin": "http://evil.example"}, 403, "cross-site"),
        ({"Origin": "null"}, 403, "cross-site"),
        ({"Origin": "http://127.0.0.1:1"}, 403, "cross-site"),  # another port: another origin
        ({"Sec-Fetch-Site": "cross-site"}, 403, "cross-site"),
        ({"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403, "cross-site"),
        ({"Host": "evil.example:8765"}, 403, "host"),  # a name made to point here
    ],
)
def test_a_cross_site_request_changes_nothing(client, store, headers, status, message):
    created = client.ok("POST", "/api/games", NEW_GAME)
    before = len(store), store.get(created["id"]).state.to_dict()
    move = {"action": created["moves"][0]["action"]}
    for path, body in (("/api/games", NEW_GAME), (f"/api/games/{created['id']}/move", move)):
        got, answer = client.call("POST", path, body, headers=headers)
        assert got == status and message in answer["error"], (path, answer)
    assert (len(store), store.get(created["id"]).state.to_dict()) == before


def test_the_servers_own_pages_and_programs_may_play(client):
    port = client.url.rsplit(":", 1)[1]
    for headers in (
        {"Origin": own_origin(client)},
        {"Origin": own_origin(client), "Sec-Fetch-Site": "same-origin"},
        {"Content-Type": "application/json; charset=utf-8"},  # a program: no Origin
        {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"},
    ):
        snap = client.ok("POST", "/api/games", NEW_GAME)
        move = {"action": snap["moves"][0]["action"]}
        status, answer = client.call("POST", f"/api/games/{snap['id']}/move", move, headers=headers)
        assert status == 200 and answer["step"] == 1, (headers, answer)


def test_a_foreign_host_gets_no_page_and_no_game(client):
    created = client.ok("POST", "/api/games", NEW_GAME)
    for path in ("/", f"/api/games/{created['id']}", "/api/agents"):
        status, answer = client.call("GET", path, headers={"Host": "rebound.example"})
        assert status == 403 and "does not answer to the host" in answer["error"]
    assert client.call("GET", "/api/agents", headers={"Host": "[::1]:9"})[0] == 200


def test_an_allowed_origin_may_play_from_behind_a_proxy():
    app = create_app(allow_origins=["https://cards.example.org"])
    server = Server(app, port=0)
    try:
        proxy = Client(server.url)
        headers = {"Host": "cards.example.org", "Origin": "https://cards.example.org"}
        status, _ = proxy.call("POST", "/api/games", NEW_GAME, headers=headers)
        assert status == 201
        headers["Origin"] = "https://other.example.org"
        assert proxy.call("POST", "/api/games", NEW_GAME, headers=headers)[0] == 403
    finally:
        server.stop()


@pytest.mark.parametrize("origin", ["cards.example.org", "ftp://x.org", "https://x.org/path", ""])
def test_a_malformed_allowed_origin_is_refused(origin, capsys):
    with pytest.raises(ValueError, match="scheme://host"):
        check_origin(origin)
    assert main(["serve", "--port", "0", "--allow-origin", origin or "https://"]) == 2
    assert "scheme://host" in capsys.readouterr().err


def test_the_move_request_keeps_to_the_players_seat(client):
    """``?seat=`` on a move names the player's own seat or is refused, as on every request."""
    created = client.ok("POST", "/api/games", NEW_GAME)
    move = {"action": created["moves"][0]["action"]}
    status, answer = client.call("POST", f"/api/games/{created['id']}/move?seat=1", move)
    assert status == 403 and "private" in answer["error"]
    assert client.call("POST", f"/api/games/{created['id']}/move?seat=7", move)[0] == 400
    assert client.ok("GET", f"/api/games/{created['id']}")["step"] == 0
    assert client.ok("POST", f"/api/games/{created['id']}/move?seat=0", move)["step"] == 1
