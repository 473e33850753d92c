"""Positions for the agent tests."""

from __future__ import annotations

import numpy as np

from hot_envs.agents.base import observe
from hot_envs.core.games import get_game


def decisions(game: str, count: int, seed: int = 0) -> list[tuple[dict, dict, np.ndarray]]:
    """``count`` decisions with two legal moves or more from random play at every table size:
    (observation, view, legal actions)."""
    spec = get_game(game)
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        options = spec.options(int(rng.integers(spec.min_players, spec.max_players + 1)))
        state = spec.engine.State.new(seed=rng, **options)
        while not state.is_terminal() and len(found) < count:
            seat = state.current_player
            legal = np.asarray(state.legal_actions())
            if len(legal) > 1:
                found.append((observe(spec.engine, state, seat), state.view(seat), legal))
            state.apply(int(rng.choice(legal)))
    return found
