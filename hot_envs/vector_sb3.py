""":class:`~hot_envs.vector.VectorSingleAgentEnv` as a stable-baselines3 ``VecEnv``.

``SB3VectorEnv`` hands the learner seats of all the games to SB3 as one ``VecEnv``, so
sb3-contrib's ``MaskablePPO`` trains on it unchanged: ``env_method("action_masks")`` gives each
game's mask (what ``MaskablePPO`` asks for), a finished game's info holds
``terminal_observation`` and ``TimeLimit.truncated`` as ``DummyVecEnv`` gives them, plus the
final keys of ``SingleAgentEnv`` (``opponents``, ``win_share``, ``is_success``, …) that the
league and SB3's success rate read; other steps' infos are empty. Needs stable-baselines3.

``env_method`` and ``get_attr``/``set_attr`` reach the one vectorised env behind all indices:
``env_method("set_opponent", name, agent, weight)`` changes the shared opponent pool once and
returns one result per index. ``MaskablePPO(seed=s)`` seeds it through ``seed(s)``; the next
``reset`` then seeds the games with ``s``. Wrap it in ``VecMonitor`` for episode statistics.

>>> from sb3_contrib import MaskablePPO
>>> from stable_baselines3.common.vec_env import VecMonitor
>>> envs = VecMonitor(SB3VectorEnv(game="heisse-luft", num_envs=32, opponents=["heuristic"]))
>>> model = MaskablePPO("MlpPolicy", envs, n_steps=64, seed=0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from hot_envs.vector import VectorSingleAgentEnv


class SB3VectorEnv(VecEnv):
    """A stable-baselines3 ``VecEnv`` over one :class:`VectorSingleAgentEnv` (module docstring):
    pass the env, or its keyword arguments to make one."""

    def __init__(self, env: VectorSingleAgentEnv | None = None, **kwargs: Any) -> None:
        if env is not None and kwargs:
            raise ValueError("pass a VectorSingleAgentEnv or its arguments, not both")
        self.env = env if env is not None else VectorSingleAgentEnv(**kwargs)
        self.render_mode = None
        self._actions: np.ndarray | None = None
        super().__init__(
            self.env.num_envs, self.env.single_observation_space, self.env.single_action_space
        )

    def reset(self) -> np.ndarray:
        """Deal new games in every slot (seeded by the last ``seed()``, if any)."""
        observations, _ = self.env.reset(seed=self._seeds[0])
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions, self._actions = self._actions, None
        observations, rewards, terminated, truncated, info = self.env.step(actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if "final_info" in info:
            final_obs, final_info = info["final_obs"], info["final_info"]
            for i in np.flatnonzero(dones).tolist():
                infos[i] = {
                    **final_info[i],
                    "terminal_observation": final_obs[i],
                    "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                }
        return observations, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, num_actions)`` bool masks of the learners' legal actions."""
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self if attr_name == "action_masks" else self.env, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks``: one mask per index; any other method of the vectorised env is
        called once and its result repeated per index."""
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: VecEnvIndices) -> Sequence[int]:
        return list(self._get_indices(indices))
