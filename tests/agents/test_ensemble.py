"""``compile_ensemble``: action scorers of different widths laid side by side in one network
score every legal move with the weighted mean of their logits; bad members or weights are
refused and the members' arrays are left as they were."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.agents.ensemble import compile_ensemble
from hot_envs.agents.features import SPECS
from hot_envs.agents.scorer import NumpyScorer
from tests.agents.helpers import decisions

GAME = "heisse-luft"


def scorer_arrays(seed: int, state: list[int], scorer: list[int], critic: bool = False) -> dict:
    """Random arrays of an action scorer of ``GAME`` with these widths (and a critic)."""
    rng = np.random.default_rng(seed)
    spec = SPECS[GAME]
    out = {}
    sizes = {
        "state": [spec.observation_size, *state],
        "scorer": [state[-1] + spec.size, *scorer, 1],
    }
    if critic:
        sizes["critic"] = [spec.observation_size, 24, 16]
    for prefix, widths in sizes.items():
        for i, (n_in, n_out) in enumerate(zip(widths, widths[1:], strict=False)):
            out[f"{prefix}_{i}.weight"] = rng.normal(0, 0.3, (n_out, n_in)).astype(np.float32)
            out[f"{prefix}_{i}.bias"] = rng.normal(0, 0.3, n_out).astype(np.float32)
    if critic:
        out["value.weight"] = rng.normal(0, 0.3, (1, 16)).astype(np.float32)
        out["value.bias"] = rng.normal(0, 0.3, 1).astype(np.float32)
    return out


def logits(arrays: dict, batch: list) -> list[np.ndarray]:
    scorer = NumpyScorer(GAME, {k: v for k, v in arrays.items() if k[:3] in ("sta", "sco")}, "tanh")
    return [scorer.legal_logits(o["observation"], v, legal) for o, v, legal in batch]


def test_the_ensemble_scores_each_move_with_the_weighted_mean_of_its_members_logits():
    members = [scorer_arrays(1, [32, 8], [16, 12]), scorer_arrays(2, [20, 6], [10, 10])]
    shipped = CheckpointAgent.load("heisse_luft_v0", game=GAME).policy.arrays()
    members.append(shipped)  # three members, three widths
    batch = decisions(GAME, 150)
    alone = [logits(m, batch) for m in members]
    for weights, share in ((None, [1 / 3] * 3), ([2, 1, 1], [0.5, 0.25, 0.25])):
        together = logits(compile_ensemble(members, weights), batch)
        for j, got in enumerate(together):
            want = sum(s * one[j] for s, one in zip(share, alone, strict=True))
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # the shipped policy's own part only: weight 0 on the others plays exactly its moves
    only = logits(compile_ensemble(members, [0, 0, 1]), batch)
    assert all(g.argmax() == o.argmax() for g, o in zip(only, alone[2], strict=True))


def test_the_widths_add_up_and_the_depth_stays():
    arrays = compile_ensemble(
        [scorer_arrays(1, [32, 8], [16, 12]), scorer_arrays(2, [20, 6], [10, 10])]
    )
    assert [arrays[f"state_{i}.bias"].size for i in range(2)] == [52, 14]
    assert [arrays[f"scorer_{i}.bias"].size for i in range(3)] == [26, 22, 1]
    assert arrays["scorer_0.weight"].shape == (26, 14 + SPECS[GAME].size)
    assert all(v.dtype == np.float32 for v in arrays.values())


def test_a_critic_is_averaged_like_the_logits():
    members = [scorer_arrays(s, [16, 8], [8, 8], critic=True) for s in (1, 2)]
    arrays = compile_ensemble(members, [3, 1])
    x = np.random.default_rng(0).normal(size=SPECS[GAME].observation_size).astype(np.float32)

    def value(a: dict) -> float:
        h = x
        for i in range(2):
            h = np.tanh(a[f"critic_{i}.weight"] @ h + a[f"critic_{i}.bias"])
        return float((a["value.weight"] @ h + a["value.bias"])[0])

    assert value(arrays) == pytest.approx(0.75 * value(members[0]) + 0.25 * value(members[1]))


@pytest.mark.parametrize(
    ("weights", "match"),
    [
        ([1.0], "2 members need 2 weights"),
        ([1.0, -1.0], "finite, >= 0"),
        ([0.0, 0.0], "not all 0"),
        ([1.0, float("nan")], "finite"),
    ],
)
def test_bad_weights_are_refused(weights, match):
    members = [scorer_arrays(1, [16, 8], [8, 8]), scorer_arrays(2, [16, 8], [8, 8])]
    with pytest.raises(ValueError, match=match):
        compile_ensemble(members, weights)


def test_members_that_do_not_fit_are_refused_and_left_as_they_were():
    one = scorer_arrays(1, [16, 8], [8, 8])
    before = {k: v.copy() for k, v in one.items()}
    with pytest.raises(ValueError, match="at least two"):
        compile_ensemble([one])
    with pytest.raises(ValueError, match="scorer networks differ in depth"):
        compile_ensemble([one, scorer_arrays(2, [16, 8], [8])])
    with pytest.raises(ValueError, match="state networks differ in depth"):
        compile_ensemble([one, scorer_arrays(2, [16], [8, 8])])
    other = scorer_arrays(2, [16, 8], [8, 8])
    other["scorer_0.weight"] = other["scorer_0.weight"][:, :-1]  # one action feature fewer
    with pytest.raises(ValueError, match="different action features"):
        compile_ensemble([one, other])
    other = scorer_arrays(2, [16, 8], [8, 8])
    other["state_0.weight"] = other["state_0.weight"][:, :-1]
    with pytest.raises(ValueError, match="inputs of different sizes"):
        compile_ensemble([one, other])
    with pytest.raises(ValueError, match="output layer 'value'"):
        broken = scorer_arrays(2, [16, 8], [8, 8], critic=True)
        del broken["value.weight"]
        compile_ensemble([scorer_arrays(3, [16, 8], [8, 8], critic=True), broken])
    assert all(np.array_equal(one[k], before[k]) for k in before)
