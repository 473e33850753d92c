"""Recorded games (hot_envs.evaluation.records): the arena records every game, and records replay
exactly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hot_envs import batched
from hot_envs.cli import main
from hot_envs.core.games import get_game
from hot_envs.evaluation.arena import play_match
from hot_envs.evaluation.records import make_record, read_records, replay, write_records

SETUPS = [("heisse-luft", 2, {})] + [("heisse-karten", n, {}) for n in range(2, 7)]
SETUPS += [("heisse-luft", 2, {"three_for_one": False, "starting_player": "random"})]
SETUPS += [("heisse-karten", 3, {"rounds": 2, "first_leader": "random"})]


@pytest.mark.parametrize(("game", "players", "options"), SETUPS)
def test_arena_records_replay_exactly(game: str, players: int, options: dict) -> None:
    lineup = ["heuristic"] + ["random"] * (players - 1)
    result = play_match(game, lineup, players, seed=7, workers=1, progress=False, options=options)
    records = result.game_records()
    assert len(records) == len(result.records) == players
    for record, played in zip(records, result.records, strict=True):
        states = replay(record)
        assert len(states) == played.length + 1 == len(record["actions"]) + 1
        assert states[-1].is_terminal() and not states[0].is_terminal()
        assert states[-1].returns() == pytest.approx(record["returns"])
        assert record["returns"] == list(played.returns)
        # seat s holds the lineup entry played.seats[s]: the heuristic moves round the table
        assert record["seats"].index("heuristic") == played.seats.index(0)
        expected = {**options, "num_players": players} if "karten" in game else options
        assert record["options"] == expected


def test_records_survive_a_file_round_trip(tmp_path) -> None:
    result = play_match("heisse-karten", ["random"] * 4, 4, seed=1, workers=1, progress=False)
    path = write_records(tmp_path / "games.jsonl", result.game_records())
    assert len(path.read_text().splitlines()) == 4
    assert read_records(path) == result.game_records()
    assert all(replay(record) for record in read_records(path))


@pytest.fixture(scope="module")
def record() -> dict:
    result = play_match("heisse-luft", ["random", "random"], 1, seed=3, workers=1, progress=False)
    return result.game_records()[0]


def changed(record: dict, **changes) -> dict:
    return {**json.loads(json.dumps(record)), **changes}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: changed(r, actions=r["actions"][:-1]), "not over after"),
        (lambda r: changed(r, actions=r["actions"] + [0]), "game is over after"),
        (lambda r: changed(r, actions=[365] + r["actions"][1:]), "action 0: action 365"),
        (lambda r: changed(r, returns=[r["returns"][1], r["returns"][0]]), "returns"),
        (lambda r: changed(r, deal_seed=r["deal_seed"] + 1), "action"),
        (lambda r: changed(r, seats=["random"]), "seats"),
        (lambda r: changed(r, seats=["random"] * 3, returns=[0, 0, 0]), "3 seats"),
        (lambda r: changed(r, options={"colour": 1}), "options"),
        (lambda r: changed(r, format=2), "format"),
        (lambda r: changed(r, game="chess"), "unknown game"),
        (lambda r: changed(r, game="heisse_luft_v0"), "spelt 'heisse-luft'"),
        (lambda r: changed(r, deal_seed=True), "deal_seed"),
        (lambda r: changed(r, index=-1), "index"),
        (lambda r: changed(r, actions=["1"]), "actions"),
        (lambda r: changed(r, returns=[10**400, -1.0]), "'returns' holds 1000"),
        (lambda r: changed(r, returns=[float("nan"), 0.0]), "'returns' holds nan"),
        (lambda r: changed(r, extra=1), "unknown key 'extra'"),
        (lambda r: changed(r, chance="dice"), "'chance' must be one of 'stream', 'numpy'"),
        (lambda r: changed(r, chance="numpy"), "action"),  # not the source it was dealt from
        (lambda r: {k: v for k, v in r.items() if k != "seats"}, "lacks 'seats'"),
        (lambda r: [r], "JSON object"),
    ],
)
def test_bad_records_are_refused(record: dict, change, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        replay(change(record))


def test_read_records_names_the_bad_line(tmp_path, record: dict) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(record) + "\n\n{not json\n")
    with pytest.raises(ValueError, match="line 3"):
        read_records(path)
    with pytest.raises(ValueError, match="no game records"):
        read_records(tmp_path / "missing.jsonl")


def test_a_bad_record_writes_nothing(tmp_path, record: dict) -> None:
    with pytest.raises(ValueError):
        write_records(tmp_path / "games.jsonl", [record, changed(record, format=0)])
    assert not (tmp_path / "games.jsonl").exists()


def test_make_record_normalises_the_game_name() -> None:
    made = make_record("heisse_karten_v0", {"num_players": 2}, 5, ["a", "b"], [], [0, 0])
    assert made["game"] == "heisse-karten" and made["returns"] == [0.0, 0.0]


def test_evaluate_out_writes_replayable_games(tmp_path, capsys) -> None:
    argv = ["evaluate", "heisse-karten", "--agents", "random", "heuristic", "--games", "2"]
    argv += ["--players", "2", "--workers", "1", "--quiet", "--out", str(tmp_path)]
    assert main(argv) == 0
    assert "games.jsonl" in capsys.readouterr().out
    records = read_records(tmp_path / "games.jsonl")
    assert len(records) == 2 and {tuple(r["seats"]) for r in records} == {
        ("random", "heuristic"),
        ("heuristic", "random"),
    }
    assert all(replay(r)[-1].is_terminal() for r in records)
    saved = json.loads((tmp_path / "results.json").read_text())
    assert "actions" not in saved["games"][0]


@pytest.mark.parametrize(("game", "players", "options"), SETUPS)
def test_a_record_replays_on_the_array_engine_too(game: str, players: int, options: dict) -> None:
    """The arena's records name the stream (``"chance": "stream"``): an array engine's row dealt
    from the deal seed plays every recorded action to the same states, reshuffles (HL-3.5) and
    later rounds (HK-4.4) included, and ends with the record's returns."""
    lineup = ["heuristic"] + ["random"] * (players - 1)
    result = play_match(game, lineup, players, seed=5, workers=1, progress=False, options=options)
    for record in result.game_records():
        assert record["chance"] == "stream"
        states = replay(record)
        games = batched.make(game, 1, **record["options"])
        games.deal([0], [record["deal_seed"]])
        assert games.state_dict(0) == states[0].to_dict()
        for action, state in zip(record["actions"], states[1:], strict=True):
            rewards, done = games.step(np.array([action]))
            assert games.state_dict(0) == state.to_dict()
        assert done[0] and rewards[0, :players].tolist() == pytest.approx(record["returns"])


def _numpy_record(game: str, options: dict, deal_seed: int) -> dict:
    """A record as the arena wrote it before the stream: no ``chance``, the deal and every
    later chance event from numpy's ``default_rng(deal_seed)``."""
    engine = get_game(game).engine
    state = engine.State.new(seed=np.random.default_rng(deal_seed), **options)
    pick = np.random.default_rng(0)
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        actions.append(legal[pick.integers(len(legal))])
        state.apply(actions[-1])
    record = make_record(game, options, deal_seed, ["random"] * state.num_players, actions,
                         state.returns())  # fmt: skip
    del record["chance"]
    return record


@pytest.mark.parametrize(
    ("game", "options"),
    [("heisse-luft", {}), ("heisse-karten", {"num_players": 3, "rounds": 2})],
)
def test_records_written_before_the_stream_replay_with_numpys_generator(game, options) -> None:
    """A record without ``chance`` is read as ``"numpy"``: it replays with the source it was
    dealt from; named as the stream, the same actions do not fit its deal."""
    record = _numpy_record(game, options, deal_seed=11)
    states = replay(record)
    assert states[-1].is_terminal() and len(states) == len(record["actions"]) + 1
    assert replay({**record, "chance": "numpy"})[-1].to_dict() == states[-1].to_dict()
    with pytest.raises(ValueError, match="action"):
        replay({**record, "chance": "stream"})
