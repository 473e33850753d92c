"""The league's policy mapping: main in exactly one seat per episode, rotating over seats;
opponents drawn with the shared league's weights (``fixed_share`` → fixed agents); and the
callback's roster, kept in that league."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace
from typing import TYPE_CHECKING

import pytest

from hot_envs.agents.opponents import FixedOpponent, League
from tests.rllib.conftest import needs_ray

if TYPE_CHECKING:
    from hot_envs.training.rllib_league import LeagueMapping

pytestmark = needs_ray


def seats(mapping: LeagueMapping, episode_id: str) -> list[str]:
    episode = SimpleNamespace(id_=episode_id)
    return [mapping(f"player_{i}", episode) for i in range(mapping.num_players)]


def opponent_shares(mapping: LeagueMapping, episodes: int) -> dict[str, float]:
    """How often each module sat in a non-main seat, over ``episodes`` episode ids."""
    from hot_envs.training.rllib_league import MAIN

    drawn = Counter(m for e in range(episodes) for m in seats(mapping, f"ep{e}") if m != MAIN)
    return {module: n / drawn.total() for module, n in drawn.items()}


def league_of(fixed: int, snapshots: int, fixed_share: float = 0.2) -> League:
    from hot_envs.training.rllib_league import make_league

    league = make_league("heisse-karten", fixed, fixed_share, max_snapshots=5)
    for i in range(snapshots):
        league.add_snapshot(f"snapshot_{i}")
    return league


def test_main_sits_once_per_episode_in_every_seat_over_episodes() -> None:
    from hot_envs.training.rllib_league import MAIN, LeagueMapping

    mapping = LeagueMapping.of(4, league_of(fixed=1, snapshots=2))
    main_seats = Counter()
    for e in range(400):
        modules = seats(mapping, f"episode{e}")
        assert modules.count(MAIN) == 1
        assert set(modules) - {MAIN} <= {"snapshot_0", "snapshot_1", "fixed_0"}
        assert seats(mapping, f"episode{e}") == modules  # the same answer when asked again
        main_seats[modules.index(MAIN)] += 1
    assert set(main_seats) == {0, 1, 2, 3} and min(main_seats.values()) > 70


def test_the_seats_are_drawn_with_the_leagues_weights() -> None:
    from hot_envs.training.rllib_league import LeagueMapping

    league = League(
        "heisse-karten",
        [FixedOpponent("fixed_0", 3.0), FixedOpponent("fixed_1")],
        snapshot_share=0.4,
        pfsp=True,
    )
    for module_id in ("snapshot_0", "snapshot_1", "snapshot_2"):
        league.add_snapshot(module_id)
    league.record("snapshot_0", 0.9)
    league.record("snapshot_2", 0.1)
    weights = league.weights()
    shares = opponent_shares(LeagueMapping.of(3, league), 4000)
    assert set(shares) == set(weights)
    for module_id, weight in weights.items():
        assert shares[module_id] == pytest.approx(weight, abs=0.02), module_id


@pytest.mark.parametrize("share", [0.0, 0.3, 1.0])
def test_fixed_share_is_the_chance_of_a_fixed_opponent(share: float) -> None:
    from hot_envs.training.rllib_league import LeagueMapping

    league = league_of(fixed=2, snapshots=1, fixed_share=share)
    assert league.weights() == pytest.approx(
        {"fixed_0": share / 2, "fixed_1": share / 2, "snapshot_0": 1 - share}
    )
    shares = opponent_shares(LeagueMapping.of(2, league), 2000)
    fixed = shares.get("fixed_0", 0.0) + shares.get("fixed_1", 0.0)
    assert fixed == pytest.approx(share, abs=0.04)


def test_without_snapshots_fixed_agents_or_main_fill_the_seats() -> None:
    from hot_envs.training.rllib_league import MAIN, LeagueMapping, shared_mapping

    mapping = LeagueMapping.of(3, league_of(fixed=1, snapshots=0, fixed_share=0.1))
    assert opponent_shares(mapping, 200) == {"fixed_0": 1.0}
    mapping = LeagueMapping.of(3, league_of(fixed=0, snapshots=2, fixed_share=0.9))
    assert set(opponent_shares(mapping, 200)) == {"snapshot_0", "snapshot_1"}
    assert seats(LeagueMapping(2), "e") == [MAIN, MAIN]
    assert shared_mapping("player_1", None) == MAIN


def test_a_fixed_share_outside_zero_to_one_is_refused() -> None:
    from hot_envs.training.rllib_league import make_league

    with pytest.raises(ValueError, match="--fixed-share"):
        make_league("heisse-karten", 1, 1.5, max_snapshots=5)


class Algorithm:
    """What the callback calls on an RLlib algorithm, noting which modules come and go."""

    def __init__(self) -> None:
        from hot_envs.training.rllib_league import MAIN

        self.modules: list[str] = []
        self.mappings: list[LeagueMapping] = []
        self.learner_group = SimpleNamespace(
            get_weights=lambda module_ids: {MAIN: "weights"}, set_weights=lambda weights: None
        )
        self.env_runner_group = SimpleNamespace(sync_weights=lambda **kwargs: None)

    def add_module(self, module_id, new_agent_to_module_mapping_fn, **kwargs) -> None:
        self.modules.append(module_id)
        self.mappings.append(new_agent_to_module_mapping_fn)

    def remove_module(self, module_id, new_agent_to_module_mapping_fn) -> None:
        self.modules.remove(module_id)
        self.mappings.append(new_agent_to_module_mapping_fn)


def test_the_callback_keeps_its_roster_in_the_league() -> None:
    from hot_envs.training.rllib_league import LeagueCallback, make_league

    league = make_league("heisse-karten", 1, 0.2, max_snapshots=2)
    callback = LeagueCallback(league=league, num_players=3)
    assert callback.league is not league  # each instance its own copy
    algorithm = Algorithm()
    for _ in range(3):
        callback.add_snapshot(algorithm)
    assert algorithm.modules == ["snapshot_1", "snapshot_2"]  # the oldest dropped
    assert callback.league.snapshots == ["snapshot_1", "snapshot_2"]
    mapping = algorithm.mappings[-1]
    assert dict(mapping.opponents) == pytest.approx(
        {"fixed_0": 0.2, "snapshot_1": 0.4, "snapshot_2": 0.4}
    )
    state = callback.league_state()
    assert state == {"snapshots": ["snapshot_1", "snapshot_2"], "added": 3}

    resumed = LeagueCallback(league=league, num_players=3)
    algorithm = Algorithm()
    resumed.add_snapshot(algorithm)  # what building the algorithm does
    resumed.restore_league(algorithm, state)
    assert algorithm.modules == ["snapshot_1", "snapshot_2"]
    assert resumed.mapping == mapping and resumed.added == 3
    assert resumed.add_snapshot(algorithm) == "snapshot_3"
