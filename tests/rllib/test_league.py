"""The league's policy mapping: main in exactly one seat per episode, rotating over seats;
opponents drawn from the snapshots and, with ``fixed_share``, the fixed agents."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra: pip install -e '.[rllib]'")

from hot_envs.rllib.league import MAIN, LeagueMapping, shared_mapping


def seats(mapping: LeagueMapping, episode_id: str) -> list[str]:
    episode = SimpleNamespace(id_=episode_id)
    return [mapping(f"player_{i}", episode) for i in range(mapping.num_players)]


def test_main_sits_once_per_episode_in_every_seat_over_episodes() -> None:
    mapping = LeagueMapping(4, snapshots=("snapshot_0", "snapshot_1"), fixed=("fixed_0",))
    main_seats = Counter()
    for e in range(400):
        modules = seats(mapping, f"episode{e}")
        assert modules.count(MAIN) == 1
        assert set(modules) - {MAIN} <= {"snapshot_0", "snapshot_1", "fixed_0"}
        assert seats(mapping, f"episode{e}") == modules  # the same answer when asked again
        main_seats[modules.index(MAIN)] += 1
    assert set(main_seats) == {0, 1, 2, 3} and min(main_seats.values()) > 70


@pytest.mark.parametrize("share", [0.0, 0.3, 1.0])
def test_fixed_share_is_the_chance_of_a_fixed_opponent(share: float) -> None:
    mapping = LeagueMapping(2, snapshots=("snapshot_0",), fixed=("fixed_0",), fixed_share=share)
    opponents = Counter(m for e in range(1000) for m in seats(mapping, str(e)) if m != MAIN)
    assert opponents["fixed_0"] / 1000 == pytest.approx(share, abs=0.05)


def test_without_snapshots_fixed_agents_or_main_fill_the_seats() -> None:
    assert set(seats(LeagueMapping(3, fixed=("fixed_0",)), "e")) == {MAIN, "fixed_0"}
    assert seats(LeagueMapping(2), "e") == [MAIN, MAIN]
    assert shared_mapping("player_1", None) == MAIN
