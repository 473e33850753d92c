"""The game descriptions (hot_envs.core.games): names, player ranges and action counts agree with
the engines and environments, and ``Game.options`` checks a player count once for every caller."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.core.games import GAMES, get_game


@pytest.mark.parametrize("game", GAMES.values(), ids=lambda g: g.name)
def test_a_description_matches_its_engine_and_environment(game) -> None:
    for players in game.players:
        state = game.engine.State.new(seed=0, **game.options(players))
        assert state.num_players == players
    env = game.env.env(**game.options(game.max_players))
    assert env.action_space(env.possible_agents[0]).n == game.num_actions
    assert get_game(game.name.replace("-", "_") + "_v0") is game


def test_player_ranges() -> None:
    assert get_game("heisse-luft").players == range(2, 3)
    assert get_game("heisse-karten").players == range(2, 7)  # HK-2.1
    assert get_game("heisse-karten").options(np.int64(3)) == {"num_players": 3}
    assert get_game("heisse-luft").options(2, {"turn_limit": 50}) == {"turn_limit": 50}
    assert get_game("heisse-luft").options() == {}


@pytest.mark.parametrize(
    ("name", "players", "message"),
    [
        ("heisse-luft", 3, "Heiße Luft is a 2-player game, not 3$"),
        ("heisse-karten", 7, "Heiße Karten is a game for 2–6 players, not 7$"),
        ("heisse-karten", 1, "2–6 players"),
        ("heisse-karten", True, "2–6 players"),
        ("heisse-karten", "4", "2–6 players"),
        ("heisse-karten", 4.0, "2–6 players"),
    ],
)
def test_a_player_count_outside_the_range_is_refused(name, players, message) -> None:
    options = {"rounds": 2}
    with pytest.raises(ValueError, match=message):
        get_game(name).options(players, options)
    assert options == {"rounds": 2}
