"""Several action scorers of one game compiled into one checkpoint: the mean of their logits.

    python -m hot_envs.training.ensemble CHECKPOINT CHECKPOINT [CHECKPOINT …]
        [--weights W,W,…] --out PATH

Writes checkpoint ``PATH`` (``.zip``, ``.npz``, ``.json``) whose logit of each legal move is the
weighted mean of the members' logits (:func:`hot_envs.agents.ensemble.compile_ensemble`; equal
weights unless ``--weights`` says otherwise), its critic the weighted mean of theirs. The network
is as wide as the members together and has their depth; the ``.zip`` is an ordinary model of that
width, ready for further training (its optimizer starts afresh). The JSON's ``training`` block
names the members, their weights and each member's own block. No training: a few seconds.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import torch

from hot_envs.agents.ensemble import compile_ensemble
from hot_envs.training.export import export_checkpoint, load_scorer_model

# The training model's layers as the ensemble's arrays: torch name -> (prefix, layer index).
_NETS = {"state_net": "state", "scorer_net": "scorer", "critic_net": "critic"}


def model_arrays(model: Any) -> dict[str, np.ndarray]:
    """An action-scoring model's actor and critic as :func:`compile_ensemble`'s arrays."""
    out: dict[str, np.ndarray] = {}
    net = model.policy.mlp_extractor
    for attribute, prefix in _NETS.items():
        linear = [m for m in getattr(net, attribute) if isinstance(m, torch.nn.Linear)]
        for i, layer in enumerate(linear):
            out[f"{prefix}_{i}.weight"] = layer.weight.detach().cpu().numpy()
            out[f"{prefix}_{i}.bias"] = layer.bias.detach().cpu().numpy()
    out["value.weight"] = model.policy.value_net.weight.detach().cpu().numpy()
    out["value.bias"] = model.policy.value_net.bias.detach().cpu().numpy()
    return out


def ensemble_checkpoint(
    checkpoints: list[str | Path], out: str | Path, weights: list[float] | None = None
) -> Path:
    """Write ``out``: the ensemble of ``checkpoints`` (action scorers of one game, with their
    ``.zip``) with ``weights`` (default equal), as the module docstring says. Returns the stem.
    ``ValueError`` for members of different games, activations or critics, or bad weights."""
    loaded = [load_scorer_model(c, "an ensemble") for c in checkpoints]
    games = {meta["game"] for _, meta in loaded}
    if len(games) != 1:
        raise ValueError(f"the members play different games: {sorted(games)}")
    models = [model for model, _ in loaded]
    arrays = compile_ensemble([model_arrays(m) for m in models], weights)

    # One policy as wide as the members together; every setting but the widths is theirs.
    widths = ("state_arch", "scorer_arch", "value_arch")

    def settings(model: Any) -> dict[str, Any]:  # an older model may leave the default unsaid
        kept = {k: v for k, v in model.policy_kwargs.items() if k not in widths}
        return {"critic_state_size": 0, **kept}

    kwargs: dict[str, Any] = dict(models[0].policy_kwargs)
    for model in models[1:]:
        if settings(model) != settings(models[0]):
            raise ValueError(
                f"the members' networks differ beyond their widths: {settings(model)}"
                f" and {settings(models[0])}"
            )
    for key, prefix in zip(widths, ("state", "scorer", "critic"), strict=True):
        layers = sum(1 for name in arrays if name.startswith(f"{prefix}_") and "bias" in name)
        hidden = layers - 1 if prefix == "scorer" else layers
        kwargs[key] = [len(arrays[f"{prefix}_{i}.bias"]) for i in range(hidden)]
    base = models[0]
    policy = base.policy_class(
        base.observation_space, base.action_space, base.lr_schedule, **kwargs
    )
    net = policy.mlp_extractor
    with torch.no_grad():
        for attribute, prefix in _NETS.items():
            linear = [m for m in getattr(net, attribute) if isinstance(m, torch.nn.Linear)]
            for i, layer in enumerate(linear):
                layer.weight.copy_(torch.from_numpy(arrays[f"{prefix}_{i}.weight"]))
                layer.bias.copy_(torch.from_numpy(arrays[f"{prefix}_{i}.bias"]))
        policy.value_net.weight.copy_(torch.from_numpy(arrays["value.weight"]))
        policy.value_net.bias.copy_(torch.from_numpy(arrays["value.bias"]))
    base.policy, base.policy_kwargs = policy, kwargs

    shares = [1.0] * len(models) if weights is None else [float(w) for w in weights]
    total = sum(shares)
    metadata = {
        "game": games.pop(),
        "options": loaded[0][1].get("options", "any"),
        "training": {
            "ensemble": {
                "members": [str(c) for c in checkpoints],
                "weights": [w / total for w in shares],
                "combined": "the weighted mean of the members' logits",
            },
            "steps": max(int(m.num_timesteps) for m in models),
            "previous": [meta.get("training", {}) for _, meta in loaded],
        },
    }
    return export_checkpoint(base, out, metadata)


def parse_weights(text: str) -> list[float]:
    """``W,W,…`` as floats."""
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected W,W,…, e.g. 1,2,1, not {text!r}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoints", nargs="+", help="action scorers' checkpoints (with .zip)")
    parser.add_argument(
        "--weights", type=parse_weights, metavar="W,W,…", help="one per member; default equal"
    )
    parser.add_argument("--out", type=Path, required=True, help="the new checkpoint's path")
    args = parser.parse_args(argv)
    if len(args.checkpoints) < 2:
        parser.error("an ensemble needs at least two checkpoints")
    stem = ensemble_checkpoint(args.checkpoints, args.out, args.weights)
    print(f"wrote {stem}.zip, .npz and .json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
