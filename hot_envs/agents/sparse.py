"""The numpy policies' (:mod:`hot_envs.agents.checkpoint`, :mod:`hot_envs.agents.scorer`)
compiled steps over a batch: the first layer reading only the observations' non-zero entries, and
the action scorer's additions to its action rows (:func:`add_rows`).

About a tenth of an observation is non-zero, so :func:`first_layer` sums, in one compiled
kernel, the weight rows where each observation is non-zero: half the CPU time of the dense
product in Heiße Luft's batches, two fifths in Heiße Karten's (without numba: the dense
product). The float32 sums are BLAS's in another order: the outputs agree to rounding.
"""

from __future__ import annotations

import numpy as np

from hot_envs.batched.jit import COMPILED, kernel


def first_layer(observations: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """``observations (B, in) @ weight (in, out) + bias`` in float32; ``weight`` and ``bias``
    float32, C-contiguous."""
    observations = np.ascontiguousarray(observations, dtype=np.float32)
    if not COMPILED:
        return observations @ weight + bias
    out = np.empty((len(observations), weight.shape[1]), dtype=np.float32)
    _sparse_product(observations, weight, bias, out)
    return out


@kernel
def _sparse_product(x, weight, bias, out):
    """``out[i] = Σ_j x[i, j] · weight[j] + bias`` over the non-zero ``x[i, j]``, in
    ascending ``j``."""
    width = weight.shape[1]
    for i in range(x.shape[0]):
        row = out[i]
        for h in range(width):
            row[h] = 0.0
        for j in range(x.shape[1]):
            v = x[i, j]
            if v != 0.0:
                w = weight[j]
                for h in range(width):
                    row[h] += v * w[h]
        for h in range(width):
            row[h] += bias[h]


def add_rows(x: np.ndarray, state: np.ndarray, decision: np.ndarray, bias: np.ndarray) -> None:
    """``x += state[decision]; x += bias`` in one pass over ``x`` (rows × width, float32,
    C-contiguous), no gathered copy: the same float32 sums in the same order."""
    if not COMPILED:
        x += state[decision]
        x += bias
        return
    _add_rows(x, np.ascontiguousarray(state), decision, bias)


@kernel
def _add_rows(x, state, decision, bias):
    width = x.shape[1]
    for r in range(x.shape[0]):
        row = x[r]
        add = state[decision[r]]
        for h in range(width):
            row[h] = (row[h] + add[h]) + bias[h]
