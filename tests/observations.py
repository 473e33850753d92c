"""Learner observations from random play, shared by the checkpoint tests."""

from __future__ import annotations

import numpy as np

from hot_envs.single_agent import SingleAgentEnv


def random_observations(game: str, players, n: int, seed: int = 0) -> list[dict[str, np.ndarray]]:
    """``n`` learner observation dicts (with int8 masks) from random play of ``game`` with
    ``players`` (a player count list, or None), seeded."""
    env = SingleAgentEnv(game, players=players, seed=seed)
    rng = np.random.default_rng(seed)
    observation, _ = env.reset()
    result = []
    while len(result) < n:
        mask = env.action_masks()
        result.append({"observation": observation, "action_mask": mask.astype(np.int8)})
        observation, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            observation, _ = env.reset()
    return result
