"""A checkpoint's logits plus a weight on the heuristic's move (:mod:`hot_envs.agents.anchored`)
and ``benchmarks/heuristic_anchor.py``, which measures it.
Weight 0 plays as the checkpoint, inf as the heuristic, and in between the checkpoint leaves the
heuristic's move exactly where its own best logit is more than the weight higher; the benchmark
writes its table, JSON and plot."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from hot_envs.agents import make_agent
from hot_envs.agents.anchored import AnchoredAgent
from hot_envs.agents.base import observe
from hot_envs.core.games import get_game

ROOT = Path(__file__).resolve().parents[2]
GAME = "heisse-karten"


@pytest.fixture(scope="module")
def anchor():
    path = ROOT / "benchmarks" / "heuristic_anchor.py"
    spec = importlib.util.spec_from_file_location("benchmarks_heuristic_anchor", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def decisions(count: int, seed: int = 0):
    """``count`` (observation, view) pairs from games of random play at 2–6 players."""
    engine = get_game(GAME).engine
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = engine.State.new(seed=rng, num_players=int(rng.integers(2, 7)))
        while not state.is_terminal() and len(found) < count:
            seat = state.current_player
            found.append((observe(engine, state, seat), state.view(seat)))
            state.apply(int(rng.choice(state.legal_actions())))
    return found


@pytest.mark.parametrize("weight", [0.0, 1.5, 4.0, math.inf])
def test_the_heuristics_move_unless_the_policy_is_surer_by_more_than_the_weight(anchor, weight):
    policy = make_agent("heisse_karten_v0", GAME, 0)
    heuristic = make_agent("heuristic", GAME, 0)
    agent = AnchoredAgent(policy, heuristic, weight)
    departures = 0
    for observation, view in decisions(600):
        legal = observation["action_mask"].astype(bool).nonzero()[0]
        own, prior = policy.act(observation, view), heuristic.act(observation, view)
        logits = policy.legal_logits(observation, view, legal)
        gap = logits.max() - logits[legal.tolist().index(prior)]
        expected = own if gap > weight else prior
        assert agent.act(observation, view) == expected
        departures += expected != prior
    if weight == 0:
        assert departures > 0  # the policy does leave the heuristic's moves
    if math.isinf(weight):
        assert departures == 0


def test_the_agent_spec_builds_the_anchored_shipped_policy():
    agent = make_agent("hot_envs.agents.anchored:anchored", GAME, 3)
    assert isinstance(agent, AnchoredAgent) and agent.weight == 6.0
    shipped = make_agent("heisse_karten_v0", GAME, 3)  # the game's shipped checkpoint
    for observation, view in decisions(20):
        legal = observation["action_mask"].astype(bool).nonzero()[0]
        mine = agent.policy.legal_logits(observation, view, legal)
        np.testing.assert_array_equal(mine, shipped.legal_logits(observation, view, legal))
        assert observation["action_mask"][agent.act(observation, view)]


@pytest.mark.parametrize(
    "spec, weight, policy",
    [
        ("anchored", 6.0, "heisse_karten_v0"),
        ("anchored:8", 8.0, "heisse_karten_v0"),
        ("anchored:inf:heisse_karten_v0_2026_11_30", math.inf, "heisse_karten_v0_2026_11_30"),
    ],
)
def test_the_short_spec_names_the_weight_and_the_policy(spec, weight, policy):
    agent = make_agent(spec, GAME, 5)
    assert isinstance(agent, AnchoredAgent) and agent.weight == weight
    named = make_agent(policy, GAME, 5)
    for observation, view in decisions(5):
        legal = observation["action_mask"].astype(bool).nonzero()[0]
        np.testing.assert_array_equal(
            agent.policy.legal_logits(observation, view, legal),
            named.legal_logits(observation, view, legal),
        )


@pytest.mark.parametrize(
    "spec, message",
    [
        ("anchored:-1", "weight"),
        ("anchored:x", "not a number"),
        ("anchored:6:heuristic", "checkpoint"),
    ],
)
def test_a_bad_short_spec_is_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, GAME, 0)


def test_a_negative_or_missing_weight_is_refused():
    policy, heuristic = make_agent("heisse_karten_v0", GAME, 0), make_agent("heuristic", GAME, 0)
    for weight in (-1.0, math.nan):
        with pytest.raises(ValueError, match="weight"):
            AnchoredAgent(policy, heuristic, weight)


@pytest.mark.slow  # matplotlib
def test_the_benchmark_writes_its_table_json_and_plot(anchor, tmp_path):
    argv = ["--games", "8", "--weights", "0", "--players", "2", "3", "--workers", "1"]
    argv += ["--opponents", "heuristic", "card-counter", "--out", str(tmp_path), "--quiet"]
    assert anchor.main(argv) == 0
    stem = tmp_path / "heuristic_anchor_heisse_karten_v0"
    rows = json.loads(stem.with_suffix(".json").read_text())["rows"]
    assert {(r["players"], r["weight"], r["opponent"]) for r in rows} == {
        (n, w, o) for n in (2, 3) for w in (0, "inf") for o in ("heuristic", "card-counter")
    }
    for r in rows:
        assert r["low"] <= r["share"] <= r["high"] and r["games"] >= 8
        if r["weight"] == "inf" and r["opponent"] == "heuristic":
            # the heuristic against copies of itself, seats rotated: exactly the even share
            assert r["share"] == pytest.approx(1 / r["players"])
    text = stem.with_suffix(".md").read_text()  # the heuristic is played as the reference
    assert "**3 players**" in text and "| inf |" in text and "| +2.0 |" in text
    assert stem.with_suffix(".png").stat().st_size > 0
