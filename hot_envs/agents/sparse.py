"""The numpy policies' (:mod:`hot_envs.agents.checkpoint`, :mod:`hot_envs.agents.scorer`)
compiled steps over a batch: the first layer reading only the observations' non-zero entries, and
the action scorer's additions to its action rows (:func:`add_rows`).

About a tenth of an observation is non-zero (a sixth in Heiße Karten's late tricks), so a dense
``observations @ weight`` spends most of its work on zeros. One decision at a time the policies
already gather the rows of the non-zero entries; :func:`first_layer` does the same for a whole
batch in one compiled kernel (numba: :mod:`hot_envs.batched.jit`), each output row the sum of
the weight rows where its observation is non-zero: half the CPU time of the dense product in
Heiße Luft's batches, two fifths in Heiße Karten's. Without numba it is the dense product.
Either way the sums are those of the float32 products in another order than BLAS's: the outputs
agree to rounding, as the batched and the one-at-a-time products already did.
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
