"""The engine contract both games implement, written out as the :class:`GameState` protocol.

The environment base (:mod:`hot_envs.envs.env_base`), the agents and the arena use engines only
through this protocol, so everything above the engine layer is written once for both games.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from hot_envs.core.chance import Stream

Seed = int | np.random.Generator | None


@runtime_checkable
class ChanceSource(Protocol):
    """Where an engine takes its chance events from: the two draws both engines make.

    ``permutation(n)`` is a shuffle of ``range(n)``, a sequence of ints (the deals of HL-2.2,
    HL-2.4 and HK-2.2, the reshuffle of HL-3.5); ``integers(n)`` one of ``range(n)`` (a random
    first seat, HL-2.5 and HK-2.4). An int seed gives a :class:`~hot_envs.core.chance.Stream`,
    the source the array engines share (:mod:`hot_envs.core.chance`); a numpy ``Generator`` is
    one too, and OpenSpiel's adapter passes the outcomes its chance nodes chose
    (docs/openspiel.md).
    """

    def permutation(self, n: int) -> Sequence[int]: ...

    def integers(self, n: int) -> int | np.integer: ...


EngineSeed = int | ChanceSource | None  # what an engine's ``State.new`` and ``from_dict`` take


def make_rng(seed: Seed) -> np.random.Generator:
    """A numpy Generator from an int seed, an existing Generator (used as is) or None."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | np.integer)):
        raise TypeError(f"seed must be an int, a numpy Generator or None, not {seed!r}")
    return np.random.default_rng(seed)


def make_chance(seed: EngineSeed) -> ChanceSource:
    """An engine's chance source: the :class:`~hot_envs.core.chance.Stream` of an int seed (of
    fresh entropy for ``None``), else ``seed`` as is (a numpy Generator or any other
    :class:`ChanceSource`); a ``TypeError`` or ``ValueError`` for anything else."""
    if isinstance(seed, np.random.Generator | Stream):
        return seed
    if seed is None or isinstance(seed, int | np.integer):
        return Stream.seeded(seed)
    if isinstance(seed, ChanceSource):
        return seed
    raise TypeError(f"seed must be an int, a numpy Generator or None, not {seed!r}")


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


def copy_chance(source: ChanceSource) -> ChanceSource:
    """An independent chance source in the same state: a copy of a
    :class:`~hot_envs.core.chance.Stream` or a numpy Generator; any other source (one of the
    caller's own, such as OpenSpiel's chosen outcomes) as it is, the caller's to keep apart."""
    if isinstance(source, Stream):
        return source.copy()
    if isinstance(source, np.random.Generator):  # a new bit generator: cheaper than deepcopy
        bit_generator = type(source.bit_generator)()
        bit_generator.state = source.bit_generator.state
        return np.random.Generator(bit_generator)
    return source


class GameState(Protocol):
    """What every engine ``State`` offers."""

    num_players: int
    current_player: int | None

    @classmethod
    def new(cls, seed: EngineSeed = None, **options: Any) -> GameState: ...

    @classmethod
    def from_dict(cls, d: dict, seed: EngineSeed = None) -> GameState: ...

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
