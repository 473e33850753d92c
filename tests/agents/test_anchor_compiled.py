"""An anchor to the heuristic compiled into an action scorer's network
(:func:`hot_envs.agents.anchored.compile_anchor`): at the table sizes given each legal move's
logit gains the weight times the heuristic's score gap of the move, at the others the policy is
exactly as before; bad weights, sizes, activations and arrays are refused and change nothing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hot_envs.agents.anchored import compile_anchor
from hot_envs.agents.checkpoint import read_metadata
from hot_envs.agents.features import action_features
from hot_envs.agents.scorer import NumpyScorer
from hot_envs.agents.shipped import find_checkpoint
from hot_envs.core.games import get_game
from tests.agents.helpers import decisions


def shipped(game: str) -> tuple[dict[str, np.ndarray], str]:
    stem = find_checkpoint(get_game(game).checkpoint)
    with np.load(stem.with_suffix(".npz")) as npz:
        arrays = {name: npz[name] for name in npz.files}
    return arrays, read_metadata(stem)["network"]["activation"]


def centred(logits: np.ndarray) -> np.ndarray:
    return logits - logits.max()


@pytest.mark.parametrize(
    ("game", "weights", "activation"),
    [
        ("heisse-karten", {5: 3.0, 6: 7.0}, None),
        ("heisse-karten", {4: 2.5}, "relu"),  # the same arrays read as a ReLU network
        ("heisse-luft", {None: 2.0}, None),
    ],
)
def test_the_logits_gain_the_weight_times_the_gap_where_asked_and_nothing_elsewhere(
    game, weights, activation
):
    arrays, own = shipped(game)
    activation = activation or own
    columns = get_game(game).load("anchor_columns")
    before = NumpyScorer(game, arrays, activation)
    after = NumpyScorer(game, compile_anchor(arrays, activation, columns, weights), activation)
    anchored = untouched = 0
    for observation, view, legal in decisions(game, 1500):
        old = before.legal_logits(observation["observation"], view, legal)
        new = after.legal_logits(observation["observation"], view, legal)
        weight = weights.get(view.get("num_players"), weights.get(None, 0.0))
        gap = action_features(game, view, legal.tolist())[:, columns.gap]
        assert (gap <= 0).all()
        expected = centred(old + weight * gap)
        # tanh's curvature (0.1 % of the anchor's term), the gate's float32 rounding (the gap
        # scaled up by 128 after it met the gate's 16), float32 at the size of the logits
        rounding = 5e-4 * weight + 4e-6 * (1 + np.abs(old).max())
        assert np.all(np.abs(centred(new) - expected) <= 1e-3 * np.abs(weight * gap) + rounding)
        if weight:
            anchored += 1
        else:  # the same logits, up to float32 rounding: no constant shift either
            untouched += 1
            assert np.allclose(new, old, rtol=0, atol=1e-5)
            assert new.argmax() == old.argmax()
    assert anchored > 100
    assert untouched > 100 or None in weights


def test_following_anchors_the_moves_that_follow_a_trick_and_leaves_the_leads():
    game = "heisse-karten"
    arrays, activation = shipped(game)
    columns = get_game(game).load("anchor_columns")
    before = NumpyScorer(game, arrays, activation)
    compiled = compile_anchor(arrays, activation, columns, {4: 5.0, 6: 2.0}, following=True)
    after = NumpyScorer(game, compiled, activation)
    seen = {"lead": 0, "follow": 0}
    for observation, view, legal in decisions(game, 1500, seed=2):
        old = before.legal_logits(observation["observation"], view, legal)
        new = after.legal_logits(observation["observation"], view, legal)
        rows = action_features(game, view, legal.tolist())
        leading = bool(rows[0, columns.leading])
        assert leading == (not view["trick"])  # the feature flags a trick with no card yet
        weight = 0.0 if leading else {4: 5.0, 6: 2.0}.get(view["num_players"], 0.0)
        expected = centred(old + weight * rows[:, columns.gap])
        rounding = 5e-4 * weight + 4e-6 * (1 + np.abs(old).max())  # as in the test above
        tolerance = 1e-3 * np.abs(weight * rows[:, columns.gap]) + rounding
        assert np.all(np.abs(centred(new) - expected) <= tolerance)
        if view["num_players"] in (4, 6):
            seen["lead" if leading else "follow"] += 1
    assert min(seen.values()) > 50
    luft = get_game("heisse-luft").load("anchor_columns")
    with pytest.raises(ValueError, match="no leading player"):
        compile_anchor(*shipped("heisse-luft"), luft, {None: 1.0}, following=True)


def test_a_large_weight_plays_the_heuristics_best_move_a_zero_weight_changes_nothing():
    game = "heisse-karten"
    arrays, activation = shipped(game)
    columns = get_game(game).load("anchor_columns")
    policy = NumpyScorer(game, arrays, activation)
    strong = NumpyScorer(game, compile_anchor(arrays, activation, columns, {None: 1e4}), activation)
    zero = compile_anchor(arrays, activation, columns, {6: 0.0})
    assert zero.keys() == arrays.keys()
    assert all(np.array_equal(zero[name], arrays[name]) for name in arrays)
    departures = 0
    for observation, view, legal in decisions(game, 600, seed=1):
        gap = action_features(game, view, legal.tolist())[:, columns.gap]
        choice = strong.legal_logits(observation["observation"], view, legal).argmax()
        assert gap[choice] == 0  # one of the heuristic's best moves
        own = policy.legal_logits(observation["observation"], view, legal).argmax()
        departures += gap[own] < 0
    assert departures > 20  # the policy alone leaves the heuristic's best moves often


@pytest.mark.parametrize(
    ("weights", "activation", "message"),
    [
        ({6: -1.0}, "tanh", "finite and >= 0"),
        ({6: math.nan}, "tanh", "finite and >= 0"),
        ({6: math.inf}, "tanh", "finite and >= 0"),
        ({6: "2"}, "tanh", "finite and >= 0"),
        ({7: 1.0}, "tanh", "no table of 7 players"),
        ({6: 1.0}, "sigmoid", "'sigmoid' units"),
    ],
)
def test_bad_weights_sizes_and_activations_are_refused_and_change_nothing(
    weights, activation, message
):
    arrays, _ = shipped("heisse-karten")
    copies = {name: value.copy() for name, value in arrays.items()}
    columns = get_game("heisse-karten").load("anchor_columns")
    with pytest.raises(ValueError, match=message):
        compile_anchor(arrays, activation, columns, weights)
    assert all(np.array_equal(copies[name], arrays[name]) for name in arrays)


def test_a_game_of_one_size_takes_no_table_size_and_an_mlp_is_no_action_scorer():
    luft = get_game("heisse-luft").load("anchor_columns")
    arrays, activation = shipped("heisse-luft")
    with pytest.raises(ValueError, match="no table of 2 players"):
        compile_anchor(arrays, activation, luft, {2: 1.0})
    mlp = {"layer_0.weight": np.zeros((4, 3)), "layer_0.bias": np.zeros(4)}
    with pytest.raises(ValueError, match="not an action scorer"):
        compile_anchor(mlp, "tanh", luft, {None: 1.0})
    with pytest.raises(ValueError, match="outside 39 features"):
        compile_anchor(arrays, activation, luft._replace(gap=39), {None: 1.0})
