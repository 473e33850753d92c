"""Building Heiße Karten positions and random games for the tests."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from hot_envs.heisse_karten import State
from hot_envs.heisse_karten.facts import CARDS


def position(
    hands: list[list[int]],
    *,
    draw_pile: Sequence[int] = (),
    trick: Sequence[int] = (),
    leader: int = 0,
    set_aside: Sequence[int] = (),
    taken: list[list[int]] | None = None,
    **extra: Any,
) -> dict:
    """A state dict: ``trick`` lists cards in play order from ``leader``. Without ``taken``,
    every card not placed elsewhere lies in the last seat's taken pile."""
    n = len(hands)
    if taken is None:
        placed = {c for hand in hands for c in hand} | {*draw_pile, *trick, *set_aside}
        taken = [[] for _ in range(n)]
        taken[-1] = [card for card in CARDS if card not in placed]
    over = not any(hands) and not trick
    return {
        "game": "heisse_karten",
        "num_players": n,
        "current_player": None if over else (leader + len(trick)) % n,
        "leader": leader,
        "hands": [list(hand) for hand in hands],
        "draw_pile": list(draw_pile),
        "set_aside": list(set_aside),
        "trick": [[(leader + i) % n, card] for i, card in enumerate(trick)],
        "taken": [list(pile) for pile in taken],
        **extra,
    }


def random_states(state: State, seed: int) -> Iterator[State]:
    """``state`` and the state after every action of a seeded random game (the same object)."""
    rng = np.random.default_rng(seed)
    yield state
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
        yield state


def play_out(state: State, seed: int) -> State:
    """Plays ``state`` to the end at random and returns it."""
    for _ in random_states(state, seed):
        pass
    return state
