"""Helpers of the OpenSpiel tests: random play on pyspiel states, seeded."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyspiel

import hot_envs.openspiel  # noqa: F401 (registers the games)

# Every game string the tests cycle through: both games, every table size, a match.
GAME_STRINGS = (
    "python_heisse_luft",
    "python_heisse_luft(three_for_one=False,starting_player=-1,turn_limit=60)",
    "python_heisse_karten(players=2)",
    "python_heisse_karten(players=3,first_leader=-1)",
    "python_heisse_karten(players=4)",
    "python_heisse_karten(players=5,rounds=2)",
    "python_heisse_karten(players=6,reward_mode=score)",
)


def random_step(state: Any, rng: np.random.Generator) -> None:
    """One move: a chance outcome by its probability, or a uniformly random legal action."""
    if state.is_chance_node():
        outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probabilities)))
    else:
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))


def decision_states(game_string: str, seed: int, every: int = 1) -> Iterator[Any]:
    """Clones of every ``every``-th decision node of one random game, then its end."""
    rng = np.random.default_rng(seed)
    state = pyspiel.load_game(game_string).new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if not state.is_chance_node():
            if decisions % every == 0:
                yield state.clone()
            decisions += 1
        random_step(state, rng)
    yield state
