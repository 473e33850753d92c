""":class:`~hot_envs.envs.vector.VectorSingleAgentEnv` as a stable-baselines3 ``VecEnv``
(docs/environments.md, "With stable-baselines3"). Needs stable-baselines3.

``SB3VectorEnv`` hands the learner seats of all the games to SB3 as one ``VecEnv``, so
sb3-contrib's ``MaskablePPO`` trains on it unchanged: ``env_method("action_masks")`` gives each
game's mask, and a finished game's info holds ``terminal_observation`` and
``TimeLimit.truncated`` as ``DummyVecEnv`` gives them, plus the final keys of ``SingleAgentEnv``
(``opponents``, ``win_share``, ``is_success``, …); other steps' infos are empty.
``env_method``, ``get_attr`` and ``set_attr`` reach the one vectorised env behind all indices
(``env_method("set_opponent", name, agent, weight)`` changes the shared pool once) and give one
result per index. ``MaskablePPO(seed=s)`` seeds the next ``reset`` through ``seed(s)``.
``workers=K`` (K > 1) splits the games over this process and ``K − 1`` worker processes
(:class:`~hot_envs.envs.vector_workers.SubprocVectorSingleAgentEnv`, worker ``k`` seeded with
``s + k``); each index then gets the answer of the worker that holds its game.

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

from hot_envs.envs.vector import VectorSingleAgentEnv
from hot_envs.envs.vector_workers import SubprocVectorSingleAgentEnv


class SB3VectorEnv(VecEnv):
    """A stable-baselines3 ``VecEnv`` over one :class:`VectorSingleAgentEnv` (module docstring):
    pass the env, or its keyword arguments to make one — in this process, or with ``workers``
    > 1 split over that many processes."""

    def __init__(
        self,
        env: VectorSingleAgentEnv | SubprocVectorSingleAgentEnv | None = None,
        *,
        workers: int = 1,
        **kwargs: Any,
    ) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, not {workers!r}")
        if env is not None and (kwargs or workers != 1):
            raise ValueError("pass a VectorSingleAgentEnv or its arguments, not both")
        if env is None:
            env = (
                VectorSingleAgentEnv(**kwargs)
                if workers == 1
                else SubprocVectorSingleAgentEnv(workers=workers, **kwargs)
            )
        self.env = env
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
        if attr_name == "action_masks":
            return [self.action_masks] * len(self._indices(indices))
        if isinstance(self.env, SubprocVectorSingleAgentEnv):
            return self._per_index(self.env.get_attr(attr_name), indices)
        return self._per_index([getattr(self.env, attr_name)], indices)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if isinstance(self.env, SubprocVectorSingleAgentEnv):
            self.env.set_attr(attr_name, value)
        else:
            setattr(self.env, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks``: one mask per index; any other method of the vectorised env is
        called once (in every worker) and its result repeated per index (the result of the
        worker that holds the index's game)."""
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in self._indices(indices)]
        if isinstance(self.env, SubprocVectorSingleAgentEnv):
            results = self.env.call(method_name, *method_args, **method_kwargs)
        else:
            results = (getattr(self.env, method_name)(*method_args, **method_kwargs),)
        return self._per_index(results, indices)

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: VecEnvIndices) -> Sequence[int]:
        return list(self._get_indices(indices))

    def _per_index(self, results: Sequence[Any], indices: VecEnvIndices) -> list[Any]:
        """One of ``results`` (the env's one, or one per worker) for each index: its game's."""
        if isinstance(self.env, SubprocVectorSingleAgentEnv):
            return [results[self.env.worker_of[i]] for i in self._indices(indices)]
        return [results[0]] * len(self._indices(indices))
