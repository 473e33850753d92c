"""An RLlib checkpoint's policy as the project's numpy checkpoint (``NAME.npz`` + ``NAME.json``).

The ``pi`` MLP of :class:`hot_envs.rllib.module.MaskedPPOTorchRLModule` is exactly what
:class:`hot_envs.agents.checkpoint.NumpyPolicy` runs, so the export copies its ``Linear``
layers to ``layer_0.weight``, ``layer_0.bias``, … and writes the metadata
:func:`hot_envs.agents.checkpoint.read_metadata` checks. The result loads anywhere with numpy
only — ``hot-envs evaluate --agents NAME heuristic``, ``hot-envs play``, the SB3 opponent pool —
and has no ``.zip``: continue training from the RLlib checkpoint itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from ray.rllib.core.rl_module.rl_module import RLModule

from hot_envs.agents.checkpoint import mlp_arrays, write_checkpoint
from hot_envs.core.games import GAMES
from hot_envs.rllib.module import ACTIVATIONS, MaskedPPOTorchRLModule
from hot_envs.training.rllib_league import MAIN

MODULE_PATH = Path("learner_group", "learner", "rl_module")


def load_module(checkpoint: str | Path, module_id: str = MAIN) -> MaskedPPOTorchRLModule:
    """Module ``module_id`` of an ``Algorithm.save_to_path`` folder (or the module's own
    folder), on the CPU."""
    checkpoint = Path(checkpoint)
    folder = checkpoint / MODULE_PATH / module_id
    if not folder.is_dir():
        folder = checkpoint
    if not (folder / "class_and_ctor_args.pkl").is_file():
        raise FileNotFoundError(
            f"no RLlib module {module_id!r} in {checkpoint} (expected {folder}, written by "
            "Algorithm.save_to_path)"
        )
    module = RLModule.from_checkpoint(folder)
    if not isinstance(module, MaskedPPOTorchRLModule):
        raise ValueError(
            f"{folder} holds a {type(module).__name__}; only MaskedPPOTorchRLModule exports"
        )
    return module


def module_layers(module: MaskedPPOTorchRLModule) -> list[tuple[np.ndarray, np.ndarray]]:
    """The policy MLP as numpy ``(weight (out, in), bias)`` pairs."""
    return [
        (layer.weight.detach().cpu().numpy(), layer.bias.detach().cpu().numpy())
        for layer in module.pi
        if isinstance(layer, torch.nn.Linear)
    ]


def game_of(module: MaskedPPOTorchRLModule) -> str:
    """The game whose observation size and action count the module has."""
    size = module.observation_space["observation"].shape[0]
    for name, game in GAMES.items():
        if (game.engine.LAYOUT.size, game.engine.NUM_ACTIONS) == (size, module.action_space.n):
            return name
    raise ValueError(
        f"no hot_envs game has {size} observations and {module.action_space.n} actions"
    )


def export_checkpoint(
    checkpoint: str | Path,
    path: str | Path,
    module_id: str = MAIN,
    options: dict[str, Any] | str = "any",
    training: dict[str, Any] | None = None,
) -> Path:
    """Write ``NAME.npz`` and ``NAME.json`` for module ``module_id`` of an RLlib checkpoint;
    return the stem. The game comes from the module's spaces; each file is replaced atomically;
    the result is checked by loading its metadata back."""
    module = load_module(checkpoint, module_id)
    if module.activation not in ACTIVATIONS:
        raise ValueError(f"cannot export activation {module.activation!r}")
    game = GAMES[game_of(module)]
    layers = [(w.astype(np.float32), b.astype(np.float32)) for w, b in module_layers(module)]
    network = {"hidden": [w.shape[0] for w, _ in layers[:-1]], "activation": module.activation}
    metadata = {
        "options": options,
        "training": {"backend": "rllib", "rllib_checkpoint": str(checkpoint), **(training or {})},
        "evaluation": {},
    }
    return write_checkpoint(path, game.name, mlp_arrays(layers), network, metadata)
