"""The opponents of the single-agent environments: :class:`OpponentPool` and its entries.

Every seat but the learner's is played by an agent drawn from a pool: each new game draws, for
every such seat independently, one entry with probability ``weight / total weight``. An entry is
an agent (used as is, shared by the seats and games that draw it), an agent spec string for
:func:`hot_envs.agents.make_agent` or a factory ``f(seed) -> agent``; specs and factories are
built once, on first use, seeded from the drawing env's generator.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from hot_envs.agents.base import Agent

OpponentSource = Agent | str | Callable[[int], Agent]


@dataclass
class Opponent:
    """One pool entry: a ``name`` (shown in ``info`` and logs), its ``source`` and its weight."""

    name: str
    source: OpponentSource
    weight: float = 1.0


def _entry(item: Opponent | OpponentSource | tuple, index: int) -> Opponent:
    """An :class:`Opponent` from an entry, ``(source, weight)``, or a bare source."""
    if isinstance(item, Opponent):
        return item
    source, weight = item if isinstance(item, tuple) else (item, 1.0)
    name = source if isinstance(source, str) else f"{type(source).__name__}#{index}"
    return Opponent(name, source, float(weight))


class OpponentPool:
    """Weighted opponents for the non-learner seats (sampling rule in the module docstring).

    Entries can be changed between episodes — a self-play league adds snapshots and moves
    weights with :meth:`set` and :meth:`remove` (through ``VecEnv.env_method`` in training)."""

    def __init__(self, entries: Iterable[Opponent | OpponentSource | tuple] = ("random",)) -> None:
        self.entries: dict[str, Opponent] = {}
        self._built: dict[str, Agent] = {}
        for i, item in enumerate(entries):
            entry = _entry(item, i)
            self.set(entry.name, entry.source, entry.weight)
        if not self.entries:
            raise ValueError("an opponent pool needs at least one entry")

    def set(self, name: str, source: OpponentSource | None, weight: float = 1.0) -> None:
        """Add entry ``name`` or replace its source and weight (``source=None``: only the
        weight of an existing entry)."""
        if not weight >= 0.0:
            raise ValueError(f"opponent {name!r}: the weight must be ≥ 0, not {weight!r}")
        if source is None:
            if name not in self.entries:
                raise ValueError(f"no opponent {name!r} in the pool: {sorted(self.entries)}")
            self.entries[name].weight = float(weight)
            return
        is_agent = not isinstance(source, type) and callable(getattr(source, "act", None))
        if not (isinstance(source, str) or is_agent or callable(source)):
            raise ValueError(f"opponent {name!r}: {source!r} is no agent, spec or factory")
        self.entries[name] = Opponent(name, source, float(weight))
        self._built.pop(name, None)

    def remove(self, name: str) -> None:
        """Drop entry ``name`` (no error if it is not there)."""
        self.entries.pop(name, None)
        self._built.pop(name, None)

    def sample(self, rng: np.random.Generator) -> str:
        """The name of one entry, drawn with probability weight / total weight."""
        names = list(self.entries)
        weights = np.array([self.entries[n].weight for n in names], dtype=np.float64)
        if weights.sum() <= 0.0:
            raise ValueError("every opponent in the pool has weight 0")
        return names[rng.choice(len(names), p=weights / weights.sum())]

    def agent(self, name: str, game: str, rng: np.random.Generator) -> Agent:
        """Entry ``name`` as an agent, built on first use (seeded from ``rng``)."""
        if name not in self._built:
            source = self.entries[name].source
            seed = int(rng.integers(2**63))
            if isinstance(source, str):
                from hot_envs.agents import make_agent

                self._built[name] = make_agent(source, game, seed)
            elif isinstance(source, type) or not callable(getattr(source, "act", None)):
                self._built[name] = source(seed)
            else:
                self._built[name] = source
        return self._built[name]
