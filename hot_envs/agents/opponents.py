"""The opponents of the single-agent environments: :class:`OpponentPool` and its entries.

Every seat but the learner's is played by an agent drawn from a pool: each new game draws, for
every such seat independently, one entry with probability ``weight / total weight``. An entry is
an agent (used as is), an agent spec for :func:`hot_envs.agents.make_agent` or a factory
``f(seed) -> agent``; specs and factories are built on first use, seeded from the env's
generator.

**The self-play league** (:class:`League`) is the roster and sampling rule of both training
backends: fixed opponents with weights, and snapshots of the learner. A share
``snapshot_share`` of the draws goes to the snapshots, split evenly over the newest
``max_snapshots``, the rest to the fixed opponents by weight; without snapshots (or fixed
weight) the other side gets every draw (:meth:`League.weights`).

*Prioritised fictitious self-play* (``pfsp``, AlphaStar's rule): the snapshot share is split
∝ (1 − score)², score the learner's recent score against the snapshot (:meth:`League.record`;
½ before any); with ``pfsp_fixed`` the fixed opponents' share too, each ∝ weight · (1 − score)².

*Curriculum.* A fixed opponent with ``curriculum`` (meant for ``heuristic``) plays as
``heuristic:ε``; :meth:`League.adapt_epsilon` lowers ε by ``epsilon_step`` after a window with
the learner's score above ``win_high`` and raises it below ``win_low`` (within
``[epsilon_min, 1]``), so the learner keeps meeting an opponent it beats now and then.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

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
    """Weighted opponents for the non-learner seats (module docstring), changed between episodes
    with :meth:`set` and :meth:`remove` (a league's snapshots and weights)."""

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

    def rebuild(self) -> None:
        """Build every entry anew on its next use (an agent object is kept), so that a seeded
        reset replays the opponents' moves too."""
        self._built.clear()

    def agent(self, name: str, game: str, rng: np.random.Generator) -> Agent:
        """Entry ``name`` as an agent, built on first use (seeded from ``rng``)."""
        if name not in self._built:
            source = self.entries[name].source
            seed = int(rng.integers(2**63))
            if isinstance(source, str):
                from hot_envs.agents.specs import make_agent

                self._built[name] = make_agent(source, game, seed)
            elif isinstance(source, type) or not callable(getattr(source, "act", None)):
                self._built[name] = source(seed)
            else:
                self._built[name] = source
        return self._built[name]


# --- The self-play league ------------------------------------------------------------------------


@dataclass
class FixedOpponent:
    """A configured opponent: an agent spec (:func:`hot_envs.agents.make_agent`) and a weight."""

    spec: str
    weight: float = 1.0
    curriculum: bool = False

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Raise ``ValueError`` for a negative weight (one a pool could not draw with)."""
        if not self.weight >= 0.0:
            raise ValueError(f"opponent {self.spec!r}: the weight must be ≥ 0, not {self.weight!r}")

    def name(self) -> str:
        return self.spec


@dataclass(kw_only=True)
class LeagueRules:
    """How a league draws (module docstring): keyword arguments of :class:`League` and the keys
    of a training config's ``[league]`` section."""

    snapshot_share: float = 0.5
    max_snapshots: int = 5
    epsilon_start: float = 0.5  # a curriculum opponent's ε at the start
    epsilon_min: float = 0.0
    epsilon_step: float = 0.1
    win_low: float = 0.2
    win_high: float = 0.6
    pfsp: bool = False  # snapshots weighted by how often they beat the learner
    pfsp_fixed: bool = False  # … and the fixed opponents too (their weights times that)


@dataclass
class League(LeagueRules):
    """Which opponents are in the pool, and with which weights (module docstring):
    ``League(game, fixed, **rules)`` with :class:`LeagueRules` as keywords."""

    game: str
    fixed: list[FixedOpponent]
    epsilon: float = field(init=False)  # a curriculum opponent's ε now
    snapshots: list[str] = field(default_factory=list, kw_only=True)
    scores: dict[str, float] = field(default_factory=dict, kw_only=True)  # recent, per opponent

    def __post_init__(self) -> None:
        self.epsilon = self.epsilon_start
        for opponent in self.fixed:
            opponent.check()  # (its weight may have been set since it was made)
        names = [o.name() for o in self.fixed]
        if len(set(names)) < len(names):
            raise ValueError(f"the league's fixed opponents need distinct names, not {names}")
        if not 0.0 <= self.snapshot_share <= 1.0:
            raise ValueError(f"snapshot_share must be in [0, 1], not {self.snapshot_share!r}")
        if self.max_snapshots < 1:
            raise ValueError(f"max_snapshots must be ≥ 1, not {self.max_snapshots!r}")

    def names(self) -> list[str]:
        """Every opponent in the league: the fixed ones, then the snapshots, oldest first."""
        return [o.name() for o in self.fixed] + self.snapshots

    def source(self, opponent: FixedOpponent) -> str:
        """The spec that plays ``opponent`` now (ε applied to a curriculum opponent)."""
        if opponent.curriculum:
            return f"{opponent.spec.partition(':')[0]}:{self.epsilon:.2f}"
        return opponent.spec

    def weights(self) -> dict[str, float]:
        """Every opponent's probability of being drawn for a seat (they sum to 1)."""
        fixed_total = sum(o.weight for o in self.fixed)
        if not self.snapshots:
            share = 0.0
        elif fixed_total <= 0:
            share = 1.0
        else:
            share = self.snapshot_share
        fixed = {o.name(): o.weight for o in self.fixed}
        if self.pfsp_fixed:
            hard = {n: w * (1.0 - self.scores.get(n, 0.5)) ** 2 for n, w in fixed.items()}
            if sum(hard.values()) > 0:
                fixed, fixed_total = hard, sum(hard.values())
        weights = {
            name: (1 - share) * (weight / fixed_total if fixed_total > 0 else 1 / len(fixed))
            for name, weight in fixed.items()
        }
        if self.pfsp:
            hardness = {name: (1.0 - self.scores.get(name, 0.5)) ** 2 for name in self.snapshots}
            total = sum(hardness.values())
            if total > 0:
                weights.update({name: share * h / total for name, h in hardness.items()})
                return weights
        weights.update({name: share / len(self.snapshots) for name in self.snapshots})
        return weights

    def initial_entries(self) -> list[tuple[str, str, float]]:
        """``(name, spec, weight)`` of the fixed opponents, for the envs' first pool."""
        weights = self.weights()
        return [(o.name(), self.source(o), weights[o.name()]) for o in self.fixed]

    def add_snapshot(self, name: str) -> list[str]:
        """Put snapshot ``name`` in; return the names of the snapshots that drop out."""
        self.snapshots.append(name)
        dropped = self.snapshots[: -self.max_snapshots]
        self.snapshots = self.snapshots[-self.max_snapshots :]
        for name in dropped:
            self.scores.pop(name, None)
        return dropped

    def record(self, name: str, score: float) -> None:
        """Note the learner's recent ``score`` in [0, 1] against opponent ``name`` (PFSP's
        weight)."""
        if name not in self.names():
            raise ValueError(f"no opponent {name!r} in the league: {self.names()}")
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a score against {name!r} must be in [0, 1], not {score!r}")
        self.scores[name] = float(score)

    def adapt_epsilon(self, score: float) -> bool:
        """Move ε after a window with learner ``score`` against the curriculum opponent."""
        old = self.epsilon
        if score > self.win_high:
            self.epsilon = max(self.epsilon_min, round(self.epsilon - self.epsilon_step, 4))
        elif score < self.win_low:
            self.epsilon = min(1.0, round(self.epsilon + self.epsilon_step, 4))
        return self.epsilon != old

    def state(self) -> dict[str, Any]:
        """What changes as the league goes on (ε, snapshots, scores), for :meth:`restore`."""
        return {
            "epsilon": self.epsilon,
            "snapshots": list(self.snapshots),
            "scores": dict(self.scores),
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Go on from :meth:`state` (only the snapshots are required: RLlib saves no more)."""
        self.snapshots = list(state["snapshots"])
        self.scores = dict(state.get("scores", self.scores))
        self.epsilon = state.get("epsilon", self.epsilon)
