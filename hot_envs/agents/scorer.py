"""The action-scoring policy in numpy (checkpoint architecture ``"action_scorer"``).

The actor of ``hot_envs.training.policies.ActionScorerPolicy``: the observation goes through
the state MLP to an embedding; each legal action's ``[embedding, features]``
(:mod:`hot_envs.agents.features`) through the shared scorer MLP to its logit. Weights in the
checkpoint's ``.npz``: ``state_I.weight``/``.bias`` and ``scorer_I.weight``/``.bias`` (torch's
``(out, in)`` shapes), the last scorer layer with one output.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hot_envs.agents.activations import ACTIVATIONS
from hot_envs.agents.features import SPECS, ActionRows, action_features, unpack

ARCHITECTURE = "action_scorer"


class NumpyScorer:
    """Scores legal actions as the torch policy does; :meth:`legal_logits` for one decision,
    :meth:`predict` for a batch of packed inputs."""

    architecture = ARCHITECTURE

    def __init__(
        self, game: str, arrays: dict[str, np.ndarray], activation: str, blocks: bool = True
    ) -> None:
        self.spec = SPECS[game]
        self.game = game
        self.activation = activation
        self._act = ACTIVATIONS[activation]
        self.state = read_layers(arrays, "state", self.spec.observation_size)
        embedding = self.state[-1][0].shape[0]
        self.scorer = read_layers(arrays, "scorer", embedding + self.spec.size)
        if self.scorer[-1][0].shape[0] != 1:
            raise ValueError("the scorer's last layer must have one output")
        # The first scorer layer split into its embedding and feature parts (in, out).
        w, b = self.scorer[0]
        self._scorer_embedding = np.ascontiguousarray(w[:, :embedding].T)
        self._scorer_features = np.ascontiguousarray(w[:, embedding:].T)
        self._scorer_bias = b
        self._state_first = np.ascontiguousarray(self.state[0][0].T)
        # blocks=False runs every layer dense: the reference benchmarks/features.py times.
        self._state_hidden = [_Layer(w, b, blocks) for w, b in self.state[1:]]
        self._scorer_hidden = [_Layer(w, b, blocks) for w, b in self.scorer[1:-1]]

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights as saved in a checkpoint's ``.npz``."""
        out = {}
        for prefix, layers in (("state", self.state), ("scorer", self.scorer)):
            for i, (w, b) in enumerate(layers):
                out[f"{prefix}_{i}.weight"], out[f"{prefix}_{i}.bias"] = w, b
        return out

    def __reduce__(self) -> tuple[type, tuple[str, dict[str, np.ndarray], str]]:
        return NumpyScorer, (self.game, self.arrays(), self.activation)

    def _embed(self, observation: np.ndarray) -> np.ndarray:
        act = self._act
        w, b = self.state[0]
        if observation.ndim == 1:
            nonzero = (observation != 0).nonzero()[0]
            x = act(observation[nonzero] @ self._state_first[nonzero] + b)
        else:  # a batch: its non-zero entries only, in a compiled kernel
            from hot_envs.agents.sparse import first_layer

            x = act(first_layer(observation, self._state_first, b))
        for layer in self._state_hidden:
            x = act(layer(x))
        return x

    def _score(
        self, embedding: np.ndarray, features: np.ndarray, decision: np.ndarray | None = None
    ) -> np.ndarray:
        """Scores ``(..., k)`` of ``features (..., k, size)`` after ``embedding (..., E)``; or,
        given ``decision``, of flat feature rows ``(rows, size)``, row ``r`` after embedding
        ``decision[r]``."""
        act = self._act
        x = features @ self._scorer_features
        state = embedding @ self._scorer_embedding
        # in place: the arrays of rows × width are the cost of a batch
        if decision is None:
            x += state[..., None, :]
            x += self._scorer_bias
        else:
            from hot_envs.agents.sparse import add_rows

            add_rows(x, state, decision, self._scorer_bias)
        act(x, out=x)
        for layer in self._scorer_hidden:
            x = layer(x)
            act(x, out=x)
        w, b = self.scorer[-1]
        return (x @ w[0]) + b[0]

    def legal_logits(self, observation: np.ndarray, view: dict[str, Any], legal: Any) -> np.ndarray:
        """The logits of ``legal`` (ascending action ids) in ``view``'s position."""
        observation = np.asarray(observation, dtype=np.float32)
        features = action_features(self.game, view, [int(a) for a in legal])
        return self._score(self._embed(observation), features)

    def rows_logits(self, observations: np.ndarray, rows: ActionRows) -> np.ndarray:
        """The logits of the legal actions of many decisions in one pass, from their feature
        rows (:class:`~hot_envs.agents.features.ActionRows`): ``(k, longest legal)``, −inf past
        a row's own."""
        embedding = self._embed(np.asarray(observations, dtype=np.float32))
        scores = self._score(embedding, rows.features, rows.decision)
        width = int(rows.lengths.max(initial=1))
        logits = np.full((len(rows.lengths), width), -np.inf, dtype=np.float32)
        logits[rows.decision, rows.slot] = scores
        return logits

    def predict(self, inputs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Argmax actions of a batch of packed inputs (masks as a check: a slot's action must
        be legal)."""
        observations, features, ids = unpack(self.spec, np.asarray(inputs, dtype=np.float32))
        scores = self._score(self._embed(observations), features)
        ids = ids.astype(np.int64)
        scores[ids < 0] = -np.inf
        actions = ids[np.arange(len(ids)), scores.argmax(axis=1)]
        if not np.asarray(masks, dtype=bool)[np.arange(len(ids)), actions].all():
            raise ValueError("a packed input's action slots disagree with its action mask")
        return actions


class _Layer:
    """``x @ weight.T + bias``, block by block where the weight is block-diagonal."""

    def __init__(self, weight: np.ndarray, bias: np.ndarray, blocks: bool = True) -> None:
        self.bias = bias
        split = diagonal_blocks(weight) if blocks else [(slice(None), slice(None))]
        self.blocks = [(r, c, np.ascontiguousarray(weight[r, c].T)) for r, c in split]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        if len(self.blocks) == 1:
            out = x @ self.blocks[0][2]
            out += self.bias
            return out
        out = np.empty(x.shape[:-1] + self.bias.shape, dtype=np.result_type(x, self.bias))
        for rows, cols, weight in self.blocks:
            np.matmul(x[..., cols], weight, out=out[..., rows])
        out += self.bias
        return out


def diagonal_blocks(weight: np.ndarray) -> list[tuple[slice, slice]]:
    """The finest split of ``weight`` (out, in) into blocks ``weight[rows_k, cols_k]`` along its
    diagonal — consecutive row and column ranges that together cover all rows and columns — with
    every entry outside the blocks exactly zero; one block, the whole weight, where there is no
    such split."""
    out, size = weight.shape
    nonzero = weight != 0
    any_row = nonzero.any(axis=1)
    last = np.where(any_row, size - 1 - nonzero[:, ::-1].argmax(axis=1), -1)
    first = np.where(any_row, nonzero.argmax(axis=1), size)
    reach = np.maximum.accumulate(last + 1)  # columns read by rows 0 … r
    after = np.minimum.accumulate(first[::-1])[::-1]  # first column read by rows r …
    blocks = []
    row = col = 0
    for r in range(out - 1):
        if col < reach[r] <= after[r + 1]:
            blocks.append((slice(row, r + 1), slice(col, int(reach[r]))))
            row, col = r + 1, int(reach[r])
    blocks.append((slice(row, out), slice(col, size)))
    return blocks


def layer_count(arrays: Mapping[str, np.ndarray], prefix: str) -> int:
    """How many layers ``prefix_0``, ``prefix_1``, … a checkpoint's arrays hold (by bias)."""
    return sum(1 for name in arrays if name.startswith(f"{prefix}_") and name.endswith(".bias"))


def read_layers(
    arrays: dict[str, np.ndarray], prefix: str, size: int
) -> list[tuple[np.ndarray, ...]]:
    """``prefix_0``, ``prefix_1``, … of a checkpoint's arrays as float32 ``(weight, bias)``
    pairs, each reading the last one's output (the first ``size`` inputs): ``ValueError``
    otherwise."""
    layers = []
    i = 0
    while f"{prefix}_{i}.weight" in arrays:
        w, b = arrays[f"{prefix}_{i}.weight"], arrays.get(f"{prefix}_{i}.bias")
        if b is None or w.ndim != 2 or b.shape != (w.shape[0],) or w.shape[1] != size:
            raise ValueError(f"{prefix}_{i} is missing or misshapen")
        layers.append((w.astype(np.float32), b.astype(np.float32)))
        size = w.shape[0]
        i += 1
    if not layers:
        raise ValueError(f"no {prefix}_0.weight")
    return layers
