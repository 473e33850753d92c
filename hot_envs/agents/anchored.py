"""A trained policy anchored to another agent's move at decision time.

:class:`AnchoredAgent` scores each legal move by a checkpoint's logit plus ``weight`` on the move
the prior agent (the heuristic) would play, and plays the best: the product of the two policies,
the checkpoint's distribution times ``exp(weight)`` on the prior's move, as KL-regularised
policies (piKL) are. Weight 0 is the checkpoint itself, ``inf`` the prior; in between the
checkpoint leaves the prior's move only where its own best logit is more than ``weight`` higher.
``benchmarks/heuristic_anchor.py`` measures it against the opponent suite, and it serves as a
teacher to clone (agent spec ``anchored[:WEIGHT[:POLICY]]``:
``training/configs/heisse_karten_anchored_scorer.toml``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hot_envs.agents.base import Agent
from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.core.games import get_game

WEIGHT = 6.0  # the default weight on the prior's move: the shipped Heiße Karten policy's teacher


class AnchoredAgent:
    """``policy``'s logits plus ``weight`` on ``prior``'s move; the argmax of the sum (module
    docstring). ``ValueError`` for a weight below 0 or nan."""

    def __init__(self, policy: CheckpointAgent, prior: Agent, weight: float) -> None:
        if not weight >= 0:
            raise ValueError(f"weight must be >= 0 or inf, not {weight!r}")
        self.policy, self.prior, self.weight = policy, prior, weight
        self.name = f"anchored:{weight:g}"

    def reset(self) -> None:
        for agent in (self.policy, self.prior):
            getattr(agent, "reset", lambda: None)()

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any] | None = None) -> int:
        legal = np.asarray(observation["action_mask"], dtype=bool).nonzero()[0]
        if len(legal) == 1:
            return int(legal[0])
        prior = int(self.prior.act(observation, view))
        if math.isinf(self.weight):
            return prior
        logits = self.policy.legal_logits(observation, view, legal)
        logits = logits - logits.max() + self.weight * (legal == prior)
        return int(legal[logits.argmax()])


def anchored(
    game: str,
    seed: int | None = None,
    policy: str | None = None,
    weight: float = WEIGHT,
    prior: str = "heuristic",
) -> AnchoredAgent:
    """The agent spec ``anchored[:WEIGHT[:POLICY]]`` (``hot_envs.agents.anchored:anchored`` with
    the defaults): ``policy`` (a checkpoint spec; default: the game's shipped checkpoint) anchored
    to ``prior`` with ``weight``. ``ValueError`` if ``policy`` names no checkpoint."""
    from hot_envs.agents import make_agent

    policy = policy or get_game(game).checkpoint
    network = make_agent(policy, game, seed)
    if not isinstance(network, CheckpointAgent):
        raise ValueError(f"the anchored policy must be a checkpoint, not {policy!r}")
    return AnchoredAgent(network, make_agent(prior, game, seed), weight)
