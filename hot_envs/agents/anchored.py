"""A trained policy anchored to another agent's move at decision time.

:class:`AnchoredAgent` scores each legal move by a checkpoint's logit plus ``weight`` on the move
the prior agent (the heuristic) would play, and plays the best: the product of the two policies,
the checkpoint's distribution times ``exp(weight)`` on the prior's move, as KL-regularised
policies (piKL) are. Weight 0 is the checkpoint itself, ``inf`` the prior; in between the
checkpoint leaves the prior's move only where its own best logit is more than ``weight`` higher.
``benchmarks/heuristic_anchor.py`` measures it against the opponent suite, and it serves as a
teacher to clone (agent spec ``anchored[:WEIGHT[:POLICY]]``:
``training/configs/heisse_karten_anchored_scorer.toml``).

:func:`compile_anchor` builds a softer anchor into an action scorer's own network, so that it
ships as an ordinary checkpoint: each legal move's logit gains ``weight`` times the heuristic's
score gap of the move (its score minus the best score, at most 0; the feature column the game's
``anchor_columns`` names), at the table sizes chosen, and if asked only where the player follows
a trick rather than leads it. The heuristic's best moves keep their logits; the others lose in
proportion to how much worse the heuristic finds them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from hot_envs.agents.base import Agent
from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.agents.features import AnchorColumns
from hot_envs.agents.scorer import layer_count
from hot_envs.core.games import get_game

WEIGHT = 6.0  # the default weight on the prior's move: the shipped Heiße Karten policy's teacher


class AnchoredAgent:
    """``policy``'s logits plus ``weight`` on ``prior``'s move; the argmax of the sum (module
    docstring). ``ValueError`` for a weight below 0 or nan."""

    def __init__(self, policy: CheckpointAgent, prior: Agent, weight: float) -> None:
        if not weight >= 0:
            raise ValueError(f"weight must be >= 0 or inf, not {weight!r}")
        self.policy, self.prior, self.weight = policy, prior, weight
        self.name = f"anchored:{weight:g}"

    def reset(self) -> None:
        for agent in (self.policy, self.prior):
            getattr(agent, "reset", lambda: None)()

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any] | None = None) -> int:
        legal = np.asarray(observation["action_mask"], dtype=bool).nonzero()[0]
        if len(legal) == 1:
            return int(legal[0])
        prior = int(self.prior.act(observation, view))
        if math.isinf(self.weight):
            return prior
        logits = self.policy.legal_logits(observation, view, legal)
        logits = logits - logits.max() + self.weight * (legal == prior)
        return int(legal[logits.argmax()])


def anchored(
    game: str,
    seed: int | None = None,
    policy: str | None = None,
    weight: float = WEIGHT,
    prior: str = "heuristic",
) -> AnchoredAgent:
    """The agent spec ``anchored[:WEIGHT[:POLICY]]``: ``policy`` (a checkpoint; default the
    game's shipped one) anchored to ``prior`` (an agent of the game's description) with
    ``weight``. ``ValueError`` if ``policy`` names no checkpoint."""
    policy = policy or get_game(game).checkpoint
    try:
        network = CheckpointAgent.load(policy, game=game, seed=seed)
    except FileNotFoundError as error:
        raise ValueError(
            f"the anchored policy must be a checkpoint, not {policy!r} ({error})"
        ) from None
    return AnchoredAgent(network, get_game(game).load(prior)(seed), weight)


# A compiled anchor's units (compile_anchor): the gap scaled down so that tanh is linear to
# within 0.1 % where a unit is on; where it is off, tanh saturates to exactly -1 in float32
# (tanh(16) rounds to 1). Powers of two: the scalings themselves round nothing.
_SCALE, _OFF = 1 / 128, 16.0


def compile_anchor(
    arrays: Mapping[str, np.ndarray],
    activation: str,
    columns: AnchorColumns,
    weights: Mapping[int | None, float],
    following: bool = False,
) -> dict[str, np.ndarray]:
    """An action scorer's checkpoint arrays (:mod:`hot_envs.agents.scorer`) with an anchor to the
    heuristic compiled in: at ``players`` N (a key of ``weights``; ``None``: at every size), the
    logit of each legal move gains ``weights[N]`` times its gap, the ``columns.gap`` feature;
    with ``following``, only where the player does not lead the trick (``columns.leading``).

    Each weight adds one unit to every hidden layer of the scorer (two to the first, for tanh
    with a table size or ``following``), read by no other unit. Where the term is off the
    logits are exactly as before (for tanh and one hidden layer, to float32 rounding); where it
    is on, ReLU passes the gap exactly and tanh to within 0.1 % and 5e-4 times the weight.
    ``ValueError`` for weights not finite and >= 0, table sizes the features do not flag, or
    arrays of another shape."""
    weights = dict(weights)
    for players, weight in weights.items():
        if not (isinstance(weight, int | float) and math.isfinite(weight) and weight >= 0):
            raise ValueError(f"an anchor's weight must be finite and >= 0, not {weight!r}")
        if players is not None and players not in (columns.players or {}):
            raise ValueError(f"the features flag no table of {players!r} players")
    if following and columns.leading is None:
        raise ValueError("the features flag no leading player: nothing to anchor 'following'")
    if activation not in ("tanh", "relu"):
        raise ValueError(f"cannot compile an anchor into {activation!r} units")
    out = {name: np.array(value, dtype=np.float32) for name, value in arrays.items()}
    hidden = layer_count(out, "scorer") - 1
    last = out.get(f"scorer_{hidden}.weight")
    if hidden < 1 or last is None or last.shape[0] != 1:
        raise ValueError("not an action scorer's arrays: scorer_0 … scorer_L, one output")
    first = out["scorer_0.weight"]
    features = first.shape[1] - out[f"state_{layer_count(out, 'state') - 1}.bias"].shape[0]
    if not 0 <= columns.gap < features:
        raise ValueError(f"the gap column {columns.gap} is outside {features} features")
    tanh = activation == "tanh"
    terms = [(players, float(w)) for players, w in weights.items() if w > 0]
    for players, weight in terms:
        # The first layer's new unit: the gap where the term is on; where a flag turns it off,
        # a large negative input. ReLU gives 0 there; tanh gives -1, so a tanh term also gets a
        # gate unit, -1 where off and exactly 0 where on, and the next layer reads the
        # difference: exactly 0 where off (no large constant in the logits to round them).
        row = np.zeros(first.shape[1], np.float32)
        bias = 0.0
        if players is not None:
            row[first.shape[1] - features + columns.players[players]] = _OFF
            bias = -_OFF
        if following:
            row[first.shape[1] - features + columns.leading] = -_OFF
        gated = tanh and row.any()
        rows = [row.copy()] if gated else []  # the gate unit, before the gap goes in
        row[first.shape[1] - features + columns.gap] = _SCALE if tanh else -1.0  # ReLU: -gap
        rows.insert(0, row)
        out["scorer_0.weight"] = first = np.vstack([first, *rows])
        out["scorer_0.bias"] = np.append(out["scorer_0.bias"], np.float32([bias] * len(rows)))
        reads = np.float32([1.0, -1.0][: len(rows)])  # the term's unit(s) of the layer before
        for i in range(1, hidden):  # pass it on: a unit that reads only the term's units
            w = out[f"scorer_{i}.weight"]
            grown = np.zeros((w.shape[0] + 1, w.shape[1] + len(reads)), np.float32)
            grown[:-1, : w.shape[1]], grown[-1, w.shape[1] :] = w, reads
            out[f"scorer_{i}.weight"] = grown
            out[f"scorer_{i}.bias"] = np.append(out[f"scorer_{i}.bias"], np.float32(0.0))
            reads = np.float32([1.0])
        scale = weight / _SCALE if tanh else -weight
        out[f"scorer_{hidden}.weight"] = np.hstack(
            [out[f"scorer_{hidden}.weight"], np.float32([scale * reads])]
        )
    return out
