"""Batched action features (hot_envs.agents.features_batch) equal the per-decision ones.

Compared with ``assert_array_equal``, not a tolerance: the batched arithmetic follows the
heuristics' order of float64 operations and uses Python's ``erf`` and ``**``, so every entry
must be the same float32 number — and the "is best" flags, which compare scores within 1e-12,
would flip on any rounding difference.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from hot_envs.agents import make_agent
from hot_envs.agents.features import SPECS, policy_input
from hot_envs.agents.features_batch import action_features_batch, policy_input_batch
from hot_envs.agents.heuristic_luft import _Table
from hot_envs.core.games import get_game


def _decisions(game: str, players: list[int | None], games: int, seed: int) -> list[tuple]:
    """(observation, view) at every decision of every seat in heuristic-vs-random games, for
    each table size in ``players``, shuffled so that a batch mixes games and table sizes."""
    engine = get_game(game).engine
    out = []
    for n in players:
        for g in range(games):
            options = {} if n is None else {"num_players": n}
            state = engine.State.new(seed=seed + g, **options)
            agents = [
                make_agent("heuristic" if (p + g) % 2 else "random", game, seed=seed + g + p)
                for p in range(state.num_players)
            ]
            while not state.is_terminal():
                seat = state.current_player
                observation = engine.encode(state, seat)
                view = state.view(seat)
                out.append((observation, view))
                mask = engine.action_mask(state, seat)
                state.apply(
                    agents[seat].act({"observation": observation, "action_mask": mask}, view)
                )
    order = np.random.default_rng(seed).permutation(len(out))
    return [out[i] for i in order]


def _assert_batches_equal(game: str, decisions: list[tuple], sizes: tuple[int, ...]) -> None:
    """Batches of the given sizes in turn (the last ones whatever is left) against
    ``policy_input`` decision by decision."""
    start, turn = 0, 0
    while start < len(decisions):
        size = sizes[turn % len(sizes)]
        part = decisions[start : start + size]
        expected = np.stack([policy_input(game, o, v) for o, v in part])
        got = policy_input_batch(game, np.stack([o for o, _ in part]), [v for _, v in part])
        np.testing.assert_array_equal(got, expected)
        start, turn = start + size, turn + 1


def test_heisse_luft_batches_equal_per_decision_in_every_phase() -> None:
    decisions = _decisions("heisse-luft", [None], games=40, seed=0)
    phases = [v["phase"] for _, v in decisions]
    assert len(decisions) > 1800
    assert {"play", "exchange", "trophy"} <= set(phases)
    assert phases.count("exchange") >= 10 and phases.count("trophy") >= 10
    # the hard play cases occur: plays that complete a stage and that leave one slot
    lasts = completes = 0
    for _, view in decisions[:300]:
        if view["phase"] == "play":
            table = _Table(view)
            for action in view["legal_actions"]:
                open_slots = table.stages[action >> 1 & 3].open_slots
                completes += open_slots == 1
                lasts += open_slots == 2
    assert lasts > 50 and completes > 50
    _assert_batches_equal("heisse-luft", decisions, (64, 1, 17, 64, 3))


def test_heisse_karten_batches_equal_per_decision_at_every_table_size() -> None:
    players = [2, 3, 4, 5, 6]
    decisions = _decisions("heisse-karten", players, games=8, seed=1)
    sizes = {v["num_players"] for _, v in decisions}
    assert sizes == set(players) and len(decisions) > 1500
    assert any(not v["trick"] for _, v in decisions) and any(v["trick"] for _, v in decisions)
    _assert_batches_equal("heisse-karten", decisions, (64, 1, 5, 64, 2))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "players", "games"),
    [("heisse-luft", [None], 80), ("heisse-karten", [2, 3, 4, 5, 6], 24)],
)
def test_many_more_batches_equal_per_decision(game, players, games) -> None:
    decisions = _decisions(game, players, games=games, seed=100)
    assert len(decisions) > 3600
    _assert_batches_equal(game, decisions, (64,))


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_flat_rows_name_each_legal_action_once(game) -> None:
    decisions = _decisions(game, [None] if game == "heisse-luft" else [3], games=1, seed=5)[:40]
    views = [v for _, v in decisions]
    rows = action_features_batch(game, views)
    assert rows.features.shape == (sum(map(len, rows_legal(views))), SPECS[game].size)
    for j, legal in enumerate(rows_legal(views)):
        mine = rows.decision == j
        assert rows.actions[mine].tolist() == legal
        assert rows.slot[mine].tolist() == list(range(len(legal)))


def rows_legal(views: list[dict]) -> list[list[int]]:
    return [sorted(v["legal_actions"]) for v in views]


def test_an_empty_batch_and_bad_input() -> None:
    game = "heisse-karten"
    spec = SPECS[game]
    assert policy_input_batch(game, np.zeros((0, spec.observation_size)), []).shape == (
        0,
        spec.input_size,
    )
    engine = get_game(game).engine
    state = engine.State.new(seed=0, num_players=2)
    view = state.view(0)
    observation = engine.encode(state, 0)[None]
    with pytest.raises(ValueError, match="do not match"):
        policy_input_batch(game, np.concatenate([observation, observation]), [view])
    view["legal_actions"] = list(range(spec.slots + 1))
    with pytest.raises(ValueError, match="action slots"):
        policy_input_batch(game, observation, [view])
    with pytest.raises(ValueError, match="legal-action lists"):
        action_features_batch(game, [view], [[0], [1]])


@pytest.mark.slow  # matplotlib and a warm-up pass per path: several seconds
def test_the_benchmark_decides_alike_on_every_path(tmp_path) -> None:
    """``benchmarks/features.py`` on a few decisions: every path picks the same actions, the
    batched features equal the per-decision ones, and its table and figure are written."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "features.py"
    spec = importlib.util.spec_from_file_location("benchmarks_features", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    argv = ["--decisions", "70", "--repeats", "1", "--out", str(tmp_path)]
    assert module.main(argv) == 0
    rows = json.loads((tmp_path / "features.json").read_text())["rows"]
    assert [r["game"] for r in rows] == ["heisse-luft", "heisse-karten"]
    for r in rows:
        assert r["same_features"] and r["same_actions_batch_arrays"] == r["decisions"] == 70
        assert r["same_actions_batch_dense"] == 70
        assert r["us"]["batch_arrays"] > 0
    assert (tmp_path / "features.png").stat().st_size > 0
    assert "features as arrays" in (tmp_path / "features.md").read_text()
