"""The golden decisions (tests/agents/golden_decisions.py): at each stored position every
rule-based agent, the shipped policies and the action-scoring input decide what they decided
when the positions were made, one game at a time (``act``, ``policy_input``) and in arrays
(``candidates``, ``act_arrays``, ``fill_policy_input``). The fast tier checks every fifth
position, the slow tier all."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.agents import make_agent
from hot_envs.agents.arrays import as_array_agent, fill_policy_input
from hot_envs.agents.base import observe
from hot_envs.agents.features import SPECS, policy_input
from hot_envs.core.games import get_game
from tests.agents import golden_decisions as golden

GAMES = list(golden.PLAN)
TIERS = [pytest.param(5, id="every-fifth"), pytest.param(1, id="all", marks=pytest.mark.slow)]


def records(game: str, step: int) -> list[dict]:
    return golden.load(game)[::step]


def candidates(records: list[dict], key: str) -> tuple[np.ndarray, ...]:
    """The stored ``(legal, top, counts)`` of ``ScoringAgent.draw_many`` for agent ``key``."""
    k = len(records)
    legal = np.zeros((k, 64), dtype=np.int64)
    top = np.zeros((k, 64), dtype=np.int64)
    counts = np.zeros((k, 2), dtype=np.int64)
    for j, record in enumerate(records):
        best = record["heuristic"] if key == "heuristic" else record["styles"][key]
        legal[j, : len(record["legal"])] = record["legal"]
        top[j, : len(best)] = best
        counts[j] = len(record["legal"]), len(best)
    return legal, top, counts


def test_the_positions_cover_every_table_size_and_decision_kind():
    luft = golden.load("heisse-luft")
    phases = {r["state"]["phase"] for r in luft}
    assert {"play", "exchange", "trophy"} <= phases
    assert any(len(r["heuristic"]) > 1 for r in luft)  # ties the generator breaks
    karten = golden.load("heisse-karten")
    assert {r["state"]["num_players"] for r in karten} == set(range(2, 7))
    assert any(not r["state"]["trick"] for r in karten) and any(r["state"]["trick"] for r in karten)


@pytest.mark.parametrize("step", TIERS)
@pytest.mark.parametrize("game", GAMES)
def test_one_game_at_a_time(game, step):
    """``act`` of the heuristic and of each style, seeded and with a share of random moves,
    plays what ``draw_many`` draws among the stored best-scored actions with a twin of the same
    seed; the shipped policy's greedy ``act`` and ``policy_input``'s bytes are the stored
    ones."""
    engine = get_game(game).engine
    stored = records(game, step)
    pairs = []
    for record in stored:
        state = engine.State.from_dict(record["state"])
        seat = record["seat"]
        assert state.current_player == seat
        view = state.view(seat)
        assert list(view["legal_actions"]) == record["legal"]
        pairs.append((observe(engine, state, seat), view))
    policy = make_agent(golden.POLICIES[game], game, 0)
    for (observation, view), record in zip(pairs, stored, strict=True):
        assert policy.act(observation, view) == record["policy"]
        packed = policy_input(game, observation["observation"], view)
        assert golden.digest(packed) == record["features"]
    for key in ["heuristic", *golden.style_specs(game)]:
        for epsilon in (0.0, 0.2):
            spec = f"{key}:{epsilon}"
            agent, twin = make_agent(spec, game, 7), make_agent(spec, game, 7)
            played = [agent.act(observation, view) for observation, view in pairs]
            assert played == twin.draw_many(*candidates(stored, key)).tolist(), spec


@pytest.mark.parametrize("step", TIERS)
@pytest.mark.parametrize("game", GAMES)
def test_in_arrays(game, step):
    """The same positions loaded into an array engine: each agent's ``candidates`` are the
    stored legal and best-scored actions, the policy's ``act_arrays`` its stored moves and
    ``fill_policy_input``'s rows the stored bytes."""
    stored = records(game, step)
    games = golden.load_games(game, [r["state"] for r in stored])
    which = np.arange(len(stored))
    for key in ["heuristic", *golden.style_specs(game)]:
        legal, top, counts = as_array_agent(game, make_agent(key, game, 0)).candidates(games, which)
        for j, record in enumerate(stored):
            best = record["heuristic"] if key == "heuristic" else record["styles"][key]
            assert legal[j, : counts[j, 0]].tolist() == record["legal"], (key, j)
            assert top[j, : counts[j, 1]].tolist() == best, (key, j)
    policy = make_agent(golden.POLICIES[game], game, 0)
    assert policy.act_arrays(games, which).tolist() == [r["policy"] for r in stored]
    seats = np.array([r["seat"] for r in stored], dtype=np.int64)
    packed = np.zeros((len(stored), SPECS[get_game(game).name].input_size), dtype=np.float32)
    fill_policy_input(games, which, seats, games.observe(rows=which), packed)
    assert [golden.digest(row) for row in packed] == [r["features"] for r in stored]
