"""PFSP over the fixed opponents (hot_envs.agents.opponents.League, ``pfsp_fixed``): the pool's
share is split by configured weight · (1 − score)², so the opponents the learner handles worst come
most."""

from __future__ import annotations

import pytest

from hot_envs.agents.opponents import FixedOpponent, League


def pool(**kwargs) -> League:
    fixed = [FixedOpponent("heuristic", 2.0), FixedOpponent("low-dumper"), FixedOpponent("random")]
    return League("heisse-karten", fixed, snapshot_share=0.25, **kwargs)


def test_without_scores_the_configured_weights_hold():
    league = pool(pfsp_fixed=True)
    league.add_snapshot("s1")
    weights = league.weights()
    assert weights["heuristic"] == pytest.approx(0.75 * 2 / 4)
    assert weights["low-dumper"] == pytest.approx(weights["random"]) == pytest.approx(0.75 / 4)
    assert sum(weights.values()) == pytest.approx(1.0)


def test_the_opponents_that_beat_the_learner_get_more_of_the_pool_share():
    league = pool(pfsp_fixed=True)
    league.add_snapshot("s1")
    league.scores.update({"heuristic": 0.6, "low-dumper": 0.3, "random": 0.95})
    weights = league.weights()
    raw = {"heuristic": 2 * 0.4**2, "low-dumper": 0.7**2, "random": 0.05**2}
    for name, value in raw.items():
        assert weights[name] == pytest.approx(0.75 * value / sum(raw.values()))
    assert weights["s1"] == pytest.approx(0.25)
    assert weights["low-dumper"] > weights["heuristic"] > weights["random"]


def test_off_the_scores_change_nothing():
    league = pool()
    league.scores.update({"heuristic": 0.6, "low-dumper": 0.3, "random": 0.95})
    weights = league.weights()
    assert weights["heuristic"] == pytest.approx(0.5) and weights["random"] == pytest.approx(0.25)


def test_a_pool_the_learner_always_beats_falls_back_to_the_weights():
    league = pool(pfsp_fixed=True)
    league.scores.update({"heuristic": 1.0, "low-dumper": 1.0, "random": 1.0})
    assert league.weights()["heuristic"] == pytest.approx(0.5)
