"""The engine contract both games implement, written out as the :class:`GameState` protocol.

The environment base (:mod:`hot_envs.envs.env_base`), the agents and the arena use engines only
through this protocol, so everything above the engine layer is written once for both games.
"""

from __future__ import annotations

import operator
from typing import Any, Protocol

import numpy as np

Seed = int | np.random.Generator | None


def make_rng(seed: Seed) -> np.random.Generator:
    """A numpy Generator from an int seed, an existing Generator (used as is) or None."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | np.integer)):
        raise TypeError(f"seed must be an int, a numpy Generator or None, not {seed!r}")
    return np.random.default_rng(seed)


def as_int(value: Any) -> int | None:
    """``value`` as a plain int if it is an integer — an int, a numpy integer or a 0-d integer
    array (what ``env.action_space.sample()`` and ``np.argmax`` give) — else ``None``. Bools are
    not integers here, so ``True`` is never taken for action or seat 1."""
    if isinstance(value, bool | np.bool_):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent Generator in the same state (cheaper than deepcopy)."""
    bit_generator = type(rng.bit_generator)()
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


class GameState(Protocol):
    """What every engine ``State`` offers."""

    num_players: int
    current_player: int | None

    @classmethod
    def new(cls, seed: Seed = None, **options: Any) -> GameState: ...

    @classmethod
    def from_dict(cls, d: dict, seed: Seed = None) -> GameState: ...

    @classmethod
    def from_view(cls, view: dict, rng: Seed = None) -> GameState: ...

    def legal_actions(self) -> list[int]: ...

    def apply(self, action: int) -> None: ...

    def is_terminal(self) -> bool: ...

    def is_truncated(self) -> bool: ...

    def returns(self) -> list[float]: ...

    def clone(self) -> GameState: ...

    def to_dict(self) -> dict: ...

    def view(self, player: int) -> dict: ...

    def render(self, viewer: int | None = None) -> str: ...

    def action_name(self, action: int) -> str: ...
