"""A trained ``MaskablePPO`` model and the checkpoint format (:mod:`hot_envs.agents.checkpoint`):
write a checkpoint's three files from a model (:func:`export_checkpoint`), take a numpy snapshot
of its policy (:func:`numpy_policy`, what the league's opponents and the DAgger rounds play), and
play a checkpoint's ``.zip`` through ``MaskablePPO.predict`` (:class:`SB3Agent`).

This is the torch side of the checkpoints; the library loads and plays them with numpy alone.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.torch_layers import FlattenExtractor

from hot_envs.agents.checkpoint import (
    NumpyPolicy,
    mlp_arrays,
    read_metadata,
    scores_actions,
    write_checkpoint,
)
from hot_envs.agents.features import SPECS, policy_input
from hot_envs.agents.scorer import ARCHITECTURE, NumpyScorer
from hot_envs.agents.shipped import find_checkpoint
from hot_envs.core.games import get_game
from hot_envs.training.policies import ActionScorerPolicy


def policy_layers(model: Any) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The policy MLP of a ``MaskablePPO`` model as numpy ``(weight, bias)`` layers, and its
    activation name. Only flat ``Box`` observations with SB3's ``FlattenExtractor`` fit."""
    policy = model.policy
    extractor = getattr(policy, "pi_features_extractor", policy.features_extractor)
    if not isinstance(extractor, FlattenExtractor) or len(policy.observation_space.shape) != 1:
        raise ValueError("only MLP policies on a flat Box observation can be exported")
    names = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    modules = [*policy.mlp_extractor.policy_net, policy.action_net]
    layers, activation = [], None
    for module in modules:
        if isinstance(module, torch.nn.Linear):
            weight = module.weight.detach().cpu().numpy().astype(np.float32)
            layers.append((weight, module.bias.detach().cpu().numpy().astype(np.float32)))
        elif type(module) in names and activation in (None, names[type(module)]):
            activation = names[type(module)]
        else:
            raise ValueError(f"cannot export the policy layer {module!r}")
    return layers, activation or "tanh"


def export_checkpoint(model: Any, path: str | Path, metadata: dict[str, Any]) -> Path:
    """Write ``NAME.zip``, ``NAME.npz`` and ``NAME.json`` for a trained ``MaskablePPO`` model
    (:func:`hot_envs.agents.checkpoint.write_checkpoint`).

    ``metadata`` needs ``game``; ``options``, ``training`` and ``evaluation`` are copied, the rest
    (format, observation layout, action count, network) is filled in. Returns the stem path."""
    game = get_game(metadata["game"])
    if is_action_scorer(model):
        arrays, activation = scorer_arrays(model)
        network = {
            "architecture": ARCHITECTURE,
            "state": _widths(arrays, "state"),
            "scorer": _widths(arrays, "scorer")[:-1],
            "activation": activation,
            "action_slots": SPECS[game.name].slots,
            "action_features": SPECS[game.name].size,
        }
        input_size = SPECS[game.name].input_size
    else:
        layers, activation = policy_layers(model)
        arrays = mlp_arrays(layers)
        network = {
            "architecture": "mlp",
            "hidden": [w.shape[0] for w, _ in layers[:-1]],
            "activation": activation,
        }
        input_size = game.engine.LAYOUT.size
    if actor_size(model) != input_size:
        raise ValueError(
            f"the model's observations {model.observation_space.shape} are not {game.name}'s"
        )
    return write_checkpoint(path, game.name, arrays, network, metadata, model=model.save)


def _widths(arrays: dict[str, np.ndarray], prefix: str) -> list[int]:
    """The output sizes of the layers ``prefix_0``, ``prefix_1``, …"""
    return [
        len(arrays[f"{prefix}_{i}.bias"])
        for i in range(len(arrays) // 2)
        if f"{prefix}_{i}.bias" in arrays
    ]


def scorer_arrays(model: Any) -> tuple[dict[str, np.ndarray], str]:
    """The actor of an ``ActionScorerPolicy`` model as checkpoint arrays, and its activation."""
    net = model.policy.mlp_extractor
    arrays: dict[str, np.ndarray] = {}
    activation = None
    names = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    for prefix, sequential in (("state", net.state_net), ("scorer", net.scorer_net)):
        linear = [m for m in sequential if isinstance(m, torch.nn.Linear)]
        for m in sequential:
            if type(m) in names:
                activation = names[type(m)]
        for i, m in enumerate(linear):
            arrays[f"{prefix}_{i}.weight"] = m.weight.detach().cpu().numpy().astype(np.float32)
            arrays[f"{prefix}_{i}.bias"] = m.bias.detach().cpu().numpy().astype(np.float32)
    return arrays, activation or "tanh"


def actor_size(model: Any) -> int:
    """The entries of the model's input its actor reads: all of them, unless its critic reads
    the full state after them (:mod:`hot_envs.training.policies`)."""
    return getattr(model.policy, "actor_size", model.observation_space.shape[0])


def is_action_scorer(model: Any) -> bool:
    """Whether ``model``'s policy is an action-scoring one (:mod:`hot_envs.training.policies`)."""
    return hasattr(model.policy.mlp_extractor, "scorer_net")


def numpy_policy(model: Any) -> NumpyPolicy | NumpyScorer:
    """The current policy of a ``MaskablePPO`` model in numpy (a snapshot)."""
    if is_action_scorer(model):
        arrays, activation = scorer_arrays(model)
        return NumpyScorer(model.policy.mlp_extractor.spec.game, arrays, activation)
    layers, activation = policy_layers(model)
    return NumpyPolicy(layers, activation)


def sb3_custom_objects(meta: dict[str, Any]) -> dict[str, Any]:
    """What ``MaskablePPO.load`` must be given for a checkpoint's ``.zip``: the action-scoring
    policy class by its current import path, whatever path the file was saved under."""
    if not scores_actions(meta["network"]):
        return {}
    return {"policy_class": ActionScorerPolicy}


def trained_model(checkpoint: str | Path, game: str) -> tuple[Any, dict[str, Any], Path]:
    """``checkpoint``'s training model (its ``.zip`` through ``MaskablePPO.load``, on the CPU), its
    metadata (checked to be ``game``'s) and the ``.zip``'s path."""
    meta = read_metadata(checkpoint, game)
    zip_path = find_checkpoint(checkpoint).with_suffix(".zip")
    model = MaskablePPO.load(zip_path, device="cpu", custom_objects=sb3_custom_objects(meta))
    return model, meta, zip_path


def load_scorer_model(checkpoint: str | Path, purpose: str) -> tuple[Any, dict[str, Any]]:
    """``checkpoint``'s training model (its ``.zip``) and metadata, for a tool that rebuilds an
    action scorer's network (``purpose`` names it in the errors): ``FileNotFoundError`` without
    the ``.zip``, ``ValueError`` for a model that does not score actions."""
    meta = read_metadata(checkpoint)
    zip_path = find_checkpoint(checkpoint).with_suffix(".zip")
    if not zip_path.is_file():
        raise FileNotFoundError(f"{zip_path} not found: {purpose} rebuilds the training model")
    model = MaskablePPO.load(zip_path, device="cpu", custom_objects=sb3_custom_objects(meta))
    if not is_action_scorer(model):
        raise ValueError(f"{checkpoint} is not an action scorer: {purpose} needs one")
    return model, meta


class SB3Agent:
    """The ``.zip`` of a checkpoint through ``MaskablePPO.predict`` (needs torch, sb3-contrib)."""

    def __init__(self, model: Any, metadata: dict[str, Any]) -> None:
        self.model = model
        self.metadata = metadata
        self.game = metadata["game"]

    @classmethod
    def load(cls, path: str | Path, game: str | None = None) -> SB3Agent:
        """The model of checkpoint ``path``, checked like :meth:`CheckpointAgent.load`."""
        stem = find_checkpoint(path)
        meta = read_metadata(stem, game)
        file = stem.with_suffix(".zip")
        if not file.is_file():
            raise FileNotFoundError(f"checkpoint model {file} not found (next to {stem}.json)")
        try:
            model = MaskablePPO.load(file, device="cpu", custom_objects=sb3_custom_objects(meta))
        except (zipfile.BadZipFile, ValueError, KeyError, RuntimeError) as error:
            raise ValueError(f"checkpoint model {file} is corrupt: {error}") from None
        return cls(model, meta)

    def reset(self) -> None:
        """Nothing to forget between games."""

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any] | None = None) -> int:
        mask = np.asarray(observation["action_mask"], dtype=bool)
        vector = observation["observation"]
        if scores_actions(self.metadata["network"]):
            if not view:
                raise ValueError("an action-scoring checkpoint needs the view to act")
            vector = policy_input(self.game, vector, view)
        missing = self.model.observation_space.shape[0] - len(vector)
        if missing > 0 and actor_size(self.model) == len(vector):  # a critic on the state too:
            vector = np.concatenate([vector, np.zeros(missing, np.float32)])  # the actor ignores it
        action, _ = self.model.predict(vector, action_masks=mask, deterministic=True)
        return int(action)
