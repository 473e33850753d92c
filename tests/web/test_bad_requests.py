"""Bad requests get a 4xx with a clear JSON message and leave every game as it was."""

from __future__ import annotations

import pytest

from tests.web.test_api import recorded_game


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
