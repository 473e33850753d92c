"""The self-play league both training backends share (hot_envs.agents.opponents.League): how draws
split between fixed opponents and snapshots, PFSP, the snapshot cap, resuming, and bad input."""

from __future__ import annotations

import json

import pytest

from hot_envs.agents.opponents import FixedOpponent, League


def league(*fixed: FixedOpponent, **kwargs) -> League:
    return League("heisse-karten", list(fixed), **kwargs)


def test_without_snapshots_the_fixed_opponents_share_every_draw_by_weight() -> None:
    pool = league(FixedOpponent("random"), FixedOpponent("heuristic", 3.0), snapshot_share=0.9)
    assert pool.weights() == pytest.approx({"random": 0.25, "heuristic": 0.75})


def test_snapshots_take_their_share_evenly() -> None:
    pool = league(FixedOpponent("random"), FixedOpponent("heuristic", 3.0), snapshot_share=0.4)
    pool.add_snapshot("s1")
    pool.add_snapshot("s2")
    assert pool.weights() == pytest.approx(
        {"random": 0.15, "heuristic": 0.45, "s1": 0.2, "s2": 0.2}
    )


def test_without_fixed_opponents_or_their_weight_the_snapshots_take_every_draw() -> None:
    alone = league(snapshot_share=0.3)
    alone.add_snapshot("s1")
    alone.add_snapshot("s2")
    assert alone.weights() == pytest.approx({"s1": 0.5, "s2": 0.5})
    idle = league(FixedOpponent("random", 0.0), snapshot_share=0.3)
    idle.add_snapshot("s1")
    assert idle.weights() == pytest.approx({"random": 0.0, "s1": 1.0})
    assert league().weights() == {}


def test_pfsp_meets_the_snapshots_the_learner_loses_to_most() -> None:
    pool = league(FixedOpponent("heuristic"), snapshot_share=0.5, pfsp=True)
    for name in ("old", "mid", "new"):
        pool.add_snapshot(name)
    pool.record("old", 0.9)
    pool.record("new", 0.2)  # "mid" has no score yet: ½
    hard = {"old": 0.1**2, "mid": 0.5**2, "new": 0.8**2}
    weights = pool.weights()
    for name, value in hard.items():
        assert weights[name] == pytest.approx(0.5 * value / sum(hard.values()))
    assert weights["heuristic"] == pytest.approx(0.5)


def test_pfsp_fixed_weighs_the_fixed_opponents_by_weight_and_score() -> None:
    pool = league(
        FixedOpponent("heuristic", 2.0),
        FixedOpponent("random"),
        snapshot_share=0.5,
        pfsp_fixed=True,
    )
    pool.add_snapshot("s1")
    pool.record("heuristic", 0.6)
    pool.record("random", 0.9)
    pool.record("s1", 0.0)  # snapshots keep an even split without pfsp
    hard = {"heuristic": 2.0 * 0.4**2, "random": 0.1**2}
    weights = pool.weights()
    for name, value in hard.items():
        assert weights[name] == pytest.approx(0.5 * value / sum(hard.values()))
    assert weights["s1"] == pytest.approx(0.5)


def test_the_oldest_snapshots_beyond_the_cap_drop_out_with_their_scores() -> None:
    pool = league(FixedOpponent("random"), max_snapshots=2, pfsp=True)
    assert pool.add_snapshot("s1") == [] and pool.add_snapshot("s2") == []
    pool.record("s1", 0.3)
    assert pool.add_snapshot("s3") == ["s1"]
    assert pool.snapshots == ["s2", "s3"] and "s1" not in pool.scores
    assert set(pool.weights()) == {"random", "s2", "s3"}


def test_state_and_restore_go_on_where_the_league_stood() -> None:
    def fresh() -> League:
        fixed = [FixedOpponent("random"), FixedOpponent("heuristic", curriculum=True)]
        return league(*fixed, snapshot_share=0.5, max_snapshots=3, pfsp=True, pfsp_fixed=True)

    pool = fresh()
    for name in ("s1", "s2", "s3", "s4"):
        pool.add_snapshot(name)
    pool.record("s3", 0.8)
    pool.record("heuristic", 0.1)
    assert pool.adapt_epsilon(0.9)
    state = json.loads(json.dumps(pool.state()))  # plain data, as a run's state file keeps it
    again = fresh()
    again.restore(state)
    assert again.snapshots == ["s2", "s3", "s4"]
    assert again.epsilon == pool.epsilon == 0.4
    assert again.source(again.fixed[1]) == "heuristic:0.40"
    assert again.weights() == pytest.approx(pool.weights())
    assert again.weights() != pytest.approx(fresh().weights())


def test_a_state_with_the_roster_alone_keeps_the_scores_and_epsilon() -> None:
    pool = league(FixedOpponent("random"), epsilon_start=0.3)
    pool.add_snapshot("s1")
    pool.record("random", 0.5)
    pool.restore({"snapshots": ["s7", "s8"], "added": 9})
    assert pool.snapshots == ["s7", "s8"]
    assert pool.scores == {"random": 0.5} and pool.epsilon == 0.3


@pytest.mark.parametrize("weight", [-0.5, float("nan")])
def test_a_negative_weight_is_refused(weight: float) -> None:
    with pytest.raises(ValueError, match="weight must be ≥ 0"):
        league(FixedOpponent("random", weight))
    opponent = FixedOpponent("random")
    opponent.weight = weight  # set after it was made: the league still sees it
    with pytest.raises(ValueError, match="weight must be ≥ 0"):
        league(opponent)


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_a_snapshot_share_outside_zero_to_one_is_refused(share: float) -> None:
    with pytest.raises(ValueError, match=r"snapshot_share must be in \[0, 1\]"):
        league(FixedOpponent("random"), snapshot_share=share)


def test_other_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="max_snapshots must be ≥ 1"):
        league(FixedOpponent("random"), max_snapshots=0)
    with pytest.raises(ValueError, match="distinct names"):
        league(FixedOpponent("random"), FixedOpponent("random", 2.0))


def test_a_result_against_an_unknown_opponent_or_out_of_range_is_refused() -> None:
    pool = league(FixedOpponent("random"))
    pool.add_snapshot("s1")
    with pytest.raises(ValueError, match="no opponent 'heuristic' in the league"):
        pool.record("heuristic", 0.5)
    with pytest.raises(ValueError, match=r"must be in \[0, 1\]"):
        pool.record("s1", 1.2)
    assert pool.scores == {}
