"""Several action scorers as one network: the weighted mean of their logits.

:func:`compile_ensemble` lays the networks of k action scorers of one game side by side in one
network of the same architecture: each MLP's first layer stacks theirs, every later layer is
block-diagonal, the scorer's first layer reads each member's part of the embedding and the
shared action features, and the last adds the members' outputs times their weights (summing
to 1). Each legal move's logit is ``sum_i w_i * logit_i``, the policy the normalised product
``prod_i pi_i ** w_i`` (a product of experts); a critic is averaged the same way. The result is
an ordinary checkpoint, which the numpy agent runs block by block
(:func:`hot_envs.agents.scorer.diagonal_blocks`) at the members' cost together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from hot_envs.agents.scorer import layer_count

# The MLPs of an action scorer's arrays: (prefix, whether its last layer is the weighted output).
# "critic" and "value" are the training model's critic (hot_envs.training.ensemble); the
# checkpoint's .npz holds "state" and "scorer" only.
_NETWORKS = (("state", False), ("scorer", True), ("critic", False))


def compile_ensemble(
    members: Sequence[Mapping[str, np.ndarray]], weights: Sequence[float] | None = None
) -> dict[str, np.ndarray]:
    """The arrays of one action scorer whose logits are ``sum_i weights[i] * logit_i`` of the
    ``members``' (module docstring); ``weights`` default to equal, and are scaled to sum to 1.

    Each member holds ``state_0 … state_S`` and ``scorer_0 … scorer_L`` (``.weight`` in torch's
    ``(out, in)`` shape, ``.bias``), optionally ``critic_0 … critic_C`` and ``value`` (a critic's
    hidden layers and its output); their layer counts, input sizes and action features must
    agree. ``ValueError`` for fewer than two members, weights that are not finite and >= 0 with
    a positive sum, or arrays that do not fit."""
    if len(members) < 2:
        raise ValueError("an ensemble needs at least two members")
    w = np.ones(len(members)) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (len(members),):
        raise ValueError(f"{len(members)} members need {len(members)} weights, not {w.size}")
    if not (np.isfinite(w).all() and (w >= 0).all() and w.sum() > 0):
        raise ValueError(f"weights must be finite, >= 0 and not all 0, not {list(w)}")
    w = w / w.sum()
    arrays = [{k: np.asarray(v, dtype=np.float32) for k, v in m.items()} for m in members]
    out: dict[str, np.ndarray] = {}
    embeddings = [_width(m, "state") for m in arrays]
    for prefix, weighted in _NETWORKS:
        counts = {layer_count(m, prefix) for m in arrays}
        if counts == {0} and prefix == "critic":
            continue
        if len(counts) != 1 or 0 in counts:
            raise ValueError(f"the members' {prefix} networks differ in depth ({sorted(counts)})")
        layers = counts.pop()
        for i in range(layers):
            parts = [(m[f"{prefix}_{i}.weight"], m[f"{prefix}_{i}.bias"]) for m in arrays]
            for weight, bias in parts:
                if weight.ndim != 2 or bias.shape != weight.shape[:1]:
                    raise ValueError(f"{prefix}_{i}: a weight (out, in) and a bias (out,)")
            if i == 0 and prefix == "scorer":
                weight = _scorer_first([p[0] for p in parts], embeddings)
            elif i == 0:
                weight = _stacked([p[0] for p in parts], f"{prefix}_0")
            elif weighted and i == layers - 1:
                weight = _weighted([p[0] for p in parts], w, f"{prefix}_{i}")
            else:
                weight = _block_diagonal([p[0] for p in parts])
            if weighted and i == layers - 1:
                bias = _mean([p[1] for p in parts], w)
            else:
                bias = np.concatenate([p[1] for p in parts])
            out[f"{prefix}_{i}.weight"], out[f"{prefix}_{i}.bias"] = weight, bias
    if "critic_0.weight" in out:
        value = [(m.get("value.weight"), m.get("value.bias")) for m in arrays]
        if any(v is None or b is None for v, b in value):
            raise ValueError("every member's critic needs its output layer 'value'")
        out["value.weight"] = _weighted([v for v, _ in value], w, "value")
        out["value.bias"] = _mean([b for _, b in value], w)
    return out


def _width(arrays: Mapping[str, np.ndarray], prefix: str) -> int:
    last = layer_count(arrays, prefix) - 1
    if last < 0:
        raise ValueError(f"a member without its {prefix} network")
    return len(arrays[f"{prefix}_{last}.bias"])


def _stacked(weights: list[np.ndarray], name: str) -> np.ndarray:
    """First layers that read the same input: their rows one after the other."""
    if len({x.shape[1] for x in weights}) != 1:
        raise ValueError(f"{name}: the members read inputs of different sizes")
    return np.vstack(weights)


def _block_diagonal(weights: list[np.ndarray]) -> np.ndarray:
    out = np.zeros((sum(x.shape[0] for x in weights), sum(x.shape[1] for x in weights)), np.float32)
    r = c = 0
    for x in weights:
        out[r : r + x.shape[0], c : c + x.shape[1]] = x
        r, c = r + x.shape[0], c + x.shape[1]
    return out


def _weighted(weights: list[np.ndarray], w: np.ndarray, name: str) -> np.ndarray:
    """Output layers of one unit: side by side, each times its member's weight."""
    if any(x.shape[0] != 1 for x in weights):
        raise ValueError(f"{name}: an output layer has one unit")
    parts = [np.float32(wi) * x for wi, x in zip(w, weights, strict=True)]
    return np.hstack(parts).astype(np.float32)


def _mean(biases: list[np.ndarray], w: np.ndarray) -> np.ndarray:
    """The output biases (one each), weighted."""
    return np.float32([float(np.dot(w, [float(b[0]) for b in biases]))])


def _scorer_first(weights: list[np.ndarray], embeddings: list[int]) -> np.ndarray:
    """The scorer's first layers, which read ``[embedding, action features]``: each member's
    rows read its own part of the joint embedding and every member the same features."""
    features = {x.shape[1] - e for x, e in zip(weights, embeddings, strict=True)}
    if len(features) != 1 or min(features) < 0:
        raise ValueError("scorer_0: the members score different action features")
    f = features.pop()
    total = sum(embeddings)
    out = np.zeros((sum(x.shape[0] for x in weights), total + f), np.float32)
    r = c = 0
    for x, e in zip(weights, embeddings, strict=True):
        out[r : r + x.shape[0], c : c + e] = x[:, :e]
        out[r : r + x.shape[0], total:] = x[:, e:]
        r, c = r + x.shape[0], c + e
    return out
