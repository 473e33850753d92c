"""An action scorer with an anchor to the heuristic compiled into its network.

    python -m hot_envs.training.anchor CHECKPOINT --weight N=W [--weight N=W …] [--following]
        --out PATH

Writes checkpoint ``PATH`` (``.zip``, ``.npz``, ``.json``): ``CHECKPOINT``'s policy whose logit of
each legal move gains ``W`` times the heuristic's score gap of the move at ``N`` players
(:func:`hot_envs.agents.anchored.compile_anchor`; ``N`` may be ``all``), with ``--following``
only where the player follows a trick. Elsewhere it plays exactly as before. The ``.zip`` is the
same model with the scorer's new units, ready for further training (its optimizer starts
afresh); the JSON's ``training`` block records the weights and keeps the source's own block as
``previous``. No training: a few seconds.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from hot_envs.agents.anchored import compile_anchor
from hot_envs.core.games import get_game
from hot_envs.training.export import export_checkpoint, load_scorer_model, scorer_arrays


def anchor_checkpoint(
    checkpoint: str | Path,
    out: str | Path,
    weights: Mapping[int | None, float],
    following: bool = False,
) -> Path:
    """Write ``out``: ``checkpoint`` (an action scorer with its ``.zip``) with ``weights`` (table
    size, or ``None`` for all, → weight) compiled in, with ``following`` only where the player
    follows a trick (module docstring). Returns the stem.
    ``ValueError`` for an MLP checkpoint, a game without anchor columns or a bad weight;
    ``FileNotFoundError`` without the ``.zip``."""
    model, meta = load_scorer_model(checkpoint, "anchoring")
    game = get_game(meta["game"])
    arrays, activation = scorer_arrays(model)
    anchored = compile_anchor(arrays, activation, game.load("anchor_columns"), weights, following)

    # The same policy with the wider scorer layers: every other weight as it was.
    kwargs: dict[str, Any] = dict(model.policy_kwargs)
    hidden = len(model.policy.scorer_arch)
    kwargs["scorer_arch"] = [len(anchored[f"scorer_{i}.bias"]) for i in range(hidden)]
    policy = model.policy_class(
        model.observation_space, model.action_space, model.lr_schedule, **kwargs
    )
    kept = {k: v for k, v in model.policy.state_dict().items() if ".scorer_net." not in k}
    missing, unexpected = policy.load_state_dict(kept, strict=False)
    if unexpected or any(".scorer_net." not in k for k in missing):
        raise ValueError(f"the rebuilt policy does not fit: {missing or unexpected}")
    linear = [m for m in policy.mlp_extractor.scorer_net if isinstance(m, torch.nn.Linear)]
    with torch.no_grad():
        for i, layer in enumerate(linear):
            layer.weight.copy_(torch.from_numpy(anchored[f"scorer_{i}.weight"]))
            layer.bias.copy_(torch.from_numpy(anchored[f"scorer_{i}.bias"]))
    model.policy, model.policy_kwargs = policy, kwargs

    training = meta.get("training", {})
    record = {"all" if n is None else str(n): float(w) for n, w in weights.items()}
    metadata = {
        "game": game.name,
        "options": meta.get("options", "any"),
        "training": {
            "anchor": {
                "weights": record,
                "feature": "the heuristic's score gap",
                "where": "following a trick" if following else "every decision",
            },
            "steps": training.get("steps", 0),
            "resumed_from": str(checkpoint),
            "previous": training,
        },
    }
    return export_checkpoint(model, out, metadata)


def parse_weight(text: str) -> tuple[int | None, float]:
    """``N=W`` (``N`` a table size or ``all``) as ``(N or None, W)``."""
    players, sep, weight = text.partition("=")
    try:
        if sep:
            return (None if players == "all" else int(players)), float(weight)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"expected N=W, e.g. 6=5.0, not {text!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", help="an action scorer's checkpoint (with its .zip)")
    parser.add_argument(
        "--weight",
        action="append",
        type=parse_weight,
        required=True,
        metavar="N=W",
        help="W on the heuristic's score gap at N players (N: a table size or all); repeatable",
    )
    parser.add_argument(
        "--following", action="store_true", help="only where the player follows a trick"
    )
    parser.add_argument("--out", type=Path, required=True, help="the new checkpoint's path")
    args = parser.parse_args(argv)
    stem = anchor_checkpoint(args.checkpoint, args.out, dict(args.weight), args.following)
    print(f"wrote {stem}.zip, .npz and .json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
