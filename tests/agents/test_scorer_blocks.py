"""The numpy action scorer runs block-diagonal hidden layers block by block: ``diagonal_blocks``
finds the finest split of a weight along its diagonal (nothing outside it but zeros), and a
compiled ensemble scores every move as the dense network does."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.agents.ensemble import _block_diagonal, compile_ensemble
from hot_envs.agents.features import action_features, policy_input
from hot_envs.agents.scorer import NumpyScorer, diagonal_blocks
from tests.agents.helpers import decisions
from tests.agents.test_ensemble import GAME, scorer_arrays


def check_split(weight: np.ndarray, blocks: list[tuple[slice, slice]]) -> None:
    """The blocks follow each other along the diagonal, cover every row and column, and every
    entry outside them is zero."""
    rows = cols = 0
    outside = np.ones(weight.shape, dtype=bool)
    for r, c in blocks:
        assert (r.start, c.start) == (rows, cols)
        assert r.stop > r.start and c.stop >= c.start
        rows, cols = r.stop, c.stop
        outside[r, c] = False
    assert (rows, cols) == weight.shape
    assert not weight[outside].any()


@settings(max_examples=100, deadline=None)  # matrices of at most 30 x 30
@given(
    shapes=st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=5),
    seed=st.integers(0, 2**32 - 1),
    zeros=st.floats(0, 0.9),
)
def test_the_split_is_exact_and_no_coarser_than_the_blocks_laid_together(shapes, seed, zeros):
    rng = np.random.default_rng(seed)
    parts = []
    for rows, cols in shapes:
        part = rng.normal(size=(rows, cols)).astype(np.float32)
        part[rng.random((rows, cols)) < zeros] = 0  # units that read little, or nothing
        parts.append(part)
    weight = _block_diagonal(parts)
    blocks = diagonal_blocks(weight)
    check_split(weight, blocks)
    if zeros == 0:  # dense parts: exactly the parts laid together
        assert [(r.stop - r.start, c.stop - c.start) for r, c in blocks] == shapes
    else:
        assert len(blocks) >= sum(part.any() for part in parts)  # never coarser


def test_a_dense_weight_is_one_block():
    weight = np.random.default_rng(0).normal(size=(7, 5))
    assert diagonal_blocks(weight) == [(slice(0, 7), slice(0, 5))]
    weight[3:, :2] = 0  # zeros below the diagonal alone make no split
    assert diagonal_blocks(weight) == [(slice(0, 7), slice(0, 5))]


def dense_logits(arrays: dict, observation: np.ndarray, features: np.ndarray) -> np.ndarray:
    """The action scorer's logits computed layer by layer with the full weights."""
    x = observation
    i = 0
    while f"state_{i}.weight" in arrays:
        x = np.tanh(arrays[f"state_{i}.weight"] @ x + arrays[f"state_{i}.bias"])
        i += 1
    h = np.hstack([np.broadcast_to(x, (len(features), len(x))), features])
    i = 0
    while f"scorer_{i + 1}.weight" in arrays:
        h = np.tanh(h @ arrays[f"scorer_{i}.weight"].T + arrays[f"scorer_{i}.bias"])
        i += 1
    return h @ arrays[f"scorer_{i}.weight"][0] + arrays[f"scorer_{i}.bias"][0]


def test_an_ensemble_runs_in_blocks_and_scores_as_its_dense_network():
    shipped = CheckpointAgent.load("heisse_luft_v0", game=GAME).policy.arrays()
    members = [scorer_arrays(1, [32, 8], [16, 12]), scorer_arrays(2, [20, 6], [10, 10])]
    arrays = compile_ensemble([*members, shipped], [1, 1, 2])
    scorer = NumpyScorer(GAME, arrays, "tanh")
    hidden = scorer._state_hidden + scorer._scorer_hidden
    own = NumpyScorer(GAME, shipped, "tanh")  # may be an ensemble itself
    want = [2 + len(layer.blocks) for layer in own._state_hidden + own._scorer_hidden]
    assert [len(layer.blocks) for layer in hidden] == want
    batch = decisions(GAME, 120)
    for obs, view, legal in batch:
        observation = obs["observation"]
        features = action_features(GAME, view, [int(a) for a in legal])
        want = dense_logits(arrays, observation.astype(np.float32), features)
        got = scorer.legal_logits(observation, view, legal)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    packed = np.stack([policy_input(GAME, o["observation"], v) for o, v, _ in batch])
    masks = np.stack([o["action_mask"] for o, _, _ in batch])
    together = scorer.predict(packed, masks)  # every decision in one pass
    for action, (obs, view, legal) in zip(together.tolist(), batch, strict=True):
        alone = scorer.legal_logits(obs["observation"], view, legal)
        assert action == legal[int(np.argmax(alone))]
