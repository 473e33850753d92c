"""The uniform random agent: every legal action equally likely, from a seeded numpy Generator.

The baseline every other agent is measured against (docs/benchmarks.md). It works for both games
and any seat: the legal actions come from the view (or the observation's action mask).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hot_envs.agents.base import legal_actions
from hot_envs.core.engine import Seed, make_rng


class RandomAgent:
    """Picks a legal action uniformly at random. Same seed ⇒ same actions."""

    def __init__(self, seed: Seed = None) -> None:
        self.seed = seed
        self.rng = make_rng(seed)

    def reset(self) -> None:
        """Nothing to forget between games; the generator runs on (seeded once)."""

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        legal = legal_actions(observation, view)
        return int(legal[self.rng.integers(len(legal))])

    def act_arrays(self, games: Any, which: np.ndarray) -> np.ndarray:
        """The seat to move's action in games ``which`` of an array engine
        (:mod:`hot_envs.agents.arrays`): what :meth:`act` plays there, decision after decision,
        with the same draws."""
        legal = games.legal_mask()[which]
        counts = legal.sum(axis=1)
        picks = [int(self.rng.integers(count)) for count in counts.tolist()]
        # the pick-th legal action of each row: where the running count passes it
        running = legal.cumsum(axis=1)
        return (running <= np.asarray(picks, dtype=np.int64)[:, None]).sum(axis=1)
