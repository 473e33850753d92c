"""RLModules for RLlib's new API stack.

:class:`MaskedPPOTorchRLModule` is PPO's actor-critic with two separate MLPs, ``pi`` and
``vf``, over our observation dict: it reads ``"observation"`` and ``"action_mask"`` and sets
the logits of illegal actions to the dtype's minimum, so sampling never picks them and their
probability is exactly 0 (``finfo.min`` rather than ``-inf``: no NaN in the softmax or entropy
when a terminal observation masks every action). ``pi`` is a plain ``Linear``/activation stack,
the same MLP :class:`hot_envs.agents.checkpoint.NumpyPolicy` runs, so export is a copy
(:mod:`hot_envs.training.rllib_export`).

``model_config`` keys: ``hidden`` (default ``[256, 256]``), ``activation`` (``"tanh"`` or
``"relu"``), ``torch_threads`` (set in every process that builds the module — env runners and
learners — since a learner update on a small machine is ~20× slower with torch's default
thread count), ``mask`` (default ``True``; ``False`` only for the negative-control test).

:class:`FixedAgentRLModule` has no network: it answers every observation with
``fixed_agent_action(index)``, and :class:`hot_envs.rllib.env.TurnBasedEnv` lets fixed agent
``index`` (e.g. the heuristic) move for that seat.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch import TorchRLModule

from hot_envs.rllib.env import fixed_agent_action

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
DEFAULT_MODEL_CONFIG = {"hidden": [256, 256], "activation": "tanh", "torch_threads": 1}


def mlp(sizes: list[int], activation: str) -> torch.nn.Sequential:
    """``Linear`` layers between ``sizes``, ``activation`` between them (none after the last)."""
    layers: list[torch.nn.Module] = []
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:], strict=False)):
        layers.append(torch.nn.Linear(n_in, n_out))
        if i < len(sizes) - 2:
            layers.append(ACTIVATIONS[activation]())
    return torch.nn.Sequential(*layers)


class MaskedPPOTorchRLModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """Masked actor-critic for PPO (module docstring)."""

    def setup(self) -> None:
        config = {**DEFAULT_MODEL_CONFIG, **(self.model_config or {})}
        if config["activation"] not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}")
        if config["torch_threads"]:
            torch.set_num_threads(int(config["torch_threads"]))
        space = self.observation_space
        if not hasattr(space, "spaces") or set(space.spaces) != {"observation", "action_mask"}:
            raise ValueError(
                'MaskedPPOTorchRLModule needs a Dict observation space with "observation" and '
                f'"action_mask" (the hot_envs observation), not {space}'
            )
        size = space["observation"].shape[0]
        hidden = [int(h) for h in config["hidden"]]
        self.activation = config["activation"]
        self.use_mask = bool(config.get("mask", True))
        self.pi = mlp([size, *hidden, self.action_space.n], self.activation)
        if not self.inference_only:
            self.vf = mlp([size, *hidden, 1], self.activation)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        observation = batch[Columns.OBS]
        logits = self.pi(observation["observation"])
        if self.use_mask:  # an illegal action's logit: the dtype's minimum (module docstring)
            illegal = observation["action_mask"] == 0
            logits = logits.masked_fill(illegal, torch.finfo(logits.dtype).min)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.vf(batch[Columns.OBS]["observation"]).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        return ["vf"]


class FixedAgentRLModule(RLModule):
    """Hands every move to fixed agent ``model_config["index"]`` of the env (module docstring)."""

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        size = len(batch[Columns.OBS]["observation"])
        action = fixed_agent_action(int(self.model_config["index"]))
        return {Columns.ACTIONS: np.full(size, action, dtype=np.int64)}

    def _forward_train(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError("a fixed agent is not trained")

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to compile (RLlib calls this on torch modules)."""
