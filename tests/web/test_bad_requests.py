"""Bad requests get a 4xx with a clear JSON message and leave every game as it was."""

from __future__ import annotations

import pytest

from tests.helpers import recorded_game


@pytest.fixture(scope="module")
def tables(client):
    """A played table (the human to move), a watched one and a replay."""
    play = client.ok(
        "POST", "/api/games", {"game": "heisse-luft", "seats": ["human", "random"], "seed": 4}
    )
    watch = client.ok(
        "POST", "/api/games", {"game": "heisse-karten", "seats": ["random", "random"], "seed": 4}
    )
    record = recorded_game("heisse-karten", {"num_players": 2}, ["random", "random"], 4)
    replay = client.ok("POST", "/api/replays", {"record": record})
    return {"play": play["id"], "watch": watch["id"], "replay": replay["id"], "record": record}


def everything(client, store, tables):
    """Each table's full state and its moves, and how many tables the server keeps."""
    return len(store), [
        (store.get(tables[k]).state.to_dict(), list(store.get(tables[k]).moves))
        for k in ("play", "watch", "replay")
    ]


BAD_GAMES = [
    ({"game": "skat", "seats": ["human", "random"]}, "unknown game"),
    ({"game": "heisse-luft", "seats": ["human", "random", "random"]}, "2-player"),
    ({"game": "heisse-karten", "seats": ["human"] + ["random"] * 6}, "2–6 agent specs"),
    ({"game": "heisse-karten", "seats": ["human", "human"]}, "at most one seat"),
    ({"game": "heisse-karten", "seats": ["human", "alphago"]}, "not offered here"),
    ({"game": "heisse-karten", "seats": ["human", "os:abort"]}, "not offered here"),
    ({"game": "heisse-karten", "seats": ["human", "heisse_luft_v0"]}, "is for heisse-luft"),
    ({"game": "heisse-karten", "seats": ["human", "search:1:os:abort"]}, "not offered here"),
    ({"game": "heisse-karten", "seats": ["human", "search:10000000"]}, "not offered here"),
    ({"game": "heisse-karten", "seats": ["human", "search:-3"]}, "budget"),
    ({"game": "heisse-karten", "seats": ["human", "heuristic:x"]}, "not a number"),
    ({"game": "heisse-karten", "seats": ["human", 7]}, "agent spec"),
    ({"game": "heisse-karten", "seats": "human"}, "list of 2–6"),
    ({"game": "heisse-karten", "seats": ["human", "random"], "seed": -1}, "seed"),
    ({"game": "heisse-karten", "seats": ["human", "random"], "seed": True}, "seed"),
    ({"game": "heisse-karten", "seats": ["human", "random"], "players": 2}, "unknown field"),
    ({"seats": ["human", "random"]}, "lacks game"),
]


@pytest.mark.parametrize(("body", "message"), BAD_GAMES)
def test_a_bad_new_game_is_refused(client, store, tables, body, message):
    before = everything(client, store, tables)
    status, answer = client.call("POST", "/api/games", body)
    assert status == 400 and message in answer["error"], answer
    assert everything(client, store, tables) == before


def bad_records(record):
    def changed(**changes):
        return {"record": {**record, **changes}}

    def without(key):
        return {"record": {k: v for k, v in record.items() if k != key}}

    illegal = list(record["actions"])
    illegal[5] = illegal[3]  # a card already played (HK-3.1)
    return [
        (changed(format=2), "format"),
        (without("actions"), "lacks 'actions'"),
        (changed(game="go"), "unknown game"),
        (changed(deal_seed="x"), "deal_seed"),
        (changed(options={"num_players": 9}), "options"),
        (changed(options={"colour": "red"}), "options"),
        (changed(seats=["random"] * 3), "seats"),
        (changed(actions=[0.5]), "0.5"),
        (changed(actions=illegal), "action 5"),
        (changed(actions=record["actions"] + [0]), "over after"),
        (changed(returns=[0.5] * len(record["returns"])), "differ"),
        ({"record": "games.jsonl"}, "JSON object"),
        ({}, "lacks record"),
    ]


def test_a_bad_record_is_refused(client, store, tables):
    for body, message in bad_records(tables["record"]):
        before = everything(client, store, tables)
        status, answer = client.call("POST", "/api/replays", body)
        assert status == 400 and message in answer["error"], (body, answer)
        assert everything(client, store, tables) == before


def test_bad_moves_steps_and_seeks_change_nothing(client, store, tables):
    play, watch, replay = tables["play"], tables["watch"], tables["replay"]
    hand = client.ok("GET", f"/api/games/{play}")["view"]["hand"]
    requests = [
        ("GET", "/api/games/nosuchgame", None, 404, "no game"),
        ("POST", "/api/games/nosuchgame/move", {"action": 0}, 404, "no game"),
        ("GET", "/api/nothing", None, 404, "Not Found"),
        ("DELETE", f"/api/games/{play}", None, 405, "Method Not Allowed"),
        ("POST", f"/api/games/{play}/move", {"action": 366}, 400, "action 366"),
        ("POST", f"/api/games/{play}/move", {"action": 362}, 400, "illegal"),
        ("POST", f"/api/games/{play}/move", {"action": "H7"}, 400, "action id"),
        ("POST", f"/api/games/{play}/move", {"action": True}, 400, "action id"),
        ("POST", f"/api/games/{play}/move", {}, 400, "lacks 'action'"),
        ("POST", f"/api/games/{play}/move", {"action": 0, "seat": 1}, 400, "unknown field"),
        ("POST", f"/api/games/{play}/move", [1, 2], 400, "JSON object"),
        ("POST", f"/api/games/{play}/step", None, 409, "your turn"),
        ("POST", f"/api/games/{play}/seek", {"step": 0}, 409, "only a replay"),
        ("GET", f"/api/games/{play}?seat=1", None, 403, "private"),
        ("GET", f"/api/games/{play}?seat=x", None, 400, "seat"),
        ("POST", f"/api/games/{watch}/move", {"action": 0}, 409, "nobody plays"),
        ("GET", f"/api/games/{watch}?seat=2", None, 400, "seat must be 0–1"),
        ("POST", f"/api/games/{replay}/seek", {"step": 10_000}, 400, "step must be"),
        ("POST", f"/api/games/{replay}/seek", {"step": "1"}, 400, "step must be"),
    ]
    for method, path, body, status, message in requests:
        before = everything(client, store, tables)
        got, answer = client.call(method, path, body)
        assert got == status and message in answer["error"], (path, body, answer)
        assert everything(client, store, tables) == before
    before = everything(client, store, tables)
    got, answer = client.call("POST", f"/api/games/{play}/move", raw=b"{not json")
    assert got == 400 and "not JSON" in answer["error"]
    assert everything(client, store, tables) == before
    assert hand == client.ok("GET", f"/api/games/{play}")["view"]["hand"]


class RuleBreaker:
    """An agent that plays a card nobody holds."""

    def act(self, observation, view):
        return 99


def test_an_agent_that_breaks_the_rules_is_a_server_error_and_changes_nothing(client, store):
    from hot_envs.web.tables import Table

    table = Table("heisse-karten", ["tests.web.test_bad_requests:RuleBreaker", "human"], seed=1)
    game_id = store.add(table)
    before = table.state.to_dict()
    status, answer = client.call("POST", f"/api/games/{game_id}/step")
    assert status == 500 and "action 99 is illegal" in answer["error"]
    assert table.state.to_dict() == before and table.moves == []


BAD_JSON = [
    b"[" * 100_000,  # nested past the parser's depth
    b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    b"{not json",
    b'{"action": 1} trailing',
    b"\xff\xfe{}",  # not UTF-8
    b'{"action": ' + b"9" * 10_000 + b"}",  # an int past Python's digit limit
    b'{"action": 1',
    b'"just a string"',
]


def test_every_kind_of_bad_json_is_a_400_and_the_connection_stays(client, store, tables):
    """One keep-alive connection takes each malformed body and answers the next request."""
    import http.client
    import json
    from urllib.parse import urlsplit

    url = urlsplit(client.url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    before = everything(client, store, tables)
    headers = {"Content-Type": "application/json"}
    for body in BAD_JSON:
        connection.request("POST", f"/api/games/{tables['play']}/move", body, headers)
        response = connection.getresponse()
        answer = json.loads(response.read())
        assert response.status == 400 and "JSON" in answer["error"], (body[:20], answer)
        assert len(answer["error"]) < 300  # a message, not the body echoed
    connection.request("GET", f"/api/games/{tables['play']}")  # the same connection
    assert connection.getresponse().status == 200
    connection.close()
    assert everything(client, store, tables) == before


def test_a_body_over_the_limit_is_a_413_and_not_read_whole(client, store):
    """The declared length is enough: the answer comes before the body is sent."""
    import http.client
    import json
    from urllib.parse import urlsplit

    from hot_envs.web.app import MAX_BODY

    url, before = urlsplit(client.url), len(store)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    connection.putrequest("POST", "/api/replays")
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Content-Length", str(8 * MAX_BODY))
    connection.endheaders()  # and not a byte of the 8 MiB
    response = connection.getresponse()
    assert response.status == 413 and "over" in json.loads(response.read())["error"]
    connection.close()
    assert len(store) == before


def long_karten_record(rounds: int) -> dict:
    """A valid 2-player match of ``rounds`` rounds, random moves (48 a round, HK-2.3)."""
    from hot_envs.evaluation.records import make_record
    from hot_envs.heisse_karten import State

    rng = __import__("random").Random(rounds)
    state = State.new(seed=1, num_players=2, rounds=rounds)
    actions = []
    while not state.is_terminal():
        actions.append(rng.choice(state.legal_actions()))
        state.apply(actions[-1])
    options = {"num_players": 2, "rounds": rounds}
    return make_record("heisse-karten", options, 1, ["random"] * 2, actions, state.returns())


def test_a_record_past_the_replay_limit_is_refused_at_once(client, store):
    import time

    from hot_envs.web.tables import MAX_REPLAY_MOVES

    record = long_karten_record(MAX_REPLAY_MOVES // 48 + 1)
    start, before = time.monotonic(), len(store)
    status, answer = client.call("POST", "/api/replays", {"record": record})
    assert status == 400 and f"at most {MAX_REPLAY_MOVES}" in answer["error"]
    assert time.monotonic() - start < 2 and len(store) == before


def test_the_longest_replay_fits_in_little_memory_and_seeks_anywhere(client, store):
    """A record of 200 rounds (9,600 moves) keeps a state every 50 moves; a seek plays at most
    49 moves from one, and shows the same views as the record replayed from the deal."""
    import time

    from hot_envs.evaluation.records import replay

    record = long_karten_record(200)
    created = client.ok("POST", "/api/replays", {"record": record})
    table = store.get(created["id"])
    assert created["steps"] == 9600 and len(table.kept) == 9600 // 50 + 1
    assert table.memory_estimate() < 2**20
    states = replay(record)
    for step in (9600, 0, 49, 50, 51, 4321, 9599):
        start = time.monotonic()
        snap = client.ok("POST", f"/api/games/{created['id']}/seek?seat=1", {"step": step})
        assert time.monotonic() - start < 1.0
        assert snap["step"] == step and snap["view"] == states[step].view(1)
        if step:
            assert snap["log"][-1] == {
                "seat": record_mover(states, step),
                "name": snap["log"][-1]["name"],
            }
    assert (
        snap["over"] is False
        and client.ok("POST", f"/api/games/{created['id']}/step")["step"] == 9600
    )


def record_mover(states, step: int) -> int:
    return states[step - 1].current_player
