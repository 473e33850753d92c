"""The browser table's JSON API against a real server: games to the end, watching, replays,
bad requests (4xx, nothing changed), reloads, and 50 games at once."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from hot_envs.core.games import get_game
from tests.helpers import recorded_game


def play_out(client, game_id: str, rng: random.Random, seat: int | None = None) -> dict:
    """Drive a table to its end: random legal moves for the human, ``step`` for the agents."""
    query = "" if seat is None else f"?seat={seat}"
    snap = client.ok("GET", f"/api/games/{game_id}{query}")
    while not snap["over"]:
        if snap["agent_to_move"]:
            snap = client.ok("POST", f"/api/games/{game_id}/step{query}")
        else:
            action = rng.choice(snap["moves"])["action"]
            snap = client.ok("POST", f"/api/games/{game_id}/move", {"action": action})
    return snap


def full_state(store, game_id):
    return store.get(game_id).state.to_dict()


def test_a_karten_game_plays_to_the_end_and_each_answer_is_the_seats_own_view(client, store):
    created = client.ok(
        "POST", "/api/games", {"game": "heisse-karten", "seats": ["random", "human", "heuristic"]}
    )
    game_id, table = created["id"], store.get(created["id"])
    assert created["mode"] == "play" and created["seat"] == 1 and created["num_players"] == 3
    rng = random.Random(0)
    snap = created
    while not snap["over"]:
        assert snap["view"] == table.state.view(1)  # HK-5: the engine's view of seat 1, no more
        if snap["to_move"] != 1:
            assert snap["moves"] == []
        if snap["agent_to_move"]:
            snap = client.ok("POST", f"/api/games/{game_id}/step")
        else:
            assert [m["action"] for m in snap["moves"]] == snap["view"]["legal_actions"]
            snap = client.ok(
                "POST",
                f"/api/games/{game_id}/move",
                {"action": rng.choice(snap["moves"])["action"]},
            )
    assert snap["step"] == 48  # HK-2.3: 16 tricks of 3
    assert sum(snap["returns"]) == pytest.approx(0) and snap["returns"] == table.state.returns()
    assert snap["last"]["trick"]["winner"] == table.state.view(0)["leader"]


def test_watching_heisse_luft_agents_to_the_end(client):
    created = client.ok(
        "POST", "/api/games", {"game": "heisse-luft", "seats": ["heuristic", "random"], "seed": 5}
    )
    assert created["mode"] == "watch" and created["moves"] == [] and created["agent_to_move"]
    snap = play_out(client, created["id"], random.Random(0), seat=1)
    assert (
        snap["seat"] == 1
        and snap["over"]
        and snap["returns"] in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
    )
    flight = snap["last"]["flight"]  # HL-4: the last flight stays shown after the game
    assert flight["sums"] == [sum(int(c[1:]) for c in side) for side in flight["sides"]]
    # the same deal watched again plays the same game (seeded agents)
    again = client.ok(
        "POST", "/api/games", {"game": "heisse-luft", "seats": ["heuristic", "random"], "seed": 5}
    )
    assert (
        play_out(client, again["id"], random.Random(1))["log"]
        == client.ok("GET", f"/api/games/{created['id']}")["log"]
    )


def test_flight_result_names_the_winner_by_the_terrain(client, store):
    """HL-4.2: the last-flight box agrees with the terrain rule (ties: HL-4.3, the last card)."""
    created = client.ok(
        "POST", "/api/games", {"game": "heisse-luft", "seats": ["random", "random"], "seed": 11}
    )
    flights = []
    snap = created
    while not snap["over"]:
        snap = client.ok("POST", f"/api/games/{created['id']}/step")
        if snap["last"].get("flight") and snap["last"]["flight"] not in flights:
            flights.append(snap["last"]["flight"])
    assert len(flights) >= 3
    for f in flights:
        a, b = f["sums"]
        if a == b:
            assert f["winner"] == f["last_player"]
        else:
            assert f["winner"] == (
                (0 if a < b else 1) if f["terrain"] == "lowland" else (0 if a > b else 1)
            )


@pytest.mark.parametrize(
    ("game", "options"), [("heisse-luft", {}), ("heisse-karten", {"num_players": 4})]
)
def test_a_replay_steps_through_the_recorded_game_and_back(client, game, options):
    n = options.get("num_players", 2)
    record = recorded_game(
        game, options, ["heuristic", "random", "heuristic", "random"][:n], seed=3
    )
    created = client.ok("POST", "/api/replays", {"record": record})
    game_id = created["id"]
    assert (
        created["mode"] == "replay"
        and created["step"] == 0
        and created["steps"] == len(record["actions"])
    )
    engine = get_game(game).engine
    state = engine.State.new(seed=3, **options)
    for k, action in enumerate(record["actions"]):
        seat = k % n
        snap = client.ok("GET", f"/api/games/{game_id}?seat={seat}")
        assert snap["step"] == k and snap["view"] == state.view(seat)
        state.apply(action)
        client.ok("POST", f"/api/games/{game_id}/step")
    end = client.ok("GET", f"/api/games/{game_id}")
    assert end["over"] and end["returns"] == record["returns"]
    assert client.call("POST", f"/api/games/{game_id}/step")[0] == 409
    back = client.ok("POST", f"/api/games/{game_id}/seek?seat=1", {"step": 7})
    state = engine.State.new(seed=3, **options)
    for action in record["actions"][:7]:
        state.apply(action)
    assert back["step"] == 7 and back["view"] == state.view(1) and not back["over"]


def test_the_shipped_checkpoints_are_offered_and_play(client):
    assert {"heuristic", "heisse_luft_v0", "heisse_karten_v0"} <= set(
        client.ok("GET", "/api/agents")["agents"]
    )
    body = {"game": "heisse-luft", "seats": ["heisse_luft_v0", "human"], "seed": 3}
    snap = client.ok("POST", "/api/games", body)
    snap = client.ok("POST", f"/api/games/{snap['id']}/step")
    assert snap["log"][0]["seat"] == 0 and snap["to_move"] == 1 and snap["moves"]


def test_a_reload_resumes_the_game(client):
    created = client.ok(
        "POST", "/api/games", {"game": "heisse-karten", "seats": ["human", "random"], "seed": 2}
    )
    moved = client.ok(
        "POST", f"/api/games/{created['id']}/move", {"action": created["moves"][0]["action"]}
    )
    reloaded = client.ok("GET", f"/api/games/{created['id']}")
    assert reloaded == moved and reloaded["step"] == 1


def test_the_page_serves_every_table_address_and_the_rules(client):
    import urllib.request

    for path in ("/", "/table/anything"):
        with urllib.request.urlopen(client.url + path) as response:
            assert '<script src="/static/app.js">' in response.read().decode()
    with urllib.request.urlopen(client.url + "/rules") as response:
        text = response.read().decode()
    assert 'id="HL-4.3"' in text and 'id="HK-3.2"' in text


@pytest.mark.slow
def test_fifty_games_at_once_all_finish(client, store):
    """50 threads each play a whole game through the HTTP API; none fails, none is lost."""
    specs = [
        ("heisse-karten", ["human", "random"]),
        ("heisse-karten", ["random", "human", "heuristic"]),
        ("heisse-karten", ["random"] * 5 + ["human"]),
        ("heisse-luft", ["human", "random"]),
    ]

    def one(index: int) -> tuple[str, dict]:
        game, seats = specs[index % len(specs)]
        created = client.ok("POST", "/api/games", {"game": game, "seats": seats, "seed": index})
        return created["id"], play_out(client, created["id"], random.Random(index))

    with ThreadPoolExecutor(50) as pool:
        finished = list(pool.map(one, range(50)))
    assert len({game_id for game_id, _ in finished}) == 50
    for game_id, snap in finished:
        assert snap["over"]
        assert client.ok("GET", f"/api/games/{game_id}") == snap  # still there, unchanged


def test_the_arenas_records_replay_on_the_table(client, tmp_path):
    """``evaluate --out`` writes games.jsonl; each of its games replays to the recorded end."""
    from hot_envs.cli import main
    from hot_envs.evaluation.records import read_records

    argv = ["evaluate", "heisse-karten", "--agents", "random", "heuristic", "--games", "1"]
    assert main([*argv, "--players", "3", "--workers", "1", "--quiet", "--out", str(tmp_path)]) == 0
    records = read_records(tmp_path / "games.jsonl")
    assert len(records) >= 2
    for record in records:
        snap = client.ok("POST", "/api/replays", {"record": record})
        snap = client.ok("POST", f"/api/games/{snap['id']}/seek", {"step": snap["steps"]})
        assert (
            snap["over"]
            and snap["returns"] == record["returns"]
            and snap["seats"] == record["seats"]
        )
