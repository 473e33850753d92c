"""What an attacker or a clumsy program may send gets a clean 4xx or a dropped connection, and
cannot fill the server (docs/web.md, "Limits"): odd digits, huge numbers, long strings, one
client's many tables, doubled or loose headers, slow clients."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from hot_envs.web.app import create_app
from hot_envs.web.checks import MAX_SPEC_CHARS
from hot_envs.web.server import Server
from hot_envs.web.store import TableStore
from hot_envs.web.tables import Table
from tests.helpers import recorded_game
from tests.web.conftest import Client

CHECKOUT = str(Path(__file__).resolve().parents[2])
NEW_GAME = {"game": "heisse-karten", "seats": ["human", "random"]}


def connect(url: str, source: str = "127.0.0.1") -> http.client.HTTPConnection:
    parts = urlsplit(url)
    return http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=30, source_address=(source, 0)
    )


def raw_request(url: str, lines: list[str], body: bytes = b"") -> tuple[int, dict]:
    """One request with exactly the header lines given (http.client merges none of them)."""
    connection = connect(url)
    connection.putrequest("POST" if body else "GET", lines[0], skip_host=True)
    for line in lines[1:]:
        name, _, value = line.partition(": ")
        connection.putheader(name, value)
    connection.endheaders(body or None)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    if response.getheader("Content-Type") == "application/json":
        return response.status, json.loads(data)
    return response.status, {"error": data.decode()}  # h11's own 400 for a malformed request


@pytest.fixture(scope="module")
def tables(client):
    play = client.ok("POST", "/api/games", NEW_GAME)["id"]
    watch = client.ok("POST", "/api/games", {"game": "heisse-karten", "seats": ["random"] * 2})
    return {"play": play, "watch": watch["id"]}


@pytest.mark.parametrize("digit", ["²", "¹", "⁰", "①", "٣", "１"])
@pytest.mark.parametrize(("method", "action"), [("GET", ""), ("POST", "/move"), ("POST", "/step")])
def test_a_seat_in_digits_int_refuses_is_a_400(client, tables, digit, method, action):
    body = {"action": 0} if action == "/move" else None
    path = f"/api/games/{tables['watch']}{action}?seat={quote(digit)}"
    status, answer = client.call(method, path, body)
    assert status == 400 and "seat must be a seat number" in answer["error"], answer


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"returns": [10**400, 0]}, "returns"),
        ({"returns": [-(10**400), 0]}, "returns"),
        ({"deal_seed": 10**400}, "deal_seed"),
        ({"actions": [10**400]}, "actions"),
        ({"options": {"num_players": 10**400}}, "options"),
    ],
)
def test_a_replay_with_a_huge_integer_is_a_400(client, store, changes, message):
    record = recorded_game("heisse-karten", {"num_players": 2}, ["random", "random"], 4)
    before = len(store)
    status, answer = client.call("POST", "/api/replays", {"record": {**record, **changes}})
    assert status == 400 and message in answer["error"], answer
    assert len(answer["error"]) < 400 and "0000000000" not in answer["error"]
    assert len(store) == before


def test_an_error_names_no_path_of_the_server(client, store):
    body = {"game": "heisse-luft", "seats": ["human", "heisse_karten_v0"]}
    status, answer = client.call("POST", "/api/games", body)
    assert status == 400 and "heisse_karten_v0 is for heisse-karten" in answer["error"], answer
    assert CHECKOUT not in answer["error"] and "/" not in answer["error"], answer


class Leaky:
    """An operator's agent that fails saying where its files are."""

    def act(self, observation, view):
        raise FileNotFoundError(f"{CHECKOUT}/runs/secret/weights.npz is gone")


def test_a_server_error_names_no_path_of_the_server(client, store):
    table_id = store.add(Table("heisse-karten", ["tests.web.test_abuse:Leaky", "human"], 1))
    status, answer = client.call("POST", f"/api/games/{table_id}/step")
    assert status == 500 and "weights.npz is gone" in answer["error"], answer
    assert CHECKOUT not in answer["error"]


def test_a_long_agent_spec_is_refused_before_anything_is_built(client, store):
    before = len(store)
    for spec in ("heuristic:0." + "0" * 1_000_000, "heuristic:0." + "0" * MAX_SPEC_CHARS):
        status, answer = client.call(
            "POST", "/api/games", {"game": "heisse-karten", "seats": ["human", spec]}
        )
        assert status == 400 and f"{MAX_SPEC_CHARS} characters" in answer["error"], answer
        assert len(answer["error"]) < 400
    assert len(store) == before


def test_a_replay_with_long_seat_names_is_refused(client, store):
    record = recorded_game("heisse-karten", {"num_players": 2}, ["random", "random"], 4)
    before = len(store)
    record["seats"] = ["x" * 400_000, "y" * 400_000]
    status, answer = client.call("POST", "/api/replays", {"record": record})
    assert status == 400 and f"{MAX_SPEC_CHARS} characters" in answer["error"], answer
    assert len(answer["error"]) < 400 and len(store) == before


def test_the_memory_estimate_counts_the_seat_names():
    short = Table("heisse-karten", ["human", "heuristic"], 0)
    long = Table("heisse-karten", ["human", "heuristic:0." + "0" * (MAX_SPEC_CHARS - 12)], 0)
    assert long.memory_estimate() - short.memory_estimate() >= MAX_SPEC_CHARS - 12


@pytest.mark.parametrize(
    "path",
    ["/api/games/" + "x" * 60_000, "/api/games/" + "x" * 60_000 + "/move", "/" + "y" * 60_000],
)
def test_an_error_echoes_only_a_short_piece_of_the_request(client, path):
    status, answer = client.call("POST" if path.endswith("/move") else "GET", path, {"action": 0})
    assert status in (404, 405) and len(answer["error"]) < 400, (status, len(answer["error"]))


def test_one_client_cannot_take_every_table():
    """Three live tables per address: the fourth is a 429 with Retry-After, while another
    address still gets a table; a finished game of the client makes room for a new one."""
    server = Server(create_app(TableStore(max_tables=5, max_tables_per_client=3)), port=0)
    try:
        greedy = Client(server.url)
        watch = {"game": "heisse-karten", "seats": ["random", "random"]}
        ids = [greedy.ok("POST", "/api/games", body)["id"] for body in (NEW_GAME, NEW_GAME, watch)]
        status, answer = greedy.call("POST", "/api/games", NEW_GAME)
        assert status == 429 and "3 games" in answer["error"], answer
        assert int(greedy.headers["Retry-After"]) > 0
        other = connect(server.url, source="127.0.0.2")
        headers = {"Content-Type": "application/json"}
        other.request("POST", "/api/games", json.dumps(NEW_GAME), headers)
        assert other.getresponse().status == 201
        snap = greedy.ok("GET", f"/api/games/{ids[2]}")
        while not snap["over"]:
            snap = greedy.ok("POST", f"/api/games/{ids[2]}/step")
        assert greedy.call("POST", "/api/games", NEW_GAME)[0] == 201  # the finished game went
        assert [greedy.call("GET", f"/api/games/{i}")[0] for i in ids] == [200, 200, 404]
    finally:
        server.stop()


class Cheap:
    """A stand-in table that counts how often the store looks at it."""

    looks = 0

    def __init__(self, over: bool = False) -> None:
        self._over = over
        self.thinking = False

    @property
    def over(self) -> bool:
        Cheap.looks += 1
        return self._over

    def memory_estimate(self) -> int:
        Cheap.looks += 1
        return 1000


def test_adding_a_table_does_not_scan_the_store():
    store = TableStore(max_tables=10_000)
    for k in range(3000):
        store.add(Cheap(over=k % 2 == 0))
    Cheap.looks = 0
    store.add(Cheap())
    assert Cheap.looks < 10


@pytest.mark.parametrize(
    "lines",
    [
        ["Host: {host}", "Origin: http://evil.example", "Origin: {origin}"],
        ["Host: {host}", "Origin: {origin}", "Origin: http://evil.example"],
        ["Host: {host}", "Host: evil.example"],
        ["Host: localhost:{port}, evil.example"],
        ["Host: evil.example@127.0.0.1:{port}"],
        ["Host: 127.0.0.1:{port}/evil"],
        ["Host: {host}", "Content-Type: text/plain"],
    ],
)
def test_doubled_or_loose_headers_are_refused(client, store, lines):
    parts = urlsplit(client.url)
    values = {"host": parts.netloc, "origin": client.url, "port": parts.port}
    lines = [line.format(**values) for line in lines]
    before = len(store)
    body = json.dumps(NEW_GAME).encode()
    status, answer = raw_request(
        client.url,
        ["/api/games", *lines, "Content-Type: application/json", f"Content-Length: {len(body)}"],
        body,
    )
    assert status in (400, 403), answer
    assert len(store) == before


@pytest.fixture(scope="module")
def impatient():
    """A server that waits half a second for a request's headers and another for its body."""
    server = Server(create_app(TableStore()), port=0, header_seconds=0.5, body_seconds=0.5)
    yield server
    server.stop()


def dropped(sock: socket.socket, within: float) -> bool:
    """Whether the server closes ``sock`` within ``within`` seconds (any answer is read)."""
    sock.settimeout(within)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        pass
    return True


@pytest.mark.parametrize(
    ("sent", "trickle"),
    [
        (b"", b""),  # connects and says nothing
        (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a", b"a"),  # half its headers
        (
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{",
            b" ",
        ),  # half its body
    ],
)
def test_a_slow_client_is_dropped(impatient, sent, trickle):
    parts = urlsplit(impatient.url)
    start = time.monotonic()
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(sent)
        for _ in range(3):  # still trickling in: the deadline does not move
            time.sleep(0.2)
            with contextlib.suppress(OSError):  # dropped already
                sock.sendall(trickle)
        assert dropped(sock, within=3.0)
    assert time.monotonic() - start < 1.5


def test_a_client_that_keeps_sending_is_not_dropped(impatient):
    """Whole requests over one connection, each in time, for longer than either timeout."""
    connection = connect(impatient.url)
    start = time.monotonic()
    while time.monotonic() - start < 1.2:
        connection.request("GET", "/api/agents")
        assert connection.getresponse().read() and connection.sock is not None
        time.sleep(0.1)
    connection.close()
