"""The opponent suite's styles deciding in arrays (``ArrayStyle`` of
:mod:`hot_envs.agents.array_luft` and :mod:`hot_envs.agents.array_karten`) against their own
``act`` on each game's view, ``State.from_dict(games.state_dict(g)).view(seat)``: the same
action, decision after decision, and the same draws from the agent's generator (its ties,
``epsilon``'s random moves), on positions reached by the styles' own play and at random."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs import batched
from hot_envs.agents import STYLES, make_agent
from hot_envs.agents.array_karten import ArrayStyle as KartenStyle
from hot_envs.agents.array_luft import ArrayStyle as LuftStyle
from hot_envs.agents.arrays import as_array_agent
from hot_envs.agents.base import observe
from hot_envs.core.games import get_game

CASES = [
    (game, style, players)
    for style, (game, _, _) in STYLES.items()
    for players in ((2,) if game == "heisse-luft" else (2, 4, 6))
]


def compare(game: str, style: str, players: int, num_games: int, steps: int, seed: int) -> int:
    """Play ``num_games`` games for ``steps`` steps (each game's mover by the style through
    ``act_arrays`` or at random) and check, at every step, two seeded styles (ε 0 and 0.2)
    deciding every game in progress in a shuffled order against twins deciding one by one.
    Returns the decisions compared."""
    options = {} if game == "heisse-luft" else {"num_players": players}
    games = batched.make(game, num_games, **options)
    games.reset(seed=seed)
    engine = get_game(game).engine
    rng = np.random.default_rng(seed)
    driver = as_array_agent(game, make_agent(f"{style}:0.1", game, seed))
    specs = [style, f"{style}:0.2"]
    mine = [as_array_agent(game, make_agent(s, game, seed + i)) for i, s in enumerate(specs)]
    twins = [make_agent(s, game, seed + i) for i, s in enumerate(specs)]
    compared = 0
    for _ in range(steps):
        which = rng.permutation(np.flatnonzero(~games.done))
        if not len(which):
            games.reset_done()
            continue
        chosen = [agent.act_arrays(games, which) for agent in mine]
        for j, g in enumerate(which.tolist()):
            state = engine.State.from_dict(games.state_dict(g))
            seat = state.current_player
            for agent, twin in zip(chosen, twins, strict=True):
                expected = twin.act(observe(engine, state, seat), state.view(seat))
                assert agent[j] == expected, (style, g, games.state_dict(g))
            compared += 1
        actions = games.sample_legal(rng)
        styled = np.sort(which[rng.random(len(which)) < 0.7])
        if len(styled):
            actions[styled] = driver.act_arrays(games, styled)
        games.step(actions)
        games.reset_done()
    return compared


@pytest.mark.parametrize(("game", "style", "players"), CASES)
def test_act_arrays_plays_what_act_plays_with_the_same_draws(game, style, players):
    assert compare(game, style, players, num_games=24, steps=48, seed=3) > 1000


@pytest.mark.slow
@pytest.mark.parametrize(("game", "style", "players"), CASES)
def test_many_more_positions(game, style, players):
    assert compare(game, style, players, num_games=64, steps=150, seed=11) > 5_000


def test_each_style_decides_through_its_arrays_and_only_exactly_that_class():
    for style, (game, _, _) in STYLES.items():
        agent = make_agent(style, game, 0)
        wrapper = LuftStyle if game == "heisse-luft" else KartenStyle
        assert isinstance(as_array_agent(game, agent), wrapper)
        subclass = type("Sub", (type(agent),), {})
        with pytest.raises(TypeError):
            wrapper(subclass(0))
