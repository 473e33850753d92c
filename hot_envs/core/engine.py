"""The engine contract both games implement, written out as the :class:`GameState` protocol.

The environment base (:mod:`hot_envs.envs.env_base`), the agents and the arena use engines only
through this protocol, so everything above the engine layer is written once for both games.
:class:`SeatViews` hands many seats' views to code that reads them, each made only when read.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol, overload

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


class SeatViews(Sequence[dict]):
    """The views of many seats, each made only when it is read: ``views[j]`` is
    ``states[j].view(seats[j])`` (made on first access, then kept). Code that reads a few facts
    of many views asks for them without the dicts: :meth:`legal_actions` (the view's
    ``"legal_actions"``) and :meth:`compact` (the engine's compact form of the view, where it
    has one: ``State.compact_view``, which holds only what the view holds)."""

    __slots__ = ("_states", "_seats", "_views")

    def __init__(self, states: Sequence[GameState], seats: Sequence[int]) -> None:
        if len(states) != len(seats):
            raise ValueError(f"{len(seats)} seats for {len(states)} states")
        self._states, self._seats = list(states), [int(seat) for seat in seats]
        self._views: list[dict | None] = [None] * len(self._states)

    def __len__(self) -> int:
        return len(self._states)

    @overload
    def __getitem__(self, j: int) -> dict: ...

    @overload
    def __getitem__(self, j: slice) -> SeatViews: ...

    def __getitem__(self, j: int | slice) -> dict | SeatViews:
        if isinstance(j, slice):
            return self.take(range(len(self))[j])
        view = self._views[j]
        if view is None:
            view = self._views[j] = self._states[j].view(self._seats[j])
        return view

    def __iter__(self) -> Iterator[dict]:
        return map(self.__getitem__, range(len(self._views)))

    def take(self, indices: Iterable[int]) -> SeatViews:
        """The views ``j`` of ``indices``, in that order (those made already are kept)."""
        indices = list(indices)
        taken = SeatViews([self._states[j] for j in indices], [self._seats[j] for j in indices])
        taken._views = [self._views[j] for j in indices]
        return taken

    def legal_actions(self, j: int) -> list[int]:
        """``views[j]["legal_actions"]``: the seat's legal actions if it is to move, else none."""
        state = self._states[j]
        return state.legal_actions() if state.current_player == self._seats[j] else []

    def compact(self, j: int) -> Any:
        """``states[j].compact_view(seats[j])``: view ``j``'s facts in the engine's compact form
        (``None`` where the state has no ``compact_view``)."""
        compact_view = getattr(self._states[j], "compact_view", None)
        return None if compact_view is None else compact_view(self._seats[j])
