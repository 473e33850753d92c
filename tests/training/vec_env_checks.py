"""Checks shared by the tests of the SB3 vector envs (in one process and on worker processes)."""

from __future__ import annotations

import numpy as np


def step_and_check_final_infos(envs, rng: np.random.Generator, steps: int) -> int:
    """Step Heiße Luft ``envs`` with random legal actions; check every step's rewards, dones and
    infos as ``DummyVecEnv`` gives them; return how many games finished."""
    finished = 0
    for _ in range(steps):
        masks = np.stack(envs.env_method("action_masks"))
        assert masks.dtype == bool and masks.any(axis=1).all()
        _, rewards, dones, infos = envs.step((rng.random(masks.shape) * masks).argmax(axis=1))
        assert rewards.dtype == np.float32 and dones.dtype == bool
        for done, info in zip(dones, infos, strict=True):
            assert ("terminal_observation" in info) == done
            if done:
                finished += 1
                assert info["terminal_observation"].shape == (644,)
                assert info["TimeLimit.truncated"] == (info["returns"] == [0.0, 0.0])
                assert {"opponents", "win_share", "num_players", "is_success"} <= set(info)
    return finished
