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
